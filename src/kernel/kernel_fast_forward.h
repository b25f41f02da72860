// The kernel's fast-forward, the part compiled with each policy's cycle loop: the leaps over
// repeated steady cycles (leap(), leap_turns(), leap_cycles()) and the stage-1 rotations
// (rotate()), templates on the stage-1 / stage-2 policies so that their arbiter calls are direct.
// kernel.cpp instantiates them with the cycle loop; the setup of each (which cycle a leap or a
// rotation may follow: note_steady(), note_rotation(), ...) and the skips over idle and gated
// cycles are kernel_fast_forward.cpp. What each one relies on: docs/kernel.md, "Skipping".
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>

#include "kernel_private.h"

namespace sbufsim {

// Which beats go through in a cycle of a rotation (rotate()) that the stage-1 winner `w` wins in
// a slot where `prec` has precedence, when no two of the other beats share a bank and the only
// ones a PE candidate's banks meet are in the DMA-class order (`contested`; `meets`: those that
// meet w). Slot of the compute class: the stage-2 order, with w, goes first, so w is granted and
// the contested beats it meets lose to it. Slot of the DMA class: the DMA-class order goes first,
// so every contested beat is granted and w loses if it meets one. Returns the granted clients.
inline std::uint64_t Kernel::rotation_grants(std::uint64_t others, std::uint64_t meets, std::uint32_t w,
                                             TdmClass prec) {
    if (prec == TdmClass::dma && meets) return others;
    return (others & ~meets) | bit(w);
}

// The cycles from now_ on that repeat the steady cycle: up to the shortest run's end (steady_.cycles
// more), `target`, the next issue, the class `change` when the cycle grants SBUF beats, or the
// release of a gate that holds some (the step's gate_release_, still current; in a turn, the class
// change).
inline Cycle Kernel::steady_len(Cycle target, Cycle change) const {
    Cycle len = std::min<Cycle>(steady_.cycles, target - now_);
    if (next_issue_ != kNever) len = std::min(len, next_issue_ - now_);
    if (steady_.sbuf) len = std::min(len, change - now_);
    if (steady_.gated) len = std::min(len, gate_release_ - now_);
    return len;
}

// The cycles after a steady step (step() sets steady_): the same clients are ready with the same
// banks, no gate holds anyone and no bank is wanted twice, so each cycle grants every one of them
// again and only their runs count down and the round-robin pointers move. Taken up to the cycle
// in which the shortest run ends, a pending request issues, the strict-TDM precedence changes or
// `target`; with strict-TDM turns (note_turns()) on past each class change into the other class's
// turn (leap_turns()). Identical to stepping them (tests/test_kernel_accounting.cpp).
template <class Stage1, class Stage2>
void Kernel::leap(Cycle target, Stage1& arb1, Stage2& arb2) {
    if (steady_.turns) {
        leap_turns(target, arb1, arb2);
    } else {
        const Cycle change =
            tdm_.strict() && steady_.sbuf ? tdm_.next_change(now_ - 1, slot_at(now_ - 1)) : kNever;
        // Over throttle windows (throttle_windows()): where the steady cycles stop at an empty
        // bucket or a refill, the next ones are those window_turn() finds, while no run ends, no
        // request issues and `target` is ahead. (One loop around the one leap_cycles(): a second
        // copy of it here made GCC stop inlining the step's grant loop.)
        for (bool turned = false;; turned = true) {
            const Cycle len = steady_len(target, change);
            if (len)
                leap_cycles(len, arb1, arb2);
            else if (turned)
                break;  // a run's last beat comes next
            if (!steady_.windows || now_ >= target || now_ >= next_issue_) break;
            window_turn();
        }
    }
    steady_.on = false;  // taken; the next step decides again
}

// A leap with strict-TDM turns: at each class change the other class's turn (next_turn()), while
// no run ends, no request issues and `target` is ahead. A turn may start right away: the step's
// cycle was the last of a slot (a DMA slot of one cycle, as in the shipped configs).
template <class Stage1, class Stage2>
void Kernel::leap_turns(Cycle target, Stage1& arb1, Stage2& arb2) {
    Cycle change = tdm_.next_change(now_ - 1, slot_at(now_ - 1));
    for (;;) {
        if (now_ == change) {
            // Taken even where the leap ends (a run's last beat, an issue, the target: no cycle
            // of the turn is leapt): the step there holds and lets through the same clients.
            next_turn();
            change = tdm_.next_change(now_);
            gate_release_ = change;
        }
        const Cycle len = steady_len(target, change);
        if (len == 0) return;
        leap_cycles(len, arb1, arb2);
        if (now_ != change) return;  // a run's last beat, an issue or the target comes first
    }
}

// `len` cycles of a leap from now_ on, every one granting steady_.granted and holding
// steady_.gated.
template <class Stage1, class Stage2>
[[gnu::always_inline]] inline void Kernel::leap_cycles(Cycle len, Stage1& arb1, Stage2& arb2) {
    stats_.cycles += len;
    // The beats a gate held in the step stay held: charged their gate's cause, as a gated skip().
    for_each_bit(steady_.gated, [&](std::uint32_t c) { charge(c, ports_[c].last_cause, len); });
    const bool compute = steady_.sbuf & compute_class_, dma = steady_.sbuf & dma_class_;
    add_slot_cycles(now_, len, [&](TdmSlotStats& ss, Cycle k) {
        ss.cycles += k;
        if (compute) ss.compute_used += k;
        if (dma) ss.dma_used += k;
        if (!steady_.sbuf) ss.idle += k;
    });
    // (A client the step noted from its new heads may have lost in it: its stall run ends here.)
    for_each_bit(steady_.granted, [&](std::uint32_t c) {
        run_left_[c] -= static_cast<std::uint32_t>(len);
        stall_run_[c] = 0;
    });
    for_each_bit(steady_.granted & throttled_,
                 [&](std::uint32_t c) { throttlers_[c].on_grants(now_, static_cast<std::uint32_t>(len)); });
    // A steady cycle has at most one stage-1 candidate (a second would have lost), granted.
    if (const std::uint64_t s1 = steady_.granted & stage1_mask_) arb1.settle_granted(s1, len);
    arb2.settle_granted(steady_.stage2, len);
    if (steady_.dma) dma_arb_.settle_granted(steady_.dma, len);
    if (steady_.psum) psum_arb_.settle_granted(steady_.psum, len);
    now_ += len;
    slot_cycle_ = kNever;
}

// The cycles after a rotating step (step() sets rotation_): the same clients are ready with the
// same banks; each cycle the stage-1 policy picks a PE winner among the same candidates, the
// others lose stage 1, and what else goes through follows from the winner's banks and the slot's
// precedence (rotation_grants()): the beats no PE candidate meets are granted every cycle, a
// contested one is granted or loses to the winner, or the winner loses to it. Each cycle is taken
// as step() would take it, less everything that cannot change. The arbiters whose candidates all
// went through settle in batches (`settle_granted`), the others once per cycle in which one lost;
// a PE candidate's stage-1 losses are charged once per stall run (at its next win or the end);
// the uncontested clients' runs count down once at the end, the contested ones' by the cycles
// they were granted. A stage-1 winner's grant that ends its run is taken here too (grant(): the
// next run, or the request's completion and the next head); the rotation goes on while that head
// is ready at once, has no dependency and meets no beat but contested ones, or without the winner
// when that head is not ready yet (or none is queued) and another PE candidate is left (with
// none left, the others go on to a leap: note_steady()), and stops
// after a completion that fills the completion ring or that run_until() watches. It stops before a cycle
// in which another client's run could end, at the next issue or `target`. Identical to stepping
// them (tests/test_kernel_accounting.cpp, KernelRotation and KernelRotationContested).
template <class Stage1, class Stage2>
void Kernel::rotate(Cycle target, Stage1& arb1, Stage2& arb2) {
    rotation_.on = false;  // taken; the next step decides again
    const Rotation r = rotation_;
    Cycle limit = std::min<Cycle>(r.cycles, target - now_);
    if (next_issue_ != kNever) limit = std::min(limit, next_issue_ - now_);
    std::uint64_t ready = ready_;
    std::uint64_t s1 = r.s1;  // the PE candidates: a winner whose next request is not ready leaves
    std::uint64_t others_banks = 0;
    for_each_bit(r.others, [&](std::uint32_t c) { others_banks |= head_mask_[c]; });
    // The contested beats: whose each bank is, how often each lost (it is granted in every other
    // cycle) and in which cycle it last did (a grant in between ends its stall run).
    std::uint32_t owner[64];
    std::uint64_t lost[kClientSlots], last_lost[kClientSlots];
    Cycle cap = kNever;  // the first cycle in which a contested run could end: min(run_left + lost)
    for_each_bit(r.contested, [&](std::uint32_t c) {
        for_each_bit(head_mask_[c], [&](std::uint32_t b) { owner[b] = c; });
        lost[c] = 0;
        last_lost[c] = ~std::uint64_t{0};  // the cycle before the rotation
        cap = std::min<Cycle>(cap, run_left_[c]);
    });
    // The PE candidates' stage-1 losses, charged a stall run at a time: each loses stage 1 in every
    // cycle from s1_from[c] on until it wins (then the losses are charged, before that cycle's
    // own outcome) or the rotation ends. A stall run only grows until a grant ends it, so its
    // longest (max_run_) and its sum come out as the cycle-by-cycle charges would.
    Cycle s1_from[kClientSlots];
    for_each_bit(s1, [&](std::uint32_t c) { s1_from[c] = 0; });
    const auto charge_stage1_losses = [&](std::uint32_t c, Cycle until) {
        if (const Cycle k = until - s1_from[c]) {
            charge(c, StallCause::stage1_loss, k);
            contended_[c] += k;
        }
    };
    const auto meets_of = [&](std::uint32_t w) {
        std::uint64_t m = 0;
        for_each_bit(head_mask_[w] & r.contested_banks, [&](std::uint32_t b) { m |= bit(owner[b]); });
        return m;
    };
    // The stage-1 winner's grant in cycle t (n counts it already): false when the rotation stops.
    const auto winner_granted = [&](std::uint32_t w, Cycle t) {
        if (run_left_[w]) {  // grant() without its run end
            stall_run_[w] = 0;
            --run_left_[w];
            return true;
        }
        // The winner's run ends with this grant: its next run or next request becomes the head.
        grant(w, t);
        if (watched_done_ || (!ring_.empty() && ring_.size() - (ring_tail_ - ring_head_) < n_)) return false;
        if (ready_ == (ready & ~bit(w))) {
            // Its next request issues later (or none is queued): the others go on taking turns
            // (a PE candidate fewer meets no beat it did not meet before), down to one left, which
            // wins every cycle it is not beaten by a contested beat. next_issue_ below stops the
            // rotation before that request is ready.
            s1 &= ~bit(w);
            ready = ready_;
            if (!s1) return false;  // the last one left: the others are granted every cycle (below)
        } else if (ready_ != ready || (depwait_ >> w & 1) ||
                   (head_mask_[w] & others_banks & ~r.contested_banks)) {
            return false;  // the next cycle is not the same rotation: step() takes it
        }
        if (next_issue_ != kNever) limit = std::min(limit, next_issue_ - now_);
        return true;
    };
    const std::uint32_t slots = tdm_.slots();
    std::uint32_t slot = slot_;  // of cycle now_ - 1, the step just taken
    Cycle n = 0, stage2_full = 0, dma_full = 0;
    // Every PE candidate of one TDM class and in SBUF: a cycle's class use does not depend on
    // which one wins.
    const auto one_class = [&](std::uint64_t cls) { return !(r.s1 & cls) || (r.s1 & cls) == r.s1; };
    const bool uncontested =
        !r.contested && !(r.s1 & ~sbuf_mask_) && one_class(compute_class_) && one_class(dma_class_);
    if (uncontested) {
        // No PE candidate's banks meet another beat: each cycle grants the others and the
        // winner, so only the winner, the stage-1 state and the runs change, and each cycle adds
        // the same to the TDM slot statistics (added at the end).
        while (n < limit) {
            const std::uint32_t w = arb1.first(s1);
            charge_stage1_losses(w, n);
            s1_from[w] = n + 1;
            if (s1 != bit(w)) {  // its stage-1 win (step() counts a lone candidate's grant as uncontended)
                ++contended_[w];
                ++won_[w];
            }
            arb1.settle(s1, bit(w));
            const Cycle t = now_ + n++;
            if (!winner_granted(w, t)) break;
        }
        const std::uint64_t gs = (r.others | r.s1) & sbuf_mask_;
        const Cycle compute = (gs & compute_class_) != 0, dma = (gs & dma_class_) != 0;
        add_slot_cycles(now_, n, [&](TdmSlotStats& ss, Cycle k) {
            ss.cycles += k;
            ss.compute_used += compute * k;
            ss.dma_used += dma * k;
        });
        if (n) slot = slot_at(now_ + n - 1);
        stage2_full = dma_full = n;
    }
    while (!uncontested && n < limit) {
        if (n >= cap) {  // a contested client may have lost since: its run ends later
            cap = kNever;
            for_each_bit(r.contested,
                         [&](std::uint32_t c) { cap = std::min<Cycle>(cap, run_left_[c] + lost[c]); });
            if (n >= cap) break;
        }
        const Cycle t = now_ + n;
        const std::uint32_t w = arb1.first(s1);
        slot = slot + 1 == slots ? 0 : slot + 1;
        const TdmClass prec = tdm_.precedence(slot);
        const std::uint64_t meets = r.contested ? meets_of(w) : 0;
        const std::uint64_t granted = rotation_grants(r.others, meets, w, prec);
        const std::uint64_t losers = (r.others | bit(w)) & ~granted;
        TdmSlotStats& ss = stats_.tdm_slots[slot];
        const std::uint64_t gs = granted & sbuf_mask_;
        ++ss.cycles;
        ss.compute_used += (gs & compute_class_) != 0;
        ss.dma_used += (gs & dma_class_) != 0;
        ss.idle += gs == 0;
        // The others lose stage 1 in this cycle: charged when they win or the rotation ends.
        charge_stage1_losses(w, n);
        s1_from[w] = n + 1;
        // The banks both the winner and a contested beat wanted, and who lost them to whom.
        const std::uint64_t twice = head_mask_[w] & others_banks;
        for_each_bit(twice, [&](std::uint32_t b) { ++bank_conflicts_[b]; });
        const std::uint64_t prec_class = prec == TdmClass::dma ? dma_class_ : compute_class_;
        for_each_bit(losers, [&](std::uint32_t c) {
            const std::uint64_t lost_banks = head_mask_[c] & (c == w ? others_banks : head_mask_[w]);
            // A loser lost some bank (lost_banks != 0); the mask tells the compiler so.
            const std::uint32_t b = static_cast<std::uint32_t>(std::countr_zero(lost_banks)) & 63u;
            const std::uint32_t blk = c == w ? owner[b] : w;
            if (c != w) {
                if (last_lost[c] + 1 != n) stall_run_[c] = 0;  // granted since its last loss
                last_lost[c] = n;
                ++lost[c];
            }
            const bool by_tdm = (prec_class >> blk & ~(prec_class >> c)) & 1;
            charge(c, by_tdm ? StallCause::tdm : StallCause::bank_conflict);
            ++stats_.blocked_by[std::size_t{c} * n_ + blk];
            ++bank_stalls_[b];
            bank_tdm_stalls_[b] += by_tdm;
            ++contended_[c];
        });
        // Granted beats that met another: the winner (its stage-1 win, or a contested beat it
        // met when it is the last PE candidate left, as step() counts a lone one), the contested
        // it beat.
        const std::uint64_t w_met = s1 != bit(w) || meets ? bit(w) : 0;
        for_each_bit(granted & (meets | w_met), [&](std::uint32_t c) {
            ++contended_[c];
            ++won_[c];
        });
        const bool w_granted = granted & bit(w);
        arb1.settle(s1, w_granted ? bit(w) : 0);
        if (w_granted) {
            ++stage2_full;
        } else {
            arb2.settle_granted(r.stage2, stage2_full);
            stage2_full = 0;
            arb2.settle(r.stage2, r.stage2 & ~bit(kPeRdPort));
        }
        if (!(losers & r.dma)) {
            ++dma_full;
        } else {
            dma_arb_.settle_granted(r.dma, dma_full);
            dma_full = 0;
            dma_arb_.settle(r.dma, granted & r.dma);
        }
        ++n;
        if (w_granted && !winner_granted(w, t)) break;
    }
    if (n == 0) return;
    for_each_bit(s1, [&](std::uint32_t c) { charge_stage1_losses(c, n); });
    stats_.cycles += n;
    for_each_bit(r.others & ~r.contested,
                 [&](std::uint32_t c) { run_left_[c] -= static_cast<std::uint32_t>(n); });
    for_each_bit(r.contested, [&](std::uint32_t c) {
        run_left_[c] -= static_cast<std::uint32_t>(n - lost[c]);
        if (last_lost[c] + 1 != n) stall_run_[c] = 0;  // granted in the last cycle
    });
    arb2.settle_granted(r.stage2, stage2_full);
    if (r.dma) dma_arb_.settle_granted(r.dma, dma_full);
    if (r.psum) psum_arb_.settle_granted(r.psum, n);
    now_ += n;
    slot_cycle_ = now_ - 1;
    slot_ = slot;
    // The last PE candidate left (its next request is not ready): the beats left share no bank and
    // met only PE candidates, so each cycle grants all of them, as after a steady step (leap()),
    // until the shortest run ends; stage 2 without the PE port, as step() would have it.
    if (!s1 && r.others)
        note_steady(r.others, r.others & sbuf_mask_, r.stage2 & ~bit(kPeRdPort), r.dma, r.psum, 0, now_ - 1);
}

}  // namespace sbufsim
