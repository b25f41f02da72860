// The per-line profile of a run (docs/report.md "By source line"): the replay's per-site figures
// (engines/site_profile.h) grouped by kernel line (a site FILE:LINE:CALL groups by FILE:LINE; a
// generator step by its name), with the kernel's stall cycles of each client apportioned to the
// lines, sorted by critical-path share. Every column sums over the rows to the run's total: the
// critical path to the run's cycles, busy / semaphore wait / instructions to the engines'
// figures, the stalls to the kernel's, the DMA bytes to the DMA engines'.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "sbufsim/engines/site_profile.h"
#include "sbufsim/replay/replay.h"
#include "sbufsim/stats/stats.h"

namespace sbufsim {

struct LineRow {
    std::string key;   // "tiled_gemm.py:42", "gemm:matmul", or "(no location)"
    std::string file;  // "tiled_gemm.py" ("" for a generator step)
    std::uint32_t line = 0;
    std::string calls;     // the nki calls (or steps) of the line's sites, "nl.load" or "nl.load, nl.add"
    std::string function;  // the kernel function holding the line, when its sites name it ("" if not)
    SiteCounters c;        // summed over the line's sites
    std::array<std::uint64_t, kStallCauses> stalls{};  // the kernel's stall cycles apportioned to it
    double critical_share = 0;                         // c.critical / the run's cycles
    double dma_gbps = 0;  // c.dma_bytes over the line's DMA busy time (0 without one)
    Cycle busy() const;   // over the engine groups
    std::uint64_t total_stalls() const;
};

struct LineProfile {
    std::vector<LineRow> rows;  // by critical-path share, then busy, then key
    LineRow total;              // the run's totals, column by column
    bool empty() const { return rows.empty(); }
};

// Empty when the trace had no source locations (ReplayResult::sites empty).
LineProfile line_profile(const ReplayResult& r);
// The table, `max_rows` rows (0 = all) and the total line.
void print_line_profile(std::ostream& os, const LineProfile& p, std::size_t max_rows);
// The kernel source with each line's figures in a left margin, as `perf annotate` shows it:
// critical-path share and cycles, busy cycles, stall cycles, semaphore wait, DMA MiB,
// instructions, the line's number; the three lines of most critical-path cycles marked `>>`.
// The rows whose file is `source_path`'s (by its file name) are shown; `source` is that file's
// text, of which only the functions holding those lines are printed (with two lines before
// each; `...` for what is left out). Returns the number of source lines that carry figures (0:
// the profile names no line of that file, and nothing is printed).
std::size_t print_annotated(std::ostream& os, const LineProfile& p, const std::string& source_path,
                            const std::string& source);

// `run --annotate FILE`: print_annotated() of the run's profile over FILE's text. False (the reason
// on `err`) when FILE cannot be read; a note on `err` when the trace names none of its lines.
bool annotate_source(std::ostream& out, std::ostream& err, const ReplayResult& r, const std::string& path);

}  // namespace sbufsim
