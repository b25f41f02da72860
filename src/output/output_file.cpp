#include "sbufsim/output/output_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <streambuf>
#include <vector>

namespace sbufsim {

namespace {

std::string os_reason(int err) { return std::strerror(err); }

OutputError refused(const std::string& what) { return OutputError(OutputError::Kind::refused, what); }

// Every byte to `fd`, retrying short writes and EINTR; the errno of the failure, else 0.
int write_all(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return errno;
        if (n == 0) return EIO;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return 0;
}

// The first bytes of an existing file, for the caller's kind test.
std::string head_of(const std::string& path) {
    std::string head(4096, '\0');
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return {};
    const ssize_t n = ::read(fd, head.data(), head.size());
    ::close(fd);
    head.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return head;
}

// A device or FIFO opened for writing. A FIFO no program reads would block the open forever: it
// is opened without waiting, and refused when nobody reads it (ENXIO).
int open_in_place(const std::string& path, bool fifo, const std::string& what) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | (fifo ? O_NONBLOCK : 0));
    if (fd < 0 && fifo && errno == ENXIO)
        throw refused("cannot write " + what + ": a FIFO that no program is reading; start its reader first");
    if (fd < 0) throw refused("cannot write " + what + ": " + os_reason(errno));
    if (fifo) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);  // then writes wait for the reader
    return fd;
}

mode_t default_mode() {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return 0666 & ~mask;
}

}  // namespace

FdStreamBuf::FdStreamBuf(int fd, bool owned)
    : fd_(fd), owned_(owned), data_(std::make_unique_for_overwrite<char[]>(kSize)) {
    setp(data_.get(), data_.get() + kSize);
}

FdStreamBuf::~FdStreamBuf() {
    if (owned_ && fd_ >= 0) ::close(fd_);
}

bool FdStreamBuf::drain() {
    if (error_ == 0 && pptr() > pbase()) error_ = write_all(fd_, pbase(), static_cast<std::size_t>(pptr() - pbase()));
    setp(data_.get(), data_.get() + kSize);
    return error_ == 0;
}

bool FdStreamBuf::close(bool sync) {
    if (!drain() || fd_ < 0) return error_ == 0;
    if (sync && ::fsync(fd_) != 0 && errno != EINVAL) error_ = errno;
    if (owned_) {
        if (::close(fd_) != 0 && error_ == 0) error_ = errno;
        fd_ = -1;
    }
    return error_ == 0;
}

FdStreamBuf::int_type FdStreamBuf::overflow(int_type c) {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
        *pptr() = traits_type::to_char_type(c);
        pbump(1);
    }
    return traits_type::not_eof(c);
}

int FdStreamBuf::sync() { return drain() ? 0 : -1; }

