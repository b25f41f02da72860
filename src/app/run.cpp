// `run` (sbufsim/app/run.h): the request's checks, its outputs opened before the first cycle, one
// replay per trace, the summaries and the documents written together at the end.
#include "sbufsim/app/run.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "sbufsim/app/messages.h"
#include "sbufsim/app/outputs.h"
#include "sbufsim/app/picture.h"
#include "sbufsim/config/data_dirs.h"
#include "sbufsim/kernel/clients.h"
#include "sbufsim/output/heatmap.h"
#include "sbufsim/output/line_profile.h"
#include "sbufsim/output/output_file.h"
#include "sbufsim/output/progress.h"
#include "sbufsim/output/timeline.h"

namespace sbufsim::app {

namespace {

// The shipped default workload: the matmul K-loop with ACT evacuation (traces/README.md).
constexpr const char* kDefaultTrace = "matmul_kloop.trc";

// The output files of one run, opened before the replay so a bad path fails at once. Each is
// written to its temporary and checked, and only when every one was are they renamed into place:
// a run whose --csv cannot be written leaves its --json and --heatmap targets as they were. A
// failure names the option (`--csv: cannot write /dev/full: No space left on device`).
class RunOutputs {
public:
    void open(const std::string& key, const std::string& option, const std::string& path,
              const OutputPolicy& policy) {
        if (path.empty() || path == "-") return;
        files_.emplace(key, Entry{option, std::make_unique<OutputFile>(path, policy)});
    }
    // The open file for `key`, or nullptr for stdout.
    OutputFile* get(const std::string& key) {
        const auto it = files_.find(key);
        return it == files_.end() ? nullptr : it->second.file.get();
    }
    // Runs `write` on `key`'s file (nullptr for stdout), an error naming its option.
    template <class Write>
    void write(const std::string& key, Write&& write) {
        const auto it = files_.find(key);
        named(it == files_.end() ? "" : it->second.option,
              [&] { write(it == files_.end() ? nullptr : it->second.file.get()); });
    }
    void commit_all() {
        for (auto& entry : files_) {
            OutputFile& file = *entry.second.file;
            named(entry.second.option, [&] { file.commit(); });
        }
    }

private:
    struct Entry {
        std::string option;
        std::unique_ptr<OutputFile> file;
    };
    template <class F>
    static void named(const std::string& option, F&& f) {
        try {
            f();
        } catch (const OutputError& e) {
            if (option.empty()) throw;
            throw OutputError(e.kind(), option + ": " + e.what());
        }
    }
    std::map<std::string, Entry> files_;
};

void write_to(RunOutputs& outputs, const std::string& key, Io io, const std::vector<RunReport>& runs,
              void (*write)(std::ostream&, const std::vector<RunReport>&)) {
    outputs.write(key, [&](OutputFile* file) {
        write(file ? file->stream() : io.out, runs);
        if (file) file->check();
    });
}

// The visualisation options with --window's cycles.
struct VizOptions : RunVisuals {
    Cycle from = 0, to = kNever;
    bool wanted() const { return !timeline.empty() || !heatmap.empty() || window_stats; }
};

// One output path per trace: with several traces, "out.svg" becomes "out.<trace stem>.svg".
std::string per_trace(const std::string& path, const std::string& trace, std::size_t traces) {
    if (traces < 2) return path;
    std::filesystem::path p(path);
    const std::string stem = std::filesystem::path(trace).stem().string();
    return (p.parent_path() / (p.stem().string() + "." + stem + p.extension().string())).string();
}

// The heatmap's settings line from the run's effective settings (RunInfo::settings).
std::string settings_of(const RunInfo& info) {
    std::vector<std::string> kv;
    for (const auto& st : info.settings) kv.push_back(st.key + "=" + st.value);
    return heatmap_settings(kv, info.config_hash);
}

void write_viz(const VizOptions& v, RunReport& rep, const ActivityProbe& probe, std::size_t traces,
               RunOutputs& outputs) {
    const ReplayResult& r = rep.result;
    if (v.window_stats) rep.windows = make_windows(probe, r.kernel, r.total_cycles, v.window_stats);
    if (!v.timeline.empty()) {
        TimelineOptions o;
        o.from = v.from;
        o.to = v.to;
        o.detail = parse_timeline_detail(v.timeline_detail);
        o.unit = parse_timeline_unit(v.timeline_unit);
        spdlog::info("run: timeline {} at detail {} ({} stall runs recorded)",
                     per_trace(v.timeline, r.trace, traces), v.timeline_detail, probe.spans().size());
        outputs.write("timeline:" + r.trace, [&](OutputFile* file) {
            write_timeline(file ? file->stream() : std::cout, r, probe, o);
            if (file) file->check();
        });
    }
    if (!v.heatmap.empty()) {
        const WindowSeries w =
            v.window_stats ? rep.windows : make_windows(probe, r.kernel, r.total_cycles, probe.bin_width());
        HeatmapInfo info{std::filesystem::path(r.trace).filename().string(), r.generation,
                         settings_of(rep.info), r.pe_clock_ghz, r.total_cycles};
        info.path = heatmap_path(analyse(r).path, r.total_cycles);
        const std::string svg = render_heatmap(w, block_matrix(r.kernel), info);
        outputs.write("heatmap:" + r.trace, [&](OutputFile* file) { write_picture(svg, file, std::cout); });
    }
}

// A header and nothing else replays as 0 cycles: said on stderr, as it is almost never meant.
void warn_empty(const std::string& trace, const ReplayResult& r, std::ostream& err) {
    if (r.records == 0)
        err << "sbufsim run: warning: " << trace
            << ": no records after the header, so the run is empty (0 cycles); `sbufsim check " << trace
            << "` says more\n";
}

// Under --lenient a run that skipped records describes only part of its trace: said on stderr
// whether or not the summary is printed (--quiet, --json -), as sweep says it of its rows.
void warn_skipped(const std::string& trace, const ReplayResult& r, std::ostream& err) {
    if (r.skipped == 0) return;
    err << "sbufsim run: warning: " << trace << ": " << r.skipped
        << " invalid record(s) skipped (--lenient): ";
    if (r.skipped == r.records)
        err << "every record was skipped, nothing was replayed";
    else
        err << "the statistics cover the other " << r.records - r.skipped << " record(s)";
    if (!r.skipped_errors.empty()) err << "; the first: " << r.skipped_errors.front().to_string();
    err << "\n";
}

// A trace with races between queues (hazard_check.h) runs, but its figures rest on an order the
// trace does not ask for: said on stderr, whether or not the summary is printed.
void warn_races(const std::string& trace, const ReplayResult& r, std::ostream& err) {
    if (r.races == 0) return;
    err << "sbufsim run: warning: " << races_warning(trace, r.races, r.race_errors.front(), "the run")
        << "\n";
}

// A --timeline-* choice is given only with --timeline, and is one of its values.
bool timeline_choice_problem(const VizOptions& viz, bool given, const char* option,
                             const std::function<void()>& parse, std::ostream& err) {
    if (!given) return false;
    if (viz.timeline.empty()) {
        err << "sbufsim run: --" << option << " applies to --timeline\n";
        return true;
    }
    try {
        parse();
    } catch (const std::invalid_argument& e) {
        err << "sbufsim run: " << e.what() << "\n";
        return true;
    }
    return false;
}

// The request's checks of its visualisation options, said on `err`; --window's cycles into `viz`.
bool visuals_ok(VizOptions& viz, std::ostream& err) {
    if (!viz.window.empty()) {
        if (viz.timeline.empty()) {
            err << "sbufsim run: --window applies to --timeline\n";
            return false;
        }
        try {
            parse_window(viz.window, viz.from, viz.to);
        } catch (const std::invalid_argument& e) {
            err << "sbufsim run: " << e.what() << "\n";
            return false;
        }
        // The heatmap's who-blocked-whom panel is the whole run's; its time panels are too, so the
        // two agree. Said, so a zoomed timeline is not read against a heatmap taken as zoomed.
        if (!viz.heatmap.empty() || viz.window_stats)
            err << "sbufsim run: note: --window " << viz.window << " cuts the timeline only; "
                << (viz.heatmap.empty() ? "--window-stats" : "--heatmap") << " covers the whole run\n";
    }
    if (timeline_choice_problem(
            viz, viz.timeline_detail_given, "timeline-detail",
            [&] { parse_timeline_detail(viz.timeline_detail); }, err) ||
        timeline_choice_problem(
            viz, viz.timeline_unit_given, "timeline-unit", [&] { parse_timeline_unit(viz.timeline_unit); },
            err))
        return false;
    if (viz.vcd == "-") {
        err << "sbufsim run: --vcd writes a file (SystemC's VCD writer cannot write to stdout); name one\n";
        return false;
    }
    if (const std::string why = picture_path_problem(viz.heatmap); !why.empty()) {
        err << "sbufsim run: --heatmap " << why << "\n";
        return false;
    }
    if (viz.window_stats_given && viz.window_stats == 0) {
        err << "sbufsim run: --window-stats needs N >= 1 cycles\n";
        return false;
    }
    return true;
}

// The scheduler the request asks for, or "" after saying why there is none.
std::string scheduler_of(const RunRequest& r, std::ostream& err) {
    std::string scheduler = r.scheduler;
    if (!r.visuals.vcd.empty() || r.hierarchy) {
        if (r.scheduler_given && scheduler != "clocked") {
            err << "sbufsim run: " << (r.hierarchy ? "--hierarchy lists" : "--vcd records")
                << " the clocked scheduler's modules; drop --scheduler " << scheduler
                << " or use --scheduler clocked\n";
            return "";
        }
        scheduler = "clocked";
    }
    if (scheduler != "fast" && scheduler != "clocked") {
        err << "sbufsim run: unknown scheduler '" << scheduler << "' (fast or clocked)\n";
        return "";
    }
    return scheduler;
}

// Every output path is checked and opened before the first cycle is simulated.
void open_outputs(const RunRequest& r, const std::vector<std::string>& traces, const VizOptions& viz,
                  RunOutputs& outputs) {
    std::vector<std::string> inputs = traces;
    inputs.insert(inputs.end(), r.config.user_files.begin(), r.config.user_files.end());
    std::vector<std::pair<std::string, std::string>> named{
        {"--json", r.json}, {"--csv", r.csv}, {"--stats", r.stats}};
    for (const auto& t : traces) {
        named.emplace_back("--timeline",
                           viz.timeline.empty() ? "" : per_trace(viz.timeline, t, traces.size()));
        named.emplace_back("--heatmap", viz.heatmap.empty() ? "" : per_trace(viz.heatmap, t, traces.size()));
        named.emplace_back("--vcd", viz.vcd.empty() ? "" : per_trace(viz.vcd, t, traces.size()));
    }
    check_distinct_outputs(named);
    const bool force = r.force;
    outputs.open("json", "--json", r.json, output_policy("--json file", is_run_json, force, inputs));
    outputs.open("csv", "--csv", r.csv, output_policy("--csv file", is_run_csv, force, inputs));
    outputs.open("stats", "--stats", r.stats, output_policy("--stats file", is_run_stats, force, inputs));
    for (const auto& t : traces) {
        if (!viz.timeline.empty())
            outputs.open("timeline:" + t, "--timeline", per_trace(viz.timeline, t, traces.size()),
                         output_policy("--timeline file", is_timeline, force, inputs));
        if (!viz.heatmap.empty())
            outputs.open("heatmap:" + t, "--heatmap", per_trace(viz.heatmap, t, traces.size()),
                         picture_output_policy("--heatmap file", force, inputs));
        if (!viz.vcd.empty())
            outputs.open("vcd:" + t, "--vcd", per_trace(viz.vcd, t, traces.size()),
                         vcd_output_policy("--vcd file", force, inputs));
    }
}

// What one trace's replay shares with the others of the request.
struct RunContext {
    const RunRequest& request;
    const VizOptions& viz;
    const std::string& scheduler;
    const ClockedReplay* clocked;  // nullptr: the fast scheduler
    std::size_t traces;
    RunOutputs& outputs;
    std::ostream& summary;
    Io io;
};

// Replays one trace into `rep`; kExitOk, or the status after saying why on err.
int replay_one(RunContext& c, const std::string& path, RunReport& rep) {
    const RunRequest& r = c.request;
    TraceReader reader(path, TraceReader::Digest::yes);  // the report's trace_digest
    const LoadedConfig cfg = trace_config(r.config, reader);
    if (&path == &r.traces.front())  // the same settings for every trace: noted once
        for (const std::string& note : settings_without_effect(cfg))
            c.io.err << "sbufsim run: note: " << note << "\n";
    spdlog::info("run: {} on generation {}, {} scheduler", path, cfg.params.generation, c.scheduler);
    TraceReplay step;
    step.clocked = c.clocked;
    step.options.lenient = r.lenient;
    step.options.record_timeline = !c.viz.timeline.empty();
    step.probe = c.viz.wanted();
    step.probe_options = probe_options(!c.viz.timeline.empty(), !c.viz.vcd.empty(), c.viz.window_stats);
    // Only a person watching a terminal wants the bar; pipes, files and tests do not.
    const bool bar = !r.quiet && &c.io.err == &std::cerr && Progress::stderr_is_terminal();
    Progress progress(c.io.err, bar, bar ? Progress::estimate_records(path) : 0,
                      std::filesystem::path(path).filename().string());
    if (bar) step.options.progress = [&progress](std::uint64_t n) { progress.update(n); };
    // SystemC writes its VCD by name and checks no write: it writes into a FIFO, and every byte
    // reaches --vcd through the checked output (a device in place, a full disk an error, the
    // target replaced only by commit_all).
    std::unique_ptr<FifoCopy> vcd;
    if (OutputFile* file = c.clocked ? c.outputs.get("vcd:" + path) : nullptr) {
        vcd = std::make_unique<FifoCopy>(*file, "waveform.vcd");
        step.vcd = vcd->path();
    }
    std::ostringstream tree;
    if (c.clocked && r.hierarchy) step.hierarchy = &tree;
    ReplayedTrace replayed = replay_trace(cfg, reader, std::move(step));
    if (vcd) {
        vcd->finish();
        c.outputs.write("vcd:" + path, [](OutputFile* file) { file->check(); });
    }
    if (c.clocked && r.hierarchy)
        c.summary << "SystemC hierarchy of " << path << " at the end of the run (signals are driven while "
                  << (c.viz.vcd.empty() ? "--vcd records them: here they hold their reset values"
                                        : "--vcd records them")
                  << "):\n"
                  << tree.str();
    progress.finish();
    rep = std::move(replayed.report);
    const std::unique_ptr<ActivityProbe>& probe = replayed.probe;
    warn_empty(path, rep.result, c.io.err);
    warn_skipped(path, rep.result, c.io.err);
    warn_races(path, rep.result, c.io.err);
    spdlog::info("run: {}: {} records, {} instructions, {} cycles", path, rep.result.records,
                 rep.result.instructions, rep.result.total_cycles);
    if (probe && probe->overflowed()) {
        // Windows with activity are capped (memory); any N this large fits the run.
        const Cycle fits = (rep.result.total_cycles + kMaxActiveBins - 1) / kMaxActiveBins;
        c.io.err << "sbufsim run: --window-stats " << c.viz.window_stats << ": " << path << " has more than "
                 << kMaxActiveBins
                 << " windows with activity (the memory cap, docs/visualisation.md); use "
                    "--window-stats "
                 << std::max(fits, c.viz.window_stats + 1) << " or more\n";
        return kExitUsage;
    }
    if (probe) write_viz(c.viz, rep, *probe, c.traces, c.outputs);
    if (!c.viz.window.empty() && c.viz.from >= rep.result.total_cycles)
        c.io.err << "sbufsim run: warning: --window " << c.viz.window << ": " << path << " ends at cycle "
                 << rep.result.total_cycles
                 << ", so its timeline holds no event; give a window that starts "
                    "before it\n";
    // Hashed while the replay read it; a second pass only if the reader stopped early.
    // (Benchmarks and sweeps open their readers without, and so skip the hash.)
    const auto digest = reader.digest();
    rep.info.trace_digest = digest ? hex16(*digest) : file_digest(path);
    // Several traces on one screen: their table alone, unless every report is asked for.
    if (!r.quiet && (r.details || c.traces == 1)) {
        print_summary(c.summary, rep, r.details ? Detail::full : Detail::brief);
        if (r.details) c.summary << "\n";
    }
    if (!r.annotate.empty() && !annotate_source(c.summary, c.io.err, rep.result, r.annotate))
        return kExitInput;
    return kExitOk;
}

// replay_one, its input errors said on err.
int replay_said(RunContext& c, const std::string& path, RunReport& rep) {
    try {
        return replay_one(c, path, rep);
    } catch (const MissingTool& e) {
        c.io.err << "sbufsim run: " << e.what() << "\n";
        return kExitUsage;
    } catch (const TraceFormatError& e) {
        c.io.err << "sbufsim run: " << e.error().to_string() << shipped_trace_hint(path) << "\n";
        return kExitInput;
    } catch (const ReplayError& e) {
        c.io.err << "sbufsim run: " << e.what() << "\n";
        constexpr std::size_t kErrorsShown = 20;  // the first error above, then up to 19 more
        for (std::size_t i = 1; i < e.errors().size() && i < kErrorsShown; ++i)
            c.io.err << "  " << e.errors()[i].to_string() << "\n";
        return kExitInput;
    }
}

}  // namespace

ProbeOptions probe_options(bool timeline, bool vcd, Cycle window_stats) {
    ProbeOptions o;
    o.record_spans = timeline;
    o.cycle_view = vcd;
    o.bin_width = window_stats ? window_stats : 1;
    o.fixed_width = window_stats != 0;
    return o;
}

LoadedConfig trace_config(LoadRequest config, const TraceReader& reader) {
    adopt_trace_generation(config, reader.header().generation);
    return load_config(config);
}

ReplayedTrace replay_trace(const LoadedConfig& cfg, TraceReader& reader, TraceReplay step) {
    ReplayedTrace out;
    const Params& p = cfg.params;
    if (step.probe) {
        const std::uint32_t banks = p.sbuf.ecc_banks + (p.has_psum() ? p.psum.ecc_banks : 0);
        out.probe = std::make_unique<ActivityProbe>(ClientSet(p).size(), banks, step.probe_options);
        step.options.probe = out.probe.get();
    }
    RunReport& rep = out.report;
    rep.info.scheduler = step.clocked ? "clocked" : "fast";
    rep.result = step.clocked ? (*step.clocked)(p, reader, step.options, step.vcd, step.hierarchy)
                              : replay(p, reader, step.options);
    rep.info.config_hash = hex16(fnv1a64(render_ini(cfg, false)));
    rep.info.settings = effective_settings(cfg);
    rep.info.lenient = step.options.lenient;
    return out;
}

RunResult run_traces(const RunRequest& request, Io io) {
    RunResult result;
    std::vector<std::string> on_stdout;
    for (const auto& [flag, path] :
         {std::pair{"--json", &request.json}, {"--csv", &request.csv}, {"--stats", &request.stats}})
        if (*path == "-") on_stdout.push_back(std::string(flag) + " -");
    if (on_stdout.size() > 1) {
        io.err << "sbufsim run: " << fmt::format("{}", fmt::join(on_stdout, " and "))
               << (on_stdout.size() == 2 ? " both" : " all") << " ask for stdout; write "
               << "all but one of them to a file (e.g. --json - --csv out.csv)\n";
        return {kExitUsage, {}};
    }
    // A document on stdout stays parseable: the summary moves to stderr.
    std::ostream& summary = on_stdout.empty() ? io.out : io.err;
    const std::string scheduler = scheduler_of(request, io.err);
    if (scheduler.empty()) return {kExitUsage, {}};
    // The clocked scheduler's module is opened (or refused) before any output or work.
    ClockedReplay clocked;
    if (scheduler == "clocked") {
        if (!request.open_clocked)
            throw ConfigError("the clocked scheduler is not available here: run it from sbufsim run");
        clocked = request.open_clocked();
    }
    VizOptions viz;
    static_cast<RunVisuals&>(viz) = request.visuals;
    if (!visuals_ok(viz, io.err)) return {kExitUsage, {}};
    RunRequest r = request;
    if (r.traces.empty()) r.traces.push_back(find_data_file(DataKind::traces, kDefaultTrace));
    RunOutputs outputs;
    open_outputs(r, r.traces, viz, outputs);
    if (r.options_only) {
        (void)load_config(r.config);  // throws ConfigError with the reason
        return result;
    }
    RunContext c{r, viz, scheduler, clocked ? &clocked : nullptr, r.traces.size(), outputs, summary, io};
    for (const auto& path : r.traces) {
        RunReport rep;
        if (const int rc = replay_said(c, path, rep); rc != kExitOk) return {rc, {}};
        result.runs.push_back(std::move(rep));
    }
    if (!r.quiet) print_comparison(summary, result.runs, r.details ? Detail::full : Detail::brief);
    if (!r.json.empty()) write_to(outputs, "json", io, result.runs, write_json);
    if (!r.csv.empty()) write_to(outputs, "csv", io, result.runs, write_csv);
    if (!r.stats.empty()) write_to(outputs, "stats", io, result.runs, write_stats);
    outputs.commit_all();
    return result;
}

}  // namespace sbufsim::app
