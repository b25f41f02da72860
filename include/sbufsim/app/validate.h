// `validate`: replays the validation cases (docs/validation.md) and prints, per case, the public
// or seed figure, sbufsim's figure and the error.
#pragma once

#include <string>

#include "sbufsim/app/app.h"

namespace sbufsim::app {

struct ValidateRequest {
    std::string only;        // a regular expression over the case ids ("" = every case)
    std::string config_dir;  // the generation files ("" = the shipped ones)
    bool list = false;       // list the cases without running them
    bool verbose = false;    // each case's source under its row
    // The kernel cases' tracer (the NKI front-end, as `nki` runs it): the folder holding the
    // sbufsim Python package ("" = none: the kernel cases are skipped) and its interpreter.
    std::string pythonpath;
    std::string python;
};

// kExitOk when every case is within tolerance (or out of it by a gap the case names, or skipped),
// kExitFindings when one is not, kExitUsage for a bad --only (said on err).
int validate(const ValidateRequest& request, Io io);

}  // namespace sbufsim::app
