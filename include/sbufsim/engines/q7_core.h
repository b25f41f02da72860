// The GPSIMD Q7 cores as AXI masters on SBUF (seed 000 §7.3-§7.5).
//
// Core c is kernel client q7_c: an AXI master entering SBUF through axi2sram in the DMA TDM
// class (MED/INFERRED, §7.3), one partition per beat of q7.bus_bytes (512-bit bus). It owns SBUF
// partitions [16c, 16c+16) (§7.5) and has no path to PSUM (§7.4, the keystone); the trace
// checker rejects both before replay.
//
// Timing: EngineTiming::q7_fixed_overhead + partitions x bytes / q7.bus_bytes GpSimd cycles
// (PUBLIC_FACTS: "512 bits per cycle read and write per core"), at pool.clock_ghz (GpSimd and
// POOL share the clock), converted to kernel cycles. Completion as for the compute engines:
// cost-model time and the bank request both done.
#pragma once

#include <string>
#include <vector>

#include "sbufsim/engines/engine.h"

namespace sbufsim {

struct Q7Instr {
    SyncSet sync;
    std::uint64_t line = 0;
    Op op = Op::rd;          // rd (load from SBUF) or wr (store to SBUF)
    TensorAccess access;     // SBUF only
};

class Q7Core final : public InOrderEngine<Q7Instr> {
public:
    Q7Core(std::uint32_t core, Kernel& kernel, Semaphores& sems, const Params& p, const EngineTiming& t,
           std::vector<InstrEvent>* timeline, std::uint16_t index);

    double cost_cycles(const Q7Instr& i) const;

private:
    void start(const Q7Instr& i, Cycle now) override;
    // A Q7 core is GpSimd: on NC-v2 it shares the SBUF port with VectorE's other side.
    std::uint8_t ports_needed(const Q7Instr&) const override { return SharedPorts::bit(SharedPorts::sbuf); }

    ClockDomain clock_;
    std::uint32_t bus_bytes_ = 64;
    ClientId client_{};
};

}  // namespace sbufsim
