// The sbufsim Python package and its interpreter (nki_package.h).
#include "cli/nki_package.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#ifndef SBUFSIM_PYTHON3
#define SBUFSIM_PYTHON3 "/usr/bin/python3"
#endif
#ifndef SBUFSIM_BIN_TO_PYTHON
#define SBUFSIM_BIN_TO_PYTHON ""
#endif
#ifndef SBUFSIM_BIN_TO_PYTHON_USER
#define SBUFSIM_BIN_TO_PYTHON_USER SBUFSIM_BIN_TO_PYTHON
#endif

namespace sbufsim::cli {

namespace fs = std::filesystem;

std::string nki_package_dir() {
    if (const char* env = std::getenv("SBUFSIM_PYTHONPATH"); env && *env) return env;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    const fs::path bin = exe.parent_path();
    for (const fs::path& dir : {bin / "python", (bin / SBUFSIM_BIN_TO_PYTHON).lexically_normal(),
                                (bin / SBUFSIM_BIN_TO_PYTHON_USER).lexically_normal()})
        if (fs::is_regular_file(dir / "sbufsim" / "nki" / "__init__.py", ec)) return dir.string();
    return {};
}

std::string nki_python(const std::string& given) {
    if (!given.empty()) return given;
    const char* env = std::getenv("SBUFSIM_PYTHON");
    return env && *env ? env : SBUFSIM_PYTHON3;
}

}  // namespace sbufsim::cli
