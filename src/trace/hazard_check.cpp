#include "sbufsim/trace/hazard_check.h"

#include <algorithm>

#include "sbufsim/address/isa_rules.h"

namespace sbufsim {

namespace {

// Past this many runs in one partition an access pattern counts as its whole extent: a check
// that never misses an overlap, at the price of reporting one between two interleaved patterns.
constexpr std::uint64_t kMaxRuns = 4096;

using Runs = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

void sort_and_join(Runs& runs) {
    std::sort(runs.begin(), runs.end());
    std::size_t out = 0;
    for (const auto& r : runs) {
        if (r.first >= r.second) continue;
        if (out && r.first <= runs[out - 1].second)
            runs[out - 1].second = std::max(runs[out - 1].second, r.second);
        else
            runs[out++] = r;
    }
    runs.resize(out);
}

// The byte runs of `o`'s pattern relative to its address, each passed to `emit(lo, hi)`: the
// innermost dimension is one run when its step is one element, else one run per element; no
// pattern is `bytes` (one element when 0) from the address.
template <class Emit>
bool pattern_runs(const Operand& o, std::uint32_t bytes, Emit emit) {
    const std::int64_t esz = dtype_size(o.dtype);
    if (o.dims == 0) return emit(0, bytes ? std::int64_t{bytes} : esz), false;
    std::int64_t lo = 0, hi = 0;  // the extent, in elements
    std::uint64_t outer = 1;
    for (std::uint32_t d = 0; d < o.dims; ++d) {
        const std::int64_t reach = std::int64_t{o.steps[d]} * (std::int64_t{o.sizes[d]} - 1);
        (reach < 0 ? lo : hi) += reach;
        if (d > 0) outer *= o.sizes[d];
    }
    const bool inner_run = o.steps[0] == 1 || o.steps[0] == -1;
    if (outer * (inner_run ? 1 : o.sizes[0]) > kMaxRuns) return emit(lo * esz, (hi + 1) * esz), true;
    const std::int64_t inner_lo = std::min<std::int64_t>(0, std::int64_t{o.steps[0]} * (o.sizes[0] - 1));
    std::array<std::uint32_t, kMaxDims> at{};
    for (std::uint64_t k = 0; k < outer; ++k) {
        std::int64_t base = 0;
        for (std::uint32_t d = 1; d < o.dims; ++d) base += std::int64_t{o.steps[d]} * at[d];
        if (inner_run)
            emit((base + inner_lo) * esz, (base + inner_lo + o.sizes[0]) * esz);
        else
            for (std::uint32_t i = 0; i < o.sizes[0]; ++i) {
                const std::int64_t e = base + std::int64_t{o.steps[0]} * i;
                emit(e * esz, (e + 1) * esz);
            }
        for (std::uint32_t d = 1; d < o.dims && ++at[d] == o.sizes[d]; ++d) at[d] = 0;
    }
    return false;
}

}  // namespace

HazardCheck::HazardCheck(const Params& params)
    : map_(params),
      sbuf_bytes_(static_cast<std::uint32_t>(params.sbuf.partition_active)),
      psum_bytes_(static_cast<std::uint32_t>(std::min<std::uint64_t>(
          params.psum.partition_active, std::uint64_t{params.psum.banks} * params.psum.bank_size))),
      sbuf_partitions_(params.sbuf.partitions),
      psum_partitions_(params.psum.partitions),
      sbuf_{{0, Shadow{}}},
      psum_{{0, Shadow{}}} {}

// One operand, as ReplaySession::access_of places it: `partitions` from its first (at least
// one, at most to the array's end); `bytes` per partition when the pattern does not say.
void HazardCheck::add_operand(Footprint& f, const Operand& o, const char* field, bool write,
                              std::uint32_t partitions, std::uint32_t bytes) const {
    if (!o.onchip()) return;
    const Decoded d = map_.locate(o.addr);
    if (!d.valid()) return;
    const bool psum = d.region == Region::psum;
    const std::uint32_t array = psum ? psum_partitions_ : sbuf_partitions_;
    const std::uint32_t size = psum ? psum_bytes_ : sbuf_bytes_;
    OperandSpan s;
    s.field = field;
    s.write = write;
    s.region = d.region;
    s.first = d.partition;
    s.parts = std::min(std::max<std::uint32_t>(partitions, 1), array - d.partition);
    s.extent = pattern_runs(o, bytes, [&](std::int64_t lo, std::int64_t hi) {
        const std::int64_t a = std::clamp<std::int64_t>(std::int64_t{d.offset} + lo, 0, size);
        const std::int64_t b = std::clamp<std::int64_t>(std::int64_t{d.offset} + hi, 0, size);
        s.runs.emplace_back(static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b));
    });
    if (s.runs.size() > 1)
        sort_and_join(s.runs);
    else if (!s.runs.empty() && s.runs[0].first >= s.runs[0].second)
        s.runs.clear();
    if (!s.runs.empty()) f.push_back(std::move(s));
}

