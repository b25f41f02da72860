// ACT (ScalarE), POOL (GpSimd's tensor engine) and DVE (VectorE) front-ends: one in-order
// instruction queue each, reading SBUF or PSUM and writing SBUF or PSUM through the engine's
// kernel clients (seed 000 §7.1: act_rd/act_wr, pool_rd/pool_wr; DVE's SBUF ports INFERRED;
// PSUM ports act_psum_rd/wr, pool_psum_rd/wr, dve_psum_rd/wr).
//
// Timing (PUBLIC_FACTS.md "Engines and SBUF/PSUM access"): an instruction costs
//   fixed overhead + max(64, k * N) engine cycles,   N = elements per partition,
// k = 2 for a two-input op, doubled again when an operand's innermost stride is over 16 bytes.
// The cost does not depend on the partition count. Engine cycles become kernel cycles by the
// engine/PE clock ratio. The instruction's bank requests issue after the fixed overhead; it
// completes when both its cost-model time has passed and its requests are granted (a request
// still queued in the kernel extends the instruction: EngineStats::bank_wait).
#pragma once

#include <string>
#include <vector>

#include "sbufsim/engines/engine.h"

namespace sbufsim {

enum class ComputeKind : std::uint8_t { act, pool, dve };
std::string_view to_string(ComputeKind k);

struct ComputeInstr {
    SyncSet sync;
    std::uint64_t line = 0;
    std::array<TensorAccess, 2> in{};  // in[1] present for a two-input op
    TensorAccess out;
};

// The kernel clients of one compute engine, resolved once at setup.
struct ComputeClients {
    ClientId sbuf_rd{}, sbuf_wr{}, psum_rd{}, psum_wr{};
    bool has_psum = false;
};

class ComputeEngine final : public InOrderEngine<ComputeInstr> {
public:
    // Throws std::invalid_argument when the kernel lacks one of the engine's clients.
    ComputeEngine(ComputeKind kind, Kernel& kernel, Semaphores& sems, const Params& p,
                  const EngineTiming& t, std::vector<InstrEvent>* timeline, std::uint16_t index);

    // Engine cycles the instruction costs (the cost model above); exposed for tests.
    double cost_cycles(const ComputeInstr& i) const;

private:
    void start(const ComputeInstr& i, Cycle now) override;
    void submit(const TensorAccess& a, bool write, Cycle issue);

    ComputeKind kind_;
    ClockDomain clock_;
    ComputeClients clients_;
};

}  // namespace sbufsim
