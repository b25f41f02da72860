// Convolution as an im2col GEMM (include/sbufsim/workload/workload.h, docs/generators.md "Convolution").
//
// Each output pixel is one row of the im2col matrix (R·S·C values), each filter one column of
// the weights: C[Ho·Wo, K] = im2col[Ho·Wo, R·S·C] · W[R·S·C, K]. The moving tensor is the im2col
// matrix (contraction R·S·C on partitions, output pixels along the free axis), gathered by the
// DMA from the feature map in HBM; its DMA bytes are those of the im2col matrix, not of the
// (smaller) feature map, as for a kernel that does the gather in the descriptors.
#include "sbufsim/workload/workload.h"

namespace sbufsim {

std::pair<std::uint64_t, std::uint64_t> conv_output(const ConvShape& c) {
    if (c.h == 0 || c.w == 0 || c.c == 0 || c.k == 0 || c.r == 0 || c.s == 0 || c.stride == 0)
        throw WorkloadError("convolution " + c.name + ": H, W, C, K, R, S and the stride must be at least 1");
    const std::uint64_t h = c.h + 2 * c.pad, w = c.w + 2 * c.pad;  // the padded input
    if (c.r > h || c.s > w)
        throw WorkloadError(
            "convolution " + c.name + ": a " + std::to_string(c.r) + "x" + std::to_string(c.s) +
            " filter does not fit a " + std::to_string(c.h) + "x" + std::to_string(c.w) + " input" +
            (c.pad ? " padded by " + std::to_string(c.pad) : std::string(" (valid: no --pad)")));
    // SCALE-Sim: ofmap = (ifmap - filter) // stride + 1, over the padded input.
    return {(h - c.r) / c.stride + 1, (w - c.s) / c.stride + 1};
}

GemmShape conv_as_gemm(const ConvShape& c) {
    const auto [ho, wo] = conv_output(c);
    return GemmShape{ho * wo, c.k, c.r * c.s * c.c, c.name};
}

GemmStats generate_conv(const Params& params, const ConvShape& conv, const GemmOptions& options, RecordSink& sink) {
    return generate_gemm(params, conv_as_gemm(conv), options, sink);
}

}  // namespace sbufsim
