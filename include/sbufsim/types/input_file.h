// The one check every reader of a user's input file makes before it opens it: a path that names
// a directory opens without error on Linux and then reads as empty (a config that sets nothing)
// or fails deep inside the stream library, so it is refused up front with the reason.
#pragma once

#include <string>

namespace sbufsim {

// Why `path` cannot be an input file: "" when it can be opened for reading as far as the file
// system says (a regular file, a pipe, a device such as /dev/stdin); otherwise the OS reason
// ("No such file or directory", "Permission denied") or "is a directory".
std::string input_file_problem(const std::string& path);

}  // namespace sbufsim
