// Pictures the project draws as SVG (heatmaps, sweep charts) written where the user asked:
// FILE.svg as drawn, FILE.png rendered by rsvg-convert (Debian package librsvg2-bin) when it is
// installed — an optional run-time tool: without it a .png is refused with the install hint,
// and .svg still works. docs/visualisation.md.
#pragma once

#include <ostream>
#include <stdexcept>
#include <string>

namespace sbufsim::cli {

// The PNG renderer is not installed (or not runnable): a setup problem, not bad input.
class MissingTool : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// True when `path` asks for a PNG (by its extension, any case).
bool wants_png(const std::string& path);

// Writes `svg` to `path` ('-' = `out`, as SVG); a .png path is rendered at 1.5x through
// rsvg-convert ($SBUFSIM_RSVG_CONVERT overrides the program). Throws MissingTool when the
// renderer cannot be started, std::runtime_error when a file cannot be written or the renderer
// fails.
void write_picture(const std::string& svg, const std::string& path, std::ostream& out);

}  // namespace sbufsim::cli
