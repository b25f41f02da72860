// The binary trace form (docs/trace-format.md, "Binary form"): a 64-byte header, then fixed-size
// little-endian records, each starting with a tag byte:
//   0x01 name         64 B  defines the next name id (clients, queues, fn), before its first use
//   0x03 site        256 B  defines the next source-site id, before its first use (version 2)
//   0x04 location     24 B  the source location of the record that follows (version 2)
//   0x10 access       24 B
//   0x21..0x27 instr 160 B  0x20 + RecordKind
// Names are defined inline rather than in a header table so that both the writer and the reader
// stream: the writer never needs to know all names up front.
#include <algorithm>
#include <bit>
#include <cstring>
#include <ostream>

#include "trace_binary.h"

namespace sbufsim::detail {

namespace {

constexpr std::uint8_t kTagName = 0x01;
constexpr std::uint8_t kTagEnd = 0x02;
constexpr std::uint8_t kTagSite = 0x03;
constexpr std::uint8_t kTagLocation = 0x04;
constexpr std::size_t kSiteTextOffset = 8;
constexpr std::size_t kFlagsByte = 48;
constexpr std::uint8_t kFlagEndRecord = 0x01;
constexpr std::uint8_t kFlagChecksum = 0x02;
constexpr std::uint8_t kTagAccess = 0x10;
constexpr std::uint8_t kTagInstruction = 0x20;
constexpr std::size_t kGenerationBytes = 32;
constexpr std::size_t kOperandBytes = 32;
constexpr std::string_view kRule = "trace format v1 binary, docs/trace-format.md";

// Little-endian stores and loads, independent of the host byte order.
template <class T>
void put(unsigned char* p, T v) {
    using U = std::make_unsigned_t<T>;
    U u = static_cast<U>(v);
    if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(p, &u, sizeof(U));  // one store, as get() below
    } else {
        for (std::size_t i = 0; i < sizeof(T); ++i) p[i] = static_cast<unsigned char>(u >> (8 * i));
    }
}
template <class T>
T get(const unsigned char* p) {
    using U = std::make_unsigned_t<T>;
    U u = 0;
    if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(&u, p, sizeof(U));   // one load: the byte loop is not always merged into one
    } else {
        for (std::size_t i = 0; i < sizeof(T); ++i) u = static_cast<U>(u | (U{p[i]} << (8 * i)));
    }
    return static_cast<T>(u);
}

// Writes `n` bytes and adds them to the checksum.
void emit(std::ostream& out, std::uint64_t& sum, const unsigned char* p, std::size_t n) {
    checksum_add(sum, p, n);
    out.write(reinterpret_cast<const char*>(p), static_cast<std::streamsize>(n));
}

void put_operand(unsigned char* p, const Operand& o) {
    p[0] = static_cast<unsigned char>(o.kind);
    p[1] = static_cast<unsigned char>(o.dtype);
    p[2] = o.dims;
    p[3] = o.hbm_typed ? 1 : 0;
    put<std::uint32_t>(p + 4, o.addr);
    for (std::size_t d = 0; d < kMaxDims; ++d) {
        put<std::int32_t>(p + 8 + 4 * d, o.steps[d]);
        put<std::uint32_t>(p + 20 + 4 * d, o.sizes[d]);
    }
}

// Dtype values are the enum's order (isa_rules.h).
constexpr std::uint8_t kDtypeCount = static_cast<std::uint8_t>(kLastDtype) + 1;

const char* get_operand(const unsigned char* p, Operand& o) {
    if (p[0] > static_cast<unsigned char>(Operand::Kind::onchip)) return "bad operand kind";
    if (p[1] >= kDtypeCount) return "bad operand dtype";
    if (p[2] > kMaxDims) return "bad operand dims";
    o.kind = static_cast<Operand::Kind>(p[0]);
    o.dtype = static_cast<Dtype>(p[1]);
    o.dims = p[2];
    o.hbm_typed = p[3] == 1;
    o.addr = get<std::uint32_t>(p + 4);
    for (std::size_t d = 0; d < kMaxDims; ++d) {
        o.steps[d] = get<std::int32_t>(p + 8 + 4 * d);
        o.sizes[d] = get<std::uint32_t>(p + 20 + 4 * d);
    }
    return nullptr;
}

