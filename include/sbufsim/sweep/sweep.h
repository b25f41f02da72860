// Parameter sweeps: many settings of the configuration, one trace replay per (trace, point), one
// table row per replay. This header is the SystemC-free core of `sbufsim sweep` (docs/sweeps.md):
// point expansion, sharding, the row schema and its metrics, the CSV/JSON forms and resume.
// Running the points in worker processes is the command's job (src/cli/cmd_sweep.cpp).
//
// Determinism: a row holds only simulation results and the point's settings, formatted by the
// functions below, so the same point gives the same bytes whatever the worker count or shard.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sbufsim/config/config.h"
#include "sbufsim/output/metrics.h"
#include "sbufsim/replay/replay.h"

namespace sbufsim::sweep {

// One `--vary` argument: a config key and the values it takes, in the order given.
struct Axis {
    std::string key;
    std::vector<std::string> values;
    std::string arg;  // the argument as written, for error messages
};

// Parses `KEY=V1,V2,...` or `KEY=LO:HI[:STEP]` (inclusive, numeric; STEP defaults to 1, may be
// fractional, must be > 0). Throws ConfigError naming the argument: no '=', empty list or
// element, malformed or empty range, unknown key (with the loader's own suggestion).
Axis parse_vary(std::string_view arg);
// Every axis key must be a declared config key: an unknown one is a ConfigError naming the
// `--vary` argument, with the loader's message (and its "did you mean" suggestion), obtained by
// loading `base` with that key overridden. A key marked recorded-only (KeySpec::no_effect) is
// refused too, with the reason no model reads it. Returns the axes with each value checked for
// type and range and in canonical form (config.h, canonical_value()), so that one point is never
// run and kept under two spellings.
std::vector<Axis> check_keys(std::vector<Axis> axes, const LoadRequest& base);
// What `run` notes of a point's settings (settings_without_effect(): a throttler key while that
// throttler is off, a limit that never binds), each note once, in point order: over every point
// when an axis is a throttler key (the only keys those notes are about), else of the first point
// (the base's settings). Points the loader rejects are left to their rows; at most `max_points`
// points are looked at.
std::vector<std::string> point_notes(const LoadRequest& base, const std::vector<Axis>& axes,
                                     const std::vector<std::vector<std::string>>& points,
                                     std::size_t max_points = 10000);

// The points of the axes: the cartesian product in command-line order (the first axis varies
// slowest, like nested loops), or with `zip` the i-th value of every axis together (all axes must
// have the same length, else ConfigError naming the lengths). Each point holds one value per axis.
// Throws ConfigError when the same key is varied twice, or a point would be listed twice (a value
// repeated in one list; with `zip`, a repeated tuple).
std::vector<std::vector<std::string>> expand(const std::vector<Axis>& axes, bool zip);

// `--shard I/N`: this process runs the I-th of N contiguous blocks of the row list, so the
// shards' tables, concatenated in shard order, are the unsharded table.
struct Shard {
    std::uint32_t index = 0;
    std::uint32_t count = 1;
};
Shard parse_shard(std::string_view text);  // throws ConfigError
// The half-open range [first, last) of row indices shard `s` owns out of `total`. Block sizes
// differ by at most one.
std::pair<std::size_t, std::size_t> shard_range(std::size_t total, Shard s);

// The metric columns that follow `trace` and the varied keys: the default list (metrics()), then
// any other registered metric asked for with --metric or --rank-by (output/metrics.h). `better`
// defines "best" for --rank-by: lowest first for cycles, stalls and latency; highest first for
// utilisation, bandwidth and fairness; `none` for a text column (not rankable).
using sbufsim::Better;
struct Metric {
    std::string name;
    Better better = Better::lower;
    std::string help;
    std::string unit;
};
// The default columns, in order.
const std::vector<Metric>& metrics();
// Any registered metric, including per-engine, per-client and critical-path ones
// (engine.act.busy_fraction); nothing when `name` names none.
std::optional<Metric> find_metric(std::string_view name);
// The default column names followed by `extra` (those not already there), in order. Throws
// ConfigError for a name that is no registered metric, with a "did you mean".
std::vector<std::string> metric_names(const std::vector<std::string>& extra = {});

// One unit of work: a trace replayed at one point. Rows are ordered trace-major, then by point.
struct Job {
    std::size_t index = 0;  // position in the full (unsharded) row list
    std::string trace;      // as given on the command line
    std::vector<Setting> overrides;  // the point, applied over the base request
    std::vector<std::string> values;  // the point's values, parallel to the axes
    std::string base_digest;  // base_digest(base, trace): the row's `base_digest` cell
    std::vector<std::string> metrics = metric_names();  // the metric columns of its row
    bool lenient = false;                               // skip invalid records (counted), as `run --lenient`
    std::string base = {};                              // base_settings(base, lenient): the row's `base` cell
};
// A digest of what a row depends on besides its point: the effective base configuration
// (generation, --config files, --set) loaded for `trace`, and the trace file's bytes. Resume
// keeps a row only when its digest is the current one. A lenient replay (which may skip records)
// is part of it; a strict one leaves the digest as it was before --lenient existed.
std::string base_digest(const LoadRequest& base, const std::string& trace, bool lenient = false);
// The base settings as given, for a reader of the table or its chart: "gen=cayman
// config=site.ini tdm.strict=true lenient" (--gen, each --config file, each --set, --lenient, in
// that order); "" when none is set (the trace's generation as shipped).
std::string base_settings(const LoadRequest& base, bool lenient = false);
std::vector<Job> make_jobs(const std::vector<std::string>& traces, const std::vector<Axis>& axes,
                           const std::vector<std::vector<std::string>>& points,
                           const std::vector<std::string>& metrics = metric_names());

// Client classes of the per-class bank-conflict columns (output/metrics.h).
using sbufsim::client_class;
using sbufsim::kClientClasses;
using sbufsim::kClientClassNames;

// Row status: ok, invalid (the point's configuration is rejected: the loader's message follows),
// error (the replay failed: invalid trace or deadlock), crashed (the worker process died),
// timeout (killed after --timeout seconds). Crashed and timed-out rows are re-run on resume.
inline constexpr std::string_view kStatusOk = "ok";
inline constexpr std::string_view kStatusInvalid = "invalid";
inline constexpr std::string_view kStatusError = "error";
inline constexpr std::string_view kStatusCrashed = "crashed";
inline constexpr std::string_view kStatusTimeout = "timeout";

// The columns after the metrics: base, base_digest, status, message.
inline constexpr std::size_t kTrailingColumns = 4;
// The full column list: trace, the varied keys, the metrics, the trailing columns.
std::vector<std::string> columns(const std::vector<Axis>& axes, const std::vector<std::string>& metrics = metric_names());

using Row = std::vector<std::string>;  // cells, parallel to columns()

// The metric cells of a finished replay, parallel to `metrics`.
std::vector<std::string> metric_cells(const ReplayResult& r, const std::vector<std::string>& metrics = metric_names());
// A whole row: trace, values, metrics (empty when status is not ok), status, message. An ok row
// whose cells do not match the job's metric columns is a bug: std::logic_error, never a blank row.
Row make_row(const Job& job, const std::vector<std::string>& metric_cells, std::string_view status,
             std::string_view message);

// Loads the configuration of `job` (base request + the point's overrides; a trace naming its
// generation picks it unless `base` names one or a file, as in `sbufsim run`) and replays it.
// Never throws: failures become the row's status and message. Runs a simulation: call it in a
// process of its own (one simulation per process).
Row run_job(const LoadRequest& base, const Job& job);

// Numbers as the rows print them (integers exact, reals with 10 significant digits).
std::string format_real(double v);

// CSV with RFC 4180 quoting; parse_csv_line returns nothing for a malformed line.
std::string csv_line(const std::vector<std::string>& cells);
std::optional<std::vector<std::string>> parse_csv_line(std::string_view line);
// A JSON array of one object per row, keys in column order; numeric cells unquoted.
void write_json(std::ostream& os, const std::vector<std::string>& columns, const std::vector<Row>& rows);

// Resume: the rows already in an output file. `columns` is the expected header; a file whose
// first line is a different header is refused (ConfigError: a different sweep). Lines with the
// wrong cell count (a row cut off by an interruption) are dropped, as are crashed and timed-out
// rows, so they run again.
std::vector<Row> read_existing(const std::string& path, const std::vector<std::string>& columns);
// Which file a trace path names, for matching rows: its canonical path (links and `..`
// resolved, from the current directory), or the lexically normal path when it cannot be
// resolved. `./T.trc`, `$PWD/T.trc` and a link to it are one trace; the table keeps each row's
// spelling as it was given.
std::string trace_key(const std::string& path);
// The identity of a row for resume: trace (as trace_key()) and varied values.
std::string row_key(const Row& row, std::size_t axes);

// The order of a table that merges this sweep's rows with rows an earlier sweep left in --out:
// traces in order of first appearance, then each varied key by value (numbers by number, other
// values in order of first appearance), the first key outermost; stable. A single sweep of
// ascending lists is already in this order.
void sort_by_point(std::vector<Row>& rows, std::size_t axes);

// Row order for the terminal summary: indices of `rows` sorted best first by `metrics[0]`, rows
// equal in it by `metrics[1]`, and so on (rows without a result last; ties keep table order).
std::vector<std::size_t> rank(const std::vector<std::string>& columns, const std::vector<Row>& rows,
                              const std::vector<Metric>& metrics);

// How many of the ok rows `ranked` lists (best first, as rank() orders them) share the first
// one's values of every one of `metrics`: more than one means the best is a tie the order alone
// breaks.
std::size_t ties_at_best(const std::vector<std::string>& columns, const std::vector<Row>& rows,
                         const std::vector<std::size_t>& ranked, const std::vector<Metric>& metrics);

// The varied keys that changed no metric: at least two ok rows differ in that key alone (same
// trace, same values of the other `axes` - 1 keys), and every such pair has the same metric
// cells. In column order. (A key the configuration or the trace does not exercise, such as a
// DMA class's priority on a generation with one DMA class: worth telling before a bigger sweep.)
std::vector<std::string> keys_without_effect(const std::vector<std::string>& columns,
                                             const std::vector<Row>& rows, std::size_t axes);

}  // namespace sbufsim::sweep
