// The bank-conflict kernel: who gets which SBUF/PSUM ECC bank in each cycle, and why everyone
// else waits (DESIGN.md "The kernel", seed 000 §7.1-§7.2, §8 step 5). Plain C++: no SystemC.
//
// Usage (setup, then a loop of submit / run / drain):
//
//     Kernel k(params);
//     const ClientId act = *k.client_index("act_rd");      // names at setup only
//     RequestId id = k.submit({.client = act, .partitions = 128, .bytes = 512, .issue = 10});
//     k.run_until(1000);                                    // simulate cycles [now(), 1000)
//     Completion c; while (k.pop_completion(c)) { ... }     // when options.completion_capacity
//     print_report(std::cout, k.stats());
//
// Per cycle t, for every client whose head beat is ready (issue reached):
//   dependency -> PSUM back-pressure -> TDM gate (strict mode) -> throttler -> stage 1 (PE clients,
//   one winner) -> stage 2 / DMA-class order -> greedy bank grant, precedence class of slot t
//   first. PSUM banks are granted separately among the PSUM clients (no TDM). Stage 1 and 2 run
//   the policies of arbiter.stage1.policy / arbiter.stage2.policy (default priority + DWRR,
//   arbiter_registry.h); the DMA-class order and PSUM always priority + DWRR.
// A client moves at most one beat per cycle; a request's beats move in order, requests of one
// client in submission order.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "sbufsim/address/address.h"
#include "sbufsim/config/params.h"
#include "sbufsim/kernel/arbiter_registry.h"
#include "sbufsim/kernel/clients.h"
#include "sbufsim/kernel/request.h"
#include "sbufsim/kernel/tdm.h"
#include "sbufsim/kernel/throttler.h"
#include "sbufsim/stats/stats.h"

namespace sbufsim {

class ActivityProbe;  // window_stats.h

struct KernelOptions {
    // Evaluate every cycle instead of jumping over idle and gate-only stretches and leaping or
    // rotating over repeated ones. Results are identical either way
    // (tests/test_kernel_accounting.cpp); this exists to prove it.
    bool step_every_cycle = false;
    // Completions kept for pop_completion(); 0 = none are recorded (counters still are). One cycle
    // can complete a request per client, so a run stops with RunStatus::completions_full as soon
    // as fewer slots than clients are free: size it above the requests to drain by that margin.
    std::uint32_t completion_capacity = 0;
    // Requests a client may have queued; 0 = unbounded (the queue grows inside submit()).
    std::uint32_t queue_limit = 0;
};

enum class RunStatus : std::uint8_t {
    reached,           // now() == the target (run_until) / every queue drained (run_to_completion)
    completions_full,  // stopped early: drain pop_completion() and call again
    watched,           // run_until only: stopped early after the cycle in which a request of a
                       // watched client completed (now() is the cycle after it)
    stuck,             // run_to_completion, or run_until(kNever, ...): work is left but nothing
                       // can ever move (a client held by set_backpressure, or a throttler with
                       // transfer_cnt 0); for run_until also when no work is left at all
};

class Kernel {
public:
    // Throws std::invalid_argument when the geometry does not fit the kernel's masks (more than
    // 16 SBUF or 32 PSUM ECC banks, more than kMaxClients clients).
    explicit Kernel(const Params& p, KernelOptions options = {});
    Kernel(const Kernel&);
    Kernel(Kernel&&) noexcept;
    Kernel& operator=(const Kernel&);
    Kernel& operator=(Kernel&&) noexcept;
    ~Kernel();

    // Setup: a client's dense index by name ("act_rd", "dma_3", "pe_wr", ...).
    std::optional<ClientId> client_index(std::string_view name) const { return clients_.find(name); }
    const ClientSet& clients() const { return clients_; }

    // Queues a request behind the client's earlier ones. Returns its id, or kNoRequest when the
    // client's queue is at options.queue_limit. Throws std::invalid_argument for a malformed
    // request (unknown client, wrong region for the client, partitions or bytes out of range,
    // `after` naming a request not yet submitted). An issue cycle before now() counts as now().
    [[nodiscard]] RequestId submit(const Request& r);

    // Simulates cycles [now(), target). Stops early when the completion ring is full, or after a
    // cycle in which a request of a client in `watch` (bit = client index) completed. With
    // target == kNever it runs until such a completion, or returns RunStatus::stuck when no
    // queued beat can move any more.
    RunStatus run_until(Cycle target, std::uint64_t watch = 0);
    // Simulates until every queued request completed (or it never can: RunStatus::stuck).
    RunStatus run_to_completion();

