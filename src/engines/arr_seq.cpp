#include "sbufsim/engines/arr_seq.h"

#include <algorithm>
#include <bit>
#include <cmath>
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
    ramp_start_ = std::clamp(p.pe.ramp_start, 0.01, 1.0);
    const double ramp_cycles = p.pe.ramp_ns * p.pe.clock_ghz;
    ramp_slope_ = ramp_cycles > 0 ? (1 - ramp_start_) / ramp_cycles : 0;
    if (ramp_slope_ <= 0) ramp_start_ = 1;
    ramp_gap_ =
        static_cast<Cycle>(std::ceil((1 - p.pe.ramp_reengage) * p.pe.ramp_window_ns * p.pe.clock_ghz - 1e-9));
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
    blocks_ = PeBlocks(p);
    background_transpose_ = p.pe.background_transpose;
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
    // fp32 streams at a quarter rate; a transpose in NC-v3's transpose mode at half (trn2 guide).
    const std::uint32_t fp32 = i.transpose ? timing_.transpose_fp32_factor
                               : i.onezero ? timing_.fp32_onezero_factor
                                           : timing_.matmul_fp32_factor;
    return static_cast<std::uint32_t>(std::max(n, floor) * (i.fp32 ? fp32 : 1));
}

std::uint32_t ArrSeq::ldweights_cycles(const ArrSeqInstr& i) const {
    const std::uint64_t cols = i.cols ? i.cols : i.src.elems;
    const std::uint64_t speedup = std::max<std::uint32_t>(1, timing_.ls_speedup);
    const std::uint64_t n = std::max<std::uint64_t>(timing_.ldweights_min_cycles, (cols + speedup - 1) / speedup);
    return static_cast<std::uint32_t>(n * (i.fp32 ? timing_.matmul_fp32_factor : 1));
}

std::uint64_t ArrSeq::blocks_of(const ArrSeqInstr& i) const {
    return blocks_.of(i.tile_row, i.tile_col, i.tile_rows, i.tile_cols);
}

bool ArrSeq::idle() const { return queue_.empty() && !ldw_.active && !streaming() && drain_.empty(); }

bool ArrSeq::array_admits(std::uint64_t blocks, bool transpose) const {
    std::uint64_t once = 0, twice = 0, matmul = 0;
    for (std::uint64_t a = streams_active_; a; a &= a - 1) {
        const Stream& st = streams_[static_cast<std::size_t>(__builtin_ctzll(a))];
        const std::uint64_t b = st.blocks & blocks;
        twice |= once & b;
        once |= b;
        if (!st.transpose) matmul |= b;
    }
    if (!once) return true;
    // Background transpose (NC-v4): a block streams at most two things, at most one of them not
    // a transpose ("a transpose operation in parallel to another matrix multiplication (or
    // another transpose)", trn3 arch guide).
    // The sequencer runs it only while queue_cfg.disable_bg_xpose is clear (seed 000 §5.6).
    return background_transpose_ && !csr_.disable_bg_xpose && !twice && (transpose || !matmul);
}

Cycle ArrSeq::blocks_free(std::uint64_t blocks) const {
    Cycle at = 0;
    for (std::uint64_t b = blocks; b; b &= b - 1) at = std::max(at, block_free_[static_cast<std::size_t>(__builtin_ctzll(b))]);
    return at;
}

Cycle ArrSeq::add_block_cycles(std::uint64_t blocks, Cycle from, Cycle to, std::array<Cycle, 64>& until) {
    Cycle n = 0;
    for (std::uint64_t b = blocks; b; b &= b - 1) {
        Cycle& u = until[static_cast<std::size_t>(__builtin_ctzll(b))];
        const Cycle lo = std::max(from, u);
        if (to > lo) n += to - lo;
        u = std::max(u, to);
    }
    return n;
}

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

