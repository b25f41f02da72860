#include "sbufsim/kernel/kernel.h"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>

#include "sbufsim/stats/window_stats.h"

namespace sbufsim {

namespace {

constexpr std::uint32_t kPeRdPort = 63;  // stage-2 port of the stage-1 winner
constexpr std::uint64_t bit(std::uint32_t c) { return std::uint64_t{1} << c; }
constexpr std::uint32_t cause_index(StallCause c) { return static_cast<std::uint32_t>(c); }

// Bits lo..hi inclusive (hi <= 31).
constexpr std::uint32_t bit_range(std::uint32_t lo, std::uint32_t hi) {
    return static_cast<std::uint32_t>(((std::uint64_t{2} << hi) - 1) & ~((std::uint64_t{1} << lo) - 1));
}

template <typename F>
inline void for_each_bit(std::uint64_t m, F&& f) {
    for (; m; m &= m - 1) f(static_cast<std::uint32_t>(std::countr_zero(m)));
}

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("kernel: " + what); }
// Out of line and cold, so that submit() carries no string code.
[[noreturn, gnu::cold, gnu::noinline]] void too_many_beats(std::uint64_t beats) {
    bad("a request of " + std::to_string(beats) + " beats is too large");
}

// Probe hooks (window_stats.h), kept out of line and cold: the cycle loop then carries only a
// null test and a call, so it is laid out and inlined as without a probe.
[[gnu::noinline, gnu::cold]] void probe_stall(ActivityProbe* p, std::uint32_t c, StallCause cause, Cycle t,
                                              std::uint64_t n) {
    p->stall(c, cause, t, n);
}
[[gnu::noinline, gnu::cold]] void probe_grant(ActivityProbe* p, std::uint32_t c, std::uint32_t base,
                                              std::uint32_t mask, std::uint32_t bytes, Cycle t) {
    p->grant(c, base, mask, bytes, t);
}
[[gnu::noinline, gnu::cold]] void probe_bank_stall(ActivityProbe* p, std::uint32_t bank, Cycle t) {
    p->bank_stall(bank, t);
}
[[gnu::noinline, gnu::cold]] void probe_conflicts(ActivityProbe* p, std::uint64_t banks, std::uint32_t base, Cycle t) {
    for_each_bit(banks, [&](std::uint32_t b) { p->conflict(base + b, t); });
}
[[gnu::noinline, gnu::cold]] void probe_tdm(ActivityProbe* p, bool compute, bool dma, Cycle t) {
    p->tdm(compute, dma, t);
}

}  // namespace

// Per-client queue and head-beat state. Everything the cycle loop touches per client lives here;
// the per-client statistics that change every cycle are kept here too and copied into Stats by
// stats(), so the loop does not walk the large ClientStats records.
struct Kernel::Port {
    // Queue: a power-of-two ring of requests, grown only by submit().
    std::vector<Queued> q;
    std::uint64_t q_mask = 0;  // q.size() - 1
    std::uint64_t head = 0, tail = 0;  // monotonic counts; slot = count & q_mask
    std::uint64_t submitted = 0;       // requests so far (ClientStats::requests)
    std::uint64_t beats_requested = 0;  // ClientStats, copied by stats()

    // Static.
    Region region = Region::sbuf;
    std::uint32_t ppb = 0;  // partitions per beat, 0 = all
    std::uint32_t bpb = 8;  // bytes per partition per beat
    std::uint32_t max_parts = 0;  // partitions of the client's region (submit's checks)
    std::uint64_t max_bytes = 0;  // bytes a partition of the region may be addressed at
    bool partition_banks = false;  // SBUF in HalfSelect::partition mode: the banks follow the
                                   // partitions only (uniform_run())

    // Head request. Its beats go partition chunk major, then byte chunk, then (raw) the read and
    // the write slot; what the arbitration sees of a beat is only its banks and its bytes, so the
    // beats are handed out in runs that share both (load_run()).
    Cycle issue = 0, start = 0;
    RequestId after = kNoRequest;
    std::uint32_t first = 0, parts = 0, offset = 0, bytes = 0;
    std::uint32_t chunk_parts = 0;  // partitions per beat of this request
    std::uint32_t pcs = 0, bcs = 0; // partition chunks, byte chunks per partition chunk
    std::uint32_t full_bcs = 0;     // byte chunks of a full bpb bytes (bcs or bcs - 1)
    std::uint32_t rep = 1;          // beats per chunk: 2 for raw (read slot, write slot)
    bool offset_banks = false;      // the bank mask depends on the byte offset
    std::uint32_t pc = 0, bc = 0;   // the first chunk not yet in the current run (pc == pcs: none)
    std::uint32_t beat_bytes = 0;   // bytes the head beat moves (banks: Kernel::head_mask_)

    // Hot statistics. grant_count and bytes_moved are counted a run ahead: set_run() adds the
    // whole run, and stats() takes off the beats of the head run not granted yet.
    std::uint64_t beats = 0, bytes_moved = 0;
    // The gate that stopped the head beat in the last stepped cycle, when a gate did: a gated
    // skip() charges the skipped cycles to it.
    StallCause last_cause = StallCause::dependency;
    // Bank grants not yet added to BankStats (or to `beats`): `grant_count` grants on
    // `grant_mask`, the banks of every head beat since the last flush.
    std::uint64_t grant_mask = 0;
    std::uint64_t grant_count = 0;
    // ClientStats of the completed requests, kept here rather than in stats_ (the Port is at
    // hand in complete(); the ClientStats record is not) and copied by stats(): ClientStats's
    // completed is completed_[c].
    LatencyHistogram latency;
    std::uint64_t wait_cycles = 0;
};

Kernel::Kernel(const Params& p, KernelOptions options)
    : params_(p),
      options_(options),
      clients_(p),
      tdm_(p.tdm),
      stage1_(make_arbiter(p.arbiter.stage1_policy)),
      stage2_(make_arbiter(p.arbiter.stage2_policy)),
      n_(clients_.size()) {
    if (p.sbuf.ecc_banks > kMaxSbufEccBanks || p.sbuf.ecc_banks == 0 || p.sbuf.clusters == 0 ||
        p.sbuf.partitions % p.sbuf.clusters != 0)
        bad("sbuf.ecc_banks = " + std::to_string(p.sbuf.ecc_banks) + " / sbuf.clusters = " +
            std::to_string(p.sbuf.clusters) + " do not fit a 16-bit SBUF bank mask");
    if (p.has_psum() && (p.psum.ecc_banks > kMaxPsumEccBanks || p.psum.ecc_clusters == 0 ||
                         p.psum.partitions % p.psum.ecc_clusters != 0 || p.psum.bank_size == 0 ||
                         p.psum.banks * p.psum.ecc_clusters != p.psum.ecc_banks))
        bad("psum.ecc_banks = " + std::to_string(p.psum.ecc_banks) +
            " is not psum.ecc_clusters x psum.banks within a 32-bit PSUM bank mask");

    // Bank tables (seed 000 §3.1, §4): SBUF bank = cluster*2 + half, PSUM bank =
    // cluster*banks + offset/bank_size.
    const std::uint32_t ppc = p.sbuf.partitions / p.sbuf.clusters;
    const std::uint32_t half = std::max<std::uint32_t>(1, ppc / 2);
    for (std::uint32_t q = 0; q < p.sbuf.partitions; ++q) {
        sbuf_cluster_of_.push_back(static_cast<std::uint8_t>(q / ppc));
        sbuf_bank_of_.push_back(static_cast<std::uint8_t>((q / ppc) * 2 + (q / half) % 2));
    }
    sbuf_bank_end_.assign(p.sbuf.partitions, p.sbuf.partitions);
    for (std::uint32_t q = p.sbuf.partitions; q-- > 1;)
        sbuf_bank_end_[q - 1] = sbuf_bank_of_[q - 1] == sbuf_bank_of_[q] ? sbuf_bank_end_[q] : q;
    half_by_offset_ = p.sbuf.half_select == HalfSelect::offset;
    psum_base_ = p.sbuf.ecc_banks;
    half_bit_ = p.sbuf.half_offset_bit;
    if (p.has_psum()) {
        const std::uint32_t ppcl = p.psum.partitions / p.psum.ecc_clusters;
        for (std::uint32_t q = 0; q < p.psum.partitions; ++q)
            psum_cluster_of_.push_back(static_cast<std::uint8_t>(q / ppcl));
        psum_banks_ = p.psum.banks;
        psum_bank_size_ = static_cast<std::uint32_t>(p.psum.bank_size);
    }

    // Client masks and arbiters.
    ports_.resize(n_);
    throttlers_.resize(n_);
    const std::uint32_t boost = 8;  // lifts one DMA-class group above the other (tdm.dma_order)
    for (std::uint32_t c = 0; c < n_; ++c) {
        const ClientInfo& ci = clients_.all()[c];
        Port& port = ports_[c];
        port.region = ci.region;
        port.ppb = ci.beat_partitions;
        port.bpb = std::max<std::uint32_t>(1, ci.beat_bytes);
        port.max_parts = region_partitions(ci.region);
        port.max_bytes = region_active(ci.region);
        port.partition_banks = ci.region == Region::sbuf && !half_by_offset_;
        port.q.resize(16);
        port.q_mask = port.q.size() - 1;
        (ci.region == Region::sbuf ? sbuf_mask_ : psum_mask_clients_) |= bit(c);
        if (ci.tdm_class == TdmClass::dma) dma_class_ |= bit(c);
        if (ci.tdm_class == TdmClass::compute) compute_class_ |= bit(c);
        switch (ci.group) {
            case ClientGroup::stage1:
                stage1_mask_ |= bit(c);
                std::visit([&](auto& a) { a.add_port(c, ci.arb.prio, ci.arb.weight); }, stage1_);
                break;
            case ClientGroup::stage2:
                stage2_mask_ |= bit(c);
                std::visit([&](auto& a) { a.add_port(c, ci.arb.prio, ci.arb.weight); }, stage2_);
                break;
            case ClientGroup::dma:
            case ClientGroup::q7: {
                const bool is_dma = ci.group == ClientGroup::dma;
                std::uint32_t prio = ci.arb.prio;
                if (p.tdm.dma_order == DmaOrder::dma_first && is_dma) prio += boost;
                if (p.tdm.dma_order == DmaOrder::q7_first && !is_dma) prio += boost;
                dma_arb_.add_port(c, prio, ci.arb.weight);
                break;
            }
            case ClientGroup::psum:
                psum_arb_.add_port(c, ci.arb.prio, ci.arb.weight);
                break;
        }
        if (ci.throttle.enable) {
            throttlers_[c] = Throttler(ci.throttle);
            throttled_ |= bit(c);
        }
        if (ci.region == Region::sbuf && p.concurrency.dve_gpsimd_sbuf_exclusive) {
            if (ci.dve) dve_sbuf_ |= bit(c);
            if (ci.gpsimd) gpsimd_sbuf_ |= bit(c);
        }
        if (ci.region == Region::psum && p.concurrency.dve_act_psum_exclusive) {
            if (ci.dve) dve_psum_ |= bit(c);
            if (ci.act) act_psum_ |= bit(c);
        }
    }
    std::visit([&](auto& a) { a.add_port(kPeRdPort, p.arbiter.pe_rd.prio, p.arbiter.pe_rd.weight); }, stage2_);

    if (options_.completion_capacity) ring_.resize(std::max(options_.completion_capacity, 2 * n_));

    // Statistics skeleton.
    stats_.clients.reserve(clients_.all().size());
    for (const ClientInfo& ci : clients_.all()) {
        ClientStats cs;
        cs.name = ci.name;
        cs.region = ci.region;
        cs.tdm_class = ci.tdm_class;
        stats_.clients.push_back(std::move(cs));
    }
    stats_.sbuf_banks = p.sbuf.ecc_banks;
    const auto add_bank = [&](std::string name) {
        BankStats bs;
        bs.name = std::move(name);
        bs.grants.assign(n_, 0);
        stats_.banks.push_back(std::move(bs));
    };
    for (std::uint32_t b = 0; b < p.sbuf.ecc_banks; ++b) add_bank("sbuf_" + std::to_string(b));
    if (p.has_psum())
        for (std::uint32_t b = 0; b < p.psum.ecc_banks; ++b) add_bank("psum_" + std::to_string(b));
    stats_.blocked_by.assign(std::size_t{n_} * n_, 0);
    stats_.tdm_slots.assign(tdm_.slots(), TdmSlotStats{});
    for (std::uint32_t t = 0; t < tdm_.slots(); ++t) stats_.tdm_slots[t].precedence = tdm_.precedence(t);
}

