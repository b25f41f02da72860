// TraceChecker: the hardware rules a trace record must satisfy before it is replayed. The ISA
// placement and Matmul rules are isa_rules.h's (their reasons carry their own rule and seed
// section); the rules added here cite theirs in TraceError::rule.
#include "sbufsim/trace/trace_check.h"

#include <algorithm>
#include <cstdlib>

#include "sbufsim/types/near_miss.h"

namespace sbufsim {

namespace {

constexpr std::string_view kStartRule = "start partition rule, PUBLIC_FACTS \"Start partitions\"";
constexpr std::string_view kClientRule = "kernel clients, seed 000 §7";
constexpr std::string_view kSemRule = "semaphores, docs/trace-format.md";
constexpr std::string_view kActiveRule = "partition size, seed 000 §1";
constexpr std::string_view kQ7Rule = "GpSimd core c owns SBUF partitions [16c, 16c+16), seed 000 §7.5";
constexpr std::string_view kMatmulRule = "matmul, seed 000 §5.1";
// An access record's cycle is an issue time the run adds latencies to: kept far below the 2^64
// at which a cycle count wraps (2^62 cycles is about 60 years at 2.4 GHz).
constexpr std::uint64_t kMaxAccessCycle = std::uint64_t{1} << 62;

// PUBLIC_FACTS: >64 partitions start at 0; 33–64 at 0 or 64; 1–32 at 0, 32, 64 or 96.
bool start_partition_valid(std::uint32_t first, std::uint32_t count) {
    if (count > 64) return first == 0;
    if (count > 32) return first == 0 || first == 64;
    return first % 32 == 0;
}

// The byte range [lo, hi) an access pattern touches inside each partition, relative to its start.
// False when the range does not fit in 64 bits (sizes x steps x element size of a crafted pattern
// could wrap to anything, even to an empty range, and pass): the caller rejects the pattern.
bool pattern_extent(const Operand& o, std::uint32_t bytes, std::int64_t& lo, std::int64_t& hi) {
    const std::int64_t w = dtype_size(o.dtype);
    lo = 0;
    hi = 0;
    if (o.dims == 0) {
        hi = bytes ? bytes : w;
        return true;
    }
    for (std::uint32_t d = 0; d < o.dims; ++d) {
        if (o.sizes[d] == 0) {   // an empty pattern touches nothing
            lo = hi = 0;
            return true;
        }
        std::int64_t span = 0;
        if (__builtin_mul_overflow(std::int64_t{o.sizes[d]} - 1, std::int64_t{o.steps[d]}, &span) ||
            __builtin_mul_overflow(span, w, &span) || __builtin_add_overflow(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi))
            return false;
    }
    return !__builtin_add_overflow(hi, w, &hi);
}

}  // namespace

// The record being checked and where its findings go.
struct TraceChecker::Ctx {
    const Record& rec;
    std::vector<TraceError>& out;
    std::size_t found = 0;
    TraceChecker& self;
    bool zero_partitions = false;  // reported once per record, not once per operand
    bool too_many_partitions = false;  // likewise

    void error(std::string field, std::string reason, std::string_view rule = {}) {
        out.push_back(TraceError{self.file_, rec.line, std::move(field), std::move(reason), std::string(rule)});
        ++found;
    }
    bool verdict(const char* field, const Verdict& v) {
        if (!v) error(field, v.reason, v.rule);
        return v.ok;
    }

    // Placement, partition range, start partition and extent of one on-chip operand. Returns the
    // decoded start (invalid when the placement failed).
    Decoded operand(const char* field, const Operand& o, std::uint32_t partitions, AllowedInPSUM psum,
                    AllowedInSBUF sbuf, WriteTensor write, bool start_rule) {
        Decoded d;
        if (o.kind != Operand::Kind::onchip) {
            error(field, o.kind == Operand::Kind::hbm ? "only a DMA operand may be hbm; give an on-chip operand (dtype@addr)"
                                                      : "missing operand; give it as dtype@addr[steps][sizes]",
                  "trace format v1, docs/trace-format.md");
            return d;
        }
        // The ISA masks an immediate to its 29-bit PartitionOffset: wider bits would be dropped
        // silently and the operand would land somewhere else (0x40000000 -> 0x0).
        if (self.map_.addr_imm_mask(o.addr) != o.addr) {
            error(field, self.map_.explain(self.map_.decode(o.addr)) + " (it would land at " +
                             hex(self.map_.addr_imm_mask(o.addr)) + "); give the on-chip address below " +
                             hex(std::uint64_t{self.map_.isa().addr_mask} + 1) + " (`sbufsim decode ADDR` shows where it lands)",
                  "partition offset, seed 000 §2");
            return d;
        }
        if (!verdict(field, tensor_start_addr_valid(self.map_, Addr4::immediate(o.addr), o.dtype, write, psum, sbuf)))
            return d;
        d = self.map_.decode(o.addr);
        const bool in_psum = d.region == Region::psum;
        const std::uint32_t array_partitions = in_psum ? self.map_.psum().partitions : self.map_.sbuf().partitions;
        if (partitions == 0) {
            if (!zero_partitions)
                error("partitions", "must be at least 1", "trace format v1, docs/trace-format.md");
            zero_partitions = true;
        } else if (partitions > array_partitions) {
            // The count itself is wrong wherever the operand starts: said once, of the field.
            if (!too_many_partitions)
                error("partitions",
                      std::to_string(partitions) + " partitions, more than the " +
                          std::to_string(array_partitions) + " of " + std::string(to_string(d.region)) +
                          "; use at most " + std::to_string(array_partitions) +
                          " (split the access into several instructions)",
                      "partition range, seed 000 §2");
            too_many_partitions = true;
        } else if (std::uint64_t{d.partition} + partitions > array_partitions) {
            error(field,
                  "starts at partition " + std::to_string(d.partition) + " and spans " +
                      std::to_string(partitions) + " partitions, past the " +
                      std::to_string(array_partitions) + " of " + std::string(to_string(d.region)) +
                      (partitions == array_partitions
                           ? "; start at partition 0"
                           : "; start at partition " + std::to_string(array_partitions - partitions) +
                                 " or lower") +
                      ", or use fewer partitions",
                  "partition range, seed 000 §2");
        } else if (start_rule && !start_partition_valid(d.partition, partitions)) {
            error(field,
                  "an access of " + std::to_string(partitions) + " partitions may not start at partition " +
                      std::to_string(d.partition) +
                      " (more than 64 start at 0; 33-64 at 0 or 64; 1-32 at 0, 32, 64 or 96)",
                  kStartRule);
        }
        size(field, o);
        std::int64_t lo = 0, hi = 0, first = 0, end = 0;
        const std::uint64_t active = in_psum ? self.map_.psum().partition_active : self.map_.sbuf().partition_active;
        if (!pattern_extent(o, rec.bytes, lo, hi) || __builtin_add_overflow(std::int64_t{d.offset}, lo, &first) ||
            __builtin_add_overflow(std::int64_t{d.offset}, hi, &end)) {
            error(field, "the access pattern's extent (sizes x steps x element size) does not fit in 64 bits, far "
                         "outside the partition (" + self.map_.partition_holds(d.region) +
                             "); give sizes and steps that stay inside the partition",
                  kActiveRule);
        } else if (first < 0 || std::uint64_t(end) > active) {
            // Which way to move follows from the side it leaves by: a negative step reaches below 0.
            const std::string fix =
                first < 0 ? "start higher in the partition (a negative step reaches below byte 0)"
                          : "start lower in the partition";
            error(field,
                  "the access pattern covers bytes [" + std::to_string(first) + ", " + std::to_string(end) +
                      ") of each partition, outside it: " + self.map_.partition_holds(d.region) + "; " + fix +
                      " or shorten the pattern",
                  kActiveRule);
        }
        return d;
    }