// The scale rows move as one burst per quadrant ahead of the data: a client's requests complete
// in order, so scales queued behind the last paced chunk of data would hold the matmul past its
// initiation interval.
void ArrSeq::read_scales(const ArrSeqInstr& i, Cycle now, RequestSet& into, bool fan_out) {
    if (!i.mx || !i.scale.present() || !i.src.present()) return;
    const std::uint32_t end = std::uint32_t{i.src.first} + i.src.parts;
    for (std::uint32_t q = i.src.first / quadrant_; q * quadrant_ < end; ++q) {
        const std::uint32_t lo = std::max<std::uint32_t>(i.src.first, q * quadrant_);
        const std::uint32_t hi = std::min(end, (q + 1) * quadrant_);
        TensorAccess part = i.scale;
        part.first = static_cast<std::uint16_t>(q * quadrant_ + i.scale.first % quadrant_);
        part.parts = static_cast<std::uint16_t>((hi - lo + 7) / 8);
        const std::uint32_t rg = std::min(lo / row_group_parts_, row_groups_ - 1);
        into.submit(kernel_, make_request(fan_out ? pe_rd_[kStage1Clients - 1] : pe_rd_[rg], Op::rd, part,
                                          now + (fan_out ? 0 : csr_.rg_stagger[rg])));
        stats_.bytes_read += part.total_bytes();
    }
}

