// The sweep's summary (sweep_parts.h): the table on the terminal, ranked within each trace, the
// failed points, keys that changed nothing, and the warnings about empty or partial columns.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iomanip>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "sbufsim/types/number.h"
#include "sbufsim/types/text.h"
#include "sweep_parts.h"

namespace sbufsim::app::sweep_parts {

// The terminal's width the table and its notes keep within.
constexpr std::size_t kNoteColumns = 120;

std::size_t axis_count(const std::vector<std::string>& cols) {
    return static_cast<std::size_t>(std::find(cols.begin(), cols.end(), "total_cycles") - cols.begin()) - 1;
}

std::string describe(const std::vector<std::string>& cols, const Row& row) {
    std::string s = row[0];
    for (std::size_t i = 1; i <= axis_count(cols); ++i) s += " " + cols[i] + "=" + row[i];
    return s;
}

namespace {

// A metric column asked for with --metric or --rank-by (not one of the default columns).
bool extra_metric(const std::string& col) {
    const auto& d = sweep::metrics();
    return col != "message" && col != "status" && col != "base" && col != "base_digest" &&
           std::none_of(d.begin(), d.end(), [&](const sweep::Metric& m) { return m.name == col; });
}

// The terminal's name of a headline column, short enough for the table to fit 120 columns (the
// CSV and JSON keep the metric's name).
std::string header(const std::string& col) {
    static const std::vector<std::pair<std::string, std::string>> kShort = {
        {"total_cycles", "cycles"},
        {"pe_utilisation", "pe_util"},
        {"bank_conflict_stalls", "bank_stalls"},
        {"throttle_stalls", "thr_stalls"},
        {"worst_p99_latency", "p99"},
        {"worst_p99_client", "p99_client"},
        {"jain_fairness", "jain"}};
    for (const auto& [name, brief] : kShort)
        if (col == name) return brief;
    return col;
}

// A cell as the terminal shows it: a number with a fraction at 4 significant digits (the CSV and
// JSON keep all 10), anything else as it is.
std::string shown_cell(const std::string& cell) {
    if (cell.find_first_of(".eE") == std::string::npos) return cell;
    char* end = nullptr;
    const double v = std::strtod(cell.c_str(), &end);
    if (end != cell.c_str() + cell.size()) return cell;
    return format_number(v, 4);
}

void print_table(std::ostream& os, const std::vector<std::string>& cols, const std::vector<Row>& rows,
                 const std::vector<std::size_t>& order, std::size_t top) {
    // The terminal shows the varied keys and the headline metrics; the files hold every column.
    // The worst p99 goes with its client: a long request (a matmul's PSUM write of 240 beats)
    // has that latency by its length, not by waiting, and only the name tells which it is.
    static const std::vector<std::string> shown = {
        "total_cycles", "pe_utilisation",    "bank_conflict_stalls", "tdm_stalls",    "throttle_stalls",
        "dma_gbps",     "worst_p99_latency", "worst_p99_client",     "jain_fairness", "status"};
    std::vector<std::size_t> pick;
    // The trace column only when the rows shown are of several traces.
    const bool many_traces = std::any_of(order.begin(), order.end(),
                                         [&](std::size_t i) { return rows[i][0] != rows[order[0]][0]; });
    if (many_traces) pick.push_back(0);
    for (std::size_t c = 1; c <= axis_count(cols); ++c) pick.push_back(c);
    for (std::size_t c = axis_count(cols) + 1; c < cols.size(); ++c)
        if (std::find(shown.begin(), shown.end(), cols[c]) != shown.end() || extra_metric(cols[c]))
            pick.push_back(c);
    const std::size_t n = top == 0 ? order.size() : std::min(top, order.size());
    std::vector<std::size_t> width;
    for (auto c : pick) {
        std::size_t w = header(cols[c]).size();
        for (std::size_t i = 0; i < n; ++i) w = std::max(w, shown_cell(rows[order[i]][c]).size());
        width.push_back(w);
    }
    auto line = [&](auto cell) {
        for (std::size_t k = 0; k < pick.size(); ++k)
            os << (k ? "  " : "") << std::setw(static_cast<int>(width[k])) << cell(pick[k]);
        os << "\n";
    };
    line([&](std::size_t c) { return header(cols[c]); });
    for (std::size_t i = 0; i < n; ++i) line([&](std::size_t c) { return shown_cell(rows[order[i]][c]); });
    if (n < order.size()) os << "... " << order.size() - n << " more rows (--top 0 shows all)\n";
}

std::size_t metric_column(const std::vector<std::string>& cols, const sweep::Metric& m) {
    return static_cast<std::size_t>(std::find(cols.begin(), cols.end(), m.name) - cols.begin());
}

std::size_t ok_rows(const std::vector<std::string>& cols, const std::vector<Row>& rows,
                    const std::vector<std::size_t>& which) {
    const std::size_t status_col = cols.size() - 2;
    return static_cast<std::size_t>(std::count_if(
        which.begin(), which.end(), [&](std::size_t i) { return rows[i][status_col] == sweep::kStatusOk; }));
}

// A best value several points share: the ranking's first is not a choice among them. `best`:
// the first row. `what`: "points", or "traces" when each row is a trace's (one tiling each).
// A tie-break metric goes after the ones given, so that it orders the tying rows only (ranking
// by it alone would rank the whole table by it, slower points first).
std::string tie_note(std::size_t ties, std::size_t ok, const std::vector<std::string>& cols, const Row& best,
                     const std::vector<sweep::Metric>& ms, const char* what = "points") {
    std::string names, values;
    for (const auto& m : ms) {
        names += (names.empty() ? "" : ",") + m.name;
        values += (values.empty() ? "" : ", ") + m.name + " " + best[metric_column(cols, m)];
    }
    const std::string them = ms.size() == 1 ? ms[0].name + " does not" : "they do not";
    return std::to_string(ties) + " of " + std::to_string(ok) + " ok " + what + " tie at the best " +
           (ms.size() == 1 ? ms[0].name + " (" + best[metric_column(cols, ms[0])] + ")"
                           : "(" + values + ")") +
           ": " + them +
           " tell them apart; to choose among them by another metric, rank by it after these (--rank-by " +
           names + ",METRIC)";
}

// --rank-by: best first within each trace (traces differ in scale: ranking one trace's rows
// against another's would compare the traces, not the settings), each trace its own table.
void print_ranked(std::ostream& os, const Plan& o, const std::vector<std::string>& cols,
                  const std::vector<Row>& rows) {
    const std::vector<sweep::Metric>& ms = o.rank_metrics;
    const auto order = sweep::rank(cols, rows, ms);
    std::vector<std::string> traces;  // in order of first appearance
    for (const auto& r : rows)
        if (std::find(traces.begin(), traces.end(), r[0]) == traces.end()) traces.push_back(r[0]);
    const bool one_row_each = traces.size() > 1 && rows.size() == traces.size();
    os << "best first by ";
    for (std::size_t k = 0; k < ms.size(); ++k)
        os << (k ? ", then " : "") << ms[k].name << " ("
           << (ms[k].better == sweep::Better::higher ? "highest" : "lowest") << " first)";
    os << (one_row_each        ? ", one row per trace"
           : traces.size() > 1 ? ", ranked within each trace"
                               : "")
       << "\n";
    if (one_row_each) {
        print_table(os, cols, rows, order, o.top);
        if (const std::size_t ties = sweep::ties_at_best(cols, rows, order, ms); ties > 1)
            os << wrap_text(tie_note(ties, ok_rows(cols, rows, order), cols, rows[order[0]], ms, "traces"),
                            kNoteColumns, 2)
               << "\n";
        return;
    }
    std::string tied;  // the traces whose best is a tie, for the comparison below
    for (const auto& t : traces) {
        std::vector<std::size_t> mine;
        for (const auto i : order)
            if (rows[i][0] == t) mine.push_back(i);
        if (traces.size() > 1) os << "\n" << t << ":\n";
        print_table(os, cols, rows, mine, o.top);
        if (const std::size_t ties = sweep::ties_at_best(cols, rows, mine, ms); ties > 1) {
            os << wrap_text(tie_note(ties, ok_rows(cols, rows, mine), cols, rows[mine[0]], ms), kNoteColumns,
                            2)
               << "\n";
            tied += (tied.empty() ? "" : ", ") + t;
        }
    }
    if (traces.size() < 2) return;
    // The first row of each trace in the overall ranking is its best, and they come best first:
    // the comparison to read when the traces compute the same thing (two tilings of one GEMM).
    std::vector<std::size_t> bests;
    std::vector<std::string> seen;
    for (const auto i : order)
        if (std::find(seen.begin(), seen.end(), rows[i][0]) == seen.end())
            seen.push_back(rows[i][0]), bests.push_back(i);
    os << "\neach trace's best, best first (a comparison where the traces compute the same thing, such "
          "as two tilings):\n";
    print_table(os, cols, rows, bests, 0);
    if (const std::size_t ties = sweep::ties_at_best(cols, rows, bests, ms); ties > 1)
        os << wrap_text(tie_note(ties, ok_rows(cols, rows, bests), cols, rows[bests[0]], ms, "traces"),
                        kNoteColumns, 2)
           << "\n";
    if (!tied.empty())
        os << "(the best of " << tied
           << " is one of several tying points: its settings are the first of them in "
              "sweep order, not a choice)\n";
}

}  // namespace

void print_summary(std::ostream& os, const Plan& o, const std::vector<std::string>& cols,
                   const std::vector<Row>& rows, RowCounts counts, double seconds) {
    if (o.rank_by.empty()) {
        std::vector<std::size_t> order(rows.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        print_table(os, cols, rows, order, o.top);
    } else {
        print_ranked(os, o, cols, rows);
    }
    const std::size_t status_col = cols.size() - 2;
    constexpr std::size_t kFailuresShown = 10;
    std::size_t bad = 0;
    for (const auto& r : rows)
        if (r[status_col] != sweep::kStatusOk && ++bad <= kFailuresShown)
            os << "  " << r[status_col] << ": " << describe(cols, r) << ": " << r.back() << "\n";
    if (bad > kFailuresShown)
        os << "  ... " << bad - kFailuresShown << " more (see the status and message columns)\n";
    for (const auto& key : sweep::keys_without_effect(cols, rows, axis_count(cols)))
        os << "note: " << key
           << " changed no metric: the points that differ in it alone gave the same results "
           << "(does this configuration and trace use it?)\n";
    os << rows.size() << " rows: " << rows.size() - bad << " ok, " << bad << " not ok; ran " << counts.ran
       << " point" << (counts.ran == 1 ? "" : "s") << " in " << format_fixed(seconds, 1) << " s on "
       << o.workers << " worker" << (o.workers == 1 ? "" : "s");
    if (counts.kept) os << "; " << counts.kept << " already in " << o.out << " (resumed, not re-run)";
    if (counts.earlier)
        os << "; " << counts.earlier << " of other points kept from an earlier sweep in " << o.out
           << " (they do not decide the exit status)";
    os << "\n";
}

namespace {

// `name` with an underscore before its trailing digits ("dma0" -> "dma_0"); "" when it has no
// trailing digits or already has the underscore.
std::string numbered_member(const std::string& name) {
    std::size_t digits = name.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(name[digits - 1]))) --digits;
    if (digits == 0 || digits == name.size() || name[digits - 1] == '_') return "";
    return name.substr(0, digits) + "_" + name.substr(digits);
}

}  // namespace

