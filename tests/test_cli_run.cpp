// `sbufsim run` end to end through the command table (cli::run with captured streams).
#include <gtest/gtest.h>

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <fstream>
#include <regex>
#include <sstream>

#include "cli_harness.h"

namespace sbufsim::cli {
namespace {

using namespace sbufsim::test;
using Out = CliOut;

TEST(CliRun, Default_workload_runs_without_a_trace) {
    const Out o = sbufsim({"run"});
    EXPECT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_NE(o.out.find("matmul_kloop.trc"), std::string::npos);
    EXPECT_NE(o.out.find("128x128 32"), std::string::npos) << o.out;
}

TEST(CliRun, Json_parses_and_its_totals_equal_the_summary) {
    const Out o = sbufsim({"run", shipped("matmul_kloop.trc"), "--json", "-"});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    // The summary comes first on stdout, the JSON after it.
    const auto brace = o.out.find("\n{");
    ASSERT_NE(brace, std::string::npos);
    std::smatch m;
    const std::string summary = o.out.substr(0, brace);
    ASSERT_TRUE(std::regex_search(summary, m, std::regex("total ([0-9]+) cycles")));
    std::istringstream js(o.out.substr(brace + 1));
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

TEST(CliRun, Csv_carries_the_same_total) {
    const Out o = sbufsim({"run", shipped("dma_load.trc"), "--quiet", "--csv", "-"});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_NE(o.out.find(",run,,total_cycles,25702\n"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find(",dma,,bytes,262144\n"), std::string::npos);
}

TEST(CliRun, Invalid_trace_is_refused_and_lenient_counts_skipped_records) {
    const std::string path = write_temp("cli_invalid.trc",
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
}

TEST(CliRun, Deadlock_exits_with_input_error_naming_the_queue) {
    const std::string path = write_temp("cli_deadlock.trc",
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
    const Out clocked = sbufsim({"run", shipped("dma_vs_compute.trc"), "--quiet", "--json", "-", "--scheduler", "clocked"});
    ASSERT_EQ(fast.rc, kExitOk) << fast.err;
    ASSERT_EQ(clocked.rc, kExitOk) << clocked.err;
    EXPECT_NE(clocked.out.find("\"scheduler\": \"clocked\""), std::string::npos);
    EXPECT_EQ(json_without_scheduler(fast.out), json_without_scheduler(clocked.out));
    EXPECT_EQ(clocked.err, "") << "SystemC's banner and info reports stay off the streams";
}

TEST(CliRun, Vcd_implies_the_clocked_scheduler_and_refuses_the_fast_one) {
    const std::string vcd = temp("run.vcd");
    const Out o = sbufsim({"run", shipped("matmul_kloop.trc"), "--quiet", "--vcd", vcd, "--json", "-"});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_NE(o.out.find("\"scheduler\": \"clocked\""), std::string::npos);
    std::ifstream f(vcd);
    std::string first;
    std::getline(f, first);
    EXPECT_EQ(first, "$date") << "a VCD file at the path given (no extra .vcd appended)";
    std::remove(vcd.c_str());
    const Out bad = sbufsim({"run", shipped("matmul_kloop.trc"), "--vcd", vcd, "--scheduler", "fast"});
    EXPECT_EQ(bad.rc, kExitUsage);
    EXPECT_NE(bad.err.find("--vcd"), std::string::npos) << bad.err;
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
