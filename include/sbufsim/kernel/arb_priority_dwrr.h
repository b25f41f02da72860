// Policy `priority_dwrr`: strict priority + deficit-weighted round robin among equal priorities,
// the policy of both stages of the SBUF cluster arbiter (tpb_sbuf_cluster.json
// arb_stage1/arb_stage2, seed 000 §7.1) and the default of arbiter.stage1.policy /
// arbiter.stage2.policy; always used for the DMA-class order and the PSUM arbiter (INFERRED,
// docs/kernel.md). The seam it fills: arbiter.h.
//
// Ports are bit positions 0..63 of a 64-bit mask. Each port has a 3-bit priority (higher wins)
// and a 4-bit weight. Inside one priority level a pointer names the favoured port, which keeps
// first place for `weight` granted beats, then the pointer moves past it (a deficit of one beat
// per grant, refilled to `weight` when the pointer reaches a port).
//
// State only changes in settle(), and only for levels where two or more ports contended in that
// cycle, so cycles without contention (and skipped idle cycles) leave it untouched.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <string_view>
#include <vector>

#include "sbufsim/kernel/arbiter.h"

namespace sbufsim {

class PriorityDwrr {
public:
    static constexpr std::string_view kName = "priority_dwrr";
    static constexpr std::uint32_t kPorts = kArbiterPorts;

    // Setup: declare a port. Weight 0 is treated as 1 (a 0 weight would starve the port forever;
    // the seeds do not say what the RTL does with it, INFERRED).
    void add_port(std::uint32_t port, std::uint32_t prio, std::uint32_t weight);

    // The grant order (priority descending, then cyclic from the level's pointer) as masks: per
    // priority level with candidates (highest first) the candidates at or after the level's
    // pointer, then those before it; each mask is visited lowest bit first. Writes the non-empty
    // ones of those 2 masks per level to `out` (room for 2 * popcount(candidates) + 1 needed)
    // and returns how many.
    std::uint32_t segments(std::uint64_t candidates, std::uint64_t* out) const;

    // The single winner (first in segments()); only meaningful when candidates != 0.
    std::uint32_t first(std::uint64_t candidates) const;

    // Updates the DWRR state after a cycle: `candidates` are the ports that took part,
    // `granted` the subset that got their beat through.
    void settle(std::uint64_t candidates, std::uint64_t granted);
    // The same as `cycles` calls of settle(candidates, candidates): every candidate granted in
    // each of that many consecutive cycles. Whole rounds of a level (every contender served its
    // weight) leave it as it was, so the cost is one round at most.
    void settle_granted(std::uint64_t candidates, std::uint64_t cycles);

private:
    struct Level {
        std::uint32_t prio = 0;
        std::uint64_t members = 0;
        std::uint32_t ptr = 0;      // favoured port (or where the search for it starts)
        std::uint32_t credit = 0;   // grants left for the port at ptr
        bool fresh = true;          // credit not yet loaded for the port at ptr
    };
    static std::uint32_t favoured(const Level& l, std::uint64_t m);

    std::vector<Level> levels_;  // sorted by priority, highest first
    std::array<std::uint8_t, kPorts> weight_{};
};

// Hot path, inline: called several times per kernel cycle.

// First port of `m` at or after the level's pointer, cyclically.
inline std::uint32_t PriorityDwrr::favoured(const Level& l, std::uint64_t m) {
    const std::uint64_t hi = m & (~std::uint64_t{0} << l.ptr);
    return static_cast<std::uint32_t>(std::countr_zero(hi ? hi : m));
}

// Always inlined: in the grown cycle loop GCC otherwise calls it out of line (about 30
// instructions per call more under callgrind, several calls per cycle).
[[gnu::always_inline]] inline std::uint32_t PriorityDwrr::segments(std::uint64_t candidates, std::uint64_t* out) const {
    std::uint32_t n = 0;
    for (const Level& l : levels_) {
        const std::uint64_t m = candidates & l.members;
        if (!m) continue;
        const std::uint64_t split = ~std::uint64_t{0} << l.ptr;
        // Empty halves are left out (written, not counted): the caller's loop skips them free.
        out[n] = m & split;
        n += (m & split) != 0;
        out[n] = m & ~split;
        n += (m & ~split) != 0;
    }
    return n;
}

inline std::uint32_t PriorityDwrr::first(std::uint64_t candidates) const {
    for (const Level& l : levels_) {
        const std::uint64_t m = candidates & l.members;
        if (m) return favoured(l, m);
    }
    return 0;
}

inline void PriorityDwrr::settle(std::uint64_t candidates, std::uint64_t granted) {
    // No level can have two contenders among fewer than two candidates (the usual PSUM and
    // DMA-class cycle): nothing to walk.
    if (!(candidates & (candidates - 1))) return;
    for (Level& l : levels_) {
        const std::uint64_t m = candidates & l.members;
        if (!m || !(m & (m - 1))) continue;  // fewer than two contenders: no state change
        // Written without branches (the outcome is data the predictor cannot learn):
        // the favoured port gets its credit loaded when the pointer reaches it; a granted beat
        // spends one (a blocked one keeps its turn), and the last one moves the pointer past it.
        // (GCC turns a conditional select of the credit into a branch: masks instead.)
        const std::uint32_t fav = favoured(l, m);
        const std::uint32_t load = 0u - static_cast<std::uint32_t>((fav != l.ptr) | l.fresh);
        std::uint32_t credit = (std::uint32_t{weight_[fav]} & load) | (l.credit & ~load);
        credit -= static_cast<std::uint32_t>(granted >> fav & 1);
        const bool spent = credit == 0;  // credit >= 1 unless a grant just spent the last
        static_assert(std::has_single_bit(kPorts));
        l.ptr = (fav + static_cast<std::uint32_t>(spent)) & (kPorts - 1);
        l.credit = credit;
        l.fresh = spent;
    }
}

inline void PriorityDwrr::settle_granted(std::uint64_t candidates, std::uint64_t cycles) {
    for (Level& l : levels_) {
        const std::uint64_t m = candidates & l.members;
        if (!m || !(m & (m - 1))) continue;  // fewer than two contenders: no state change
        std::uint64_t left = cycles;
        bool rounds_skipped = false;
        while (left) {
            // One turn: the favoured port keeps first place for its credit, then the pointer
            // moves past it (settle(), one grant at a time).
            const std::uint32_t fav = favoured(l, m);
            if (fav != l.ptr || l.fresh) {
                l.ptr = fav;
                l.credit = weight_[fav];
                l.fresh = false;
            }
            const std::uint64_t take = std::min<std::uint64_t>(left, l.credit);
            l.credit -= static_cast<std::uint32_t>(take);
            left -= take;
            if (l.credit) break;
            l.ptr = (fav + 1) % kPorts;
            l.fresh = true;
            if (!rounds_skipped) {  // a turn boundary: from here the turns repeat every round
                std::uint64_t round = 0;
                for (std::uint64_t r = m; r; r &= r - 1) round += weight_[std::countr_zero(r)];
                left %= round;
                rounds_skipped = true;
            }
        }
    }
}

}  // namespace sbufsim
