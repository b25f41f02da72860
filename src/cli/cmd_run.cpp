// sbufsim run: the command line of `run` (sbufsim/app/run.h): its options into a RunRequest.
#include <algorithm>
#include <sstream>

#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "cli/clocked_scheduler.h"
#include "cli/commands.h"
#include "sbufsim/app/run.h"

namespace po = boost::program_options;

namespace sbufsim::cli {

namespace {

const char* kRunExamples =
    "\nexamples:\n"
    "  sbufsim run                                   the default workload (traces/matmul_kloop.trc)\n"
    "  sbufsim run traces/dma_load.trc --json out.json\n"
    "  sbufsim run gemm.sbt --details                every finding and every table (clients, banks, ...)\n"
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

// A recorded trace path as an argument that is a path whatever it holds: a result file is data,
// and one whose trace field reads "--force" or "--json=notes.txt" must not become an option.
std::string as_path_argument(const std::string& trace) {
    return !trace.empty() && trace[0] == '-' ? "./" + trace : trace;
}

// `run --from RESULT.json`: the recorded runs' command lines, each followed by the options given
// now (other than --from), replayed one after the other.
int rerun_from(const std::string& result, const std::vector<std::string>& args, Io io) {
    const RecordedRuns recorded = read_recorded_runs(result, io.err);
    if (recorded.status != kExitOk) return recorded.status;
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
    std::vector<std::string> cmd;
    for (const std::string& trace : recorded.traces) cmd.push_back(as_path_argument(trace));
    const std::vector<std::string>& gens = recorded.generations;
    if (!given("--gen") && !given("--config") && !gens.front().empty() &&
        std::all_of(gens.begin(), gens.end(), [&](const std::string& g) { return g == gens.front(); }))
        cmd.push_back("--gen=" + gens.front());
    if (!given("--scheduler")) cmd.push_back("--scheduler=" + recorded.scheduler);
    if (recorded.lenient && !given("--lenient")) cmd.push_back("--lenient");
    for (const auto& [key, value] : recorded.settings) cmd.push_back("--set=" + key + "=" + value);
    cmd.insert(cmd.end(), rest.begin(), rest.end());
    spdlog::info("run: --from {}: sbufsim run {}", result, fmt::join(cmd, " "));
    return cmd_run(cmd, io);
}

// The clocked scheduler as the run request takes it, opened on first use.
ClockedReplay open_clocked() {
    const models::ClockedEntry& entry = clocked_scheduler();
    return [&entry](const Params& p, TraceReader& reader, const ReplayOptions& o, const std::string& vcd,
                    std::ostream* hierarchy) {
        models::ClockedOptions c;
        c.vcd = vcd;
        if (hierarchy) c.hierarchy = hierarchy;
        return entry.replay(p, reader, o, c).result;
    };
}

// `options_only`: parse the options, open the outputs (their temporaries are removed unwritten)
// and load the configuration of the command line's --gen, then return: a caller that makes the
// trace first (sbufsim nki) learns of a bad option before that work.
int run_command(const std::vector<std::string>& args, Io io, bool options_only) {
    ConfigOptions copts;
    std::string log_level, from;
    bool list_metrics = false;
    RunRequest r;
    RunVisuals& viz = r.visuals;
    po::options_description desc("sbufsim run [TRACE...] [options]");
    // One option a line.
    // clang-format off
    desc.add_options()("help,h", "show this help")
        ("json", po::value(&r.json)->value_name("FILE"), "write the statistics as JSON ('-' = stdout)")
        ("csv", po::value(&r.csv)->value_name("FILE"), "write the statistics as CSV rows ('-' = stdout)")
        ("stats", po::value(&r.stats)->value_name("FILE"),
         "write the statistics as text, one a line with its description and unit, as gem5's "
         "stats.txt ('-' = stdout)")
        ("quiet,q", po::bool_switch(&r.quiet), "no text summary")
        ("details", po::bool_switch(&r.details),
         "the full summary: every finding and the engine, source-line, PE, DMA, client and bank tables "
         "(and, with several traces, each trace's); without it, one screen: the verdict, the gain bound, the "
         "critical path by engine, MFU and MBU and the three largest findings with something to gain, or "
         "for several traces their table")
        ("from", po::value(&from)->value_name("RESULT"),
         "re-run the runs a --json RESULT file records: its trace, generation, scheduler, --lenient and "
         "every setting that differs from the generation file (further options apply on top)")
        ("list-metrics", po::bool_switch(&list_metrics),
         "list every registered metric (name, unit, better direction, description) and exit")
        ("lenient", po::bool_switch(&r.lenient), "skip invalid records (counted and listed) instead of refusing the trace")
        ("scheduler", po::value(&r.scheduler)->default_value(r.scheduler)->value_name("S"),
         "fast: event-driven replay, the kernel runs many cycles per step; clocked: the SystemC "
         "model, every block a process on the PE clock, evaluated every cycle in which a beat can move "
         "or an engine is due, idle stretches skipped (the reference: same statistics, 10x to 130x "
         "slower on the shipped traces, docs/performance.md)")
        ("vcd", po::value(&viz.vcd)->value_name("FILE"),
         "write a VCD waveform (per-bank busy/conflict/winner/grants, TDM slot, per-client "
         "stall/grant, engine busy) for GTKWave; implies --scheduler clocked")
        ("annotate", po::value(&r.annotate)->value_name("FILE"),
         "print the functions of the kernel source FILE that made records, each line's figures in a "
         "margin (critical path, busy, stalls, semaphore wait, DMA, instructions; the hottest lines "
         "marked >>), from the trace's source locations (docs/report.md)")
        ("hierarchy", po::bool_switch(&r.hierarchy),
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
    add_force_option(desc, r.force);
    add_log_level_option(desc, log_level);
    desc.add(config_options(copts));
    po::options_description hidden;
    hidden.add_options()("trace", po::value(&r.traces)->composing(), "trace files");
    po::positional_options_description pos;
    pos.add("trace", -1);
    po::options_description all;
    all.add(desc).add(hidden);
    add_key_flags_if_named(all, args);

    const ParsedArgs args_in = parse_args(args, all, &pos, log_level);
    const auto& vm = args_in.vm;
    if (vm.count("help")) {
        io.out
            << "Replay traces (text .trc or binary .sbt) through the engine front-ends and the SBUF/PSUM\n"
               "bank-conflict kernel; print total cycles, per-engine busy/stall, stalls by cause, bank\n"
               "conflicts, TDM use, PE utilisation, PSUM groups and DMA bandwidth. With no TRACE, replays\n"
               "the shipped default workload (from $SBUFSIM_TRACE_DIR, else share/sbufsim/traces next to\n"
               "the executable).\n\n"
            << desc << kRunExamples;
        return kExitOk;
    }
    if (list_metrics) {
        print_metric_list(io.out);
        return kExitOk;
    }
    if (!from.empty()) return rerun_from(from, args, io);
    r.config = make_load_request(copts, args_in.parsed);
    r.scheduler_given = !vm["scheduler"].defaulted();
    viz.timeline_detail_given = !vm["timeline-detail"].defaulted();
    viz.timeline_unit_given = !vm["timeline-unit"].defaulted();
    viz.window_stats_given = vm.count("window-stats") != 0;
    r.open_clocked = open_clocked;
    r.options_only = options_only;
    return run_traces(r, io).status;
}

}  // namespace

int cmd_run(const std::vector<std::string>& args, Io io) { return run_command(args, io, false); }

int check_run_options(const std::vector<std::string>& args, Io io) { return run_command(args, io, true); }

}  // namespace sbufsim::cli