    // The next cycle to simulate.
    Cycle now() const { return now_; }
    // True when the request's last beat has been granted.
    bool is_complete(RequestId id) const { return completed_[index(request_client(id))] > request_seq(id); }
    // The cycle in which the client's latest completed request had its last beat granted (0
    // before its first completion). What a data path annotates its transfers with.
    Cycle last_completion(ClientId c) const { return last_done_[index(c)]; }
    // The clients (bit = index) with a request completed since clear_completed_clients().
    std::uint64_t completed_clients() const { return done_clients_; }
    void clear_completed_clients() { done_clients_ = 0; }
    // No request queued anywhere.
    bool idle() const { return queued_ == 0; }
    // The first cycle from now() in which a queued beat may move: now() while a head beat is
    // ready, else the earliest issue cycle of a queued head (kNever when nothing is queued). The
    // cycles before it only count as idle, however they are run.
    Cycle next_ready() const { return ready_ ? now_ : next_issue_; }
    // Requests queued (not yet completed) by one client.
    std::uint64_t queued(ClientId c) const;

    // The front-end's downstream is full (e.g. the PE-array sequencer's p2fifo): while set, the
    // client's ready beats stall with StallCause::psum_backpressure. Takes effect from now().
    void set_backpressure(ClientId c, bool full);

    // Oldest unread completion; false when none (or options.completion_capacity == 0).
    bool pop_completion(Completion& out);

    // The statistics so far, derived fields filled in. Reading them changes nothing: the counters
    // the cycle loop keeps aside are added into a copy, valid until the next call.
    const Stats& stats() const;

    // Optional time-resolved recording (window_stats.h): per-bin bank grants, conflicts, stalls,
    // client bytes, TDM use and stall spans. Null (the default) costs one untaken branch per hook.
    // The probe must outlive the kernel's runs; a copied kernel shares it.
    void set_probe(ActivityProbe* probe) { probe_ = probe; }

    // Host CSR writes between cycles (models/tpb.h): takes the stage-1/stage-2 priorities and
    // weights, the TDM split and the pool/act/dve throttlers of `p` from now() on; every other
    // field of `p` must describe the same client set. Arbiters and buckets whose settings did
    // not change keep their state (DWRR pointers, tokens used); a changed arbiter restarts its
    // rotation, a changed bucket starts full (INFERRED). Throws std::invalid_argument for a
    // different client set. Not called by the fast scheduler, which has no host.
    void reprogram(const Params& p);
    // One client's token bucket (disabled for a client without a throttler).
    const Throttler& throttler(ClientId c) const { return throttlers_[index(c)]; }

private:
    struct Port;  // per-client queue and head-beat state (kernel_private.h)
    struct Queued {
        Request req;
        std::uint32_t beats;
        // The common request whose beats all share banks and bytes (uniform_run()) is made one
        // run when submitted: load_head() then copies it. run_bytes 0: walk the chunks instead.
        std::uint32_t run_bytes;
        union {
            std::uint64_t run_mask;  // run_bytes != 0
            // run_bytes 0: the partition chunks and the byte chunks per partition chunk, divided
            // out once by submit() for load_head(). In the mask's place: a deep queue's every
            // page is a fault, and 64-byte entries took about 390 more replaying mixed.sbt.
            struct {
                std::uint32_t pcs, bcs;
            } chunks;
        };
    };
    static_assert(sizeof(Queued) == 56);

