#include "sbufsim/compute_engine.h"

#include <algorithm>
#include <stdexcept>

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

ClientId need(const Kernel& k, const std::string& name) {
    const auto c = k.client_index(name);
    if (!c) throw std::invalid_argument("engine front-end: the kernel has no client " + name);
    return *c;
}

const EngineParams& engine_params(ComputeKind kind, const Params& p) {
    return kind == ComputeKind::act ? p.act : kind == ComputeKind::pool ? p.pool : p.dve;
}

}  // namespace

ComputeEngine::ComputeEngine(ComputeKind kind, Kernel& kernel, Semaphores& sems, const Params& p,
                             const EngineTiming& t, std::vector<InstrEvent>* timeline,
                             std::uint16_t index)
    : kind_(kind), kernel_(kernel), sems_(sems), timing_(t),
      clock_(engine_params(kind, p).clock_ghz, p.pe.clock_ghz), timeline_(timeline), index_(index) {
    const std::string n(to_string(kind));
    clients_.sbuf_rd = need(kernel, n + "_rd");
    clients_.sbuf_wr = need(kernel, n + "_wr");
    clients_.has_psum = p.has_psum();
    if (clients_.has_psum) {
        clients_.psum_rd = need(kernel, n + "_psum_rd");
        clients_.psum_wr = need(kernel, n + "_psum_wr");
    }
    stats_.name = n;
    queue_name_ = n;
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
    reqs_.submit(kernel_, (make_request(c, write ? Op::wr : Op::rd, a, issue)));
    (write ? stats_.bytes_written : stats_.bytes_read) += a.total_bytes();
}

void ComputeEngine::start(const ComputeInstr& i, Cycle now) {
    active_ = true;
    start_ = now;
    sync_ = i.sync;
    line_ = i.line;
    reqs_.clear();
    // Data motion begins after the fixed overhead (the tensor access set-up).
    const Cycle issue = now + clock_.to_kernel(timing_.compute_fixed_overhead);
    submit(i.in[0], false, issue);
    submit(i.in[1], false, issue);
    submit(i.out, true, issue);
    compute_end_ = now + clock_.to_kernel(cost_cycles(i));
    if (stats_.first_start == kNever) stats_.first_start = now;
}

bool ComputeEngine::step(Cycle now) {
    bool changed = false;
    if (active_ && now >= compute_end_ && reqs_.complete(kernel_)) {
        active_ = false;
        stats_.busy += now - start_;
        stats_.bank_stall += now - compute_end_;
        ++stats_.instructions;
        stats_.last_end = now;
        sems_.signal(sync_, now);
        if (timeline_) timeline_->push_back({line_, index_, start_, now});
        changed = true;
    }
    if (!active_ && !queue_.empty()) {
        if (sems_.ready(queue_.front().sync)) {
            if (blocked_since_ != kNever) stats_.sem_wait += now - blocked_since_;
            blocked_since_ = kNever;
            start(queue_.front(), now);
            queue_.pop();
            changed = true;
        } else if (blocked_since_ == kNever) {
            blocked_since_ = now;
        }
    }
    return changed;
}

Cycle ComputeEngine::wake(Cycle now) const {
    if (!active_) return kNever;
    if (now < compute_end_) return compute_end_;
    return poll_cycle(now, kernel_, reqs_);
}

bool ComputeEngine::blocked(BlockedHead& out) const {
    if (active_ || queue_.empty()) return false;
    const ComputeInstr& h = queue_.front();
    const int w = sems_.first_unmet(h.sync);
    if (w < 0) return false;
    out = {h.line, queue_name_, h.sync.wait_sem[w], h.sync.wait_value[w], sems_.value(h.sync.wait_sem[w])};
    return true;
}

}  // namespace sbufsim
