// Which instructions of one in-order unit the replay may complete out of program order, for the
// semaphore and race check (sync_check.h; docs/trace-format.md, "Completion order").
//
// A unit issues its instructions in program order, but the replay does not always complete them
// in that order, and a signal fires when its own instruction completes:
//   - the PE array (arr_seq.h): an ldweights loads on the weight path while the matmuls before it
//     stream or drain ("LoadStationary runs in the background", PUBLIC_FACTS.md), so it can
//     complete before them; a matmul waits only for an ldweights on its own PE blocks, and
//     matmuls on disjoint tiles (or a PE transpose beside another stream, NC-v4's background
//     transpose) stream side by side, their PSUM writes drained in the order the array released
//     them. Two matmuls on shared blocks (neither a background transpose) complete in order, two
//     ldweights too (one weight path).
//   - a DMA queue (dma_engine.h): its transfers are in order on each DMA engine only ("DMA
//     transfers within a queue on the same DMA engine are executed in order", DMA overview), and a
//     transfer signals when its last engine's share ends; a later transfer can complete first
//     unless it uses every engine the earlier one does.
//   - ACT, POOL, DVE (compute_engine.h): the next instruction starts when the engine is free, and
//     a signal waits for its instruction's output writes, which drain on the SBUF or the PSUM
//     write client (each in order): a later instruction writing the other memory, or nothing,
//     can signal first.
//   - Q7 cores complete in order.
// One gap: two PE transposes on the same blocks (NC-v4) are taken to complete in order, though the
// replay can run them side by side (a lane holds them; docs/trace-format.md says so).
// Whether one instruction completes before another is taken from these rules alone, whatever the
// timing: "y completes after x" means in every order the replay could take.
//
// UnitLanes follows one unit: it splits it into lanes that complete in order, and says, as each
// instruction starts in the check's game (in program order), which of the unit's instructions
// complete before it starts and before it completes (a prefix count per lane, what a vector
// clock entry holds).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sbufsim/address/address.h"
#include "sbufsim/config/params.h"
#include "sbufsim/config/pe_blocks.h"
#include "sbufsim/trace/trace.h"

namespace sbufsim {

// What an instruction is, for the completion rules.
struct CompletionShape {
    enum class Kind : std::uint8_t { in_order, ldweights, matmul, compute, dma };
    Kind kind = Kind::in_order;
    // ldweights/matmul: the PE blocks it covers; dma: the engines its shares run on; compute: the
    // write client its output drains on (0 none, 1 SBUF, 2 PSUM).
    std::uint64_t mask = 0;
    bool transpose = false;  // matmul: a PE transpose
};

// The rules' parameters (the PE grid, the DMA lanes, the sequencer's CSRs), and each record's shape.
class CompletionRules {
public:
    explicit CompletionRules(const Params& p);
    // In file order (a DMA queue's engine for transfers without an SBUF side is assigned at its
    // first such record, as the replay does).
    CompletionShape shape(const Record& rec);
    // disable_dependency_check: the PE array starts an instruction once the one before completed.
    bool pe_in_order() const { return pe_in_order_; }
    // flush_p2f_fifos: a matmul starts once the earlier matmuls completed.
    bool pe_flush() const { return pe_flush_; }
    // NC-v4's background transpose: a PE transpose streams beside another matmul on its blocks.
    bool background_transpose() const { return background_transpose_; }

private:
    std::uint64_t pe_blocks(const Record& rec) const;
    std::uint64_t dma_engines(const Record& rec);
    AddressMap map_;
    PeBlocks blocks_;  // the PE array's 32 x 32 blocks, as the sequencer releases them
    std::uint32_t engines_ = 16, lanes_ = 8;
    std::uint32_t sbuf_partitions_ = 128, psum_partitions_ = 128;
    bool has_psum_ = true;
    bool pe_in_order_ = false, pe_flush_ = false, background_transpose_ = false;
    std::unordered_map<NameId, std::uint32_t> queue_engine_;  // the replay's dma_queue_of_
    std::uint32_t queues_seen_ = 0;
};

// One lane of a unit: its instructions of one shape class (the PE's ldweights; its matmuls on
// one set of blocks; a compute engine's instructions writing one client; a DMA queue's transfers
// on one set of engines; a Q7 core), which complete in program order. A vector clock entry per
// lane (a prefix count) says exactly what of a unit is complete.
struct CompletionLane {
    std::uint32_t id = 0;      // the check's lane number (clock index)
    CompletionShape shape;     // the ldweights lane: the last ldweights' blocks
    std::uint32_t count = 0;   // instructions so far
    std::uint32_t forced = 0;  // matmul lanes: of them, those every later matmul completes after
};

class UnitLanes {
public:
    // The lane of `s` (its position in lanes()); `fresh` when created (its id is then to be set).
    std::size_t lane_of(const CompletionShape& s, bool& fresh);
    std::vector<CompletionLane>& lanes() { return lanes_; }
    const std::vector<CompletionLane>& lanes() const { return lanes_; }
    // The instruction of shape `s` in lane `pos` starts: raises `clock` (by lane id) to what of the
    // unit completes before it starts.
    void started(const CompletionRules& rules, std::size_t pos, const CompletionShape& s,
                 std::vector<std::uint32_t>& clock) const;
    // It completes: raises `clock` to what of the unit completes before then (itself included),
    // and counts it in its lane.
    void completed(const CompletionRules& rules, std::size_t pos, const CompletionShape& s,
                   std::vector<std::uint32_t>& clock);

private:
    std::vector<CompletionLane> lanes_;
};

}  // namespace sbufsim