Kernel::Kernel(const Kernel&) = default;
Kernel::Kernel(Kernel&&) noexcept = default;
Kernel& Kernel::operator=(const Kernel&) = default;
Kernel& Kernel::operator=(Kernel&&) noexcept = default;
Kernel::~Kernel() = default;

// ---------------------------------------------------------------------------------------------
// Bank masks: computed once per beat when it becomes the head, never per cycle.

std::uint32_t Kernel::sbuf_mask(std::uint32_t p0, std::uint32_t p1, std::uint32_t o0,
                                std::uint32_t o1) const {
    if (!half_by_offset_) return bit_range(sbuf_bank_of_[p0], sbuf_bank_of_[p1]);
    // HalfSelect::offset: every cluster in range, the half(s) the byte range touches.
    const std::uint32_t clusters = bit_range(2u * sbuf_cluster_of_[p0], 2u * sbuf_cluster_of_[p1] + 1);
    std::uint32_t halves = 0xffffu;
    if ((o0 >> half_bit_) == (o1 >> half_bit_)) halves = ((o0 >> half_bit_) & 1) ? 0xaaaau : 0x5555u;
    return clusters & halves;
}

std::uint32_t Kernel::psum_mask(std::uint32_t p0, std::uint32_t p1, std::uint32_t o0,
                                std::uint32_t o1) const {
    const std::uint32_t inner = bit_range(o0 / psum_bank_size_, o1 / psum_bank_size_);
    std::uint32_t m = 0;
    for (std::uint32_t c = psum_cluster_of_[p0]; c <= psum_cluster_of_[p1]; ++c)
        m |= inner << (c * psum_banks_);
    return m;
}

// The banks (global bits, head_mask_) and bytes of chunk (pc, bc) of port p's head request.
inline Kernel::Beat Kernel::chunk_beat(const Port& p, std::uint32_t pc, std::uint32_t bc) const {
    const std::uint32_t p0 = p.first + pc * p.chunk_parts;
    const std::uint32_t p1 = std::min(p0 + p.chunk_parts, p.first + p.parts) - 1;
    const std::uint32_t o0 = p.offset + bc * p.bpb;
    const std::uint32_t o1 = std::min(o0 + p.bpb, p.offset + p.bytes) - 1;
    const std::uint64_t mask = p.region == Region::sbuf
                                   ? std::uint64_t{sbuf_mask(p0, p1, o0, o1)}
                                   : std::uint64_t{psum_mask(p0, p1, o0, o1)} << psum_base_;
    return {mask, (p1 - p0 + 1) * (o1 - o0 + 1)};
}

// Makes the chunk at the cursor the head beat, together with every following chunk that moves
// the same bytes on the same banks: grant() then only counts those beats down. Called once per
// run, not per beat (a request on one bank is usually a single run).
[[gnu::noinline]] void Kernel::load_run(std::uint32_t c) {
    run_ended_ = true;
    Port& p = ports_[c];
    const Beat head = chunk_beat(p, p.pc, p.bc);
    std::uint32_t chunks = 0;
    for (;;) {
        // The chunk at the cursor has the head's banks and bytes. In HalfSelect::partition mode
        // with no short byte chunk, whole partition chunks whose partitions all sit on the bank
        // of this one's have them too (a DMA request of one partition per beat walks 8 at once).
        if (p.bc == 0 && !p.offset_banks && p.bcs == p.full_bcs) {
            const std::uint32_t p0 = p.first + p.pc * p.chunk_parts, last = p.first + p.parts;
            const std::uint32_t end = std::min<std::uint32_t>(sbuf_bank_end_[p0], last);
            const std::uint32_t k = (end - p0) / p.chunk_parts;  // whole chunks on one bank
            if (k > 1) {
                chunks += (k - 1) * p.bcs;
                p.pc += k - 1;  // the last of them goes through the byte-chunk step below
            }
        }
        // Inside one partition chunk the banks depend on the offset only with offset_banks, and
        // every byte chunk but a short last one moves bpb bytes: take those in one step. With
        // offset_banks, the full chunks that stay inside the granule of the chunk at the cursor
        // (a PSUM bank, or an SBUF half of 2^half_offset_bit bytes) have its banks: one step too.
        std::uint32_t n = 1;
        if (p.bc < p.full_bcs) {
            if (!p.offset_banks) {
                n = p.full_bcs - p.bc;
            } else {
                const std::uint64_t granule = p.region == Region::psum ? psum_bank_size_ : std::uint64_t{1} << half_bit_;
                const std::uint64_t o0 = std::uint64_t{p.offset} + std::uint64_t{p.bc} * p.bpb;
                const std::uint64_t room = (o0 / granule + 1) * granule - o0;  // bytes to the granule's end
                if (room >= p.bpb) n = static_cast<std::uint32_t>(std::min<std::uint64_t>(p.full_bcs - p.bc, room / p.bpb));
            }
        }
        chunks += n;
        p.bc += n;
        if (p.bc == p.bcs) {
            p.bc = 0;
            ++p.pc;
        }
        if (p.pc == p.pcs) break;
        const Beat next = chunk_beat(p, p.pc, p.bc);
        if (next.mask != head.mask || next.bytes != head.bytes) break;
    }
    set_run(c, head.mask, head.bytes, chunks * p.rep);
}

// ---------------------------------------------------------------------------------------------
// Queues.

// The partitions and bytes of one partition a request of `region` may cover.
inline std::uint32_t Kernel::region_partitions(Region region) const {
    return region == Region::sbuf ? params_.sbuf.partitions : params_.psum.partitions;
}
inline std::uint64_t Kernel::region_active(Region region) const {
    return region == Region::sbuf ? params_.sbuf.partition_active
                                  : std::min<std::uint64_t>(params_.psum.partition_active,
                                                            std::uint64_t{psum_banks_} * psum_bank_size_);
}

inline bool Kernel::well_formed(const Request& r) const {
    const std::uint32_t c = index(r.client);
    if (c >= n_) return false;
    const Port& p = ports_[c];
    // partitions != 0 and first + partitions <= max_parts in one compare: 0 - 1u wraps to 2^32 - 1,
    // past any partition count.
    const bool shape = r.region == p.region &&
                       std::uint64_t{r.first_partition} + (r.partitions - 1u) < p.max_parts && r.bytes != 0 &&
                       std::uint64_t{r.offset} + r.bytes <= p.max_bytes;
    if (r.after == kNoRequest) return shape;
    const std::uint32_t dc = index(request_client(r.after));
    return shape && dc < n_ && request_seq(r.after) < ports_[dc].submitted;
}

