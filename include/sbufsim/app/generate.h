// `gen`: write realistic traces from workload shapes (GEMM, attention, convolution, SCALE-Sim
// topology files) or synthetic stress traffic, with the library's generators
// (sbufsim/workload/workload.h). docs/generators.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sbufsim/app/app.h"
#include "sbufsim/config/config.h"
#include "sbufsim/workload/workload.h"

namespace sbufsim::app {

// The GEMM tiling's options given as text (dtype names, offsets in decimal or 0x-hex).
struct GemmTilingText {
    std::string dtype = "bf16", stationary = "auto";  // stationary: auto | resident | stream
    std::string sbuf_base, stationary_offset, moving_offset, out_offset;  // "": the default
};

struct GenerateRequest {
    std::string workload;  // gemm, attention, conv, random; "" = --topology
    LoadRequest config;
    std::string
        output;  // the trace ("" or "-" = the output stream); --topology: a folder, or the file with single
    std::string format;        // text | binary ("" = from the extension)
    std::string topology;      // SCALE-Sim CSV
    bool single = false;       // --topology: one trace for the whole network
    std::uint64_t layers = 0;  // --topology: only the first N (0 = all)
    bool force = false;
    GemmShape gemm;  // m, n, k
    AttentionShape attention;
    ConvShape conv;      // k is the filters; stride is random's too
    GemmOptions tiling;  // its dtype, stationary and offsets come from tiling_text
    GemmTilingText tiling_text;
    std::uint32_t block_m_given = 0, block_n_given = 0;  // what the user asked of them (0: the default)
    RandomOptions random;  // its clients, banks and pattern come from the texts below
    std::string clients, banks, psum_banks, pattern = "uniform";
};

// Writes the trace(s) and the summary (to `out`, or `err` when the trace went to `out`).
int generate(const GenerateRequest& request, Io io);

// The options (without the dashes) of each workload ("--topology" for a topology file), and what
// each workload cannot do without (its shape). An option of no listed workload is for all.
const std::map<std::string, std::vector<std::string>>& workload_options();
const std::map<std::string, std::vector<std::string>>& required_options();
// The GEMM tiling's options, for gemm, attention, conv and --topology.
const std::vector<std::string>& gemm_tiling_options();
// Whether `name` is an option of a workload: a shape or a tiling option (block-n, bufs, dtype,
// pad, ...), which a sweep of fixed traces cannot vary.
bool is_workload_option(const std::string& name);

}  // namespace sbufsim::app
