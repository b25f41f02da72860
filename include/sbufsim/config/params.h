// Typed, validated parameters of one NeuronCore generation plus its CSR state.
//
// This is what the rest of the simulator reads: the config loader (config.h) turns the dotted
// keys of configs/<gen>.ini, user files and the command line into one of these, once, at setup.
// Nothing on a hot path looks a key up by name.
//
// Every field is bound to exactly one key in the key table (src/config/config_keys.cpp), which carries
// its type, default, range, unit, help text, seed section and confidence tag. The field comments
// here only say what the field means to the model.
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

struct SbufParams {
    std::uint32_t partitions = 128;
    std::uint64_t partition_stride = 0x40000;  // STATE_BUF_PARTITION_SIZE (address stride)
    std::uint64_t partition_active = 0x38000;  // PARTITION_ACTIVE_SIZE (SRAM behind a partition)
    std::uint64_t region_offset = 0;           // STATE_BUF_OFFSET in the 29-bit space
    std::uint64_t region_size = 0x2000000;     // STATE_BUF_SZ
    std::uint32_t word_size = 8;               // STATE_BUF_WORD_SIZE
    std::uint32_t ecc_banks = 16;
    std::uint32_t clusters = 8;
    HalfSelect half_select = HalfSelect::partition;
    std::uint32_t half_offset_bit = 17;        // used when half_select == offset
    std::uint32_t mid_partition = 64;          // Statebuf midPartition (seed 004)
    std::uint64_t reserved_size = 0x4008;      // Statebuf reservedSize (seed 004)
    std::uint64_t soc_base = 0x2000000000;     // TPB_0_STATE_BUF (seed 002 §1)
};

struct PsumParams {
    std::uint32_t partitions = 128;
    std::uint32_t banks = 8;                   // HW banks per partition (matmul view)
    std::uint64_t bank_size = 2048;
    std::uint32_t isa_banks = 8;               // PSUM_BUF_NUM_BANKS of the ISA header
    std::uint64_t isa_bank_size = 2048;        // PSUM_BUF_BANK_SIZE of the ISA header
    std::uint64_t partition_stride = 0x8000;   // PSUM_BUF_PARTITION_SIZE
    std::uint64_t partition_active = 0x4000;
    std::uint64_t region_offset = 0x2000000;   // PSUM_BUF_OFFSET
    std::uint64_t region_size = 0x400000;      // PSUM_BUF_SZ (0 on maverick: no PSUM)
    std::uint32_t ecc_banks = 32;
    std::uint32_t ecc_clusters = 4;
    std::uint64_t soc_base = 0x2802000000;     // TPB_0_PSUM_BUF (seed 002 §3)
};

struct IsaParams {
    std::uint32_t addr_mask = 0x1fffffff;      // TPB_PARTITION_ADDR_MASK
    std::uint32_t addr_reg_marker = 0x80;      // ADDR4_MARKER_ADDR_REG
    std::uint32_t num_addr_registers = 64;     // NUM_ADDR_REGISTERS
    std::uint32_t matmul_zero_region_max = 0;  // highest MATMUL_ZERO_REGION value (0 = SIZE2048 only)
    std::uint32_t quadrant_partitions = 32;
    std::uint32_t num_semaphores = 256;
    std::uint32_t xpose_tile_rows = 16;
    std::uint32_t xpose_max_cols_2b = 128;
    std::uint32_t xpose_max_cols_4b = 64;
    std::uint32_t xpose_dst_align = 32;
};

struct PeParams {
    std::uint32_t rows = 128;
    std::uint32_t cols = 128;
    std::uint32_t row_groups = 4;
    std::uint32_t col_groups = 4;
    std::uint32_t max_weight_step = 2;
    std::uint32_t min_wave = 128;
    std::uint32_t reorder_window = 64;
    double clock_ghz = 2.4;
    std::uint32_t cost_freq = 120;             // cost-model getEngineFrequency (seed 004)
    bool double_row = true;                    // fp8 double-row matmuls at 2x (NC-v3+)
    std::uint32_t tile_min = 32;               // smallest PE row/column tile of tiling mode; 0 = no tiling
    bool background_transpose = false;         // a PE transpose may overlap another matmul (NC-v4)
    bool transpose_passthrough = true;         // a PE transpose may write PSUM in its data's dtype (NC-v3+)
    bool mx = false;                           // MXFP8/MXFP4 quad-packed matmuls (nc_matmul_mx, NC-v4+)
    double ramp_start = 0.5;                   // TensorE throttle: rate a burst starts at (1 = none)
    double ramp_ns = 3000;                     // from ramp_start to full rate
    double ramp_window_ns = 3000;              // the window whose utilisation re-engages the limit
    double ramp_reengage = 0.5;                // below this utilisation over the window
};

