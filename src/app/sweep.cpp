// `sweep` (sbufsim/app/sweep.h): the request's checks, the points and their jobs, the outputs
// checked and --out locked before any point runs, the pool, then the tables and the summary.
#include "sbufsim/app/sweep.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include "sbufsim/app/generate.h"
#include "sbufsim/app/messages.h"
#include "sbufsim/app/outputs.h"
#include "sbufsim/output/progress.h"
#include "sbufsim/trace/sync_check.h"
#include "sbufsim/trace/trace.h"
#include "sbufsim/types/text.h"
#include "sweep_parts.h"

namespace sbufsim::app {

using namespace sweep_parts;

namespace {

unsigned default_jobs() {
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<unsigned>(n) : 1;
}

// Everything in the base configuration but how its keys go together (a point's values may make
// it consistent): files that cannot be read, unknown keys, values of the wrong type or range
// stop the sweep before any point runs, as they would stop `sbufsim run`.
void check_base(const LoadRequest& base) {
    LoadRequest req = base;
    req.cross_check = false;
    load_config(req);
}

// A --vary of a gen option (block_n, bufs, dtype): a tiling is a trace of its own, so the way to
// compare tilings is one trace each, swept together, not a key of the configuration.
void refuse_gen_option(const sweep::Axis& a) {
    std::string dashed = a.key;
    std::replace(dashed.begin(), dashed.end(), '_', '-');
    if (find_key(a.key) || !is_workload_option(dashed)) return;
    throw ConfigError(
        "--vary '" + a.arg + "': '" + a.key + "' is an option of sbufsim gen (--" + dashed +
        "), not a configuration key: a sweep varies the configuration over fixed traces. Write one "
        "trace per value (sbufsim gen ... --" +
        dashed +
        " V -o t_V.sbt) and sweep them together "
        "(sbufsim sweep t_1.sbt t_2.sbt ... --vary KEY=...; the table's trace column tells them "
        "apart), or loop over sbufsim.generate() in Python (docs/python.md)");
}

// A trace with races between queues (hazard_check.h): every row times them as they happen to
// fall, so it is said once, before the points run, as `sbufsim run` says it of one run. A trace
// or configuration that does not load is left to the points, which report it.
void warn_races(const LoadRequest& base, const std::string& trace, std::ostream& err) {
    try {
        TraceReader reader(trace);
        LoadRequest req = base;
        adopt_trace_generation(req, reader.header().generation);
        const RaceScan scan = scan_races(load_config(req).params, reader);
        if (scan.races == 0) return;
        err << "sbufsim sweep: warning: " << races_warning(trace, scan.races, scan.first.front(), "every row")
            << "\n";
    } catch (const std::runtime_error&) {}
}

// The notes `run` would print for the points' settings (a throttler key while that throttler is
// off, a limit that never binds), before any point runs: a flat sweep of such a key is said to
// be flat for that reason, not left to a guess.
void note_point_settings(Io io, const std::vector<std::string>& notes) {
    constexpr std::size_t kShown = 5;
    for (std::size_t i = 0; i < notes.size() && i < kShown; ++i)
        io.err << "sbufsim sweep: note: " << notes[i] << "\n";
    if (notes.size() > kShown)
        io.err << "sbufsim sweep: note: ... " << notes.size() - kShown << " more of this kind\n";
}

// A lenient point may have replayed part of its trace: the table says how much it skipped.
constexpr const char* kSkipped = "run.skipped_records";

// The request's checks that need no file (ConfigError), with --rank-by's metrics and the
// number of workers resolved.
Plan plan_of(const SweepRequest& request) {
    Plan o;
    static_cast<SweepRequest&>(o) = request;
    if (o.traces.empty()) throw ConfigError("no trace given (sbufsim sweep TRACE... --vary KEY=VALUES)");
    if (std::find(o.traces.begin(), o.traces.end(), "-") != o.traces.end())
        throw ConfigError(
            "trace '-' (standard input): a sweep replays each trace once per point; write it to a "
            "file first (sbufsim gen ... -o T.sbt)");
    o.workers = o.jobs ? *o.jobs : default_jobs();
    if (o.workers == 0) throw ConfigError("--jobs must be at least 1");
    if (const std::string why = timeout_problem(o.timeout); !why.empty()) throw ConfigError(why);
    if (o.out == "-" && o.json == "-")
        throw ConfigError(
            "--out - and --json - both ask for stdout; write one of them to a file (e.g. --out - --json "
            "rows.json)");
    for (const std::string& name : o.rank_by.empty() ? std::vector<std::string>{} : split(o.rank_by, ',')) {
        const auto m = sweep::find_metric(name);
        if (!m)
            throw ConfigError("--rank-by '" + name + "': not a registered metric" + metric_suggestion(name) +
                              " (sbufsim run --list-metrics lists them)");
        if (m->better == sweep::Better::none)
            throw ConfigError("--rank-by '" + name + "': a metric without a better direction (" + m->help +
                              "); rank by a number such as total_cycles");
        o.rank_metrics.push_back(*m);
        o.metrics.push_back(name);
    }
    if (o.lenient && std::find(o.metrics.begin(), o.metrics.end(), kSkipped) == o.metrics.end())
        o.metrics.emplace_back(kSkipped);
    // A file is one trace however it is spelt (sweep::trace_key: resumed rows match), so naming
    // it twice is refused.
    for (std::size_t i = 0; i < o.traces.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (sweep::trace_key(o.traces[j]) == sweep::trace_key(o.traces[i]) ||
                (file_id(o.traces[i]).exists() && file_id(o.traces[j]) == file_id(o.traces[i])))
                throw ConfigError("traces " + o.traces[j] + " and " + o.traces[i] +
                                  " are the same file: give each trace once");
    return o;
}

// Every trace opens, or the first that does not is said on err (false).
bool traces_readable(const Plan& o, std::ostream& err) {
    for (const auto& t : o.traces) {
        try {
            TraceReader check(t);
        } catch (const TraceFormatError& e) {
            err << "sbufsim sweep: " << e.error().to_string() << shipped_trace_hint(t) << "\n";
            // `--vary tdm.dma_slots=1, 2`: the shell split the list and the value became a trace.
            if (e.error().field == "file" && !t.empty() &&
                (t.find('=') != std::string::npos ||
                 t.find_first_not_of("0123456789.,:-") == std::string::npos))
                err << "sbufsim sweep: '" << t
                    << "' was read as a trace: a space in a --vary or --set list splits it; write "
                       "the list without spaces (--vary KEY=1,2) or quote it\n";
            return false;
        }
    }
    return true;
}

// What every row depends on besides its point: resume keeps rows only with the same digest.
// A row's trace that cannot be read now (moved or deleted since) has the reason for digest,
// which matches no row's: the row is stale, and drop_stale_rows() says why.
class Digests {
public:
    Digests(const LoadRequest& base, bool lenient) : base_(base), lenient_(lenient) {}
    const std::string& operator()(const std::string& trace) {
        auto it = digests_.find(trace);
        if (it == digests_.end()) {
            std::string d;
            try {
                d = sweep::base_digest(base_, trace, lenient_);
            } catch (const std::runtime_error&) {
                std::error_code ec;
                d = std::string(kUnreadableTrace) +
                    (std::filesystem::exists(trace, ec) ? "cannot be read now" : "no longer exists");
            }
            it = digests_.emplace(trace, std::move(d)).first;
        }
        return it->second;
    }

private:
    const LoadRequest& base_;
    bool lenient_;
    std::map<std::string, std::string> digests_;
};

// The sweep's outputs, checked (and --out locked) before any point runs.
struct Outputs {
    std::unique_ptr<OutputFile> table_file, json_file;
    std::unique_ptr<Journal> journal;
};

Outputs open_outputs(const Plan& o, const std::vector<std::string>& cols) {
    std::vector<std::string> inputs = o.traces;
    inputs.insert(inputs.end(), o.base.user_files.begin(), o.base.user_files.end());
    check_distinct_outputs({{"--out", o.out}, {"--json", o.json}});
    Outputs f;
    if (!o.out.empty() && o.out != "-") {
        OutputPolicy policy = output_policy("--out", nullptr, o.force, inputs);
        policy.own_kind = sweep_table_kind(cols.size());
        f.table_file = std::make_unique<OutputFile>(o.out, policy);
        f.journal = std::make_unique<Journal>(o.out);
    }
    if (!o.json.empty() && o.json != "-") {
        if (!o.force) refuse_other_sweep_json(o.json, cols);
        f.json_file =
            std::make_unique<OutputFile>(o.json, output_policy("--json", is_sweep_json, o.force, inputs));
    }
    return f;
}

// The points of this shard still to run, after the rows --out already holds (`have`).
struct Work {
    std::vector<sweep::Axis> axes;
    std::vector<Job> jobs;
    std::pair<std::size_t, std::size_t> range;
    std::vector<std::string> cols;
    bool header = true;
};

Work plan_work(const Plan& o, std::vector<sweep::Axis> axes, Digests& digest_of, Io io) {
    Work w;
    const auto points = sweep::expand(axes, o.zip);
    note_point_settings(io, sweep::point_notes(o.base, axes, points));
    for (const auto& t : o.traces) warn_races(o.base, t, io.err);
    const std::vector<std::string> metric_columns = sweep::metric_names(o.metrics);
    w.jobs = sweep::make_jobs(o.traces, axes, points, metric_columns);
    const std::string settings = sweep::base_settings(o.base, o.lenient);
    for (auto& j : w.jobs) {
        j.base = settings;
        j.base_digest = digest_of(j.trace);
        j.lenient = o.lenient;
    }
    const sweep::Shard shard = o.shard.empty() ? sweep::Shard{} : sweep::parse_shard(o.shard);
    w.range = sweep::shard_range(w.jobs.size(), shard);
    w.header = !o.no_header && shard.index == 0;
    w.cols = sweep::columns(axes, metric_columns);
    w.axes = std::move(axes);
    return w;
}

// The tables, the JSON and the summary once every point ran; the exit status.
int finish(const Plan& o, const Work& w, const Assembled& table, Outputs& f, RowCounts counts, double seconds,
           Io io) {
    const std::vector<std::string>& cols = w.cols;
    const std::vector<Row>& rows = table.rows;
    warn_empty_metrics(o, cols, rows, io.err);
    if (o.lenient) warn_skipped_records(cols, rows, kSkipped, io.err);
    if (f.journal) {
        f.journal->check();
        write_csv_file(*f.table_file, cols, rows, w.header);
        f.journal.reset();  // the lock goes once the table is in place
    }
    if (o.out == "-") {
        if (w.header) io.out << sweep::csv_line(cols) << "\n";
        for (const auto& r : rows) io.out << sweep::csv_line(r) << "\n";
    }
    // The JSON is this sweep's points (run now or found in --out), as a caller asked for them;
    // --out keeps every row, earlier sweeps' other points too.
    const std::vector<Row>& own = table.own;
    if (o.json == "-") {
        sweep::write_json(io.out, cols, own);
    } else if (f.json_file) {
        sweep::write_json(f.json_file->stream(), cols, own);
        f.json_file->commit();
    }
    if (!o.quiet && o.out != "-" && o.json != "-") print_summary(io.out, o, cols, rows, counts, seconds);
    // Rows of other points kept from an earlier sweep do not decide this sweep's status.
    const std::size_t status_col = cols.size() - 2;
    const bool own_ok =
        std::all_of(own.begin(), own.end(), [&](const Row& r) { return r[status_col] == sweep::kStatusOk; });
    return own_ok ? kExitOk : kExitFindings;
}

}  // namespace

std::string sweep_metric_help() {
    std::string s = "\ncolumns (--rank-by; best = lowest unless marked 'higher'):\n";
    for (const auto& m : sweep::metrics()) {
        std::string name = m.name;
        name.resize(22, ' ');
        s += "  " + name + m.help;
        if (m.better == sweep::Better::higher) s += " (higher)";
        if (m.better == sweep::Better::none) s += " (not rankable)";
        s += "\n";
    }
    s += "plus any metric --metric names, e.g. engine.pe.busy_fraction, client.act_wr.stall_bank_conflict,\n"
         "critical_path.DMA.share, mfu (sbufsim run --list-metrics lists them all)\n";
    return s;
}

SweepResult run_sweep(const SweepRequest& request, Io io) {
    const Plan o = plan_of(request);
    if (!o.options_only && !traces_readable(o, io.err)) return {kExitInput, {}, {}};
    std::vector<sweep::Axis> axes;
    for (const auto& v : o.vary) axes.push_back(sweep::parse_vary(v));
    check_base(o.base);
    for (const auto& a : axes) refuse_gen_option(a);
    axes = sweep::check_keys(std::move(axes), o.base);
    if (o.options_only) return {};
    Digests digest_of(o.base, o.lenient);
    const Work w = plan_work(o, std::move(axes), digest_of, io);
    const std::size_t naxes = w.axes.size();
    Outputs f = open_outputs(o, w.cols);
    // Resume: rows already in --out are kept as they are; only the missing ones run.
    std::vector<Row> existing = f.journal ? sweep::read_existing(o.out, w.cols) : std::vector<Row>{};
    drop_stale_rows(existing, o, w.cols, w.jobs, w.range, naxes, std::ref(digest_of), io.err);
    std::map<std::string, Row> have;
    for (const auto& r : existing) have.emplace(sweep::row_key(r, naxes), r);
    std::vector<const Job*> tasks;
    for (std::size_t i = w.range.first; i < w.range.second; ++i)
        if (!have.count(sweep::row_key(sweep::make_row(w.jobs[i], {}, "", ""), naxes)))
            tasks.push_back(&w.jobs[i]);
    const std::size_t kept = (w.range.second - w.range.first) - tasks.size();
    // Rows are appended as they finish, so an interrupted sweep leaves every finished row behind;
    // the file is rewritten in table order at the end.
    if (f.journal) {
        std::error_code ec;  // a device (/dev/null) has no size: it starts fresh
        const bool fresh = std::filesystem::file_size(o.out, ec) == 0 || ec;
        if (fresh && w.header) f.journal->write(sweep::csv_line(w.cols) + "\n");
        if (!fresh && !ends_with_newline(o.out)) f.journal->write("\n");  // end a row cut off mid-line
    }
    Progress progress(io.err, !o.quiet && &io.err == &std::cerr && Progress::stderr_is_terminal(),
                      tasks.size(), "sweep", "pt");
    progress.update(0);
    std::size_t finished = 0;
    run_pool(o.base, tasks, o.workers, w.cols, o.timeout, [&](std::size_t, Row row) {
        if (f.journal) f.journal->write(sweep::csv_line(row) + "\n");
        have[sweep::row_key(row, naxes)] = std::move(row);
        progress.update(++finished);
    });
    progress.finish();
    const Assembled table = assemble(w.jobs, w.range, have, naxes, existing);
    const int status = finish(o, w, table, f, {tasks.size(), kept, table.earlier}, progress.seconds(), io);
    return {status, w.cols, table.own};
}

}  // namespace sbufsim::app
