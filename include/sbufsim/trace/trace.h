// Traces: the record AST, and streaming readers and writers for the text and binary forms
// (docs/trace-format.md, format version 1).
//
// A trace is a header (format version, optional generation) followed by records of two kinds:
//   - access records: raw bank traffic of one kernel client (`cycle client op address partitions
//     bytes`), replayed straight into the conflict kernel;
//   - instruction records: one engine-queue instruction (dma, ldweights, matmul, act, pool, dve,
//     q7) with named fields, operands in the profiler's `dtype@addr[steps][sizes]` notation and
//     semaphore dependencies (`wait=S[:value]`, `signal=S`).
//
// Streaming contract: a reader holds one buffer and a table of interned names (client, queue and
// fn names; at most kMaxNames), never the records. `next(Record&)` overwrites the caller's Record,
// so memory stays flat whatever the trace length. The reader checks syntax and field widths only;
// the hardware rules (placement, Matmul groups, partitions, semaphores < 256, ...) are
// trace_check.h's TraceChecker, which `sbufsim check` and `sbufsim run` share.
//
// Plain C++: nothing here depends on SystemC.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <fstream>
#include <iosfwd>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sbufsim/address/isa_rules.h"
#include "sbufsim/kernel/request.h"
#include "sbufsim/types/compute_op.h"
#include "sbufsim/types/dma_trigger_mode.h"

namespace sbufsim {

// ---- format constants ------------------------------------------------------------------------

inline constexpr std::uint32_t kTraceFormatVersion = 1;
// The binary form's version: 2 added the source-location records (site definitions and
// locations); a reader takes version 1 files as before, and refuses those records in them.
inline constexpr std::uint32_t kBinaryFormatVersion = 2;
inline constexpr std::string_view kTraceTextMagic = "sbufsim-trace";  // first word of a text trace
// First 8 bytes of a binary trace; no text trace can start with them (0x00 inside).
inline constexpr std::array<char, 8> kTraceBinaryMagic{'S', 'B', 'U', 'F', 'T', 'R', 'C', '\0'};
inline constexpr std::string_view kTextExtension = ".trc";
inline constexpr std::string_view kBinaryExtension = ".sbt";

// Names (clients, queues, fn) are interned per reader/writer; the binary form stores them as
// 16-bit ids. Why a cap: the name table is the only thing a reader keeps that grows with the input.
inline constexpr std::uint32_t kMaxNames = 65535;
inline constexpr std::size_t kMaxNameLength = 48;   // bytes; fits one binary name record
inline constexpr std::uint32_t kMaxDims = 3;        // TENSOR3D: up to 3 free dimensions (seed 000 §5)
// Source locations (`loc=`): sites are interned in a table of their own, like names, and the
// binary form defines each once (a 256-byte record: at most 248 bytes of text).
inline constexpr std::uint32_t kMaxSites = 65535;
inline constexpr std::size_t kMaxSiteLength = 248;
inline constexpr std::uint32_t kMaxSiteIndices = 4;  // loop indices a location carries

enum class TraceFormat : std::uint8_t { text, binary };
std::string_view to_string(TraceFormat f);
// The format a file name asks for: ".sbt" → binary, ".trc" (or anything else) → text.
TraceFormat format_for_path(std::string_view path);

// ---- the AST -----------------------------------------------------------------------------------

enum class RecordKind : std::uint8_t {
    access,     // raw bank traffic of one kernel client
    dma,        // a DMA queue descriptor (HBM↔SBUF, SBUF↔SBUF, optionally transposing)
    ldweights,  // LdWeights: load the stationary tile into the PE array (src SBUF only)
    matmul,     // S3D3_MM: moving tensor SBUF → PE array → PSUM (seed 000 §5)
    act,        // ScalarE instruction
    pool,       // GpSimd POOL engine instruction
    dve,        // VectorE instruction
    q7,         // a GPSIMD Q7 core's AXI load/store to SBUF (seed 000 §7.3–§7.5)
};
inline constexpr std::uint32_t kRecordKinds = 8;
std::string_view to_string(RecordKind k);   // the text keyword: "access", "dma", "matmul", ...
std::optional<RecordKind> parse_record_kind(std::string_view word);  // instruction keywords only
inline bool is_instruction(RecordKind k) { return k != RecordKind::access; }

// NEURON_ISA_TPB_PERF_OPT_MODE of the Matmul (seed 000 §5).
enum class PerfOpt : std::uint8_t { none, double_row, double_column, double_pixel };
std::string_view to_string(PerfOpt p);
std::optional<PerfOpt> parse_perf_opt(std::string_view s);  // case-insensitive, "DoubleRow" ok


// Dense id of an interned name, valid for the reader that produced it.
using NameId = std::uint16_t;
inline constexpr NameId kNoName = 0xffff;
// Dense id of an interned source site (a record's `loc=` without its index values).
using SiteId = std::uint16_t;
inline constexpr SiteId kNoSite = 0xffff;

// One tensor operand: `dtype@addr[steps][sizes]` as the profiler writes it, or `hbm` (DMA only;
// `dtype@hbm` when the HBM tensor's element type differs from the on-chip side's: a casting DMA).
// Steps and sizes are in elements, innermost dimension first; `dims` says how many were written
// (0 = `dtype@addr` alone: contiguous, extent given by the record's `bytes`). The partition count
// is not part of the operand: it is the record's `partitions` (or implied, see Record).
struct Operand {
    enum class Kind : std::uint8_t { absent, hbm, onchip };
    Kind kind = Kind::absent;
    Dtype dtype = Dtype::fp32;
    std::uint8_t dims = 0;                          // 0..kMaxDims
    // An hbm operand whose dtype was given (`bf16@hbm`); a plain `hbm` has the on-chip side's.
    bool hbm_typed = false;
    std::uint32_t addr = 0;                         // 29-bit PartitionOffset (seed 000 §2); ≤ 32 bits parsed
    std::array<std::int32_t, kMaxDims> steps{};     // element steps; negative = reverse walk
    std::array<std::uint32_t, kMaxDims> sizes{};    // element counts