namespace {

// The temporaries a fatal signal must not leave behind, in fixed slots: the handler may not
// allocate or lock. A slot is claimed with an atomic flag, its path written, then published.
struct TempSlot {
    std::atomic<bool> claimed{false}, live{false};
    char path[PATH_MAX] = {};
};
TempSlot g_temp_slots[32];
std::atomic<pid_t> g_signal_owner{0};

void release_path_slot(TempSlot* slots, int slot) {
    if (slot < 0) return;
    slots[slot].live.store(false);
    slots[slot].claimed.store(false);
}

// Scratch folders (ScratchDir) a fatal signal removes, like the temporaries.
TempSlot g_dir_slots[8];

// Child process groups (register_child_group) a fatal signal ends first.
struct GroupSlot {
    std::atomic<bool> claimed{false};
    std::atomic<pid_t> pgid{0};
};
GroupSlot g_group_slots[16];

int claim_path_slot(TempSlot* slots, std::size_t n, const std::string& path) {
    if (path.size() >= PATH_MAX) return -1;
    for (std::size_t i = 0; i < n; ++i) {
        bool expected = false;
        if (!slots[i].claimed.compare_exchange_strong(expected, true)) continue;
        std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
        slots[i].live.store(true);
        return static_cast<int>(i);
    }
    return -1;
}

// Everything under the open folder `dirfd`, async-signal-safe (no allocation, no opendir):
// getdents64 into a stack buffer, unlinkat each entry; sub-folders to a small depth (a scratch
// folder holds files and a folder or two). Entries are re-read until a pass finds none, as
// unlinking while reading may skip some.
void remove_entries(int dirfd, int depth) {
    alignas(8) char buf[4096];
    for (int pass = 0; pass < 64; ++pass) {
        if (::lseek(dirfd, 0, SEEK_SET) != 0) return;
        bool found = false;
        for (;;) {
            const long n = ::syscall(SYS_getdents64, dirfd, buf, sizeof buf);
            if (n <= 0) break;
            // struct linux_dirent64: u64 ino, s64 off, u16 reclen, u8 type, char name[].
            for (long off = 0; off + 19 < n;) {
                unsigned short reclen = 0;
                std::memcpy(&reclen, buf + off + 16, sizeof reclen);
                const unsigned char type = static_cast<unsigned char>(buf[off + 18]);
                const char* name = buf + off + 19;
                if (reclen == 0) return;
                off += reclen;
                if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
                found = true;
                if (type == DT_DIR && depth > 0) {
                    const int sub = ::openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                    if (sub >= 0) {
                        remove_entries(sub, depth - 1);
                        ::close(sub);
                    }
                    ::unlinkat(dirfd, name, AT_REMOVEDIR);
                } else {
                    ::unlinkat(dirfd, name, 0);
                }
            }
        }
        if (!found) return;
    }
}

void remove_tree(const char* path) {
    const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    remove_entries(fd, 4);
    ::close(fd);
    ::rmdir(path);
}

// SIGTERM to every registered group, up to two seconds for their leaders to end (they remove
// their own temporaries), then SIGKILL to what is left and the leaders reaped.
void end_child_groups() {
    pid_t groups[std::size(g_group_slots)] = {};
    bool any = false;
    for (std::size_t i = 0; i < std::size(g_group_slots); ++i) {
        groups[i] = g_group_slots[i].pgid.load();
        if (groups[i] > 0) {
            ::kill(-groups[i], SIGTERM);
            any = true;
        }
    }
    if (!any) return;
    const timespec tick{0, 20'000'000};
    for (int wait = 0; wait < 100; ++wait) {
        bool running = false;
        for (pid_t& g : groups)
            if (g > 0 && ::waitpid(g, nullptr, WNOHANG) == 0) running = true;
        if (!running) break;
        ::nanosleep(&tick, nullptr);
    }
    for (const pid_t g : groups)
        if (g > 0) {
            ::kill(-g, SIGKILL);
            ::waitpid(g, nullptr, 0);
        }
}

// More than the slots at once: that one may be left behind by a signal.
int register_temporary(const std::string& path) {
    return claim_path_slot(g_temp_slots, std::size(g_temp_slots), path);
}
void release_temporary(int slot) { release_path_slot(g_temp_slots, slot); }

extern "C" void remove_temporaries_and_reraise(int sig) {
    if (::getpid() == g_signal_owner.load()) {
        const int saved = errno;
        end_child_groups();
        for (TempSlot& slot : g_temp_slots)
            if (slot.live.load()) ::unlink(slot.path);
        for (TempSlot& slot : g_dir_slots)
            if (slot.live.load()) remove_tree(slot.path);
        errno = saved;
    }
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}

}  // namespace