Footprint HazardCheck::footprint(const Record& r) const {
    Footprint f;
    switch (r.kind) {
        case RecordKind::access:
            break;
        case RecordKind::dma:
            add_operand(f, r.src, "src", false, r.partitions, r.bytes);
            if (r.transpose && r.dst.onchip()) {
                // 16-row tiles land as bytes / element-size partitions of `partitions` elements
                // each (seed 000 §6.2); the pattern follows from `bytes`.
                Operand o = r.dst;
                o.dims = 0;
                const std::uint32_t esz = dtype_size(o.dtype);
                add_operand(f, o, "dst", true, std::max<std::uint32_t>(1, r.bytes / esz), r.partitions * esz);
            } else {
                add_operand(f, r.dst, "dst", true, r.partitions, r.bytes);
            }
            break;
        case RecordKind::ldweights:
            add_operand(f, r.src, "src", false, r.rows ? r.rows : r.partitions, 0);
            break;
        case RecordKind::matmul:
            add_operand(f, r.src, "src", false, r.num_active_rows, 0);
            add_operand(f, r.dst, "dst", true, r.num_active_cols, 0);
            break;
        case RecordKind::act:
        case RecordKind::pool:
        case RecordKind::dve:
            add_operand(f, r.src, "src", false, r.partitions, r.bytes);
            add_operand(f, r.src2, "src2", false, r.partitions, r.bytes);
            add_operand(f, r.dst, "dst", true, r.partitions, r.bytes);
            break;
        case RecordKind::q7:
            add_operand(f, r.src, "operand", r.op == Op::wr, r.partitions, r.bytes);
            break;
    }
    return f;
}

void HazardCheck::start(const Footprint& f, const UnitPosition& who, const std::vector<std::uint32_t>& before,
                        std::vector<Conflict>& out) {
    const std::size_t first_found = out.size();
    for (const OperandSpan& span : f) {
        const bool psum = span.region == Region::psum;
        Bands& bands = psum ? psum_ : sbuf_;
        const std::uint32_t partitions = psum ? psum_partitions_ : sbuf_partitions_;
        const std::uint32_t end = span.first + span.parts;
        split(bands, span.first, partitions);
        split(bands, end, partitions);
        for (auto it = bands.find(span.first); it != bands.end() && it->first < end; ++it) {
            UnitPosition me = who;
            me.extent = span.extent;
            const Visit v{span, me, before, it->first, out, first_found};
            for (const auto& [lo, hi] : span.runs) visit(it->second, lo, hi, v);
        }
        merge(bands, span.first, end);
    }
}

void HazardCheck::split(Bands& b, std::uint32_t at, std::uint32_t partitions) {
    if (at >= partitions || b.count(at)) return;
    const auto holder = std::prev(b.upper_bound(at));  // band 0 always exists
    b.emplace_hint(std::next(holder), at, holder->second);
}

// From the band before `first` to the one starting at `end`: a band equal to the one before it
// joins it.
void HazardCheck::merge(Bands& b, std::uint32_t first, std::uint32_t end) {
    auto it = b.lower_bound(first);
    if (it != b.begin()) --it;
    while (it != b.end() && it->first <= end) {
        auto next = std::next(it);
        if (next != b.end() && next->first <= end && next->second == it->second)
            b.erase(next);
        else
            it = next;
    }
}