std::uint16_t name_ref(std::ostream& out, std::uint64_t& sum, NameTable& defined, std::string_view name) {
    if (name.empty()) return kNoName;
    const std::uint32_t before = defined.size();
    const auto id = defined.intern(name);
    if (!id) throw TraceFormatError(TraceError{"", 0, "name", "more than " + std::to_string(kMaxNames) + " distinct names", ""});
    if (defined.size() != before) {   // first use: define it in the stream
        std::array<unsigned char, kBinaryNameBytes> b{};
        b[0] = kTagName;
        b[1] = static_cast<unsigned char>(name.size());
        put<std::uint16_t>(b.data() + 2, *id);
        std::memcpy(b.data() + 4, name.data(), std::min(name.size(), kMaxNameLength));
        emit(out, sum, b.data(), b.size());
    }
    return *id;
}

bool all_zero(const unsigned char* p, std::size_t n) {
    return std::all_of(p, p + n, [](unsigned char c) { return c == 0; });
}

// A name or generation as read, control characters shown (the message must not carry them).
std::string quoted_bytes(std::string_view s) {
    std::string out = "'";
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x20 || c >= 0x7f) {
            static const char* hexd = "0123456789abcdef";
            out += "\\x";
            out += hexd[c >> 4];
            out += hexd[c & 0xf];
        } else {
            out += ch;
        }
    }
    return out + "'";
}

}  // namespace

void checksum_add(std::uint64_t& sum, const unsigned char* p, std::size_t n) {
    for (std::size_t i = 0; i + 8 <= n; i += 8)
        sum = std::rotl((sum ^ get<std::uint64_t>(p + i)) * 0x9e3779b97f4a7c15ULL, 29);
}

void write_binary_header(std::ostream& out, std::uint64_t& sum, const TraceHeader& h) {
    std::array<unsigned char, kBinaryHeaderBytes> b{};
    std::memcpy(b.data(), kTraceBinaryMagic.data(), kTraceBinaryMagic.size());
    (void)h.version;  // a writer writes its own version: what it can put in the stream
    put<std::uint32_t>(b.data() + 8, kBinaryFormatVersion);
    put<std::uint32_t>(b.data() + 12, static_cast<std::uint32_t>(kBinaryHeaderBytes));
    std::memcpy(b.data() + 16, h.generation.data(), std::min(h.generation.size(), kGenerationBytes - 1));
    b[kFlagsByte] = kFlagEndRecord | kFlagChecksum;  // TraceWriter::finish() writes both
    emit(out, sum, b.data(), b.size());
}

void write_binary_end(std::ostream& out, std::uint64_t sum, std::uint64_t records) {
    std::array<unsigned char, kBinaryEndBytes> b{};
    b[0] = kTagEnd;
    put<std::uint64_t>(b.data() + 8, records);
    put<std::uint64_t>(b.data() + 16, sum);
    out.write(reinterpret_cast<const char*>(b.data()), b.size());
}

