// engine_shell: one engine front-end (arr_seq, act, pool, dve, dma_<k>, q7_<c>) as a SystemC
// process under the clocked scheduler (clocked_replay.h). The engine's behaviour and cost model
// stay in its plain-C++ class (src/engines/arr_seq.cpp, compute_engine.cpp, dma_engine.cpp,
// q7_core.cpp); the shell steps it on every rising edge of the PE clock and again, in a delta
// cycle, whenever another engine or the queue feed changed something (a semaphore signal, a
// newly queued instruction), so that everything that can happen in a cycle happens in it.
#pragma once

#include <cstdint>
#include <memory>

#include <systemc>

#include "models/engines/axi_master.h"
#include "models/engines/clocked_link.h"
#include "sbufsim/engines/engine.h"

namespace sbufsim::models {

class EngineShell : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(EngineShell);
    sc_core::sc_in<bool> clk{"clk"};

    // `link.activity` is the event every shell and the feed share: notified (delta) by whoever
    // changed something this cycle. `kernel` gives the cycle: it has simulated every cycle
    // before now().
    // With `axi` (the engine is a DMA engine or a Q7 core), the shell holds the engine's AXI
    // initiator (axi_master.h, a child module "axi") and attaches it to the engine as its data
    // path; the caller binds axi()->socket.
    EngineShell(const sc_core::sc_module_name& name, FrontEnd& engine, const Kernel& kernel,
                ClockedLink& link, SerialEngine* axi = nullptr, const Params* params = nullptr);
    ~EngineShell() override;

    // The engine's AXI initiator; null for an engine that is no AXI master.
    AxiMaster* axi() { return axi_.get(); }
    const AxiMaster* axi() const { return axi_.get(); }

    // Not idle: something queued or in flight (a waveform of the engine's occupancy).
    sc_core::sc_signal<bool> busy{"busy"};
    // Rising-edge and delta activations (the cost of the clocked scheduler).
    std::uint64_t activations() const { return activations_; }
    // Drive `busy` each cycle (only worth it when waveforms are recorded).
    void set_traced(bool on) { traced_ = on; }

private:
    void step();

    FrontEnd& engine_;
    SerialEngine* axi_engine_;
    std::unique_ptr<AxiMaster> axi_;
    const Kernel& kernel_;
    ClockedLink& link_;
    std::uint64_t activations_ = 0;
    bool traced_ = false;
};

}  // namespace sbufsim::models
