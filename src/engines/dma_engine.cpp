#include "sbufsim/engines/dma_engine.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace sbufsim {

// ---- DmaShared --------------------------------------------------------------------------------

DmaShared::DmaShared(double hbm_gbps, double pe_ghz)
    // bytes / (GB/s) = ns; ns x GHz = cycles.
    : cycles_per_byte_(hbm_gbps > 0 ? pe_ghz / hbm_gbps : 0) {}

std::uint32_t DmaShared::open_join(const SyncSet& sync, std::uint32_t shares) {
    std::uint32_t j;
    if (!free_.empty()) {
        j = free_.back();
        free_.pop_back();
    } else {
        j = static_cast<std::uint32_t>(joins_.size());
        joins_.emplace_back();
    }
    joins_[j] = Join{sync, shares};
    return j;
}

bool DmaShared::close_share(std::uint32_t join, SyncSet& out) {
    Join& j = joins_[join];
    if (--j.remaining != 0) return false;
    out = j.sync;
    free_.push_back(join);
    return true;
}

bool DmaShared::claim_hbm(std::uint64_t order, std::uint32_t engine, Cycle from, std::uint64_t bytes) {
    if (cycles_per_byte_ <= 0) return false;
    claims_.push_back(HbmClaim{order, engine, from, bytes});
    return true;
}

Cycle DmaShared::reserve_hbm(Cycle from, std::uint64_t bytes) {
    if (cycles_per_byte_ <= 0) return from;
    hbm_free_ = std::max(hbm_free_, static_cast<double>(from)) + static_cast<double>(bytes) * cycles_per_byte_;
    return static_cast<Cycle>(std::ceil(hbm_free_ - 1e-9));
}

// ---- DmaEngine --------------------------------------------------------------------------------

DmaEngine::DmaEngine(std::uint32_t engine, Kernel& kernel, Semaphores& sems, const Params& p,
                     const EngineTiming& t, std::vector<InstrEvent>* timeline, std::uint16_t index)
    : SerialEngine(kernel, sems, t, timeline, index),
      engine_(engine),
      pe_ghz_(p.pe.clock_ghz),
      gbps_(p.dma.engine_gbps),
      xfer_fixed_ns_(p.dma.xfer_fixed_ns),
      pkt_min_ns_(p.dma.pkt_min_ns),
      prefetch_(std::max<std::uint32_t>(1, p.dma.prefetch_depth)),
      outstanding_(std::max<std::uint32_t>(1, p.dma.outstanding)),
      ends_(outstanding_, 0),
      chunks_(p.width.stream_chunks),
      beat_(p.dma.data_width),
      by_priority_(p.dma.queue_policy == DmaQueuePolicy::priority) {
    const std::string name = "dma_" + std::to_string(engine);
    client_ = need_client(kernel, name, "dma");
    // ns x GHz = cycles.
    startup_ = static_cast<Cycle>(std::ceil(t.dma_startup_ns * pe_ghz_ - 1e-9));
    stats_.name = name;
    group_ = EngineGroup::dma;
}

std::uint32_t DmaEngine::add_queue(std::string name) {
    queues_.push_back(Queue{std::move(name), {}, 0});
    pending_.resize((queues_.size() + 63) / 64);
    blocked_.resize(pending_.size());
    return static_cast<std::uint32_t>(queues_.size() - 1);
}

// The rate a transfer's descriptors move at: the engine's, a read-add-write's fraction of it.
double DmaEngine::data_gbps(const DmaInstr& i) const { return i.rmw ? gbps_ * timing_.dma_rmw_fraction : gbps_; }

std::uint64_t DmaEngine::descriptors(const DmaInstr& i) const {
    if (i.transpose || !i.bytes_per_partition) return i.partitions;
    const std::uint32_t run = i.run_bytes ? std::min(i.run_bytes, i.bytes_per_partition) : i.bytes_per_partition;
    return std::uint64_t{i.partitions} * ((i.bytes_per_partition + run - 1) / run);
}