bool read_binary_header(ChunkedInput& in, TraceHeader& h, TraceError& err, std::uint64_t& sum) {
    const auto* p = reinterpret_cast<const unsigned char*>(in.peek(kBinaryHeaderBytes));
    if (!p) {
        err = TraceError{"", 0, "header", "truncated binary header: " + std::to_string(in.available()) + " of " +
                                              std::to_string(kBinaryHeaderBytes) + " bytes", std::string(kRule)};
        return false;
    }
    h.version = get<std::uint32_t>(p + 8);
    if (h.version != 1 && h.version != kBinaryFormatVersion) {
        err =
            TraceError{"", 0, "header",
                       "unsupported binary trace version " + std::to_string(h.version) +
                           " (this build reads versions 1 and " + std::to_string(kBinaryFormatVersion) + ")",
                       std::string(kRule)};
        return false;
    }
    if (get<std::uint32_t>(p + 12) != kBinaryHeaderBytes) {
        err = TraceError{"", 0, "header", "bad header size " + std::to_string(get<std::uint32_t>(p + 12)), std::string(kRule)};
        return false;
    }
    const char* gen = reinterpret_cast<const char*>(p + 16);
    h.generation.assign(gen, strnlen(gen, kGenerationBytes - 1));
    // What the text header accepts after `gen=`, and nothing in the bytes the writer leaves zero.
    if (!h.generation.empty() && !valid_trace_name(h.generation, kGenerationBytes - 1)) {
        err = TraceError{"", 0, "header", "bad generation name " + quoted_bytes(h.generation), std::string(kRule)};
        return false;
    }
    if (!all_zero(p + 16 + h.generation.size(), kFlagsByte - 16 - h.generation.size()) ||
        (p[kFlagsByte] & ~(kFlagEndRecord | kFlagChecksum)) != 0 ||
        !all_zero(p + kFlagsByte + 1, kBinaryHeaderBytes - kFlagsByte - 1)) {
        err = TraceError{"", 0, "header", "unused header bytes are not zero", std::string(kRule)};
        return false;
    }
    h.end_record = (p[kFlagsByte] & kFlagEndRecord) != 0;
    h.checksum = h.end_record && (p[kFlagsByte] & kFlagChecksum) != 0;
    checksum_add(sum, p, kBinaryHeaderBytes);
    in.consume(kBinaryHeaderBytes);
    return true;
}

namespace {

// A PE tile pair (tile_position, tile_size) in one byte: 0 = not written, else bit 7 set, the
// row in 32-unit steps in bits 0-2 and the column in bits 3-5 (docs/trace-format.md).
unsigned char pack_tile(const std::array<std::uint8_t, 2>& t, const char* field) {
    if (t[0] == Record::kNoTile) return 0;
    for (std::uint8_t v : t)
        if (v % Record::kPeTileUnit != 0 || v > Record::kMaxTileValue)
            throw TraceFormatError(TraceError{"", 0, field, std::to_string(v) + " is not a multiple of " +
                                                                std::to_string(Record::kPeTileUnit) + " in 0.." +
                                                                std::to_string(Record::kMaxTileValue), std::string(kRule)});
    return static_cast<unsigned char>(0x80u | (t[0] / Record::kPeTileUnit) | ((t[1] / Record::kPeTileUnit) << 3));
}

bool unpack_tile(unsigned char b, std::array<std::uint8_t, 2>& t) {
    if (b == 0) return true;
    if ((b & 0xc0u) != 0x80u) return false;
    t = {static_cast<std::uint8_t>((b & 7u) * Record::kPeTileUnit), static_cast<std::uint8_t>(((b >> 3) & 7u) * Record::kPeTileUnit)};
    return true;
}

}  // namespace

namespace {

// The location record of `r` (its site defined first when new), before the record itself.
void write_location(std::ostream& out, std::uint64_t& sum, NameTable& sites, const Record& r) {
    const std::uint32_t before = sites.size();
    const auto id = sites.intern(r.site);
    if (!id)
        throw TraceFormatError(TraceError{
            "", r.line, "loc", "more than " + std::to_string(kMaxSites) + " distinct source sites", ""});
    if (sites.size() != before) {
        std::uint8_t names = 0;
        if (!valid_site(r.site, names) || names != r.num_indices)
            throw TraceFormatError(TraceError{
                "", r.line, "loc", "bad source site '" + std::string(r.site.substr(0, 64)) + "'", ""});
        std::array<unsigned char, kBinarySiteBytes> b{};
        b[0] = kTagSite;
        put<std::uint16_t>(b.data() + 2, *id);
        put<std::uint16_t>(b.data() + 4, static_cast<std::uint16_t>(r.site.size()));
        std::memcpy(b.data() + kSiteTextOffset, r.site.data(), r.site.size());
        emit(out, sum, b.data(), b.size());
    }
    std::array<unsigned char, kBinaryLocationBytes> b{};
    b[0] = kTagLocation;
    b[1] = r.num_indices;
    put<std::uint16_t>(b.data() + 2, *id);
    for (std::size_t i = 0; i < r.num_indices && i < kMaxSiteIndices; ++i)
        put<std::uint32_t>(b.data() + 8 + 4 * i, r.indices[i]);
    emit(out, sum, b.data(), b.size());
}

}  // namespace

