// libFuzzer target: the INI reader and the configuration loader (a user file layered over
// cayman), and `--set KEY=VALUE` parsing. Errors must be ConfigError with no raw control
// characters in the message; a file that loads must render to INI that loads to the same text.
// scripts/fuzz.sh builds and runs it.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "sbufsim/config/config.h"

using namespace sbufsim;

namespace {

bool has_control(const std::string& s) {
    for (const char c : s)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
    return false;
}

// A file of this process that holds `text` (the reader takes paths), removed when the input is
// done, so that neither a fuzz run nor the regression test leaves it behind.
class Scratch {
public:
    Scratch(const std::string& text, const char* tag)
        : path_((std::filesystem::temp_directory_path() /
                 ("sbufsim-fuzz-" + std::to_string(::getpid()) + tag + ".ini"))
                    .string()) {
        std::ofstream(path_, std::ios::binary | std::ios::trunc) << text;
    }
    ~Scratch() {
        std::error_code ec;
        std::filesystem::remove(path_, ec);
    }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

}  // namespace

// One input; aborts when a property fails (tests/test_fuzz_regressions.cpp replays the kept inputs).
int fuzz_config_one(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    LoadRequest req;
    req.generation = "cayman";
    const Scratch file(text, "");
    req.user_files = {file.path()};
    try {
        const LoadedConfig cfg = load_config(req);
        const std::string ini = render_ini(cfg, false);
        LoadRequest again;
        const Scratch rendered(ini, "-again");
        again.user_files = {rendered.path()};
        if (render_ini(load_config(again), false) != ini) std::abort();
    } catch (const ConfigError& e) {
        if (has_control(e.what())) std::abort();
    }
    // The same bytes as one --set argument (the text up to the first newline).
    try {
        LoadRequest set;
        set.generation = "cayman";
        set.overrides.push_back(parse_override(text.substr(0, text.find('\n'))));
        (void)load_config(set);
    } catch (const ConfigError& e) {
        if (has_control(e.what())) std::abort();
    }
    return 0;
}

#ifndef SBUFSIM_FUZZ_NO_ENTRY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { return fuzz_config_one(data, size); }
#endif
