// libFuzzer target: the command line of `sbufsim nki` as it is checked before the tracer runs
// (cli::check_nki_options: the split between the tracer's and the replay's options, --timeout,
// the kernel's FILE::FUNCTION form, the outputs, and `sbufsim run`'s or `sbufsim sweep`'s options
// and configuration). No Python runs. An input is its arguments, one per line. Errors must be the
// command line's own (an exit status with a reason; a refused output, a configuration error or a
// bad option as `sbufsim` reports them): any other exception, a crash or a hang is a finding.
// Arguments naming a path outside the working directory (a '/') are left out: the check opens the
// outputs it is given (their temporaries removed unwritten), so the target works in a private
// folder and never names another. scripts/fuzz.sh builds and runs it.
#include <unistd.h>

#include <boost/program_options/errors.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"
#include "sbufsim/config/config.h"
#include "sbufsim/output/output_file.h"

namespace {

// At most this many arguments of at most this many bytes: a command line, not a file.
constexpr std::size_t kMaxArgs = 32, kMaxArgBytes = 256;

// The arguments of one input, or false when it is not one this target runs.
bool arguments(const std::uint8_t* data, std::size_t size, std::vector<std::string>& args) {
    std::string arg;
    for (std::size_t i = 0; i <= size; ++i) {
        if (i == size || data[i] == '\n') {
            if (arg.size() > kMaxArgBytes || arg.find('/') != std::string::npos) return false;
            args.push_back(std::move(arg));
            arg.clear();
            if (args.size() > kMaxArgs) return false;
        } else {
            arg.push_back(static_cast<char>(data[i]));
        }
    }
    return true;
}

// A folder of this process that the checks' relative paths land in, removed at exit.
struct PrivateFolder {
    std::filesystem::path path;
    PrivateFolder() {
        std::string templ = (std::filesystem::temp_directory_path() / "sbufsim-fuzz-nki-XXXXXX").string();
        if (!::mkdtemp(templ.data()) || ::chdir(templ.c_str()) != 0) std::abort();
        path = templ;
    }
    ~PrivateFolder() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
};

}  // namespace

// One input; aborts when a property fails (tests/test_cli_fuzz_nki.cpp replays the kept inputs).
int fuzz_nki_one(const std::uint8_t* data, std::size_t size) {
    static const PrivateFolder folder;
    std::vector<std::string> args;
    if (!arguments(data, size, args)) return 0;
    std::ostringstream out, err;
    try {
        const int rc = sbufsim::cli::check_nki_options(args, {out, err});
        // A failed check says why.
        if (rc != 0 && err.str().empty()) std::abort();
    } catch (const sbufsim::OutputError&) {
    } catch (const sbufsim::ConfigError&) {
    } catch (const boost::program_options::error&) {
    }  // anything else escapes: `sbufsim` would report it as an internal error, a finding
    return 0;
}

#ifndef SBUFSIM_FUZZ_NO_ENTRY
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return fuzz_nki_one(data, size);
}
#endif
