#include "sbufsim/engines/critical_path.h"

#include <algorithm>

namespace sbufsim {

const char* to_string(PathCause c) {
    switch (c) {
        case PathCause::compute: return "compute";
        case PathCause::bank_wait: return "bank_wait";
        case PathCause::latency: return "latency";
        case PathCause::drain: return "drain";
        case PathCause::count: break;
    }
    return "?";
}

Cycle CriticalPathStats::engine_total(std::size_t e) const {
    Cycle n = 0;
    for (Cycle v : cycles[e]) n += v;
    return n;
}

Cycle CriticalPathStats::cause_total(PathCause c) const {
    Cycle n = 0;
    for (const auto& e : cycles) n += e[static_cast<std::size_t>(c)];
    return n;
}

Cycle CriticalPathStats::total() const {
    Cycle n = tail;
    for (std::size_t e = 0; e < cycles.size(); ++e) n += engine_total(e);
    return n;
}

CriticalPath::CriticalPath(std::size_t engines, std::uint32_t semaphores)
    : engines_(engines), width_(engines * kPathCauses + engines + 2), sem_(semaphores) {}

CriticalPath::Point CriticalPath::pick(Point own, const SyncSet& sync) const {
    own.edge = own.ref == kNone ? Edge::none : own.edge;
    Point best = own;
    for (std::uint32_t i = 0; i < sync.waits; ++i) {
        if (!sync.wait_value[i]) continue;  // met from the start: no instruction to wait for
        const Point& s = sem_[sync.wait_sem[i]];
        if (s.ref != kNone && s.at >= best.at) best = {s.ref, s.at, Edge::semaphore};
    }
    return best;
}

void CriticalPath::release(Ref r) {
    if (r == kNone) return;
    if (--refs_[r] == 0) free_.push_back(r);
}

CriticalPath::Ref CriticalPath::allocate() {
    if (!free_.empty()) {
        const Ref r = free_.back();
        free_.pop_back();
        refs_[r] = 1;
        return r;
    }
    const Ref r = static_cast<Ref>(refs_.size());
    refs_.push_back(1);
    data_.resize(data_.size() + width_);
    return r;
}

CriticalPath::Ref CriticalPath::extend(const Point& from, std::uint16_t engine, Cycle start, Cycle compute_end,
                                       Cycle release, Cycle end, bool instruction) {
    const Ref r = allocate();  // before taking pointers: it may grow the pool
    std::uint64_t* d = slot(r);
    if (from.ref == kNone)
        std::fill(d, d + width_, 0);
    else
        std::copy(slot(from.ref), slot(from.ref) + width_, d);
    std::uint64_t* e = d + static_cast<std::size_t>(engine) * kPathCauses;
    // Each bound is clamped to the one before it, so the segments always add up to end - from.at.
    const Cycle s = std::max(start, from.at), c = std::max(compute_end, s), b = std::max(release, c),
                t = std::max(end, b);
    e[static_cast<std::size_t>(PathCause::latency)] += s - from.at;
    e[static_cast<std::size_t>(PathCause::compute)] += c - s;
    e[static_cast<std::size_t>(PathCause::bank_wait)] += b - c;
    e[static_cast<std::size_t>(PathCause::drain)] += t - b;
    std::uint64_t* counts = d + engines_ * kPathCauses;
    if (instruction) ++counts[engine];
    if (from.edge == Edge::semaphore) ++counts[engines_];
    if (from.edge == Edge::queue) ++counts[engines_ + 1];
    return r;
}

void CriticalPath::retired(const SyncSet& sync, Ref r, Cycle end) {
    for (std::uint32_t i = 0; i < sync.signals; ++i) {
        Point& s = sem_[sync.signal_sem[i]];
        retain(r);
        release(s.ref);
        s = {r, end, Edge::semaphore};
    }
    if (last_.ref == kNone || end >= last_.at) {
        retain(r);
        release(last_.ref);
        last_ = {r, end, Edge::none};
    }
}

CriticalPathStats CriticalPath::finish(Cycle total) const {
    CriticalPathStats out;
    out.cycles.assign(engines_, {});
    out.instructions.assign(engines_, 0);
    out.tail = total - std::min(total, last_.at);
    if (last_.ref == kNone) return out;
    const std::uint64_t* d = slot(last_.ref);
    for (std::size_t e = 0; e < engines_; ++e) {
        for (std::size_t c = 0; c < kPathCauses; ++c) out.cycles[e][c] = d[e * kPathCauses + c];
        out.instructions[e] = d[engines_ * kPathCauses + e];
    }
    out.semaphore_edges = d[engines_ * kPathCauses + engines_];
    out.queue_edges = d[engines_ * kPathCauses + engines_ + 1];
    return out;
}

}  // namespace sbufsim
