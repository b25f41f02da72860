// The shipped inputs tests replay against: a generation's configuration as loaded from
// configs/<gen>.ini (load_config) and the traces in traces/. Tests take a generation's values from
// its file, never from a copy of their own: tests/data/generation_values.txt pins what the files
// hold (test_config.cpp), and each HIGH/OBSERVED constant has its own test asserting its number.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sbufsim/config/config.h"

namespace sbufsim::test {

// `overrides` as `--set key=value` pairs on top of the generation file.
inline Params shipped_params(const std::string& generation,
                             const std::vector<std::pair<std::string, std::string>>& overrides = {}) {
    LoadRequest r;
    r.generation = generation;
    for (const auto& [k, v] : overrides) r.overrides.push_back(Setting{k, v, Origin{}, ""});
    return load_config(r).params;
}

inline Params cayman() { return shipped_params("cayman"); }

// The shipped generations, oldest first.
inline const std::vector<std::string>& all_generations() {
    static const std::vector<std::string> gens{"inferentia", "sunda", "cayman", "mariana", "maverick"};
    return gens;
}

// `p` with the TensorE ramp off (pe.ramp_start = 1): for a test that pins a matmul's exact cycles
// for a reason other than the ramp (the ramp has its own tests, ArrSeqThrottle and validate P16).
inline Params no_ramp(Params p) {
    p.pe.ramp_start = 1;
    return p;
}

// cayman read with one 8-byte ECC word per beat and each request in one burst: the reading under
// which the shipped conflict traces (act_vs_matmul_collide.trc) do conflict, for tests of the
// conflict accounting (docs/engines.md, SBUF ports).
inline Params cayman_word_beats() {
    Params p = cayman();
    p.width.engine_bytes = 8;
    p.width.psum_bytes = 8;
    p.width.stream_chunks = 1;
    return p;
}

// A shipped trace (traces/<name>).
inline std::string shipped(const std::string& name) { return std::string(SBUFSIM_DEFAULT_TRACE_DIR) + "/" + name; }

}  // namespace sbufsim::test
