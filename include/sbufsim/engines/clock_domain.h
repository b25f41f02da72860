// Engine clock to kernel clock. Kernel cycle = one SBUF arbitration slot, taken as one PE clock
// cycle (INFERRED: the seeds give no SBUF clock; docs/engines.md).
#pragma once

#include <cmath>

#include "sbufsim/types/types.h"

namespace sbufsim {

class ClockDomain {
public:
    ClockDomain() = default;
    ClockDomain(double engine_ghz, double kernel_ghz);
    // Kernel cycles covering `engine_cycles` of this clock (rounded up: an engine never finishes
    // early).
    Cycle to_kernel(double engine_cycles) const {
        return static_cast<Cycle>(std::ceil(engine_cycles * ratio_ - 1e-9));
    }
    double ratio() const { return ratio_; }

private:
    double ratio_ = 1.0;
};

}  // namespace sbufsim
