// The clocked scheduler as a table of entry points, for a program that opens the models as a
// module at run time instead of linking them. The sbufsim executable does: SystemC's library
// costs every process that loads it about 4.5 ms before main() (docs/performance.md,
// "Start-up"), and only the clocked scheduler needs it. The module (sbufsim_clocked.so, built
// from the same objects as the sbufsim_models library) exports one C function,
// kClockedEntrySymbol, that returns this table; src/cli/clocked_scheduler.h finds and opens it.
//
// The module takes the core (config, kernel, replay) from the executable that opens it, so the
// two must come from one build: `build` is the version and source revision both were compiled
// from, and the opener refuses a module whose stamp is not its own.
#pragma once

#include "models/replay/clocked_replay.h"

namespace sbufsim::models {

struct ClockedEntry {
    const char* build;  // "<version> <revision>"
    decltype(&replay_clocked) replay;
    decltype(&replay_clocked_trace) replay_trace;
};

// The exported function's name and type.
inline constexpr const char* kClockedEntrySymbol = "sbufsim_clocked_entry";
using ClockedEntryFn = const ClockedEntry* (*)();

}  // namespace sbufsim::models

// Defined by models/clocked_entry.cpp (in the module and in the sbufsim_models library alike).
extern "C" const sbufsim::models::ClockedEntry* sbufsim_clocked_entry();
