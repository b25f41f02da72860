#include "sbufsim/types/dma_trigger_mode.h"

#include <array>

namespace sbufsim {

namespace {
constexpr std::array<std::string_view, 4> kDgeNames{"", "none", "swdge", "hwdge"};
constexpr std::array<std::string_view, 5> kIssuerNames{"", "sp", "act", "pool", "dve"};
// The nki.isa.engine spellings of the same sequencers.
constexpr std::array<std::string_view, 5> kIssuerIsaNames{"", "sync", "scalar", "gpsimd", "vector"};
}  // namespace

std::string_view to_string(DgeMode m) { return kDgeNames[static_cast<std::size_t>(m)]; }

std::optional<DgeMode> parse_dge_mode(std::string_view s) {
    for (std::size_t i = 1; i < kDgeNames.size(); ++i)
        if (s == kDgeNames[i]) return static_cast<DgeMode>(i);
    return std::nullopt;
}

std::string_view to_string(DmaIssuer i) { return kIssuerNames[static_cast<std::size_t>(i)]; }

std::optional<DmaIssuer> parse_dma_issuer(std::string_view s) {
    for (std::size_t i = 1; i < kIssuerNames.size(); ++i)
        if (s == kIssuerNames[i] || s == kIssuerIsaNames[i]) return static_cast<DmaIssuer>(i);
    return std::nullopt;
}

}  // namespace sbufsim
