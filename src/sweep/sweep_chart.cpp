// property_tree includes boost/bind.hpp, which otherwise prints a deprecation note.
#define BOOST_BIND_GLOBAL_PLACEHOLDERS
#include "sbufsim/sweep/sweep_chart.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <map>
#include <sstream>

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>

#include "sbufsim/config/config.h"
#include "sbufsim/output/svg.h"
#include "sbufsim/types/input_file.h"
#include "sbufsim/types/near_miss.h"
#include "sbufsim/types/number.h"

namespace sbufsim::chart {

namespace {

// ---- small helpers ---------------------------------------------------------------------------

// The status of an ok row whose metric cell is empty (its run had no such engine or client).
constexpr const char* kNoValue = "no value";

[[noreturn]] void usage_error(const std::string& what) { throw ChartError(ChartError::Kind::usage, what); }
[[noreturn]] void input_error(const std::string& what) { throw ChartError(ChartError::Kind::input, what); }
[[noreturn]] void line_error(const std::string& source, std::size_t line, const std::string& why) {
    input_error(source + ":" + std::to_string(line) + ": " + why);
}

std::string join(const std::vector<std::string>& items, const char* sep = ", ") {
    std::string s;
    for (const auto& i : items) s += (s.empty() ? "" : sep) + i;
    return s;
}

// A whole cell as a finite number; "true", "", "1x" and "nan" are not numbers.
std::optional<double> parse_number(const std::string& s) {
    if (s.empty() || std::isspace(static_cast<unsigned char>(s.front()))) return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

std::string file_name(const std::string& path) {
    const std::string f = std::filesystem::path(path).filename().string();
    return f.empty() ? path : f;
}

// ---- CSV -------------------------------------------------------------------------------------

void strip_cr(std::string& line) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
}

bool blank(const std::string& line) { return line.find_first_not_of(" \t") == std::string::npos; }

// The number of varied-key columns: those between `trace` and the first known metric.
std::size_t check_header(const std::vector<std::string>& cells, const std::string& source, std::size_t line) {
    if (cells.empty() || cells.front() != kTraceColumn)
        line_error(source, line,
                   "not a sweep table: the header must start with `trace` (got '" + (cells.empty() ? "" : cells.front()) +
                       "'); a shard written after shard 0 has no header: concatenate the parts in shard order");
    if (cells.size() < 4 || cells[cells.size() - 2] != kStatusColumn || cells.back() != kMessageColumn)
        line_error(source, line, "not a sweep table: the header must end with `status,message`");
    std::size_t keys = 0;
    while (1 + keys < cells.size() - 2 && !sweep::find_metric(cells[1 + keys])) ++keys;
    if (1 + keys == cells.size() - 2) line_error(source, line, "not a sweep table: no metric column (total_cycles, ...)");
    return keys;
}

}  // namespace

std::size_t SweepTable::column(const std::string& name) const {
    return static_cast<std::size_t>(std::find(columns.begin(), columns.end(), name) - columns.begin());
}

std::vector<std::string> SweepTable::key_names() const {
    return {columns.begin() + 1, columns.begin() + static_cast<std::ptrdiff_t>(1 + keys)};
}

std::vector<std::string> SweepTable::metric_names() const {
    std::vector<std::string> m(columns.begin() + static_cast<std::ptrdiff_t>(1 + keys), columns.end() - 2);
    std::erase(m, "base");  // the base settings and the resume digest are not figures
    std::erase(m, "base_digest");
    return m;
}

SweepTable parse_sweep_csv(std::istream& in, const std::string& source) {
    SweepTable t;
    t.source = source;
    std::string line, more;
    std::size_t n = 0;
    while (std::getline(in, line)) {
        const std::size_t first = ++n;
        strip_cr(line);
        if (blank(line)) continue;
        auto cells = sweep::parse_csv_line(line);
        // A quoted cell may hold a line break (a long message): read on until it closes.
        while (!cells && std::getline(in, more)) {
            ++n;
            strip_cr(more);
            line += "\n" + more;
            cells = sweep::parse_csv_line(line);
        }
        if (!cells) line_error(source, first, "a quoted cell is not closed before the end of the file");
        if (t.columns.empty()) {
            t.keys = check_header(*cells, source, first);
            t.columns = std::move(*cells);
            continue;
        }
        if (*cells == t.columns) continue;  // a repeated header: shard files joined with theirs
        if (cells->size() != t.columns.size())
            line_error(source, first,
                       std::to_string(cells->size()) + " cells where the header has " + std::to_string(t.columns.size()) +
                           " (a row cut off by an interrupted sweep? re-run the sweep with the same --out to finish it)");
        t.rows.push_back(std::move(*cells));
        t.lines.push_back(first);
    }
    if (t.columns.empty()) input_error(source + ": empty: no header line (is this a `sbufsim sweep --out` file?)");
    return t;
}

// ---- JSON ------------------------------------------------------------------------------------

namespace {

// The 1-based line on which each element of the top-level array begins: the JSON reader keeps
// no positions, and a chart names a skipped point by its line.
std::vector<std::size_t> element_lines(const std::string& text) {
    std::vector<std::size_t> lines;
    std::size_t line = 1;
    int depth = 0;
    bool in_string = false, escaped = false, want = false;  // want: an element may begin here
    for (const char c : text) {
        if (c == '\n') ++line;
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (std::isspace(static_cast<unsigned char>(c))) continue;
        if (depth == 1 && want && c != ']') {
            lines.push_back(line);
            want = false;
        }
        if (c == '"')
            in_string = true;
        else if (c == '[' || c == '{')
            want = ++depth == 1;
        else if (c == ']' || c == '}')
            --depth;
        else if (c == ',' && depth == 1)
            want = true;
    }
    return lines;
}

// A cell's text: JSON null (a run that has no such figure) is the CSV's empty cell. The free-text
// columns keep what they hold.
std::string cell_text(const std::string& column, const std::string& data) {
    const bool text = column == kTraceColumn || column == kMessageColumn;
    return !text && data == "null" ? std::string{} : data;
}

}  // namespace

bool looks_like_sweep_json(const std::string& text) {
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    return first != std::string::npos && text[first] == '[';
}

SweepTable parse_sweep_json(const std::string& text, const std::string& source) {
    namespace pt = boost::property_tree;
    pt::ptree doc;
    try {
        std::istringstream in(text);
        pt::read_json(in, doc);
    } catch (const pt::json_parser_error& e) {
        line_error(source, e.line(), "not JSON: " + e.message());
    }
    if (!looks_like_sweep_json(text))
        line_error(source, 1, "not a sweep's rows: the file must be a JSON array (sbufsim sweep --json)");
    const std::vector<std::size_t> lines = element_lines(text);
    SweepTable t;
    t.source = source;
    std::size_t i = 0;
    for (const auto& [name, element] : doc) {
        const std::size_t line = i < lines.size() ? lines[i] : 1;
        ++i;
        std::vector<std::string> keys;
        sweep::Row row;
        for (const auto& [key, value] : element) {
            if (!value.empty())
                line_error(source, line,
                           "`" + key + "` holds an object or array; a sweep row's cells are values");
            keys.push_back(key);
            row.push_back(cell_text(key, value.data()));
        }
        if (keys.empty() || keys.front().empty())
            line_error(source, line,
                       "element " + std::to_string(i) +
                           " is not an object with the sweep's columns; a sweep's rows are");
        if (t.columns.empty()) {
            t.keys = check_header(keys, source, line);
            t.columns = std::move(keys);
        } else if (keys != t.columns) {
            line_error(source, line,
                       "this row's keys are not the first row's (" + join(t.columns, ",") +
                           "): rows of two sweeps joined? chart each sweep's file on its own");
        }
        t.rows.push_back(std::move(row));
        t.lines.push_back(line);
    }
    if (t.columns.empty()) input_error(source + ": no rows: an empty array (did the sweep run any point?)");
    return t;
}

SweepTable read_sweep_table(const std::string& path) {
    if (const std::string why = input_file_problem(path); !why.empty())
        input_error(path + ": cannot open the file (" + why + ")");
    std::ifstream in(path);
    if (!in) input_error(path + ": cannot open the file (" + std::strerror(errno) + ")");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) input_error(path + ": cannot read the file (" + std::strerror(errno) + ")");
    SweepTable table;
    if (looks_like_sweep_json(text.str())) {
        table = parse_sweep_json(text.str(), path);
    } else {
        std::istringstream csv(text.str());
        table = parse_sweep_csv(csv, path);
    }
    keys_from_trace_names(table);
    return table;
}

