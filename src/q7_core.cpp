#include "sbufsim/q7_core.h"

#include <algorithm>
#include <stdexcept>

namespace sbufsim {

Q7Core::Q7Core(std::uint32_t core, Kernel& kernel, Semaphores& sems, const Params& p,
               const EngineTiming& t, std::vector<InstrEvent>* timeline, std::uint16_t index)
    : kernel_(kernel), sems_(sems), timing_(t), clock_(p.pool.clock_ghz, p.pe.clock_ghz),
      bus_bytes_(std::max<std::uint32_t>(1, p.q7.bus_bytes)), timeline_(timeline), index_(index) {
    const std::string name = "q7_" + std::to_string(core);
    const auto c = kernel.client_index(name);
    if (!c) throw std::invalid_argument("q7: the kernel has no client " + name);
    client_ = *c;
    stats_.name = name;
    queue_name_ = name;
}

double Q7Core::cost_cycles(const Q7Instr& i) const {
    const double beats = static_cast<double>((i.access.total_bytes() + bus_bytes_ - 1) / bus_bytes_);
    return timing_.q7_fixed_overhead + beats;
}

bool Q7Core::step(Cycle now) {
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
        const Q7Instr& h = queue_.front();
        if (sems_.ready(h.sync)) {
            if (blocked_since_ != kNever) stats_.sem_wait += now - blocked_since_;
            blocked_since_ = kNever;
            active_ = true;
            start_ = now;
            sync_ = h.sync;
            line_ = h.line;
            reqs_.clear();
            if (h.access.present() && h.access.region == Region::sbuf) {
                const Cycle issue = now + clock_.to_kernel(timing_.q7_fixed_overhead);
                reqs_.submit(kernel_, (make_request(client_, h.op, h.access, issue)));
                (h.op == Op::rd ? stats_.bytes_read : stats_.bytes_written) += h.access.total_bytes();
            }
            compute_end_ = now + clock_.to_kernel(cost_cycles(h));
            if (stats_.first_start == kNever) stats_.first_start = now;
            queue_.pop();
            changed = true;
        } else if (blocked_since_ == kNever) {
            blocked_since_ = now;
        }
    }
    return changed;
}

Cycle Q7Core::wake(Cycle now) const {
    if (!active_) return kNever;
    return now < compute_end_ ? compute_end_ : poll_cycle(now, kernel_, reqs_);
}

bool Q7Core::blocked(BlockedHead& out) const {
    if (active_ || queue_.empty()) return false;
    const Q7Instr& h = queue_.front();
    const int w = sems_.first_unmet(h.sync);
    if (w < 0) return false;
    out = {h.line, queue_name_, h.sync.wait_sem[w], h.sync.wait_value[w], sems_.value(h.sync.wait_sem[w])};
    return true;
}

}  // namespace sbufsim
