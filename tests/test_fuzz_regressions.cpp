// Inputs the fuzzers (fuzz/, scripts/fuzz.sh) found or that guard a fixed defect, kept under
// fuzz/regressions/{trace,config}/ and replayed through the same property checks on every test
// run: a property that fails aborts this test.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#define SBUFSIM_FUZZ_NO_ENTRY
#include "../fuzz/fuzz_config.cpp"
#include "../fuzz/fuzz_json.cpp"
#include "../fuzz/fuzz_trace.cpp"

namespace {

namespace fs = std::filesystem;

std::size_t replay_dir(const std::string& kind, int (*one)(const std::uint8_t*, std::size_t)) {
    std::size_t n = 0;
    const fs::path dir = fs::path(SBUFSIM_SOURCE_DIR) / "fuzz" / "regressions" / kind;
    for (const auto& e : fs::directory_iterator(dir)) {
        if (!e.is_regular_file() || e.path().filename() == "README.md") continue;
        std::ifstream in(e.path(), std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        SCOPED_TRACE(e.path().string());
        one(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
        ++n;
    }
    return n;
}

TEST(FuzzRegressions, Trace_inputs_keep_their_properties) { EXPECT_GT(replay_dir("trace", fuzz_trace_one), 0u); }

TEST(FuzzRegressions, Config_inputs_keep_their_properties) { EXPECT_GT(replay_dir("config", fuzz_config_one), 0u); }

TEST(FuzzRegressions, Json_inputs_keep_their_properties) { EXPECT_GT(replay_dir("json", fuzz_json_one), 0u); }

}  // namespace
