// The kernel's private parts, shared by its sources (kernel.cpp: setup, queues, the cycle loop;
// kernel_fast_forward.cpp and kernel_fast_forward.h: skips, leaps, rotations): the per-client
// Port record, the bit helpers, and the small members both the cycle loop and the fast-forward
// call per cycle, inline here so that each is inlined where it is called as before the split.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "sbufsim/kernel/kernel.h"

namespace sbufsim {

namespace {

constexpr std::uint32_t kPeRdPort = 63;  // stage-2 port of the stage-1 winner
constexpr std::uint64_t bit(std::uint32_t c) { return std::uint64_t{1} << c; }
constexpr std::uint32_t cause_index(StallCause c) { return static_cast<std::uint32_t>(c); }

// Bits lo..hi inclusive (hi <= 31).
constexpr std::uint32_t bit_range(std::uint32_t lo, std::uint32_t hi) {
    return static_cast<std::uint32_t>(((std::uint64_t{2} << hi) - 1) & ~((std::uint64_t{1} << lo) - 1));
}

template <typename F>
inline void for_each_bit(std::uint64_t m, F&& f) {
    for (; m; m &= m - 1) f(static_cast<std::uint32_t>(std::countr_zero(m)));
}

}  // namespace

namespace kernel_detail {
// The probe's stall hook (window_stats.h), out of line and cold (kernel.cpp): charge() then
// carries only a null test and a call, so the cycle loop is laid out as without a probe.
[[gnu::noinline, gnu::cold]] void probe_stall(ActivityProbe* p, std::uint32_t c, StallCause cause, Cycle t,
                                              std::uint64_t n);
}  // namespace kernel_detail

// Per-client queue and head-beat state. Everything the cycle loop touches per client lives here;
// the per-client statistics that change every cycle are kept here too and copied into Stats by
// stats(), so the loop does not walk the large ClientStats records.
struct Kernel::Port {
    // Queue: a power-of-two ring of requests, grown only by submit().
    std::vector<Queued> q;
    std::uint64_t q_mask = 0;           // q.size() - 1
    std::uint64_t head = 0, tail = 0;   // monotonic counts; slot = count & q_mask
    std::uint64_t submitted = 0;        // requests so far (ClientStats::requests)
    std::uint64_t beats_requested = 0;  // ClientStats, copied by stats()

    // Static.
    Region region = Region::sbuf;
    std::uint32_t ppb = 0;         // partitions per beat, 0 = all
    std::uint32_t bpb = 8;         // bytes per partition per beat
    std::uint32_t max_parts = 0;   // partitions of the client's region (submit's checks)
    std::uint64_t max_bytes = 0;   // bytes a partition of the region may be addressed at
    bool partition_banks = false;  // SBUF in HalfSelect::partition mode: the banks follow the
                                   // partitions only (uniform_run())

    // Head request. Its beats go partition chunk major, then byte chunk, then (raw) the read and
    // the write slot; what the arbitration sees of a beat is only its banks and its bytes, so the
    // beats are handed out in runs that share both (load_run()).
    Cycle issue = 0, start = 0;
    RequestId after = kNoRequest;
    std::uint32_t first = 0, parts = 0, offset = 0, bytes = 0;
    std::uint32_t chunk_parts = 0;   // partitions per beat of this request
    std::uint32_t pcs = 0, bcs = 0;  // partition chunks, byte chunks per partition chunk
    std::uint32_t full_bcs = 0;      // byte chunks of a full bpb bytes (bcs or bcs - 1)
    std::uint32_t rep = 1;           // beats per chunk: 2 for raw (read slot, write slot)
    bool offset_banks = false;       // the bank mask depends on the byte offset
    std::uint32_t pc = 0, bc = 0;    // the first chunk not yet in the current run (pc == pcs: none)
    std::uint32_t beat_bytes = 0;    // bytes the head beat moves (banks: Kernel::head_mask_)

