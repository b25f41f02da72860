#include "sbufsim/replay/replay_session.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <memory>

namespace sbufsim {

namespace {
constexpr std::uint32_t kUnresolved = 0xffffffffu;

// Runs `f` (a kernel call) and, when `seconds` is set, adds its wall-clock time to it
// (ReplayOptions::kernel_seconds); unmeasured runs pay one null test.
template <class F>
RunStatus in_kernel(double* seconds, F&& f) {
    if (!seconds) return f();
    const auto t0 = std::chrono::steady_clock::now();
    const RunStatus s = f();
    *seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return s;
}
}  // namespace

ReplaySession::ReplaySession(const Params& p, TraceReader& reader, const ReplayOptions& o)
    : params_(p),
      opt_(o),
      reader_(reader),
      map_(p),
      kernel_(p, KernelOptions{}),
      sems_(std::max<std::uint32_t>(1, p.isa.num_semaphores)),
      path_(4 + p.dma.engines + p.q7.cores, sems_.size()),
      checker_(p, reader.file()),
      races_(p, reader.file()),
      ports_(p.concurrency.scope == ExclusiveScope::instruction && p.concurrency.dve_gpsimd_sbuf_exclusive,
             p.concurrency.scope == ExclusiveScope::instruction && p.concurrency.dve_act_psum_exclusive) {
    kernel_.set_probe(o.probe);
    sems_.set_path(&path_);
    sems_.set_profile(&profile_);
    dma_shared_ = std::make_unique<DmaShared>(p.dma.hbm_gbps, p.pe.clock_ghz);
    triggers_ = std::make_unique<DmaTriggers>(p);
    auto* tl = o.record_timeline ? &result_.timeline : nullptr;
    std::uint16_t idx = 0;
    arr_ = std::make_unique<ArrSeq>(kernel_, sems_, p, p.timing, tl, idx++);
    engines_.push_back(arr_.get());
    for (ComputeKind k : {ComputeKind::act, ComputeKind::pool, ComputeKind::dve}) {
        compute_.push_back(std::make_unique<ComputeEngine>(k, kernel_, sems_, p, p.timing, tl, idx++));
        compute_.back()->set_triggers(triggers_.get());
        engines_.push_back(compute_.back().get());
    }
    for (std::uint32_t e = 0; e < p.dma.engines; ++e) {
        dma_.push_back(std::make_unique<DmaEngine>(e, kernel_, sems_, p, p.timing, tl, idx++));
        dma_.back()->set_shared(dma_shared_.get());
        dma_.back()->set_triggers(triggers_.get());
        dma_.back()->set_arm_every_queue(o.dma_arm_every_queue);
        engines_.push_back(dma_.back().get());
    }
    for (std::uint32_t c = 0; c < p.q7.cores; ++c) {
        q7_.push_back(std::make_unique<Q7Core>(c, kernel_, sems_, p, p.timing, tl, idx++));
        engines_.push_back(q7_.back().get());
    }
    join_ports();
    if (const auto c = kernel_.client_index("pe_wr")) pe_wr_ = *c;
    for (const ClientInfo& ci : kernel_.clients().all()) client_region_.push_back(ci.region);
    wake_.assign(engines_.size(), 0);  // every engine is stepped at the first settle
    watch_.assign(engines_.size(), 0);
    stale_.assign(engines_.size(), 1);
    sem_seen_.assign(engines_.size(), 0);
    // A DMA engine's step can change something after a signal only when a wait one of its queues
    // asked for is met (DmaEngine::arm); everything else it does is due at its wake-up.
    on_met_.assign(engines_.size(), 0);
    // (The reference, dma_arm_every_queue, steps them on every signal.)
    if (!o.dma_arm_every_queue)
        for (const auto& d : dma_)
            on_met_[static_cast<std::size_t>(std::find(engines_.begin(), engines_.end(), d.get()) -
                                             engines_.begin())] = 1;
    fed_.assign(engines_.size(), 0);
    result_.trace = reader.file();
    result_.generation = p.generation;
    result_.pe_clock_ghz = p.pe.clock_ghz;
    result_.dma_peak_gbps = p.dma.engines * p.dma.engine_gbps;
    result_.hbm_peak_gbps = p.dma.hbm_gbps;
    result_.dma_full_run_bytes = p.dma.pkt_min_ns * p.dma.engine_gbps;
    result_.pe_peak_macs = std::uint64_t{p.pe.rows} * p.pe.cols;
    result_.tdm_strict = p.tdm.strict;
    result_.psum_max_groups = p.arr_seq.max_groups;
}

TensorAccess ReplaySession::access_of(const Operand& o, std::uint32_t partitions, std::uint32_t bytes) const {
    TensorAccess a;
    if (!o.onchip()) return a;
    const Decoded d = map_.decode(o.addr);
    if (!d.valid()) return a;  // the checker rejects it; lenient replay drops the operand
    const bool psum = d.region == Region::psum;
    const std::uint32_t array = psum ? params_.psum.partitions : params_.sbuf.partitions;
    const std::uint64_t active = psum ? std::min<std::uint64_t>(params_.psum.partition_active,
                                                               std::uint64_t{params_.psum.banks} * params_.psum.bank_size)
                                      : params_.sbuf.partition_active;
    a.region = d.region;
    a.first = static_cast<std::uint16_t>(d.partition);
    a.parts = static_cast<std::uint16_t>(std::min<std::uint32_t>(std::max<std::uint32_t>(partitions, 1), array - d.partition));
    a.offset = d.offset;
    a.elem_bytes = dtype_size(o.dtype);
    a.elems = o.dims ? o.elements() : (bytes ? (bytes + a.elem_bytes - 1) / a.elem_bytes : 1);
    const std::uint64_t want = bytes ? bytes : a.elems * a.elem_bytes;
    a.bytes = static_cast<std::uint32_t>(std::min<std::uint64_t>(want, active > d.offset ? active - d.offset : 0));
    if (o.dims) {
        const std::uint64_t stride = static_cast<std::uint64_t>(o.steps[0] < 0 ? -std::int64_t{o.steps[0]} : o.steps[0]) * a.elem_bytes;
        a.strided = stride > params_.timing.stride_penalty_bytes;
        a.contiguous = stride == a.elem_bytes;
    }
    return a;
}

SyncSet ReplaySession::sync_of(const Record& r) {
    SyncSet s;
    s.site = r.site_id;  // kNoSite (0xffff) is the engines' kNoSourceSite
    for (std::uint32_t i = 0; i < r.num_waits && i < kMaxWaits; ++i) {
        if (r.waits[i].sem >= sems_.size()) continue;  // rejected by the checker; lenient drops it
        s.wait_sem[s.waits] = r.waits[i].sem;
        s.wait_value[s.waits] = waits_.resolve(r.queue_id, r.waits[i]);
        ++s.waits;
    }
    for (std::uint32_t i = 0; i < r.num_signals && i < kMaxSignals; ++i) {
        if (r.signals[i] >= sems_.size()) continue;
        s.signal_sem[s.signals++] = r.signals[i];
    }
    return s;
}

void ReplaySession::submit_access(const Record& r) {
    // The checker has just resolved its client and decoded its address (every routed record
    // passed check(); its client numbers are the kernel's, both being ClientSet(params)).
    const int c = checker_.last_client();
    const Decoded& d = checker_.last_access();
    if (c < 0 || d.addr != r.address) [[unlikely]]
        submit_unchecked_access(r);
    else
        submit_access(r, c, d);
}

// An access record check() did not look at last: its client and address resolved here.
[[gnu::cold, gnu::noinline]] void ReplaySession::submit_unchecked_access(const Record& r) {
    const auto id = kernel_.client_index(r.client);
    if (id) submit_access(r, static_cast<int>(index(*id)), map_.locate(r.address));
}

void ReplaySession::submit_access(const Record& r, int c, const Decoded& d) {
    if (!d.valid() || d.region != client_region_[static_cast<std::size_t>(c)]) return;
    Request& q = pending_;
    // One initialiser: zeroing it first and then setting the fields stored most of them twice.
    q = Request{.client = ClientId{static_cast<std::uint16_t>(c)},
                .op = r.op,
                .region = d.region,
                .first_partition = static_cast<std::uint16_t>(d.partition),
                .partitions = std::max<std::uint16_t>(1, r.partitions),
                .offset = d.offset,
                .bytes = std::max<std::uint32_t>(1, r.bytes),
                .issue = r.cycle};
    have_pending_ = true;
    // Record by record, it goes into the kernel when the kernel is `access_window` cycles short
    // of its issue cycle, and not before it was read. A pe_wr record keeps that cycle (arr_seq
    // counts the queued pe_wr requests: p2fifo almost-full); any other may go in earlier, in a
    // batch (ReplayOptions::access_batch), which no statistic can see.
    pending_due_ = std::max(read_at_, q.issue - std::min(q.issue, opt_.access_window));
    pending_exact_ = q.client == pe_wr_;
    ++result_.access_records;
}

namespace {
// Bytes of one contiguous run of an on-chip access pattern (innermost dimension first; an outer
// dimension extends the run when its step lands right after the inner extent). 0 = no pattern:
// the whole partition is one run.
std::uint32_t contiguous_run_bytes(const Operand& o) {
    if (!o.onchip() || o.dims == 0) return 0;
    const std::uint64_t esz = dtype_size(o.dtype);
    const auto step = [&](std::uint32_t d) { return static_cast<std::uint64_t>(o.steps[d] < 0 ? -std::int64_t{o.steps[d]} : o.steps[d]); };
    if (step(0) != 1) return static_cast<std::uint32_t>(esz);
    std::uint64_t run = o.sizes[0];  // elements
    for (std::uint32_t d = 1; d < o.dims && step(d) == run; ++d) run *= o.sizes[d];
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(run * esz, 0xffffffffu));
}

// `a` restricted to the partitions [first, first + parts) (shifted by `delta` partitions).
TensorAccess partition_slice(const TensorAccess& a, std::int32_t delta, std::uint32_t parts) {
    TensorAccess s = a;
    if (!a.present()) return s;
    s.first = static_cast<std::uint16_t>(a.first + delta);
    s.parts = static_cast<std::uint16_t>(std::min<std::int32_t>(static_cast<std::int32_t>(parts), a.parts - delta));
    return s;
}
}  // namespace

