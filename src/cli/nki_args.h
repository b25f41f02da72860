// `sbufsim nki`'s command line split between the kernel's tracer and the replay: the options the
// tracer takes, and everything else for `sbufsim run` (or with --sweep-param `sbufsim sweep`).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cli/cli.h"

namespace sbufsim::cli {

struct NkiArgs {
    std::string kernel, gen = "cayman", output, python;
    std::vector<std::string> tracer_args;  // --input/--param/--sweep-param/--values-out/--grid/--loop-buffers
    bool sweep = false;                    // --sweep-param given
    std::vector<std::string> run_args;
    bool help = false;
    std::string timeout_text;   // --timeout as given
    std::string cores_text;     // --cores N as given ("": the generation's gen.lnc)
    double timeout = 0;         // seconds the tracer may run (0: no limit)
    bool annotate = false;      // --annotate [FILE]: the replay's --annotate, of the kernel's file
    std::string annotate_file;  // FILE when given
    bool quiet = false;         // --quiet/-q among the run's options: nothing on stdout
};

// `sbufsim nki --help`.
const char* nki_help();

// Splits the command line: what the tracer needs, everything else for `sbufsim run`. False after
// saying why on io.err.
bool parse_nki_args(const std::vector<std::string>& args, NkiArgs& a, Io io);
// --timeout SEC bounds the tracing: of the kernel, or of each point of a sweep (whose replays it
// bounds too: it is passed on to `sbufsim sweep`). False after saying why on io.err.
bool parse_nki_timeout(NkiArgs& a, Io io);
// The files one traced run writes, by option: -o, --values-out and the replay's own outputs.
std::vector<std::pair<std::string, std::string>> nki_written_files(const NkiArgs& a);

}  // namespace sbufsim::cli
