// The kernel's fast-forward, the part that does not depend on the arbitration policies: which
// stepped cycle the following ones repeat (note_steady(), note_steady_heads(), note_turns(),
// note_rotation()), the turns of a leap over strict-TDM class changes and throttle windows
// (next_turn(), window_turn()), and the skips over cycles in which nothing can move (skip()).
// The leaps and rotations themselves are kernel_fast_forward.h. docs/kernel.md, "Skipping".
#include <algorithm>
#include <bit>
#include <cstdint>

#include "kernel_fast_forward.h"

namespace sbufsim {

// Records a cycle whose successors differ from it only in which PE client wins stage 1
// (rotate()). Holds when: every ready beat took part (no dependency or back-pressure gate, none
// throttled, TDM not strict, no run ended); no two beats but the PE candidates share a bank; and
// a PE candidate's banks meet only beats of the DMA-class order, whose place against the stage-2
// order (and so against the winner) only the slot's precedence decides (rotation_grants()).
// Then whichever PE client wins, what goes through follows from its banks and the slot alone,
// so the next cycles repeat this one with the stage-1 winner following the stage-1 policy, until
// a run would end or something issues. The cycle just stepped must be one such cycle.
[[gnu::noinline]] void Kernel::note_rotation(std::uint64_t s1, std::uint32_t winner, TdmClass prec,
                                             std::uint64_t granted, std::uint64_t stage2, std::uint64_t dma,
                                             std::uint64_t psum) {
    const std::uint64_t others = ready_ & ~s1;
    if ((depwait_ | backpressure_) & ready_) return;
    // A concurrency rule between two ready beats decides by order, not by banks.
    if (((dve_sbuf_ & ready_) && (gpsimd_sbuf_ & ready_)) || ((dve_psum_ & ready_) && (act_psum_ & ready_)))
        return;
    std::uint64_t once = 0, twice = 0;
    for_each_bit(others, [&](std::uint32_t c) {
        twice |= once & head_mask_[c];
        once |= head_mask_[c];
    });
    if (twice) return;
    std::uint64_t s1_banks = 0;
    for_each_bit(s1, [&](std::uint32_t c) { s1_banks |= head_mask_[c]; });
    const std::uint64_t dma_order = others & sbuf_mask_ & dma_class_ & ~stage2_mask_;
    std::uint64_t contested = 0, contested_banks = 0, meets = 0;
    std::uint32_t left = ~0u;
    for_each_bit(others, [&](std::uint32_t c) {
        if (!(head_mask_[c] & s1_banks)) {
            left = std::min(left, run_left_[c]);
            return;
        }
        contested |= bit(c);
        contested_banks |= head_mask_[c];
        if (head_mask_[c] & head_mask_[winner]) meets |= bit(c);
    });
    if ((contested & ~dma_order) || left == 0) return;
    if (rotation_grants(others, meets, winner, prec) != granted) return;
    rotation_ = {true, left, s1, others, contested, contested_banks, stage2, dma, psum};
}

// After a step in which runs ended (their next runs or requests are the heads now): the next
// cycles grant every ready beat when nothing gates one (no dependency or back-pressure; the caller
// saw none throttled and TDM not strict), at most one PE client is ready, no concurrency rule has
// both sides ready, no two heads share a bank and none is the last beat of its run. Then they
// repeat until the shortest run ends, as after a steady step (leap()).
[[gnu::noinline]] void Kernel::note_steady_heads() {
    const std::uint64_t ready = ready_;
    const std::uint64_t s1 = ready & sbuf_mask_ & stage1_mask_;
    if (!ready || ((depwait_ | backpressure_) & ready) || (s1 & (s1 - 1))) return;
    if (((dve_sbuf_ & ready) && (gpsimd_sbuf_ & ready)) || ((dve_psum_ & ready) && (act_psum_ & ready)))
        return;
    // Out at the first head of one beat or on a taken bank (1-beat records: every step ends runs).
    std::uint64_t taken = 0;
    std::uint32_t left = ~0u;
    for (std::uint64_t m = ready; m; m &= m - 1) {
        const std::uint32_t c = static_cast<std::uint32_t>(std::countr_zero(m));
        if (run_left_[c] == 0 || (taken & head_mask_[c])) return;
        taken |= head_mask_[c];
        left = std::min(left, run_left_[c]);
    }
    const std::uint64_t sb = ready & sbuf_mask_;
    steady_ = {true,
               left,
               ready,
               sb,
               (sb & stage2_mask_) | (s1 ? bit(kPeRdPort) : 0),
               sb & dma_class_,
               ready & psum_mask_clients_};
}

// Records a cycle the next ones repeat (leap()): the granted clients' shortest run has
// `cycles` + 1 beats left (a granted throttled client's bucket, `cycles` more grants in t's
// window), and every cycle until then grants the same; the `gated` clients stay held.
[[gnu::noinline]] void Kernel::note_steady(std::uint64_t granted, std::uint64_t sbuf, std::uint64_t stage2,
                                           std::uint64_t dma, std::uint64_t psum, std::uint64_t gated,
                                           Cycle t) {
    std::uint32_t left = shortest_run(granted);
    // A throttled client granted in t is granted again while its bucket lasts in t's window.
    for_each_bit(granted & throttled_, [&](std::uint32_t c) {
        left = static_cast<std::uint32_t>(std::min<Cycle>(left, throttlers_[c].grants_after(t)));
    });
    const bool windows = throttle_windows();
    if (left == 0 && !windows) return;
    steady_ = {true, left, granted, sbuf, stage2, dma, psum, gated};
    steady_.windows = windows;
}

// Whether `clients`, all ready and none gated, would all be granted in one cycle whatever the
// arbiters' order: at most one PE client (a second would lose stage 1), no concurrency rule with
// both sides among them, no two on one bank.
bool Kernel::go_together(std::uint64_t clients) const {
    const std::uint64_t s1 = clients & sbuf_mask_ & stage1_mask_;
    if (s1 & (s1 - 1)) return false;
    if (((dve_sbuf_ & clients) && (gpsimd_sbuf_ & clients)) ||
        ((dve_psum_ & clients) && (act_psum_ & clients)))
        return false;
    std::uint64_t taken = 0;
    for (std::uint64_t m = clients; m; m &= m - 1) {
        const std::uint64_t banks = head_mask_[std::countr_zero(m)];
        if (taken & banks) return false;
        taken |= banks;
    }
    return true;
}

// Strict TDM, after a steady cycle (note_steady()): at the next class change the TDM gate holds
// the SBUF clients the cycle granted and lets through the ones it held. When those would all go
// through together as well (none throttled, at most one PE client, no two on one bank, no
// concurrency rule with both sides among them), the cycles of that turn repeat as the steady
// cycle's do, and so on turn after turn: the beats a dependency or back-pressure holds stay held
// (nothing completes in a leap) and the PSUM clients, which no TDM gate holds, go through in
// every turn. The leap then goes on past the class change (leap(), next_turn()).
[[gnu::noinline]] void Kernel::note_turns() {
    if (ready_ & throttled_) return;
    // step() charged every gated client; those it left to the TDM gate are the other class's.
    const std::uint64_t held = steady_.gated & ~(depwait_ | backpressure_);
    if (!(held | steady_.sbuf)) return;  // no SBUF beat: the class changes nothing
    if (!go_together(held)) return;
    steady_.turns = true;
    steady_.held = held;
}

// The masks of a steady cycle that grants `granted` (at most one PE client, go_together()): its
// SBUF grants and the arbiters' candidates, all of them granted.
void Kernel::steady_grants(std::uint64_t granted) {
    const std::uint64_t sb = granted & sbuf_mask_;
    steady_.granted = granted;
    steady_.sbuf = sb;
    steady_.stage2 = (sb & stage2_mask_) | ((sb & stage1_mask_) ? bit(kPeRdPort) : 0);
    steady_.dma = sb & dma_class_;
    steady_.psum = granted & psum_mask_clients_;
}

// At a class change inside a leap with turns (note_turns()): the clients the TDM gate held go
// through, the ones that went through are held (a TDM stall), as step() would have them.
void Kernel::next_turn() {
    const std::uint64_t through = steady_.held, held = steady_.sbuf;
    for_each_bit(held, [&](std::uint32_t c) { ports_[c].last_cause = StallCause::tdm; });
    steady_grants(through | steady_.psum);
    steady_.held = held;
    steady_.gated = (steady_.gated & ~through) | held;
    steady_.cycles = shortest_run(steady_.granted);
}

// Throttlers, TDM not strict, after a cycle that granted every ready beat a gate let through
// (note_steady(), whose leap stops where a granted client's bucket runs out): whether the ready
// clients a dependency or back-pressure does not hold would all go through together but for
// their buckets (go_together()). Then what the following cycles grant and hold follows from the
// buckets alone, window after window, until a run ends or a request issues (leap()):
// nothing completes in a leap, so a dependency that holds a beat goes on holding it, and
// back-pressure changes only between runs. (A bucket spent by the step's own grant leaves no
// steady cycles to leap: the windows start at once.)
bool Kernel::throttle_windows() const {
    return (ready_ & throttled_) && !tdm_.strict() && go_together(ready_ & ~(depwait_ | backpressure_));
}

// At cycle now_ of a leap over throttle windows (throttle_windows()): as step() would find it, the
// ready clients whose bucket allows a beat go through and the others are held (a throttle stall)
// until the first of their windows refills, next to those a dependency or back-pressure holds.
// steady_ becomes that cycle, which the following ones repeat while the buckets and the runs
// last (none, when a run's last beat goes through in it: step() takes that cycle).
void Kernel::window_turn() {
    const Cycle t = now_;
    const std::uint64_t waiting = ready_ & (depwait_ | backpressure_);  // held all along, by their gate
    std::uint64_t held = 0;
    Cycle release = kNever;
    for_each_bit(ready_ & throttled_ & ~waiting, [&](std::uint32_t c) {
        if (throttlers_[c].allows(t)) return;
        held |= bit(c);
        release = std::min(release, throttlers_[c].next_window(t));
    });
    const std::uint64_t through = ready_ & ~(held | waiting);
    Cycle left = shortest_run(through);
    for_each_bit(through & throttled_,
                 [&](std::uint32_t c) { left = std::min(left, throttlers_[c].grants_from(t)); });
    for_each_bit(held, [&](std::uint32_t c) { ports_[c].last_cause = StallCause::throttle; });
    steady_grants(through);
    steady_.cycles = left;
    steady_.gated = held | waiting;
    gate_release_ = release;
}

// Cycles [from, to) in which no beat can move. With `gated`, the previous cycle had ready beats
// that were all stopped by a gate that stays shut until `to` (dependency, back-pressure, strict
// TDM, throttler), so each is charged its cause again; otherwise nothing is ready at all.
void Kernel::skip(Cycle from, Cycle to, bool gated) {
    const Cycle len = to - from;
    stats_.cycles += len;
    add_slot_cycles(from, len, [](TdmSlotStats& ss, Cycle k) {
        ss.cycles += k;
        ss.idle += k;
    });
    if (gated) for_each_bit(ready_, [&](std::uint32_t c) { charge(c, ports_[c].last_cause, len); });
}

}  // namespace sbufsim
