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
    stats_.busy += now - start_;
    stats_.bank_stall += now - compute_end_;
    ++stats_.instructions;
    if (signal_at_ > now || !out_reqs_.complete(kernel_))
        deferred_.push_back({sync_, out_reqs_, line_, start_, std::max(signal_at_, now)});
    else
        complete(sync_, line_, start_, now);
    return true;
}

bool SerialEngine::fire_deferred(Cycle now) {
    bool fired = false;
    for (std::size_t i = 0; i < deferred_.size();) {
        if (deferred_[i].at > now || !deferred_[i].reqs.complete(kernel_)) {
            ++i;
            continue;
        }
        stats_.bank_stall += now - deferred_[i].at;  // output writes still queued in the kernel
        complete(deferred_[i].sync, deferred_[i].line, deferred_[i].start, now);
        deferred_.erase(deferred_.begin() + static_cast<std::ptrdiff_t>(i));
        fired = true;
    }
    return fired;
}

void SerialEngine::complete(const SyncSet& sync, std::uint64_t line, Cycle start, Cycle now) {
    stats_.last_end = std::max(stats_.last_end, now);
    sems_.signal(sync, now);
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
