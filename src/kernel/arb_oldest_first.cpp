#include "sbufsim/kernel/arb_oldest_first.h"

namespace sbufsim {

void OldestFirst::add_port(std::uint32_t port, std::uint32_t, std::uint32_t) {
    for (std::uint32_t i = 0; i < ports_; ++i)
        if (by_age_[i] == port) return;
    by_age_[ports_++] = static_cast<std::uint8_t>(port);
}

void OldestFirst::settle(std::uint64_t, std::uint64_t granted) {
    if (!granted) return;
    // Stable partition: the ports not granted keep their places at the front, the granted ones
    // follow in their old order.
    std::array<std::uint8_t, kArbiterPorts> young{};
    std::uint32_t kept = 0, moved = 0;
    for (std::uint32_t i = 0; i < ports_; ++i) {
        const std::uint8_t p = by_age_[i];
        if (granted >> p & 1)
            young[moved++] = p;
        else
            by_age_[kept++] = p;
    }
    for (std::uint32_t i = 0; i < moved; ++i) by_age_[kept + i] = young[i];
}

}  // namespace sbufsim
