#include "models/replay/clocked_entry.h"

#include "sbufsim_revision.h"

extern "C" const sbufsim::models::ClockedEntry* sbufsim_clocked_entry() {
    static const sbufsim::models::ClockedEntry entry{SBUFSIM_VERSION " " SBUFSIM_REVISION,
                                                     &sbufsim::models::replay_clocked,
                                                     &sbufsim::models::replay_clocked_trace};
    return &entry;
}
