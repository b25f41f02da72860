// Sweep charts (`sbufsim plot SWEEP.csv`): a chosen metric of a `sbufsim sweep` table over one
// or two varied keys, as SVG written by the project itself (src/output/svg.cpp). Three pure steps:
//
//   CSV text  --parse_sweep_csv-->  SweepTable  --build_chart-->  ChartModel  --render_chart-->  SVG
//
// One varied key gives a line chart (numeric x axis when every value is a number, categorical
// otherwise); two give a heat chart (one cell per (x, y) point) or, with ChartKind::line or
// several traces, one line per value of the second key. Rows that did not finish `ok` are
// skipped and listed (ChartModel::skipped) — in the chart and by the command on stderr.
// docs/visualisation.md.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sbufsim/sweep/sweep.h"

namespace sbufsim::chart {

// What went wrong decides the exit status: a request the table cannot answer (unknown metric
// or key, ambiguous axes) is a usage error; a table that cannot be read is an input error.
class ChartError : public std::runtime_error {
public:
    enum class Kind { usage, input };
    ChartError(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
    Kind kind() const { return kind_; }

private:
    Kind kind_;
};

// The columns the sweep table schema fixes around the varied keys (include/sbufsim/sweep/sweep.h).
inline constexpr const char* kTraceColumn = "trace";
inline constexpr const char* kStatusColumn = "status";
inline constexpr const char* kMessageColumn = "message";

// A sweep table as read (CSV or JSON): header, rows, and each row's line number for messages.
struct SweepTable {
    std::string source;                 // file name for messages
    std::vector<std::string> columns;   // trace, the varied keys, the metrics, status, message
    std::vector<sweep::Row> rows;
    std::vector<std::size_t> lines;     // 1-based line of each row (its first line if quoted over several)
    std::size_t keys = 0;               // number of varied-key columns (columns 1..keys)
    // The keys come from the traces' names (keys_from_trace_names): each trace is one point, so
    // the trace is not a dimension of the chart beside them.
    bool keys_from_traces = false;

