// sbufsim run: replay traces through the engine front-ends and the bank-conflict kernel (the
// fast scheduler, or the clocked SystemC model) and report where the cycles went. docs/replay.md.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

// property_tree includes boost/bind.hpp, which otherwise prints a deprecation note.
#define BOOST_BIND_GLOBAL_PLACEHOLDERS
#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "cli/clocked_scheduler.h"
#include "cli/commands.h"
#include "cli/outputs.h"
#include "cli/picture.h"
#include "sbufsim/config/data_dirs.h"
#include "sbufsim/output/heatmap.h"
#include "sbufsim/output/line_profile.h"
#include "sbufsim/output/metrics.h"
#include "sbufsim/output/progress.h"
#include "sbufsim/output/report.h"
#include "sbufsim/output/timeline.h"
#include "sbufsim/types/input_file.h"

namespace po = boost::program_options;

namespace sbufsim::cli {

namespace {

// The shipped default workload: the matmul K-loop with ACT evacuation (traces/README.md).
constexpr const char* kDefaultTrace = "matmul_kloop.trc";

const char* kExamples =
    "\nexamples:\n"
    "  sbufsim run                                   the default workload (traces/matmul_kloop.trc)\n"
    "  sbufsim run traces/dma_load.trc --json out.json\n"
    "  sbufsim run traces/act_vs_matmul_collide.trc --set tdm.dma_slots=2 --csv out.csv\n"
    "  sbufsim run my.trc --lenient --json -          skip invalid records; only JSON on stdout\n"
    "  sbufsim run --from out.json                   re-run the run out.json records (same statistics)\n"
    "  sbufsim run traces/act_vs_matmul_collide.trc --timeline t.json --window 0:2000 --heatmap h.svg\n"
    "  sbufsim run traces/matmul_kloop.trc --window-stats 500 --csv out.csv   per-500-cycle rows\n"
    "  sbufsim run traces/act_vs_matmul_collide.trc --vcd w.vcd   clocked scheduler, waveforms for GTKWave\n"
    "  sbufsim run traces/dma_load.trc --scheduler clocked --hierarchy   the SystemC modules, CSRs, signals\n"
    "\nOutput files are checked before the replay starts and appear only complete (written beside\n"
    "the target and renamed); an existing file of another kind (a trace, say) is replaced only\n"
    "with --force, an input never. docs/cli.md, \"What is written when\".\n"
    "\nexit status: 0 ok, 2 usage or configuration error or a refused output path, 3 unreadable or\n"
    "invalid trace (or a deadlock) or an output that could not be written, 4 internal error.\n"
    "Results go to stdout, errors to stderr; with --json - or --csv - stdout holds only that\n"
    "document and the summary goes to stderr (or nowhere with --quiet).\n";

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
        named(it == files_.end() ? "" : it->second.option, [&] { write(it == files_.end() ? nullptr : it->second.file.get()); });
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

// What the visualisation options ask for (docs/visualisation.md).
struct VizOptions {
    std::string timeline, window, heatmap, vcd, timeline_detail = "stalls", timeline_unit = "cycles";
    Cycle window_stats = 0;
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

// The probe's shape: exact N-cycle bins for --window-stats, else bins that fold to stay bounded.
ProbeOptions probe_options(const VizOptions& v) {
    ProbeOptions o;
    o.record_spans = !v.timeline.empty();
    o.cycle_view = !v.vcd.empty();
    o.bin_width = v.window_stats ? v.window_stats : 1;
    o.fixed_width = v.window_stats != 0;
    return o;
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
        spdlog::info("run: timeline {} at detail {} ({} stall runs recorded)", per_trace(v.timeline, r.trace, traces),
                     v.timeline_detail, probe.spans().size());
        outputs.write("timeline:" + r.trace, [&](OutputFile* file) {
            write_timeline(file ? file->stream() : std::cout, r, probe, o);
            if (file) file->check();
        });
    }
    if (!v.heatmap.empty()) {
        const WindowSeries w = v.window_stats ? rep.windows
                                              : make_windows(probe, r.kernel, r.total_cycles, probe.bin_width());
        HeatmapInfo info{std::filesystem::path(r.trace).filename().string(), r.generation,
                         settings_of(rep.info), r.pe_clock_ghz, r.total_cycles};
        info.path = heatmap_path(analyse(r).path, r.total_cycles);
        const std::string svg = render_heatmap(w, block_matrix(r.kernel), info);
        outputs.write("heatmap:" + r.trace, [&](OutputFile* file) { write_picture(svg, file, std::cout); });
    }
}

// The metric registry as a table (output/metrics.h).
void print_metric_list(std::ostream& os) {
    os << "metrics (sweep --metric / --rank-by; --json/--csv/--stats write each at its report path, shown in [ ]\n"
          "where it differs from the name, which also names it; \"sweep only\": not in the report). Families:\n"
          "<engine> = arr_seq (or pe), act, pool, dve, dma_K, q7_K; <client> = a kernel client as in the run's\n"
          "client table; <group> = PE, ACT, POOL, DVE, DMA, Q7, kernel; <bank> = sbuf_K, psum_K; <key> = a config key\n";
    std::size_t w = 0;
    for (const auto& m : metric_registry()) w = std::max(w, m.name.size());
    for (const auto& m : metric_registry()) {
        std::string name = m.name, unit = m.unit.empty() ? "text" : m.unit, better = to_string(m.better);
        name.resize(w + 2, ' ');
        unit.resize(13, ' ');
        better.resize(8, ' ');
        os << "  " << name << unit << better << m.description;
        if (m.report_path.empty()) os << " [sweep only]";
        else if (m.report_path != m.name) os << " [" << m.report_path << "]";
        os << "\n";
    }
}

// A trace whose digest differs from the one `result` recorded was edited since: its statistics
// will not be the recorded ones, which the user re-running a result expects. Said, not refused
// (replaying an edited trace under the recorded settings is a use of its own).
void warn_if_changed(const std::string& result, const std::string& trace, const std::string& recorded,
                     std::ostream& err) {
    if (recorded.empty() || !input_file_problem(trace).empty()) return;  // the run says why it cannot read it
    const std::string now = file_digest(trace);
    if (now == recorded) return;
    err << "sbufsim run: --from " << result << ": " << trace
        << " changed since the result was written (digest " << recorded << " then, " << now
        << " now): its statistics will differ from the recorded ones\n";
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

// A recorded trace path as an argument that is a path whatever it holds: a result file is data,
// and one whose trace field reads "--force" or "--json=notes.txt" must not become an option.
std::string as_path_argument(const std::string& trace) {
    return !trace.empty() && trace[0] == '-' ? "./" + trace : trace;
}

// `run --from RESULT.json`: the recorded runs' command lines, each followed by the options given
// now (other than --from), replayed one after the other.
int rerun_from(const std::string& result, const std::vector<std::string>& args, Io io) {
    namespace pt = boost::property_tree;
    if (const std::string why = input_file_problem(result); !why.empty()) {
        io.err << "sbufsim run: --from " << result << ": cannot open: " << why
               << "; give a file written by sbufsim run --json\n";
        return kExitInput;
    }
    pt::ptree doc;
    try {
        // Read once and checked first (nesting, size, a device of zeros): the parser recurses
        // once per level.
        std::istringstream text(read_json_input(result));
        pt::read_json(text, doc);
    } catch (const InputError& e) {
        io.err << "sbufsim run: --from " << e.what() << "; give a file written by sbufsim run --json\n";
        return kExitUsage;
    } catch (const pt::json_parser_error& e) {
        io.err << "sbufsim run: --from " << result << ": not a result file (" << e.message() << " at line " << e.line()
               << "); give a file written by sbufsim run --json\n";
        return kExitUsage;
    }
    const auto runs = doc.get_child_optional("runs");
    if (!runs || runs->empty()) {
        io.err << "sbufsim run: --from " << result << ": no \"runs\" array; give a file written by sbufsim run --json\n";
        return kExitUsage;
    }
    std::vector<std::string> rest;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--from") {
            ++i;
            continue;
        }
        if (args[i].rfind("--from=", 0) == 0) continue;
        rest.push_back(args[i]);
    }
    // An option given now replaces the recorded one (each may be given once); --config chooses
    // the generation through its `base` or the trace's gen=, so it replaces the recorded --gen.
    const auto given = [&](const std::string& option) {
        return std::any_of(rest.begin(), rest.end(), [&](const std::string& a) {
            return a == option || a.rfind(option + "=", 0) == 0;
        });
    };
    // One invocation wrote every run of the file: the same options, each trace's own generation
    // unless --gen was given (then all runs share it).
    std::vector<std::string> cmd, gens;
    for (const auto& [_, run] : *runs) {
        std::string trace = run.get<std::string>("trace", "");
        // A relative trace path is taken from where the result was written, if not found here.
        const std::filesystem::path beside = std::filesystem::path(result).parent_path() / trace;
        if (!std::filesystem::exists(trace) && std::filesystem::exists(beside)) trace = beside.string();
        warn_if_changed(result, trace, run.get<std::string>("run.trace_digest", ""), io.err);
        cmd.push_back(as_path_argument(trace));
        gens.push_back(run.get<std::string>("run.generation", ""));
    }
    const pt::ptree& first = runs->front().second;
    if (!given("--gen") && !given("--config") && !gens.front().empty() &&
        std::all_of(gens.begin(), gens.end(), [&](const std::string& g) { return g == gens.front(); }))
        cmd.push_back("--gen=" + gens.front());
    if (!given("--scheduler"))
        cmd.push_back("--scheduler=" + first.get<std::string>("run.scheduler", "fast"));
    if (first.get<int>("run.lenient", 0) && !given("--lenient")) cmd.push_back("--lenient");
    if (const auto config = first.get_child_optional("config"))
        for (const auto& [key, v] : *config) cmd.push_back("--set=" + key + "=" + v.get<std::string>("value", ""));
    cmd.insert(cmd.end(), rest.begin(), rest.end());
    spdlog::info("run: --from {}: sbufsim run {}", result, fmt::join(cmd, " "));
    return cmd_run(cmd, io);
}

// --window-stats: the row cap from the one constant that enforces it.
const std::string& window_stats_help() {
    static const std::string help =
        "add per-N-cycle rows (bank busy/conflicts/stalls, client bytes, stalls by cause) to "
        "--json/--csv/--stats; "
        "windows in which nothing happened have no row (at most " +
        std::to_string(kMaxActiveBins) + " rows with activity)";
    return help;
}

}  // namespace

