// NC-v2's concurrency rules as whole-instruction exclusion (docs/engines.md "Shared ports").
//
// PUBLIC_FACTS "Concurrency on NC-v2" (trn1/inf2 architecture guide): VectorE and GpSimd cannot
// access SBUF at the same time, and VectorE and ScalarE cannot access PSUM at the same time;
// NC-v3 lifts both. Each rule is a port with two sides: VectorE on one, GpSimd (the POOL engine
// and the Q7 cores) or ScalarE on the other. An instruction that touches the port's memory
// holds it from its start until it retires — or, with timing.shared_ports_until_signal, until its
// writes and its signal are complete ("must be serialized": the whole instruction, the trn1/inf2
// guide) — so instructions of the two sides serialise; engines
// of one side share it (the Q7 cores and POOL together).
//
// The decision must not depend on the order engines are stepped in within a cycle (the fast and
// the clocked scheduler step them in different orders and must agree), so an engine whose head
// is ready only claims the ports at cycle t, and resolve() — run once the cycle has settled —
// grants them; the granted engines start at t + 1. When both sides claim a free port, the side
// that did not have it last goes first; while one side holds it, its further claims wait if the
// other side is waiting (no side starves the other).
#pragma once

#include <array>
#include <cstdint>

namespace sbufsim {

enum class PortSide : std::uint8_t { vector = 0, other = 1 };

class SharedPorts {
public:
    enum Port : std::uint8_t { sbuf = 0, psum = 1 };
    static constexpr std::uint8_t bit(Port p) { return static_cast<std::uint8_t>(1u << p); }

    // Which rules apply (concurrency.dve_gpsimd_sbuf_exclusive, concurrency.dve_act_psum_exclusive).
    SharedPorts(bool sbuf_rule, bool psum_rule);
    std::uint8_t enabled() const { return enabled_; }

    // A participant: a small id (bit index, at most 64) for one engine on one side.
    std::uint8_t join(PortSide side);
    PortSide side(std::uint8_t id) const { return side_[id]; }

    // The engine `id` (head ready) needs `ports` (a mask of enabled ports); idempotent.
    void claim(std::uint8_t id, std::uint8_t ports);
    // Every port of the claim is granted: the engine may start.
    bool granted(std::uint8_t id) const;
    // The engine started the instruction: granted -> holding. Returns the ports it holds.
    std::uint8_t start(std::uint8_t id);
    // An instruction of the engine that held `ports` (what start() returned) is done with them:
    // at its retirement, or (timing.shared_ports_until_signal) once its writes and signal are
    // complete. The engine holds a port until every instruction that took it has let it go.
    void release(std::uint8_t id, std::uint8_t ports);
    // Releases every port of the engine's claim (a single instruction in flight).
    void release(std::uint8_t id) {
        release(id, wants_[id]);
        wants_[id] = 0;
    }
    // End of a settled cycle: grants claims as the rules above say. Returns the participants
    // newly granted (they start at the next cycle).
    std::uint64_t resolve();
    bool claims_pending() const { return claimed_ != 0; }

private:
    struct PortState {
        std::array<std::uint64_t, 2> claims{}, granted{}, holders{};
        PortSide last = PortSide::other;   // so that VectorE goes first at a tie on a fresh port
    };
    static std::uint64_t resolve_port(PortState& s);

    std::uint8_t enabled_ = 0;
    std::array<PortState, 2> port_{};
    static constexpr std::size_t kMaxParticipants = 64;  // one bit each in the claim masks
    std::array<std::uint8_t, kMaxParticipants> wants_{};   // per participant: the ports of its claim
    // Per port and participant: its instructions holding the port (started, not released).
    std::array<std::array<std::uint8_t, kMaxParticipants>, 2> held_{};
    std::array<PortSide, kMaxParticipants> side_{};
    std::uint64_t claimed_ = 0;              // participants with a claim not yet granted in full
    std::uint8_t members_ = 0;
};

}  // namespace sbufsim
