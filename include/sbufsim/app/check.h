// `check`: validate traces without simulating. Streams each trace through the reader (syntax,
// field widths), TraceChecker (hardware rules) and the synchronisation check, printing every
// problem as `file:line: field: reason (rule, seed section)`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sbufsim/app/app.h"
#include "sbufsim/config/config.h"

namespace sbufsim::app {

struct CheckRequest {
    std::vector<std::string> traces;
    // The configuration; a trace's own gen= applies unless it names a generation or a file.
    LoadRequest config;
    std::uint64_t max_errors = 0;  // stop after this many problems (0: report all)
    bool quiet = false;            // no summary line
    bool lenient = false;          // check the records of another generation's trace too
};

// Problems on `out`, the summary on `err`. kExitOk (clean), kExitFindings, or kExitInput when a
// trace could not be opened.
int check_traces(const CheckRequest& request, Io io);

}  // namespace sbufsim::app
