// Numbers on the command line mean what they say: a negative value for an unsigned option is
// refused (boost would wrap "-1" to the largest value), inf and nan are not durations or rates,
// and a size of zero is refused where it means nothing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_harness.h"

namespace {

using sbufsim::test::CliOut;
using sbufsim::test::shipped;

CliOut run(const std::vector<std::string>& args) { return sbufsim::test::sbufsim(args); }

void expect_usage(const std::vector<std::string>& args, const std::string& fragment) {
    const CliOut r = run(args);
    std::string line;
    for (const auto& a : args) line += a + " ";
    EXPECT_EQ(r.rc, 2) << line << "\n" << r.err;
    EXPECT_NE(r.err.find(fragment), std::string::npos) << line << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << line << "\n" << r.out.substr(0, 200);
}

TEST(CliStrict, Negative_values_for_unsigned_options_are_refused) {
    expect_usage({"sweep", shipped("dma_load.trc"), "--vary", "tdm.dma_slots=1,2", "--jobs", "-1"},
                 "--jobs '-1': may not be negative");
    expect_usage({"gen", "random", "--records", "-1"}, "--records '-1': may not be negative");
    expect_usage({"gen", "gemm", "--m", "-1", "--n", "128", "--k", "128"}, "--m '-1'");
    expect_usage({"run", shipped("dma_load.trc"), "--window-stats", "-5"}, "--window-stats '-5'");
    expect_usage({"plot", "x.json", "-o", "x.svg", "--bins", "-1"}, "--bins '-1'");
}

TEST(CliStrict, Infinite_and_nan_reals_are_refused) {
    for (const std::string v : {"inf", "nan", "-inf", "1e999"})
        expect_usage({"sweep", shipped("dma_load.trc"), "--vary", "tdm.dma_slots=1,2", "--timeout", v},
                     "--timeout '" + v + "'");
    expect_usage({"gen", "random", "--rate", "nan", "--records", "10"}, "--rate 'nan'");
}

TEST(CliStrict, Zero_sizes_that_mean_nothing_are_refused) {
    expect_usage({"gen", "gemm", "--m", "0", "--n", "128", "--k", "128"}, "--m");
    expect_usage({"gen", "random", "--records", "0"}, "--records");
}

}  // namespace
