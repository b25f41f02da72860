// sbufsim sweep: replay traces over many settings, one table row per (trace, point), on worker
// processes. docs/sweeps.md.
//
// Why processes and not threads: SystemC allows one simulation per process, and points must stay
// safe when they run on the SystemC model. The parent never simulates: it forks one child per
// point, the child replays and writes its row (one CSV line) into a pipe, and exits. The parent
// only expands points, schedules children, collects rows and writes the tables.
#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include <spdlog/spdlog.h>
// property_tree includes boost/bind.hpp, which otherwise prints a deprecation note.
#define BOOST_BIND_GLOBAL_PLACEHOLDERS
#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>

#include "cli/commands.h"
#include "cli/outputs.h"
#include "sbufsim/output/progress.h"
#include "sbufsim/sweep/sweep.h"
#include "sbufsim/trace/sync_check.h"
#include "sbufsim/trace/trace.h"
#include "sbufsim/types/number.h"
#include "sbufsim/types/text.h"

namespace po = boost::program_options;

namespace sbufsim::cli {

namespace {

using sweep::Job;
using sweep::Row;

// The varied keys sit between `trace` and the first metric column (always total_cycles).
std::size_t axis_count(const std::vector<std::string>& cols) {
    return static_cast<std::size_t>(std::find(cols.begin(), cols.end(), "total_cycles") - cols.begin()) - 1;
}

// "trace key=value ..." for log lines and the list of failed points.
std::string describe(const std::vector<std::string>& cols, const Row& row) {
    std::string s = row[0];
    for (std::size_t i = 1; i <= axis_count(cols); ++i) s += " " + cols[i] + "=" + row[i];
    return s;
}

const char* kExamples =
    "\nexamples:\n"
    "  sbufsim sweep traces/dma_vs_compute.trc --vary tdm.dma_slots=0:8 --out tdm.csv\n"
    "  sbufsim sweep traces/act_vs_matmul_collide.trc --vary arbiter.stage2.pe_rd.prio=0:7 \\\n"
    "      --vary arbiter.stage2.act_wr.prio=0,3,7 --rank-by total_cycles\n"
    "  sbufsim sweep traces/dma_vs_compute.trc --set throttler.act_rd.enable=true \\\n"
    "      --vary throttler.act_rd.window_len=8,16,32 --vary throttler.act_rd.transfer_cnt=2,4,8 \\\n"
    "      --zip --json thr.json\n"
    "  sbufsim sweep T.trc --vary tdm.dma_slots=0:15 --shard $SLURM_ARRAY_TASK_ID/4 --out part.csv\n"
    "\npoints: the cartesian product of the --vary lists, first --vary outermost (or --zip: the\n"
    "lists side by side). Rows: trace, the varied keys, then the metrics below, status, message;\n"
    "trace-major, then point order. --shard I/N runs the I-th of N contiguous blocks of rows; only\n"
    "shard 0 writes the CSV header, so `cat part0.csv part1.csv ...` is the unsharded table.\n"
    "Re-running with the same --out resumes: rows already there are kept and not re-run; rows of\n"
    "other points stay too, and the merged table is sorted by trace, then by each key's value. Rows of\n"
    "another base configuration (--gen, --config, --set) or trace version are replaced only with\n"
    "--force. --out is locked while a sweep writes it: a second sweep on the same file refuses to\n"
    "start. An existing --out that is not a sweep table (a trace, say) is replaced only with --force.\n"
    "Without --vary, one point per trace: the base configuration's row.\n"
    "\nexit status: 0 every point of this sweep ok, 1 some point invalid or failed (see its row), 2 usage "
    "or\n"
    "configuration error or a refused output path, 3 unreadable trace or an output that could not\n"
    "be written, 4 internal error.\n";

struct Options {
    ConfigOptions config;
    std::vector<std::string> traces, vary, metrics;
    std::string shard, out, json, rank_by, log_level;
    std::vector<sweep::Metric> rank_metrics;  // --rank-by's, in order: the later break ties
    unsigned jobs = 0;
    std::size_t top = 20;
    double timeout = 0;
    bool zip = false, quiet = false, no_header = false, force = false, lenient = false;
};

unsigned default_jobs() {
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<unsigned>(n) : 1;
}

std::string metric_help() {
    std::string s = "\ncolumns (--rank-by; best = lowest unless marked 'higher'):\n";
    for (const auto& m : sweep::metrics()) {
        std::string name = m.name;
        name.resize(22, ' ');
        s += "  " + name + m.help;
        if (m.better == sweep::Better::higher) s += " (higher)";
        if (m.better == sweep::Better::none) s += " (not rankable)";
        s += "\n";
    }
    s += "plus any metric --metric names, e.g. engine.pe.busy_fraction, client.act_wr.stall_bank_conflict,\n"
         "critical_path.DMA.share, mfu (sbufsim run --list-metrics lists them all)\n";
    return s;
}

// ---- the worker pool ------------------------------------------------------------------------

struct Worker {
    std::chrono::steady_clock::time_point deadline;
    pid_t pid = -1;
    int fd = -1;
    std::size_t task = 0;  // index into the task list
    std::string data;
};

bool write_all(int fd, const std::string& s) {
    std::size_t done = 0;
    while (done < s.size()) {
        const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<std::size_t>(n);
    }
    return true;
}

// Child side: one simulation, its row on the pipe, then _exit so that no buffered output or
// static destructor of the parent's copy runs twice.
[[noreturn]] void child_main(int fd, const LoadRequest& base, const Job& job) {
    int rc = 0;
    try {
        rc = write_all(fd, sweep::csv_line(sweep::run_job(base, job)) + "\n") ? 0 : 2;
    } catch (...) {
        rc = 3;
    }
    ::_exit(rc);
}

Worker spawn(const LoadRequest& base, const Job& job, std::size_t task) {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        // A sweep killed from outside (scancel, kill -9) must not leave points running.
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        ::close(fds[0]);
        child_main(fds[1], base, job);
    }
    // Close the write end at once so the next children do not inherit it and EOF means "done".
    ::close(fds[1]);
    return Worker{{}, pid, fds[0], task, {}};
}

std::string describe_exit(int status) {
    if (WIFSIGNALED(status)) return "worker killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
    return "worker exited with status " + std::to_string(WEXITSTATUS(status)) + " without a row";
}

// A finished child: its row, or a crashed row when it died or wrote garbage.
Row reap(Worker& w, const Job& job, std::size_t ncols, bool timed_out, double timeout) {
    ::close(w.fd);
    int status = 0;
    while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
    }
    std::string line = w.data;
    if (!line.empty() && line.back() == '\n') line.pop_back();
    auto cells = sweep::parse_csv_line(line);
    if (timed_out)
        return sweep::make_row(job, {}, sweep::kStatusTimeout,
                               "no result after " + sweep::format_real(timeout) +
                                   " s (--timeout), worker killed: the point replays longer than that; raise "
                                   "--timeout to let it finish");
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && cells && cells->size() == ncols) return *cells;
    return sweep::make_row(job, {}, sweep::kStatusCrashed, describe_exit(status));
}


