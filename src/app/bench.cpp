// `bench` of the kernel on synthetic traffic (bench.h).
#include "sbufsim/app/bench.h"

#include <algorithm>
#include <chrono>
#include <sstream>
#include <vector>

#include "sbufsim/kernel/kernel.h"
#include "sbufsim/stats/stats.h"
#include "sbufsim/types/number.h"

namespace sbufsim::app {

Cycle traffic_chunk(TrafficPattern pattern) { return pattern == TrafficPattern::saturated ? 4096 : 1 << 20; }

void run_on_traffic(Kernel& kernel, SyntheticTraffic& traffic, Cycle cycles, std::uint64_t depth,
                    std::uint32_t bytes) {
    const bool saturated = traffic.pattern() == TrafficPattern::saturated;
    const Cycle chunk = traffic_chunk(traffic.pattern());
    if (depth == 0) depth = chunk / 8 + 1;
    std::vector<Cycle> horizon(traffic.clients(), 0);
    while (kernel.now() < cycles) {
        const Cycle end = std::min<Cycle>(kernel.now() + chunk, cycles);
        for (std::uint32_t k = 0; k < traffic.clients(); ++k) {
            if (saturated) {
                while (kernel.queued(traffic.client(k)) < depth) {
                    Request r = traffic.next(k);
                    if (bytes) r.bytes = bytes;
                    static_cast<void>(kernel.submit(r));  // no queue limit
                }
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
}

int bench_kernel(const Params& p, const KernelBench& b, Io io) {
    Kernel kernel(p, KernelOptions{});
    SyntheticTraffic traffic(p, kernel.clients(), b.pattern, b.seed);
    const auto t0 = std::chrono::steady_clock::now();
    run_on_traffic(kernel, traffic, b.cycles);
    const auto t1 = std::chrono::steady_clock::now();
    const Stats& st = kernel.stats();
    std::uint64_t beats = 0;
    for (const auto& c : st.clients) beats += c.beats;
    const double secs = std::chrono::duration<double>(t1 - t0).count();
    std::ostringstream os;
    os << "pattern " << b.pattern_name << ", " << st.cycles << " cycles (" << st.stepped << " evaluated), "
       << beats << " beats in " << format_fixed(secs, 3) << " s\n"
       << "beats/s " << format_fixed(secs > 0 ? beats / secs / 1e6 : 0, 2) << " M, cycles/s "
       << format_fixed(secs > 0 ? st.cycles / secs / 1e6 : 0, 2) << " M, beats/cycle "
       << format_fixed(st.cycles ? static_cast<double>(beats) / st.cycles : 0, 2) << "\n";
    io.out << os.str();
    if (b.report) print_report(io.out, st);
    return kExitOk;
}

}  // namespace sbufsim::app
