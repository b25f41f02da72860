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

int bench_kernel(const Params& p, const KernelBench& b, Io io) {
    Kernel kernel(p, KernelOptions{});
    SyntheticTraffic traffic(p, kernel.clients(), b.pattern, b.seed);
    // Keep every client's queue topped up between chunks of cycles; the refill is outside the
    // kernel's cycle loop but inside the timed region, as a trace replay's would be.
    // saturated: at least one chunk's worth of beats queued per client (8-beat requests);
    // sparse: every request that issues before the end of the next chunk.
    const bool saturated = b.pattern == TrafficPattern::saturated;
    const Cycle chunk = saturated ? 4096 : 1 << 20;
    const std::uint64_t depth = chunk / 8 + 1;
    std::vector<Cycle> horizon(traffic.clients(), 0);
    const auto t0 = std::chrono::steady_clock::now();
    while (kernel.now() < b.cycles) {
        const Cycle end = std::min<Cycle>(kernel.now() + chunk, b.cycles);
        for (std::uint32_t k = 0; k < traffic.clients(); ++k) {
            if (saturated) {
                while (kernel.queued(traffic.client(k)) < depth)
                    static_cast<void>(kernel.submit(traffic.next(k)));  // no queue limit
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
