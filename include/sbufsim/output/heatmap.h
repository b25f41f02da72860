// The bank x time heatmap (`sbufsim run --heatmap`, `sbufsim plot STATS.json`): one SVG with
//   - panel 1: utilisation of every ECC bank (SBUF rows, then PSUM rows) per time bin,
//   - panel 2: conflict stalls charged to every bank per time bin (stalled beat-cycles / cycle),
//   - panel 3: stalls of all clients by cause per time bin (the gates' causes too, which no bank
//     row can show),
//   - panel 4: the client x client "who blocked whom" matrix (stall cycles of the row client
//     caused by the column client).
// Exactly one <rect> per bank per bin in each of panels 1 and 2 (classes "util" and "stall",
// attributes data-bank / data-bin) and per cause per bin in panel 3 (class "cause", data-cause /
// data-bin), so tests and scripts can read the picture back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sbufsim/output/bottleneck.h"
#include "sbufsim/stats/stats.h"
#include "sbufsim/stats/window_stats.h"

namespace sbufsim {

struct BlockMatrix {
    std::vector<std::string> clients;     // rows = victims, columns = blockers
    std::vector<std::uint64_t> cycles;    // clients.size()^2, row-major
};

struct HeatmapInfo {
    std::string trace;
    std::string generation;
    std::string settings;  // heatmap_settings(), e.g. "tdm.strict=true (config 1f0c...)"
    double pe_clock_ghz = 0;
    Cycle total_cycles = 0;
    // The series carries stalls by cause (WindowRow::stalled). A run's JSON written by an older
    // sbufsim has no stalled.<cause> rows: its panel says so instead of looking stall-free.
    bool stalls_by_cause = true;
    // The run's critical path, when the run has one made of instructions (CriticalPath): what
    // bounds it and how long it waited for banks. A stall drawn here lengthens the run only where
    // it held an instruction of that path, so the heatmap says how much that was at most.
    struct Path {
        std::string bound_by;  // the largest group ("DMA")
        Cycle bank_wait = 0;   // PathCause::bank_wait over every group
    };
    std::optional<Path> path = std::nullopt;
};

// HeatmapInfo::path from a run's path groups (bottleneck.h), unless the kernel's own traffic after
// the last instruction (the "kernel" group: access records) is 1 % of the run or more: there the
// stalls lengthen the run directly.
std::optional<HeatmapInfo::Path> heatmap_path(const std::vector<PathGroup>& path, Cycle total_cycles);

// The title's settings line: the keys that differ from the generation file ("key=value", from a
// --config file or the command line) and the configuration's hash, so two pictures with the same
// line ran the same configuration.
std::string heatmap_settings(const std::vector<std::string>& assignments, const std::string& config_hash);

// The matrix of the clients that took part (requests > 0) from the run's statistics.
BlockMatrix block_matrix(const Stats& s);

// The SVG document; `w` is rebinned to at most `max_bins` columns.
std::string render_heatmap(const WindowSeries& w, const BlockMatrix& m, const HeatmapInfo& info,
                           std::size_t max_bins = 200);

}  // namespace sbufsim
