// `sbufsim validate`'s kernel cases (validation.h, docs/validation.md "Kernels"): the public GEMM
// tutorials' whole-kernel latencies against the project's own NKI kernels of the same algorithms
// (examples/nki/matmul.py), traced by the NKI front-end and replayed.
//
// Each kernel runs on a fraction of the public M (or N) dimension: its outer loop's blocks are
// independent and alike, so the time scales with their number, and the public figure is scaled
// by the same fraction. A case then traces in under a second (the public shapes take 6-19 s
// each); at the public shapes the scaled and the whole figures differ by at most 0.7 %
// (docs/validation.md).
#include <cstdio>
#include <stdexcept>

#include "sbufsim/validation/validation.h"

namespace sbufsim {

namespace {

constexpr const char* kMatmul = "nki/matmul.py::";

// The trn1 matmul tutorial's table (NKI matrix multiplication tutorial, Neuron SDK 2.2x,
// general/nki/tutorials/matrix_multiplication.rst, "Testing Correctness and Benchmarking"):
// [4096,8192] @ [8192,8192] bf16 on trn1.
constexpr const char* kTrn1 =
    "NKI matrix multiplication tutorial (trn1), Testing Correctness and Benchmarking: [4096,8192] @ "
    "[8192,8192] bf16";
// The trn2 kernel-optimization guide's profiles (nki/guides/tutorials/kernel-optimization.rst,
// nki/img/how-to/v2-full.png ... v4-full.png: the timeline's end): fp32 4096x8192 @ 8192x8192.
constexpr const char* kTrn2 =
    "NKI kernel optimization guide (trn2), profiles v2-full ... v4-full: fp32 4096x8192 @ 8192x8192";

// The run's time in milliseconds (the kernel's total cycles at the PE clock).
double kernel_ms(const std::vector<ReplayResult>& r, const std::vector<CaseTrace>&, const Params&) {
    if (r.empty()) throw std::runtime_error("no kernel replayed");
    return static_cast<double>(r.back().total_cycles) / r.back().pe_clock_ghz / 1e6;
}

struct Gemm {
    const char* id;
    const char* gen;
    const char* function;
    const char* dtype;
    unsigned m, n;      // the traced M and N (K = 8192 as published)
    unsigned part;      // the traced share of the public kernel's work is 1 / part: (m x n) / (4096 x 8192)
    const char* param;  // --param, or nullptr
    const char* stage;  // the public stage's name
    const char* source;
    double public_ms;
    const char* gap;  // why it is known to be out of tolerance, or ""
};

ValidationCase gemm_case(const Gemm& g) {
    const std::string shape = std::string(g.dtype) + " lhsT [8192," + std::to_string(g.m) + "] @ rhs [8192," +
                              std::to_string(g.n) + "]";
    const std::string part = g.m != 4096 ? std::to_string(g.m) + " of the 4096 rows of M"
                                         : std::to_string(g.n) + " of the 8192 columns of N";
    KernelTrace k{std::string(kMatmul) + g.function,
                  {"--input", "lhsT=" + std::string(g.dtype) + "[8192," + std::to_string(g.m) + "]",
                   "--input", "rhs=" + std::string(g.dtype) + "[8192," + std::to_string(g.n) + "]"}};
    if (g.param) k.args.insert(k.args.end(), {"--param", g.param});
    ValidationCase c;
    c.id = g.id;
    c.group = "kernel";
    c.gen = g.gen;
    c.what = std::string(g.function) + (g.param ? std::string("(") + g.param + ")" : "") + ", " + shape +
             " (" + part + "): the " + g.stage + " stage's time";
    char figure[64];
    std::snprintf(figure, sizeof figure, " %.2f ms x 1/%u", g.public_ms, g.part);
    c.source = std::string(g.source) + ": " + g.stage + figure;
    c.expected = g.public_ms / g.part;
    c.unit = "ms";
    c.tolerance = 0.10;
    c.measure = kernel_ms;
    c.kernels = {k};
    c.gap = g.gap;
    return c;
}

}  // namespace

std::vector<ValidationCase> kernel_validation_cases() {
    const char* trn1_tiled_gap =
        "the tutorial's four stages move their HBM traffic at 103-106 GB/s whatever their row size; here "
        "each 256 B "
        "lhsT row pays sunda's per-share fixed cost and descriptor minimum (docs/validation.md, Kernels)";
    const Gemm gemms[] = {
        {"K01", "sunda", "matmul_tiled", "bf16", 256, 8192, 16, nullptr, "Original Tiled", kTrn1, 51.80,
         trn1_tiled_gap},
        {"K02", "sunda", "matmul_hoisted", "bf16", 256, 8192, 16, nullptr, "Optimization 1", kTrn1, 42.96,
         ""},
        {"K03", "sunda", "matmul_blocked", "bf16", 256, 8192, 16, "TILES_IN_BLOCK_M=2", "Optimization 2",
         kTrn1, 22.07, ""},
        {"K04", "sunda", "matmul_block_all", "bf16", 4096, 1024, 8, nullptr, "Optimization 3", kTrn1, 6.97,
         ""},
        {"K05", "cayman", "matmul_tiled", "fp32", 256, 8192, 16, nullptr, "tiled", kTrn2, 39.89, ""},
        {"K06", "cayman", "matmul_hoisted", "fp32", 512, 8192, 8, nullptr, "hoisted", kTrn2, 28.20, ""},
        {"K07", "cayman", "matmul_blocked", "fp32", 256, 8192, 16, "TILES_IN_BLOCK_M=2", "blocked", kTrn2,
         28.41, ""},
    };
    std::vector<ValidationCase> v;
    for (const Gemm& g : gemms) v.push_back(gemm_case(g));
    return v;
}

}  // namespace sbufsim
