// sbufsim nki: trace an NKI kernel with the Python package's tracing implementation of the NKI
// API (python/sbufsim/nki/, run by python3 as `python3 -m sbufsim.nki`), replay the trace with
// `sbufsim run` and add the kernel-level figures: MFU against the PE array's peak and the HBM
// bandwidth achieved. docs/nki.md.

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/outputs.h"
#include "sbufsim/trace/trace.h"
#include "sbufsim/types/number.h"

extern char** environ;

#ifndef SBUFSIM_PYTHON3
#define SBUFSIM_PYTHON3 "/usr/bin/python3"
#endif
#ifndef SBUFSIM_BIN_TO_PYTHON
#define SBUFSIM_BIN_TO_PYTHON ""
#endif
#ifndef SBUFSIM_BIN_TO_PYTHON_USER
#define SBUFSIM_BIN_TO_PYTHON_USER SBUFSIM_BIN_TO_PYTHON
#endif

namespace sbufsim::cli {
namespace {

namespace fs = std::filesystem;

// The PE array: 128 x 128 MACs per cycle, 2 flops each (bf16; seed 000 §5).
constexpr double kPeakFlopsPerCycle = 2.0 * 128 * 128;

constexpr const char* kHelp =
    "usage: sbufsim nki KERNEL.py::FUNC --input NAME=DTYPE[D0,D1,...]... [--param NAME=VALUE]...\n"
    "                   [--gen G] [-o TRACE.trc|TRACE.sbt] [--python EXE] [--timeout SEC] [run options]\n"
    "       sbufsim nki KERNEL.py::FUNC --input ... --sweep-param NAME=V1,V2... [sweep options]\n\n"
    "Trace an NKI kernel written against the public API (import nki / nki.language / nki.isa, or\n"
    "neuronxcc.nki) with sbufsim's tracing implementation of it, replay the trace like `sbufsim\n"
    "run` and add the kernel's MFU (matmul flops against the PE array's 2 x 128 x 128 per cycle)\n"
    "and achieved HBM bandwidth. docs/nki.md lists the supported calls.\n\n"
    "The kernel file is executed as Python, with your rights: like `python3 KERNEL.py`, it can read,\n"
    "write and delete whatever you can and reach the network. Trace only kernels you would run.\n\n"
    "  --input NAME=DTYPE[SHAPE]  an HBM argument of the kernel, e.g. lhsT=bf16[4096,2048]\n"
    "  --input NAME=[DTYPE:]F.npy the argument with values (numpy): the kernel's output is computed\n"
    "                             while it is traced; --values-out OUT.npy keeps it\n"
    "  --param NAME=VALUE         a keyword argument (a Python literal), e.g. TILES_IN_BLOCK_M=4\n"
    "  --gen G                    the generation (sunda, cayman, mariana); default cayman\n"
    "  --grid G0[,G1,...]         launch the kernel as kernel[G0, G1, ...] (SPMD): its instances run on\n"
    "                             one NeuronCore one after another, nl.program_id(axis) telling each\n"
    "                             its index (docs/nki.md, SPMD grids)\n"
    "  -o, --output FILE          keep the trace there (default: a temporary file); FILE.sbt keeps the\n"
    "                             binary form\n"
    "  --python EXE               the interpreter (default $SBUFSIM_PYTHON, else " SBUFSIM_PYTHON3
    ")\n"
    "  --timeout SEC              stop the tracing after SEC seconds (with --sweep-param: each point's\n"
    "                             tracing, and its replay); default 0, no limit\n"
    "  --sweep-param NAME=V1,V2   a tiling sweep: trace the kernel at every value (repeatable: the\n"
    "                             cartesian product), replay the points in parallel with `sbufsim\n"
    "                             sweep` and print a table of cycles, MFU and HBM bandwidth\n"
    "every other option goes to `sbufsim run` (--set, --config, --json, --scheduler, ...), or with\n"
    "--sweep-param to `sbufsim sweep` (--set, --config, --jobs, --timeout, --out; with --out TABLE.csv\n"
    "the points' traces are kept in TABLE.traces/, named by their parameters).\n\n"
    "example:\n"
    "  sbufsim nki examples/nki/matmul.py::matmul_blocked --input lhsT=bf16[2048,2048] \\\n"
    "      --input rhs=bf16[2048,2048] --param TILES_IN_BLOCK_M=4\n"
    "  sbufsim nki examples/nki/matmul.py::matmul_blocked --input lhsT=bf16[2048,2048] \\\n"
    "      --input rhs=bf16[2048,2048] --sweep-param TILES_IN_BLOCK_M=1,2,4,8\n";

struct NkiArgs {
    std::string kernel, gen = "cayman", output, python;
    std::vector<std::string> tracer_args;  // --input/--param/--sweep-param/--values-out/--grid, as given
    bool sweep = false;                    // --sweep-param given
    std::vector<std::string> run_args;
    bool help = false;
    std::string timeout_text;  // --timeout as given
    double timeout = 0;        // seconds the tracer may run (0: no limit)
};

// Splits the command line: what the tracer needs, everything else for `sbufsim run`.
bool parse(const std::vector<std::string>& args, NkiArgs& a, Io io) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string key = args[i], value;
        const bool has_eq = key.rfind("--", 0) == 0 && key.find('=') != std::string::npos;
        if (has_eq) {
            value = key.substr(key.find('=') + 1);
            key = key.substr(0, key.find('='));
        }
        const bool tracer = key == "--input" || key == "--param" || key == "--sweep-param" ||
                            key == "--values-out" || key == "--grid";
        const bool ours = tracer || key == "--gen" || key == "-o" || key == "--output" || key == "--python" ||
                          key == "--timeout";
        if (key == "--help" || key == "-h") {
            a.help = true;
        } else if (ours) {
            if (!has_eq) {
                if (i + 1 >= args.size()) {
                    io.err << "sbufsim nki: " << key << " needs a value (see sbufsim nki --help)\n";
                    return false;
                }
                value = args[++i];
            }
            a.sweep |= key == "--sweep-param";
            if (tracer)
                a.tracer_args.insert(a.tracer_args.end(), {key, value});
            else if (key == "--gen")
                a.gen = value;
            else if (key == "--python")
                a.python = value;
            else if (key == "--timeout")
                a.timeout_text = value;
            else
                a.output = value;
        } else if (key.rfind('-', 0) != 0 && a.kernel.empty()) {
            a.kernel = args[i];
        } else {
            a.run_args.push_back(args[i]);
        }
    }
    return true;
}

