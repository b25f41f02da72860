#include "sbufsim/dma_engine.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sbufsim {

DmaEngine::DmaEngine(std::uint32_t engine, Kernel& kernel, Semaphores& sems, const Params& p,
                     const EngineTiming& t, std::vector<InstrEvent>* timeline, std::uint16_t index)
    : kernel_(kernel), sems_(sems), timing_(t), pe_ghz_(p.pe.clock_ghz), gbps_(p.dma.engine_gbps),
      round_(std::max<std::uint32_t>(1, p.dma.partition_round)), timeline_(timeline), index_(index) {
    const std::string name = "dma_" + std::to_string(engine);
    const auto c = kernel.client_index(name);
    if (!c) throw std::invalid_argument("dma: the kernel has no client " + name);
    client_ = *c;
    // ns x GHz = cycles.
    startup_ = static_cast<Cycle>(std::ceil(t.dma_startup_ns * pe_ghz_ - 1e-9));
    stats_.name = name;
}

std::uint32_t DmaEngine::add_queue(std::string name) {
    queues_.push_back(Queue{std::move(name), {}, kNever});
    return static_cast<std::uint32_t>(queues_.size() - 1);
}

Cycle DmaEngine::transfer_cycles(const DmaInstr& i) const {
    const std::uint64_t rounded = (std::uint64_t{i.partitions} + round_ - 1) / round_ * round_;
    const double bytes = static_cast<double>(rounded) * i.bytes_per_partition;
    double fraction = 1.0;
    if (i.transpose) fraction = i.sbuf_to_sbuf ? timing_.dma_xpose_fraction_sbuf : timing_.dma_xpose_fraction_hbm;
    // bytes / (GB/s) = ns; ns x GHz = cycles.
    const double cycles = bytes / (gbps_ * fraction) * pe_ghz_;
    return std::max<Cycle>(1, static_cast<Cycle>(std::ceil(cycles - 1e-9)));
}

bool DmaEngine::idle() const {
    if (active_) return false;
    for (const auto& q : queues_)
        if (!q.q.empty()) return false;
    return true;
}

std::size_t DmaEngine::queued() const {
    std::size_t n = 0;
    for (const auto& q : queues_) n += q.q.size();
    return n;
}

// Heads whose waits are met start their start-up latency.
void DmaEngine::arm(Cycle now) {
    for (auto& q : queues_)
        if (!q.q.empty() && q.armed_at == kNever && sems_.ready(q.q.front().sync)) q.armed_at = now + startup_;
}

void DmaEngine::start(std::uint32_t qi, Cycle now) {
    Queue& q = queues_[qi];
    const DmaInstr& d = q.q.front();
    active_ = true;
    start_ = now;
    sync_ = d.sync;
    line_ = d.line;
    reqs_.clear();
    if (d.rd.present()) {
        reqs_.submit(kernel_, (make_request(client_, Op::rd, d.rd, now)));
        stats_.bytes_read += d.rd.total_bytes();
    }
    if (d.wr.present()) {
        reqs_.submit(kernel_, (make_request(client_, Op::wr, d.wr, now)));
        stats_.bytes_written += d.wr.total_bytes();
    }
    compute_end_ = now + transfer_cycles(d);
    ++dma_.descriptors;
    dma_.bytes += d.bytes;
    dma_.transposes += d.transpose ? 1 : 0;
    if (stats_.first_start == kNever) stats_.first_start = now;
    q.q.pop();
    q.armed_at = kNever;
}

bool DmaEngine::step(Cycle now) {
    bool changed = false;
    if (active_ && now >= compute_end_ && reqs_.complete(kernel_)) {
        active_ = false;
        stats_.busy += now - start_;
        dma_.data_cycles += now - start_;
        stats_.bank_stall += now - compute_end_;
        ++stats_.instructions;
        stats_.last_end = now;
        sems_.signal(sync_, now);
        if (timeline_) timeline_->push_back({line_, index_, start_, now});
        changed = true;
    }
    arm(now);
    if (!active_) {
        const std::uint32_t n = static_cast<std::uint32_t>(queues_.size());
        for (std::uint32_t k = 0; k < n; ++k) {
            const std::uint32_t qi = (rr_ + k) % n;
            if (queues_[qi].armed_at <= now) {
                start(qi, now);
                rr_ = (qi + 1) % n;
                arm(now);  // the next descriptor of that queue starts its own start-up now
                changed = true;
                break;
            }
        }
    }
    // Semaphore wait: the engine is free and every non-empty queue's head is blocked.
    bool any_head = false, any_armed = false;
    for (const auto& q : queues_) {
        if (q.q.empty()) continue;
        any_head = true;
        any_armed |= q.armed_at != kNever;
    }
    const bool waiting = !active_ && any_head && !any_armed;
    if (waiting && wait_since_ == kNever) wait_since_ = now;
    if (!waiting && wait_since_ != kNever) {
        stats_.sem_wait += now - wait_since_;
        wait_since_ = kNever;
    }
    return changed;
}

Cycle DmaEngine::wake(Cycle now) const {
    Cycle w = kNever;
    if (active_) w = now < compute_end_ ? compute_end_ : poll_cycle(now, kernel_, reqs_);
    for (const auto& q : queues_)
        if (q.armed_at != kNever && q.armed_at > now) w = std::min(w, q.armed_at);
    return w;
}

bool DmaEngine::blocked(BlockedHead& out) const {
    for (const auto& q : queues_) {
        if (q.q.empty()) continue;
        const DmaInstr& h = q.q.front();
        const int w = sems_.first_unmet(h.sync);
        if (w < 0) continue;
        out = {h.line, q.name, h.sync.wait_sem[w], h.sync.wait_value[w], sems_.value(h.sync.wait_sem[w])};
        return true;
    }
    return false;
}

void DmaEngine::finish(Cycle end) {
    if (wait_since_ != kNever) {
        stats_.sem_wait += end - wait_since_;
        wait_since_ = kNever;
    }
}

}  // namespace sbufsim
