#include "sbufsim/engines/compute_engine.h"

#include <algorithm>

namespace sbufsim {

std::string_view to_string(ComputeKind k) {
    switch (k) {
        case ComputeKind::act: return "act";
        case ComputeKind::pool: return "pool";
        case ComputeKind::dve: return "dve";
    }
    return "?";
}

namespace {

const EngineParams& engine_params(ComputeKind kind, const Params& p) {
    return kind == ComputeKind::act ? p.act : kind == ComputeKind::pool ? p.pool : p.dve;
}

}  // namespace

ComputeEngine::ComputeEngine(ComputeKind kind, Kernel& kernel, Semaphores& sems, const Params& p,
                             const EngineTiming& t, std::vector<InstrEvent>* timeline,
                             std::uint16_t index)
    : InOrderEngine(std::string(to_string(kind)), kernel, sems, t, timeline, index), kind_(kind),
      clock_(engine_params(kind, p).clock_ghz, p.pe.clock_ghz) {
    const std::string n(to_string(kind));
    clients_.sbuf_rd = need_client(kernel, n + "_rd", "engine front-end");
    clients_.sbuf_wr = need_client(kernel, n + "_wr", "engine front-end");
    clients_.has_psum = p.has_psum();
    if (clients_.has_psum) {
        clients_.psum_rd = need_client(kernel, n + "_psum_rd", "engine front-end");
        clients_.psum_wr = need_client(kernel, n + "_psum_wr", "engine front-end");
    }
}

double ComputeEngine::cost_cycles(const ComputeInstr& i) const {
    // N: the elements per partition the engine streams (the larger of input and output, so an
    // op without an input, e.g. a memset, still pays for its output).
    std::uint64_t n = std::max(i.in[0].elems, i.out.elems);
    const bool two = i.in[1].present();
    if (two) n = std::max(n, i.in[1].elems) * timing_.two_input_factor;
    if (i.in[0].strided || i.in[1].strided || i.out.strided) n *= timing_.stride_penalty_factor;
    return timing_.compute_fixed_overhead +
           static_cast<double>(std::max<std::uint64_t>(timing_.compute_min_cycles, n));
}

void ComputeEngine::submit(const TensorAccess& a, bool write, Cycle issue) {
    if (!a.present()) return;
    const bool psum = a.region == Region::psum;
    if (psum && !clients_.has_psum) return;  // the checker rejects PSUM on a PSUM-less generation
    const ClientId c = write ? (psum ? clients_.psum_wr : clients_.sbuf_wr)
                             : (psum ? clients_.psum_rd : clients_.sbuf_rd);
    reqs_.submit(kernel_, make_request(c, write ? Op::wr : Op::rd, a, issue));
    (write ? stats_.bytes_written : stats_.bytes_read) += a.total_bytes();
}

void ComputeEngine::start(const ComputeInstr& i, Cycle now) {
    // Data motion begins after the fixed overhead (the tensor access set-up).
    const Cycle issue = now + clock_.to_kernel(timing_.compute_fixed_overhead);
    submit(i.in[0], false, issue);
    submit(i.in[1], false, issue);
    submit(i.out, true, issue);
    compute_end_ = now + clock_.to_kernel(cost_cycles(i));
}

}  // namespace sbufsim
