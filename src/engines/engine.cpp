#include "sbufsim/engines/engine.h"

#include <stdexcept>

namespace sbufsim {

ClientId need_client(const Kernel& k, const std::string& name, const std::string& who) {
    const auto c = k.client_index(name);
    if (!c) throw std::invalid_argument(who + ": the kernel has no client " + name);
    return *c;
}

bool SerialEngine::retire(Cycle now) {
    if (!active_ || now < compute_end_ || !reqs_.complete(kernel_)) return false;
    active_ = false;
    const bool defer = signal_at_ > now || !out_reqs_.complete(kernel_);
    // NC-v2's shared ports: let go at retirement, or once the writes and signal are complete.
    std::uint8_t keep = 0;
    if (held_ports_) {
        if (defer && timing_.shared_ports_until_signal)
            keep = held_ports_;
        else
            ports_->release(port_id_, held_ports_);
        held_ports_ = 0;
    }
    stats_.busy += now - start_;
    stats_.bank_wait += now - compute_end_;
    ++stats_.instructions;
    if (SiteProfile* sp = sems_.profile()) sp->retired(sync_.site, group_, now - start_, now - compute_end_);
    CriticalPath::Ref path = CriticalPath::kNone;
    if (CriticalPath* cp = sems_.path()) {
        path = cp->extend(path_from_, index_, start_, compute_end_, now, now, true, sync_.site);
        cp->release(path_from_.ref);
        cp->release(path_last_.ref);
        path_last_ = {path, now, CriticalPath::Edge::queue};   // the next instruction's queue edge
    }
    if (defer) {
        if (CriticalPath* cp = sems_.path()) cp->retain(path);
        deferred_.push_back({sync_, out_reqs_, line_, start_, std::max(signal_at_, now), now, path, keep});
    } else {
        complete(sync_, line_, start_, now, path, now);
    }
    if (axi_moves_ && axi_) {
        axi_moves_ = false;
        axi_flight_.granted = kernel_.last_completion(axi_client_);
        axi_flight_.retired = now;
        axi_->moved(axi_flight_);
    }
    return true;
}

bool SerialEngine::fire_deferred(Cycle now) {
    bool fired = false;
    for (std::size_t i = 0; i < deferred_.size();) {
        if (deferred_[i].at > now || !deferred_[i].reqs.complete(kernel_)) {
            ++i;
            continue;
        }
        // The engine was released at retirement: the time its output writes stayed queued delays
        // only the signal (the critical path's drain), not the engine, so it is not bank_wait,
        // which is part of busy.
        const Deferred d = deferred_[i];
        if (d.ports) ports_->release(port_id_, d.ports);
        complete(d.sync, d.line, d.start, d.retired, d.path, now);
        if (CriticalPath* cp = sems_.path()) cp->release(d.path);
        deferred_.erase(deferred_.begin() + static_cast<std::ptrdiff_t>(i));
        fired = true;
    }
    return fired;
}

void SerialEngine::complete(const SyncSet& sync, std::uint64_t line, Cycle start, Cycle retired,
                            CriticalPath::Ref path, Cycle now) {
    stats_.last_end = std::max(stats_.last_end, now);
    sems_.signal(sync, now);
    if (CriticalPath* cp = sems_.path()) {
        // The dependent turnaround after the engine was released is the instruction's drain.
        const CriticalPath::Ref end = now > retired
                                          ? cp->extend({path, retired, CriticalPath::Edge::internal}, index_,
                                                       retired, retired, retired, now, false, sync.site)
                                          : path;
        cp->retired(sync, end, now);
        if (end != path) cp->release(end);
    }
    if (timeline_) timeline_->push_back({line, index_, start, now});
}

bool SerialEngine::head_blocked(const SyncSet& sync, std::uint64_t line, const std::string& queue,
                                BlockedHead& out) const {
    const int w = sems_.first_unmet(sync);
    if (w < 0) return false;
    out = {line, queue, sync.wait_sem[w], sync.wait_value[w], sems_.value(sync.wait_sem[w])};
    return true;
}

}  // namespace sbufsim
