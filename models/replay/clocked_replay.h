// The clocked scheduler: the reference against which the fast scheduler (replay.h) is checked.
// Every block is a SystemC process on the PE clock and runs every cycle:
//
//   rising edge of cycle t    queue_feed (queue fill from the trace), the tpb's arr_seq and one
//                             engine_shell per other engine (act, pool, dve, dma_<k>, q7_<c>);
//                             they re-run in delta cycles while any of them changes something (a semaphore
//                             signal unblocks another queue in the same cycle)
//   rising edge of cycle t    the host's CSR writes due in cycle t (ClockedOptions::csr_writes),
//                             through the tpb's csr_socket
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
// The DMA engines and Q7 cores are TLM-2.0 initiators (axi_master.h, a child "axi" of their
// shell) bound to the tpb's axi_socket: each instruction they retire moves its bytes through
// axi2sram's b_transport, kernel-timed (the kernel decided every grant; the transactions change
// no statistic). A platform's own initiators join through ClockedOptions::attach and share the
// bridge with them.
//
// Idle stretches (no queued beat can move, no engine, access record or host write due) are
// skipped as the fast scheduler skips them: the kernel counts them at once and the clock's next
// rising edge is the cycle where something happens (ClockedOptions::step_every_cycle turns this
// off; a VCD always has every cycle).
//
// One kernel cycle = one PE clock cycle (docs/engines.md, INFERRED); the other engines' clocks
// enter through the cost model. The clock period is 1 / pe.clock_ghz rounded to the picosecond.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sbufsim/replay/replay.h"

namespace sc_core {
class sc_module;
}

namespace sbufsim::models {

class Tpb;

// One host register write issued through the tpb's csr_socket (tpb.h) at the rising edge of
// `cycle`: an arbiter, TDM or throttler register acts from cycle + 1.
struct CsrWrite {
    Cycle cycle = 0;
    std::uint64_t address = 0;  // csr_socket address (block base + register offset)
    std::uint32_t value = 0;
};

struct ClockedOptions {
    ClockedOptions() = default;
    // ClockedOptions{path}: waveforms only.
    explicit ClockedOptions(std::string vcd_file) : vcd(std::move(vcd_file)) {}

    std::string vcd;  // VCD file to write ("" = none); written as given (".vcd" is not appended)
    // Host writes, issued in cycle order by the top's CSR initiator. A write the tpb answers
    // with a TLM error stops the replay with std::invalid_argument naming it.
    std::vector<CsrWrite> csr_writes;
    // Evaluate every cycle, also those in which no queued beat can move and no engine needs
    // attention (by default they are skipped, as the fast scheduler skips them; the statistics
    // are the same either way). A VCD always has every cycle.
    bool step_every_cycle = false;
    // When set, the sc_object tree with each module's CSRs and signals (hierarchy.h) is written
    // here at the end of the run.
    std::ostream* hierarchy = nullptr;
    // The SBUF ECC banks keep the data the DMA engines and Q7 cores move through axi2sram
    // (EccBankOptions::functional); off, the banks count the traffic and keep nothing.
    bool keep_data = false;
    // Called once the tpb is built, before the simulation starts: the caller's own modules (a
    // traffic generator, a CPU model) created here join the simulation and may bind initiators
    // to tpb.axi_socket (beside the DMA engines and Q7 cores) and tpb.csr_socket (taken by the
    // host's writes when csr_writes is not empty). What it returns lives until the run ends.
    std::function<std::unique_ptr<sc_core::sc_module>(Tpb&)> attach;
    // Called at the end of the run, the kernel's bank counters added, before the tpb is gone.
    std::function<void(Tpb&)> inspect;
};

// What the DMA engines' and Q7 cores' initiators moved through axi2sram (axi_master.h), summed.
struct AxiTraffic {
    std::uint64_t instructions = 0;   // retired instructions with an SBUF side
    std::uint64_t transactions = 0;   // b_transport calls
    std::uint64_t bytes_read = 0;     // read from SBUF, responses OK
    std::uint64_t bytes_written = 0;  // written into SBUF, responses OK
    std::uint64_t errors = 0;         // error responses
    std::string first_error;          // the first error's trace line and the bridge's reason
};

// What the clocked scheduler did besides the replay's result.
struct ClockedRun {
    ReplayResult result;
    std::uint64_t arbitrated_cycles = 0;    // falling-edge kernel evaluations
    std::uint64_t skipped_cycles = 0;       // idle cycles run by the kernel alone (no clock edge)
    std::uint64_t engine_activations = 0;   // engine-shell process runs (rising edges + deltas)
    double clock_period_ps = 0;
    AxiTraffic axi;                          // the AXI masters' data path
};

// Replays `reader` under the clocked scheduler in a fresh SystemC simulation context. Same
// errors as replay(): TraceFormatError, ReplayError (invalid trace, deadlock); std::runtime_error
// when the VCD file cannot be written.
ClockedRun replay_clocked(const Params& params, TraceReader& reader, const ReplayOptions& options = {},
                          const ClockedOptions& clocked = {});
ClockedRun replay_clocked_trace(const Params& params, const std::string& path, const ReplayOptions& options = {},
                                const ClockedOptions& clocked = {});

}  // namespace sbufsim::models
