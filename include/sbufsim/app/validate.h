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
};

// kExitOk when every case is within tolerance, kExitFindings when one is not, kExitUsage for a
// bad --only (said on err).
int validate(const ValidateRequest& request, Io io);

}  // namespace sbufsim::app
