// An SPMD launch on several NeuronCores: its cores' traces, HBM shares and report lines
// (include/sbufsim/app/nki_launch.h).
#include "sbufsim/app/nki_launch.h"

#include <algorithm>
#include <sstream>

#include "sbufsim/types/number.h"

namespace sbufsim::app {

std::vector<CoreRun> core_traces(const std::string& traced) {
    std::vector<CoreRun> cores;
    std::istringstream in(read_text(traced + ".cores"));
    CoreRun c;
    while (in >> c.instances >> c.trace) cores.push_back(c);
    return cores;
}

double hbm_share(const Params& p, std::size_t streaming) {
    if (p.dma.hbm_shared_gbps <= 0 || streaming == 0) return p.dma.hbm_gbps;
    const double share = std::max(0.01, p.dma.hbm_shared_gbps / static_cast<double>(streaming));
    return p.dma.hbm_gbps > 0 ? std::min(p.dma.hbm_gbps, share) : share;
}

std::vector<std::string> without_outputs(const std::vector<std::string>& args) {
    static const std::vector<std::string> written = {"--json",     "--csv",     "--stats",
                                                     "--timeline", "--heatmap", "--vcd"};
    std::vector<std::string> kept;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string key = args[i].substr(0, args[i].find('='));
        if (std::find(written.begin(), written.end(), key) == written.end())
            kept.push_back(args[i]);
        else if (args[i].find('=') == std::string::npos)
            ++i;  // its value
    }
    return kept;
}

void read_core_replay(CoreRun& core, const std::string& summary, const std::string& run_json) {
    core.summary = summary;
    core.cycles = json_number(run_json, "total_cycles");
    core.time_ns = json_number(run_json, "time_ns");
    core.bound_by = json_text(run_json, "bound_by");
    core.records = json_number(run_json, "records");
    core.totals = kernel_totals(core.trace);
}

namespace {

// OUTPUT with `core` (".core1", ".coreN") before its extension, or at its end when it has none.
std::string with_core(const std::string& output, const std::string& core) {
    const std::size_t slash = output.find_last_of('/');
    const std::size_t dot = output.find_last_of('.');
    const bool has_extension = dot != std::string::npos && (slash == std::string::npos || dot > slash + 1);
    return has_extension ? output.substr(0, dot) + core + output.substr(dot) : output + core;
}

}  // namespace

std::string core_output_path(const std::string& output, std::size_t index) {
    return index == 0 ? output : with_core(output, ".core" + std::to_string(index));
}

std::string launch_summary(const CoreRun& latest, std::size_t index, const std::string& kernel,
                           const std::string& output) {
    std::string summary = latest.summary;
    const std::string named = "trace " + latest.trace + "  (";
    const std::string kept = output.empty() ? " (not kept: -o FILE.trc keeps each core's)"
                                            : " (-o keeps core 0's in " + output + ", core N's in " +
                                                  with_core(output, ".coreN") + ")";
    if (const std::size_t at = summary.find(named); at != std::string::npos)
        summary.replace(at, named.size(),
                        "trace " + kernel + ", core " + std::to_string(index) + kept + "  (");
    return summary;
}

void print_launch(std::ostream& os, const std::vector<CoreRun>& cores, std::size_t latest, double share) {
    long instances = 0;
    KernelTotals all;
    for (const CoreRun& c : cores) {
        instances += c.instances;
        all.flops += c.totals.flops;
        all.hbm_bytes += c.totals.hbm_bytes;
    }
    const CoreRun& last = cores[latest];
    os << "launch: " << instances << " instances on " << cores.size() << " NeuronCores, "
       << format_fixed(last.cycles, 0) << " cycles = " << format_fixed(last.time_ns, 1) << " ns, core "
       << latest << "'s; HBM " << format_number(share, 4) << " GB/s a core\n";
    for (std::size_t i = 0; i < cores.size(); ++i)
        os << "  core " << i << ": " << cores[i].instances << " instances, " << cores[i].records
           << " records, " << format_fixed(cores[i].cycles, 0) << " cycles, bound by "
           << (cores[i].bound_by.empty() ? "?" : cores[i].bound_by) << "\n";
    const double peak = kPeakFlopsPerCycle * static_cast<double>(cores.size());
    os << "kernel: " << format_fixed(all.flops / 1e9, 1) << " GFLOP of matmul, "
       << format_fixed(all.hbm_bytes / (1 << 20), 1) << " MiB HBM traffic";
    if (last.cycles > 0 && last.time_ns > 0)
        os << "; MFU " << format_fixed(100.0 * all.flops / (last.cycles * peak), 1) << "% of " << cores.size()
           << " PE arrays, " << format_fixed(all.flops / last.time_ns / 1e3, 1) << " TFLOP/s; HBM "
           << format_fixed(all.hbm_bytes / last.time_ns, 1) << " GB/s";
    os << "\n";
}

}  // namespace sbufsim::app
