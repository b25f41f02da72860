// Policy `round_robin`: plain round robin over all ports, priorities and weights ignored (a
// what-if against the CSR-programmed priority+DWRR, arb_priority_dwrr.h). One pointer names the
// favoured port; once it is granted in a cycle where two or more ports contended, the pointer
// moves past it. A blocked favourite (its bank went to another) keeps its turn. This is
// priority_dwrr with every port at one priority and weight 1.
#pragma once

#include <bit>
#include <cstdint>
#include <string_view>

#include "sbufsim/kernel/arbiter.h"

namespace sbufsim {

class RoundRobin {
public:
    static constexpr std::string_view kName = "round_robin";

    // Setup: priority and weight are ignored.
    void add_port(std::uint32_t port, std::uint32_t prio, std::uint32_t weight);
    // Candidates at or after the pointer, then those before it (arbiter.h).
    std::uint32_t segments(std::uint64_t candidates, std::uint64_t* out) const;
    std::uint32_t first(std::uint64_t candidates) const;
    void settle(std::uint64_t candidates, std::uint64_t granted);
    // n turns in closed form: the pointer ends past the (n-1)-th candidate after the favourite.
    void settle_granted(std::uint64_t candidates, std::uint64_t cycles);

private:
    std::uint32_t ptr_ = 0;
};

inline std::uint32_t RoundRobin::segments(std::uint64_t candidates, std::uint64_t* out) const {
    const std::uint64_t split = ~std::uint64_t{0} << ptr_;
    std::uint32_t n = 0;
    out[n] = candidates & split;
    n += (candidates & split) != 0;
    out[n] = candidates & ~split;
    n += (candidates & ~split) != 0;
    return n;
}

inline std::uint32_t RoundRobin::first(std::uint64_t candidates) const {
    const std::uint64_t hi = candidates & (~std::uint64_t{0} << ptr_);
    return static_cast<std::uint32_t>(std::countr_zero(hi ? hi : candidates));
}

inline void RoundRobin::settle(std::uint64_t candidates, std::uint64_t granted) {
    if (!candidates || !(candidates & (candidates - 1))) return;  // no contention: no turn taken
    const std::uint32_t fav = first(candidates);
    if (granted >> fav & 1) ptr_ = (fav + 1) % kArbiterPorts;
}

}  // namespace sbufsim
