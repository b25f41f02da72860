// Config loader and shipped generation files: every HIGH/OBSERVED constant against the seeds,
// layering, re-loadable output, and each class of configuration error with its message.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <unistd.h>

#include <gtest/gtest.h>

#include "sbufsim/config/config.h"
#include "sbufsim/config/data_dirs.h"
#include "temp_files.h"

namespace sbufsim {
namespace {

namespace fs = std::filesystem;

LoadedConfig load_gen(const std::string& gen) {
    LoadRequest r;
    r.generation = gen;
    return load_config(r);
}

// A scratch INI file that removes itself.
class TempIni {
public:
    explicit TempIni(const std::string& text) {
        static int counter = 0;
        path_ = test::temp("config_" + std::to_string(counter++) + ".ini");
        std::ofstream(path_) << text;
    }
    ~TempIni() { std::remove(path_.c_str()); }
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// Expect load_config to fail with a message containing every fragment.
void expect_error(const LoadRequest& r, const std::vector<std::string>& fragments) {
    try {
        load_config(r);
        FAIL() << "expected a ConfigError";
    } catch (const ConfigError& e) {
        const std::string msg = e.what();
        for (const auto& f : fragments) EXPECT_NE(msg.find(f), std::string::npos) << "'" << f << "' not in: " << msg;
    }
}

LoadRequest with_set(const std::string& gen, const std::string& kv) {
    LoadRequest r;
    r.generation = gen;
    r.overrides.push_back(parse_override(kv));
    return r;
}

// ---- HIGH/OBSERVED constants per generation -------------------------------------------------

struct Expect {
    const char* gen;
    const char* key;
    const char* value;  // as `KeySpec::get` renders it
    const char* seed;   // where the value is stated
};

// Each row is a HIGH/OBSERVED fact of the seeds, copied from the cited section.
const Expect kObserved[] = {
    // seed 000 §1 / seed 004: SBUF partition stride and active size
    {"inferentia", "sbuf.partition_stride", "0x20000", "seed 004 InferentiaStatebuf SOCStepSize"},
    {"inferentia", "sbuf.partition_active", "0x18000", "seed 004 InferentiaStatebuf 96 KiB"},
    {"sunda", "sbuf.partition_stride", "0x40000", "seed 000 §1 NOTE"},
    {"sunda", "sbuf.partition_active", "0x30000", "seed 000 §1 192 KiB"},
    {"cayman", "sbuf.partition_stride", "0x40000", "seed 004 CaymanStatebuf"},
    {"cayman", "sbuf.partition_active", "0x38000", "seed 000 §1 224 KiB"},
    {"mariana", "sbuf.partition_stride", "0x40000", "seed 004 CoreV4Statebuf"},
    {"mariana", "sbuf.partition_active", "0x40000", "seed 000 §1 256 KiB"},
    {"maverick", "sbuf.partition_stride", "0x100000", "seed 000 §1 1 MiB stride"},
    {"maverick", "sbuf.partition_active", "0x80000", "seed 000 §1 512 KiB active"},
    // seed 000 §1: STATE_BUF_SZ; seed 002 §9 maverick 128 MiB
    {"sunda", "sbuf.region_size", "0x2000000", "seed 000 §1"},
    {"cayman", "sbuf.region_size", "0x2000000", "seed 000 §1"},
    {"mariana", "sbuf.region_size", "0x2000000", "seed 002 §9"},
    {"maverick", "sbuf.region_size", "0x8000000", "seed 000 §1 / seed 002 §9"},
    // seed 000 §1.1 word, §3 banks
    {"sunda", "sbuf.word_size", "8", "seed 000 §1.1"},
    {"cayman", "sbuf.ecc_banks", "16", "seed 000 §3"},
    {"cayman", "sbuf.clusters", "8", "seed 000 §3"},
    // seed 004: partitions, midPartition, reservedSize
    {"inferentia", "sbuf.partitions", "128", "seed 004 numPartitions"},
    {"sunda", "sbuf.partitions", "128", "seed 004"},
    {"cayman", "sbuf.mid_partition", "64", "seed 004"},
    {"inferentia", "sbuf.reserved_size", "0x4000", "seed 004"},
    {"sunda", "sbuf.reserved_size", "0x4000", "seed 004"},
    {"cayman", "sbuf.reserved_size", "0x4008", "seed 004"},
    {"mariana", "sbuf.reserved_size", "0x4008", "seed 004"},
    // seed 002 §1, §3: SoC bases
    {"cayman", "sbuf.soc_base", "0x2000000000", "seed 002 §1"},
    {"cayman", "psum.soc_base", "0x2802000000", "seed 002 §3"},
    {"mariana", "psum.soc_base", "0x2802000000", "seed 002 §9"},
    // seed 000 §4 / seed 004: PSUM
    {"inferentia", "psum.banks", "4", "seed 004 InferentiaPsumbuf"},
    {"inferentia", "psum.partitions", "64", "seed 004 InferentiaPsumbuf"},
    {"inferentia", "psum.bank_size", "2048", "seed 004 InferentiaPsumbuf"},
    {"sunda", "psum.banks", "8", "seed 004 SundaPsumbuf"},
    {"sunda", "psum.partitions", "128", "seed 004 SundaPsumbuf"},
    {"sunda", "psum.bank_size", "2048", "seed 004 TrainiumHwm::getPsumBankSize"},
    {"sunda", "psum.isa_banks", "16", "seed 000 §4.2 sunda convention"},
    {"sunda", "psum.isa_bank_size", "1024", "seed 000 §4.2"},
    {"cayman", "psum.isa_banks", "8", "seed 000 §4.2"},
    {"cayman", "psum.isa_bank_size", "2048", "seed 000 §4.2"},
    {"cayman", "psum.partition_stride", "0x8000", "seed 000 §4 32 KiB stride"},
    {"cayman", "psum.partition_active", "0x4000", "seed 000 §4 16 KiB active"},
    {"cayman", "psum.region_offset", "0x2000000", "seed 000 §2 PSUM_BUF_OFFSET"},
    {"cayman", "psum.region_size", "0x400000", "seed 000 §2 4 MiB"},
    {"cayman", "psum.ecc_banks", "32", "seed 000 §4"},
    {"maverick", "psum.region_size", "0", "seed 000 §1 PSUM_BUF_SZ = 0"},
    // seed 000 §2: the address mask and register marker
    {"sunda", "isa.addr_mask", "0x1fffffff", "seed 000 §2"},
    {"cayman", "isa.addr_reg_marker", "128", "seed 000 §2.2 (0x80)"},
    {"cayman", "isa.num_addr_registers", "64", "seed 000 §2.2"},
    // seed 000 §5.3: MATMUL_ZERO_REGION per generation
    {"sunda", "isa.matmul_zero_region_max", "0", "seed 000 §5.3"},
    {"cayman", "isa.matmul_zero_region_max", "0", "seed 000 §5.3"},
    {"mariana", "isa.matmul_zero_region_max", "3", "seed 000 §5.3"},
    {"maverick", "isa.matmul_zero_region_max", "3", "seed 000 §5.3"},
    // seed 000 §6.2 transpose tile
    {"cayman", "isa.xpose_tile_rows", "16", "seed 000 §6.2"},
    {"cayman", "isa.xpose_max_cols_2b", "128", "seed 000 §6.2"},
    {"cayman", "isa.xpose_max_cols_4b", "64", "seed 000 §6.2"},
    {"cayman", "isa.xpose_dst_align", "32", "seed 000 §6.2"},
    {"cayman", "isa.num_semaphores", "256", "seed 004 NumSemaphores"},
    // PE array: seed 004, seed 000 §1
    {"inferentia", "pe.cols", "64", "seed 004 InferentiaPe"},
    {"sunda", "pe.rows", "128", "seed 004 SundaPe"},
    {"sunda", "pe.cols", "128", "seed 004 SundaPe"},
    {"cayman", "pe.row_groups", "4", "seed 000 §1"},
    {"cayman", "pe.col_groups", "4", "seed 000 §1"},
    {"maverick", "pe.cols", "256", "seed 000 §1 PE_ARRAY_NUM_COLS"},
    {"maverick", "pe.row_groups", "2", "seed 000 §1 PE_ARRAY_NUM_ROW_GROUPS"},
    {"cayman", "pe.max_weight_step", "2", "seed 004"},
    // nki.isa nc_matmul tiling mode and the trn3 guide's background transpose
    {"sunda", "pe.tile_min", "64", "nki.isa nc_matmul, Tiling mode"},
    {"cayman", "pe.tile_min", "32", "nki.isa nc_matmul, Tiling mode"},
    {"inferentia", "pe.tile_min", "0", "NeuronCore-v2 or newer"},
    {"cayman", "pe.background_transpose", "false", "trn3 arch guide, Background Transpose"},
    {"mariana", "pe.background_transpose", "true", "trn3 arch guide, Background Transpose"},
    {"cayman", "pe.min_wave", "128", "seed 004"},
    {"cayman", "pe.reorder_window", "64", "seed 004"},
    {"sunda", "pe.cost_freq", "140", "seed 004 TrainiumHwm"},
    {"cayman", "pe.cost_freq", "120", "seed 004 Gen3Hwm"},
    {"mariana", "pe.cost_freq", "120", "seed 004 CoreV4Hwm"},
    // Pool / Act channels and reorder windows: seed 004
    {"inferentia", "pool.channels", "64", "seed 004 InferentiaPool"},
    {"inferentia", "act.channels", "64", "seed 004"},
    {"sunda", "pool.channels", "128", "seed 004 SundaPool"},
    {"sunda", "act.channels", "128", "seed 004 SundaAct"},
    {"cayman", "pool.reorder_window", "8", "seed 004"},
    {"cayman", "act.reorder_window", "8", "seed 004"},
    {"mariana", "pool.reorder_window", "8", "seed 004 CoreV4Pool"},
    {"mariana", "act.reorder_window", "16", "seed 004 CoreV4Act"},
    {"mariana", "dve.reorder_window", "16", "seed 004 CoreV4Dve"},
    // DMA: seed 000 §1, §1.1, §2.1
    {"sunda", "dma.data_width", "32", "seed 000 §1.1 SDMA 32 B"},
    {"maverick", "dma.data_width", "256", "seed 000 §1"},
    {"maverick", "dma.engines", "8", "seed 000 §1"},
    {"cayman", "dma.partition_round", "32", "seed 000 §2.1"},
    // Q7 wiring: seed 000 §7.5, §1.1
    {"cayman", "q7.cores", "8", "seed 000 §7.5"},
    {"cayman", "q7.partitions_per_core", "16", "seed 000 §7.5"},
    {"cayman", "q7.bus_bytes", "64", "seed 000 §1.1 512-bit"},
    // CSR reset values: seed 000 §7.1, §7.2, §6.1, §5.6
    {"cayman", "arbiter.stage1.pe_client_0.prio", "0", "seed 000 §7.1 (CORRECTION: all reset 0)"},
    {"cayman", "arbiter.stage1.pe_client_4.prio", "0", "seed 000 §7.1"},
    {"cayman", "arbiter.stage1.pe_client_2.weight", "1", "seed 000 §7.1"},
    {"cayman", "arbiter.stage2.pe_rd.prio", "1", "seed 000 §7.1 the only non-zero reset priority"},
    {"cayman", "arbiter.stage2.pool_rd.prio", "0", "seed 000 §7.1"},
    {"cayman", "arbiter.stage2.act_wr.prio", "0", "seed 000 §7.1"},
    {"cayman", "arbiter.stage2.act_rd.weight", "1", "seed 000 §7.1"},
    {"cayman", "tdm.max_slots", "8", "seed 000 §7.2"},
    {"cayman", "tdm.dma_slots", "1", "seed 000 §7.2"},
    {"sunda", "tdm.max_slots", "8", "seed 000 §7.2"},
    {"cayman", "throttler.pool_rd.enable", "false", "seed 000 §7.2 disable_throttle rst 1"},
    {"cayman", "throttler.act_wr.enable", "false", "seed 000 §7.2"},
    {"cayman", "throttler.dve_rd.enable", "false", "seed 000 §7.2"},
    {"cayman", "axi2sram.transpose_en", "true", "seed 000 §6.1 rst 1"},
    {"cayman", "axi2sram.raw_en", "true", "seed 000 §6.1 rst 1"},
    {"cayman", "arr_seq.disable_bg_xpose", "true", "seed 000 §5.6 rst 1"},
    {"cayman", "arr_seq.disable_tagweight_mode", "true", "seed 000 §5.6 rst 1"},
    {"cayman", "arr_seq.inter_instr_dly_cnt", "8", "seed 000 §5.6 rst 8"},
    {"cayman", "arr_seq.p2fifo_af", "2", "seed 000 §5.6 rst 2"},
    // NC-v2 concurrency rules (PUBLIC_FACTS), lifted from NC-v3
    {"sunda", "concurrency.dve_gpsimd_sbuf_exclusive", "true", "PUBLIC_FACTS"},
    {"sunda", "concurrency.dve_act_psum_exclusive", "true", "PUBLIC_FACTS"},
    {"cayman", "concurrency.dve_gpsimd_sbuf_exclusive", "false", "PUBLIC_FACTS"},
    {"mariana", "concurrency.dve_act_psum_exclusive", "false", "PUBLIC_FACTS"},
};

void PrintTo(const Expect& e, std::ostream* os) { *os << e.gen << " " << e.key << " = " << e.value << " (" << e.seed << ")"; }

class ObservedConstant : public ::testing::TestWithParam<Expect> {};

TEST_P(ObservedConstant, Matches_the_seed) {
    const Expect& e = GetParam();
    const LoadedConfig cfg = load_gen(e.gen);
    const KeySpec* k = find_key(e.key);
    ASSERT_NE(k, nullptr) << e.key;
    EXPECT_EQ(k->get(cfg.params), e.value) << e.gen << " " << e.key << " (" << e.seed << ")";
}

INSTANTIATE_TEST_SUITE_P(Seeds, ObservedConstant, ::testing::ValuesIn(kObserved),
                         [](const auto& info) {
                             std::string n = std::string(info.param.gen) + "_" + info.param.key;
                             for (auto& c : n)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return n + "_" + std::to_string(info.index);
                         });

// ---- shipped files --------------------------------------------------------------------------

// tests/data/generation_values.txt records every key's value on each generation: a generation
// file that loses a line, or a declaration whose default moves, changes a generation's value here.
TEST(GenerationFiles, Every_shipped_generation_keeps_its_recorded_values) {
    std::ifstream in(std::string(SBUFSIM_TEST_DATA_DIR) + "/generation_values.txt");
    ASSERT_TRUE(in) << "cannot read tests/data/generation_values.txt";
    std::map<std::string, LoadedConfig> loaded;
    std::set<std::string> seen_gens;
    int checked = 0;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        std::string gen, key, eq, value;
        fields >> gen >> key >> eq;
        std::getline(fields >> std::ws, value);
        ASSERT_EQ(eq, "=") << line;
        const KeySpec* k = find_key(key);
        ASSERT_NE(k, nullptr) << key << " is recorded but no longer declared: restate the record";
        if (!loaded.count(gen)) loaded.emplace(gen, load_gen(gen));
        seen_gens.insert(gen);
        EXPECT_EQ(k->get(loaded.at(gen).params), value) << gen << " " << key;
        ++checked;
    }
    EXPECT_EQ(seen_gens, std::set<std::string>(generation_names().begin(), generation_names().end()));
    EXPECT_GE(checked, static_cast<int>(5 * 200));
}

// A generation file states only what differs from the key table's declaration, in value or in
// citation: a line that restates the declared default under the declared citation is clutter.
TEST(GenerationFiles, Every_stated_line_differs_from_the_declaration) {
    for (const auto& gen : generation_names()) {
        for (const Setting& s : read_ini(find_data_file(DataKind::configs, gen + ".ini"))) {
            if (s.key == "gen.name" || s.key == "gen.neuroncore") continue;
            const KeySpec* k = find_key(s.key);
            ASSERT_NE(k, nullptr) << s.key;
            const bool same_value =
                canonical_value(*k, s.value, s.origin) == canonical_value(*k, k->default_text, s.origin);
            const bool same_cite = s.comment == k->source + " | " + std::string(to_string(k->confidence));
            EXPECT_FALSE(same_value && same_cite) << s.origin.describe() << ": " << s.key
                                                  << " restates its declaration; leave it out";
        }
    }
}

TEST(GenerationFiles, Every_value_line_carries_a_source_and_confidence_tag) {
    for (const auto& gen : generation_names()) {
        std::ifstream in(find_data_file(DataKind::configs, gen + ".ini"));
        std::string line;
        int n = 0;
        while (std::getline(in, line)) {
            ++n;
            if (line.empty() || line[0] == '#' || line[0] == '[') continue;
            const bool tagged = line.find("HIGH/") != std::string::npos || line.find("MED/") != std::string::npos ||
                                line.find("LOW/") != std::string::npos || line.find("PUBLIC") != std::string::npos ||
                                line.find("MODEL/") != std::string::npos;
            EXPECT_TRUE(tagged) << gen << ".ini:" << n << ": " << line;
            EXPECT_NE(line.find("| "), std::string::npos) << gen << ".ini:" << n << " has no source";
        }
    }
}

TEST(GenerationFiles, Default_generation_is_cayman_and_key_defaults_match_it) {
    const LoadedConfig cfg = load_config(LoadRequest{});
    EXPECT_EQ(cfg.params.generation, "cayman");
    for (const auto& k : key_table())
        EXPECT_EQ(k.get(cfg.params), k.default_text) << k.name << ": key-table default differs from cayman.ini";
}

TEST(GenerationFiles, Maverick_has_no_psum) {
    EXPECT_FALSE(load_gen("maverick").params.has_psum());
    EXPECT_TRUE(load_gen("cayman").params.has_psum());
}

// ---- layering and output --------------------------------------------------------------------

TEST(Layering, User_file_base_picks_the_generation_and_set_wins_over_the_file) {
    TempIni user("base = sunda\n[tdm]\ndma_slots = 3\nstrict = yes\n");
    LoadRequest r;
    r.user_files = {user.path()};
    r.overrides = {parse_override("tdm.dma_slots=4")};
    const LoadedConfig cfg = load_config(r);
    EXPECT_EQ(cfg.params.generation, "sunda");
    EXPECT_EQ(cfg.params.sbuf.partition_active, 0x30000u);
    EXPECT_EQ(cfg.params.tdm.dma_slots, 4u);
    EXPECT_TRUE(cfg.params.tdm.strict);
}

TEST(Layering, Later_files_override_earlier_ones) {
    TempIni a("[tdm]\nmax_slots = 16\n");
    TempIni b("tdm.max_slots = 12\n");
    LoadRequest r;
    r.user_files = {a.path(), b.path()};
    EXPECT_EQ(load_config(r).params.tdm.max_slots, 12u);
}

TEST(Layering, Rendered_config_reloads_to_the_same_config) {
    for (const auto& gen : generation_names()) {
        LoadRequest r = with_set(gen, "arbiter.stage2.pool_rd.prio=5");
        const std::string first = render_ini(load_config(r), false);
        TempIni again(first);
        LoadRequest r2;
        r2.user_files = {again.path()};
        EXPECT_EQ(render_ini(load_config(r2), false), first) << gen;
    }
}

// ---- error classes --------------------------------------------------------------------------

TEST(ConfigErrors, Unknown_key_names_file_line_and_suggests) {
    TempIni f("[tdm]\n\ndma_slot = 2\n");
    LoadRequest r;
    r.user_files = {f.path()};
    expect_error(r, {f.path() + ":3", "unknown key 'tdm.dma_slot'", "did you mean 'tdm.dma_slots'"});
}

TEST(ConfigErrors, Bad_type_names_key_value_and_rule) {
    TempIni f("[tdm]\nmax_slots = eight\n");
    LoadRequest r;
    r.user_files = {f.path()};
    expect_error(r, {f.path() + ":2", "tdm.max_slots", "'eight'", "not an unsigned integer"});
    expect_error(with_set("cayman", "tdm.strict=maybe"), {"command line", "tdm.strict", "'maybe'", "not a boolean"});
    expect_error(with_set("cayman", "sbuf.half_select=bank"), {"sbuf.half_select", "not one of: partition, offset"});
    expect_error(with_set("cayman", "pe.clock_ghz=fast"), {"pe.clock_ghz", "not a number"});
    expect_error(with_set("cayman", "tdm.max_slots=-1"), {"tdm.max_slots", "not an unsigned integer"});
}

// A trace given as --config is named as a trace, not read as INI with its header an unknown key.
TEST(ConfigErrors, A_trace_given_as_a_config_file_is_named_as_a_trace) {
    TempIni text("# a comment\nsbufsim-trace 1 gen=cayman\ndma queue=q src=hbm dst=bf16@0 partitions=1 bytes=2\n");
    LoadRequest r;
    r.user_files = {text.path()};
    expect_error(r, {text.path() + ":2: this is a trace (it starts with `sbufsim-trace`), not a configuration file",
                     "--gen NAME or an .ini file with --config"});
    TempIni binary(std::string("SBUFTRC\0\x02\0\0\0\n", 13));
    LoadRequest rb;
    rb.user_files = {binary.path()};
    expect_error(rb, {binary.path() + ":1: this is a binary trace (it starts with `SBUFTRC`)"});
}

TEST(ConfigStrict, A_leading_zero_is_decimal_not_octal) {
    EXPECT_EQ(load_config(with_set("cayman", "tdm.max_slots=010")).params.tdm.max_slots, 10u);
    EXPECT_EQ(load_config(with_set("cayman", "tdm.max_slots=0x0a")).params.tdm.max_slots, 10u);
    expect_error(with_set("cayman", "tdm.max_slots=0x"), {"tdm.max_slots", "not an unsigned integer"});
    expect_error(with_set("cayman", "tdm.max_slots=1 2"), {"tdm.max_slots", "not an unsigned integer"});
}

TEST(ConfigStrict, A_utf8_byte_order_mark_is_not_part_of_the_first_key) {
    TempIni f("\xEF\xBB\xBF[tdm]\ndma_slots = 2\n");
    LoadRequest r;
    r.user_files = {f.path()};
    EXPECT_EQ(load_config(r).params.tdm.dma_slots, 2u);
    TempIni g("\xEF\xBB\xBF" "base = sunda\n");
    LoadRequest r2;
    r2.user_files = {g.path()};
    EXPECT_EQ(load_config(r2).params.generation, "sunda");
}

TEST(ConfigStrict, Control_characters_of_the_input_are_shown_escaped) {
    try {
        load_config(with_set("cayman", "tdm.max_slots=1\x1b[2J"));
        FAIL() << "a bad value was accepted";
    } catch (const ConfigError& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.find('\x1b'), std::string::npos) << what;
        EXPECT_NE(what.find("\\x1b[2J"), std::string::npos) << what;
    }
}

TEST(ConfigStrict, The_generation_name_cannot_be_set_by_the_user) {
    TempIni f("[gen]\nname = mygen\n");
    LoadRequest r;
    r.user_files = {f.path()};
    expect_error(r, {f.path() + ":2", "gen.name", "cannot be set", "--gen"});
    expect_error(with_set("cayman", "gen.name=sunda"), {"gen.name", "cannot be set"});
    // Repeating it (as `sbufsim config` writes it) is fine.
    EXPECT_EQ(load_config(with_set("cayman", "gen.name=cayman")).params.generation, "cayman");
}

TEST(ConfigStrict, More_clients_than_the_kernel_tracks_is_a_consistency_error_naming_the_key) {
    // cayman: 5 + 6 + dma.engines + 8 q7 + 7 PSUM clients; the kernel tracks 63.
    const Params p = load_gen("cayman").params;
    const std::uint32_t most = kMaxKernelClients - (declared_clients(p) - p.dma.engines);
    EXPECT_EQ(load_config(with_set("cayman", "dma.engines=" + std::to_string(most))).params.dma.engines, most);
    expect_error(with_set("cayman", "dma.engines=" + std::to_string(most + 1)),
                 {"dma.engines", "more than the 63", "command line"});
    expect_error(with_set("cayman", "dma.engines=60"), {"dma.engines = 60", "arbiter clients"});
}

TEST(ConfigErrors, Out_of_range_names_the_range) {
    expect_error(with_set("cayman", "arbiter.stage1.pe_client_0.prio=8"),
                 {"command line", "arbiter.stage1.pe_client_0.prio", "8", "out of range [0, 7]"});
    expect_error(with_set("cayman", "arbiter.stage2.pe_rd.weight=16"), {"out of range [1, 15]"});
    expect_error(with_set("cayman", "throttler.pool_rd.window_len=0"), {"throttler.pool_rd.window_len", "out of range [1, 255]"});
}

TEST(ConfigErrors, Active_size_over_stride_is_inconsistent_geometry) {
    TempIni f("[sbuf]\npartition_active = 0x50000\n");
    LoadRequest r;
    r.user_files = {f.path()};
    expect_error(r, {"sbuf.partition_active", "exceeds sbuf.partition_stride", "seed 000 §1", f.path() + ":2"});
}

TEST(ConfigErrors, Psum_bank_size_that_does_not_divide_the_partition) {
    expect_error(with_set("cayman", "psum.bank_size=3000"),
                 {"psum.bank_size", "does not tile psum.partition_active", "seed 000 §4", "command line"});
}

TEST(ConfigErrors, Dma_slots_over_max_slots) {
    expect_error(with_set("cayman", "tdm.dma_slots=9"), {"tdm.dma_slots = 9 exceeds tdm.max_slots = 8", "seed 000 §7.2"});
}

TEST(GenerationFiles, A_key_a_generation_file_leaves_out_holds_its_declaration) {
    // A copy of sunda.ini without its sbuf.partition_active line, in a --config-dir of its own:
    // the key holds its declared default (cayman's 0x38000) under the declaration's citation,
    // and its origin says so.
    const fs::path dir = test::temp("gen_dir");
    fs::create_directories(dir);
    std::ifstream in(find_data_file(DataKind::configs, "sunda.ini"));
    std::ofstream out(dir / "sunda.ini");
    std::string section;
    int dropped = 0;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("[", 0) == 0) section = line;
        if (section == "[sbuf]" && line.rfind("partition_active", 0) == 0) {
            ++dropped;
            continue;
        }
        out << line << "\n";
    }
    out.close();
    ASSERT_EQ(dropped, 1);
    LoadRequest r;
    r.generation = "sunda";
    r.config_dir = dir.string();
    const LoadedConfig cfg = load_config(r);
    const KeySpec* k = find_key("sbuf.partition_active");
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->get(cfg.params), k->default_text);
    EXPECT_EQ(load_gen("sunda").params.sbuf.partition_active, 0x30000u);
    const std::size_t i = static_cast<std::size_t>(k - key_table().data());
    EXPECT_EQ(cfg.origins[i].describe(), "default");
    EXPECT_NE(render_ini(cfg).find("partition_active = " + k->default_text), std::string::npos);
    EXPECT_NE(render_ini(cfg).find(k->source + " | " + std::string(to_string(k->confidence))), std::string::npos);
    fs::remove_all(dir);
}

