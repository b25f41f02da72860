// `sbufsim validate`'s arbitration cases (src/validation/validation.cpp, docs/validation.md): each
// holds a seed register reading, so each must fail when the configuration changes that register.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>

#include "sbufsim/validation/validation.h"
#include "temp_files.h"

namespace sbufsim {
namespace {

const ValidationCase& find_case(const std::string& id) {
    for (const ValidationCase& c : validation_cases())
        if (c.id == id) return c;
    throw std::runtime_error("no validation case " + id);
}

// A copy of the shipped configs in which cayman.ini's line starting with `key =` reads `value`.
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
    EXPECT_TRUE(found) << key << " is not in cayman.ini";
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

}  // namespace
}  // namespace sbufsim
