// DMA engines and their queues (docs/engines.md "DMA"; public DMA overview and bandwidth guide;
// seed 000 §6, §7.2-§7.5, §8 step 3).
//
// Each engine k is one DMA-class kernel client dma_k (one SBUF port beat = dma.data_width bytes
// of one partition). A trace `dma` record is one DMA transfer (one nisa.dma_copy). Without
// `engine=` the replay spreads it over the engines by SBUF partition lanes: engine
// (p / dma.lanes_per_engine) mod dma.engines serves partition p ("each DMA engine is typically
// responsible for moving data for eight SBUF partitions", DMA overview). Each engine's share is a
// DmaInstr in the same queue on that engine; the record's signals fire once, when the last share
// retires (DmaShared's join). With `engine=N` the record is one share on engine N.
//
// One share costs (docs/engines.md, public-timing.md §1.4):
//   dma.xfer_fixed_ns + sum over descriptors of max(bytes_d / dma.engine_gbps, dma.pkt_min_ns)
// A descriptor is one contiguous run of one partition (the innermost-contiguous size of the
// on-chip access pattern). A transpose costs xfer_fixed_ns + bytes / (engine_gbps x fraction).
// Bytes are the bytes moved: the seed's 32-partition rounding (dma.partition_round) is the SDMA
// access window, checked by `check`, not a byte count.
// The HBM side is one shared server of dma.hbm_gbps: a share with an HBM end reserves its bytes
// on it in start order and cannot end before they are through. Shares that start in the same
// cycle reserve in the trace's record order (lower engine first within a record), once the
// cycle has settled, as triggers are served (dma_trigger.h).
// A transfer becomes eligible timing.dma_startup_ns after its trigger is done (semaphore to
// start); the trigger (dma_trigger.h) is issued once its waits are met. The first dma.prefetch_depth transfers of a queue count that latency down while the
// transfers ahead of them move data, so a stream of ready transfers pays it once.
// Outstanding transfers (dma.outstanding = D): an engine moves one share's data at a time, but
// up to D shares are in flight on it, and a share's overhead — dma.xfer_fixed_ns and what its
// descriptors' dma.pkt_min_ns adds over their bytes' time — runs while the shares ahead of it move
// data. A share's overhead begins once it is eligible, a slot is free (the share D places ahead of
// it on this engine has ended) and the share ahead of it in its own queue has ended (a queue's
// transfers run in order); what of it has run when the engine reaches the share is not charged
// again. D = 1: nothing overlaps (every share costs the formula above). A stream in one queue
// pays the whole formula per share on every D; transfers spread over several queues (the NKI
// front-end's) move at the engine's bandwidth.
// An idle engine picks the next transfer among its queues' eligible heads by dma.queue_policy:
// round robin, or the lowest QoS class first (round robin within a class). A started transfer
// runs to its end: no queue pre-empts it ("Each DMA engine can process one DMA transfer at a time").
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "sbufsim/engines/dma_trigger.h"
#include "sbufsim/engines/engine.h"

