// One rd or wr token bucket of the pool/act/dve throttlers (tpb_sbuf_pool_act.json, seed 000
// §7.2): at most transfer_cnt beats per window of window_len cycles. Off at reset.
//
// Windows are aligned to absolute time (window = cycle / window_len) rather than started by the
// first beat, so the bucket's state depends only on the beats it granted and the current cycle:
// skipping idle cycles cannot change it (INFERRED; the CSR description gives only the two fields).
#pragma once

#include <algorithm>
#include <cstdint>

#include "sbufsim/config/params.h"
#include "sbufsim/kernel/request.h"

namespace sbufsim {

class Throttler {
public:
    Throttler() = default;
    explicit Throttler(const ThrottleCfg& c);

    bool enabled() const { return enabled_; }
    // May a beat move in cycle t? (Always true when disabled.)
    bool allows(Cycle t) {
        if (!enabled_) return true;
        roll(t);
        return used_ < limit_;
    }
    // Beats the bucket still allows in t's window (0 when disabled): its token count.
    std::uint32_t tokens(Cycle t) const {
        if (!enabled_) return 0;
        return t / window_len_ == window_ ? limit_ - std::min(used_, limit_) : limit_;
    }
    // A beat was granted in cycle t.
    void on_grant(Cycle t) {
        if (!enabled_) return;
        roll(t);
        ++used_;
    }
    // n beats granted in n cycles from t on, all in t's window (a leap: grants_after(t) >= n).
    void on_grants(Cycle t, std::uint32_t n) {
        if (!enabled_) return;
        roll(t);
        used_ += n;
    }
    // How many cycles in a row after t, a beat granted in t, a beat may be granted again: the
    // tokens t's window has left, within that window (a window that refills ends the count).
    Cycle grants_after(Cycle t) const {
        if (!enabled_) return kNever;
        return std::min<Cycle>(tokens(t), window_end(t) - t - 1);
    }
    // How many cycles in a row from t on a beat may be granted, before any is: the tokens t's
    // window has left, within that window.
    Cycle grants_from(Cycle t) const {
        if (!enabled_) return kNever;
        return std::min<Cycle>(tokens(t), window_end(t) - t);
    }
    // First cycle of the window after t's (when a spent bucket refills); kNever for a bucket of
    // zero beats, which never refills.
    Cycle next_window(Cycle t) const { return limit_ == 0 ? kNever : window_end(t); }

private:
    // The first cycle after t's window.
    Cycle window_end(Cycle t) const { return (t / window_len_ + 1) * window_len_; }
    void roll(Cycle t) {
        const Cycle w = t / window_len_;
        if (w != window_) {
            window_ = w;
            used_ = 0;
        }
    }

    bool enabled_ = false;
    std::uint32_t window_len_ = 1;
    std::uint32_t limit_ = 0;
    Cycle window_ = 0;
    std::uint32_t used_ = 0;
};

}  // namespace sbufsim
