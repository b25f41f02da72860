// The PE-array sequencer (arr_seq) front-end: LdWeights and Matmul from one in-order PE queue
// (seed 000 §5, §5.6; PUBLIC_FACTS.md "Matmul").
//
// Kernel traffic:
//   - Matmul streams the moving tensor (num_active_rows partitions x N elements) from SBUF,
//     split by PE row group (pe.rows / pe.row_groups partitions: the 32-partition quadrant on
//     4-group arrays, 64 partitions on maverick's 2, seed 000 §1), group q on stage-1 client
//     pe_client_q; row group q's request is delayed by its array_stagger_rg{q}_ctrl1 idle timer
//     (arr_seq.rg_stagger, PE cycles). With 8-byte beats this moves 128 partitions x 4 bf16 per 4 cycles, i.e. exactly
//     the array's 1 element/partition/cycle.
//   - LdWeights reads the stationary tile (rows partitions x cols elements) as one request on the
//     fan-out client pe_client_4: the weights fan out to every row group from one read.
//     (INFERRED: seed 000 §7.1 names "the 4 PE column-clusters + 1 fan-out" without the wiring.
//     Stage 1 admits one PE beat per cycle, so splitting the weight load by quadrant would cost
//     4x the beats and take 25% of the moving stream's slots, contradicting "LoadStationary runs
//     in the background", PUBLIC_FACTS.)
//   - Matmul writes fp32 partial sums to PSUM on client pe_wr: num_active_cols partitions from
//     the col_grp quadrant, the bank the dst offset selects (§5.2, §5.5). A BEGIN tile writes
//     (the zero-region banks are zeroed, §5.3, counted in psum_banks_zeroed), mid and END tiles
//     accumulate: a read-add-write (Op::raw) on the same bytes.
// Timing:
//   - Matmul initiation interval ii = max(N, min(64, N_stationary)) PE cycles, x4 for fp32
//     (x timing.transpose_fp32_factor, 2 from NC-v3, for an fp32 PE transpose; x
//     timing.fp32_onezero_factor, 2, with a one-zero hint). An MX matmul (x4 data, NC-v4) costs
//     what a bf16 one of as many x4 columns costs and does four MACs per PE per column
//     ("4x the throughput compared to a BF16/FP16 matmul", trn3 arch guide); it and its
//     LdWeights also read the uint8 scale rows of each quadrant the data covers.
//     moving data (nki.isa nc_matmul cost); N is halved for perf_opt=double_row where the
//     generation has it (pe.double_row). The array is occupied from the matmul's start until
//     both ii has passed and its moving reads were granted; with arr_seq.en_inter_instr_dly the
//     next matmul waits inter_instr_dly_cnt more.
//   - LdWeights costs ceil(cols / timing.ls_speedup) PE cycles (x4 fp32; "Fast LoadStationary")
//     on a separate weight path: it may start as soon as the previous weights were latched by a
//     matmul, so it overlaps that matmul ("Background LoadStationary"). A matmul waits for the
//     LdWeights before it in the queue to complete.
//   - PSUM writes issue pe_drain_latency PE cycles after the matmul starts; the matmul completes
//     (fires its signals) when its PSUM writes are granted.
//   - queue_cfg.disable_dependency_check (MED/INFERRED, "single-thread the queue") starts an
//     instruction only when the one before, its PSUM writes included, has completed;
//     arr_cluster_cfg.flush_p2f_fifos ("flush PE->FIFO toward PSUM before next rsp") starts a
//     matmul only when the earlier matmuls' PSUM writes were granted.
//   - p2fifo almost-full: while more than arr_seq.p2fifo_af PSUM writes are waiting in the kernel,
//     the PE read clients are back-pressured (Kernel::set_backpressure). A write waits from its
//     issue cycle (the array has produced the partial sums) until its last beat is granted; a
//     write the array will only produce pe_drain_latency cycles after its matmul started does
//     not occupy the FIFO yet.
//   - TensorE throttle (the Neuron Explorer docs, "Understanding throttling": "On Trn2 and Trn3
//     the Tensor Engine starts at roughly 50% utilization of maximum utilization and ramps to
//     full over about the first ~3 microseconds after work begins. If utilization drops below
//     50% over any ~3 microsecond window ... the limit re-engages"): a matmul's ii is stretched
//     to the rate the limit allows, which starts at pe.ramp_start after the array was idle and
//     grows linearly to full over pe.ramp_ns. The limit re-engages at a matmul start after an
//     idle gap of at least (1 - pe.ramp_reengage) x pe.ramp_window_ns (a window that is mostly
//     that gap is below the threshold; earlier idle time in the window is not counted).
//     pe.ramp_start = 1: no throttle.
// PE tiles (nki.isa nc_matmul tiling mode; docs/engines.md "PE tiles and background transposes"):
// the array is a grid of 32 x 32 blocks; an instruction covers the blocks of its tile (the whole
// array without tile fields). Each block keeps its own weights: a matmul uses the stationary last
// loaded on its tile and waits only for an LdWeights on its own blocks; matmuls on disjoint
// tiles stream at the same time, each at its own initiation interval. Issue stays in order: the
// queue head waits until its blocks are free. LdWeights keep one weight path (one at a time).
// With pe.background_transpose (NC-v4) a block holds up to two streams of which at most one is
// not a transpose: a PE transpose runs beside another matmul or transpose.
// Accumulation groups: BEGIN opens a group on (PSUM bank, destination quadrants), END closes it;
// at most arr_seq.max_groups may be open (a BEGIN beyond it is counted, not stalled: the only
// queue that could close a group is this one, so stalling would deadlock).
#pragma once

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "sbufsim/config/pe_blocks.h"
#include "sbufsim/engines/engine.h"