void write_binary_record(std::ostream& out, std::uint64_t& sum, NameTable& defined, NameTable& sites,
                         const Record& r) {
    if (r.has_site()) write_location(out, sum, sites, r);
    if (r.kind == RecordKind::access) {
        const std::uint16_t client = name_ref(out, sum, defined, r.client);
        std::array<unsigned char, kBinaryAccessBytes> b{};
        b[0] = kTagAccess;
        b[1] = static_cast<unsigned char>(r.op);
        put<std::uint16_t>(b.data() + 2, client);
        put<std::uint16_t>(b.data() + 4, r.partitions);
        put<std::uint32_t>(b.data() + 8, r.address);
        put<std::uint32_t>(b.data() + 12, r.bytes);
        put<std::uint64_t>(b.data() + 16, r.cycle);
        emit(out, sum, b.data(), b.size());
        return;
    }
    const std::uint16_t queue = name_ref(out, sum, defined, r.queue);
    const std::uint16_t fn = name_ref(out, sum, defined, r.fn);
    std::array<unsigned char, kBinaryInstructionBytes> b{};
    b[0] = static_cast<unsigned char>(kTagInstruction + static_cast<std::uint8_t>(r.kind));
    // Flags: bit 0 transpose, bit 1 dst_rmw_op=add, bit 2 onezero.
    b[1] = static_cast<unsigned char>((r.transpose ? 1 : 0) | (r.dst_rmw_add ? 2 : 0) | (r.onezero ? 4 : 0));
    put<std::uint16_t>(b.data() + 2, queue);
    put<std::uint16_t>(b.data() + 4, fn);
    put<std::uint16_t>(b.data() + 6, r.partitions);
    put<std::uint32_t>(b.data() + 8, r.bytes);
    put<std::uint16_t>(b.data() + 12, r.engine);
    b[14] = r.core;
    b[15] = static_cast<unsigned char>(r.op);
    b[16] = r.num_active_rows;
    b[17] = r.num_active_cols;
    b[18] = r.row_grp;
    b[19] = r.col_grp;
    b[20] = r.xbus_sel;
    b[21] = r.acc_flags;
    b[22] = r.zero_region;
    b[23] = static_cast<unsigned char>(r.perf_opt);
    put<std::uint16_t>(b.data() + 24, r.rows);
    put<std::uint16_t>(b.data() + 26, r.cols);
    b[28] = r.num_waits;
    b[29] = r.num_signals;
    b[30] = static_cast<unsigned char>(r.isa);
    b[31] = pack_tile(r.tile_position, "tile_position");
    for (std::size_t i = 0; i < kMaxWaits; ++i) {
        put<std::uint16_t>(b.data() + 32 + 8 * i, r.waits[i].sem);
        put<std::uint32_t>(b.data() + 36 + 8 * i, r.waits[i].value);
    }
    for (std::size_t i = 0; i < kMaxSignals; ++i) put<std::uint16_t>(b.data() + 48 + 2 * i, r.signals[i]);
    b[52] = static_cast<unsigned char>(r.dge);
    b[53] = static_cast<unsigned char>(r.issuer);
    b[54] = r.priority == Record::kNoPriority ? 0 : static_cast<unsigned char>(r.priority + 1);
    b[55] = pack_tile(r.tile_size, "tile_size");
    put_operand(b.data() + 56, r.src);
    put_operand(b.data() + 56 + kOperandBytes, r.src2);
    put_operand(b.data() + 56 + 2 * kOperandBytes, r.dst);
    emit(out, sum, b.data(), b.size());
}

