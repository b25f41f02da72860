// The key table: every configuration key, declared once, with type, default, range, unit, help
// text, source and confidence. `sbufsim config --help`, docs/config-reference.md and the loader
// all read this one table.
//
// Defaults are the values of the default generation (cayman) and the CSR reset values; each
// shipped configs/<gen>.ini states only the values and citations that differ from these
// (read_generation; tests/test_config.cpp checks that no line restates its declaration).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "sbufsim/config/config.h"

namespace sbufsim {
namespace {

struct Meta {
    std::string unit;
    std::string source;
    Confidence conf;
    std::string help;
};

std::string hex_or_dec(std::uint64_t v) {
    // Addresses and sizes read best in hex, small counts in decimal.
    if (v >= 4096) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
        return buf;
    }
    return std::to_string(v);
}

std::string render_double(double v) {
    std::ostringstream os;
    os.precision(10);
    os << v;
    return os.str();
}

// The fields every key shares; `set` and `get` are bound by the typed builders below.
KeySpec described(std::string name, KeyType type, const Meta& m, double min = 0, double max = 0) {
    KeySpec k;
    k.name = std::move(name);
    k.type = type;
    k.min = min;
    k.max = max;
    k.unit = m.unit;
    k.help = m.help;
    k.source = m.source;
    k.confidence = m.conf;
    return k;
}

// The Params field a key reads and writes. A std::function rather than a template parameter: each
// helper below is then compiled once per field type, not once per key (build_table declares some
// 200 keys, and a template instantiated per key made this file the slowest of the build). The
// accessors are written `+[](Params& p) -> auto& { ... }`: the unary plus turns a lambda without
// captures into a function pointer, which std::function holds without code of its own per key.
template <class T>
using Field = std::function<T&(Params&)>;

// Binds a key to the Params field `ref` selects. `parse` turns the loader's canonical text into
// the field's value (the loader has already checked type and range, so it cannot fail);
// `render` writes the field back in INI form. The default is read off a default Params.
template <class T>
KeySpec bound(KeySpec k, Field<T> ref, std::function<T(std::string_view)> parse,
              std::function<std::string(const T&)> render) {
    k.set = [ref, parse](Params& p, std::string_view v) { ref(p) = parse(v); };
    k.get = [ref, render](const Params& p) { return render(ref(const_cast<Params&>(p))); };
    k.default_text = k.get(Params{});
    return k;
}

template <class T>
KeySpec unsigned_key(std::string name, Field<T> ref, double min, double max, const Meta& m) {
    const KeyType type = sizeof(T) == 4 ? KeyType::u32 : KeyType::u64;
    return bound<T>(described(std::move(name), type, m, min, max), std::move(ref),
                    [](std::string_view v) { return static_cast<T>(std::stoull(std::string(v), nullptr, 0)); },
                    [](const T& v) { return hex_or_dec(v); });
}

KeySpec u32(std::string name, Field<std::uint32_t> ref, double min, double max, const Meta& m) {
    return unsigned_key<std::uint32_t>(std::move(name), std::move(ref), min, max, m);
}
KeySpec u64(std::string name, Field<std::uint64_t> ref, double min, double max, const Meta& m) {
    return unsigned_key<std::uint64_t>(std::move(name), std::move(ref), min, max, m);
}

KeySpec f64(std::string name, Field<double> ref, double min, double max, const Meta& m) {
    return bound<double>(described(std::move(name), KeyType::f64, m, min, max), std::move(ref),
                         [](std::string_view v) { return std::stod(std::string(v)); },
                         [](const double& v) { return render_double(v); });
}

KeySpec boolean(std::string name, Field<bool> ref, const Meta& m) {
    return bound<bool>(described(std::move(name), KeyType::boolean, m), std::move(ref),
                       [](std::string_view v) { return v == "true"; },
                       [](const bool& v) { return std::string(v ? "true" : "false"); });
}

template <class E>
KeySpec choice(std::string name, Field<E> ref, const std::vector<std::string>& names, const Meta& m) {
    KeySpec k = described(std::move(name), KeyType::choice, m);
    k.choices = names;
    return bound<E>(std::move(k), std::move(ref),
                    [names](std::string_view v) {
                        const auto it = std::find(names.begin(), names.end(), v);
                        return static_cast<E>(it - names.begin());
                    },
                    [names](const E& v) { return names.at(static_cast<std::size_t>(v)); });
}

KeySpec text(std::string name, Field<std::string> ref, const Meta& m) {
    return bound<std::string>(described(std::move(name), KeyType::text, m), std::move(ref),
                              [](std::string_view v) { return std::string(v); },
                              [](const std::string& v) { return v; });
}

constexpr auto HO = Confidence::high_observed;
constexpr auto HI = Confidence::high_inferred;
constexpr auto MI = Confidence::med_inferred;
constexpr auto LI = Confidence::low_inferred;
constexpr auto PUB = Confidence::public_doc;
constexpr auto MOD = Confidence::modelling;

// The 3-bit priority / 4-bit weight CSR pair of one arbitration client (seed 000 §7.1).
template <class Ref>
void arb_pair(std::vector<KeySpec>& t, const std::string& prefix, Ref ref, const char* source,
              Confidence conf, const std::string& who) {
    const std::string prio_help(who + ": strict priority (3-bit arb_prio field; higher wins)");
    const std::string weight_help(who + ": DWRR weight among equal priorities (4-bit arb_weight field)");
    t.push_back(u32(prefix + ".prio", [ref](Params& p) -> auto& { return ref(p).prio; }, 0, 7,
                    {"", source, conf, prio_help}));
    t.push_back(u32(prefix + ".weight", [ref](Params& p) -> auto& { return ref(p).weight; }, 1, 15,
                    {"", source, conf, weight_help}));
}

template <class Ref>
void throttle_keys(std::vector<KeySpec>& t, const std::string& prefix, Ref ref,
                   const std::string& who) {
    const std::string en(who + " token bucket on (reset: disable_throttle = 1, off)");
    const std::string win(who + " window_len: cycles per throttle window");
    const std::string cnt(who + " transfer_cnt: beats allowed per window");
    t.push_back(boolean(prefix + ".enable", [ref](Params& p) -> auto& { return ref(p).enable; },
                        {"", "seed 000 §7.2", HO, en}));
    t.push_back(u32(prefix + ".window_len", [ref](Params& p) -> auto& { return ref(p).window_len; },
                    1, 255, {"cycles", "seed 000 §7.2 (field; reset value not given)", MI, win}));
    t.push_back(u32(prefix + ".transfer_cnt",
                    [ref](Params& p) -> auto& { return ref(p).transfer_cnt; }, 0, 255,
                    {"beats", "seed 000 §7.2 (field; reset value not given)", MI, cnt}));
}

// Keys the configuration records (loaded, checked, echoed, part of a result's configuration)
// but no model reads: the sources name the field without saying what it changes in a memory-
// subsystem replay, or it belongs to the compiler's machine model rather than the hardware's
// timing. `sbufsim config` and the reference say so, and `sweep --vary` refuses them.
struct Recorded {
    const char* key;
    const char* why;
};
constexpr Recorded kRecorded[] = {
    {"gen.neuroncore", "a label naming the generation's NeuronCore version; the behaviour comes from the other keys"},
    {"sbuf.word_size", "the 8-byte ECC word is built into the beat widths (width.engine_bytes = 4 words) and the bank map; no rule reads the granule itself"},
    {"sbuf.mid_partition", "a compiler allocation figure (seed 004): traces arrive placed, sbufsim allocates nothing"},
    {"sbuf.reserved_size", "a compiler allocation figure (seed 004): traces arrive placed, sbufsim allocates nothing"},
    {"pe.col_groups", "the PSUM-side column-group split is psum.ecc_clusters (seed 000 §4.1) and the col_grp rules use isa.quadrant_partitions; only the check that it divides pe.cols reads it"},
    {"pe.max_weight_step", "a compiler cost-model figure (seed 004 PeDimensionsForDtype); matmul timing follows the public cost model (timing.matmul_*)"},
    {"pe.min_wave", "a compiler cost-model figure (seed 004 PeDimensionsForDtype); matmul timing follows the public cost model (timing.matmul_*)"},
    {"pe.reorder_window", "the compiler scheduler's reorder window (seed 004); the replay issues each queue in trace order"},
    {"pe.cost_freq", "the compiler cost model's throughput divisor (seed 004 getEngineFrequency, not a clock); the clocks are the *.clock_ghz keys"},
    {"pool.channels", "the compiler machine model's channel count (seed 004); engine costs follow the public per-instruction formulas (timing.*)"},
    {"pool.reorder_window", "the compiler scheduler's reorder window (seed 004); the replay issues each queue in trace order"},
    {"act.channels", "the compiler machine model's channel count (seed 004); engine costs follow the public per-instruction formulas (timing.*)"},
    {"act.reorder_window", "the compiler scheduler's reorder window (seed 004); the replay issues each queue in trace order"},
    {"dve.channels", "the compiler machine model's channel count (seed 004); engine costs follow the public per-instruction formulas (timing.*)"},
    {"dve.reorder_window", "the compiler scheduler's reorder window (seed 004); the replay issues each queue in trace order"},
    {"dma.queues_per_engine", "the replay gives every trace DMA queue its own queue on its engine (dma.lanes_per_engine spreads the partitions) and serves them round robin without a count limit"},
    {"dma.partition_round", "an SDMA access window, not a byte count (docs/engines.md): DMA time charges the bytes moved"},
    {"axi2sram.clk_redun_pipe_gate_en", "clock gating of a redundant pipe stage: no timing or data effect is documented; the SystemC CSR block only holds the value"},
    {"arr_seq.fifo_size_sel", "the seeds name the field (FIFO-full threshold select) without the thresholds it selects"},
    {"arr_seq.bypass_peregwrite_instr", "PeRegwrite instructions are not in the trace format"},
    {"arr_seq.disable_tagweight_mode", "the seeds name the field only"},
    {"arr_seq.enable_wl_last_active_col", "the seeds name the field only; LdWeights already costs by its active columns"},
    {"arr_seq.matmul_done_last", "a matmul completes when its PSUM writes are granted whatever this field; the seeds do not say what a first-response completion would overlap"},
};

void mark_recorded(std::vector<KeySpec>& t) {
    for (const Recorded& r : kRecorded) {
        auto it = std::find_if(t.begin(), t.end(), [&](const KeySpec& k) { return k.name == r.key; });
        if (it == t.end()) throw std::logic_error(std::string("recorded-key list names no key: ") + r.key);
        it->no_effect = r.why;
    }
}

std::vector<KeySpec> build_table() {
    std::vector<KeySpec> t;
    const double u32max = 4294967295.0;
    const double u64max = 1.8446744073709552e19;

    // --- gen -------------------------------------------------------------------------------
    t.push_back(text("gen.name", +[](Params& p) -> auto& { return p.generation; },
                     {"", "seeds/README.md", HO, "generation codename (inferentia, sunda, cayman, mariana, maverick)"}));
    t.push_back(text("gen.neuroncore", +[](Params& p) -> auto& { return p.neuroncore; },
                     {"", "seeds/README.md", HO, "NeuronCore version of the generation (v1..v5)"}));
    t.push_back(u32("gen.lnc", +[](Params& p) -> auto& { return p.lnc; }, 1, 8,
                    {"cores", "Logical NeuronCore configuration (LNC=2 the default on Trainium2; trn1 LNC=1)", PUB,
                     "physical NeuronCores of one logical NeuronCore: the cores `sbufsim nki` runs an SPMD "
                     "launch's instances on (--cores overrides)"}));

    // --- sbuf ------------------------------------------------------------------------------
    t.push_back(u32("sbuf.partitions", +[](Params& p) -> auto& { return p.sbuf.partitions; }, 1, 128,
                    {"partitions", "seed 000 §1, seed 004", HO, "SBUF partitions (rows)"}));
    t.push_back(u64("sbuf.partition_stride", +[](Params& p) -> auto& { return p.sbuf.partition_stride; },
                    1, u32max, {"B", "seed 000 §1", HO, "STATE_BUF_PARTITION_SIZE: address stride between partitions"}));
    t.push_back(u64("sbuf.partition_active", +[](Params& p) -> auto& { return p.sbuf.partition_active; },
                    1, u32max, {"B", "seed 000 §1, seed 004", HO, "PARTITION_ACTIVE_SIZE: SRAM behind each partition; the rest of the stride is decode pad"}));
    t.push_back(u64("sbuf.region_offset", +[](Params& p) -> auto& { return p.sbuf.region_offset; },
                    0, u32max, {"B", "seed 000 §2", HO, "STATE_BUF_OFFSET in the 29-bit partition-offset space"}));
    t.push_back(u64("sbuf.region_size", +[](Params& p) -> auto& { return p.sbuf.region_size; },
                    1, u32max, {"B", "seed 000 §1", HO, "STATE_BUF_SZ: the SBUF address region"}));
    t.push_back(u32("sbuf.word_size", +[](Params& p) -> auto& { return p.sbuf.word_size; }, 1, 64,
                    {"B", "seed 000 §1.1", HO, "STATE_BUF_WORD_SIZE: native access granule"}));
    t.push_back(u32("sbuf.ecc_banks", +[](Params& p) -> auto& { return p.sbuf.ecc_banks; }, 2, 16,
                    {"banks", "seed 000 §3", HO, "SBUF ECC banks (SBUF_CLUSTER_{0..7}_{0,1}_ERG_CSR)"}));
    t.push_back(u32("sbuf.clusters", +[](Params& p) -> auto& { return p.sbuf.clusters; }, 1, 8,
                    {"clusters", "seed 000 §3", HO, "SBUF clusters; each has 2 halves"}));
    t.push_back(choice<HalfSelect>("sbuf.half_select", +[](Params& p) -> auto& { return p.sbuf.half_select; },
                                   {"partition", "offset"},
                                   {"", "seed 000 §3.1", MI, "which bit picks a cluster's half: a partition bit (8 partitions x full stride per bank) or a byte-offset bit"}));
    t.push_back(u32("sbuf.half_offset_bit", +[](Params& p) -> auto& { return p.sbuf.half_offset_bit; }, 3, 28,
                    {"bit", "seed 000 §3.1", MI, "byte-offset bit that picks the half when half_select = offset (17 = 128 KiB)"}));
    t.push_back(u32("sbuf.mid_partition", +[](Params& p) -> auto& { return p.sbuf.mid_partition; }, 0, 128,
                    {"partition", "seed 004 (Statebuf midPartition)", HO, "compiler's mid partition"}));
    t.push_back(u64("sbuf.reserved_size", +[](Params& p) -> auto& { return p.sbuf.reserved_size; }, 0, u32max,
                    {"B", "seed 004 (Statebuf reservedSize)", HO, "per-partition bytes the compiler reserves"}));
    t.push_back(u64("sbuf.soc_base", +[](Params& p) -> auto& { return p.sbuf.soc_base; }, 0, u64max,
                    {"address", "seed 002 §1", HO, "SoC address of TPB_0_STATE_BUF"}));

    // --- psum ------------------------------------------------------------------------------
    t.push_back(u32("psum.partitions", +[](Params& p) -> auto& { return p.psum.partitions; }, 0, 128,
                    {"partitions", "seed 000 §4, seed 004", HO, "PSUM partitions"}));
    t.push_back(u32("psum.banks", +[](Params& p) -> auto& { return p.psum.banks; }, 0, 16,
                    {"banks", "seed 000 §4, seed 004", HO, "hardware accumulation banks per partition (matmul view)"}));
    t.push_back(u64("psum.bank_size", +[](Params& p) -> auto& { return p.psum.bank_size; }, 0, 65536,
                    {"B", "seed 000 §4, seed 004", HO, "bytes per hardware bank per partition (512 fp32)"}));
    t.push_back(u32("psum.isa_banks", +[](Params& p) -> auto& { return p.psum.isa_banks; }, 0, 32,
                    {"banks", "seed 000 §4.2", HO, "PSUM_BUF_NUM_BANKS of the ISA header (16 on sunda)"}));
    t.push_back(u64("psum.isa_bank_size", +[](Params& p) -> auto& { return p.psum.isa_bank_size; }, 0, 65536,
                    {"B", "seed 000 §4.2", HO, "PSUM_BUF_BANK_SIZE of the ISA header (1024 on sunda)"}));
    t.push_back(u64("psum.partition_stride", +[](Params& p) -> auto& { return p.psum.partition_stride; }, 0, u32max,
                    {"B", "seed 000 §4", HO, "PSUM_BUF_PARTITION_SIZE: address stride between PSUM partitions"}));
    t.push_back(u64("psum.partition_active", +[](Params& p) -> auto& { return p.psum.partition_active; }, 0, u32max,
                    {"B", "seed 000 §4", HO, "accumulator bytes behind each PSUM partition"}));
    t.push_back(u64("psum.region_offset", +[](Params& p) -> auto& { return p.psum.region_offset; }, 0, u32max,
                    {"B", "seed 000 §2", HO, "PSUM_BUF_OFFSET in the 29-bit partition-offset space"}));
    t.push_back(u64("psum.region_size", +[](Params& p) -> auto& { return p.psum.region_size; }, 0, u32max,
                    {"B", "seed 000 §1-§2", HO, "PSUM_BUF_SZ (0 = this generation has no PSUM)"}));
    t.push_back(u32("psum.ecc_banks", +[](Params& p) -> auto& { return p.psum.ecc_banks; }, 0, 32,
                    {"banks", "seed 000 §4", HO, "PSUM ECC banks (PSUM_CLUSTER{0..3}_ERG_CSR_{0..7})"}));
    t.push_back(u32("psum.ecc_clusters", +[](Params& p) -> auto& { return p.psum.ecc_clusters; }, 0, 4,
                    {"clusters", "seed 000 §4.1", HI, "PSUM clusters = PE column groups"}));
    t.push_back(u64("psum.soc_base", +[](Params& p) -> auto& { return p.psum.soc_base; }, 0, u64max,
                    {"address", "seed 002 §3", HO, "SoC address of TPB_0_PSUM_BUF"}));

    // --- isa -------------------------------------------------------------------------------
    t.push_back(u32("isa.addr_mask", +[](Params& p) -> auto& { return p.isa.addr_mask; }, 1, u32max,
                    {"mask", "seed 000 §2", HO, "TPB_PARTITION_ADDR_MASK: a TPB on-chip address is 29 bits"}));
    t.push_back(u32("isa.addr_reg_marker", +[](Params& p) -> auto& { return p.isa.addr_reg_marker; }, 0, 255,
                    {"", "seed 000 §2.2", HO, "ADDR4_MARKER_ADDR_REG: register-marker addresses bypass placement checks"}));
    t.push_back(u32("isa.num_addr_registers", +[](Params& p) -> auto& { return p.isa.num_addr_registers; }, 1, 256,
                    {"registers", "seed 000 §2.2", HO, "NUM_ADDR_REGISTERS"}));
    t.push_back(u32("isa.matmul_zero_region_max", +[](Params& p) -> auto& { return p.isa.matmul_zero_region_max; }, 0, 3,
                    {"", "seed 000 §5.3", HO, "highest MATMUL_ZERO_REGION value: 0 = SIZE2048 only (sunda, cayman), 3 = up to SIZE16384"}));
    t.push_back(u32("isa.quadrant_partitions", +[](Params& p) -> auto& { return p.isa.quadrant_partitions; }, 1, 128,
                    {"partitions", "seed 000 §2.1", HO, "partitions per quadrant"}));
    t.push_back(u32("isa.num_semaphores", +[](Params& p) -> auto& { return p.isa.num_semaphores; }, 1, 65536,
                    {"", "seed 004 (NumSemaphores)", HO, "semaphores per core"}));
    t.push_back(u32("isa.xpose_tile_rows", +[](Params& p) -> auto& { return p.isa.xpose_tile_rows; }, 1, 128,
                    {"rows", "seed 000 §6.2", HO, "axi2sram transpose tile: source rows"}));
    t.push_back(u32("isa.xpose_max_cols_2b", +[](Params& p) -> auto& { return p.isa.xpose_max_cols_2b; }, 1, 256,
                    {"cols", "seed 000 §6.2", HO, "transpose tile columns limit for 2-byte dtypes"}));
    t.push_back(u32("isa.xpose_max_cols_4b", +[](Params& p) -> auto& { return p.isa.xpose_max_cols_4b; }, 1, 256,
                    {"cols", "seed 000 §6.2", HO, "transpose tile columns limit for 4-byte dtypes"}));
    t.push_back(u32("isa.xpose_dst_align", +[](Params& p) -> auto& { return p.isa.xpose_dst_align; }, 1, 4096,
                    {"B", "seed 000 §6.2", HO, "transpose destination alignment"}));

    // --- pe --------------------------------------------------------------------------------
    t.push_back(u32("pe.rows", +[](Params& p) -> auto& { return p.pe.rows; }, 1, 512,
                    {"rows", "seed 000 §1, seed 004", HO, "PE array rows (contraction)"}));
    t.push_back(u32("pe.cols", +[](Params& p) -> auto& { return p.pe.cols; }, 1, 512,
                    {"cols", "seed 000 §1, seed 004", HO, "PE array columns"}));
    t.push_back(
        u32("pe.row_groups", +[](Params& p) -> auto& { return p.pe.row_groups; }, 1, 4,
            {"groups", "seed 000 §1, §5.6", HO,
             "PE_ARRAY_NUM_ROW_GROUPS: a matmul's moving read is split into pe.rows / row_groups-partition "
             "slices, slice q on stage-1 client pe_client_q after row group q's stagger timer (at most 4: "
             "the sequencer has 4 stagger timers and 4 row-group read clients, pe_client_0..3; "
             "pe_client_4 is the fan-out client)"}));
    t.push_back(u32("pe.col_groups", +[](Params& p) -> auto& { return p.pe.col_groups; }, 1, 16,
                    {"groups", "seed 000 §1", HO, "PE_ARRAY_NUM_COL_GROUPS"}));
    t.push_back(u32("pe.max_weight_step", +[](Params& p) -> auto& { return p.pe.max_weight_step; }, 1, 64,
                    {"", "seed 004 (PeDimensionsForDtype)", HO, "maxWeightStep"}));
    t.push_back(u32("pe.min_wave", +[](Params& p) -> auto& { return p.pe.min_wave; }, 1, 4096,
                    {"", "seed 004 (PeDimensionsForDtype)", HO, "minWave"}));
    t.push_back(u32("pe.reorder_window", +[](Params& p) -> auto& { return p.pe.reorder_window; }, 1, 1024,
                    {"", "seed 004", HO, "PE getReorderWindowSize"}));
    t.push_back(f64("pe.clock_ghz", +[](Params& p) -> auto& { return p.pe.clock_ghz; }, 0.01, 10,
                    {"GHz", "PUBLIC_FACTS (Tensor engine clock)", PUB, "PE array clock; also the simulated kernel clock"}));
    t.push_back(u32("pe.cost_freq", +[](Params& p) -> auto& { return p.pe.cost_freq; }, 1, 1000,
                    {"", "seed 004 (getEngineFrequency)", HO, "cost-model frequency figure for PE/Pool/Act"}));
    t.push_back(boolean("pe.double_row", +[](Params& p) -> auto& { return p.pe.double_row; },
                        {"", "trn2 arch guide, Double FP8 Matmul Performance (not on NC-v2)", PUB,
                         "perf_opt=double_row matmuls stream two moving rows per PE column: half the cycles"}));
    t.push_back(u32("pe.tile_min", +[](Params& p) -> auto& { return p.pe.tile_min; }, 0, 512,
                    {"rows", "nki.isa nc_matmul, Tiling mode (2x 64 row tiles NC-v2+, 4x 32 NC-v3+)", PUB,
                     "smallest PE row or column tile of tiling mode (tile_position / tile_size): tiles of "
                     "tile_min x 2^k rows and columns run their matmuls in parallel; 0 = no tiling mode (check refuses "
                     "tile fields)"}));
    t.push_back(boolean("pe.mx", +[](Params& p) -> auto& { return p.pe.mx; },
                        {"", "nki.isa nc_matmul_mx (NeuronCore-v4 and newer); trn3 arch guide, Quad-MXFP8/MXFP4 Matmul "
                             "Performance", PUB,
                         "MXFP8/MXFP4 matmuls: ldweights and matmul records whose data is an x4 dtype (fp8e4x4, fp8e5x4, "
                         "fp4x4) with its scale tile as src2; each PE multiplies four packed values a cycle, so a matmul "
                         "costs what a bf16 one of the same x4 columns costs and does 4x the MACs. false: check refuses "
                         "x4 dtypes"}));
    const std::string ramp_src = "Neuron Explorer, Understanding throttling (Trn2 and Trn3)";
    t.push_back(f64("pe.ramp_start", +[](Params& p) -> auto& { return p.pe.ramp_start; }, 0.01, 1,
                    {"fraction", ramp_src + ": \"starts at roughly 50% utilization\"", PUB,
                     "TensorE throttle: the rate a burst of matmuls starts at after the array was idle (1 = "
                     "no throttle)"}));
    t.push_back(f64("pe.ramp_ns", +[](Params& p) -> auto& { return p.pe.ramp_ns; }, 0, 1e9,
                    {"ns", ramp_src + ": \"ramps to full over about the first ~3 microseconds\"", PUB,
                     "TensorE throttle: time from pe.ramp_start to full rate (linear)"}));
    t.push_back(f64("pe.ramp_window_ns", +[](Params& p) -> auto& { return p.pe.ramp_window_ns; }, 0, 1e9,
                    {"ns", ramp_src + ": \"over any ~3 microsecond window\"", PUB,
                     "TensorE throttle: the window whose utilisation re-engages the limit"}));
    t.push_back(f64("pe.ramp_reengage", +[](Params& p) -> auto& { return p.pe.ramp_reengage; }, 0, 1,
                    {"fraction",
                     ramp_src + ": \"If utilization drops below 50%\"; read as an idle gap of "
                                "(1 - this) x pe.ramp_window_ns",
                     MI,
                     "TensorE throttle: the limit re-engages at a matmul start after an idle gap of at least "
                     "(1 - pe.ramp_reengage) x pe.ramp_window_ns"}));
    t.push_back(boolean("pe.transpose_passthrough", +[](Params& p) -> auto& { return p.pe.transpose_passthrough; },
                        {"", "nki.isa nc_transpose (dst has the data's dtype); trn2 arch guide, Built-in Transpose Support", PUB,
                         "a PE transpose (matmul transpose=1) may write PSUM in the dtype of the data it transposes, besides "
                         "the fp32 every accumulating matmul writes (seed 000 §2.2, §5.1): NeuronCore-v3's transpose mode "
                         "passes the data through rather than accumulating it"}));
    t.push_back(boolean("pe.background_transpose", +[](Params& p) -> auto& { return p.pe.background_transpose; },
                        {"", "trn3 arch guide, Background Transpose (NeuronCore-v4)", PUB,
                         "a PE transpose (matmul transpose=1) may stream beside one other matmul or transpose on the "
                         "same PE rows and columns while arr_seq.disable_bg_xpose is clear: long transpose chains run at "
                         "close to twice the rate"}));

    // --- pool / act / dve ------------------------------------------------------------------
    auto engine = [&](const std::string& name, auto ref, const char* clock_src) {
        const std::string ch(name + " channels (partitions processed in parallel)");
        const std::string rw(name + " reorder window");
        const std::string ck(name + " engine clock");
        t.push_back(u32(name + ".channels", [ref](Params& p) -> auto& { return ref(p).channels; }, 1, 512,
                        {"channels", "seed 004", HO, ch}));
        t.push_back(u32(name + ".reorder_window", [ref](Params& p) -> auto& { return ref(p).reorder_window; }, 1, 1024,
                        {"", "seed 004", HO, rw}));
        t.push_back(f64(name + ".clock_ghz", [ref](Params& p) -> auto& { return ref(p).clock_ghz; }, 0.01, 10,
                        {"GHz", clock_src, PUB, ck}));
    };
    engine("pool", +[](Params& p) -> auto& { return p.pool; }, "PUBLIC_FACTS (Scalar/GpSimd clock)");
    t.push_back(boolean("pool.psum_access", +[](Params& p) -> auto& { return p.pool.psum_access; },
                        {"", "nki.isa tensor_copy / tensor_tensor (\"GpSimd Engine cannot access PSUM\"); seed 000 §7.1",
                         PUB, "false: a pool record with a PSUM operand is refused by check and run (the ISA rule); "
                              "true: allowed on the POOL datapath's PSUM ports (seed 000 §7.1), for what-if studies"}));
    engine("act", +[](Params& p) -> auto& { return p.act; }, "PUBLIC_FACTS (Scalar/GpSimd clock)");
    engine("dve", +[](Params& p) -> auto& { return p.dve; }, "PUBLIC_FACTS (Vector engine clock)");

    // --- dma / q7 --------------------------------------------------------------------------
    t.push_back(u32("dma.data_width", +[](Params& p) -> auto& { return p.dma.data_width; }, 1, 4096,
                    {"B", "seed 000 §1, §1.1", HO, "DMA_ENGINE_DATA_WIDTH_BYTES: bytes one DMA engine moves per beat"}));
    t.push_back(u32("dma.engines", +[](Params& p) -> auto& { return p.dma.engines; }, 1, 64,
                    {"engines", "seed 000 §1 / PUBLIC_FACTS", HO, "DMA_ENGINE_COUNT_PER_TPB"}));
    t.push_back(u32("dma.queues_per_engine", +[](Params& p) -> auto& { return p.dma.queues_per_engine; }, 1, 64,
                    {"queues", "PUBLIC_FACTS (DMA)", PUB, "queues each DMA engine serves round robin"}));
    t.push_back(f64("dma.engine_gbps", +[](Params& p) -> auto& { return p.dma.engine_gbps; }, 0.01, 10000,
                    {"GB/s", "DMA overview, Basic DMA Capabilities (27.2 NC-v2/v3, 38.4 NC-v4)", PUB,
                     "theoretical bandwidth of one DMA engine"}));
    t.push_back(u32("dma.partition_round", +[](Params& p) -> auto& { return p.dma.partition_round; }, 1, 128,
                    {"partitions", "seed 000 §2.1, §7.5", HO,
                     "SDMA access window: active partitions rounded up to this (a window, not a byte count)"}));
    t.push_back(u32("dma.lanes_per_engine", +[](Params& p) -> auto& { return p.dma.lanes_per_engine; }, 1, 128,
                    {"partitions", "DMA overview, Performance Considerations / Example 1", PUB,
                     "SBUF partitions one DMA engine serves when a transfer is spread over the engines"}));
    t.push_back(
        f64("dma.xfer_fixed_ns", +[](Params& p) -> auto& { return p.dma.xfer_fixed_ns; }, 0, 1e6,
            {"ns", "fit to DMA overview Example 1 (1416 ns) and bandwidth guide table", MI,
             "fixed cost of one transfer on one engine (descriptor processing): occupies the engine unless "
             "dma.outstanding lets it overlap another queue's data"}));
    t.push_back(
        f64("dma.pkt_min_ns", +[](Params& p) -> auto& { return p.dma.pkt_min_ns; }, 0, 1e6,
            {"ns",
             "fit to the DMA overview's throughput curve (trn2, 256 B-1 KiB per partition); bandwidth guide, "
             "Bandwidth vs. Payload Size",
             LI,
             "minimum time of one descriptor (contiguous run): the packet-rate limit of small payloads "
             "(overlaps other queues' data: dma.outstanding)"}));
    t.push_back(f64(
        "dma.hbm_gbps", +[](Params& p) -> auto& { return p.dma.hbm_gbps; }, 0, 1e6,
        {"GB/s", "chip HBM bandwidth / NeuronCores (trn1/trn2/trn3 architecture pages)", PUB,
         "HBM bandwidth shared by the DMA engines of one NeuronCore (0 = unlimited; else at least 0.01)"}));
    t.push_back(f64(
        "dma.hbm_shared_gbps", +[](Params& p) -> auto& { return p.dma.hbm_shared_gbps; }, 0, 1e6,
        {"GB/s", "LNC configuration: each HBM bank shared by two physical NeuronCores (trn2: 2.9 TB/s / 4 banks)", LI,
         "HBM bandwidth the cores of an SPMD launch share: while k of them stream, each core's HBM side is "
         "min(dma.hbm_gbps, this / k) (0 = no shared limit)"}));
    t.push_back(u32("dma.prefetch_depth", +[](Params& p) -> auto& { return p.dma.prefetch_depth; }, 1, 1024,
                    {"transfers", "modelling choice: the bandwidth guide's aggregate rates need the ~1300 ns start-up overlapped", MOD,
                     "leading transfers of a DMA queue whose semaphore-to-start latency runs while earlier ones move data"}));
    t.push_back(u32(
        "dma.outstanding", +[](Params& p) -> auto& { return p.dma.outstanding; }, 1, 64,
        {"transfers",
         "fit to the trn2 kernel-optimization guide's profiles (tiled 39.89 ms, hoisted 28.20 ms) with "
         "the DMA overview's throughput curve (docs/public-timing.md §1.9)",
         MI,
         "DMA shares in flight on one engine: a share's fixed cost and descriptor minimum run while the "
         "shares "
         "ahead of it move data (one share's data at a time; a queue's shares in order; 1 = no overlap)"}));
    t.push_back(f64("dma.hwdge_ns", +[](Params& p) -> auto& { return p.dma.hwdge_ns; }, 0, 1e6,
                    {"ns", "trn2 arch guide, Descriptor Generation Engine (DGE); DGE reference, hwdge (\"approximately 600 ns\")", PUB,
                     "one hardware-DGE DMA instruction: occupies its DGE block (the issuing engine's compute pipeline continues)"}));
    t.push_back(u32("dma.hwdge_units", +[](Params& p) -> auto& { return p.dma.hwdge_units; }, 0, 16,
                    {"blocks", "trn2 arch guide, DGE (\"two instances of DGE\", NeuronCore-v3+); DGE reference, Mode Selection Summary", PUB,
                     "hardware DGE blocks per NeuronCore: block 0 triggered by SP, block 1 by ACT (0 = dge=hwdge is refused)"}));
    t.push_back(f64("dma.swdge_ns", +[](Params& p) -> auto& { return p.dma.swdge_ns; }, 0, 1e6,
                    {"ns", "not published (DGE reference: swdge \"consumes GpSimd Engine cycles\"); the hwdge figure carried", LI,
                     "one software-DGE DMA instruction: occupies the POOL (GpSimd) engine"}));
    t.push_back(u32("dma.static_trigger_cycles", +[](Params& p) -> auto& { return p.dma.static_trigger_cycles; }, 0, 1000000,
                    {"cycles", "not published (DGE reference: none = \"zero on-device overhead\" for descriptors); the ISA's minimum instruction interval", LI,
                     "a static (dge=none) DMA trigger: engine cycles on the issuing sequencer (SP counts at the ACT clock)"}));
    t.push_back(choice<DmaQueuePolicy>("dma.queue_policy", +[](Params& p) -> auto& { return p.dma.queue_policy; },
                                       {"round_robin", "priority"},
                                       {"", "DMA overview, DMA Queues (round robin NC-v2/v3, QoS NC-v4); trn3 arch guide, DMA QoS", PUB,
                                        "how an engine picks among its queues' ready transfers: round robin, or strict priority of the "
                                        "transfer's class (0 first, round robin within a class); a started transfer is never pre-empted"}));
    t.push_back(u32("dma.default_priority", +[](Params& p) -> auto& { return p.dma.default_priority; }, 0, 3,
                    {"class", "not published (nki.isa dma_copy priority is optional)", LI,
                     "QoS class of a dma record without priority= (0 highest .. 3 lowest)"}));
    t.push_back(u32("q7.cores", +[](Params& p) -> auto& { return p.q7.cores; }, 1, 64,
                    {"cores", "seed 000 §7.5", HO, "GPSIMD Q7 cores (AXI masters)"}));
    t.push_back(u32("q7.partitions_per_core", +[](Params& p) -> auto& { return p.q7.partitions_per_core; }, 1, 128,
                    {"partitions", "seed 000 §7.5", HO, "core c owns partitions [c*n, c*n+n)"}));
    t.push_back(u32("q7.bus_bytes", +[](Params& p) -> auto& { return p.q7.bus_bytes; }, 1, 4096,
                    {"B", "seed 000 §1.1", HO, "Q7 AXI data bus width (512-bit)"}));

    // --- width (kernel beats) --------------------------------------------------------------
    t.push_back(u32("width.engine_bytes", +[](Params& p) -> auto& { return p.width.engine_bytes; }, 1, 4096,
                    {"B", "seed 000 §1.1 (8-byte word) with the public peak rates (docs/engines.md, SBUF ports)", MI,
                     "bytes per partition one PE/ACT/POOL/DVE SBUF beat moves (4 ECC words of 8 bytes)"}));
    t.push_back(u32("width.psum_bytes", +[](Params& p) -> auto& { return p.width.psum_bytes; }, 1, 4096,
                    {"B", "seed 000 §4; PE fp32 read-add-write rate (docs/engines.md, SBUF ports)", LI, "bytes per partition one PSUM beat moves"}));
    t.push_back(u32("width.stream_chunks", +[](Params& p) -> auto& { return p.width.stream_chunks; }, 1, 1024,
                    {"bursts", "modelling choice: engines stream at their interface rate (docs/engines.md, SBUF ports)", MOD,
                     "an instruction's operand reaches the banks as this many evenly spaced bursts over its stream time (1 = one burst)"}));
    t.push_back(u32("width.dma_partitions", +[](Params& p) -> auto& { return p.width.dma_partitions; }, 1, 128,
                    {"partitions", "seed 000 §1.1", MOD, "partitions one DMA beat covers (dma.data_width bytes each)"}));
    t.push_back(u32("width.q7_partitions", +[](Params& p) -> auto& { return p.width.q7_partitions; }, 1, 128,
                    {"partitions", "seed 000 §7.3", MOD, "partitions one Q7 AXI beat covers (q7.bus_bytes each)"}));

    // --- arbiter (seed 000 §7.1) -----------------------------------------------------------
    const std::vector<std::string> policies(kArbiterPolicyNames.begin(), kArbiterPolicyNames.end());
    t.push_back(choice<ArbiterPolicyId>("arbiter.stage1.policy", +[](Params& p) -> auto& { return p.arbiter.stage1_policy; },
                                        policies, {"", "seed 000 §7.1", HO,
                                                   "policy of the stage-1 (PE-array client) arbiter: priority_dwrr is the hardware's, the others are what-ifs (docs/kernel.md)"}));
    t.push_back(choice<ArbiterPolicyId>("arbiter.stage2.policy", +[](Params& p) -> auto& { return p.arbiter.stage2_policy; },
                                        policies, {"", "seed 000 §7.1", HO,
                                                   "policy of the stage-2 (engine and PE-read) arbiter: priority_dwrr is the hardware's, the others are what-ifs (docs/kernel.md)"}));
    for (std::uint32_t i = 0; i < kStage1Clients; ++i) {
        auto name = "pe_client_" + std::to_string(i);
        // The CSR fields and their reset values are observed; which traffic rides each client is
        // this model's reading (docs/engines.md, arr_seq).
        const std::string carries =
            i + 1 < kStage1Clients
                ? ", carrying row group " + std::to_string(i) + "'s slice of a matmul's moving read"
                : " (the fan-out), carrying LdWeights reads (the stationary tile)";
        arb_pair(
            t, "arbiter.stage1." + name, [i](Params & p) -> auto& { return p.arbiter.stage1[i]; },
            "seed 000 §7.1", HO,
            "stage-1 PE-array client " + std::to_string(i) + carries +
                " (the field and its reset value are OBSERVED; the traffic it carries is INFERRED, "
                "docs/engines.md arr_seq)");
    }
    arb_pair(t, "arbiter.stage2.pool_rd", +[](Params& p) -> auto& { return p.arbiter.pool_rd; }, "seed 000 §7.1", HO, "stage-2 POOL read");
    arb_pair(t, "arbiter.stage2.act_rd", +[](Params& p) -> auto& { return p.arbiter.act_rd; }, "seed 000 §7.1", HO, "stage-2 ACT read");
    arb_pair(t, "arbiter.stage2.pool_wr", +[](Params& p) -> auto& { return p.arbiter.pool_wr; }, "seed 000 §7.1", HO, "stage-2 POOL write");
    arb_pair(t, "arbiter.stage2.act_wr", +[](Params& p) -> auto& { return p.arbiter.act_wr; }, "seed 000 §7.1", HO, "stage-2 ACT write");
    arb_pair(t, "arbiter.stage2.pe_rd", +[](Params& p) -> auto& { return p.arbiter.pe_rd; }, "seed 000 §7.1", HO, "stage-2 PE read (the stage-1 winner)");
    arb_pair(t, "arbiter.stage2.dve_rd", +[](Params& p) -> auto& { return p.arbiter.dve_rd; }, "seeds silent on DVE's SBUF port", MOD, "stage-2 DVE read");
    arb_pair(t, "arbiter.stage2.dve_wr", +[](Params& p) -> auto& { return p.arbiter.dve_wr; }, "seeds silent on DVE's SBUF port", MOD, "stage-2 DVE write");
    arb_pair(t, "arbiter.dma_class.dma", +[](Params& p) -> auto& { return p.arbiter.dma; }, "seed 000 §9 (order in DMA slot LOW)", LI, "DMA queues inside the DMA class");
    arb_pair(t, "arbiter.dma_class.q7", +[](Params& p) -> auto& { return p.arbiter.q7; }, "seed 000 §9 (order in DMA slot LOW)", LI, "Q7 AXI masters inside the DMA class");
    arb_pair(t, "arbiter.psum.pe_wr", +[](Params& p) -> auto& { return p.arbiter.psum_pe_wr; }, "seeds silent on PSUM arbitration", MOD, "PSUM: PE-array write (matmul drain)");
    arb_pair(t, "arbiter.psum.act", +[](Params& p) -> auto& { return p.arbiter.psum_act; }, "seeds silent on PSUM arbitration", MOD, "PSUM: ACT read/write");
    arb_pair(t, "arbiter.psum.pool", +[](Params& p) -> auto& { return p.arbiter.psum_pool; }, "seeds silent on PSUM arbitration", MOD, "PSUM: POOL read/write");
    arb_pair(t, "arbiter.psum.dve", +[](Params& p) -> auto& { return p.arbiter.psum_dve; }, "seeds silent on PSUM arbitration", MOD, "PSUM: DVE read/write");

    // --- tdm (seed 000 §7.2) ---------------------------------------------------------------
    t.push_back(u32("tdm.max_slots", +[](Params& p) -> auto& { return p.tdm.max_slots; }, 1, 65535,
                    {"slots", "seed 000 §7.2", HO, "tdm_max_slots: TDM period in cycles (slot = cycle mod max_slots)"}));
    t.push_back(u32("tdm.dma_slots", +[](Params& p) -> auto& { return p.tdm.dma_slots; }, 0, 65535,
                    {"slots", "seed 000 §7.2", HO, "tdm_dma_slots: the first dma_slots slots of each period give the DMA class precedence"}));
    t.push_back(boolean("tdm.strict", +[](Params& p) -> auto& { return p.tdm.strict; },
                        {"", "seed 000 §7.2 (reading of 'bounded to 1/8')", Confidence::med_inferred,
                         "true: a class is held out of the other class's slots; false: it may use banks left free (work-conserving)"}));
    t.push_back(choice<DmaOrder>("tdm.dma_order", +[](Params& p) -> auto& { return p.tdm.dma_order; },
                                 {"round_robin", "dma_first", "q7_first"},
                                 {"", "seed 000 §9", LI, "order of service among DMA queues and Q7 masters inside one cycle"}));

    // --- throttler (seed 000 §7.2) ---------------------------------------------------------
    throttle_keys(t, "throttler.pool_rd", +[](Params& p) -> auto& { return p.throttler.pool_rd; }, "POOL read");
    throttle_keys(t, "throttler.pool_wr", +[](Params& p) -> auto& { return p.throttler.pool_wr; }, "POOL write");
    throttle_keys(t, "throttler.act_rd", +[](Params& p) -> auto& { return p.throttler.act_rd; }, "ACT read");
    throttle_keys(t, "throttler.act_wr", +[](Params& p) -> auto& { return p.throttler.act_wr; }, "ACT write");
    throttle_keys(t, "throttler.dve_rd", +[](Params& p) -> auto& { return p.throttler.dve_rd; }, "DVE read");
    throttle_keys(t, "throttler.dve_wr", +[](Params& p) -> auto& { return p.throttler.dve_wr; }, "DVE write");

    // --- concurrency (PUBLIC_FACTS: NeuronCore-v2 rules) -----------------------------------
    t.push_back(boolean("concurrency.dve_gpsimd_sbuf_exclusive",
                        +[](Params& p) -> auto& { return p.concurrency.dve_gpsimd_sbuf_exclusive; },
                        {"", "PUBLIC_FACTS (NC-v2 concurrency)", PUB, "VectorE and GpSimd cannot access SBUF in the same cycle"}));
    t.push_back(boolean("concurrency.dve_act_psum_exclusive",
                        +[](Params& p) -> auto& { return p.concurrency.dve_act_psum_exclusive; },
                        {"", "PUBLIC_FACTS (NC-v2 concurrency)", PUB, "VectorE and ScalarE cannot access PSUM in the same cycle"}));
    t.push_back(choice<ExclusiveScope>("concurrency.scope", +[](Params& p) -> auto& { return p.concurrency.scope; },
                                       {"instruction", "beat"},
                                       {"", "PUBLIC_FACTS (NC-v2 concurrency), trn1 arch guide", Confidence::med_inferred,
                                        "instruction: an instruction holds the shared port from start to retirement (the two sides serialise); "
                                        "beat: only single bank beats exclude each other"}));

    // --- axi2sram (seed 000 §6.1) ----------------------------------------------------------
    t.push_back(boolean("axi2sram.transpose_en", +[](Params& p) -> auto& { return p.axi2sram.transpose_en; },
                        {"", "seed 000 §6.1", HO, "axi2sram_transpose_en (reset 1)"}));
    t.push_back(boolean("axi2sram.raw_en", +[](Params& p) -> auto& { return p.axi2sram.raw_en; },
                        {"", "seed 000 §6.1", HO, "raw_config.raw_en: read-add-write logic (reset 1)"}));
    t.push_back(boolean("axi2sram.sns", +[](Params& p) -> auto& { return p.axi2sram.sns; },
                        {"", "seed 000 §6.1 (field; reset not given)", MI, "raw_conv.sns: non-FP8 NaN saturate"}));
    t.push_back(boolean("axi2sram.sis", +[](Params& p) -> auto& { return p.axi2sram.sis; },
                        {"", "seed 000 §6.1 (field; reset not given)", MI, "raw_conv.sis: non-FP8 Inf saturate"}));
    t.push_back(boolean("axi2sram.clk_redun_pipe_gate_en", +[](Params& p) -> auto& { return p.axi2sram.clk_redun_pipe_gate_en; },
                        {"", "seed 000 §6.1 (field; reset not given)", MI, "misc_config.clk_redun_pipe_gate_en"}));

    // --- arr_seq (seed 000 §5.6) -----------------------------------------------------------
    t.push_back(u32("arr_seq.fifo_size_sel", +[](Params& p) -> auto& { return p.arr_seq.fifo_size_sel; }, 0, 1,
                    {"", "seed 000 §5.6 (field; reset not given)", MI, "queue_cfg.fifo_size_sel: FIFO-full threshold select"}));
    t.push_back(boolean("arr_seq.bypass_peregwrite_instr", +[](Params& p) -> auto& { return p.arr_seq.bypass_peregwrite_instr; },
                        {"", "seed 000 §5.6 (field; reset not given)", MI, "queue_cfg.bypass_peregwrite_instr"}));
    t.push_back(boolean("arr_seq.disable_dependency_check", +[](Params& p) -> auto& { return p.arr_seq.disable_dependency_check; },
                        {"", "seed 000 §5.6 (field; reset not given)", MI, "queue_cfg.disable_dependency_check: single-thread the queue (an instruction starts only after the previous one, its PSUM writes included, completed: no background LoadStationary)"}));
    t.push_back(boolean("arr_seq.disable_bg_xpose", +[](Params& p) -> auto& { return p.arr_seq.disable_bg_xpose; },
                        {"", "seed 000 §5.6", HO, "queue_cfg.disable_bg_xpose (reset 1: background transpose off): "
                                                   "while set, no PE transpose streams beside another matmul even where "
                                                   "pe.background_transpose says the array could"}));
    t.push_back(boolean("arr_seq.disable_tagweight_mode", +[](Params& p) -> auto& { return p.arr_seq.disable_tagweight_mode; },
                        {"", "seed 000 §5.6", HO, "queue_cfg.disable_tagweight_mode (reset 1)"}));
    t.push_back(boolean("arr_seq.enable_wl_last_active_col", +[](Params& p) -> auto& { return p.arr_seq.enable_wl_last_active_col; },
                        {"", "seed 000 §5.6 (field; reset not given)", MI, "arr_cluster_cfg.enable_wl_last_active_col"}));
    t.push_back(boolean("arr_seq.flush_p2f_fifos", +[](Params& p) -> auto& { return p.arr_seq.flush_p2f_fifos; },
                        {"", "seed 000 §5.6 (field; reset not given)", MI, "arr_cluster_cfg.flush_p2f_fifos: flush the PE-to-FIFO path before the next response (a matmul starts only after the previous matmuls' PSUM writes were granted)"}));
    t.push_back(boolean("arr_seq.matmul_done_last", +[](Params& p) -> auto& { return p.arr_seq.matmul_done_last; },
                        {"", "seed 000 §5.6 (field; reset not given)", MI, "arr_cluster_cfg.matmul_done_last: done on last (vs first) SBUF response"}));
    t.push_back(boolean("arr_seq.en_inter_instr_dly", +[](Params& p) -> auto& { return p.arr_seq.en_inter_instr_dly; },
                        {"", "seed 000 §5.6 (field; reset not given)", MI, "arr_cluster_cfg.en_inter_instr_dly"}));
    t.push_back(u32("arr_seq.inter_instr_dly_cnt", +[](Params& p) -> auto& { return p.arr_seq.inter_instr_dly_cnt; }, 0, 63,
                    {"cycles", "seed 000 §5.6", HO, "arr_cluster_cfg.inter_instr_dly_cnt (reset 8)"}));
    t.push_back(u32("arr_seq.p2fifo_af", +[](Params& p) -> auto& { return p.arr_seq.p2fifo_af; }, 0, 7,
                    {"entries", "seed 000 §5.6", HO, "arr_cluster_cfg.p2fifo_af: PE-to-FIFO almost-full threshold (reset 2)"}));
    for (std::uint32_t i = 0; i < 4; ++i) {
        const std::string help("array_stagger_rg" + std::to_string(i) +
                                    "_ctrl1: row-group " + std::to_string(i) + " load-stagger idle timer, delaying that "
                                    "group's moving read (must be 0 when pe.row_groups <= " + std::to_string(i) + ")");
        t.push_back(u32("arr_seq.rg" + std::to_string(i) + "_stagger",
                        [i](Params& p) -> auto& { return p.arr_seq.rg_stagger[i]; }, 0, 65535,
                        {"cycles", "seed 000 §5.6 (field; reset not given)", MI, help}));
    }
    t.push_back(u32("arr_seq.max_groups", +[](Params& p) -> auto& { return p.arr_seq.max_groups; }, 1, 16,

                    {"groups", "PUBLIC_FACTS (PSUM accumulation groups)", PUB, "accumulation groups in flight"}));

    // --- timing: engine front-end costs (PUBLIC_FACTS, or modelling choices) ---------------
    auto real_t = [&](const char* name, auto ref, double lo, double hi, const char* unit, const char* src,
                      Confidence c, const char* help) { t.push_back(f64(name, ref, lo, hi, {unit, src, c, help})); };
    auto u32_t = [&](const char* name, auto ref, double lo, double hi, const char* unit, const char* src,
                     Confidence c, const char* help) { t.push_back(u32(name, ref, lo, hi, {unit, src, c, help})); };
    real_t("timing.compute_fixed_overhead", +[](Params& p) -> auto& { return p.timing.compute_fixed_overhead; }, 0, 1e6,
           "engine cycles", "trn1/inf2 arch guide, Tensor access overhead (~60 cycles)", PUB,
           "tensor-access set-up of ACT/POOL/DVE: requests issue this long after the start (hidden from the II)");
    u32_t("timing.compute_min_cycles", +[](Params& p) -> auto& { return p.timing.compute_min_cycles; }, 0, 1000000,
          "engine cycles", "nki.isa cost estimates (MIN_II ~64)", PUB, "minimum initiation interval of an ACT/POOL/DVE instruction");
    real_t("timing.act_dep_turnaround", +[](Params& p) -> auto& { return p.timing.act_dep_turnaround; }, 0, 1e6,
           "ACT cycles", "NKI perf guide Opt #5a (266 cycles NC-v3, 264 NC-v2, 1-element chain)", MI,
           "from the end of an ACT instruction's stream until a reader of its output may start");
    real_t("timing.dve_dep_turnaround", +[](Params& p) -> auto& { return p.timing.dve_dep_turnaround; }, 0, 1e6,
           "DVE cycles", "trn1/inf2 arch guide, Vector Engine cost model (+100 static overhead)", PUB,
           "from the end of a DVE instruction's stream until a reader of its output may start");
    real_t("timing.pool_dep_turnaround", +[](Params& p) -> auto& { return p.timing.pool_dep_turnaround; }, 0, 1e6,
           "GpSimd cycles", "reuse of GPSIMD_START (nki.isa affine_select)", LI,
           "from the end of a POOL instruction's stream until a reader of its output may start");
    real_t("timing.gpsimd_start", +[](Params& p) -> auto& { return p.timing.gpsimd_start; }, 0, 1e6,
           "GpSimd cycles", "nki.isa iota / affine_select cost (GPSIMD_START ~150)", PUB,
           "start-up added to a GpSimd instruction's initiation interval");
    real_t("timing.min_ii_dynamic", +[](Params& p) -> auto& { return p.timing.min_ii_dynamic; }, 0, 1e6,
           "engine cycles", "nki.isa tensor_copy_dynamic_src/dst cost (MIN_II_DYNAMIC ~600)", PUB,
           "minimum initiation interval of a dynamic-address tensor_copy");
    t.push_back(boolean("timing.dve_perf_modes", +[](Params& p) -> auto& { return p.timing.dve_perf_modes; },
                        {"", "trn2 arch guide, Vector Engine Performance Mode (NC-v3+)", PUB,
                         "VectorE 4x/2x modes for bf16/fp16 tensor_copy/tensor_scalar, 2x tensor_tensor, bf16 tensor_reduce N/2"}));
    t.push_back(boolean("timing.dve_bf16_fast", +[](Params& p) -> auto& { return p.timing.dve_bf16_fast; },
                        {"",
                         "nki.isa Estimated instruction cost, Neuron SDK 2.20.0 (NKI on Trn1/Inf2): "
                         "tensor_reduce, tensor_tensor",
                         PUB,
                         "bf16 tensor_reduce in N/2 and bf16 SBUF tensor_tensor in N VectorE cycles without "
                         "the performance mode "
                         "(false: only with timing.dve_perf_modes)"}));
    t.push_back(boolean(
        "timing.shared_ports_until_signal",
        +[](Params& p) -> auto& { return p.timing.shared_ports_until_signal; },
        {"",
         "trn1/inf2 arch guide (\"must be serialized ... enforced by Neuron Compiler\": whole instructions)",
         MI,
         "NC-v2's shared SBUF/PSUM ports are held until an instruction's writes and signal are complete "
         "(false: until its reads retire)"}));
    t.push_back(boolean("timing.act_perf_mode", +[](Params& p) -> auto& { return p.timing.act_perf_mode; },
                        {"", "trn3 arch guide, ScalarE Performance mode (NC-v4)", PUB,
                         "ScalarE 2x for bf16/fp16 tensor_scalar and tensor_copy"}));
    u32_t("timing.two_input_factor", +[](Params& p) -> auto& { return p.timing.two_input_factor; }, 1, 16,
          "", "PUBLIC_FACTS (DVE); INFERRED for ACT/POOL", PUB, "a two-input op streams its inputs this many times: max(64, factor x N)");
    u32_t("timing.stride_penalty_bytes", +[](Params& p) -> auto& { return p.timing.stride_penalty_bytes; }, 1, 1 << 20,
          "B", "PUBLIC_FACTS (engines)", PUB, "an innermost stride above this many bytes slows an engine access");
    u32_t("timing.stride_penalty_factor", +[](Params& p) -> auto& { return p.timing.stride_penalty_factor; }, 1, 64,
          "", "PUBLIC_FACTS (engines)", PUB, "throughput divisor of a strided access (about 2: 'roughly halves')");
    u32_t("timing.matmul_min_ii", +[](Params& p) -> auto& { return p.timing.matmul_min_ii; }, 1, 1000000,
          "PE cycles", "nki.isa nc_matmul cost; trn1/inf2 arch guide (MM_INIT_LATENCY)", PUB,
          "matmul initiation interval max(N_moving, min(this, N_stationary)) for 2/1-byte inputs");
    u32_t("timing.matmul_fp32_factor", +[](Params& p) -> auto& { return p.timing.matmul_fp32_factor; }, 1, 64,
          "", "PUBLIC_FACTS (matmul)", PUB, "fp32 matmul initiation interval multiplier");
    u32_t("timing.transpose_fp32_factor", +[](Params& p) -> auto& { return p.timing.transpose_fp32_factor; }, 1, 64,
          "", "trn2 arch guide, Built-in Transpose Support", PUB,
          "fp32 PE transpose (matmul transpose=1) initiation interval multiplier: the transpose mode's '2x speedup "
          "in FP32 transpose' against timing.matmul_fp32_factor (NeuronCore-v3 and later; = matmul_fp32_factor "
          "where there is no transpose mode)");
    u32_t("timing.fp32_onezero_factor", +[](Params& p) -> auto& { return p.timing.fp32_onezero_factor; }, 1, 64,
          "", "nki.isa nc_matmul (is_stationary_onezero / is_moving_onezero)", PUB,
          "fp32 matmul initiation interval multiplier with a one-zero hint (matmul onezero=1): the hint 'could lead "
          "to 2x better performance' than timing.matmul_fp32_factor; no effect on other dtypes");
    u32_t("timing.ls_speedup", +[](Params& p) -> auto& { return p.timing.ls_speedup; }, 1, 64,
          "", "trn1/inf2 arch guide, Tensor Engine: Fast LoadStationary (up to 4x)", PUB,
          "LoadStationary costs ceil(cols / this) PE cycles, in the background of the previous matmul");
    u32_t("timing.ldweights_min_cycles", +[](Params& p) -> auto& { return p.timing.ldweights_min_cycles; }, 1, 1000000,
          "PE cycles", "modelling choice", MOD, "LoadStationary floor: max(ceil(cols / ls_speedup), this) PE cycles");
    u32_t("timing.pe_drain_latency", +[](Params& p) -> auto& { return p.timing.pe_drain_latency; }, 0, 1000000,
          "PE cycles", "modelling choice", MOD, "from a matmul's first moving read to its first PSUM write");
    real_t("timing.dma_startup_ns", +[](Params& p) -> auto& { return p.timing.dma_startup_ns; }, 0, 1e9,
           "ns", "DMA bandwidth guide (~1300 ns cross-engine)", PUB, "semaphore-to-start latency of a DMA transfer (overlaps the previous transfer)");
    real_t("timing.dma_xpose_fraction_hbm", +[](Params& p) -> auto& { return p.timing.dma_xpose_fraction_hbm; }, 0.01, 1,
           "", "PUBLIC_FACTS (DMA, trn2)", PUB, "throughput of an HBM->SBUF DMA transpose relative to a plain DMA");
    real_t("timing.dma_xpose_fraction_sbuf", +[](Params& p) -> auto& { return p.timing.dma_xpose_fraction_sbuf; }, 0.01, 1,
           "", "PUBLIC_FACTS (DMA, trn2)", PUB, "throughput of an SBUF->SBUF DMA transpose relative to a plain DMA");
    real_t("timing.dma_rmw_fraction", +[](Params& p) -> auto& { return p.timing.dma_rmw_fraction; }, 0.01, 1, "",
           "trn3 arch guide, SBUF Read-Add-Write: v4 same as copy, 50% before", PUB,
           "throughput of a dst_rmw_op=add DMA (read-add-write at the destination) relative to a plain DMA");
    real_t("timing.q7_fixed_overhead", +[](Params& p) -> auto& { return p.timing.q7_fixed_overhead; }, 0, 1e6,
           "GpSimd cycles", "modelling choice", MOD, "fixed per-instruction overhead of a Q7 AXI load/store");
    mark_recorded(t);
    return t;
}

}  // namespace

const std::vector<KeySpec>& key_table() {
    static const std::vector<KeySpec> table = build_table();
    return table;
}

// By name through an index built once: the loader looks up every line of a generation file
// (some 350 keys), and sweeps and the fuzz targets load a configuration per point or input.
const KeySpec* find_key(std::string_view name) {
    static const std::unordered_map<std::string_view, const KeySpec*> index = [] {
        std::unordered_map<std::string_view, const KeySpec*> by_name;
        for (const auto& k : key_table()) by_name.emplace(k.name, &k);
        return by_name;
    }();
    const auto it = index.find(name);
    return it == index.end() ? nullptr : it->second;
}

}  // namespace sbufsim