// Runs `tasks` on up to `jobs` children at once; `done(task, row)` is called in completion order.
// Milliseconds until the earliest deadline, -1 (wait forever) without a timeout.
int poll_timeout(const std::vector<Worker>& active, double timeout) {
    if (timeout <= 0 || active.empty()) return -1;
    auto first = active.front().deadline;
    for (const auto& w : active) first = std::min(first, w.deadline);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(first - std::chrono::steady_clock::now()).count();
    return static_cast<int>(std::clamp<long long>(ms + 1, 0, 60'000));
}

template <class Done>
void run_pool(const LoadRequest& base, const std::vector<const Job*>& tasks, unsigned jobs,
              const std::vector<std::string>& cols, double timeout, Done done) {
    const std::size_t ncols = cols.size();
    const auto limit = std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(timeout));
    std::vector<Worker> active;
    std::size_t next = 0;
    while (next < tasks.size() || !active.empty()) {
        while (active.size() < jobs && next < tasks.size()) {
            const Job& j = *tasks[next];
            spdlog::info("running row {}: {}", j.index, describe(cols, sweep::make_row(j, {}, "", "")));
            active.push_back(spawn(base, j, next));
            active.back().deadline = std::chrono::steady_clock::now() + limit;
            ++next;
        }
        std::vector<pollfd> fds;
        fds.reserve(active.size());
        for (const auto& w : active) fds.push_back(pollfd{w.fd, POLLIN, 0});
        if (::poll(fds.data(), fds.size(), poll_timeout(active, timeout)) < 0) {
            if (errno == EINTR) continue;
            throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
        }
        const auto now = std::chrono::steady_clock::now();
        for (std::size_t i = fds.size(); i-- > 0;) {
            const bool expired = timeout > 0 && now >= active[i].deadline;
            if (expired) {
                ::kill(active[i].pid, SIGKILL);
            } else if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) {
                continue;
            }
            char buf[4096];
            const ssize_t n = expired ? 0 : ::read(active[i].fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n > 0) {
                active[i].data.append(buf, static_cast<std::size_t>(n));
                continue;
            }
            Worker w = std::move(active[i]);
            active.erase(active.begin() + static_cast<std::ptrdiff_t>(i));
            done(w.task, reap(w, *tasks[w.task], ncols, expired, timeout));
        }
    }
}

// ---- output ---------------------------------------------------------------------------------

// The final table, in table order: written beside --out and renamed over it (OutputFile), so an
// interruption while rewriting cannot lose the rows.
void write_csv_file(OutputFile& file, const std::vector<std::string>& cols, const std::vector<Row>& rows, bool header) {
    std::ostream& f = file.stream();
    if (header) f << sweep::csv_line(cols) << "\n";
    for (const auto& r : rows) f << sweep::csv_line(r) << "\n";
    file.commit();
}

// A file this sweep may resume and rewrite: a CSV whose first line is a header or a row.
std::function<bool(std::string_view)> sweep_table_kind(std::size_t ncols) {
    return [ncols](std::string_view head) {
        const std::string first(head.substr(0, head.find('\n')));
        const auto cells = sweep::parse_csv_line(first);
        return cells && (cells->size() == ncols || (!cells->empty() && cells->front() == "trace"));
    };
}

// The rows journal: --out opened for appending and locked, so that two sweeps never write one
// table (the second refuses) and a sweep killed midway leaves every finished row behind.
class Journal {
public:
    explicit Journal(const std::string& path) : path_(path) {
        fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
        if (fd_ < 0)
            throw OutputError(OutputError::Kind::refused, "cannot write --out " + path + ": " + std::strerror(errno));
        if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
            const int err = errno;
            ::close(fd_);
            throw OutputError(OutputError::Kind::refused,
                              "--out " + path + ": " +
                                  (err == EWOULDBLOCK ? std::string("another sweep is writing it (the file is locked)")
                                                      : std::string("cannot lock it: ") + std::strerror(err)) +
                                  "; wait for that sweep to finish, or pass another --out");
        }
    }
    ~Journal() {
        if (fd_ >= 0) ::close(fd_);   // releases the lock
    }
    Journal(const Journal&) = delete;
    Journal& operator=(const Journal&) = delete;
    // Appends; the first failure is kept (the final rewrite reports it).
    void write(const std::string& text) {
        if (error_ == 0 && !write_all(fd_, text)) error_ = errno ? errno : EIO;
    }
    // Throws OutputError(io) when an append failed.
    void check() const {
        if (error_ != 0)
            throw OutputError(OutputError::Kind::io, "cannot write --out " + path_ + ": " + std::strerror(error_));
    }

