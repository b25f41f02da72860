// One replay's state, shared by both schedulers: the trace reader and checker, the engine
// front-ends, the semaphore file and the conflict kernel, with the steps a scheduler calls.
//
// The fast scheduler (run_fast(), what replay() calls) loops over event cycles:
//
//     settle(now)                       refill the queues, step every engine until nothing changes
//     ev = next_event(now)              earliest engine wake-up or access-record submission, and
//                                       the clients whose next completion wakes an engine
//     ev.never()? eof ? (idle ? done : deadlock) : refill(now, force) and settle again
//     kernel().run_until(ev.at, ev.watch) every cycle in between is the kernel's alone
//     now = kernel().now()              ev.at, or the cycle after a watched completion
//
// The clocked scheduler (models/clocked_replay.h) makes each engine, the queue feed and the
// arbiter a SystemC process on the PE clock and calls the same steps one cycle at a time; both
// reach identical statistics because an engine's wake() is exact (stepping it on any other cycle
// changes nothing) and the kernel's results do not depend on how its cycles are chunked.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sbufsim/address/address.h"
#include "sbufsim/engines/compute_engine.h"
#include "sbufsim/engines/critical_path.h"
#include "sbufsim/engines/q7_core.h"
#include "sbufsim/replay/replay.h"
#include "sbufsim/trace/sync_check.h"
#include "sbufsim/trace/trace_check.h"

namespace sbufsim {

class ReplaySession {
public:
    // The engines and kernel are built from `p`; `reader` must outlive the session.
    ReplaySession(const Params& p, TraceReader& reader, const ReplayOptions& o);

    // ---- the scheduler's steps --------------------------------------------------------------
    // Checks the trace header (call once, first). Throws ReplayError (invalid_trace) unless lenient.
    void begin();
    // Reads records until a queue reaches the look-ahead, an access record lies beyond the
    // window (beyond window + access_batch while every engine is idle), an instruction read
    // behind an early record waits for its cycle, or the end; with `force`, one more instruction
    // regardless of the look-ahead. Returns true when it queued an instruction or submitted an
    // access record.
    bool refill(Cycle now, bool force);
    // Refills and steps every engine in fixed order until nothing changes, then serves the DMA
    // claims of the cycle (resolve_dma_claims) and goes on while that makes an engine due.
    void settle(Cycle now);
    // Once the engines have stopped changing anything in cycle `now`: the DMA trigger units and
    // the HBM side serve the cycle's claims in the trace's record order (dma_trigger.h), so that
    // the order a scheduler steps the engines in within a cycle cannot change who is served
    // first. True when that made an engine due again in this cycle (a zero-latency trigger).
    bool resolve_dma_claims(Cycle now);
    // The earliest cycle after `now` at which an engine or an access record needs attention, and
    // the kernel clients whose next completion wakes an engine (never(): only more of the trace
    // can wake anyone).
    Wake next_event(Cycle now);
    bool eof() const { return eof_; }
    // Every engine has nothing queued and nothing in flight.
    bool engines_idle() const;
    // Throws ReplayError (deadlock) naming every blocked queue head.
    [[noreturn]] void deadlock(Cycle now);
    // Drains the kernel, closes the engines' open intervals and returns the result; `now` is the
    // cycle at which the scheduler found nothing left to do.
    ReplayResult finish(Cycle now);

    // The whole fast-scheduler loop: begin() ... finish().
    ReplayResult run_fast();

    // ---- what a scheduler drives ---------------------------------------------------------------
    Kernel& kernel() { return kernel_; }
    const Kernel& kernel() const { return kernel_; }
    // In fixed stepping order: arr_seq, act, pool, dve, dma_0.., q7_0...
    const std::vector<FrontEnd*>& engines() const { return engines_; }

private:
    bool read_one(Cycle now);
    // settle()'s passes: refill, step the engines that can change, until a pass changes nothing.
    void step_until_quiet(Cycle now);
    // next_event(); with `cached`, reusing the wake-ups of engines settle() did not step (and
    // the whole merge when it stepped none).
    Wake gather_wakes(Cycle now, bool cached);
    // Every engine's wake-up, merged (wake_, watch_ updated).
    Wake merge_wakes(Cycle now, bool cached);
    // An instruction record to its engine's queue (read_one() submits access records itself).
    void route(const Record& r);
    // An access record into pending_ (the next request for the kernel), with the client and
    // address check() resolved for it; the unchecked one resolves them itself.
    void submit_access(const Record& r);
    void submit_unchecked_access(const Record& r);
    void submit_access(const Record& r, int client, const Decoded& d);
    SyncSet sync_of(const Record& r);
    TensorAccess access_of(const Operand& o, std::uint32_t partitions, std::uint32_t bytes) const;
    void dma_instr(const Record& r);
    // Pushes one share of a DMA record onto `engine`'s queue for the record's queue.
    void push_dma_share(const Record& r, std::uint32_t engine, const DmaInstr& d);
    void reject(std::vector<TraceError>& errs);
    void note_skipped_signals(const Record& r);
    // The race check of `sbufsim check` on every instruction read (ReplayResult::races).
    void check_races(const Record& r);
    std::vector<std::uint64_t>
        skipped_signaller_;  // per semaphore: a skipped record's line that signals it (0: none)

