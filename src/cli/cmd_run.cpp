// sbufsim run: replay traces through the engine front-ends and the bank-conflict kernel (the
// "fast" scheduler) and report where the cycles went. docs/replay.md.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli/commands.h"
#include "sbufsim/report.h"

namespace po = boost::program_options;

namespace sbufsim::cli {

namespace {

// The shipped default workload: the matmul K-loop with ACT evacuation (traces/README.md).
constexpr const char* kDefaultTrace = "matmul_kloop.trc";

std::string trace_dir() {
    if (const char* env = std::getenv("SBUFSIM_TRACE_DIR"); env && *env) return env;
    return SBUFSIM_DEFAULT_TRACE_DIR;
}

const char* kExamples =
    "\nexamples:\n"
    "  sbufsim run                                   the default workload (traces/matmul_kloop.trc)\n"
    "  sbufsim run traces/dma_load.trc --json out.json\n"
    "  sbufsim run traces/act_vs_matmul_collide.trc --set tdm.dma_slots=2 --csv out.csv\n"
    "  sbufsim run my.trc --lenient --quiet --json -   skip invalid records; JSON to stdout\n"
    "\nexit status: 0 ok, 2 usage or configuration error, 3 unreadable or invalid trace (or a\n"
    "deadlock), 4 internal error. Results go to stdout, errors to stderr.\n";

void write_to(const std::string& path, Io io, const std::vector<RunReport>& runs, bool json) {
    if (path == "-") {
        json ? write_json(io.out, runs) : write_csv(io.out, runs);
        return;
    }
    std::ofstream f(path);
    if (!f) throw std::runtime_error("cannot write " + path);
    json ? write_json(f, runs) : write_csv(f, runs);
}

}  // namespace

int cmd_run(const std::vector<std::string>& args, Io io) {
    ConfigOptions copts;
    std::string log_level, json_path, csv_path, scheduler = "fast";
    std::vector<std::string> traces;
    bool quiet = false, lenient = false;
    po::options_description desc("sbufsim run [TRACE...] [options]");
    desc.add_options()("help,h", "show this help")
        ("json", po::value(&json_path)->value_name("FILE"), "write the statistics as JSON ('-' = stdout)")
        ("csv", po::value(&csv_path)->value_name("FILE"), "write the statistics as CSV rows ('-' = stdout)")
        ("quiet,q", po::bool_switch(&quiet), "no summary on stdout")
        ("lenient", po::bool_switch(&lenient), "skip invalid records (counted and listed) instead of refusing the trace")
        ("scheduler", po::value(&scheduler)->default_value(scheduler)->value_name("S"),
         "fast (event-driven replay); clocked needs the SystemC model");
    add_log_level_option(desc, log_level);
    desc.add(config_options(copts));
    po::options_description hidden;
    hidden.add_options()("trace", po::value(&traces)->composing(), "trace files");
    po::positional_options_description pos;
    pos.add("trace", -1);
    po::options_description all;
    all.add(desc).add(hidden).add(key_flag_options());

    auto parsed = po::command_line_parser(args).options(all).positional(pos).run();
    po::variables_map vm;
    po::store(parsed, vm);
    po::notify(vm);
    apply_log_level(log_level);
    if (vm.count("help")) {
        io.out << "Replay traces (text .trc or binary .sbt) through the engine front-ends and the SBUF/PSUM\n"
                  "bank-conflict kernel; print total cycles, per-engine busy/stall, stalls by cause, bank\n"
                  "conflicts, TDM use, PE utilisation, PSUM groups and DMA bandwidth. With no TRACE, replays\n"
                  "the shipped default workload ($SBUFSIM_TRACE_DIR or the build's traces/).\n\n"
               << desc << kExamples;
        return kExitOk;
    }
    if (scheduler == "clocked") {
        io.err << "sbufsim run: --scheduler clocked needs the SystemC model, which this build does not "
                  "provide yet; use --scheduler fast\n";
        return kExitUsage;
    }
    if (scheduler != "fast") {
        io.err << "sbufsim run: unknown scheduler '" << scheduler << "' (fast or clocked)\n";
        return kExitUsage;
    }
    if (traces.empty()) traces.push_back((std::filesystem::path(trace_dir()) / kDefaultTrace).string());

    std::vector<RunReport> runs;
    for (const auto& path : traces) {
        try {
            TraceReader reader(path);
            // A trace naming its generation picks it unless the command line or a file chose one.
            ConfigOptions o = copts;
            if (o.generation.empty() && o.files.empty() && !reader.header().generation.empty())
                o.generation = reader.header().generation;
            const LoadedConfig cfg = load_config(make_load_request(o, parsed));
            ReplayOptions ropt;
            ropt.lenient = lenient;
            RunReport rep;
            rep.result = replay(cfg.params, reader, ropt);
            rep.info.config_hash = hex16(fnv1a64(render_ini(cfg, false)));
            rep.info.trace_digest = file_digest(path);
            if (!quiet) {
                print_summary(io.out, rep);
                io.out << "\n";
            }
            runs.push_back(std::move(rep));
        } catch (const TraceFormatError& e) {
            io.err << "sbufsim run: " << e.error().to_string() << "\n";
            return kExitInput;
        } catch (const ReplayError& e) {
            io.err << "sbufsim run: " << e.what() << "\n";
            for (std::size_t i = 1; i < e.errors().size() && i < 20; ++i)
                io.err << "  " << e.errors()[i].to_string() << "\n";
            return kExitInput;
        }
    }
    if (!json_path.empty()) write_to(json_path, io, runs, true);
    if (!csv_path.empty()) write_to(csv_path, io, runs, false);
    return kExitOk;
}

}  // namespace sbufsim::cli