void ReplaySession::dma_instr(const Record& r) {
    DmaInstr d;
    d.sync = sync_of(r);
    d.line = r.line;
    d.partitions = std::max<std::uint32_t>(1, r.partitions);
    d.bytes_per_partition = r.bytes;
    d.bytes = std::uint64_t{d.partitions} * r.bytes;
    d.transpose = r.transpose;
    d.rmw = r.dst_rmw_add;
    d.sbuf_to_sbuf = r.src.onchip() && r.dst.onchip();
    d.hbm = !d.sbuf_to_sbuf;
    const Operand& hbm_end = r.src.onchip() ? r.dst : r.src;
    const Operand& chip_end = r.src.onchip() ? r.src : r.dst;
    if (hbm_end.hbm_typed && chip_end.onchip() && hbm_end.dtype != chip_end.dtype) {
        d.hbm_esz = static_cast<std::uint8_t>(dtype_size(hbm_end.dtype));
        d.chip_esz = static_cast<std::uint8_t>(dtype_size(chip_end.dtype));
    }
    d.priority = static_cast<std::uint8_t>(r.has_priority() ? r.priority : params_.dma.default_priority);
    d.order = dma_records_++;
    const std::uint32_t rs = contiguous_run_bytes(r.src), rd = contiguous_run_bytes(r.dst);
    d.run_bytes = rs && rd ? std::min(rs, rd) : std::max(rs, rd);
    if (r.src.onchip()) d.rd = access_of(r.src, d.partitions, r.bytes);
    if (r.dst.onchip()) {
        if (r.transpose) {
            // 16 source rows x N columns land as N partitions of 16 elements (seed 000 §6.2).
            const std::uint32_t esz = dtype_size(r.dst.dtype);
            const std::uint32_t cols = std::max<std::uint32_t>(1, r.bytes / esz);
            Operand o = r.dst;
            o.dims = 0;
            d.wr = access_of(o, cols, d.partitions * esz);
        } else {
            d.wr = access_of(r.dst, d.partitions, r.bytes);
        }
    }
    const std::uint32_t engines = params_.dma.engines, lanes = std::max<std::uint32_t>(1, params_.dma.lanes_per_engine);
    // The SBUF side whose partitions choose the engines: the destination when it is on chip.
    const TensorAccess& side = d.wr.present() ? d.wr : d.rd;
    if (r.has_engine() || !side.present()) {
        // As written (engine=N), or HBM->HBM: the queue's engine, assigned round robin in
        // first-seen order (docs/replay.md).
        if (r.queue_id >= dma_queue_of_.size()) dma_queue_of_.resize(std::size_t{r.queue_id} + 1, kUnresolved);
        std::uint32_t& e = dma_queue_of_[r.queue_id];
        if (e == kUnresolved) e = r.has_engine() ? r.engine % engines : dma_queues_seen_++ % engines;
        d.trigger = triggers_->open(r.dge, r.issuer, 1);
        push_dma_share(r, r.has_engine() ? r.engine % engines : e, d);
        return;
    }
    // Spread over the engines by partition lanes (docs/engines.md "DMA").
    const std::uint32_t first_lane = side.first / lanes, last_lane = (side.first + side.parts - 1u) / lanes;
    // One share per lane touched; lane l is engine l mod dma.engines (more lanes than engines
    // queue two shares on one engine).
    const std::uint32_t shares = last_lane - first_lane + 1;
    const std::uint32_t join = shares > 1 ? dma_shared_->open_join(d.sync, shares) : kNoJoin;
    d.trigger = triggers_->open(r.dge, r.issuer, shares);
    std::uint32_t lane = first_lane;
    for (std::uint32_t k = 0; k < shares; ++k, ++lane) {
        const std::uint32_t begin = std::max<std::uint32_t>(side.first, lane * lanes);
        const std::uint32_t end = std::min<std::uint32_t>(side.first + side.parts, (lane + 1) * lanes);
        DmaInstr s = d;
        const std::uint32_t n = end - begin;
        const std::int32_t delta = static_cast<std::int32_t>(begin) - side.first;
        if (d.transpose) {
            s.bytes = (d.bytes + shares - 1) / shares;
            s.wr = partition_slice(d.wr, delta, n);
            s.first_col = static_cast<std::uint32_t>(delta);
            if (d.rd.present()) s.rd.bytes = static_cast<std::uint32_t>((d.rd.bytes + shares - 1) / shares);
        } else {
            s.partitions = n;
            s.bytes = std::uint64_t{n} * d.bytes_per_partition;
            s.wr = partition_slice(d.wr, delta, n);
            s.rd = partition_slice(d.rd, delta, n);
        }
        if (join != kNoJoin) {
            s.join = join;
            s.sync.signals = 0;
        }
        push_dma_share(r, lane % engines, s);
    }
}