struct EngineParams {
    std::uint32_t channels = 128;
    std::uint32_t reorder_window = 8;
    double clock_ghz = 1.2;
    bool psum_access = true;   // instructions may name PSUM operands (keyed for POOL only: pool.psum_access)
};

struct DmaParams {
    std::uint32_t data_width = 32;             // DMA_ENGINE_DATA_WIDTH_BYTES
    std::uint32_t engines = 16;                // DMA_ENGINE_COUNT_PER_TPB
    std::uint32_t queues_per_engine = 16;
    double engine_gbps = 27.2;                 // theoretical peak of one engine
    std::uint32_t partition_round = 32;        // SDMA access window (partitions), not a byte count
    std::uint32_t lanes_per_engine = 8;        // SBUF partitions one engine serves
    double xfer_fixed_ns = 211;                // per transfer and engine (descriptor set-up)
    double pkt_min_ns = 78;                    // minimum time of one descriptor
    double hbm_gbps = 362.5;                   // HBM bandwidth of one NeuronCore (0 = unlimited)
    double hbm_shared_gbps = 725;              // HBM bandwidth the cores of a launch share (0 = no limit)
    std::uint32_t prefetch_depth = 4;          // transfers per queue counting down their start-up
    std::uint32_t outstanding = 2;             // shares in flight per engine (overheads overlap data)
    double hwdge_ns = 600;                     // one hardware-DGE DMA instruction on its DGE block
    std::uint32_t hwdge_units = 2;             // hardware DGE blocks per NeuronCore (0 = none)
    double swdge_ns = 600;                     // one software-DGE DMA instruction on POOL
    std::uint32_t static_trigger_cycles = 64;  // a static DMA trigger on its sequencer (engine cycles)
    DmaQueuePolicy queue_policy = DmaQueuePolicy::round_robin;
    std::uint32_t default_priority = 3;        // QoS class of a transfer without priority=
};

struct Q7Params {
    std::uint32_t cores = 8;
    std::uint32_t partitions_per_core = 16;
    std::uint32_t bus_bytes = 64;              // 512-bit AXI data bus
};

// Kernel beat widths: how much of a request one arbitration slot moves.
struct WidthParams {
    std::uint32_t engine_bytes = 32;           // bytes per partition per beat, PE/ACT/POOL/DVE
    std::uint32_t psum_bytes = 16;             // bytes per partition per beat on PSUM
    std::uint32_t dma_partitions = 1;          // partitions per DMA beat
    std::uint32_t q7_partitions = 1;           // partitions per Q7 AXI beat
    std::uint32_t stream_chunks = 8;           // bursts an instruction's operand is paced in
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
    std::uint32_t max_slots = 8;
    std::uint32_t dma_slots = 1;
    bool strict = false;
    DmaOrder dma_order = DmaOrder::round_robin;
};

struct ThrottlerParams {
    ThrottleCfg pool_rd{}, pool_wr{}, act_rd{}, act_wr{}, dve_rd{}, dve_wr{};
};

struct ConcurrencyParams {
    bool dve_gpsimd_sbuf_exclusive = false;    // NC-v2: VectorE and GpSimd not together on SBUF
    bool dve_act_psum_exclusive = false;       // NC-v2: VectorE and ScalarE not together on PSUM
    ExclusiveScope scope = ExclusiveScope::instruction;  // what the two rules above serialise
};

struct Axi2SramParams {
    bool transpose_en = true;
    bool raw_en = true;
    bool sns = false;                          // non-FP8 NaN saturate
    bool sis = false;                          // non-FP8 Inf saturate
    bool clk_redun_pipe_gate_en = false;
};

struct ArrSeqParams {
    std::uint32_t fifo_size_sel = 0;
    bool bypass_peregwrite_instr = false;
    bool disable_dependency_check = false;
    bool disable_bg_xpose = true;
    bool disable_tagweight_mode = true;
    bool enable_wl_last_active_col = false;
    bool flush_p2f_fifos = false;
    bool matmul_done_last = false;
    bool en_inter_instr_dly = false;
    std::uint32_t inter_instr_dly_cnt = 8;
    std::uint32_t p2fifo_af = 2;
    std::array<std::uint32_t, 4> rg_stagger{};  // array_stagger_rg{0..3}_ctrl1
    std::uint32_t max_groups = 8;              // accumulation groups in flight
};