// --timeout SEC bounds the tracing: of the kernel, or of each point of a sweep (whose replays it
// bounds too: it is passed on to `sbufsim sweep`).
bool parse_timeout(NkiArgs& a, Io io) {
    if (a.timeout_text.empty()) return true;
    char* end = nullptr;
    a.timeout = std::strtod(a.timeout_text.c_str(), &end);
    std::string why = timeout_problem(a.timeout);
    if (end == a.timeout_text.c_str() || *end != '\0')
        why = "--timeout " + a.timeout_text + ": not a number of seconds";
    if (!why.empty()) {
        io.err << "sbufsim nki: " << why << "\n";
        return false;
    }
    if (a.sweep) a.run_args.insert(a.run_args.end(), {"--timeout", a.timeout_text});
    return true;
}

// Milliseconds of a --timeout that timeout_problem() accepted (at most kMaxTimeoutSeconds).
long long timeout_ms(double seconds) { return static_cast<long long>(std::ceil(seconds * 1000)); }

// The values `key` is given in `args`, as `key VALUE` or `key=VALUE`, in order.
std::vector<std::string> option_values(const std::vector<std::string>& args, const std::string& key) {
    std::vector<std::string> values;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == key && i + 1 < args.size()) values.push_back(args[i + 1]);
        if (args[i].rfind(key + "=", 0) == 0) values.push_back(args[i].substr(key.size() + 1));
    }
    return values;
}

// The files one traced run writes, by option: -o, --values-out and the replay's own outputs.
std::vector<std::pair<std::string, std::string>> written_files(const NkiArgs& a) {
    std::vector<std::pair<std::string, std::string>> files{{"-o", a.output}};
    for (std::size_t i = 0; i + 1 < a.tracer_args.size(); i += 2)
        if (a.tracer_args[i] == "--values-out") files.emplace_back("--values-out", a.tracer_args[i + 1]);
    for (const char* key : {"--json", "--csv", "--stats", "--timeline", "--heatmap", "--vcd"})
        for (const std::string& file : option_values(a.run_args, key)) files.emplace_back(key, file);
    return files;
}

