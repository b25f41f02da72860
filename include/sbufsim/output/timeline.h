// `sbufsim run --timeline FILE.json`: the replay as a Chrome trace-event / Perfetto JSON document
// ({"traceEvents": [...]}, opens in ui.perfetto.dev and chrome://tracing). docs/visualisation.md.
//
// Tracks (process = group, thread = track):
//   pid 1 "engine queues"    one thread per engine queue; an "X" slice per instruction, named by
//                            its kind (and function), operands in dtype@addr[steps][sizes] in args.
//                            Instructions that overlap (the PE array pipelines matmuls) go to extra
//                            threads of the queue ("arr_seq (qPE0) #2"), so every thread's slices
//                            are disjoint
//   pid 2 "arbiter clients"  one thread per (kernel client, stall cause) that stalled; an "X"
//                            slice per run of stalled cycles (TimelineDetail::all) or per group of
//                            runs closer than `merge_gap` cycles (TimelineDetail::stalls), named and
//                            coloured (cname) by StallCause; args.stalled = the stalled cycles in it
//   pid 3 "banks"            one counter per ECC bank: busy and conflict share of each time bin
//   pid 4 "TDM"              one counter: cycles per bin with a compute- / DMA-class SBUF grant
//   flows ("s" -> "f")       from the instruction whose `signal=S` satisfied a `wait=S` to the
//                            waiting instruction; "s" sits on the signaller's last cycle, "f" on
//                            the waiter's first, each inside its slice
// Time is in PE cycles, written as integers: ts = first cycle, dur = cycles, so a slice ends at
// exactly ts + dur and nesting in cycles is nesting in the file. Viewers read the unit as
// microseconds (1 "us" = 1 cycle); otherData.pe_clock_ghz converts to time.
#pragma once

#include <iosfwd>

#include "sbufsim/replay/replay.h"
#include "sbufsim/stats/window_stats.h"

namespace sbufsim {

// How much of the arbiter clients' stall history a timeline holds (--timeline-detail). The engine
// queues, flows and the bounded counter tracks are in every level.
enum class TimelineDetail : std::uint8_t {
    instructions,  // no stall slices
    stalls,        // stall runs of one client and cause closer than merge_gap cycles merged
    all,           // every run of stalled cycles, exact
};
std::string_view to_string(TimelineDetail d);
// "instructions" | "stalls" | "all"; throws std::invalid_argument naming the choices otherwise.
TimelineDetail parse_timeline_detail(const std::string& text);

// The unit of ts and dur (--timeline-unit). Chrome's trace format reads them as microseconds:
// `cycles` writes PE cycles as they are (a viewer shows 1 cycle as 1 us; cycle numbers match the
// report), `ns` writes real time at the PE clock, each cycle boundary rounded to the nanosecond
// (a viewer shows the run's true duration).
enum class TimelineUnit : std::uint8_t { cycles, ns };
std::string_view to_string(TimelineUnit u);
// "cycles" | "ns"; throws std::invalid_argument naming the choices otherwise.
TimelineUnit parse_timeline_unit(const std::string& text);

struct TimelineOptions {
    Cycle from = 0;                     // --window A:B keeps events intersecting [from, to)
    Cycle to = kNever;
    std::size_t max_counter_bins = 2000;  // counter tracks are rebinned to at most this many bins
    TimelineDetail detail = TimelineDetail::stalls;
    TimelineUnit unit = TimelineUnit::cycles;
    // TimelineDetail::stalls: runs of one cause on one client with fewer than this many cycles
    // between them become one slice. 32 cycles merge the TDM period's one-slot gaps (8 or 16
    // slots) and keep the GEMM 1024x4096x1024 timeline at a few MB (docs/visualisation.md).
    Cycle merge_gap = 32;
};

// Writes the document. `r` must come from a replay with record_timeline set and `probe` (with
// record_spans) attached; the trace file r.trace is read again for instruction names, operands
// and semaphores. Throws TraceFormatError if it cannot be read.
void write_timeline(std::ostream& os, const ReplayResult& r, const ActivityProbe& probe,
                    const TimelineOptions& o = {});

// "A:B" -> [A, B); throws std::invalid_argument on anything else (B must be > A).
void parse_window(const std::string& text, Cycle& from, Cycle& to);

}  // namespace sbufsim