private:
    std::string path_;
    int fd_ = -1;
    int error_ = 0;
};

// A metric column asked for with --metric or --rank-by (not one of the default columns).
bool extra_metric(const std::string& col) {
    const auto& d = sweep::metrics();
    return col != "message" && col != "status" && col != "base" && col != "base_digest" &&
           std::none_of(d.begin(), d.end(), [&](const sweep::Metric& m) { return m.name == col; });
}

void print_table(std::ostream& os, const std::vector<std::string>& cols, const std::vector<Row>& rows,
                 const std::vector<std::size_t>& order, std::size_t top) {
    // The terminal shows the varied keys and the headline metrics; the files hold every column.
    // The worst p99 goes with its client: a long request (a matmul's PSUM write of 240 beats)
    // has that latency by its length, not by waiting, and only the name tells which it is.
    static const std::vector<std::string> shown = {
        "total_cycles", "pe_utilisation",    "bank_conflict_stalls", "tdm_stalls",    "throttle_stalls",
        "dma_gbps",     "worst_p99_latency", "worst_p99_client",     "jain_fairness", "status"};
    std::vector<std::size_t> pick;
    // The trace column only when the rows shown are of several traces.
    const bool many_traces = std::any_of(order.begin(), order.end(),
                                         [&](std::size_t i) { return rows[i][0] != rows[order[0]][0]; });
    if (many_traces) pick.push_back(0);
    for (std::size_t c = 1; c <= axis_count(cols); ++c) pick.push_back(c);
    for (std::size_t c = axis_count(cols) + 1; c < cols.size(); ++c)
        if (std::find(shown.begin(), shown.end(), cols[c]) != shown.end() || extra_metric(cols[c])) pick.push_back(c);
    const std::size_t n = top == 0 ? order.size() : std::min(top, order.size());
    std::vector<std::size_t> width;
    for (auto c : pick) {
        std::size_t w = cols[c].size();
        for (std::size_t i = 0; i < n; ++i) w = std::max(w, rows[order[i]][c].size());
        width.push_back(w);
    }
    auto line = [&](auto cell) {
        for (std::size_t k = 0; k < pick.size(); ++k)
            os << (k ? "  " : "") << std::setw(static_cast<int>(width[k])) << cell(pick[k]);
        os << "\n";
    };
    line([&](std::size_t c) { return cols[c]; });
    for (std::size_t i = 0; i < n; ++i) line([&](std::size_t c) { return rows[order[i]][c]; });
    if (n < order.size()) os << "... " << order.size() - n << " more rows (--top 0 shows all)\n";
}

// How the rows came about: points run now, points found already in --out, rows of other points
// an earlier sweep left there.
struct RowCounts {
    std::size_t ran = 0, kept = 0, earlier = 0;
};

std::size_t metric_column(const std::vector<std::string>& cols, const sweep::Metric& m) {
    return static_cast<std::size_t>(std::find(cols.begin(), cols.end(), m.name) - cols.begin());
}

std::size_t ok_rows(const std::vector<std::string>& cols, const std::vector<Row>& rows,
                    const std::vector<std::size_t>& which) {
    const std::size_t status_col = cols.size() - 2;
    return static_cast<std::size_t>(std::count_if(
        which.begin(), which.end(), [&](std::size_t i) { return rows[i][status_col] == sweep::kStatusOk; }));
}

// A best value several points share: the ranking's first is not a choice among them. `best`:
// the first row. `what`: "points", or "traces" when each row is a trace's (one tiling each).
// A tie-break metric goes after the ones given, so that it orders the tying rows only (ranking
// by it alone would rank the whole table by it, slower points first).
std::string tie_note(std::size_t ties, std::size_t ok, const std::vector<std::string>& cols, const Row& best,
                     const std::vector<sweep::Metric>& ms, const char* what = "points") {
    std::string names, values;
    for (const auto& m : ms) {
        names += (names.empty() ? "" : ",") + m.name;
        values += (values.empty() ? "" : ", ") + m.name + " " + best[metric_column(cols, m)];
    }
    const std::string them = ms.size() == 1 ? ms[0].name + " does not" : "they do not";
    return std::to_string(ties) + " of " + std::to_string(ok) + " ok " + what + " tie at the best " +
           (ms.size() == 1 ? ms[0].name + " (" + best[metric_column(cols, ms[0])] + ")"
                           : "(" + values + ")") +
           ": " + them +
           " tell them apart; to choose among them by another metric, rank by it after these (--rank-by " +
           names + ",METRIC)";
}

