// Statistics of one kernel run: a plain struct the CLI, the trace replay and the models print or
// compare. Everything is integer counts except the derived ratios filled in by finalize(), so the
// same input gives bit-identical statistics.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "sbufsim/types/types.h"

namespace sbufsim {

// Why a ready head beat did not move in a cycle. Exactly one cause per stalled cycle, checked in
// this order (the pipeline order of seed 000 §7.1-§7.2).
enum class StallCause : std::uint8_t {
    dependency,         // waits for another request to complete
    psum_backpressure,  // the front-end's downstream FIFO is full (set_backpressure)
    tdm,                // strict TDM slot of the other class, or a bank lost to the other class
                        // in that class's precedence slot
    throttle,           // the client's token bucket is spent for this window
    stage1_loss,        // a PE client that lost stage 1 to another PE client
    bank_conflict,      // a bank lost to a same-class beat (or any beat outside TDM, or a
                        // concurrency rule such as DVE vs GpSimd)
    count
};
inline constexpr std::size_t kStallCauses = static_cast<std::size_t>(StallCause::count);
const char* to_string(StallCause c);

// Log-linear latency histogram: values below 16 exact, then 8 buckets per power of two (at most
// 12.5% relative error on a percentile); the maximum is exact. The counts are kept up to the
// highest bucket used, grown kGrowth buckets at a time: a full table is 4 KiB per client, which a
// run pays in page faults for every copy of its statistics (about 10 us each on some virtual
// machines), while most latencies fall in the first hundred buckets.
class LatencyHistogram {
public:
    static constexpr std::uint32_t kLinear = 16;
    static constexpr std::uint32_t kSub = 8;
    static constexpr std::uint32_t kBuckets = kLinear + (64 - 4) * kSub;
    static constexpr std::uint32_t kGrowth = 32;

    void add(std::uint64_t v) {
        const std::uint32_t b = bucket(v);
        if (b >= room_) grow(b);  // at most kBuckets / kGrowth times in a run
        ++counts_[b];
        ++count_;
        sum_ += v;
        if (v > max_) max_ = v;
    }
    std::uint64_t count() const { return count_; }
    std::uint64_t max() const { return max_; }
    std::uint64_t sum() const { return sum_; }
    double mean() const { return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0; }
    // Upper bound of the bucket holding the q-quantile (0 < q <= 1), clamped to the exact max;
    // 0 when empty.
    std::uint64_t percentile(double q) const;
    // bucket = v for v < 16; above, octave k = floor(log2 v) split in 8. Inline: one per
    // completed request.
    static std::uint32_t bucket(std::uint64_t v) {
        if (v < kLinear) return static_cast<std::uint32_t>(v);
        const std::uint32_t k = static_cast<std::uint32_t>(std::bit_width(v)) - 1;  // >= 4
        const std::uint32_t sub = static_cast<std::uint32_t>(v >> (k - 3)) & (kSub - 1);
        return kLinear + (k - 4) * kSub + sub;
    }
    static std::uint64_t bucket_upper(std::uint32_t b);

    // Equal counts, whatever room either table has grown.
    bool operator==(const LatencyHistogram& o) const;

private:
    void grow(std::uint32_t b);
    std::vector<std::uint64_t> counts_;  // bucket b's count; empty buckets past the end
    // counts_.size(), kept beside it: add() (once per completed request) then compares with one
    // load instead of subtracting the vector's end and begin.
    std::uint32_t room_ = 0;
    std::uint64_t count_ = 0;
    std::uint64_t sum_ = 0;
    std::uint64_t max_ = 0;
};

struct ClientStats {
    std::string name;
    Region region = Region::sbuf;
    TdmClass tdm_class = TdmClass::compute;
    std::uint64_t requests = 0;         // submitted
    std::uint64_t completed = 0;        // requests whose last beat moved
    std::uint64_t beats_requested = 0;  // beats of the submitted requests
    std::uint64_t beats = 0;            // beats granted
    std::uint64_t bytes = 0;            // bytes moved over the port (a raw chunk counts twice)
    std::array<std::uint64_t, kStallCauses> stalls{};
    // Wait of the completed requests: sum of (done - start + 1 - beats), see Completion. Equals the
    // sum of `stalls` once every submitted request has completed (and only counts completed ones).
    std::uint64_t wait_cycles = 0;
    std::uint64_t max_stall_run = 0;    // longest run of consecutive stalled cycles
    std::uint64_t contended = 0;        // cycles it competed with another beat (stage 1 or a bank)
    std::uint64_t won_contended = 0;    // of those, cycles it got its beat through
    LatencyHistogram latency;           // done - issue + 1 per completed request
    // Derived by finalize():
    double bytes_per_cycle = 0;         // bytes / cycles
    double contended_share = 0;         // won_contended / sum of won_contended over contenders
    double win_rate = 0;                // won_contended / contended

    std::uint64_t total_stalls() const {
        std::uint64_t s = 0;
        for (auto v : stalls) s += v;
        return s;
    }
    bool operator==(const ClientStats&) const = default;
};

struct BankStats {
    std::string name;                   // sbuf_0..15, psum_0..31
    std::uint64_t busy = 0;             // cycles granted to some beat (derived from grants)
    std::uint64_t conflict_cycles = 0;  // cycles two or more beats at the grant stage wanted it
    std::uint64_t stalls = 0;           // stalled beat-cycles charged to a loss of this bank
    std::uint64_t tdm_stalls = 0;       // of those, lost to the other TDM class in its precedence slot
    std::vector<std::uint64_t> grants;  // per client: cycles it held this bank
    bool operator==(const BankStats&) const = default;
};

struct TdmSlotStats {
    std::uint64_t cycles = 0;
    std::uint64_t compute_used = 0;     // cycles with at least one compute-class SBUF grant
    std::uint64_t dma_used = 0;         // cycles with at least one DMA-class SBUF grant
    std::uint64_t idle = 0;             // cycles with no SBUF grant at all
    TdmClass precedence = TdmClass::compute;  // the class that goes first in this slot (tdm.dma_slots)
    bool operator==(const TdmSlotStats&) const = default;
};

struct Stats {
    Cycle cycles = 0;                   // cycles simulated (stepped or skipped)
    Cycle stepped = 0;                  // of those, cycles evaluated one by one
    std::vector<ClientStats> clients;
    std::vector<BankStats> banks;       // the SBUF ECC banks, then the PSUM ECC banks
    std::uint32_t sbuf_banks = 0;
    // blocked_by[victim * clients + winner]: stalled cycles of `victim` caused by `winner`
    // taking one of its banks (bank_conflict or tdm) or by a concurrency rule.
    std::vector<std::uint64_t> blocked_by;
    std::vector<TdmSlotStats> tdm_slots;
    double jain_index = 0;              // Jain's index of win_rate over contending clients

    std::uint64_t blocked(ClientId victim, ClientId winner) const {
        return blocked_by[index(victim) * clients.size() + index(winner)];
    }
    // Fills the derived fields (bytes_per_cycle, shares, win rates, Jain's index, bank busy).
    void finalize();
    // Everything except `stepped`, which differs by design between skipping and stepping.
    bool same_results(const Stats& o) const;
};

// Plain-text report: per-client table, stall causes, latency percentiles, busiest banks,
// top blockers, TDM slots and fairness.
void print_report(std::ostream& os, const Stats& s);

}  // namespace sbufsim
