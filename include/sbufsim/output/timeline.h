// `sbufsim run --timeline FILE.json`: the replay as a Chrome trace-event / Perfetto JSON document
// ({"traceEvents": [...]}, opens in ui.perfetto.dev and chrome://tracing). docs/visualisation.md.
//
// Tracks (process = group, thread = track):
//   pid 1 "engine queues"    one thread per engine queue; an "X" span per instruction, named by
//                            its kind (and function), operands in dtype@addr[steps][sizes] in args
//   pid 2 "arbiter clients"  one thread per kernel client; an "X" span per run of stalled cycles,
//                            named and coloured (cname) by StallCause, category "stall"
//   pid 3 "banks"            one counter per ECC bank: busy and conflict share of each time bin
//   pid 4 "TDM"              one counter: cycles per bin with a compute- / DMA-class SBUF grant
//   flows ("s" -> "f")       from the instruction whose `signal=S` satisfied a `wait=S` to the
//                            waiting instruction
// Timestamps are microseconds at the PE clock: ts = cycle / (pe_clock_ghz * 1000). Every span also
// carries its exact cycles in args (start_cycle, cycles), so nothing depends on float rounding.
#pragma once

#include <iosfwd>

#include "sbufsim/replay/replay.h"
#include "sbufsim/stats/window_stats.h"

namespace sbufsim {

struct TimelineOptions {
    Cycle from = 0;                     // --window A:B keeps events intersecting [from, to)
    Cycle to = kNever;
    std::size_t max_counter_bins = 2000;  // counter tracks are rebinned to at most this many bins
};

// Writes the document. `r` must come from a replay with record_timeline set and `probe` (with
// record_spans) attached; the trace file r.trace is read again for instruction names, operands
// and semaphores. Throws TraceFormatError if it cannot be read.
void write_timeline(std::ostream& os, const ReplayResult& r, const ActivityProbe& probe,
                    const TimelineOptions& o = {});

// "A:B" -> [A, B); throws std::invalid_argument on anything else (B must be > A).
void parse_window(const std::string& text, Cycle& from, Cycle& to);

}  // namespace sbufsim
