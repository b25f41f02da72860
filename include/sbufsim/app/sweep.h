// `sweep`: replay traces over many settings, one table row per (trace, point), on worker
// processes; resume from the table's journal, rank the rows. docs/sweeps.md.
//
// Why processes and not threads: SystemC allows one simulation per process, and points must stay
// safe when they run on the SystemC model. The parent never simulates: it forks one child per
// point, the child replays and writes its row (one CSV line) into a pipe, and exits. The parent
// only expands points, schedules children, collects rows and writes the tables.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sbufsim/app/app.h"
#include "sbufsim/config/config.h"
#include "sbufsim/sweep/sweep.h"

namespace sbufsim::app {

struct SweepRequest {
    std::vector<std::string> traces;
    LoadRequest base;                  // the configuration every point starts from
    std::vector<std::string> vary;     // KEY=V1,V2 | KEY=LO:HI[:STEP], first outermost
    bool zip = false;                  // the lists side by side, not their product
    std::vector<std::string> metrics;  // extra metric columns
    std::string rank_by;               // METRIC[,METRIC...]: the summary best first
    std::string shard;                 // I/N: only that block of rows
    std::string out, json;             // CSV table (resumed) and JSON rows; "-" = the output stream
    std::optional<unsigned> jobs;      // worker processes (default: every core)
    std::size_t top = 20;              // summary rows (0 = all)
    double timeout = 0;                // seconds a point may run (0: no limit)
    bool quiet = false, no_header = false, force = false, lenient = false;
    // Check the request and the base configuration, then stop (before reading a trace).
    bool options_only = false;
};

struct SweepResult {
    // kExitOk when every point of this sweep is ok, kExitFindings when one is not, or the error.
    int status = kExitOk;
    std::vector<std::string> columns;
    std::vector<sweep::Row> rows;  // this sweep's points (run now or resumed), in point order
};

// Checks, runs the points and writes the tables and the summary. Throws ConfigError for a bad
// request, OutputError for a refused output.
SweepResult run_sweep(const SweepRequest& request, Io io);

// The columns --rank-by and --metric can name, for a help text.
std::string sweep_metric_help();

}  // namespace sbufsim::app