void ReplaySession::push_dma_share(const Record& r, std::uint32_t engine, const DmaInstr& d) {
    const std::size_t slot = std::size_t{r.queue_id} * params_.dma.engines + engine;
    if (slot >= dma_lane_queue_.size()) dma_lane_queue_.resize(slot + 1, kUnresolved);
    if (dma_lane_queue_[slot] == kUnresolved) dma_lane_queue_[slot] = dma_[engine]->add_queue(std::string(r.queue));
    DmaEngine& eng = *dma_[engine];
    eng.push(dma_lane_queue_[slot], d);
    last_pushed_ = &eng;
    mark_fed(1 + compute_.size() + engine);
}

void ReplaySession::route(const Record& r) {
    ++result_.instructions;
    switch (r.kind) {
        case RecordKind::ldweights:
        case RecordKind::matmul: {
            ArrSeqInstr i;
            i.sync = sync_of(r);
            i.line = r.line;
            if (r.kind == RecordKind::ldweights) {
                i.kind = ArrSeqInstr::Kind::ldweights;
                i.rows = r.rows;
                i.cols = r.cols;
                i.src = access_of(r.src, r.rows ? r.rows : r.partitions, 0);
            } else {
                i.kind = ArrSeqInstr::Kind::matmul;
                i.rows = r.num_active_rows;
                i.cols = r.num_active_cols;
                i.src = access_of(r.src, r.num_active_rows, 0);
                i.dst = access_of(r.dst, r.num_active_cols, 0);
                i.acc_flags = r.acc_flags;
                i.zero_region = r.zero_region;
            }
            i.fp32 = r.src.onchip() && is_pe_4byte(r.src.dtype);
            i.onezero = r.onezero;
            if (r.src.onchip() && is_mx(r.src.dtype)) {
                // The scale rows of the first quadrant; the sequencer reads each quadrant's.
                i.mx = true;
                const std::uint32_t rows = std::min(i.rows, params_.isa.quadrant_partitions);
                i.scale = access_of(r.src2, (rows + 7) / 8, static_cast<std::uint32_t>(i.src.elems));
            }
            i.double_row = r.perf_opt == PerfOpt::double_row;
            i.transpose = r.kind == RecordKind::matmul && r.transpose;
            if (r.has_tile_position() && r.has_tile_size()) {
                i.tile_row = r.tile_position[0];
                i.tile_col = r.tile_position[1];
                i.tile_rows = r.tile_size[0];
                i.tile_cols = r.tile_size[1];
            }
            if (!named_[0]) arr_->set_queue_name(std::string(r.queue)), named_[0] = true;
            arr_->push(i);
            last_pushed_ = arr_.get();
            mark_fed(0);
            break;
        }
        case RecordKind::act:
        case RecordKind::pool:
        case RecordKind::dve: {
            const std::size_t k = r.kind == RecordKind::act ? 0 : r.kind == RecordKind::pool ? 1 : 2;
            ComputeInstr i;
            i.sync = sync_of(r);
            i.line = r.line;
            i.in[0] = access_of(r.src, r.partitions, r.bytes);
            if (r.src2.present()) i.in[1] = access_of(r.src2, r.partitions, r.bytes);
            i.out = access_of(r.dst, r.partitions, r.bytes);
            i.op = r.isa;
            if (!named_[k + 1]) compute_[k]->set_queue_name(std::string(r.queue)), named_[k + 1] = true;
            compute_[k]->push(i);
            last_pushed_ = compute_[k].get();
            mark_fed(1 + k);
            break;
        }
        case RecordKind::dma:
            dma_instr(r);
            break;
        case RecordKind::q7: {
            Q7Instr i;
            i.sync = sync_of(r);
            i.line = r.line;
            i.op = r.op;
            i.access = access_of(r.src, r.partitions, r.bytes);
            const std::size_t c = r.core % q7_.size();
            Q7Core& core = *q7_[c];
            core.set_queue_name(std::string(r.queue));
            core.push(i);
            last_pushed_ = &core;
            mark_fed(1 + compute_.size() + dma_.size() + c);
            break;
        }
        case RecordKind::access:  // not routed: read_one() submits it
            break;
    }
}

