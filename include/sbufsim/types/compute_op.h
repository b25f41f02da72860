// The nki.isa instruction an ACT/POOL/DVE trace record executes (`isa=` field,
// docs/trace-format.md). The compute engines' cost model is per instruction (docs/engines.md,
// "Per-instruction cost"); `generic` is a record without `isa=`, costed by the public rule of
// thumb (N cycles for one input, 2N for two on VectorE).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace sbufsim {

enum class ComputeOp : std::uint8_t {
    generic,
    activation,
    activation_reduce,
    tensor_scalar,
    tensor_copy,
    tensor_tensor,
    tensor_tensor_scan,
    tensor_reduce,
    tensor_scalar_reduce,
    scalar_tensor_tensor,
    tensor_copy_predicated,
    tensor_copy_dynamic,
    range_select,
    memset,
    iota,
    affine_select,
    select_reduce,
    transpose,
    bn_stats,
    bn_aggr,
    dropout,
    reciprocal,
    max8,
    exponential,
    quantize_mx,
};

inline constexpr std::array<std::string_view, 25> kComputeOpNames{
    "generic",       "activation",         "activation_reduce",    "tensor_scalar",
    "tensor_copy",   "tensor_tensor",      "tensor_tensor_scan",   "tensor_reduce",
    "tensor_scalar_reduce", "scalar_tensor_tensor", "tensor_copy_predicated", "tensor_copy_dynamic",
    "range_select",  "memset",             "iota",                 "affine_select",
    "select_reduce", "transpose",          "bn_stats",             "bn_aggr",
    "dropout",       "reciprocal",         "max8",                 "exponential",
    "quantize_mx",
};

inline constexpr std::string_view to_string(ComputeOp o) { return kComputeOpNames[static_cast<std::size_t>(o)]; }

inline std::optional<ComputeOp> parse_compute_op(std::string_view s) {
    for (std::size_t i = 0; i < kComputeOpNames.size(); ++i)
        if (kComputeOpNames[i] == s) return static_cast<ComputeOp>(i);
    return std::nullopt;
}

}  // namespace sbufsim
