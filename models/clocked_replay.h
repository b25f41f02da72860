// The clocked scheduler: the reference against which the fast scheduler (replay.h) is checked.
// Every block is a SystemC process on the PE clock and runs every cycle:
//
//   rising edge of cycle t    queue_feed (queue fill from the trace), one engine_shell per
//                             engine (arr_seq, act, pool, dve, dma_<k>, q7_<c>); they re-run in
//                             delta cycles while any of them changes something (a semaphore
//                             signal unblocks another queue in the same cycle)
//   falling edge of cycle t   the cycle controller: once the rising-edge deltas have settled,
//                             either nothing can move (deadlock), every engine waits on a signal
//                             further on in the trace (read one more instruction and settle
//                             again), or the sbuf_arbiter evaluates cycle t; once the trace and
//                             the engines are done it arbitrates until the kernel has drained
//
// The bank modules, CSR blocks and axi2sram of the tpb (tpb.h) are built alongside; at the end
// the kernel's per-bank counters are added to the bank modules. With a VCD file, the bank,
// TDM, client and engine signals are recorded (docs/visualisation.md).
//
// One kernel cycle = one PE clock cycle (docs/engines.md, INFERRED); the other engines' clocks
// enter through the cost model. The clock period is 1 / pe.clock_ghz rounded to the picosecond.
#pragma once

#include <cstdint>
#include <string>

#include "sbufsim/replay/replay.h"

namespace sbufsim::models {

struct ClockedOptions {
    std::string vcd;  // VCD file to write ("" = none); written as given (".vcd" is not appended)
};

// What the clocked scheduler did besides the replay's result.
struct ClockedRun {
    ReplayResult result;
    std::uint64_t arbitrated_cycles = 0;    // falling-edge kernel evaluations
    std::uint64_t engine_activations = 0;   // engine-shell process runs (rising edges + deltas)
    double clock_period_ps = 0;
};

// Replays `reader` under the clocked scheduler in a fresh SystemC simulation context. Same
// errors as replay(): TraceFormatError, ReplayError (invalid trace, deadlock); std::runtime_error
// when the VCD file cannot be written.
ClockedRun replay_clocked(const Params& params, TraceReader& reader, const ReplayOptions& options = {},
                          const ClockedOptions& clocked = {});
ClockedRun replay_clocked_trace(const Params& params, const std::string& path, const ReplayOptions& options = {},
                                const ClockedOptions& clocked = {});

}  // namespace sbufsim::models