void ReplaySession::reject(std::vector<TraceError>& errs) {
    ++result_.skipped;
    if (!opt_.lenient) {
        std::string msg = errs.front().to_string();
        if (errs.size() > 1) msg += " (and " + std::to_string(errs.size() - 1) + " more problem(s))";
        throw ReplayError(ReplayError::Kind::invalid_trace,
                          "invalid trace (use --lenient to skip bad records): " + msg, errs);
    }
    for (auto& e : errs)
        if (result_.skipped_errors.size() < opt_.max_skipped_kept) result_.skipped_errors.push_back(e);
}

// A record --lenient skipped: the first line that would have signalled each of its semaphores
// (a deadlock waiting on one says so).
void ReplaySession::note_skipped_signals(const Record& r) {
    for (std::uint32_t i = 0; i < r.num_signals && i < kMaxSignals; ++i) {
        const std::uint32_t sem = r.signals[i];
        if (sem >= sems_.size()) continue;  // no queue can wait on it
        if (sem >= skipped_signaller_.size()) skipped_signaller_.resize(std::size_t{sem} + 1, 0);
        if (!skipped_signaller_[sem]) skipped_signaller_[sem] = r.line;
    }
}

void ReplaySession::check_races(const Record& r) {
    race_found_.clear();
    races_.add(r, race_found_);
    result_.races += race_found_.size();
    for (auto& e : race_found_)
        if (result_.race_errors.size() < opt_.max_skipped_kept) result_.race_errors.push_back(std::move(e));
}