    std::size_t column(const std::string& name) const;  // columns.size() when absent
    std::vector<std::string> key_names() const;         // columns 1..keys
    std::vector<std::string> metric_names() const;      // between the keys and status
};

// Parses a table `sbufsim sweep --out` wrote. Throws ChartError(input) as "source:line: why":
// no or foreign header, a row with the wrong cell count, an unterminated quote. Blank lines and
// repeated header lines (shard files concatenated with their headers) are ignored.
SweepTable parse_sweep_csv(std::istream& in, const std::string& source);

// Parses the rows `sbufsim sweep --json` wrote: an array of objects whose keys are the CSV's
// columns in its order (the first object's keys are the header; every other must have the
// same). null is an empty cell. Throws ChartError(input) as "source:line: why", the line being
// where the element begins.
SweepTable parse_sweep_json(const std::string& text, const std::string& source);

// Reads either form: JSON when the file's first character that is not white space is '[',
// otherwise CSV (then keys_from_trace_names). + ChartError(input) when unreadable.
SweepTable read_sweep_table(const std::string& path);
// A table that varies no key but whose traces are named by their parameters — a kernel's tiling
// sweep (`sbufsim nki --sweep-param`), whose points' traces are `NAME=VALUE,NAME=VALUE.trc` —
// gains those names as its keys (columns after the trace), so that a chart goes along them. A
// table whose trace names are not all of that form, with the same names in the same order, is
// left as it was.
void keys_from_trace_names(SweepTable& table);
bool looks_like_sweep_json(const std::string& text);  // that test, on the file's start

enum class ChartKind { automatic, line, heat };
ChartKind parse_chart_kind(const std::string& text);  // auto | line | heat, else ChartError(usage)

struct ChartRequest {
    std::string metric = "total_cycles";
    std::string x, y;                    // "" = inferred from the varied columns
    std::vector<std::string> where;      // KEY=VALUE: keep only these rows (fixes a third key)
    ChartKind kind = ChartKind::automatic;
    // A line chart's y axis: false = from 0 (or to 0, for negative values), so that a line's
    // height is its value; true = fitted to the values, which shows small differences large.
    bool zoom = false;
};

// One axis of the chart: the distinct values of a column among the charted rows.
struct ChartAxis {
    std::string key;                     // column name; "" = no second key
    std::vector<std::string> values;     // axis order: ascending when numeric, else table order
    bool numeric = false;                // every value parses as a number
    std::vector<double> numbers;         // parallel to values when numeric
    // Varied keys whose value each value of this one determines (the other lists of a --zip
    // sweep): they add no dimension and are charted along this axis. paired_values[k][i] is
    // paired[k]'s value at values[i].
    std::vector<std::string> paired;
    std::vector<std::vector<std::string>> paired_values;
};

struct ChartPoint {
    std::size_t x = 0;                   // index into ChartModel::x.values
    std::size_t y = 0;                   // index into ChartModel::y.values (0 without a second key)
    double value = 0;                    // the metric
    std::size_t line = 0;                // its line in the CSV
    bool best = false;                   // equal to the best value (rankable metrics only)
};

struct SkippedPoint {
    std::size_t x = 0, y = 0;
    std::string status, message;
    std::size_t line = 0;
};

struct ChartModel {
    ChartKind kind = ChartKind::line;    // line or heat, never automatic
    std::string source;
    std::string metric, metric_help;
    sweep::Better better = sweep::Better::none;
    ChartAxis x, y;
    std::vector<ChartPoint> points;      // the ok rows, in table order
    std::vector<SkippedPoint> skipped;   // rows not ok, in table order
    std::vector<std::string> traces;     // the distinct traces charted, table order
    bool traces_are_points = false;      // SweepTable::keys_from_traces: a trace per point, named by it
    std::vector<std::string> fixed;      // "key=value" of keys with one value (incl. --where)
    std::vector<std::string> bases;      // the charted rows' distinct `base` cells ("" = none set)
    double min = 0, max = 0;             // over points
    bool zoom = false;                   // ChartRequest::zoom
    std::optional<double> best;          // lowest or highest value, when the metric is rankable
};

// Selects the rows and axes of `req` and collects the points. Throws ChartError(usage) for an
// unknown metric (listing the numeric ones, with a "did you mean"), a text metric, an unknown
// or unvaried key, axes that cannot be inferred (listing the varied keys), an extra varied key;
// ChartError(input) for a non-numeric metric cell in an ok row, two rows for one point, or no
// ok row at all.
ChartModel build_chart(const SweepTable& table, const ChartRequest& req);

// "x=v, y=w" of a point, for notes and tooltips.
std::string describe_point(const ChartModel& m, std::size_t x, std::size_t y);

// "skipped N point(s) that did not finish ok" (", or have no value" when a run lacked what the
// metric names), for the notes and the command's stderr.
std::string skipped_summary(const ChartModel& m);

// Subtitle facts the CSV does not hold, filled in by the command.
struct ChartInfo {
    std::string generation;              // e.g. "cayman (trace header)"; "" = not known
    std::string label;                   // free text line (--label)
};

// The SVG document. Line charts: one <rect class="point"> marker per point (data-x, data-y),
// one polyline per series; heat charts: one <rect class="cell"> per (x, y) of the axes
// (data-x, data-y, data-status: ok, a row status, or "missing"). When at most three points
// share the best value, each gets an outline (class "best-mark").
std::string render_chart(const ChartModel& m, const ChartInfo& info);

// Tick values of a numeric axis: multiples of a 1/2/5 x 10^k step, about `target` intervals,
// the first <= lo and the last >= hi (so every value lies inside the axis).
std::vector<double> axis_ticks(double lo, double hi, int target);

// Values as the chart labels its cells and its best point: integers exact up to 7 digits,
// otherwise 4 significant digits with k/M/G suffixes for large magnitudes ("50422", "0.9624",
// "1.2M"). Axis and colour-bar ticks are round numbers and read as the heatmap's do
// (svg::compact: "200k", "2.5M"), one tick format across every chart.
std::string short_number(double v);

}  // namespace sbufsim::chart
