// The trace AST helpers, the text form (parser and canonical printer), and the format-sniffing
// reader / writer front ends. The binary form is trace_binary.cpp, the read buffer
// chunked_input.cpp. Syntax: docs/trace-format.md.
#include "sbufsim/trace/trace.h"
#include "sbufsim/types/input_file.h"
#include "sbufsim/types/near_miss.h"
#include "sbufsim/types/text.h"
#include "trace_binary.h"

#include <algorithm>
#include <vector>
#include <cerrno>
#include <charconv>
#include <limits>
#include <cstring>
#include <istream>
#include <ostream>

namespace sbufsim {

namespace {

constexpr std::string_view kFormatRule = "trace format v1, docs/trace-format.md";

constexpr std::array<std::string_view, kRecordKinds> kKindNames{
    "access", "dma", "ldweights", "matmul", "act", "pool", "dve", "q7"};
constexpr std::array<std::string_view, 4> kPerfOptNames{"none", "double_row", "double_column",
                                                       "double_pixel"};

std::string lower_no_underscore(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s)
        if (c != '_' && c != '-') out += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return out;
}

// Names (clients, queues, fn, generation) are single greppable tokens of [A-Za-z0-9_.:+-]: a
// table, so that a character costs one load.
constexpr std::array<bool, 256> kNameChar = [] {
    std::array<bool, 256> t{};
    for (int c = 0; c < 256; ++c)
        t[static_cast<std::size_t>(c)] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                         (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-' ||
                                         c == ':' || c == '+';
    return t;
}();
constexpr bool name_char(char c) { return kNameChar[static_cast<unsigned char>(c)]; }

// What separates the fields of an access line: blanks, and commas (parse_access()). A table too.
constexpr std::array<bool, 256> kFieldSeparator = [] {
    std::array<bool, 256> t{};
    t[' '] = t['\t'] = t[','] = true;
    return t;
}();
constexpr bool field_separator(char c) { return kFieldSeparator[static_cast<unsigned char>(c)]; }

// A hex digit's value, 16 for any other character.
constexpr std::array<std::uint8_t, 256> kHexValue = [] {
    std::array<std::uint8_t, 256> t{};
    t.fill(16);
    for (std::size_t d = 0; d < 10; ++d) t['0' + d] = static_cast<std::uint8_t>(d);
    for (std::size_t d = 0; d < 6; ++d) t['a' + d] = t['A' + d] = static_cast<std::uint8_t>(10 + d);
    return t;
}();

// a == b, inlined (GCC may call string_view's compare out of line).
[[gnu::always_inline]] inline bool same_chars(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
}

bool valid_name(std::string_view s, std::size_t max_len = kMaxNameLength) {
    if (s.empty() || s.size() > max_len) return false;
    return std::all_of(s.begin(), s.end(), name_char);
}

// Built by appending: `"'" + std::string(s)` inserts at the front, which GCC 12 at -O3 flags
// with a false -Wrestrict (GCC bug 105651).
// A token as a message quotes it: whole up to 64 bytes, else its head and its length (a
// 60 KB token would bury the message).
constexpr std::size_t kTokenShown = 64;

// A token's first kTokenShown bytes, "..." after them when it is longer (a message's field).
std::string token_head(std::string_view s) {
    return s.size() > kTokenShown ? std::string(s.substr(0, kTokenShown)) + "..." : std::string(s);
}

std::string quoted(std::string_view s) {
    std::string q = "'";
    q.append(s.substr(0, kTokenShown));
    q += '\'';
    if (s.size() > kTokenShown) q += "... (" + std::to_string(s.size()) + " bytes)";
    return q;
}

}  // namespace

// ---- enums ------------------------------------------------------------------------------------

std::string_view to_string(TraceFormat f) { return f == TraceFormat::binary ? "binary" : "text"; }

TraceFormat format_for_path(std::string_view path) {
    return path.size() >= kBinaryExtension.size() && path.ends_with(kBinaryExtension) ? TraceFormat::binary
                                                                                      : TraceFormat::text;
}

std::string_view to_string(RecordKind k) { return kKindNames[static_cast<std::size_t>(k)]; }

std::optional<RecordKind> parse_record_kind(std::string_view word) {
    for (std::size_t i = 1; i < kKindNames.size(); ++i)
        if (word == kKindNames[i]) return static_cast<RecordKind>(i);
    return std::nullopt;
}

std::string_view to_string(PerfOpt p) { return kPerfOptNames[static_cast<std::size_t>(p)]; }

std::optional<PerfOpt> parse_perf_opt(std::string_view s) {
    // The ISA spells them None/DoubleRow/DoubleColumn/DoublePixel; accept both spellings.
    const std::string key = lower_no_underscore(s);
    for (std::size_t i = 0; i < kPerfOptNames.size(); ++i)
        if (key == lower_no_underscore(kPerfOptNames[i])) return static_cast<PerfOpt>(i);
    return std::nullopt;
}

std::uint64_t Operand::elements() const {
    // Saturates instead of wrapping: a crafted pattern never looks small.
    std::uint64_t n = 1;
    for (std::uint32_t d = 0; d < dims; ++d)
        if (__builtin_mul_overflow(n, std::uint64_t{sizes[d]}, &n)) return std::numeric_limits<std::uint64_t>::max();
    return n;
}

bool same_record(const Record& a, const Record& b) {
    // Names by content; ids and view addresses are per reader.
    return a.kind == b.kind && a.cycle == b.cycle && a.client == b.client && a.op == b.op &&
           a.address == b.address && a.partitions == b.partitions && a.bytes == b.bytes &&
           a.queue == b.queue && a.src == b.src && a.src2 == b.src2 && a.dst == b.dst && a.fn == b.fn &&
           a.num_active_rows == b.num_active_rows && a.num_active_cols == b.num_active_cols &&
           a.row_grp == b.row_grp && a.col_grp == b.col_grp && a.xbus_sel == b.xbus_sel &&
           a.acc_flags == b.acc_flags && a.zero_region == b.zero_region && a.perf_opt == b.perf_opt &&
           a.isa == b.isa && a.rows == b.rows && a.cols == b.cols && a.transpose == b.transpose &&
           a.engine == b.engine && a.dge == b.dge && a.issuer == b.issuer && a.priority == b.priority &&
           a.dst_rmw_add == b.dst_rmw_add && a.onezero == b.onezero && a.tile_position == b.tile_position &&
           a.tile_size == b.tile_size && a.core == b.core && a.num_waits == b.num_waits &&
           a.waits == b.waits && a.num_signals == b.num_signals && a.signals == b.signals &&
           a.site == b.site && a.num_indices == b.num_indices && a.indices == b.indices;
}

// ---- errors -------------------------------------------------------------------------------------

std::string TraceError::to_string() const {
    // Line 0: about the file as a whole ("x.trc: cannot open: ...", "x.trc: header: empty file").
    std::string s = line ? file + ":" + std::to_string(line) + (source.empty() ? "" : " (" + source + ")") + ": " +
                               field + ": " + reason
                         : file + ": " + (field == "file" ? "" : field + ": ") + reason;
    if (!rule.empty()) s += " (" + rule + ")";
    return printable(s);   // fields and values are echoed from the input
}

TraceFormatError::TraceFormatError(TraceError e) : std::runtime_error(e.to_string()), error_(std::move(e)) {}

// ---- names ------------------------------------------------------------------------------------------

std::optional<NameId> NameTable::intern(std::string_view name) {
    if (auto it = ids_.find(name); it != ids_.end()) return it->second;
    if (names_.size() >= kMaxNames) return std::nullopt;
    names_.emplace_back(name);
    views_.push_back(names_.back());
    const auto id = static_cast<NameId>(names_.size() - 1);
    ids_.emplace(names_.back(), id);
    return id;
}

bool NameTable::append(std::string_view name) {
    if (names_.size() >= kMaxNames) return false;
    names_.emplace_back(name);
    views_.push_back(names_.back());
    ids_.emplace(names_.back(), static_cast<NameId>(names_.size() - 1));
    return true;
}

std::uint32_t WaitResolver::resolve(NameId queue, const SemWait& w) {
    if (w.value != 0) return w.value;
    return ++counts_[(std::uint32_t{queue} << 16) | w.sem];
}


// ---- text parsing -----------------------------------------------------------------------------

namespace {

template <class T>
bool parse_uint(std::string_view s, T& out) {
    if (s.empty()) return false;
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s.remove_prefix(2);
        base = 16;
    }
    T v{};
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (ec != std::errc{} || p != s.data() + s.size()) return false;
    out = v;
    return true;
}

// The quick reading of an access line (TraceReader::Impl::quick_access): a decimal or 0x-hex
// number starting at p, read up to the first character that is not one of its digits. Returns
// the characters read, or 0 where parse_uint() has to decide: no digit, or more digits than a
// 64-bit sum holds without a check (19 decimal, 16 hex), or a value above `max`.
std::size_t quick_uint(const char* p, const char* end, std::uint64_t max, std::uint64_t& out) {
    const char* q = p;
    std::uint64_t v = 0;
    if (end - q > 2 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
        q += 2;
        const char* digits = q;
        for (; q < end; ++q) {
            const unsigned d = kHexValue[static_cast<unsigned char>(*q)];
            if (d > 15) break;
            v = v << 4 | d;
        }
        if (q == digits || q - digits > 16) return 0;
    } else {
        for (; q < end; ++q) {
            const unsigned d = static_cast<unsigned char>(*q) - unsigned{'0'};
            if (d > 9) break;
            v = v * 10 + d;
        }
        if (q == p || q - p > 19) return 0;
    }
    if (v > max) return 0;
    out = v;
    return static_cast<std::size_t>(q - p);
}

bool parse_int32(std::string_view s, std::int32_t& out) {
    bool neg = false;
    if (!s.empty() && s[0] == '-') {
        neg = true;
        s.remove_prefix(1);
    }
    std::uint32_t mag = 0;
    if (!parse_uint(s, mag)) return false;
    if (neg ? mag > 0x80000000u : mag > 0x7fffffffu) return false;
    out = neg ? static_cast<std::int32_t>(-static_cast<std::int64_t>(mag)) : static_cast<std::int32_t>(mag);
    return true;
}

template <class T>
std::string width_reason(std::string_view value) {
    return "bad number " + quoted(value) + ": expected a decimal or 0x-hex integer of at most " +
           std::to_string(std::numeric_limits<T>::max());
}

// "[a,b,c]" → up to 3 numbers; returns the count or -1.
template <class T, class Parse>
int parse_list(std::string_view s, std::array<T, kMaxDims>& out, Parse parse) {
    if (s.size() < 2 || s.front() != '[' || s.back() != ']') return -1;
    s = s.substr(1, s.size() - 2);
    int n = 0;
    while (true) {
        const auto comma = s.find(',');
        const auto item = s.substr(0, comma);
        if (n >= static_cast<int>(kMaxDims) || !parse(item, out[static_cast<std::size_t>(n)])) return -1;
        ++n;
        if (comma == std::string_view::npos) break;
        s.remove_prefix(comma + 1);
    }
    return n;
}

}  // namespace