// Reads one record at cycle `now`; false at the end of the trace.
bool ReplaySession::read_one(Cycle now) {
    TraceError& err = read_err_;  // a member: a local one would build and free its strings per record
    const ReadStatus st = reader_.read(rec_, err);
    if (st == ReadStatus::end) {
        errs_.clear();
        checker_.finish(errs_);
        if (!errs_.empty() && !opt_.lenient) reject(errs_);
        eof_ = true;
        return false;
    }
    ++result_.records;
    if (opt_.progress && opt_.progress_every && result_.records % opt_.progress_every == 0) opt_.progress(result_.records);
    errs_.clear();
    if (st == ReadStatus::error) {
        errs_.push_back(err);
        reject(errs_);
        return true;
    }
    if (checker_.check(rec_, errs_) != 0) {
        reject(errs_);
        note_skipped_signals(rec_);
        return true;
    }
    if (rec_.kind == RecordKind::access) {
        submit_access(rec_);
        return true;
    }
    check_races(rec_);
    // Read ahead of the record-by-record reading (behind a batch of access records): an
    // instruction waits for the cycle at which that reading would have handed it over.
    if (read_at_ > now) {
        held_ = true;
        return true;
    }
    route(rec_);
    return true;
}

bool ReplaySession::refill(Cycle now, bool force) {
    bool moved = false;
    int idle = -1;  // every engine idle (asked once, when a record could go in early)
    while (!eof_) {
        if (have_pending_) {
            if (!force && pending_due_ > now) {
                // Early, in a batch: not a pe_wr record, and only while no engine has work. An
                // engine submits on the clients the trace's records use (act_rd, dma_3, ...), so
                // a record going in early could pass a request of one; an idle engine gets no
                // instruction before the record's own cycle (the records after it wait, held).
                if (pending_exact_ || pending_.issue > now + opt_.access_window + opt_.access_batch) return moved;
                if (idle < 0) idle = engines_idle() ? 1 : 0;
                if (!idle) return moved;
            }
            static_cast<void>(kernel_.submit(pending_));  // no queue limit: never refused
            have_pending_ = false;
            if (pending_.client == pe_wr_) mark_fed(0);  // a PE write can fill arr_seq's p2fifo
            // Record by record, it would have gone in at its window's edge (or now, forced) and
            // the next record would have been read then.
            read_at_ = std::max(read_at_, force ? now : pending_due_);
            moved = true;
            if (force) return moved;
        }
        if (held_) {
            if (read_at_ > now) return moved;  // not forced: a forced refill never finds one
            held_ = false;
            route(rec_);
            idle = 0;
            moved = true;
        }
        if (!force && last_pushed_ && last_pushed_->queued() >= opt_.lookahead) return moved;
        last_pushed_ = nullptr;
        read_at_ = std::max(read_at_, now);
        const std::uint64_t before = result_.instructions;
        if (!read_one(now)) return moved;
        if (result_.instructions != before) {
            moved = true;
            idle = 0;
        }
        if (force && result_.instructions != before) return moved;
    }
    return moved;
}