OutputFile::OutputFile(const std::string& path, const OutputPolicy& policy) : path_(path), target_(path) {
    if (path.empty()) throw refused(policy.role + ": an empty path");
    const std::string fix = "; pass another path or --force to replace it";
    struct stat st {};
    // A link to a device, FIFO or socket is written through the link itself: /dev/stdout names
    // /proc/self/fd/1, whose target ("pipe:[123]") is no path.
    const bool through_link = ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
    struct stat named {};
    const bool special = through_link && ::stat(path.c_str(), &named) == 0 && !S_ISREG(named.st_mode) &&
                         !S_ISDIR(named.st_mode);
    if (through_link && !special) {
        // Follow the link: the file it names is replaced, the link itself stays.
        char resolved[PATH_MAX];
        if (::realpath(path.c_str(), resolved) == nullptr)
            throw refused(policy.role + " " + path + ": a symbolic link to a file that cannot be reached (" +
                          os_reason(errno) + "); pass the path of the file itself");
        target_ = resolved;
    }
    const bool exists = ::stat(target_.c_str(), &st) == 0;
    if (!exists && errno != ENOENT)
        throw refused("cannot write " + policy.role + " " + path + ": " + os_reason(errno));
    if (exists) {
        if (S_ISDIR(st.st_mode)) throw refused(policy.role + " " + path + ": is a directory; pass a file name");
        const FileId id{static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino)};
        for (const auto& in : policy.inputs)
            if (file_id(in) == id)
                throw refused(policy.role + " " + path + ": is also the input " + in +
                              "; the output must be another file");
        if (S_ISREG(st.st_mode)) {
            if (::access(target_.c_str(), W_OK) != 0)
                throw refused("cannot write " + policy.role + " " + path + ": " + os_reason(errno));
            // root passes access() whatever the mode: a file its owner made read-only is still
            // one the user asked to keep.
            if (!(st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)))
                throw refused("cannot write " + policy.role + " " + path +
                              ": the file is read-only; make it writable (chmod u+w) or pass another path");
            if (!policy.force && st.st_size > 0 && !(policy.own_kind && policy.own_kind(head_of(target_))))
                throw refused(policy.role + " " + path + ": exists and is not what this command writes" +
                              (policy.own_kind_rule.empty() ? "" : " (" + policy.own_kind_rule + ")") + fix);
            mode_ = static_cast<int>(st.st_mode & 07777);
        } else {
            in_place_ = true;   // a device or FIFO: written into, never removed or replaced
        }
    }
    int fd = -1;
    if (in_place_) {
        fd = open_in_place(target_, S_ISFIFO(st.st_mode), policy.role + " " + path);
        write_path_ = target_;
    } else {
        const std::filesystem::path t(target_);
        const std::filesystem::path dir = t.has_parent_path() ? t.parent_path() : std::filesystem::path(".");
        std::string tmpl =
            (dir / ("." + t.filename().string() + ".sbufsim-XXXXXX" + policy.temp_suffix)).string();
        fd = ::mkostemps(tmpl.data(), static_cast<int>(policy.temp_suffix.size()), O_CLOEXEC);
        if (fd < 0)
            throw refused("cannot write " + policy.role + " " + path + ": cannot create a file in " + dir.string() +
                          ": " + os_reason(errno));
        write_path_ = tmpl;
        temp_slot_ = register_temporary(write_path_);
        ::fchmod(fd, static_cast<mode_t>(exists ? mode_ : static_cast<int>(default_mode())));
    }
    buf_ = std::make_unique<FdStreamBuf>(fd, true);
    os_ = std::make_unique<std::ostream>(buf_.get());
}

void remove_temporaries_on_signals() {
    g_signal_owner.store(::getpid());
    struct sigaction sa {};
    sa.sa_handler = remove_temporaries_and_reraise;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

OutputFile::~OutputFile() { discard(); }

std::ostream& OutputFile::stream() { return *os_; }

void OutputFile::discard() {
    if (done_) return;
    done_ = true;
    if (buf_) buf_->close(false);
    if (!in_place_ && !write_path_.empty()) ::unlink(write_path_.c_str());
    release_temporary(temp_slot_);
    temp_slot_ = -1;
}

void OutputFile::commit() {
    if (done_) return;
    os_->flush();
    int err = 0;
    if (!buf_->close(!in_place_)) err = buf_->error();
    if (err == 0 && !in_place_ && ::rename(write_path_.c_str(), target_.c_str()) != 0) err = errno;
    if (err != 0) {
        discard();
        throw OutputError(OutputError::Kind::io, "cannot write " + path_ + ": " + os_reason(err));
    }
    release_temporary(temp_slot_);  // renamed: the path is the user's file now
    temp_slot_ = -1;
    done_ = true;
}

void OutputFile::check() {
    if (done_) return;
    os_->flush();
    if (buf_->error() == 0) return;
    const int err = buf_->error();
    discard();
    throw OutputError(OutputError::Kind::io, "cannot write " + path_ + ": " + os_reason(err));
}

FileId file_id(const std::string& path) {
    struct stat st {};
    if (path.empty() || path == "-" || ::stat(path.c_str(), &st) != 0) return {};
    return {static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino)};
}

void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& role_paths) {
    auto same = [](const std::string& a, const std::string& b) {
        if (a == b) return true;
        const FileId ia = file_id(a), ib = file_id(b);
        if (ia.exists() && ia == ib) return true;
        // Absolute first: a relative path none of whose parts exists ("v.npy") comes back from
        // weakly_canonical as it was, unlike "./v.npy".
        std::error_code e1, e2;
        const auto ca = std::filesystem::weakly_canonical(std::filesystem::absolute(a, e1), e1);
        const auto cb = std::filesystem::weakly_canonical(std::filesystem::absolute(b, e2), e2);
        return !e1 && !e2 && ca == cb;
    };
    for (std::size_t i = 0; i < role_paths.size(); ++i)
        for (std::size_t j = i + 1; j < role_paths.size(); ++j) {
            const auto& [ra, a] = role_paths[i];
            const auto& [rb, b] = role_paths[j];
            if (a.empty() || b.empty() || a == "-" || b == "-") continue;
            if (same(a, b)) throw refused(ra + " and " + rb + " both write " + a + "; give each its own file");
        }
}