    RunStatus run(Cycle target, bool until_drained, std::uint64_t watch);
    // The run loop, step, leaps and rotations compiled for one policy in both stages, or for
    // AnyPolicy in both when they differ (arbiter_registry.h): run() picks the loop once per run.
    // The fast-forward (skip, leap*, note_*, rotate, ...) is kernel_fast_forward.h/.cpp.
    template <class Stage1, class Stage2>
    RunStatus run_with(Stage1& arb1, Stage2& arb2, Cycle target, bool until_drained, std::uint64_t watch);
    template <class Stage1, class Stage2>
    void step(Cycle t, Stage1& arb1, Stage2& arb2);
    void skip(Cycle from, Cycle to, bool gated);
    template <class Stage1, class Stage2>
    void leap(Cycle target, Stage1& arb1, Stage2& arb2);
    template <class Stage1, class Stage2>
    void leap_turns(Cycle target, Stage1& arb1, Stage2& arb2);
    Cycle steady_len(Cycle target, Cycle change) const;
    template <class Stage1, class Stage2>
    void leap_cycles(Cycle len, Stage1& arb1, Stage2& arb2);
    std::uint32_t shortest_run(std::uint64_t clients) const;
    bool go_together(std::uint64_t clients) const;
    void steady_grants(std::uint64_t granted);
    void note_turns();
    void next_turn();
    bool throttle_windows() const;
    void window_turn();
    void note_steady(std::uint64_t granted, std::uint64_t sbuf, std::uint64_t stage2, std::uint64_t dma,
                     std::uint64_t psum, std::uint64_t gated, Cycle t);
    void note_steady_heads();
    template <class Stage1, class Stage2>
    void rotate(Cycle target, Stage1& arb1, Stage2& arb2);
    void note_rotation(std::uint64_t s1, std::uint32_t winner, TdmClass prec, std::uint64_t granted,
                       std::uint64_t stage2, std::uint64_t dma, std::uint64_t psum);
    static std::uint64_t rotation_grants(std::uint64_t others, std::uint64_t meets, std::uint32_t w,
                                         TdmClass prec);
    template <typename F>
    void add_slot_cycles(Cycle from, Cycle len, F&& f);
    std::uint32_t slot_at(Cycle t) const;
    struct CycleGrants;  // the beats granted in one cycle (kernel.cpp)
    template <bool kRules>
    void grant_region(CycleGrants& g, const std::uint64_t* order, std::uint32_t segments,
                      std::uint32_t pe_winner, std::uint64_t excl_a, std::uint64_t excl_b, bool tdm_region,
                      TdmClass prec, Cycle t);
    void grant(std::uint32_t c, Cycle t);
    void end_run(std::uint32_t c, Cycle t);
    void complete(std::uint32_t c, Cycle t);
    void load_head(std::uint32_t c, Port& p, const Queued& e, Cycle t);
    void load_first(std::uint32_t c);
    void load_run(std::uint32_t c);
    void uniform_run(const Port& p, Queued& e, std::uint32_t rows, std::uint32_t pcs,
                     std::uint32_t bcs) const;
    void grow(Port& p);
    void set_run(std::uint32_t c, std::uint64_t banks, std::uint32_t bytes, std::uint32_t beats);
    struct Beat {
        std::uint64_t mask;  // global bank bits (head_mask_)
        std::uint32_t bytes;
    };
    Beat chunk_beat(const Port& p, std::uint32_t pc, std::uint32_t bc) const;
    std::uint32_t sbuf_mask(std::uint32_t p0, std::uint32_t p1, std::uint32_t o0, std::uint32_t o1) const;
    std::uint32_t psum_mask(std::uint32_t p0, std::uint32_t p1, std::uint32_t o0, std::uint32_t o1) const;
    void flush_bank_grants(std::uint32_t c);
    void charge(std::uint32_t c, StallCause cause, std::uint64_t n = 1);
    void charge_gate(std::uint32_t c, StallCause cause);
    void refresh_ready(Cycle t);
    std::uint32_t region_partitions(Region region) const;
    std::uint64_t region_active(Region region) const;
    bool well_formed(const Request& r) const;
    [[noreturn]] void refuse(const Request& r) const;

    Params params_;
    KernelOptions options_;
    ClientSet clients_;
    Tdm tdm_;
    AnyArbiter stage1_, stage2_;  // arbiter.stage1.policy / arbiter.stage2.policy
    PriorityDwrr dma_arb_, psum_arb_;
    std::uint32_t n_ = 0;

    // Client masks, fixed at setup.
    std::uint64_t sbuf_mask_ = 0, psum_mask_clients_ = 0, stage1_mask_ = 0, stage2_mask_ = 0;
    std::uint64_t dma_class_ = 0, compute_class_ = 0, throttled_ = 0;
    std::uint64_t dve_sbuf_ = 0, gpsimd_sbuf_ = 0, dve_psum_ = 0, act_psum_ = 0;

    // Dynamic client masks.
    std::uint64_t ready_ = 0;    // head beat ready (issue reached)
    std::uint64_t pending_ = 0;  // head exists but issue in the future
    std::uint64_t depwait_ = 0;  // ready head whose dependency may be unmet
    std::uint64_t backpressure_ = 0;
    Cycle next_issue_ = kNever;  // min head issue over pending_

    std::vector<Port> ports_;
    std::vector<Throttler> throttlers_;
    // Per client, fixed arrays rather than vectors: complete() then addresses them off `this`.
    std::array<std::uint64_t, kClientSlots> completed_{};  // requests completed (= next seq done)
    std::array<Cycle, kClientSlots> last_done_{};          // the cycle of its latest completion
    std::uint64_t queued_ = 0;

    // Bank mapping tables, per partition (switchable to AddressMap, docs/kernel.md).
    std::vector<std::uint8_t> sbuf_bank_of_;     // HalfSelect::partition: cluster*2 + half
    std::vector<std::uint32_t> sbuf_bank_end_;   // the first partition after q on another bank
    std::vector<std::uint8_t> sbuf_cluster_of_;  // HalfSelect::offset
    std::vector<std::uint8_t> psum_cluster_of_;
    bool half_by_offset_ = false;
    std::uint32_t half_bit_ = 17;
    std::uint32_t psum_banks_ = 8;
    std::uint32_t psum_bank_size_ = 2048;

    // Completion ring.
    std::vector<Completion> ring_;
    std::uint64_t ring_head_ = 0, ring_tail_ = 0;

