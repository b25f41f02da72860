// sbufsim nki: trace an NKI kernel with the Python package's tracing implementation of the NKI
// API (sbufsim/app/nki.h), replay the trace with `sbufsim run` (every option the tracer does not
// take is run's, or with --sweep-param sweep's) and add the kernel-level figures. docs/nki.md.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/nki_args.h"
#include "cli/nki_package.h"
#include "sbufsim/app/nki.h"
#include "sbufsim/app/nki_launch.h"
#include "sbufsim/config/config.h"
#include "sbufsim/types/number.h"
#include "sbufsim/types/text.h"

namespace sbufsim::cli {
namespace {

namespace fs = std::filesystem;

// The checks of a --sweep-param command line: no trace kept, no single run's outputs, and every
// option of the sweep as `sbufsim sweep` takes it.
int check_sweep_line(const NkiArgs& a, Io io) {
    if (!a.output.empty()) {
        io.err << "sbufsim nki: -o keeps one trace; with --sweep-param each point's trace is temporary "
                  "(trace the chosen point again with --param and -o)\n";
        return kExitUsage;
    }
    // The outputs of one run: a sweep has its table (--out) instead.
    for (const auto& [key, file] : nki_written_files(a))
        if (key != "-o" && key != "--values-out") {
            io.err
                << "sbufsim nki: " << key << " " << file
                << ": with --sweep-param the points are replayed by `sbufsim sweep`, which writes its table "
                   "with --out FILE.csv; trace the chosen point again with --param for "
                << key << "\n";
            return kExitUsage;
        }
    // Every option of the sweep is checked before a point is traced, as the tracer will pass them
    // (with --json - --quiet; the trace is a placeholder the check does not read): `-q` or a
    // mistyped --set is said at once, not after the tracing.
    std::vector<std::string> checked = {"points.trc", "--gen", a.gen};
    checked.insert(checked.end(), a.run_args.begin(), a.run_args.end());
    checked.insert(checked.end(), {"--json", "-", "--quiet"});
    return check_sweep_options(checked, io);
}

// --sweep-param (check_sweep_line() passed): the tracer traces every point in parallel and
// replays them with this executable's `sbufsim sweep`, then prints the table
// (python/sbufsim/nki/__main__.py).
int sweep_points(const NkiArgs& a, const std::string& python, const std::string& pythonpath,
                 const std::string& tmp, Io io) {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec) {
        io.err << "sbufsim nki: cannot find this executable for the sweep (/proc/self/exe)\n";
        return kExitInternal;
    }
    NkiSweepRequest request{{a.kernel, a.gen, a.tracer_args, python, pythonpath, a.timeout},
                            a.run_args,
                            option_values(a.run_args, "--out"),
                            self.string(),
                            tmp};
    return sweep_kernel(request, io);
}

// Where the tracer's words and the kernel's figures go: stderr beside a document on stdout
// (--json - / --csv -), nowhere with --quiet (as `sbufsim run --quiet` prints nothing), else stdout.
std::ostream& words_stream(const NkiArgs& a, bool machine, Io io) {
    static std::ostream nowhere(nullptr);  // a stream without a buffer drops what it is given
    return a.quiet ? nowhere : machine ? io.err : io.out;
}

// Replays the traced kernel as `sbufsim run` does, its JSON into a scratch file (or the user's own
// --json) for the kernel figures, which follow on `text`'s stream.
int replay_kernel(const NkiArgs& a, const std::string& trace, const std::string& traced,
                  const std::string& tmp, bool machine, Io io) {
    std::ostream& text = words_stream(a, machine, io);
    // Replay as `sbufsim run` does, its JSON into a scratch file for the kernel figures.
    const std::string json = (fs::path(tmp) / "run.json").string();
    // The user's own --json FILE (the last one given): the figures read it back ("-": none).
    const std::vector<std::string> jsons = option_values(a.run_args, "--json");
    const std::string user_json = jsons.empty() ? std::string() : jsons.back();
    std::vector<std::string> run_args = {trace, "--gen", a.gen};
    run_args.insert(run_args.end(), a.run_args.begin(), a.run_args.end());
    if (user_json.empty()) run_args.insert(run_args.end(), {"--json", json});
    // Without -o the trace is a scratch file removed on return: the summary names the kernel.
    const bool scratch = a.output.empty() && !machine;
    std::ostringstream captured;
    const int rc = cmd_run(run_args, scratch ? Io{captured, io.err} : io);
    if (scratch) io.out << kernel_summary(captured.str(), traced, a.kernel);
    if (rc != kExitOk) return rc;
    // The tracer's text: a binary -o has no comments. The user's --json is read back only when it
    // is a regular file: a FIFO's or a device's bytes are gone (the figures then lack what the
    // run's JSON gives).
    std::error_code regular_ec;
    const std::string stats = user_json.empty()                            ? read_text(json)
                              : fs::is_regular_file(user_json, regular_ec) ? read_text(user_json)
                                                                           : std::string();
    print_kernel_figures(text, kernel_totals(traced), stats);
    return kExitOk;
}

// The configuration the replay loads (--gen, --config, --set and the key flags among the run
// options): the launch's cores and their HBM share come from it. Throws ConfigError.
Params replay_params(const NkiArgs& a) {
    namespace po = boost::program_options;
    ConfigOptions opts;
    po::options_description desc;
    desc.add(config_options(opts));
    std::vector<std::string> args = {"--gen", a.gen}, rest;
    args.insert(args.end(), a.run_args.begin(), a.run_args.end());
    add_key_flags_if_named(desc, args);
    desc.add_options()("rest", po::value(&rest));  // the run's other options' values
    po::positional_options_description positional;
    positional.add("rest", -1);
    const po::parsed_options parsed =
        po::command_line_parser(args).options(desc).positional(positional).allow_unregistered().run();
    po::variables_map vm;
    po::store(parsed, vm);
    po::notify(vm);
    return load_config(make_load_request(opts, parsed)).params;
}

// --cores N (1 to 8), else the generation's gen.lnc; 0 after saying why on io.err.
unsigned launch_cores(const NkiArgs& a, const Params& p, Io io) {
    if (a.cores_text.empty()) return p.lnc;
    const auto n = parse_unsigned(a.cores_text);
    if (!n || *n < 1 || *n > 8) {
        io.err << "sbufsim nki: --cores '" << a.cores_text
               << "': the physical NeuronCores a launch runs on, an integer from 1 to 8\n";
        return 0;
    }
    return static_cast<unsigned>(*n);
}

// -o FILE, written (with sbufsim's mark) once the kernel traced: one file a core, core 0's at FILE
// and the others' beside it (core_output_path), added to `kept` up to `cores`. Each is checked
// when it is added, before anything is written; one never written leaves nothing behind.
void keep_traces(const NkiArgs& a, std::size_t cores, std::vector<std::unique_ptr<OutputFile>>& kept) {
    if (a.output.empty()) return;
    const bool force = std::find(a.run_args.begin(), a.run_args.end(), "--force") != a.run_args.end();
    const std::string kernel_file = a.kernel.substr(0, a.kernel.find("::"));  // never the output
    for (std::size_t i = kept.size(); i < cores; ++i)
        kept.push_back(std::make_unique<OutputFile>(core_output_path(a.output, i),
                                                    trace_output_policy("-o trace", force, {kernel_file})));
}

// Replays each core of a launch (check_line() passed; `cores` from core_traces()) with its share
// of the HBM bandwidth, then prints the latest core's summary and the launch's lines. The user's
// output files (--json, ...) are the latest core's replay's.
int replay_launch(const NkiArgs& a, std::vector<CoreRun> cores, const Params& p, const std::string& tmp,
                  bool machine, Io io) {
    const double share = hbm_share(p, cores.size());
    std::vector<std::string> share_set;  // each core's replay at its share of the HBM bandwidth
    if (share != p.dma.hbm_gbps) share_set = {"--set", "dma.hbm_gbps=" + format_number(share, 9)};
    std::vector<std::string> shared_args = without_outputs(a.run_args);
    const bool user_outputs = shared_args.size() != a.run_args.size();
    shared_args.insert(shared_args.end(), share_set.begin(), share_set.end());
    std::size_t latest = 0;
    for (std::size_t i = 0; i < cores.size(); ++i) {
        const std::string json = (fs::path(tmp) / ("core" + std::to_string(i) + ".json")).string();
        std::vector<std::string> args = {cores[i].trace, "--gen", a.gen};
        args.insert(args.end(), shared_args.begin(), shared_args.end());
        args.insert(args.end(), {"--json", json});
        std::ostringstream captured;
        if (const int rc = cmd_run(args, Io{captured, io.err}); rc != kExitOk) {
            io.out << captured.str();
            return rc;
        }
        read_core_replay(cores[i], captured.str(), read_text(json));
        if (cores[i].cycles > cores[latest].cycles) latest = i;
    }
    std::ostream& text = words_stream(a, machine, io);
    if (user_outputs) {
        // the user's files, of the latest core's replay (its summary printed by that replay)
        std::vector<std::string> args = {cores[latest].trace, "--gen", a.gen};
        args.insert(args.end(), a.run_args.begin(), a.run_args.end());
        args.insert(args.end(), share_set.begin(), share_set.end());
        std::ostringstream captured;
        if (const int rc = cmd_run(args, machine ? io : Io{captured, io.err}); rc != kExitOk) return rc;
        if (!machine) cores[latest].summary = captured.str();
    }
    if (!machine && !a.quiet) {
        // the summary names the kernel and its core, and which core's trace -o keeps
        text << launch_summary(cores[latest], latest, a.kernel, a.output);
    }
    print_launch(text, cores, latest, share);
    return kExitOk;
}

// What is checked of the command line before anything runs or is written: the kernel's
// FILE::FUNCTION form, the outputs, and the options of the replay (`sbufsim run`'s, its
// configuration included: a mistyped --set should not wait for a long trace to be reported) or of
// the sweep. kExitOk, or the exit status with the reason on io.err.
int check_line(const NkiArgs& a, Io io) {
    if (a.kernel.empty() || a.kernel.find("::") == std::string::npos) {
        io.err << "sbufsim nki: give the kernel as FILE.py::FUNCTION (see sbufsim nki --help)\n";
        return kExitUsage;
    }
    if (a.sweep) return check_sweep_line(a, io);
    if (a.output == "-") {
        io.err << "sbufsim nki: -o -: nki keeps the trace in a file (K.trc text, K.sbt binary); print it "
                  "afterwards (sbufsim convert K.trc -)\n";
        return kExitUsage;
    }
    // Two outputs naming one file are refused before anything is traced or written.
    check_distinct_outputs(nki_written_files(a));
    std::vector<std::string> checked = {"--gen", a.gen};
    checked.insert(checked.end(), a.run_args.begin(), a.run_args.end());
    return check_run_options(checked, io);
}

}  // namespace

