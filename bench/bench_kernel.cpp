// Speed of the bank-conflict kernel on synthetic traffic (clients.h SyntheticTraffic):
// items/s = beats granted per second.
//   BM_KernelSaturated: 10 clients back to back on random ECC banks (target >= 50 M beats/s).
//   BM_KernelSparse:    short requests with ~1000-cycle idle gaps (measures event skipping).
#include <benchmark/benchmark.h>

#include <vector>

#include "sbufsim/kernel/kernel.h"

namespace sbufsim {
namespace {

void run(benchmark::State& state, TrafficPattern pattern, Cycle cycles) {
    const Params params;
    std::uint64_t beats = 0, simulated = 0;
    for (auto _ : state) {
        state.PauseTiming();
        Kernel kernel(params);
        SyntheticTraffic traffic(params, kernel.clients(), pattern, 42);
        std::vector<Cycle> horizon(traffic.clients(), 0);
        state.ResumeTiming();
        const bool saturated = pattern == TrafficPattern::saturated;
        const Cycle chunk = saturated ? 4096 : 1 << 20;
        while (kernel.now() < cycles) {
            const Cycle end = std::min<Cycle>(kernel.now() + chunk, cycles);
            for (std::uint32_t k = 0; k < traffic.clients(); ++k) {
                if (saturated) {
                    while (kernel.queued(traffic.client(k)) < chunk / 8 + 1) static_cast<void>(kernel.submit(traffic.next(k)));  // no queue limit
                } else {
                    while (horizon[k] < end) {
                        const Request r = traffic.next(k);
                        horizon[k] = r.issue;
                        static_cast<void>(kernel.submit(r));  // no queue limit: never refused
                    }
                }
            }
            kernel.run_until(end);
        }
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
void BM_KernelSparse(benchmark::State& state) { run(state, TrafficPattern::sparse, 200'000'000); }

BENCHMARK(BM_KernelSaturated)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_KernelSparse)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace sbufsim

BENCHMARK_MAIN();
