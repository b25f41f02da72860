// The key table: every configuration key with type, default, range, unit, help text, source and
// confidence. A block's plain keys come from their declarations in
// include/sbufsim/config/keys/<block>.def (params.h makes the fields of the same lines); the keys
// that are not one block's plain field are declared here. `sbufsim config --help`, `sbufsim config
// --reference` and the loader all read this one table.
//
// Defaults are the values of the default generation (cayman) and the CSR reset values; each
// shipped configs/<gen>.ini states only the values and citations that differ from these
// (read_generation; tests/test_config.cpp checks that no line restates its declaration).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <type_traits>
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

// A keyed field of a block (bool, double, std::uint32_t or std::uint64_t) as its key.
template <class T>
KeySpec scalar_key(std::string name, Field<T> ref, double min, double max, const Meta& m) {
    if constexpr (std::is_same_v<T, bool>)
        return boolean(std::move(name), std::move(ref), m);
    else if constexpr (std::is_same_v<T, double>)
        return f64(std::move(name), std::move(ref), min, max, m);
    else
        return unsigned_key<T>(std::move(name), std::move(ref), min, max, m);
}

// "a|b|c" as the list of a choice key's names.
std::vector<std::string> choice_names(std::string_view names) {
    std::vector<std::string> out;
    for (std::size_t at = 0;;) {
        const std::size_t bar = names.find('|', at);
        out.emplace_back(names.substr(at, bar - at));
        if (bar == std::string_view::npos) return out;
        at = bar + 1;
    }
}

// The lines of a block's declaration file (include/sbufsim/config/keys/<block>.def) as keys of
// the table: KEY_PREFIX names the keys ("dma."), KEY_BLOCK the Params member they set (dma).
#define SBUFSIM_KEY(type, field, init, lo, hi, unit, source, conf, help)                                    \
    t.push_back(scalar_key<type>(KEY_PREFIX #field, +[](Params & p) -> auto& { return p.KEY_BLOCK.field; }, \
                                 lo, hi, {unit, source, conf, help}));
#define SBUFSIM_CHOICE(type, field, init, names, unit, source, conf, help)                              \
    t.push_back(choice<type>(KEY_PREFIX #field, +[](Params & p) -> auto& { return p.KEY_BLOCK.field; }, \
                             choice_names(names), {unit, source, conf, help}));

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
#define KEY_PREFIX "sbuf."
#define KEY_BLOCK sbuf
#include "sbufsim/config/keys/sbuf.def"
#undef KEY_PREFIX
#undef KEY_BLOCK

    // --- psum ------------------------------------------------------------------------------
#define KEY_PREFIX "psum."
#define KEY_BLOCK psum
#include "sbufsim/config/keys/psum.def"
#undef KEY_PREFIX
#undef KEY_BLOCK

    // --- isa -------------------------------------------------------------------------------
#define KEY_PREFIX "isa."
#define KEY_BLOCK isa
#include "sbufsim/config/keys/isa.def"
#undef KEY_PREFIX
#undef KEY_BLOCK

    // --- pe --------------------------------------------------------------------------------
#define KEY_PREFIX "pe."
#define KEY_BLOCK pe
#include "sbufsim/config/keys/pe.def"
#undef KEY_PREFIX
#undef KEY_BLOCK

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
#define KEY_PREFIX "dma."
#define KEY_BLOCK dma
#include "sbufsim/config/keys/dma.def"
#undef KEY_PREFIX
#undef KEY_BLOCK

#define KEY_PREFIX "q7."
#define KEY_BLOCK q7
#include "sbufsim/config/keys/q7.def"
#undef KEY_PREFIX
#undef KEY_BLOCK

    // --- width (kernel beats) --------------------------------------------------------------
#define KEY_PREFIX "width."
#define KEY_BLOCK width
#include "sbufsim/config/keys/width.def"
#undef KEY_PREFIX
#undef KEY_BLOCK

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
#define KEY_PREFIX "tdm."
#define KEY_BLOCK tdm
#include "sbufsim/config/keys/tdm.def"
#undef KEY_PREFIX
#undef KEY_BLOCK

    // --- throttler (seed 000 §7.2) ---------------------------------------------------------
    throttle_keys(t, "throttler.pool_rd", +[](Params& p) -> auto& { return p.throttler.pool_rd; }, "POOL read");
    throttle_keys(t, "throttler.pool_wr", +[](Params& p) -> auto& { return p.throttler.pool_wr; }, "POOL write");
    throttle_keys(t, "throttler.act_rd", +[](Params& p) -> auto& { return p.throttler.act_rd; }, "ACT read");
    throttle_keys(t, "throttler.act_wr", +[](Params& p) -> auto& { return p.throttler.act_wr; }, "ACT write");
    throttle_keys(t, "throttler.dve_rd", +[](Params& p) -> auto& { return p.throttler.dve_rd; }, "DVE read");
    throttle_keys(t, "throttler.dve_wr", +[](Params& p) -> auto& { return p.throttler.dve_wr; }, "DVE write");

    // --- concurrency (PUBLIC_FACTS: NeuronCore-v2 rules) -----------------------------------
#define KEY_PREFIX "concurrency."
#define KEY_BLOCK concurrency
#include "sbufsim/config/keys/concurrency.def"
#undef KEY_PREFIX
#undef KEY_BLOCK

    // --- axi2sram (seed 000 §6.1) ----------------------------------------------------------
#define KEY_PREFIX "axi2sram."
#define KEY_BLOCK axi2sram
#include "sbufsim/config/keys/axi2sram.def"
#undef KEY_PREFIX
#undef KEY_BLOCK

    // --- arr_seq (seed 000 §5.6) -----------------------------------------------------------
#define KEY_PREFIX "arr_seq."
#define KEY_BLOCK arr_seq
#include "sbufsim/config/keys/arr_seq.def"
#undef KEY_PREFIX
#undef KEY_BLOCK
    for (std::uint32_t i = 0; i < 4; ++i) {
        const std::string help("array_stagger_rg" + std::to_string(i) +
                                    "_ctrl1: row-group " + std::to_string(i) + " load-stagger idle timer, delaying that "
                                    "group's moving read (must be 0 when pe.row_groups <= " + std::to_string(i) + ")");
        t.push_back(u32("arr_seq.rg" + std::to_string(i) + "_stagger",
                        [i](Params& p) -> auto& { return p.arr_seq.rg_stagger[i]; }, 0, 65535,
                        {"cycles", "seed 000 §5.6 (field; reset not given)", MI, help}));
    }

    // --- timing: engine front-end costs (PUBLIC_FACTS, or modelling choices) ---------------
#define KEY_PREFIX "timing."
#define KEY_BLOCK timing
#include "sbufsim/config/keys/timing.def"
#undef KEY_PREFIX
#undef KEY_BLOCK

    mark_recorded(t);
    return t;
}
#undef SBUFSIM_KEY
#undef SBUFSIM_CHOICE

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