// Where the sbufsim Python package is: $SBUFSIM_PYTHONPATH, a build tree (python/ beside the
// executable), or an install (SBUFSIM_BIN_TO_PYTHON from bin/; SBUFSIM_BIN_TO_PYTHON_USER in the
// user's own prefix, ~/.local, where the package goes to the user's site folder).
std::string package_dir() {
    if (const char* env = std::getenv("SBUFSIM_PYTHONPATH"); env && *env) return env;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    const fs::path bin = exe.parent_path();
    for (const fs::path& dir : {bin / "python", (bin / SBUFSIM_BIN_TO_PYTHON).lexically_normal(),
                                (bin / SBUFSIM_BIN_TO_PYTHON_USER).lexically_normal()})
        if (fs::is_regular_file(dir / "sbufsim" / "nki" / "__init__.py", ec)) return dir.string();
    return {};
}

// How a spawned program ended.
struct ChildEnd {
    bool started = false;  // false: it could not be run at all (`error` says why)
    int code = -1;         // its exit status, when it exited
    int signal = 0;        // the signal that ended it, when one did
    bool timed_out = false;
    int error = 0;  // errno of a failed start
};

// The environment with PYTHONPATH prepended by `pythonpath`.
// PYTHONDONTWRITEBYTECODE: importing the kernel would otherwise leave a __pycache__ folder beside
// the user's kernel file (and in an install's package); compiling instead costs no measurable time
// next to the tracer's numpy import (0.13 s either way).
std::vector<std::string> child_environment(const std::string& pythonpath) {
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e)
        if (const std::string_view var = *e;
            !var.starts_with("PYTHONPATH=") && !var.starts_with("PYTHONDONTWRITEBYTECODE="))
            env.emplace_back(var);
    const char* old = std::getenv("PYTHONPATH");
    env.push_back("PYTHONPATH=" + pythonpath + (old && *old ? ":" + std::string(old) : ""));
    env.emplace_back("PYTHONDONTWRITEBYTECODE=1");
    return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
    std::vector<char*> out;
    out.reserve(strings.size() + 1);
    for (auto& s : strings) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

// The child's output as it comes: each pipe's bytes to its stream, never held whole (a kernel
// that prints 200 MB costs a 64 KiB buffer).
class OutputPump {
public:
    OutputPump(int out_fd, std::ostream& out, int err_fd, std::ostream& err)
        : fds_{{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}}, streams_{&out, &err} {}
    bool open() const { return fds_[0].fd >= 0 || fds_[1].fd >= 0; }
    // Copies what is there, waiting up to `ms` for it; a pipe at its end is closed.
    void pump(int ms) {
        if (::poll(fds_, 2, ms) <= 0) return;
        for (int i = 0; i < 2; ++i) {
            if (fds_[i].fd < 0 || fds_[i].revents == 0) continue;
            const ssize_t n = ::read(fds_[i].fd, buf_.data(), buf_.size());
            if (n > 0) {
                streams_[i]->write(buf_.data(), n);
                streams_[i]->flush();
            } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
                ::close(fds_[i].fd);
                fds_[i].fd = -1;
            }
        }
    }
    ~OutputPump() {
        for (const pollfd& p : fds_)
            if (p.fd >= 0) ::close(p.fd);
    }

private:
    pollfd fds_[2];
    std::ostream* streams_[2];
    std::vector<char> buf_ = std::vector<char>(std::size_t{1} << 16);
};

// True when `pid` has ended (not reaped: its process group stays ours to signal).
bool has_ended(pid_t pid) {
    siginfo_t info{};
    return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid == pid;
}

// Runs argv in a process group of its own with PYTHONPATH prepended and /dev/null as its input;
// its stdout goes to `out` and its stderr to `err` as they come. A fatal signal to sbufsim ends
// the group too (register_child_group), and so does `timeout_s` (> 0) running out. When the
// program has ended, what is left of its group is killed (nothing it started outlives it) and it
// is reaped.
ChildEnd spawn(const std::vector<std::string>& argv, const std::string& pythonpath, std::ostream& out,
               std::ostream& err, double timeout_s) {
    ChildEnd end;
    std::vector<std::string> env_strings = child_environment(pythonpath), argv_copy = argv;
    std::vector<char*> envp = c_strings(env_strings), args = c_strings(argv_copy);
    int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
    if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
        end.error = errno;
        for (int fd : {out_pipe[0], out_pipe[1]})
            if (fd >= 0) ::close(fd);
        return end;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    // Its own group: signalled as a whole, and not by the terminal's Ctrl-C, which reaches
    // sbufsim, whose handler ends the group.
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t defaults, none;
    sigemptyset(&defaults);
    sigemptyset(&none);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaddset(&defaults, sig);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    OutputPump pump(out_pipe[0], out, err_pipe[0], err);
    if (rc != 0) {
        end.error = rc;
        return end;
    }
    end.started = true;
    const int group = register_child_group(pid);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms(timeout_s));
    while (!has_ended(pid)) {
        if (timeout_s > 0 && std::chrono::steady_clock::now() >= deadline) {
            end.timed_out = true;
            break;
        }
        pump.pump(100);
    }
    ::kill(-pid, SIGKILL);  // the rest of its group (or all of it, when it ran out of time)
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    release_child_group(group);
    // What it wrote before it ended; bounded, as a grandchild that left the group may hold a pipe.
    const auto drain_until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (pump.open() && std::chrono::steady_clock::now() < drain_until) pump.pump(100);
    if (WIFEXITED(status)) end.code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) end.signal = WTERMSIG(status);
    return end;
}

