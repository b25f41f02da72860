#include "sbufsim/stats/window_stats.h"

#include <algorithm>
#include <stdexcept>

namespace sbufsim {

ActivityProbe::ActivityProbe(std::uint32_t clients, std::uint32_t banks, ProbeOptions o)
    : opt_(o), clients_(clients), banks_(banks), width_(std::max<Cycle>(1, o.bin_width)), open_(clients) {
    opt_.max_bins = std::max<std::size_t>(2, opt_.max_bins);
    resize(opt_.fixed_width ? 64 : std::min<std::size_t>(64, opt_.max_bins));
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
    const std::size_t per = static_cast<std::size_t>(width / p.bin_width());
    const std::size_t rows = static_cast<std::size_t>((total + width - 1) / width);
    for (std::size_t r = 0; r < rows; ++r) {
        WindowRow row = empty_row(p.banks(), p.clients());
        row.start = r * width;
        row.cycles = std::min<Cycle>(width, total - row.start);
        for (std::size_t i = r * per; i < (r + 1) * per && i < p.bins(); ++i) {
            for (std::uint32_t b = 0; b < p.banks(); ++b) {
                row.busy[b] += p.busy(i, b);
                row.conflicts[b] += p.conflicts(i, b);
                row.stalls[b] += p.bank_stalls(i, b);
            }
            for (std::uint32_t c = 0; c < p.clients(); ++c) row.bytes[c] += p.bytes(i, c);
            row.tdm_compute += p.tdm_compute(i);
            row.tdm_dma += p.tdm_dma(i);
        }
        w.rows.push_back(std::move(row));
    }
    return w;
}

WindowSeries rebin(const WindowSeries& w, std::size_t max_rows) {
    if (max_rows == 0 || w.rows.size() <= max_rows) return w;
    const std::size_t k = (w.rows.size() + max_rows - 1) / max_rows;
    WindowSeries out = w;
    out.rows.clear();
    out.width = w.width * k;
    for (std::size_t i = 0; i < w.rows.size(); i += k) {
        WindowRow row = empty_row(w.banks.size(), w.clients.size());
        row.start = w.rows[i].start;
        for (std::size_t j = i; j < i + k && j < w.rows.size(); ++j) accumulate(row, w.rows[j]);
        out.rows.push_back(std::move(row));
    }
    return out;
}

}  // namespace sbufsim