void ReplaySession::settle(Cycle now) {
    do step_until_quiet(now);
    while (resolve_dma_claims(now));
    // The last pass changed nothing, so no semaphore moved in it: every engine has seen this
    // generation (an engine that had not was stepped in it).
    settled_generation_ = sems_.generation();
    kernel_.clear_completed_clients();
}

void ReplaySession::step_until_quiet(Cycle now) {
    bool changed = true;
    while (changed) {
        refill(now, false);
        changed = false;
        // Quiet: no semaphore moved since every engine last looked, no completion an engine
        // watches came and no wake-up is due, so only the engines handed something new can be
        // due. (engine_wakes_.watch holds every engine's watch: it was merged by the last
        // next_event(), and stepping an engine only clears its own.)
        const bool quiet = sems_.generation() == settled_generation_ &&
                           !(kernel_.completed_clients() & engine_wakes_.watch) && engine_wakes_.at > now;
        if (quiet && !any_fed_) break;  // nothing new for anyone (an access-record-only stretch)
        any_fed_ = false;  // every fed engine is stepped below; stepping feeds no one
        for (std::size_t e = 0; e < engines_.size(); ++e) {
            if (quiet ? !fed_[e] : !must_step(e, now)) continue;
            fed_[e] = 0;
            sem_seen_[e] = sem_generation(e);
            const bool moved = engines_[e]->step(now);
            // An engine that moved looks again in the next pass; otherwise it is due again only
            // through its next wake-up (asked anew by next_event()), a semaphore or a new
            // instruction.
            wake_[e] = moved ? now : kNever;
            watch_[e] = 0;
            stale_[e] = 1;
            any_stale_ = true;
            if (moved) engine_wakes_.at = now;
            changed |= moved;
        }
    }
}

