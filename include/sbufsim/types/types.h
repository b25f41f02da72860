// The vocabulary every layer shares: simulation time, client ids, memory regions, access
// operations and TDM classes. Nothing here depends on a generation's parameters, so the lowest
// headers (requests, statistics) can name these without pulling in the configuration.
#pragma once

#include <cstdint>
#include <limits>

namespace sbufsim {

// Simulation time in kernel cycles: one SBUF/PSUM arbitration slot per cycle (INFERRED,
// docs/kernel.md).
using Cycle = std::uint64_t;
inline constexpr Cycle kNever = std::numeric_limits<Cycle>::max();

// Dense client index, assigned by ClientSet at setup (kernel/clients.h). A strong type so that a
// client index cannot be mixed up with a partition, a bank or a cycle.
enum class ClientId : std::uint16_t {};
inline constexpr std::uint32_t index(ClientId c) { return static_cast<std::uint32_t>(c); }

// The on-chip memory an address falls in (seed 000 §1); `none` for an address outside both.
enum class Region : std::uint8_t { none, sbuf, psum };

enum class Op : std::uint8_t {
    rd,
    wr,
    raw,  // read-add-write: every chunk takes a read slot, then a write slot on the same banks
};

// Semaphore fields of one instruction (docs/trace-format.md): the trace records, the checker and
// the engines' wait/signal sets all hold this many.
inline constexpr std::uint32_t kMaxWaits = 2;    // wait= fields per instruction
inline constexpr std::uint32_t kMaxSignals = 2;  // signal= fields per instruction

// Which TDM slot class a client's SBUF beats belong to (seed 000 §7.2); PSUM clients have none.
enum class TdmClass : std::uint8_t { compute, dma, none };

}  // namespace sbufsim
