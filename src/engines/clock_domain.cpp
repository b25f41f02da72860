#include "sbufsim/engines/clock_domain.h"

namespace sbufsim {

// A clock given as 0 GHz (unknown) runs at the kernel's rate.
ClockDomain::ClockDomain(double engine_ghz, double kernel_ghz)
    : ratio_(engine_ghz > 0 ? kernel_ghz / engine_ghz : 1.0) {}

}  // namespace sbufsim