    bool present() const { return kind != Kind::absent; }
    bool onchip() const { return kind == Kind::onchip; }
    // Elements per partition: product of sizes (1 when dims == 0).
    std::uint64_t elements() const;
    friend bool operator==(const Operand&, const Operand&) = default;
};

// `wait=S[:value]`: block the instruction's start until semaphore S >= value. value 0 = written
// without a value: the n-th such plain wait on S in one queue waits for value n (WaitResolver).
struct SemWait {
    std::uint16_t sem = 0;
    std::uint32_t value = 0;   // 0 = implicit (plain `wait=S`)
    friend bool operator==(const SemWait&, const SemWait&) = default;
};

// One trace record, flat and reusable. Which fields mean something depends on `kind`; the others
// keep their defaults (readers reset them) so that writers and comparisons are deterministic.
// Field widths are the binary form's: a value that does not fit is a syntax error; a value that
// fits but breaks a hardware rule is TraceChecker's business.
struct Record {
    RecordKind kind = RecordKind::access;
    std::uint64_t line = 0;        // text: 1-based source line; binary: 1-based record ordinal

    // ---- access records: `cycle client op address partitions bytes` --------------------------
    Cycle cycle = 0;               // kernel cycle the access is issued; non-decreasing in a trace
    std::string_view client;       // kernel client name (clients.h), e.g. "pe_client_0", "dma_3"
    NameId client_id = kNoName;    // reader-interned id of `client` (dense; for lookup tables)
    Op op = Op::rd;                // access: rd | wr | raw; q7: rd | wr
    std::uint32_t address = 0;     // 29-bit PartitionOffset: region, first partition and offset

