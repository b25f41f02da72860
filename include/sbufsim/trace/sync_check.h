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
// of S, are the same in every order the replay could take). A unit need not complete its
// instructions in program order (completion_order.h): the clocks have an entry per lane (a unit's
// instructions that do complete in order), a signal orders after it only what of its
// own unit completes before it in every order, and a count of S that a later signal can reach in
// place of an earlier one's orders nothing after that earlier one. A wait the game met before
// the later signal was read is reported as such (field "wait"): its instruction may start before
// the instruction it waits for has completed.
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
#include "sbufsim/trace/completion_order.h"
#include "sbufsim/trace/hazard_check.h"
#include "sbufsim/trace/trace.h"

namespace sbufsim {

class SyncCheck {
public:
    // The in-order lanes (of units: queues) the check follows: each unit's clock holds an entry per
    // lane, so its memory and time grow with the square of their count (64 k queues took more memory than
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
    // Its findings name the record's source location (TraceError::source) when it has one.
    void add(const Record& rec, std::vector<TraceError>& out, bool valid = true);
    // After the last record: one TraceError (field "wait") per circle of waits. Returns how many.
    std::size_t finish(std::vector<TraceError>& out);

private:
    void add_record(const Record& rec, std::vector<TraceError>& out, bool valid);
    struct Instr {
        std::uint64_t line = 0;
        std::uint32_t queue = 0;  // index into queue_names_
        std::uint8_t waits = 0, signals = 0;
        std::uint16_t wait_sem[kMaxWaits]{};
        std::uint32_t wait_value[kMaxWaits]{};
        std::uint16_t signal_sem[kMaxSignals]{};
        std::uint32_t index = 0;  // position in its unit's program order
        CompletionShape shape;    // for the completion rules (completion_order.h)
        std::uint32_t lane = 0;   // its lane's position in its unit's UnitLanes
        Footprint footprint;      // what it reads and writes on chip
        SiteId site = kNoSite;    // its record's source location (site_labels_)
    };
    struct Unit {
        std::string engine;                 // "PE array", "ACT", "DMA", "Q7 core 3", ...
        std::string label;                  // in race findings: "ACT", "DMA queue qSyncIO0", ...
        std::deque<Instr> pending;          // not started in the game, in program order
        std::uint32_t added = 0;            // instructions so far
        std::vector<std::uint32_t> before;  // ordered before its next instruction, per lane
        UnitLanes lanes;                    // its lanes, which complete in order (completion_order.h)
        // Its latest signalling instructions (kKeptSignallers), for the signals a later one can overtake.
        struct Signaller {
            std::uint32_t lane = 0, index = 0;  // lane id, place in the lane
            std::uint64_t line = 0;
            CompletionShape shape;
            std::uint8_t signals = 0;
            std::uint16_t sem[kMaxSignals]{};
            std::uint32_t rank[kMaxSignals]{};        // the semaphore's count before its signal
            std::uint32_t overtakers[kMaxSignals]{};  // later signals of it that can come first
        };
        std::deque<Signaller> signallers;
    };
    static constexpr std::size_t kKeptSignallers = 64;

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
    std::unordered_map<std::uint64_t, std::uint32_t> unit_index_;  // (kind class, id) -> unit
    std::vector<std::string> queue_names_;
    // By SiteId, the source location of the records' sites as findings name them ("softmax.py:42
    // nl.exp", site_label()): a race found when an instruction starts, after later records were
    // read, names both sides' kernel lines.
    std::vector<std::string> site_labels_;
    std::string site_of(SiteId site) const;
    std::unordered_map<NameId, std::uint32_t> queue_index_;
    std::vector<std::uint64_t> value_;                    // semaphore values in the game
    std::vector<std::uint64_t> total_;                    // every signal of the trace, per semaphore
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
    // Per semaphore: counts a later signal can reach before an earlier signal's instruction
    // completes (that instruction's rank, the highest such count), and the waits met so far (their
    // value and place), to report those met at such a count before the later signal was read.
    struct EarlyCount {
        std::uint32_t rank = 0, count = 0;
        std::uint64_t line = 0;  // the earlier signal's instruction
        std::uint32_t unit = 0;
    };
    struct MetWait {
        std::uint32_t value = 0;
        std::uint64_t line = 0;
        std::uint32_t unit = 0;
        bool reported = false;
    };
    static constexpr std::size_t kKeptEarlyCounts = 64, kKeptMetWaits = 256;
    std::vector<std::deque<EarlyCount>> early_;
    std::vector<std::deque<MetWait>> met_;
    // The clock a wait for `sem` >= `value` orders its instruction after (a count another signal
    // can reach early orders only what comes before the overtaken signal).
    void join_wait(std::vector<std::uint32_t>& before, std::uint16_t sem, std::uint32_t value) const;
    // The signals of unit u's earlier instructions that `later`, completing with clock `done`, can
    // come before: notes the counts they make reachable early and reports waits met at one.
    void note_overtaken(std::uint32_t u, const Instr& later, const std::vector<std::uint32_t>& done,
                        std::vector<TraceError>& out);
    TraceError early_wait(const MetWait& m, const Unit::Signaller& x, std::uint8_t j, std::uint32_t u,
                          const Instr& later) const;
    CompletionRules rules_;
    std::vector<std::uint32_t> lane_unit_;  // per lane id: its unit
    bool stopped_ = false;                  // more than kMaxUnits: the rest of the trace is not followed
    std::vector<Signalled> signalled_;
    HazardCheck hazards_;
    std::vector<Conflict> conflicts_;
    std::vector<std::uint32_t> clock_;  // the starting instruction's clock
    std::vector<std::uint32_t> done_;   // ... when it completes
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