std::optional<std::string> parse_operand(std::string_view text, Operand& out) {
    out = Operand{};
    if (text == "hbm") {
        out.kind = Operand::Kind::hbm;
        return std::nullopt;
    }
    const auto at = text.find('@');
    if (at == std::string_view::npos)
        return "bad operand " + quoted(text) + ": expected dtype@addr[steps][sizes] or hbm";
    const auto dt = parse_dtype(text.substr(0, at));
    if (!dt) return "unknown dtype " + quoted(text.substr(0, at)) + " (one of " + dtype_names() + ")";
    if (text.substr(at + 1) == "hbm") {  // a casting DMA's HBM end: its element type
        out.kind = Operand::Kind::hbm;
        out.dtype = *dt;
        out.hbm_typed = true;
        return std::nullopt;
    }
    out.kind = Operand::Kind::onchip;
    out.dtype = *dt;
    std::string_view rest = text.substr(at + 1);
    const auto br = rest.find('[');
    if (!parse_uint(rest.substr(0, br), out.addr))
        return "bad operand address " + quoted(rest.substr(0, br)) + ": expected a 29-bit address, e.g. 0x5600";
    if (br == std::string_view::npos) return std::nullopt;   // dtype@addr: contiguous
    rest.remove_prefix(br);
    const auto mid = rest.find("][");
    if (mid == std::string_view::npos)
        return "bad access pattern " + quoted(rest) + ": expected [steps][sizes], e.g. [1,0,0][512,1,1]";
    const int ns = parse_list(rest.substr(0, mid + 1), out.steps, parse_int32);
    const int nz = parse_list(rest.substr(mid + 1), out.sizes,
                              [](std::string_view s, std::uint32_t& v) { return parse_uint(s, v); });
    if (ns < 0 || nz < 0)
        return "bad access pattern " + quoted(rest) + ": expected 1 to 3 integers in each of [steps][sizes]";
    if (ns != nz)
        return "access pattern " + quoted(rest) + " has " + std::to_string(ns) + " steps but " +
               std::to_string(nz) + " sizes";
    out.dims = static_cast<std::uint8_t>(ns);
    return std::nullopt;
}

