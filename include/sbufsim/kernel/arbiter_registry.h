// The registry of arbitration policies: every policy the stage-1 and stage-2 arbiters can run
// (arbiter.stage1.policy, arbiter.stage2.policy), as the alternatives of one std::variant. The
// kernel visits the pair once per run and runs the step loop compiled for it (kernel.cpp).
//
// Adding a policy (docs/kernel.md, "Adding an arbitration policy"): its file pair
// arb_<name>.h/.cpp, its type at the end of AnyArbiter below and its name at the same place in
// kArbiterPolicyNames (config/params.h), and its reference test. arbiter_registry.cpp fails the build
// when the two lists disagree or a policy misses part of the contract (arbiter.h).
#pragma once

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

}  // namespace sbufsim
