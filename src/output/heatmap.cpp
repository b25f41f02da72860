#include "sbufsim/output/heatmap.h"

#include <algorithm>

#include "sbufsim/output/svg.h"

namespace sbufsim {

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
constexpr double kLeft = 70, kTop = 58, kPlotW = 800, kRowH = 9, kPanelGap = 62, kLegendX = kLeft + kPlotW + 24;

struct Panel {
    const char* css;       // cell class
    const char* title;
    double y = 0;          // top of the panel's cells
    double max = 1;        // value mapped to the darkest colour
    bool red = false;
};

double util_of(const WindowRow& r, std::size_t b) {
    return r.cycles ? static_cast<double>(r.busy[b]) / static_cast<double>(r.cycles) : 0;
}
double stall_of(const WindowRow& r, std::size_t b) {
    return r.cycles ? static_cast<double>(r.stalls[b]) / static_cast<double>(r.cycles) : 0;
}

void row_labels(svg::Writer& s, const WindowSeries& w, double y0) {
    for (std::size_t b = 0; b < w.banks.size(); ++b)
        s.text(kLeft - 4, y0 + kRowH * static_cast<double>(b) + kRowH - 1.5, w.banks[b], 7.5, "end");
    if (w.sbuf_banks && w.sbuf_banks < w.banks.size()) {
        const double y = y0 + kRowH * w.sbuf_banks;
        s.line(kLeft - 2, y, kLeft + kPlotW, y, "#444", 1);  // SBUF | PSUM boundary
    }
}

// Five ticks along the time axis, in cycles.
void time_axis(svg::Writer& s, double y, Cycle total) {
    s.line(kLeft, y, kLeft + kPlotW, y, "#000", 1);
    for (int i = 0; i <= 4; ++i) {
        const double x = kLeft + kPlotW * i / 4.0;
        s.line(x, y, x, y + 4, "#000", 1);
        s.text(x, y + 14, svg::num(static_cast<double>(total) * i / 4.0, 6), 9, "middle");
    }
    s.text(kLeft + kPlotW / 2, y + 27, "kernel cycle (PE clock)", 10, "middle");
}

// A vertical colour bar from 0 (bottom) to `p.max` (top).
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
    s.text(kLegendX + 18, p.y + 8, svg::num(p.max, 3), 9);
    s.text(kLegendX + 18, p.y + height, "0", 9);
    s.text(kLegendX + 7, p.y - 6, unit, 9, "middle");
}

void cells(svg::Writer& s, const WindowSeries& w, const Panel& p, double (*value)(const WindowRow&, std::size_t)) {
    const double cw = kPlotW / static_cast<double>(std::max<std::size_t>(1, w.rows.size()));
    for (std::size_t b = 0; b < w.banks.size(); ++b) {
        for (std::size_t i = 0; i < w.rows.size(); ++i) {
            svg::Style st;
            const double v = value(w.rows[i], b) / p.max;
            st.fill = p.red ? svg::ramp_red(v) : svg::ramp_blue(v);
            st.css_class = p.css;
            st.attrs = "data-bank=\"" + std::to_string(b) + "\" data-bin=\"" + std::to_string(i) + "\"";
            // Overlap by a hair so anti-aliasing leaves no white seams between cells.
            s.rect(kLeft + cw * static_cast<double>(i), p.y + kRowH * static_cast<double>(b), cw + 0.05, kRowH + 0.05, st);
        }
    }
}

void panel(svg::Writer& s, const WindowSeries& w, const Panel& p, double (*value)(const WindowRow&, std::size_t),
           Cycle total, const char* unit) {
    const double h = kRowH * static_cast<double>(w.banks.size());
    s.text(kLeft, p.y - 8, p.title, 12, "start", 0, "bold");
    s.open_group(p.css);
    cells(s, w, p, value);
    s.close_group();
    row_labels(s, w, p.y);
    svg::Style frame;
    frame.stroke = "#000";
    frame.stroke_width = 0.5;
    s.rect(kLeft, p.y, kPlotW, h, frame);
    time_axis(s, p.y + h, total);
    legend(s, p, h, unit);
}

