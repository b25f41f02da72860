// The bank-conflict kernel: setup, the request queues, grants and completions, the cycle loop
// (step(), run_with()) and the statistics. The fast-forward over cycles whose outcome is known
// (skips, leaps, rotations) is kernel_fast_forward.h / kernel_fast_forward.cpp; the host's CSR
// writes are kernel_reprogram.cpp.
#include "sbufsim/kernel/kernel.h"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>

#include "kernel_fast_forward.h"
#include "kernel_private.h"
#include "sbufsim/stats/window_stats.h"

namespace sbufsim {

namespace {

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("kernel: " + what); }
// Out of line and cold, so that submit() carries no string code.
[[noreturn, gnu::cold, gnu::noinline]] void too_many_beats(std::uint64_t beats) {
    bad("a request of " + std::to_string(beats) + " beats is too large");
}

// Probe hooks (window_stats.h), kept out of line and cold: the cycle loop then carries only a
// null test and a call, so it is laid out and inlined as without a probe.
[[gnu::noinline, gnu::cold]] void probe_grant(ActivityProbe* p, std::uint32_t c, std::uint32_t base,
                                              std::uint32_t mask, std::uint32_t bytes, Cycle t) {
    p->grant(c, base, mask, bytes, t);
}
[[gnu::noinline, gnu::cold]] void probe_bank_stall(ActivityProbe* p, std::uint32_t bank, Cycle t) {
    p->bank_stall(bank, t);
}
[[gnu::noinline, gnu::cold]] void probe_conflicts(ActivityProbe* p, std::uint64_t banks, std::uint32_t base,
                                                  Cycle t) {
    for_each_bit(banks, [&](std::uint32_t b) { p->conflict(base + b, t); });
}
[[gnu::noinline, gnu::cold]] void probe_tdm(ActivityProbe* p, bool compute, bool dma, Cycle t) {
    p->tdm(compute, dma, t);
}

}  // namespace

void kernel_detail::probe_stall(ActivityProbe* p, std::uint32_t c, StallCause cause, Cycle t,
                                std::uint64_t n) {
    p->stall(c, cause, t, n);
}

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
        bad("sbuf.ecc_banks = " + std::to_string(p.sbuf.ecc_banks) +
            " / sbuf.clusters = " + std::to_string(p.sbuf.clusters) + " do not fit a 16-bit SBUF bank mask");
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
    std::visit([&](auto& a) { a.add_port(kPeRdPort, p.arbiter.pe_rd.prio, p.arbiter.pe_rd.weight); },
               stage2_);

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
                const std::uint64_t granule =
                    p.region == Region::psum ? psum_bank_size_ : std::uint64_t{1} << half_bit_;
                const std::uint64_t o0 = std::uint64_t{p.offset} + std::uint64_t{p.bc} * p.bpb;
                const std::uint64_t room = (o0 / granule + 1) * granule - o0;  // bytes to the granule's end
                if (room >= p.bpb)
                    n = static_cast<std::uint32_t>(std::min<std::uint64_t>(p.full_bcs - p.bc, room / p.bpb));
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
        bad("submit: " + name + " bytes [" + std::to_string(r.offset) + ", +" + std::to_string(r.bytes) +
            ") outside the partition's " + std::to_string(active) + " B");
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
    if (!well_formed(r)) [[unlikely]]
        refuse(r);
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
    if (beats > 0xffffffffu) [[unlikely]]
        too_many_beats(beats);
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
    if (pcs != 1 &&
        (std::uint64_t{pcs} * rows != r.partitions || sbuf_bank_of_[first] != sbuf_bank_of_[last]))
        return;
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
// Completions (a grant: kernel_private.h).

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
                if (probe_) [[unlikely]]
                    probe_bank_stall(probe_, b, t);
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
    if (probe_) [[unlikely]]
        probe_conflicts(probe_, twice, 0, t);
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
            probe_grant(probe_, c, base, static_cast<std::uint32_t>(head_mask_[c] >> base),
                        ports_[c].beat_bytes, t);
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

// The cycle loop is compiled once per policy, not once per pair of policies: a run whose two
// stages have one policy (the hardware's priority + DWRR in both is the default) calls its
// arbiters directly; a run of two different policies (a what-if) calls them through AnyPolicy,
// one switch on the policy per call (docs/kernel.md, "Arbitration policies").
RunStatus Kernel::run(Cycle target, bool until_drained, std::uint64_t watch) {
    if (stage1_.index() != stage2_.index()) {
        AnyPolicy arb1(stage1_), arb2(stage2_);
        return run_with(arb1, arb2, target, until_drained, watch);
    }
    return std::visit(
        [&](auto& arb1) {
            auto& arb2 = *std::get_if<std::decay_t<decltype(arb1)>>(&stage2_);
            return run_with(arb1, arb2, target, until_drained, watch);
        },
        stage1_);
}

template <class Stage1, class Stage2>
RunStatus Kernel::run_with(Stage1& arb1, Stage2& arb2, Cycle target, bool until_drained,
                           std::uint64_t watch) {
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
        for (std::uint32_t c = 0; c < n_; ++c)
            report_.banks[b].grants[c] += bank_grants_[b * kClientSlots + c];
    }
    report_.finalize();
    return report_;
}

}  // namespace sbufsim
