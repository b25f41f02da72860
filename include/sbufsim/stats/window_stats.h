// Time-resolved activity of one kernel run: an optional probe the kernel feeds while it runs, and
// the per-window rows (`sbufsim run --window-stats N`, the heatmap, the timeline's counter tracks)
// built from it. docs/visualisation.md.
//
// The probe is off unless a caller hands one to Kernel::set_probe(): the kernel then pays one
// predictable branch on a null pointer per hook site. When on, every hook is an add into a
// preallocated bin array; the arrays grow only when time crosses into a new bin (never per cycle),
// and with `fixed_width == false` they are folded in half (bin width doubled) whenever they pass
// `max_bins`, so the memory of a long run stays bounded. With `fixed_width == true` (exact
// --window-stats N bins, never folded) only bins in which something happened are stored, so an
// idle stretch costs nothing, and at most `max_active_bins` of them: past that the probe stops
// adding bins and says so (overflowed()), and the caller asks for a wider N.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sbufsim/stats/stats.h"

namespace sbufsim {

// A run of consecutive stalled cycles of one client with one cause.
struct StallSpan {
    Cycle start = 0;
    Cycle cycles = 0;
    std::uint16_t client = 0;
    StallCause cause = StallCause::dependency;
};

// The most bins with activity a fixed-width probe keeps (about 1.5 KB each on cayman: busy,
// conflicts and stalls per bank, bytes per client).
inline constexpr std::size_t kMaxActiveBins = std::size_t{1} << 17;

struct ProbeOptions {
    Cycle bin_width = 64;          // cycles per bin at the start
    bool fixed_width = false;      // true: never fold (exact --window-stats N rows)
    std::size_t max_bins = 4096;   // fold threshold when !fixed_width
    bool record_spans = false;     // keep StallSpans (the timeline's arbiter-client tracks)
    // Keep the latest cycle's grant winner and conflict per bank and stall cause per client
    // (the clocked scheduler's waveforms, models/sbuf_arbiter.h).
    bool cycle_view = false;
    std::size_t max_active_bins = kMaxActiveBins;   // cap when fixed_width (docs/visualisation.md)
};

// What one bank or client did in the latest cycle the probe saw (ProbeOptions::cycle_view).
struct CycleMark {
    Cycle cycle = kNever;      // the cycle it was last set in
    std::uint16_t value = 0;   // bank: the winning client; client: the StallCause
};

class ActivityProbe {
public:
    ActivityProbe(std::uint32_t clients, std::uint32_t banks, ProbeOptions o = {});

    // ---- hooks (kernel.cpp), cycle t ----
    // `n` stalled cycles of client c starting at t (n > 1 only for skipped gated stretches).
    void stall(std::uint32_t c, StallCause cause, Cycle t, std::uint64_t n) {
        count_stalled(cause, t, n);
        if (opt_.cycle_view) stalled_[c] = CycleMark{t + n - 1, static_cast<std::uint16_t>(cause)};
        if (!opt_.record_spans) return;
        Open& o = open_[c];
        if (o.cycles && o.cause == cause && o.start + o.cycles == t) {
            o.cycles += n;
            return;
        }
        close(c);
        o = Open{t, n, cause};
    }
    // A beat of client c granted on the banks of `mask` (bit b = bank base + b), moving `bytes`.
    void grant(std::uint32_t c, std::uint32_t base, std::uint32_t mask, std::uint32_t bytes, Cycle t) {
        const std::size_t b = bin(t);
        for (; mask; mask &= mask - 1) {
            const std::uint32_t bank = base + static_cast<std::uint32_t>(__builtin_ctz(mask));
            ++busy_[b * banks_ + bank];
            if (opt_.cycle_view) won_[bank] = CycleMark{t, static_cast<std::uint16_t>(c)};
        }
        bytes_[b * clients_ + c] += bytes;
    }
    // Bank `bank` had two or more beats wanting it at the grant stage.
    void conflict(std::uint32_t bank, Cycle t) {
        ++conflicts_[bin(t) * banks_ + bank];
        if (opt_.cycle_view) contended_[bank] = CycleMark{t, 0};
    }
    // A beat stalled for the loss of bank `bank`.
    void bank_stall(std::uint32_t bank, Cycle t) { ++bank_stalls_[bin(t) * banks_ + bank]; }
    // One stepped cycle's SBUF TDM use.
    void tdm(bool compute_used, bool dma_used, Cycle t) {
        if (!compute_used && !dma_used) return;
        const std::size_t b = bin(t);
        tdm_compute_[b] += compute_used;
        tdm_dma_[b] += dma_used;
    }

