// sbuf_arbiter: the SBUF cluster arbiter (both stages) and the PSUM bank arbitration as one
// SystemC process under the clocked scheduler (clocked_replay.h). Every decision is the kernel's
// (kernel.h: TDM gate -> throttler -> stage 1 -> stage 2 -> greedy bank grant, seed 000
// §7.1-§7.2); the module evaluates exactly one kernel cycle per activation, then hands the
// kernel (and the PE-array sequencer) the tpb's register state if the host wrote an arbiter, TDM,
// throttler or arr_seq CSR during the cycle (Tpb::take_reprogram: it acts from the next cycle)
// and, while waveforms are recorded, publishes the cycle's outcome:
//
//   tpb.<bank>.busy / conflict / winner / grants   on the bank modules (ecc_bank.h)
//   tpb.tdm.slot, dma_precedence                   the TDM slot of the cycle and its class (tdm.h)
//   tpb.<engine>_throttler.rd_tokens / wr_tokens   the buckets' tokens left (throttler.h)
//   top.arbiter.<client>_stall                     0 = not stalled, else 1 + StallCause
//   top.arbiter.<client>_grant                     the client moved a beat
//
// The stage-1/stage-2 CSRs live in sbuf_cluster_csr.h, tdm_cfg in tdm.h, the throttler CSRs in
// throttler.h; the tpb exports them into the Params the kernel runs with.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>

#include "models/engines/clocked_link.h"
#include "models/address/ecc_bank.h"
#include "sbufsim/kernel/kernel.h"
#include "sbufsim/stats/window_stats.h"
#include "models/top/tpb.h"

namespace sbufsim::models {

class SbufArbiter : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(SbufArbiter);
    // Notified (delta) by the scheduler when the engines have settled and cycle kernel.now() may
    // be arbitrated.
    sc_core::sc_event go{"go"};

    // `tpb`: its banks (SBUF, then PSUM, the kernel's Stats::banks order), tdm and throttlers.
    // `probe` must keep a cycle view (ProbeOptions::cycle_view) for trace() to show winners,
    // conflicts and stalls; it may be null when nothing is traced.
    SbufArbiter(const sc_core::sc_module_name& name, Kernel& kernel, Tpb& tpb, ClockedLink& link,
                const ActivityProbe* probe);

    // Adds the bank, TDM, throttler and client signals to `f` and starts driving them.
    void trace(sc_core::sc_trace_file* f);
    std::uint64_t cycles() const { return cycles_; }

private:
    struct ClientSignals {
        std::unique_ptr<sc_core::sc_signal<std::uint8_t>> stall;
        std::unique_ptr<sc_core::sc_signal<bool>> grant;
    };
    void arbitrate();
    void publish(Cycle t);

    Kernel& kernel_;
    Tpb& tpb_;
    ClockedLink& link_;
    std::vector<EccBank*> banks_;
    const ActivityProbe* probe_;
    std::vector<ClientSignals> clients_;
    std::vector<std::uint8_t> granted_;   // per client, scratch of publish()
    std::uint64_t cycles_ = 0;
    bool traced_ = false;
};

}  // namespace sbufsim::models