namespace sbufsim {

struct ArrSeqInstr {
    enum class Kind : std::uint8_t { ldweights, matmul };
    Kind kind = Kind::matmul;
    SyncSet sync;
    std::uint64_t line = 0;
    TensorAccess src;              // ldweights: stationary; matmul: moving (SBUF)
    TensorAccess dst;              // matmul: PSUM destination (fp32)
    bool fp32 = false;             // 4-byte input dtype: 4x initiation interval
    bool onezero = false;          // matmul one-zero hint: fp32 at timing.fp32_onezero_factor
    bool mx = false;               // x4 MX data (nc_matmul_mx): four MACs per PE per column
    TensorAccess scale;            // MX: the first quadrant's scale rows (uint8; src2)
    bool double_row = false;       // perf_opt=double_row: two moving rows per PE column
    std::uint32_t stationary_cols = 0;  // matmul: columns of the latched stationary (0 = full)
    std::uint32_t rows = 0;        // ldweights rows / matmul num_active_rows
    std::uint32_t cols = 0;        // ldweights cols / matmul num_active_cols
    std::uint8_t acc_flags = 0;    // BEGIN = 1, END = 2
    std::uint8_t zero_region = 0;
    bool transpose = false;        // matmul: a PE transpose (nc_matmul is_transpose)
    // PE tile (tiling mode): first row and column, rows and columns; rows = 0: the whole array.
    std::uint16_t tile_row = 0, tile_col = 0, tile_rows = 0, tile_cols = 0;
};

struct ArrSeqStats {
    std::uint64_t ldweights = 0;
    std::uint64_t ldweights_replaced = 0;  // LdWeights whose weights no matmul used before the next
    std::uint64_t matmuls = 0;
    // Array-equivalent cycles: a stream on a tile counts its share of the array's blocks, and a
    // block streaming two things at once (a background transpose) counts once.
    Cycle pe_stream = 0;           // cycles the array streams data (sum of initiation intervals)
    Cycle pe_busy = 0;             // array occupancy (stream + bank-stall extension)
    Cycle weight_wait = 0;         // cycles a matmul at the head waited for its LdWeights to finish
    // Cycles an LdWeights at the head waited for its semaphores (its stationary tile's load) while
    // the matmul after it had its data and its PE blocks.
    Cycle stationary_wait = 0;
    // Cycles the TensorE throttle (pe.ramp_*) added to matmuls' initiation intervals: the array
    // streamed at less than its full rate after an idle gap.
    Cycle ramp_cycles = 0;
    std::uint64_t ramp_engaged = 0;  // times the throttle engaged: the first matmul and each after a gap
    std::uint64_t macs = 0;        // multiply-accumulates: rows x cols x moving elements per matmul
    // Matmul counts by tile shape "RxC" (num_active_rows x num_active_cols), in first-seen
    // order, like arr_seq_ififo_perf_matmul's tile_RxC counters (seed 000 §5.6).
    std::vector<std::pair<std::string, std::uint64_t>> shapes;
    std::uint64_t groups_begun = 0;
    std::uint64_t groups_ended = 0;
    std::uint64_t peak_open_groups = 0;
    std::uint64_t group_limit_exceeded = 0;  // BEGINs while max_groups groups were open
    std::uint64_t psum_banks_zeroed = 0;
    std::uint64_t psum_write_bytes = 0;
    std::uint64_t psum_accumulate_bytes = 0;
    Cycle backpressure_cycles = 0;           // cycles p2fifo almost-full was asserted
    bool operator==(const ArrSeqStats&) const = default;
};

class ArrSeq final : public FrontEnd {
public:
    ArrSeq(Kernel& kernel, Semaphores& sems, const Params& p, const EngineTiming& t,
           std::vector<InstrEvent>* timeline, std::uint16_t index);