int check_nki_options(const std::vector<std::string>& args, Io io) {
    NkiArgs a;
    if (!parse_nki_args(args, a, io) || !parse_nki_timeout(a, io)) return kExitUsage;
    return a.help ? kExitOk : check_line(a, io);
}

int cmd_nki(const std::vector<std::string>& args, Io io) {
    NkiArgs a;
    if (!parse_nki_args(args, a, io) || !parse_nki_timeout(a, io)) return kExitUsage;
    if (a.help) {
        io.out << nki_help();
        return kExitOk;
    }
    if (const int rc = check_line(a, io); rc != kExitOk) return rc;
    // A kernel the docs name by its source-tree path, run from an install: say where it is.
    if (const std::string file = a.kernel.substr(0, a.kernel.find("::")); !fs::exists(file)) {
        if (const std::string hint = shipped_example_hint(file); !hint.empty()) {
            io.err << "sbufsim nki: " << file << ": no such kernel file" << hint << "\n";
            return kExitInput;
        }
    }
    const std::string pythonpath = nki_package_dir();
    if (pythonpath.empty()) {
        io.err
            << "sbufsim nki: the sbufsim Python package (sbufsim/nki/) is not next to this executable; "
               "build with SBUFSIM_BUILD_PYTHON or set SBUFSIM_PYTHONPATH to the folder holding sbufsim/\n";
        return kExitUsage;
    }
    const std::string python = nki_python(a.python);
    // A private scratch folder (mode 700, a random name), removed on every way out: return,
    // exception, SIGINT/SIGTERM/SIGHUP (the handler of remove_temporaries_on_signals()).
    const ScratchDir scratch_dir("sbufsim-nki");
    const fs::path tmp = scratch_dir.path();
    const std::string traced = (tmp / "kernel.trc").string();
    const std::string trace = a.output.empty() ? traced : a.output;
    if (a.sweep) return sweep_points(a, python, pythonpath, tmp.string(), io);
    // A document on stdout (--json - / --csv -) stays alone there: the tracer's words and the
    // kernel figures go to stderr with the run's summary.
    const bool machine = gives_stdout(a.run_args, {"--json", "--csv"});
    std::ostream& text = words_stream(a, machine, io);

    // The launch's cores: --cores, else the generation's gen.lnc (the replay's configuration).
    Params params;
    try {
        params = replay_params(a);
    } catch (const ConfigError& e) {
        io.err << "sbufsim nki: " << e.what() << "\n";
        return kExitUsage;
    }
    const unsigned cores = launch_cores(a, params, io);
    if (cores == 0) return kExitUsage;
    // -o is checked before the kernel runs: every core's file for a --grid launch, else core 0's
    // (a kernel that launches a grid itself has the others' checked once it traced)
    const bool grid = std::find(a.tracer_args.begin(), a.tracer_args.end(), "--grid") != a.tracer_args.end();
    std::vector<std::unique_ptr<OutputFile>> kept;
    keep_traces(a, grid ? cores : 1, kept);
    std::vector<std::string> tracer_args = a.tracer_args;
    tracer_args.insert(tracer_args.end(), {"--cores", std::to_string(cores)});
    const NkiTraceRequest request{a.kernel, a.gen, tracer_args, python, pythonpath, a.timeout};
    if (const int rc = trace_kernel(request, traced, text, io.err); rc != kExitOk) return rc;
    std::vector<CoreRun> launch = core_traces(traced);
    keep_traces(a, launch.size(), kept);
    for (std::size_t i = 0; i < kept.size() && i < std::max<std::size_t>(1, launch.size()); ++i)
        if (const int rc = keep_trace(launch.empty() ? traced : launch[i].trace, *kept[i], io.err);
            rc != kExitOk)
            return rc;
    // A launch whose instances ran on several cores: each core replayed, the latest one's time.
    if (launch.size() > 1) return replay_launch(a, std::move(launch), params, tmp.string(), machine, io);
    return replay_kernel(a, trace, traced, tmp.string(), machine, io);
}

}  // namespace sbufsim::cli
