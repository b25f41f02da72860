// The clocked scheduler of the sbufsim executable: the module sbufsim_clocked.so, opened on
// first use (src/cli/clocked_scheduler.h says where it is looked for, models/clocked_entry.h why
// it is a module). The fast scheduler never loads SystemC.
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "cli/clocked_scheduler.h"
#include "sbufsim/config/config.h"
#include "sbufsim/config/data_dirs.h"
#include "sbufsim_revision.h"

namespace fs = std::filesystem;

namespace sbufsim::cli {
namespace {

constexpr const char* kModuleFile = "sbufsim_clocked.so";
constexpr const char* kEnv = "SBUFSIM_CLOCKED_MODULE";
constexpr const char* kUses =
    "the clocked scheduler (--scheduler clocked, --vcd, --hierarchy, bench --trace)";

struct ModulePlace {
    std::string path;
    std::string origin;
};

// $SBUFSIM_CLOCKED_MODULE alone when set (`chosen`: an explicit choice is final, as for the data
// folders), else next to the executable: an install first, then a build tree.
std::vector<ModulePlace> module_places(const char* chosen) {
    if (chosen != nullptr) return {{chosen, std::string("$") + kEnv}};
    const fs::path exe = executable_path();
    if (exe.empty()) return {};
    const fs::path bin = exe.parent_path();
    return {{(bin / SBUFSIM_BIN_TO_MODULE / kModuleFile).lexically_normal().string(),
             "an install, next to the executable " + exe.string()},
            {(bin / "lib" / "sbufsim" / kModuleFile).string(),
             "a build tree, next to the executable " + exe.string()}};
}

std::string list(const std::vector<ModulePlace>& places) {
    if (places.empty()) return "no place (the executable's location is unknown)";
    std::string s;
    for (std::size_t i = 0; i < places.size(); ++i)
        s += (i == 0                   ? ""
              : i + 1 == places.size() ? " or "
                                       : ", ") +
             places[i].path + " (" + places[i].origin + ")";
    return s;
}

[[noreturn]] void refuse(const std::string& why, bool explicit_choice) {
    throw ConfigError(std::string(kUses) + " is the module " + kModuleFile + ", and " + why +
                      (explicit_choice
                           ? std::string("; unset ") + kEnv + " to use the installed one"
                           : std::string("; reinstall sbufsim (or build the target sbufsim_clocked)")) +
                      ", or run the fast scheduler, which needs no module");
}

const models::ClockedEntry* open_module() {
    const char* env = std::getenv(kEnv);
    const char* chosen = env != nullptr && *env != '\0' ? env : nullptr;
    const bool explicit_choice = chosen != nullptr;
    const std::vector<ModulePlace> places = module_places(chosen);
    const ModulePlace* found = nullptr;
    for (const ModulePlace& p : places) {
        std::error_code ec;
        if (fs::is_regular_file(p.path, ec)) {
            found = &p;
            break;
        }
    }
    if (found == nullptr) refuse("there is none at " + list(places), explicit_choice);
    // RTLD_NOW: a symbol the executable lacks is an error here, not a crash in the middle of a
    // run. RTLD_LOCAL: nothing of SystemC's is added to the executable's own lookups.
    void* handle = dlopen(found->path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        const char* reason = dlerror();
        refuse("the one in " + found->path + " (" + found->origin +
                   ") cannot be loaded: " + (reason != nullptr ? reason : "no reason given"),
               explicit_choice);
    }
    void* symbol = dlsym(handle, models::kClockedEntrySymbol);
    if (symbol == nullptr) {
        dlclose(handle);
        refuse(found->path + " (" + found->origin + ") is not sbufsim's clocked module (it has no " +
                   models::kClockedEntrySymbol + ")",
               explicit_choice);
    }
    const models::ClockedEntry* entry = reinterpret_cast<models::ClockedEntryFn>(symbol)();
    const std::string mine = std::string(SBUFSIM_VERSION) + " " + SBUFSIM_REVISION;
    if (entry == nullptr || mine != entry->build) {
        const std::string theirs = entry != nullptr ? entry->build : "(unknown)";
        dlclose(handle);
        refuse(found->path + " (" + found->origin + ") was built as sbufsim " + theirs +
                   ", this executable as sbufsim " + mine + ": the two must come from one build",
               explicit_choice);
    }
    // Never closed: SystemC's state lives until the process ends.
    return entry;
}

}  // namespace

const models::ClockedEntry& clocked_scheduler() {
    // A refusal is not cached: the next call looks again (and says the same).
    static std::mutex mutex;
    static const models::ClockedEntry* entry = nullptr;
    const std::lock_guard<std::mutex> lock(mutex);
    if (entry == nullptr) entry = open_module();
    return *entry;
}

}  // namespace sbufsim::cli
