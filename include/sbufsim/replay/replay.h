// The trace replay driver (the "fast" scheduler, no SystemC): streams a trace through the engine
// front-ends and the conflict kernel, event by event, and collects the statistics.
//
//   TraceReader ──► TraceChecker (per record) ──► access record: Kernel::submit at its cycle
//                                             └─► instruction: its engine's queue (bounded)
//   loop: step every engine at the current event cycle (retire, signal, start) until nothing
//         changes; next event = min(engine wake-ups, next access record); Kernel::run_until(it).
//
// Memory stays flat: at most `lookahead` instructions per engine queue and access records at
// most `access_window` cycles ahead of the kernel are held (a queue may exceed the look-ahead
// only while every engine is blocked and the semaphore it needs may be further on in the file).
// Deterministic: engines are stepped in a fixed order; no clocks, threads or hashing of
// pointers are involved.
//
// Errors: an invalid record stops the replay with ReplayError::Kind::invalid_trace (all problems
// of that record) unless `lenient`, which skips bad records and counts them; a state in which
// every non-empty queue waits on a semaphore that nothing can signal any more is reported as
// ReplayError::Kind::deadlock naming each queue, its record line and the semaphore.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sbufsim/engines/arr_seq.h"
#include "sbufsim/engines/critical_path.h"
#include "sbufsim/engines/dma_engine.h"
#include "sbufsim/engines/engine_stats.h"
#include "sbufsim/engines/instr_event.h"
#include "sbufsim/stats/stats.h"
#include "sbufsim/trace/trace.h"
#include "sbufsim/stats/window_stats.h"

namespace sbufsim {

struct ReplayOptions {
    bool lenient = false;            // skip invalid records (counted) instead of refusing the trace
    std::uint32_t lookahead = 256;   // instructions buffered per engine queue
    Cycle access_window = 4096;      // access records are submitted this many cycles ahead
    // ... and those up to this many cycles further go in with them, in one batch, so that the
    // kernel is not stopped for every record (docs/replay.md; the statistics are the same for
    // any value, 0 = record by record as the clocked scheduler submits them).
    Cycle access_batch = 4096;
    // Every DMA engine is stepped on every signal and looks at every queue on every step, instead
    // of only on met waits and only at the queues a push, a start or a met wait can have changed
    // (dma_engine.h, replay_session.h): the reference those are tested against; the statistics
    // are the same.
    bool dma_arm_every_queue = false;
    bool record_timeline = false;    // keep one InstrEvent per completed instruction
    std::uint32_t max_skipped_kept = 20;  // lenient: skipped-record errors kept for the report
    // Time-resolved kernel activity (window_stats.h), fed while the replay runs and finished at
    // its end; null = not recorded. Owned by the caller.
    ActivityProbe* probe = nullptr;
    // Called with the records read so far every `progress_every` records (progress.h).
    std::function<void(std::uint64_t records)> progress;
    std::uint64_t progress_every = 4096;
    // Fast scheduler only: adds the wall-clock seconds spent inside the kernel's cycle loop
    // (`sbufsim bench --trace` compares it with the whole replay); null = not measured.
    double* kernel_seconds = nullptr;
};

// What `sbufsim run` reports for one trace.
struct ReplayResult {
    std::string trace;               // file name
    std::string generation;
    double pe_clock_ghz = 0;
    double dma_peak_gbps = 0;        // every DMA engine at dma.engine_gbps
    double hbm_peak_gbps = 0;        // dma.hbm_gbps: the HBM side of one NeuronCore (0 = unlimited)
    double dma_full_run_bytes = 0;   // a contiguous run shorter than this pays dma.pkt_min_ns
                                     // (dma.pkt_min_ns x dma.engine_gbps)
    std::uint64_t pe_peak_macs = 0;  // PE array multiply-accumulates per cycle (pe.rows x pe.cols)
    bool tdm_strict = false;         // tdm.strict: a class waits out the other's slots
    std::uint32_t psum_max_groups = 0;  // arr_seq.max_groups: accumulation groups open at once
    Cycle total_cycles = 0;          // last kernel cycle or instruction completion, whichever later
    Stats kernel;                    // kernel statistics (finalized)
    std::vector<EngineStats> engines;  // arr_seq, act, pool, dve, dma_0.., q7_0..
    ArrSeqStats arr_seq;
    std::vector<DmaStats> dma;       // per DMA engine, parallel to the dma_k entries of `engines`
    // Cycles each DMA trigger unit spent on triggers (dma_trigger.h; index = TriggerUnit: sp,
    // act, pool, dve, then the DGE blocks).
    std::vector<Cycle> dma_trigger_busy;
    std::uint64_t records = 0;       // records read (including skipped ones)
    std::uint64_t access_records = 0;
    std::uint64_t instructions = 0;  // instruction records replayed
    std::uint64_t skipped = 0;       // lenient: invalid records skipped
    std::vector<TraceError> skipped_errors;  // the first max_skipped_kept of them
    // Instructions of different queues touching the same bytes, one writing, with no wait
    // ordering them (hazard_check.h): the run times each pair as it happens to fall.
    std::uint64_t races = 0;
    std::vector<TraceError> race_errors;     // the first max_skipped_kept of them
    std::vector<InstrEvent> timeline;        // record_timeline only
    CriticalPathStats critical_path;         // adds up to total_cycles (critical_path.h)
    // The per-site profile (site_profile.h), when the trace had source locations: one row per
    // site the reader interned plus row 0 (records without one); `sites[i]` names row i ("" for
    // row 0). Empty for a trace without locations.
    std::vector<std::string> sites;
    std::vector<SiteCounters> site_profile;

    double time_ns() const { return pe_clock_ghz > 0 ? static_cast<double>(total_cycles) / pe_clock_ghz : 0; }
    // PE utilisation: cycles the array streamed / total cycles.
    double pe_utilisation() const {
        return total_cycles ? static_cast<double>(arr_seq.pe_stream) / static_cast<double>(total_cycles) : 0;
    }
    std::uint64_t dma_bytes() const;
    std::uint64_t hbm_bytes() const;  // of dma_bytes(), those of transfers with an HBM end
    // Achieved DMA bandwidth over the whole replay, GB/s (bytes per ns); of it, the HBM side's.
    double dma_gbps() const { return time_ns() > 0 ? static_cast<double>(dma_bytes()) / time_ns() : 0; }
    double hbm_gbps() const { return time_ns() > 0 ? static_cast<double>(hbm_bytes()) / time_ns() : 0; }
};

class ReplayError : public std::runtime_error {
public:
    enum class Kind : std::uint8_t { invalid_trace, deadlock };
    ReplayError(Kind kind, const std::string& message, std::vector<TraceError> errors = {})
        : std::runtime_error(message), kind_(kind), errors_(std::move(errors)) {}
    Kind kind() const { return kind_; }
    const std::vector<TraceError>& errors() const { return errors_; }

private:
    Kind kind_;
    std::vector<TraceError> errors_;
};

// Replays one trace file (text or binary). Throws TraceFormatError when the file cannot be
// opened or has no valid header, ReplayError as described above.
ReplayResult replay_trace(const Params& params, const std::string& path, const ReplayOptions& options = {});
// Same, from an open reader.
ReplayResult replay(const Params& params, TraceReader& reader, const ReplayOptions& options = {});

}  // namespace sbufsim
