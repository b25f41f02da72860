// `sbufsim validate`'s arbitration cases (src/validation/validation.cpp, docs/validation.md): each
// holds a seed register reading, so each must fail when the configuration changes that register.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "sbufsim/config/config.h"
#include "sbufsim/validation/validation.h"
#include "temp_files.h"

namespace sbufsim {
namespace {

const ValidationCase& find_case(const std::string& id) {
    for (const ValidationCase& c : validation_cases())
        if (c.id == id) return c;
    throw std::runtime_error("no validation case " + id);
}

// A copy of the shipped configs in which cayman.ini sets `key` (a name in its section, as
// "dma_slots" of [tdm]) to `value`: its line rewritten where cayman.ini states the key, else the
// key added in its section at the end (a key the file leaves out holds its declared default).
std::string configs_with(const std::string& name, const std::string& key, const std::string& value) {
    namespace fs = std::filesystem;
    const fs::path dir = test::temp(name);
    fs::create_directories(dir);
    for (const auto& f : fs::directory_iterator(SBUFSIM_DEFAULT_CONFIG_DIR))
        fs::copy_file(f.path(), dir / f.path().filename(), fs::copy_options::overwrite_existing);
    std::ifstream in(dir / "cayman.ini");
    std::ostringstream out;
    bool found = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind(key + " =", 0) == 0) {
            line = key + " = " + value;
            found = true;
        }
        out << line << "\n";
    }
    if (!found) {
        std::string full;
        for (const KeySpec& k : key_table())
            if (k.name.size() > key.size() && k.name.compare(k.name.size() - key.size(), key.size(), key) == 0 &&
                k.name[k.name.size() - key.size() - 1] == '.')
                full = k.name;
        EXPECT_FALSE(full.empty()) << key << " is no declared key";
        const std::size_t dot = full.find('.');
        out << "\n[" << full.substr(0, dot) << "]\n" << full.substr(dot + 1) << " = " << value << "\n";
    }
    std::ofstream(dir / "cayman.ini") << out.str();
    return dir.string();
}

TEST(ValidationArbiter, Every_case_holds_with_the_shipped_configs) {
    int cases = 0;
    for (const ValidationCase& c : validation_cases()) {
        if (c.group != "arbiter") continue;
        ++cases;
        const ValidationRow r = run_case(c);
        EXPECT_TRUE(r.ok) << c.id << ": " << r.measured << " against " << c.expected << " " << r.failure;
    }
    EXPECT_EQ(cases, 7);
}

struct Mutation {
    const char* id;
    const char* key;
    const char* value;
    double measured;  // what the case then measures
};
void PrintTo(const Mutation& m, std::ostream* os) { *os << m.id << " with " << m.key << " = " << m.value; }

class ValidationArbiterMutation : public ::testing::TestWithParam<Mutation> {};

TEST_P(ValidationArbiterMutation, The_case_fails_when_its_register_changes) {
    const Mutation& m = GetParam();
    const ValidationRow r = run_case(find_case(m.id), configs_with(m.id, m.key, m.value));
    ASSERT_TRUE(r.failure.empty()) << r.failure;
    EXPECT_FALSE(r.ok);
    EXPECT_NEAR(r.measured, m.measured, 0.01) << m.id;
}

INSTANTIATE_TEST_SUITE_P(
    Registers, ValidationArbiterMutation,
    ::testing::Values(Mutation{"A01", "stage2.pool_rd.weight", "3", 0.75},     // pool_rd 3 : act_rd 1
                      Mutation{"A02", "stage2.pool_rd.weight", "3", 0.5},      // 3 : 3
                      Mutation{"A03", "stage2.pe_rd.prio", "0", 0.5},          // round robin with act_rd
                      Mutation{"A04", "stage1.pe_client_0.weight", "2", 0.4},  // 2 of every 5
                      Mutation{"A05", "dma_slots", "2", 0.25}, Mutation{"A06", "dma_slots", "4", 0.5}),
    [](const ::testing::TestParamInfo<Mutation>& i) { return std::string(i.param.id); });

// The kernel cases (kernel_cases.cpp) trace NKI kernels through the caller's tracer: without one
// they are skipped, not failed; with one, the figure is the replayed kernel's time, and a case out
// of tolerance is a failure unless it names its gap.
TEST(ValidationKernel, A_kernel_case_without_a_tracer_is_skipped) {
    const ValidationRow r = run_case(find_case("K02"));
    EXPECT_TRUE(r.skipped);
    EXPECT_FALSE(r.ok);
    EXPECT_FALSE(r.gap);
}

TEST(ValidationKernel, The_figure_is_the_traced_kernels_time_and_a_gap_only_where_the_case_names_one) {
    std::vector<std::string> traced;
    // One fp32 matmul N = 512 on sunda: far from any tutorial's milliseconds.
    const KernelTracer tracer = [&](const KernelTrace& k, const std::string& gen) {
        traced.push_back(k.kernel + " " + gen);
        return std::string("sbufsim-trace 1\n") +
               "ldweights queue=qPE0 src=fp32@0x0[1][128] rows=128 cols=128\n"
               "matmul queue=qPE0 src=fp32@0x8000[1][512] dst=fp32@0x2000000[1][512] num_active_rows=128 "
               "num_active_cols=128\n";
    };
    const ValidationCase& hoisted = find_case("K02");
    ASSERT_TRUE(hoisted.gap.empty());
    const ValidationRow r = run_case(hoisted, {}, tracer);
    ASSERT_TRUE(r.failure.empty()) << r.failure;
    ASSERT_EQ(traced.size(), 1u);
    EXPECT_EQ(traced[0], "nki/matmul.py::matmul_hoisted sunda");
    EXPECT_GT(r.measured, 0.0);
    EXPECT_LT(r.measured, 0.01);  // ms: one matmul is some 2048 PE cycles
    EXPECT_FALSE(r.ok);
    EXPECT_FALSE(r.gap);
    const ValidationCase& tiled = find_case("K01");
    ASSERT_FALSE(tiled.gap.empty());
    const ValidationRow g = run_case(tiled, {}, tracer);
    EXPECT_FALSE(g.ok);
    EXPECT_TRUE(g.gap);
}

TEST(ValidationKernel, Every_kernel_case_cites_its_public_figure_at_ten_percent) {
    int cases = 0;
    for (const ValidationCase& c : validation_cases()) {
        if (c.group != "kernel") continue;
        ++cases;
        EXPECT_EQ(c.kernels.size(), 1u) << c.id;
        EXPECT_DOUBLE_EQ(c.tolerance, 0.10) << c.id;
        EXPECT_NE(c.source.find(" ms x 1/"), std::string::npos) << c.id << ": " << c.source;
    }
    EXPECT_EQ(cases, 7);
}

}  // namespace
}  // namespace sbufsim
