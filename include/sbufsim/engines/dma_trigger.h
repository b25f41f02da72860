// DMA triggers: what a DMA instruction costs the engine that issues it (docs/engines.md "DMA
// triggers"; docs/public-timing.md §1.7).
//
// "Each DMA transfer starts with a DMA trigger from a NeuronCore" (DMA overview). How long the
// trigger takes and what it holds depends on how the descriptors are made (nki.isa.dge_mode, the
// DGE reference):
//   dge=none (static, the default): descriptors are pre-built in HBM; the trigger is a control
//     instruction of dma.static_trigger_cycles on the issuing sequencer (SP, ACT, POOL or DVE);
//   dge=hwdge (NeuronCore-v3+): ~dma.hwdge_ns on one of dma.hwdge_units DGE blocks — block 0 is
//     triggered by SP, block 1 by ACT — while the issuing engine's compute pipeline continues;
//   dge=swdge: dma.swdge_ns on the POOL (GpSimd) engine, which computes nothing meanwhile.
// Each trigger unit (the SP sequencer, the ACT/POOL/DVE engines, each DGE block) serves one
// thing at a time, first come first served: a compute engine's instructions and the triggers
// routed to it share it. A record's trigger is issued when its first share is armed (its waits
// met, inside its queue's prefetch window); the transfer's semaphore-to-start latency runs after
// the trigger is done.
// Triggers issued in the same cycle are served in the trace's record order, after the compute
// instructions that start in that cycle: arming only claims the unit, and resolve() serves the
// claims once the cycle has settled. Which engine armed first within a cycle is the order a
// scheduler happened to step them in, which no statistic may depend on.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "sbufsim/config/params.h"
#include "sbufsim/types/dma_trigger_mode.h"
#include "sbufsim/types/types.h"

namespace sbufsim {

inline constexpr std::uint32_t kNoTrigger = 0xffffffffu;
// DmaTriggers::arm(): claimed, served when the cycle has settled.
inline constexpr Cycle kTriggerClaimed = kNever - 1;

// The units a trigger can occupy: the four sequencers, then the DGE blocks.
enum class TriggerUnit : std::uint8_t { sp, act, pool, dve, dge0 };
// A unit's name in reports: sp, act, pool, dve, dge0, dge1, ...
std::string trigger_unit_name(std::size_t unit);

class DmaTriggers {
public:
    explicit DmaTriggers(const Params& p);

    // The trigger of one DMA record that `shares` engine shares will arm; returns its id. Records
    // open their triggers in trace order.
    std::uint32_t open(DgeMode dge, DmaIssuer issuer, std::uint32_t shares);
    // A share of trigger `id` armed at `now`: the cycle the trigger is done when an earlier cycle
    // served it, else kTriggerClaimed (the first share's claim on the unit, served by resolve();
    // each claiming share then calls take()).
    Cycle arm(std::uint32_t id, Cycle now);
    // Serves this cycle's claims in record order; returns the units served (bit = unit).
    std::uint32_t resolve();
    bool claims_pending() const { return !claims_.empty(); }
    // The cycle claimed trigger `id` is done (after resolve()); releases the share.
    Cycle take(std::uint32_t id);

    // The unit and cost (kernel cycles) a record's trigger takes.
    std::uint32_t unit_of(DgeMode dge, DmaIssuer issuer) const;
    Cycle cost_of(DgeMode dge, DmaIssuer issuer) const;

    // A compute engine's side of its unit: the cycle the unit is free from, and an instruction
    // that holds it until `until`.
    Cycle free_at(TriggerUnit u) const { return free_[static_cast<std::size_t>(u)]; }
    void occupy(TriggerUnit u, Cycle until) {
        Cycle& f = free_[static_cast<std::size_t>(u)];
        f = std::max(f, until);
    }
    // Cycles each unit spent on triggers (index = unit).
    const std::vector<Cycle>& busy() const { return busy_; }

private:
    struct Slot {
        std::uint32_t unit = 0;
        Cycle cost = 0;
        Cycle done = kNever;
        std::uint32_t remaining = 0;
        std::uint64_t order = 0;    // the record's place in the trace
        Cycle claimed_at = kNever;  // claimed, not yet served
    };
    void release(std::uint32_t id);
    std::uint32_t dge_units_ = 0;
    Cycle static_[4] = {};        // static trigger per sequencer, kernel cycles
    Cycle hwdge_ = 0, swdge_ = 0;
    std::vector<Cycle> free_;     // per unit
    std::vector<Cycle> busy_;     // per unit
    std::vector<Slot> slots_;
    std::vector<std::uint32_t> free_slots_;
    std::vector<std::uint32_t> claims_;  // slots claimed this cycle
    std::uint64_t opened_ = 0;
};

}  // namespace sbufsim