// The runs whose payload moves faster than the per-descriptor minimum: they take pkt_min_ns.
std::uint64_t DmaEngine::short_descriptors(const DmaInstr& i) const {
    if (i.transpose || !i.bytes_per_partition) return 0;
    const std::uint32_t bpp = i.bytes_per_partition;
    const std::uint32_t run = i.run_bytes ? std::min(i.run_bytes, bpp) : bpp;
    const double gbps = data_gbps(i);
    const auto is_short = [&](std::uint32_t b) { return static_cast<double>(b) / gbps < pkt_min_ns_; };
    const std::uint64_t per_partition = (is_short(run) ? bpp / run : 0) + (bpp % run && is_short(bpp % run) ? 1 : 0);
    return std::uint64_t{i.partitions} * per_partition;
}

double DmaEngine::data_ns(const DmaInstr& i) const {
    if (i.transpose) {
        const double f = i.sbuf_to_sbuf ? timing_.dma_xpose_fraction_sbuf : timing_.dma_xpose_fraction_hbm;
        return xfer_fixed_ns_ + static_cast<double>(i.bytes) / (gbps_ * f);
    }
    // One descriptor per contiguous run: it moves at the engine bandwidth (a read-add-write at
    // its fraction of it) but takes at least the per-descriptor minimum (the packet-rate limit
    // of small payloads).
    const double gbps = data_gbps(i);
    const auto run_ns = [&](std::uint32_t b) { return std::max(static_cast<double>(b) / gbps, pkt_min_ns_); };
    const std::uint32_t bpp = i.bytes_per_partition;
    if (!bpp) return xfer_fixed_ns_;
    const std::uint32_t run = i.run_bytes ? std::min(i.run_bytes, bpp) : bpp;
    const std::uint32_t full = bpp / run, rest = bpp % run;
    const double per_partition = full * run_ns(run) + (rest ? run_ns(rest) : 0.0);
    return xfer_fixed_ns_ + i.partitions * per_partition;
}

double DmaEngine::bytes_ns(const DmaInstr& i) const {
    if (i.transpose) {
        const double f = i.sbuf_to_sbuf ? timing_.dma_xpose_fraction_sbuf : timing_.dma_xpose_fraction_hbm;
        return static_cast<double>(i.bytes) / (gbps_ * f);
    }
    return static_cast<double>(i.partitions) * static_cast<double>(i.bytes_per_partition) / data_gbps(i);
}

Cycle DmaEngine::transfer_cycles(const DmaInstr& i) const {
    return std::max<Cycle>(1, static_cast<Cycle>(std::ceil(data_ns(i) * pe_ghz_ - 1e-9)));
}

bool DmaEngine::idle() const { return quiet() && queued_ == 0; }

std::size_t DmaEngine::queued() const { return queued_; }

// Arms q's leading transfers whose waits are met, up to the prefetch depth: each issues its
// trigger, and its semaphore-to-start latency runs once that is done. True when it stops on an
// unmet wait (noted in block_sem / block_value), false when the window is full.
bool DmaEngine::arm_queue(Queue& q, Cycle now) {
    const std::size_t depth = std::min<std::size_t>(q.q.size(), prefetch_);
    while (q.armed < depth) {
        DmaInstr& d = q.q.at(q.armed);
        if (const int unmet = sems_.first_unmet(d.sync); unmet >= 0) {
            q.block_sem = d.sync.wait_sem[static_cast<std::size_t>(unmet)];
            q.block_value = d.sync.wait_value[static_cast<std::size_t>(unmet)];
            sems_.want(q.block_sem, q.block_value);
            return true;
        }
        ++q.armed;
        ++armed_;
        const Cycle triggered = triggers_ && d.trigger != kNoTrigger ? triggers_->arm(d.trigger, now) : now;
        d.trigger_claimed = triggered == kTriggerClaimed;
        d.armed_at = d.trigger_claimed ? kNever : triggered + startup_;
        triggers_claimed_ |= d.trigger_claimed;
    }
    return false;
}

bool DmaEngine::take_triggers(Cycle now) {
    if (!triggers_claimed_) return false;
    triggers_claimed_ = false;
    bool eligible = false;
    for (Queue& q : queues_)
        for (std::uint32_t i = 0; i < q.armed; ++i) {
            DmaInstr& d = q.q.at(i);
            if (!d.trigger_claimed) continue;
            d.trigger_claimed = false;
            d.armed_at = triggers_->take(d.trigger) + startup_;
            eligible |= d.armed_at <= now;
        }
    return eligible;
}

