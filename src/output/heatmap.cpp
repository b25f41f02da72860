#include "sbufsim/output/heatmap.h"

#include <algorithm>
#include <string>

#include "sbufsim/output/svg.h"
#include "sbufsim/types/text.h"

namespace sbufsim {

std::string heatmap_settings(const std::vector<std::string>& assignments, const std::string& config_hash) {
    std::string s;
    for (const auto& a : assignments) s += (s.empty() ? "" : " ") + a;
    return (s.empty() ? "generation defaults" : s) + " (config " + config_hash + ")";
}

BlockMatrix block_matrix(const Stats& s) {
    std::vector<std::size_t> used;
    for (std::size_t c = 0; c < s.clients.size(); ++c)
        if (s.clients[c].requests) used.push_back(c);
    BlockMatrix m;
    const std::size_t n = s.clients.size();
    for (std::size_t v : used) m.clients.push_back(s.clients[v].name);
    for (std::size_t v : used)
        for (std::size_t w : used) m.cycles.push_back(s.blocked_by[v * n + w]);
    return m;
}

namespace {

// Geometry shared by the panels.
// The least value a stall panel's darkest colour stands for: one stalled beat-cycle per cycle.
constexpr double kStallScaleFloor = 1;
// The matrix's darkest colour: at least run cycles / this (a tenth of the run).
constexpr Cycle kMatrixScaleRunShare = 10;
constexpr double kLeft = 96, kTop = 58, kPlotW = 800, kRowH = 9, kCauseRowH = 13, kPanelGap = 62,
                 kLegendX = kLeft + kPlotW + 24;

using RowValue = double (*)(const WindowRow&, std::size_t);

struct Panel {
    Panel(const char* c, const char* t, double top, std::vector<std::string> names, RowValue v)
        : css(c), title(t), y(top), rows(std::move(names)), value(v) {}

    const char* css;       // cell class
    const char* title;
    double y = 0;          // top of the panel's cells
    // The rows: a bank each (the SBUF | PSUM rule after `rule_at` rows, 0 = none), or a cause each.
    std::vector<std::string> rows;
    RowValue value;
    double max = 1;        // value mapped to the darkest colour
    bool red = false;
    bool log = false;      // colour on svg::log_scale (three decades below max), else linear
    std::size_t rule_at = 0;
    double row_h = kRowH;
    const char* row_attr = "data-bank";  // the cell attribute naming its row's index
    bool tooltips = false;               // a <title> per cell (few rows only: it costs bytes)
    std::vector<bool> grey;              // rows drawn grey: stalls by design, not lost time

