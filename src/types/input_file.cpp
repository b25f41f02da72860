#include "sbufsim/types/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace sbufsim {

std::string input_file_problem(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return std::strerror(errno);
    if (S_ISDIR(st.st_mode)) return "is a directory";
    // The memory devices that never end (/dev/zero, /dev/full, /dev/random, /dev/urandom: Linux's
    // character devices 1:5, 1:7, 1:8, 1:9): a reader would wait for a line or an end forever.
    if (S_ISCHR(st.st_mode) && ::major(st.st_rdev) == 1 &&
        (::minor(st.st_rdev) == 5 || (::minor(st.st_rdev) >= 7 && ::minor(st.st_rdev) <= 9)))
        return "is a device whose reading never ends";
    // stat() sees through the permission bits only as the owner; access() asks as this process.
    if (::access(path.c_str(), R_OK) != 0) return std::strerror(errno);
    return "";
}

namespace {

// One byte of JSON text, as far as its nesting and strings go: depth and line kept up to date;
// a problem for `path` thrown.
struct JsonScan {
    const std::string& path;
    std::size_t depth = 0;
    std::uint64_t line = 1;
    bool in_string = false, escaped = false;

    [[noreturn]] void fail(const std::string& why) const {
        throw InputError(path + ": " + why + " at line " + std::to_string(line));
    }
    void byte(unsigned char c) {
        if (c == '\n') ++line;
        if (c < 0x20 && c != '\n' && c != '\r' && c != '\t')
            fail("not JSON: a control byte (" + std::to_string(c) + ")");
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
            return;
        }
        if (c == '"')
            in_string = true;
        else if (c == '[' || c == '{') {
            if (++depth > kMaxJsonDepth)
                fail("arrays and objects nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
        } else if ((c == ']' || c == '}') && depth > 0)
            --depth;
    }
};

}  // namespace

std::string read_json_input(const std::string& path) {
    if (const std::string why = input_file_problem(path); !why.empty())
        throw InputError(path + ": cannot open: " + why);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw InputError(path + ": cannot open: " + std::strerror(errno));
    std::string text;
    JsonScan scan{path};
    char buf[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int err = errno;
            ::close(fd);
            throw InputError(path + ": cannot read: " + std::strerror(err));
        }
        if (n == 0) break;
        try {
            for (ssize_t i = 0; i < n; ++i) scan.byte(static_cast<unsigned char>(buf[i]));
        } catch (...) {
            ::close(fd);
            throw;
        }
        if (text.size() + static_cast<std::size_t>(n) > kMaxJsonInputBytes) {
            ::close(fd);
            throw InputError(path + ": longer than " + std::to_string(kMaxJsonInputBytes >> 20) +
                             " MiB, the most sbufsim reads as JSON");
        }
        text.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return text;
}

}  // namespace sbufsim
