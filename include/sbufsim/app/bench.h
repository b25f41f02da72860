// `bench`: the bank-conflict kernel's speed on synthetic traffic (SyntheticTraffic, clients.h),
// in granted beats per second of wall-clock time. docs/performance.md.
#pragma once

#include <cstdint>
#include <string>

#include "sbufsim/app/app.h"
#include "sbufsim/config/params.h"
#include "sbufsim/kernel/clients.h"
#include "sbufsim/kernel/kernel.h"

namespace sbufsim::app {

struct KernelBench {
    TrafficPattern pattern = TrafficPattern::saturated;
    std::string pattern_name = "saturated";  // as the user named it, for the line printed
    Cycle cycles = 10'000'000;               // kernel cycles to simulate
    std::uint64_t seed = 1;                  // the traffic's
    bool report = false;                     // the kernel's statistics report afterwards
};

// Runs the kernel alone on the traffic and prints cycles, beats and their rates; kExitOk.
int bench_kernel(const Params& p, const KernelBench& b, Io io);

// Runs `kernel` to cycle `cycles` on `traffic`, topping the clients' queues up between chunks of
// cycles (outside the kernel's cycle loop, inside a caller's timed region, as a trace replay's
// refill would be): saturated, at least `depth` requests queued per client (0: one chunk's worth
// of 8-beat requests); sparse, every request that issues before the end of the next chunk.
// `bytes` per partition replaces each request's own (0: the pattern's). The `bench` command and
// the kernel's Google Benchmark program (bench/bench_kernel.cpp) both drive the kernel so.
void run_on_traffic(Kernel& kernel, SyntheticTraffic& traffic, Cycle cycles, std::uint64_t depth = 0,
                    std::uint32_t bytes = 0);

// The cycles between two refills of run_on_traffic.
Cycle traffic_chunk(TrafficPattern pattern);

}  // namespace sbufsim::app
