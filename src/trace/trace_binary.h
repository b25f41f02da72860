// The binary trace form's header and records (trace_binary.cpp), read and written by the
// TraceReader / TraceWriter front ends (trace_text.cpp). Private to the trace area.
#pragma once

#include <cstdint>
#include <ostream>

#include "chunked_input.h"
#include "sbufsim/trace/trace.h"

namespace sbufsim::detail {

// Readers return the error in `err`.
bool read_binary_header(ChunkedInput& in, TraceHeader& h, TraceError& err);
ReadStatus read_binary_record(ChunkedInput& in, NameTable& names, Record& rec, TraceError& err,
                              std::uint64_t& ordinal);
void write_binary_header(std::ostream& out, const TraceHeader& h);
void write_binary_record(std::ostream& out, NameTable& defined, const Record& rec);

}  // namespace sbufsim::detail