// Why submit() refuses `r` (well_formed() said it is not): the first broken rule, thrown. Out of
// line and cold, so that the strings stay out of submit(), which runs once per request.
[[gnu::cold, gnu::noinline]] void Kernel::refuse(const Request& r) const {
    const std::uint32_t c = index(r.client);
    if (c >= n_) bad("submit: unknown client index " + std::to_string(c));
    const Port& p = ports_[c];
    const std::string& name = clients_.all()[c].name;
    if (r.region != p.region)
        bad("submit: client " + name + " is on " + (p.region == Region::sbuf ? "SBUF" : "PSUM") +
            " only (seed 000 §7.4: no AXI path to PSUM)");
    const std::uint32_t partitions = region_partitions(r.region);
    const std::uint64_t active = region_active(r.region);
    if (r.partitions == 0 || r.first_partition + r.partitions > partitions)
        bad("submit: " + name + " partitions [" + std::to_string(r.first_partition) + ", +" +
            std::to_string(r.partitions) + ") outside 0.." + std::to_string(partitions));
    if (r.bytes == 0 || std::uint64_t{r.offset} + r.bytes > active)
        bad("submit: " + name + " bytes [" + std::to_string(r.offset) + ", +" +
            std::to_string(r.bytes) + ") outside the partition's " + std::to_string(active) + " B");
    bad("submit: " + name + " depends on a request that was not submitted");
}

// Doubles the client's ring (outside the cycle loop; out of line so that submit() stays small).
// submit() calls it with the ring full: the queued requests are the two spans [head, end) and
// [begin, head), each one block copy (Queued is trivially copyable); only the new half is
// constructed. (Value-initialised whole and then copied entry by entry, it took 4.4 M
// instructions of mixed.sbt's replay, whose queues grow deep; now 2.5 M.)
[[gnu::noinline]] void Kernel::grow(Port& p) {
    static_assert(std::is_trivially_copyable_v<Queued>);
    const std::uint64_t size = p.tail - p.head;  // == p.q.size()
    const auto h = static_cast<std::ptrdiff_t>(p.head & p.q_mask);
    std::vector<Queued> bigger;
    bigger.reserve(p.q.size() * 2);
    bigger.insert(bigger.end(), p.q.begin() + h, p.q.end());
    bigger.insert(bigger.end(), p.q.begin(), p.q.begin() + h);
    bigger.resize(p.q.size() * 2);
    p.q.swap(bigger);
    p.q_mask = p.q.size() - 1;
    p.tail = size;
    p.head = 0;
}

RequestId Kernel::submit(const Request& r) {
    if (!well_formed(r)) [[unlikely]] refuse(r);
    const std::uint32_t c = index(r.client);
    Port& p = ports_[c];
    const std::uint64_t size = p.tail - p.head;
    if (options_.queue_limit && size >= options_.queue_limit) return kNoRequest;
    if (size > p.q_mask) grow(p);  // full: q_mask + 1 entries (no division by the entry size)
    Queued& e = p.q[p.tail & p.q_mask];
    e.req = r;
    e.req.issue = std::max(r.issue, now_);
    // Beats: partition chunks x byte chunks (x 2 for raw: the read slot, then the write slot).
    const bool split = p.ppb && p.ppb < r.partitions;       // more than one partition chunk
    const std::uint32_t cp = split ? p.ppb : r.partitions;  // partitions per beat
    const std::uint32_t pcs = split ? (r.partitions + cp - 1) / cp : 1;
    const std::uint64_t bcs = (std::uint64_t{r.bytes} + p.bpb - 1) / p.bpb;
    const std::uint64_t beats = pcs * bcs * (r.op == Op::raw ? 2 : 1);
    if (beats > 0xffffffffu) [[unlikely]] too_many_beats(beats);
    e.beats = static_cast<std::uint32_t>(beats);
    e.chunks = {pcs, static_cast<std::uint32_t>(bcs)};  // uniform_run() may put a mask in their place
    uniform_run(p, e, cp, pcs, static_cast<std::uint32_t>(bcs));
    ++p.tail;
    ++queued_;
    p.beats_requested += e.beats;
    const RequestId id = make_request_id(ClientId{static_cast<std::uint16_t>(c)}, p.submitted++);
    if (size == 0) load_first(c);
    return id;
}

// The request submit() queued behind none becomes the head. Out of line: inlined, load_head()
// made submit() keep more values live and spill them on every call, queue empty or not.
[[gnu::noinline]] void Kernel::load_first(std::uint32_t c) {
    Port& p = ports_[c];
    load_head(c, p, p.q[p.head & p.q_mask], now_);  // no head before: none of c's bits is set
}

// Makes `e`, the queue's first request, the head, ready from cycle t at the earliest. The
// client's bits in ready_, pending_ and depwait_ are clear (the callers know which were set).
// Inlined into complete() and submit(), once per request each at most: as a call it saved and
// restored five registers around a body of about 60 instructions.
[[gnu::always_inline]] inline void Kernel::load_head(std::uint32_t c, Port& p, const Queued& e, Cycle t) {
    const std::uint64_t b = bit(c);
    const Request& r = e.req;
    p.issue = r.issue;
    p.start = std::max(r.issue, t);
    p.after = r.after;
    if (e.run_bytes) {
        p.pc = p.pcs = 0;  // nothing after the run
        set_run(c, e.run_mask, e.run_bytes, e.beats);
    } else {
        p.first = r.first_partition;
        p.parts = r.partitions;
        p.offset = r.offset;
        p.bytes = r.bytes;
        p.chunk_parts = p.ppb ? p.ppb : r.partitions;
        p.pcs = e.chunks.pcs;  // submit() divided them out
        p.bcs = e.chunks.bcs;
        p.full_bcs = p.bcs - (std::uint64_t{p.bcs} * p.bpb != p.bytes);
        p.pc = p.bc = 0;
        p.rep = r.op == Op::raw ? 2 : 1;
        p.offset_banks = p.region == Region::psum || half_by_offset_;
        load_run(c);
    }
    if (p.after != kNoRequest && !is_complete(p.after)) depwait_ |= b;
    if (r.issue <= t) {
        ready_ |= b;
    } else {
        pending_ |= b;
        next_issue_ = std::min(next_issue_, r.issue);
    }
}

// The common request whose beats all have the same banks and bytes is one run: an SBUF request
// in HalfSelect::partition mode (the banks follow the partitions only) with no short byte chunk,
// and either one partition chunk or equal partition chunks all on one bank (the bank table is
// monotonic). submit() notes its banks and bytes in `e` (rows: partitions per beat; pcs, bcs:
// partition and byte chunks), so load_head() takes it without the chunk walk of load_run();
// anything else gets run_bytes 0.
inline void Kernel::uniform_run(const Port& p, Queued& e, std::uint32_t rows, std::uint32_t pcs,
                                std::uint32_t bcs) const {
    const Request& r = e.req;
    e.run_bytes = 0;
    if (!p.partition_banks || std::uint64_t{bcs} * p.bpb != r.bytes) return;
    const std::uint32_t first = r.first_partition, last = first + r.partitions - 1;
    if (pcs != 1 && (std::uint64_t{pcs} * rows != r.partitions || sbuf_bank_of_[first] != sbuf_bank_of_[last])) return;
    e.run_mask = bit_range(sbuf_bank_of_[first], sbuf_bank_of_[first + rows - 1]);
    e.run_bytes = rows * p.bpb;
}

// Makes `beats` beats on `banks` moving `bytes` each the head run; counts them ahead (Port).
inline void Kernel::set_run(std::uint32_t c, std::uint64_t banks, std::uint32_t bytes, std::uint32_t beats) {
    Port& p = ports_[c];
    run_left_[c] = beats - 1;
    p.beat_bytes = bytes;
    head_mask_[c] = banks;
    if (banks != p.grant_mask) {
        flush_bank_grants(c);
        p.grant_mask = banks;
    }
    p.grant_count += beats;
    p.bytes_moved += std::uint64_t{beats} * bytes;
}

void Kernel::refresh_ready(Cycle t) {
    if (next_issue_ > t) return;
    Cycle next = kNever;
    for_each_bit(pending_, [&](std::uint32_t c) {
        if (ports_[c].issue <= t) {
            pending_ &= ~bit(c);
            ready_ |= bit(c);
        } else {
            next = std::min(next, ports_[c].issue);
        }
    });
    next_issue_ = next;
}

std::uint64_t Kernel::queued(ClientId c) const {
    const Port& p = ports_[index(c)];
    return p.tail - p.head;
}

void Kernel::set_backpressure(ClientId c, bool full) {
    if (index(c) >= n_) bad("set_backpressure: unknown client index " + std::to_string(index(c)));
    if (full)
        backpressure_ |= bit(index(c));
    else
        backpressure_ &= ~bit(index(c));
}

bool Kernel::pop_completion(Completion& out) {
    if (ring_head_ == ring_tail_) return false;
    out = ring_[ring_head_++ % ring_.size()];
    return true;
}

// ---------------------------------------------------------------------------------------------
// Grants and completions.

// The TDM slot of cycle t (t mod tdm.max_slots), without a division for the last stepped cycle
// or the one after it.
inline std::uint32_t Kernel::slot_at(Cycle t) const {
    // (The next cycle first: step() asks for it every cycle it steps in a row.)
    if (t == slot_cycle_ + 1 && slot_cycle_ != kNever) return slot_ + 1 == tdm_.slots() ? 0 : slot_ + 1;
    if (t == slot_cycle_) return slot_;
    return tdm_.slot(t);
}

// The stall and the run of stalled cycles it extends, counted without a branch. (Keeping the
// runs per run instead, noted where they start and measured where a grant ends them, takes
// fewer instructions but loops over the runs that start or end in a cycle, and with random
// banks those loops mispredict more than the counters here cost: docs/kernel.md.)
inline void Kernel::charge(std::uint32_t c, StallCause cause, std::uint64_t n) {
    stalls_[std::size_t{c} * kCauseStride + cause_index(cause)] += n;
    stall_run_[c] += n;
    max_run_[c] = std::max(max_run_[c], stall_run_[c]);
    // now_ is the charged cycle: step(t) runs with now_ == t, a gated skip starts at now_.
    if (probe_) [[unlikely]] probe_stall(probe_, c, cause, now_, n);
}