namespace {

// The named fields an instruction kind accepts, as bits.
enum Field : std::uint32_t {
    F_queue = 1u << 0, F_src = 1u << 1, F_src2 = 1u << 2, F_dst = 1u << 3, F_partitions = 1u << 4,
    F_bytes = 1u << 5, F_fn = 1u << 6, F_rows = 1u << 7, F_cols = 1u << 8, F_nrows = 1u << 9,
    F_ncols = 1u << 10, F_row_grp = 1u << 11, F_col_grp = 1u << 12, F_xbus = 1u << 13,
    F_acc = 1u << 14, F_zero = 1u << 15, F_perf = 1u << 16, F_transpose = 1u << 17,
    F_engine = 1u << 18, F_core = 1u << 19, F_op = 1u << 20, F_operand = 1u << 21,
    F_wait = 1u << 22, F_signal = 1u << 23, F_isa = 1u << 24, F_dge = 1u << 25, F_issuer = 1u << 26,
    F_priority = 1u << 27, F_tile_position = 1u << 28, F_tile_size = 1u << 29, F_rmw = 1u << 30,
    F_onezero = 1u << 31,
};

struct FieldName {
    std::string_view name;
    Field bit;
};
constexpr std::array<FieldName, 32> kFields{{
    {"queue", F_queue}, {"src", F_src}, {"src2", F_src2}, {"dst", F_dst}, {"partitions", F_partitions},
    {"bytes", F_bytes}, {"fn", F_fn}, {"rows", F_rows}, {"cols", F_cols}, {"num_active_rows", F_nrows},
    {"num_active_cols", F_ncols}, {"row_grp", F_row_grp}, {"col_grp", F_col_grp}, {"xbus_sel", F_xbus},
    {"acc_flags", F_acc}, {"zero_region", F_zero}, {"perf_opt", F_perf}, {"transpose", F_transpose},
    {"engine", F_engine}, {"core", F_core}, {"op", F_op}, {"operand", F_operand}, {"wait", F_wait},
    {"signal", F_signal}, {"isa", F_isa}, {"dge", F_dge}, {"issuer", F_issuer}, {"priority", F_priority},
    {"tile_position", F_tile_position}, {"tile_size", F_tile_size}, {"dst_rmw_op", F_rmw}, {"onezero", F_onezero},
}};

constexpr std::uint32_t kCommon = F_queue | F_partitions | F_bytes | F_wait | F_signal;

struct KindFields {
    std::uint32_t allowed;
    std::uint32_t required;
};
// Indexed by RecordKind (access unused).
constexpr std::array<KindFields, kRecordKinds> kKindFields{{
    {0, 0},
    {kCommon | F_src | F_dst | F_transpose | F_engine | F_dge | F_issuer | F_priority | F_rmw,
     F_queue | F_src | F_dst | F_partitions | F_bytes},
    {kCommon | F_src | F_src2 | F_rows | F_cols | F_tile_position | F_tile_size, F_queue | F_src | F_rows | F_cols},
    {kCommon | F_src | F_dst | F_nrows | F_ncols | F_row_grp | F_col_grp | F_xbus | F_acc | F_zero | F_perf |
         F_transpose | F_tile_position | F_tile_size | F_src2 | F_onezero,
     F_queue | F_src | F_dst | F_nrows | F_ncols},
    {kCommon | F_src | F_src2 | F_dst | F_fn | F_isa, F_queue | F_src | F_dst | F_partitions},
    {kCommon | F_src | F_src2 | F_dst | F_fn | F_isa, F_queue | F_src | F_dst | F_partitions},
    {kCommon | F_src | F_src2 | F_dst | F_fn | F_isa, F_queue | F_src | F_dst | F_partitions},
    {kCommon | F_core | F_op | F_operand, F_queue | F_core | F_op | F_operand | F_partitions},
}};

std::string_view field_name(Field f) {
    for (const auto& fn : kFields)
        if (fn.bit == f) return fn.name;
    return "?";
}

// Single-quadrant group masks as the profiler writes them (row_grp=q0).
bool parse_group(std::string_view s, std::uint8_t& out) {
    if (s.size() == 2 && s[0] == 'q' && s[1] >= '0' && s[1] <= '3') {
        out = static_cast<std::uint8_t>(1u << (s[1] - '0'));
        return true;
    }
    return parse_uint(s, out);
}

bool parse_acc_flags(std::string_view s, std::uint8_t& out) {
    // The 2-bit ACCUMULATE_MODE names (seed 000 §5.4): MULTI_START=1, MID=0, END=2, SINGLE=3.
    if (s == "begin") out = kBeginMatmulGroup;
    else if (s == "mid") out = 0;
    else if (s == "end") out = kEndMatmulGroup;
    else if (s == "single") out = kBeginMatmulGroup | kEndMatmulGroup;
    else return parse_uint(s, out);
    return true;
}

// `ROW,COLUMN` of a PE tile (tile_position, tile_size): whole 32-row/column units up to what the
// binary form holds; whether the tile fits the array is `check`'s rule.
bool parse_tile_pair(std::string_view s, std::array<std::uint8_t, 2>& out) {
    const auto comma = s.find(',');
    if (comma == std::string_view::npos) return false;
    const std::string_view part[2] = {s.substr(0, comma), s.substr(comma + 1)};
    for (std::size_t i = 0; i < 2; ++i)
        if (!parse_uint(part[i], out[i]) || out[i] % Record::kPeTileUnit != 0 || out[i] > Record::kMaxTileValue) return false;
    return true;
}

bool parse_op(std::string_view s, Op& out) {
    if (s == "rd") out = Op::rd;
    else if (s == "wr") out = Op::wr;
    else if (s == "raw") out = Op::raw;
    else return false;
    return true;
}

std::string_view op_name(Op op) { return op == Op::rd ? "rd" : op == Op::wr ? "wr" : "raw"; }

// Splits on spaces/tabs; returns false when more than `max` tokens.
template <std::size_t N>
std::size_t tokenize(std::string_view line, std::array<std::string_view, N>& toks, bool& overflow) {
    std::size_t n = 0;
    overflow = false;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        if (i >= line.size()) break;
        std::size_t j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
        if (n == N) {
            overflow = true;
            return n;
        }
        toks[n++] = line.substr(i, j - i);
        i = j;
    }
    return n;
}

}  // namespace

// The text half of the reader: everything that needs the line being parsed.
struct TraceReader::Impl {
    Impl(std::istream& in, bool digest) : input(in, digest) {}
    detail::ChunkedInput input;
    std::uint64_t line_no = 0;      // text: lines consumed; binary: records consumed
    std::string access_buf;          // access line with commas turned into spaces
    bool done = false;
    // The record the last read() left holding an access record: only its access fields were
    // written, so the next read() into it resets those alone (Record::clear copies the whole
    // record, about as many instructions as decoding an access record).
    const Record* access_left = nullptr;
    detail::BinaryEnd end;    // binary: the end record, once read
    std::uint64_t checksum = detail::kChecksumSeed;  // binary: of the bytes read so far
    bool errors = false;      // binary: a record failed to read
    bool last_error = false;  // binary: the read before failed (a truncated last record)

    // The binary stream has ended (at its end record or at the end of the file): a header that
    // promises an end record and a file that ends without it was cut off between two records.
    ReadStatus check_end(const TraceHeader& h, std::uint64_t records, TraceError& err) const {
        const auto fail = [&](std::string why) {
            err = TraceError{"", line_no + (end.seen ? 0 : 1), "end", std::move(why),
                             "trace format v1 binary, docs/trace-format.md"};
            return ReadStatus::error;
        };
        if (!h.end_record)  // a file of before the end record; one that has it lost the header's bit
            return end.seen ? fail(
                                  "an end record in a file whose header says it has none (header byte 48 "
                                  "changed?)")
                            : ReadStatus::end;
        if (!end.seen && last_error) return ReadStatus::end;  // the truncated record said so
        if (!end.seen)
            return fail(
                "the file ends after record " + std::to_string(line_no) +
                " without the end record its writer puts last: cut off (an interrupted write or copy?); "
                "the records before it read, the rest are gone");
        if (end.records != records && !errors)  // a record that failed to read is not counted
            return fail("the end record counts " + std::to_string(end.records) + " records, the file holds " +
                        std::to_string(records));
        if (!h.checksum && end.checksum != 0) return fail("unused bytes of the end record are not zero");
        if (h.checksum && end.checksum != checksum && !errors)
            return fail(
                "the checksum in the end record does not match the bytes before it: the file changed "
                "after it was written (a flipped bit, an edit); its records cannot be trusted");
        return ReadStatus::end;
    }