namespace {

// The access record at `b` (kBinaryAccessBytes, its tag read) into `rec` when it is well formed: a
// known op, a defined client name, the unused bytes zero. Otherwise false, with `rec` untouched.
bool take_access(const unsigned char* b, const NameTable& names, Record& rec) {
    const std::uint16_t client = get<std::uint16_t>(b + 2);
    if (b[1] > static_cast<unsigned char>(Op::raw) || client >= names.size() ||
        get<std::uint16_t>(b + 6) != 0)
        return false;
    rec.kind = RecordKind::access;
    rec.clear_site();  // an access record read over the last one: a location record comes first
    rec.op = static_cast<Op>(b[1]);
    rec.client_id = client;
    rec.client = names.name(client);
    rec.partitions = get<std::uint16_t>(b + 4);
    rec.address = get<std::uint32_t>(b + 8);
    rec.bytes = get<std::uint32_t>(b + 12);
    rec.cycle = get<std::uint64_t>(b + 16);
    return true;
}

struct BinaryDecoder {
    NameTable& names;
    Record& rec;
    TraceError& err;
    std::uint64_t ordinal;

    bool fail(std::string field, std::string reason) {
        err = TraceError{"", ordinal, std::move(field), std::move(reason), std::string(kRule)};
        return false;
    }
    [[gnu::cold, gnu::noinline]] bool undefined_name(const char* field, std::uint16_t id) {
        return fail(field, "name id " + std::to_string(id) + " used before its name record");
    }
    bool name(const char* field, std::uint16_t id, std::string_view& view, NameId& out, bool optional) {
        if (id == kNoName && optional) return true;
        if (id >= names.size()) [[unlikely]] return undefined_name(field, id);
        out = id;
        view = names.name(id);
        return true;
    }

    // A well-formed access record is decoded by take_access(); this says what is wrong with one
    // that is not, checking in the record's field order.
    bool access(const unsigned char* b) {
        if (take_access(b, names, rec)) return true;
        rec.kind = RecordKind::access;
        if (b[1] > static_cast<unsigned char>(Op::raw)) return fail("op", "bad op " + std::to_string(b[1]));
        if (!name("client", get<std::uint16_t>(b + 2), rec.client, rec.client_id, false)) return false;
        return fail("record", "unused bytes of the access record are not zero");
    }

    // A site definition (kBinarySiteBytes): the next id, text a reader of `loc=` takes.
    bool site(const unsigned char* b, NameTable& sites) {
        const std::size_t len = get<std::uint16_t>(b + 4);
        const std::uint16_t id = get<std::uint16_t>(b + 2);
        if (len == 0 || len > kMaxSiteLength) return fail("loc", "bad site length " + std::to_string(len));
        const std::string_view text(reinterpret_cast<const char*>(b + kSiteTextOffset), len);
        std::uint8_t indices = 0;
        if (!valid_site(text, indices))
            return fail("loc", "bad source site " + quoted_bytes(text.substr(0, 64)));
        if (b[1] != 0 || !all_zero(b + 6, 2) ||
            !all_zero(b + kSiteTextOffset + len, kBinarySiteBytes - kSiteTextOffset - len))
            return fail("loc", "unused bytes of the site record are not zero");
        if (id != sites.size())
            return fail("loc", "site id " + std::to_string(id) + " out of order (expected " +
                                   std::to_string(sites.size()) + ")");
        if (!sites.append(text))
            return fail("loc", "more than " + std::to_string(kMaxSites) + " source sites");
        return true;
    }
    // A location record (kBinaryLocationBytes): a defined site and as many index values as it names.
    bool location(const unsigned char* b, const NameTable& sites) {
        const std::uint16_t id = get<std::uint16_t>(b + 2);
        if (id >= sites.size())
            return fail("loc", "site id " + std::to_string(id) + " used before its site record");
        std::uint8_t names = 0;
        valid_site(sites.name(id), names);
        if (b[1] != names)
            return fail("loc", "the location has " + std::to_string(b[1]) + " loop indices, its site names " +
                                   std::to_string(names));
        bool zero = all_zero(b + 4, 4);
        for (std::size_t i = b[1]; i < kMaxSiteIndices; ++i)
            zero = zero && get<std::uint32_t>(b + 8 + 4 * i) == 0;
        if (!zero) return fail("loc", "unused bytes of the location record are not zero");
        return true;
    }

