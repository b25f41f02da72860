#include "sbufsim/output/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
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

int register_temporary(const std::string& path) {
    if (path.size() >= PATH_MAX) return -1;
    for (int i = 0; i < static_cast<int>(std::size(g_temp_slots)); ++i) {
        TempSlot& slot = g_temp_slots[i];
        bool expected = false;
        if (!slot.claimed.compare_exchange_strong(expected, true)) continue;
        std::memcpy(slot.path, path.c_str(), path.size() + 1);
        slot.live.store(true);
        return i;
    }
    return -1;  // more than the slots at once: that one may be left behind by a signal
}

void release_temporary(int slot) {
    if (slot < 0) return;
    g_temp_slots[slot].live.store(false);
    g_temp_slots[slot].claimed.store(false);
}

extern "C" void remove_temporaries_and_reraise(int sig) {
    if (::getpid() == g_signal_owner.load())
        for (TempSlot& slot : g_temp_slots)
            if (slot.live.load()) ::unlink(slot.path);
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}

}  // namespace

OutputFile::OutputFile(const std::string& path, const OutputPolicy& policy) : path_(path), target_(path) {
    if (path.empty()) throw refused(policy.role + ": an empty path");
    const std::string fix = "; pass another path or --force to replace it";
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
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
        fd = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0) throw refused("cannot write " + policy.role + " " + path + ": " + os_reason(errno));
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

}  // namespace sbufsim
