// Inputs the NKI command line's fuzz target (fuzz/fuzz_nki.cpp, scripts/fuzz.sh) found or that
// guard a fixed defect, kept under fuzz/regressions/nki/ and replayed through the same property
// checks on every test run: a property that fails aborts this test.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#define SBUFSIM_FUZZ_NO_ENTRY
#include "../fuzz/fuzz_nki.cpp"

namespace {

namespace fs = std::filesystem;

TEST(FuzzRegressions, Nki_command_lines_keep_their_properties) {
    std::size_t n = 0;
    const fs::path dir = fs::path(SBUFSIM_SOURCE_DIR) / "fuzz" / "regressions" / "nki";
    for (const auto& e : fs::directory_iterator(dir)) {
        if (!e.is_regular_file()) continue;
        std::ifstream in(e.path(), std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        SCOPED_TRACE(e.path().string());
        fuzz_nki_one(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
        ++n;
    }
    EXPECT_GT(n, 0u);
}

}  // namespace
