#include "sbufsim/engines/q7_core.h"

#include <algorithm>

namespace sbufsim {

Q7Core::Q7Core(std::uint32_t core, Kernel& kernel, Semaphores& sems, const Params& p, const EngineTiming& t,
               std::vector<InstrEvent>* timeline, std::uint16_t index)
    : InOrderEngine("q7_" + std::to_string(core), kernel, sems, t, timeline, index),
      clock_(p.pool.clock_ghz, p.pe.clock_ghz),
      bus_bytes_(std::max<std::uint32_t>(1, p.q7.bus_bytes)),
      client_(need_client(kernel, "q7_" + std::to_string(core), "q7")) {
    group_ = EngineGroup::q7;
}

double Q7Core::cost_cycles(const Q7Instr& i) const {
    const double beats = static_cast<double>((i.access.total_bytes() + bus_bytes_ - 1) / bus_bytes_);
    return timing_.q7_fixed_overhead + beats;
}

void Q7Core::start(const Q7Instr& h, Cycle now) {
    if (h.access.present() && h.access.region == Region::sbuf) {
        const Cycle issue = now + clock_.to_kernel(timing_.q7_fixed_overhead);
        reqs_.submit(kernel_, make_request(client_, h.op, h.access, issue));
        (h.op == Op::rd ? stats_.bytes_read : stats_.bytes_written) += h.access.total_bytes();
        if (axi_) {
            axi_moves_ = true;
            axi_client_ = client_;
            axi_flight_ = AxiTransfer{};
            axi_flight_.line = h.line;
            (h.op == Op::rd ? axi_flight_.rd : axi_flight_.wr) = h.access;
            axi_flight_.start = now;
        }
    }
    compute_end_ = now + clock_.to_kernel(cost_cycles(h));
}

}  // namespace sbufsim
