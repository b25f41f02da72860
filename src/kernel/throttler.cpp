#include "sbufsim/kernel/throttler.h"

#include <algorithm>

namespace sbufsim {

// window_len 0 is read as 1 cycle so a misprogrammed CSR cannot divide by zero (INFERRED).
Throttler::Throttler(const ThrottleCfg& c)
    : enabled_(c.enable),
      window_len_(std::max<std::uint32_t>(1, c.window_len)),
      limit_(c.transfer_cnt) {}

}  // namespace sbufsim