    double height() const { return row_h * static_cast<double>(rows.size()); }
    double shade(double v) const { return log ? svg::log_scale(v, max) : v / max; }
    std::string colour(double v, std::size_t row) const {
        if (row < grey.size() && grey[row]) return svg::ramp_grey(shade(v));
        return red ? svg::ramp_red(shade(v)) : svg::ramp_blue(shade(v));
    }
    // The largest value over the series, and at least kStallScaleFloor (the panels fitted are the
    // stall panels): a run whose worst bin loses a beat every 40 cycles is drawn pale, not as dark
    // as one that loses a beat every cycle.
    void fit(const WindowSeries& w) {
        max = kStallScaleFloor;
        for (const auto& r : w.rows)
            for (std::size_t i = 0; i < rows.size(); ++i) max = std::max(max, value(r, i));
    }
};

double per_cycle(std::uint64_t n, const WindowRow& r) {
    return r.cycles ? static_cast<double>(n) / static_cast<double>(r.cycles) : 0;
}
double util_of(const WindowRow& r, std::size_t b) { return per_cycle(r.busy[b], r); }
double stall_of(const WindowRow& r, std::size_t b) { return per_cycle(r.stalls[b], r); }
double cause_of(const WindowRow& r, std::size_t k) { return per_cycle(r.stalled[k], r); }

void row_labels(svg::Writer& s, const Panel& p) {
    const double font = p.row_h > kRowH ? 9 : 7.5;
    for (std::size_t i = 0; i < p.rows.size(); ++i)
        s.text(kLeft - 4, p.y + p.row_h * static_cast<double>(i) + (p.row_h + font) / 2 - 1.5, p.rows[i],
               font, "end");
    if (p.rule_at && p.rule_at < p.rows.size()) {
        const double y = p.y + p.row_h * static_cast<double>(p.rule_at);
        s.line(kLeft - 2, y, kLeft + kPlotW, y, "#444", 1);  // SBUF | PSUM boundary
    }
}

// Round ticks along the time axis (about five), in cycles.
void time_axis(svg::Writer& s, double y, Cycle total) {
    s.line(kLeft, y, kLeft + kPlotW, y, "#000", 1);
    const double end = static_cast<double>(std::max<Cycle>(total, 1));
    for (double v : svg::round_ticks(0, end, 5)) {
        if (v > end) break;
        const double x = kLeft + kPlotW * v / end;
        s.line(x, y, x, y + 4, "#000", 1);
        s.text(x, y + 14, svg::compact(v), 9, "middle");
    }
    s.text(kLeft + kPlotW / 2, y + 27, "kernel cycle (PE clock)", 10, "middle");
}

// A vertical colour bar from 0 (bottom) to `p.max` (top); a log panel labels each decade.
void legend(svg::Writer& s, const Panel& p, double height, const char* unit) {
    const int steps = 20;
    const double h = height / steps;
    for (int i = 0; i < steps; ++i) {
        const double t = (i + 0.5) / steps;
        svg::Style st;
        st.fill = p.red ? svg::ramp_red(t) : svg::ramp_blue(t);
        s.rect(kLegendX, p.y + height - (i + 1) * h, 14, h + 0.2, st);
    }
    svg::Style frame;
    frame.stroke = "#000";
    frame.stroke_width = 0.5;
    s.rect(kLegendX, p.y, 14, height, frame);
    auto label = [&](double v) {
        const double y = p.y + height - height * p.shade(v);
        s.line(kLegendX + 14, y, kLegendX + 17, y, "#000", 0.6);
        s.text(kLegendX + 19, y + 3, v > 0 ? svg::num(v, 2) : "0", 9);
    };
    label(0);
    label(p.max);
    if (p.log) {
        label(p.max / 10);
        label(p.max / 100);
    }
    s.text(kLegendX + 7, p.y - 6, unit, 9, "middle");
    if (p.log) s.text(kLegendX + 7, p.y + height + 12, "log", 9, "middle");
}

// Each bin where its cycles lie on the time axis of `total` cycles (the last bin may be short).
void cells(svg::Writer& s, const WindowSeries& w, const Panel& p, Cycle total) {
    const double per_cycle = kPlotW / static_cast<double>(std::max<Cycle>(total, 1));
    for (std::size_t row = 0; row < p.rows.size(); ++row) {
        for (std::size_t i = 0; i < w.rows.size(); ++i) {
            const WindowRow& r = w.rows[i];
            const double v = p.value(r, row);
            svg::Style st;
            st.fill = p.colour(v, row);
            st.css_class = p.css;
            st.attrs = std::string(p.row_attr) + "=\"" + std::to_string(row) + "\" data-bin=\"" +
                       std::to_string(i) + "\"";
            if (p.tooltips)
                st.title = p.rows[row] + ": " + svg::num(v, 3) + " per cycle in cycles " +
                           std::to_string(r.start) + "-" + std::to_string(r.start + r.cycles);
            // Overlap by a hair so anti-aliasing leaves no white seams between cells.
            s.rect(kLeft + per_cycle * static_cast<double>(r.start), p.y + p.row_h * static_cast<double>(row),
                   per_cycle * static_cast<double>(r.cycles) + 0.05, p.row_h + 0.05, st);
        }
    }
}

void panel(svg::Writer& s, const WindowSeries& w, const Panel& p, Cycle total, const char* unit) {
    const double h = p.height();
    s.text(kLeft, p.y - 8, p.title, 12, "start", 0, "bold");
    s.open_group(p.css);
    cells(s, w, p, total);
    s.close_group();
    row_labels(s, p);
    svg::Style frame;
    frame.stroke = "#000";
    frame.stroke_width = 0.5;
    s.rect(kLeft, p.y, kPlotW, h, frame);
    time_axis(s, p.y + h, total);
    legend(s, p, h, unit);
}

// The clients the matrix shows: as rows the victims, as columns the blockers, at most
// `row_limit` and `col_limit`, those with stall cycles only (a queue nobody blocked has no row; one that blocked
// nobody no column), in the run's client order. The largest pair comes first, so the largest
// cell is always on the picture; the rest of each axis goes by the clients' totals (act_wr
// blocking sixteen DMA queues 58 cycles each outweighs a pair of 200). What is left out is
// summed up in a note under the matrix.
struct MatrixView {
    std::vector<std::size_t> rows, cols;
    std::uint64_t hidden_cycles = 0;   // cells of a row or column not drawn
    std::uint64_t hidden_largest = 0;  // the largest of those cells
    std::string hidden_rows, hidden_cols;  // comma-separated names
    std::size_t hidden_row_count = 0, hidden_col_count = 0;
};

// The `limit` clients of one axis with the largest totals, `first` among them, in client order.
std::vector<std::size_t> top_of_axis(const std::vector<std::uint64_t>& total, std::size_t first,
                                     std::size_t limit) {
    std::vector<std::size_t> by_total;
    for (std::size_t c = 0; c < total.size(); ++c)
        if (total[c] && c != first) by_total.push_back(c);
    std::stable_sort(by_total.begin(), by_total.end(),
                     [&](std::size_t a, std::size_t b) { return total[a] > total[b]; });
    std::vector<std::size_t> shown{first};
    for (std::size_t c : by_total)
        if (shown.size() < limit) shown.push_back(c);
    std::sort(shown.begin(), shown.end());
    return shown;
}

MatrixView top_clients(const BlockMatrix& m, std::size_t row_limit, std::size_t col_limit) {
    const std::size_t n = m.clients.size();
    MatrixView view;
    std::vector<std::uint64_t> row_total(n, 0), col_total(n, 0);
    std::size_t largest = 0;
    for (std::size_t i = 0; i < n * n; ++i) {
        row_total[i / n] += m.cycles[i];
        col_total[i % n] += m.cycles[i];
        if (m.cycles[i] > m.cycles[largest]) largest = i;
    }
    if (n == 0 || m.cycles[largest] == 0) return view;
    view.rows = top_of_axis(row_total, largest / n, row_limit);
    view.cols = top_of_axis(col_total, largest % n, col_limit);
    const auto shown = [](const std::vector<std::size_t>& axis, std::size_t c) {
        return std::binary_search(axis.begin(), axis.end(), c);
    };
    for (std::size_t c = 0; c < n; ++c) {
        if (row_total[c] && !shown(view.rows, c))
            view.hidden_rows += (view.hidden_rows.empty() ? "" : ", ") + m.clients[c],
                ++view.hidden_row_count;
        if (col_total[c] && !shown(view.cols, c))
            view.hidden_cols += (view.hidden_cols.empty() ? "" : ", ") + m.clients[c],
                ++view.hidden_col_count;
    }
    for (std::size_t i = 0; i < n * n; ++i)
        if (m.cycles[i] && (!shown(view.rows, i / n) || !shown(view.cols, i % n))) {
            view.hidden_cycles += m.cycles[i];
            view.hidden_largest = std::max(view.hidden_largest, m.cycles[i]);
        }
    return view;
}

// Victim rows drawn as one: neighbours in the view whose whole rows (every blocker, drawn or
// not) hold the same counts, so a label can say "each". Sixteen DMA queues that an engine's
// reads block alike are one row, not sixteen.
struct RowGroup {
    std::size_t first = 0, count = 1;  // positions in MatrixView::rows
    std::string label;
};

bool same_row(const BlockMatrix& m, std::size_t a, std::size_t b) {
    const std::size_t n = m.clients.size();
    return std::equal(m.cycles.begin() + static_cast<std::ptrdiff_t>(a * n),
                      m.cycles.begin() + static_cast<std::ptrdiff_t>((a + 1) * n),
                      m.cycles.begin() + static_cast<std::ptrdiff_t>(b * n));
}

// "dma_4..7" for dma_4 .. dma_7 (one family, numbers in a run: named as the report's tables name
// merged rows, merge_numbered_rows), else "dma_4 +3"; " (each)" follows.
std::string group_label(const std::vector<std::string>& names) {
    if (names.size() == 1) return names.front();
    std::vector<TableRow> rows;
    rows.reserve(names.size());
    for (const std::string& name : names) rows.push_back(TableRow{name, "", 1});
    const std::vector<TableRow> merged = merge_numbered_rows(rows);
    const std::string head =
        merged.size() == 1 ? merged.front().name : names.front() + " +" + std::to_string(names.size() - 1);
    return head + " (each)";
}

std::vector<RowGroup> row_groups(const BlockMatrix& m, const MatrixView& view) {
    std::vector<RowGroup> groups;
    std::vector<std::string> names;
    for (std::size_t i = 0; i < view.rows.size(); ++i) {
        if (!groups.empty() && same_row(m, view.rows[groups.back().first], view.rows[i])) {
            ++groups.back().count;
            names.push_back(m.clients[view.rows[i]]);
            continue;
        }
        if (!groups.empty()) groups.back().label = group_label(names);
        groups.push_back(RowGroup{i, 1, {}});
        names = {m.clients[view.rows[i]]};
    }
    if (!groups.empty()) groups.back().label = group_label(names);
    return groups;
}

// Blocker columns: as many as fit the picture's width with their rotated names (the 16 DMA
// queues and the PE quadrants of a GEMM among them). Victim rows only lengthen the picture.
constexpr std::size_t kMatrixClients = 22, kMatrixRows = 40;
constexpr double kMatrixLabelW = 92, kMatrixHeadH = 80;

// The side of a matrix cell: room for its longest count at 10 px (about 6.5 px a character)
// and a margin, from 22 px (three digits) to 34 px (five characters, "55.4k"), so that a matrix
// of small counts does not take half the picture.
double cell_side(const BlockMatrix& m, const MatrixView& view) {
    std::size_t chars = 1;
    const std::size_t n = m.clients.size();
    for (std::size_t v : view.rows)
        for (std::size_t b : view.cols)
            if (m.cycles[v * n + b]) chars = std::max(chars, svg::compact(static_cast<double>(m.cycles[v * n + b])).size());
    return std::clamp(6.5 * static_cast<double>(chars) + 8, 22.0, 34.0);
}

// Who blocked whom: square cells, row = victim, column = blocker, red on a log scale (one
// dominant pair would otherwise leave every other cell white), counts in k/M. The darkest colour
// stands for at least a tenth of the run's cycles (`run_cycles`), so that a few hundred stall
// cycles in a long run are drawn pale, as small as they are.
double matrix(svg::Writer& s, const BlockMatrix& m, Cycle run_cycles, double y) {
    s.text(kLeft, y - 8, "who blocked whom: stall cycles of the row client caused by the column client", 12,
           "start", 0, "bold");
    if (m.clients.empty()) {
        s.text(kLeft, y + 14, "(no client issued requests)", 10);
        return y + 30;
    }
    const std::size_t n = m.clients.size();
    const MatrixView view = top_clients(m, kMatrixRows, kMatrixClients);
    if (view.rows.empty()) {
        s.text(kLeft, y + 14, "(no client lost a beat to another client)", 10);
        return y + 30;
    }
    const double x0 = kLeft + kMatrixLabelW, y0 = y + kMatrixHeadH;
    std::uint64_t largest = 0;
    for (auto v : m.cycles) largest = std::max(largest, v);
    const std::uint64_t max = std::max<std::uint64_t>({largest, run_cycles / kMatrixScaleRunShare, 1});
    const std::vector<RowGroup> groups = row_groups(m, view);
    const double cell = cell_side(m, view);
    for (std::size_t i = 0; i < groups.size(); ++i)
        s.text(x0 - 6, y0 + cell * static_cast<double>(i) + cell / 2 + 4, groups[i].label, 11, "end");
    for (std::size_t i = 0; i < view.cols.size(); ++i)
        s.text(x0 + cell * static_cast<double>(i) + cell / 2 + 4, y0 - 6, m.clients[view.cols[i]], 11,
               "start", -55);
    for (std::size_t r = 0; r < groups.size(); ++r) {
        for (std::size_t c = 0; c < view.cols.size(); ++c) {
            const std::size_t v = view.rows[groups[r].first], b = view.cols[c];
            const std::uint64_t val = m.cycles[v * n + b];
            const double t = svg::log_scale(static_cast<double>(val), static_cast<double>(max));
            svg::Style st;
            st.fill = svg::ramp_red(t);
            st.stroke = "#bbb";
            st.stroke_width = 0.5;
            st.css_class = "blocked";
            st.title = (groups[r].count == 1 ? m.clients[v] : groups[r].label) + " blocked by " + m.clients[b] +
                       ": " + std::to_string(val) + " cycles";
            const double x = x0 + cell * static_cast<double>(c), yy = y0 + cell * static_cast<double>(r);
            s.rect(x, yy, cell, cell, st);
            // White on the dark half of the ramp, black on the light half.
            if (val) s.text(x + cell / 2, yy + cell / 2 + 3.5, svg::compact(static_cast<double>(val)), 10, "middle", 0,
                            t > 0.6 ? "bold" : "normal", t > 0.6 ? "#ffffff" : "#000000");
        }
    }
    s.text(x0 - 6, y0 - 6, "victim \\ blocker", 9, "end");
    double below = y0 + cell * static_cast<double>(groups.size()) + 16;
    const std::string darkest = max == largest
                                    ? svg::compact(static_cast<double>(max)) + " cycles (the largest cell)"
                                    : svg::compact(static_cast<double>(max)) +
                                          " cycles (a tenth of the run; the largest cell is " +
                                          svg::compact(static_cast<double>(largest)) + ")";
    s.text(
        x0, below,
        "cell colour: log scale, darkest = " + darkest + "; 0 = empty cell; hover a cell for the exact count",
        10);
    below += 14;
    s.text(x0, below,
           std::string("rows: the clients that lost beats to another; columns: the clients that took them") +
               (groups.size() < view.rows.size() ? "; a row of several clients (each) is one they lost alike" : ""),
           10);
    if (view.hidden_cycles) {
        // The cut can fall between equal totals, so the note names what it left out and its
        // largest cell rather than calling it minor.
        constexpr std::size_t kNamesShown = 90;
        const auto names = [](const std::string& list) {
            return list.size() > kNamesShown ? list.substr(0, list.rfind(", ", kNamesShown)) + ", ..." : list;
        };
        std::string left;
        if (view.hidden_row_count)
            left +=
                std::to_string(view.hidden_row_count) + " victim row(s) (" + names(view.hidden_rows) + ")";
        if (view.hidden_col_count)
            left += (left.empty() ? "" : " and ") + std::to_string(view.hidden_col_count) +
                    " blocker column(s) (" + names(view.hidden_cols) + ")";
        below += 14;
        s.text(x0, below, "not shown for room: " + left, 10);
        below += 14;
        s.text(x0, below,
               "their cells hold " + svg::compact(static_cast<double>(view.hidden_cycles)) +
                   " stall cycles, the largest " + svg::compact(static_cast<double>(view.hidden_largest)) +
                   " (every pair: the blocked_by section of sbufsim run --json)",
               10);
    }
    return below + 10;
}

double matrix_height(const BlockMatrix& m) {
    const MatrixView view = top_clients(m, kMatrixRows, kMatrixClients);
    const std::size_t rows = row_groups(m, view).size();
    return rows ? kMatrixHeadH + cell_side(m, view) * static_cast<double>(rows) + 78 : 40;
}

}  // namespace

std::optional<HeatmapInfo::Path> heatmap_path(const std::vector<PathGroup>& path, Cycle total_cycles) {
    if (path.empty() || total_cycles == 0) return std::nullopt;
    HeatmapInfo::Path p{path.front().name, 0};
    for (const PathGroup& g : path) {
        if (g.name == "kernel" && g.total() * 100 >= total_cycles) return std::nullopt;
        p.bank_wait += g.cycles[static_cast<std::size_t>(PathCause::bank_wait)];
    }
    return p;
}

namespace {

// The line under the settings that tells what the stall panels cost the run: at most the bank
// waits of its critical path.
std::string path_line(const HeatmapInfo::Path& p, Cycle total) {
    const std::string head = "critical path: bound by " + p.bound_by + "; its instructions waited ";
    if (p.bank_wait == 0)
        return head + "no cycle for SBUF/PSUM access: the stalls below did not lengthen this run";
    return head + std::to_string(p.bank_wait) + " cycles for SBUF/PSUM access (" +
           svg::num(100.0 * static_cast<double>(p.bank_wait) / static_cast<double>(total), 3) +
           " % of the run): the stalls below lengthen this run by at most that";
}

}  // namespace

std::string render_heatmap(const WindowSeries& series, const BlockMatrix& m, const HeatmapInfo& info,
                           std::size_t max_bins) {
    // From cycle 0: a run whose first windows were idle (a fixed-width series keeps only the
    // windows with activity) is drawn where its activity happened.
    const WindowSeries w = rebin(series, max_bins, 0);
    const double path_line_h = info.path && info.total_cycles ? 14 : 0;
    Panel util("util", "bank utilisation (cycles granted / cycles per bin)", kTop + 20 + path_line_h, w.banks,
               util_of);
    util.rule_at = w.sbuf_banks;
    // PSUM banks lose beats only where two PSUM clients meet on one, which most runs never do:
    // their rows are left out then, and the title says so, rather than drawn as 32 empty rows.
    const bool psum_stalls = std::any_of(w.rows.begin(), w.rows.end(), [&](const WindowRow& r) {
        return std::any_of(r.stalls.begin() + static_cast<std::ptrdiff_t>(w.sbuf_banks), r.stalls.end(),
                           [](std::uint64_t n) { return n != 0; });
    });
    const bool psum_rows = w.banks.size() > w.sbuf_banks;
    const char* stall_title =
        psum_rows && !psum_stalls
            ? "stalls per SBUF bank (PSUM: none): beats that lost the bank, to another beat or to TDM "
              "(stalled beat-cycles / cycle)"
            : "stalls per bank: beats that lost the bank, to another beat or to TDM precedence "
              "(stalled beat-cycles / cycle)";
    std::vector<std::string> stall_rows = w.banks;
    if (!psum_stalls) stall_rows.resize(w.sbuf_banks);
    Panel stall("stall", stall_title, util.y + util.height() + kPanelGap, std::move(stall_rows), stall_of);
    stall.red = stall.log = true;
    stall.rule_at = w.sbuf_banks;
    stall.fit(w);
    // Every cause, the gates' too (dependency, back-pressure, strict TDM, throttle), which no
    // bank row shows: a run held back by a gate would otherwise look idle.
    std::vector<std::string> causes;
    for (std::size_t k = 0; k < kStallCauses; ++k) causes.emplace_back(to_string(static_cast<StallCause>(k)));
    Panel cause(
        "cause",
        "stalls by cause, all clients (stalled beat-cycles / cycle); grey: by design (turns, ordering), "
        "not lost to other traffic",
        stall.y + stall.height() + kPanelGap, causes, cause_of);
    // As the report splits them: a PE quadrant waiting its stage-1 turn and a request waiting for
    // an earlier one cost the engines nothing (report.md, "Engine breakdown").
    for (const std::string& c : causes)
        cause.grey.push_back(c == to_string(StallCause::stage1_loss) ||
                             c == to_string(StallCause::dependency));
    cause.red = cause.log = true;
    cause.row_h = kCauseRowH;
    cause.row_attr = "data-cause";
    cause.tooltips = true;
    cause.fit(w);

    const double matrix_y = cause.y + cause.height() + kPanelGap;
    const double height = matrix_y + matrix_height(m);
    svg::Writer s(kLegendX + 80, height);
    s.text(kLeft, 20, "SBUF/PSUM bank activity: " + info.trace, 15, "start", 0, "bold");
    std::string sub = "generation " + info.generation + ", " + std::to_string(info.total_cycles) + " cycles";
    if (info.pe_clock_ghz > 0) sub += " at " + svg::num(info.pe_clock_ghz, 3) + " GHz";
    sub += ", " + std::to_string(w.rows.size()) + " bins of " + std::to_string(w.width) + " cycles";
    if (w.banks.size() == w.sbuf_banks) sub += ", no PSUM region";
    s.text(kLeft, 36, sub, 10);
    if (!info.settings.empty()) s.text(kLeft, 50, "settings: " + info.settings, 10);
    if (path_line_h) s.text(kLeft, 64, path_line(*info.path, info.total_cycles), 10);
    // The run's cycles (activity may end before the last instruction does), at least the bins'.
    const Cycle total =
        std::max(info.total_cycles, w.rows.empty() ? 0 : w.rows.back().start + w.rows.back().cycles);
    panel(s, w, util, total, "util");
    panel(s, w, stall, total, "stalls");
    panel(s, w, cause, total, "stalls");
    if (!info.stalls_by_cause)
        s.text(kLeft + kPlotW / 2, cause.y + cause.height() / 2 + 4,
               "not in this file: its window rows have no stalled.<cause> values (re-run sbufsim run "
               "--window-stats N)",
               10, "middle");
    matrix(s, m, info.total_cycles, matrix_y);
    return s.str();
}

}  // namespace sbufsim
