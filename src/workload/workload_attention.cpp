// The attention generator: per head, S = Q·Kᵀ with the softmax epilogue, then Oᵀ = (P·V)ᵀ with an
// ACT copy (include/sbufsim/workload/workload.h, docs/generators.md "Attention").
//
// Layouts (why this orientation): a PSUM result tile has the stationary columns on its partitions
// and the moving free axis along each partition. Softmax normalises over keys, so the scores put
// queries on partitions (stationary = Q, n = seq) and keys on the free axis (moving = Kᵀ, m = seq):
// the row max/sum are then per-partition reductions along the free axis, which is what ACT and
// DVE do (PUBLIC_FACTS "Engines and SBUF/PSUM access"). P·V contracts over keys (k = seq) and
// writes Oᵀ with dhead on partitions (n = dhead) and queries along the free axis (m = seq).
// The probabilities go back through HBM between the two GEMMs (the generator does not fuse them);
// the DMA of both GEMMs is therefore that of two independent GEMMs.
#include <algorithm>

#include "sbufsim/workload/workload.h"

namespace sbufsim {

std::vector<GemmShape> attention_gemms(const AttentionShape& a) {
    return {
        GemmShape{a.seq, a.seq, a.dhead, "qk"},
        GemmShape{a.seq, a.dhead, a.seq, "pv"},
    };
}

GemmStats generate_attention(const Params& params, const AttentionShape& shape, const GemmOptions& options,
                             RecordSink& sink) {
    if (shape.seq == 0 || shape.heads == 0 || shape.dhead == 0)
        throw WorkloadError("attention: --seq, --heads and --dhead must be at least 1");
    const auto gemms = attention_gemms(shape);
    GemmEmitter emitter(params, sink, options, gemm_bounds(gemms));
    std::uint64_t round_trip = 0;
    for (std::uint64_t h = 0; h < shape.heads; ++h) {
        // P leaves as S = Q·Kᵀ's stores and comes back as P·V's moving loads.
        round_trip += emitter.gemm(gemms[0], Epilogue::softmax).store_bytes;
        round_trip += emitter.gemm(gemms[1], Epilogue::copy).moving_bytes;
    }
    GemmStats st = emitter.totals();
    st.round_trip_bytes = round_trip;
    return st;
}

}  // namespace sbufsim