    void push(const ArrSeqInstr& i) { queue_.push(i); }
    // PE cycles of a matmul's initiation interval / an LdWeights (the cost model above).
    std::uint32_t matmul_ii(const ArrSeqInstr& i) const;
    // The PE cycles `ii` cycles of work take from `now` under the TensorE throttle (the ramp
    // above); notes the array busy until then.
    Cycle throttled(std::uint32_t ii, Cycle now);
    std::uint32_t ldweights_cycles(const ArrSeqInstr& i) const;
    // The PE blocks (bit = block row x block columns + block column) an instruction covers.
    std::uint64_t blocks_of(const ArrSeqInstr& i) const;

    bool step(Cycle now) override;
    Wake wake(Cycle now) const override;
    bool idle() const override;
    std::size_t queued() const override { return queue_.size(); }
    // The host wrote arr_seq_top / arr_seq_cluster between cycles (models/tpb.h): the sequencer
    // runs with `csr` from its next step. Every modelled field is read where it decides (the
    // dependency check and the p2fifo flush when an instruction may start, the inter-instruction
    // delay when the array is released, the row-group stagger when reads are issued, p2fifo_af at
    // each step), so nothing already decided changes.
    void reprogram(const ArrSeqParams& csr) { csr_ = csr; }
    const ArrSeqParams& csr() const { return csr_; }
    bool blocked(BlockedHead& out) const override;
    const EngineStats& stats() const override { return stats_; }
    const ArrSeqStats& arr_stats() const { return arr_; }
    void finish(Cycle end) override;
    void set_queue_name(std::string q) { queue_name_ = std::move(q); }

private:
    struct InFlight {
        bool active = false;
        Cycle start = 0, compute_end = 0;
        RequestSet reqs;
        SyncSet sync;
        std::uint64_t line = 0;
        CriticalPath::Point from;   // what it waited for last (critical_path.h)
    };
    // A matmul streaming through its PE blocks, with its PSUM write requests.
    struct Stream {
        InFlight f;
        RequestSet drain;
        std::uint64_t blocks = 0;
        bool transpose = false;
    };
    static constexpr std::size_t kMaxStreams = 64;  // two per block of the largest grid (8 x 4)
    // What the engine is doing, for the busy / bank-wait / semaphore-wait / idle split (each
    // cycle counted once although LdWeights, a matmul and PSUM drains overlap).
    enum class State : std::uint8_t { idle, sem_wait, compute, bank_wait, count };
    State classify(Cycle now) const;
    void account(Cycle now);
    void profile_window(SiteProfile& sp, Cycle n) const;
    bool retire(Cycle now);
    bool try_start(Cycle now);
    void end_weight_wait(Cycle now);       // a matmul at the head no longer waits for its LdWeights
    void note_stationary_wait(Cycle now);  // an LdWeights starts after a wait for its semaphores
    void start_ldweights(const ArrSeqInstr& i, Cycle now);
    void start_matmul(const ArrSeqInstr& i, std::uint64_t blocks, Cycle now);
    // Whether a matmul on `blocks` may start beside the streams in flight (tiles, background
    // transposes), and the cycle its blocks are free of the inter-instruction delay.
    bool array_admits(std::uint64_t blocks, bool transpose) const;
    Cycle blocks_free(std::uint64_t blocks) const;
    // Block-cycles of [from, to) on `blocks` not counted yet for `until` (each block once).
    Cycle add_block_cycles(std::uint64_t blocks, Cycle from, Cycle to, std::array<Cycle, 64>& until);
    bool streaming() const { return streams_active_ != 0; }
    void read_by_row_group(const TensorAccess& a, Cycle now, Cycle span, RequestSet& into);
    // The MX scale rows of every quadrant the data covers (one per 8 data partitions): on the
    // fan-out client for an LdWeights, on each quadrant's row-group client for a matmul.
    void read_scales(const ArrSeqInstr& i, Cycle now, RequestSet& into, bool fan_out);
    void track_group(const ArrSeqInstr& i);
    // Retires `f` at `now` (signals, statistics, timeline); its critical path runs from
    // `seg_start` through compute_end and release; `instruction`: the segment counts `f` on the
    // path (a matmul's drain does not: the release before it did). Returns the path (kNone when
    // not tracked).
    CriticalPath::Ref complete(const InFlight& f, Cycle now, Cycle seg_start, Cycle compute_end,
                               Cycle release, bool instruction);
    void update_backpressure(Cycle now);