bool ReplaySession::resolve_dma_claims(Cycle now) {
    if (!triggers_->claims_pending() && !dma_shared_->claims_pending()) return false;
    const std::size_t first_dma = 1 + compute_.size();
    const auto ask_again = [&](std::size_t e) {
        stale_[e] = 1;
        any_stale_ = true;
    };
    bool step_again = false;
    if (triggers_->claims_pending()) {
        const std::uint32_t units = triggers_->resolve();
        for (std::size_t k = 0; k < dma_.size(); ++k) {
            if (!dma_[k]->take_triggers(now)) continue;
            mark_fed(first_dma + k);  // eligible now: steps again in this cycle
            step_again = true;
        }
        // A compute engine whose unit a trigger now holds is free later than its wake-up said.
        for (std::size_t k = 0; k < compute_.size(); ++k)
            if (units & (1u << static_cast<std::uint32_t>(compute_[k]->trigger_unit()))) ask_again(1 + k);
    }
    dma_shared_->resolve_hbm([&](std::uint32_t engine, Cycle through) {
        dma_[engine]->hbm_through(through);
        ask_again(first_dma + engine);
    });
    return step_again;
}

// VectorE on one side of each enabled port; POOL and the Q7 cores (GpSimd) on the other side of
// the SBUF port, ACT on the other side of the PSUM port.
void ReplaySession::join_ports() {
    const std::uint8_t on = ports_.enabled();
    if (!on) return;
    auto join = [&](SerialEngine& e, PortSide side) {
        port_engine_.push_back(static_cast<std::uint16_t>(
            std::find(engines_.begin(), engines_.end(), static_cast<FrontEnd*>(&e)) - engines_.begin()));
        e.join_ports(ports_, side);
    };
    for (auto& c : compute_) {
        const ComputeKind k = c->kind();
        if (k == ComputeKind::dve) join(*c, PortSide::vector);
        if (k == ComputeKind::pool && (on & SharedPorts::bit(SharedPorts::sbuf))) join(*c, PortSide::other);
        if (k == ComputeKind::act && (on & SharedPorts::bit(SharedPorts::psum))) join(*c, PortSide::other);
    }
    if (on & SharedPorts::bit(SharedPorts::sbuf))
        for (auto& q : q7_) join(*q, PortSide::other);
}

void ReplaySession::resolve_ports() {
    if (!ports_.claims_pending()) return;
    for (std::uint64_t granted = ports_.resolve(); granted; granted &= granted - 1) {
        const std::size_t e = port_engine_[static_cast<std::size_t>(std::countr_zero(granted))];
        stale_[e] = 1;
        any_stale_ = true;
    }
}

Wake ReplaySession::next_event(Cycle now) { return gather_wakes(now, false); }

Wake ReplaySession::gather_wakes(Cycle now, bool cached) {
    resolve_ports();
    if (!cached || any_stale_) engine_wakes_ = merge_wakes(now, cached);
    Wake next = engine_wakes_;
    if (have_pending_) next.at = std::min(next.at, std::max(now + 1, pending_due_));
    if (held_) next.at = std::min(next.at, std::max(now + 1, read_at_));
    return next;
}

Wake ReplaySession::merge_wakes(Cycle now, bool cached) {
    Wake next;
    for (std::size_t e = 0; e < engines_.size(); ++e) {
        // An engine settle() has not stepped since its wake-up was asked has the same wake-up:
        // it depends on the engine's own state, on completions it watches (which step it) and on
        // cycles still ahead (which step it when reached). Another scheduler steps engines
        // itself, so it asks every time.
        if (stale_[e] || !cached) {
            const Wake w = engines_[e]->wake(now);
            wake_[e] = w.at;
            watch_[e] = w.watch;
            stale_[e] = 0;
        }
        next.merge(Wake{wake_[e], watch_[e]});
    }
    any_stale_ = false;
    return next;
}

bool ReplaySession::engines_idle() const {
    for (const FrontEnd* e : engines_)
        if (!e->idle()) return false;
    return true;
}