namespace {

// "A=4,B=2" of a trace's file name without its extension as [(A, 4), (B, 2)]; empty when the
// name is not of that form.
std::vector<std::pair<std::string, std::string>> named_parameters(const std::string& trace) {
    std::vector<std::pair<std::string, std::string>> out;
    const std::string stem = std::filesystem::path(trace).stem().string();
    std::size_t at = 0;
    while (at <= stem.size()) {
        const std::size_t comma = std::min(stem.find(',', at), stem.size());
        const std::string part = stem.substr(at, comma - at);
        const std::size_t eq = part.find('=');
        if (eq == 0 || eq == std::string::npos || eq + 1 == part.size()) return {};
        out.emplace_back(part.substr(0, eq), part.substr(eq + 1));
        at = comma + 1;
    }
    return out;
}

}  // namespace

void keys_from_trace_names(SweepTable& table) {
    if (table.keys != 0 || table.rows.empty()) return;
    std::vector<std::vector<std::pair<std::string, std::string>>> named;
    for (const auto& row : table.rows) {
        named.push_back(named_parameters(row[0]));
        const auto& first = named.front();
        const auto& now = named.back();
        if (now.empty() || now.size() != first.size()) return;
        for (std::size_t k = 0; k < now.size(); ++k)
            if (now[k].first != first[k].first) return;
    }
    std::vector<std::string> names;
    for (const auto& [name, value] : named.front()) {
        if (std::find(names.begin(), names.end(), name) != names.end() ||
            table.column(name) < table.columns.size())
            return;  // a name twice, or one the table has as a column already
        names.push_back(name);
    }
    table.columns.insert(table.columns.begin() + 1, names.begin(), names.end());
    for (std::size_t r = 0; r < table.rows.size(); ++r) {
        auto& row = table.rows[r];
        std::vector<std::string> values;
        for (const auto& [name, value] : named[r]) values.push_back(value);
        row.insert(row.begin() + 1, values.begin(), values.end());
    }
    table.keys = names.size();
    table.keys_from_traces = true;
}

ChartKind parse_chart_kind(const std::string& text) {
    if (text == "auto") return ChartKind::automatic;
    if (text == "line") return ChartKind::line;
    if (text == "heat") return ChartKind::heat;
    usage_error("--chart '" + text + "': expected auto, line or heat");
}

// ---- chart model ---------------------------------------------------------------------------------

namespace {

// The rows a request charts and what it knows about their columns.
struct Selection {
    const SweepTable* table = nullptr;
    std::vector<std::size_t> rows;       // indices into table->rows
    std::vector<std::string> dims;       // trace + the keys: the columns a chart can go along
    std::vector<std::string> paired;     // varied keys that go with the x key (--zip): not a dimension

