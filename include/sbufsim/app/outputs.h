// What each command may replace: the kind tests of OutputPolicy::own_kind for the files the
// commands write (sbufsim/output/output_file.h) and the policies built on them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sbufsim/output/output_file.h"

namespace sbufsim::app {

// The kinds of file a command writes, recognised by their first bytes.
// A trace sbufsim wrote (gen, convert, nki -o): a binary trace (only sbufsim writes the binary
// form), or a text trace whose first line is their mark (trace_mark()). A text trace without it,
// written by hand or by a script, is the user's and is replaced only with --force.
bool is_written_trace(std::string_view head);
bool is_run_json(std::string_view head);   // run --json
bool is_run_csv(std::string_view head);    // run --csv
bool is_run_stats(std::string_view head);  // run --stats
bool is_timeline(std::string_view head);   // run --timeline
bool is_picture(std::string_view head);    // an SVG or a PNG sbufsim drew (heatmaps, charts)
bool is_vcd(std::string_view head);        // run --vcd (SystemC's VCD writer, sbufsim's mark)
// The bytes of a PNG's text chunk that say sbufsim wrote it (type, keyword, text's start).
std::string png_mark();
bool is_sweep_json(std::string_view head);  // sweep --json

// The first line gen, convert and nki write into a text trace (a comment: readers skip it).
std::string trace_mark(std::string_view command);
// The policy of a trace gen, convert or nki writes (is_written_trace).
OutputPolicy trace_output_policy(std::string role, bool force, std::vector<std::string> inputs);

// An output policy: role for messages, own kind, --force, the files the command reads.
OutputPolicy output_policy(std::string role, bool (*own_kind)(std::string_view), bool force,
                           std::vector<std::string> inputs);
// A waveform file's policy (is_vcd): SystemC's VCD writer opens the file by name and appends
// ".vcd" to any other, so the temporary's name ends in ".vcd" and SystemC writes it itself.
OutputPolicy vcd_output_policy(std::string role, bool force, std::vector<std::string> inputs);
// A picture's policy (is_picture: an SVG or a PNG sbufsim drew).
OutputPolicy picture_output_policy(std::string role, bool force, std::vector<std::string> inputs);

}  // namespace sbufsim::app
