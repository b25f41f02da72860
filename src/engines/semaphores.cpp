#include "sbufsim/engines/semaphores.h"

namespace sbufsim {

Semaphores::Semaphores(std::uint32_t count)
    : value_(count, 0), last_signal_(count, 0), wanted_(count, kNobodyWaits) {}

}  // namespace sbufsim
