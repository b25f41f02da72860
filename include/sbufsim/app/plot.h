// `plot`: draw the bank x time heatmap and the who-blocked-whom matrix from the JSON that
// `run --window-stats N --json FILE` wrote, or a chart of one metric over the varied keys of a
// sweep's table (sbufsim/sweep/sweep_chart.h), as SVG or PNG. docs/visualisation.md.
#pragma once

#include <cstddef>
#include <string>

#include "sbufsim/app/app.h"
#include "sbufsim/sweep/sweep_chart.h"

namespace sbufsim::app {

struct PlotRequest {
    std::string input;   // a run's --json, or a sweep's table (--out) or rows (--json)
    std::string output;  // FILE.svg, FILE.png, or "-" (SVG on the output stream)
    bool force = false;
    bool sweep_table = false;         // the input is a sweep's (is_sweep_table)
    std::size_t run = 0, bins = 200;  // the heatmap: which run of the file, at most how many bins
    chart::ChartRequest chart;        // the sweep chart; its kind from chart_kind
    std::string chart_kind = "auto", label;
};

// A sweep table: a .csv name, a first line that is the sweep header (a file named otherwise), or
// a JSON array (`sweep --json`; a run's statistics are an object).
bool is_sweep_table(const std::string& input);

// Draws the picture; kExitOk, or the status after saying why on err.
int plot(const PlotRequest& request, Io io);

}  // namespace sbufsim::app
