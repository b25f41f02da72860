// Policy `oldest_first`: an age-matrix arbiter. The port granted least recently goes first;
// every port granted in a cycle becomes younger than all the others, in the order they had
// (so ports granted together keep their order). Priorities and weights are ignored. Before any
// grant, ports are ordered by the order they were declared in (the kernel declares them by
// client index). A what-if for a fairness-first arbiter with no CSR tuning.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "sbufsim/kernel/arbiter.h"

namespace sbufsim {

class OldestFirst {
public:
    static constexpr std::string_view kName = "oldest_first";

    void add_port(std::uint32_t port, std::uint32_t prio, std::uint32_t weight);
    // One single-port mask per candidate, oldest first (arbiter.h).
    std::uint32_t segments(std::uint64_t candidates, std::uint64_t* out) const;
    std::uint32_t first(std::uint64_t candidates) const;
    void settle(std::uint64_t candidates, std::uint64_t granted);
    // Granting the same ports again leaves their order as one grant left it.
    void settle_granted(std::uint64_t candidates, std::uint64_t cycles) {
        if (cycles) settle(candidates, candidates);
    }

private:
    std::array<std::uint8_t, kArbiterPorts> by_age_{};  // declared ports, oldest first
    std::uint32_t ports_ = 0;
};

inline std::uint32_t OldestFirst::segments(std::uint64_t candidates, std::uint64_t* out) const {
    std::uint32_t n = 0;
    for (std::uint32_t i = 0; i < ports_; ++i) {
        out[n] = std::uint64_t{1} << by_age_[i];
        n += (candidates & out[n]) != 0;
    }
    return n;
}

inline std::uint32_t OldestFirst::first(std::uint64_t candidates) const {
    for (std::uint32_t i = 0; i < ports_; ++i)
        if (candidates >> by_age_[i] & 1) return by_age_[i];
    return 0;
}

}  // namespace sbufsim