// --rank-by: best first within each trace (traces differ in scale: ranking one trace's rows
// against another's would compare the traces, not the settings), each trace its own table.
void print_ranked(std::ostream& os, const Options& o, const std::vector<std::string>& cols,
                  const std::vector<Row>& rows) {
    const std::vector<sweep::Metric>& ms = o.rank_metrics;
    const auto order = sweep::rank(cols, rows, ms);
    std::vector<std::string> traces;  // in order of first appearance
    for (const auto& r : rows)
        if (std::find(traces.begin(), traces.end(), r[0]) == traces.end()) traces.push_back(r[0]);
    const bool one_row_each = traces.size() > 1 && rows.size() == traces.size();
    os << "best first by ";
    for (std::size_t k = 0; k < ms.size(); ++k)
        os << (k ? ", then " : "") << ms[k].name << " ("
           << (ms[k].better == sweep::Better::higher ? "highest" : "lowest") << " first)";
    os << (one_row_each        ? ", one row per trace"
           : traces.size() > 1 ? ", ranked within each trace"
                               : "")
       << "\n";
    if (one_row_each) {
        print_table(os, cols, rows, order, o.top);
        if (const std::size_t ties = sweep::ties_at_best(cols, rows, order, ms); ties > 1)
            os << tie_note(ties, ok_rows(cols, rows, order), cols, rows[order[0]], ms, "traces") << "\n";
        return;
    }
    std::string tied;  // the traces whose best is a tie, for the comparison below
    for (const auto& t : traces) {
        std::vector<std::size_t> mine;
        for (const auto i : order)
            if (rows[i][0] == t) mine.push_back(i);
        if (traces.size() > 1) os << "\n" << t << ":\n";
        print_table(os, cols, rows, mine, o.top);
        if (const std::size_t ties = sweep::ties_at_best(cols, rows, mine, ms); ties > 1) {
            os << tie_note(ties, ok_rows(cols, rows, mine), cols, rows[mine[0]], ms) << "\n";
            tied += (tied.empty() ? "" : ", ") + t;
        }
    }
    if (traces.size() < 2) return;
    // The first row of each trace in the overall ranking is its best, and they come best first:
    // the comparison to read when the traces compute the same thing (two tilings of one GEMM).
    std::vector<std::size_t> bests;
    std::vector<std::string> seen;
    for (const auto i : order)
        if (std::find(seen.begin(), seen.end(), rows[i][0]) == seen.end())
            seen.push_back(rows[i][0]), bests.push_back(i);
    os << "\neach trace's best, best first (a comparison where the traces compute the same thing, such "
          "as two tilings):\n";
    print_table(os, cols, rows, bests, 0);
    if (const std::size_t ties = sweep::ties_at_best(cols, rows, bests, ms); ties > 1)
        os << tie_note(ties, ok_rows(cols, rows, bests), cols, rows[bests[0]], ms, "traces") << "\n";
    if (!tied.empty())
        os << "(the best of " << tied
           << " is one of several tying points: its settings are the first of them in "
              "sweep order, not a choice)\n";
}

