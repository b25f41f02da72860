#include "sbufsim/kernel/tdm.h"

#include <algorithm>

namespace sbufsim {

Tdm::Tdm(const TdmParams& p)
    : max_slots_(std::max<std::uint32_t>(1, p.max_slots)),
      dma_slots_(std::min(p.dma_slots, std::max<std::uint32_t>(1, p.max_slots))),
      strict_(p.strict) {}

Cycle Tdm::next_change(Cycle t) const {
    if (dma_slots_ == 0 || dma_slots_ == max_slots_) return kNever;
    const Cycle base = t - t % max_slots_;
    const std::uint32_t s = slot(t);
    // DMA slots [0, dma_slots) then compute slots [dma_slots, max_slots).
    return s < dma_slots_ ? base + dma_slots_ : base + max_slots_;
}

}  // namespace sbufsim
