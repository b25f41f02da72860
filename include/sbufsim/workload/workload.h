// Workload generators: realistic traces from GEMM, attention and convolution shapes, SCALE-Sim
// topology files, and synthetic stress traffic (docs/generators.md).
//
// Every generator writes records one by one into a RecordSink (normally a TraceWriter): nothing
// is held per record, so a trace of any length is written with flat memory. Generation is a pure
// function of the shape, the options, the generation's Params and (for `random`) the seed: the
// same inputs give the same bytes.
//
// GEMM tiling (C[M,N] = A[M,K] · B[K,N], docs/generators.md "Tiling"):
//   tile_k = pe.rows (128)      contraction = partitions of the stationary and moving tiles
//   tile_n = pe.cols (128)      stationary columns = PSUM partitions of the result
//   tile_m = psum.bank_size / 4 moving free size = fp32 results per PSUM bank (512; seed 000 §8:
//                               "PSUM tiles ceil at one bank"; PUBLIC_FACTS "Matmul")
//   matmuls    = ceil(M/tile_m) · ceil(N/tile_n) · ceil(K/tile_k)
//   LdWeights  = matmuls / block_m (one per (k-tile, n-tile) per m-block)
//   PSUM groups = ceil(M/tile_m) · ceil(N/tile_n) (one BEGIN..END K-loop per output tile)
//
// Plain C++: nothing here depends on SystemC.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sbufsim/address/address.h"
#include "sbufsim/address/isa_rules.h"
#include "sbufsim/config/params.h"
#include "sbufsim/trace/trace.h"

