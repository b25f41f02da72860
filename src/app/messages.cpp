#include "sbufsim/app/messages.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "sbufsim/config/config.h"
#include "sbufsim/config/data_dirs.h"

namespace sbufsim::app {

std::string races_warning(const std::string& trace, std::uint64_t races, const TraceError& first,
                          std::string_view subject) {
    return trace + ": " + std::to_string(races) + " race" + (races == 1 ? "" : "s") +
           " between queues (instructions touching the same bytes, one writing, with no wait ordering "
           "them): " +
           std::string(subject) + " times each as it happens to fall; the first: " + first.to_string() +
           "; `sbufsim check " + trace + "` lists them all";
}

std::string timeout_problem(double seconds) {
    if (seconds >= 0 && seconds <= kMaxTimeoutSeconds) return {};
    std::ostringstream why;
    why << "--timeout " << seconds << ": give seconds from 0 (no limit) to " << kMaxTimeoutSeconds
        << " (about three years)";
    return why.str();
}

std::string timeout_text_problem(const std::string& text, double& seconds) {
    char* end = nullptr;
    seconds = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0') return "--timeout " + text + ": not a number of seconds";
    return timeout_problem(seconds);
}

std::string shipped_trace_hint(const std::string& path) {
    std::error_code ec;
    if (path.empty() || path == "-" || std::filesystem::exists(path, ec)) return {};
    try {
        const std::string found =
            find_data_file(DataKind::traces, std::filesystem::path(path).filename().string());
        return " (a shipped trace of that name: " + found + ")";
    } catch (const ConfigError&) {
        return {};  // no shipped trace of that name either
    }
}

std::string shipped_example_hint(const std::string& path) {
    std::error_code ec;
    const std::string_view kDir = "examples/";
    const std::size_t at = path.rfind(kDir);
    if (at == std::string::npos || std::filesystem::exists(path, ec)) return {};
    const std::string tail = path.substr(at + kDir.size());
    for (const DataPlace& root : data_roots()) {
        const std::filesystem::path p = std::filesystem::path(root.dir) / "examples" / tail;
        if (std::filesystem::is_regular_file(p, ec))
            return " (an installed example of that name: " + p.string() + ")";
    }
    return {};
}

}  // namespace sbufsim::app