    // The ids of client names quick_access() read recently, by a cheap hash of their length and
    // ends: a trace names a few clients over and over, and comparing one name costs less than
    // NameTable's hash of the whole name. kNoName: none yet. The hash gives each of the 42
    // client names of the shipped generations a slot of its own; other names only cost misses.
    static constexpr std::size_t kRecentClients = 128;
    std::array<NameId, kRecentClients> recent_clients = [] {
        std::array<NameId, kRecentClients> none;
        none.fill(kNoName);
        return none;
    }();
    static std::size_t recent_slot(std::string_view name) {
        const auto end = [&](std::size_t i) { return std::size_t{static_cast<unsigned char>(name[i])}; };
        return (name.size() + end(0) + 7 * end(name.size() - 1)) % kRecentClients;
    }

    // Parse state of the current line.
    TraceReader* reader = nullptr;
    TraceError* err = nullptr;

    bool fail(std::string field, std::string reason) {
        *err = TraceError{reader->file_, line_no, std::move(field), std::move(reason), std::string(kFormatRule)};
        return false;
    }
    bool intern(std::string_view field, std::string_view value, std::string_view& view, NameId& id) {
        if (!valid_name(value))
            return fail(std::string(field), "bad name " + quoted(value) + ": expected 1.." +
                                                std::to_string(kMaxNameLength) +
                                                " characters of [A-Za-z0-9_.:+-]");
        const auto got = reader->names_.intern(value);
        if (!got) return fail(std::string(field), "more than " + std::to_string(kMaxNames) + " distinct names");
        id = *got;
        view = reader->names_.name(id);
        return true;
    }

    bool quick_access(std::string_view line, Record& rec);
    bool parse_access(std::string_view line, Record& rec);
    bool parse_instruction(RecordKind kind, const std::array<std::string_view, 48>& toks, std::size_t n,
                           Record& rec);
    bool parse_field(Field f, std::string_view key, std::string_view value, Record& rec);
};

// An access line in one pass, as `sbufsim gen` writes them and most traces are: true when it
// is read, false to leave the line to the general path (read()), which then reads it or says
// what is wrong with it. Accepts only what that path accepts, with the same result: the fields
// are numbers and a name whose characters say where they end, separated by blanks and commas
// (parse_access()); after the last one only blanks, commas, a comment or the '\r' of a CRLF
// line. Writes `rec` only once every field is read. A line of a trace is read several times
// over on the general path (the comment, the trailing blanks, the commas, the fields, then each
// field's characters): on a random trace of 1-beat accesses, that was half of the replay.
bool TraceReader::Impl::quick_access(std::string_view line, Record& rec) {
    const char* p = line.data();
    const char* const end = p + line.size();
    // One or more separators, then the next field (always inlined: five calls a line, which GCC
    // may otherwise leave out of line).
    auto separator = [&]() __attribute__((always_inline)) {
        const char* const from = p;
        while (p < end && field_separator(*p)) ++p;
        return p != from && p < end;
    };
    auto number = [&](std::uint64_t max, std::uint64_t& out) {
        const std::size_t n = quick_uint(p, end, max, out);
        p += n;
        return n != 0;
    };
    std::uint64_t cycle = 0, address = 0, partitions = 0, bytes = 0;
    if (!number(std::numeric_limits<Cycle>::max(), cycle) || !separator()) return false;
    const char* const name = p;
    while (p < end && name_char(*p)) ++p;
    const auto name_len = static_cast<std::size_t>(p - name);
    if (name_len == 0 || name_len > kMaxNameLength || !separator()) return false;
    const char* const op_text = p;  // rd, wr or raw: name characters too
    while (p < end && name_char(*p)) ++p;
    Op op;
    if (!parse_op(std::string_view(op_text, static_cast<std::size_t>(p - op_text)), op) || !separator() ||
        !number(std::numeric_limits<std::uint32_t>::max(), address) || !separator() ||
        !number(std::numeric_limits<std::uint16_t>::max(), partitions) || !separator() ||
        !number(std::numeric_limits<std::uint32_t>::max(), bytes))
        return false;
    const char* const after_bytes = p;
    while (p < end && field_separator(*p)) ++p;
    std::string_view loc;
    // a source location (trace.h), a field of its own: `64loc=` is no number the general path reads
    if (p != after_bytes && end - p >= 4 && std::memcmp(p, "loc=", 4) == 0) {
        const char* const from = p + 4;
        while (p < end && *p != ' ' && *p != '\t' && *p != '#' && *p != '\r') ++p;
        loc = std::string_view(from, static_cast<std::size_t>(p - from));
        if (loc.empty()) return false;  // the general path refuses an empty location, saying why
        while (p < end && (*p == ' ' || *p == '\t')) ++p;
    }
    if (p != end && *p != '#' && !(*p == '\r' && p + 1 == end)) return false;
    if (!loc.empty() && parse_location(loc, reader->sites_, rec)) return false;  // the general path says why
    const std::string_view client(name, name_len);
    NameId& seen = recent_clients[recent_slot(client)];
    if (seen == kNoName || !same_chars(reader->names_.name(seen), client)) {
        const auto id = reader->names_.intern(client);
        if (!id) return false;
        seen = *id;
    }
    rec.kind = RecordKind::access;
    rec.cycle = cycle;
    rec.client_id = seen;
    rec.client = reader->names_.name(seen);
    rec.op = op;
    rec.address = static_cast<std::uint32_t>(address);
    rec.partitions = static_cast<std::uint16_t>(partitions);
    rec.bytes = static_cast<std::uint32_t>(bytes);
    return true;
}

bool TraceReader::Impl::parse_access(std::string_view line, Record& rec) {
    // `cycle client op address partitions bytes`; commas between fields are allowed, but not
    // taken apart inside a last `loc=`, whose loop indices they separate (as quick_access reads it).
    const std::size_t fields_end = std::min(line.find("loc="), line.size());
    if (line.substr(0, fields_end).find(',') != std::string_view::npos) {
        access_buf.assign(line);
        std::replace(access_buf.begin(), access_buf.begin() + static_cast<std::ptrdiff_t>(fields_end), ',',
                     ' ');
        line = access_buf;
    }
    std::array<std::string_view, 8> t;
    bool overflow = false;
    std::size_t n = tokenize(line, t, overflow);
    // An optional last `loc=` (a source location) is not one of the six.
    if (!overflow && n == 7 && t[6].starts_with("loc=")) {
        if (auto why = parse_location(t[6].substr(4), reader->sites_, rec)) return fail("loc", *why);
        n = 6;
    }
    if (overflow || n != 6)
        return fail("record",
                    "an access record has 6 fields (cycle client op address partitions bytes) and an "
                    "optional loc=, got " +
                        (overflow ? std::string("more") : std::to_string(n)));
    rec.kind = RecordKind::access;
    if (!parse_uint(t[0], rec.cycle)) return fail("cycle", width_reason<Cycle>(t[0]));
    if (!intern("client", t[1], rec.client, rec.client_id)) return false;
    if (!parse_op(t[2], rec.op)) return fail("op", "unknown op " + quoted(t[2]) + " (rd, wr or raw)");
    if (!parse_uint(t[3], rec.address)) return fail("address", width_reason<std::uint32_t>(t[3]));
    if (!parse_uint(t[4], rec.partitions)) return fail("partitions", width_reason<std::uint16_t>(t[4]));
    if (!parse_uint(t[5], rec.bytes)) return fail("bytes", width_reason<std::uint32_t>(t[5]));
    return true;
}

