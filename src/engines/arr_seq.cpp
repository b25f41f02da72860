#include "sbufsim/engines/arr_seq.h"

#include <algorithm>
#include <stdexcept>

namespace sbufsim {

ArrSeq::ArrSeq(Kernel& kernel, Semaphores& sems, const Params& p, const EngineTiming& t,
               std::vector<InstrEvent>* timeline, std::uint16_t index)
    : kernel_(kernel), sems_(sems), timing_(t), csr_(p.arr_seq),
      quadrant_(std::max<std::uint32_t>(1, p.isa.quadrant_partitions)),
      row_groups_(std::clamp<std::uint32_t>(p.pe.row_groups, 1, kStage1Clients - 1)),
      row_group_parts_(std::max<std::uint32_t>(1, p.pe.rows / row_groups_)),
      bank_size_(static_cast<std::uint32_t>(std::max<std::uint64_t>(1, p.psum.bank_size))),
      timeline_(timeline), index_(index) {
    for (std::uint32_t i = 0; i < kStage1Clients; ++i) {
        const auto c = kernel.client_index("pe_client_" + std::to_string(i));
        if (!c) throw std::invalid_argument("arr_seq: the kernel has no client pe_client_" + std::to_string(i));
        pe_rd_.push_back(*c);
    }
    has_psum_ = p.has_psum();
    if (has_psum_) {
        const auto c = kernel.client_index("pe_wr");
        if (!c) throw std::invalid_argument("arr_seq: the kernel has no client pe_wr");
        pe_wr_ = *c;
    }
    open_.assign(std::max<std::uint32_t>(1, p.psum.banks), 0);
    double_row_ = p.pe.double_row;
    chunks_ = p.width.stream_chunks;
    beat_ = p.width.engine_bytes;
    stats_.name = "arr_seq";
}

std::uint32_t ArrSeq::matmul_ii(const ArrSeqInstr& i) const {
    // Moving columns streamed: a double-row matmul feeds two rows per PE column.
    std::uint64_t n = i.src.elems;
    if (i.double_row && double_row_) n = (n + 1) / 2;
    // The turnaround floor scales with the stationary's width up to MM_INIT_LATENCY.
    const std::uint64_t floor = i.stationary_cols ? std::min<std::uint64_t>(timing_.matmul_min_ii, i.stationary_cols)
                                                  : timing_.matmul_min_ii;
    return static_cast<std::uint32_t>(std::max(n, floor) * (i.fp32 ? timing_.matmul_fp32_factor : 1));
}

std::uint32_t ArrSeq::ldweights_cycles(const ArrSeqInstr& i) const {
    const std::uint64_t cols = i.cols ? i.cols : i.src.elems;
    const std::uint64_t speedup = std::max<std::uint32_t>(1, timing_.ls_speedup);
    const std::uint64_t n = std::max<std::uint64_t>(timing_.ldweights_min_cycles, (cols + speedup - 1) / speedup);
    return static_cast<std::uint32_t>(n * (i.fp32 ? timing_.matmul_fp32_factor : 1));
}

bool ArrSeq::idle() const { return queue_.empty() && !ldw_.active && !array_.active && drain_.empty(); }

// One request per PE row group the access covers (pe.rows / pe.row_groups partitions each: a
// 32-partition quadrant on 4-group arrays, 64 partitions on maverick's 2), group q on
// pe_client_q, delayed by row group q's stagger timer (seed 000 §5.6 array_stagger_rg{q}_ctrl1).
// Partitions past pe.rows belong to the last group.
void ArrSeq::read_by_row_group(const TensorAccess& a, Cycle now, Cycle span, RequestSet& into) {
    if (!a.present()) return;
    std::uint32_t p = a.first;
    const std::uint32_t end = a.first + a.parts;
    while (p < end) {
        const std::uint32_t q = p / row_group_parts_;
        const std::uint32_t rg = std::min(q, row_groups_ - 1);
        const std::uint32_t stop = rg == row_groups_ - 1 ? end : std::min(end, (q + 1) * row_group_parts_);
        TensorAccess part = a;
        part.first = static_cast<std::uint16_t>(p);
        part.parts = static_cast<std::uint16_t>(stop - p);
        submit_paced(kernel_, into, pe_rd_[rg], Op::rd, part, now + csr_.rg_stagger[rg], Pacing{span, chunks_, beat_});
        p = stop;
    }
    stats_.bytes_read += a.total_bytes();
}

void ArrSeq::start_ldweights(const ArrSeqInstr& i, Cycle now) {
    ldw_.active = true;
    ldw_.start = now;
    ldw_.compute_end = now + ldweights_cycles(i);
    ldw_.sync = i.sync;
    ldw_.line = i.line;
    ldw_.reqs.clear();
    loaded_cols_ = i.cols;
    if (CriticalPath* cp = sems_.path()) {
        ldw_.from = cp->pick(CriticalPath::later(path_ldw_, path_mm_start_), i.sync);
        cp->retain(ldw_.from.ref);
    }
    // The fan-out client reads the whole stationary tile once (see arr_seq.h).
    if (i.src.present()) {
        submit_paced(kernel_, ldw_.reqs, pe_rd_[kStage1Clients - 1], Op::rd, i.src, now,
                     Pacing{ldw_.compute_end - now, chunks_, beat_});
        stats_.bytes_read += i.src.total_bytes();
    }
    ++arr_.ldweights;
}

void ArrSeq::track_group(const ArrSeqInstr& i) {
    const std::uint32_t bank = std::min<std::uint32_t>(i.dst.offset / bank_size_,
                                                       static_cast<std::uint32_t>(open_.size() - 1));
    std::uint8_t quads = 0;
    for (std::uint32_t p = i.dst.first / quadrant_; p * quadrant_ < std::uint32_t{i.dst.first} + i.dst.parts && p < 8; ++p)
        quads |= static_cast<std::uint8_t>(1u << p);
    if (i.acc_flags & 1u) {  // BEGIN
        if (open_groups_ >= csr_.max_groups) ++arr_.group_limit_exceeded;
        if (!(open_[bank] & quads)) ++open_groups_;
        open_[bank] |= quads;
        ++arr_.groups_begun;
        arr_.psum_banks_zeroed += (std::uint64_t{2048} << i.zero_region) / bank_size_;
        arr_.peak_open_groups = std::max(arr_.peak_open_groups, open_groups_);
    }
    if (i.acc_flags & 2u) {  // END
        if (open_[bank] & quads) --open_groups_;
        open_[bank] &= static_cast<std::uint8_t>(~quads);
        ++arr_.groups_ended;
    }
}

void ArrSeq::start_matmul(const ArrSeqInstr& in, Cycle now) {
    ArrSeqInstr i = in;
    i.stationary_cols = loaded_cols_;
    const std::uint32_t ii = matmul_ii(i);
    array_.active = true;
    array_.start = now;
    array_.compute_end = now + ii;
    array_.sync = i.sync;
    array_.line = i.line;
    array_.reqs.clear();
    weights_unlatched_ = false;
    if (CriticalPath* cp = sems_.path()) {
        array_.from = cp->pick(CriticalPath::later(path_release_, path_ldw_), i.sync);
        cp->retain(array_.from.ref);
        const CriticalPath::Ref s = cp->extend(array_.from, index_, now, now, now, now, false);
        cp->release(path_mm_start_.ref);
        path_mm_start_ = {s, now, CriticalPath::Edge::queue};
    }
    read_by_row_group(i.src, now, ii, array_.reqs);
    // The drain requests ride in the same InFlight until the array releases the matmul; keep
    // them apart by moving them into the drain entry at release (see retire()).
    array_drain_.clear();
    if (has_psum_ && i.dst.present()) {
        const bool begin = i.acc_flags & 1u;
        const Cycle at = now + timing_.pe_drain_latency;
        array_drain_.submit(kernel_, make_request(pe_wr_, begin ? Op::wr : Op::raw, i.dst, at));
        if (at > now) unproduced_.push(at);
        (begin ? arr_.psum_write_bytes : arr_.psum_accumulate_bytes) += i.dst.total_bytes();
        stats_.bytes_written += i.dst.total_bytes();
    }
    track_group(i);
    ++arr_.matmuls;
    arr_.pe_stream += ii;
    arr_.macs += std::uint64_t{i.rows} * i.cols * i.src.elems;
    const std::string shape = std::to_string(i.rows) + "x" + std::to_string(i.cols);
    auto it = std::find_if(arr_.shapes.begin(), arr_.shapes.end(), [&](const auto& s) { return s.first == shape; });
    if (it == arr_.shapes.end())
        arr_.shapes.emplace_back(shape, 1);
    else
        ++it->second;
}

CriticalPath::Ref ArrSeq::complete(const InFlight& f, Cycle now, Cycle seg_start, Cycle compute_end, Cycle release) {
    ++stats_.instructions;
    stats_.last_end = now;
    sems_.signal(f.sync, now);
    if (timeline_) timeline_->push_back({f.line, index_, f.start, now});
    CriticalPath* cp = sems_.path();
    if (!cp) return CriticalPath::kNone;
    const CriticalPath::Ref r = cp->extend(f.from, index_, seg_start, compute_end, release, now, true);
    cp->release(f.from.ref);
    cp->retired(f.sync, r, now);
    return r;
}

ArrSeq::State ArrSeq::classify(Cycle now) const {
    if ((ldw_.active && now < ldw_.compute_end) || (array_.active && now < array_.compute_end)) return State::compute;
    if (ldw_.active || array_.active) return State::bank_wait;
    if (!drain_.empty()) return State::compute;  // the array's results on their way to PSUM
    return blocked_since_ != kNever ? State::sem_wait : State::idle;
}

void ArrSeq::account(Cycle now) {
    if (now > state_since_) state_cycles_[static_cast<std::size_t>(state_)] += now - state_since_;
    state_since_ = now;
}

bool ArrSeq::retire(Cycle now) {
    bool changed = false;
    if (ldw_.active && now >= ldw_.compute_end && ldw_.reqs.complete(kernel_)) {
        ldw_.active = false;
        weights_unlatched_ = true;
        const CriticalPath::Ref r = complete(ldw_, now, ldw_.start, ldw_.compute_end, now);
        if (CriticalPath* cp = sems_.path()) {
            cp->release(path_ldw_.ref);
            path_ldw_ = {r, now, CriticalPath::Edge::queue};
        }
        changed = true;
    }
    if (array_.active && now >= array_.compute_end && array_.reqs.complete(kernel_)) {
        array_.active = false;
        arr_.pe_busy += now - array_.start;
        array_free_ = now + (csr_.en_inter_instr_dly ? csr_.inter_instr_dly_cnt : 0);
        InFlight d = array_;
        d.reqs = array_drain_;
        if (CriticalPath* cp = sems_.path()) {
            // The matmul's path to the array's release; its drain continues from there.
            const CriticalPath::Ref rel =
                cp->extend(array_.from, index_, array_.start, array_.compute_end, now, now, false);
            cp->release(array_.from.ref);
            cp->release(path_release_.ref);
            path_release_ = {rel, now, CriticalPath::Edge::queue};
            cp->retain(rel);
            d.from = {rel, now, CriticalPath::Edge::internal};
        }
        drain_.push(d);
        changed = true;
    }
    while (!drain_.empty() && drain_.front().reqs.complete(kernel_)) {
        const Cycle released = drain_.front().from.at;
        complete(drain_.front(), now, released, released, released);
        drain_.pop();
        changed = true;
    }
    return changed;
}

bool ArrSeq::try_start(Cycle now) {
    bool changed = false;
    while (!queue_.empty()) {
        const ArrSeqInstr& h = queue_.front();
        const bool mm = h.kind == ArrSeqInstr::Kind::matmul;
        // Hardware resources first: a semaphore wait only counts while the engine could run.
        // disable_dependency_check single-threads the queue: nothing overlaps the instruction
        // before, its PSUM writes included (seed 000 §5.6).
        if (csr_.disable_dependency_check && (ldw_.active || array_.active || !drain_.empty())) break;
        if (mm) {
            if (array_.active || now < array_free_) break;
            // flush_p2f_fifos: the PE-to-FIFO path toward PSUM is flushed before the next
            // matmul's responses, so it waits for the earlier matmuls' PSUM writes (§5.6).
            if (csr_.flush_p2f_fifos && !drain_.empty()) break;
            if (ldw_.active) {
                if (weight_wait_since_ == kNever) weight_wait_since_ = now;
                break;
            }
        } else if (ldw_.active || weights_unlatched_) {
            break;
        }
        if (!sems_.ready(h.sync)) {
            if (blocked_since_ == kNever) blocked_since_ = now;
            break;
        }
        blocked_since_ = kNever;
        if (weight_wait_since_ != kNever) arr_.weight_wait += now - weight_wait_since_;
        weight_wait_since_ = kNever;
        if (stats_.first_start == kNever) stats_.first_start = now;
        if (mm)
            start_matmul(h, now);
        else
            start_ldweights(h, now);
        queue_.pop();
        changed = true;
    }
    return changed;
}

void ArrSeq::update_backpressure(Cycle now) {
    if (!has_psum_) return;
    // A write not yet issued is still queued in the kernel (nothing is granted before its issue
    // cycle): subtracting the unproduced ones leaves the writes in the FIFO. Issue cycles grow
    // with the matmuls' starts, so the ring stays sorted.
    while (!unproduced_.empty() && unproduced_.front() <= now) unproduced_.pop();
    const bool af = kernel_.queued(pe_wr_) - unproduced_.size() > csr_.p2fifo_af;
    if (af == backpressure_) return;
    backpressure_ = af;
    for (ClientId c : pe_rd_) kernel_.set_backpressure(c, af);
    if (af)
        backpressure_since_ = now;
    else
        arr_.backpressure_cycles += now - backpressure_since_;
}

bool ArrSeq::step(Cycle now) {
    account(now);
    const bool was_busy = ldw_.active || array_.active || !drain_.empty();
    bool changed = retire(now);
    changed |= try_start(now);
    update_backpressure(now);
    const bool busy = ldw_.active || array_.active || !drain_.empty();
    if (!was_busy && busy) busy_since_ = now;
    if (was_busy && !busy && busy_since_ != kNever) {
        stats_.busy += now - busy_since_;
        busy_since_ = kNever;
    }
    state_ = classify(now);
    return changed;
}

Wake ArrSeq::wake(Cycle now) const {
    Wake w;
    auto until = [&](const InFlight& f) {
        if (!f.active) return;
        w.merge(now < f.compute_end ? Wake{f.compute_end, 0} : requests_wake(now, kernel_, f.reqs));
    };
    until(ldw_);
    until(array_);
    if (!drain_.empty()) w.merge(requests_wake(now, kernel_, drain_.front().reqs));
    if (!queue_.empty() && !array_.active && array_free_ > now) w.at = std::min(w.at, array_free_);
    // p2fifo almost-full is released by the kernel draining pe_wr (which may carry writes this
    // engine did not issue, e.g. access records): watch its completions while it is asserted.
    if (backpressure_) w.watch |= std::uint64_t{1} << index(pe_wr_);
    // A write entering the FIFO may assert almost-full.
    if (!unproduced_.empty()) w.at = std::min(w.at, std::max(now + 1, unproduced_.front()));
    return w;
}

bool ArrSeq::blocked(BlockedHead& out) const {
    if (queue_.empty()) return false;
    const ArrSeqInstr& h = queue_.front();
    const int w = sems_.first_unmet(h.sync);
    if (w < 0) return false;
    out = {h.line, queue_name_, h.sync.wait_sem[w], h.sync.wait_value[w], sems_.value(h.sync.wait_sem[w])};
    return true;
}

void ArrSeq::finish(Cycle end) {
    account(end);
    stats_.sem_wait = state_cycles_[static_cast<std::size_t>(State::sem_wait)];
    stats_.bank_wait = state_cycles_[static_cast<std::size_t>(State::bank_wait)];
    if (busy_since_ != kNever) {
        stats_.busy += end - busy_since_;
        busy_since_ = kNever;
    }
    if (backpressure_) {
        arr_.backpressure_cycles += end - backpressure_since_;
        backpressure_since_ = end;
    }
}

}  // namespace sbufsim