namespace sbufsim {

// ---- where records go ------------------------------------------------------------------------------

// Consumes one record at a time. The record's string views are only valid during the call.
class RecordSink {
public:
    virtual ~RecordSink() = default;
    virtual void write(const Record& rec) = 0;
};

// The usual sink: a TraceWriter (text or binary, streaming).
class TraceWriterSink final : public RecordSink {
public:
    explicit TraceWriterSink(TraceWriter& w) : writer_(w) {}
    void write(const Record& rec) override { writer_.write(rec); }

private:
    TraceWriter& writer_;
};

// A bad shape or option: the message names the option, the value and the rule it breaks.
class WorkloadError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// ---- GEMM ----------------------------------------------------------------------------------------------

struct GemmShape {
    std::uint64_t m = 0;   // output rows = moving free axis
    std::uint64_t n = 0;   // output columns = stationary columns = PSUM partitions
    std::uint64_t k = 0;   // contraction = SBUF partitions of both operands
    std::string name;      // layer name (reports only)
};

// What evacuates a finished PSUM bank. `copy`: one ACT PSUM → SBUF. `softmax`: a DVE row max
// (PSUM), an ACT exp (PSUM → SBUF, bias = -max) and a DVE row sum of the probabilities (SBUF).
enum class Epilogue : std::uint8_t { copy, softmax };

// Whether the stationary operand of one n-block stays in SBUF across the m-blocks.
enum class Residency : std::uint8_t { automatic, on, off };

// Every knob of the GEMM generator. Defaults give a double-buffered kernel that keeps the PE
// array busy on cayman for large shapes (docs/generators.md).
struct GemmOptions {
    Dtype dtype = Dtype::bf16;          // input dtype (bf16, fp8e4, fp32, ...)
    std::uint32_t tile_m = 0;           // moving free size; 0 = psum.bank_size / 4 (512)
    std::uint32_t block_n = 4;          // n-tiles sharing one moving k-slice (moving reuse)
    std::uint32_t block_m = 1;          // m-tiles sharing one LdWeights (stationary reuse)
    std::uint32_t bufs = 8;             // SBUF ring depth for k-slices (covers ~1 us DMA start-up + transfer)
    std::uint32_t out_bufs = 8;         // SBUF result slots between ACT and the store DMA
    Residency stationary = Residency::automatic;
    std::uint32_t dma_queues = 16;      // qSyncIO0.. ; queue q on DMA engine q mod dma.engines
    std::uint32_t psum_bufs = 0;        // PSUM banks in rotation (seed 000 §8); 0 = all from the first
    std::uint32_t psum_first_bank = 0;  // first bank of the rotation
    std::uint32_t row_quadrant = 0;     // SBUF quadrant of ≤32 (≤64: 0 or 2) partition k-tiles
    std::uint32_t psum_quadrant = 0;    // PSUM quadrant of ≤32 (≤64: 0 or 2) column n-tiles; not 3
    std::optional<std::uint32_t> sbuf_base;          // first byte of the layout (default 0)
    std::optional<std::uint32_t> stationary_offset;  // explicit region offsets (default: packed)
    std::optional<std::uint32_t> moving_offset;
    std::optional<std::uint32_t> out_offset;
    Epilogue epilogue = Epilogue::copy;
};

// The counts a generated GEMM must show (tests compare them with the tiling arithmetic).
struct GemmStats {
    std::uint32_t tile_m = 0, tile_n = 0, tile_k = 0;
    std::uint64_t m_tiles = 0, n_tiles = 0, k_tiles = 0;
    // The block the emitter wrote: --block-m / --block-n, each at most the most tiles a GEMM of
    // the emitter has along its axis (GemmEmitter).
    std::uint32_t block_m = 0, block_n = 0;
    // Per GEMM in emission order: whether its stationary stayed resident (attention's Q.K^T can
    // stream while its P.V keeps it).
    struct Residency {
        std::string name;  // GemmShape::name
        bool resident = false;
        // Why --stationary auto streamed a stationary that several m-blocks reuse, with the fix;
        // empty when it stayed resident, had nothing to reuse, or --stationary stream asked it.
        std::string streamed_because;
    };
    std::vector<Residency> residency;
    bool stationary_resident() const {  // in some GEMM
        return std::any_of(residency.begin(), residency.end(), [](const Residency& g) { return g.resident; });
    }
    std::uint64_t matmuls = 0;
    std::uint64_t ldweights = 0;
    std::uint64_t psum_groups = 0;        // BEGIN..END groups = output tiles
    std::uint64_t act = 0, dve = 0;
    std::uint64_t dma_loads = 0, dma_stores = 0;
    std::uint64_t stationary_bytes = 0, moving_bytes = 0, store_bytes = 0;   // payload bytes
    // Of the loads and stores, bytes the trace stores to HBM and loads back (attention's P between
    // its two GEMMs, counted once each way): what fusing the producer and consumer would save.
    std::uint64_t round_trip_bytes = 0;
    std::vector<std::uint64_t> queue_bytes;        // per DMA queue (index = q of qSyncIO<q>)
    std::vector<std::uint64_t> queue_descriptors;
    // Cost-model PE time: Σ over matmuls of max(N_moving, 64), ×4 for fp32 (PUBLIC_FACTS).
    std::uint64_t pe_cycles = 0;
    std::uint64_t records = 0;
    void add(const GemmStats& o);   // accumulate (several GEMMs in one trace)
};

// The SBUF layout all GEMMs of one emitter share (shape-independent, so that buffer reuse and
// semaphore counts continue seamlessly from one GEMM to the next in a network trace).
struct GemmLayout {
    std::uint32_t stationary_offset = 0, stationary_slot = 0, stationary_slots = 0;
    std::uint32_t moving_offset = 0, moving_slot = 0, moving_slots = 0;
    std::uint32_t out_offset = 0, out_slot = 0, out_slots = 0;
    std::uint32_t stats_offset = 0;   // softmax row statistics: 8 B per out slot
    std::uint32_t end = 0;            // first byte past the layout
};

// Writes one or more GEMMs (and attention layers) into one trace, keeping the semaphore counts,
// SBUF ring positions and PSUM rotation across them. Semaphores: 0..Q-1 = DMA queue q done,
// Q = PE k-step done, Q+1 = matmul group END, Q+2 = ACT evacuation done, Q+3 = DVE done.
class GemmEmitter {
public:
    // `bounds` holds the largest M, N and K of the GEMMs to come, each on its own: K sizes the
    // resident stationary ring; --block-m and --block-n are cut to the m- and n-tiles of M and N
    // (a block wider than every GEMM would only size SBUF slots no tile fills), before the PSUM
    // rotation and the SBUF layout are sized by them. Throws WorkloadError for options that do
    // not fit the generation.
    GemmEmitter(const Params& params, RecordSink& sink, const GemmOptions& options, const GemmShape& bounds);
    ~GemmEmitter();
    GemmEmitter(const GemmEmitter&) = delete;
    GemmEmitter& operator=(const GemmEmitter&) = delete;

    // Write one GEMM. `epilogue` overrides the options' one (attention mixes both).
    GemmStats gemm(const GemmShape& shape);
    GemmStats gemm(const GemmShape& shape, Epilogue epilogue);

    const GemmLayout& layout() const;
    const GemmStats& totals() const;