// A gate's stall (dependency, back-pressure, strict TDM, throttler): remembered for a gated skip
// or a leap.
inline void Kernel::charge_gate(std::uint32_t c, StallCause cause) {
    charge(c, cause);
    ports_[c].last_cause = cause;
    gated_ |= bit(c);
}

// Inlined into step() (once per granted beat); load_run() and complete() stay out of line (once
// per run of beats, once per request). The beat's bytes and bank grant were counted when its run
// was loaded; throttler and probe hooks run in step().
[[gnu::always_inline]] inline void Kernel::grant(std::uint32_t c, Cycle t) {
    stall_run_[c] = 0;
    if (run_left_[c]) {  // the next beat has the same banks and bytes (seed 000 §8 step 5: one slot per beat)
        --run_left_[c];
        return;
    }
    end_run(c, t);
}

// The grant of a run's last beat: the request's next run, or its completion and the next head.
inline void Kernel::end_run(std::uint32_t c, Cycle t) {
    if (ports_[c].pc < ports_[c].pcs)
        load_run(c);
    else
        complete(c, t);
}

[[gnu::noinline]] void Kernel::complete(std::uint32_t c, Cycle t) {
    run_ended_ = true;
    Port& p = ports_[c];
    const Queued& e = p.q[p.head & p.q_mask];
    p.latency.add(t - p.issue + 1);
    p.wait_cycles += (t - p.start + 1) - e.beats;
    if (options_.completion_capacity) {  // the ring exists (one load: ring_.empty() takes two)
        Completion& out = ring_[ring_tail_++ % ring_.size()];
        out.id = make_request_id(ClientId{static_cast<std::uint16_t>(c)}, completed_[c]);
        out.tag = e.req.tag;
        out.client = e.req.client;
        out.issue = p.issue;
        out.start = p.start;
        out.done = t;
        out.beats = e.beats;
    }
    ++completed_[c];
    last_done_[c] = t;
    const std::uint64_t b = bit(c);
    done_clients_ |= b;
    watched_done_ |= watch_ & b;
    ++p.head;
    --queued_;
    // Granted, so its bit is in ready_ and not in pending_ (load_head() wants all three clear).
    ready_ &= ~b;
    depwait_ &= ~b;
    if (p.head != p.tail) load_head(c, p, p.q[p.head & p.q_mask], t + 1);
}

// ---------------------------------------------------------------------------------------------
// One cycle.

// The beats granted in one cycle, in grant order.
struct Kernel::CycleGrants {
    std::uint64_t granted = 0;  // their clients
    std::uint64_t twice = 0;    // banks (head_mask_ bits) two or more beats wanted, both regions
    std::uint32_t n = 0;
    std::uint32_t client[64];
};

// Greedy grant over one region (SBUF or PSUM): in grant order, a beat goes if all its banks are
// still free this cycle. `order` holds `segments` client masks, each visited lowest bit first
// (arbiter.h, segments()); bit kPeRdPort stands for the stage-1 winner `pe_winner`. `excl_a` /
// `excl_b` are the two sides of a concurrency rule, used only with kRules (a rule is on).
// Losers are charged here; the granted beats are listed in `g` and moved by step().
template <bool kRules>
inline void Kernel::grant_region(CycleGrants& g, const std::uint64_t* order, std::uint32_t segments,
                                 std::uint32_t pe_winner, std::uint64_t excl_a, std::uint64_t excl_b,
                                 bool tdm_region, TdmClass prec, Cycle t) {
    std::uint64_t once = 0, twice = 0;  // banks wanted by one / by two or more beats
    std::uint64_t used = 0;             // banks granted so far
    std::uint32_t owner[64];            // client holding each bank (valid where `used` is set)
    [[maybe_unused]] std::int32_t a_winner = -1, b_winner = -1;
    // Clients of the slot's precedence class; none outside the TDM region (PSUM).
    const std::uint64_t prec_class = !tdm_region ? 0 : prec == TdmClass::dma ? dma_class_ : compute_class_;
    std::uint32_t ng = g.n;
    for (std::uint32_t s = 0; s < segments; ++s) {
        for (std::uint64_t m = order[s]; m; m &= m - 1) {
            std::uint32_t c = static_cast<std::uint32_t>(std::countr_zero(m));
            if (c == kPeRdPort) c = pe_winner;
            const std::uint64_t banks = head_mask_[c];
            twice |= once & banks;
            once |= banks;
            if constexpr (kRules) {
                // Concurrency rule (NeuronCore-v2 docs): charged as a bank conflict, blocker recorded.
                const std::uint64_t cb = bit(c);
                std::int32_t rule_blocker = -1;
                if ((excl_a & cb) && b_winner >= 0) rule_blocker = b_winner;
                if ((excl_b & cb) && a_winner >= 0) rule_blocker = a_winner;
                if (rule_blocker >= 0) {
                    charge(c, StallCause::bank_conflict);
                    ++stats_.blocked_by[std::size_t{c} * n_ + static_cast<std::uint32_t>(rule_blocker)];
                    ++contended_[c];
                    continue;
                }
            }
            if (const std::uint64_t lost = banks & used) {
                // A lost bank was wanted twice: the loser always counts as contended.
                const std::uint32_t b = static_cast<std::uint32_t>(std::countr_zero(lost));
                const std::uint32_t blk = owner[b];
                // Lost to the other class in that class's precedence slot: a TDM stall. (SBUF
                // clients are all compute or DMA class, so "not of the precedence class" is
                // "of the other class".)
                const bool by_tdm = (prec_class >> blk & ~(prec_class >> c)) & 1;
                charge(c, by_tdm ? StallCause::tdm : StallCause::bank_conflict);
                ++stats_.blocked_by[std::size_t{c} * n_ + blk];
                ++bank_stalls_[b];
                bank_tdm_stalls_[b] += by_tdm;
                ++contended_[c];
                if (probe_) [[unlikely]] probe_bank_stall(probe_, b, t);
                continue;
            }
            used |= banks;
            g.granted |= bit(c);
            g.client[ng++] = c;
            for_each_bit(banks, [&](std::uint32_t b) { owner[b] = c; });
            if constexpr (kRules) {
                const std::uint64_t cb = bit(c);
                if ((excl_a & cb) && a_winner < 0) a_winner = static_cast<std::int32_t>(c);
                if ((excl_b & cb) && b_winner < 0) b_winner = static_cast<std::int32_t>(c);
            }
        }
    }
    g.n = ng;
    g.twice |= twice;
    for_each_bit(twice, [&](std::uint32_t b) { ++bank_conflicts_[b]; });
    if (probe_) [[unlikely]] probe_conflicts(probe_, twice, 0, t);
}