    Cycle now_ = 0;
    std::uint64_t done_clients_ = 0;  // completed_clients()
    std::uint64_t watch_ = 0;         // run_until's watch for the run in progress
    std::uint64_t watched_done_ = 0;  // the watched clients that completed a request in this run
                                      // (a mask: complete() sets it with the bit it has)
    Cycle slot_cycle_ = kNever;       // the last stepped cycle and its TDM slot
    std::uint32_t slot_ = 0;
    // Set by step(): every ready beat of the cycle was stopped by a gate (dependency,
    // back-pressure, strict TDM, throttler), and the earliest cycle one of those gates can open.
    bool gated_only_ = false;
    Cycle gate_release_ = kNever;
    std::uint64_t gated_ = 0;  // the clients a gate stopped in the last stepped cycle
    bool run_ended_ = false;   // a grant of this step ended a run (load_run() or complete())
    // Set by step(): every ready beat a gate let through was granted, and every granted run has
    // `cycles` more beats after the next one (a throttled client: as many tokens left in the
    // window); the cycles after it repeat it (leap()) until gate_release_, when a gate that held
    // the `gated` clients may open. The masks are the cycle's granted clients, its SBUF grants and
    // the arbiters' candidates. Strict TDM (note_turns()): with `turns`, the SBUF clients the TDM
    // gate `held` would all go through in the other class's slots, so the leap goes on from one
    // class's turn to the next (next_turn()). Throttlers (throttle_windows()): with `windows`, every
    // ready client would go through together but for its bucket, so the leap goes on past each
    // empty bucket and each refill (window_turn()).
    struct Steady {
        bool on = false;
        Cycle cycles = 0;
        std::uint64_t granted = 0, sbuf = 0, stage2 = 0, dma = 0, psum = 0;
        std::uint64_t gated = 0;
        bool turns = false;
        std::uint64_t held = 0;
        bool windows = false;
    } steady_;
    // Set by step() (note_rotation()): the cycles after it repeat it with the stage-1 winner
    // rotating (rotate()). s1: the PE candidates; others: the other ready clients, no two on one
    // bank; contested: those of them some PE candidate's banks meet (all in the DMA-class order),
    // and their banks; the stage-2 / DMA-class / PSUM arbiters' candidates. The uncontested
    // others have `cycles` more beats each after this one at least.
    struct Rotation {
        bool on = false;
        Cycle cycles = 0;
        std::uint64_t s1 = 0, others = 0, contested = 0, contested_banks = 0, stage2 = 0, dma = 0, psum = 0;
    } rotation_;
    Stats stats_;
    mutable Stats report_;  // what stats() returns: stats_ with the counters kept aside added
    ActivityProbe* probe_ = nullptr;
    // ECC banks of each client's head beat: the one field the grant loop reads for every
    // candidate, kept dense instead of inside the large Port records. One bit space for both
    // regions, in Stats::banks order: SBUF bank b is bit b, PSUM bank b is bit psum_base_ + b
    // (psum_base_ = sbuf.ecc_banks <= 16, so 48 bits at most). The regions never share a bit, so
    // one cycle's bank sets of both regions fit in one word.
    std::array<std::uint64_t, kClientSlots> head_mask_{};
    std::uint32_t psum_base_ = 0;
    // Per client, dense for the same reason: beats after the head beat with the same banks and
    // bytes (Port::pc/bc say what follows the run).
    std::array<std::uint32_t, kClientSlots> run_left_{};
    // Stall cycles per client and cause (row c, column StallCause), copied into stats_ by stats().
    static constexpr std::size_t kCauseStride = 8;
    static_assert(kStallCauses <= kCauseStride);
    std::array<std::uint64_t, kClientSlots * kCauseStride> stalls_{};
    // Runs of stalled cycles: the current one (a grant ends it) and the longest so far.
    std::array<std::uint64_t, kClientSlots> stall_run_{}, max_run_{};
    // Counters the cycle loop bumps, copied into stats_ by stats(): the BankStats and ClientStats
    // records are large (names, vectors), so indexing them costs more than these flat arrays.
    std::array<std::uint64_t, kMaxSbufEccBanks + kMaxPsumEccBanks> bank_conflicts_{}, bank_stalls_{},
        bank_tdm_stalls_{};
    // Bank grants per bank and client (row b, column c), flushed when a client's banks change.
    std::array<std::uint64_t, (kMaxSbufEccBanks + kMaxPsumEccBanks) * kClientSlots> bank_grants_{};
    // Fairness: cycles each client competed with another beat, and of those the cycles it won.
    // Counted where the grant loop already holds the client index (one add, no mask walk).
    std::array<std::uint64_t, kClientSlots> contended_{}, won_{};
};

}  // namespace sbufsim
