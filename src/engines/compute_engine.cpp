#include "sbufsim/engines/compute_engine.h"

#include <algorithm>

namespace sbufsim {

std::string_view to_string(ComputeKind k) {
    switch (k) {
        case ComputeKind::act: return "act";
        case ComputeKind::pool: return "pool";
        case ComputeKind::dve: return "dve";
    }
    return "?";
}

namespace {
const EngineParams& engine_params(ComputeKind kind, const Params& p) {
    return kind == ComputeKind::act ? p.act : kind == ComputeKind::pool ? p.pool : p.dve;
}
double dep_turnaround(ComputeKind kind, const EngineTiming& t) {
    return kind == ComputeKind::act ? t.act_dep_turnaround
         : kind == ComputeKind::pool ? t.pool_dep_turnaround
                                     : t.dve_dep_turnaround;
}
// 2-byte operands (bf16/fp16): the performance modes' dtype condition. An absent operand does
// not stand in the way.
bool half16(const TensorAccess& a) { return !a.present() || a.elem_bytes == 2; }
bool in_psum(const TensorAccess& a) { return a.present() && a.region == Region::psum; }
bool in_sbuf(const TensorAccess& a) { return !a.present() || a.region == Region::sbuf; }
bool contiguous(const TensorAccess& a) { return !a.present() || a.contiguous; }
bool overlaps(const TensorAccess& w, const TensorAccess& r) {
    if (!w.present() || !r.present() || w.region != r.region) return false;
    const bool parts = w.first < r.first + r.parts && r.first < w.first + w.parts;
    const bool bytes = w.offset < r.offset + r.bytes && r.offset < w.offset + w.bytes;
    return parts && bytes;
}
}  // namespace

ComputeEngine::ComputeEngine(ComputeKind kind, Kernel& kernel, Semaphores& sems, const Params& p,
                             const EngineTiming& t, std::vector<InstrEvent>* timeline,
                             std::uint16_t index)
    : InOrderEngine(std::string(to_string(kind)), kernel, sems, t, timeline, index), kind_(kind),
      clock_(engine_params(kind, p).clock_ghz, p.pe.clock_ghz), dep_turnaround_(dep_turnaround(kind, t)),
      chunks_(p.width.stream_chunks), sbuf_beat_(p.width.engine_bytes), psum_beat_(p.width.psum_bytes) {
    group_ = kind == ComputeKind::act    ? EngineGroup::act
             : kind == ComputeKind::pool ? EngineGroup::pool
                                         : EngineGroup::dve;
    const std::string n(to_string(kind));
    clients_.sbuf_rd = need_client(kernel, n + "_rd", "engine front-end");
    clients_.sbuf_wr = need_client(kernel, n + "_wr", "engine front-end");
    clients_.has_psum = p.has_psum();
    if (clients_.has_psum) {
        clients_.psum_rd = need_client(kernel, n + "_psum_rd", "engine front-end");
        clients_.psum_wr = need_client(kernel, n + "_psum_wr", "engine front-end");
    }
}

// The throughput multiplier of tensor_copy / tensor_scalar (trn2 arch guide, "Vector Engine
// Performance Mode"; trn3 arch guide, ScalarE "Performance mode").
double ComputeEngine::speedup(const ComputeInstr& i) const {
    const TensorAccess& a = i.in[0];
    const TensorAccess& o = i.out;
    if (!half16(a) || !half16(o)) return 1;
    if (kind_ == ComputeKind::dve && timing_.dve_perf_modes) {
        const bool all_sbuf = in_sbuf(a) && in_sbuf(o);
        const bool all_contiguous = contiguous(a) && contiguous(o);
        if (all_sbuf && all_contiguous) return 4;
        if (all_sbuf || (all_contiguous && in_psum(a) != in_psum(o))) return 2;
        return 1;
    }
    if (kind_ == ComputeKind::act && timing_.act_perf_mode) return 2;
    return 1;
}

// S: the public cost formula of the instruction without its MIN_II floor (nki.isa "Estimated
// instruction cost"; docs/engines.md lists each row with its source).
double ComputeEngine::stream_cycles(const ComputeInstr& i) const {
    const TensorAccess &a = i.in[0], &b = i.in[1], &o = i.out;
    const double n = static_cast<double>(a.present() ? std::max(a.elems, b.present() ? b.elems : 0) : o.elems);
    const bool dve = kind_ == ComputeKind::dve;
    // The bf16 fast paths of tensor_tensor and tensor_reduce (nki.isa cost, no generation condition).
    const bool fast16 = timing_.dve_perf_modes || timing_.dve_bf16_fast;
    // iota and memset: N is the output's elements per partition (nki.isa: "in the output tile").
    const double out_n = o.present() ? static_cast<double>(o.elems) : n;
    switch (i.op) {
        case ComputeOp::activation:
        case ComputeOp::activation_reduce:
        case ComputeOp::tensor_scalar_reduce:
        case ComputeOp::range_select:
        case ComputeOp::transpose:
        case ComputeOp::bn_stats:
        case ComputeOp::dropout:
        case ComputeOp::iota:
            return out_n;
        case ComputeOp::max8:
        case ComputeOp::affine_select:
        case ComputeOp::tensor_copy_dynamic:
            return n;
        case ComputeOp::tensor_scalar:
        case ComputeOp::tensor_copy:
            return n / speedup(i);
        case ComputeOp::tensor_tensor:
            if (!dve) return n;
            if (in_psum(a) != in_psum(b)) return n;  // one input in PSUM, the other in SBUF
            if (fast16 && in_sbuf(a) && in_sbuf(b) && half16(a) && half16(b) && half16(o)) return n;
            return 2 * n;
        case ComputeOp::tensor_tensor_scan:
            return 2 * n;
        case ComputeOp::tensor_reduce:
            return fast16 && dve && half16(a) && half16(o) ? n / 2 : n;
        case ComputeOp::scalar_tensor_tensor:
            return half16(a) && half16(b) ? n : 2 * n;
        case ComputeOp::tensor_copy_predicated:
        case ComputeOp::select_reduce:
            return in_psum(a) != in_psum(b) ? n : 2 * n;
        case ComputeOp::memset:
            return dve && half16(o) && o.present() ? out_n / 2 : out_n;
        case ComputeOp::bn_aggr:
            return 13.0 * n / 3.0;
        case ComputeOp::reciprocal:
            return 8 * n;
        case ComputeOp::exponential:
        case ComputeOp::quantize_mx:  // trn3 guide: four input elements per partition and cycle
            return n / 4;
        case ComputeOp::generic:
            return b.present() && dve ? timing_.two_input_factor * n : n;
    }
    return n;
}

ComputeCost ComputeEngine::cost(const ComputeInstr& i) const {
    ComputeCost c;
    c.stream = stream_cycles(i);
    if (i.in[0].strided || i.in[1].strided || i.out.strided) c.stream *= timing_.stride_penalty_factor;
    double floor = timing_.compute_min_cycles;
    if (i.op == ComputeOp::max8) floor = 0;
    if (i.op == ComputeOp::tensor_copy_dynamic) floor = timing_.min_ii_dynamic;
    // Start-up of GpSimd instructions; the accumulator read of a *_reduce variant.
    double extra = kind_ == ComputeKind::pool ? timing_.gpsimd_start : 0;
    if (i.op == ComputeOp::activation_reduce || i.op == ComputeOp::tensor_scalar_reduce) extra += timing_.compute_min_cycles;
    c.ii = std::max(floor, c.stream) + extra;
    c.done = std::max(c.ii, c.stream + extra + dep_turnaround_);
    return c;
}

void ComputeEngine::submit(const TensorAccess& a, bool write, Cycle issue, Cycle span) {
    if (!a.present()) return;
    const bool psum = a.region == Region::psum;
    if (psum && !clients_.has_psum) return;  // the checker rejects PSUM on a PSUM-less generation
    const ClientId c = write ? (psum ? clients_.psum_wr : clients_.sbuf_wr)
                             : (psum ? clients_.psum_rd : clients_.sbuf_rd);
    submit_paced(kernel_, write ? out_reqs_ : reqs_, c, write ? Op::wr : Op::rd, a, issue,
                 Pacing{span, chunks_, psum ? psum_beat_ : sbuf_beat_});
    (write ? stats_.bytes_written : stats_.bytes_read) += a.total_bytes();
}

void ComputeEngine::set_triggers(DmaTriggers* t) {
    triggers_ = t;
    unit_ = kind_ == ComputeKind::act ? TriggerUnit::act : kind_ == ComputeKind::pool ? TriggerUnit::pool : TriggerUnit::dve;
}

Cycle ComputeEngine::ready_at(const ComputeInstr& i) const {
    Cycle at = 0;
    for (const Written& w : recent_)
        if (overlaps(w.out, i.in[0]) || overlaps(w.out, i.in[1])) at = std::max(at, w.done);
    // A DMA trigger routed to this engine holds it (dma_trigger.h).
    if (triggers_) at = std::max(at, triggers_->free_at(unit_));
    return at;
}

// NC-v2's shared ports (shared_ports.h): VectorE's SBUF accesses against GpSimd's (POOL), its
// PSUM accesses against ScalarE's.
std::uint8_t ComputeEngine::ports_needed(const ComputeInstr& i) const {
    bool sbuf = false, psum = false;
    for (const TensorAccess* a : {&i.in[0], &i.in[1], &i.out}) {
        if (!a->present()) continue;
        (a->region == Region::psum ? psum : sbuf) = true;
    }
    std::uint8_t need = 0;
    if (sbuf && kind_ != ComputeKind::act) need |= SharedPorts::bit(SharedPorts::sbuf);
    if (psum && kind_ != ComputeKind::pool) need |= SharedPorts::bit(SharedPorts::psum);
    return need;
}

void ComputeEngine::start(const ComputeInstr& i, Cycle now) {
    // Reads stream from the start (the access set-up of an independent instruction is hidden
    // behind the previous one); the writes trail them by the set-up and gate only the signals.
    const ComputeCost c = cost(i);
    const Cycle span = clock_.to_kernel(c.stream);
    submit(i.in[0], false, now, span);
    submit(i.in[1], false, now, span);
    submit(i.out, true, now + clock_.to_kernel(timing_.compute_fixed_overhead), span);
    compute_end_ = now + std::max<Cycle>(1, clock_.to_kernel(c.ii));
    if (triggers_) triggers_->occupy(unit_, compute_end_);
    signal_at_ = now + clock_.to_kernel(c.done);
    recent_[next_recent_] = {i.out, signal_at_};
    next_recent_ = (next_recent_ + 1) % recent_.size();
}

}  // namespace sbufsim
