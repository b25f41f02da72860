// Where the shipped data lives: the generation files (configs/<gen>.ini) and the traces
// (traces/). No absolute path of the source or build tree is compiled in: a copied or moved
// install finds its own files, never those of the checkout it was built from.
//
// A data directory is looked for in this order:
//   1. the directory asked for explicitly (`--config-dir DIR`);
//   2. the environment: SBUFSIM_CONFIG_DIR, SBUFSIM_TRACE_DIR;
//   3. the data roots of the running code, each a folder holding configs/ and traces/. By default
//      they sit next to the executable: <bin>/../share/sbufsim (an install: bin/ beside share/)
//      and <bin>/share/sbufsim (a build tree, where CMake links them to the source folders).
//      The Python module sets its own roots, relative to its shared object.
// An explicit choice (1 or 2) is final: a file missing there is an error naming that place and
// where the shipped files are, never a silent fall-back to other data.
#pragma once

#include <string>
#include <vector>

namespace sbufsim {

enum class DataKind : unsigned char { configs, traces };

// One place looked at, with why it was looked at ("$SBUFSIM_CONFIG_DIR", "an install next to
// the executable /opt/x/bin/sbufsim", ...), for error messages.
struct DataPlace {
    std::string dir;
    std::string origin;
};

// The running executable's path ("" when it cannot be located): what "next to the executable"
// is relative to, here and for the clocked scheduler's module (src/cli/clocked_scheduler.h).
std::string executable_path();

// The roots searched by step 3, in order; each holds configs/ and traces/. Replaces the
// default (next to the executable). Thread-safe; meant to be called once at start-up.
void set_data_roots(std::vector<DataPlace> roots);
std::vector<DataPlace> data_roots();

// The places searched for `kind`, in order: only the explicit one when `requested` is given or
// the environment variable is set, else the data roots' <kind>/ folders.
std::vector<DataPlace> data_places(DataKind kind, const std::string& requested = {});

// The path of `file` in the first place that holds it. Throws ConfigError naming every place
// looked at (and, when an explicit choice missed, where the shipped files are).
std::string find_data_file(DataKind kind, const std::string& file, const std::string& requested = {});

}  // namespace sbufsim