// Engine timing and modelling constants of the engine front-ends (keys timing.*). Defaults come
// from PUBLIC_FACTS.md ("public") or are modelling choices where the sources are silent
// ("INFERRED"). Engine cycles are in the engine's own clock (pe, act, pool, dve clocks).
struct EngineTiming {
    // public: tensor-access set-up, ~60 engine cycles (ACT/POOL/DVE): an instruction's bank
    // requests issue this long after it starts; hidden from the initiation interval.
    double compute_fixed_overhead = 60;
    // public: MIN_II, the minimum initiation interval of an ACT/POOL/DVE instruction (~64).
    std::uint32_t compute_min_cycles = 64;
    // Dependent turnaround (engine cycles after the stream ends until a reader of the output may
    // start): public fit ACT 265 (NC-v3; 263 NC-v2), DVE "static instruction overhead of 100",
    // POOL INFERRED from GPSIMD_START.
    double act_dep_turnaround = 265;
    double dve_dep_turnaround = 100;
    double pool_dep_turnaround = 150;
    // public: GPSIMD_START (~150) start-up of a GpSimd instruction; MIN_II_DYNAMIC (~600).
    double gpsimd_start = 150;
    double min_ii_dynamic = 600;
    // public: NC-v3+ VectorE performance modes (2x/4x for bf16/fp16 SBUF operands) and the
    // NC-v4 ScalarE 2x mode for tensor_scalar/tensor_copy.
    bool dve_perf_modes = true;
    bool dve_bf16_fast = true;  // bf16 tensor_tensor (N) / tensor_reduce (N/2) without performance mode
    bool shared_ports_until_signal = true;  // NC-v2 exclusivity held until the writes and signal complete
    bool act_perf_mode = false;
    // public: a two-input op streams both inputs: max(64, 2N) (stated for DVE; INFERRED for
    // two-input ACT/POOL ops).
    std::uint32_t two_input_factor = 2;
    // public: an innermost stride over 16 bytes roughly halves an engine's access throughput.
    std::uint32_t stride_penalty_bytes = 16;
    std::uint32_t stride_penalty_factor = 2;
    // public: matmul initiation interval max(N_moving, 64) PE cycles for 2/1-byte inputs, 4x fp32.
    std::uint32_t matmul_min_ii = 64;
    std::uint32_t matmul_fp32_factor = 4;
    std::uint32_t transpose_fp32_factor = 2;
    // public (nki.isa nc_matmul is_stationary_onezero / is_moving_onezero: "could lead to 2x better
    // performance if stationary tile is in float32"): the fp32 factor of a matmul with a one-zero hint.
    std::uint32_t fp32_onezero_factor = 2;
    // public ("Fast LoadStationary ... up to 4x faster than a MultiplyMoving with the same free
    // axis size"): LoadStationary costs ceil(cols / ls_speedup) PE cycles (x4 fp32), at least
    // ldweights_min_cycles (INFERRED); it runs in the background of the previous matmul.
    std::uint32_t ls_speedup = 4;
    std::uint32_t ldweights_min_cycles = 1;
    // INFERRED: PE cycles from a matmul's first moving read to its first PSUM write (the partial
    // sums cross the array's rows before they drain through p2fifo).
    std::uint32_t pe_drain_latency = 128;
    // public (DMA bandwidth guide): ~1300 ns semaphore-to-start latency of a DMA transfer.
    double dma_startup_ns = 1300;
    // public: DMA transposes at a fraction of plain throughput (trn2: up to 90% HBM->SBUF,
    // 50% SBUF->SBUF).
    double dma_xpose_fraction_hbm = 0.9;
    double dma_xpose_fraction_sbuf = 0.5;
    // public (trn3 arch guide, SBUF Read-Add-Write): a DMA with dst_rmw_op=add moves data at this
    // fraction of a plain copy's rate: 1 on NeuronCore-v4 ("the same throughput as standard DMA
    // copy operations"), 0.5 before it ("50% DMA throughput via DMA collective compute engines").
    double dma_rmw_fraction = 0.5;
    // INFERRED: fixed per-instruction overhead of a Q7 AXI load/store, in GpSimd cycles (the
    // GpSimd clock is pool.clock_ghz); the data phase is bytes / q7.bus_bytes cycles.
    double q7_fixed_overhead = 60;
};

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
