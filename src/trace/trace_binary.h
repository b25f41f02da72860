// The binary trace form's header and records (trace_binary.cpp), read and written by the
// TraceReader / TraceWriter front ends (trace_text.cpp). Private to the trace area.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "chunked_input.h"
#include "sbufsim/trace/trace.h"

namespace sbufsim::detail {

// The checksum of a binary trace (docs/trace-format.md, "Binary form"): every byte of the header
// and the records before the end record, taken as 8-byte little-endian words (every record is a
// whole number of them), each xor-ed in, then the sum multiplied by an odd constant and rotated:
// each step is a bijection of the sum, so a change within one word always changes the result.
inline constexpr std::uint64_t kChecksumSeed = 0x5342554654524331ULL;  // "SBUFTRC1"
void checksum_add(std::uint64_t& sum, const unsigned char* p, std::size_t n);

// Readers return the error in `err`; each adds the bytes it consumed to `sum`.
bool read_binary_header(ChunkedInput& in, TraceHeader& h, TraceError& err, std::uint64_t& sum);
// The end record, once read: ReadStatus::end after it (a stream that ends without it returns
// end too, with `seen` false).
struct BinaryEnd {
    bool seen = false;
    std::uint64_t records = 0;   // the count it holds
    std::uint64_t checksum = 0;  // the checksum it holds (0 in a file written without one)
};
// `sites`: the source sites defined so far (version 2); `version`: the header's (1 refuses the
// site and location records).
ReadStatus read_binary_record(ChunkedInput& in, NameTable& names, NameTable& sites, Record& rec,
                              TraceError& err, std::uint64_t& ordinal, BinaryEnd& end, std::uint64_t& sum,
                              std::uint32_t version);
// The common case of read_binary_record, without its dispatch: when the next record is a
// well-formed access record already in the buffer, decodes it into rec's access fields (all of
// them but `line`, which becomes the record's ordinal) and returns true. Otherwise false, with
// nothing read: read_binary_record() then reads the record or reports what is wrong with it.
bool read_binary_access(ChunkedInput& in, const NameTable& names, Record& rec, std::uint64_t& ordinal,
                        std::uint64_t& sum);
// Writers add the bytes they write to `sum` (start it at kChecksumSeed); the end record holds it.
void write_binary_header(std::ostream& out, std::uint64_t& sum, const TraceHeader& h);
void write_binary_record(std::ostream& out, std::uint64_t& sum, NameTable& defined, NameTable& sites,
                         const Record& rec);
void write_binary_end(std::ostream& out, std::uint64_t sum, std::uint64_t records);
// The text reader's rules for a decoded instruction record (the binary reader checks what the text
// syntax enforces): a field its kind does not take is unset, every operand it requires is given,
// a q7 op is rd or wr. False with the field and the reason (the text reader's words).
bool check_kind_fields(const Record& rec, std::string& field, std::string& reason);
// A client, queue, fn (max_len kMaxNameLength) or generation (31) name the text form can carry.
bool valid_trace_name(std::string_view name, std::size_t max_len);
// A site as a record keeps it (trace.h): what parse_location() interns; `indices` gets the number
// of loop indices its brackets name. (trace_location.cpp)
bool valid_site(std::string_view site, std::uint8_t& indices);

}  // namespace sbufsim::detail