    // What the operand moves in each partition: its pattern's elements or bytes= (both: they
    // agree). A DMA's bytes= is its size (required, checked with the record); a transpose's
    // pattern is derived from it, an MX scale tile's from the data.
    void size(const char* field, const Operand& o) {
        constexpr std::string_view kRule = "trace format v1, docs/trace-format.md";
        const bool dma = rec.kind == RecordKind::dma;
        const bool pe = rec.kind == RecordKind::ldweights || rec.kind == RecordKind::matmul;
        if (pe && std::string_view(field) == "src2") return;  // an MX scale tile: sized by its data
        if (o.dims == 0) {
            if (rec.bytes == 0 && !dma)
                error(field,
                      "has no size: give its access pattern (dtype@addr[steps][sizes]) or bytes=N (bytes per "
                      "partition)",
                      kRule);
            return;
        }
        for (std::uint32_t d = 0; d < o.dims; ++d)
            if (o.sizes[d] == 0) {
                error(
                    field,
                    "dimension " + std::to_string(d) +
                        " of the access pattern has size 0, so it moves nothing; give every size at least 1",
                    kRule);
                return;
            }
        if (rec.bytes == 0 || (dma && rec.transpose)) return;
        const std::uint64_t bytes = o.elements() * dtype_size(o.dtype);
        if (bytes != rec.bytes)
            error(field,
                  "the access pattern moves " + std::to_string(o.elements()) + " " +
                      std::string(to_string(o.dtype)) + " elements (" + std::to_string(bytes) +
                      " bytes) per partition, but bytes=" + std::to_string(rec.bytes) + "; make them agree" +
                      (dma ? "" : ", or drop bytes= (the pattern gives the size)"),
                  kRule);
    }
};

TraceChecker::TraceChecker(const Params& params, std::string file)
    : params_(params),
      map_(params),
      clients_(params),
      file_(std::move(file)),
      signals_(params.isa.num_semaphores, 0),
      max_wait_(params.isa.num_semaphores, 0),
      max_wait_line_(params.isa.num_semaphores, 0) {
    for (const ClientInfo& ci : clients_.all())
        ports_.push_back(AccessPort{ci.name.ends_with("_rd"), ci.name.ends_with("_wr"), ci.group == ClientGroup::q7, ci.region});
}

void TraceChecker::check_header(const TraceHeader& h, std::vector<TraceError>& out) {
    // A text trace is version 1; a binary one 1 or 2 (the reader refused any other).
    if (h.version != kTraceFormatVersion && h.version != kBinaryFormatVersion)
        out.push_back(TraceError{
            file_, h.line, "header",
            "format version " + std::to_string(h.version) + " is not " + std::to_string(kTraceFormatVersion),
            "trace format v1, docs/trace-format.md"});
    if (!h.generation.empty() && h.generation != params_.generation)
        out.push_back(TraceError{
            file_, h.line, "gen",
            "the trace is for generation " + h.generation + " but is being checked against " +
                params_.generation +
                " (chosen by --gen or a --config file's base); drop that choice, or choose " + h.generation +
                " (--gen " + h.generation + ", or base = " + h.generation + " in the file)",
            "per-generation address map, seed 000 §1"});
}

std::size_t TraceChecker::check(const Record& rec, std::vector<TraceError>& out) {
    // Access records, the many, first: the instruction kinds' checks stay out of this frame.
    if (rec.kind == RecordKind::access) {
        Ctx c{rec, out, 0, *this};
        check_access(c);
        return c.found;
    }
    return check_instruction(rec, out);
}

[[gnu::noinline]] std::size_t TraceChecker::check_instruction(const Record& rec,
                                                              std::vector<TraceError>& out) {
    const std::size_t before = out.size();
    Ctx c{rec, out, 0, *this};
    switch (rec.kind) {
        case RecordKind::access:
            break;  // check() took it
        case RecordKind::dma:
            check_dma(c);
            break;
        case RecordKind::ldweights:
            check_ldweights(c);
            break;
        case RecordKind::matmul:
            check_matmul(c);
            break;
        case RecordKind::act:
        case RecordKind::pool:
        case RecordKind::dve:
            check_engine(c);
            break;
        case RecordKind::q7:
            check_q7(c);
            break;
    }
    check_mx_dtypes(c);
    check_semaphores(c);
    locate_errors(rec, out, before);  // a finding names the kernel line too
    return c.found;
}

int TraceChecker::resolve_client(const Record& r) {
    auto it = client_cache_.find(std::string(r.client));
    if (it == client_cache_.end()) {
        const auto id = clients_.find(r.client);
        it = client_cache_.emplace(std::string(r.client), id ? static_cast<int>(index(*id)) : -1).first;
    }
    if (r.client_id != kNoName) {
        if (r.client_id >= client_by_id_.size()) client_by_id_.resize(std::size_t{r.client_id} + 1, kUnresolved);
        client_by_id_[r.client_id] = it->second;
    }
    return it->second;
}

// The usual access record breaks no rule: its rules are tested together, without a branch each
// (a trace's records come in random client, op and address order, so a branch per rule would
// mispredict), and only a record that breaks one, or a Q7 port's, takes check_access_rules().
void TraceChecker::check_access(Ctx& c) {
    const Record& r = c.rec;
    if (const int client = client_of(r); client >= 0) [[likely]] {
        const AccessPort port = ports_[static_cast<std::size_t>(client)];
        // Decoded straight into last_access_ (a broken record's rules decode it again): copying
        // a local Decoded there stalled on store forwarding, a third of this function's time.
        map_.locate(r.address, last_access_);
        const Decoded& d = last_access_;
        const bool psum = d.region == Region::psum;
        const std::uint64_t parts = psum ? map_.psum().partitions : map_.sbuf().partitions;
        const std::uint64_t active = psum ? map_.psum().partition_active : map_.sbuf().partition_active;
        const bool rd = r.op == Op::rd;
        const bool broken = (r.cycle < last_cycle_) | (r.cycle > kMaxAccessCycle) | (port.read_only & !rd) |
                            (port.no_reads & rd) | port.q7 | !d.valid() | (d.region != port.region) |
                            (r.partitions == 0) | (std::uint64_t{d.partition} + r.partitions > parts) |
                            (r.bytes == 0) | (std::uint64_t{d.offset} + r.bytes > active);
        if (!broken) [[likely]] {
            last_cycle_ = r.cycle;
            last_cycle_line_ = r.line;
            last_client_ = client;
            return;
        }
    }
    check_access_rules(c);
}

// Each rule of an access record in turn, with its message.
[[gnu::cold, gnu::noinline]] void TraceChecker::check_access_rules(Ctx& c) {
    const Record& r = c.rec;
    last_client_ = -1;
    // Access cycles drive the kernel's issue times: a trace must not go back in time.
    if (r.cycle < last_cycle_)
        c.error("cycle",
                "cycle " + std::to_string(r.cycle) + " is before cycle " + std::to_string(last_cycle_) +
                    " of line " + std::to_string(last_cycle_line_) +
                    ": access records must have non-decreasing cycles",
                "trace format v1, docs/trace-format.md");
    else if (r.cycle > kMaxAccessCycle)
        c.error("cycle",
                "cycle " + std::to_string(r.cycle) + " is past " + std::to_string(kMaxAccessCycle) +
                    ", the last cycle a run can count to (2^62); start the trace's cycles lower",
                "trace format v1, docs/trace-format.md");
    else {
        last_cycle_ = r.cycle;
        last_cycle_line_ = r.line;
    }
    const int client = client_of(r);
    if (client < 0) {
        std::vector<std::string_view> names;
        for (std::size_t i = 0; i < clients_.size(); ++i)
            names.push_back(clients_[ClientId{static_cast<std::uint16_t>(i)}].name);
        c.error("client", "unknown client '" + std::string(r.client) + "' for " + params_.generation +
                              did_you_mean(r.client, names) +
                              " (e.g. pe_client_0, act_rd, dma_0, q7_0, pe_wr; `sbufsim config` lists the geometry)",
                kClientRule);
        return;
    }
    const ClientInfo& info = clients_[ClientId{static_cast<std::uint16_t>(client)}];
    const AccessPort port = ports_[static_cast<std::size_t>(client)];
    last_client_ = client;
    // A port named *_rd only reads, *_wr only writes (read-add-write needs both).
    if (port.read_only && r.op != Op::rd)
        c.error("op", "client " + info.name + " is a read port; op must be rd (or use the engine's _wr port)", kClientRule);
    if (port.no_reads && r.op == Op::rd)
        c.error("op", "client " + info.name + " is a write port; op must be wr or raw (or use the engine's _rd port)", kClientRule);

    last_access_ = map_.locate(r.address);
    const Decoded& d = last_access_;
    if (port.q7 && d.region == Region::psum) {
        c.verdict("address", gpsimd_operand_valid(map_, Addr4::immediate(r.address)));
        return;
    }
    if (!d.valid()) {
        c.error("address", map_.explain(map_.decode(r.address)));
        return;
    }
    if (d.region != port.region) {
        c.error("address", "client " + info.name + " is a " + std::string(to_string(info.region)) + " port but " +
                               hex(r.address) + " is in " + std::string(to_string(d.region)) + " on " + params_.generation + "; give a " +
                               std::string(to_string(d.region)) + " client (`sbufsim config` lists them) or an " +
                               std::string(to_string(info.region)) + " address",
                kClientRule);
        return;
    }
    const std::uint32_t parts = d.region == Region::psum ? map_.psum().partitions : map_.sbuf().partitions;
    if (r.partitions == 0 || std::uint64_t{d.partition} + r.partitions > parts)
        c.error("partitions",
                std::to_string(r.partitions) + " partitions from partition " + std::to_string(d.partition) +
                    " do not fit the " + std::to_string(parts) + " partitions of " +
                    std::string(to_string(d.region)),
                "partition range, seed 000 §2");
    const std::uint64_t active = d.region == Region::psum ? map_.psum().partition_active : map_.sbuf().partition_active;
    if (r.bytes == 0 || std::uint64_t{d.offset} + r.bytes > active)
        c.error("bytes",
                r.bytes == 0
                    ? std::string("must be at least 1")
                    : std::to_string(r.bytes) + " bytes from offset " + hex(d.offset) +
                          " run past the end of the partition: " + map_.partition_holds(d.region) + "; " +
                          (r.bytes <= active ? "start at offset " + hex(active - r.bytes) + " or lower, or "
                                             : std::string()) +
                          "move at most " +
                          std::to_string(active - std::min<std::uint64_t>(d.offset, active)) +
                          " bytes from this offset",
                kActiveRule);
    if (port.q7) {
        const std::uint32_t core = static_cast<std::uint32_t>(std::strtoul(info.name.c_str() + 3, nullptr, 10));
        const std::uint32_t lo = core * params_.q7.partitions_per_core, hi = lo + params_.q7.partitions_per_core;
        if (d.partition < lo || std::uint64_t{d.partition} + r.partitions > hi)
            c.error("partitions",
                    info.name + " reaches partitions [" + std::to_string(lo) + ", " + std::to_string(hi) +
                        ") only; this access covers [" + std::to_string(d.partition) + ", " +
                        std::to_string(std::uint64_t{d.partition} + r.partitions) + ")",
                    kQ7Rule);
    }
}

void TraceChecker::check_dma(Ctx& c) {
    const Record& r = c.rec;
    if (!r.src.onchip() && !r.dst.onchip())
        c.error("dst", "a DMA moves data to or from SBUF: src and dst cannot both be hbm", "DMA, seed 000 §8");
    if (r.bytes == 0) c.error("bytes", "must be at least 1", "trace format v1, docs/trace-format.md");
    if (r.has_engine() && r.engine >= params_.dma.engines)
        c.error("engine",
                "DMA engine " + std::to_string(r.engine) + " does not exist: " + params_.generation +
                    " has " + std::to_string(params_.dma.engines) + " (0.." +
                    std::to_string(params_.dma.engines - 1) + "); drop engine= to let the queue pick one",
                "dma.engines, PUBLIC_FACTS DMA");
    check_dma_trigger(c);
    if (r.dst_rmw_add) check_dma_rmw(c);
    // A casting DMA (`dtype@hbm` unlike the on-chip end) converts each element; the crossbar of a
    // transposing one moves them as they are (nki.isa dma_transpose: one dtype on both sides).
    const Operand& chip = r.dst.onchip() ? r.dst : r.src;
    for (const Operand* o : {&r.src, &r.dst})
        if (r.transpose && o->hbm_typed && chip.onchip() && o->dtype != chip.dtype)
            c.error(o == &r.src ? "src" : "dst",
                    "a transposing DMA does not convert elements: the HBM end is " +
                        std::string(to_string(o->dtype)) + ", the on-chip end " +
                        std::string(to_string(chip.dtype)) + "; cast with a copy on chip",
                    "nki.isa dma_transpose");
    // DMA engines are AXI masters like the Q7: SBUF through axi2sram, no path to PSUM (seed 000 §7.4).
    if (r.src.onchip())
        c.operand("src", r.src, r.partitions, AllowedInPSUM::False, AllowedInSBUF::True, WriteTensor::False, false);
    if (!r.transpose) {
        if (r.dst.onchip())
            c.operand("dst", r.dst, r.partitions, AllowedInPSUM::False, AllowedInSBUF::True, WriteTensor::True, false);
        return;
    }
    // Transpose through the axi2sram crossbar (seed 000 §6.2): `partitions` source rows (whole
    // 16-row tiles) of `bytes` each land as a column across bytes / dtype_size destination
    // partitions, each receiving `partitions` elements.
    if (!r.dst.onchip()) {
        c.error("dst", "a transposing DMA writes SBUF through axi2sram: dst must be an SBUF operand",
                "axi2sram transpose, seed 000 §6.1");
        return;
    }
    c.verdict("partitions", has_valid_xpose_src_rows(params_.isa, r.partitions));
    const std::uint32_t w = dtype_size(r.dst.dtype);
    if (r.bytes % w != 0) {
        c.error("bytes",
                std::to_string(r.bytes) + " bytes per source row is not a whole number of " +
                    std::string(to_string(r.dst.dtype)) + " elements",
                "axi2sram transpose, seed 000 §6.2");
        return;
    }
    const std::uint32_t cols = r.bytes / w;
    if (!c.verdict("bytes", has_valid_xpose_tile_cols(params_.isa, cols, r.dst.dtype))) return;
    c.verdict("dst", xpose_dst_aligned(params_.isa, r.dst.addr));
    // The destination pattern is one element per partition (derived from bytes=); a pattern
    // given with it may still not be empty.
    c.size("dst", r.dst);
    Operand one = r.dst;
    one.dims = 1;
    one.steps = {1, 0, 0};
    one.sizes = {r.partitions, 0, 0};
    c.operand("dst", one, cols, AllowedInPSUM::False, AllowedInSBUF::True, WriteTensor::True, false);
}

// Who triggers the DMA and how its descriptors are made (DGE reference; docs/engines.md "DMA triggers").
// dst_rmw_op=add (nki.isa dma_copy; trn3 arch guide, SBUF Read-Add-Write: "BF16 or FP32,
// matching dtypes"): the destination's dtype is what is added; a plain `hbm` end has the other
// end's dtype, a `dtype@hbm` one its own.
void TraceChecker::check_dma_rmw(Ctx& c) {
    const Record& r = c.rec;
    constexpr std::string_view kRmwRule = "nki.isa dma_copy dst_rmw_op; trn3 arch guide, SBUF Read-Add-Write";
    if (r.transpose) c.error("dst_rmw_op", "a transposing DMA cannot add into its destination: drop one of them", kRmwRule);
    const auto typed = [](const Operand& o) { return o.onchip() || o.hbm_typed; };
    for (const Operand* o : {&r.dst, &r.src}) {
        if (!typed(*o)) continue;
        if (o->dtype != Dtype::bf16 && o->dtype != Dtype::fp32)
            c.error(o == &r.dst ? "dst" : "src", "a read-add-write adds bf16 or fp32 data, not " + std::string(to_string(o->dtype)),
                    kRmwRule);
    }
    if (typed(r.src) && typed(r.dst) && r.src.dtype != r.dst.dtype)
        c.error("src", "a read-add-write needs matching dtypes: src is " + std::string(to_string(r.src.dtype)) +
                           ", dst " + std::string(to_string(r.dst.dtype)),
                kRmwRule);
}

void TraceChecker::check_dma_trigger(Ctx& c) {
    const Record& r = c.rec;
    constexpr std::string_view kDgeRule = "DGE reference (nki-dge), Mode Selection Summary and hwdge";
    if (r.dge == DgeMode::hwdge && params_.dma.hwdge_units == 0)
        c.error("dge", params_.generation + " has no hardware DGE (NeuronCore-v3 or newer; dma.hwdge_units = 0): "
                       "use dge=none or dge=swdge", kDgeRule);
    if (r.dge == DgeMode::hwdge && r.issuer != DmaIssuer::unset && r.issuer != DmaIssuer::sp && r.issuer != DmaIssuer::act)
        c.error("issuer", "a hardware DGE is triggered by the Sync (sp) or Scalar (act) sequencer only, not " +
                              std::string(to_string(r.issuer)) + ": use issuer=sp or issuer=act", kDgeRule);
    if (r.dge == DgeMode::swdge && r.issuer != DmaIssuer::unset && r.issuer != DmaIssuer::pool)
        c.error("issuer", "software DGE runs on the GpSimd engine: issuer must be pool (or left out), not " +
                              std::string(to_string(r.issuer)), kDgeRule);
    if (r.has_priority() && r.priority > 3)
        c.error("priority",
                "DMA QoS class " + std::to_string(r.priority) + " does not exist: 0..3, 0 highest",
                "nki.isa dma_copy priority; trn3 arch guide, DMA QoS");
    // nki.isa dma_copy `priority`: "Currently not supported when DGE is turned off
    // (dge_mode=nki.isa.dge_mode.none)". A record without dge= is the nki default (the compiler
    // picks the mode), so only an explicit dge=none is refused.
    if (r.has_priority() && r.dge == DgeMode::none)
        c.error("priority", "a DMA QoS priority is not supported with DGE turned off (dge=none): use dge=hwdge or "
                            "dge=swdge, or drop priority=",
                "nki.isa dma_copy priority");
}

void TraceChecker::check_ldweights(Ctx& c) {
    const Record& r = c.rec;
    if (r.rows == 0 || r.rows > params_.pe.rows)
        c.error("rows", "must be 1.." + std::to_string(params_.pe.rows) + " (the PE array's rows)",
                "PE array, seed 000 §5.1");
    if (r.cols == 0 || r.cols > params_.pe.cols)
        c.error("cols", "must be 1.." + std::to_string(params_.pe.cols) + " (the PE array's columns)",
                "PE array, seed 000 §5.1");
    if (r.partitions != 0 && r.partitions != r.rows)
        c.error("partitions",
                std::to_string(r.partitions) + " differs from rows " + std::to_string(r.rows) +
                    ": the stationary tile has one row per partition",
                "LdWeights, seed 000 §5.1");
    // LdWeights: tensor3d_valid(src, ..., AllowedInPSUM::False, AllowedInSBUF::True) (seed 000 §5.1).
    c.operand("src", r.src, r.rows, AllowedInPSUM::False, AllowedInSBUF::True, WriteTensor::False, true);
    check_pe_tile(c, r.rows, r.cols);
    check_pe_mx(c, r.rows);
}

// The x4 MX types exist from NeuronCore-v4 (nki.language float8_e4m3fn_x4: "custom data type for
// nki.isa.nc_matmul_mx on NeuronCore-v4").
void TraceChecker::check_mx_dtypes(Ctx& c) {
    const Record& r = c.rec;
    if (params_.pe.mx) return;
    for (const auto& [field, o] : {std::pair{"src", &r.src}, std::pair{"src2", &r.src2}, std::pair{"dst", &r.dst}})
        if (o->present() && is_mx(o->dtype))
            c.error(r.kind == RecordKind::q7 && o == &r.src ? "operand" : field,
                    std::string(to_string(o->dtype)) + " is an MX quad type of NeuronCore-v4 and newer; " +
                        params_.generation + " has none (pe.mx = false): use bf16 or fp8, or --gen mariana",
                    "nki.isa nc_matmul_mx; pe.mx");
}

// An MX ldweights / matmul (nki.isa nc_matmul_mx): x4 data with its uint8 scale tile as src2. The
// scales of each 32-partition quadrant's data sit in that quadrant, one scale partition per 8 data
// partitions (MXFP matmul guide, "Scale Tensor"), so src2 names the first quadrant's scale rows.
// Only row tiling; no transpose or double-row mode; the result is fp32 or bf16 in one PSUM bank.
void TraceChecker::check_pe_mx(Ctx& c, std::uint32_t rows) {
    const Record& r = c.rec;
    constexpr std::string_view kMxRule = "nki.isa nc_matmul_mx; MXFP matmul guide, Layout and Tile Size Requirements";
    const bool mx = r.src.present() && is_mx(r.src.dtype);
    if (!mx) {
        if (r.src2.present())
            c.error("src2", "on " + std::string(to_string(r.kind)) + " src2 is the MX scale tile of x4 data; this src is " +
                                std::string(to_string(r.src.dtype)) + ": drop src2, or give src an x4 dtype (fp8e4x4, "
                                "fp8e5x4, fp4x4)", kMxRule);
        return;
    }
    if (!params_.pe.mx) return;  // check_mx_dtypes said why
    if (!r.src2.present()) {
        c.error("src2", "MX data needs its scale tile: add src2=uint8@ADDR (one uint8 per 8 partitions x 4 values, in "
                        "the data's quadrants)", kMxRule);
    } else {
        c.operand("src2", r.src2, (std::min(rows, params_.isa.quadrant_partitions) + 7) / 8, AllowedInPSUM::False,
                  AllowedInSBUF::True, WriteTensor::False, false);
        if (r.src2.dtype != Dtype::uint8)
            c.error("src2", "an MX scale tile is uint8, not " + std::string(to_string(r.src2.dtype)), kMxRule);
    }
    if (r.has_tile_size() && r.tile_size[1] != params_.pe.cols)
        c.error("tile_size",
                "MX matmuls have only row tiling: the tile has all " + std::to_string(params_.pe.cols) +
                    " columns (tile_size ROWS," + std::to_string(params_.pe.cols) + ")",
                kMxRule);
    if (r.kind != RecordKind::matmul) return;
    if (r.transpose) c.error("transpose", "an MX matmul cannot transpose: drop transpose=1", kMxRule);
    if (r.perf_opt == PerfOpt::double_row)
        c.error("perf_opt", "an MX matmul has no double-row mode (it already packs four values per PE): drop perf_opt",
                kMxRule);
    if (r.dst.onchip() && (r.dst.dtype == Dtype::fp32 || r.dst.dtype == Dtype::bf16)) {
        const std::uint64_t max = params_.psum.bank_size / dtype_size(r.dst.dtype);
        if (r.src.elements() > max)
            c.error("src",
                    "an MX matmul's moving tile is at most " + std::to_string(max) + " x4 columns with a " +
                        std::string(to_string(r.dst.dtype)) + " result (one PSUM bank); this one has " +
                        std::to_string(r.src.elements()) + ": split the moving tile" +
                        (r.dst.dtype == Dtype::fp32 ? " or write a bf16 result (up to 1024)" : ""),
                    kMxRule);
    }
}

// PE tiling (nki.isa nc_matmul, "Tiling mode"): tile_position and tile_size are set together; a
// tile is pe.tile_min x 2^k rows and columns (2x 64 row tiles on NeuronCore-v2, 4x 32 from v3),
// starts at a multiple of its size and lies inside the array; the stationary (`rows` contraction
// partitions x `cols` columns) fits it.
void TraceChecker::check_pe_tile(Ctx& c, std::uint32_t rows, std::uint32_t cols) {
    const Record& r = c.rec;
    constexpr std::string_view kTileRule = "nki.isa nc_matmul, Tiling mode";
    if (!r.has_tile_position() && !r.has_tile_size()) return;
    if (r.has_tile_position() != r.has_tile_size()) {
        c.error(r.has_tile_size() ? "tile_position" : "tile_size",
                "tile_position and tile_size must both be set to enable tiling mode: add " +
                    std::string(r.has_tile_size() ? "tile_position=ROW,COLUMN" : "tile_size=ROWS,COLUMNS") +
                    " or drop the other (without both the instruction uses the whole array)",
                kTileRule);
        return;
    }
    const std::uint32_t min = params_.pe.tile_min;
    if (min == 0) {
        c.error("tile_size", params_.generation + " has no PE tiling mode (pe.tile_min = 0; NeuronCore-v2 or newer): "
                                                  "drop tile_position and tile_size", kTileRule);
        return;
    }
    const char* axis[2] = {"row", "column"};
    const std::uint32_t dim[2] = {params_.pe.rows, params_.pe.cols};
    bool placed = true;
    for (std::size_t i = 0; i < 2; ++i) {
        const std::uint32_t size = r.tile_size[i], pos = r.tile_position[i];
        std::string sizes;
        for (std::uint32_t v = min; v <= dim[i]; v *= 2)
            sizes += (sizes.empty() ? "" : ", ") + std::to_string(v);
        if (size < min || size > dim[i] || (size & (size - 1)) != 0) {
            c.error("tile_size",
                    "a tile of " + std::to_string(size) + " PE " + axis[i] + "s does not exist on " +
                        params_.generation + ": " + axis[i] + " tiles are " + sizes + " (pe.tile_min = " +
                        std::to_string(min) + "; 2x 64 row tiles on NeuronCore-v2, 4x 32 from v3)",
                    kTileRule);
            placed = false;
        } else if (pos % size != 0 || pos + size > dim[i]) {
            std::string starts;
            for (std::uint32_t v = 0; v + size <= dim[i]; v += size)
                starts += (starts.empty() ? "" : ", ") + std::to_string(v);
            c.error("tile_position",
                    "a " + std::to_string(size) + "-" + axis[i] + " tile may not start at " + axis[i] + " " +
                        std::to_string(pos) + ": it starts at a multiple of its size inside the " +
                        std::to_string(dim[i]) + " " + axis[i] + "s (" + starts + ")",
                    kTileRule);
            placed = false;
        }
    }
    if (placed && (rows > r.tile_size[0] || cols > r.tile_size[1]))
        c.error("tile_size",
                "the stationary (" + std::to_string(rows) + " partitions x " + std::to_string(cols) +
                    " columns) does not fit the " + std::to_string(r.tile_size[0]) + " x " +
                    std::to_string(r.tile_size[1]) + " tile: use a larger tile_size or a smaller stationary",
                kTileRule);
    // "double_row performance mode cannot be combined with Tensor Engine column tiling mode".
    if (r.kind == RecordKind::matmul && r.perf_opt == PerfOpt::double_row && r.tile_size[1] < dim[1])
        c.error("perf_opt",
                "double_row cannot be combined with column tiling (tile_size " +
                    std::to_string(r.tile_size[0]) + "," + std::to_string(r.tile_size[1]) + "): use " +
                    std::to_string(dim[1]) + " columns or drop perf_opt",
                kTileRule);
}

void TraceChecker::check_matmul(Ctx& c) {
    const Record& r = c.rec;
    if (r.num_active_rows == 0 || r.num_active_rows > params_.pe.rows)
        c.error("num_active_rows",
                "must be 1.." + std::to_string(params_.pe.rows) + ": the PE array on " + params_.generation +
                    " has " + std::to_string(params_.pe.rows) + " rows",
                std::string(kMatmulRule));
    if (r.num_active_cols == 0 || r.num_active_cols > params_.pe.cols)
        c.error("num_active_cols",
                "must be 1.." + std::to_string(params_.pe.cols) + ": the PE array on " + params_.generation +
                    " has " + std::to_string(params_.pe.cols) + " columns",
                std::string(kMatmulRule));
    if (r.partitions != 0 && r.partitions != r.num_active_rows)
        c.error("partitions",
                std::to_string(r.partitions) + " differs from num_active_rows " +
                    std::to_string(r.num_active_rows) +
                    " (the moving tensor's partitions); give them the same value",
                std::string(kMatmulRule));
    // Moving tensor: SBUF only. Destination: PSUM only, FP32 (UINT32 for UINT8 input).
    const Decoded src = c.operand("src", r.src, r.num_active_rows, AllowedInPSUM::False, AllowedInSBUF::True,
                                  WriteTensor::False, true);
    // A PE transpose in NeuronCore-v3's transpose mode may also write its data's dtype (nki.isa
    // nc_transpose: "The output dst tile must have the same data type as that of data"; the
    // identity it streams has that dtype too); every other matmul writes the fp32 accumulator.
    const bool passthrough = r.transpose && params_.pe.transpose_passthrough && r.src.onchip() && r.dst.onchip() &&
                             r.dst.dtype == r.src.dtype;
    // An MX matmul dequantizes into bf16 or fp32 (mm_dst_dtype_valid below says which).
    const bool mx_dst = r.src.onchip() && is_mx(r.src.dtype) && r.dst.onchip() && r.dst.dtype == Dtype::bf16;
    const Decoded dst = c.operand("dst", r.dst, r.num_active_cols, AllowedInPSUM::True, AllowedInSBUF::False,
                                  passthrough || mx_dst ? WriteTensor::False : WriteTensor::True, true);
    if (r.src.onchip() && r.dst.onchip() && !passthrough) c.verdict("dst", mm_dst_dtype_valid(r.src.dtype, r.dst.dtype));
    check_pe_tile(c, r.num_active_rows, r.num_active_cols);
    check_pe_mx(c, r.num_active_rows);
    // The FP8 double-row mode is "not combinable with ... transpose mode" (trn2 arch guide).
    if (r.transpose && r.perf_opt == PerfOpt::double_row)
        c.error("perf_opt", "double_row cannot be combined with a PE transpose (transpose=1): drop one of them",
                "trn2 arch guide, Double FP8 Matmul Performance");

    // row_grp selects the moving tensor's quadrant; col_grp the PSUM destination's (seed 000 §5.2).
    if (auto q = valid_mm_sbuf_quadrant(map_, r.row_grp); !q)
        c.error("row_grp", q.reason, q.rule);
    else if (src.valid() && src.partition != *q.value)
        c.error("src",
                "the moving tensor starts at partition " + std::to_string(src.partition) + " but row_grp " +
                    hex(r.row_grp) + " selects partition " + std::to_string(*q.value),
                "valid_mm_sbuf_quadrant, seed 000 §5.2");
    if (auto q = valid_mm_psum_quadrant(map_, r.col_grp); !q) {
        c.error("col_grp", q.reason, q.rule);
    } else {
        if (dst.valid() && dst.partition != *q.value)
            c.error("dst",
                    "the destination starts at PSUM partition " + std::to_string(dst.partition) +
                        " but col_grp " + hex(r.col_grp) + " selects partition " + std::to_string(*q.value),
                    "valid_mm_psum_quadrant, seed 000 §5.2");
        c.verdict("num_active_cols", s3d3_mm_valid_col_group_active_columns(r.col_grp, r.num_active_cols));
        // col_grp 0x8 has no xbus_sel at all (the q3 HW bug): blame col_grp, not xbus_sel.
        c.verdict(mm_xbus_sel_for(r.col_grp) ? "xbus_sel" : "col_grp", s3d3_mm_valid_xbus_sel(r.col_grp, r.xbus_sel));
    }
    c.verdict("acc_flags", mm_psum_flags(r.acc_flags));
    if (c.verdict("zero_region", valid_zero_region(r.zero_region, params_)) && dst.valid() && r.dst.dims > 0) {
        // The fp32 result must stay inside the banks the group zeroes (one 2 KiB bank below
        // mariana); PUBLIC_FACTS "Matmul", seed 000 §5.3, §5.5.
        const std::uint64_t region = zero_region_bytes(r.zero_region);
        std::int64_t lo = 0, hi = 0;
        pattern_extent(r.dst, 0, lo, hi);
        const std::uint64_t base = dst.offset / region * region;
        if (std::int64_t(dst.offset) + lo < std::int64_t(base) || dst.offset + std::uint64_t(hi) > base + region)
            c.error("dst",
                    "the result covers bytes [" + std::to_string(dst.offset + lo) + ", " +
                        std::to_string(dst.offset + hi) + ") of each PSUM partition, crossing the " +
                        std::to_string(region) + "-byte zero region it accumulates in (zero_region " +
                        std::to_string(r.zero_region) + ")",
                    "MATMUL_ZERO_REGION, seed 000 §5.3, §5.5");
    }
}

void TraceChecker::check_engine(Ctx& c) {
    const Record& r = c.rec;
    if (r.isa == ComputeOp::quantize_mx) check_quantize_mx(c);
    // ACT/POOL/DVE read and write SBUF or PSUM (seed 000 §7.1); PSUM writes are 4-byte.
    c.operand("src", r.src, r.partitions, AllowedInPSUM::True, AllowedInSBUF::True, WriteTensor::False, true);
    if (r.src2.present())
        c.operand("src2", r.src2, r.partitions, AllowedInPSUM::True, AllowedInSBUF::True, WriteTensor::False, true);
    c.operand("dst", r.dst, r.partitions, AllowedInPSUM::True, AllowedInSBUF::True, WriteTensor::True, true);
    if (r.src2.onchip() && r.src.onchip())
        c.verdict("src2", tt_valid_partitions(map_, Addr4::immediate(r.src.addr), Addr4::immediate(r.src2.addr)));
    // At most one PSUM operand per instruction, counting the destination (seed 000 §2.2).
    int psum = 0;
    for (const Operand* o : {&r.src, &r.src2, &r.dst})
        psum += o->onchip() && map_.addr_in_psum(map_.addr_imm_mask(o->addr));
    if (psum > 1 && !(r.src2.onchip() && map_.addr_in_psum(r.src.addr) && map_.addr_in_psum(r.src2.addr)))
        c.error("dst", "an engine instruction may touch at most one PSUM operand; this one has " + std::to_string(psum),
                "tt_valid_partitions, seed 000 §2.2");
    // GpSimd instructions never name PSUM (the public ISA), though the POOL datapath has PSUM ports
    // (seed 000 §7.1): docs/engines.md "Shared ports".
    if (r.kind == RecordKind::pool && !params_.pool.psum_access)
        for (const auto& [field, o] : {std::pair{"src", &r.src}, std::pair{"src2", &r.src2}, std::pair{"dst", &r.dst}})
            if (o->onchip() && map_.addr_in_psum(map_.addr_imm_mask(o->addr)))
                c.error(field, std::string("a pool (GpSimd) instruction cannot access PSUM: move it to act or dve, or set "
                                           "pool.psum_access=true to use the POOL datapath's PSUM port"),
                        "nki.isa \"GpSimd Engine cannot access PSUM\"; pool.psum_access");
}

// Quantize-MX (nki.isa quantize_mx; trn3 arch guide, QuantizeMX): a VectorE instruction of
// NeuronCore-v4 turning bf16/fp16 data into x4 fp8 data ("Quantize-MX does not support an FP4
// output", MXFP matmul guide). The scales it also writes are not a record operand.
void TraceChecker::check_quantize_mx(Ctx& c) {
    const Record& r = c.rec;
    constexpr std::string_view kRule = "nki.isa quantize_mx; trn3 arch guide, QuantizeMX";
    if (!params_.pe.mx) {
        c.error("isa", "quantize_mx is a NeuronCore-v4 instruction; " + params_.generation +
                           " has no MX types (pe.mx = false)", kRule);
        return;
    }
    if (r.kind != RecordKind::dve) c.error("isa", "quantize_mx runs on the Vector Engine: use a dve record", kRule);
    if (r.src.onchip() && dtype_size(r.src.dtype) != 2)
        c.error("src", "quantize_mx reads bf16 or fp16 data, not " + std::string(to_string(r.src.dtype)), kRule);
    if (r.dst.onchip() && r.dst.dtype != Dtype::fp8e4x4 && r.dst.dtype != Dtype::fp8e5x4)
        c.error("dst", "quantize_mx writes fp8e4x4 or fp8e5x4 data, not " + std::string(to_string(r.dst.dtype)) +
                           " (there is no FP4 output)", kRule);
}

void TraceChecker::check_q7(Ctx& c) {
    const Record& r = c.rec;
    if (r.op == Op::raw) c.error("op", "a Q7 load/store is rd or wr", "seed 000 §7.3");
    if (r.core >= params_.q7.cores) {
        c.error("core",
                "GpSimd core " + std::to_string(r.core) + " does not exist: " + params_.generation + " has " +
                    std::to_string(params_.q7.cores),
                std::string(kQ7Rule));
        return;
    }
    if (!r.src.onchip()) {
        c.error("operand", "a Q7 access needs an SBUF operand", std::string(kQ7Rule));
        return;
    }
    // The keystone first: PSUM has no AXI aperture, so the reason names that, not "AllowedInPSUM".
    if (!c.verdict("operand", gpsimd_operand_valid(map_, Addr4::immediate(r.src.addr)))) return;
    const Decoded d = c.operand("operand", r.src, r.partitions, AllowedInPSUM::False, AllowedInSBUF::True,
                                r.op == Op::wr ? WriteTensor::True : WriteTensor::False, false);
    if (!d.valid()) return;
    const std::uint32_t lo = r.core * params_.q7.partitions_per_core, hi = lo + params_.q7.partitions_per_core;
    if (d.partition < lo || std::uint64_t{d.partition} + r.partitions > hi)
        c.error("partitions",
                "core " + std::to_string(r.core) + " reaches partitions [" + std::to_string(lo) + ", " +
                    std::to_string(hi) + ") only; this access covers [" + std::to_string(d.partition) + ", " +
                    std::to_string(std::uint64_t{d.partition} + r.partitions) + ")",
                kQ7Rule);
}

void TraceChecker::check_semaphores(Ctx& c) {
    const Record& r = c.rec;
    const std::uint32_t n = params_.isa.num_semaphores;
    for (std::uint32_t i = 0; i < r.num_waits && i < kMaxWaits; ++i) {
        const SemWait& w = r.waits[i];
        if (w.sem >= n) {
            c.error("wait",
                    "semaphore " + std::to_string(w.sem) + " does not exist (0.." + std::to_string(n - 1) +
                        "; isa.num_semaphores sets the count)",
                    kSemRule);
            continue;
        }
        const std::uint32_t v = waits_.resolve(r.queue_id, w);
        if (v > max_wait_[w.sem]) {
            max_wait_[w.sem] = v;
            max_wait_line_[w.sem] = r.line;
        }
    }
    for (std::uint32_t i = 0; i < r.num_signals && i < kMaxSignals; ++i) {
        if (r.signals[i] >= n)
            c.error("signal",
                    "semaphore " + std::to_string(r.signals[i]) + " does not exist (0.." +
                        std::to_string(n - 1) + "; isa.num_semaphores sets the count)",
                    kSemRule);
        else
            ++signals_[r.signals[i]];
    }
}

// The records the reader rejected were not counted: one of them may carry the missing signal.
std::string TraceChecker::rejected_note() const {
    if (rejected_ == 0) return "";
    return "; or fix the record rejected at line " + std::to_string(first_rejected_) +
           (rejected_ > 1 ? " (and " + std::to_string(rejected_ - 1) + " more)" : std::string()) +
           " first: a signal it carries is not counted";
}

void TraceChecker::note_cascade(std::vector<TraceError>& out, std::size_t from) const {
    if (rejected_ == 0) return;
    const std::string line = std::to_string(first_rejected_);
    for (std::size_t i = from; i < out.size(); ++i) {
        TraceError& e = out[i];
        // Only what the semaphore game decides (races, completion order, circles of waits); a
        // finding already naming the rejected record (finish()'s) is left as it is.
        const bool race = e.rule == "races, docs/trace-format.md" || e.rule == "completion order, docs/trace-format.md";
        const bool deadlock = e.rule == kSemRule && e.field == "wait";
        if (e.line <= first_rejected_ || (!race && !deadlock) || e.reason.find("rejected at line") != std::string::npos)
            continue;
        e.reason += "; fix the record rejected at line " + line +
                    (rejected_ > 1 ? " (and " + std::to_string(rejected_ - 1) + " more)" : std::string()) +
                    " first: the " + (race ? "race" : "deadlock") + " check ran without it";
    }
}

std::size_t TraceChecker::finish(std::vector<TraceError>& out) {
    std::size_t found = 0;
    for (std::uint32_t s = 0; s < signals_.size(); ++s) {
        if (max_wait_[s] <= signals_[s]) continue;
        out.push_back(TraceError{
            file_, max_wait_line_[s], "wait",
            "waits for semaphore " + std::to_string(s) + " to reach " + std::to_string(max_wait_[s]) +
                " but the whole trace signals it only " + std::to_string(signals_[s]) +
                " times: this wait can never be satisfied (the queue would hang); add the missing "
                "signal=" +
                std::to_string(s) + " or lower the wait's value" + rejected_note(),
            std::string(kSemRule)});
        ++found;
    }
    return found;
}

}  // namespace sbufsim
