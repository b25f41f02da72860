#include "sbufsim/trace/completion_order.h"

#include <algorithm>

namespace sbufsim {

using Kind = CompletionShape::Kind;

CompletionRules::CompletionRules(const Params& p)
    : map_(p),
      engines_(std::max<std::uint32_t>(1, p.dma.engines)),
      lanes_(std::max<std::uint32_t>(1, p.dma.lanes_per_engine)),
      sbuf_partitions_(p.sbuf.partitions),
      psum_partitions_(p.psum.partitions),
      has_psum_(p.has_psum()),
      pe_in_order_(p.arr_seq.disable_dependency_check),
      pe_flush_(p.arr_seq.flush_p2f_fifos),
      background_transpose_(p.pe.background_transpose && !p.arr_seq.disable_bg_xpose) {
    blocks_ = PeBlocks(p);  // the sequencer's grid (ArrSeq)
}

// ArrSeq::blocks_of: the blocks the tile overlaps, the whole array without one.
std::uint64_t CompletionRules::pe_blocks(const Record& rec) const {
    if (!rec.has_tile_position() || !rec.has_tile_size()) return blocks_.all;
    return blocks_.of(rec.tile_position[0], rec.tile_position[1], rec.tile_size[0], rec.tile_size[1]);
}

// ReplaySession::dma_instr: the engines of the SBUF side's partition lanes (the destination when
// on chip), else the queue's one engine (engine=N, or HBM to HBM).
std::uint64_t CompletionRules::dma_engines(const Record& rec) {
    std::uint32_t first = 0, parts = 0;
    auto side = [&](const Operand& o, std::uint32_t n) {
        if (!o.onchip()) return false;
        const Decoded d = map_.locate(o.addr);
        if (!d.valid()) return false;
        const std::uint32_t array = d.region == Region::psum ? psum_partitions_ : sbuf_partitions_;
        first = d.partition;
        parts = std::min(std::max<std::uint32_t>(n, 1), array - std::min(array, d.partition));
        return parts > 0;
    };
    const std::uint32_t dst_parts =
        rec.transpose
            ? std::max<std::uint32_t>(1, rec.bytes / std::max<std::uint32_t>(1, dtype_size(rec.dst.dtype)))
            : rec.partitions;
    const bool spread = side(rec.dst, dst_parts) || side(rec.src, rec.partitions);
    if (rec.has_engine() || !spread) {
        const auto [it, fresh] = queue_engine_.try_emplace(rec.queue_id, 0);
        if (fresh) it->second = rec.has_engine() ? rec.engine % engines_ : queues_seen_++ % engines_;
        return std::uint64_t{1} << ((rec.has_engine() ? rec.engine % engines_ : it->second) % 64);
    }
    std::uint64_t mask = 0;
    const std::uint32_t first_lane = first / lanes_, last_lane = (first + parts - 1) / lanes_;
    for (std::uint32_t lane = first_lane; lane <= last_lane; ++lane)
        mask |= std::uint64_t{1} << (lane % engines_ % 64);
    return mask;
}

CompletionShape CompletionRules::shape(const Record& rec) {
    CompletionShape s;
    switch (rec.kind) {
        case RecordKind::ldweights:
            s.kind = Kind::ldweights;
            s.mask = pe_blocks(rec);
            break;
        case RecordKind::matmul:
            s.kind = Kind::matmul;
            s.mask = pe_blocks(rec);
            s.transpose = rec.transpose;
            break;
        case RecordKind::act:
        case RecordKind::pool:
        case RecordKind::dve:
            s.kind = Kind::compute;
            if (rec.dst.onchip()) {
                const Decoded d = map_.locate(rec.dst.addr);
                if (d.valid()) s.mask = d.region == Region::psum ? (has_psum_ ? 2 : 0) : 1;
            }
            break;
        case RecordKind::dma:
            s.kind = Kind::dma;
            s.mask = dma_engines(rec);
            break;
        case RecordKind::q7:
        case RecordKind::access:
            break;
    }
    return s;
}

namespace {
bool same_lane(const CompletionShape& a, const CompletionShape& b) {
    if (a.kind != b.kind) return false;
    switch (a.kind) {
        case Kind::in_order:
        case Kind::ldweights:
            return true;  // one weight path
        case Kind::matmul:
            return a.mask == b.mask && a.transpose == b.transpose;
        case Kind::compute:
        case Kind::dma:
            return a.mask == b.mask;
    }
    return false;
}
}  // namespace

std::size_t UnitLanes::lane_of(const CompletionShape& s, bool& fresh) {
    fresh = false;
    for (std::size_t i = 0; i < lanes_.size(); ++i)
        if (same_lane(lanes_[i].shape, s)) return i;
    fresh = true;
    lanes_.push_back(CompletionLane{0, s, 0, 0});
    return lanes_.size() - 1;
}

void UnitLanes::started(const CompletionRules& rules, std::size_t pos, const CompletionShape& s,
                        std::vector<std::uint32_t>& clock) const {
    auto raise = [&](const CompletionLane& l, std::uint32_t n) { clock[l.id] = std::max(clock[l.id], n); };
    const CompletionLane& own = lanes_[pos];
    switch (s.kind) {
        case Kind::in_order:
            raise(own, own.count);  // one at a time
            break;
        case Kind::ldweights:
        case Kind::matmul:
            for (const CompletionLane& l : lanes_) {
                if (rules.pe_in_order() ||
                    (rules.pe_flush() && s.kind == Kind::matmul && l.shape.kind == Kind::matmul)) {
                    raise(l, l.count);  // single-threaded, or the earlier matmuls' PSUM writes flushed
                } else if (l.shape.kind == Kind::ldweights && l.count > 0) {
                    // One weight path: the ldweights before the last one are done before it started;
                    // the last one before an ldweights, and before a matmul on its blocks.
                    const bool waits_last = s.kind == Kind::ldweights || (l.shape.mask & s.mask);
                    raise(l, waits_last ? l.count : l.count - 1);
                }
            }
            break;
        case Kind::compute:
        case Kind::dma:
            break;  // the next starts while the one before drains
    }
}

void UnitLanes::completed(const CompletionRules& rules, std::size_t pos, const CompletionShape& s,
                          std::vector<std::uint32_t>& clock) {
    auto raise = [&](const CompletionLane& l, std::uint32_t n) { clock[l.id] = std::max(clock[l.id], n); };
    if (s.kind == Kind::matmul) {
        // A matmul on shared blocks (neither a background transpose) starts after the release of
        // every earlier one there, and the array drains PSUM writes in release order: those
        // complete before it and before every later matmul.
        for (CompletionLane& l : lanes_)
            if (l.shape.kind == Kind::matmul && (l.shape.mask & s.mask) &&
                !(rules.background_transpose() && (l.shape.transpose || s.transpose)))
                l.forced = l.count;
    }
    CompletionLane& own = lanes_[pos];
    ++own.count;
    if (s.kind == Kind::ldweights) own.shape.mask = s.mask;  // the last ldweights' blocks
    raise(own, own.count);
    for (const CompletionLane& l : lanes_) {
        if (&l == &own) continue;
        switch (s.kind) {
            case Kind::matmul:
                if (l.shape.kind == Kind::matmul) raise(l, l.forced);
                break;
            case Kind::compute:
                // Without output writes an instruction signals a fixed time after its start, which
                // no later one beats; with them, a later one drains behind them on the same client.
                if (l.shape.mask == 0) raise(l, l.count);
                break;
            case Kind::dma:
                // In order on each engine: a transfer on every engine of another's ends after it.
                if ((l.shape.mask & ~s.mask) == 0) raise(l, l.count);
                break;
            case Kind::in_order:
            case Kind::ldweights:
                break;
        }
    }
}

}  // namespace sbufsim
