#include "sbufsim/kernel/arb_fixed_priority.h"

#include <algorithm>

namespace sbufsim {

void FixedPriority::add_port(std::uint32_t port, std::uint32_t prio, std::uint32_t) {
    // Priorities above the 3-bit field share its top level (the key table allows 0..7; the DMA
    // order's boost adds 8 only in the DMA-class arbiter, which is always priority_dwrr).
    prio = std::min(prio, kLevels - 1);
    std::uint32_t l = 0;
    while (l < levels_ && prio_[l] > prio) ++l;
    if (l == levels_ || prio_[l] != prio) {
        // A new level at l: shift the lower ones down by one.
        for (std::uint32_t k = levels_; k > l; --k) {
            prio_[k] = prio_[k - 1];
            members_[k] = members_[k - 1];
        }
        prio_[l] = prio;
        members_[l] = 0;
        ++levels_;
    }
    members_[l] |= std::uint64_t{1} << port;
}

}  // namespace sbufsim
