// `sbufsim config`: effective configuration output, --help listing every key, key flags, exit
// codes, near misses, and the generated key reference (every key in one row, with what it declares).
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "cli_harness.h"
#include "sbufsim/types/near_miss.h"

namespace sbufsim::cli {
namespace {

using Result = test::CliOut;
constexpr auto run_cli = test::sbufsim;

std::string value_line(const std::string& ini, const std::string& section, const std::string& key) {
    std::istringstream in(ini);
    std::string line, sec;
    while (std::getline(in, line)) {
        if (!line.empty() && line[0] == '[') sec = line.substr(1, line.find(']') - 1);
        if (sec == section && line.rfind(key + " = ", 0) == 0) return line;
    }
    return {};
}

// run notes a throttler setting that cannot change the run, once, before the report.
TEST(ConfigCommand, Run_notes_a_throttler_limit_set_while_the_throttler_is_off) {
    const std::string t = test::shipped("dma_vs_compute.trc");
    Result r = run_cli({"run", t, t, "--quiet", "--set", "throttler.act_wr.transfer_cnt=1"});
    ASSERT_EQ(r.rc, kExitOk) << r.err;
    const std::string note =
        "sbufsim run: note: throttler.act_wr.transfer_cnt (set at command line) has no effect while "
        "throttler.act_wr.enable = false; set throttler.act_wr.enable=true to throttle act_wr\n";
    EXPECT_EQ(r.err, note);  // two traces, one note
    r = run_cli({"run", t, "--quiet", "--set", "throttler.act_wr.transfer_cnt=1", "--set",
                 "throttler.act_wr.enable=true"});
    ASSERT_EQ(r.rc, kExitOk) << r.err;
    EXPECT_EQ(r.err, "");
}

TEST(ConfigCommand, Prints_the_default_generation_cayman) {
    const Result r = run_cli({"config", "--plain"});
    ASSERT_EQ(r.rc, kExitOk) << r.err;
    EXPECT_EQ(value_line(r.out, "gen", "name"), "name = cayman");
    EXPECT_EQ(value_line(r.out, "sbuf", "partition_active"), "partition_active = 0x38000");
    EXPECT_NE(r.out.find("base = cayman"), std::string::npos);
}

TEST(ConfigCommand, Set_and_key_flags_override_in_command_line_order) {
    Result r =
        run_cli({"config", "--plain", "--gen", "sunda", "--set", "tdm.dma_slots=2", "--tdm.dma_slots=3"});
    ASSERT_EQ(r.rc, kExitOk) << r.err;
    EXPECT_EQ(value_line(r.out, "tdm", "dma_slots"), "dma_slots = 3");
    EXPECT_EQ(value_line(r.out, "gen", "name"), "name = sunda");
    r = run_cli({"config", "--plain", "--tdm.dma_slots=3", "--set", "tdm.dma_slots=2"});
    EXPECT_EQ(value_line(r.out, "tdm", "dma_slots"), "dma_slots = 2");
}

TEST(ConfigCommand, Annotated_output_says_where_an_override_came_from) {
    const Result r = run_cli({"config", "--set", "tdm.strict=true"});
    ASSERT_EQ(r.rc, kExitOk) << r.err;
    const std::string line = value_line(r.out, "tdm", "strict");
    EXPECT_NE(line.find("from command line"), std::string::npos) << line;
    EXPECT_NE(line.find("seed 000 §7.2"), std::string::npos) << line;
}

TEST(ConfigCommand, Configuration_errors_exit_2_with_the_reason_on_stderr) {
    const Result r = run_cli({"config", "--set", "tdm.dma_slots=9"});
    EXPECT_EQ(r.rc, kExitUsage);
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find("tdm.dma_slots = 9 exceeds tdm.max_slots = 8"), std::string::npos) << r.err;
    const Result u = run_cli({"config", "--gen", "nope"});
    EXPECT_EQ(u.rc, kExitUsage);
    EXPECT_NE(u.err.find("unknown generation 'nope'"), std::string::npos) << u.err;
    const Result f = run_cli({"config", "--no-such-flag"});
    EXPECT_EQ(f.rc, kExitUsage);
    EXPECT_NE(f.err.find("no-such-flag"), std::string::npos) << f.err;
}

TEST(ConfigCommand, Recorded_only_keys_are_marked_in_the_output_help_and_reference) {
    const Result ini = run_cli({"config"});
    ASSERT_EQ(ini.rc, kExitOk) << ini.err;
    EXPECT_NE(value_line(ini.out, "pe", "reorder_window").find("| recorded, no effect"), std::string::npos);
    EXPECT_EQ(value_line(ini.out, "pe", "row_groups").find("recorded"), std::string::npos);
    const Result help = run_cli({"config", "--help"});
    const Result ref = run_cli({"config", "--reference"});
    std::size_t marked = 0;
    for (const auto& k : key_table()) {
        if (k.no_effect.empty()) continue;
        ++marked;
        EXPECT_NE(help.out.find("recorded, no effect: " + k.no_effect), std::string::npos) << k.name;
        EXPECT_NE(ref.out.find("| `" + k.name + "` |"), std::string::npos) << k.name;
        EXPECT_NE(ref.out.find("*recorded, no effect: " + k.no_effect + ".*"), std::string::npos) << k.name;
    }
    EXPECT_GT(marked, 0u);
    // The modelled keys carry no mark.
    EXPECT_TRUE(find_key("arr_seq.disable_dependency_check")->no_effect.empty());
    EXPECT_TRUE(find_key("pe.row_groups")->no_effect.empty());
}

TEST(ConfigCommand, Help_lists_every_key_with_its_help_text) {
    const Result r = run_cli({"config", "--help"});
    ASSERT_EQ(r.rc, kExitOk);
    for (const auto& k : key_table()) {
        EXPECT_NE(r.out.find("  " + k.name + " = "), std::string::npos) << k.name;
        EXPECT_NE(r.out.find(k.help), std::string::npos) << k.name;
    }
}

// The reference the build writes as docs/config-reference.md: one row per key of the table, in
// table order, naming its type, default, unit, confidence and source.
TEST(ConfigCommand, Reference_has_one_row_per_key_with_its_declaration) {
    const Result r = run_cli({"config", "--reference"});
    ASSERT_EQ(r.rc, kExitOk);
    std::size_t at = 0;
    for (const auto& k : key_table()) {
        const std::size_t row = r.out.find("| `" + k.name + "` | ", at);
        ASSERT_NE(row, std::string::npos) << k.name << " has no row after the previous key's";
        const std::string line = r.out.substr(row, r.out.find('\n', row) - row);
        EXPECT_NE(line.find(" | " + std::string(to_string(k.type)) + " | "), std::string::npos) << line;
        EXPECT_NE(line.find(k.source), std::string::npos) << line;
        if (!k.unit.empty()) {
            EXPECT_NE(line.find(" | " + k.unit + " | "), std::string::npos) << line;
        }
        EXPECT_EQ(r.out.find("| `" + k.name + "` | ", row + 1), std::string::npos) << k.name << ": two rows";
        at = row + 1;
    }
}

TEST(Cli, A_swap_of_neighbours_or_one_edit_to_a_short_name_is_a_near_miss) {
    EXPECT_EQ(edit_distance("jsno", "json"), 1u);
    EXPECT_EQ(edit_distance("rn", "run"), 1u);
    EXPECT_EQ(edit_distance("tdm.dma_slots", "tdm.dma_slots"), 0u);
    EXPECT_EQ(edit_distance("ca", "abc"), 3u);  // one swap, then no edit of the swapped pair
    EXPECT_EQ(edit_distance("", "run"), 3u);
    Result r = run_cli({"rn"});
    EXPECT_EQ(r.rc, kExitUsage);
    EXPECT_NE(r.err.find("unknown command 'rn' (did you mean 'run'?)"), std::string::npos) << r.err;
    r = run_cli({"run", "--jsno", "x.json"});
    EXPECT_EQ(r.rc, kExitUsage);
    EXPECT_NE(r.err.find("(did you mean '--json'?)"), std::string::npos) << r.err;
    r = run_cli({"x"});  // one character: anything is one edit away
    EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << r.err;
}

TEST(Cli, Near_misses_ignore_case_and_the_options_already_given) {
    EXPECT_EQ(edit_distance("TDM.DMA_SLOTS", "tdm.dma_slots"), 0u);
    Result r = run_cli({"sweep", test::shipped("dma_load.trc"), "--vary", "TDM.DMA_SLOTS=1,2"});
    EXPECT_EQ(r.rc, kExitUsage);
    EXPECT_NE(r.err.find("unknown key 'TDM.DMA_SLOTS'; did you mean 'tdm.dma_slots'?"), std::string::npos)
        << r.err;
    // --dheads is one edit from --heads and from --dhead; --heads is on the line already.
    r = run_cli({"gen", "attention", "--seq", "256", "--heads", "1", "--dheads", "128", "-o", "x.sbt"});
    EXPECT_EQ(r.rc, kExitUsage);
    EXPECT_NE(r.err.find("unrecognised option '--dheads' (did you mean '--dhead'?)"), std::string::npos)
        << r.err;
    // An option that may be given again is still suggested (--set beside --set).
    r = run_cli(
        {"run", "--set", "tdm.dma_slots=2", "--sett", "tdm.strict=true", test::shipped("dma_load.trc")});
    EXPECT_NE(r.err.find("(did you mean '--set'?)"), std::string::npos) << r.err;
}

TEST(Cli, A_shortened_option_is_refused_with_the_one_it_starts) {
    // Not completed silently: --tdm.dma_s=2 used to set tdm.dma_slots.
    Result r = run_cli({"config", "--tdm.dma_s=2"});
    EXPECT_EQ(r.rc, kExitUsage);
    EXPECT_NE(r.err.find("unrecognised option '--tdm.dma_s=2' (did you mean '--tdm.dma_slots'?)"),
              std::string::npos)
        << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    r = run_cli({"run", "--sched", "clocked", "x.trc"});
    EXPECT_EQ(r.rc, kExitUsage);
    EXPECT_NE(r.err.find("(did you mean '--scheduler'?)"), std::string::npos) << r.err;
}

TEST(Cli, A_word_a_command_does_not_take_is_named) {
    // Was a 10 kB "ambiguous" list of every key flag.
    Result r = run_cli({"config", "show"});
    EXPECT_EQ(r.rc, kExitUsage);
    EXPECT_NE(r.err.find("unexpected argument 'show': this command takes options only"), std::string::npos)
        << r.err;
    EXPECT_LT(r.err.size(), 300u) << r.err;
    r = run_cli({"plot", "a.json", "b.json"});
    EXPECT_EQ(r.rc, kExitUsage);
    EXPECT_NE(r.err.find("unexpected argument 'b.json': this command takes at most 1 file or name argument"),
              std::string::npos)
        << r.err;
}

TEST(Cli, Unknown_command_and_no_command_are_usage_errors) {
    Result r = run_cli({"frobnicate"});
    EXPECT_EQ(r.rc, kExitUsage);
    EXPECT_NE(r.err.find("unknown command 'frobnicate'"), std::string::npos);
    EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << r.err;  // nothing close
    EXPECT_NE(r.err.find("; the commands: run check convert"), std::string::npos) << r.err;
    // A near miss is one line, not the line and the usage after it.
    r = run_cli({"runn"});
    EXPECT_EQ(r.rc, kExitUsage);
    EXPECT_EQ(r.err, "sbufsim: unknown command 'runn' (did you mean 'run'?)\n");
    r = run_cli({"config", "--tdm.dma_slotz=2"});
    EXPECT_EQ(r.rc, kExitUsage);
    EXPECT_NE(r.err.find("(did you mean '--tdm.dma_slots'?)"), std::string::npos) << r.err;
    r = run_cli({"decode", "--gem", "sunda", "0x0"});
    EXPECT_NE(r.err.find("(did you mean '--gen'?)"), std::string::npos) << r.err;
    r = run_cli({});
    EXPECT_EQ(r.rc, kExitUsage);
    r = run_cli({"--help"});
    EXPECT_EQ(r.rc, kExitOk);
    for (const auto& c : commands()) EXPECT_NE(r.out.find(c.name), std::string::npos) << c.name;
}

}  // namespace
}  // namespace sbufsim::cli
