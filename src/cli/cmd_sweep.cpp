// sbufsim sweep: the command line of `sweep` (sbufsim/app/sweep.h): its options into a
// SweepRequest. docs/sweeps.md.
#include <algorithm>

#include "cli/commands.h"
#include "sbufsim/app/run.h"
#include "sbufsim/app/sweep.h"
#include "sbufsim/types/text.h"

namespace po = boost::program_options;

namespace sbufsim::cli {

namespace {

const char* kSweepExamples =
    "\nexamples:\n"
    "  sbufsim sweep traces/dma_vs_compute.trc --vary tdm.dma_slots=0:8 --out tdm.csv\n"
    "  sbufsim sweep traces/act_vs_matmul_collide.trc --vary arbiter.stage2.pe_rd.prio=0:7 \\\n"
    "      --vary arbiter.stage2.act_wr.prio=0,3,7 --rank-by total_cycles\n"
    "  sbufsim sweep traces/dma_vs_compute.trc --set throttler.act_rd.enable=true \\\n"
    "      --vary throttler.act_rd.window_len=8,16,32 --vary throttler.act_rd.transfer_cnt=2,4,8 \\\n"
    "      --zip --json thr.json\n"
    "  sbufsim sweep T.trc --vary tdm.dma_slots=0:15 --shard $SLURM_ARRAY_TASK_ID/4 --out part.csv\n"
    "  sbufsim sweep T1 T2 --vary tdm.dma_slots=1:7 --rank-by total_cycles --best   the best point's report\n"
    "\npoints: the cartesian product of the --vary lists, first --vary outermost (or --zip: the\n"
    "lists side by side). Rows: trace, the varied keys, then the metrics below, status, message;\n"
    "trace-major, then point order. --shard I/N runs the I-th of N contiguous blocks of rows; only\n"
    "shard 0 writes the CSV header, so `cat part0.csv part1.csv ...` is the unsharded table.\n"
    "Re-running with the same --out resumes: rows already there are kept and not re-run; rows of\n"
    "other points stay too, and the merged table is sorted by trace, then by each key's value. Rows of\n"
    "another base configuration (--gen, --config, --set) or trace version are replaced only with\n"
    "--force. --out is locked while a sweep writes it: a second sweep on the same file refuses to\n"
    "start. An existing --out that is not a sweep table (a trace, say) is replaced only with --force.\n"
    "Without --vary, one point per trace: the base configuration's row.\n"
    "\nexit status: 0 every point of this sweep ok, 1 some point invalid or failed (see its row), 2 usage "
    "or\n"
    "configuration error or a refused output path, 3 unreadable trace or an output that could not\n"
    "be written, 4 internal error.\n";

// --best: the best ok row (by --rank-by, else total_cycles) replayed as `run` replays a trace,
// its varied keys as --set, so its one-screen report says why it is the best.
int show_best_point(const SweepRequest& o, const SweepResult& result, Io io) {
    const std::vector<std::string>& cols = result.columns;
    std::vector<sweep::Metric> ms;
    for (const std::string& name : split(o.rank_by.empty() ? "total_cycles" : o.rank_by, ','))
        if (const auto m = sweep::find_metric(name)) ms.push_back(*m);
    const std::size_t status = cols.size() - 2;
    const std::vector<std::size_t> order = sweep::rank(cols, result.rows, ms);
    const auto ok = std::find_if(order.begin(), order.end(),
                                 [&](std::size_t i) { return result.rows[i][status] == sweep::kStatusOk; });
    if (ok == order.end()) {
        io.out << "\n--best: no point is ok, so none is replayed\n";
        return kExitOk;
    }
    const sweep::Row& row = result.rows[*ok];
    RunRequest r;
    r.traces = {row[0]};
    r.config = o.base;
    r.lenient = o.lenient;
    const std::size_t axes =
        static_cast<std::size_t>(std::find(cols.begin(), cols.end(), "total_cycles") - cols.begin());
    io.out << "\nthe best point: " << row[0];
    for (std::size_t c = 1; c < axes; ++c) {
        r.config.overrides.push_back(Setting{cols[c], row[c], Origin{}, {}});
        io.out << " --set " << cols[c] << "=" << row[c];
    }
    io.out << "\n";
    return run_traces(r, io).status;
}

int sweep_command(const std::vector<std::string>& args, Io io, bool options_only) {
    SweepRequest o;
    ConfigOptions config;
    std::string log_level;
    unsigned jobs = 0;
    bool best = false;
    po::options_description desc("sbufsim sweep TRACE... [--vary KEY=VALUES]... [options]");
    // clang-format off
    desc.add_options()("help,h", "show this help")
        ("vary,v", po::value(&o.vary)->composing()->value_name("KEY=V1,V2|LO:HI[:STEP]"),
         "vary a config key over a list or an inclusive numeric range (repeatable)")
        ("zip", po::bool_switch(&o.zip), "pair the --vary lists side by side instead of the cartesian product")
        ("jobs,j", po::value(&jobs)->value_name("N"), "worker processes (default: all cores)")
        ("shard", po::value(&o.shard)->value_name("I/N"), "run only the I-th of N contiguous blocks of rows")
        ("out,o", po::value(&o.out)->value_name("FILE"), "CSV table ('-' = stdout); re-running resumes it")
        ("json", po::value(&o.json)->value_name("FILE"), "the rows as a JSON array ('-' = stdout)")
        ("rank-by", po::value(&o.rank_by)->value_name("METRIC[,METRIC...]"),
         "terminal summary: best points first (any registered metric; added as a column if needed); "
         "a later metric orders the points the earlier ones tie")
        ("metric,m", po::value(&o.metrics)->composing()->value_name("METRIC"),
         "add a metric column (repeatable; per engine, client or critical-path group too: "
         "engine.pe.busy_fraction; sbufsim run --list-metrics)")
        ("top", po::value(&o.top)->value_name("N"), "rows in the terminal summary (default 20, 0 = all)")
        ("best", po::bool_switch(&best),
         "after the table, replay the best ok point (by --rank-by, else total_cycles) and print its "
         "report, as sbufsim run TRACE --set KEY=VALUE... would")
        ("no-header", po::bool_switch(&o.no_header), "no CSV header (default for shards other than 0)")
        ("timeout", po::value(&o.timeout)->value_name("SEC"),
         "kill a point still running after SEC seconds; its row says 'timeout' (default 0: no limit)")
        ("lenient", po::bool_switch(&o.lenient),
         "skip invalid records (counted in run.skipped_records) instead of failing the point, as run "
         "--lenient; e.g. a trace of another generation under --gen")
        ("quiet,q", po::bool_switch(&o.quiet), "no progress bar and no summary");
    // clang-format on
    add_force_option(desc, o.force);
    add_log_level_option(desc, log_level);
    desc.add(config_options(config));
    po::options_description hidden;
    hidden.add_options()("trace", po::value(&o.traces)->composing(), "trace files");
    po::positional_options_description pos;
    pos.add("trace", -1);
    po::options_description all;
    all.add(desc).add(hidden).add(key_flag_options());
    const ParsedArgs args_in = parse_args(args, all, &pos, log_level);
    if (args_in.vm.count("help")) {
        io.out << "Replay traces over many configurations, in parallel worker processes, one row per\n"
                  "(trace, point), and write the table as CSV and/or JSON.\n\n"
               << desc << sweep_metric_help() << kSweepExamples;
        return kExitOk;
    }
    if (args_in.vm.count("jobs")) o.jobs = jobs;
    o.base = make_load_request(config, args_in.parsed);
    o.options_only = options_only;
    if (best && (o.out == "-" || o.json == "-" || o.quiet))
        throw ConfigError("--best prints a report after the table: not with --out -, --json - or --quiet");
    const SweepResult result = run_sweep(o, io);
    if (!best || options_only || result.rows.empty()) return result.status;
    const int shown = show_best_point(o, result, io);
    return shown != kExitOk ? shown : result.status;
}

}  // namespace

int cmd_sweep(const std::vector<std::string>& args, Io io) { return sweep_command(args, io, false); }

int check_sweep_options(const std::vector<std::string>& args, Io io) { return sweep_command(args, io, true); }

}  // namespace sbufsim::cli