// Evaluates cycle t; run() has made every head issued by t ready (refresh_ready).
template <class Stage1, class Stage2>
void Kernel::step(Cycle t, Stage1& arb1, Stage2& arb2) {
    ++stats_.cycles;
    ++stats_.stepped;
    // slot = t mod max_slots, without a division on consecutive cycles.
    const std::uint32_t slot = slot_at(t);
    slot_cycle_ = t;
    slot_ = slot;
    TdmSlotStats& ss = stats_.tdm_slots[slot];
    ++ss.cycles;
    gated_only_ = false;
    gate_release_ = kNever;
    gated_ = 0;
    steady_.on = false;
    rotation_.on = false;
    run_ended_ = false;
    std::uint64_t cand = ready_;
    const std::uint64_t ready = cand;
    if (!cand) {
        ++ss.idle;
        return;
    }
    const TdmClass prec = tdm_.precedence(slot);

    // Dependency wait: the named request has not completed by the end of the previous cycle.
    if (const std::uint64_t dw = depwait_ & cand) {
        for_each_bit(dw, [&](std::uint32_t c) {
            if (is_complete(ports_[c].after)) {
                depwait_ &= ~bit(c);
            } else {
                charge_gate(c, StallCause::dependency);
                cand &= ~bit(c);
            }
        });
    }
    // Downstream back-pressure (the front-end's FIFO is full).
    if (const std::uint64_t bp = cand & backpressure_) {
        for_each_bit(bp, [&](std::uint32_t c) { charge_gate(c, StallCause::psum_backpressure); });
        cand &= ~bp;
    }
    std::uint64_t sb = cand & sbuf_mask_;
    // Strict TDM: the class without precedence sits the slot out (seed 000 §7.2).
    if (tdm_.strict()) {
        if (const std::uint64_t held = sb & (prec == TdmClass::dma ? compute_class_ : dma_class_)) {
            for_each_bit(held, [&](std::uint32_t c) { charge_gate(c, StallCause::tdm); });
            sb &= ~held;
            gate_release_ = tdm_.next_change(t, slot);
        }
    }
    // Throttlers: pool/act/dve rd/wr token buckets (seed 000 §7.2).
    if (const std::uint64_t th = sb & throttled_) {
        for_each_bit(th, [&](std::uint32_t c) {
            if (!throttlers_[c].allows(t)) {
                charge_gate(c, StallCause::throttle);
                sb &= ~bit(c);
                gate_release_ = std::min(gate_release_, throttlers_[c].next_window(t));
                if (tdm_.strict()) gate_release_ = std::min(gate_release_, tdm_.next_change(t, slot));
            }
        });
    }
    const std::uint64_t ps = cand & psum_mask_clients_;
    if (!sb && !ps) {
        // Every ready beat is gated: the same happens every cycle until a gate opens.
        gated_only_ = true;
        ++ss.idle;
        return;
    }

    // Stage 1: one PE client wins (arbiter.stage1.policy; the hardware's is strict priority, then
    // DWRR, seed 000 §7.1).
    const std::uint64_t s1 = sb & stage1_mask_;
    std::uint32_t winner = kPeRdPort;
    std::uint64_t s1_contended = 0;
    if (s1) {
        winner = arb1.first(s1);
        if (const std::uint64_t losers = s1 & ~bit(winner)) {
            for_each_bit(losers, [&](std::uint32_t c) {
                charge(c, StallCause::stage1_loss);
                ++contended_[c];
            });
            s1_contended = bit(winner);
        }
    }

    // Grant order: the precedence class of this slot first (stage 2 for compute, the DMA-class
    // order for DMA), then the other class on the banks left free (work-conserving mode).
    const std::uint64_t c2 = (sb & stage2_mask_) | (s1 ? bit(kPeRdPort) : 0);
    const std::uint64_t d = sb & dma_class_;
    std::uint64_t order[2 * kArbiterPorts];  // at most 2 masks per candidate (arbiter.h)
    std::uint32_t n = 0;
    if (prec == TdmClass::dma) {
        n += dma_arb_.segments(d, order + n);
        n += arb2.segments(c2, order + n);
    } else {
        n += arb2.segments(c2, order + n);
        n += dma_arb_.segments(d, order + n);
    }

    CycleGrants g;
    if (dve_sbuf_ | gpsimd_sbuf_)
        grant_region<true>(g, order, n, winner, dve_sbuf_, gpsimd_sbuf_, true, prec, t);
    else
        grant_region<false>(g, order, n, winner, 0, 0, true, prec, t);

    // PSUM: its own banks and arbiter, no TDM (INFERRED).
    if (ps) {
        std::uint64_t porder[2 * kArbiterPorts];
        const std::uint32_t pn = psum_arb_.segments(ps, porder);
        if (dve_psum_ | act_psum_)
            grant_region<true>(g, porder, pn, kPeRdPort, dve_psum_, act_psum_, false, prec, t);
        else
            grant_region<false>(g, porder, pn, kPeRdPort, 0, 0, false, prec, t);
        psum_arb_.settle(ps, g.granted & ps);
    }

    // The arbiters' state after the cycle (arbiter.h, settle()).
    const std::uint64_t granted = g.granted;
    const bool pe_granted = s1 && (granted & bit(winner));
    if (s1) arb1.settle(s1, pe_granted ? bit(winner) : 0);
    arb2.settle(c2, (granted & stage2_mask_) | (pe_granted ? bit(kPeRdPort) : 0));
    if (d) dma_arb_.settle(d, granted & d);

    const std::uint64_t gs = granted & sbuf_mask_;
    ss.compute_used += (gs & compute_class_) != 0;
    ss.dma_used += (gs & dma_class_) != 0;
    ss.idle += gs == 0;
    if (probe_) [[unlikely]] {
        probe_tdm(probe_, gs & compute_class_, gs & dma_class_, t);
        for (std::uint32_t j = 0; j < g.n; ++j) {
            const std::uint32_t c = g.client[j];
            const std::uint32_t base = ports_[c].region == Region::sbuf ? 0 : psum_base_;
            probe_grant(probe_, c, base, static_cast<std::uint32_t>(head_mask_[c] >> base), ports_[c].beat_bytes, t);
        }
    }
    for_each_bit(granted & throttled_, [&](std::uint32_t c) { throttlers_[c].on_grant(t); });

    // Move the granted beats (may complete requests and load the next heads for cycle t + 1).
    // A granted beat contended when another beat wanted one of its banks or when it won stage 1
    // against another PE client (losers were counted where they lost).
    const std::uint64_t twice = g.twice;
    const std::uint64_t s1_won = (granted & s1_contended) && !(head_mask_[winner] & twice);
    contended_[winner] += s1_won;
    won_[winner] += s1_won;
    // Whether a grant ends its run is data too (a 2-beat request ends every other grant): the
    // runs count down without a branch, and the clients whose run ended are listed, in grant
    // order, for end_run() after the loop (it touches only that client's own state and the
    // completion ring, which sees the same order).
    std::uint32_t ended[64];
    std::uint32_t ne = 0;
    for (std::uint32_t j = 0; j < g.n; ++j) {
        const std::uint32_t c = g.client[j];
        // Without a branch: whether a winner was contended is data, not a pattern to predict.
        const std::uint64_t hit = (head_mask_[c] & twice) != 0;
        contended_[c] += hit;
        won_[c] += hit;
        stall_run_[c] = 0;
        const std::uint32_t left = run_left_[c];
        run_left_[c] = left - (left != 0);
        ended[ne] = c;
        ne += left == 0;
    }
    for (std::uint32_t k = 0; k < ne; ++k) end_run(ended[k], t);
    // Every ready beat a gate let through went through and no run ended: the next cycles repeat
    // this one until the shortest run ends, a granted throttled client's bucket runs out or its
    // window ends, or a gate may open. (With no run ended nothing completed, so a dependency that
    // held a beat still holds it; back-pressure changes only between runs.)
    if (granted == (ready & ~gated_) && !run_ended_) {
        note_steady(granted, gs, c2, d, ps, gated_, t);
        if (tdm_.strict() && steady_.on) note_turns();
    } else if (s1_contended && !run_ended_ && !(ready & throttled_) && !tdm_.strict()) {
        // PE clients took turns at stage 1: the next cycles may repeat this one with another winner.
        note_rotation(s1, winner, prec, granted, c2, d, ps);
    } else if (run_ended_ && !(ready & throttled_) && !tdm_.strict() && next_issue_ > t + 1) {
        // Runs ended: with the new heads, the next cycles may grant every ready beat (not when
        // something issues in the next one: no cycle to leap).
        note_steady_heads();
    }
}

// Which beats go through in a cycle of a rotation (rotate()) that the stage-1 winner `w` wins in
// a slot where `prec` has precedence, when no two of the other beats share a bank and the only
// ones a PE candidate's banks meet are in the DMA-class order (`contested`; `meets`: those that
// meet w). Slot of the compute class: the stage-2 order, with w, goes first, so w is granted and
// the contested beats it meets lose to it. Slot of the DMA class: the DMA-class order goes first,
// so every contested beat is granted and w loses if it meets one. Returns the granted clients.
inline std::uint64_t Kernel::rotation_grants(std::uint64_t others, std::uint64_t meets, std::uint32_t w,
                                             TdmClass prec) {
    if (prec == TdmClass::dma && meets) return others;
    return (others & ~meets) | bit(w);
}

// Records a cycle whose successors differ from it only in which PE client wins stage 1
// (rotate()). Holds when: every ready beat took part (no dependency or back-pressure gate, none
// throttled, TDM not strict, no run ended); no two beats but the PE candidates share a bank; and
// a PE candidate's banks meet only beats of the DMA-class order, whose place against the stage-2
// order (and so against the winner) only the slot's precedence decides (rotation_grants()).
// Then whichever PE client wins, what goes through follows from its banks and the slot alone,
// so the next cycles repeat this one with the stage-1 winner following the stage-1 policy, until
// a run would end or something issues. The cycle just stepped must be one such cycle.
[[gnu::noinline]] void Kernel::note_rotation(std::uint64_t s1, std::uint32_t winner, TdmClass prec,
                                             std::uint64_t granted, std::uint64_t stage2, std::uint64_t dma,
                                             std::uint64_t psum) {
    const std::uint64_t others = ready_ & ~s1;
    if ((depwait_ | backpressure_) & ready_) return;
    // A concurrency rule between two ready beats decides by order, not by banks.
    if (((dve_sbuf_ & ready_) && (gpsimd_sbuf_ & ready_)) || ((dve_psum_ & ready_) && (act_psum_ & ready_)))
        return;
    std::uint64_t once = 0, twice = 0;
    for_each_bit(others, [&](std::uint32_t c) {
        twice |= once & head_mask_[c];
        once |= head_mask_[c];
    });
    if (twice) return;
    std::uint64_t s1_banks = 0;
    for_each_bit(s1, [&](std::uint32_t c) { s1_banks |= head_mask_[c]; });
    const std::uint64_t dma_order = others & sbuf_mask_ & dma_class_ & ~stage2_mask_;
    std::uint64_t contested = 0, contested_banks = 0, meets = 0;
    std::uint32_t left = ~0u;
    for_each_bit(others, [&](std::uint32_t c) {
        if (!(head_mask_[c] & s1_banks)) {
            left = std::min(left, run_left_[c]);
            return;
        }
        contested |= bit(c);
        contested_banks |= head_mask_[c];
        if (head_mask_[c] & head_mask_[winner]) meets |= bit(c);
    });
    if ((contested & ~dma_order) || left == 0) return;
    if (rotation_grants(others, meets, winner, prec) != granted) return;
    rotation_ = {true, left, s1, others, contested, contested_banks, stage2, dma, psum};
}

// After a step in which runs ended (their next runs or requests are the heads now): the next
// cycles grant every ready beat when nothing gates one (no dependency or back-pressure; the caller
// saw none throttled and TDM not strict), at most one PE client is ready, no concurrency rule has
// both sides ready, no two heads share a bank and none is the last beat of its run. Then they
// repeat until the shortest run ends, as after a steady step (leap()).
[[gnu::noinline]] void Kernel::note_steady_heads() {
    const std::uint64_t ready = ready_;
    const std::uint64_t s1 = ready & sbuf_mask_ & stage1_mask_;
    if (!ready || ((depwait_ | backpressure_) & ready) || (s1 & (s1 - 1))) return;
    if (((dve_sbuf_ & ready) && (gpsimd_sbuf_ & ready)) || ((dve_psum_ & ready) && (act_psum_ & ready)))
        return;
    // Out at the first head of one beat or on a taken bank (1-beat records: every step ends runs).
    std::uint64_t taken = 0;
    std::uint32_t left = ~0u;
    for (std::uint64_t m = ready; m; m &= m - 1) {
        const std::uint32_t c = static_cast<std::uint32_t>(std::countr_zero(m));
        if (run_left_[c] == 0 || (taken & head_mask_[c])) return;
        taken |= head_mask_[c];
        left = std::min(left, run_left_[c]);
    }
    const std::uint64_t sb = ready & sbuf_mask_;
    steady_ = {true,
               left,
               ready,
               sb,
               (sb & stage2_mask_) | (s1 ? bit(kPeRdPort) : 0),
               sb & dma_class_,
               ready & psum_mask_clients_};
}

