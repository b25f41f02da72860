// `sbufsim nki`'s command line split between the tracer and the replay (nki_args.h).
#include "cli/nki_args.h"

namespace sbufsim::cli {

// Splits the command line: what the tracer needs, everything else for `sbufsim run`.
bool parse_nki_args(const std::vector<std::string>& args, NkiArgs& a, Io io) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string key = args[i], value;
        const bool has_eq = key.rfind("--", 0) == 0 && key.find('=') != std::string::npos;
        if (has_eq) {
            value = key.substr(key.find('=') + 1);
            key = key.substr(0, key.find('='));
        }
        const bool tracer = key == "--input" || key == "--param" || key == "--sweep-param" ||
                            key == "--values-out" || key == "--grid" || key == "--loop-buffers";
        const bool ours = tracer || key == "--gen" || key == "-o" || key == "--output" || key == "--python" ||
                          key == "--timeout" || key == "--cores";
        if (key == "--help" || key == "-h") {
            a.help = true;
        } else if (key == "--annotate") {
            // --annotate [FILE.py]: the kernel's own file unless a file follows (not an option, not
            // the kernel's FILE::FUNCTION)
            a.annotate = true;
            if (!has_eq && i + 1 < args.size() && !args[i + 1].starts_with('-') &&
                args[i + 1].find("::") == std::string::npos)
                value = args[++i];
            a.annotate_file = value;
        } else if (ours) {
            if (!has_eq) {
                if (i + 1 >= args.size()) {
                    io.err << "sbufsim nki: " << key << " needs a value (see sbufsim nki --help)\n";
                    return false;
                }
                value = args[++i];
            }
            a.sweep |= key == "--sweep-param";
            if (tracer)
                a.tracer_args.insert(a.tracer_args.end(), {key, value});
            else if (key == "--gen")
                a.gen = value;
            else if (key == "--python")
                a.python = value;
            else if (key == "--timeout")
                a.timeout_text = value;
            else if (key == "--cores")
                a.cores_text = value;
            else
                a.output = value;
        } else if (key.rfind('-', 0) != 0 && a.kernel.empty()) {
            a.kernel = args[i];
        } else {
            a.run_args.push_back(args[i]);
        }
    }
    if (a.annotate)  // `sbufsim run --annotate FILE` of the traced kernel
        a.run_args.insert(a.run_args.end(),
                          {"--annotate", a.annotate_file.empty() ? a.kernel.substr(0, a.kernel.find("::"))
                                                                 : a.annotate_file});
    return true;
}

// --timeout SEC bounds the tracing: of the kernel, or of each point of a sweep (whose replays it
// bounds too: it is passed on to `sbufsim sweep`).
bool parse_nki_timeout(NkiArgs& a, Io io) {
    if (a.timeout_text.empty()) return true;
    if (const std::string why = timeout_text_problem(a.timeout_text, a.timeout); !why.empty()) {
        io.err << "sbufsim nki: " << why << "\n";
        return false;
    }
    if (a.sweep) a.run_args.insert(a.run_args.end(), {"--timeout", a.timeout_text});
    return true;
}

// The files one traced run writes, by option: -o, --values-out and the replay's own outputs.
std::vector<std::pair<std::string, std::string>> nki_written_files(const NkiArgs& a) {
    std::vector<std::pair<std::string, std::string>> files{{"-o", a.output}};
    for (std::size_t i = 0; i + 1 < a.tracer_args.size(); i += 2)
        if (a.tracer_args[i] == "--values-out") files.emplace_back("--values-out", a.tracer_args[i + 1]);
    for (const char* key : {"--json", "--csv", "--stats", "--timeline", "--heatmap", "--vcd"})
        for (const std::string& file : option_values(a.run_args, key)) files.emplace_back(key, file);
    return files;
}

}  // namespace sbufsim::cli