bool TraceReader::Impl::parse_field(Field f, std::string_view key, std::string_view v, Record& rec) {
    const std::string k(key);
    auto num = [&](auto& dst) {
        using T = std::remove_reference_t<decltype(dst)>;
        return parse_uint(v, dst) || fail(k, width_reason<T>(v));
    };
    auto operand = [&](Operand& o) {
        if (auto why = parse_operand(v, o)) return fail(k, *why);
        return true;
    };
    switch (f) {
    case F_queue: return intern(k, v, rec.queue, rec.queue_id);
    case F_fn: return intern(k, v, rec.fn, rec.fn_id);
    case F_src: return operand(rec.src);
    case F_src2: return operand(rec.src2);
    case F_dst: return operand(rec.dst);
    case F_operand: return operand(rec.src);
    case F_partitions: return num(rec.partitions);
    case F_bytes: return num(rec.bytes);
    case F_rows: return num(rec.rows);
    case F_cols: return num(rec.cols);
    case F_nrows: return num(rec.num_active_rows);
    case F_ncols: return num(rec.num_active_cols);
    case F_xbus: return num(rec.xbus_sel);
    case F_zero: return num(rec.zero_region);
    case F_engine: return num(rec.engine);
    case F_core: return num(rec.core);
    case F_row_grp:
    case F_col_grp:
        return parse_group(v, f == F_row_grp ? rec.row_grp : rec.col_grp) ||
               fail(k, "bad group " + quoted(v) + ": expected q0..q3 or a 4-bit mask such as 0xf");
    case F_acc:
        return parse_acc_flags(v, rec.acc_flags) ||
               fail(k, "bad accumulate flags " + quoted(v) + ": expected 0..3 or begin, mid, end, single");
    case F_perf:
        if (auto p = parse_perf_opt(v)) {
            rec.perf_opt = *p;
            return true;
        }
        return fail(k, "unknown perf_opt " + quoted(v) + " (none, double_row, double_column, double_pixel)");
    case F_transpose:
    case F_onezero:
        if (v == "0" || v == "1") {
            (f == F_transpose ? rec.transpose : rec.onezero) = v == "1";
            return true;
        }
        return fail(k, "expected 0 or 1, got " + quoted(v));
    case F_dge:
        if (auto m = parse_dge_mode(v)) {
            rec.dge = *m;
            return true;
        }
        return fail(k, "unknown DGE mode " + quoted(v) + " (none, swdge or hwdge, as nki.isa.dge_mode)");
    case F_issuer:
        if (auto i = parse_dma_issuer(v)) {
            rec.issuer = *i;
            return true;
        }
        return fail(k, "unknown issuing engine " + quoted(v) + " (sp, act, pool or dve; or sync, scalar, gpsimd, vector)");
    case F_rmw:
        if (v == "add") {
            rec.dst_rmw_add = true;
            return true;
        }
        return fail(k, "unknown read-modify-write op " + quoted(v) + " (add, the one nki.isa dma_copy dst_rmw_op supports)");
    case F_priority:
        if (parse_uint(v, rec.priority) && rec.priority != Record::kNoPriority) return true;
        return fail(k, "bad priority " + quoted(v) + ": expected 0..3 (0 highest, nki.isa dma_copy priority)");
    case F_tile_position:
    case F_tile_size:
        if (parse_tile_pair(v, f == F_tile_position ? rec.tile_position : rec.tile_size)) return true;
        return fail(k, "bad " + k + " " + quoted(v) + ": expected ROW,COLUMN in PE rows and columns, each a multiple of " +
                           std::to_string(Record::kPeTileUnit) + " (0.." + std::to_string(Record::kMaxTileValue) +
                           "), as nki.isa nc_matmul " + k + ", e.g. " + (f == F_tile_position ? "64,0" : "64,128"));
    case F_isa:
        if (auto o = parse_compute_op(v); o && *o != ComputeOp::generic) {
            rec.isa = *o;
            return true;
        }
        return fail(
            k,
            "unknown nki.isa instruction " + quoted(v) +
                did_you_mean(
                    v, std::vector<std::string_view>(kComputeOpNames.begin() + 1, kComputeOpNames.end())) +
                " (e.g. activation, tensor_tensor, tensor_scalar, tensor_copy, tensor_reduce, memset, iota; "
                "docs/trace-format.md lists all)");
    case F_op:
        return (parse_op(v, rec.op) && rec.op != Op::raw) || fail(k, "unknown op " + quoted(v) + " (rd or wr)");
    case F_wait: {
        if (rec.num_waits >= kMaxWaits) return fail(k, "at most " + std::to_string(kMaxWaits) + " wait= per instruction");
        SemWait w;
        const auto colon = v.find(':');
        if (!parse_uint(v.substr(0, colon), w.sem))
            return fail(k, "bad semaphore " + quoted(v.substr(0, colon)) + ": expected S or S:value");
        if (colon != std::string_view::npos &&
            (!parse_uint(v.substr(colon + 1), w.value) || w.value == 0))
            return fail(k, "bad wait value " + quoted(v.substr(colon + 1)) + ": expected 1..4294967295");
        rec.waits[rec.num_waits++] = w;
        return true;
    }
    case F_signal: {
        if (rec.num_signals >= kMaxSignals)
            return fail(k, "at most " + std::to_string(kMaxSignals) + " signal= per instruction");
        std::uint16_t s = 0;
        if (!parse_uint(v, s)) return fail(k, width_reason<std::uint16_t>(v));
        rec.signals[rec.num_signals++] = s;
        return true;
    }
    }
    return fail(k, "unhandled field");
}

// "unknown field for act (did you mean 'partitions'?); act takes queue, src, ...": the fields
// the record kind takes, with the nearest one to the typo.
std::string unknown_field(RecordKind kind, const KindFields& spec, std::string_view key) {
    std::vector<std::string_view> allowed;
    std::string list;
    for (const auto& f : kFields)
        if (spec.allowed & f.bit) {
            allowed.push_back(f.name);
            list += (list.empty() ? "" : ", ") + std::string(f.name);
        }
    const std::string k(to_string(kind));
    return "unknown field for " + k + did_you_mean(key, allowed) + "; " + k + " takes " + list;
}

bool TraceReader::Impl::parse_instruction(RecordKind kind, const std::array<std::string_view, 48>& toks,
                                          std::size_t n, Record& rec) {
    rec.kind = kind;
    const KindFields& spec = kKindFields[static_cast<std::size_t>(kind)];
    std::uint32_t seen = 0;
    for (std::size_t i = 1; i < n; ++i) {
        const auto eq = toks[i].find('=');
        if (eq == std::string_view::npos || eq == 0)
            return fail("record", "expected key=value, got " + quoted(toks[i]));
        const auto key = toks[i].substr(0, eq);
        const auto value = toks[i].substr(eq + 1);
        if (key == "loc") {  // any record's source location (trace.h)
            if (rec.has_site()) return fail("loc", "given twice");
            if (auto why = parse_location(value, reader->sites_, rec)) return fail("loc", *why);
            continue;
        }
        const auto it = std::find_if(kFields.begin(), kFields.end(), [&](const FieldName& f) { return f.name == key; });
        if (it == kFields.end() || !(spec.allowed & it->bit))
            return fail(token_head(key), unknown_field(kind, spec, key));  // the key as written, cut
        if ((seen & it->bit) && it->bit != F_wait && it->bit != F_signal)
            return fail(std::string(key), "given twice");
        seen |= it->bit;
        if (value.empty()) return fail(std::string(key), "empty value");
        if (!parse_field(it->bit, key, value, rec)) return false;
    }
    if (const std::uint32_t missing = spec.required & ~seen) {
        const Field first = static_cast<Field>(missing & (~missing + 1));
        return fail(std::string(field_name(first)), "missing (required for " + std::string(to_string(kind)) + ")");
    }
    if (kind == RecordKind::matmul) {
        // Defaults of the optional Matmul fields: the full array, a single-shot group.
        if (!(seen & F_row_grp)) rec.row_grp = 0xf;
        if (!(seen & F_col_grp)) rec.col_grp = 0xf;
        if (!(seen & F_xbus)) rec.xbus_sel = static_cast<std::uint8_t>(mm_xbus_sel_for(rec.col_grp).value_or(0));
        if (!(seen & F_acc)) rec.acc_flags = kBeginMatmulGroup | kEndMatmulGroup;
    }
    return true;
}