// The beats left after the head in the shortest run of `clients` (~0u: none).
inline std::uint32_t Kernel::shortest_run(std::uint64_t clients) const {
    std::uint32_t left = ~0u;
    for_each_bit(clients, [&](std::uint32_t c) { left = std::min(left, run_left_[c]); });
    return left;
}

// Records a cycle the next ones repeat (leap()): the granted clients' shortest run has
// `cycles` + 1 beats left (a granted throttled client's bucket, `cycles` more grants in t's
// window), and every cycle until then grants the same; the `gated` clients stay held.
[[gnu::noinline]] void Kernel::note_steady(std::uint64_t granted, std::uint64_t sbuf, std::uint64_t stage2,
                                           std::uint64_t dma, std::uint64_t psum, std::uint64_t gated,
                                           Cycle t) {
    std::uint32_t left = shortest_run(granted);
    // A throttled client granted in t is granted again while its bucket lasts in t's window.
    for_each_bit(granted & throttled_, [&](std::uint32_t c) {
        left = static_cast<std::uint32_t>(std::min<Cycle>(left, throttlers_[c].grants_after(t)));
    });
    const bool windows = throttle_windows();
    if (left == 0 && !windows) return;
    steady_ = {true, left, granted, sbuf, stage2, dma, psum, gated};
    steady_.windows = windows;
}

// Whether `clients`, all ready and none gated, would all be granted in one cycle whatever the
// arbiters' order: at most one PE client (a second would lose stage 1), no concurrency rule with
// both sides among them, no two on one bank.
bool Kernel::go_together(std::uint64_t clients) const {
    const std::uint64_t s1 = clients & sbuf_mask_ & stage1_mask_;
    if (s1 & (s1 - 1)) return false;
    if (((dve_sbuf_ & clients) && (gpsimd_sbuf_ & clients)) ||
        ((dve_psum_ & clients) && (act_psum_ & clients)))
        return false;
    std::uint64_t taken = 0;
    for (std::uint64_t m = clients; m; m &= m - 1) {
        const std::uint64_t banks = head_mask_[std::countr_zero(m)];
        if (taken & banks) return false;
        taken |= banks;
    }
    return true;
}

// Strict TDM, after a steady cycle (note_steady()): at the next class change the TDM gate holds
// the SBUF clients the cycle granted and lets through the ones it held. When those would all go
// through together as well (none throttled, at most one PE client, no two on one bank, no
// concurrency rule with both sides among them), the cycles of that turn repeat as the steady
// cycle's do, and so on turn after turn: the beats a dependency or back-pressure holds stay held
// (nothing completes in a leap) and the PSUM clients, which no TDM gate holds, go through in
// every turn. The leap then goes on past the class change (leap(), next_turn()).
[[gnu::noinline]] void Kernel::note_turns() {
    if (ready_ & throttled_) return;
    // step() charged every gated client; those it left to the TDM gate are the other class's.
    const std::uint64_t held = steady_.gated & ~(depwait_ | backpressure_);
    if (!(held | steady_.sbuf)) return;  // no SBUF beat: the class changes nothing
    if (!go_together(held)) return;
    steady_.turns = true;
    steady_.held = held;
}

// The masks of a steady cycle that grants `granted` (at most one PE client, go_together()): its
// SBUF grants and the arbiters' candidates, all of them granted.
void Kernel::steady_grants(std::uint64_t granted) {
    const std::uint64_t sb = granted & sbuf_mask_;
    steady_.granted = granted;
    steady_.sbuf = sb;
    steady_.stage2 = (sb & stage2_mask_) | ((sb & stage1_mask_) ? bit(kPeRdPort) : 0);
    steady_.dma = sb & dma_class_;
    steady_.psum = granted & psum_mask_clients_;
}

// At a class change inside a leap with turns (note_turns()): the clients the TDM gate held go
// through, the ones that went through are held (a TDM stall), as step() would have them.
void Kernel::next_turn() {
    const std::uint64_t through = steady_.held, held = steady_.sbuf;
    for_each_bit(held, [&](std::uint32_t c) { ports_[c].last_cause = StallCause::tdm; });
    steady_grants(through | steady_.psum);
    steady_.held = held;
    steady_.gated = (steady_.gated & ~through) | held;
    steady_.cycles = shortest_run(steady_.granted);
}

// Throttlers, TDM not strict, after a cycle that granted every ready beat a gate let through
// (note_steady(), whose leap stops where a granted client's bucket runs out): whether the ready
// clients a dependency or back-pressure does not hold would all go through together but for
// their buckets (go_together()). Then what the following cycles grant and hold follows from the
// buckets alone, window after window, until a run ends or a request issues (leap()):
// nothing completes in a leap, so a dependency that holds a beat goes on holding it, and
// back-pressure changes only between runs. (A bucket spent by the step's own grant leaves no
// steady cycles to leap: the windows start at once.)
bool Kernel::throttle_windows() const {
    return (ready_ & throttled_) && !tdm_.strict() && go_together(ready_ & ~(depwait_ | backpressure_));
}

// At cycle now_ of a leap over throttle windows (throttle_windows()): as step() would find it, the
// ready clients whose bucket allows a beat go through and the others are held (a throttle stall)
// until the first of their windows refills, next to those a dependency or back-pressure holds.
// steady_ becomes that cycle, which the following ones repeat while the buckets and the runs
// last (none, when a run's last beat goes through in it: step() takes that cycle).
void Kernel::window_turn() {
    const Cycle t = now_;
    const std::uint64_t waiting = ready_ & (depwait_ | backpressure_);  // held all along, by their gate
    std::uint64_t held = 0;
    Cycle release = kNever;
    for_each_bit(ready_ & throttled_ & ~waiting, [&](std::uint32_t c) {
        if (throttlers_[c].allows(t)) return;
        held |= bit(c);
        release = std::min(release, throttlers_[c].next_window(t));
    });
    const std::uint64_t through = ready_ & ~(held | waiting);
    Cycle left = shortest_run(through);
    for_each_bit(through & throttled_,
                 [&](std::uint32_t c) { left = std::min(left, throttlers_[c].grants_from(t)); });
    for_each_bit(held, [&](std::uint32_t c) { ports_[c].last_cause = StallCause::throttle; });
    steady_grants(through);
    steady_.cycles = left;
    steady_.gated = held | waiting;
    gate_release_ = release;
}

// ---------------------------------------------------------------------------------------------
// Skipping: cycles whose outcome is known without evaluating them.

// Adds `len` cycles from `from` on to the TDM slot statistics: f(slot stats, cycles in that slot).
template <typename F>
inline void Kernel::add_slot_cycles(Cycle from, Cycle len, F&& f) {
    const std::uint32_t slots = tdm_.slots();
    std::uint32_t s = slot_at(from);
    if (len < slots) {  // short (gated skips between strict-TDM class changes): no division
        for (Cycle i = 0; i < len; ++i) {
            f(stats_.tdm_slots[s], 1);
            s = s + 1 == slots ? 0 : s + 1;
        }
        return;
    }
    const Cycle full = len / slots;
    const Cycle rem = len % slots;
    for (std::uint32_t i = 0; i < slots; ++i) {
        const Cycle k = full + (i < rem ? 1 : 0);
        if (k) f(stats_.tdm_slots[s], k);
        s = s + 1 == slots ? 0 : s + 1;
    }
}

// Cycles [from, to) in which no beat can move. With `gated`, the previous cycle had ready beats
// that were all stopped by a gate that stays shut until `to` (dependency, back-pressure, strict
// TDM, throttler), so each is charged its cause again; otherwise nothing is ready at all.
void Kernel::skip(Cycle from, Cycle to, bool gated) {
    const Cycle len = to - from;
    stats_.cycles += len;
    add_slot_cycles(from, len, [](TdmSlotStats& ss, Cycle k) {
        ss.cycles += k;
        ss.idle += k;
    });
    if (gated) for_each_bit(ready_, [&](std::uint32_t c) { charge(c, ports_[c].last_cause, len); });
}

// The cycles after a steady step (step() sets steady_): the same clients are ready with the same
// banks, no gate holds anyone and no bank is wanted twice, so each cycle grants every one of them
// again and only their runs count down and the round-robin pointers move. Taken up to the cycle
// in which the shortest run ends, a pending request issues, the strict-TDM precedence changes or
// `target`; with strict-TDM turns (note_turns()) on past each class change into the other class's
// turn (leap_turns()). Identical to stepping them (tests/test_kernel_accounting.cpp).
template <class Stage1, class Stage2>
void Kernel::leap(Cycle target, Stage1& arb1, Stage2& arb2) {
    if (steady_.turns) {
        leap_turns(target, arb1, arb2);
    } else {
        const Cycle change =
            tdm_.strict() && steady_.sbuf ? tdm_.next_change(now_ - 1, slot_at(now_ - 1)) : kNever;
        // Over throttle windows (throttle_windows()): where the steady cycles stop at an empty
        // bucket or a refill, the next ones are those window_turn() finds, while no run ends, no
        // request issues and `target` is ahead. (One loop around the one leap_cycles(): a second
        // copy of it here made GCC stop inlining the step's grant loop.)
        for (bool turned = false;; turned = true) {
            const Cycle len = steady_len(target, change);
            if (len)
                leap_cycles(len, arb1, arb2);
            else if (turned)
                break;  // a run's last beat comes next
            if (!steady_.windows || now_ >= target || now_ >= next_issue_) break;
            window_turn();
        }
    }
    steady_.on = false;  // taken; the next step decides again
}

