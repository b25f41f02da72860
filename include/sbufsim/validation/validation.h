// `sbufsim validate`: sbufsim's figures against the public Neuron documentation and the seeds.
//
// Each case replays small traces built here on one generation and compares one measured figure
// with the figure the public documentation states or implies (docs/validation.md lists every
// case with its document, section and arithmetic), or with a seed HIGH/OBSERVED fact. A case
// passes when the relative error is within its tolerance (5 % unless stated).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sbufsim/replay/replay.h"

namespace sbufsim {

// A trace under construction: its text and the lines of the records a case measures.
struct CaseTrace {
    std::string text = "sbufsim-trace 1\n";
    std::vector<std::uint64_t> marked;  // 1-based trace lines
    std::uint64_t lines = 1;
    void add(const std::string& record, bool mark = false);
};

// A kernel case's trace: one of the project's NKI kernels (the shipped examples/ folder), traced
// by the NKI front-end at the arguments given. validation has no Python: the caller traces it
// (run_case's KernelTracer; `sbufsim validate` runs the front-end as `sbufsim nki` does).
struct KernelTrace {
    std::string kernel;  // FILE::FUNCTION, FILE under the examples folder ("nki/matmul.py::matmul_tiled")
    std::vector<std::string> args;  // the tracer's options: --input NAME=DTYPE[SHAPE], --param NAME=VALUE
};
// The trace text of `k` traced for generation `gen`; throws std::runtime_error with the reason.
using KernelTracer = std::function<std::string(const KernelTrace& k, const std::string& gen)>;

// How the measured figure is held to the public one: within the tolerance, or a bound (the public
// figure is qualitative: "a small fraction", "approaches peak").
enum class Bound : std::uint8_t { near, at_most, at_least };

struct ValidationCase {
    std::string id;     // e.g. "D01"
    std::string group;  // "DMA", "compute", "PE", "stream", "arbiter", "seed"
    std::string gen;
    std::string what;     // one line: the setup
    std::string source;   // document and section
    double expected = 0;  // the public (or seed) figure
    std::string unit;
    double tolerance = 0.05;             // relative
    std::vector<CaseTrace> traces;       // replayed in order (none for seed cases)
    std::vector<std::string> overrides;  // --set key=value for every trace
    // The measured figure from the replays (parallel to `traces`) and the loaded parameters.
    std::function<double(const std::vector<ReplayResult>&, const std::vector<CaseTrace>&, const Params&)>
        measure;
    Bound bound = Bound::near;
    // A kernel case (group "kernel"): its traces are NKI kernels traced by the caller, replayed in
    // order after `traces` (docs/validation.md, "Kernels").
    std::vector<KernelTrace> kernels;
    // Why the case is known to be out of tolerance: out of it, its row says "gap" (named in the
    // summary, not a failure) and `gap` is the reason; "" for every case expected within it.
    std::string gap;
};

struct ValidationRow {
    const ValidationCase* c = nullptr;
    double measured = 0;
    double error = 0;  // relative: (measured - expected) / expected
    bool ok = false;
    std::string failure;   // a replay or configuration error, if any
    bool gap = false;      // out of tolerance, and the case says why (ValidationCase::gap)
    bool skipped = false;  // a kernel case without a tracer: not run (`failure` says why)
};

// Every case, in table order (the kernel cases last).
const std::vector<ValidationCase>& validation_cases();

// The kernel cases (kernel_cases.cpp): the public tutorials' whole-kernel latencies.
std::vector<ValidationCase> kernel_validation_cases();

// Runs one case with the configuration files under `config_dir` ("" = the default search); a
// kernel case's kernels through `tracer` (none: the row is skipped).
ValidationRow run_case(const ValidationCase& c, const std::string& config_dir = {},
                       const KernelTracer& tracer = {});

}  // namespace sbufsim