// ---- the reader front end ---------------------------------------------------------------------

TraceReader::TraceReader(const std::string& path) : TraceReader(path, Digest::no) {}

// "-" is standard input, as gen's default output is standard output: `gen ... | run -`.
TraceReader::TraceReader(const std::string& path, Digest digest) : file_(path == "-" ? "stdin" : path) {
    const std::string open_path = path == "-" ? "/dev/stdin" : path;
    if (const std::string why = input_file_problem(open_path); !why.empty())
        throw TraceFormatError(TraceError{file_, 0, "file", "cannot open: " + why, ""});
    owned_ = std::make_unique<std::ifstream>(open_path, std::ios::binary);
    if (!*owned_)
        throw TraceFormatError(
            TraceError{file_, 0, "file", "cannot open: " + std::string(std::strerror(errno)), ""});
    in_ = owned_.get();
    open(digest == Digest::yes);
}

TraceReader::TraceReader(std::istream& in, std::string display_name) : in_(&in), file_(std::move(display_name)) {
    open();
}

TraceReader::~TraceReader() = default;

std::optional<std::uint64_t> TraceReader::digest() const {
    const detail::ChunkedInput& input = impl_->input;
    if (!input.hashing() || !input.at_end() || input.failed()) return std::nullopt;
    return input.digest();
}

void TraceReader::open(bool digest) {
    impl_ = std::make_unique<Impl>(*in_, digest);
    impl_->reader = this;
    auto& input = impl_->input;
    if (input.peek(1) == nullptr)
        throw TraceFormatError(TraceError{file_, 0, "header", "empty file: a trace starts with `" +
                                                                 std::string(kTraceTextMagic) + " 1`",
                                          std::string(kFormatRule)});
    if (const char* p = input.peek(kTraceBinaryMagic.size());
        p && std::equal(kTraceBinaryMagic.begin(), kTraceBinaryMagic.end(), p)) {
        format_ = TraceFormat::binary;
        TraceError err;
        if (!detail::read_binary_header(input, header_, err, impl_->checksum)) {
            err.file = file_;
            throw TraceFormatError(err);
        }
        return;
    }
    // Text: the first line that is not blank or a comment is the header.
    std::string_view line;
    bool too_long = false;
    while (input.next_line(line, too_long)) {
        ++impl_->line_no;
        // Lines ended by a bare CR (classic Mac OS) read as one line: the header, then a comment
        // or garbage to the end of the file. Said here, where the first line shows it.
        if (const auto cr = line.find('\r'); cr != std::string_view::npos && cr + 1 < line.size())
            throw TraceFormatError(TraceError{
                file_, impl_->line_no, "header",
                "a carriage return (CR, byte 0x0d) inside the line: the file's lines end in a bare CR, which "
                "reads as one line; end them with LF or CRLF (tr '\\r' '\\n' < IN > OUT)",
                std::string(kFormatRule)});
        if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
        std::array<std::string_view, 4> t;
        bool overflow = false;
        const std::size_t n = tokenize(line, t, overflow);
        if (n == 0 && !too_long) continue;
        auto bad = [&](std::string reason) {
            throw TraceFormatError(TraceError{file_, impl_->line_no, "header", std::move(reason), std::string(kFormatRule)});
        };
        if (too_long) bad("line longer than 65536 bytes, the limit for one line (is this a trace file?)");
        // A UTF-8 byte-order mark (an editor's) hides the magic word: named, since it is invisible.
        if (n > 0 && t[0].substr(0, 3) == "\xEF\xBB\xBF" && t[0].substr(3) == kTraceTextMagic)
            bad("the file starts with a UTF-8 byte-order mark (bytes EF BB BF) before the header; save it "
                "without one");
        // An INI file given as a trace (`run configs/cayman.ini`): its first line is a [section]
        // (or a `;` comment) or a `key = value`, which would read as a bad header.
        if (!too_long && t[0] != kTraceTextMagic && (t[0].front() == '[' || t[0].front() == ';' || (n >= 2 && t[1].front() == '=')))
            bad("this looks like an INI configuration file (" + quoted(line) + "), not a trace: give it with "
                "--config, and as the argument a trace, which starts with `" + std::string(kTraceTextMagic) +
                " 1 [gen=G]`");
        if (too_long || n < 2 || t[0] != kTraceTextMagic)
            bad("expected the header `" + std::string(kTraceTextMagic) + " 1 [gen=G]` before any record");
        std::uint32_t version = 0;
        if (!parse_uint(t[1], version)) bad("bad version " + quoted(t[1]));
        if (version != kTraceFormatVersion)
            bad("unsupported trace format version " + std::to_string(version) + " (this build reads version " +
                std::to_string(kTraceFormatVersion) + ")");
        header_.version = version;
        header_.line = impl_->line_no;
        if (n >= 3) {
            if (overflow || n > 3 || !t[2].starts_with("gen=") || !valid_name(t[2].substr(4), 31))
                bad("after the version only `gen=<generation>` may follow, got " + quoted(line.substr(t[2].data() - line.data())));
            header_.generation = std::string(t[2].substr(4));
        }
        return;
    }
    throw TraceFormatError(TraceError{file_, impl_->line_no, "header", "no header: the file has only comments or blank lines",
                                      std::string(kFormatRule)});
}

