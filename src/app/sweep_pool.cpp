// The sweep's worker pool (sweep_parts.h): one forked child per point, its row through a pipe.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>

#include <spdlog/spdlog.h>

#include "sweep_parts.h"

namespace sbufsim::app::sweep_parts {

namespace {

struct Worker {
    std::chrono::steady_clock::time_point deadline;
    pid_t pid = -1;
    int fd = -1;
    std::size_t task = 0;  // index into the task list
    std::string data;
};

}  // namespace

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

namespace {

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
    if (WIFSIGNALED(status))
        return "worker killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
               strsignal(WTERMSIG(status)) + ")";
    return "worker exited with status " + std::to_string(WEXITSTATUS(status)) + " without a row";
}

// A finished child: its row, or a crashed row when it died or wrote garbage.
Row reap(Worker& w, const Job& job, std::size_t ncols, bool timed_out, double timeout) {
    ::close(w.fd);
    int status = 0;
    while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {}
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

// Milliseconds until the earliest deadline, -1 (wait forever) without a timeout.
int poll_timeout(const std::vector<Worker>& active, double timeout) {
    if (timeout <= 0 || active.empty()) return -1;
    auto first = active.front().deadline;
    for (const auto& w : active) first = std::min(first, w.deadline);
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(first - std::chrono::steady_clock::now())
            .count();
    return static_cast<int>(std::clamp<long long>(ms + 1, 0, 60'000));
}

}  // namespace

void run_pool(const LoadRequest& base, const std::vector<const Job*>& tasks, unsigned jobs,
              const std::vector<std::string>& cols, double timeout,
              const std::function<void(std::size_t, Row)>& done) {
    const std::size_t ncols = cols.size();
    const auto limit = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(timeout));
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

}  // namespace sbufsim::app::sweep_parts
