// Output of `sbufsim run`: the summary table (stdout), JSON, CSV and the stats text. JSON, CSV and
// stats text render the same rows, every statistic of the metric registry (metrics.h) with a
// reproducibility record (tool version, effective-config hash, trace digest, scheduler).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "sbufsim/config/config.h"
#include "sbufsim/output/bottleneck.h"
#include "sbufsim/replay/replay.h"
#include "sbufsim/stats/window_stats.h"

namespace sbufsim {

// How to reproduce one run.
struct RunInfo {
    std::string version = SBUFSIM_VERSION;
    std::string scheduler = "fast";
    std::string config_hash;   // fnv1a64 of render_ini(config, false), 16 hex digits
    std::string trace_digest;  // fnv1a64 of the trace file's bytes, 16 hex digits
    bool lenient = false;      // --lenient: invalid records were skipped
    // Every key whose value is not the generation file's own, with its effective value and where
    // it came from (a --config file and line, or the command line): with the generation, the
    // whole effective configuration (`sbufsim run --from RESULT.json` replays from it).
    struct Setting {
        std::string key, value, from;
    };
    std::vector<Setting> settings;
};

struct RunReport {
    ReplayResult result;
    RunInfo info;
    // --window-stats N: per-window rows, written as section "window" (rows w0, w1, ...; metrics
    // start, cycles, busy.<bank>, conflicts.<bank>, stalls.<bank>, bytes.<client>, tdm.*).
    WindowSeries windows;
};

// 64-bit FNV-1a; `h` chains calls.
std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t h = 0xcbf29ce484222325ull);
std::string hex16(std::uint64_t v);
// FNV-1a 64 of a file's bytes, streamed (flat memory). Throws std::runtime_error if unreadable.
std::string file_digest(const std::string& path);

// Every key whose value is not the generation file's own, with where it came from
// (RunInfo::settings).
std::vector<RunInfo::Setting> effective_settings(const LoadedConfig& cfg);

// Sum of the kernel's stall cycles of one cause over all clients.
std::uint64_t total_stalls(const Stats& s, StallCause c);

// How much of a run the text summary shows: `brief`, one screen (at most 30 lines of at most
// 120 columns on the shipped and generated workloads): the verdict, the gain bound, the critical
// path by engine, MFU and MBU, and the three largest findings with something to gain; `full`
// (run --details): every finding and every table. The JSON, CSV and stats text are the same
// either way.
enum class Detail { brief, full };
inline constexpr std::size_t kScreenColumns = 120;

// The run's summary. Full: the bottleneck section first (print_bottleneck), then engines, source
// lines, PE, PSUM, DMA, client stalls and the bank kernel's report.
void print_summary(std::ostream& os, const RunReport& r, Detail detail = Detail::full);
// The one-screen summary (Detail::brief).
void print_brief(std::ostream& os, const RunReport& r);

// The run's size: "total N cycles = T ns at the PE clock F GHz;  R records (I instructions, A
// access records[, S invalid records skipped])", as both reports open with it.
void print_totals(std::ostream& os, const ReplayResult& r);
// Several runs (sbufsim run T1 T2 ...), after their own summaries (or, brief, instead of them):
// their sum, and a table of one row per run. Runs that do the same matmul work (two tilings of
// one computation) are compared with the fewest cycles ("vs fewest"); runs that do different
// work (the layers of a network) each with their share of the sum, and a total row. Runs with
// the same figures share a row; brief keeps the rows that hold the most cycles.
void print_comparison(std::ostream& os, const std::vector<RunReport>& runs, Detail detail = Detail::full);
// The verdict, the critical path by engine group and cause, the utilisation figures and the
// findings (bottleneck.h).
void print_bottleneck(std::ostream& os, const ReplayResult& r, const Bottleneck& b);
// The critical path's line and its table by engine group and cause (a part of print_bottleneck).
void print_critical_path(std::ostream& os, const ReplayResult& r, const Bottleneck& b);
// Whether a finding's advice says it has nothing to gain in run time (shown only in full).
bool nothing_to_gain(const Finding& f);
// {"tool": "sbufsim", "version": ..., "runs": [ {...}, ... ]}
void write_json(std::ostream& os, const std::vector<RunReport>& runs);
// Long form: trace,section,name,metric,value (one number per row), RFC 4180 quoting: a
// field holding a comma, quote or line break quoted with its quotes doubled.
std::string csv_field(std::string_view s);
void write_csv(std::ostream& os, const std::vector<RunReport>& runs);
// The statistics as gem5's stats.txt writes them: one line a statistic, its full name
// (section[.record].metric), its value and "# description (unit)" from the metric registry,
// between a begin line naming the trace and an end line.
inline constexpr std::string_view kStatsBegin = "---------- Begin sbufsim statistics:";
void write_stats(std::ostream& os, const std::vector<RunReport>& runs);

}  // namespace sbufsim
