// The registry of arbitration policies: every policy the stage-1 and stage-2 arbiters can run
// (arbiter.stage1.policy, arbiter.stage2.policy), as the alternatives of one std::variant. The
// kernel picks the cycle loop once per run: the one compiled for the policy when both stages run
// the same one, else the one compiled for AnyPolicy (below), which dispatches per call (kernel.cpp).
//
// Adding a policy (docs/kernel.md, "Adding an arbitration policy"): its file pair
// arb_<name>.h/.cpp, its type at the end of AnyArbiter below and its name at the same place in
// kArbiterPolicyNames (config/params.h), and its reference test. arbiter_registry.cpp fails the build
// when the two lists disagree or a policy misses part of the contract (arbiter.h).
#pragma once

#include <cstdint>
#include <variant>

#include "sbufsim/config/params.h"
#include "sbufsim/kernel/arb_fixed_priority.h"
#include "sbufsim/kernel/arb_oldest_first.h"
#include "sbufsim/kernel/arb_priority_dwrr.h"
#include "sbufsim/kernel/arb_round_robin.h"
#include "sbufsim/kernel/arbiter.h"

namespace sbufsim {

using AnyArbiter = std::variant<PriorityDwrr, RoundRobin, OldestFirst, FixedPriority>;

// A fresh arbiter of the policy `id` names. Throws std::invalid_argument for an id outside the
// registry (the config loader only produces registered ones).
AnyArbiter make_arbiter(ArbiterPolicyId id);

// The policy an AnyArbiter holds, chosen per call: each member of the contract (arbiter.h)
// switches on the variant's index and calls that policy's member directly (no virtual call, no
// allocation). The kernel's cycle loop runs with it when the stage-1 and stage-2 policies differ,
// so that loop is compiled once for every mixed pair rather than once per pair (kernel.cpp,
// run()); a run of one policy in both stages (the default) calls the policy itself.
class AnyPolicy {
public:
    explicit AnyPolicy(AnyArbiter& arbiter) : a_(&arbiter) {}
    std::uint32_t segments(std::uint64_t candidates, std::uint64_t* out) const {
        return std::visit([&](const auto& a) { return a.segments(candidates, out); }, *a_);
    }
    std::uint32_t first(std::uint64_t candidates) const {
        return std::visit([&](const auto& a) { return a.first(candidates); }, *a_);
    }
    void settle(std::uint64_t candidates, std::uint64_t granted) {
        std::visit([&](auto& a) { a.settle(candidates, granted); }, *a_);
    }
    void settle_granted(std::uint64_t candidates, std::uint64_t cycles) {
        std::visit([&](auto& a) { a.settle_granted(candidates, cycles); }, *a_);
    }

private:
    AnyArbiter* a_;
};

}  // namespace sbufsim
