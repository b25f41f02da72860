// The kernel requests one instruction is waiting for (at most one per client it used; requests of
// one client complete in order, so the last one per client is enough).
#pragma once

#include <array>
#include <cstdint>

#include "sbufsim/kernel/kernel.h"

namespace sbufsim {

struct RequestSet {
    std::array<RequestId, 6> ids{};
    std::uint8_t n = 0;
    // Submits `r` and remembers it.
    void submit(Kernel& k, const Request& r) { add(k.submit(r)); }
    void add(RequestId id);
    bool complete(const Kernel& k) const {
        for (std::uint8_t i = 0; i < n; ++i)
            if (!k.is_complete(ids[i])) return false;
        return true;
    }
    // The clients (bit = index) of the requests not complete yet.
    std::uint64_t pending_clients(const Kernel& k) const {
        std::uint64_t m = 0;
        for (std::uint8_t i = 0; i < n; ++i)
            if (!k.is_complete(ids[i])) m |= std::uint64_t{1} << index(request_client(ids[i]));
        return m;
    }
    void clear() { n = 0; }
};

}  // namespace sbufsim
