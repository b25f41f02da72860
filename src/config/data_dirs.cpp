// Data directory lookup (see data_dirs.h).
#include "sbufsim/config/data_dirs.h"

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <system_error>

#include "sbufsim/config/config.h"

namespace fs = std::filesystem;

namespace sbufsim {

namespace {

struct KindInfo {
    const char* folder;  // under a data root
    const char* env;
    const char* flag;    // nullptr: no command-line option names this directory
    const char* noun;    // what is looked for, for messages
};

KindInfo info(DataKind kind) {
    if (kind == DataKind::configs)
        return {"configs", "SBUFSIM_CONFIG_DIR", "--config-dir", "generation file"};
    return {"traces", "SBUFSIM_TRACE_DIR", nullptr, "shipped trace"};
}

// The roots next to the running executable: an install (bin/ beside share/: SBUFSIM_BIN_TO_DATA
// is "../share/sbufsim" for the usual layout) first, then a build tree (share/ beside the
// executable). Empty when the executable cannot be located.
std::vector<DataPlace> roots_next_to_executable() {
    const fs::path exe = executable_path();
    if (exe.empty()) return {};
    const fs::path bin = exe.parent_path();
    return {{(bin / SBUFSIM_BIN_TO_DATA).lexically_normal().string(), "an install, next to the executable " + exe.string()},
            {(bin / "share" / "sbufsim").string(), "a build tree, next to the executable " + exe.string()}};
}

std::mutex roots_mutex;
std::optional<std::vector<DataPlace>> roots_set;

bool holds(const DataPlace& place, const std::string& file) {
    std::error_code ec;
    return fs::is_regular_file(fs::path(place.dir) / file, ec);
}

// "DIR (ORIGIN; no such directory)" or "DIR (ORIGIN)".
std::string describe(const DataPlace& place) {
    std::error_code ec;
    const bool missing = !fs::is_directory(place.dir, ec);
    return place.dir + " (" + place.origin + (missing ? "; no such directory" : "") + ")";
}

std::string list(const std::vector<DataPlace>& places) {
    std::string s;
    for (std::size_t i = 0; i < places.size(); ++i)
        s += (i == 0 ? "" : i + 1 == places.size() ? " and " : ", ") + describe(places[i]);
    return s;
}

std::vector<DataPlace> shipped_places(DataKind kind) {
    std::vector<DataPlace> places;
    for (const auto& root : data_roots())
        places.push_back({(fs::path(root.dir) / info(kind).folder).string(), root.origin});
    return places;
}

// Steps 1 and 2: the directory asked for, else the environment's; nothing when neither is set.
std::optional<DataPlace> explicit_place(DataKind kind, const std::string& requested) {
    const KindInfo k = info(kind);
    if (!requested.empty()) return DataPlace{requested, std::string("from ") + (k.flag ? k.flag : "the caller")};
    if (const char* env = std::getenv(k.env); env != nullptr && *env != '\0')
        return DataPlace{env, std::string("from $") + k.env};
    return std::nullopt;
}

// The first place of `places` holding `file`, or nothing.
const DataPlace* first_holding(const std::vector<DataPlace>& places, const std::string& file) {
    for (const auto& p : places)
        if (holds(p, file)) return &p;
    return nullptr;
}

}  // namespace

void set_data_roots(std::vector<DataPlace> roots) {
    const std::lock_guard<std::mutex> lock(roots_mutex);
    roots_set = std::move(roots);
}

std::string executable_path() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : exe.string();
}

std::vector<DataPlace> data_roots() {
    const std::lock_guard<std::mutex> lock(roots_mutex);
    if (!roots_set) roots_set = roots_next_to_executable();
    return *roots_set;
}

std::vector<DataPlace> data_places(DataKind kind, const std::string& requested) {
    if (auto place = explicit_place(kind, requested)) return {*place};
    return shipped_places(kind);
}

std::string find_data_file(DataKind kind, const std::string& file, const std::string& requested) {
    const KindInfo k = info(kind);
    const std::vector<DataPlace> places = data_places(kind, requested);
    if (const DataPlace* p = first_holding(places, file)) return (fs::path(p->dir) / file).string();

    std::string msg = std::string("cannot find the ") + k.noun + " " + file + ": looked in " +
                      (places.empty() ? std::string("no place (the executable's location is unknown)") : list(places));
    if (explicit_place(kind, requested)) {
        const std::vector<DataPlace> shipped = shipped_places(kind);
        const DataPlace* found = first_holding(shipped, file);
        const std::string undo = requested.empty() ? std::string("unset ") + k.env : std::string("drop ") + k.flag;
        if (found != nullptr)
            msg += "; the shipped one is in " + found->dir + " (" + undo + " to use it)";
        else
            msg += "; no shipped one was found either (looked in " +
                   (shipped.empty() ? std::string("no place") : list(shipped)) + ")";
    } else {
        msg += std::string("; set ") + k.env + (k.flag ? std::string(" or ") + k.flag : std::string()) +
               " to the folder that holds it";
    }
    throw ConfigError(msg);
}

}  // namespace sbufsim
