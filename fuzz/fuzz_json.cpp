// libFuzzer target: the JSON inputs of `run --from` (a run's result) and `plot` (a run's
// statistics, a sweep's rows): read_json_input's checks (nesting, size, control bytes), then the
// property_tree parser both commands use and the sweep-rows reader. No input may crash, overflow
// the stack or throw anything but the readers' own errors, and read_json_input's errors name the
// file. scripts/fuzz.sh builds and runs it.
#include <unistd.h>

#define BOOST_BIND_GLOBAL_PLACEHOLDERS
#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sbufsim/sweep/sweep_chart.h"
#include "sbufsim/types/input_file.h"

namespace {

// The input as a file of this process (read_json_input takes a path), removed when done.
class JsonFile {
public:
    explicit JsonFile(const std::string& text)
        : path_((std::filesystem::temp_directory_path() /
                 ("sbufsim-fuzz-" + std::to_string(::getpid()) + ".json"))
                    .string()) {
        std::ofstream(path_, std::ios::binary | std::ios::trunc) << text;
    }
    ~JsonFile() {
        std::error_code ec;
        std::filesystem::remove(path_, ec);
    }
    JsonFile(const JsonFile&) = delete;
    JsonFile& operator=(const JsonFile&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

}  // namespace

// One input; aborts when a property fails (tests/test_fuzz_regressions.cpp replays the kept inputs).
int fuzz_json_one(const std::uint8_t* data, std::size_t size) {
    namespace pt = boost::property_tree;
    const JsonFile file(std::string(reinterpret_cast<const char*>(data), size));
    std::string text;
    try {
        text = sbufsim::read_json_input(file.path());
    } catch (const sbufsim::InputError& e) {
        if (std::string(e.what()).rfind(file.path() + ": ", 0) != 0) std::abort();
        return 0;
    }
    try {
        std::istringstream in(text);
        pt::ptree doc;
        pt::read_json(in, doc);
        if (const auto runs = doc.get_child_optional("runs"))
            for (const auto& run : *runs) (void)run.second.get<std::string>("trace", "");
    } catch (const pt::ptree_error&) {}
    try {
        (void)sbufsim::chart::parse_sweep_json(text, "rows.json");
    } catch (const sbufsim::chart::ChartError&) {}
    return 0;
}

#ifndef SBUFSIM_FUZZ_NO_ENTRY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return fuzz_json_one(data, size);
}
#endif