// The leading transfers (up to the prefetch depth, in queue order) whose waits are met arm.
void DmaEngine::arm(Cycle now) {
    // What decides whether a queue arms more: its contents and armed window (changed by a push
    // to it and a start from it) and, when its last pass stopped on a wait, that wait's
    // semaphore (signals bump the generation; values only grow). Any other queue's window is
    // full, as its last pass left it. So a pass looks at the queues pushed to or started from
    // since the last pass and, when a wait some queue asked for was met since (the semaphores'
    // met generation), at those stopped on a wait whose semaphore has reached the value; the
    // others ask for their wait again. It visits them in queue order, as a walk of every queue
    // would, so the triggers are issued in the same order.
    if (arm_every_queue_) {
        for (Queue& q : queues_) arm_queue(q, now);
        return;
    }
    const std::uint64_t generation = sems_.met_generation();
    const bool signalled = generation != arm_generation_;
    if (!any_pending_ && !signalled) return;
    arm_generation_ = generation;
    any_pending_ = false;
    for (std::size_t w = 0; w < pending_.size(); ++w) {
        const std::uint64_t pending = pending_[w];
        std::uint64_t visit = pending | (signalled ? blocked_[w] : 0);
        pending_[w] = 0;
        while (visit != 0) {
            const auto bit = static_cast<std::uint32_t>(std::countr_zero(visit));
            visit &= visit - 1;
            const std::uint64_t mask = std::uint64_t{1} << bit;
            Queue& q = queues_[w * 64 + bit];
            if (!(pending & mask) && sems_.value(q.block_sem) < q.block_value) {
                sems_.want(q.block_sem, q.block_value);  // still waits
                continue;
            }
            if (arm_queue(q, now))
                blocked_[w] |= mask;
            else
                blocked_[w] &= ~mask;
        }
    }
}

std::uint32_t DmaEngine::pick(Cycle now) const {
    const std::uint32_t n = static_cast<std::uint32_t>(queues_.size());
    std::uint32_t best = n;
    for (std::uint32_t k = 0; k < n; ++k) {
        const std::uint32_t qi = (rr_ + k) % n;
        if (!head_ready(queues_[qi], now)) continue;
        if (!by_priority_) return qi;
        if (best == n || queues_[qi].q.front().priority < queues_[best].q.front().priority) best = qi;
    }
    return best;
}

bool DmaEngine::head_ready(const Queue& q, Cycle now) { return q.armed && q.q.front().armed_at <= now; }

void DmaEngine::start(std::uint32_t qi, Cycle now) {
    Queue& q = queues_[qi];
    const DmaInstr& d = q.q.front();
    begin(d.sync, d.line, now, startup_);  // a met wait arms the transfer startup_ later
    join_ = d.join;
    active_queue_ = qi;
    Cycle fixed = static_cast<Cycle>(std::ceil(xfer_fixed_ns_ * pe_ghz_ - 1e-9));
    Cycle cost = transfer_cycles(d);
    if (outstanding_ > 1) {
        // Its overhead ran from when it was eligible, had a slot (the share outstanding_ places
        // ahead ended: the oldest end in the ring) and its queue's previous share had ended.
        const Cycle from = std::max({d.armed_at, q.last_end, ends_[end_pos_]});
        if (from < now) {
            const double bytes = bytes_ns(d) * pe_ghz_;
            const Cycle data = std::max<Cycle>(1, static_cast<Cycle>(std::ceil(bytes - 1e-9)));
            const Cycle hidden = std::min(now - from, cost > data ? cost - data : 0);
            cost -= hidden;
            fixed -= std::min(fixed, hidden);
        }
    }
    compute_end_ = now + cost;
    // The SBUF side moves during the data phase, after the per-transfer fixed cost.
    const Pacing pace{compute_end_ - std::min(compute_end_, now + fixed), chunks_, beat_};
    if (d.rd.present() && d.wr.present()) {
        // SBUF->SBUF: each burst is read, then written.
        submit_paced_pair(kernel_, reqs_, client_, d.rd, d.wr, now + fixed, pace);
    } else if (d.rd.present()) {
        submit_paced(kernel_, reqs_, client_, Op::rd, d.rd, now + fixed, pace);
    } else if (d.wr.present()) {
        submit_paced(kernel_, reqs_, client_, Op::wr, d.wr, now + fixed, pace);
    }
    stats_.bytes_read += d.rd.present() ? d.rd.total_bytes() : 0;
    stats_.bytes_written += d.wr.present() ? d.wr.total_bytes() : 0;
    if (SiteProfile* sp = sems_.profile()) sp->at(d.sync.site).dma_bytes += d.bytes;
    if (axi_ && (d.rd.present() || d.wr.present())) {
        axi_moves_ = true;
        axi_client_ = client_;
        axi_flight_ = AxiTransfer{d.line, d.rd, d.wr, d.transpose, d.partitions, d.first_col, now, 0, 0};
    }
    if (d.hbm && shared_)
        shared_->claim_hbm(d.order, engine_, now + fixed, hbm_side_bytes(d));  // hbm_through() follows
    ++dma_.transfers;
    dma_.descriptors += descriptors(d);
    dma_.short_descriptors += short_descriptors(d);
    dma_.bytes += d.bytes;
    dma_.hbm_bytes += d.hbm ? hbm_side_bytes(d) : 0;
    dma_.transposes += d.transpose ? 1 : 0;
    q.q.pop();
    --q.armed;
    --queued_;
    --armed_;
    mark_pending(qi);
}

