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
    stats_.bank_wait += now - compute_end_;
    ++stats_.instructions;
    stats_.last_end = now;
    sems_.signal(sync_, now);
    if (CriticalPath* cp = sems_.path()) {
        const CriticalPath::Ref r = cp->extend(path_from_, index_, start_, compute_end_, now, now, true);
        cp->release(path_from_.ref);
        cp->retired(sync_, r, now);
        cp->release(path_last_.ref);
        path_last_ = {r, now, CriticalPath::Edge::queue};
    }
    if (timeline_) timeline_->push_back({line_, index_, start_, now});
    return true;
}

bool SerialEngine::head_blocked(const SyncSet& sync, std::uint64_t line, const std::string& queue,
                                BlockedHead& out) const {
    const int w = sems_.first_unmet(sync);
    if (w < 0) return false;
    out = {line, queue, sync.wait_sem[w], sync.wait_value[w], sems_.value(sync.wait_sem[w])};
    return true;
}

}  // namespace sbufsim