    // Hot statistics. grant_count and bytes_moved are counted a run ahead: set_run() adds the
    // whole run, and stats() takes off the beats of the head run not granted yet.
    std::uint64_t beats = 0, bytes_moved = 0;
    // The gate that stopped the head beat in the last stepped cycle, when a gate did: a gated
    // skip() charges the skipped cycles to it.
    StallCause last_cause = StallCause::dependency;
    // Bank grants not yet added to BankStats (or to `beats`): `grant_count` grants on
    // `grant_mask`, the banks of every head beat since the last flush.
    std::uint64_t grant_mask = 0;
    std::uint64_t grant_count = 0;
    // ClientStats of the completed requests, kept here rather than in stats_ (the Port is at
    // hand in complete(); the ClientStats record is not) and copied by stats(): ClientStats's
    // completed is completed_[c].
    LatencyHistogram latency;
    std::uint64_t wait_cycles = 0;
};

// The TDM slot of cycle t (t mod tdm.max_slots), without a division for the last stepped cycle
// or the one after it.
inline std::uint32_t Kernel::slot_at(Cycle t) const {
    // (The next cycle first: step() asks for it every cycle it steps in a row.)
    if (t == slot_cycle_ + 1 && slot_cycle_ != kNever) return slot_ + 1 == tdm_.slots() ? 0 : slot_ + 1;
    if (t == slot_cycle_) return slot_;
    return tdm_.slot(t);
}

// The stall and the run of stalled cycles it extends, counted without a branch. (Keeping the
// runs per run instead, noted where they start and measured where a grant ends them, takes
// fewer instructions but loops over the runs that start or end in a cycle, and with random
// banks those loops mispredict more than the counters here cost: docs/kernel.md.)
inline void Kernel::charge(std::uint32_t c, StallCause cause, std::uint64_t n) {
    stalls_[std::size_t{c} * kCauseStride + cause_index(cause)] += n;
    stall_run_[c] += n;
    max_run_[c] = std::max(max_run_[c], stall_run_[c]);
    // now_ is the charged cycle: step(t) runs with now_ == t, a gated skip starts at now_.
    if (probe_) [[unlikely]]
        kernel_detail::probe_stall(probe_, c, cause, now_, n);
}

// A gate's stall (dependency, back-pressure, strict TDM, throttler): remembered for a gated skip
// or a leap.
inline void Kernel::charge_gate(std::uint32_t c, StallCause cause) {
    charge(c, cause);
    ports_[c].last_cause = cause;
    gated_ |= bit(c);
}

// Inlined into step() (once per granted beat); load_run() and complete() stay out of line (once
// per run of beats, once per request). The beat's bytes and bank grant were counted when its run
// was loaded; throttler and probe hooks run in step().
[[gnu::always_inline]] inline void Kernel::grant(std::uint32_t c, Cycle t) {
    stall_run_[c] = 0;
    if (run_left_[c]) {  // the next beat has the same banks and bytes (seed 000 §8 step 5: one slot per beat)
        --run_left_[c];
        return;
    }
    end_run(c, t);
}

// The grant of a run's last beat: the request's next run, or its completion and the next head.
inline void Kernel::end_run(std::uint32_t c, Cycle t) {
    if (ports_[c].pc < ports_[c].pcs)
        load_run(c);
    else
        complete(c, t);
}

// The beats left after the head in the shortest run of `clients` (~0u: none).
inline std::uint32_t Kernel::shortest_run(std::uint64_t clients) const {
    std::uint32_t left = ~0u;
    for_each_bit(clients, [&](std::uint32_t c) { left = std::min(left, run_left_[c]); });
    return left;
}

// Adds `len` cycles from `from` on to the TDM slot statistics: f(slot stats, cycles in that slot).
template <typename F>
inline void Kernel::add_slot_cycles(Cycle from, Cycle len, F&& f) {
    const std::uint32_t slots = tdm_.slots();
    std::uint32_t s = slot_at(from);
    if (len < slots) {  // short (gated skips between strict-TDM class changes): no division
        for (Cycle i = 0; i < len; ++i) {
            f(stats_.tdm_slots[s], 1);
            s = s + 1 == slots ? 0 : s + 1;
        }
        return;
    }
    const Cycle full = len / slots;
    const Cycle rem = len % slots;
    for (std::uint32_t i = 0; i < slots; ++i) {
        const Cycle k = full + (i < rem ? 1 : 0);
        if (k) f(stats_.tdm_slots[s], k);
        s = s + 1 == slots ? 0 : s + 1;
    }
}

}  // namespace sbufsim
