// Stand-ins for the clocked module (models/clocked_entry.h), for the refusals of
// src/cli/clocked_module.cpp: built with FAKE_ENTRY, a module from another build (its stamp is
// not the executable's); without it, a shared object that is not sbufsim's module at all.
#include "models/replay/clocked_entry.h"

#ifdef FAKE_ENTRY
extern "C" const sbufsim::models::ClockedEntry* sbufsim_clocked_entry() {
    static const sbufsim::models::ClockedEntry entry{"0.0.0 another-build", nullptr, nullptr};
    return &entry;
}
#else
extern "C" int not_the_clocked_entry() { return 0; }
#endif
