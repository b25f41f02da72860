// The TDM layer above the SBUF cluster arbiter (tpb_sbuf_cluster.json tdm_config, seed 000 §7.2).
//
// The period is tdm.max_slots cycles; slot = cycle mod max_slots. The first tdm.dma_slots slots
// of each period give the DMA class (DMA queues and Q7 AXI masters, §7.3) precedence on the
// banks, the others give the compute class (PE, ACT, POOL, DVE) precedence. In work-conserving
// mode (default, INFERRED from "DMA interference with compute bounded to 1/8") the other class
// may still take banks left free in that cycle; tdm.strict holds it out of the slot entirely.
#pragma once

#include <cstdint>

#include "sbufsim/kernel/clients.h"
#include "sbufsim/config/params.h"
#include "sbufsim/kernel/request.h"

namespace sbufsim {

class Tdm {
public:
    explicit Tdm(const TdmParams& p);

    std::uint32_t slots() const { return max_slots_; }
    bool strict() const { return strict_; }
    std::uint32_t slot(Cycle t) const { return static_cast<std::uint32_t>(t % max_slots_); }
    // The class with precedence in slot `s`.
    TdmClass precedence(std::uint32_t s) const {
        return s < dma_slots_ ? TdmClass::dma : TdmClass::compute;
    }
    // The first cycle after `t` whose slot gives precedence to a different class than t's, or
    // kNever when one class owns every slot. Used to fast-forward strict-mode waits exactly.
    Cycle next_change(Cycle t) const { return next_change(t, slot(t)); }
    // The same for a cycle whose slot `s` is known (no division).
    Cycle next_change(Cycle t, std::uint32_t s) const {
        if (dma_slots_ == 0 || dma_slots_ == max_slots_) return kNever;
        // DMA slots [0, dma_slots) then compute slots [dma_slots, max_slots).
        return t - s + (s < dma_slots_ ? dma_slots_ : max_slots_);
    }

private:
    std::uint32_t max_slots_;
    std::uint32_t dma_slots_;
    bool strict_;
};

}  // namespace sbufsim