void print_summary(std::ostream& os, const Options& o, const std::vector<std::string>& cols,
                   const std::vector<Row>& rows, RowCounts counts, double seconds) {
    if (o.rank_by.empty()) {
        std::vector<std::size_t> order(rows.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        print_table(os, cols, rows, order, o.top);
    } else {
        print_ranked(os, o, cols, rows);
    }
    const std::size_t status_col = cols.size() - 2;
    constexpr std::size_t kFailuresShown = 10;
    std::size_t bad = 0;
    for (const auto& r : rows)
        if (r[status_col] != sweep::kStatusOk && ++bad <= kFailuresShown)
            os << "  " << r[status_col] << ": " << describe(cols, r) << ": " << r.back() << "\n";
    if (bad > kFailuresShown) os << "  ... " << bad - kFailuresShown << " more (see the status and message columns)\n";
    for (const auto& key : sweep::keys_without_effect(cols, rows, axis_count(cols)))
        os << "note: " << key
           << " changed no metric: the points that differ in it alone gave the same results "
           << "(does this configuration and trace use it?)\n";
    os << rows.size() << " rows: " << rows.size() - bad << " ok, " << bad << " not ok; ran " << counts.ran
       << " point" << (counts.ran == 1 ? "" : "s") << " in " << format_fixed(seconds, 1) << " s on " << o.jobs
       << " worker" << (o.jobs == 1 ? "" : "s");
    if (counts.kept) os << "; " << counts.kept << " already in " << o.out << " (resumed, not re-run)";
    if (counts.earlier)
        os << "; " << counts.earlier << " of other points kept from an earlier sweep in " << o.out
           << " (they do not decide the exit status)";
    os << "\n";
}

// ---- command --------------------------------------------------------------------------------

// Everything in the base configuration but how its keys go together (a point's values may make
// it consistent): files that cannot be read, unknown keys, values of the wrong type or range
// stop the sweep before any point runs, as they would stop `sbufsim run`.
void check_base(const LoadRequest& base) {
    LoadRequest req = base;
    req.cross_check = false;
    load_config(req);
}

bool ends_with_newline(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    f.seekg(-1, std::ios::end);
    char c = 0;
    return f.get(c) && c == '\n';
}

// --json names a sweep's JSON whose rows have other columns: another sweep's results, which
// replacing would lose (as --out refuses a table of other columns). Refused unless --force.
void refuse_other_sweep_json(const std::string& path, const std::vector<std::string>& cols) {
    namespace pt = boost::property_tree;
    std::ifstream in(path, std::ios::binary);
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    if (!in.gcount() || !is_sweep_json(head))
        return;  // absent, unreadable or not a sweep's: OutputFile says why
    pt::ptree rows;
    try {
        pt::read_json(path, rows);
    } catch (const pt::json_parser_error&) {
        return;  // cut off: not one whose rows could be lost
    }
    if (rows.empty()) return;
    std::vector<std::string> keys;
    for (const auto& [key, _] : rows.front().second) keys.push_back(key);
    if (keys == cols) return;
    std::string list;
    for (std::size_t i = 1; i < keys.size() && i < 4; ++i) list += (i > 1 ? ", " : "") + keys[i];
    throw OutputError(OutputError::Kind::refused,
                      "--json " + path + ": holds another sweep's rows (columns trace, " + list +
                          (keys.size() > 4 ? ", ..." : "") +
                          "), which replacing it would lose; write this sweep to another --json, or pass "
                          "--force to replace it");
}

// The digest of a row's trace that cannot be read now, followed by why (digest_of in cmd_sweep).
constexpr std::string_view kUnreadableTrace = "unreadable: ";

// Rows of --out computed under another base configuration or from another version of a trace are
// stale: a table holds one base configuration, so this sweep would replace those it runs again and
// drop the others. Either way an earlier experiment's results would go: refused unless --force,
// before any point runs, naming how many and one of them.
template <class DigestOf>
void drop_stale_rows(std::vector<Row>& existing, const Options& o, const std::vector<std::string>& cols,
                     const std::vector<Job>& jobs, std::pair<std::size_t, std::size_t> range,
                     std::size_t axes, DigestOf& digest_of, std::ostream& err) {
    const std::size_t digest_col = cols.size() - 3;
    std::set<std::string> runs;
    for (std::size_t i = range.first; i < range.second; ++i)
        runs.insert(sweep::row_key(sweep::make_row(jobs[i], {}, "", ""), axes));
    std::size_t rerun = 0, lost_count = 0;
    const Row* stale = nullptr;
    for (const Row& r : existing) {
        if (r[digest_col] == digest_of(r[0])) continue;
        if (!stale) stale = &r;
        ++(runs.count(sweep::row_key(r, axes)) ? rerun : lost_count);
    }
    if (!stale) return;
    const auto rows = [](std::size_t n) { return std::to_string(n) + (n == 1 ? " row" : " rows"); };
    if (!o.force) {
        std::string point;
        for (std::size_t a = 1; a <= axes && a < stale->size(); ++a)
            point += (a > 1 ? ", " : "") + cols[a] + "=" + (*stale)[a];
        const std::string fate = !lost_count ? "this sweep would run their points again and replace them"
                                 : !rerun ? "this sweep does not run their points again: they would be lost"
                                          : "this sweep would replace " + rows(rerun) +
                                                " and lose the other " + std::to_string(lost_count);
        const std::string& d = digest_of((*stale)[0]);
        const std::string origin = d.starts_with(kUnreadableTrace)
                                       ? " came from a trace that " + d.substr(kUnreadableTrace.size()) + " ("
                                       : " came from another base configuration (--gen, --config, --set) or "
                                         "another version of the trace (";
        throw OutputError(OutputError::Kind::refused,
                          "--out " + o.out + ": " + rows(rerun + lost_count) + origin + (*stale)[0] +
                              (point.empty() ? "" : ", " + point) + "), and " + fate +
                              ". Write this sweep to another --out, or pass --force to " +
                              (lost_count ? "drop them" : "replace them"));
    }
    std::erase_if(existing, [&](const Row& r) { return r[digest_col] != digest_of(r[0]); });
    if (rerun)
        err << "sbufsim sweep: " << rows(rerun) << " of " << o.out
            << " came from another base configuration (--gen, --config, --set) or another version of the "
               "trace; they are run again (--force)\n";
    if (lost_count)
        err << "sbufsim sweep: " << rows(lost_count) << " of " << o.out
            << " came from another base configuration or another version of the trace and are not in this "
               "sweep: dropped (--force)\n";
}

// `name` with an underscore before its trailing digits ("dma0" -> "dma_0"); "" when it has no
// trailing digits or already has the underscore.
std::string numbered_member(const std::string& name) {
    std::size_t digits = name.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(name[digits - 1]))) --digits;
    if (digits == 0 || digits == name.size() || name[digits - 1] == '_') return "";
    return name.substr(0, digits) + "_" + name.substr(digits);
}

// A --vary of a gen option (block_n, bufs, dtype): a tiling is a trace of its own, so the way to
// compare tilings is one trace each, swept together, not a key of the configuration.
void refuse_gen_option(const sweep::Axis& a) {
    std::string dashed = a.key;
    std::replace(dashed.begin(), dashed.end(), '_', '-');
    if (find_key(a.key) || !is_gen_workload_option(dashed)) return;
    throw ConfigError(
        "--vary '" + a.arg + "': '" + a.key + "' is an option of sbufsim gen (--" + dashed +
        "), not a configuration key: a sweep varies the configuration over fixed traces. Write one "
        "trace per value (sbufsim gen ... --" +
        dashed +
        " V -o t_V.sbt) and sweep them together "
        "(sbufsim sweep t_1.sbt t_2.sbt ... --vary KEY=...; the table's trace column tells them "
        "apart), or loop over sbufsim.generate() in Python (docs/python.md)");
}

