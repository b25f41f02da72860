// How an instruction's operand reaches the kernel: as up to `chunks` evenly spaced bursts over
// `span` cycles from its issue cycle, each at least `min_bytes` per partition (one beat), so that
// an engine streams at its interface rate instead of taking every beat at once
// (width.stream_chunks; docs/engines.md "SBUF ports").
#pragma once

#include <cstdint>

#include "sbufsim/engines/request_set.h"
#include "sbufsim/engines/tensor_access.h"
#include "sbufsim/kernel/kernel.h"

namespace sbufsim {

struct Pacing {
    Cycle span = 0;              // 0: one request
    std::uint32_t chunks = 1;    // <= 1: one request
    std::uint32_t min_bytes = 1;
};

// Submits `a` over `client` as the bursts `pace` describes, remembering each in `into` (requests
// of one client complete in order, so the set keeps the last).
void submit_paced(Kernel& k, RequestSet& into, ClientId client, Op op, const TensorAccess& a, Cycle issue,
                  const Pacing& pace);

// Submits a read `rd` and a write `wr` of one client (an SBUF->SBUF DMA) as alternating bursts,
// burst i of the read before burst i of the write: a client's requests complete in order, so
// every write queued behind the whole read would move only after the read's last burst.
void submit_paced_pair(Kernel& k, RequestSet& into, ClientId client, const TensorAccess& rd, const TensorAccess& wr,
                       Cycle issue, const Pacing& pace);

}  // namespace sbufsim
