#include "sbufsim/stats/stats.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>

#include "sbufsim/types/number.h"
#include "sbufsim/types/text.h"

namespace sbufsim {

const char* to_string(StallCause c) {
    switch (c) {
        case StallCause::dependency:
            return "dependency";
        case StallCause::psum_backpressure:
            return "psum_backpressure";
        case StallCause::tdm:
            return "tdm";
        case StallCause::throttle:
            return "throttle";
        case StallCause::stage1_loss:
            return "stage1_loss";
        case StallCause::bank_conflict:
            return "bank_conflict";
        case StallCause::count:
            break;
    }
    return "?";
}

// ---------------------------------------------------------------------------------------------
// LatencyHistogram (bucket() is inline in the header).

std::uint64_t LatencyHistogram::bucket_upper(std::uint32_t b) {
    if (b < kLinear) return b;
    const std::uint32_t k = (b - kLinear) / kSub + 4;
    const std::uint64_t sub = (b - kLinear) % kSub;
    const std::uint64_t lower = (kSub + sub) << (k - 3);
    return lower + ((std::uint64_t{1} << (k - 3)) - 1);
}

void LatencyHistogram::grow(std::uint32_t b) {
    counts_.resize(std::min<std::size_t>(kBuckets, (b / kGrowth + 1) * kGrowth));
    room_ = static_cast<std::uint32_t>(counts_.size());
}

bool LatencyHistogram::operator==(const LatencyHistogram& o) const {
    if (count_ != o.count_ || sum_ != o.sum_ || max_ != o.max_) return false;
    const std::size_t n = std::max(counts_.size(), o.counts_.size());
    for (std::size_t b = 0; b < n; ++b) {
        const std::uint64_t x = b < counts_.size() ? counts_[b] : 0,
                            y = b < o.counts_.size() ? o.counts_[b] : 0;
        if (x != y) return false;
    }
    return true;
}

std::uint64_t LatencyHistogram::percentile(double q) const {
    if (count_ == 0) return 0;
    const double r = std::ceil(q * static_cast<double>(count_));
    const std::uint64_t rank = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(r), 1, count_);
    std::uint64_t seen = 0;
    for (std::uint32_t b = 0; b < counts_.size(); ++b) {
        seen += counts_[b];
        if (seen >= rank) return std::min(bucket_upper(b), max_);
    }
    return max_;
}

// ---------------------------------------------------------------------------------------------

void Stats::finalize() {
    const double cyc = cycles ? static_cast<double>(cycles) : 1.0;
    std::uint64_t won_total = 0;
    for (const auto& c : clients)
        if (c.contended) won_total += c.won_contended;
    double sx = 0, sxx = 0;
    std::uint32_t nx = 0;
    for (auto& c : clients) {
        c.bytes_per_cycle = static_cast<double>(c.bytes) / cyc;
        c.contended_share = c.contended && won_total
                                ? static_cast<double>(c.won_contended) / static_cast<double>(won_total)
                                : 0.0;
        c.win_rate =
            c.contended ? static_cast<double>(c.won_contended) / static_cast<double>(c.contended) : 0.0;
        if (c.contended) {
            sx += c.win_rate;
            sxx += c.win_rate * c.win_rate;
            ++nx;
        }
    }
    jain_index = nx && sxx > 0 ? (sx * sx) / (nx * sxx) : (nx ? 0.0 : 1.0);
    for (auto& b : banks) {
        b.busy = 0;
        for (auto g : b.grants) b.busy += g;
    }
}

bool Stats::same_results(const Stats& o) const {
    Stats a = *this, b = o;
    a.stepped = b.stepped = 0;
    return a.cycles == b.cycles && a.clients == b.clients && a.banks == b.banks &&
           a.sbuf_banks == b.sbuf_banks && a.blocked_by == b.blocked_by && a.tdm_slots == b.tdm_slots &&
           a.jain_index == b.jain_index;
}

// ---------------------------------------------------------------------------------------------
// Plain-text report.