    // ---- after the run ----
    // Closes the open stall spans (call once, when the kernel is done).
    void finish();
    const std::vector<StallSpan>& spans() const { return spans_; }
    Cycle bin_width() const { return width_; }
    bool cycle_view() const { return opt_.cycle_view; }
    // Stored bins: every bin from cycle 0 (folding probe), or the bins with activity in time
    // order (fixed width). Bin i starts at cycle bin_start(i).
    std::size_t bins() const { return opt_.fixed_width ? keys_.size() : bins_; }
    Cycle bin_start(std::size_t i) const { return (opt_.fixed_width ? keys_[i] : i) * width_; }
    // A fixed-width probe that met more than max_active_bins bins with activity (the later ones
    // were not recorded).
    bool overflowed() const { return overflowed_; }
    bool sparse() const { return opt_.fixed_width; }   // only bins with activity are stored
    std::uint32_t banks() const { return banks_; }
    std::uint32_t clients() const { return clients_; }
    std::uint64_t busy(std::size_t bin, std::uint32_t bank) const { return busy_[bin * banks_ + bank]; }
    std::uint64_t conflicts(std::size_t bin, std::uint32_t bank) const { return conflicts_[bin * banks_ + bank]; }
    std::uint64_t bank_stalls(std::size_t bin, std::uint32_t bank) const { return bank_stalls_[bin * banks_ + bank]; }
    std::uint64_t bytes(std::size_t bin, std::uint32_t client) const { return bytes_[bin * clients_ + client]; }
    std::uint64_t tdm_compute(std::size_t bin) const { return tdm_compute_[bin]; }
    std::uint64_t tdm_dma(std::size_t bin) const { return tdm_dma_[bin]; }
    // Stalled beat-cycles of every client with cause `cause` (the run's per-client stall counters
    // summed, split at bin edges).
    std::uint64_t stalled(std::size_t bin, StallCause cause) const {
        return stalled_by_cause_[bin * kStallCauses + static_cast<std::size_t>(cause)];
    }

    // ---- cycle view (ProbeOptions::cycle_view) ----
    // The client granted bank `bank` in cycle t, if any.
    bool granted(std::uint32_t bank, Cycle t, std::uint16_t& client) const {
        if (won_[bank].cycle != t) return false;
        client = won_[bank].value;
        return true;
    }
    // Two or more beats wanted bank `bank` in cycle t.
    bool contended(std::uint32_t bank, Cycle t) const { return contended_[bank].cycle == t; }
    // Client c stalled in cycle t, and why.
    bool stalled(std::uint32_t c, Cycle t, StallCause& cause) const {
        if (stalled_[c].cycle != t) return false;
        cause = static_cast<StallCause>(stalled_[c].value);
        return true;
    }

private:
    struct Open {
        Cycle start = 0;
        Cycle cycles = 0;
        StallCause cause = StallCause::dependency;
    };
    std::size_t bin(Cycle t) {
        if (opt_.fixed_width) {
            const Cycle key = t / width_;
            if (!keys_.empty() && keys_.back() == key) [[likely]] return keys_.size() - 1;
            return slot(key);
        }
        std::size_t b = static_cast<std::size_t>(t / width_);
        if (b >= bins_) [[unlikely]] b = extend(t);
        return b;
    }
    std::size_t extend(Cycle t);  // grows (or folds) so that t has a bin; returns its index
    std::size_t slot(Cycle key);  // fixed width: the stored bin of bin number `key`, added if new
    void fold();
    void resize(std::size_t bins);
    void close(std::uint32_t c);
    void count_stalled(StallCause cause, Cycle t, std::uint64_t n);  // n cycles from t, bin by bin

    ProbeOptions opt_;
    std::uint32_t clients_, banks_;
    Cycle width_;
    std::size_t bins_ = 0;              // bins allocated (fixed width: one more, the overflow bin)
    std::vector<Cycle> keys_;           // fixed width: bin number of each stored bin, ascending
    bool overflowed_ = false;
    std::vector<std::uint64_t> busy_, conflicts_, bank_stalls_, bytes_, tdm_compute_, tdm_dma_;
    std::vector<std::uint64_t> stalled_by_cause_;  // kStallCauses per bin
    std::vector<Open> open_;
    std::vector<StallSpan> spans_;
    std::vector<CycleMark> won_, contended_, stalled_;  // cycle view: per bank, bank, client
};

// ---- per-window rows ----------------------------------------------------------------------------

struct WindowRow {
    Cycle start = 0;
    Cycle cycles = 0;                       // window length (the last one may be short)
    std::vector<std::uint64_t> busy;        // per bank: cycles granted
    std::vector<std::uint64_t> conflicts;   // per bank: cycles with two or more contenders
    std::vector<std::uint64_t> stalls;      // per bank: beat-cycles stalled for its loss
    std::vector<std::uint64_t> bytes;       // per client: bytes moved
    std::uint64_t tdm_compute = 0;          // cycles with a compute-class SBUF grant
    std::uint64_t tdm_dma = 0;              // cycles with a DMA-class SBUF grant
    std::array<std::uint64_t, kStallCauses> stalled{};  // per StallCause: beat-cycles stalled
};

struct WindowSeries {
    Cycle width = 0;                        // cycles per window (0 = no series)
    std::vector<std::string> banks;         // sbuf_0.., psum_0..
    std::uint32_t sbuf_banks = 0;
    std::vector<std::string> clients;
    std::vector<WindowRow> rows;
    bool empty() const { return rows.empty(); }
};

// Rows of `width` cycles each from the probe (whose bin width must divide `width`) over
// [0, total): every row from a folding probe; from a fixed-width probe only the rows in which
// something happened (an idle window has no row: memory follows the activity, not the span).
// Names come from the run's statistics.
WindowSeries make_windows(const ActivityProbe& p, const Stats& s, Cycle total, Cycle width);
// The same series on a regular grid of at most `max_rows` rows (0 = no limit) from `origin`
// (a multiple of w.width at or before the first row; kNever: the first row's start): groups of
// k consecutive windows merged, idle windows between rows filled with zero rows. A gap-free
// series of at most `max_rows` rows from there is returned as it is. A picture drawn along the
// run's time axis asks for origin 0, so that idle windows at the start keep their place.
WindowSeries rebin(const WindowSeries& w, std::size_t max_rows, Cycle origin = kNever);

}  // namespace sbufsim
