// Messages several requests share: where a missing input may be found instead, the race warning
// of run and sweep, and the bound of a --timeout.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sbufsim/trace/trace.h"

namespace sbufsim::app {

// For a trace path that does not exist: where a shipped trace of that file name is (the
// examples' `traces/x.trc` from an install), as " (a shipped trace of that name: PATH)"; else "".
std::string shipped_trace_hint(const std::string& path);

// The same for an example the docs name by its source-tree path (examples/nki/matmul.py), looked
// for under the data roots' examples/ folders: " (an installed example of that name: PATH)" or "".
std::string shipped_example_hint(const std::string& path);

// What run and sweep warn of a trace with races between queues (trace/hazard_check.h): how many,
// that `subject` ("the run", "every row") times them as they fall, the first, and where the rest are.
std::string races_warning(const std::string& trace, std::uint64_t races, const TraceError& first,
                          std::string_view subject);

// The longest --timeout (sweep, nki), about three years: a deadline's nanoseconds then fit the
// steady clock's 64 bits with room to spare (1e10 s would overflow them and expire at once).
inline constexpr double kMaxTimeoutSeconds = 1e8;
// Why `seconds` is no --timeout (below 0, not a number, above kMaxTimeoutSeconds), or "".
std::string timeout_problem(double seconds);
// The same for a --timeout given as text, whose value goes to `seconds`: "" when it is one.
std::string timeout_text_problem(const std::string& text, double& seconds);

}  // namespace sbufsim::app
