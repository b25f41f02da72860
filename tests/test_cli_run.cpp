// `sbufsim run` end to end through the command table (cli::run with captured streams).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <atomic>
#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "cli_harness.h"
#include "sbufsim/output/output_file.h"

namespace sbufsim::cli {
namespace {

using namespace sbufsim::test;
using Out = CliOut;

TEST(CliRun, Default_workload_runs_without_a_trace) {
    const Out o = sbufsim({"run", "--details"});
    EXPECT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_NE(o.out.find("matmul_kloop.trc"), std::string::npos);
    EXPECT_NE(o.out.find("128x128 32"), std::string::npos) << o.out;
}

// gen writes to standard output by default; run and check read it from '-'. A sweep, which
// replays its trace once per point, refuses it.
// The TDM slot table says which class goes first in each slot, and that a cycle granting both
// classes counts in both columns.
TEST(CliRun, The_tdm_slot_table_names_each_slots_class) {
    const Out o = sbufsim({"run", shipped("dma_vs_compute.trc"), "--set", "tdm.dma_slots=2", "--details"});
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_NE(
        o.out.find("TDM slots (first: the class with precedence; compute, dma: cycles with a grant of that "
                   "class, both counted when both went; idle: no SBUF grant)"),
        std::string::npos)
        << o.out;
    EXPECT_NE(o.out.find("\n0     dma      "), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("\n1     dma      "), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("\n2     compute  "), std::string::npos) << o.out;
    EXPECT_EQ(o.out.find("\n2     dma      "), std::string::npos) << o.out;
}

TEST(CliRun, A_trace_on_standard_input_is_read_from_dash) {
    const std::string bin = shell_quote(SBUFSIM_BINARY), file = temp("stdin_gemm.trc");
    const std::string gen = bin + " gen gemm --m 256 --n 256 --k 256 2>/dev/null";
    ASSERT_EQ(shell(gen + " > " + shell_quote(file)), 0);
    const std::string piped = temp("stdin_run.json"), direct = temp("file_run.json");
    ASSERT_EQ(shell(gen + " | " + bin + " run - --quiet --json " + shell_quote(piped)), 0);
    ASSERT_EQ(sbufsim({"run", file, "--quiet", "--json", direct}).rc, kExitOk);
    boost::property_tree::ptree a, b;
    boost::property_tree::read_json(piped, a);
    boost::property_tree::read_json(direct, b);
    const auto& ra = a.get_child("runs").front().second;
    const auto& rb = b.get_child("runs").front().second;
    EXPECT_EQ(ra.get<std::string>("run.total_cycles"), rb.get<std::string>("run.total_cycles"));
    EXPECT_EQ(ra.get<std::string>("run.trace_digest"), rb.get<std::string>("run.trace_digest"));
    EXPECT_EQ(shell(gen + " | " + bin + " check - > /dev/null"), 0);
    const Out sweep = sbufsim({"sweep", "-", "--vary", "tdm.dma_slots=1,2"});
    EXPECT_EQ(sweep.rc, kExitUsage);
    EXPECT_NE(sweep.err.find("trace '-' (standard input): a sweep replays each trace once per point"),
              std::string::npos)
        << sweep.err;
    // A file that is not there is named without a line number.
    const Out missing = sbufsim({"run", "nothere.trc"});
    EXPECT_NE(missing.err.find("nothere.trc: cannot open: No such file or directory\n"), std::string::npos)
        << missing.err;
    // A path that is not there, named as the examples name a shipped trace (traces/x.trc, run
    // from anywhere but a checkout): where the shipped trace of that name is.
    for (const std::string cmd : {"run", "check", "sweep"}) {
        const Out hint = sbufsim({cmd, "no/such/folder/dma_load.trc"});
        EXPECT_EQ(hint.rc, kExitInput) << cmd;
        const auto at = hint.err.find(
            "no/such/folder/dma_load.trc: cannot open: No such file or directory (a "
            "shipped trace of that name: ");
        EXPECT_NE(at, std::string::npos) << cmd << ": " << hint.err;
        EXPECT_NE(hint.err.find("/dma_load.trc)\n", at), std::string::npos) << hint.err;
    }
}

// Two tilings of one GEMM do the same matmul work: one table side by side, each run against the
// fewest cycles. With --details each run's report comes first.
TEST(CliRun, Runs_of_the_same_work_are_compared_with_the_fewest) {
    const std::string bm1 = temp("cmp_bm1.sbt"), bm2 = temp("cmp_bm2.sbt");
    ASSERT_EQ(sbufsim({"gen", "gemm", "--m", "1024", "--n", "512", "--k", "1024", "-o", bm1}).rc, kExitOk);
    ASSERT_EQ(
        sbufsim({"gen", "gemm", "--m", "1024", "--n", "512", "--k", "1024", "--block-m", "2", "-o", bm2}).rc,
        kExitOk);
    const Out o = sbufsim({"run", bm1, bm2});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    const auto at = o.out.find("comparison of 2 runs of the same matmul work");
    ASSERT_NE(at, std::string::npos) << o.out;
    EXPECT_EQ(o.out.find("critical path:"), std::string::npos) << o.out;  // no report of its own
    const std::string table = o.out.substr(at);
    EXPECT_TRUE(std::regex_search(table, std::regex(R"(cmp_bm\d\.sbt +\d+ +fewest +(PE|DMA) )"))) << table;
    EXPECT_TRUE(std::regex_search(table, std::regex(R"(cmp_bm\d\.sbt +\d+ +\+\d+\.\d% +(PE|DMA) )")))
        << table;
    const Out full = sbufsim({"run", bm1, bm2, "--details"});
    EXPECT_LT(full.out.find("critical path:"), full.out.find("comparison of 2 runs")) << full.out;
    EXPECT_EQ(sbufsim({"run", shipped("matmul_kloop.trc")}).out.find("comparison of"), std::string::npos);
}

// Runs of different work (a network's layers): no "vs fewest", which would compare a large layer
// with a small one, but each row's share of their sum and a total row; runs with the same figures
// share a row.
TEST(CliRun, Runs_of_different_work_get_their_shares_and_a_total_row) {
    const Out o = sbufsim(
        {"run", shipped("matmul_kloop.trc"), shipped("dma_vs_compute.trc"), shipped("matmul_kloop.trc")});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_NE(o.out.find("3 runs of different work, one after another: 89948 cycles"), std::string::npos)
        << o.out;
    EXPECT_EQ(o.out.find("vs fewest"), std::string::npos) << o.out;
    // 19774 x 2 of 89948 = 44.0 %, 50400 = 56.0 %; the total's path is DMA's 50400 of 89948.
    EXPECT_TRUE(std::regex_search(o.out, std::regex(R"(dma_vs_compute\.trc +50400 +56\.0% +DMA 100\.0%)")))
        << o.out;
    EXPECT_TRUE(std::regex_search(o.out, std::regex(R"(matmul_kloop\.trc x2 +19774 +44\.0% +PE 92\.1%)")))
        << o.out;
    EXPECT_TRUE(std::regex_search(o.out, std::regex(R"(\ntotal \(3 runs\) +89948 +100\.0% +DMA 56\.)")))
        << o.out;
}

// The summary a run prints by default is one screen (at most 30 lines of at most 120 columns) on
// the default workload and the generated GEMM, attention and convolution: the verdict, the
// critical path by engine, MFU and MBU, and findings with something to gain only. --details
// prints every table, and the JSON is the same either way.
TEST(CliRun, The_default_summary_fits_one_screen_and_details_prints_every_table) {
    const std::string g = temp("screen_gemm.sbt"), a = temp("screen_attention.sbt"),
                      c = temp("screen_conv.sbt");
    ASSERT_EQ(sbufsim({"gen", "gemm", "--m", "1024", "--n", "1024", "--k", "4096", "-o", g}).rc, kExitOk);
    ASSERT_EQ(sbufsim({"gen", "attention", "--seq", "512", "--heads", "4", "--dhead", "128", "-o", a}).rc,
              kExitOk);
    ASSERT_EQ(sbufsim({"gen", "conv", "--h", "28", "--w", "28", "--c", "128", "--k", "128", "--r", "3", "--s",
                       "3", "-o", c})
                  .rc,
              kExitOk);
    for (const std::vector<std::string>& traces : {std::vector<std::string>{}, {g}, {a}, {c}}) {
        std::vector<std::string> args = {"run"};
        args.insert(args.end(), traces.begin(), traces.end());
        const Out o = sbufsim(args);
        ASSERT_EQ(o.rc, kExitOk) << o.err;
        std::istringstream in(o.out);
        std::size_t lines = 0;
        for (std::string line; std::getline(in, line); ++lines) EXPECT_LE(line.size(), 120u) << line;
        EXPECT_LE(lines, 30u) << o.out;
        EXPECT_NE(o.out.find("\nutilisation: MFU "), std::string::npos) << o.out;
        EXPECT_NE(o.out.find(", MBU "), std::string::npos) << o.out;
        EXPECT_EQ(o.out.find("nothing to gain"), std::string::npos) << o.out;
        EXPECT_EQ(o.out.find("clients (active only)"), std::string::npos) << o.out;
        EXPECT_NE(o.out.find("\n--details: "), std::string::npos) << o.out;
        args.push_back("--details");
        const Out full = sbufsim(args);
        for (const char* table : {"\nengines (cycles;", "\nclients (active only)", "\nbanks (used only;"})
            EXPECT_NE(full.out.find(table), std::string::npos) << table;
    }
    // The default workload's ACT semaphore finding has nothing to gain: only --details tells it.
    EXPECT_NE(
        sbufsim({"run", "--details"}).out.find("try: nothing to gain in run time from more buffers for act"),
        std::string::npos);
    const Out brief = sbufsim({"run", g, "--quiet", "--json", "-"});
    const Out full = sbufsim({"run", g, "--quiet", "--json", "-", "--details"});
    EXPECT_EQ(brief.out, full.out);
}

// A trace with source locations names the line that holds most of the critical path on the one
// screen, and keeps it among the findings in the JSON, however many engine findings come first:
// the generated 512-cube GEMM has five, and its line was left out of both.
TEST(CliRun, The_one_screen_names_the_top_source_line_whatever_comes_before_it) {
    const std::string g = temp("screen_line_gemm.trc");
    ASSERT_EQ(sbufsim({"gen", "gemm", "--m", "512", "--n", "512", "--k", "512", "-o", g}).rc, kExitOk);
    const Out o = sbufsim({"run", g});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_NE(o.out.find("3. gemm:matmul: 38.8 % of the critical path"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("try: the line to work on first"), std::string::npos) << o.out;
    const Out json = sbufsim({"run", g, "--quiet", "--json", "-"});
    EXPECT_NE(json.out.find("\"f6\": {\"cycles\": 9484, \"text\": \"gemm:matmul: 38.8 %"), std::string::npos)
        << json.out.substr(0, 400);
    const Out plain = sbufsim({"run", shipped("matmul_kloop.trc")});  // no locations: no such finding
    EXPECT_EQ(plain.out.find("the line to work on first"), std::string::npos) << plain.out;
}

TEST(CliRun, Json_parses_and_its_totals_equal_the_summary) {
    const Out o = sbufsim({"run", shipped("matmul_kloop.trc"), "--json", "-"});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    // With the JSON on stdout, stdout holds nothing else: the summary goes to stderr.
    ASSERT_EQ(o.out.rfind("{", 0), 0u) << o.out.substr(0, 200);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(o.err, m, std::regex("total ([0-9]+) cycles"))) << o.err;
    std::istringstream js(o.out);
    boost::property_tree::ptree t;
    boost::property_tree::read_json(js, t);
    const auto& run0 = t.get_child("runs").begin()->second;
    EXPECT_EQ(run0.get<std::string>("run.total_cycles"), m[1].str());
    EXPECT_EQ(run0.get<int>("pe.matmuls"), 32);
    EXPECT_EQ(run0.get<int>("psum.groups_begun"), 8);
    EXPECT_EQ(run0.get<std::string>("run.scheduler"), "fast");
    EXPECT_EQ(run0.get<std::string>("run.config_hash").size(), 16u);
    EXPECT_EQ(run0.get<std::string>("run.trace_digest").size(), 16u);
}

TEST(CliRun, Two_runs_give_identical_json) {
    const Out a = sbufsim({"run", shipped("dma_vs_compute.trc"), "--quiet", "--json", "-"});
    const Out b = sbufsim({"run", shipped("dma_vs_compute.trc"), "--quiet", "--json", "-"});
    ASSERT_EQ(a.rc, kExitOk) << a.err;
    EXPECT_FALSE(a.out.empty());
    EXPECT_EQ(a.out, b.out);
}

TEST(CliRun, Json_and_csv_cannot_share_stdout) {
    const Out o = sbufsim({"run", shipped("dma_load.trc"), "--json", "-", "--csv", "-"});
    EXPECT_EQ(o.rc, kExitUsage);
    EXPECT_TRUE(o.out.empty());
    EXPECT_NE(o.err.find("--json - and --csv - both ask for stdout"), std::string::npos) << o.err;
}

TEST(CliRun, Stats_text_carries_the_json_values_with_descriptions_and_units) {
    const Out o = sbufsim({"run", shipped("dma_load.trc"), "--stats", "-"});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    ASSERT_EQ(o.out.rfind("---------- Begin sbufsim statistics: ", 0), 0u) << o.out.substr(0, 200);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(o.err, m, std::regex("total ([0-9]+) cycles")))
        << o.err;  // summary on stderr
    EXPECT_TRUE(std::regex_search(
        o.out, std::regex("\nrun\\.total_cycles +" + m[1].str() + " +# [^\n]+ \\(cycles\\)\n")))
        << o.out.substr(0, 600);
    EXPECT_NE(o.out.find("\n---------- End sbufsim statistics ----------\n"), std::string::npos);
    // A second document on stdout is refused before anything runs.
    const Out both = sbufsim({"run", shipped("dma_load.trc"), "--csv", "-", "--stats", "-"});
    EXPECT_EQ(both.rc, kExitUsage);
    EXPECT_TRUE(both.out.empty());
    EXPECT_NE(both.err.find("--csv - and --stats - both ask for stdout"), std::string::npos) << both.err;
}

TEST(CliRun, Csv_on_stdout_is_alone_and_quotes_fields_per_rfc4180) {
    // A trace file name with a comma and a quote must come out as one quoted field.
    const std::string odd = temp("a,b\"c.trc");
    {
        std::ifstream in(shipped("dma_load.trc"));
        std::ofstream out(odd);
        out << in.rdbuf();
    }
    const Out o = sbufsim({"run", odd, "--csv", "-"});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_EQ(o.out.rfind("trace,section,name,metric,value\n", 0), 0u);
    const std::string quoted = "\"" + temp("a,b\"\"c.trc") + "\",run,,total_cycles,27716\n";
    EXPECT_NE(o.out.find(quoted), std::string::npos) << o.out.substr(0, 400);
    EXPECT_NE(o.err.find("total 27716 cycles"), std::string::npos);  // the summary went to stderr
    // A text value with a comma (the verdict) is quoted too.
    EXPECT_NE(o.out.find(",bottleneck,,verdict,\"bound by DMA: 100.0 % of the critical path ("),
              std::string::npos);
}

TEST(CliRun, From_reruns_a_result_file_with_identical_statistics) {
    const std::string first = temp("from_first.json");
    const std::string again = temp("from_again.json");
    Out o = sbufsim({"run", shipped("dma_vs_compute.trc"), "-q", "--set", "tdm.dma_slots=2",
                     "--tdm.max_slots=8", "--json", first});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    const std::string recorded = slurp(first);
    // The settings that differ from the generation are recorded with where they came from.
    EXPECT_NE(recorded.find("\"tdm.dma_slots\": {\"value\": \"2\", \"from\": \"command line\"}"),
              std::string::npos)
        << recorded.substr(0, 1500);
    EXPECT_NE(recorded.find("\"tdm.max_slots\": {\"value\": \"8\""), std::string::npos);
    o = sbufsim({"run", "--from", first, "-q", "--json", again});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_EQ(slurp(again), recorded);
    // The default settings give other statistics, so the equality above is not an accident.
    o = sbufsim({"run", shipped("dma_vs_compute.trc"), "-q", "--json", "-"});
    EXPECT_NE(o.out, recorded);
}

TEST(CliRun, Key_flags_parse_as_set_and_a_mistyped_one_names_the_key) {
    // run, gen and bench build the --<key> flags only when a long option is not one of their own:
    // a key flag must still work, and a typo must still be matched against the keys.
    const std::string trace = shipped("dma_vs_compute.trc");
    const Out flag = sbufsim({"run", trace, "--tdm.dma_slots=2", "--details"});
    const Out set = sbufsim({"run", trace, "--set", "tdm.dma_slots=2", "--details"});
    ASSERT_EQ(flag.rc, kExitOk) << flag.err;
    EXPECT_EQ(flag.out, set.out);
    EXPECT_NE(flag.out, sbufsim({"run", trace, "--details"}).out);  // the key did something
    for (const std::vector<std::string>& cmd :
         {std::vector<std::string>{"run", trace}, {"bench", "--cycles", "1000"}}) {
        std::vector<std::string> args = cmd;
        args.push_back("--tdm.dma_slotz=2");
        const Out o = sbufsim(args);
        EXPECT_EQ(o.rc, kExitUsage) << cmd[0];
        EXPECT_NE(o.err.find("(did you mean '--tdm.dma_slots'?)"), std::string::npos) << o.err;
    }
    const std::string out = temp("key_flag_gemm.trc");
    ASSERT_EQ(
        sbufsim({"gen", "gemm", "--m", "64", "--n", "64", "--k", "64", "--tdm.dma_slots=3", "-o", out}).rc,
        kExitOk);
    const Out typo =
        sbufsim({"gen", "gemm", "--m", "64", "--n", "64", "--k", "64", "--tdm.dma_slotz=3", "-o", out});
    EXPECT_EQ(typo.rc, kExitUsage);
    EXPECT_NE(typo.err.find("unrecognised option '--tdm.dma_slotz=3'"), std::string::npos) << typo.err;
}

TEST(CliRun, From_takes_options_given_now_over_the_recorded_ones_and_says_when_the_trace_changed) {
    const std::string trace = temp("from_edit.trc"), result = temp("from_edit.json");
    std::ofstream(trace) << slurp(shipped("dma_vs_compute.trc"));
    Out o = sbufsim({"run", trace, "-q", "--json", result});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    // --gen and --scheduler were recorded: giving them again replaces them (was "cannot be
    // specified more than once").
    for (const std::vector<std::string>& extra :
         {std::vector<std::string>{"--gen", "cayman"}, {"--scheduler", "fast"}, {"--gen=cayman"}}) {
        std::vector<std::string> args{"run", "--from", result};
        args.insert(args.end(), extra.begin(), extra.end());
        o = sbufsim(args);
        EXPECT_EQ(o.rc, kExitOk) << extra.front() << ": " << o.err;
        EXPECT_NE(o.out.find("total 50400 cycles"), std::string::npos) << o.out.substr(0, 300);
        EXPECT_EQ(o.err.find("changed since"), std::string::npos) << o.err;
    }
    // The trace edited since: replayed, and said.
    std::ofstream(trace, std::ios::app) << "# edited\n";
    o = sbufsim({"run", "--from", result, "-q"});
    EXPECT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_NE(o.err.find(trace + " changed since the result was written (digest "), std::string::npos)
        << o.err;
    EXPECT_NE(o.err.find("its statistics will differ from the recorded ones"), std::string::npos) << o.err;
}

// A recorded trace moved since the result was written: the error names the result and every
// place the trace was looked for (a relative path: from here, and beside the result).
TEST(CliRun, From_names_the_result_and_where_it_looked_when_the_trace_moved) {
    const std::string trace = temp("from_moved.trc"), result = temp("from_moved.json");
    std::ofstream(trace) << slurp(shipped("dma_load.trc"));
    ASSERT_EQ(sbufsim({"run", trace, "-q", "--json", result}).rc, kExitOk);
    std::string json = slurp(result);
    const std::string relative = "gone/from_moved.trc";
    json.replace(json.find("\"" + trace + "\""), trace.size() + 2, "\"" + relative + "\"");
    std::ofstream(result) << json;
    const Out o = sbufsim({"run", "--from", result, "-q"});
    EXPECT_EQ(o.rc, kExitInput);
    const std::string beside = std::filesystem::path(result).parent_path().string() + "/" + relative;
    EXPECT_NE(
        o.err.find("--from " + result + ": the trace it records, " + relative + ", is not there any more"),
        std::string::npos)
        << o.err;
    EXPECT_NE(o.err.find("(looked for " + relative + " from here and " + beside + " beside the result)"),
              std::string::npos)
        << o.err;
}

TEST(CliRun, From_refuses_a_file_that_is_not_a_result) {
    const std::string bad = temp("not_a_result.json");
    std::ofstream(bad) << "{\"tool\": \"sbufsim\"}\n";
    const Out o = sbufsim({"run", "--from", bad});
    EXPECT_EQ(o.rc, kExitUsage);
    EXPECT_NE(o.err.find("no \"runs\" array"), std::string::npos) << o.err;
}

// A result file is data: a tampered trace field ("--force", "--json=notes.txt") is a path that
// does not exist, never an option that overwrites the user's file.
TEST(CliRun, From_reads_the_result_as_data_never_as_options) {
    const std::string dir = temp("from_tampered");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string notes = dir + "/notes.txt", result = dir + "/r.json";
    std::ofstream(notes) << "my notes\n";
    std::ofstream(result) << "{\"tool\": \"sbufsim\", \"runs\": [{\"trace\": \"--force\"}, {\"trace\": "
                             "\"--json=" +
                                 notes + "\"}]}\n";
    const Out o = sbufsim({"run", "--from", result, "-q"});
    EXPECT_EQ(o.rc, kExitInput) << o.err;
    // Looked for as a file, not taken as the option.
    EXPECT_NE(o.err.find("the trace it records, --force, is not there any more"), std::string::npos)
        << "not read as a path: " << o.err;
    EXPECT_EQ(slurp(notes), "my notes\n");
}

// The parser recurses once per level: 160 KB of '[' overflowed the stack (a segfault). The
// nesting is checked first, and a device of zeros is refused without being read forever.
TEST(CliRun, From_and_plot_refuse_deep_nesting_with_a_clear_error) {
    const std::string deep = temp("deep.json");
    std::ofstream(deep) << "{\"runs\": " << std::string(160000, '[') << std::string(160000, ']') << "}\n";
    Out o = sbufsim({"run", "--from", deep});
    EXPECT_EQ(o.rc, kExitUsage) << o.err;
    EXPECT_NE(o.err.find("nested deeper than 256 levels at line 1"), std::string::npos) << o.err;
    o = sbufsim({"plot", deep, "-o", temp("deep.svg")});
    EXPECT_EQ(o.rc, kExitInput) << o.err;
    EXPECT_NE(o.err.find("nested deeper than 256 levels"), std::string::npos) << o.err;
    const std::string table = temp("deep_rows.json");
    std::ofstream(table) << "[\n  {\"trace\": " << std::string(100000, '[') << "}\n]\n";
    o = sbufsim({"plot", table, "-o", temp("deep.svg")});
    EXPECT_EQ(o.rc, kExitInput) << o.err;
    EXPECT_NE(o.err.find("nested deeper than 256 levels"), std::string::npos) << o.err;
    o = sbufsim({"run", "--from", "/dev/zero"});
    EXPECT_EQ(o.rc, kExitInput) << o.err;
    EXPECT_NE(o.err.find("is a device whose reading never ends"), std::string::npos) << o.err;
}

TEST(CliRun, List_metrics_shows_units_directions_and_the_families) {
    const Out o = sbufsim({"run", "--list-metrics"});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_TRUE(std::regex_search(o.out, std::regex("\\n  total_cycles +cycles +lower +cycles until")));
    EXPECT_TRUE(std::regex_search(o.out, std::regex("\\n  engine.<engine>.busy_fraction +fraction +higher")));
    EXPECT_TRUE(
        std::regex_search(o.out, std::regex("\\n  client.<client>.stall_bank_conflict +beat-cycles +lower")));
}

TEST(CliRun, Summary_opens_with_the_verdict_and_the_critical_path) {
    const Out o = sbufsim({"run", shipped("dma_load.trc"), "--details"});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_NE(o.out.find("\nbound by DMA: 100.0 % of the critical path (compute 88.3 %, latency 11.7 %)\n"),
              std::string::npos)
        << o.out;
    EXPECT_NE(o.out.find("critical path: 1 instruction, 0 semaphore waits"), std::string::npos);
    // dma_0 (engine=0, 128 partitions x 2048 B): 211 ns + 128 x 78 ns (a 2048 B row takes the
    // dma.pkt_min_ns minimum) = 10195 ns = 24468 cycles transferring, 128 in its static trigger
    // (64 SP cycles) and 1300 ns = 3120 in its start-up (idle), out of 27716.
    EXPECT_TRUE(std::regex_search(o.out, std::regex("\\ndma_0 +1 +24468 +0 +0 +3248 ")));
}

TEST(CliRun, Summary_shows_dma_engines_with_equal_figures_as_one_row) {
    // One load spread over the sixteen DMA engines, a second pinned to dma_0: dma_1..15 alike.
    const std::string path = write_temp("cli_spread.trc",
                                        "sbufsim-trace 1 gen=cayman\n"
                                        "dma queue=qA src=hbm dst=bf16@0x0 partitions=128 bytes=64\n"
                                        "dma queue=qB src=hbm dst=bf16@0x40 partitions=1 bytes=64 "
                                        "engine=0\n");
    const Out o = sbufsim({"run", path, "--details"});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_TRUE(std::regex_search(o.out, std::regex("\\ndma_0 +2 ")));
    EXPECT_TRUE(std::regex_search(o.out, std::regex("\\ndma_1\\.\\.15 +1 ")));
    EXPECT_NE(o.out.find("  (dma_1..15: each engine of the range has the figures shown)\n"),
              std::string::npos)
        << o.out;
    EXPECT_NE(o.out.find("\n  dma_1..15: each 8 descriptors, 512 B,"), std::string::npos) << o.out;
    // The client and fairness tables merge them too; the bank table its PSUM banks used alike.
    EXPECT_EQ(o.out.find("\ndma_7 "), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("  (dma_1..15: each client of the range has the figures shown)\n"),
              std::string::npos)
        << o.out;
    // The figures of the merged row are each engine's (the JSON keeps every engine).
    const Out j = sbufsim({"run", path, "--quiet", "--csv", "-"});
    for (const char* e : {"dma_1", "dma_15"})
        EXPECT_NE(j.out.find(std::string(",engine,") + e + ",instructions,1\n"), std::string::npos) << j.out;
}

TEST(CliRun, Csv_carries_the_same_total) {
    const Out o = sbufsim({"run", shipped("dma_load.trc"), "--quiet", "--csv", "-"});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_NE(o.out.find(",run,,total_cycles,27716\n"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find(",dma,,bytes,262144\n"), std::string::npos);
}

// ACT evacuates the PSUM bank without waiting for the matmul; the store waits for the matmul,
// not for ACT.
const char* const kRacyTrace =
    "sbufsim-trace 1 gen=cayman\n"
    "dma queue=qLoad src=hbm dst=bf16@0x0[1][512] partitions=128 bytes=1024 signal=1\n"
    "matmul queue=qPE0 src=bf16@0x0[1][512] dst=fp32@0x2000000[1][512] num_active_rows=128 "
    "num_active_cols=128 "
    "wait=1 signal=2\n"
    "act queue=qAct0 src=fp32@0x2000000[1][512] dst=bf16@0x20000[1][512] partitions=128\n"
    "dma queue=qStore src=bf16@0x20000[1][512] dst=hbm partitions=128 bytes=1024 wait=2\n";

TEST(CliRun, Races_are_counted_listed_and_warned_of) {
    const std::string path = write_temp("cli_racy.trc", kRacyTrace);
    const Out csv = sbufsim({"run", path, "--quiet", "--csv", "-"});
    EXPECT_EQ(csv.rc, kExitOk) << csv.err;
    EXPECT_NE(csv.out.find(",run,,races,2\n"), std::string::npos) << csv.out;
    const Out run = sbufsim({"run", path, "--details"});
    EXPECT_NE(run.out.find("\nraces: 2 pairs of instructions on different queues touch the same bytes"),
              std::string::npos)
        << run.out;
    EXPECT_NE(run.out.find("races (first 2 of 2; sbufsim check lists them all)\n  " + path +
                           ":4: src: ACT line 4 reads PSUM partition 0"),
              std::string::npos)
        << run.out;
    // On stderr too, summary or not.
    const Out quiet = sbufsim({"run", path, "--quiet"});
    EXPECT_NE(quiet.err.find("warning: " + path + ": 2 races between queues"), std::string::npos)
        << quiet.err;
    EXPECT_NE(quiet.err.find("the first: " + path + ":4: src:"), std::string::npos) << quiet.err;
    EXPECT_NE(quiet.err.find("`sbufsim check " + path + "` lists them all"), std::string::npos) << quiet.err;
    // check lists the same two and fails.
    const Out check = sbufsim({"check", path});
    EXPECT_EQ(check.rc, kExitFindings);
    EXPECT_NE(check.out.find(path + ":4: src: ACT line 4"), std::string::npos) << check.out;
    EXPECT_NE(check.out.find(path +
                             ":5: src: DMA queue qStore line 5 reads SBUF partition 0 bytes 0x20000-0x203ff, "
                             "which ACT line 4 writes"),
              std::string::npos)
        << check.out;
    // A race-free trace says nothing of races.
    const Out clean = sbufsim({"run", shipped("matmul_kloop.trc")});
    EXPECT_EQ(clean.err.find("race"), std::string::npos) << clean.err;
    EXPECT_EQ(clean.out.find("\nraces"), std::string::npos);
}

TEST(CliRun, Invalid_trace_is_refused_and_lenient_counts_skipped_records) {
    const std::string path = write_temp(
        "cli_invalid.trc",
        "sbufsim-trace 1 gen=cayman\n"
        "act queue=qAct0 src=bf16@0x0[1][64] dst=bf16@0x1000[1][64] partitions=32\n"
        "q7 queue=qGpSimd0 core=0 op=rd operand=fp32@0x2000000 partitions=16 bytes=64\n"
        "matmul queue=qPE0 src=bf16@0x0[1][64] dst=fp32@0x2000000[1][64] num_active_rows=32 "
        "num_active_cols=32 row_grp=0x1 col_grp=0x8 xbus_sel=0x8 acc_flags=single zero_region=0\n");
    const Out strict = sbufsim({"run", path});
    EXPECT_EQ(strict.rc, kExitInput);
    EXPECT_NE(strict.err.find("cli_invalid.trc:3"), std::string::npos) << strict.err;
    EXPECT_TRUE(strict.out.empty());
    const Out lenient = sbufsim({"run", path, "--lenient", "--quiet", "--csv", "-"});
    EXPECT_EQ(lenient.rc, kExitOk) << lenient.err;
    EXPECT_NE(lenient.out.find(",run,,skipped_records,2\n"), std::string::npos) << lenient.out;
    // Said on stderr too, summary or not: the statistics cover part of the trace.
    EXPECT_NE(lenient.err.find("warning: " + path +
                               ": 2 invalid record(s) skipped (--lenient): the statistics "
                               "cover the other 1 record(s); the first: " +
                               path + ":3:"),
              std::string::npos)
        << lenient.err;
    const std::string none = write_temp("cli_all_invalid.trc",
                                        "sbufsim-trace 1 gen=cayman\n"
                                        "act queue=qAct0 src=bf16@0x0[1][64] partitions=32\n");
    const Out empty = sbufsim({"run", none, "--lenient", "--quiet"});
    EXPECT_EQ(empty.rc, kExitOk) << empty.err;
    EXPECT_NE(empty.err.find("every record was skipped, nothing was replayed"), std::string::npos)
        << empty.err;
    const Out clean = sbufsim({"run", shipped("dma_load.trc"), "--lenient", "--quiet"});
    EXPECT_EQ(clean.err, "");
}

TEST(CliRun, Deadlock_exits_with_input_error_naming_the_queue) {
    const std::string path = write_temp(
        "cli_deadlock.trc",
        "sbufsim-trace 1 gen=cayman\n"
        "act queue=qAct0 src=bf16@0x0[1][64] dst=bf16@0x1000[1][64] partitions=32 wait=1 signal=2\n"
        "dve queue=qDve0 src=bf16@0x2000[1][64] dst=bf16@0x3000[1][64] partitions=32 wait=2 signal=1\n");
    const Out o = sbufsim({"run", path});
    EXPECT_EQ(o.rc, kExitInput);
    EXPECT_NE(o.err.find("deadlock"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("qDve0"), std::string::npos) << o.err;
}

// The JSON of one run without its "scheduler" line.
std::string json_without_scheduler(const std::string& json) {
    std::istringstream in(json);
    std::string line, out;
    while (std::getline(in, line))
        if (line.find("\"scheduler\"") == std::string::npos) out += line + "\n";
    return out;
}

TEST(CliRun, Clocked_scheduler_reports_the_fast_schedulers_statistics) {
    const Out fast = sbufsim({"run", shipped("dma_vs_compute.trc"), "--quiet", "--json", "-"});
    const Out clocked =
        sbufsim({"run", shipped("dma_vs_compute.trc"), "--quiet", "--json", "-", "--scheduler", "clocked"});
    ASSERT_EQ(fast.rc, kExitOk) << fast.err;
    ASSERT_EQ(clocked.rc, kExitOk) << clocked.err;
    EXPECT_NE(clocked.out.find("\"scheduler\": \"clocked\""), std::string::npos);
    EXPECT_EQ(json_without_scheduler(fast.out), json_without_scheduler(clocked.out));
    EXPECT_EQ(clocked.err, "") << "SystemC's banner and info reports stay off the streams";
}

// The built binary run by `sh -c` with `env` before it (VAR=value words) and `args` after it:
// exit code, stdout and stderr.
Out binary_with_env(const std::string& env, const std::string& binary, const std::vector<std::string>& args,
                    const std::string& tag) {
    std::string cmd = env + " " + shell_quote(binary);
    for (const auto& a : args) cmd += " " + shell_quote(a);
    const std::string out = temp(tag + "_stdout.txt"), err = temp(tag + "_stderr.txt");
    const int rc = shell(cmd + " >" + shell_quote(out) + " 2>" + shell_quote(err));
    return {rc, slurp(out), slurp(err)};
}

// The executable links no SystemC: the loader's own trace (LD_DEBUG=files) shows what it opens.
TEST(CliRun, The_binary_loads_systemc_only_when_the_clocked_scheduler_runs) {
    const std::vector<std::string> run = {"run", shipped("dma_vs_compute.trc"), "--quiet", "--json", "-"};
    const Out fast = binary_with_env("LD_DEBUG=files", SBUFSIM_BINARY, run, "ld_fast");
    ASSERT_EQ(fast.rc, kExitOk) << fast.err;
    EXPECT_EQ(fast.err.find("libsystemc"), std::string::npos) << fast.err;
    EXPECT_EQ(fast.err.find("sbufsim_clocked.so"), std::string::npos) << fast.err;
    std::vector<std::string> clocked_run = run;
    clocked_run.insert(clocked_run.end(), {"--scheduler", "clocked"});
    const Out clocked = binary_with_env("LD_DEBUG=files", SBUFSIM_BINARY, clocked_run, "ld_clocked");
    ASSERT_EQ(clocked.rc, kExitOk) << clocked.err;
    EXPECT_NE(clocked.err.find("lib/sbufsim/sbufsim_clocked.so"), std::string::npos) << clocked.err;
    EXPECT_NE(clocked.err.find("libsystemc"), std::string::npos) << clocked.err;
    EXPECT_EQ(json_without_scheduler(fast.out), json_without_scheduler(clocked.out));
    EXPECT_NE(clocked.out.find("\"scheduler\": \"clocked\""), std::string::npos);
}

// A copy of the executable with no module beside it: the clocked scheduler is refused before
// any output is written, naming both places looked at; the fast one runs.
TEST(CliRun, A_binary_without_its_clocked_module_says_where_it_looked_before_any_work) {
    const std::string dir = temp("lonely/bin");
    ASSERT_EQ(shell("mkdir -p " + shell_quote(dir) + " && cp " + shell_quote(SBUFSIM_BINARY) + " " +
                    shell_quote(dir)),
              0);
    const std::string lonely = dir + "/sbufsim", json = temp("lonely.json");
    const std::string env = "SBUFSIM_CONFIG_DIR=" + shell_quote(SBUFSIM_DEFAULT_CONFIG_DIR);
    const Out o = binary_with_env(env, lonely,
                                  {"run", shipped("dma_load.trc"), "--scheduler", "clocked", "--json", json},
                                  "lonely_clocked");
    EXPECT_EQ(o.rc, kExitUsage) << o.err;
    EXPECT_NE(o.err.find(dir + "/lib/sbufsim/sbufsim_clocked.so (a build tree, next to the executable " +
                         lonely + ")"),
              std::string::npos)
        << o.err;
    EXPECT_NE(o.err.find("(an install, next to the executable " + lonely + ")"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("reinstall sbufsim"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("fast scheduler, which needs no module"), std::string::npos) << o.err;
    EXPECT_FALSE(std::ifstream(json).good()) << "refused before the JSON file was created";
    const Out bench =
        binary_with_env(env, lonely, {"bench", "--trace", shipped("dma_load.trc")}, "lonely_bench");
    EXPECT_EQ(bench.rc, kExitUsage) << bench.err;
    EXPECT_EQ(bench.out, "") << "refused before the fast runs";
    const Out fast = binary_with_env(env, lonely, {"run", shipped("dma_load.trc"), "--quiet"}, "lonely_fast");
    EXPECT_EQ(fast.rc, kExitOk) << fast.err;
}

// $SBUFSIM_CLOCKED_MODULE is final (no fall-back to the module beside the executable), and what
// it names must be a loadable shared object, export the entry and come from the same build.
TEST(CliRun, The_clocked_module_named_by_the_environment_is_checked) {
    const std::vector<std::string> run = {"run", shipped("dma_load.trc"), "--quiet", "--scheduler",
                                          "clocked"};
    struct Case {
        std::string module, says;
    };
    const std::string text = write_temp("not_elf.so", "not a shared object\n");
    for (const Case& c :
         {Case{temp("missing.so"), "there is none at " + temp("missing.so") + " ($SBUFSIM_CLOCKED_MODULE)"},
          Case{text, text + " ($SBUFSIM_CLOCKED_MODULE) cannot be loaded: "},
          Case{SBUFSIM_NOT_CLOCKED_MODULE,
               "is not sbufsim's clocked module (it has no sbufsim_clocked_entry)"},
          Case{SBUFSIM_FAKE_CLOCKED_MODULE,
               "was built as sbufsim 0.0.0 another-build, this executable as sbufsim "}}) {
        const Out o = binary_with_env("SBUFSIM_CLOCKED_MODULE=" + shell_quote(c.module), SBUFSIM_BINARY, run,
                                      "env_module");
        EXPECT_EQ(o.rc, kExitUsage) << c.module << ": " << o.err;
        EXPECT_NE(o.err.find(c.says), std::string::npos) << o.err;
        EXPECT_NE(o.err.find("unset SBUFSIM_CLOCKED_MODULE to use the installed one"), std::string::npos)
            << o.err;
    }
    const std::string own =
        std::filesystem::path(SBUFSIM_BINARY).parent_path() / "lib/sbufsim/sbufsim_clocked.so";
    const Out ok =
        binary_with_env("SBUFSIM_CLOCKED_MODULE=" + shell_quote(own), SBUFSIM_BINARY, run, "env_own");
    EXPECT_EQ(ok.rc, kExitOk) << ok.err;
}

TEST(CliRun, A_timeline_window_past_the_run_is_warned_of) {
    const std::string t = temp("late_window.json");
    Out o =
        sbufsim({"run", shipped("dma_load.trc"), "--quiet", "--timeline", t, "--window", "500000:600000"});
    EXPECT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_NE(o.err.find("warning: --window 500000:600000: " + shipped("dma_load.trc") +
                         " ends at cycle 27716, so its timeline holds no event"),
              std::string::npos)
        << o.err;
    o = sbufsim({"run", shipped("dma_load.trc"), "--quiet", "--timeline", t, "--window", "0:2000"});
    EXPECT_EQ(o.err, "");
}

TEST(CliRun, Vcd_implies_the_clocked_scheduler_and_refuses_the_fast_one) {
    const std::string vcd = temp("run.vcd");
    const Out o = sbufsim({"run", shipped("matmul_kloop.trc"), "--quiet", "--vcd", vcd, "--json", "-"});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_NE(o.out.find("\"scheduler\": \"clocked\""), std::string::npos);
    std::ifstream f(vcd);
    std::string first;
    std::getline(f, first);
    EXPECT_EQ(first, "$comment") << "a VCD file at the path given (no extra .vcd appended)";
    std::getline(f, first);
    EXPECT_EQ(first, kVcdMark);  // what makes it sbufsim's, replaceable
    std::remove(vcd.c_str());
    const Out bad = sbufsim({"run", shipped("matmul_kloop.trc"), "--vcd", vcd, "--scheduler", "fast"});
    EXPECT_EQ(bad.rc, kExitUsage);
    EXPECT_NE(bad.err.find("--vcd"), std::string::npos) << bad.err;
}

// The waveform file goes through the same checks as every other output, before the work: never
// an input (the trace, a --config file), never a file of another kind without --force, never a
// directory or a path that cannot be written (exit 2 with the reason, not an internal error).
TEST(CliRun, Vcd_never_replaces_an_input_or_a_foreign_file) {
    const std::string dir = temp("vcd_outputs");
    std::filesystem::create_directories(dir);
    const std::string trace = dir + "/in.trc", notes = dir + "/notes.txt";
    std::filesystem::copy_file(shipped("dma_load.trc"), trace,
                               std::filesystem::copy_options::overwrite_existing);
    std::ofstream(notes) << "my notes\n";
    const auto contents = [](const std::string& path) {
        std::ifstream f(path, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(f), {});
    };
    const std::string before = contents(trace);
    for (const auto& [target, reason] : {std::pair<std::string, std::string>{trace, "is also the input"},
                                         {notes, "exists and is not what this command writes"},
                                         {dir, "is a directory"},
                                         {dir + "/missing/w.vcd", "No such file or directory"}}) {
        const Out o = sbufsim({"run", trace, "--quiet", "--vcd", target});
        EXPECT_EQ(o.rc, kExitUsage) << target << ": " << o.err;
        EXPECT_NE(o.err.find(reason), std::string::npos) << o.err;
        EXPECT_EQ(o.err.find("internal error"), std::string::npos) << o.err;
    }
    EXPECT_EQ(contents(trace), before);
    EXPECT_EQ(contents(notes), "my notes\n");
    // --force replaces the foreign file, whole; nothing else is left in the folder.
    const Out forced = sbufsim({"run", trace, "--quiet", "--vcd", notes, "--force"});
    ASSERT_EQ(forced.rc, kExitOk) << forced.err;
    EXPECT_EQ(contents(notes).rfind("$comment", 0), 0u);
    EXPECT_NE(contents(notes).find("$enddefinitions"), std::string::npos);
    // Another tool's VCD is the user's too; sbufsim's own is replaced.
    const std::string theirs = dir + "/theirs.vcd";
    std::ofstream(theirs) << "$date\n today\n$end\n$timescale 1ns $end\n";
    const Out refused = sbufsim({"run", trace, "--quiet", "--vcd", theirs});
    EXPECT_EQ(refused.rc, kExitUsage) << refused.err;
    EXPECT_NE(refused.err.find("only a waveform sbufsim wrote is replaced"), std::string::npos)
        << refused.err;
    EXPECT_EQ(contents(theirs).rfind("$date", 0), 0u);
    EXPECT_EQ(sbufsim({"run", trace, "--quiet", "--vcd", notes}).rc, kExitOk);  // written above: sbufsim's
    std::filesystem::remove(theirs);
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++entries;
    EXPECT_EQ(entries, 2u);  // in.trc, notes.txt: no temporary left behind
    EXPECT_EQ(sbufsim({"run", trace, "--quiet", "--vcd", "-"}).rc, kExitUsage);
}

// A FIFO read by another program, or a device, as --vcd: written into, never replaced by a
// regular file (SystemC names its own file), every write checked: a full device is exit 3 naming
// the option and the OS reason, not a truncated waveform and exit 0.
TEST(CliRun, Vcd_onto_a_fifo_or_a_device_writes_in_place_and_checks_every_byte) {
    const std::string dir = temp("vcd_devices");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string fifo = dir + "/waves";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
    // The reader: drains the FIFO until told to stop (its own write end keeps read() from
    // seeing an end while sbufsim has not opened it yet).
    const int rd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    const int hold = ::open(fifo.c_str(), O_WRONLY);
    ASSERT_GE(rd, 0);
    ASSERT_GE(hold, 0);
    std::atomic<bool> done{false};
    std::string got;
    std::thread reader([&] {
        char buf[65536];
        for (;;) {
            pollfd p{rd, POLLIN, 0};
            ::poll(&p, 1, 50);
            const ssize_t n = ::read(rd, buf, sizeof buf);
            if (n > 0)
                got.append(buf, static_cast<std::size_t>(n));
            else if (done.load())
                break;
        }
    });
    const Out o = sbufsim({"run", shipped("dma_load.trc"), "--quiet", "--vcd", fifo});
    done.store(true);
    reader.join();
    ::close(rd);
    ::close(hold);
    EXPECT_EQ(o.rc, kExitOk) << o.err;
    struct stat st {};
    ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
    EXPECT_EQ(got.rfind("$comment", 0), 0u) << got.substr(0, 200);
    EXPECT_NE(got.find("$enddefinitions"), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(fifo + ".vcd"));

    // A device of its own, as /dev/full is (root only: mknod), named with and without ".vcd".
    for (const std::string name : {"full", "full.vcd"}) {
        const std::string node = dir + "/" + name;
        if (::mknod(node.c_str(), S_IFCHR | 0666, ::makedev(1, 7)) != 0)
            GTEST_SKIP() << "cannot make a device node here: " << std::strerror(errno);
        const Out full = sbufsim({"run", shipped("dma_load.trc"), "--quiet", "--vcd", node});
        EXPECT_EQ(full.rc, kExitInput) << name << ": " << full.err;
        EXPECT_NE(full.err.find("--vcd: cannot write " + node + ": No space left on device"),
                  std::string::npos)
            << full.err;
        ASSERT_EQ(::lstat(node.c_str(), &st), 0);
        EXPECT_TRUE(S_ISCHR(st.st_mode)) << name << " was replaced by a regular file";
    }
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++entries;
    EXPECT_EQ(entries, 3u);  // waves, full, full.vcd: nothing else
    std::filesystem::remove_all(dir);
}

TEST(CliRun, Hierarchy_lists_every_block_with_its_csrs_and_signals) {
    const Out o =
        sbufsim({"run", shipped("dma_load.trc"), "--quiet", "--hierarchy", "--set", "tdm.dma_slots=2"});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    for (const char* line : {"  tpb  sc_module",
                             "    tdm  sc_module",
                             "    pool_throttler  sc_module",
                             "    act_throttler  sc_module",
                             "    dve_throttler  sc_module",
                             "    arr_seq  sc_module",
                             "    axi2sram  sc_module",
                             "    sbuf_cluster_7_1  sc_module",
                             "    psum_cluster3_bank7  sc_module",
                             "  arbiter  sc_module",
                             "    [tpb_sbuf_cluster]",
                             "        tdm_cfg @0x0 = 0x20008",
                             "      [tpb_sbuf_pool_act.act_throttler]",
                             "      slot  sc_signal = ",
                             "      rd_tokens  sc_signal = ",
                             "      [arr_seq_top]",
                             "      [arr_seq_cluster]",
                             "        queue_cfg @0x0 = 0x11000",
                             "(read-only)",
                             "        mem_cfg @0x4 = 0x0",
                             "  dma_0  sc_module",
                             "    axi  sc_module",
                             "  q7_7  sc_module",
                             "      queue_cfg  sc_signal = 69632"})
        EXPECT_NE(o.out.find(line), std::string::npos) << "missing: " << line << "\n"
                                                       << o.out.substr(0, 3000);
    for (const char c : o.out)
        ASSERT_TRUE(c == '\n' || std::isprint(static_cast<unsigned char>(c)))
            << "a signal printed as a raw byte";
    EXPECT_NE(o.out.find("    dma_0_stall  sc_signal = 0\n"), std::string::npos)
        << "stall codes print as numbers";
    const Out bad = sbufsim({"run", shipped("dma_load.trc"), "--hierarchy", "--scheduler", "fast"});
    EXPECT_EQ(bad.rc, kExitUsage);
    EXPECT_NE(bad.err.find("--hierarchy"), std::string::npos) << bad.err;
}

TEST(CliRun, Unknown_scheduler_is_a_usage_error) {
    const Out o = sbufsim({"run", "--scheduler", "stepped"});
    EXPECT_EQ(o.rc, kExitUsage);
    EXPECT_NE(o.err.find("fast or clocked"), std::string::npos) << o.err;
}

TEST(CliRun, Help_shows_examples) {
    const Out o = sbufsim({"run", "--help"});
    EXPECT_EQ(o.rc, kExitOk);
    EXPECT_NE(o.out.find("examples:"), std::string::npos);
    EXPECT_NE(o.out.find("--lenient"), std::string::npos);
}

TEST(CliRun, Missing_trace_file_is_an_input_error) {
    const Out o = sbufsim({"run", "/nonexistent/x.trc"});
    EXPECT_EQ(o.rc, kExitInput);
    EXPECT_FALSE(o.err.empty());
}

}  // namespace
}  // namespace sbufsim::cli
