// One completed instruction of a replay's timeline, kept only when
// ReplayOptions::record_timeline is set (ReplayResult::timeline, docs/timeline.md).
#pragma once

#include <cstdint>

#include "sbufsim/types/types.h"

namespace sbufsim {

struct InstrEvent {
    std::uint64_t line = 0;
    std::uint16_t engine = 0;     // index into ReplayResult::engines
    Cycle start = 0;              // cycle the instruction started (its waits were met)
    Cycle end = 0;                // cycle it completed (its signals fired)
};

}  // namespace sbufsim