// A --metric or --rank-by of a family member no run had (engine.dma0 for dma_0) is empty in every
// ok row. Which members a run has is known only once it ran, so the name passed the checks
// before the sweep: it is said now rather than left as a silent empty column.
void warn_empty_metrics(const Plan& o, const std::vector<std::string>& cols, const std::vector<Row>& rows,
                        std::ostream& err) {
    const std::size_t status_col = cols.size() - 2;
    for (const std::string& m : o.metrics) {
        const auto col = std::find(cols.begin(), cols.end(), m);
        if (col == cols.end()) continue;
        const std::size_t c = static_cast<std::size_t>(col - cols.begin());
        bool any_ok = false, any_value = false;
        for (const Row& r : rows) {
            if (r[status_col] != sweep::kStatusOk) continue;
            any_ok = true;
            any_value |= !r[c].empty();
        }
        if (!any_ok || any_value) continue;
        const std::size_t dot = m.find('.'), last = m.rfind('.');
        const std::string name = dot != last ? m.substr(dot + 1, last - dot - 1) : "";
        const std::string member =
            dot != last ? " had a '" + name + "' in its " + m.substr(0, dot) + " family" : " gave it a value";
        // The numbered members are named prefix_K (dma_0, q7_3, pe_client_1): "dma0" is one of them.
        const std::string numbered = numbered_member(name);
        err << "sbufsim sweep: warning: " << m << " is empty in every ok row: no run" << member
            << (numbered.empty() ? " (a misspelt name, or one these traces never use;"
                                 : " (did you mean " + m.substr(0, dot + 1) + numbered + m.substr(last) + "?")
            << " sbufsim run TRACE --json - lists each family's names)\n";
    }
}

// Under --lenient, rows whose replay skipped invalid records describe only part of their trace.
void warn_skipped_records(const std::vector<std::string>& cols, const std::vector<Row>& rows,
                          const char* column, std::ostream& err) {
    const std::size_t c =
        static_cast<std::size_t>(std::find(cols.begin(), cols.end(), column) - cols.begin());
    std::size_t partial = 0;
    for (const Row& r : rows) partial += c < r.size() && !r[c].empty() && r[c] != "0";
    if (partial)
        err << "sbufsim sweep: warning: " << partial << " of " << rows.size()
            << " rows skipped invalid records "
            << "(--lenient; column " << column << "): their results cover only part of their trace\n";
}

}  // namespace sbufsim::app::sweep_parts