ReadStatus TraceReader::read(Record& rec, TraceError& err) {
    Impl& m = *impl_;
    if (m.done) return ReadStatus::end;
    const bool access_left = &rec == m.access_left && rec.kind == RecordKind::access;
    // An access record over the access record read last sets every field that one set: no reset.
    if (access_left && format_ == TraceFormat::binary &&
        detail::read_binary_access(m.input, names_, rec, m.line_no, m.checksum)) {
        ++records_;
        m.last_error = false;
        return ReadStatus::record;
    }
    if (access_left)
        rec.clear_access_fields();
    else
        rec.clear();
    m.access_left = nullptr;
    if (format_ == TraceFormat::binary) {
        ReadStatus s = detail::read_binary_record(m.input, names_, sites_, rec, err, m.line_no, m.end,
                                                  m.checksum, header_.version);
        if (s == ReadStatus::end) {
            m.done = true;
            s = m.check_end(header_, records_, err);
        }
        m.last_error = s == ReadStatus::error;
        if (s == ReadStatus::error) err.file = file_, m.errors = true;
        if (s == ReadStatus::record) ++records_;
        if (s == ReadStatus::record && rec.kind == RecordKind::access) m.access_left = &rec;
        return s;
    }
    m.err = &err;
    std::string_view line;
    bool too_long = false;
    while (m.input.next_line(line, too_long)) {
        ++m.line_no;
        rec.line = m.line_no;
        if (too_long) {
            m.fail("record",
                   "line longer than 65536 bytes, the limit for one record (is this a trace file?)");
            return ReadStatus::error;
        }
        if (!line.empty() && line[0] >= '0' && line[0] <= '9' && m.quick_access(line, rec)) {
            ++records_;
            m.access_left = &rec;
            return ReadStatus::record;
        }
        if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
        // CRLF files: drop the '\r' with the trailing blanks.
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
        std::size_t start = 0;
        while (start < line.size() && (line[start] == ' ' || line[start] == '\t')) ++start;
        if (start == line.size()) continue;
        line.remove_prefix(start);
        bool ok = false;
        if (line[0] >= '0' && line[0] <= '9') {
            ok = m.parse_access(line, rec);
        } else {
            std::array<std::string_view, 48> toks;
            bool overflow = false;
            const std::size_t n = tokenize(line, toks, overflow);
            const auto kind = parse_record_kind(toks[0]);
            if (toks[0] == kTraceTextMagic)
                ok = m.fail("record", "a second header line; only the first line may be a header");
            else if (!kind)
                ok = m.fail("record", "unknown record kind " + quoted(toks[0]) +
                                          did_you_mean(toks[0], std::vector<std::string_view>(kKindNames.begin() + 1, kKindNames.end())) +
                                          ": expected a cycle number (an access record) or one of dma, ldweights, matmul, act, pool, dve, q7");
            else if (overflow)
                ok = m.fail("record", "more than 47 fields");
            else
                ok = m.parse_instruction(*kind, toks, n, rec);
        }
        if (!ok) {
            rec.line = m.line_no;
            return ReadStatus::error;
        }
        ++records_;
        if (rec.kind == RecordKind::access) m.access_left = &rec;
        return ReadStatus::record;
    }
    if (m.input.failed()) {
        err = TraceError{file_, m.line_no, "file", "read error", ""};
        m.done = true;
        return ReadStatus::error;
    }
    m.done = true;
    return ReadStatus::end;
}

bool TraceReader::next(Record& rec) {
    TraceError err;
    switch (read(rec, err)) {
    case ReadStatus::record: return true;
    case ReadStatus::end: return false;
    case ReadStatus::error: break;
    }
    throw TraceFormatError(std::move(err));
}

// ---- canonical text ----------------------------------------------------------------------------

namespace {

void append_hex(std::string& out, std::uint64_t v) {
    char buf[24];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v, 16);
    (void)ec;
    out += "0x";
    out.append(buf, p);
}

template <class T>
void append_dec(std::string& out, T v) {
    char buf[24];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
    (void)ec;
    out.append(buf, p);
}

void append_operand(std::string& out, const Operand& o) {
    if (o.kind == Operand::Kind::hbm) {
        if (o.hbm_typed) {
            out += to_string(o.dtype);
            out += '@';
        }
        out += "hbm";
        return;
    }
    out += to_string(o.dtype);
    out += '@';
    append_hex(out, o.addr);
    if (o.dims == 0) return;
    out += '[';
    for (std::uint32_t d = 0; d < o.dims; ++d) {
        if (d) out += ',';
        append_dec(out, o.steps[d]);
    }
    out += "][";
    for (std::uint32_t d = 0; d < o.dims; ++d) {
        if (d) out += ',';
        append_dec(out, o.sizes[d]);
    }
    out += ']';
}

void append_group(std::string& out, std::uint8_t g) {
    if (g == 1 || g == 2 || g == 4 || g == 8) {
        out += 'q';
        out += static_cast<char>('0' + (g == 1 ? 0 : g == 2 ? 1 : g == 4 ? 2 : 3));
    } else {
        append_hex(out, g);
    }
}

void key(std::string& out, std::string_view k) {
    out += ' ';
    out += k;
    out += '=';
}

template <class T>
void key_dec(std::string& out, std::string_view k, T v) {
    key(out, k);
    append_dec(out, v);
}

void key_operand(std::string& out, std::string_view k, const Operand& o) {
    if (!o.present()) return;
    key(out, k);
    append_operand(out, o);
}

}  // namespace

namespace {

// ` loc=SITE[name=value,...]`, last on the line, when the record has a location.
void append_location(std::string& out, const Record& r) {
    if (!r.has_site()) return;
    key(out, "loc");
    out += format_location(r);
}

}  // namespace

void format_record(const Record& r, std::string& out) {
    if (r.kind == RecordKind::access) {
        append_dec(out, r.cycle);
        out += ' ';
        out += r.client;
        out += ' ';
        out += op_name(r.op);
        out += ' ';
        append_hex(out, r.address);
        out += ' ';
        append_dec(out, r.partitions);
        out += ' ';
        append_dec(out, r.bytes);
        append_location(out, r);
        return;
    }
    out += to_string(r.kind);
    key(out, "queue");
    out += r.queue;
    switch (r.kind) {
    case RecordKind::dma:
        key_operand(out, "src", r.src);
        key_operand(out, "dst", r.dst);
        break;
    case RecordKind::ldweights:
        key_operand(out, "src", r.src);
        key_operand(out, "src2", r.src2);
        key_dec(out, "rows", r.rows);
        key_dec(out, "cols", r.cols);
        break;
    case RecordKind::matmul:
        key_operand(out, "src", r.src);
        key_operand(out, "src2", r.src2);
        key_operand(out, "dst", r.dst);
        key_dec(out, "num_active_rows", unsigned{r.num_active_rows});
        key_dec(out, "num_active_cols", unsigned{r.num_active_cols});
        key(out, "row_grp");
        append_group(out, r.row_grp);
        key(out, "col_grp");
        append_group(out, r.col_grp);
        key(out, "xbus_sel");
        append_hex(out, r.xbus_sel);
        key_dec(out, "acc_flags", unsigned{r.acc_flags});
        key_dec(out, "zero_region", unsigned{r.zero_region});
        key(out, "perf_opt");
        out += to_string(r.perf_opt);
        break;
    case RecordKind::act:
    case RecordKind::pool:
    case RecordKind::dve:
        key_operand(out, "src", r.src);
        key_operand(out, "src2", r.src2);
        key_operand(out, "dst", r.dst);
        break;
    case RecordKind::q7:
        key_dec(out, "core", unsigned{r.core});
        key(out, "op");
        out += op_name(r.op);
        key_operand(out, "operand", r.src);
        break;
    case RecordKind::access: break;
    }
    // A field the kind requires is written even when zero, so the record reads back (the reader
    // accepts `partitions=0`; the checker, not the reader, says what a zero means).
    const std::uint32_t required = kKindFields[static_cast<std::size_t>(r.kind)].required;
    if (r.partitions != 0 || (required & F_partitions)) key_dec(out, "partitions", r.partitions);
    if (r.bytes != 0 || (required & F_bytes)) key_dec(out, "bytes", r.bytes);
    if (r.transpose) out += " transpose=1";
    if (r.has_engine()) key_dec(out, "engine", r.engine);
    if (r.dge != DgeMode::unset) {
        key(out, "dge");
        out += to_string(r.dge);
    }
    if (r.issuer != DmaIssuer::unset) {
        key(out, "issuer");
        out += to_string(r.issuer);
    }
    if (r.has_priority()) key_dec(out, "priority", unsigned{r.priority});
    if (r.dst_rmw_add) out += " dst_rmw_op=add";
    if (r.onezero) out += " onezero=1";
    const std::pair<const char*, const std::array<std::uint8_t, 2>*> tiles[] = {{"tile_position", &r.tile_position},
                                                                                 {"tile_size", &r.tile_size}};
    for (const auto& [name, pair] : tiles)
        if ((*pair)[0] != Record::kNoTile) {
            key_dec(out, name, unsigned{(*pair)[0]});
            out += ',';
            append_dec(out, unsigned{(*pair)[1]});
        }
    if (!r.fn.empty()) {
        key(out, "fn");
        out += r.fn;
    }
    if (r.isa != ComputeOp::generic) {
        key(out, "isa");
        out += to_string(r.isa);
    }
    for (std::uint32_t i = 0; i < r.num_waits && i < kMaxWaits; ++i) {
        key_dec(out, "wait", r.waits[i].sem);
        if (r.waits[i].value != 0) {
            out += ':';
            append_dec(out, r.waits[i].value);
        }
    }
    for (std::uint32_t i = 0; i < r.num_signals && i < kMaxSignals; ++i) key_dec(out, "signal", r.signals[i]);
    append_location(out, r);
}

