#include "sbufsim/engines/shared_ports.h"

#include <stdexcept>
#include <string>

namespace sbufsim {

namespace {
constexpr std::uint64_t one(std::uint8_t id) { return std::uint64_t{1} << id; }
constexpr std::size_t at(PortSide s) { return static_cast<std::size_t>(s); }
}  // namespace

SharedPorts::SharedPorts(bool sbuf_rule, bool psum_rule)
    : enabled_(static_cast<std::uint8_t>((sbuf_rule ? bit(sbuf) : 0) | (psum_rule ? bit(psum) : 0))) {}

std::uint8_t SharedPorts::join(PortSide side) {
    if (members_ == side_.size()) throw std::logic_error("SharedPorts: more than " + std::to_string(kMaxParticipants) + " participants");
    side_[members_] = side;
    return members_++;
}

void SharedPorts::claim(std::uint8_t id, std::uint8_t ports) {
    wants_[id] = ports;
    const std::size_t s = at(side_[id]);
    for (Port p : {sbuf, psum})
        if (ports & bit(p) && !(port_[p].granted[s] & one(id))) port_[p].claims[s] |= one(id);
    claimed_ |= one(id);
}

bool SharedPorts::granted(std::uint8_t id) const {
    const std::size_t s = at(side_[id]);
    for (Port p : {sbuf, psum})
        if (wants_[id] & bit(p) && !(port_[p].granted[s] & one(id))) return false;
    return true;
}

std::uint8_t SharedPorts::start(std::uint8_t id) {
    const std::size_t s = at(side_[id]);
    for (Port p : {sbuf, psum})
        if (wants_[id] & bit(p)) {
            port_[p].granted[s] &= ~one(id);
            port_[p].holders[s] |= one(id);
            ++held_[p][id];
        }
    claimed_ &= ~one(id);
    return wants_[id];
}

void SharedPorts::release(std::uint8_t id, std::uint8_t ports) {
    const std::size_t s = at(side_[id]);
    for (Port p : {sbuf, psum})
        if (ports & bit(p) && held_[p][id] != 0 && --held_[p][id] == 0) port_[p].holders[s] &= ~one(id);
}

// One port: a free port goes to the only side claiming it, or at a tie to the side that did not
// have it last; a held port takes more claims of its holders' side only while the other side
// does not wait.
std::uint64_t SharedPorts::resolve_port(PortState& s) {
    const bool busy_v = (s.holders[0] | s.granted[0]) != 0;
    const bool busy_o = (s.holders[1] | s.granted[1]) != 0;
    const bool want_v = s.claims[0] != 0, want_o = s.claims[1] != 0;
    int side = -1;
    if (!busy_v && !busy_o) {
        if (want_v && want_o) side = s.last == PortSide::vector ? 1 : 0;
        else if (want_v || want_o) side = want_v ? 0 : 1;
    } else {
        const int owner = busy_v ? 0 : 1;
        const bool owner_wants = owner == 0 ? want_v : want_o, other_waits = owner == 0 ? want_o : want_v;
        if (owner_wants && !other_waits) side = owner;
    }
    if (side < 0) return 0;
    const std::uint64_t newly = s.claims[side];
    s.granted[side] |= newly;
    s.claims[side] = 0;
    s.last = static_cast<PortSide>(side);
    return newly;
}

std::uint64_t SharedPorts::resolve() {
    for (Port p : {sbuf, psum})
        if (enabled_ & bit(p)) resolve_port(port_[p]);
    std::uint64_t ready = 0;
    for (std::uint64_t rest = claimed_; rest; rest &= rest - 1) {
        const auto id = static_cast<std::uint8_t>(__builtin_ctzll(rest));
        if (granted(id)) ready |= one(id);
    }
    claimed_ &= ~ready;
    return ready;
}

}  // namespace sbufsim
