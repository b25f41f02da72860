// sbufsim bench: the bank-conflict kernel's speed on synthetic traffic (clients.h
// SyntheticTraffic), in granted beats per second of wall-clock time.
#include <chrono>
#include <sstream>

#include <spdlog/spdlog.h>

#include "cli/clocked_scheduler.h"
#include "cli/commands.h"
#include "sbufsim/app/bench.h"
#include "sbufsim/types/number.h"

namespace po = boost::program_options;

namespace sbufsim::cli {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Both schedulers on one trace: the fast one `repeat` times (best time kept, once more with the
// kernel's own time measured), the clocked one once. Same statistics or it is an error.
int bench_trace(const std::string& path, const Params& p, std::uint32_t repeat, Io io) {
    const models::ClockedEntry& clocked_model = clocked_scheduler();  // opened (or refused) before the work
    double fast = 1e300, kernel = 0;
    ReplayResult fr;
    for (std::uint32_t i = 0; i < std::max<std::uint32_t>(1, repeat); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        fr = replay_trace(p, path);
        fast = std::min(fast, seconds_since(t0));
    }
    ReplayOptions timed;
    timed.kernel_seconds = &kernel;
    replay_trace(p, path, timed);
    const auto t0 = std::chrono::steady_clock::now();
    const models::ClockedRun cr = clocked_model.replay_trace(p, path, {}, {});
    const double clocked = seconds_since(t0);
    const bool same = fr.total_cycles == cr.result.total_cycles && fr.kernel.clients == cr.result.kernel.clients &&
                      fr.kernel.banks == cr.result.kernel.banks;
    std::ostringstream os;
    const auto cycles = static_cast<double>(fr.total_cycles);
    os << "trace " << path << ": " << fr.total_cycles << " cycles, " << fr.records << " records\n"
       << "fast      " << format_fixed(fast, 4) << " s (best of " << std::max<std::uint32_t>(1, repeat) << ")  "
       << format_fixed(cycles / fast / 1e6, 2) << " M cycles/s\n"
       << "  kernel  " << format_fixed(kernel, 4) << " s of it (measured in a separate run); replay / kernel = "
       << format_fixed(kernel > 0 ? fast / kernel : 0, 2) << "\n"
       << "clocked   " << format_fixed(clocked, 4) << " s  " << format_fixed(cycles / clocked / 1e6, 2)
       << " M cycles/s, " << cr.arbitrated_cycles << " arbitrated cycles, "
       << cr.skipped_cycles << " idle cycles skipped, " << cr.engine_activations << " engine activations\n"
       << "clocked / fast = " << format_fixed(clocked / fast, 1) << "x; statistics "
       << (same ? "identical" : "DIFFER") << "\n";
    io.out << os.str();
    if (!same) {
        io.err << "sbufsim bench: the schedulers disagree on " << path << "\n";
        return kExitInternal;
    }
    return kExitOk;
}

}  // namespace

int cmd_bench(const std::vector<std::string>& args, Io io) {
    ConfigOptions copts;
    std::string log_level, pattern_name = "saturated", trace;
    std::uint32_t repeat = 3;
    Cycle cycles = 10'000'000;
    std::uint64_t seed = 1;
    bool report = false;
    po::options_description desc("sbufsim bench [options]");
    desc.add_options()("help,h", "show this help")
        ("cycles", po::value(&cycles)->default_value(cycles)->value_name("N"),
         "kernel cycles to simulate")
        ("pattern", po::value(&pattern_name)->default_value(pattern_name)->value_name("P"),
         "saturated: 10 clients back to back on random banks; sparse: short requests with long "
         "idle gaps")
        ("seed", po::value(&seed)->default_value(seed)->value_name("S"), "traffic seed")
        ("report", po::bool_switch(&report), "print the kernel's statistics report afterwards")
        ("trace", po::value(&trace)->value_name("FILE"),
         "instead: replay FILE with both schedulers (fast, its kernel share, clocked) and compare")
        ("repeat", po::value(&repeat)->default_value(repeat)->value_name("N"), "--trace: fast replays, best kept");
    add_log_level_option(desc, log_level);
    desc.add(config_options(copts));
    po::options_description all;
    all.add(desc);
    add_key_flags_if_named(all, args);

    const ParsedArgs args_in = parse_args(args, all, nullptr, log_level);
    const auto& parsed = args_in.parsed;
    const auto& vm = args_in.vm;
    if (vm.count("help")) {
        io.out << "Measure the bank-conflict kernel on synthetic traffic: beats granted per second. With\n"
                  "--trace, time both schedulers (fast, clocked) on a trace and check they agree.\n\n"
               << desc
               << "\nexamples:\n"
                  "  sbufsim bench --cycles 20000000\n"
                  "  sbufsim bench --pattern sparse --seed 7 --report\n"
                  "  sbufsim bench --tdm.strict=true --gen sunda\n"
                  "  sbufsim bench --trace traces/resnet50_head.trc     fast vs clocked scheduler\n";
        return kExitOk;
    }
    if (!trace.empty()) {
        try {
            LoadRequest req = make_load_request(copts, parsed);
            adopt_trace_generation(req, TraceReader(trace).header().generation);
            return bench_trace(trace, load_config(req).params, repeat, io);
        } catch (const TraceFormatError& e) {
            io.err << "sbufsim bench: " << e.error().to_string() << "\n";
            return kExitInput;
        } catch (const ReplayError& e) {
            io.err << "sbufsim bench: " << e.what() << "\n";
            return kExitInput;
        }
    }
    const auto pattern = parse_traffic_pattern(pattern_name);
    if (!pattern)
        throw ConfigError("--pattern: unknown pattern '" + pattern_name +
                          "' (expected saturated or sparse)");
    const LoadedConfig cfg = load_config(make_load_request(copts, parsed));
    spdlog::info("bench: {} traffic on generation {}", pattern_name, cfg.params.generation);
    return bench_kernel(cfg.params, KernelBench{*pattern, pattern_name, cycles, seed, report}, io);
}

}  // namespace sbufsim::cli