// What went wrong with the kernel's tracer, for the message; "" when it exited 0.
std::string child_problem(const ChildEnd& end, const std::string& python, double timeout_s) {
    if (!end.started)
        return "cannot run " + python + " (" + std::strerror(end.error) + "); set --python or SBUFSIM_PYTHON";
    if (end.timed_out)
        return "the kernel's tracer ran longer than --timeout " + format_fixed(timeout_s, 3) +
               " s and was stopped; raise --timeout, or look for a loop that does not end";
    if (end.signal != 0)
        return "the kernel's tracer was killed by " + describe_signal(end.signal) +
               (end.signal == SIGKILL ? " (the out-of-memory killer sends it when memory runs out)" : "");
    return {};
}

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The first line of `path` that is not a comment (a trace's header), "" when there is none.
std::string trace_header_of(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
        if (!line.empty() && line[0] != '#') return line.substr(0, 80);
    return {};
}

// The traced kernel into -o: a text trace with sbufsim's mark first, or (K.sbt) the binary form.
int keep_trace(const std::string& traced, OutputFile& kept, Io io) {
    if (format_for_path(kept.path()) == TraceFormat::text) {
        kept.stream() << trace_mark("nki") << '\n';
        std::ifstream in(traced, std::ios::binary);
        kept.stream() << in.rdbuf();
    } else {
        try {
            TraceReader reader(traced);
            TraceWriter writer(kept.stream(), TraceFormat::binary, reader.header());
            Record rec;
            while (reader.next(rec)) writer.write(rec);
            writer.finish();
        } catch (const TraceFormatError& e) {
            io.err << "sbufsim nki: the traced kernel: " << e.what() << "\n";
            return kExitInput;
        }
    }
    kept.commit();
    return kExitOk;
}

// A number after `"key":` in the run's JSON (the first occurrence; keys are unique per section
// and the run section comes first).
double json_number(const std::string& json, const std::string& key) {
    const auto at = json.find("\"" + key + "\":");
    return at == std::string::npos ? 0.0 : std::strtod(json.c_str() + at + key.size() + 3, nullptr);
}

// The `# nki flops=F hbm_bytes=B` line the tracer writes after the header.
void kernel_totals(const std::string& trace, double& flops, double& hbm_bytes) {
    const std::string text = slurp(trace);
    const auto at = text.find("# nki ");
    if (at == std::string::npos) return;
    const std::string line = text.substr(at, text.find('\n', at) - at);
    flops = std::strtod(line.c_str() + line.find("flops=") + 6, nullptr);
    hbm_bytes = std::strtod(line.c_str() + line.find("hbm_bytes=") + 10, nullptr);
}

// `report_mfu`: the run report's MFU (a fraction; < 0 when the run wrote none). The two count
// different things: the kernel's nc_matmul flops here, every pass through the array (transposes
// included, as neuron-profile counts) in the report. Where they differ as printed, both are named,
// so that two MFU figures of one run do not read as a contradiction.
void print_figures(std::ostream& os, double flops, double hbm_bytes, double cycles, double time_ns,
                   double report_mfu) {
    os << "kernel: " << format_fixed(flops / 1e9, 1) << " GFLOP of matmul, "
       << format_fixed(hbm_bytes / (1 << 20), 1) << " MiB HBM traffic\n";
    if (cycles <= 0 || time_ns <= 0) return;
    const std::string mfu = format_fixed(100.0 * flops / (cycles * kPeakFlopsPerCycle), 1);
    os << "  MFU " << mfu << "% of the PE array's peak (2 x 128 x 128 flops/cycle), "
       << format_fixed(flops / time_ns / 1e3, 1) << " TFLOP/s\n";
    if (report_mfu >= 0 && format_fixed(100.0 * report_mfu, 1) != mfu)
        os << "    of the kernel's matmuls, transposes excluded; the report's MFU, "
           << format_fixed(100.0 * report_mfu, 1)
           << " %, counts every pass through the array, transposes included, as neuron-profile does\n";
    os << "  HBM " << format_fixed(hbm_bytes / time_ns, 1) << " GB/s achieved over "
       << format_fixed(cycles, 0) << " cycles\n";
}

// The checks of a --sweep-param command line: no trace kept, no single run's outputs, and every
// option of the sweep as `sbufsim sweep` takes it.
int check_sweep_line(const NkiArgs& a, Io io) {
    if (!a.output.empty()) {
        io.err << "sbufsim nki: -o keeps one trace; with --sweep-param each point's trace is temporary "
                  "(trace the chosen point again with --param and -o)\n";
        return kExitUsage;
    }
    // The outputs of one run: a sweep has its table (--out) instead.
    for (const auto& [key, file] : written_files(a))
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
int run_sweep(const NkiArgs& a, const std::string& python, const std::string& pythonpath,
              const std::string& tmp, Io io) {
    // With --out the points' traces are kept beside the table (TABLE.traces/), named by their
    // parameters, so that its rows can be run again, charted and resumed.
    std::string dir = tmp;
    bool keep = false;
    for (const std::string& out : option_values(a.run_args, "--out")) {
        if (out.empty() || out == "-") continue;
        const fs::path table(out);
        const fs::path traces = table.parent_path() / (table.stem().string() + ".traces");
        // Only the traces' own folder is made: a table in a folder that does not exist is the
        // sweep's to refuse, with nothing written first.
        std::error_code made;
        if (const fs::path folder = table.parent_path(); !folder.empty() && !fs::is_directory(folder)) {
            io.err << "sbufsim nki: --out " << out << ": the folder " << folder.string()
                   << " does not exist; make it first, or give another --out\n";
            return kExitUsage;
        }
        fs::create_directory(traces, made);
        if (made || !fs::is_directory(traces)) {
            io.err << "sbufsim nki: --out " << out << ": the points' traces are kept in " << traces.string()
                   << ", which cannot be a folder (" << (made ? made.message() : std::string("it is a file"))
                   << ")\n";
            return kExitUsage;
        }
        dir = traces.string();
        keep = true;
    }
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec) {
        io.err << "sbufsim nki: cannot find this executable for the sweep (/proc/self/exe)\n";
        return kExitInternal;
    }
    std::vector<std::string> argv = {python,           "-m",          "sbufsim.nki", a.kernel, "--gen", a.gen,
                                     "--sweep-binary", self.string(), "--sweep-dir", dir};
    if (keep) argv.emplace_back("--keep-traces");
    argv.insert(argv.end(), a.tracer_args.begin(), a.tracer_args.end());
    argv.emplace_back("--run-args");
    argv.insert(argv.end(), a.run_args.begin(), a.run_args.end());
    // Each point's tracing is bounded by the tracer itself (--timeout is in the run arguments).
    const ChildEnd end = spawn(argv, pythonpath, io.out, io.err, 0);
    if (const std::string why = child_problem(end, python, 0); !why.empty()) {
        io.err << "sbufsim nki: " << why << "\n";
        return end.started ? kExitInput : kExitUsage;
    }
    return end.code;
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
    check_distinct_outputs(written_files(a));
    std::vector<std::string> checked = {"--gen", a.gen};
    checked.insert(checked.end(), a.run_args.begin(), a.run_args.end());
    return check_run_options(checked, io);
}

}  // namespace

