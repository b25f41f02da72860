// `sbufsim nki`'s command line split between the tracer and the replay (nki_args.h).
#include "cli/nki_args.h"

#ifndef SBUFSIM_PYTHON3
#define SBUFSIM_PYTHON3 "/usr/bin/python3"
#endif

namespace sbufsim::cli {

const char* nki_help() {
    return "usage: sbufsim nki KERNEL.py::FUNC --input NAME=DTYPE[D0,D1,...]... [--param NAME=VALUE]...\n"
           "                   [--gen G] [-o TRACE.trc|TRACE.sbt] [--python EXE] [--timeout SEC] [run "
           "options]\n"
           "       sbufsim nki KERNEL.py::FUNC --input ... --sweep-param NAME=V1,V2... [sweep options]\n\n"
           "Trace an NKI kernel written against the public API (import nki / nki.language / nki.isa, or\n"
           "neuronxcc.nki) with sbufsim's tracing implementation of it, replay the trace like `sbufsim\n"
           "run` and add the kernel's MFU (matmul flops against the PE array's 2 x 128 x 128 per cycle)\n"
           "and achieved HBM bandwidth. docs/nki.md lists the supported calls.\n\n"
           "The kernel file is executed as Python, with your rights: like `python3 KERNEL.py`, it can read,\n"
           "write and delete whatever you can and reach the network. Trace only kernels you would run.\n\n"
           "  --input NAME=DTYPE[SHAPE]  an HBM argument of the kernel, e.g. lhsT=bf16[4096,2048]\n"
           "  --input NAME=[DTYPE:]F.npy the argument with values (numpy): the kernel's output is computed\n"
           "                             while it is traced; --values-out OUT.npy keeps it\n"
           "  --param NAME=VALUE         a keyword argument: a Python literal (TILES_IN_BLOCK_M=4), or a "
           "call\n"
           "                             or attribute of the kernel module's names (kargs=Args(eps=1e-6))\n"
           "  --gen G                    the generation (sunda, cayman, mariana); default cayman\n"
           "  --grid G0[,G1,...]         launch the kernel as kernel[G0, G1, ...] (SPMD), "
           "nl.program_id(axis)\n"
           "                             telling each instance its index; the instances run on the logical\n"
           "                             NeuronCore's physical cores, one after another on each, and the\n"
           "                             launch takes as long as the latest core (docs/nki.md, SPMD grids)\n"
           "  --cores N                  the physical NeuronCores an SPMD launch runs on (1 to 8; default "
           "the\n"
           "                             generation's gen.lnc: 2 on cayman, 1 on sunda)\n"
           "  --loop-buffers N           the buffers an SBUF tile re-bound in an affine_range loop rotates\n"
           "                             over (1 to 8; default 3; a PSUM tile takes at most 2: docs/nki.md,\n"
           "                             Operands and the allocator)\n"
           "  -o, --output FILE          keep the trace there (default: a temporary file); FILE.sbt keeps "
           "the\n"
           "                             binary form; a launch on several cores keeps core N's beside it\n"
           "                             (FILE.coreN.trc)\n"
           "  --python EXE               the interpreter (default $SBUFSIM_PYTHON, else " SBUFSIM_PYTHON3
           ")\n"
           "  --timeout SEC              stop the tracing after SEC seconds (with --sweep-param: each "
           "point's\n"
           "                             tracing, and its replay); default 0, no limit\n"
           "  --annotate [FILE.py]       print the kernel's functions that made records (FILE.py: default "
           "the\n"
           "                             kernel's file) with each line's figures in a margin "
           "(docs/report.md)\n"
           "  --sweep-param NAME=V1,V2   a tiling sweep: trace the kernel at every value (repeatable: the\n"
           "                             cartesian product), replay the points in parallel with `sbufsim\n"
           "                             sweep` and print a table of cycles, MFU and HBM bandwidth\n"
           "every other option goes to `sbufsim run` (--set, --config, --json, --scheduler, ...), or with\n"
           "--sweep-param to `sbufsim sweep` (--set, --config, --jobs, --timeout, --out; with --out "
           "TABLE.csv\n"
           "the points' traces are kept in TABLE.traces/, named by their parameters).\n\n"
           "example:\n"
           "  sbufsim nki examples/nki/matmul.py::matmul_blocked --input lhsT=bf16[2048,2048] \\\n"
           "      --input rhs=bf16[2048,2048] --param TILES_IN_BLOCK_M=4\n"
           "  sbufsim nki examples/nki/matmul.py::matmul_blocked --input lhsT=bf16[2048,2048] \\\n"
           "      --input rhs=bf16[2048,2048] --sweep-param TILES_IN_BLOCK_M=1,2,4,8\n";
}

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
        } else if (key == "--quiet" || key == "-q") {
            a.quiet = true;  // the replay's too: it prints nothing, and neither do the tracer and the figures
            a.run_args.push_back(args[i]);
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