void ReplaySession::deadlock(Cycle now) {
    // Both a signal missing from the trace and one behind another queue's wait end here.
    std::string msg = "deadlock at cycle " + std::to_string(now) +
                      ": every queue with work left waits on a semaphore, so none can run to signal another";
    std::vector<TraceError> errs;
    bool named_skip = false;
    std::vector<BlockedHead> heads;
    for (const FrontEnd* e : engines_) e->blocked_heads(heads);
    // A record spread over several DMA engines is one head on each: named once.
    std::vector<std::pair<std::uint64_t, std::string>> named;
    for (const BlockedHead& b : heads) {
        if (std::find(named.begin(), named.end(), std::pair{b.line, b.queue}) != named.end()) continue;
        named.emplace_back(b.line, b.queue);
        std::string skipped;  // a --lenient replay may have dropped the signaller
        if (b.sem < skipped_signaller_.size() && skipped_signaller_[b.sem]) {
            skipped = "; the record at " + reader_.file() + ":" + std::to_string(skipped_signaller_[b.sem]) +
                      " that signals it was skipped (--lenient)";
            named_skip = true;
        } else if (eof_ && checker_.signals_of(b.sem) < b.want) {
            // A strict replay refuses such a trace up front (TraceChecker::finish); --lenient
            // replays it until the wait, and says the same.
            skipped = "; the whole trace signals it only " + std::to_string(checker_.signals_of(b.sem)) +
                      " times: add the missing signal=" + std::to_string(b.sem) +
                      " or lower the wait's value";
        }
        msg += "; queue " + b.queue + " (" + reader_.file() + ":" + std::to_string(b.line) +
               ") waits for semaphore " + std::to_string(b.sem) + " >= " + std::to_string(b.want) +
               " (value " + std::to_string(b.have) + ")" + skipped;
        errs.push_back(TraceError{reader_.file(), b.line, "wait",
                                  "queue " + b.queue + " waits for semaphore " + std::to_string(b.sem) +
                                      " >= " + std::to_string(b.want) + ", which stays at " +
                                      std::to_string(b.have) + skipped,
                                  "deadlock"});
    }
    if (result_.skipped)
        msg += " (" + std::to_string(result_.skipped) + " record(s) were skipped under --lenient" +
               (named_skip ? ")" : "; a signal among them would be lost)");
    msg += "; `sbufsim check " + reader_.file() + "` follows each wait to its signals";
    throw ReplayError(ReplayError::Kind::deadlock, msg, std::move(errs));
}

void ReplaySession::begin() {
    errs_.clear();
    checker_.check_header(reader_.header(), errs_);
    if (!errs_.empty()) reject(errs_);
}

ReplayResult ReplaySession::run_fast() {
    begin();
    Cycle now = 0;
    for (;;) {
        settle(now);
        const Wake next = gather_wakes(now, true);
        if (next.never()) {
            if (!eof_) {  // everyone waits: the signal may be further on in the file
                refill(now, true);
                continue;
            }
            if (!engines_idle()) deadlock(now);
            break;
        }
        const RunStatus s = in_kernel(opt_.kernel_seconds, [&] { return kernel_.run_until(next.at, next.watch); });
        now = kernel_.now();
        if (s == RunStatus::stuck) {  // only watched completions could wake anyone, and none can come
            if (!eof_) {
                refill(now, true);
                continue;
            }
            break;  // finish() reports the requests that can never be granted
        }
    }
    return finish(now);
}

ReplayResult ReplaySession::finish(Cycle now) {
    if (in_kernel(opt_.kernel_seconds, [&] { return kernel_.run_to_completion(); }) == RunStatus::stuck)
        throw ReplayError(ReplayError::Kind::deadlock,
                          "deadlock at cycle " + std::to_string(kernel_.now()) +
                              ": the trace is done but bank requests are left that can never be granted "
                              "(a client held by back-pressure or a throttler that passes nothing)");
    if (opt_.probe) opt_.probe->finish();
    Cycle end = std::max(now, kernel_.now());
    for (FrontEnd* e : engines_) {
        e->finish(end);
        end = std::max(end, e->stats().last_end);
    }
    result_.total_cycles = end;
    result_.kernel = kernel_.stats();
    for (FrontEnd* e : engines_) result_.engines.push_back(e->stats());
    result_.arr_seq = arr_->arr_stats();
    for (const auto& d : dma_) result_.dma.push_back(d->dma_stats());
    result_.dma_trigger_busy = triggers_->busy();
    result_.critical_path = path_.finish(end);
    if (reader_.sites().size() > 0) {  // a trace with source locations: the per-site profile
        result_.sites.emplace_back();  // row 0: records without a location
        for (std::uint32_t i = 0; i < reader_.sites().size(); ++i)
            result_.sites.emplace_back(reader_.sites().name(static_cast<SiteId>(i)));
        result_.site_profile = std::move(profile_.rows());
        result_.site_profile.resize(result_.sites.size());
        const auto& cp = result_.critical_path.sites;
        for (std::size_t i = 0; i < cp.size() && i < result_.site_profile.size(); ++i)
            result_.site_profile[i].critical = cp[i];
        if (cp.empty()) result_.site_profile[0].critical = result_.total_cycles;
    }
    return std::move(result_);
}

}  // namespace sbufsim