namespace {

// `options_only`: parse the options, open the outputs (their temporaries are removed unwritten)
// and load the configuration of the command line's --gen, then return: a caller that makes the
// trace first (sbufsim nki) learns of a bad option before that work.
int run_command(const std::vector<std::string>& args, Io io, bool options_only) {
    ConfigOptions copts;
    std::string log_level, json_path, csv_path, stats_path, scheduler = "fast", from;
    std::vector<std::string> traces;
    bool quiet = false, lenient = false, force = false, list_metrics = false, hierarchy = false;
    std::string annotate;
    VizOptions viz;
    po::options_description desc("sbufsim run [TRACE...] [options]");
    // One option a line.
    // clang-format off
    desc.add_options()("help,h", "show this help")
        ("json", po::value(&json_path)->value_name("FILE"), "write the statistics as JSON ('-' = stdout)")
        ("csv", po::value(&csv_path)->value_name("FILE"), "write the statistics as CSV rows ('-' = stdout)")
        ("stats", po::value(&stats_path)->value_name("FILE"),
         "write the statistics as text, one a line with its description and unit, as gem5's "
         "stats.txt ('-' = stdout)")
        ("quiet,q", po::bool_switch(&quiet), "no text summary")
        ("from", po::value(&from)->value_name("RESULT"),
         "re-run the runs a --json RESULT file records: its trace, generation, scheduler, --lenient and "
         "every setting that differs from the generation file (further options apply on top)")
        ("list-metrics", po::bool_switch(&list_metrics),
         "list every registered metric (name, unit, better direction, description) and exit")
        ("lenient", po::bool_switch(&lenient), "skip invalid records (counted and listed) instead of refusing the trace")
        ("scheduler", po::value(&scheduler)->default_value(scheduler)->value_name("S"),
         "fast: event-driven replay, the kernel runs many cycles per step; clocked: the SystemC "
         "model, every block a process on the PE clock, evaluated every cycle in which a beat can move "
         "or an engine is due, idle stretches skipped (the reference: same statistics, 10x to 130x "
         "slower on the shipped traces, docs/performance.md)")
        ("vcd", po::value(&viz.vcd)->value_name("FILE"),
         "write a VCD waveform (per-bank busy/conflict/winner/grants, TDM slot, per-client "
         "stall/grant, engine busy) for GTKWave; implies --scheduler clocked")
        ("annotate", po::value(&annotate)->value_name("FILE"),
         "print the kernel source FILE with each line's figures in a margin (critical path, busy, "
         "stalls, semaphore wait, DMA, instructions; the hottest lines marked >>), from the trace's "
         "source locations (docs/report.md)")
        ("hierarchy", po::bool_switch(&hierarchy),
         "print the SystemC model's sc_object tree after the run, with every module's CSRs (name, "
         "offset, value) and signals (value); implies --scheduler clocked")
        ("timeline", po::value(&viz.timeline)->value_name("FILE"),
         "write a Chrome-trace/Perfetto JSON timeline (engine queues, client stalls, bank counters)")
        ("window", po::value(&viz.window)->value_name("A:B"), "timeline: keep only events intersecting cycles [A, B) (the heatmap and --window-stats cover the whole run)")
        ("timeline-detail", po::value(&viz.timeline_detail)->default_value(viz.timeline_detail)->value_name("D"),
         "timeline: instructions (queues, flows, counters), stalls (+ stall runs per client and cause, "
         "runs < 32 cycles apart merged), all (+ every stall run, exact; large on long runs)")
        ("timeline-unit", po::value(&viz.timeline_unit)->default_value(viz.timeline_unit)->value_name("U"),
         "timeline: cycles (PE cycles, which viewers label us; cycle numbers as in the report) or ns "
         "(real time at the PE clock: viewers show the run's true duration)")
        ("heatmap", po::value(&viz.heatmap)->value_name("FILE"),
         "write a bank x time heatmap (utilisation, stalls per bank, stalls by cause) and who-blocked-whom "
         "matrix: FILE.svg, or FILE.png through rsvg-convert (librsvg2-bin)")
        ("window-stats", po::value(&viz.window_stats)->value_name("N"),
         window_stats_help().c_str());
    // clang-format on
    add_force_option(desc, force);
    add_log_level_option(desc, log_level);
    desc.add(config_options(copts));
    po::options_description hidden;
    hidden.add_options()("trace", po::value(&traces)->composing(), "trace files");
    po::positional_options_description pos;
    pos.add("trace", -1);
    po::options_description all;
    all.add(desc).add(hidden);
    add_key_flags_if_named(all, args);

    const ParsedArgs args_in = parse_args(args, all, &pos, log_level);
    const auto& parsed = args_in.parsed;
    const auto& vm = args_in.vm;
    if (vm.count("help")) {
        io.out << "Replay traces (text .trc or binary .sbt) through the engine front-ends and the SBUF/PSUM\n"
                  "bank-conflict kernel; print total cycles, per-engine busy/stall, stalls by cause, bank\n"
                  "conflicts, TDM use, PE utilisation, PSUM groups and DMA bandwidth. With no TRACE, replays\n"
                  "the shipped default workload (from $SBUFSIM_TRACE_DIR, else share/sbufsim/traces next to\n"
                  "the executable).\n\n"
               << desc << kExamples;
        return kExitOk;
    }
    if (list_metrics) {
        print_metric_list(io.out);
        return kExitOk;
    }
    if (!from.empty()) return rerun_from(from, args, io);
    std::vector<std::string> on_stdout;
    for (const auto& [flag, path] : {std::pair{"--json", &json_path}, {"--csv", &csv_path}, {"--stats", &stats_path}})
        if (*path == "-") on_stdout.push_back(std::string(flag) + " -");
    if (on_stdout.size() > 1) {
        io.err << "sbufsim run: " << fmt::format("{}", fmt::join(on_stdout, " and "))
               << (on_stdout.size() == 2 ? " both" : " all") << " ask for stdout; write "
               << "all but one of them to a file (e.g. --json - --csv out.csv)\n";
        return kExitUsage;
    }
    // A document on stdout stays parseable: the summary moves to stderr.
    std::ostream& summary = on_stdout.empty() ? io.out : io.err;
    if (!viz.vcd.empty() || hierarchy) {
        if (!vm["scheduler"].defaulted() && scheduler != "clocked") {
            io.err << "sbufsim run: " << (hierarchy ? "--hierarchy lists" : "--vcd records")
                   << " the clocked scheduler's modules; drop --scheduler " << scheduler
                   << " or use --scheduler clocked\n";
            return kExitUsage;
        }
        scheduler = "clocked";
    }
    if (scheduler != "fast" && scheduler != "clocked") {
        io.err << "sbufsim run: unknown scheduler '" << scheduler << "' (fast or clocked)\n";
        return kExitUsage;
    }
    // The clocked scheduler's module is opened (or refused) before any output or work.
    const models::ClockedEntry* clocked = scheduler == "clocked" ? &clocked_scheduler() : nullptr;
    if (!viz.window.empty()) {
        if (viz.timeline.empty()) {
            io.err << "sbufsim run: --window applies to --timeline\n";
            return kExitUsage;
        }
        try {
            parse_window(viz.window, viz.from, viz.to);
        } catch (const std::invalid_argument& e) {
            io.err << "sbufsim run: " << e.what() << "\n";
            return kExitUsage;
        }
        // The heatmap's who-blocked-whom panel is the whole run's; its time panels are too, so the
        // two agree. Said, so a zoomed timeline is not read against a heatmap taken as zoomed.
        if (!viz.heatmap.empty() || viz.window_stats)
            io.err << "sbufsim run: note: --window " << viz.window << " cuts the timeline only; "
                   << (viz.heatmap.empty() ? "--window-stats" : "--heatmap") << " covers the whole run\n";
    }
    // A --timeline-* choice is given only with --timeline, and is one of its values.
    auto timeline_choice_problem = [&](const char* option, const std::function<void()>& parse) -> bool {
        if (vm[option].defaulted()) return false;
        if (viz.timeline.empty()) {
            io.err << "sbufsim run: --" << option << " applies to --timeline\n";
            return true;
        }
        try {
            parse();
        } catch (const std::invalid_argument& e) {
            io.err << "sbufsim run: " << e.what() << "\n";
            return true;
        }
        return false;
    };
    if (timeline_choice_problem("timeline-detail", [&] { parse_timeline_detail(viz.timeline_detail); }) ||
        timeline_choice_problem("timeline-unit", [&] { parse_timeline_unit(viz.timeline_unit); }))
        return kExitUsage;
    if (viz.vcd == "-") {
        io.err
            << "sbufsim run: --vcd writes a file (SystemC's VCD writer cannot write to stdout); name one\n";
        return kExitUsage;
    }
    if (const std::string why = picture_path_problem(viz.heatmap); !why.empty()) {
        io.err << "sbufsim run: --heatmap " << why << "\n";
        return kExitUsage;
    }
    if (vm.count("window-stats") && viz.window_stats == 0) {
        io.err << "sbufsim run: --window-stats needs N >= 1 cycles\n";
        return kExitUsage;
    }
    if (traces.empty()) traces.push_back(find_data_file(DataKind::traces, kDefaultTrace));

    // Every output path is checked and opened before the first cycle is simulated.
    std::vector<std::string> inputs = traces;
    inputs.insert(inputs.end(), copts.files.begin(), copts.files.end());
    std::vector<std::pair<std::string, std::string>> named{
        {"--json", json_path}, {"--csv", csv_path}, {"--stats", stats_path}};
    for (const auto& t : traces) {
        named.emplace_back("--timeline", viz.timeline.empty() ? "" : per_trace(viz.timeline, t, traces.size()));
        named.emplace_back("--heatmap", viz.heatmap.empty() ? "" : per_trace(viz.heatmap, t, traces.size()));
        named.emplace_back("--vcd", viz.vcd.empty() ? "" : per_trace(viz.vcd, t, traces.size()));
    }
    check_distinct_outputs(named);
    RunOutputs outputs;
    outputs.open("json", "--json", json_path, output_policy("--json file", is_run_json, force, inputs));
    outputs.open("csv", "--csv", csv_path, output_policy("--csv file", is_run_csv, force, inputs));
    outputs.open("stats", "--stats", stats_path, output_policy("--stats file", is_run_stats, force, inputs));
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

    if (options_only) {
        (void)load_config(make_load_request(copts, parsed));  // throws ConfigError with the reason
        return kExitOk;
    }

    std::vector<RunReport> runs;
    for (const auto& path : traces) {
        try {
            TraceReader reader(path, TraceReader::Digest::yes);  // the report's trace_digest
            LoadRequest req = make_load_request(copts, parsed);
            adopt_trace_generation(req, reader.header().generation);
            const LoadedConfig cfg = load_config(req);
            if (&path == &traces.front())  // the same settings for every trace: noted once
                for (const std::string& note : settings_without_effect(cfg))
                    io.err << "sbufsim run: note: " << note << "\n";
            spdlog::info("run: {} on generation {}, {} scheduler", path, cfg.params.generation, scheduler);
            ReplayOptions ropt;
            ropt.lenient = lenient;
            ropt.record_timeline = !viz.timeline.empty();
            std::unique_ptr<ActivityProbe> probe;
            if (viz.wanted()) {
                const Params& p = cfg.params;
                const std::uint32_t banks = p.sbuf.ecc_banks + (p.has_psum() ? p.psum.ecc_banks : 0);
                probe = std::make_unique<ActivityProbe>(ClientSet(p).size(), banks, probe_options(viz));
                ropt.probe = probe.get();
            }
            // Only a person watching a terminal wants the bar; pipes, files and tests do not.
            const bool bar = !quiet && &io.err == &std::cerr && Progress::stderr_is_terminal();
            Progress progress(io.err, bar, bar ? Progress::estimate_records(path) : 0,
                              std::filesystem::path(path).filename().string());
            if (bar) ropt.progress = [&progress](std::uint64_t n) { progress.update(n); };
            RunReport rep;
            rep.info.scheduler = scheduler;
            if (clocked != nullptr) {
                models::ClockedOptions copt;
                // SystemC writes its VCD by name and checks no write: it writes into a FIFO, and
                // every byte reaches --vcd through the checked output (a device in place, a full
                // disk an error, the target replaced only by commit_all).
                std::unique_ptr<FifoCopy> vcd;
                if (OutputFile* file = outputs.get("vcd:" + path)) {
                    vcd = std::make_unique<FifoCopy>(*file, "waveform.vcd");
                    copt.vcd = vcd->path();
                }
                std::ostringstream tree;
                if (hierarchy) copt.hierarchy = &tree;
                rep.result = clocked->replay(cfg.params, reader, ropt, copt).result;
                if (vcd) {
                    vcd->finish();
                    outputs.write("vcd:" + path, [](OutputFile* file) { file->check(); });
                }
                if (hierarchy)
                    summary << "SystemC hierarchy of " << path << " at the end of the run (signals are driven while "
                            << (viz.vcd.empty() ? "--vcd records them: here they hold their reset values" : "--vcd records them")
                            << "):\n"
                            << tree.str();
            } else
                rep.result = replay(cfg.params, reader, ropt);
            progress.finish();
            warn_empty(path, rep.result, io.err);
            warn_skipped(path, rep.result, io.err);
            warn_races(path, rep.result, io.err);
            spdlog::info("run: {}: {} records, {} instructions, {} cycles", path, rep.result.records,
                         rep.result.instructions, rep.result.total_cycles);
            if (probe && probe->overflowed()) {
                // Windows with activity are capped (memory); any N this large fits the run.
                const Cycle fits = (rep.result.total_cycles + kMaxActiveBins - 1) / kMaxActiveBins;
                io.err << "sbufsim run: --window-stats " << viz.window_stats << ": " << path << " has more than "
                       << kMaxActiveBins << " windows with activity (the memory cap, docs/visualisation.md); use "
                          "--window-stats "
                       << std::max(fits, viz.window_stats + 1) << " or more\n";
                return kExitUsage;
            }
            rep.info.config_hash = hex16(fnv1a64(render_ini(cfg, false)));
            rep.info.settings = effective_settings(cfg);
            if (probe) write_viz(viz, rep, *probe, traces.size(), outputs);
            if (!viz.window.empty() && viz.from >= rep.result.total_cycles)
                io.err << "sbufsim run: warning: --window " << viz.window << ": " << path << " ends at cycle "
                       << rep.result.total_cycles
                       << ", so its timeline holds no event; give a window that starts "
                          "before it\n";
            // Hashed while the replay read it; a second pass only if the reader stopped early.
            // (Benchmarks and sweeps open their readers without, and so skip the hash.)
            const auto digest = reader.digest();
            rep.info.trace_digest = digest ? hex16(*digest) : file_digest(path);
            rep.info.lenient = lenient;
            if (!quiet) {
                print_summary(summary, rep);
                summary << "\n";
            }
            if (!annotate.empty() && !annotate_source(summary, io.err, rep.result, annotate))
                return kExitInput;
            runs.push_back(std::move(rep));
        } catch (const MissingTool& e) {
            io.err << "sbufsim run: " << e.what() << "\n";
            return kExitUsage;
        } catch (const TraceFormatError& e) {
            io.err << "sbufsim run: " << e.error().to_string() << shipped_trace_hint(path) << "\n";
            return kExitInput;
        } catch (const ReplayError& e) {
            io.err << "sbufsim run: " << e.what() << "\n";
            constexpr std::size_t kErrorsShown = 20;  // the first error above, then up to 19 more
            for (std::size_t i = 1; i < e.errors().size() && i < kErrorsShown; ++i)
                io.err << "  " << e.errors()[i].to_string() << "\n";
            return kExitInput;
        }
    }
    if (!quiet) print_comparison(summary, runs);
    if (!json_path.empty()) write_to(outputs, "json", io, runs, write_json);
    if (!csv_path.empty()) write_to(outputs, "csv", io, runs, write_csv);
    if (!stats_path.empty()) write_to(outputs, "stats", io, runs, write_stats);
    outputs.commit_all();
    return kExitOk;
}

}  // namespace

int cmd_run(const std::vector<std::string>& args, Io io) { return run_command(args, io, false); }

int check_run_options(const std::vector<std::string>& args, Io io) { return run_command(args, io, true); }

}  // namespace sbufsim::cli
