// The one check every reader of a user's input file makes before it opens it: a path that names
// a directory opens without error on Linux and then reads as empty (a config that sets nothing)
// or fails deep inside the stream library, so it is refused up front with the reason.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace sbufsim {

// Why `path` cannot be an input file: "" when it can be opened for reading as far as the file
// system says (a regular file, a pipe, a device such as /dev/stdin); otherwise the OS reason
// ("No such file or directory", "Permission denied"), "is a directory", or, for a device whose
// reading never ends (/dev/zero, /dev/urandom), "is a device whose reading never ends".
std::string input_file_problem(const std::string& path);

// An input that cannot be used, with the file and the reason in what().
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The most of a JSON input read_json_input() reads (a FIFO fed forever ends there).
inline constexpr std::size_t kMaxJsonInputBytes = std::size_t{1} << 30;
// The deepest nesting of arrays and objects it accepts: property_tree's parser recurses once per
// level, and 160 KB of '[' overflowed the stack.
inline constexpr std::size_t kMaxJsonDepth = 256;

// The text of the JSON input file `path` (run --from, plot), read once (a FIFO works) and
// checked on the way for what would make the parser fail badly: a control byte (a device of
// zeros), nesting deeper than kMaxJsonDepth, more than kMaxJsonInputBytes. Throws InputError
// naming the file, the reason and the line.
std::string read_json_input(const std::string& path);

}  // namespace sbufsim
