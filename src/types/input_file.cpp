#include "sbufsim/types/input_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace sbufsim {

std::string input_file_problem(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return std::strerror(errno);
    if (S_ISDIR(st.st_mode)) return "is a directory";
    // stat() sees through the permission bits only as the owner; access() asks as this process.
    if (::access(path.c_str(), R_OK) != 0) return std::strerror(errno);
    return "";
}

}  // namespace sbufsim
