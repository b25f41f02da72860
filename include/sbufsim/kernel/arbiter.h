// The arbitration-policy seam: what the kernel asks of an arbiter, and the limits it relies on.
//
// An arbiter orders the ports (bit positions 0..63 of a 64-bit candidate mask) that want a bank
// in one cycle and keeps whatever state its policy needs between cycles. The kernel holds the
// stage-1 and stage-2 arbiters as one of the registered policies (arbiter_registry.h) and picks
// the step loop compiled for that policy once per run, so every call below is a direct, inlinable
// call (for two different policies, one switch on the policy per call: AnyPolicy): no virtual
// dispatch, no allocation, no strings in the cycle loop.
//
// The contract (checked for every registered policy by tests/test_kernel_policies.cpp):
//   add_port(port, prio, weight)  setup only: declare a port with its CSR priority and weight
//                                 (a policy may ignore either).
//   segments(candidates, out)     the grant order as masks, each visited lowest bit first: writes
//                                 at most 2 * popcount(candidates) + 1 masks (the last one may be
//                                 written but not counted) and returns how many count.
//   first(candidates)             the first port of that order (candidates != 0).
//   settle(candidates, granted)   after a cycle: `candidates` took part, `granted` of them moved.
//                                 Never called in a cycle without candidates, so a policy's state
//                                 may not depend on cycles passing.
//   settle_granted(candidates, n) the same as n calls of settle(candidates, candidates): the
//                                 kernel's leap over n identical cycles in which every candidate
//                                 was granted (kernel_fast_forward.h, leap()); must not cost n.
#pragma once

#include <concepts>
#include <cstdint>
#include <string_view>

namespace sbufsim {

// Ports of one arbiter: the bits of a candidate mask.
inline constexpr std::uint32_t kArbiterPorts = 64;

template <class A>
concept ArbitrationPolicy = std::default_initializable<A> && std::copyable<A> &&
    requires(A a, const A ca, std::uint32_t port, std::uint64_t mask, std::uint64_t* out) {
        { A::kName } -> std::convertible_to<std::string_view>;
        a.add_port(port, port, port);
        { ca.segments(mask, out) } -> std::same_as<std::uint32_t>;
        { ca.first(mask) } -> std::same_as<std::uint32_t>;
        a.settle(mask, mask);
        a.settle_granted(mask, mask);
    };

}  // namespace sbufsim