    bool instruction(const unsigned char* b) {
        rec.kind = static_cast<RecordKind>(b[0] - kTagInstruction);
        if (b[1] > 7) return fail("transpose", "bad flags " + std::to_string(b[1]));
        rec.transpose = (b[1] & 1) != 0;
        rec.dst_rmw_add = (b[1] & 2) != 0;
        rec.onezero = (b[1] & 4) != 0;
        if (!name("queue", get<std::uint16_t>(b + 2), rec.queue, rec.queue_id, false)) return false;
        if (!name("fn", get<std::uint16_t>(b + 4), rec.fn, rec.fn_id, true)) return false;
        rec.partitions = get<std::uint16_t>(b + 6);
        rec.bytes = get<std::uint32_t>(b + 8);
        rec.engine = get<std::uint16_t>(b + 12);
        rec.core = b[14];
        if (b[15] > static_cast<unsigned char>(Op::raw)) return fail("op", "bad op " + std::to_string(b[15]));
        rec.op = static_cast<Op>(b[15]);
        rec.num_active_rows = b[16];
        rec.num_active_cols = b[17];
        rec.row_grp = b[18];
        rec.col_grp = b[19];
        rec.xbus_sel = b[20];
        rec.acc_flags = b[21];
        rec.zero_region = b[22];
        if (b[23] > static_cast<unsigned char>(PerfOpt::double_pixel)) return fail("perf_opt", "bad perf_opt");
        rec.perf_opt = static_cast<PerfOpt>(b[23]);
        rec.rows = get<std::uint16_t>(b + 24);
        rec.cols = get<std::uint16_t>(b + 26);
        if (b[28] > kMaxWaits) return fail("wait", "more than " + std::to_string(kMaxWaits) + " waits");
        if (b[29] > kMaxSignals) return fail("signal", "more than " + std::to_string(kMaxSignals) + " signals");
        rec.num_waits = b[28];
        rec.num_signals = b[29];
        if (b[30] >= kComputeOpNames.size()) return fail("isa", "bad nki.isa instruction code " + std::to_string(b[30]));
        rec.isa = static_cast<ComputeOp>(b[30]);
        const bool compute = rec.kind == RecordKind::act || rec.kind == RecordKind::pool || rec.kind == RecordKind::dve;
        if (rec.isa != ComputeOp::generic && !compute) return fail("isa", "isa is for act, pool and dve records only");
        for (std::size_t i = 0; i < kMaxWaits; ++i) {
            rec.waits[i].sem = get<std::uint16_t>(b + 32 + 8 * i);
            rec.waits[i].value = get<std::uint32_t>(b + 36 + 8 * i);
        }
        for (std::size_t i = 0; i < kMaxSignals; ++i) rec.signals[i] = get<std::uint16_t>(b + 48 + 2 * i);
        if (b[52] > static_cast<unsigned char>(DgeMode::hwdge)) return fail("dge", "bad DGE mode code " + std::to_string(b[52]));
        if (b[53] > static_cast<unsigned char>(DmaIssuer::dve)) return fail("issuer", "bad issuing engine code " + std::to_string(b[53]));
        rec.dge = static_cast<DgeMode>(b[52]);
        rec.issuer = static_cast<DmaIssuer>(b[53]);
        rec.priority = b[54] == 0 ? Record::kNoPriority : static_cast<std::uint8_t>(b[54] - 1);
        if (!unpack_tile(b[31], rec.tile_position)) return fail("tile_position", "bad packed PE tile " + std::to_string(b[31]));
        if (!unpack_tile(b[55], rec.tile_size)) return fail("tile_size", "bad packed PE tile " + std::to_string(b[55]));
        const char* field[3] = {"src", "src2", "dst"};
        Operand* ops[3] = {&rec.src, &rec.src2, &rec.dst};
        for (std::size_t i = 0; i < 3; ++i)
            if (const char* why = get_operand(b + 56 + i * kOperandBytes, *ops[i])) return fail(field[i], why);
        return text_rules(b);
    }

