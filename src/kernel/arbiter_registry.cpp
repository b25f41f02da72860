#include "sbufsim/kernel/arbiter_registry.h"

#include <array>
#include <stdexcept>
#include <string>
#include <utility>

namespace sbufsim {
namespace {

template <std::size_t... I>
constexpr bool registry_matches_names(std::index_sequence<I...>) {
    return ((std::variant_alternative_t<I, AnyArbiter>::kName == kArbiterPolicyNames[I]) && ...) &&
           (ArbitrationPolicy<std::variant_alternative_t<I, AnyArbiter>> && ...);
}
constexpr auto kPolicies = std::make_index_sequence<std::variant_size_v<AnyArbiter>>{};

static_assert(std::variant_size_v<AnyArbiter> == kArbiterPolicyNames.size(),
              "AnyArbiter and kArbiterPolicyNames (config/params.h) list different numbers of policies");
static_assert(registry_matches_names(kPolicies),
              "a policy's kName differs from its entry in kArbiterPolicyNames, or it misses part of arbiter.h");

template <std::size_t... I>
AnyArbiter make_at(std::size_t index, std::index_sequence<I...>) {
    static constexpr std::array<AnyArbiter (*)(), sizeof...(I)> make = {
        +[]() { return AnyArbiter{std::in_place_index<I>}; }...};
    return make[index]();
}

}  // namespace

AnyArbiter make_arbiter(ArbiterPolicyId id) {
    const auto index = static_cast<std::size_t>(id);
    if (index >= std::variant_size_v<AnyArbiter>)
        throw std::invalid_argument("arbitration policy " + std::to_string(index) + " is not registered (" +
                                    std::to_string(std::variant_size_v<AnyArbiter>) +
                                    " are: kArbiterPolicyNames in config/params.h)");
    return make_at(index, kPolicies);
}

}  // namespace sbufsim