    // ---- shared by access and instruction records ------------------------------------------
    // Partitions touched. Instructions: 0 = not written, implied by the kind: matmul moving =
    // num_active_rows, matmul dst = num_active_cols, ldweights = rows.
    std::uint16_t partitions = 0;
    // Bytes per partition. Access: the transfer; dma: per partition (per source row when
    // transposing); other instructions: 0 = not written (the operand patterns give the extent).
    std::uint32_t bytes = 0;

    // ---- instruction records -------------------------------------------------------------------
    std::string_view queue;        // engine queue name, e.g. "qSyncIO0", "qPE0", "qAct0"
    NameId queue_id = kNoName;
    // Operands. ldweights: src. matmul: src = moving (SBUF), dst (PSUM). act/pool/dve: src,
    // optional src2, dst. dma: src, dst (each `hbm` or on-chip). q7: src = the operand read
    // (op rd) or written (op wr).
    Operand src, src2, dst;
    std::string_view fn;           // act/pool/dve free-text function, e.g. "exp"; empty = none
    NameId fn_id = kNoName;
    ComputeOp isa = ComputeOp::generic;  // act/pool/dve: the nki.isa instruction (cost model)

    // Matmul (S3D3_MM, seed 000 §5)
    std::uint8_t num_active_rows = 0;   // contraction depth = moving partitions (1..128)
    std::uint8_t num_active_cols = 0;   // output columns = dst PSUM partitions (1..128)
    std::uint8_t row_grp = 0;           // SBUF source quadrant bitmask (0xf, 0x3, 0xc, 0x1..0x8)
    std::uint8_t col_grp = 0;           // PSUM destination quadrant bitmask
    std::uint8_t xbus_sel = 0;          // bus select; must match col_grp (0x8 has none: HW bug)
    std::uint8_t acc_flags = 0;         // psum_accumulate_flags: BEGIN=1 | END=2 (0 mid, 3 single)
    std::uint8_t zero_region = 0;       // psum_zero_region: 0 = SIZE2048 .. 3 = SIZE16384
    PerfOpt perf_opt = PerfOpt::none;

    // PE tiling (nki.isa nc_matmul `tile_position` / `tile_size`), ldweights and matmul: the PE
    // rows and columns the instruction runs on, each a multiple of kPeTileUnit (the binary form
    // packs them). kNoTile = not written: the whole array. A matmul also takes `transpose`
    // (nc_matmul is_transpose: a PE transpose, stationary = data, moving = identity).
    std::array<std::uint8_t, 2> tile_position{kNoTile, kNoTile};  // first PE row, first PE column
    std::array<std::uint8_t, 2> tile_size{kNoTile, kNoTile};       // PE rows, PE columns

    // LdWeights (seed 000 §5.1): the stationary tile, rows = partitions read, cols = free size.
    std::uint16_t rows = 0;
    std::uint16_t cols = 0;

    // DMA
    bool transpose = false;             // dma: through the axi2sram 16-row crossbar tile (seed 000 §6.2);
                                        // matmul: a PE transpose (nki.isa nc_matmul is_transpose)
    std::uint16_t engine = 0xffff;      // DMA engine index; 0xffff = not written (from the queue)
    DgeMode dge = DgeMode::unset;       // descriptor generation (trigger cost, docs/engines.md "DMA triggers")
    DmaIssuer issuer = DmaIssuer::unset;  // the sequencer that triggers it
    std::uint8_t priority = 0xff;       // NC-v4 DMA QoS class 0..3 (0 highest); 0xff = not written
    bool dst_rmw_add = false;           // dst_rmw_op=add: dst = dst + src (nki.isa dma_copy dst_rmw_op)
    bool onezero = false;               // matmul: a one-zero hint (nki.isa nc_matmul is_stationary_onezero /
                                        // is_moving_onezero): fp32 at timing.fp32_onezero_factor

    // Q7
    std::uint8_t core = 0;              // GpSimd core c, owning SBUF partitions [16c, 16c+16)

