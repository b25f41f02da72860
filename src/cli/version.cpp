// The source revision this binary was built from: computed by CMake before every build
// (cmake/git_revision.cmake); "unknown" when built outside a git checkout.
#include "cli/cli.h"

#include "sbufsim_revision.h"

namespace sbufsim::cli {

const char* revision() { return SBUFSIM_REVISION; }

std::string version_line() { return std::string("sbufsim ") + SBUFSIM_VERSION + " (revision " + revision() + ")"; }

}  // namespace sbufsim::cli