    // What the text syntax cannot express is refused here too, so that every binary trace
    // converts to text the text reader accepts: fields the kind does not take, missing operands,
    // semaphores past the counts, bytes the writer leaves zero.
    bool text_rules(const unsigned char* b) {
        std::string field, reason;
        if (!check_kind_fields(rec, field, reason)) return fail(field, reason);
        for (std::size_t i = 0; i < kMaxWaits; ++i)
            if (i < rec.num_waits ? false : (rec.waits[i].sem != 0 || rec.waits[i].value != 0))
                return fail("wait", "a wait slot past the " + std::to_string(rec.num_waits) + " given is not zero");
        for (std::size_t i = rec.num_signals; i < kMaxSignals; ++i)
            if (rec.signals[i] != 0)
                return fail("signal", "a signal slot past the " + std::to_string(rec.num_signals) + " given is not zero");
        for (std::size_t i = 0; i < kMaxWaits; ++i)
            if (!all_zero(b + 34 + 8 * i, 2)) return fail("record", "unused bytes of the instruction record are not zero");
        // After the three operands (56 + 3 x 32): nothing, and a text round trip would drop it.
        if (!all_zero(b + 152, 8))
            return fail("record", "unused bytes 152-159 of the instruction record are not zero");
        const char* fields[3] = {"src", "src2", "dst"};
        const Operand* operands[3] = {&rec.src, &rec.src2, &rec.dst};
        for (std::size_t i = 0; i < 3; ++i) {
            bool unused_dims_zero = true;
            for (std::size_t d = operands[i]->dims; d < kMaxDims; ++d)
                unused_dims_zero = unused_dims_zero && operands[i]->steps[d] == 0 && operands[i]->sizes[d] == 0;
            // byte 3: 1 for an hbm operand with its dtype (`bf16@hbm`), else 0
            const unsigned char typed = b[56 + i * kOperandBytes + 3];
            if (typed > (operands[i]->kind == Operand::Kind::hbm ? 1 : 0) || !unused_dims_zero)
                return fail(fields[i], "steps or sizes past the operand's dims, or unused operand bytes, are not zero");
            // An absent or hbm operand is a kind alone in the text form (an hbm one perhaps with its
            // dtype): nothing else may be set.
            Operand bare;
            bare.kind = operands[i]->kind;
            bare.hbm_typed = operands[i]->hbm_typed;
            if (bare.hbm_typed) bare.dtype = operands[i]->dtype;
            if (operands[i]->kind != Operand::Kind::onchip && !(*operands[i] == bare))
                return fail(fields[i],
                            "an absent or hbm operand with an address or pattern set, or an untyped one with "
                            "a dtype");
        }
        return true;
    }
};

}  // namespace

bool read_binary_access(ChunkedInput& in, const NameTable& names, Record& rec, std::uint64_t& ordinal,
                        std::uint64_t& sum) {
    const auto* b = reinterpret_cast<const unsigned char*>(in.peek(kBinaryAccessBytes));
    if (!b || b[0] != kTagAccess || !take_access(b, names, rec)) return false;
    checksum_add(sum, b, kBinaryAccessBytes);
    in.consume(kBinaryAccessBytes);
    rec.line = ++ordinal;
    return true;
}