    // Source location (any record, `loc=`): the site that made the record, interned per reader
    // ("tiled_gemm.py:42:nl.load[m,k]", "gemm:load_A[m,k]"), and the values of the loop indices
    // its brackets name, in their order. Empty = none.
    std::string_view site;
    SiteId site_id = kNoSite;
    std::uint8_t num_indices = 0;
    std::array<std::uint32_t, kMaxSiteIndices> indices{};

    // Semaphores (all instruction kinds)
    std::array<SemWait, kMaxWaits> waits{};
    std::uint8_t num_waits = 0;
    std::array<std::uint16_t, kMaxSignals> signals{};   // +1 to each when the instruction completes
    std::uint8_t num_signals = 0;

    static constexpr std::uint8_t kNoTile = 0xff;
    static constexpr std::uint8_t kPeTileUnit = 32;   // "4x 32 row tiles" (nki.isa nc_matmul)
    static constexpr std::uint8_t kMaxTileValue = 224;  // 7 units: what the binary form's 3 bits hold
    static constexpr std::uint16_t kNoEngine = 0xffff;
    static constexpr std::uint8_t kNoPriority = 0xff;
    bool has_engine() const { return engine != kNoEngine; }
    bool has_priority() const { return priority != kNoPriority; }
    bool has_tile_position() const { return tile_position[0] != kNoTile; }
    bool has_tile_size() const { return tile_size[0] != kNoTile; }
    // Reset every field to its default (readers do this before filling a record).
    // A copy of one empty record: cheaper than building a new one per record read.
    void clear() { *this = empty(); }
    // The same for a record that holds an access record: the fields an access record sets, the
    // only ones that differ from an empty record's (TraceReader::read).
    void clear_access_fields() {
        const Record& e = empty();
        kind = e.kind;
        line = e.line;
        cycle = e.cycle;
        client = e.client;
        client_id = e.client_id;
        op = e.op;
        address = e.address;
        partitions = e.partitions;
        bytes = e.bytes;
        clear_site();
    }
    void clear_site() {
        site = {};
        site_id = kNoSite;
        num_indices = 0;
        indices = {};
    }
    bool has_site() const { return !site.empty(); }

private:
    static const Record& empty() {
        static const Record e{};
        return e;
    }
};

// Field-wise equality, comparing names by content (not by id or view address).
bool same_record(const Record& a, const Record& b);

struct TraceHeader {
    std::uint32_t version = kTraceFormatVersion;
    std::string generation;   // "" = not written (the command line / default decides)
    std::uint64_t line = 1;   // where a text trace has it (comments may come first); 1 in a binary one
    // Binary: the writer ends the stream with an end record, so a file cut off between two
    // records is found (header byte 48, bit 0; files written before it have none).
    bool end_record = false;
    // Binary: the end record holds a checksum of the bytes before it, so a flipped bit is found
    // (header byte 48, bit 1; files written before it have none and read without the check).
    bool checksum = false;
};

// ---- errors ---------------------------------------------------------------------------------------

// One problem in a trace, structured so that tests and tools can match on parts.
// to_string(): `file:line: field: reason (rule)`; the rule part is omitted when `rule` is empty
// (ISA verdict reasons already end with their rule and seed section).
struct TraceError {
    std::string file;
    std::uint64_t line = 0;     // 0 = the file as a whole (e.g. unreadable)
    std::string field;          // e.g. "header", "dst", "col_grp", "client", "record"
    std::string reason;
    std::string rule;           // e.g. "trace format v1, docs/trace-format.md" or "seed 000 §7.5"
    // The record's source location when it has one ("softmax.py:42 nl.load", site_label()):
    // to_string() puts it after the line, `file:line (softmax.py:42 nl.load): field: ...`.
    std::string source = {};
    std::string to_string() const;
};

// Thrown by TraceReader::next() and by the constructors on malformed input.
class TraceFormatError : public std::runtime_error {
public:
    explicit TraceFormatError(TraceError e);
    const TraceError& error() const { return error_; }

private:
    TraceError error_;
};

// ---- names ------------------------------------------------------------------------------------------

// Interned strings with stable storage: views handed out stay valid for the table's lifetime.
class NameTable {
public:
    // The id of `name`, adding it if new; nullopt when the table is full (kMaxNames).
    std::optional<NameId> intern(std::string_view name);
    // Add `name` with exactly the next id (binary name records); false if full.
    bool append(std::string_view name);
    std::string_view name(NameId id) const { return views_[id]; }
    std::uint32_t size() const { return static_cast<std::uint32_t>(views_.size()); }

private:
    std::deque<std::string> names_;   // deque: push_back never moves existing strings
    std::vector<std::string_view> views_;  // into names_: a flat index (a deque's costs a division)
    std::unordered_map<std::string_view, NameId> ids_;
};

// ---- source locations -------------------------------------------------------------------------

// A site's parts, for grouping and display. "tiled_gemm.py:42:nl.load@gemm[i,k]": file
// "tiled_gemm.py", line 42, call "nl.load", function "gemm" (the kernel function holding the
// line, after '@'), base "tiled_gemm.py:42:nl.load@gemm", index names "i,k"; a site without
// FILE:LINE (a generator step, "gemm:load_A[m,k]") has line 0 and base "gemm:load_A". `key` is
// what a per-line profile groups by: "FILE:LINE", else the base.
struct SiteParts {
    std::string_view file, call, function, base, index_names, key;
    std::uint32_t line = 0;
};
SiteParts split_site(std::string_view site);
// A record's location as `loc=` writes it, the index values put back into the brackets:
// "gemm:load_A[m=3,k=1]". Empty when the record has none.
std::string format_location(const Record& rec);
// A site as messages quote it: "tiled_gemm.py:42 nl.load" (a kernel line and its call), else the
// site's name without its index names ("gemm:matmul"); "" for none.
std::string site_label(std::string_view site);
// Sets TraceError::source of the errors out[from..] about `rec` (same line) when it has a site.
void locate_errors(const Record& rec, std::vector<TraceError>& out, std::size_t from);
// Parses a `loc=` value into the record (interning its site in `sites`); the reason on failure.
std::optional<std::string> parse_location(std::string_view text, NameTable& sites, Record& rec);

// ---- reading ---------------------------------------------------------------------------------------

enum class ReadStatus : std::uint8_t { record, error, end };

// Streams records from a text or binary trace, chosen by sniffing the first bytes.
class TraceReader {
public:
    // Open `path` ("-" = stdin is not supported: traces are files). Reads and validates the
    // header; throws TraceFormatError (file unreadable, empty, bad magic/version).
    explicit TraceReader(const std::string& path);
    // The same, also hashing the file's bytes as they are read (digest()).
    enum class Digest : bool { no, yes };
    TraceReader(const std::string& path, Digest digest);
    // Read from a stream the caller keeps alive; `display_name` is used in errors.
    TraceReader(std::istream& in, std::string display_name);
    ~TraceReader();
    TraceReader(const TraceReader&) = delete;
    TraceReader& operator=(const TraceReader&) = delete;

