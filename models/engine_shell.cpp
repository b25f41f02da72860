#include "engine_shell.h"

namespace sbufsim::models {

EngineShell::EngineShell(const sc_core::sc_module_name& name, FrontEnd& engine, const Kernel& kernel,
                         ClockedLink& link)
    : sc_core::sc_module(name), engine_(engine), kernel_(kernel), link_(link) {
    SC_METHOD(step);
    sensitive << clk.pos() << link_.activity;
    dont_initialize();
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
