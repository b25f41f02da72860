// One on-chip tensor operand reduced to what the kernel needs: region, partition span, byte
// range inside each partition, and what the cost model needs (elements, innermost stride).
#pragma once

#include <cstdint>

#include "sbufsim/kernel/request.h"

namespace sbufsim {

struct TensorAccess {
    Region region = Region::none;
    std::uint16_t first = 0;       // first partition
    std::uint16_t parts = 0;       // partitions
    std::uint32_t offset = 0;      // byte offset inside each partition
    std::uint32_t bytes = 0;       // bytes moved per partition (elements x dtype size, clamped)
    std::uint64_t elems = 0;       // elements per partition
    std::uint32_t elem_bytes = 4;
    bool strided = false;          // innermost stride over EngineTiming::stride_penalty_bytes
    bool contiguous = true;        // innermost step of one element (VectorE performance mode)
    bool present() const { return region != Region::none && parts != 0 && bytes != 0; }
    std::uint64_t total_bytes() const { return std::uint64_t{bytes} * parts; }
};

// The request moving `a` over `client` (op rd/wr/raw), issued at `issue`.
Request make_request(ClientId client, Op op, const TensorAccess& a, Cycle issue);

}  // namespace sbufsim
