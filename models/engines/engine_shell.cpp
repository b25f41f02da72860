#include "models/engines/engine_shell.h"

#include <stdexcept>

namespace sbufsim::models {

EngineShell::EngineShell(const sc_core::sc_module_name& name, FrontEnd& engine, const Kernel& kernel,
                         ClockedLink& link, SerialEngine* axi, const Params* params)
    : sc_core::sc_module(name), engine_(engine), axi_engine_(axi), kernel_(kernel), link_(link) {
    if (axi_engine_) {
        if (!params) throw std::invalid_argument("engine_shell: an AXI master needs the params");
        axi_ = std::make_unique<AxiMaster>("axi", *params);
        axi_engine_->set_axi_sink(axi_.get());
    }
    SC_METHOD(step);
    sensitive << clk.pos() << link_.activity;
    dont_initialize();
}

// The engine outlives the simulation (the replay session): it must not call a master that is gone.
EngineShell::~EngineShell() {
    if (axi_engine_) axi_engine_->set_axi_sink(nullptr);
}

void EngineShell::step() {
    ++activations_;
    try {
        if (engine_.step(kernel_.now())) link_.activity.notify(sc_core::SC_ZERO_TIME);
    } catch (...) {
        link_.fail();
    }
    if (traced_) busy.write(!engine_.idle());
}

}  // namespace sbufsim::models