    const Params& params_;
    ReplayOptions opt_;
    TraceReader& reader_;
    AddressMap map_;
    Kernel kernel_;
    Semaphores sems_;
    CriticalPath path_;  // fed by the engines through sems_
    SiteProfile profile_;  // likewise (site_profile.h)
    TraceChecker checker_;
    SyncCheck races_;
    std::vector<TraceError> race_found_;
    WaitResolver waits_;
    std::unique_ptr<ArrSeq> arr_;
    std::vector<std::unique_ptr<ComputeEngine>> compute_;
    std::vector<std::unique_ptr<DmaEngine>> dma_;
    std::vector<std::unique_ptr<Q7Core>> q7_;
    std::vector<FrontEnd*> engines_;   // fixed stepping order
    std::uint64_t dma_records_ = 0;    // DMA records routed (DmaInstr::order)
    // NC-v2's shared ports (shared_ports.h); port_engine_[participant] = index into engines_.
    SharedPorts ports_;
    std::vector<std::uint16_t> port_engine_;
    void join_ports();
    // End of a settled cycle: grant the port claims; the granted engines are asked anew.
    void resolve_ports();

    // Which engines settle() must step (docs/replay.md "Stepping only what can change"): an
    // engine whose wake-up is not due, that saw no semaphore move, no watched completion and got
    // no new instruction since its last step cannot change, so stepping it is skipped. (A pe_wr
    // access record counts as an instruction for arr_seq: a PE write can fill its p2fifo.)
    std::vector<Cycle> wake_;              // per engine: wake().at at the last next_event()
    std::vector<std::uint64_t> watch_;     // per engine: wake().watch at the last next_event()
    std::vector<std::uint64_t> sem_seen_;  // per engine: semaphore generation at its last step
    std::vector<char> on_met_;             // per engine: due on a signal only when it met a wait asked for
    std::uint64_t sem_generation(std::size_t e) const {
        return on_met_[e] ? sems_.met_generation() : sems_.generation();
    }
    std::vector<char> fed_;                // per engine: an instruction queued since its last step
    std::vector<char> stale_;              // per engine: stepped since its wake() was last asked
    bool any_stale_ = true;                // some stale_ is set
    ClientId pe_wr_{0xffff};               // the kernel's pe_wr client (none: no PSUM)
    Wake engine_wakes_{0, 0};              // the engines' merged wake-ups (at = now after a move)
    std::uint64_t settled_generation_ = ~std::uint64_t{0};  // semaphore generation every engine has seen
    bool any_fed_ = false;                 // some fed_ is set
    void mark_fed(std::size_t engine) {
        fed_[engine] = 1;
        any_fed_ = true;
    }
    bool must_step(std::size_t e, Cycle now) const {
        return wake_[e] <= now || fed_[e] || sem_seen_[e] != sem_generation(e) ||
               (watch_[e] & kernel_.completed_clients());
    }

    // Per kernel client: its region (an access record elsewhere is dropped when lenient).
    std::vector<Region> client_region_;
    // Per reader NameId: DMA engine << 16 | local queue.
    std::vector<std::uint32_t> dma_queue_of_;
    std::uint32_t dma_queues_seen_ = 0;
    // Per (reader queue NameId x engine): the local queue index on that engine.
    std::vector<std::uint32_t> dma_lane_queue_;
    std::unique_ptr<DmaShared> dma_shared_;
    std::unique_ptr<DmaTriggers> triggers_;   // DMA trigger units (SP, ACT, POOL, DVE, DGE blocks)
    bool named_[4] = {false, false, false, false};  // arr_seq, act, pool, dve queue named

    Record rec_;
    TraceError read_err_;
    std::vector<TraceError> errs_;
    bool eof_ = false;
    bool have_pending_ = false;     // an access record read but not yet submitted
    Request pending_{};
    // Access batches (ReplayOptions::access_batch): the records up to access_window +
    // access_batch cycles ahead go into the kernel at once, so the kernel runs whole batches
    // between two events instead of stopping for every record. What depends on when a record
    // was read or submitted stays at the cycle record-by-record reading gives it:
    Cycle read_at_ = 0;             // the cycle at which that reading reads the next record
    Cycle pending_due_ = 0;         // ... submits pending_ (its window edge, not before read_at_)
    bool pending_exact_ = false;    // pending_ must go in at pending_due_ (a pe_wr record)
    bool held_ = false;             // rec_ is an instruction read ahead, routed at read_at_
    FrontEnd* last_pushed_ = nullptr;
    ReplayResult result_;
};

}  // namespace sbufsim