std::string format_record(const Record& rec) {
    std::string s;
    format_record(rec, s);
    return s;
}

std::string format_operand(const Operand& op) {
    std::string s;
    if (op.present()) append_operand(s, op);
    return s;
}

std::string format_header(const TraceHeader& h) {
    std::string s = std::string(kTraceTextMagic) + " " + std::to_string(h.version);
    if (!h.generation.empty()) s += " gen=" + h.generation;
    return s;
}

// ---- the text rules for decoded records ---------------------------------------------------------

namespace detail {

bool valid_trace_name(std::string_view name, std::size_t max_len) { return valid_name(name, max_len); }

bool check_kind_fields(const Record& r, std::string& field, std::string& reason) {
    if (!is_instruction(r.kind)) return true;
    const KindFields& spec = kKindFields[static_cast<std::size_t>(r.kind)];
    const bool q7 = r.kind == RecordKind::q7;
    // What the record sets, as the text fields that would carry it (q7's operand is src).
    std::uint32_t set = 0;
    auto mark = [&](bool on, Field f) {
        if (on) set |= f;
    };
    mark(!r.queue.empty(), F_queue);
    mark(r.src.present(), q7 ? F_operand : F_src);
    mark(r.src2.present(), F_src2);
    mark(r.dst.present(), F_dst);
    mark(r.partitions != 0, F_partitions);
    mark(r.bytes != 0, F_bytes);
    mark(!r.fn.empty(), F_fn);
    mark(r.rows != 0, F_rows);
    mark(r.cols != 0, F_cols);
    mark(r.num_active_rows != 0, F_nrows);
    mark(r.num_active_cols != 0, F_ncols);
    mark(r.row_grp != 0, F_row_grp);
    mark(r.col_grp != 0, F_col_grp);
    mark(r.xbus_sel != 0, F_xbus);
    mark(r.acc_flags != 0, F_acc);
    mark(r.zero_region != 0, F_zero);
    mark(r.perf_opt != PerfOpt::none, F_perf);
    mark(r.transpose, F_transpose);
    mark(r.has_engine(), F_engine);
    mark(r.dge != DgeMode::unset, F_dge);
    mark(r.issuer != DmaIssuer::unset, F_issuer);
    mark(r.has_priority(), F_priority);
    mark(r.dst_rmw_add, F_rmw);
    mark(r.onezero, F_onezero);
    mark(r.has_tile_position(), F_tile_position);
    mark(r.has_tile_size(), F_tile_size);
    mark(r.core != 0, F_core);
    mark(r.op != Op::rd, F_op);
    if (const std::uint32_t extra = set & ~spec.allowed) {
        field = field_name(static_cast<Field>(extra & (~extra + 1)));
        reason = "set, but " + std::string(to_string(r.kind)) + " does not take it (" +
                 unknown_field(r.kind, spec, field).substr(unknown_field(r.kind, spec, field).find("; ") + 2) + ")";
        return false;
    }
    constexpr std::uint32_t kOperands = F_src | F_src2 | F_dst | F_operand;
    if (const std::uint32_t missing = spec.required & kOperands & ~set) {
        field = field_name(static_cast<Field>(missing & (~missing + 1)));
        reason = "missing (required for " + std::string(to_string(r.kind)) + ")";
        return false;
    }
    if (q7 && r.op == Op::raw) {
        field = "op";
        reason = "unknown op \"raw\" (rd or wr)";
        return false;
    }
    return true;
}

}  // namespace detail

// ---- the writer ---------------------------------------------------------------------------------

TraceWriter::TraceWriter(std::ostream& out, TraceFormat format, const TraceHeader& header)
    : out_(out), format_(format) {
    if (!header.generation.empty() && !valid_name(header.generation, 31))
        throw TraceFormatError(TraceError{"", 0, "gen", "bad generation name " + quoted(header.generation), ""});
    if (format_ == TraceFormat::binary)
        detail::write_binary_header(out_, checksum_, header);
    else {
        TraceHeader text = header;  // a binary trace's version is the binary form's
        text.version = kTraceFormatVersion;
        out_ << format_header(text) << '\n';
    }
    if (!out_) throw std::runtime_error("cannot write the trace header");
}

TraceWriter::~TraceWriter() = default;

void TraceWriter::write(const Record& rec) {
    for (std::string_view n : {rec.client, rec.queue, rec.fn})
        if (!n.empty() && !valid_name(n))
            throw TraceFormatError(TraceError{"", rec.line, "name", "bad name " + quoted(n) + " for a trace", ""});
    if (rec.has_site() && format_ == TraceFormat::text) {
        // A new site: parse it as written, so that a reader takes it back (binary: its site record).
        const std::uint32_t before = sites_.size();
        if (!sites_.intern(rec.site))
            throw TraceFormatError(
                TraceError{"", rec.line, "loc",
                           "more than " + std::to_string(kMaxSites) + " distinct source sites", ""});
        NameTable scratch;
        Record back;
        if (sites_.size() != before)
            if (auto why = parse_location(format_location(rec), scratch, back); why || back.site != rec.site)
                throw TraceFormatError(
                    TraceError{"", rec.line, "loc", why.value_or("does not read back as written"), ""});
    }
    if (rec.kind == RecordKind::access && rec.client.empty())
        throw TraceFormatError(TraceError{"", rec.line, "client", "an access record needs a client", ""});
    if (is_instruction(rec.kind) && rec.queue.empty())
        throw TraceFormatError(TraceError{"", rec.line, "queue", "an instruction record needs a queue", ""});
    if (format_ == TraceFormat::binary) {
        detail::write_binary_record(out_, checksum_, names_, sites_, rec);
    } else {
        line_.clear();
        format_record(rec, line_);
        line_ += '\n';
        out_.write(line_.data(), static_cast<std::streamsize>(line_.size()));
    }
    ++records_;
}

void TraceWriter::finish() {
    if (finished_) return;
    finished_ = true;
    if (format_ == TraceFormat::binary) detail::write_binary_end(out_, checksum_, records_);
    flush();
}

void TraceWriter::flush() {
    out_.flush();
    if (!out_) throw std::runtime_error("cannot write the trace");
}

}  // namespace sbufsim