ScratchDir::ScratchDir(const std::string& prefix) {
    const char* env = std::getenv("TMPDIR");
    const std::string base = env && *env ? env : "/tmp";
    std::string tmpl = base + "/" + prefix + "-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr)
        throw refused("cannot make a scratch folder in " + base + ": " + os_reason(errno) +
                      "; set TMPDIR to a folder you can write");
    path_ = tmpl;
    slot_ = claim_path_slot(g_dir_slots, std::size(g_dir_slots), path_);
}

ScratchDir::~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    release_path_slot(g_dir_slots, slot_);
}

int register_child_group(int pgid) {
    for (std::size_t i = 0; i < std::size(g_group_slots); ++i) {
        bool expected = false;
        if (!g_group_slots[i].claimed.compare_exchange_strong(expected, true)) continue;
        g_group_slots[i].pgid.store(pgid);
        return static_cast<int>(i);
    }
    return -1;
}

void release_child_group(int slot) {
    if (slot < 0) return;
    g_group_slots[slot].pgid.store(0);
    g_group_slots[slot].claimed.store(false);
}

std::string describe_signal(int sig) {
    const char* abbrev = ::sigabbrev_np(sig);
    return "signal " + std::to_string(sig) + (abbrev ? std::string(" (SIG") + abbrev + ")" : std::string());
}

FifoCopy::FifoCopy(OutputFile& file, const std::string& name) : file_(file), dir_("sbufsim-fifo") {
    path_ = dir_.path() + "/" + name;
    const auto fail = [&](const std::string& what) {
        const int err = errno;
        for (int fd : {read_fd_, hold_fd_, stop_fds_[0], stop_fds_[1]})
            if (fd >= 0) ::close(fd);
        return refused("cannot write " + file_.path() + ": " + what + ": " + os_reason(err));
    };
    if (::mkfifo(path_.c_str(), 0600) != 0) throw fail("cannot make a FIFO in " + dir_.path());
    // The read end first (without blocking), then a write end of our own: the reader sees the
    // end only once the writer has opened and closed the FIFO and finish() closed that one.
    read_fd_ = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (read_fd_ < 0) throw fail("cannot open " + path_);
    hold_fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    if (hold_fd_ < 0) throw fail("cannot open " + path_);
    if (::pipe2(stop_fds_, O_CLOEXEC) != 0) throw fail("pipe");
    thread_ = std::thread([this] { copy(); });
}

// Everything read goes to the file's stream; after a failed write the stream drops the rest
// (the error stays for check()), and reading goes on so that the writer never blocks.
void FifoCopy::copy() {
    std::ostream& os = file_.stream();
    std::vector<char> buf(std::size_t{1} << 16);
    for (;;) {
        pollfd fds[2] = {{read_fd_, POLLIN, 0}, {stop_fds_[0], POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            return;
        }
        if (fds[0].revents != 0) {
            const ssize_t n = ::read(read_fd_, buf.data(), buf.size());
            if (n > 0) {
                os.write(buf.data(), n);
                continue;
            }
            if (n == 0) return;  // every writer closed: the end
            if (errno == EAGAIN || errno == EINTR) continue;
            return;
        }
        if (fds[1].revents != 0) return;
    }
}

void FifoCopy::stop(bool drain) {
    if (hold_fd_ >= 0) {
        ::close(hold_fd_);
        hold_fd_ = -1;
    }
    if (!drain && stop_fds_[1] >= 0) (void)!::write(stop_fds_[1], "x", 1);
    if (thread_.joinable()) thread_.join();
}

void FifoCopy::finish() {
    stop(true);
    file_.stream().flush();
}

FifoCopy::~FifoCopy() {
    stop(false);
    for (int fd : {read_fd_, stop_fds_[0], stop_fds_[1]})
        if (fd >= 0) ::close(fd);
}

}  // namespace sbufsim
