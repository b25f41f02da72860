#include "sbufsim/stats/window_stats.h"

#include <algorithm>
#include <stdexcept>

namespace sbufsim {

ActivityProbe::ActivityProbe(std::uint32_t clients, std::uint32_t banks, ProbeOptions o)
    : opt_(o), clients_(clients), banks_(banks), width_(std::max<Cycle>(1, o.bin_width)), open_(clients) {
    opt_.max_bins = std::max<std::size_t>(2, opt_.max_bins);
    opt_.max_active_bins = std::max<std::size_t>(1, opt_.max_active_bins);
    resize(opt_.fixed_width ? std::min<std::size_t>(64, opt_.max_active_bins + 1) : std::min<std::size_t>(64, opt_.max_bins));
    if (opt_.cycle_view) {
        won_.resize(banks);
        contended_.resize(banks);
        stalled_.resize(clients);
    }
}

void ActivityProbe::resize(std::size_t bins) {
    bins_ = bins;
    busy_.resize(bins * banks_);
    conflicts_.resize(bins * banks_);
    bank_stalls_.resize(bins * banks_);
    bytes_.resize(bins * clients_);
    tdm_compute_.resize(bins);
    tdm_dma_.resize(bins);
    stalled_by_cause_.resize(bins * kStallCauses);
}

// Halves the number of bins by adding neighbours: bin i of the result covers old bins 2i, 2i+1.
void ActivityProbe::fold() {
    auto fold_one = [&](std::vector<std::uint64_t>& v, std::size_t stride) {
        const std::size_t half = bins_ / 2;
        for (std::size_t i = 0; i < half; ++i)
            for (std::size_t k = 0; k < stride; ++k)
                v[i * stride + k] = v[2 * i * stride + k] + v[(2 * i + 1) * stride + k];
        std::fill(v.begin() + static_cast<std::ptrdiff_t>(half * stride), v.end(), 0);
    };
    // An odd last bin has no partner: keep the bin count even before folding.
    if (bins_ % 2) resize(bins_ + 1);
    fold_one(busy_, banks_);
    fold_one(conflicts_, banks_);
    fold_one(bank_stalls_, banks_);
    fold_one(bytes_, clients_);
    fold_one(tdm_compute_, 1);
    fold_one(tdm_dma_, 1);
    fold_one(stalled_by_cause_, kStallCauses);
    width_ *= 2;
}

std::size_t ActivityProbe::extend(Cycle t) {
    std::size_t b = static_cast<std::size_t>(t / width_);
    if (!opt_.fixed_width) {
        while (b >= opt_.max_bins) {
            fold();
            b = static_cast<std::size_t>(t / width_);
        }
        if (b < bins_) return b;
        resize(std::min(opt_.max_bins, std::max(b + 1, bins_ * 2)));
        return b;
    }
    // Doubling keeps the number of reallocations logarithmic in the run length.
    resize(std::max(b + 1, bins_ * 2));
    return b;
}

std::size_t ActivityProbe::slot(Cycle key) {
    const auto at = std::lower_bound(keys_.begin(), keys_.end(), key);
    if (at != keys_.end() && *at == key) return static_cast<std::size_t>(at - keys_.begin());
    if (keys_.size() >= opt_.max_active_bins) {
        // Past the cap: count into the spare last bin, which no row reads.
        overflowed_ = true;
        return bins_ - 1;
    }
    const std::size_t i = static_cast<std::size_t>(at - keys_.begin());
    // Room for the new bin and the spare one; doubling keeps reallocations logarithmic.
    if (keys_.size() + 2 > bins_) resize(std::min(opt_.max_active_bins + 1, std::max(bins_ * 2, keys_.size() + 2)));
    keys_.insert(at, key);
    if (i + 1 < keys_.size()) {
        // Out of time order (rare): open a zero bin at i by shifting the later ones up.
        auto shift = [&](std::vector<std::uint64_t>& v, std::size_t stride) {
            std::copy_backward(v.begin() + static_cast<std::ptrdiff_t>(i * stride),
                               v.begin() + static_cast<std::ptrdiff_t>((keys_.size() - 1) * stride),
                               v.begin() + static_cast<std::ptrdiff_t>(keys_.size() * stride));
            std::fill_n(v.begin() + static_cast<std::ptrdiff_t>(i * stride), stride, 0);
        };
        shift(busy_, banks_);
        shift(conflicts_, banks_);
        shift(bank_stalls_, banks_);
        shift(bytes_, clients_);
        shift(tdm_compute_, 1);
        shift(tdm_dma_, 1);
        shift(stalled_by_cause_, kStallCauses);
    }
    return i;
}

// A gated skip charges many cycles at once; each bin it crosses gets its own share, so a window's
// stalls stay those of its cycles. (bin() may fold first, so the share is taken after it.)
void ActivityProbe::count_stalled(StallCause cause, Cycle t, std::uint64_t n) {
    const std::size_t k = static_cast<std::size_t>(cause);
    while (n) {
        const std::size_t b = bin(t);
        const std::uint64_t share = std::min<std::uint64_t>(n, width_ - t % width_);
        stalled_by_cause_[b * kStallCauses + k] += share;
        t += share;
        n -= share;
    }
}

void ActivityProbe::close(std::uint32_t c) {
    Open& o = open_[c];
    if (o.cycles) spans_.push_back(StallSpan{o.start, o.cycles, static_cast<std::uint16_t>(c), o.cause});
    o.cycles = 0;
}

void ActivityProbe::finish() {
    for (std::uint32_t c = 0; c < clients_; ++c) close(c);
    std::sort(spans_.begin(), spans_.end(), [](const StallSpan& a, const StallSpan& b) {
        return a.client != b.client ? a.client < b.client : a.start < b.start;
    });
}

namespace {

WindowRow empty_row(std::size_t banks, std::size_t clients) {
    WindowRow r;
    r.busy.assign(banks, 0);
    r.conflicts.assign(banks, 0);
    r.stalls.assign(banks, 0);
    r.bytes.assign(clients, 0);
    return r;
}

// Adds `from` into `into` (same shape).
void accumulate(WindowRow& into, const WindowRow& from) {
    for (std::size_t b = 0; b < into.busy.size(); ++b) {
        into.busy[b] += from.busy[b];
        into.conflicts[b] += from.conflicts[b];
        into.stalls[b] += from.stalls[b];
    }
    for (std::size_t c = 0; c < into.bytes.size(); ++c) into.bytes[c] += from.bytes[c];
    into.tdm_compute += from.tdm_compute;
    into.tdm_dma += from.tdm_dma;
    for (std::size_t k = 0; k < kStallCauses; ++k) into.stalled[k] += from.stalled[k];
    into.cycles += from.cycles;
}

}  // namespace

WindowSeries make_windows(const ActivityProbe& p, const Stats& s, Cycle total, Cycle width) {
    if (width == 0 || width % p.bin_width() != 0)
        throw std::invalid_argument("window width must be a multiple of the probe's bin width");
    WindowSeries w;
    w.width = width;
    w.sbuf_banks = s.sbuf_banks;
    for (const auto& b : s.banks) w.banks.push_back(b.name);
    for (const auto& c : s.clients) w.clients.push_back(c.name);
    auto row_at = [&](Cycle start) {
        WindowRow row = empty_row(p.banks(), p.clients());
        row.start = start;
        row.cycles = std::min<Cycle>(width, total - start);
        return row;
    };
    // Bins in time order; a new row starts at each bin of another window (a folding probe also
    // gets a row for every window without a bin).
    const bool every_window = !p.sparse();
    Cycle next = 0;   // the first window start without a row yet
    for (std::size_t i = 0; i < p.bins(); ++i) {
        const Cycle start = p.bin_start(i) / width * width;
        if (start >= total) break;
        if (w.rows.empty() || w.rows.back().start != start) {
            for (; every_window && next < start; next += width) w.rows.push_back(row_at(next));
            w.rows.push_back(row_at(start));
            next = start + width;
        }
        WindowRow& row = w.rows.back();
        for (std::uint32_t b = 0; b < p.banks(); ++b) {
            row.busy[b] += p.busy(i, b);
            row.conflicts[b] += p.conflicts(i, b);
            row.stalls[b] += p.bank_stalls(i, b);
        }
        for (std::uint32_t c = 0; c < p.clients(); ++c) row.bytes[c] += p.bytes(i, c);
        row.tdm_compute += p.tdm_compute(i);
        row.tdm_dma += p.tdm_dma(i);
        for (std::size_t k = 0; k < kStallCauses; ++k)
            row.stalled[k] += p.stalled(i, static_cast<StallCause>(k));
    }
    for (; every_window && next < total; next += width) w.rows.push_back(row_at(next));
    return w;
}

WindowSeries rebin(const WindowSeries& w, std::size_t max_rows, Cycle origin) {
    if (w.rows.empty() || w.width == 0) return w;
    if (origin == kNever || origin > w.rows.front().start) origin = w.rows.front().start;
    const Cycle end = w.rows.back().start + w.rows.back().cycles;
    const Cycle span_rows = (end - origin + w.width - 1) / w.width;
    const bool gap_free = span_rows == w.rows.size() && w.rows.front().start == origin;
    if (max_rows == 0 || (gap_free && w.rows.size() <= max_rows)) return w;
    const Cycle k = std::max<Cycle>(1, (span_rows + max_rows - 1) / max_rows);
    WindowSeries out = w;
    out.rows.clear();
    out.width = w.width * k;
    const std::size_t n = static_cast<std::size_t>((end - origin + out.width - 1) / out.width);
    for (std::size_t i = 0; i < n; ++i) {
        WindowRow row = empty_row(w.banks.size(), w.clients.size());
        row.start = origin + i * out.width;
        row.cycles = std::min<Cycle>(out.width, end - row.start);
        out.rows.push_back(std::move(row));
    }
    for (const auto& r : w.rows) {
        WindowRow& into = out.rows[static_cast<std::size_t>((r.start - origin) / out.width)];
        const Cycle cycles = into.cycles;
        accumulate(into, r);
        into.cycles = cycles;
    }
    return out;
}

}  // namespace sbufsim