namespace sbufsim {

inline constexpr std::uint32_t kNoJoin = 0xffffffffu;

struct DmaInstr {
    SyncSet sync;                    // waits; the signals too unless `join` is set
    std::uint64_t line = 0;
    TensorAccess rd;                 // SBUF side read (SBUF->HBM, SBUF->SBUF); absent otherwise
    TensorAccess wr;                 // SBUF side write (HBM->SBUF, SBUF->SBUF); absent otherwise
    std::uint64_t bytes = 0;         // payload bytes this share moves
    std::uint32_t partitions = 0;    // partitions (descriptor lists) of this share
    std::uint32_t bytes_per_partition = 0;
    std::uint32_t run_bytes = 0;     // bytes of one descriptor (contiguous run); 0 = a whole partition
    bool transpose = false;
    bool rmw = false;                // dst_rmw_op=add: data at timing.dma_rmw_fraction of the rate
    std::uint32_t first_col = 0;     // transpose share: its first column of the record's tile
    bool sbuf_to_sbuf = false;
    bool hbm = false;                // one end is HBM (shares the HBM bandwidth)
    // A casting DMA (`bf16@hbm` beside an fp32 tile): the HBM end's element size over the on-chip
    // end's, which scales `bytes` to the HBM side's (hbm_side_bytes); 0 = the same elements.
    std::uint8_t hbm_esz = 0, chip_esz = 0;
    std::uint32_t join = kNoJoin;    // DmaShared join whose last share fires the signals
    std::uint32_t trigger = kNoTrigger;  // DmaTriggers slot of the record's trigger
    bool trigger_claimed = false;        // armed, its trigger claimed: armed_at is set by take_triggers()
    std::uint64_t order = 0;             // the record's place among the trace's DMA records
    std::uint8_t priority = 0;       // QoS class (0 first) under dma.queue_policy = priority
    Cycle armed_at = kNever;         // eligible from this cycle (its waits met + start-up)
};

// The bytes a share moves at its HBM end: `bytes` (the on-chip end's), scaled for a casting DMA.
// The engine's own time stays that of the on-chip end's bytes (docs/engines.md, DMA).
inline std::uint64_t hbm_side_bytes(const DmaInstr& d) {
    return d.chip_esz ? d.bytes * d.hbm_esz / d.chip_esz : d.bytes;
}

struct DmaStats {
    std::uint64_t transfers = 0;       // shares started (one per record and engine)
    std::uint64_t descriptors = 0;     // contiguous runs moved
    std::uint64_t short_descriptors = 0;  // of them, runs short enough to pay dma.pkt_min_ns
    std::uint64_t bytes = 0;           // payload bytes
    std::uint64_t hbm_bytes = 0;       // of them, bytes of transfers with an HBM end (dma.hbm_gbps)
    std::uint64_t transposes = 0;
    Cycle data_cycles = 0;             // cycles the engine moved data (its busy time)
    bool operator==(const DmaStats&) const = default;
};

// What the DMA engines of one NeuronCore share: the completion join of a transfer spread over
// several engines and the HBM side's bandwidth.
class DmaShared {
public:
    // hbm_gbps = 0: no shared HBM limit.
    DmaShared(double hbm_gbps, double pe_ghz);
    // A join of `shares` shares that fires `sync`'s signals when the last one retires.
    std::uint32_t open_join(const SyncSet& sync, std::uint32_t shares);
    // One share of `join` retired; returns true (and the signals in `out`) for the last one.
    bool close_share(std::uint32_t join, SyncSet& out);
    // Engine `engine`'s share of record `order` claims `bytes` on the HBM side from cycle `from`;
    // false when the side is unlimited (nothing to wait for).
    bool claim_hbm(std::uint64_t order, std::uint32_t engine, Cycle from, std::uint64_t bytes);
    bool claims_pending() const { return !claims_.empty(); }
    // Serves this cycle's claims in record order; calls done(engine, cycle the bytes are through).
    template <class F>
    void resolve_hbm(F&& done) {
        std::sort(claims_.begin(), claims_.end(), [](const HbmClaim& a, const HbmClaim& b) {
            return a.order != b.order ? a.order < b.order : a.engine < b.engine;
        });
        for (const HbmClaim& c : claims_) done(c.engine, reserve_hbm(c.from, c.bytes));
        claims_.clear();
    }

private:
    struct HbmClaim {
        std::uint64_t order = 0;
        std::uint32_t engine = 0;
        Cycle from = 0;
        std::uint64_t bytes = 0;
    };
    Cycle reserve_hbm(Cycle from, std::uint64_t bytes);
    std::vector<HbmClaim> claims_;
    struct Join {
        SyncSet sync;
        std::uint32_t remaining = 0;
    };
    std::vector<Join> joins_;
    std::vector<std::uint32_t> free_;
    double cycles_per_byte_ = 0;   // kernel cycles per HBM byte (0 = unlimited)
    double hbm_free_ = 0;          // kernel cycle the HBM side is free from
};

class DmaEngine final : public SerialEngine {
public:
    DmaEngine(std::uint32_t engine, Kernel& kernel, Semaphores& sems, const Params& p,
              const EngineTiming& t, std::vector<InstrEvent>* timeline, std::uint16_t index);

