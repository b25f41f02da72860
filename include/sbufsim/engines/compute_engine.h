// ACT (ScalarE), POOL (GpSimd's tensor engine) and DVE (VectorE) front-ends: one in-order
// instruction queue each, reading SBUF or PSUM and writing SBUF or PSUM through the engine's
// kernel clients (seed 000 §7.1: act_rd/act_wr, pool_rd/pool_wr; DVE's SBUF ports INFERRED;
// PSUM ports act_psum_rd/wr, pool_psum_rd/wr, dve_psum_rd/wr).
//
// Timing (docs/engines.md "Per-instruction cost"; the nki.isa cost estimates), in engine cycles:
//   S  stream cycles: the instruction's public cost formula (by `isa=`, dtype, operand places,
//      the NC-v3+ performance modes) times the stride penalty;
//   II initiation interval = max(MIN_II, S) (+ GPSIMD_START for GpSimd-only instructions, + MIN_II
//      for an accumulator read): the engine is busy for II, then the next instruction may start;
//   done = max(II, S + start-up extras + dependent turnaround): the instruction's signals fire
//      then, and a later instruction of the same engine that reads its output waits for it.
// The partition count does not change the cost. Engine cycles become kernel cycles by the
// engine/PE clock ratio. The bank requests issue after the tensor-access set-up; an instruction
// retires when both II has passed and its requests are granted (a request still queued in the
// kernel extends it: EngineStats::bank_wait).
#pragma once

#include <string>
#include <vector>

#include "sbufsim/engines/dma_trigger.h"
#include "sbufsim/engines/engine.h"
#include "sbufsim/types/compute_op.h"

namespace sbufsim {

enum class ComputeKind : std::uint8_t { act, pool, dve };
std::string_view to_string(ComputeKind k);

struct ComputeInstr {
    SyncSet sync;
    std::uint64_t line = 0;
    std::array<TensorAccess, 2> in{};  // in[1] present for a two-input op
    TensorAccess out;
    ComputeOp op = ComputeOp::generic;
};

// The kernel clients of one compute engine, resolved once at setup.
struct ComputeClients {
    ClientId sbuf_rd{}, sbuf_wr{}, psum_rd{}, psum_wr{};
    bool has_psum = false;
};

// An instruction's cost in engine cycles (the model above).
struct ComputeCost {
    double stream = 0;   // S
    double ii = 0;       // initiation interval
    double done = 0;     // from the start until its signals fire
};

class ComputeEngine final : public InOrderEngine<ComputeInstr> {
public:
    // Throws std::invalid_argument when the kernel lacks one of the engine's clients.
    ComputeEngine(ComputeKind kind, Kernel& kernel, Semaphores& sems, const Params& p,
                  const EngineTiming& t, std::vector<InstrEvent>* timeline, std::uint16_t index);

    ComputeKind kind() const { return kind_; }
    // The DMA trigger units (setup): this engine's sequencer is shared with the triggers routed
    // to it (static triggers it issues; software DGE on POOL), first come first served.
    void set_triggers(DmaTriggers* t);
    TriggerUnit trigger_unit() const { return unit_; }
    ComputeCost cost(const ComputeInstr& i) const;
    // Engine cycles of the initiation interval; exposed for tests.
    double cost_cycles(const ComputeInstr& i) const { return cost(i).ii; }

private:
    void start(const ComputeInstr& i, Cycle now) override;
    Cycle ready_at(const ComputeInstr& i) const override;
    std::uint8_t ports_needed(const ComputeInstr& i) const override;
    void submit(const TensorAccess& a, bool write, Cycle issue, Cycle span);
    double stream_cycles(const ComputeInstr& i) const;
    double speedup(const ComputeInstr& i) const;

    ComputeKind kind_;
    DmaTriggers* triggers_ = nullptr;
    TriggerUnit unit_ = TriggerUnit::act;
    ClockDomain clock_;
    ComputeClients clients_;
    double dep_turnaround_ = 0;
    std::uint32_t chunks_ = 1, sbuf_beat_ = 8, psum_beat_ = 8;  // width.* (pacing)
    // The outputs of the last few instructions and when they are done (same-engine read after
    // write: a reader starts only then).
    struct Written {
        TensorAccess out;
        Cycle done = 0;
    };
    std::array<Written, 4> recent_{};
    std::uint32_t next_recent_ = 0;
};

}  // namespace sbufsim