void ArrSeq::start_ldweights(const ArrSeqInstr& i, Cycle now) {
    ldw_.active = true;
    ldw_blocks_ = blocks_of(i);
    ldw_.start = now;
    ldw_.compute_end = now + ldweights_cycles(i);
    ldw_.sync = i.sync;
    ldw_.line = i.line;
    started_site_ = i.sync.site;
    ldw_.reqs.clear();
    for (std::uint64_t b = ldw_blocks_; b; b &= b - 1) loaded_cols_[static_cast<std::size_t>(__builtin_ctzll(b))] = i.cols;
    if (CriticalPath* cp = sems_.path()) {
        ldw_.from = cp->pick(CriticalPath::later(path_ldw_, path_mm_start_), i.sync);
        cp->retain(ldw_.from.ref);
    }
    // The fan-out client reads the whole stationary tile once (see arr_seq.h).
    read_scales(i, now, ldw_.reqs, true);
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

Cycle ArrSeq::throttled(std::uint32_t ii, Cycle now) {
    if (!ramp_started_ || now >= ramp_busy_until_ + ramp_gap_) {  // (re-)engaged
        ramp_from_ = now;
        ++arr_.ramp_engaged;
    }
    ramp_started_ = true;
    const double since = static_cast<double>(now - ramp_from_);
    const double rate = ramp_start_ + ramp_slope_ * since;
    Cycle t = ii;
    if (rate < 1) {
        // Work done over t cycles at a rate growing from `rate` by ramp_slope_ per cycle, capped
        // at 1 once the ramp is over.
        const double left = (1 - rate) / ramp_slope_;  // cycles to full rate
        const double in_ramp = rate * left + ramp_slope_ * left * left / 2;
        const double work = static_cast<double>(ii);
        const double d = work >= in_ramp
                             ? left + (work - in_ramp)
                             : (std::sqrt(rate * rate + 2 * ramp_slope_ * work) - rate) / ramp_slope_;
        t = std::max<Cycle>(ii, static_cast<Cycle>(std::ceil(d - 1e-9)));
    }
    ramp_busy_until_ = std::max(ramp_busy_until_, now + t);
    return t;
}

void ArrSeq::start_matmul(const ArrSeqInstr& in, std::uint64_t blocks, Cycle now) {
    ArrSeqInstr i = in;
    // The stationary latched on the tile (its first block; an LdWeights loads all its blocks).
    i.stationary_cols = loaded_cols_[static_cast<std::size_t>(__builtin_ctzll(blocks))];
    const std::uint32_t full_rate = matmul_ii(i);
    const std::uint32_t ii =
        static_cast<std::uint32_t>(ramp_start_ < 1 ? throttled(full_rate, now) : full_rate);
    arr_.ramp_cycles += ii - full_rate;
    const std::size_t slot = static_cast<std::size_t>(__builtin_ctzll(~streams_active_));
    streams_active_ |= std::uint64_t{1} << slot;
    Stream& st = streams_[slot];
    st.blocks = blocks;
    st.transpose = i.transpose;
    InFlight& f = st.f;
    f.active = true;
    f.start = now;
    f.compute_end = now + ii;
    f.sync = i.sync;
    f.line = i.line;
    started_site_ = stream_site_ = i.sync.site;
    f.reqs.clear();
    unlatched_ &= ~blocks;
    if (CriticalPath* cp = sems_.path()) {
        f.from = cp->pick(CriticalPath::later(path_release_, path_ldw_), i.sync);
        cp->retain(f.from.ref);
        // The matmul counts as an instruction on a path through its start (an LdWeights waiting
        // for it to start) or through its release; the two extend the same point, so a path holds
        // at most one of them, and its drain (below) extends the release.
        const CriticalPath::Ref s = cp->extend(f.from, index_, now, now, now, now, true, i.sync.site);
        cp->release(path_mm_start_.ref);
        path_mm_start_ = {s, now, CriticalPath::Edge::queue};
    }
    read_scales(i, now, f.reqs, false);
    read_by_row_group(i.src, now, ii, f.reqs);
    // The drain requests wait beside the stream until the array releases the matmul; they move
    // into the drain entry at release (see retire()).
    st.drain.clear();
    if (has_psum_ && i.dst.present()) {
        const bool begin = i.acc_flags & 1u;
        const Cycle at = now + timing_.pe_drain_latency;
        st.drain.submit(kernel_, make_request(pe_wr_, begin ? Op::wr : Op::raw, i.dst, at));
        if (at > now) unproduced_.push(at);
        (begin ? arr_.psum_write_bytes : arr_.psum_accumulate_bytes) += i.dst.total_bytes();
        stats_.bytes_written += i.dst.total_bytes();
    }
    track_group(i);
    ++arr_.matmuls;
    stream_block_cycles_ += add_block_cycles(blocks, now, now + ii, streamed_until_);
    arr_.pe_stream = stream_block_cycles_ / std::max<std::uint64_t>(1, std::popcount(blocks_.all));
    arr_.macs += std::uint64_t{i.rows} * i.cols * i.src.elems * (i.mx ? 4 : 1);
    const std::string shape = std::to_string(i.rows) + "x" + std::to_string(i.cols);
    auto it = std::find_if(arr_.shapes.begin(), arr_.shapes.end(), [&](const auto& s) { return s.first == shape; });
    if (it == arr_.shapes.end())
        arr_.shapes.emplace_back(shape, 1);
    else
        ++it->second;
}

CriticalPath::Ref ArrSeq::complete(const InFlight& f, Cycle now, Cycle seg_start, Cycle compute_end,
                                   Cycle release, bool instruction) {
    ++stats_.instructions;
    if (SiteProfile* sp = sems_.profile()) ++sp->at(f.sync.site).instructions;
    stats_.last_end = now;
    sems_.signal(f.sync, now);
    if (timeline_) timeline_->push_back({f.line, index_, f.start, now});
    CriticalPath* cp = sems_.path();
    if (!cp) return CriticalPath::kNone;
    const CriticalPath::Ref r =
        cp->extend(f.from, index_, seg_start, compute_end, release, now, instruction, f.sync.site);
    cp->release(f.from.ref);
    cp->retired(f.sync, r, now);
    return r;
}

ArrSeq::State ArrSeq::classify(Cycle now) const {
    bool computing = ldw_.active && now < ldw_.compute_end;
    for (std::uint64_t a = streams_active_; a && !computing; a &= a - 1)
        computing = now < streams_[static_cast<std::size_t>(__builtin_ctzll(a))].f.compute_end;
    if (computing) return State::compute;
    if (ldw_.active || streaming()) return State::bank_wait;
    if (!drain_.empty()) return State::compute;  // the array's results on their way to PSUM
    return blocked_since_ != kNever ? State::sem_wait : State::idle;
}

void ArrSeq::account(Cycle now) {
    if (now > state_since_) {
        state_cycles_[static_cast<std::size_t>(state_)] += now - state_since_;
        if (SiteProfile* sp = sems_.profile()) profile_window(*sp, now - state_since_);
    }
    state_since_ = now;
}

bool ArrSeq::retire(Cycle now) {
    bool changed = false;
    if (ldw_.active && now >= ldw_.compute_end && ldw_.reqs.complete(kernel_)) {
        ldw_.active = false;
        unlatched_ |= ldw_blocks_;
        const CriticalPath::Ref r = complete(ldw_, now, ldw_.start, ldw_.compute_end, now, true);
        if (CriticalPath* cp = sems_.path()) {
            cp->release(path_ldw_.ref);
            path_ldw_ = {r, now, CriticalPath::Edge::queue};
        }
        changed = true;
    }
    for (std::uint64_t a = streams_active_; a; a &= a - 1) {
        const std::size_t slot = static_cast<std::size_t>(__builtin_ctzll(a));
        Stream& st = streams_[slot];
        InFlight& f = st.f;
        if (now < f.compute_end || !f.reqs.complete(kernel_)) continue;
        f.active = false;
        streams_active_ &= ~(std::uint64_t{1} << slot);
        busy_block_cycles_ += add_block_cycles(st.blocks, f.start, now, busy_until_);
        arr_.pe_busy = busy_block_cycles_ / std::max<std::uint64_t>(1, std::popcount(blocks_.all));
        const Cycle free_at = now + (csr_.en_inter_instr_dly ? csr_.inter_instr_dly_cnt : 0);
        for (std::uint64_t b = st.blocks; b; b &= b - 1) block_free_[static_cast<std::size_t>(__builtin_ctzll(b))] = free_at;
        InFlight d = f;
        d.reqs = st.drain;
        if (CriticalPath* cp = sems_.path()) {
            // The matmul's path to the array's release; its drain continues from there.
            const CriticalPath::Ref rel =
                cp->extend(f.from, index_, f.start, f.compute_end, now, now, true, f.sync.site);
            cp->release(f.from.ref);
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
        complete(drain_.front(), now, released, released, released, false);  // counted at its release
        drain_.pop();
        changed = true;
    }
    return changed;
}

// An LdWeights at the head that waited for its semaphores while the matmul after it could have
// started (its own waits met, its blocks free): the stationary tile came after the moving data.
// A wait met at its semaphore's latest signal: a later signal of the same semaphore makes this
// an underestimate, never more.
void ArrSeq::note_stationary_wait(Cycle now) {
    if (blocked_since_ == kNever || queue_.size() < 2) return;
    const ArrSeqInstr& next = queue_.at(1);
    if (next.kind != ArrSeqInstr::Kind::matmul || !sems_.ready(next.sync)) return;
    Cycle ready = std::max(blocked_since_, blocks_free(blocks_of(next)));
    for (std::uint32_t i = 0; i < next.sync.waits; ++i)
        if (next.sync.wait_value[i]) ready = std::max(ready, sems_.last_signal(next.sync.wait_sem[i]));
    if (now > ready) arr_.stationary_wait += now - ready;
}

void ArrSeq::end_weight_wait(Cycle now) {
    if (weight_wait_since_ != kNever) arr_.weight_wait += now - weight_wait_since_;
    weight_wait_since_ = kNever;
}

bool ArrSeq::try_start(Cycle now) {
    bool changed = false;
    while (!queue_.empty()) {
        const ArrSeqInstr& h = queue_.front();
        const bool mm = h.kind == ArrSeqInstr::Kind::matmul;
        // Hardware resources first: a semaphore wait only counts while the engine could run.
        // disable_dependency_check single-threads the queue: nothing overlaps the instruction
        // before, its PSUM writes included (seed 000 §5.6).
        if (csr_.disable_dependency_check && (ldw_.active || streaming() || !drain_.empty())) break;
        const std::uint64_t blocks = blocks_of(h);
        if (mm) {
            // Its PE blocks: free of other streams (or beside one, for a background transpose)
            // and past the inter-instruction delay.
            if (!array_admits(blocks, h.transpose) || now < blocks_free(blocks)) break;
            // flush_p2f_fifos: the PE-to-FIFO path toward PSUM is flushed before the next
            // matmul's responses, so it waits for the earlier matmuls' PSUM writes (§5.6).
            if (csr_.flush_p2f_fifos && !drain_.empty()) break;
            if (ldw_.active && (ldw_blocks_ & blocks)) {
                if (weight_wait_since_ == kNever) weight_wait_since_ = now;
                break;
            }
            // Its LdWeights is done: what it waits for from here on is not its weights.
            end_weight_wait(now);
        } else if (ldw_.active) {
            // One weight load at a time. Loaded weights no matmul has latched yet are replaced
            // (the tile's background weight buffer holds one stationary): counted, as the load
            // before was wasted work.
            break;
        }
        if (!sems_.ready(h.sync)) {
            if (blocked_since_ == kNever) blocked_since_ = now;
            break;
        }
        if (!mm) note_stationary_wait(now);
        blocked_since_ = kNever;
        if (stats_.first_start == kNever) stats_.first_start = now;
        if (mm) {
            start_matmul(h, blocks, now);
        } else {
            if (unlatched_ & blocks) ++arr_.ldweights_replaced;
            start_ldweights(h, now);
        }
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
    const bool was_busy = ldw_.active || streaming() || !drain_.empty();
    bool changed = retire(now);
    changed |= try_start(now);
    update_backpressure(now);
    const bool busy = ldw_.active || streaming() || !drain_.empty();
    if (!was_busy && busy) busy_since_ = now;
    if (was_busy && !busy && busy_since_ != kNever) {
        stats_.busy += now - busy_since_;
        busy_since_ = kNever;
    }
    state_ = classify(now);
    // Whom the cycles up to the next step are charged to: the queue head while it waits a
    // semaphore, else the matmul the array streamed last (an LdWeights loads beside it), else the
    // LdWeights, else the instruction started last (its results draining to PSUM).
    state_site_ = state_ == State::sem_wait && !queue_.empty() ? queue_.front().sync.site
                  : streaming()                                ? stream_site_
                  : ldw_.active                                ? ldw_.sync.site
                                                               : started_site_;
    return changed;
}

// Busy (compute or bank wait) and semaphore-wait cycles of one window between two steps, as
// stats_ counts them (busy_since_, state_cycles_), to state_site_.
void ArrSeq::profile_window(SiteProfile& sp, Cycle n) const {
    if (state_ == State::idle) return;
    SiteCounters& c = sp.at(state_site_);
    if (state_ == State::sem_wait) {
        c.sem_wait += n;
        return;
    }
    c.busy[static_cast<std::size_t>(EngineGroup::pe)] += n;
    if (state_ == State::bank_wait) c.bank_wait[static_cast<std::size_t>(EngineGroup::pe)] += n;
}

Wake ArrSeq::wake(Cycle now) const {
    Wake w;
    auto until = [&](const InFlight& f) {
        if (!f.active) return;
        w.merge(now < f.compute_end ? Wake{f.compute_end, 0} : requests_wake(now, kernel_, f.reqs));
    };
    until(ldw_);
    for (std::uint64_t a = streams_active_; a; a &= a - 1) until(streams_[static_cast<std::size_t>(__builtin_ctzll(a))].f);
    if (!drain_.empty()) w.merge(requests_wake(now, kernel_, drain_.front().reqs));
    // The queue head's blocks come free of the inter-instruction delay.
    if (!queue_.empty() && queue_.front().kind == ArrSeqInstr::Kind::matmul) {
        const ArrSeqInstr& h = queue_.front();
        const Cycle free_at = blocks_free(blocks_of(h));
        if (free_at > now && array_admits(blocks_of(h), h.transpose)) w.at = std::min(w.at, free_at);
    }
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
