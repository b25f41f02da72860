// An SPMD launch whose instances ran on several NeuronCores (docs/nki.md, SPMD grids): the cores'
// traces the tracer listed, each core's HBM share, and the launch's lines of the report. The
// command line replays each core (src/cli/cmd_nki.cpp) and prints with these.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "sbufsim/app/nki.h"
#include "sbufsim/config/params.h"

namespace sbufsim::app {

// One core of a launch: its trace, the instances it ran and its replay's figures.
struct CoreRun {
    std::string trace;
    long instances = 0;
    std::string summary, bound_by;
    double cycles = 0, time_ns = 0, records = 0;
    KernelTotals totals;
};

// The cores' traces the tracer listed beside the kernel's (`TRACE.cores`: one line per core,
// "INSTANCES PATH"); empty when the launch ran on one core.
std::vector<CoreRun> core_traces(const std::string& traced);

// HBM bandwidth of each of `streaming` cores of a launch (dma.hbm_shared_gbps split among them,
// each at most dma.hbm_gbps).
double hbm_share(const Params& p, std::size_t streaming);

// The run options without the files a run writes (--json, --csv, --stats, --timeline, --heatmap,
// --vcd, as `--key value` or `--key=value`): every core is replayed into scratch files.
std::vector<std::string> without_outputs(const std::vector<std::string>& args);

// `core`'s figures from its replay's summary text and JSON.
void read_core_replay(CoreRun& core, const std::string& summary, const std::string& run_json);

// Where -o keeps core `index`'s trace of a launch: core 0's at OUTPUT itself, the others' beside
// it with the core before the extension (k.trc: k.core1.trc; k.sbt: k.core1.sbt).
std::string core_output_path(const std::string& output, std::size_t index);

// The latest core's summary naming the kernel and the core, and where -o keeps the cores' traces
// (`output`; empty: not kept).
std::string launch_summary(const CoreRun& latest, std::size_t index, const std::string& kernel,
                           const std::string& output);

// The launch's lines: its time (the latest core's), each core's, and the kernel's figures over
// the launch (every core's flops and HBM bytes, against the cores' PE arrays). With the latest
// core's summary (at most 26 lines) they keep a two-core launch within one screen of 30.
void print_launch(std::ostream& os, const std::vector<CoreRun>& cores, std::size_t latest, double share);

}  // namespace sbufsim::app