// Who blocked whom: square cells, row = victim, column = blocker, red ramp on log-free counts.
double matrix(svg::Writer& s, const BlockMatrix& m, double y) {
    const std::size_t n = m.clients.size();
    s.text(kLeft, y - 8, "who blocked whom: stall cycles of the row client caused by the column client", 12,
           "start", 0, "bold");
    if (n == 0) {
        s.text(kLeft, y + 14, "(no client issued requests)", 10);
        return y + 30;
    }
    const double cell = 22, x0 = kLeft + 80, y0 = y + 70;
    std::uint64_t max = 0;
    for (auto v : m.cycles) max = std::max(max, v);
    for (std::size_t c = 0; c < n; ++c) {
        s.text(x0 - 4, y0 + cell * static_cast<double>(c) + cell / 2 + 3, m.clients[c], 9, "end");
        s.text(x0 + cell * static_cast<double>(c) + cell / 2 + 3, y0 - 4, m.clients[c], 9, "start", -60);
    }
    for (std::size_t v = 0; v < n; ++v) {
        for (std::size_t b = 0; b < n; ++b) {
            const std::uint64_t val = m.cycles[v * n + b];
            svg::Style st;
            st.fill = svg::ramp_red(max ? static_cast<double>(val) / static_cast<double>(max) : 0);
            st.stroke = "#bbb";
            st.stroke_width = 0.5;
            st.css_class = "blocked";
            st.title = m.clients[v] + " blocked by " + m.clients[b] + ": " + std::to_string(val) + " cycles";
            const double x = x0 + cell * static_cast<double>(b), yy = y0 + cell * static_cast<double>(v);
            s.rect(x, yy, cell, cell, st);
            if (val) s.text(x + cell / 2, yy + cell / 2 + 3, svg::num(static_cast<double>(val), 3), 7, "middle");
        }
    }
    s.text(x0 - 4, y0 - 4, "victim \\ blocker", 8, "end");
    return y0 + cell * static_cast<double>(n) + 20;
}

}  // namespace

std::string render_heatmap(const WindowSeries& series, const BlockMatrix& m, const HeatmapInfo& info,
                           std::size_t max_bins) {
    const WindowSeries w = rebin(series, max_bins);
    const double h = kRowH * static_cast<double>(w.banks.size());
    Panel util{"util", "bank utilisation (cycles granted / cycles per bin)", kTop + 20, 1.0, false};
    Panel stall{"stall", "conflict stalls per bank (stalled beat-cycles / cycle)", util.y + h + kPanelGap, 0, true};
    for (const auto& r : w.rows)
        for (std::size_t b = 0; b < w.banks.size(); ++b) stall.max = std::max(stall.max, stall_of(r, b));
    if (stall.max <= 0) stall.max = 1;

    const std::size_t n = m.clients.size();
    const double matrix_y = stall.y + h + kPanelGap;
    const double height = matrix_y + 110 + 22.0 * static_cast<double>(n) + 20;
    svg::Writer s(kLegendX + 80, height);
    s.text(kLeft, 20, "SBUF/PSUM bank activity: " + info.trace, 15, "start", 0, "bold");
    std::string sub = "generation " + info.generation + ", " + std::to_string(info.total_cycles) + " cycles";
    if (info.pe_clock_ghz > 0) sub += " at " + svg::num(info.pe_clock_ghz, 3) + " GHz";
    sub += ", " + std::to_string(w.rows.size()) + " bins of " + std::to_string(w.width) + " cycles";
    if (w.banks.size() == w.sbuf_banks) sub += ", no PSUM region";
    s.text(kLeft, 36, sub, 10);
    if (!info.settings.empty()) s.text(kLeft, 50, "settings: " + info.settings, 10);
    const Cycle total = w.rows.empty() ? 0 : w.rows.back().start + w.rows.back().cycles;
    panel(s, w, util, util_of, total, "util");
    panel(s, w, stall, stall_of, total, "stalls");
    matrix(s, m, matrix_y);
    return s.str();
}

}  // namespace sbufsim
