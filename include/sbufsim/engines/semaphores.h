// The semaphore file and one instruction's resolved wait/signal set.
//
// Semaphores (docs/trace-format.md): `wait=S[:v]` blocks an instruction's start until semaphore
// S >= v; `signal=S` adds 1 to S when the instruction completes. Values only grow, so a wait
// that is satisfied stays satisfied (the order of evaluation between engines in one cycle cannot
// change the outcome: the replay is deterministic).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sbufsim/types/types.h"

namespace sbufsim {

class CriticalPath;
class SiteProfile;

// One instruction's waits (values already resolved, trace.h WaitResolver) and signals.
struct SyncSet {
    std::array<std::uint16_t, kMaxWaits> wait_sem{};
    std::array<std::uint32_t, kMaxWaits> wait_value{};
    std::uint8_t waits = 0;
    std::array<std::uint16_t, kMaxSignals> signal_sem{};
    std::uint8_t signals = 0;
    // The source site of the instruction the set belongs to (site_profile.h; 0xffff: none). It
    // travels here because every engine carries an instruction's set from queue to retirement.
    std::uint16_t site = 0xffff;
};

class Semaphores {
public:
    explicit Semaphores(std::uint32_t count = 256);

    std::uint32_t size() const { return static_cast<std::uint32_t>(value_.size()); }
    std::uint64_t value(std::uint16_t s) const { return value_[s]; }
    // Cycle of the latest signal on s (0 when never signalled).
    Cycle last_signal(std::uint16_t s) const { return last_signal_[s]; }

    // True when every wait of `sync` is met.
    bool ready(const SyncSet& sync) const {
        for (std::uint32_t i = 0; i < sync.waits; ++i)
            if (value_[sync.wait_sem[i]] < sync.wait_value[i]) return false;
        return true;
    }
    // The first unmet wait (index into sync), or -1.
    int first_unmet(const SyncSet& sync) const {
        for (std::uint32_t i = 0; i < sync.waits; ++i)
            if (value_[sync.wait_sem[i]] < sync.wait_value[i]) return static_cast<int>(i);
        return -1;
    }
    void signal(const SyncSet& sync, Cycle at) {
        for (std::uint32_t i = 0; i < sync.signals; ++i) {
            const std::uint16_t s = sync.signal_sem[i];
            if (++value_[s] >= wanted_[s]) {
                wanted_[s] = kNobodyWaits;
                ++met_generation_;
            }
            last_signal_[s] = at;
        }
        ++generation_;
    }
    // Bumped by every signal: the scheduler re-examines blocked queues only when it moved.
    std::uint64_t generation() const { return generation_; }

    // A waiter stopped on `s >= v` (v above the value now): the signal that brings s to the
    // lowest such v of all waiters bumps met_generation() and forgets the thresholds of s, so
    // every waiter that watches met_generation() looks again and asks anew for what still waits.
    // Between two bumps no asked-for wait became met.
    void want(std::uint16_t s, std::uint32_t v) {
        if (v < wanted_[s]) wanted_[s] = v;
    }
    std::uint64_t met_generation() const { return met_generation_; }

    // The critical-path tracker the engines report their instructions to (critical_path.h); the
    // semaphore file carries it because every engine holds the file and every cross-engine
    // dependency goes through it. Null: not tracked.
    void set_path(CriticalPath* p) { path_ = p; }
    CriticalPath* path() const { return path_; }
    // The per-site profile the engines add to (site_profile.h), carried the same way. Null: none.
    void set_profile(SiteProfile* p) { profile_ = p; }
    SiteProfile* profile() const { return profile_; }

private:
    CriticalPath* path_ = nullptr;
    SiteProfile* profile_ = nullptr;
    std::vector<std::uint64_t> value_;
    static constexpr std::uint64_t kNobodyWaits = ~std::uint64_t{0};
    std::vector<Cycle> last_signal_;
    std::vector<std::uint64_t> wanted_;  // per semaphore: the lowest value a waiter asked for
    std::uint64_t generation_ = 0;
    std::uint64_t met_generation_ = 0;
};

}  // namespace sbufsim