// The loader keeps each generation file it parsed (a sweep loads a configuration per point), so
// a file rewritten between two loads of one process, even to the same size within the same
// clock tick, must be read again, and one that fails must fail on every load.
TEST(ConfigLoad, A_generation_file_rewritten_between_loads_is_read_again) {
    const fs::path dir = test::temp("gen_rewrite");
    fs::create_directories(dir);
    std::string text;
    {
        std::ifstream in(find_data_file(DataKind::configs, "sunda.ini"));
        text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    // gen.lnc: a one-digit value sunda.ini states (1).
    const std::string slots = "\nlnc = ";
    const std::size_t at = text.find(slots);
    ASSERT_NE(at, std::string::npos);
    const char shipped = text[at + slots.size()];
    const auto write = [&](char value) {
        std::string copy = text;
        copy[at + slots.size()] = value;
        std::ofstream(dir / "sunda.ini", std::ios::binary | std::ios::trunc) << copy;
    };
    LoadRequest r;
    r.generation = "sunda";
    r.config_dir = dir.string();
    const char other = shipped == '1' ? '2' : '1';
    for (const char value : {shipped, other, shipped}) {
        write(value);
        EXPECT_EQ(load_config(r).params.lnc, static_cast<unsigned>(value - '0'));
    }
    write('x');
    for (int i = 0; i < 2; ++i) expect_error(r, {(dir / "sunda.ini").string(), "gen.lnc"});
    write(shipped);
    EXPECT_EQ(load_config(r).params.lnc, static_cast<unsigned>(shipped - '0'));
    fs::remove_all(dir);
}

TEST(ConfigErrors, An_unknown_base_names_its_line_and_an_instance_name_its_generation) {
    TempIni f("# mine\nbase = trn2\n[tdm]\ndma_slots = 2\n");
    LoadRequest r;
    r.user_files = {f.path()};
    expect_error(r, {f.path() + ":2", "unknown generation 'trn2'", "trn2's is 'cayman'"});
    r = LoadRequest{};
    r.generation = "inf2";
    expect_error(r, {"unknown generation 'inf2'", "inf2's is 'sunda'"});
    r.generation = "caymen";
    expect_error(r, {"unknown generation 'caymen' (did you mean 'cayman'?)"});
}

TEST(ConfigErrors, Hbm_bandwidth_too_small_to_time) {
    // 1e-13 GB/s gave a run of 6.3e18 cycles, and 1e-14 one as fast as no limit (an overflow).
    expect_error(with_set("cayman", "dma.hbm_gbps=1e-13"),
                 {"dma.hbm_gbps = 1e-13 is below 0.01 GB/s", "set 0 for no HBM limit", "command line"});
    EXPECT_EQ(load_config(with_set("cayman", "dma.hbm_gbps=0")).params.dma.hbm_gbps, 0.0);
    EXPECT_EQ(load_config(with_set("cayman", "dma.hbm_gbps=0.01")).params.dma.hbm_gbps, 0.01);
}

TEST(ConfigErrors, Strict_tdm_that_starves_a_class) {
    LoadRequest r = with_set("cayman", "tdm.strict=true");
    r.overrides.push_back(parse_override("tdm.dma_slots=0"));
    expect_error(r, {"tdm.strict = true with tdm.dma_slots = 0 of 8", "DMA class no slot"});
    r.overrides.back() = parse_override("tdm.dma_slots=8");
    expect_error(r, {"compute class no slot"});
    r.overrides.back() = parse_override("tdm.dma_slots=7");
    EXPECT_EQ(load_config(r).params.tdm.dma_slots, 7u);
}

TEST(ConfigErrors, Enabled_throttler_that_passes_nothing) {
    LoadRequest r = with_set("cayman", "throttler.act_rd.enable=true");
    r.overrides.push_back(parse_override("throttler.act_rd.transfer_cnt=0"));
    expect_error(r, {"throttler.act_rd is enabled with transfer_cnt = 0", "seed 000 §7.2", "command line"});
    r.overrides.front() = parse_override("throttler.act_rd.enable=false");
    EXPECT_EQ(load_config(r).params.throttler.act_rd.transfer_cnt, 0u);
}

TEST(ConfigErrors, Malformed_line_duplicate_key_and_misplaced_base) {
    TempIni bad("[tdm\n");
    LoadRequest r;
    r.user_files = {bad.path()};
    expect_error(r, {bad.path() + ":1", "malformed section header"});
    TempIni noeq("[tdm]\nmax_slots 8\n");
    r.user_files = {noeq.path()};
    expect_error(r, {noeq.path() + ":2", "malformed line", "expected `key = value`"});
    TempIni dup("[tdm]\nmax_slots = 8\nmax_slots = 4\n");
    r.user_files = {dup.path()};
    expect_error(r, {dup.path() + ":3", "set twice", "line 2"});
    TempIni base("[tdm]\nbase = sunda\n");
    r.user_files = {base.path()};
    expect_error(r, {base.path() + ":2", "before the first [section]"});
}

TEST(ConfigErrors, Unknown_generation_missing_file_and_conflicting_base) {
    LoadRequest r;
    r.generation = "trainium9";
    expect_error(r, {"unknown generation 'trainium9'", "inferentia, sunda, cayman, mariana, maverick"});
    LoadRequest m;
    m.user_files = {"/nonexistent/x.ini"};
    expect_error(m, {"/nonexistent/x.ini", "cannot open"});
    TempIni f("base = sunda\n");
    LoadRequest c;
    c.generation = "cayman";
    c.user_files = {f.path()};
    expect_error(c, {f.path() + ":1", "base = sunda conflicts with generation 'cayman'"});
}

// A throttler's limit set while it is off, or one it can never reach, cannot change a run:
// valid settings, noted. The generation file's own values (every throttler off, 16 per 16) are
// not the user's and get no note.
TEST(ConfigNotes, Throttler_settings_without_effect_are_named) {
    EXPECT_TRUE(settings_without_effect(load_gen("cayman")).empty());
    LoadRequest r;
    r.generation = "cayman";
    r.overrides.push_back({"throttler.act_wr.transfer_cnt", "1", Origin{"", 0}, ""});
    r.overrides.push_back({"throttler.dve_rd.enable", "true", Origin{"", 0}, ""});
    r.overrides.push_back({"throttler.dve_rd.transfer_cnt", "64", Origin{"", 0}, ""});
    r.overrides.push_back({"throttler.pool_rd.enable", "true", Origin{"", 0}, ""});
    r.overrides.push_back({"throttler.pool_rd.transfer_cnt", "15", Origin{"", 0}, ""});  // binds: 15 of 16
    const std::vector<std::string> notes = settings_without_effect(load_config(r));
    ASSERT_EQ(notes.size(), 2u);
    EXPECT_EQ(notes[0],
              "throttler.act_wr.transfer_cnt (set at command line) has no effect while "
              "throttler.act_wr.enable = false; set throttler.act_wr.enable=true to throttle act_wr");
    EXPECT_EQ(notes[1],
              "throttler.dve_rd.transfer_cnt = 64 >= throttler.dve_rd.window_len = 16: the limit never "
              "binds (dve_rd moves at most one beat a cycle, 16 per window)");
}

TEST(ConfigErrors, Set_without_equals_is_a_usage_error) {
    EXPECT_THROW(parse_override("tdm.dma_slots"), ConfigError);
    EXPECT_THROW(parse_override("=3"), ConfigError);
    const Setting s = parse_override(" tdm.dma_slots = 2 ");
    EXPECT_EQ(s.key, "tdm.dma_slots");
    EXPECT_EQ(s.value, "2");
}

TEST(KeyTable, Names_are_unique_and_every_key_has_help_source_and_a_valid_default) {
    std::set<std::string> names;
    for (const auto& k : key_table()) {
        EXPECT_TRUE(names.insert(k.name).second) << "duplicate key " << k.name;
        EXPECT_FALSE(k.help.empty()) << k.name;
        EXPECT_FALSE(k.source.empty()) << k.name;
        EXPECT_NE(k.name.find('.'), std::string::npos) << k.name << " has no section";
    }
}

}  // namespace
}  // namespace sbufsim
