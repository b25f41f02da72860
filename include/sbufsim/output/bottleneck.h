// What bounded a run (docs/report.md): the critical path grouped by engine and cause, every
// engine's cycles split into compute / bank wait / semaphore wait / idle (each adding up to the
// run), the utilisation figures neuron-profile's summary shows, a one-line verdict and the
// largest findings in plain words with what to try.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "sbufsim/replay/replay.h"

namespace sbufsim {

// One engine's cycles: compute + bank_wait + sem_wait + idle == the run's total cycles.
struct EngineBreakdown {
    std::string name;
    Cycle compute = 0;    // an instruction in progress within its cost-model time
    Cycle bank_wait = 0;  // an instruction held past it: its SBUF/PSUM requests were queued
    Cycle sem_wait = 0;   // free, its next instruction waiting for a semaphore
    Cycle port_wait = 0;  // free, its next instruction waiting for an NC-v2 shared port
    Cycle idle = 0;       // nothing to do (or a DMA descriptor in its start-up latency)
};

// The critical path of one engine group (PE, ACT, POOL, DVE, DMA, Q7, or the kernel's tail).
struct PathGroup {
    std::string name;
    std::array<Cycle, kPathCauses> cycles{};
    std::uint64_t instructions = 0;
    Cycle total() const {
        Cycle n = 0;
        for (Cycle c : cycles) n += c;
        return n;
    }
};

struct Finding {
    Cycle cycles = 0;     // how much it is about (orders the findings)
    std::string text;     // what happened, with the number
    std::string advice;   // what to try
    // How much of `advice` the one-screen summary shows (the rest, a caveat such as what a
    // low-confidence constant makes of the figure, only the full one); npos: all of it.
    std::size_t brief_advice = std::string::npos;
    // The kernel line that holds most of the critical path (a trace with source locations): kept
    // among the findings and on the one screen whatever else there is, as the answer a kernel
    // engineer asks for first.
    bool source_line = false;
};

struct Bottleneck {
    Cycle total = 0;
    std::vector<PathGroup> path;          // largest first; the totals add up to `total`
    std::vector<EngineBreakdown> engines;  // engines that ran an instruction
    double pe_utilisation = 0;            // cycles the array streamed / total
    double mfu = 0;                       // matmul MACs / (total x pe.rows x pe.cols)
    double sbuf_bank_utilisation = 0;     // busy SBUF bank-cycles / (banks x total)
    double psum_bank_utilisation = 0;     // busy PSUM bank-cycles / (banks x total)
    double dma_bandwidth_utilisation = 0; // achieved DMA GB/s / (engines x dma.engine_gbps)
    double hbm_bandwidth_utilisation = 0;  // achieved GB/s with an HBM end / dma.hbm_gbps (0: unlimited)
    std::string bound_by;                 // the largest path group
    double bound_share = 0;               // its share of the critical path
    std::string verdict;                  // "bound by DMA: 53.0 % of the critical path (...)"
    // The busiest engine outside the bound group, by its own compute: however short the bound
    // group's part gets, that engine still computes `floor_cycles`, so relieving the bound group
    // gains at most `gain_limit` = (total - floor_cycles) / total of the run. `headroom` says so
    // in words when the floor is at least kFloorShown of the run (a balanced run), else "". A
    // PE-bound run's floor is the array's own when higher (arr_seq: its multiply-accumulates at
    // the peak, MFU x total), and then `headroom` always says it.
    std::string floor_engine;
    Cycle floor_cycles = 0;
    double gain_limit = 1;
    std::string headroom;
    static constexpr double kFloorShown = 0.5;
    std::vector<Finding> findings;  // largest first, at most kMaxFindings, then the top source line
    static constexpr std::size_t kMaxFindings = 5;
    // A finding off the critical path (a blocked client, p2fifo back-pressure, LdWeights waits,
    // throttling) is told only when it is about this share of the run's cycles or more: a client
    // that lost 5 beat-cycles of 56,000 is nothing to act on.
    static constexpr double kMinShare = 0.01;
};

Bottleneck analyse(const ReplayResult& r);

}  // namespace sbufsim
