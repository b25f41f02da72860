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

CriticalPath::Point CriticalPath::pick(Point own, const SyncSet& sync, Cycle wait_delay) const {
    own.edge = own.ref == kNone ? Edge::none : own.edge;
    Point best = own;
    Cycle best_ready = own.at;  // when the constraint lets the instruction start
    for (std::uint32_t i = 0; i < sync.waits; ++i) {
        if (!sync.wait_value[i]) continue;  // met from the start: no instruction to wait for
        const Point& s = sem_[sync.wait_sem[i]];
        if (s.ref != kNone && s.at + wait_delay >= best_ready) {
            best = {s.ref, s.at, Edge::semaphore};
            best_ready = s.at + wait_delay;
        }
    }
    return best;
}

// Dropping a path's last holder frees its node, which lets go of the path it extended.
void CriticalPath::release(Ref r) {
    while (r != kNone && --refs_[r] == 0) {
        Node& n = nodes_[r];
        if (n.totals != kNone) free_totals_.push_back(n.totals);
        free_.push_back(r);
        r = n.parent;
    }
}

CriticalPath::Ref CriticalPath::allocate() {
    if (!free_.empty()) {
        const Ref r = free_.back();
        free_.pop_back();
        refs_[r] = 1;
        return r;
    }
    refs_.push_back(1);
    nodes_.emplace_back();
    return static_cast<Ref>(nodes_.size() - 1);
}

CriticalPath::Ref CriticalPath::allocate_totals() {
    if (!free_totals_.empty()) {
        const Ref t = free_totals_.back();
        free_totals_.pop_back();
        return t;
    }
    totals_.resize(totals_.size() + width_);
    site_totals_.emplace_back();
    return static_cast<Ref>(totals_.size() / width_ - 1);
}

void CriticalPath::add_node(const Node& n, std::uint64_t* out) const {
    std::uint64_t* e = out + static_cast<std::size_t>(n.engine) * kPathCauses;
    for (std::size_t c = 0; c < kPathCauses; ++c) e[c] += n.seg[c];
    std::uint64_t* counts = out + engines_ * kPathCauses;
    if (n.instruction) ++counts[n.engine];
    if (n.edge == Edge::semaphore) ++counts[engines_];
    if (n.edge == Edge::queue) ++counts[engines_ + 1];
}

void CriticalPath::add_path(Ref r, std::uint64_t* out) const {
    for (; r != kNone; r = nodes_[r].parent) {
        const Node& n = nodes_[r];
        if (n.totals != kNone) {  // a flattened node: its totals include its own segment
            const std::uint64_t* t = totals(n.totals);
            for (std::size_t i = 0; i < width_; ++i) out[i] += t[i];
            return;
        }
        add_node(n, out);
    }
}

CriticalPath::Ref CriticalPath::extend(const Point& from, std::uint16_t engine, Cycle start,
                                       Cycle compute_end, Cycle release, Cycle end, bool instruction,
                                       std::uint16_t site) {
    const Ref r = allocate();  // before taking references: it may grow the pool
    Node n;
    n.engine = engine;
    n.site = site;
    sites_ = sites_ || site != 0xffff;
    n.instruction = instruction;
    n.edge = from.edge;
    // Each bound is clamped to the one before it, so the segments always add up to end - from.at.
    const Cycle s = std::max(start, from.at), c = std::max(compute_end, s), b = std::max(release, c),
                t = std::max(end, b);
    n.seg[static_cast<std::size_t>(PathCause::latency)] = s - from.at;
    n.seg[static_cast<std::size_t>(PathCause::compute)] = c - s;
    n.seg[static_cast<std::size_t>(PathCause::bank_wait)] = b - c;
    n.seg[static_cast<std::size_t>(PathCause::drain)] = t - b;
    if (from.ref != kNone) {
        if (nodes_[from.ref].depth + 1 < kFlattenDepth) {
            n.parent = from.ref;
            n.depth = nodes_[from.ref].depth + 1;
            ++refs_[from.ref];
        } else {
            // Sum the chain up: this node holds the whole path and none of the nodes behind it.
            const Ref tot = allocate_totals();
            std::uint64_t* d = totals(tot);
            std::fill(d, d + width_, 0);
            add_path(from.ref, d);
            add_node(n, d);
            n.totals = tot;
            if (sites_) {
                std::vector<Cycle>& st = site_totals_[tot];
                st.clear();
                add_site_path(from.ref, st);
                add_site_node(n, st);
            }
        }
    }
    nodes_[r] = n;
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

void CriticalPath::add_site_node(const Node& n, std::vector<Cycle>& out) {
    const std::size_t row = n.site == 0xffff ? 0 : std::size_t{n.site} + 1;
    if (row >= out.size()) out.resize(row + 1, 0);
    for (Cycle c : n.seg) out[row] += c;
}

void CriticalPath::add_site_path(Ref r, std::vector<Cycle>& out) const {
    for (; r != kNone; r = nodes_[r].parent) {
        const Node& n = nodes_[r];
        if (n.totals != kNone) {  // flattened: its site totals include its own segment
            const std::vector<Cycle>& t = site_totals_[n.totals];
            if (t.size() > out.size()) out.resize(t.size(), 0);
            for (std::size_t i = 0; i < t.size(); ++i) out[i] += t[i];
            return;
        }
        add_site_node(n, out);
    }
}

CriticalPathStats CriticalPath::finish(Cycle total) const {
    CriticalPathStats out;
    out.cycles.assign(engines_, {});
    out.instructions.assign(engines_, 0);
    out.tail = total - std::min(total, last_.at);
    if (last_.ref == kNone) return out;
    std::vector<std::uint64_t> sum(width_, 0);
    add_path(last_.ref, sum.data());
    const std::uint64_t* d = sum.data();
    for (std::size_t e = 0; e < engines_; ++e) {
        for (std::size_t c = 0; c < kPathCauses; ++c) out.cycles[e][c] = d[e * kPathCauses + c];
        out.instructions[e] = d[engines_ * kPathCauses + e];
    }
    if (sites_) {
        add_site_path(last_.ref, out.sites);
        // The tail (the kernel's access-record traffic after the last instruction) has no site.
        if (out.sites.empty()) out.sites.resize(1, 0);
        out.sites[0] += out.tail;
    }
    out.semaphore_edges = d[engines_ * kPathCauses + engines_];
    out.queue_edges = d[engines_ * kPathCauses + engines_ + 1];
    return out;
}

}  // namespace sbufsim