    std::vector<std::string> distinct(std::size_t col) const {
        std::vector<std::string> v;
        for (std::size_t r : rows) {
            const std::string& c = table->rows[r][col];
            if (std::find(v.begin(), v.end(), c) == v.end()) v.push_back(c);
        }
        return v;
    }
    std::vector<std::string> varied() const {
        std::vector<std::string> v;
        for (const auto& d : dims)
            if (distinct(table->column(d)).size() > 1 &&
                std::find(paired.begin(), paired.end(), d) == paired.end())
                v.push_back(d);
        return v;
    }
};

// What a metric column holds in the rows that finished ok: numbers, text (a client name), or
// nothing (a --metric naming an engine, client or group no run had: sweep warned when it wrote it).
enum class ColumnKind { numbers, text, empty };

// A column with any number is one of numbers (a cell that is not then fails at its line); one
// with no row that finished ok counts as numbers too (the chart then says none did).
ColumnKind column_kind(const SweepTable& t, std::size_t col) {
    const std::size_t status_col = t.columns.size() - 2;
    bool text = false, ok = false;
    for (const auto& row : t.rows) {
        if (row[status_col] != sweep::kStatusOk) continue;
        ok = true;
        if (row[col].empty()) continue;
        if (parse_number(row[col])) return ColumnKind::numbers;
        text = true;
    }
    return text ? ColumnKind::text : ok ? ColumnKind::empty : ColumnKind::numbers;
}

std::vector<std::string> numeric_metrics(const SweepTable& t) {
    std::vector<std::string> m;
    for (const auto& name : t.metric_names())
        if (column_kind(t, t.column(name)) == ColumnKind::numbers) m.push_back(name);
    return m;
}

// The metric's column; usage errors name the numeric metrics the table has.
std::size_t metric_column(const SweepTable& t, const std::string& metric) {
    const auto names = t.metric_names();
    const auto numeric = numeric_metrics(t);
    if (std::find(names.begin(), names.end(), metric) == names.end()) {
        const auto keys = t.key_names();
        const bool is_key = metric == kTraceColumn || std::find(keys.begin(), keys.end(), metric) != keys.end();
        // A metric the sweep could have written but this table's sweep did not: say how to get it.
        if (!is_key && sweep::find_metric(metric))
            usage_error("--metric '" + metric +
                        "': not a column of this table (its sweep did not write it); " +
                        "sweep again into another --out with --metric " + metric +
                        ", or chart one of the table's numeric metrics: " + join(numeric));
        usage_error("--metric '" + metric + "': " + (is_key ? "a varied key, not a metric" : "unknown metric") +
                    (is_key ? "" : did_you_mean(metric, names)) + "; the table's numeric metrics: " + join(numeric));
    }
    switch (column_kind(t, t.column(metric))) {
        case ColumnKind::numbers:
            break;
        case ColumnKind::text:
            usage_error("--metric '" + metric +
                        "': a text column (a client name), not a number; numeric metrics: " + join(numeric));
        case ColumnKind::empty:
            usage_error("--metric '" + metric +
                        "': empty in every row that finished ok: no run had what it names (a "
                        "misspelt engine, client or group, or one these traces never use; sbufsim run TRACE "
                        "--json - lists each family's names); numeric metrics: " +
                        join(numeric));
    }
    return t.column(metric);
}

// A --x/--y/--where key: trace or a varied-key column.
void check_dim(const Selection& s, const std::string& key, const char* option) {
    if (std::find(s.dims.begin(), s.dims.end(), key) != s.dims.end()) return;
    usage_error(std::string(option) + " '" + key + "': not a column the sweep varied" + did_you_mean(key, s.dims) +
                "; the table's keys: " + join(s.dims));
}

// A --where value matches the cell itself or, for traces, the file name (traces/x.trc = x.trc).
bool where_matches(const std::string& key, const std::string& cell, const std::string& value) {
    return cell == value || (key == kTraceColumn && file_name(cell) == value);
}

// A --where value of a configuration key in the form its cells have, as --vary reads it
// (tdm.strict=yes is true, 0x10 is 16); as written when it is no valid value of the key (the
// refusal then lists the values the table has).
std::string where_value(const std::string& key, const std::string& value) {
    const KeySpec* k = key == kTraceColumn ? nullptr : find_key(key);
    if (!k) return value;
    try {
        return canonical_value(*k, value, Origin{"--where", 0});
    } catch (const ConfigError&) {
        return value;
    }
}

void apply_where(Selection& s, const std::string& arg) {
    const auto eq = arg.find('=');
    if (eq == std::string::npos || eq == 0) usage_error("--where '" + arg + "': expected KEY=VALUE");
    const std::string key = arg.substr(0, eq);
    check_dim(s, key, "--where");
    const std::string value = where_value(key, arg.substr(eq + 1));
    const std::size_t col = s.table->column(key);
    const auto values = s.distinct(col);
    std::vector<std::size_t> kept;
    for (std::size_t r : s.rows)
        if (where_matches(key, s.table->rows[r][col], value)) kept.push_back(r);
    if (kept.empty()) usage_error("--where '" + arg + "': no row has that value; " + key + " is one of " + join(values));
    s.rows = std::move(kept);
}

std::string varied_list(const Selection& s, const std::vector<std::string>& keys) {
    std::vector<std::string> items;
    items.reserve(keys.size());
    for (const auto& k : keys) items.push_back(k + " (" + std::to_string(s.distinct(s.table->column(k)).size()) + " values)");
    return join(items);
}

std::vector<std::string> minus(const std::vector<std::string>& all, const std::string& a, const std::string& b) {
    std::vector<std::string> v;
    for (const auto& k : all)
        if (k != a && k != b) v.push_back(k);
    return v;
}

[[noreturn]] void too_many(const Selection& s, const std::vector<std::string>& rest, const char* what) {
    usage_error(std::string(what) + varied_list(s, rest) +
                ": choose the chart's keys with --x KEY and --y KEY, and fix the others with --where KEY=VALUE");
}

// Whether the rows with one value of `x` all have one value of `k`.
bool determined_by(const Selection& s, const std::string& k, const std::string& x) {
    const std::size_t kc = s.table->column(k), xc = s.table->column(x);
    std::map<std::string, std::string> seen;
    for (std::size_t r : s.rows) {
        const auto& row = s.table->rows[r];
        const auto [it, fresh] = seen.emplace(row[xc], row[kc]);
        if (!fresh && it->second != row[kc]) return false;
    }
    return true;
}

// A --zip sweep varies its keys together: the keys the x key determines go along x with it, so
// `--vary a=1,2,4 --vary b=8,16,32 --zip` is one line, not a grid of missing cells. The x key is
// the chosen one, else the first varied key (not the trace, not --y).
void pair_with_x(Selection& s, const std::string& x, const std::string& y) {
    const auto varied = s.varied();
    std::string along = x;
    for (std::size_t i = 0; along.empty() && i < varied.size(); ++i)
        if (varied[i] != kTraceColumn && varied[i] != y) along = varied[i];
    if (along.empty() || along == kTraceColumn) return;
    for (const auto& k : varied)
        if (k != along && k != y && k != kTraceColumn && determined_by(s, k, along)) s.paired.push_back(k);
}

// Fills in the keys the request left out, from the columns that vary among the selected rows.
// With two varied columns the first (the outer --vary) goes along x; a trace column prefers
// the second place, so several traces give one line each.
void infer_axes(const Selection& s, std::string& x, std::string& y) {
    const auto varied = s.varied();
    if (x.empty() && y.empty()) {
        if (varied.empty()) usage_error("nothing varies among the charted rows: every row has the same settings");
        if (varied.size() > 2) too_many(s, varied, "the table varies ");
        x = varied.front();
        if (varied.size() == 2) y = varied.back();
        if (x == kTraceColumn && !y.empty()) std::swap(x, y);
        return;
    }
    if (!x.empty() && !y.empty()) return;
    std::string& missing = x.empty() ? x : y;
    const auto rest = minus(varied, x, y);
    if (rest.size() > 1) too_many(s, rest, "besides the chosen key the table varies ");
    if (rest.size() == 1) missing = rest.front();
    if (x.empty()) usage_error("--y '" + y + "' leaves nothing to put along x: the table varies only " + join(varied));
}

ChartAxis make_axis(const Selection& s, const std::string& key) {
    ChartAxis a;
    a.key = key;
    if (key.empty()) {
        a.values = {""};
        return a;
    }
    a.values = s.distinct(s.table->column(key));
    std::vector<std::pair<double, std::string>> nums;
    for (const auto& v : a.values) {
        const auto n = parse_number(v);
        if (!n) return a;  // categorical: table order, which is the sweep's point order
        nums.emplace_back(*n, v);
    }
    std::stable_sort(nums.begin(), nums.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
    a.numeric = true;
    a.values.clear();
    for (const auto& [n, v] : nums) a.numbers.push_back(n), a.values.push_back(v);
    return a;
}

void add_paired(const Selection& s, ChartAxis& a) {
    a.paired = s.paired;
    const std::size_t xc = s.table->column(a.key);
    for (const auto& k : s.paired) {
        const std::size_t kc = s.table->column(k);
        std::vector<std::string> values;
        for (const auto& v : a.values)
            for (std::size_t r : s.rows)
                if (s.table->rows[r][xc] == v) {
                    values.push_back(s.table->rows[r][kc]);
                    break;
                }
        a.paired_values.push_back(std::move(values));
    }
}

std::size_t index_of(const ChartAxis& a, const std::string& v) {
    if (a.key.empty()) return 0;
    return static_cast<std::size_t>(std::find(a.values.begin(), a.values.end(), v) - a.values.begin());
}

ChartKind decide_kind(ChartKind asked, const std::string& y, const std::string& x) {
    if (asked == ChartKind::heat && y.empty())
        usage_error("--chart heat needs a second key (--y KEY); the table varies only " + x);
    if (asked != ChartKind::automatic) return asked;
    // Traces usually differ in scale and are compared shape against shape: lines, not cells.
    return y.empty() || y == kTraceColumn ? ChartKind::line : ChartKind::heat;
}

// Every point's value and the skipped rows; two rows on one point are a table error.
void collect_points(const Selection& s, std::size_t metric_col, ChartModel& m) {
    const SweepTable& t = *s.table;
    const std::size_t status_col = t.columns.size() - 2, xc = t.column(m.x.key);
    const std::size_t yc = m.y.key.empty() ? 0 : t.column(m.y.key);
    std::map<std::pair<std::size_t, std::size_t>, std::size_t> seen;  // point -> line
    for (std::size_t r : s.rows) {
        const sweep::Row& row = t.rows[r];
        const std::size_t xi = index_of(m.x, row[xc]), yi = m.y.key.empty() ? 0 : index_of(m.y, row[yc]);
        const auto [it, fresh] = seen.emplace(std::make_pair(xi, yi), t.lines[r]);
        if (!fresh)
            line_error(t.source, t.lines[r],
                       "a second row for " + describe_point(m, xi, yi) + " (the first is line " + std::to_string(it->second) + ")");
        if (row[status_col] != sweep::kStatusOk) {
            m.skipped.push_back({xi, yi, row[status_col], row[status_col + 1], t.lines[r]});
            continue;
        }
        if (row[metric_col].empty()) {  // this run had no such engine or client: a gap, not a zero
            m.skipped.push_back({xi, yi, kNoValue, "the run had nothing " + m.metric + " names", t.lines[r]});
            continue;
        }
        const auto v = parse_number(row[metric_col]);
        if (!v) line_error(t.source, t.lines[r], "metric " + m.metric + " is '" + row[metric_col] + "', not a number");
        m.points.push_back({xi, yi, *v, t.lines[r], false});
    }
}

// The trace axis of a chart over several traces (x or y), or none: two workloads' values are not
// ranked against each other, so each trace has its own best.
const ChartAxis* trace_axis(const ChartModel& m) {
    if (m.x.key == kTraceColumn && m.x.values.size() > 1) return &m.x;
    if (m.y.key == kTraceColumn && m.y.values.size() > 1) return &m.y;
    return nullptr;
}

std::size_t trace_of(const ChartModel& m, const ChartPoint& p) { return trace_axis(m) == &m.x ? p.x : p.y; }

// Marks the points equal to the best of their trace (of all points on a chart of one trace).
void mark_best(ChartModel& m) {
    const ChartAxis* traces = trace_axis(m);
    const auto group = [&](const ChartPoint& p) { return traces ? trace_of(m, p) : std::size_t{0}; };
    std::vector<std::optional<double>> best(traces ? traces->values.size() : 1);
    for (const auto& p : m.points) {
        std::optional<double>& b = best[group(p)];
        if (!b || (m.better == sweep::Better::lower ? p.value < *b : p.value > *b)) b = p.value;
    }
    for (auto& p : m.points) p.best = p.value == *best[group(p)];
}

void summarise(const Selection& s, ChartModel& m) {
    if (m.points.empty())
        input_error(s.table->source + ": no charted row finished ok (" + std::to_string(m.skipped.size()) +
                    " skipped): nothing to draw");
    m.min = m.max = m.points.front().value;
    for (const auto& p : m.points) m.min = std::min(m.min, p.value), m.max = std::max(m.max, p.value);
    if (m.better == sweep::Better::lower) m.best = m.min;
    if (m.better == sweep::Better::higher) m.best = m.max;
    if (m.best) mark_best(m);
    if (s.table->keys_from_traces) m.traces = s.distinct(0);
    m.traces_are_points = s.table->keys_from_traces;
    for (const auto& d : s.dims) {
        const auto values = s.distinct(s.table->column(d));
        if (d == kTraceColumn) m.traces = values;
        else if (values.size() == 1 && d != m.x.key && d != m.y.key) m.fixed.push_back(d + "=" + values.front());
    }
    // A table of an earlier version has no base column: nothing is known of its base.
    if (const std::size_t b = s.table->column("base"); b < s.table->columns.size()) m.bases = s.distinct(b);
}

}  // namespace

std::string describe_point(const ChartModel& m, std::size_t x, std::size_t y) {
    auto show = [](const ChartAxis& a, std::size_t i) {
        const std::string& v = a.values[i];
        return a.key + "=" + (a.key == kTraceColumn ? file_name(v) : v);
    };
    std::string s = show(m.x, x);
    for (std::size_t k = 0; k < m.x.paired.size(); ++k)
        s += ", " + m.x.paired[k] + "=" + m.x.paired_values[k][x];
    if (!m.y.key.empty()) s += ", " + show(m.y, y);
    return s;
}

std::string skipped_summary(const ChartModel& m) {
    const bool empty = std::any_of(m.skipped.begin(), m.skipped.end(),
                                   [](const SkippedPoint& k) { return k.status == kNoValue; });
    return "skipped " + std::to_string(m.skipped.size()) + " point(s) that did not finish ok" +
           (empty ? " or have no value" : "");
}

ChartModel build_chart(const SweepTable& table, const ChartRequest& req) {
    ChartModel m;
    m.source = table.source;
    m.metric = req.metric;
    const std::size_t metric_col = metric_column(table, req.metric);
    if (const auto known = sweep::find_metric(req.metric)) m.better = known->better, m.metric_help = known->help;

    Selection s;
    s.table = &table;
    for (std::size_t r = 0; r < table.rows.size(); ++r) s.rows.push_back(r);
    if (!table.keys_from_traces) s.dims.push_back(kTraceColumn);  // else each trace is one point of the keys
    for (const auto& k : table.key_names()) s.dims.push_back(k);
    if (s.rows.empty()) input_error(table.source + ": the table has a header but no rows");
    for (const auto& w : req.where) apply_where(s, w);

    std::string x = req.x, y = req.y;
    if (!x.empty()) check_dim(s, x, "--x");
    if (!y.empty()) check_dim(s, y, "--y");
    if (!x.empty() && x == y) usage_error("--x and --y name the same key '" + x + "'");
    pair_with_x(s, x, y);
    infer_axes(s, x, y);
    const auto rest = minus(s.varied(), x, y);
    if (!rest.empty()) too_many(s, rest, "besides --x and --y the table varies ");

    m.kind = decide_kind(req.kind, y, x);
    if (req.zoom && m.kind == ChartKind::heat)
        usage_error(
            "--zoom fits a line chart's y axis; a heat chart's colours already span its values (--chart line "
            "draws one line per value of --y)");
    m.zoom = req.zoom;
    m.x = make_axis(s, x);
    m.y = make_axis(s, y);
    add_paired(s, m.x);
    collect_points(s, metric_col, m);
    summarise(s, m);
    return m;
}

// ---- rendering -----------------------------------------------------------------------------------

std::string short_number(double v) {
    if (!std::isfinite(v)) return "?";
    const double a = std::fabs(v);
    std::string s;
    if (a >= 1e7) {
        const char* suffix[] = {"M", "G", "T"};
        double scaled = v / 1e6;
        int i = 0;
        while (std::fabs(scaled) >= 1000 && i < 2) scaled /= 1000, ++i;
        s = format_number(scaled, 4) + suffix[i];
    } else if (v == std::floor(v) || a >= 1000) {
        s = format_fixed(v, 0);
    } else {
        s = format_number(v, 4);
    }
    return s == "-0" ? "0" : s;
}

namespace {

// Page geometry shared by both chart kinds.
constexpr double kTitleY = 22, kLineH = 14, kFont = 10;
// Ten distinguishable line colours (the usual categorical palette).
const char* const kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
// The writer draws black text only, so the heat ramp stops where black numbers still read
// (contrast about 5:1 on the darkest cell) and starts off white so the lowest cell is not
// mistaken for the page.
constexpr double kRampLo = 0.06, kRampHi = 0.62;
// Marks a note line as a sub-item of the line before.
constexpr const char* kIndent = "  ";

std::string ramp(const ChartModel& m, double t) {
    const double u = kRampLo + (kRampHi - kRampLo) * std::clamp(t, 0.0, 1.0);
    // Red for quantities where more is worse (cycles, stalls, latency), blue otherwise: the
    // bank heatmap's convention (red stalls, blue utilisation).
    return m.better == sweep::Better::lower ? svg::ramp_red(u) : svg::ramp_blue(u);
}

// The heat chart's colour scale spans at least this fraction of the largest magnitude charted,
// centred on the values: 195 against 197 cycles are two neighbouring tones, not the two ends of
// the ramp, while a 10 % difference still spans all of it. The cells carry the exact values.
constexpr double kMinColourSpan = 0.10;

struct ColourSpan {
    double lo = 0, hi = 0;
};

ColourSpan colour_span(const ChartModel& m) {
    ColourSpan c{m.min, m.max};
    const double least = kMinColourSpan * std::max(std::fabs(m.min), std::fabs(m.max));
    if (c.hi - c.lo < least) {
        const double mid = (c.lo + c.hi) / 2;
        c.lo = mid - least / 2, c.hi = mid + least / 2;
    }
    return c;
}

double fraction(const ColourSpan& c, double v) { return c.hi > c.lo ? (v - c.lo) / (c.hi - c.lo) : 0.5; }

const char* better_text(sweep::Better b) {
    return b == sweep::Better::lower ? "lower is better" : b == sweep::Better::higher ? "higher is better" : "";
}

std::string axis_label(const ChartAxis& a, std::size_t i) {
    return a.key == kTraceColumn ? file_name(a.values[i]) : a.values[i];
}

// The x key and the keys that go with it: "tdm.dma_slots (with tdm.max_slots)".
std::string x_title(const ChartAxis& a) {
    return a.paired.empty() ? a.key : a.key + " (with " + join(a.paired) + ")";
}

// "tdm.max_slots 8, 12, 16 as tdm.dma_slots goes 0, 4, 8" for each paired key, at most a dozen
// values each.
std::vector<std::string> paired_lines(const ChartAxis& a) {
    constexpr std::size_t kShown = 12;
    auto list = [&](const std::vector<std::string>& v) {
        std::vector<std::string> head(v.begin(),
                                      v.begin() + static_cast<std::ptrdiff_t>(std::min(v.size(), kShown)));
        return join(head) + (v.size() > kShown ? ", ..." : "");
    };
    std::vector<std::string> lines;
    for (std::size_t k = 0; k < a.paired.size(); ++k)
        lines.push_back("paired (--zip): " + a.paired[k] + " " + list(a.paired_values[k]) + " as " + a.key +
                        " goes " + list(a.values));
    return lines;
}

std::string title_of(const ChartModel& m) {
    std::string t = m.metric + " over " + m.x.key;  // paired keys: subtitle and axis title
    if (m.y.key.empty()) return t;
    return t + (m.kind == ChartKind::heat ? " \u00d7 " + m.y.key : ", one line per " + m.y.key);
}

// The traces a chart draws: the first three by name, or, for a kernel's tiling sweep (`sbufsim nki
// --sweep-param`), whose traces are named by their points' parameters (the axes already), a count.
std::string traces_charted(const ChartModel& m) {
    if (m.traces_are_points)
        return std::to_string(m.traces.size()) + " traces, one per point, each named by its parameters";
    std::vector<std::string> names;
    for (std::size_t i = 0; i < m.traces.size() && i < 3; ++i) names.push_back(file_name(m.traces[i]));
    return join(names) + (m.traces.size() > 3 ? " (+" + std::to_string(m.traces.size() - 3) + " more)" : "");
}

// The lines under the title: traces and generation, the metric's meaning, fixed settings, label.
std::vector<std::string> subtitle_of(const ChartModel& m, const ChartInfo& info) {
    std::string traces = "sweep of " + traces_charted(m);
    if (!info.generation.empty()) traces += "; generation " + info.generation;
    traces += "; " + std::to_string(m.points.size()) + " point(s) charted";
    if (!m.skipped.empty()) traces += ", " + std::to_string(m.skipped.size()) + " skipped (not ok)";
    std::vector<std::string> lines{traces};
    std::string metric = m.metric;
    if (!m.metric_help.empty()) metric += ": " + m.metric_help;
    if (m.better != sweep::Better::none) metric += std::string(" (") + better_text(m.better) + ")";
    lines.push_back(metric);
    for (auto& l : paired_lines(m.x)) lines.push_back(std::move(l));
    if (!m.fixed.empty()) lines.push_back("fixed: " + join(m.fixed, "  "));
    // The settings under every point (sweep --gen, --config, --set): a strict-TDM sweep and a
    // work-conserving one would otherwise draw alike.
    if (m.bases.size() == 1)
        lines.push_back("base: " + (m.bases.front().empty()
                                        ? std::string("none set (the generation file as shipped)")
                                        : m.bases.front()));
    else if (m.bases.size() > 1) {
        std::vector<std::string> shown = m.bases;
        for (auto& b : shown)
            if (b.empty()) b = "none set";
        lines.push_back("base: the rows differ (" + join(shown, " | ") + ")");
    }
    if (!info.label.empty()) lines.push_back(info.label);
    return lines;
}

// Characters of UTF-8 text (× and the like are one glyph, several bytes).
std::size_t utf8_length(const std::string& s) {
    return static_cast<std::size_t>(std::count_if(
        s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// The width the title and subtitle lines need from `left`, from their characters at an average
// glyph width (the canvas grows to it: a long list of traces must not run off the picture).
double header_width(const ChartModel& m, const ChartInfo& info, double left) {
    constexpr double kGlyph = 0.56, kTitleSize = 15, kMargin = 16;
    double w = static_cast<double>(utf8_length(title_of(m))) * kTitleSize * 0.62;
    for (const auto& l : subtitle_of(m, info))
        w = std::max(w, static_cast<double>(utf8_length(l)) * kFont * kGlyph);
    return left + w + kMargin;
}

// The y below the title and subtitle lines.
double header_height(const ChartModel& m, const ChartInfo& info) {
    return kTitleY + 16 + kLineH * static_cast<double>(subtitle_of(m, info).size()) + 16;
}

void header(svg::Writer& s, const ChartModel& m, const ChartInfo& info, double left) {
    s.text(left, kTitleY, title_of(m), 15, "start", 0, "bold");
    double y = kTitleY + 16;
    for (const auto& l : subtitle_of(m, info)) {
        s.text(left, y, l, kFont);
        y += kLineH;
    }
}

// `s` on one line and at most about `n` bytes, cut at a UTF-8 character boundary (a cut inside
// a multi-byte character would make the document invalid XML).
std::string truncate(const std::string& s, std::size_t n) {
    std::string one = s;
    std::replace(one.begin(), one.end(), '\n', ' ');
    if (one.size() <= n) return one;
    std::size_t cut = n > 3 ? n - 3 : 0;
    while (cut > 0 && (static_cast<unsigned char>(one[cut]) & 0xC0) == 0x80) --cut;
    return one.substr(0, cut) + "...";
}

// Outlines single out the best points; when many share the best value they would only add noise.
// Along `trace` each trace's best is its only point at that x: nothing to single out.
bool outline_best(const ChartModel& m) {
    if (m.x.key == kTraceColumn) return false;
    constexpr std::size_t kMaxOutlined = 3;
    return std::count_if(m.points.begin(), m.points.end(), [](const ChartPoint& p) { return p.best; }) <=
           static_cast<std::ptrdiff_t>(kMaxOutlined);
}

// Series of a line chart with the same value at every x: drawn over each other, only the last
// shows, so the notes say so. Groups of the y axis labels, in axis order.
std::vector<std::vector<std::string>> coinciding_lines(const ChartModel& m) {
    std::map<std::vector<std::pair<std::size_t, double>>, std::vector<std::string>> by_values;
    std::vector<std::vector<std::pair<std::size_t, double>>> series(m.y.values.size());
    for (const auto& p : m.points) series[p.y].emplace_back(p.x, p.value);
    std::vector<std::vector<std::string>> groups;
    for (std::size_t y = 0; y < series.size(); ++y) {
        std::sort(series[y].begin(), series[y].end());
        if (!series[y].empty()) by_values[series[y]].push_back(axis_label(m.y, y));
    }
    for (auto& [values, labels] : by_values)
        if (labels.size() > 1) groups.push_back(labels);
    return groups;
}

// The axis values at the positions `at` (ascending), three or more in a row written first..last:
// "4..48" rather than 45 values that the note's width would cut.
std::string axis_runs(const ChartAxis& axis, const std::vector<std::size_t>& at) {
    const auto value = [&](std::size_t i) {
        return axis.key == kTraceColumn ? file_name(axis.values[i]) : axis.values[i];
    };
    std::vector<std::string> parts;
    for (std::size_t i = 0; i < at.size();) {
        std::size_t j = i;
        while (j + 1 < at.size() && at[j + 1] == at[j] + 1) ++j;
        if (j - i >= 2) {
            parts.push_back(value(at[i]) + ".." + value(at[j]));
        } else {
            for (std::size_t k = i; k <= j; ++k) parts.push_back(value(at[k]));
        }
        i = j + 1;
    }
    return join(parts, ", ");
}

// The best points of a two-key chart, by one key's values alone when every point charted at those
// values is a best one ("tdm.dma_slots=0 (any arbiter.dma_class.dma.prio)"): the other key does
// not change the best, and a list of each point would say it less plainly. Empty otherwise.
std::string best_by_one_key(const ChartModel& m) {
    if (m.y.key.empty()) return "";
    const auto by = [&](const ChartAxis& axis, const ChartAxis& other, auto index) -> std::string {
        std::vector<std::size_t> all(axis.values.size(), 0), best(axis.values.size(), 0);
        for (const auto& p : m.points) ++all[index(p)], best[index(p)] += p.best;
        std::vector<std::size_t> at;
        bool collapses = false;
        for (std::size_t i = 0; i < all.size(); ++i) {
            if (!best[i]) continue;
            if (best[i] != all[i]) return "";
            collapses = collapses || all[i] > 1;
            at.push_back(i);
        }
        return collapses ? axis.key + "=" + axis_runs(axis, at) + " (any " + other.key + ")" : "";
    };
    const std::string x = by(m.x, m.y, [](const ChartPoint& p) { return p.x; });
    return !x.empty() ? x : by(m.y, m.x, [](const ChartPoint& p) { return p.y; });
}

// The notes under the chart: the best value and the skipped points. Returns the lines.
// Under a chart over several traces: each trace's best, at the other key's values.
std::vector<std::string> best_per_trace(const ChartModel& m) {
    const ChartAxis& traces = *trace_axis(m);
    const ChartAxis& other = &traces == &m.x ? m.y : m.x;
    std::vector<std::string> notes;
    for (std::size_t t = 0; t < traces.values.size(); ++t) {
        std::vector<std::size_t> at;  // the other key's positions of the trace's best points
        std::optional<double> best;
        std::size_t points = 0;
        for (const auto& p : m.points) {
            if (trace_of(m, p) != t) continue;
            ++points;
            if (!p.best) continue;
            best = p.value;
            at.push_back(&traces == &m.x ? p.y : p.x);
        }
        if (!best) continue;
        std::sort(at.begin(), at.end());
        const std::string value = m.metric + " " + short_number(*best);
        const std::string rank = m.better == sweep::Better::lower ? "lowest " : "highest ";
        if (other.key.empty())
            notes.push_back(file_name(traces.values[t]) + ": " + value);
        else if (at.size() == points && points > 1)
            notes.push_back(file_name(traces.values[t]) + ": " + value + " at every " + other.key +
                            ": the swept values do not change it");
        else
            notes.push_back(file_name(traces.values[t]) + ": " + rank + value + " at " + other.key + "=" +
                            axis_runs(other, at));
    }
    return notes;
}

// A line chart's y axis, when it is not what a reader assumes: zoomed away from 0, or from 0 over
// values so close that their lines look flat (then --zoom shows them apart).
std::string y_axis_note(const ChartModel& m) {
    constexpr double kFlat =
        0.05;  // a spread under 5 % of the largest magnitude is about one pixel row in 20
    const double span = std::max(std::fabs(m.min), std::fabs(m.max));
    if (m.zoom)
        return m.min > 0 || m.max < 0 ? "y axis fitted to the values (--zoom): it does not start at 0, so "
                                        "differences look larger than they are"
                                      : "";
    if (m.max == m.min || span == 0 || (m.max - m.min) >= kFlat * span) return "";
    return "the values differ by " + format_number(100 * (m.max - m.min) / span, 2) +
           " % of the largest at most: --zoom fits the y axis to them";
}

// The best points a note names when there are too many to outline; the rest are counted.
constexpr std::size_t kMaxNamedBest = 4;

// `items` joined by "; ", the first `most` of them and "and N more".
std::string join_first(const std::vector<std::string>& items, std::size_t most) {
    if (items.size() <= most) return join(items, "; ");
    const std::vector<std::string> first(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(most));
    return join(first, "; ") + " and " + std::to_string(items.size() - most) + " more";
}

std::vector<std::string> notes_of(const ChartModel& m) {
    std::vector<std::string> notes;
    if (m.best && trace_axis(m)) {
        notes = best_per_trace(m);
    } else if (m.best) {
        std::vector<std::string> where;
        for (const auto& p : m.points)
            if (p.best) where.push_back(describe_point(m, p.x, p.y));
        const std::string one_key = best_by_one_key(m);
        std::string n;
        if (where.size() > 1 && where.size() == m.points.size()) {
            // Nothing to pick: "lowest at 4 of 4 points" would read as if some point were better.
            n = m.metric + " " + short_number(*m.best) + " at all " + std::to_string(where.size()) +
                " points: the swept values do not change it";
        } else {
            n = std::string(m.better == sweep::Better::lower ? "lowest " : "highest ") + m.metric + " " +
                short_number(*m.best);
            const std::string outlined = outline_best(m) ? " (outlined)" : "";
            if (!one_key.empty())
                n += outlined + " at " + one_key;
            else if (!outlined.empty())
                n += outlined + " at " + join(where, "; ");
            else  // too many to outline: named below, the first few
                n += " at " + std::to_string(where.size()) + " of " + std::to_string(m.points.size()) +
                     " points:";
        }
        notes.push_back(n);
        if (n.back() == ':') notes.push_back(kIndent + join_first(where, kMaxNamedBest));
    }
    if (m.kind == ChartKind::line) {
        if (const std::string n = y_axis_note(m); !n.empty()) notes.push_back(n);
    }
    if (m.kind == ChartKind::line)
        for (const auto& same : coinciding_lines(m))
            notes.push_back(m.y.key + " " + join(same, ", ") + ": the same value at every point (one line hides the other)");
    constexpr std::size_t kMaxSkipped = 6;
    if (!m.skipped.empty()) notes.push_back(skipped_summary(m) + ":");
    for (std::size_t i = 0; i < m.skipped.size() && i < kMaxSkipped; ++i) {
        const auto& k = m.skipped[i];
        notes.push_back(kIndent + describe_point(m, k.x, k.y) + ": " + k.status +
                        (k.message.empty() ? "" : " \u2014 " + truncate(k.message, 110)));
    }
    if (m.skipped.size() > kMaxSkipped) notes.push_back(std::string(kIndent) + "... and " + std::to_string(m.skipped.size() - kMaxSkipped) + " more");
    return notes;
}

// SVG collapses leading spaces, so an indented note is drawn further right instead. Lines are
// cut to the page width (SVG text does not wrap); the full messages are on stderr.
void draw_notes(svg::Writer& s, const std::vector<std::string>& notes, double left, double y, double page_width) {
    constexpr double kCharW = 5.4;  // average advance of the 9.5 px sans-serif text
    for (const auto& n : notes) {
        const bool indented = n.rfind(kIndent, 0) == 0;
        const double x = left + (indented ? 14 : 0);
        const auto fit = static_cast<std::size_t>(std::max(20.0, (page_width - x - 10) / kCharW));
        s.text(x, y, truncate(indented ? n.substr(std::string(kIndent).size()) : n, fit), 9.5);
        y += 13;
    }
}

}  // namespace

std::vector<double> axis_ticks(double lo, double hi, int target) { return svg::round_ticks(lo, hi, target); }

namespace {

// The y ticks of a line chart, computed once: the axis runs from the first to the last, so every
// tick lies on the frame (a second axis_ticks() over the widened range could pick another step
// and put ticks outside it). From 0 unless zoomed; widened when every point has one value.
std::vector<double> y_ticks(const ChartModel& m) {
    double lo = m.min, hi = m.max;
    if (!m.zoom) lo = std::min(lo, 0.0), hi = std::max(hi, 0.0);
    if (hi == lo) {
        const double pad = lo == 0 ? 1 : std::fabs(lo) * 0.1;
        lo -= pad, hi += pad;
    }
    return axis_ticks(lo, hi, 5);
}

// ---- line chart ----------------------------------------------------------------------------------

struct Frame {
    double left = 90, top = 0, width = 560, height = 300;
    double right() const { return left + width; }
    double bottom() const { return top + height; }
};

struct LineScale {
    const ChartModel* m;
    Frame f;
    std::vector<double> ticks;   // y ticks; the axis runs from the first to the last
    double lo = 0, hi = 1;
    static constexpr double kPad = 18;  // keeps end markers off the frame

    double x(std::size_t i) const {
        const ChartAxis& a = m->x;
        if (a.numeric && a.numbers.back() > a.numbers.front())
            return f.left + kPad + (f.width - 2 * kPad) * (a.numbers[i] - a.numbers.front()) / (a.numbers.back() - a.numbers.front());
        return f.left + f.width * (static_cast<double>(i) + 0.5) / static_cast<double>(a.values.size());
    }
    double y(double v) const { return f.bottom() - f.height * (v - lo) / (hi - lo); }
};

void y_axis(svg::Writer& s, const LineScale& sc) {
    for (double v : sc.ticks) {
        const double y = sc.y(v);
        s.line(sc.f.left, y, sc.f.right(), y, "#e6e6e6", 1);
        s.line(sc.f.left - 4, y, sc.f.left, y, "#000", 1);
        s.text(sc.f.left - 7, y + 3.5, svg::compact(v), 9, "end");
    }
    s.text(sc.f.left - 56, sc.f.top + sc.f.height / 2, sc.m->metric, 11, "middle", -90);
}

// Numeric axes tick every value while there is room (sweeps have few values), else nice steps.
bool tick_every_value(const LineScale& sc) {
    const ChartAxis& a = sc.m->x;
    if (!a.numeric || a.values.size() > 12) return !a.numeric;
    for (std::size_t i = 1; i < a.values.size(); ++i)
        if (sc.x(i) - sc.x(i - 1) < 26) return false;
    return true;
}

std::size_t longest_label(const ChartAxis& a) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < a.values.size(); ++i) n = std::max(n, axis_label(a, i).size());
    return n;
}

// Value labels too wide for their spacing are slanted.
bool slant_x_labels(const LineScale& sc) {
    const double spacing = sc.f.width / static_cast<double>(sc.m->x.values.size());
    return tick_every_value(sc) && static_cast<double>(longest_label(sc.m->x)) * 6.0 > spacing;
}

// How far below the frame the x axis title sits.
double x_title_depth(const LineScale& sc) {
    return slant_x_labels(sc) ? 20 + 3.6 * static_cast<double>(longest_label(sc.m->x)) : 32;
}

void x_axis(svg::Writer& s, const LineScale& sc) {
    const ChartAxis& a = sc.m->x;
    const double y = sc.f.bottom();
    const bool rotate = slant_x_labels(sc);
    auto tick = [&](double x, const std::string& label) {
        s.line(x, y, x, y + 4, "#000", 1);
        if (rotate) s.text(x + 3, y + 14, label, 9, "end", -35);
        else s.text(x, y + 15, label, 9, "middle");
    };
    if (tick_every_value(sc)) {
        for (std::size_t i = 0; i < a.values.size(); ++i) tick(sc.x(i), axis_label(a, i));
    } else {
        const double lo = a.numbers.front(), hi = a.numbers.back();
        for (double v : axis_ticks(lo, hi, 6))
            if (v >= lo && v <= hi) {
                const double x = sc.f.left + LineScale::kPad + (sc.f.width - 2 * LineScale::kPad) * (v - lo) / (hi - lo);
                tick(x, svg::compact(v));
            }
    }
    s.text(sc.f.left + sc.f.width / 2, y + x_title_depth(sc), x_title(a), 11, "middle");
}

void marker(svg::Writer& s, const LineScale& sc, const ChartPoint& p, const std::string& colour) {
    const double x = sc.x(p.x), y = sc.y(p.value);
    if (p.best && outline_best(*sc.m)) {
        svg::Style ring;
        ring.stroke = "#000";
        ring.stroke_width = 1.5;
        ring.css_class = "best-mark";
        s.rect(x - 6.5, y - 6.5, 13, 13, ring);
    }
    svg::Style st;
    st.fill = colour;
    st.css_class = "point";
    st.title = describe_point(*sc.m, p.x, p.y) + ": " + sc.m->metric + " = " + svg::num(p.value, 10) +
               " (line " + std::to_string(p.line) + ")";
    st.attrs = "data-x=\"" + std::to_string(p.x) + "\" data-y=\"" + std::to_string(p.y) + "\"";
    s.rect(x - 3.5, y - 3.5, 7, 7, st);
}

// One series: polylines through consecutive axis positions (a skipped point breaks the line
// rather than being bridged by a segment that would invent a value), then the markers. Along
// `trace` markers only: the traces are categories, and a line between them would draw a trend
// the order they were given in does not have.
void series(svg::Writer& s, const LineScale& sc, std::size_t yi) {
    const std::string colour = kPalette[yi % std::size(kPalette)];
    std::vector<const ChartPoint*> pts;
    for (const auto& p : sc.m->points)
        if (p.y == yi) pts.push_back(&p);
    std::sort(pts.begin(), pts.end(), [](const ChartPoint* a, const ChartPoint* b) { return a->x < b->x; });
    std::string poly;
    std::size_t n = 0;
    const bool joined = sc.m->x.key != kTraceColumn;
    auto flush = [&] {
        if (n > 1 && joined) s.polyline(poly, colour, 1.8);
        poly.clear();
        n = 0;
    };
    for (std::size_t i = 0; i < pts.size(); ++i) {
        if (i && pts[i]->x != pts[i - 1]->x + 1) flush();
        poly += (n ? " " : "") + svg::num(sc.x(pts[i]->x), 7) + "," + svg::num(sc.y(pts[i]->value), 7);
        ++n;
    }
    flush();
    for (const auto* p : pts) marker(s, sc, *p, colour);
}

// Skipped points: a cross on the x axis at their position, in their line's colour when there
// are several lines; the crosses of several lines at one x are stacked upwards, not drawn over
// each other.
void skipped_marks(svg::Writer& s, const LineScale& sc) {
    const bool several = !sc.m->y.key.empty();
    std::map<std::size_t, int> stacked;  // x index -> crosses drawn there
    for (const auto& k : sc.m->skipped) {
        const double above = 11.0 * stacked[k.x]++;
        s.text(sc.x(k.x), sc.f.bottom() - 5 - above, "\u00d7", 13, "middle", 0, "normal",
               several ? kPalette[k.y % std::size(kPalette)] : "");
    }
}

// What the legend's entry for the crosses of skipped points says (skipped_marks()).
constexpr const char* kSkippedLegend = "not ok (notes below)";

// The series (when there are several) and, when points were skipped, what their crosses mean.
void legend(svg::Writer& s, const ChartModel& m, double x, double y) {
    double yy = y;
    if (!m.y.key.empty()) {
        s.text(x, y, m.y.key, 10, "start", 0, "bold");
        for (std::size_t i = 0; i < m.y.values.size(); ++i) {
            yy = y + 16 + 15 * static_cast<double>(i);
            const std::string colour = kPalette[i % std::size(kPalette)];
            s.line(x, yy - 3.5, x + 22, yy - 3.5, colour, 1.8);
            svg::Style st;
            st.fill = colour;
            s.rect(x + 7.5, yy - 7, 7, 7, st);
            s.text(x + 28, yy, axis_label(m.y, i), 9.5);
        }
    }
    if (!m.skipped.empty()) {
        yy += m.y.key.empty() ? 0 : 15;
        s.text(x + 11, yy, "\u00d7", 13, "middle");
        s.text(x + 28, yy, kSkippedLegend, 9.5);
    }
}

std::string render_line(const ChartModel& m, const ChartInfo& info) {
    LineScale sc{&m, Frame{}, y_ticks(m)};
    sc.lo = sc.ticks.front();
    sc.hi = sc.ticks.back();
    std::size_t legend_chars = m.y.key.size();
    for (std::size_t i = 0; i < m.y.values.size() && !m.y.key.empty(); ++i)
        legend_chars = std::max(legend_chars, axis_label(m.y, i).size() + 5);
    if (!m.skipped.empty())
        legend_chars = std::max(legend_chars, std::string_view(kSkippedLegend).size() + 5);
    const double legend_w = legend_chars == 0 ? 30 : 40 + 6.0 * static_cast<double>(legend_chars);
    const auto notes = notes_of(m);
    sc.f.top = header_height(m, info);
    const double notes_y = sc.f.bottom() + x_title_depth(sc) + 22;
    const double height = std::max(notes_y + 13.0 * static_cast<double>(notes.size()) + 10,
                                   sc.f.top + 16 + 15.0 * static_cast<double>(m.y.values.size() + 1) + 20);
    const double width = std::max({sc.f.right() + legend_w, 700.0, header_width(m, info, sc.f.left)});
    svg::Writer s(width, height);
    header(s, m, info, sc.f.left);
    y_axis(s, sc);
    svg::Style frame;
    frame.stroke = "#000";
    frame.stroke_width = 1;
    s.rect(sc.f.left, sc.f.top, sc.f.width, sc.f.height, frame);
    x_axis(s, sc);
    s.open_group("points");
    for (std::size_t yi = 0; yi < m.y.values.size(); ++yi) series(s, sc, yi);
    s.close_group();
    skipped_marks(s, sc);
    legend(s, m, sc.f.right() + 18, sc.f.top + 8);
    draw_notes(s, notes, sc.f.left, notes_y, width);
    return s.str();
}

// ---- heat chart ----------------------------------------------------------------------------------

struct Grid {
    double left = 0, top = 0, cw = 0, ch = 0;
    std::size_t nx = 0, ny = 0;
    double x(std::size_t i) const { return left + cw * static_cast<double>(i); }
    // Row 0 at the bottom, as on a y axis.
    double y(std::size_t j) const { return top + ch * static_cast<double>(ny - 1 - j); }
    double right() const { return x(nx); }
    double bottom() const { return top + ch * static_cast<double>(ny); }
};

void cell(svg::Writer& s, const ChartModel& m, const Grid& g, std::size_t xi, std::size_t yi, const ChartPoint* p,
          const SkippedPoint* k) {
    svg::Style st;
    st.stroke = "#ffffff";
    st.stroke_width = 1;
    st.css_class = "cell";
    const std::string status = p ? "ok" : k ? k->status : "missing";
    st.fill = p ? ramp(m, fraction(colour_span(m), p->value)) : "#eeeeee";
    st.title = describe_point(m, xi, yi) + ": " +
               (p ? m.metric + " = " + svg::num(p->value, 10) : k ? status + (k->message.empty() ? "" : " \u2014 " + k->message)
                                                                   : "no row in the table");
    st.attrs = "data-x=\"" + std::to_string(xi) + "\" data-y=\"" + std::to_string(yi) + "\" data-status=\"" +
               svg::escape(status) + "\"";
    const double x = g.x(xi), y = g.y(yi);
    s.rect(x, y, g.cw, g.ch, st);
    const std::string text = p ? short_number(p->value) : status;
    // Values are written in the cell: across it at the largest size that fits, else up it (a
    // grid of many narrow columns), so a value is never left out where its neighbours' zeros are
    // written; only a cell too small either way relies on its tooltip, which has the exact value.
    const double chars = static_cast<double>(text.size());
    for (const double size : {p ? 10.0 : 8.5, 8.0, 6.5}) {
        if (chars * size * 0.6 <= g.cw - 4 && g.ch >= size + 2) {
            s.text(x + g.cw / 2, y + g.ch / 2 + size * 0.35, text, size, "middle");
            break;
        }
        if (chars * size * 0.6 <= g.ch - 4 && g.cw >= size + 2) {
            s.text(x + g.cw / 2 + size * 0.35, y + g.ch / 2, text, size, "middle", -90);
            break;
        }
    }
    if (p && p->best && outline_best(m)) {
        svg::Style ring;
        ring.stroke = "#000";
        ring.stroke_width = 2;
        ring.css_class = "best-mark";
        s.rect(x + 1.5, y + 1.5, g.cw - 3, g.ch - 3, ring);
    }
}

void cells(svg::Writer& s, const ChartModel& m, const Grid& g) {
    std::map<std::pair<std::size_t, std::size_t>, const ChartPoint*> ok;
    std::map<std::pair<std::size_t, std::size_t>, const SkippedPoint*> bad;
    for (const auto& p : m.points) ok[{p.x, p.y}] = &p;
    for (const auto& k : m.skipped) bad[{k.x, k.y}] = &k;
    s.open_group("cells");
    for (std::size_t yi = 0; yi < g.ny; ++yi)
        for (std::size_t xi = 0; xi < g.nx; ++xi) {
            const auto key = std::make_pair(xi, yi);
            cell(s, m, g, xi, yi, ok.count(key) ? ok[key] : nullptr, bad.count(key) ? bad[key] : nullptr);
        }
    s.close_group();
}

// Column labels under the grid (slanted when they do not fit), row labels to its left.
double heat_axes(svg::Writer& s, const ChartModel& m, const Grid& g) {
    const bool slant = static_cast<double>(longest_label(m.x)) * 5.6 > g.cw - 4;
    for (std::size_t i = 0; i < g.nx; ++i) {
        const double x = g.x(i) + g.cw / 2;
        if (slant) s.text(x + 3, g.bottom() + 12, axis_label(m.x, i), 9, "end", -40);
        else s.text(x, g.bottom() + 14, axis_label(m.x, i), 9, "middle");
    }
    for (std::size_t j = 0; j < g.ny; ++j) s.text(g.left - 6, g.y(j) + g.ch / 2 + 3, axis_label(m.y, j), 9, "end");
    const double below = g.bottom() + (slant ? 18 + 4.0 * static_cast<double>(longest_label(m.x)) : 32);
    s.text((g.left + g.right()) / 2, below, x_title(m.x), 11, "middle");
    s.text(g.left - 14 - 5.6 * static_cast<double>(longest_label(m.y)), g.top + (g.bottom() - g.top) / 2, m.y.key, 11,
           "middle", -90);
    return below;
}

// A vertical colour bar over the colour span, lowest at the bottom, labelled at the round values
// inside it.
void colour_legend(svg::Writer& s, const ChartModel& m, double x, double top, double height) {
    constexpr int kSteps = 24;
    const double h = height / kSteps;
    for (int i = 0; i < kSteps; ++i) {
        svg::Style st;
        st.fill = ramp(m, (i + 0.5) / kSteps);
        s.rect(x, top + height - (i + 1) * h, 16, h + 0.2, st);
    }
    svg::Style frame;
    frame.stroke = "#000";
    frame.stroke_width = 0.5;
    s.rect(x, top, 16, height, frame);
    const ColourSpan c = colour_span(m);
    // Every value zero: one label at the middle, where its colour is.
    const auto ticks = c.hi > c.lo ? svg::round_ticks(c.lo, c.hi, 4) : std::vector<double>{c.lo};
    for (const double v : ticks) {
        const double f = fraction(c, v);
        if (f < -1e-9 || f > 1 + 1e-9)
            continue;  // round_ticks covers the span: the outer ones lie off the bar
        const double y = top + height - height * f;
        s.line(x + 16, y, x + 20, y, "#000", 0.8);
        s.text(x + 23, y + 3, svg::compact(v), 9);
    }
    s.text(x, top - 8, m.metric, 9.5);
}

std::string render_heat(const ChartModel& m, const ChartInfo& info) {
    Grid g;
    g.nx = m.x.values.size();
    g.ny = m.y.values.size();
    g.cw = std::clamp(600.0 / static_cast<double>(g.nx), 24.0, 90.0);
    g.ch = std::clamp(340.0 / static_cast<double>(g.ny), 18.0, 44.0);
    g.left = 40 + 5.6 * static_cast<double>(longest_label(m.y)) + 10;
    g.top = header_height(m, info) + 6;
    const auto notes = notes_of(m);
    const double legend_x = g.right() + 28;
    const double axes_bottom = g.bottom() + 36 + 4.0 * static_cast<double>(longest_label(m.x));
    const double width = std::max({legend_x + 90, 700.0, header_width(m, info, g.left)});
    svg::Writer s(width, axes_bottom + 22 + 13.0 * static_cast<double>(notes.size()));
    header(s, m, info, 20);
    cells(s, m, g);
    const double below = heat_axes(s, m, g);
    colour_legend(s, m, legend_x, g.top + 10, std::max(80.0, g.bottom() - g.top - 10));
    draw_notes(s, notes, 20, std::max(below, axes_bottom) + 20, width);
    return s.str();
}

}  // namespace

std::string render_chart(const ChartModel& m, const ChartInfo& info) {
    return m.kind == ChartKind::heat ? render_heat(m, info) : render_line(m, info);
}

}  // namespace sbufsim::chart
