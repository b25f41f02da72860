// Pictures the project draws as SVG (heatmaps, sweep charts) written where the user asked:
// FILE.svg as drawn, FILE.png rendered by rsvg-convert (Debian package librsvg2-bin) when it is
// installed — an optional run-time tool: without it a .png is refused with the install hint,
// and .svg still works. docs/visualisation.md.
#pragma once

#include <ostream>
#include <stdexcept>
#include <string>

#include "sbufsim/output/output_file.h"

namespace sbufsim::app {

// The PNG renderer is not installed (or not runnable): a setup problem, not bad input.
class MissingTool : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// True when `path` asks for a PNG (by its extension, any case).
bool wants_png(const std::string& path);
// Why `path` cannot name a picture: "" for .svg, .png (any case) or no extension (SVG); otherwise
// the reason, so that FILE.jpg is refused rather than written as SVG under a JPEG name.
std::string picture_path_problem(const std::string& path);

// Writes `svg` to `file` (nullptr = `out`, as SVG), for the caller to commit with its other
// outputs (a command's outputs appear together or not at all); a .png path is rendered at
// 1.5x through rsvg-convert ($SBUFSIM_RSVG_CONVERT overrides the program) into the file's
// temporary. Throws MissingTool when the renderer cannot be started, OutputError when the file
// cannot be written, std::runtime_error when the renderer fails (the target is then untouched).
void write_picture(const std::string& svg, OutputFile* file, std::ostream& out);

}  // namespace sbufsim::app
