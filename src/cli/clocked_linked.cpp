// The clocked scheduler of a program linked with the models (src/cli/clocked_scheduler.h).
#include "cli/clocked_scheduler.h"

namespace sbufsim::cli {

const models::ClockedEntry& clocked_scheduler() { return *sbufsim_clocked_entry(); }

}  // namespace sbufsim::cli