    struct State;

private:
    std::unique_ptr<State> s_;
};

// The largest M, N and K of `shapes`, each on its own (GemmEmitter's `bounds`).
GemmShape gemm_bounds(const std::vector<GemmShape>& shapes);

// One GEMM into `sink`. Convenience over GemmEmitter.
GemmStats generate_gemm(const Params& params, const GemmShape& shape, const GemmOptions& options,
                        RecordSink& sink);

// ---- attention --------------------------------------------------------------------------------------

struct AttentionShape {
    std::uint64_t seq = 0;     // sequence length (queries = keys)
    std::uint64_t heads = 0;
    std::uint64_t dhead = 0;   // head dimension
};

// Per head: S = Q·Kᵀ (GEMM m = seq keys, n = seq queries, k = dhead) evacuated by the softmax
// epilogue (DVE max, ACT exp, DVE sum), then Oᵀ = (P·V)ᵀ (GEMM m = seq queries, n = dhead,
// k = seq keys) evacuated by an ACT copy. See docs/generators.md.
GemmStats generate_attention(const Params& params, const AttentionShape& shape, const GemmOptions& options,
                             RecordSink& sink);
// The two GEMMs of one head, in order.
std::vector<GemmShape> attention_gemms(const AttentionShape& shape);

// ---- convolution ------------------------------------------------------------------------------------

struct ConvShape {
    std::uint64_t h = 0, w = 0;      // input feature map
    std::uint64_t c = 0;             // input channels
    std::uint64_t k = 0;             // filters (output channels)
    std::uint64_t r = 0, s = 0;      // filter height, width
    std::uint64_t stride = 1;
    std::uint64_t pad = 0;  // zero rows/columns on each side (0: valid, SCALE-Sim's convention)
    std::string name;
};

// The im2col GEMM of a convolution: Ho = (H + 2·pad - R) / stride + 1, Wo = (W + 2·pad - S) /
// stride + 1; M = Ho·Wo, N = K, K = R·S·C. pad = 0 is SCALE-Sim's valid convolution; a 3x3
// stride-1 layer keeps its input size with pad = 1.
GemmShape conv_as_gemm(const ConvShape& conv);
// Ho and Wo of that formula (throws as conv_as_gemm does).
std::pair<std::uint64_t, std::uint64_t> conv_output(const ConvShape& conv);
GemmStats generate_conv(const Params& params, const ConvShape& conv, const GemmOptions& options, RecordSink& sink);

// ---- SCALE-Sim topology ---------------------------------------------------------------------------

struct TopologyLayer {
    std::string name;
    GemmShape gemm;                   // the GEMM the layer runs
    std::optional<ConvShape> conv;    // set for convolution rows
};

// Reads a SCALE-Sim topology CSV: a header line, then GEMM rows `name,M,N,K,` or convolution
// rows `name,H,W,Fh,Fw,C,NumFilt,Stride,` (trailing comma optional, blanks ignored, `#` lines
// skipped). Throws WorkloadError naming file:line and the field.
std::vector<TopologyLayer> read_topology(const std::string& path);
std::vector<TopologyLayer> parse_topology(std::string_view text, const std::string& display_name);

// ---- synthetic stress ---------------------------------------------------------------------------------

enum class StressPattern : std::uint8_t { uniform, hotspot, strided };
std::optional<StressPattern> parse_stress_pattern(std::string_view name);
std::string_view to_string(StressPattern p);

struct RandomOptions {
    std::vector<std::string> clients{"pe_client_0", "act_rd", "act_wr", "dma_0"};
    std::vector<std::uint32_t> banks;        // SBUF ECC banks (0..15) to target; empty = all
    std::vector<std::uint32_t> psum_banks;   // PSUM ECC banks (0..31) for PSUM clients; empty = all
    double rate = 0.5;                  // probability that a client issues an access in a cycle
    StressPattern pattern = StressPattern::uniform;
    double hot_fraction = 0.8;          // hotspot: share of accesses to the first listed bank
    std::uint32_t stride = 1;           // strided: banks advanced per access
    std::uint32_t bytes = 64;           // bytes per partition per access
    std::uint64_t records = 1000;
    std::uint64_t seed = 1;
};

struct RandomStats {
    std::uint64_t records = 0;
    std::uint64_t last_cycle = 0;
    std::vector<std::uint64_t> per_client;   // parallel to RandomOptions::clients
    std::vector<std::uint64_t> per_bank;        // SBUF ECC banks
    std::vector<std::uint64_t> per_psum_bank;   // PSUM ECC banks
};

// Access records: every cycle, each client issues with probability `rate` to a bank the pattern
// picks, in a partition group and offset that decode to that bank (AddressMap). Deterministic for
// a seed (own splitmix64 generator: no std:: distribution whose output varies by library).
RandomStats generate_random(const Params& params, const RandomOptions& options, RecordSink& sink);

// splitmix64, exposed for tests.
class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next();
    double uniform();                            // [0, 1) with 53 bits
    std::uint64_t below(std::uint64_t bound);    // [0, bound), bound > 0 (Lemire, unbiased)

private:
    std::uint64_t state_;
};

}  // namespace sbufsim