int check_nki_options(const std::vector<std::string>& args, Io io) {
    NkiArgs a;
    if (!parse(args, a, io) || !parse_timeout(a, io)) return kExitUsage;
    return a.help ? kExitOk : check_line(a, io);
}

int cmd_nki(const std::vector<std::string>& args, Io io) {
    NkiArgs a;
    if (!parse(args, a, io) || !parse_timeout(a, io)) return kExitUsage;
    if (a.help) {
        io.out << kHelp;
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
    const std::string pythonpath = package_dir();
    if (pythonpath.empty()) {
        io.err
            << "sbufsim nki: the sbufsim Python package (sbufsim/nki/) is not next to this executable; "
               "build with SBUFSIM_BUILD_PYTHON or set SBUFSIM_PYTHONPATH to the folder holding sbufsim/\n";
        return kExitUsage;
    }
    std::string python = a.python;
    if (python.empty())
        python = std::getenv("SBUFSIM_PYTHON") ? std::getenv("SBUFSIM_PYTHON") : SBUFSIM_PYTHON3;
    // A private scratch folder (mode 700, a random name), removed on every way out: return,
    // exception, SIGINT/SIGTERM/SIGHUP (the handler of remove_temporaries_on_signals()).
    const ScratchDir scratch_dir("sbufsim-nki");
    const fs::path tmp = scratch_dir.path();
    const std::string traced = (tmp / "kernel.trc").string();
    const std::string trace = a.output.empty() ? traced : a.output;
    if (a.sweep) return run_sweep(a, python, pythonpath, tmp.string(), io);
    // -o FILE is checked before the kernel runs, and written (with sbufsim's mark) once it traced.
    std::unique_ptr<OutputFile> kept;
    if (!a.output.empty()) {
        const bool force = std::find(a.run_args.begin(), a.run_args.end(), "--force") != a.run_args.end();
        const std::string kernel_file = a.kernel.substr(0, a.kernel.find("::"));  // never the output
        kept = std::make_unique<OutputFile>(a.output, trace_output_policy("-o trace", force, {kernel_file}));
    }

    // A document on stdout (--json - / --csv -) stays alone there: the tracer's words and the
    // kernel figures go to stderr with the run's summary.
    bool machine = false;
    for (std::size_t i = 0; i + 1 < a.run_args.size(); ++i)
        machine |= (a.run_args[i] == "--json" || a.run_args[i] == "--csv") && a.run_args[i + 1] == "-";
    for (const auto& arg : a.run_args) machine |= arg == "--json=-" || arg == "--csv=-";
    std::ostream& text = machine ? io.err : io.out;

    std::vector<std::string> argv = {python, "-m", "sbufsim.nki", a.kernel, "--gen", a.gen, "-o", traced};
    argv.insert(argv.end(), a.tracer_args.begin(), a.tracer_args.end());
    const ChildEnd end = spawn(argv, pythonpath, text, io.err, a.timeout);
    if (const std::string why = child_problem(end, python, a.timeout); !why.empty()) {
        io.err << "sbufsim nki: " << why << "\n";
        return end.started ? kExitInput : kExitUsage;
    }
    if (end.code != 0) return end.code == 2 ? kExitUsage : kExitInput;
    // A tracer that exits 0 has written the trace; one that did not (a kernel calling
    // sys.exit(0), a broken interpreter) is an error, and -o is left as it was.
    if (const std::string header = trace_header_of(traced); header.rfind("sbufsim-trace", 0) != 0) {
        io.err << "sbufsim nki: the kernel's tracer (" << python
               << " -m sbufsim.nki) exited 0 without writing a "
               << "trace" << (header.empty() ? "" : " (its first line: '" + header + "')")
               << "; does the kernel end the interpreter itself (sys.exit, os._exit)?\n";
        return kExitInput;
    }
    if (kept) {
        if (const int rc = keep_trace(traced, *kept, io); rc != kExitOk) return rc;
    }

    // Replay as `sbufsim run` does, its JSON into a scratch file for the kernel figures.
    const std::string json = (tmp / "run.json").string();
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
    if (scratch) {
        std::string summary = captured.str();
        const std::string named = "trace " + traced + "  (";
        if (const std::size_t at = summary.find(named); at != std::string::npos)
            summary.replace(at, named.size(),
                            "trace " + a.kernel + " (traced, not kept: -o FILE.trc keeps it)  (");
        io.out << summary;
    }
    if (rc != kExitOk) return rc;
    double flops = 0, hbm_bytes = 0;
    kernel_totals(traced, flops, hbm_bytes);  // the tracer's text: a binary -o has no comments
    // The user's --json is read back only when it is a regular file: a FIFO's or a device's bytes
    // are gone (the figures then lack what the run's JSON gives).
    std::error_code regular_ec;
    const std::string stats = user_json.empty()                            ? slurp(json)
                              : fs::is_regular_file(user_json, regular_ec) ? slurp(user_json)
                                                                           : std::string();
    print_figures(text, flops, hbm_bytes, json_number(stats, "total_cycles"), json_number(stats, "time_ns"),
                  stats.find("\"mfu\":") == std::string::npos ? -1.0 : json_number(stats, "mfu"));
    return kExitOk;
}

}  // namespace sbufsim::cli