// A --metric or --rank-by of a family member no run had (engine.dma0 for dma_0) is empty in every
// ok row. Which members a run has is known only once it ran, so the name passed the checks
// before the sweep: it is said now rather than left as a silent empty column.
void warn_empty_metrics(const Options& o, const std::vector<std::string>& cols, const std::vector<Row>& rows,
                        std::ostream& err) {
    const std::size_t status_col = cols.size() - 2;
    for (const std::string& m : o.metrics) {
        const auto col = std::find(cols.begin(), cols.end(), m);
        if (col == cols.end()) continue;
        const std::size_t c = static_cast<std::size_t>(col - cols.begin());
        bool any_ok = false, any_value = false;
        for (const Row& r : rows) {
            if (r[status_col] != sweep::kStatusOk) continue;
            any_ok = true;
            any_value |= !r[c].empty();
        }
        if (!any_ok || any_value) continue;
        const std::size_t dot = m.find('.'), last = m.rfind('.');
        const std::string name = dot != last ? m.substr(dot + 1, last - dot - 1) : "";
        const std::string member =
            dot != last ? " had a '" + name + "' in its " + m.substr(0, dot) + " family" : " gave it a value";
        // The numbered members are named prefix_K (dma_0, q7_3, pe_client_1): "dma0" is one of them.
        const std::string numbered = numbered_member(name);
        err << "sbufsim sweep: warning: " << m << " is empty in every ok row: no run" << member
            << (numbered.empty() ? " (a misspelt name, or one these traces never use;"
                                 : " (did you mean " + m.substr(0, dot + 1) + numbered + m.substr(last) + "?")
            << " sbufsim run TRACE --json - lists each family's names)\n";
    }
}

// A trace with races between queues (hazard_check.h): every row times them as they happen to
// fall, so it is said once, before the points run, as `sbufsim run` says it of one run. A trace
// or configuration that does not load is left to the points, which report it.
void warn_races(const LoadRequest& base, const std::string& trace, std::ostream& err) {
    try {
        TraceReader reader(trace);
        LoadRequest req = base;
        adopt_trace_generation(req, reader.header().generation);
        const RaceScan scan = scan_races(load_config(req).params, reader);
        if (scan.races == 0) return;
        err << "sbufsim sweep: warning: " << races_warning(trace, scan.races, scan.first.front(), "every row")
            << "\n";
    } catch (const std::runtime_error&) {}
}

// Under --lenient, rows whose replay skipped invalid records describe only part of their trace.
void warn_skipped_records(const std::vector<std::string>& cols, const std::vector<Row>& rows,
                          const char* column, std::ostream& err) {
    const std::size_t c =
        static_cast<std::size_t>(std::find(cols.begin(), cols.end(), column) - cols.begin());
    std::size_t partial = 0;
    for (const Row& r : rows) partial += c < r.size() && !r[c].empty() && r[c] != "0";
    if (partial)
        err << "sbufsim sweep: warning: " << partial << " of " << rows.size()
            << " rows skipped invalid records "
            << "(--lenient; column " << column << "): their results cover only part of their trace\n";
}

// Rows of this shard in table order (resumed or new), then rows of the file no job produced.
// The table to write: this sweep's rows and the rows of other points an earlier sweep left in
// --out (`earlier` of them), merged in point order; `own`: this sweep's rows in point order (the
// JSON, and whether every one is ok decides the exit status).
struct Assembled {
    std::vector<Row> rows, own;
    std::size_t earlier = 0;
};

Assembled assemble(const std::vector<Job>& jobs, std::pair<std::size_t, std::size_t> range,
                   std::map<std::string, Row>& have, std::size_t axes, const std::vector<Row>& existing) {
    Assembled a;
    for (std::size_t i = range.first; i < range.second; ++i) {
        const auto it = have.find(sweep::row_key(sweep::make_row(jobs[i], {}, "", ""), axes));
        if (it == have.end()) continue;
        a.own.push_back(it->second);
        have.erase(it);
    }
    a.rows = a.own;
    for (const auto& r : existing)
        if (have.count(sweep::row_key(r, axes))) a.rows.push_back(r), ++a.earlier;
    // Without earlier rows the table keeps the point order (shards concatenate to the whole).
    if (a.earlier) sweep::sort_by_point(a.rows, axes);
    return a;
}

}  // namespace

namespace {

// The notes `run` would print for the points' settings (a throttler key while that throttler is
// off, a limit that never binds), before any point runs: a flat sweep of such a key is said to
// be flat for that reason, not left to a guess.
void note_point_settings(Io io, const std::vector<std::string>& notes) {
    constexpr std::size_t kShown = 5;
    for (std::size_t i = 0; i < notes.size() && i < kShown; ++i)
        io.err << "sbufsim sweep: note: " << notes[i] << "\n";
    if (notes.size() > kShown)
        io.err << "sbufsim sweep: note: ... " << notes.size() - kShown << " more of this kind\n";
}

}  // namespace