// One earlier access not ordered before `who`: kept once per operand and instruction.
void HazardCheck::note(const Visit& v, Conflict::Kind kind, const UnitPosition& other, std::uint32_t lo,
                       std::uint32_t hi) {
    const bool ordered =
        other.queue == v.who.queue || (other.unit < v.before.size() && other.index < v.before[other.unit]);
    if (ordered) return;
    const Conflict c{kind,        v.span.field, other, v.span.region,
                     v.partition, lo,           hi,    v.span.extent || other.extent};
    // One per operand and other unit, naming its latest instruction: a wait for that one orders
    // the unit's earlier ones too, so eight loads read without a wait are one finding, not eight.
    for (std::size_t i = v.first_found; i < v.out.size(); ++i)
        if (v.out[i].field == v.span.field && v.out[i].other.queue == other.queue) {
            if (other.line > v.out[i].other.line) v.out[i] = c;
            return;
        }
    v.out.push_back(c);
}

void HazardCheck::visit(Shadow& s, std::uint32_t lo, std::uint32_t hi, const Visit& v) {
    // Compare with every cell the run overlaps.
    auto it = s.upper_bound(lo);
    if (it != s.begin() && std::prev(it)->second.hi > lo) --it;
    for (; it != s.end() && it->first < hi; ++it) {
        const Cell& c = it->second;
        const std::uint32_t a = std::max(lo, it->first), b = std::min(hi, c.hi);
        if (c.writer.present())
            note(v, v.span.write ? Conflict::Kind::write_after_write : Conflict::Kind::read_after_write,
                 c.writer, a, b);
        if (v.span.write)
            for (const UnitPosition& r : c.readers) note(v, Conflict::Kind::write_after_read, r, a, b);
    }
    // Then record the access.
    split(s, lo);
    split(s, hi);
    if (v.span.write) {
        s.erase(s.lower_bound(lo), s.lower_bound(hi));
        s.emplace(lo, Cell{hi, v.who, {}});
    } else {
        std::uint32_t at = lo;
        it = s.lower_bound(lo);
        while (at < hi) {
            if (it == s.end() || it->first > at) {  // a gap: bytes no instruction touched yet
                const std::uint32_t end = it == s.end() ? hi : std::min(hi, it->first);
                it = std::next(s.emplace_hint(it, at, Cell{end, {}, {v.who}}));
                at = end;
                continue;
            }
            auto& readers = it->second.readers;
            auto r = std::lower_bound(
                readers.begin(), readers.end(), v.who,
                [](const UnitPosition& x, const UnitPosition& y) { return x.unit < y.unit; });
            if (r != readers.end() && r->unit == v.who.unit)
                *r = v.who;
            else
                readers.insert(r, v.who);
            at = it->second.hi;
            ++it;
        }
    }
    merge(s, lo, hi);
}

// A cell boundary at `at`: the cell across it becomes two with the same accesses.
void HazardCheck::split(Shadow& s, std::uint32_t at) {
    auto it = s.upper_bound(at);
    if (it == s.begin()) return;
    --it;
    if (it->first >= at || it->second.hi <= at) return;
    Cell rest = it->second;
    it->second.hi = at;
    s.emplace_hint(std::next(it), at, std::move(rest));
}

// Neighbouring cells with the same accesses become one, from the cell before `lo` to the one
// after `hi`, so a partition written whole is one cell again.
void HazardCheck::merge(Shadow& s, std::uint32_t lo, std::uint32_t hi) {
    auto it = s.lower_bound(lo);
    if (it != s.begin()) --it;
    while (it != s.end() && it->first <= hi) {
        auto next = std::next(it);
        if (next != s.end() && next->first == it->second.hi && next->second.same_accesses(it->second)) {
            it->second.hi = next->second.hi;
            s.erase(next);
        } else {
            it = next;
        }
    }
}

}  // namespace sbufsim
