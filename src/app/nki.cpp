// `nki` (sbufsim/app/nki.h): the tracer as a child process, its trace kept, the kernel figures.
#include "sbufsim/app/nki.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "sbufsim/app/outputs.h"
#include "sbufsim/trace/trace.h"
#include "sbufsim/types/number.h"

extern char** environ;

namespace sbufsim::app {

namespace {

// The PE array: 128 x 128 MACs per cycle, 2 flops each (bf16; seed 000 §5).

// Milliseconds of a --timeout that timeout_problem() accepted (at most kMaxTimeoutSeconds).
long long timeout_ms(double seconds) { return static_cast<long long>(std::ceil(seconds * 1000)); }

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

// The first line of `path` that is not a comment (a trace's header), "" when there is none.
std::string trace_header_of(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
        if (!line.empty() && line[0] != '#') return line.substr(0, 80);
    return {};
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

}  // namespace

ChildEnd spawn_python(const std::vector<std::string>& argv, const std::string& pythonpath, std::ostream& out,
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

std::string tracer_problem(const ChildEnd& end, const std::string& python, double timeout_s) {
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

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

int keep_trace(const std::string& traced, OutputFile& kept, std::ostream& err) {
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
            err << "sbufsim nki: the traced kernel: " << e.what() << "\n";
            return kExitInput;
        }
    }
    kept.commit();
    return kExitOk;
}

// The `# nki flops=F hbm_bytes=B` line the tracer writes after the header.
KernelTotals kernel_totals(const std::string& trace) {
    KernelTotals k;
    const std::string text = read_text(trace);
    const auto at = text.find("# nki ");
    if (at == std::string::npos) return k;
    const std::string line = text.substr(at, text.find('\n', at) - at);
    k.flops = std::strtod(line.c_str() + line.find("flops=") + 6, nullptr);
    k.hbm_bytes = std::strtod(line.c_str() + line.find("hbm_bytes=") + 10, nullptr);
    return k;
}

int trace_kernel(const NkiTraceRequest& r, const std::string& trace, std::ostream& text, std::ostream& err) {
    std::vector<std::string> argv = {r.python, "-m",         "sbufsim.nki", r.kernel,
                                     "--gen",  r.generation, "-o",          trace};
    argv.insert(argv.end(), r.tracer_args.begin(), r.tracer_args.end());
    const ChildEnd end = spawn_python(argv, r.pythonpath, text, err, r.timeout);
    if (const std::string why = tracer_problem(end, r.python, r.timeout); !why.empty()) {
        err << "sbufsim nki: " << why << "\n";
        return end.started ? kExitInput : kExitUsage;
    }
    if (end.code != 0) return end.code == 2 ? kExitUsage : kExitInput;
    // A tracer that exits 0 has written the trace; one that did not (a kernel calling
    // sys.exit(0), a broken interpreter) is an error, and -o is left as it was.
    if (const std::string header = trace_header_of(trace); header.rfind("sbufsim-trace", 0) != 0) {
        err << "sbufsim nki: the kernel's tracer (" << r.python
            << " -m sbufsim.nki) exited 0 without writing a "
            << "trace" << (header.empty() ? "" : " (its first line: '" + header + "')")
            << "; does the kernel end the interpreter itself (sys.exit, os._exit)?\n";
        return kExitInput;
    }
    return kExitOk;
}

int sweep_kernel(const NkiSweepRequest& r, Io io) {
    namespace fs = std::filesystem;
    // With --out the points' traces are kept beside the table (TABLE.traces/), named by their
    // parameters, so that its rows can be run again, charted and resumed.
    std::string dir = r.scratch;
    bool keep = false;
    for (const std::string& out : r.outs) {
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
    std::vector<std::string> argv = {r.python,      "-m",         "sbufsim.nki",    r.kernel,
                                     "--gen",       r.generation, "--sweep-binary", r.executable,
                                     "--sweep-dir", dir};
    if (keep) argv.emplace_back("--keep-traces");
    argv.insert(argv.end(), r.tracer_args.begin(), r.tracer_args.end());
    argv.emplace_back("--run-args");
    argv.insert(argv.end(), r.sweep_args.begin(), r.sweep_args.end());
    // Each point's tracing is bounded by the tracer itself (--timeout is in the run arguments).
    const ChildEnd end = spawn_python(argv, r.pythonpath, io.out, io.err, 0);
    if (const std::string why = tracer_problem(end, r.python, 0); !why.empty()) {
        io.err << "sbufsim nki: " << why << "\n";
        return end.started ? kExitInput : kExitUsage;
    }
    return end.code;
}

double json_number(const std::string& json, const std::string& key) {
    const auto at = json.find("\"" + key + "\":");
    return at == std::string::npos ? 0.0 : std::strtod(json.c_str() + at + key.size() + 3, nullptr);
}

std::string json_text(const std::string& json, const std::string& key) {
    const auto at = json.find("\"" + key + "\":");
    if (at == std::string::npos) return {};
    const auto open = json.find('"', at + key.size() + 3);
    const auto close = open == std::string::npos ? open : json.find('"', open + 1);
    return close == std::string::npos ? std::string() : json.substr(open + 1, close - open - 1);
}

std::string kernel_summary(std::string summary, const std::string& traced, const std::string& kernel) {
    const std::string named = "trace " + traced + "  (";
    if (const std::size_t at = summary.find(named); at != std::string::npos)
        summary.replace(at, named.size(), "trace " + kernel + " (traced, not kept: -o FILE.trc keeps it)  (");
    return summary;
}

void print_kernel_figures(std::ostream& os, const KernelTotals& kernel, const std::string& stats) {
    print_figures(os, kernel.flops, kernel.hbm_bytes, json_number(stats, "total_cycles"),
                  json_number(stats, "time_ns"),
                  stats.find("\"mfu\":") == std::string::npos ? -1.0 : json_number(stats, "mfu"));
}

}  // namespace sbufsim::app