ReadStatus read_binary_record(ChunkedInput& in, NameTable& names, NameTable& sites, Record& rec,
                              TraceError& err, std::uint64_t& ordinal, BinaryEnd& end, std::uint64_t& sum,
                              std::uint32_t version) {
    // A location record read, for the record that follows (site kNoSite: none).
    SiteId loc_site = kNoSite;
    std::uint8_t loc_n = 0;
    std::array<std::uint32_t, kMaxSiteIndices> loc_indices{};
    for (;;) {
        const auto* head = reinterpret_cast<const unsigned char*>(in.peek(1));
        if (!head) return ReadStatus::end;
        // A copy: peek(size) below may move the buffer.
        const unsigned char tag_byte = *head;
        const unsigned char* tag = &tag_byte;
        ++ordinal;
        rec.line = ordinal;
        std::size_t size = 0;
        if (*tag == kTagName) size = kBinaryNameBytes;
        else if (*tag == kTagSite && version >= 2)
            size = kBinarySiteBytes;
        else if (*tag == kTagLocation && version >= 2)
            size = kBinaryLocationBytes;
        else if (*tag == kTagEnd)
            size = kBinaryEndBytes;
        else if (*tag == kTagAccess) size = kBinaryAccessBytes;
        else if (*tag > kTagInstruction && *tag < kTagInstruction + kRecordKinds) size = kBinaryInstructionBytes;
        else {
            // No way to find the next record boundary: report and stop.
            err = TraceError{"", ordinal, "record", "unknown record tag " + hex(*tag), std::string(kRule)};
            in.consume(in.available());
            while (in.peek(1)) in.consume(in.available());
            return ReadStatus::error;
        }
        const auto* b = reinterpret_cast<const unsigned char*>(in.peek(size));
        if (!b) {
            err = TraceError{"", ordinal, "record", "truncated record: " + std::to_string(in.available()) + " of " +
                                                        std::to_string(size) + " bytes", std::string(kRule)};
            in.consume(in.available());
            return ReadStatus::error;
        }
        in.consume(size);
        BinaryDecoder d{names, rec, err, ordinal};
        if (*tag == kTagEnd) {
            // [16-23]: the checksum of the bytes before it, or zero (check_end compares them).
            if (!all_zero(b + 1, 7))
                return d.fail("end", "unused bytes of the end record are not zero"), ReadStatus::error;
            if (in.peek(1)) {
                d.fail("end", "bytes after the end record (two traces joined? convert each on its own)");
                while (in.peek(1)) in.consume(in.available());  // not records of this trace
                return ReadStatus::error;
            }
            if (loc_site != kNoSite)
                return d.fail("loc", "a location record with no record after it"), ReadStatus::error;
            end = {true, get<std::uint64_t>(b + 8), get<std::uint64_t>(b + 16)};
            return ReadStatus::end;
        }
        checksum_add(sum, b, size);
        if (*tag == kTagName) {
            const std::size_t len = b[1];
            const std::uint16_t id = get<std::uint16_t>(b + 2);
            if (len == 0 || len > kMaxNameLength) return d.fail("name", "bad name length " + std::to_string(len)), ReadStatus::error;
            const std::string_view text(reinterpret_cast<const char*>(b + 4), len);
            if (!valid_trace_name(text, kMaxNameLength))
                return d.fail("name", "bad name " + quoted_bytes(text) + ": expected 1.." + std::to_string(kMaxNameLength) +
                                          " characters of [A-Za-z0-9_.:+-]"),
                       ReadStatus::error;
            if (!all_zero(b + 4 + len, kBinaryNameBytes - 4 - len))
                return d.fail("name", "unused bytes of the name record are not zero"), ReadStatus::error;
            if (id != names.size())
                return d.fail("name", "name id " + std::to_string(id) + " out of order (expected " +
                                          std::to_string(names.size()) + ")"),
                       ReadStatus::error;
            if (!names.append(std::string_view(reinterpret_cast<const char*>(b + 4), len)))
                return d.fail("name", "more than " + std::to_string(kMaxNames) + " names"), ReadStatus::error;
            continue;   // name records are not records of the trace
        }
        if (*tag == kTagSite) {
            if (!d.site(b, sites)) return ReadStatus::error;
            continue;
        }
        if (*tag == kTagLocation) {
            if (loc_site != kNoSite) return d.fail("loc", "two location records in a row"), ReadStatus::error;
            if (!d.location(b, sites)) return ReadStatus::error;
            loc_site = get<std::uint16_t>(b + 2);
            loc_n = b[1];
            for (std::size_t i = 0; i < kMaxSiteIndices; ++i)
                loc_indices[i] = get<std::uint32_t>(b + 8 + 4 * i);
            continue;
        }
        const bool ok = *tag == kTagAccess ? d.access(b) : d.instruction(b);
        if (ok && loc_site != kNoSite) {
            rec.site_id = loc_site;
            rec.site = sites.name(loc_site);
            rec.num_indices = loc_n;
            rec.indices = loc_indices;
        }
        return ok ? ReadStatus::record : ReadStatus::error;
    }
}

}  // namespace sbufsim::detail
