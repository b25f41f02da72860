#include "sbufsim/kernel/arb_round_robin.h"

namespace sbufsim {

void RoundRobin::add_port(std::uint32_t, std::uint32_t, std::uint32_t) {}

void RoundRobin::settle_granted(std::uint64_t candidates, std::uint64_t cycles) {
    if (!cycles || !candidates || !(candidates & (candidates - 1))) return;
    // Each cycle grants the favourite and moves the pointer past it, so after n cycles the
    // pointer is past the candidate n-1 places (cyclically, in port order) after the favourite.
    const std::uint32_t fav = first(candidates);
    const auto count = static_cast<std::uint64_t>(std::popcount(candidates));
    const auto at = static_cast<std::uint64_t>(std::popcount(candidates & ((std::uint64_t{1} << fav) - 1)));
    std::uint64_t m = candidates;
    for (std::uint64_t skip = (at + cycles - 1) % count; skip; --skip) m &= m - 1;
    ptr_ = (static_cast<std::uint32_t>(std::countr_zero(m)) + 1) % kArbiterPorts;
}

}  // namespace sbufsim
