// Speed of the bank-conflict kernel on synthetic traffic (clients.h SyntheticTraffic):
// items/s = beats granted per second.
//   BM_KernelSaturated: 10 clients back to back on random ECC banks (issue 17 target >= 100 M
//                       beats/s). Its requests are short (2 beats for the engines, 16 for the
//                       DMA queues) and the engine queues run dry before each 4,096-cycle chunk
//                       ends, so it weighs the request path about as much as the cycle loop.
//   BM_KernelDense:     the same clients and random banks, 2 KiB per partition (64 engine beats,
//                       512 DMA beats a request) and queues that never run dry: the cycle loop.
//   BM_KernelSparse:    short requests with ~1000-cycle idle gaps (measures event skipping).
#include <benchmark/benchmark.h>

#include "sbufsim/app/bench.h"

namespace sbufsim {
namespace {

using app::run_on_traffic;
using app::traffic_chunk;

// bytes: per partition per request, 0 = the pattern's own; dense: queues refilled so that no
// client runs dry inside a chunk (a client moves at most one beat per cycle).
void run(benchmark::State& state, TrafficPattern pattern, Cycle cycles, std::uint32_t bytes = 0, bool dense = false) {
    const Params params;
    std::uint64_t beats = 0, simulated = 0;
    for (auto _ : state) {
        state.PauseTiming();
        Kernel kernel(params);
        SyntheticTraffic traffic(params, kernel.clients(), pattern, 42);
        state.ResumeTiming();
        const Cycle chunk = traffic_chunk(pattern);
        run_on_traffic(kernel, traffic, cycles, dense ? chunk / 64 + 2 : 0, bytes);
        state.PauseTiming();
        for (const auto& c : kernel.stats().clients) beats += c.beats;
        simulated += kernel.now();
        state.ResumeTiming();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(beats));
    state.counters["cycles/s"] = benchmark::Counter(static_cast<double>(simulated), benchmark::Counter::kIsRate);
    state.counters["beats/cycle"] = static_cast<double>(beats) / static_cast<double>(simulated);
}

void BM_KernelSaturated(benchmark::State& state) { run(state, TrafficPattern::saturated, 2'000'000); }
void BM_KernelDense(benchmark::State& state) { run(state, TrafficPattern::saturated, 2'000'000, 2048, true); }
void BM_KernelSparse(benchmark::State& state) { run(state, TrafficPattern::sparse, 200'000'000); }

BENCHMARK(BM_KernelSaturated)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_KernelDense)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_KernelSparse)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace sbufsim

BENCHMARK_MAIN();
