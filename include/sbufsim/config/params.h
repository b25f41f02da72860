// Typed, validated parameters of one NeuronCore generation plus its CSR state.
//
// This is what the rest of the simulator reads: the config loader (config.h) turns the dotted
// keys of configs/<gen>.ini, user files and the command line into one of these, once, at setup.
// Nothing on a hot path looks a key up by name.
//
// Every keyed field is declared once, in its block's declaration file
// (include/sbufsim/config/keys/<block>.def), with its type, default, range, unit, help text, source
// and confidence; this header makes the fields of those lines and the key table
// (src/config/config_keys.cpp) the keys. The few keys that are not a block's plain field (the
// engine front-ends' shared struct, the arbiter's CSR pairs, the throttlers' buckets, the
// stagger timers) are declared here and in the key table.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace sbufsim {

// Which byte-offset or partition bit picks the half of an SBUF cluster (seed 000 §3.1, MED).
enum class HalfSelect : std::uint8_t { partition, offset };

// Order of service among DMA-class clients (DMA queues, Q7 masters) inside one cycle
// (seed 000 §9: "Q7-vs-SDMA arbitration order inside the DMA slot" is LOW).
enum class DmaOrder : std::uint8_t { round_robin, dma_first, q7_first };
// How a DMA engine chooses among its queues' ready transfers (a transfer, once started, is never
// pre-empted): round robin (NC-v2/v3) or strict priority of the transfers' QoS class (NC-v4).
enum class DmaQueuePolicy : std::uint8_t { round_robin, priority };
// How far the NC-v2 concurrency rules reach: whole instructions, or single bank beats.
enum class ExclusiveScope : std::uint8_t { instruction, beat };

// Arbitration policy of the stage-1 or stage-2 SBUF arbiter (arbiter.stage1.policy,
// arbiter.stage2.policy): an index into kArbiterPolicyNames, which lists the kernel's policy
// registry (include/sbufsim/kernel/arbiter_registry.h) in its order; the registry checks the two
// lists against each other when it compiles. 0 is the hardware's priority + DWRR (seed 000 §7.1).
enum class ArbiterPolicyId : std::uint8_t {};
inline constexpr std::array<std::string_view, 4> kArbiterPolicyNames = {
    "priority_dwrr", "round_robin", "oldest_first", "fixed_priority"};

// One arbitration client's CSR pair: 3-bit strict priority (higher wins), 4-bit DWRR weight.
struct ArbWeights {
    std::uint32_t prio = 0;
    std::uint32_t weight = 1;
};

// One rd or wr token bucket of tpb_sbuf_pool_act.json (seed 000 §7.2).
struct ThrottleCfg {
    bool enable = false;            // !disable_throttle (reset: disabled)
    std::uint32_t window_len = 16;  // cycles per window (8-bit field)
    std::uint32_t transfer_cnt = 16;  // beats allowed per window (8-bit field)
};

// A block's keyed fields come from its declaration file, include/sbufsim/config/keys/<block>.def
// (the key table reads the same lines); a block's other members are declared here.
#define SBUFSIM_KEY(type, field, init, ...) type field = init;
#define SBUFSIM_CHOICE(type, field, init, ...) type field = init;

struct SbufParams {
#include "sbufsim/config/keys/sbuf.def"
};

struct PsumParams {
#include "sbufsim/config/keys/psum.def"
};

struct IsaParams {
#include "sbufsim/config/keys/isa.def"
};

struct PeParams {
#include "sbufsim/config/keys/pe.def"
};

struct EngineParams {
    std::uint32_t channels = 128;
    std::uint32_t reorder_window = 8;
    double clock_ghz = 1.2;
    bool psum_access = true;   // instructions may name PSUM operands (keyed for POOL only: pool.psum_access)
};

struct DmaParams {
#include "sbufsim/config/keys/dma.def"
};

struct Q7Params {
#include "sbufsim/config/keys/q7.def"
};

// Kernel beat widths: how much of a request one arbitration slot moves.
struct WidthParams {
#include "sbufsim/config/keys/width.def"
};

// Number of stage-1 (PE-array sequencer) clients: the 4 column clusters + 1 fan-out.
inline constexpr std::uint32_t kStage1Clients = 5;

struct ArbiterParams {
    ArbiterPolicyId stage1_policy{}, stage2_policy{};  // priority_dwrr
    std::array<ArbWeights, kStage1Clients> stage1{};
    ArbWeights pool_rd{}, act_rd{}, pool_wr{}, act_wr{};
    ArbWeights pe_rd{1, 1};                    // the only non-zero reset priority
    ArbWeights dve_rd{}, dve_wr{};             // DVE's SBUF port (seeds silent)
    ArbWeights dma{}, q7{};                    // DMA-class clients' weights (order policy)
    // PSUM-side arbitration (seeds silent, INFERRED)
    ArbWeights psum_pe_wr{1, 1};
    ArbWeights psum_act{}, psum_pool{}, psum_dve{};
};

struct TdmParams {
#include "sbufsim/config/keys/tdm.def"
};

struct ThrottlerParams {
    ThrottleCfg pool_rd{}, pool_wr{}, act_rd{}, act_wr{}, dve_rd{}, dve_wr{};
};

struct ConcurrencyParams {
#include "sbufsim/config/keys/concurrency.def"
};

struct Axi2SramParams {
#include "sbufsim/config/keys/axi2sram.def"
};

struct ArrSeqParams {
#include "sbufsim/config/keys/arr_seq.def"
    std::array<std::uint32_t, 4> rg_stagger{};  // array_stagger_rg{0..3}_ctrl1
};

// Engine timing and modelling constants of the engine front-ends (keys timing.*). Defaults come
// from PUBLIC_FACTS.md ("public") or are modelling choices where the sources are silent
// ("INFERRED"). Engine cycles are in the engine's own clock (pe, act, pool, dve clocks).
struct EngineTiming {
#include "sbufsim/config/keys/timing.def"
};

#undef SBUFSIM_KEY
#undef SBUFSIM_CHOICE

struct Params {
    std::string generation = "cayman";
    std::string neuroncore = "v3";
    std::uint32_t lnc = 2;  // physical NeuronCores of a logical NeuronCore: an SPMD launch's cores
    SbufParams sbuf;
    PsumParams psum;
    IsaParams isa;
    PeParams pe;
    EngineParams pool{128, 8, 1.2, false};  // GpSimd instructions never name PSUM (pool.psum_access)
    EngineParams act{128, 8, 1.2};
    EngineParams dve{128, 8, 0.96};
    DmaParams dma;
    Q7Params q7;
    WidthParams width;
    ArbiterParams arbiter;
    TdmParams tdm;
    ThrottlerParams throttler;
    ConcurrencyParams concurrency;
    Axi2SramParams axi2sram;
    ArrSeqParams arr_seq;
    EngineTiming timing;

    bool has_psum() const { return psum.region_size != 0; }
};

}  // namespace sbufsim
