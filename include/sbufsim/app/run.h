// `run`: replay traces through the engine front-ends and the bank-conflict kernel (the fast
// scheduler, or the clocked SystemC model) and report where the cycles went. docs/replay.md.
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sbufsim/app/app.h"
#include "sbufsim/config/config.h"
#include "sbufsim/output/report.h"
#include "sbufsim/replay/replay.h"
#include "sbufsim/stats/window_stats.h"
#include "sbufsim/trace/trace.h"

namespace sbufsim::app {

// The clocked SystemC scheduler as a front end hands it over (the executable opens it as a
// module, programs that link the models call it directly; src/cli/clocked_scheduler.h): replays
// `reader`, writing the waveform to `vcd` ("" = none) and the sc_object tree with every module's
// CSRs and signals to `hierarchy` (nullptr = none).
using ClockedReplay = std::function<ReplayResult(const Params&, TraceReader&, const ReplayOptions&,
                                                 const std::string& vcd, std::ostream* hierarchy)>;

// One trace's replay as `run` makes it, shared by the front ends (the command line's run, the
// Python module's run): the scheduler, the activity probe the outputs need, the report's settings.
struct TraceReplay {
    const ClockedReplay* clocked = nullptr;  // nullptr: the fast scheduler
    std::string vcd;                         // clocked: where SystemC writes the waveform ("" = none)
    std::ostream* hierarchy = nullptr;       // clocked: the sc_object tree
    ReplayOptions options;                   // lenient, progress, the timeline's records
    bool probe = false;                      // an activity probe of `probe_options`
    ProbeOptions probe_options;
};
struct ReplayedTrace {
    RunReport report;  // the result; info: scheduler, config_hash, settings, lenient (not the digest)
    std::unique_ptr<ActivityProbe> probe;  // when one was asked for
};
ReplayedTrace replay_trace(const LoadedConfig& config, TraceReader& reader, TraceReplay replay);
// The probe's shape: exact N-cycle bins for window stats (N > 0), else bins that fold to stay
// bounded; stall spans for a timeline, the latest cycle's marks for a waveform.
ProbeOptions probe_options(bool timeline, bool vcd, Cycle window_stats);
// A configuration for `reader`'s trace: the trace's own gen= unless `config` names a generation.
LoadedConfig trace_config(LoadRequest config, const TraceReader& reader);

// What the visualisation options ask for (docs/visualisation.md).
struct RunVisuals {
    std::string timeline, window, heatmap, vcd;  // output paths; window: "A:B"
    std::string timeline_detail = "stalls", timeline_unit = "cycles";
    bool timeline_detail_given = false, timeline_unit_given = false;
    Cycle window_stats = 0;  // per-N-cycle rows (0: none)
    bool window_stats_given = false;
};

struct RunRequest {
    std::vector<std::string> traces;  // empty: the shipped default workload
    // The configuration of every trace; a trace's own gen= applies unless it names a generation.
    LoadRequest config;
    std::string json, csv, stats;  // output paths ("-" = the output stream)
    std::string scheduler = "fast";
    bool scheduler_given = false;  // --vcd and --hierarchy imply clocked unless another was given
    bool quiet = false, lenient = false, force = false, hierarchy = false;
    // The full summary of every trace (every finding, every table); else one screen: a trace's
    // verdict and findings, or the table of several traces (output/report.h, Detail).
    bool details = false;
    RunVisuals visuals;
    std::string annotate;  // a kernel source to print with each line's figures (run --annotate)
    // Opens the clocked scheduler (throws ConfigError when it cannot be used); called before any
    // output is opened, only when the run needs it.
    std::function<ClockedReplay()> open_clocked;
    // Check the request, open (and discard) the outputs and load the configuration, then stop: a
    // caller that makes the trace first (nki) learns of a bad option before that work.
    bool options_only = false;
};

struct RunResult {
    int status = kExitOk;
    std::vector<RunReport> runs;  // one per trace, in order, when status is kExitOk
};

// Runs every trace, printing the summaries (to `out`, or to `err` when a document goes to `out`)
// and writing the outputs, which appear together once every trace ran.
RunResult run_traces(const RunRequest& request, Io io);

// What `run --from RESULT.json` re-runs: the runs one invocation recorded. A trace that changed
// since (its digest) is said on `err`; a relative trace path is taken beside RESULT when it is
// not found from here.
struct RecordedRuns {
    int status = kExitOk;  // kExitInput / kExitUsage: RESULT unreadable or not a result (said on err)
    std::vector<std::string> traces, generations;  // per run
    std::string scheduler = "fast";                // the first run's
    bool lenient = false;
    std::vector<std::pair<std::string, std::string>> settings;  // key, value: the first run's
};
RecordedRuns read_recorded_runs(const std::string& result, std::ostream& err);

// The metric registry as a table (run --list-metrics).
void print_metric_list(std::ostream& os);

// The help of --window-stats, with the row cap from the one constant that enforces it.
const std::string& window_stats_help();

}  // namespace sbufsim::app