namespace {

int sweep_command(const std::vector<std::string>& args, Io io, bool options_only) {
    Options o;
    po::options_description desc("sbufsim sweep TRACE... [--vary KEY=VALUES]... [options]");
    // clang-format off
    desc.add_options()("help,h", "show this help")
        ("vary,v", po::value(&o.vary)->composing()->value_name("KEY=V1,V2|LO:HI[:STEP]"),
         "vary a config key over a list or an inclusive numeric range (repeatable)")
        ("zip", po::bool_switch(&o.zip), "pair the --vary lists side by side instead of the cartesian product")
        ("jobs,j", po::value(&o.jobs)->value_name("N"), "worker processes (default: all cores)")
        ("shard", po::value(&o.shard)->value_name("I/N"), "run only the I-th of N contiguous blocks of rows")
        ("out,o", po::value(&o.out)->value_name("FILE"), "CSV table ('-' = stdout); re-running resumes it")
        ("json", po::value(&o.json)->value_name("FILE"), "the rows as a JSON array ('-' = stdout)")
        ("rank-by", po::value(&o.rank_by)->value_name("METRIC[,METRIC...]"),
         "terminal summary: best points first (any registered metric; added as a column if needed); "
         "a later metric orders the points the earlier ones tie")
        ("metric,m", po::value(&o.metrics)->composing()->value_name("METRIC"),
         "add a metric column (repeatable; per engine, client or critical-path group too: "
         "engine.pe.busy_fraction; sbufsim run --list-metrics)")
        ("top", po::value(&o.top)->value_name("N"), "rows in the terminal summary (default 20, 0 = all)")
        ("no-header", po::bool_switch(&o.no_header), "no CSV header (default for shards other than 0)")
        ("timeout", po::value(&o.timeout)->value_name("SEC"),
         "kill a point still running after SEC seconds; its row says 'timeout' (default 0: no limit)")
        ("lenient", po::bool_switch(&o.lenient),
         "skip invalid records (counted in run.skipped_records) instead of failing the point, as run "
         "--lenient; e.g. a trace of another generation under --gen")
        ("quiet,q", po::bool_switch(&o.quiet), "no progress bar and no summary");
    // clang-format on
    add_force_option(desc, o.force);
    add_log_level_option(desc, o.log_level);
    desc.add(config_options(o.config));
    po::options_description hidden;
    hidden.add_options()("trace", po::value(&o.traces)->composing(), "trace files");
    po::positional_options_description pos;
    pos.add("trace", -1);
    po::options_description all;
    all.add(desc).add(hidden).add(key_flag_options());
    const ParsedArgs args_in = parse_args(args, all, &pos, o.log_level);
    const auto& parsed = args_in.parsed;
    const auto& vm = args_in.vm;
    if (vm.count("help")) {
        io.out << "Replay traces over many configurations, in parallel worker processes, one row per\n"
                  "(trace, point), and write the table as CSV and/or JSON.\n\n"
               << desc << metric_help() << kExamples;
        return kExitOk;
    }
    if (o.traces.empty()) throw ConfigError("no trace given (sbufsim sweep TRACE... --vary KEY=VALUES)");
    if (std::find(o.traces.begin(), o.traces.end(), "-") != o.traces.end())
        throw ConfigError(
            "trace '-' (standard input): a sweep replays each trace once per point; write it to a "
            "file first (sbufsim gen ... -o T.sbt)");
    if (!vm.count("jobs")) o.jobs = default_jobs();
    if (o.jobs == 0) throw ConfigError("--jobs must be at least 1");
    if (const std::string why = timeout_problem(o.timeout); !why.empty()) throw ConfigError(why);
    if (o.out == "-" && o.json == "-")
        throw ConfigError("--out - and --json - both ask for stdout; write one of them to a file (e.g. --out - --json rows.json)");
    for (const std::string& name : o.rank_by.empty() ? std::vector<std::string>{} : split(o.rank_by, ',')) {
        const auto m = sweep::find_metric(name);
        if (!m)
            throw ConfigError("--rank-by '" + name + "': not a registered metric" + metric_suggestion(name) +
                              " (sbufsim run --list-metrics lists them)");
        if (m->better == sweep::Better::none)
            throw ConfigError("--rank-by '" + name + "': a metric without a better direction (" + m->help +
                              "); rank by a number such as total_cycles");
        o.rank_metrics.push_back(*m);
        o.metrics.push_back(name);
    }
    // A lenient point may have replayed part of its trace: the table says how much it skipped.
    constexpr const char* kSkipped = "run.skipped_records";
    if (o.lenient && std::find(o.metrics.begin(), o.metrics.end(), kSkipped) == o.metrics.end())
        o.metrics.emplace_back(kSkipped);
    const std::vector<std::string> metric_columns = sweep::metric_names(o.metrics);
    // A file is one trace however it is spelt (sweep::trace_key: resumed rows match), so naming
    // it twice is refused.
    for (std::size_t i = 0; i < o.traces.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (sweep::trace_key(o.traces[j]) == sweep::trace_key(o.traces[i]) ||
                (file_id(o.traces[i]).exists() && file_id(o.traces[j]) == file_id(o.traces[i])))
                throw ConfigError("traces " + o.traces[j] + " and " + o.traces[i] +
                                  " are the same file: give each trace once");
    for (const auto& t : options_only ? std::vector<std::string>{} : o.traces) {
        try {
            TraceReader check(t);
        } catch (const TraceFormatError& e) {
            io.err << "sbufsim sweep: " << e.error().to_string() << shipped_trace_hint(t) << "\n";
            // `--vary tdm.dma_slots=1, 2`: the shell split the list and the value became a trace.
            if (e.error().field == "file" && !t.empty() &&
                (t.find('=') != std::string::npos ||
                 t.find_first_not_of("0123456789.,:-") == std::string::npos))
                io.err << "sbufsim sweep: '" << t
                       << "' was read as a trace: a space in a --vary or --set list splits it; write "
                          "the list without spaces (--vary KEY=1,2) or quote it\n";
            return kExitInput;
        }
    }

    std::vector<sweep::Axis> axes;
    for (const auto& v : o.vary) axes.push_back(sweep::parse_vary(v));
    const LoadRequest base = make_load_request(o.config, parsed);
    check_base(base);
    for (const auto& a : axes) refuse_gen_option(a);
    axes = sweep::check_keys(std::move(axes), base);
    if (options_only) return kExitOk;
    const auto points = sweep::expand(axes, o.zip);
    note_point_settings(io, sweep::point_notes(base, axes, points));
    for (const auto& t : o.traces) warn_races(base, t, io.err);
    auto jobs = sweep::make_jobs(o.traces, axes, points, metric_columns);
    // What every row depends on besides its point: resume keeps rows only with the same digest.
    // A row's trace that cannot be read now (moved or deleted since) has the reason for digest,
    // which matches no row's: the row is stale, and drop_stale_rows() says why.
    std::map<std::string, std::string> digests;
    auto digest_of = [&](const std::string& trace) -> const std::string& {
        auto it = digests.find(trace);
        if (it == digests.end()) {
            std::string d;
            try {
                d = sweep::base_digest(base, trace, o.lenient);
            } catch (const std::runtime_error&) {
                std::error_code ec;
                d = std::string(kUnreadableTrace) +
                    (std::filesystem::exists(trace, ec) ? "cannot be read now" : "no longer exists");
            }
            it = digests.emplace(trace, std::move(d)).first;
        }
        return it->second;
    };
    const std::string settings = sweep::base_settings(base, o.lenient);
    for (auto& j : jobs) {
        j.base = settings;
        j.base_digest = digest_of(j.trace);
        j.lenient = o.lenient;
    }
    const sweep::Shard shard = o.shard.empty() ? sweep::Shard{} : sweep::parse_shard(o.shard);
    const auto range = sweep::shard_range(jobs.size(), shard);
    const bool header = !o.no_header && shard.index == 0;
    const auto cols = sweep::columns(axes, metric_columns);
    const bool file_out = !o.out.empty() && o.out != "-";

    // Both outputs are checked (and --out locked) before any point runs.
    std::vector<std::string> inputs = o.traces;
    inputs.insert(inputs.end(), o.config.files.begin(), o.config.files.end());
    check_distinct_outputs({{"--out", o.out}, {"--json", o.json}});
    std::unique_ptr<OutputFile> table_file, json_file;
    std::unique_ptr<Journal> journal;
    if (file_out) {
        OutputPolicy policy = output_policy("--out", nullptr, o.force, inputs);
        policy.own_kind = sweep_table_kind(cols.size());
        table_file = std::make_unique<OutputFile>(o.out, policy);
        journal = std::make_unique<Journal>(o.out);
    }
    if (!o.json.empty() && o.json != "-") {
        if (!o.force) refuse_other_sweep_json(o.json, cols);
        json_file = std::make_unique<OutputFile>(o.json, output_policy("--json", is_sweep_json, o.force, inputs));
    }

    // Resume: rows already in --out are kept as they are; only the missing ones run.
    std::vector<Row> existing = file_out ? sweep::read_existing(o.out, cols) : std::vector<Row>{};
    drop_stale_rows(existing, o, cols, jobs, range, axes.size(), digest_of, io.err);
    std::map<std::string, Row> have;
    for (const auto& r : existing) have.emplace(sweep::row_key(r, axes.size()), r);
    std::vector<const Job*> tasks;
    for (std::size_t i = range.first; i < range.second; ++i)
        if (!have.count(sweep::row_key(sweep::make_row(jobs[i], {}, "", ""), axes.size()))) tasks.push_back(&jobs[i]);
    const std::size_t kept = (range.second - range.first) - tasks.size();

    // Rows are appended as they finish, so an interrupted sweep leaves every finished row behind;
    // the file is rewritten in table order at the end.
    if (journal) {
        std::error_code ec;   // a device (/dev/null) has no size: it starts fresh
        const bool fresh = std::filesystem::file_size(o.out, ec) == 0 || ec;
        if (fresh && header) journal->write(sweep::csv_line(cols) + "\n");
        if (!fresh && !ends_with_newline(o.out)) journal->write("\n");  // end a row cut off mid-line
    }
    Progress progress(io.err, !o.quiet && &io.err == &std::cerr && Progress::stderr_is_terminal(), tasks.size(), "sweep",
                      "pt");
    progress.update(0);
    std::size_t finished = 0;
    run_pool(base, tasks, o.jobs, cols, o.timeout, [&](std::size_t, Row row) {
        if (journal) journal->write(sweep::csv_line(row) + "\n");
        have[sweep::row_key(row, axes.size())] = std::move(row);
        progress.update(++finished);
    });
    progress.finish();

    const Assembled table = assemble(jobs, range, have, axes.size(), existing);
    const std::vector<Row>& rows = table.rows;
    warn_empty_metrics(o, cols, rows, io.err);
    if (o.lenient) warn_skipped_records(cols, rows, kSkipped, io.err);
    if (journal) {
        journal->check();
        write_csv_file(*table_file, cols, rows, header);
        journal.reset();   // the lock goes once the table is in place
    }
    if (o.out == "-") {
        if (header) io.out << sweep::csv_line(cols) << "\n";
        for (const auto& r : rows) io.out << sweep::csv_line(r) << "\n";
    }
    // The JSON is this sweep's points (run now or found in --out), as a caller asked for them;
    // --out keeps every row, earlier sweeps' other points too.
    const std::vector<Row>& own = table.own;
    if (o.json == "-") {
        sweep::write_json(io.out, cols, own);
    } else if (json_file) {
        sweep::write_json(json_file->stream(), cols, own);
        json_file->commit();
    }
    if (!o.quiet && o.out != "-" && o.json != "-")
        print_summary(io.out, o, cols, rows, {tasks.size(), kept, table.earlier}, progress.seconds());
    // Rows of other points kept from an earlier sweep do not decide this sweep's status.
    const std::size_t status_col = cols.size() - 2;
    const bool own_ok =
        std::all_of(own.begin(), own.end(), [&](const Row& r) { return r[status_col] == sweep::kStatusOk; });
    return own_ok ? kExitOk : kExitFindings;
}

}  // namespace

int cmd_sweep(const std::vector<std::string>& args, Io io) { return sweep_command(args, io, false); }

int check_sweep_options(const std::vector<std::string>& args, Io io) { return sweep_command(args, io, true); }

}  // namespace sbufsim::cli