    // The shared join/HBM state (setup; without it joins are not used and HBM is unlimited).
    void set_shared(DmaShared* s) { shared_ = s; }
    // The trigger units (setup; without them a transfer is armed when its waits are met).
    void set_triggers(DmaTriggers* t) { triggers_ = t; }
    // Look at every queue on every step (ReplayOptions::dma_arm_every_queue: the reference).
    void set_arm_every_queue(bool on) { arm_every_queue_ = on; }
    // After DmaTriggers::resolve(): the armed transfers whose trigger this engine claimed learn
    // when it is done. True when one is eligible at `now` already (a zero-latency trigger and
    // start-up): the engine must be stepped again in this cycle.
    bool take_triggers(Cycle now);
    // After DmaShared::resolve_hbm(): the transfer in flight cannot end before its HBM bytes are
    // through at `through`.
    void hbm_through(Cycle through) { compute_end_ = std::max(compute_end_, through); }
    // A queue of this engine (setup); returns its local index.
    std::uint32_t add_queue(std::string name);
    void push(std::uint32_t queue, const DmaInstr& i) {
        queues_[queue].q.push(i);
        ++queued_;
        mark_pending(queue);
    }
    // Nanoseconds of a share's data motion at the engine bandwidth (the cost model).
    double data_ns(const DmaInstr& i) const;
    // Of data_ns(), the part only its bytes take (at the engine's rate, or a transpose's or a
    // read-add-write's fraction of it): the rest is overhead that dma.outstanding can overlap.
    double bytes_ns(const DmaInstr& i) const;
    double data_gbps(const DmaInstr& i) const;
    // The same in kernel cycles (rounded up).
    Cycle transfer_cycles(const DmaInstr& i) const;
    // Descriptors (contiguous runs) of a share.
    std::uint64_t descriptors(const DmaInstr& i) const;
    std::uint64_t short_descriptors(const DmaInstr& i) const;
    Cycle startup_cycles() const { return startup_; }

    bool step(Cycle now) override;
    Wake wake(Cycle now) const override;
    bool idle() const override;
    std::size_t queued() const override;
    bool blocked(BlockedHead& out) const override;
    void blocked_heads(std::vector<BlockedHead>& out) const override;
    const DmaStats& dma_stats() const { return dma_; }
    void finish(Cycle end) override;

private:
    struct Queue {
        std::string name;
        Ring<DmaInstr> q;
        std::uint32_t armed = 0;  // leading transfers whose start-up is counting down
        // Where arm_queue() last stopped on a wait: the transfer at `armed` waits for
        // semaphore block_sem to reach block_value (one of its waits; the first unmet one).
        std::uint16_t block_sem = 0;
        std::uint32_t block_value = 0;
        Cycle last_end = 0;  // when this queue's last share on this engine ended (in order)
    };
    void arm(Cycle now);
    bool arm_queue(Queue& q, Cycle now);
    static bool head_ready(const Queue& q, Cycle now);
    // The queue whose head starts next (dma.queue_policy); queues_.size() when none is ready.
    std::uint32_t pick(Cycle now) const;
    void start(std::uint32_t qi, Cycle now);
    void retire_share(Cycle now);

    ClientId client_{};
    std::uint32_t engine_ = 0;
    double pe_ghz_ = 2.4;
    double gbps_ = 27.2;
    double xfer_fixed_ns_ = 0;
    double pkt_min_ns_ = 0;
    Cycle startup_ = 0;
    std::uint32_t prefetch_ = 4;
    // dma.outstanding: shares in flight; ends_ holds the end cycles of the last ones (a ring, the
    // oldest at end_pos_), active_queue_ the queue of the share in flight.
    std::uint32_t outstanding_ = 1;
    std::vector<Cycle> ends_;
    std::uint32_t end_pos_ = 0;
    std::uint32_t active_queue_ = 0;
    std::uint32_t chunks_ = 1, beat_ = 32;   // width.stream_chunks, dma.data_width (pacing)
    DmaShared* shared_ = nullptr;
    DmaTriggers* triggers_ = nullptr;
    bool by_priority_ = false;       // dma.queue_policy = priority

    std::vector<Queue> queues_;
    // Totals over the queues, so a step need not walk them: transfers queued, transfers armed.
    std::size_t queued_ = 0, armed_ = 0;
    // arm() can arm a transfer of a queue only after a push to it, a start from it (its armed
    // window moved) or, when it stopped on a wait, a signal that meets it (Semaphores::want): it
    // looks at those queues alone (exact: see arm()). One bit per queue.
    void mark_pending(std::uint32_t queue) {
        pending_[queue / 64] |= std::uint64_t{1} << (queue % 64);
        any_pending_ = true;
    }
    std::vector<std::uint64_t> pending_;  // pushed to or started from since the last pass
    std::vector<std::uint64_t> blocked_;  // the last arm_queue() stopped on an unmet wait
    bool any_pending_ = false;
    bool arm_every_queue_ = false;
    bool triggers_claimed_ = false;  // some armed transfer waits for take_triggers()
    std::uint64_t arm_generation_ = ~std::uint64_t{0};
    std::uint32_t rr_ = 0;           // next queue to consider (round robin)
    std::uint32_t join_ = kNoJoin;   // join of the share in flight
    Cycle wait_since_ = kNever;      // engine idle with only semaphore-blocked heads
    std::uint16_t wait_site_ = kNoSourceSite;  // the source site that wait is charged to
    DmaStats dma_;
};

}  // namespace sbufsim
