#include "sbufsim/kernel/tdm.h"

#include <algorithm>

namespace sbufsim {

Tdm::Tdm(const TdmParams& p)
    : max_slots_(std::max<std::uint32_t>(1, p.max_slots)),
      dma_slots_(std::min(p.dma_slots, std::max<std::uint32_t>(1, p.max_slots))),
      strict_(p.strict) {}

}  // namespace sbufsim