    const TraceHeader& header() const { return header_; }
    TraceFormat format() const { return format_; }
    const std::string& file() const { return file_; }
    const NameTable& names() const { return names_; }
    // The source sites read so far (Record::site_id indexes it).
    const NameTable& sites() const { return sites_; }

    // The next record into `rec` (previous contents overwritten). When `rec` holds the access
    // record the previous call returned, only its access fields are reset: the others still hold
    // their defaults, so a caller must not change them in between. On a malformed record returns
    // `error` with `err` filled and stays usable: the next call continues after the bad record
    // (text: the next line; binary: the next record, unless the stream is truncated → end).
    ReadStatus read(Record& rec, TraceError& err);
    // Convenience: true with a record, false at the end; throws TraceFormatError on a bad record.
    bool next(Record& rec);

    std::uint64_t records_read() const { return records_; }
    // FNV-1a 64 of the file's bytes (the `trace_digest` of a run report), known once a reader
    // opened with Digest::yes has read the file to the end without an I/O error; nullopt before
    // that, and for every other reader.
    std::optional<std::uint64_t> digest() const;

private:
    struct Impl;  // the reader's parse state (trace_text.cpp)
    void open(bool digest = false);
    std::unique_ptr<std::ifstream> owned_;
    std::istream* in_ = nullptr;
    std::string file_;
    TraceHeader header_;
    TraceFormat format_ = TraceFormat::text;
    NameTable names_;
    NameTable sites_;
    std::unique_ptr<Impl> impl_;
    std::uint64_t records_ = 0;
};

// ---- writing -------------------------------------------------------------------------------------

// Writes a trace in canonical form: text = one canonical line per record (docs/trace-format.md);
// binary = fixed-size little-endian records with names defined inline before first use. Both
// stream: nothing is buffered beyond the output stream's own buffer.
class TraceWriter {
public:
    // Writes the header at once. Throws std::runtime_error when the stream fails.
    TraceWriter(std::ostream& out, TraceFormat format, const TraceHeader& header);
    ~TraceWriter();
    TraceWriter(const TraceWriter&) = delete;
    TraceWriter& operator=(const TraceWriter&) = delete;

