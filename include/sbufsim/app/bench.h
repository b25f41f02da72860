// `bench`: the bank-conflict kernel's speed on synthetic traffic (SyntheticTraffic, clients.h),
// in granted beats per second of wall-clock time. docs/performance.md.
#pragma once

#include <cstdint>
#include <string>

#include "sbufsim/app/app.h"
#include "sbufsim/config/params.h"
#include "sbufsim/kernel/clients.h"

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

}  // namespace sbufsim::app
