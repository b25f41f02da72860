// Policy `fixed_priority`: strict priority only (the CSR priority, higher wins), ties broken by
// the lower port, weights ignored; no state, so nothing moves between cycles. A what-if for how
// much the DWRR stage of priority_dwrr (arb_priority_dwrr.h) evens out equal-priority clients:
// here the lowest-numbered one of a level always goes first.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <string_view>

#include "sbufsim/kernel/arbiter.h"

namespace sbufsim {

class FixedPriority {
public:
    static constexpr std::string_view kName = "fixed_priority";

    void add_port(std::uint32_t port, std::uint32_t prio, std::uint32_t weight);
    // One mask per priority level with candidates, highest first (arbiter.h).
    std::uint32_t segments(std::uint64_t candidates, std::uint64_t* out) const;
    std::uint32_t first(std::uint64_t candidates) const;
    void settle(std::uint64_t, std::uint64_t) {}
    void settle_granted(std::uint64_t, std::uint64_t) {}

private:
    static constexpr std::uint32_t kLevels = 8;  // the 3-bit arb_prio field
    std::array<std::uint64_t, kLevels> members_{};  // by priority, highest first
    std::uint32_t levels_ = 0;                      // leading entries of members_ in use
    std::array<std::uint32_t, kLevels> prio_{};
};

inline std::uint32_t FixedPriority::segments(std::uint64_t candidates, std::uint64_t* out) const {
    std::uint32_t n = 0;
    for (std::uint32_t l = 0; l < levels_; ++l) {
        out[n] = candidates & members_[l];
        n += out[n] != 0;
    }
    return n;
}

inline std::uint32_t FixedPriority::first(std::uint64_t candidates) const {
    for (std::uint32_t l = 0; l < levels_; ++l)
        if (const std::uint64_t m = candidates & members_[l]) return static_cast<std::uint32_t>(std::countr_zero(m));
    return 0;
}

}  // namespace sbufsim