// The cycles from now_ on that repeat the steady cycle: up to the shortest run's end (steady_.cycles
// more), `target`, the next issue, the class `change` when the cycle grants SBUF beats, or the
// release of a gate that holds some (the step's gate_release_, still current; in a turn, the class
// change).
inline Cycle Kernel::steady_len(Cycle target, Cycle change) const {
    Cycle len = std::min<Cycle>(steady_.cycles, target - now_);
    if (next_issue_ != kNever) len = std::min(len, next_issue_ - now_);
    if (steady_.sbuf) len = std::min(len, change - now_);
    if (steady_.gated) len = std::min(len, gate_release_ - now_);
    return len;
}

// A leap with strict-TDM turns: at each class change the other class's turn (next_turn()), while
// no run ends, no request issues and `target` is ahead. A turn may start right away: the step's
// cycle was the last of a slot (a DMA slot of one cycle, as in the shipped configs).
template <class Stage1, class Stage2>
void Kernel::leap_turns(Cycle target, Stage1& arb1, Stage2& arb2) {
    Cycle change = tdm_.next_change(now_ - 1, slot_at(now_ - 1));
    for (;;) {
        if (now_ == change) {
            // Taken even where the leap ends (a run's last beat, an issue, the target: no cycle
            // of the turn is leapt): the step there holds and lets through the same clients.
            next_turn();
            change = tdm_.next_change(now_);
            gate_release_ = change;
        }
        const Cycle len = steady_len(target, change);
        if (len == 0) return;
        leap_cycles(len, arb1, arb2);
        if (now_ != change) return;  // a run's last beat, an issue or the target comes first
    }
}

// `len` cycles of a leap from now_ on, every one granting steady_.granted and holding
// steady_.gated.
template <class Stage1, class Stage2>
[[gnu::always_inline]] inline void Kernel::leap_cycles(Cycle len, Stage1& arb1, Stage2& arb2) {
    stats_.cycles += len;
    // The beats a gate held in the step stay held: charged their gate's cause, as a gated skip().
    for_each_bit(steady_.gated, [&](std::uint32_t c) { charge(c, ports_[c].last_cause, len); });
    const bool compute = steady_.sbuf & compute_class_, dma = steady_.sbuf & dma_class_;
    add_slot_cycles(now_, len, [&](TdmSlotStats& ss, Cycle k) {
        ss.cycles += k;
        if (compute) ss.compute_used += k;
        if (dma) ss.dma_used += k;
        if (!steady_.sbuf) ss.idle += k;
    });
    // (A client the step noted from its new heads may have lost in it: its stall run ends here.)
    for_each_bit(steady_.granted, [&](std::uint32_t c) {
        run_left_[c] -= static_cast<std::uint32_t>(len);
        stall_run_[c] = 0;
    });
    for_each_bit(steady_.granted & throttled_,
                 [&](std::uint32_t c) { throttlers_[c].on_grants(now_, static_cast<std::uint32_t>(len)); });
    // A steady cycle has at most one stage-1 candidate (a second would have lost), granted.
    if (const std::uint64_t s1 = steady_.granted & stage1_mask_) arb1.settle_granted(s1, len);
    arb2.settle_granted(steady_.stage2, len);
    if (steady_.dma) dma_arb_.settle_granted(steady_.dma, len);
    if (steady_.psum) psum_arb_.settle_granted(steady_.psum, len);
    now_ += len;
    slot_cycle_ = kNever;
}

// The cycles after a rotating step (step() sets rotation_): the same clients are ready with the
// same banks; each cycle the stage-1 policy picks a PE winner among the same candidates, the
// others lose stage 1, and what else goes through follows from the winner's banks and the slot's
// precedence (rotation_grants()): the beats no PE candidate meets are granted every cycle, a
// contested one is granted or loses to the winner, or the winner loses to it. Each cycle is taken
// as step() would take it, less everything that cannot change. The arbiters whose candidates all
// went through settle in batches (`settle_granted`), the others once per cycle in which one lost;
// a PE candidate's stage-1 losses are charged once per stall run (at its next win or the end);
// the uncontested clients' runs count down once at the end, the contested ones' by the cycles
// they were granted. A stage-1 winner's grant that ends its run is taken here too (grant(): the
// next run, or the request's completion and the next head); the rotation goes on while that head
// is ready at once, has no dependency and meets no beat but contested ones, or without the winner
// when that head is not ready yet (or none is queued) and another PE candidate is left (with
// none left, the others go on to a leap: note_steady()), and stops
// after a completion that fills the completion ring or that run_until() watches. It stops before a cycle
// in which another client's run could end, at the next issue or `target`. Identical to stepping
// them (tests/test_kernel_accounting.cpp, KernelRotation and KernelRotationContested).
template <class Stage1, class Stage2>
void Kernel::rotate(Cycle target, Stage1& arb1, Stage2& arb2) {
    rotation_.on = false;  // taken; the next step decides again
    const Rotation r = rotation_;
    Cycle limit = std::min<Cycle>(r.cycles, target - now_);
    if (next_issue_ != kNever) limit = std::min(limit, next_issue_ - now_);
    std::uint64_t ready = ready_;
    std::uint64_t s1 = r.s1;  // the PE candidates: a winner whose next request is not ready leaves
    std::uint64_t others_banks = 0;
    for_each_bit(r.others, [&](std::uint32_t c) { others_banks |= head_mask_[c]; });
    // The contested beats: whose each bank is, how often each lost (it is granted in every other
    // cycle) and in which cycle it last did (a grant in between ends its stall run).
    std::uint32_t owner[64];
    std::uint64_t lost[kClientSlots], last_lost[kClientSlots];
    Cycle cap = kNever;  // the first cycle in which a contested run could end: min(run_left + lost)
    for_each_bit(r.contested, [&](std::uint32_t c) {
        for_each_bit(head_mask_[c], [&](std::uint32_t b) { owner[b] = c; });
        lost[c] = 0;
        last_lost[c] = ~std::uint64_t{0};  // the cycle before the rotation
        cap = std::min<Cycle>(cap, run_left_[c]);
    });
    // The PE candidates' stage-1 losses, charged a stall run at a time: each loses stage 1 in every
    // cycle from s1_from[c] on until it wins (then the losses are charged, before that cycle's
    // own outcome) or the rotation ends. A stall run only grows until a grant ends it, so its
    // longest (max_run_) and its sum come out as the cycle-by-cycle charges would.
    Cycle s1_from[kClientSlots];
    for_each_bit(s1, [&](std::uint32_t c) { s1_from[c] = 0; });
    const auto charge_stage1_losses = [&](std::uint32_t c, Cycle until) {
        if (const Cycle k = until - s1_from[c]) {
            charge(c, StallCause::stage1_loss, k);
            contended_[c] += k;
        }
    };
    const auto meets_of = [&](std::uint32_t w) {
        std::uint64_t m = 0;
        for_each_bit(head_mask_[w] & r.contested_banks, [&](std::uint32_t b) { m |= bit(owner[b]); });
        return m;
    };
    // The stage-1 winner's grant in cycle t (n counts it already): false when the rotation stops.
    const auto winner_granted = [&](std::uint32_t w, Cycle t) {
        if (run_left_[w]) {  // grant() without its run end
            stall_run_[w] = 0;
            --run_left_[w];
            return true;
        }
        // The winner's run ends with this grant: its next run or next request becomes the head.
        grant(w, t);
        if (watched_done_ || (!ring_.empty() && ring_.size() - (ring_tail_ - ring_head_) < n_)) return false;
        if (ready_ == (ready & ~bit(w))) {
            // Its next request issues later (or none is queued): the others go on taking turns
            // (a PE candidate fewer meets no beat it did not meet before), down to one left, which
            // wins every cycle it is not beaten by a contested beat. next_issue_ below stops the
            // rotation before that request is ready.
            s1 &= ~bit(w);
            ready = ready_;
            if (!s1) return false;  // the last one left: the others are granted every cycle (below)
        } else if (ready_ != ready || (depwait_ >> w & 1) ||
                   (head_mask_[w] & others_banks & ~r.contested_banks)) {
            return false;  // the next cycle is not the same rotation: step() takes it
        }
        if (next_issue_ != kNever) limit = std::min(limit, next_issue_ - now_);
        return true;
    };
    const std::uint32_t slots = tdm_.slots();
    std::uint32_t slot = slot_;  // of cycle now_ - 1, the step just taken
    Cycle n = 0, stage2_full = 0, dma_full = 0;
    // Every PE candidate of one TDM class and in SBUF: a cycle's class use does not depend on
    // which one wins.
    const auto one_class = [&](std::uint64_t cls) { return !(r.s1 & cls) || (r.s1 & cls) == r.s1; };
    const bool uncontested =
        !r.contested && !(r.s1 & ~sbuf_mask_) && one_class(compute_class_) && one_class(dma_class_);
    if (uncontested) {
        // No PE candidate's banks meet another beat: each cycle grants the others and the
        // winner, so only the winner, the stage-1 state and the runs change, and each cycle adds
        // the same to the TDM slot statistics (added at the end).
        while (n < limit) {
            const std::uint32_t w = arb1.first(s1);
            charge_stage1_losses(w, n);
            s1_from[w] = n + 1;
            if (s1 != bit(w)) {  // its stage-1 win (step() counts a lone candidate's grant as uncontended)
                ++contended_[w];
                ++won_[w];
            }
            arb1.settle(s1, bit(w));
            const Cycle t = now_ + n++;
            if (!winner_granted(w, t)) break;
        }
        const std::uint64_t gs = (r.others | r.s1) & sbuf_mask_;
        const Cycle compute = (gs & compute_class_) != 0, dma = (gs & dma_class_) != 0;
        add_slot_cycles(now_, n, [&](TdmSlotStats& ss, Cycle k) {
            ss.cycles += k;
            ss.compute_used += compute * k;
            ss.dma_used += dma * k;
        });
        if (n) slot = slot_at(now_ + n - 1);
        stage2_full = dma_full = n;
    }
    while (!uncontested && n < limit) {
        if (n >= cap) {  // a contested client may have lost since: its run ends later
            cap = kNever;
            for_each_bit(r.contested,
                         [&](std::uint32_t c) { cap = std::min<Cycle>(cap, run_left_[c] + lost[c]); });
            if (n >= cap) break;
        }
        const Cycle t = now_ + n;
        const std::uint32_t w = arb1.first(s1);
        slot = slot + 1 == slots ? 0 : slot + 1;
        const TdmClass prec = tdm_.precedence(slot);
        const std::uint64_t meets = r.contested ? meets_of(w) : 0;
        const std::uint64_t granted = rotation_grants(r.others, meets, w, prec);
        const std::uint64_t losers = (r.others | bit(w)) & ~granted;
        TdmSlotStats& ss = stats_.tdm_slots[slot];
        const std::uint64_t gs = granted & sbuf_mask_;
        ++ss.cycles;
        ss.compute_used += (gs & compute_class_) != 0;
        ss.dma_used += (gs & dma_class_) != 0;
        ss.idle += gs == 0;
        // The others lose stage 1 in this cycle: charged when they win or the rotation ends.
        charge_stage1_losses(w, n);
        s1_from[w] = n + 1;
        // The banks both the winner and a contested beat wanted, and who lost them to whom.
        const std::uint64_t twice = head_mask_[w] & others_banks;
        for_each_bit(twice, [&](std::uint32_t b) { ++bank_conflicts_[b]; });
        const std::uint64_t prec_class = prec == TdmClass::dma ? dma_class_ : compute_class_;
        for_each_bit(losers, [&](std::uint32_t c) {
            const std::uint64_t lost_banks = head_mask_[c] & (c == w ? others_banks : head_mask_[w]);
            // A loser lost some bank (lost_banks != 0); the mask tells the compiler so.
            const std::uint32_t b = static_cast<std::uint32_t>(std::countr_zero(lost_banks)) & 63u;
            const std::uint32_t blk = c == w ? owner[b] : w;
            if (c != w) {
                if (last_lost[c] + 1 != n) stall_run_[c] = 0;  // granted since its last loss
                last_lost[c] = n;
                ++lost[c];
            }
            const bool by_tdm = (prec_class >> blk & ~(prec_class >> c)) & 1;
            charge(c, by_tdm ? StallCause::tdm : StallCause::bank_conflict);
            ++stats_.blocked_by[std::size_t{c} * n_ + blk];
            ++bank_stalls_[b];
            bank_tdm_stalls_[b] += by_tdm;
            ++contended_[c];
        });
        // Granted beats that met another: the winner (its stage-1 win, or a contested beat it
        // met when it is the last PE candidate left, as step() counts a lone one), the contested
        // it beat.
        const std::uint64_t w_met = s1 != bit(w) || meets ? bit(w) : 0;
        for_each_bit(granted & (meets | w_met), [&](std::uint32_t c) {
            ++contended_[c];
            ++won_[c];
        });
        const bool w_granted = granted & bit(w);
        arb1.settle(s1, w_granted ? bit(w) : 0);
        if (w_granted) {
            ++stage2_full;
        } else {
            arb2.settle_granted(r.stage2, stage2_full);
            stage2_full = 0;
            arb2.settle(r.stage2, r.stage2 & ~bit(kPeRdPort));
        }
        if (!(losers & r.dma)) {
            ++dma_full;
        } else {
            dma_arb_.settle_granted(r.dma, dma_full);
            dma_full = 0;
            dma_arb_.settle(r.dma, granted & r.dma);
        }
        ++n;
        if (w_granted && !winner_granted(w, t)) break;
    }
    if (n == 0) return;
    for_each_bit(s1, [&](std::uint32_t c) { charge_stage1_losses(c, n); });
    stats_.cycles += n;
    for_each_bit(r.others & ~r.contested,
                 [&](std::uint32_t c) { run_left_[c] -= static_cast<std::uint32_t>(n); });
    for_each_bit(r.contested, [&](std::uint32_t c) {
        run_left_[c] -= static_cast<std::uint32_t>(n - lost[c]);
        if (last_lost[c] + 1 != n) stall_run_[c] = 0;  // granted in the last cycle
    });
    arb2.settle_granted(r.stage2, stage2_full);
    if (r.dma) dma_arb_.settle_granted(r.dma, dma_full);
    if (r.psum) psum_arb_.settle_granted(r.psum, n);
    now_ += n;
    slot_cycle_ = now_ - 1;
    slot_ = slot;
    // The last PE candidate left (its next request is not ready): the beats left share no bank and
    // met only PE candidates, so each cycle grants all of them, as after a steady step (leap()),
    // until the shortest run ends; stage 2 without the PE port, as step() would have it.
    if (!s1 && r.others)
        note_steady(r.others, r.others & sbuf_mask_, r.stage2 & ~bit(kPeRdPort), r.dma, r.psum, 0, now_ - 1);
}