    // Throws TraceFormatError when a name is too long or there are more than kMaxNames.
    void write(const Record& rec);
    void flush();
    // The last call: a binary stream's end record (the count of records; its absence tells a
    // reader the file was cut off), then flush(). A binary stream without it reads as cut off.
    void finish();
    std::uint64_t records_written() const { return records_; }

private:
    std::ostream& out_;
    TraceFormat format_;
    NameTable names_;          // binary: names already defined in the stream
    NameTable sites_;          // binary: sites already defined in the stream
    std::string line_;         // text: reused line buffer
    std::uint64_t records_ = 0;
    std::uint64_t checksum_ = 0x5342554654524331ULL;  // binary: of the bytes written (trace_binary.h)
    bool finished_ = false;
};

// The canonical text of one record, without the newline (what TraceWriter writes).
std::string format_record(const Record& rec);
void format_record(const Record& rec, std::string& out);   // appends to `out`
// The canonical text of an operand: `bf16@0x5600[1,0,0][512,1,1]`, `fp32@0x2000000`, `hbm`.
std::string format_operand(const Operand& op);
// The header line, e.g. "sbufsim-trace 1 gen=cayman".
std::string format_header(const TraceHeader& h);

// Parse one operand (exposed for tests and tools). Returns the reason on failure.
std::optional<std::string> parse_operand(std::string_view text, Operand& out);

// ---- semaphores ------------------------------------------------------------------------------------

// Resolves plain `wait=S` values: the n-th plain wait on S in a queue waits for S >= n, so that
// repeated `wait=S` consume successive `signal=S`. Explicit values do not advance the count.
// Memory: one counter per (queue, semaphore) actually used.
class WaitResolver {
public:
    std::uint32_t resolve(NameId queue, const SemWait& w);
    void reset() { counts_.clear(); }

private:
    std::unordered_map<std::uint32_t, std::uint32_t> counts_;   // (queue << 16 | sem) → plain waits
};

// ---- binary form sizes ------------------------------------------------------------------------------

// Bytes of the binary form's header and fixed-size records (docs/trace-format.md, "Binary form").
inline constexpr std::size_t kBinaryHeaderBytes = 64;
inline constexpr std::size_t kBinaryNameBytes = 64;
inline constexpr std::size_t kBinaryAccessBytes = 24;
inline constexpr std::size_t kBinaryEndBytes = 24;
inline constexpr std::size_t kBinaryInstructionBytes = 160;
inline constexpr std::size_t kBinarySiteBytes = 256;
inline constexpr std::size_t kBinaryLocationBytes = 24;

}  // namespace sbufsim
