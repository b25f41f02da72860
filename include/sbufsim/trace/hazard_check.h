// The race check of `sbufsim check`: two instructions of different in-order units that touch the
// same on-chip bytes, one of them writing, with nothing ordering them — no chain of program order
// and semaphore waits from one to the other. The replay times such a pair as it happens to fall,
// so its figures rest on data that may not be there yet (a read before the write that produces
// it) or may already be overwritten (a write before the read of the previous contents).
//
// SyncCheck runs the units' game (sync_check.h) and tells this check, for each instruction as it
// starts there, which instructions of every unit are ordered before it (a vector clock:
// `before[l]` = how many of lane l's instructions: a lane is the part of a unit that completes in
// program order, completion_order.h; two instructions of one unit are not checked). This check keeps, per partition of SBUF and
// PSUM, the last writer and the readers since of every byte range (the shadow), and reports an
// earlier access the clock does not order before the new one. Operands mostly cover whole
// quadrants or arrays with the same bytes in each partition, so neighbouring partitions with the
// same history share one shadow (a band) and an operand costs a visit per band, not per partition. Only the last writer is kept, so of
// several unordered writers of one range the last is named; and one reader per unit, the unit's
// latest (its earlier reads are ordered before that one).
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "sbufsim/address/address.h"
#include "sbufsim/config/params.h"
#include "sbufsim/trace/trace.h"

namespace sbufsim {

// An instruction's place in the order: its in-order unit, its position there, its trace line.
struct UnitPosition {
    static constexpr std::uint32_t kNoUnit = 0xffffffffu;
    std::uint32_t unit = kNoUnit;
    std::uint32_t index = 0;
    std::uint64_t line = 0;
    std::uint32_t queue = 0;  // its in-order queue (its unit: a lane of it, completion_order.h)
    bool extent = false;      // its operand's runs were taken as their whole extent (OperandSpan)
    SiteId site = kNoSite;    // its record's source location: a race names the other side's line
    bool present() const { return unit != kNoUnit; }
    friend bool operator==(const UnitPosition&, const UnitPosition&) = default;
};

// One operand of an instruction on chip: its partitions and the byte runs its access pattern
// covers inside each of them.
struct OperandSpan {
    const char* field = "src";  // the record field, named in the finding
    bool write = false;
    bool extent = false;  // more runs than kept: the pattern's whole extent stands for them
    Region region = Region::none;
    std::uint32_t first = 0, parts = 0;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> runs;  // [lo, hi) bytes, sorted, disjoint
};
using Footprint = std::vector<OperandSpan>;

// An earlier access to bytes an instruction touches, not ordered before it.
struct Conflict {
    enum class Kind : std::uint8_t { read_after_write, write_after_read, write_after_write };
    Kind kind = Kind::read_after_write;
    const char* field = "src";  // the starting instruction's operand
    UnitPosition other;
    Region region = Region::none;
    std::uint32_t partition = 0, lo = 0, hi = 0;  // the first place found: [lo, hi) of one partition
    bool approximate = false;  // either side's pattern was taken as its extent: may not overlap
};

class HazardCheck {
public:
    explicit HazardCheck(const Params& params);

    // What `rec` reads and writes on chip, as the replay moves it (replay_session.cpp); empty for
    // access records. Operands the checker refuses (off the array, in the decode pad) are left out.
    Footprint footprint(const Record& rec) const;

    // `who` starts with `f`; `before[u]` of its unit's and every other unit's instructions are
    // ordered before it. Appends one Conflict per operand and other unit (its latest instruction
    // not ordered before `who`), then records the accesses.
    void start(const Footprint& f, const UnitPosition& who, const std::vector<std::uint32_t>& before,
               std::vector<Conflict>& out);

private:
    struct Cell {
        std::uint32_t hi = 0;
        UnitPosition writer;                // none: not written by any instruction yet
        std::vector<UnitPosition> readers;  // since the writer; one per unit, sorted by unit
        bool same_accesses(const Cell& o) const { return writer == o.writer && readers == o.readers; }
        friend bool operator==(const Cell&, const Cell&) = default;
    };
    using Shadow = std::map<std::uint32_t, Cell>;  // cells by first byte; disjoint
    // Bands by first partition: each shadow holds for the partitions up to the next key.
    using Bands = std::map<std::uint32_t, Shadow>;

    struct Visit {
        const OperandSpan& span;
        const UnitPosition& who;
        const std::vector<std::uint32_t>& before;
        std::uint32_t partition;
        std::vector<Conflict>& out;
        std::size_t first_found;  // out's size when `who` started: dedup from there
    };

    void visit(Shadow& s, std::uint32_t lo, std::uint32_t hi, const Visit& v);
    void note(const Visit& v, Conflict::Kind kind, const UnitPosition& other, std::uint32_t lo,
              std::uint32_t hi);
    static void split(Shadow& s, std::uint32_t at);
    static void merge(Shadow& s, std::uint32_t lo, std::uint32_t hi);
    // A band boundary at partition `at` (below `partitions`); neighbouring equal bands as one.
    static void split(Bands& b, std::uint32_t at, std::uint32_t partitions);
    static void merge(Bands& b, std::uint32_t first, std::uint32_t end);
    void add_operand(Footprint& f, const Operand& o, const char* field, bool write, std::uint32_t partitions,
                     std::uint32_t bytes) const;

    AddressMap map_;
    std::uint32_t sbuf_bytes_, psum_bytes_;  // bytes behind one partition
    std::uint32_t sbuf_partitions_, psum_partitions_;
    Bands sbuf_, psum_;
};

}  // namespace sbufsim