RunStatus Kernel::run(Cycle target, bool until_drained, std::uint64_t watch) {
    return std::visit([&](auto& arb1, auto& arb2) { return run_with(arb1, arb2, target, until_drained, watch); },
                      stage1_, stage2_);
}

template <class Stage1, class Stage2>
RunStatus Kernel::run_with(Stage1& arb1, Stage2& arb2, Cycle target, bool until_drained, std::uint64_t watch) {
    const bool skipping = !options_.step_every_cycle;
    watch_ = watch;
    watched_done_ = 0;
    while (until_drained ? queued_ > 0 : now_ < target) {
        if (!ring_.empty() && ring_.size() - (ring_tail_ - ring_head_) < n_)
            return RunStatus::completions_full;
        const Cycle t = now_;
        refresh_ready(t);
        if (!ready_ && (skipping || next_issue_ == kNever)) {
            const Cycle to = std::min(next_issue_, target);
            if (to == kNever) return RunStatus::stuck;
            skip(t, to, false);
            now_ = to;
            continue;
        }
        step(t, arb1, arb2);
        now_ = t + 1;
        if (watched_done_) return RunStatus::watched;
        if (steady_.on && skipping && !probe_) leap(target, arb1, arb2);
        if (rotation_.on && skipping && !probe_) {
            rotate(target, arb1, arb2);
            if (watched_done_) return RunStatus::watched;
            if (steady_.on) leap(target, arb1, arb2);
        }
        if (gated_only_) {
            const Cycle to = std::min({next_issue_, gate_release_, target});
            if (to == kNever) return RunStatus::stuck;  // nothing can ever open the gates
            if (skipping && to > now_) {
                skip(now_, to, true);
                now_ = to;
            }
        }
    }
    return RunStatus::reached;
}

RunStatus Kernel::run_until(Cycle target, std::uint64_t watch) { return run(target, false, watch); }
RunStatus Kernel::run_to_completion() { return run(kNever, true, 0); }

// ---------------------------------------------------------------------------------------------
// Statistics.

// Adds the client's pending bank grants to BankStats and to its beat count.
// (No test for a zero count: it adds nothing, and the first flush has no banks either.)
void Kernel::flush_bank_grants(std::uint32_t c) {
    Port& p = ports_[c];
    const std::uint64_t n = p.grant_count;  // a local: the adds below may alias it for the compiler
    for_each_bit(p.grant_mask, [&](std::uint32_t b) { bank_grants_[b * kClientSlots + c] += n; });
    p.beats += n;
    p.grant_count = 0;
}

const Stats& Kernel::stats() const {
    report_ = stats_;
    for (std::uint32_t c = 0; c < n_; ++c) {
        const Port& p = ports_[c];
        // The head run was counted when it was loaded: its beats not granted yet stay pending.
        const std::uint64_t outstanding = p.head != p.tail ? std::uint64_t{run_left_[c]} + 1 : 0;
        // Bank grants not yet flushed into stats_ (flush_bank_grants), without the pending ones.
        const std::uint64_t unflushed = p.grant_count - outstanding;
        if (unflushed)
            for_each_bit(p.grant_mask, [&](std::uint32_t b) { report_.banks[b].grants[c] += unflushed; });
        ClientStats& cs = report_.clients[c];
        cs.requests = p.submitted;
        cs.completed = completed_[c];
        cs.latency = p.latency;
        cs.wait_cycles = p.wait_cycles;
        cs.beats_requested = p.beats_requested;
        std::copy_n(stalls_.begin() + std::ptrdiff_t{c} * kCauseStride, kStallCauses, cs.stalls.begin());
        cs.beats = p.beats + unflushed;
        cs.bytes = p.bytes_moved - outstanding * p.beat_bytes;
        cs.contended = contended_[c];
        cs.won_contended = won_[c];
        cs.max_stall_run = max_run_[c];
    }
    for (std::size_t b = 0; b < report_.banks.size(); ++b) {
        report_.banks[b].conflict_cycles = bank_conflicts_[b];
        report_.banks[b].stalls = bank_stalls_[b];
        report_.banks[b].tdm_stalls = bank_tdm_stalls_[b];
        for (std::uint32_t c = 0; c < n_; ++c) report_.banks[b].grants[c] += bank_grants_[b * kClientSlots + c];
    }
    report_.finalize();
    return report_;
}

}  // namespace sbufsim
