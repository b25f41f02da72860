// DMA engines and their queues (PUBLIC_FACTS.md "DMA"; seed 000 §6, §7.2-§7.5, §8 step 3).
//
// Each engine k is one DMA-class kernel client dma_k (one SBUF port beat = dma.data_width bytes
// of one partition). Its queues hold descriptors in order; the engine moves one descriptor at a
// time and serves the queues whose head is ready round robin (per descriptor).
//
// A descriptor moves `bytes` per partition over `partitions` partitions:
//   HBM->SBUF  one SBUF write; SBUF->HBM one SBUF read; SBUF->SBUF a read then a write.
//   transpose  through axi2sram's 16-row crossbar tile: 16 source rows x N columns land as N
//              destination partitions of 16 elements (seed 000 §6.2).
// HBM is a fixed-latency, fixed-bandwidth endpoint:
//   - start-up: a queue head becomes eligible EngineTiming::dma_startup_ns after it reached the
//     head with its waits met (it overlaps the previous descriptor's data motion);
//   - data motion: max(kernel time, bytes' / (dma.engine_gbps x fraction)) where bytes' counts
//     the active partitions rounded up to dma.partition_round (seed 000 §7.5: the SDMA window
//     is ceil(max(src,dst)/32)*32 partitions) and fraction is the transpose throughput fraction
//     (dma_xpose_fraction_hbm / _sbuf) or 1.
#pragma once

#include <string>
#include <vector>

#include "sbufsim/engines/engine.h"

namespace sbufsim {

struct DmaInstr {
    SyncSet sync;
    std::uint64_t line = 0;
    TensorAccess rd;                 // SBUF side read (SBUF->HBM, SBUF->SBUF); absent otherwise
    TensorAccess wr;                 // SBUF side write (HBM->SBUF, SBUF->SBUF); absent otherwise
    std::uint64_t bytes = 0;         // payload bytes (partitions x bytes per partition)
    std::uint32_t partitions = 0;    // active partitions (before rounding)
    std::uint32_t bytes_per_partition = 0;
    bool transpose = false;
    bool sbuf_to_sbuf = false;
};

struct DmaStats {
    std::uint64_t descriptors = 0;
    std::uint64_t bytes = 0;           // payload bytes
    std::uint64_t transposes = 0;
    Cycle data_cycles = 0;             // cycles the engine moved data (its busy time)
    bool operator==(const DmaStats&) const = default;
};

class DmaEngine final : public SerialEngine {
public:
    DmaEngine(std::uint32_t engine, Kernel& kernel, Semaphores& sems, const Params& p,
              const EngineTiming& t, std::vector<InstrEvent>* timeline, std::uint16_t index);

    // A queue of this engine (setup); returns its local index.
    std::uint32_t add_queue(std::string name);
    void push(std::uint32_t queue, const DmaInstr& i) { queues_[queue].q.push(i); }
    // Kernel cycles of a descriptor's data motion at the engine bandwidth (the cost model).
    Cycle transfer_cycles(const DmaInstr& i) const;
    Cycle startup_cycles() const { return startup_; }

    bool step(Cycle now) override;
    Wake wake(Cycle now) const override;
    bool idle() const override;
    std::size_t queued() const override;
    bool blocked(BlockedHead& out) const override;
    const DmaStats& dma_stats() const { return dma_; }
    void finish(Cycle end) override;

private:
    struct Queue {
        std::string name;
        Ring<DmaInstr> q;
        Cycle armed_at = kNever;  // head eligible from this cycle (kNever: not armed yet)
    };
    void arm(Cycle now);
    void start(std::uint32_t qi, Cycle now);

    ClientId client_{};
    double pe_ghz_ = 2.4;
    double gbps_ = 27.0;
    std::uint32_t round_ = 32;
    Cycle startup_ = 0;

    std::vector<Queue> queues_;
    std::uint32_t rr_ = 0;           // next queue to consider (round robin)
    Cycle wait_since_ = kNever;      // engine idle with only semaphore-blocked heads
    DmaStats dma_;
};

}  // namespace sbufsim
