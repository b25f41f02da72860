#include "sbufsim/engines/dma_trigger.h"

#include <algorithm>
#include <cmath>

namespace sbufsim {

namespace {
Cycle ceil_cycles(double v) { return static_cast<Cycle>(std::ceil(v - 1e-9)); }
}  // namespace

std::string trigger_unit_name(std::size_t unit) {
    static const char* const sequencers[] = {"sp", "act", "pool", "dve"};
    const std::size_t dge = static_cast<std::size_t>(TriggerUnit::dge0);
    return unit < dge ? sequencers[unit] : "dge" + std::to_string(unit - dge);
}

DmaTriggers::DmaTriggers(const Params& p) : dge_units_(p.dma.hwdge_units) {
    const double pe = p.pe.clock_ghz;
    // Engine cycles become kernel (PE) cycles by the clock ratio; SP runs at the ACT clock
    // (INFERRED: the public guides give no Sync-engine clock).
    const double clocks[4] = {p.act.clock_ghz, p.act.clock_ghz, p.pool.clock_ghz, p.dve.clock_ghz};
    for (std::size_t i = 0; i < 4; ++i) static_[i] = ceil_cycles(p.dma.static_trigger_cycles * pe / clocks[i]);
    hwdge_ = ceil_cycles(p.dma.hwdge_ns * pe);   // ns x GHz = cycles
    swdge_ = ceil_cycles(p.dma.swdge_ns * pe);
    free_.assign(4 + dge_units_, 0);
    busy_.assign(4 + dge_units_, 0);
}

std::uint32_t DmaTriggers::unit_of(DgeMode dge, DmaIssuer issuer) const {
    if (dge == DgeMode::swdge) return static_cast<std::uint32_t>(TriggerUnit::pool);
    if (dge == DgeMode::hwdge && dge_units_ > 0)   // block 0 answers SP, block 1 ACT
        return static_cast<std::uint32_t>(TriggerUnit::dge0) + (issuer == DmaIssuer::act ? 1 % dge_units_ : 0);
    // Static (and hwdge where no DGE exists, which only a lenient replay lets through).
    return issuer == DmaIssuer::unset ? 0 : static_cast<std::uint32_t>(issuer) - 1;
}

Cycle DmaTriggers::cost_of(DgeMode dge, DmaIssuer issuer) const {
    if (dge == DgeMode::swdge) return swdge_;
    if (dge == DgeMode::hwdge && dge_units_ > 0) return hwdge_;
    return static_[unit_of(dge, issuer)];
}

std::uint32_t DmaTriggers::open(DgeMode dge, DmaIssuer issuer, std::uint32_t shares) {
    std::uint32_t id;
    if (!free_slots_.empty()) {
        id = free_slots_.back();
        free_slots_.pop_back();
    } else {
        id = static_cast<std::uint32_t>(slots_.size());
        slots_.emplace_back();
    }
    slots_[id] = Slot{unit_of(dge, issuer), cost_of(dge, issuer), kNever, std::max<std::uint32_t>(1, shares),
                      opened_++};
    return id;
}

Cycle DmaTriggers::arm(std::uint32_t id, Cycle now) {
    Slot& s = slots_[id];
    if (s.done != kNever) {
        const Cycle done = s.done;
        release(id);
        return done;
    }
    if (s.claimed_at == kNever) {
        s.claimed_at = now;
        claims_.push_back(id);
    }
    return kTriggerClaimed;
}

std::uint32_t DmaTriggers::resolve() {
    std::sort(claims_.begin(), claims_.end(),
              [&](std::uint32_t a, std::uint32_t b) { return slots_[a].order < slots_[b].order; });
    std::uint32_t units = 0;
    for (const std::uint32_t id : claims_) {
        Slot& s = slots_[id];
        s.done = std::max(free_[s.unit], s.claimed_at) + s.cost;
        free_[s.unit] = s.done;
        busy_[s.unit] += s.cost;
        units |= 1u << s.unit;
    }
    claims_.clear();
    return units;
}

Cycle DmaTriggers::take(std::uint32_t id) {
    const Cycle done = slots_[id].done;
    release(id);
    return done;
}

void DmaTriggers::release(std::uint32_t id) {
    Slot& s = slots_[id];
    if (--s.remaining == 0) {
        s.claimed_at = kNever;
        free_slots_.push_back(id);
    }
}

}  // namespace sbufsim
