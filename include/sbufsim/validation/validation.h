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
    std::vector<std::uint64_t> marked;   // 1-based trace lines
    std::uint64_t lines = 1;
    void add(const std::string& record, bool mark = false);
};

// How the measured figure is held to the public one: within the tolerance, or a bound (the public
// figure is qualitative: "a small fraction", "approaches peak").
enum class Bound : std::uint8_t { near, at_most, at_least };

struct ValidationCase {
    std::string id;          // e.g. "D01"
    std::string group;       // "DMA", "compute", "PE", "stream", "arbiter", "seed"
    std::string gen;
    std::string what;        // one line: the setup
    std::string source;      // document and section
    double expected = 0;     // the public (or seed) figure
    std::string unit;
    double tolerance = 0.05; // relative
    std::vector<CaseTrace> traces;              // replayed in order (none for seed cases)
    std::vector<std::string> overrides;         // --set key=value for every trace
    // The measured figure from the replays (parallel to `traces`) and the loaded parameters.
    std::function<double(const std::vector<ReplayResult>&, const std::vector<CaseTrace>&, const Params&)> measure;
    Bound bound = Bound::near;
};

struct ValidationRow {
    const ValidationCase* c = nullptr;
    double measured = 0;
    double error = 0;        // relative: (measured - expected) / expected
    bool ok = false;
    std::string failure;     // a replay or configuration error, if any
};

// Every case, in table order.
const std::vector<ValidationCase>& validation_cases();

// Runs one case with the configuration files under `config_dir` ("" = the default search).
ValidationRow run_case(const ValidationCase& c, const std::string& config_dir = {});

}  // namespace sbufsim