// After retire(): a share of a spread transfer fires the record's signals only when it is the
// last of its join to finish.
void DmaEngine::retire_share(Cycle now) {
    dma_.data_cycles += now - start_;
    queues_[active_queue_].last_end = now;
    ends_[end_pos_] = now;
    end_pos_ = (end_pos_ + 1) % outstanding_;
    if (join_ == kNoJoin || !shared_) return;
    SyncSet s;
    if (shared_->close_share(join_, s)) {
        sems_.signal(s, now);
        // The last share's path carries the transfer's signals (retire() kept it as the queue edge).
        if (CriticalPath* cp = sems_.path()) cp->retired(s, path_last_.ref, now);
    }
    join_ = kNoJoin;
}

bool DmaEngine::step(Cycle now) {
    bool changed = false;
    if (retire(now)) {
        retire_share(now);
        changed = true;
    }
    arm(now);
    if (!active_ && armed_ != 0) {  // a queue starts only an armed head
        const std::uint32_t n = static_cast<std::uint32_t>(queues_.size());
        if (const std::uint32_t qi = pick(now); qi < n) {
            start(qi, now);
            rr_ = (qi + 1) % n;
            arm(now);  // the next transfer of that queue starts its own start-up now
            changed = true;
        }
    }
    // Semaphore wait: the engine is free and every non-empty queue's head is blocked (no queue
    // has an armed transfer: a queue arms from its head).
    const bool waiting = !active_ && queued_ != 0 && armed_ == 0;
    if (waiting && wait_since_ == kNever) {
        wait_since_ = now;
        wait_site_ = kNoSourceSite;  // the first blocked head's site: the transfer the engine waits for
        for (const auto& q : queues_)
            if (!q.q.empty()) {
                wait_site_ = q.q.front().sync.site;
                break;
            }
    }
    if (!waiting && wait_since_ != kNever) {
        stats_.sem_wait += now - wait_since_;
        if (SiteProfile* sp = sems_.profile()) sp->at(wait_site_).sem_wait += now - wait_since_;
        wait_since_ = kNever;
    }
    return changed;
}

Wake DmaEngine::wake(Cycle now) const {
    Wake w = busy_wake(now);
    // A transfer in flight: the engine starts nothing before it retires, which busy_wake() covers
    // (the step that retires it looks at the armed heads then, and asks for a new wake-up).
    if (armed_ == 0 || active_) return w;
    for (const auto& q : queues_)
        if (q.armed && q.q.front().armed_at > now) w.at = std::min(w.at, q.q.front().armed_at);
    return w;
}

bool DmaEngine::blocked(BlockedHead& out) const {
    for (const auto& q : queues_) {
        if (q.q.empty()) continue;
        if (head_blocked(q.q.front().sync, q.q.front().line, q.name, out)) return true;
    }
    return false;
}

void DmaEngine::blocked_heads(std::vector<BlockedHead>& out) const {
    for (const auto& q : queues_) {
        BlockedHead b;
        if (!q.q.empty() && head_blocked(q.q.front().sync, q.q.front().line, q.name, b))
            out.push_back(std::move(b));
    }
}

void DmaEngine::finish(Cycle end) {
    if (wait_since_ != kNever) {
        stats_.sem_wait += end - wait_since_;
        if (SiteProfile* sp = sems_.profile()) sp->at(wait_site_).sem_wait += end - wait_since_;
        wait_since_ = kNever;
    }
}

}  // namespace sbufsim
