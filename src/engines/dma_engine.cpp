#include "sbufsim/engines/dma_engine.h"

#include <algorithm>
#include <cmath>

namespace sbufsim {

DmaEngine::DmaEngine(std::uint32_t engine, Kernel& kernel, Semaphores& sems, const Params& p,
                     const EngineTiming& t, std::vector<InstrEvent>* timeline, std::uint16_t index)
    : SerialEngine(kernel, sems, t, timeline, index), pe_ghz_(p.pe.clock_ghz), gbps_(p.dma.engine_gbps),
      round_(std::max<std::uint32_t>(1, p.dma.partition_round)) {
    const std::string name = "dma_" + std::to_string(engine);
    client_ = need_client(kernel, name, "dma");
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
    begin(d.sync, d.line, now);
    if (d.rd.present()) {
        reqs_.submit(kernel_, make_request(client_, Op::rd, d.rd, now));
        stats_.bytes_read += d.rd.total_bytes();
    }
    if (d.wr.present()) {
        reqs_.submit(kernel_, make_request(client_, Op::wr, d.wr, now));
        stats_.bytes_written += d.wr.total_bytes();
    }
    compute_end_ = now + transfer_cycles(d);
    ++dma_.descriptors;
    dma_.bytes += d.bytes;
    dma_.transposes += d.transpose ? 1 : 0;
    q.q.pop();
    q.armed_at = kNever;
}

bool DmaEngine::step(Cycle now) {
    bool changed = false;
    if (retire(now)) {
        dma_.data_cycles += now - start_;
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

Wake DmaEngine::wake(Cycle now) const {
    Wake w = busy_wake(now);
    for (const auto& q : queues_)
        if (q.armed_at != kNever && q.armed_at > now) w.at = std::min(w.at, q.armed_at);
    return w;
}

bool DmaEngine::blocked(BlockedHead& out) const {
    for (const auto& q : queues_) {
        if (q.q.empty()) continue;
        if (head_blocked(q.q.front().sync, q.q.front().line, q.name, out)) return true;
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
