#include "sbufsim/kernel/arb_priority_dwrr.h"

#include <algorithm>

namespace sbufsim {

void PriorityDwrr::add_port(std::uint32_t port, std::uint32_t prio, std::uint32_t weight) {
    weight_[port] = static_cast<std::uint8_t>(std::max<std::uint32_t>(1, weight));
    auto it = std::find_if(levels_.begin(), levels_.end(),
                           [&](const Level& l) { return l.prio == prio; });
    if (it == levels_.end()) {
        levels_.push_back(Level{prio, 0, 0, 0, true});
        std::sort(levels_.begin(), levels_.end(),
                  [](const Level& a, const Level& b) { return a.prio > b.prio; });
        it = std::find_if(levels_.begin(), levels_.end(),
                          [&](const Level& l) { return l.prio == prio; });
    }
    it->members |= std::uint64_t{1} << port;
}

}  // namespace sbufsim