    Kernel& kernel_;
    Semaphores& sems_;
    EngineTiming timing_;
    ArrSeqParams csr_;
    std::uint32_t quadrant_ = 32;
    std::uint32_t row_groups_ = 4;        // pe.row_groups (1..4)
    std::uint32_t row_group_parts_ = 32;  // partitions per row group: pe.rows / pe.row_groups
    std::uint32_t bank_size_ = 2048;
    std::vector<InstrEvent>* timeline_;
    std::uint16_t index_;
    std::string queue_name_ = "arr_seq";
    std::vector<ClientId> pe_rd_;   // pe_client_0..4
    ClientId pe_wr_{};
    bool has_psum_ = false;

    Ring<ArrSeqInstr> queue_;
    State state_ = State::idle;
    Cycle state_since_ = 0;
    std::uint16_t started_site_ = kNoSourceSite;  // the source site of the last instruction started
    std::uint16_t stream_site_ = kNoSourceSite;   // ... of the last matmul started
    std::uint16_t state_site_ = kNoSourceSite;    // the site the cycles in state_ are charged to
    std::array<Cycle, static_cast<std::size_t>(State::count)> state_cycles_{};
    // Critical-path points: the array's last release, the last LdWeights' end, the last matmul's
    // start (which latches the weights, so the next LdWeights may begin).
    CriticalPath::Point path_release_, path_ldw_, path_mm_start_;
    InFlight ldw_;                  // LdWeights on the weight path
    std::uint64_t ldw_blocks_ = 0;  // the blocks it loads
    std::array<Stream, kMaxStreams> streams_{};  // matmuls streaming through the array
    std::uint64_t streams_active_ = 0;           // bit s: streams_[s] is in flight
    Ring<InFlight> drain_;          // matmuls released by the array, PSUM writes outstanding
    Ring<Cycle> unproduced_;        // issue cycles of this engine's PSUM writes not yet issued
    PeBlocks blocks_;                 // the array's 32 x 32 PE blocks
    std::uint64_t unlatched_ = 0;     // blocks holding loaded weights no matmul has latched yet
    std::array<std::uint32_t, 64> loaded_cols_{};  // per block: columns of the stationary loaded last
    std::array<Cycle, 64> block_free_{};  // per block: earliest next matmul start (inter-instruction delay)
    std::array<Cycle, 64> streamed_until_{};  // per block: end of the streaming counted in pe_stream
    std::array<Cycle, 64> busy_until_{};      // per block: end of the occupancy counted in pe_busy
    Cycle stream_block_cycles_ = 0, busy_block_cycles_ = 0;  // pe_stream / pe_busy x blocks
    // TensorE throttle: pe.ramp_start, its growth per PE cycle, the idle gap that re-engages it,
    // the cycle the current ramp began and the end of the array's last work.
    double ramp_start_ = 1, ramp_slope_ = 0;
    Cycle ramp_gap_ = 0, ramp_from_ = 0, ramp_busy_until_ = 0;
    bool ramp_started_ = false;
    bool background_transpose_ = false;  // pe.background_transpose
    bool double_row_ = false;         // pe.double_row
    std::uint32_t chunks_ = 1, beat_ = 8;  // width.stream_chunks, width.engine_bytes (pacing)
    std::vector<std::uint8_t> open_;  // per PSUM bank: quadrant mask of open groups
    std::uint64_t open_groups_ = 0;
    bool backpressure_ = false;
    Cycle backpressure_since_ = 0;
    Cycle blocked_since_ = kNever;
    Cycle busy_since_ = kNever;     // engine busy = any of ldw/array/drain in flight
    Cycle weight_wait_since_ = kNever;
    EngineStats stats_;
    ArrSeqStats arr_;
};

}  // namespace sbufsim
