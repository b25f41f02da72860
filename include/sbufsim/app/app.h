// The application layer: what each command does, as typed requests and results, for every front
// end (the command line in src/cli, the Python module). A front end turns its input (argv, keyword
// arguments) into a request, calls the area's function and presents the result; the work, the
// checks of a request and the messages a user reads are here, once.
//
// Messages are written as the command line shows them ("sbufsim run: ..."), to the `err` stream
// the front end gives; results and summaries go to `out`. A function returns the exit status the
// command line documents (docs/cli.md) and throws ConfigError (usage), OutputError (a refused or
// failed output) or the input errors of the areas below, as the commands always did.
#pragma once

#include <iosfwd>

namespace sbufsim::app {

// Exit statuses, documented in docs/cli.md.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;  // the command ran and found problems (check, decode)
inline constexpr int kExitUsage = 2;     // bad command line or configuration
inline constexpr int kExitInput = 3;     // unreadable or invalid input file
inline constexpr int kExitInternal = 4;  // a bug: please report

// Where a request writes: results to `out`, messages to `err`.
struct Io {
    std::ostream& out;
    std::ostream& err;
};

}  // namespace sbufsim::app
