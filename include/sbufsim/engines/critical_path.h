// The critical path of a replay, tracked while it runs: the chain of instructions, back from the
// last completion, in which each one could not start earlier because of the one before it — the
// previous instruction of its own engine (queue order, a free array or DMA ring, its LdWeights)
// or the instruction whose signal met its semaphore wait. Every cycle of the run lies on exactly
// one segment of the chain, so the split by engine and cause adds up to the total cycles.
//
// A path is a chain of segments in a pool of reference-counted nodes: each node holds its own
// segment and refers to the path it extends, so extending a path copies nothing. Memory stays
// flat: every kFlattenDepth-th node sums its chain into a vector of totals (engine x cause) and
// lets go of its predecessor, so a chain is never longer than that, and only the paths that can
// still be extended are alive (one per semaphore's latest signal, a few per engine, one per
// instruction in flight) with the chains behind them.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sbufsim/engines/semaphores.h"

namespace sbufsim {

// What one critical-path segment of an engine was spent on.
enum class PathCause : std::uint8_t {
    compute,    // the instruction's cost-model time (streaming, transfer, ALU work)
    bank_wait,  // held past its cost-model time: its SBUF/PSUM requests were still queued
    latency,    // from the predecessor's end to this start: DMA start-up, fixed issue delays
    drain,      // the engine free, the instruction not yet signalled: the PE array's release to the
                // matmul's last PSUM write; an ACT/DVE/POOL dependent turnaround or queued output
    count
};
inline constexpr std::size_t kPathCauses = static_cast<std::size_t>(PathCause::count);
const char* to_string(PathCause c);

// The finished critical path of one run.
struct CriticalPathStats {
    std::vector<std::array<Cycle, kPathCauses>> cycles;  // per engine (ReplayResult::engines order)
    std::vector<std::uint64_t> instructions;              // per engine: instructions on the path
    // Per source site (SiteProfile::row order; row 0 = no location): cycles of the path's
    // segments of that site's instructions. Empty when no instruction had a site.
    std::vector<Cycle> sites;
    Cycle tail = 0;                 // after the last instruction: the kernel finishing access-record traffic
    std::uint64_t semaphore_edges = 0;  // hops to the instruction whose signal met a wait
    std::uint64_t queue_edges = 0;      // hops to the same engine's previous instruction
    Cycle engine_total(std::size_t e) const;
    Cycle cause_total(PathCause c) const;
    Cycle total() const;            // == ReplayResult::total_cycles
    bool operator==(const CriticalPathStats&) const = default;
};

class CriticalPath {
public:
    using Ref = std::uint32_t;
    static constexpr Ref kNone = 0xffffffffu;
    enum class Edge : std::uint8_t { none, queue, semaphore, internal };
    // A path ending at cycle `at` (its cycles add up to `at`); kNone is the empty path at 0.
    struct Point {
        Ref ref = kNone;
        Cycle at = 0;
        Edge edge = Edge::none;
    };

    CriticalPath(std::size_t engines, std::uint32_t semaphores);

    // The later of `own` (the engine's own constraint, Edge::queue) and the latest signal of each
    // semaphore `sync` waits for: the constraint an instruction starting now waited for last.
    // Ties go to the semaphore (the cross-engine dependency is the one to report). `wait_delay`:
    // the fixed time from a met wait to the earliest start (a DMA transfer's start-up), so a
    // signal that came earlier than the queue's own constraint can still be the later one.
    Point pick(Point own, const SyncSet& sync, Cycle wait_delay = 0) const;
    // The later of two points (ties: `a`).
    static Point later(const Point& a, const Point& b) { return b.at > a.at ? b : a; }

    void retain(Ref r) {
        if (r != kNone) ++refs_[r];
    }
    void release(Ref r);

    // A new path (reference count 1): `from`, then on `engine` latency from.at to start, compute to
    // compute_end, bank wait to release, drain to end. `instruction`: the segment ends an
    // instruction (counted on the path; false for the intermediate points of a matmul).
    // `site`: the instruction's source site (SyncSet::site).
    Ref extend(const Point& from, std::uint16_t engine, Cycle start, Cycle compute_end, Cycle release,
               Cycle end, bool instruction, std::uint16_t site = 0xffff);
    // An instruction retired at `end` with path `r`: its signals carry the path, and the latest
    // completion of the run is remembered.
    void retired(const SyncSet& sync, Ref r, Cycle end);

    // The path of the last completion, plus the tail to `total`.
    CriticalPathStats finish(Cycle total) const;

    // Nodes a chain holds before one sums it up (a trade between the sums' copies and finish()'s
    // walk; any value gives the same totals).
    static constexpr std::uint32_t kFlattenDepth = 32;

private:
    // One segment of a path: its cycles by cause on one engine, and the path it extends.
    struct Node {
        Ref parent = kNone;       // the path this one extends (held); kNone: the empty path or `totals`
        Ref totals = kNone;       // a vector of the whole path's totals in totals_ (a flattened node)
        std::uint32_t depth = 0;  // nodes behind this one to the last flattened one (or the start)
        std::uint16_t engine = 0;
        std::uint16_t site = 0xffff;
        bool instruction = false;
        Edge edge = Edge::none;  // of the point it extends: counts a semaphore or queue hop
        Cycle seg[kPathCauses] = {};
    };
    std::uint64_t* totals(Ref t) { return totals_.data() + static_cast<std::size_t>(t) * width_; }
    const std::uint64_t* totals(Ref t) const { return totals_.data() + static_cast<std::size_t>(t) * width_; }
    Ref allocate();
    Ref allocate_totals();
    // Adds the whole path `r` (its chain and the totals it ends on) to `out` (width_ values).
    void add_path(Ref r, std::uint64_t* out) const;
    void add_node(const Node& n, std::uint64_t* out) const;

    std::size_t engines_;
    std::size_t width_;  // engines x causes, engines (instruction counts), 2 edge counters
    std::vector<Node> nodes_;
    std::vector<std::uint32_t> refs_;
    std::vector<Ref> free_;
    std::vector<std::uint64_t> totals_;  // width_ values per flattened node
    std::vector<Ref> free_totals_;
    // Per flattened node, its path's cycles by site row (critical_path.h CriticalPathStats::sites);
    // empty while no instruction had a site, so a trace without locations pays nothing.
    std::vector<std::vector<Cycle>> site_totals_;
    bool sites_ = false;
    void add_site_path(Ref r, std::vector<Cycle>& out) const;
    static void add_site_node(const Node& n, std::vector<Cycle>& out);
    std::vector<Point> sem_;  // per semaphore: the path of its latest signal
    Point last_;              // the latest completion
};

}  // namespace sbufsim
