// The clocked scheduler (models/clocked_replay.h) as the commands reach it: `run --scheduler
// clocked`, `run --vcd`, `run --hierarchy` and `bench --trace`.
//
// Two definitions, one per kind of program:
//   clocked_module.cpp   the sbufsim executable, which does not link SystemC: on first use it
//                        opens the module sbufsim_clocked.so (models/clocked_entry.h) from
//                        $SBUFSIM_CLOCKED_MODULE, else next to the executable, as the data
//                        folders are found (an install: <bin>/SBUFSIM_BIN_TO_MODULE; a build
//                        tree: <bin>/lib/sbufsim);
//   clocked_linked.cpp   programs that link the models (the CLI tests, the Python module).
#pragma once

#include "models/replay/clocked_entry.h"

namespace sbufsim::cli {

// The entry points, the module opened on the first call. Throws ConfigError (exit 2) naming
// every place looked at and why the module could not be used: not found, not loadable (the
// loader's reason), not sbufsim's, or from another build.
const models::ClockedEntry& clocked_scheduler();

}  // namespace sbufsim::cli
