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

// Readers return the error in `err`.
bool read_binary_header(ChunkedInput& in, TraceHeader& h, TraceError& err);
// The end record, once read: ReadStatus::end after it (a stream that ends without it returns
// end too, with `seen` false).
struct BinaryEnd {
    bool seen = false;
    std::uint64_t records = 0;  // the count it holds
};
ReadStatus read_binary_record(ChunkedInput& in, NameTable& names, Record& rec, TraceError& err,
                              std::uint64_t& ordinal, BinaryEnd& end);
// The common case of read_binary_record, without its dispatch: when the next record is a
// well-formed access record already in the buffer, decodes it into rec's access fields (all of
// them but `line`, which becomes the record's ordinal) and returns true. Otherwise false, with
// nothing read: read_binary_record() then reads the record or reports what is wrong with it.
bool read_binary_access(ChunkedInput& in, const NameTable& names, Record& rec, std::uint64_t& ordinal);
void write_binary_header(std::ostream& out, const TraceHeader& h);
void write_binary_record(std::ostream& out, NameTable& defined, const Record& rec);
void write_binary_end(std::ostream& out, std::uint64_t records);
// The text reader's rules for a decoded instruction record (the binary reader checks what the text
// syntax enforces): a field its kind does not take is unset, every operand it requires is given,
// a q7 op is rd or wr. False with the field and the reason (the text reader's words).
bool check_kind_fields(const Record& rec, std::string& field, std::string& reason);
// A client, queue, fn (max_len kMaxNameLength) or generation (31) name the text form can carry.
bool valid_trace_name(std::string_view name, std::size_t max_len);

}  // namespace sbufsim::detail
