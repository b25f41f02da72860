// The static deadlock check of `sbufsim check`: which instructions of a trace could never start
// because of its semaphores, found without simulating, and why — a cycle of waits between
// queues, or a queue waiting for a signal only its own later instructions send.
//
// The replay runs instructions in order per in-order unit: the PE array (every ldweights and
// matmul), each of ACT, POOL and DVE, each DMA queue (by name) and each Q7 core. A `wait=S:v`
// holds its unit until S >= v; `signal=S` adds 1 when the instruction completes. Semaphores only
// grow, so whether an instruction can ever start does not depend on timing: running every unit
// whose head is ready, in any order, until none is, leaves exactly the instructions the replay
// would deadlock on. SyncCheck plays that game while the records stream in, so its memory is the
// instructions still waiting (normally a few per unit), not the trace.
//
// The game is also one order the replay could run the instructions in, which the race check
// (hazard_check.h) needs: as each instruction starts in it, which instructions of every unit are
// ordered before it by program order and the waits it passed (a vector clock; a wait for S >= v
// orders after it the first v signals of S in the game, which, when one queue sends every signal
// of S, are the same in every order the replay could take).
//
// Waits whose value exceeds every signal of the trace are TraceChecker::finish()'s finding; this
// check reports the others: for each group of units that wait on each other in a circle (Tarjan's
// strongly connected components of "unit A's head waits for a signal unit B still has to send"),
// one finding at its first waiting line naming every queue, line and semaphore of the circle.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "sbufsim/config/params.h"
#include "sbufsim/trace/hazard_check.h"
#include "sbufsim/trace/trace.h"

namespace sbufsim {

class SyncCheck {
public:
    // The in-order units (queues) the check follows: each unit's clock holds an entry per unit, so
    // its memory and time grow with the square of their count (64 k queues took more memory than
    // there was). Past this many the check stops, with one finding saying so; the replay itself
    // goes on. docs/trace-format.md, "Limits".
    static constexpr std::size_t kMaxUnits = 4096;

    // `file` is used in the findings' file:line.
    SyncCheck(const Params& params, std::string file);

    // One record in file order; access records and out-of-range semaphores are ignored (the
    // TraceChecker reports the latter). Appends to `out` one TraceError (field: the operand) per
    // race the instructions it lets start have with earlier ones (hazard_check.h). A record the
    // TraceChecker refused (`valid` false) takes part in the semaphores but not in the races: its
    // operands are not what the replay would move (run --lenient skips it).
    void add(const Record& rec, std::vector<TraceError>& out, bool valid = true);
    // After the last record: one TraceError (field "wait") per circle of waits. Returns how many.
    std::size_t finish(std::vector<TraceError>& out);

private:
    struct Instr {
        std::uint64_t line = 0;
        std::uint32_t queue = 0;                 // index into queue_names_
        std::uint8_t waits = 0, signals = 0;
        std::uint16_t wait_sem[kMaxWaits]{};
        std::uint32_t wait_value[kMaxWaits]{};
        std::uint16_t signal_sem[kMaxSignals]{};
        std::uint32_t index = 0;  // position in its unit's program order
        Footprint footprint;      // what it reads and writes on chip
    };
    struct Unit {
        std::string engine;                      // "PE array", "ACT", "DMA", "Q7 core 3", ...
        std::string label;                       // in race findings: "ACT", "DMA queue qSyncIO0", ...
        std::deque<Instr> pending;               // not started in the game, in program order
        std::uint32_t added = 0;                 // instructions so far
        std::vector<std::uint32_t> before;       // ordered before its next instruction, per unit
    };

    // The unit of `rec`; kMaxUnits when it would be one too many.
    std::uint32_t unit_of(const Record& rec);
    // The first unmet wait of `i` (index), or -1 when it can start.
    int unmet(const Instr& i) const;
    // Starts every ready head, following the signals they send.
    void drain(std::uint32_t unit, std::vector<TraceError>& out);
    // Starts unit u's head: its clock, its races, its signals.
    void start(std::uint32_t u, const Instr& head, std::vector<TraceError>& out);
    std::string describe(std::uint32_t unit) const;
    TraceError describe(const Instr& head, std::uint32_t u, const Conflict& c) const;

    std::string file_;
    std::uint32_t semaphores_;
    WaitResolver resolver_;
    std::vector<Unit> units_;
    std::unordered_map<std::uint64_t, std::uint32_t> unit_index_;   // (kind class, id) -> unit
    std::vector<std::string> queue_names_;
    std::unordered_map<NameId, std::uint32_t> queue_index_;
    std::vector<std::uint64_t> value_;                // semaphore values in the game
    std::vector<std::uint64_t> total_;                // every signal of the trace, per semaphore
    std::vector<std::vector<std::uint32_t>> blocked_on_;  // units whose head waits on semaphore s
    // Per semaphore, per signal so far in the game: what is ordered before a wait it meets. The
    // last kKeptSignals are kept: a wait for an older count is taken as ordered after the oldest
    // kept one, which can only hide a race, and the memory stays flat over a long trace.
    struct Signalled {
        std::uint64_t dropped = 0;                     // counts below this + 1 are no longer kept
        std::deque<std::vector<std::uint32_t>> after;  // after[i]: after signal dropped + i + 1
    };
    static constexpr std::size_t kKeptSignals = 4096;
    // What every semaphore's kept clocks may hold together, in entries (4 bytes each): a trace of
    // many units keeps fewer signals per semaphore (kept_signals()), so the memory stays bounded.
    static constexpr std::size_t kKeptClockEntries = std::size_t{1} << 26;
    std::size_t kept_signals() const;
    bool stopped_ = false;  // more than kMaxUnits: the rest of the trace is not followed
    std::vector<Signalled> signalled_;
    HazardCheck hazards_;
    std::vector<Conflict> conflicts_;
    std::vector<std::uint32_t> clock_;  // the starting instruction's clock
    std::vector<std::uint32_t> work_;   // drain()'s units to look at
};

// The races of a whole trace, as `sbufsim check` finds them: how many, and the first. For a
// command that replays a trace many times (sweep) and says so once. Records the reader refuses
// end the scan (the replay reports them).
struct RaceScan {
    std::uint64_t races = 0;
    std::vector<TraceError> first;  // at most one
};
RaceScan scan_races(const Params& params, TraceReader& reader);

}  // namespace sbufsim
