// Per-engine statistics of one replay (ReplayResult::engines).
#pragma once

#include <cstdint>
#include <string>

#include "sbufsim/types/types.h"

namespace sbufsim {

struct EngineStats {
    std::string name;                 // "arr_seq", "act", "pool", "dve", "dma_3", "q7_5"
    std::uint64_t instructions = 0;   // completed
    Cycle busy = 0;                   // kernel cycles with an instruction in progress
    Cycle sem_wait = 0;               // cycles the engine was free but its head waited a semaphore
    Cycle port_wait = 0;              // cycles its head was ready but waited for an NC-v2 shared
                                      // port held by the other side (shared_ports.h)
    Cycle bank_wait = 0;              // of `busy`, cycles an instruction outlived its cost-model time
                                      // because its bank requests were still queued in the kernel
    std::uint64_t bytes_read = 0;     // SBUF/PSUM bytes requested (per partition x partitions)
    std::uint64_t bytes_written = 0;
    Cycle first_start = kNever;
    Cycle last_end = 0;
    bool operator==(const EngineStats&) const = default;
};

}  // namespace sbufsim