namespace {

std::string pad(std::string s, std::size_t w, bool right = true) {
    if (s.size() >= w) return s;
    return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

// A table's rows, numbered rows used alike merged (merge_numbered_rows), and what a merged row
// stands for under them.
void print_rows(std::ostream& os, const std::vector<TableRow>& rows, std::size_t name_width,
                std::string_view what) {
    const std::vector<TableRow> merged = merge_numbered_rows(rows);
    for (const TableRow& row : merged)
        os << pad(row.name + (row.name.size() >= name_width ? " " : ""), name_width, false) << row.figures
           << "\n";
    os << merged_rows_note(merged, what);
}

}  // namespace

void print_report(std::ostream& os, const Stats& s) {
    os << "cycles " << s.cycles << " (" << s.stepped << " evaluated, " << (s.cycles - s.stepped)
       << " skipped)\n\n";

    os << "clients (active only)\n";
    os << pad("client", 14, false) << pad("reqs", 9) << pad("beats", 11) << pad("bytes", 13)
       << pad("B/cycle", 9) << pad("dep", 9) << pad("bp", 9) << pad("tdm", 9) << pad("thr", 9)
       << pad("stage1", 9) << pad("bank", 9) << pad("maxrun", 8) << pad("p50", 7) << pad("p95", 7)
       << pad("p99", 7) << pad("max", 8) << "\n";
    // Clients, and below banks, used alike (sixteen DMA queues of one load, thirty-two PSUM banks)
    // share a row: the JSON, CSV and stats text keep every one.
    std::vector<TableRow> rows;
    for (const auto& c : s.clients) {
        if (!c.requests && !c.beats) continue;
        std::string f = pad(std::to_string(c.requests), 9) + pad(std::to_string(c.beats), 11) +
                        pad(std::to_string(c.bytes), 13) + pad(format_fixed(c.bytes_per_cycle, 3), 9);
        for (auto v : c.stalls) f += pad(std::to_string(v), 9);
        f += pad(std::to_string(c.max_stall_run), 8) + pad(std::to_string(c.latency.percentile(0.50)), 7) +
             pad(std::to_string(c.latency.percentile(0.95)), 7) +
             pad(std::to_string(c.latency.percentile(0.99)), 7) + pad(std::to_string(c.latency.max()), 8);
        rows.push_back({c.name, std::move(f)});
    }
    print_rows(os, rows, 14, "client");

    os << "\nfairness (clients that contended)\n";
    os << pad("client", 14, false) << pad("contended", 11) << pad("won", 11) << pad("win rate", 10)
       << pad("share", 9) << "\n";
    rows.clear();
    for (const auto& c : s.clients) {
        if (!c.contended) continue;
        rows.push_back(
            {c.name, pad(std::to_string(c.contended), 11) + pad(std::to_string(c.won_contended), 11) +
                         pad(format_fixed(c.win_rate, 4), 10) + pad(format_fixed(c.contended_share, 4), 9)});
    }
    print_rows(os, rows, 14, "client");
    os << "Jain's index " << format_fixed(s.jain_index, 4) << "\n";

    // The counts are of the bank, whoever loses: a beat that lost it to the other TDM class in that
    // class's slot is a `tdm` stall in the client table, a stall here all the same, and counted
    // again under "by tdm" so that the rest are the bank conflicts placement can remove.
    os << "\nbanks (used only; conflict: cycles two or more beats wanted the bank; stalls: beats that lost "
          "it,\n"
          "to another beat or to TDM precedence; by tdm: those lost to the other class in its TDM slot)\n";
    os << pad("bank", 9, false) << pad("busy", 11) << pad("util", 7) << pad("conflict", 11)
       << pad("stalls", 11) << pad("by tdm", 11) << "  top client\n";
    const double cyc = s.cycles ? static_cast<double>(s.cycles) : 1.0;
    rows.clear();
    for (const auto& b : s.banks) {
        if (!b.busy && !b.conflict_cycles) continue;
        const auto top = std::max_element(b.grants.begin(), b.grants.end());
        rows.push_back({b.name, pad(std::to_string(b.busy), 11) +
                                    pad(format_fixed(static_cast<double>(b.busy) / cyc, 3), 7) +
                                    pad(std::to_string(b.conflict_cycles), 11) +
                                    pad(std::to_string(b.stalls), 11) +
                                    pad(std::to_string(b.tdm_stalls), 11) + "  " +
                                    s.clients[static_cast<std::size_t>(top - b.grants.begin())].name});
    }
    print_rows(os, rows, 9, "bank");

    constexpr std::size_t kTopPairs = 10;
    os << "\nwho blocked whom (top " << kTopPairs << " pairs)\n";
    const std::size_t n = s.clients.size();
    std::vector<std::size_t> idx;
    for (std::size_t i = 0; i < s.blocked_by.size(); ++i)
        if (s.blocked_by[i]) idx.push_back(i);
    std::stable_sort(idx.begin(), idx.end(),
                     [&](std::size_t a, std::size_t b) { return s.blocked_by[a] > s.blocked_by[b]; });
    if (idx.size() > kTopPairs) idx.resize(kTopPairs);
    for (auto i : idx)
        os << "  " << pad(s.clients[i / n].name, 14, false) << " by " << pad(s.clients[i % n].name, 14, false)
           << pad(std::to_string(s.blocked_by[i]), 11) << "\n";

    // A cycle may grant both classes: compute and dma each count it, so the three columns can add
    // up to more than the slot's cycles.
    os << "\nTDM slots (first: the class with precedence; compute, dma: cycles with a grant of that class, "
          "both counted when both went; idle: no SBUF grant)\n"
       << pad("slot", 6, false) << pad("first", 9, false) << pad("cycles", 11) << pad("compute", 11)
       << pad("dma", 11) << pad("idle", 11) << "\n";
    for (std::size_t i = 0; i < s.tdm_slots.size(); ++i) {
        const auto& t = s.tdm_slots[i];
        if (!t.cycles) continue;
        os << pad(std::to_string(i), 6, false)
           << pad(t.precedence == TdmClass::dma ? "dma" : "compute", 9, false)
           << pad(std::to_string(t.cycles), 11) << pad(std::to_string(t.compute_used), 11)
           << pad(std::to_string(t.dma_used), 11) << pad(std::to_string(t.idle), 11) << "\n";
    }
}

}  // namespace sbufsim
