// `nki`: an NKI kernel traced by the Python package's implementation of the NKI API
// (python/sbufsim/nki/, run as `python3 -m sbufsim.nki` in a process group of its own), and the
// kernel-level figures of its replay: MFU against the PE array's peak and the HBM bandwidth
// achieved. docs/nki.md.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "sbufsim/app/app.h"
#include "sbufsim/output/output_file.h"

namespace sbufsim::app {

// How a spawned program ended.
struct ChildEnd {
    bool started = false;  // false: it could not be run at all (`error` says why)
    int code = -1;         // its exit status, when it exited
    int signal = 0;        // the signal that ended it, when one did
    bool timed_out = false;
    int error = 0;  // errno of a failed start
};

// Runs argv in a process group of its own with PYTHONPATH prepended by `pythonpath` and /dev/null
// as its input; its stdout goes to `out` and its stderr to `err` as they come. A fatal signal to
// sbufsim ends the group too (register_child_group), and so does `timeout_s` (> 0) running out.
// When the program has ended, what is left of its group is killed and it is reaped.
ChildEnd spawn_python(const std::vector<std::string>& argv, const std::string& pythonpath, std::ostream& out,
                      std::ostream& err, double timeout_s);

// What went wrong with the kernel's tracer (`python`), for the message; "" when it exited.
std::string tracer_problem(const ChildEnd& end, const std::string& python, double timeout_s);

struct NkiTraceRequest {
    std::string kernel;  // FILE.py::FUNCTION
    std::string generation = "cayman";
    std::vector<std::string> tracer_args;  // --input/--param/--values-out/--grid and values, as given
    std::string python;                    // the interpreter
    std::string pythonpath;                // the folder holding the sbufsim package
    double timeout = 0;                    // seconds the tracer may run (0: no limit)
};

// Traces the kernel into `trace` (text), the tracer's output to `text` and `err` as it comes.
// kExitOk, or the exit status after saying why on `err`.
int trace_kernel(const NkiTraceRequest& request, const std::string& trace, std::ostream& text,
                 std::ostream& err);

// --sweep-param: the tracer traces every point in parallel and replays them with `executable`'s
// `sbufsim sweep`, then prints the table (python/sbufsim/nki/__main__.py). With an --out TABLE the
// points' traces are kept beside it (TABLE.traces/), else in `scratch`.
struct NkiSweepRequest : NkiTraceRequest {
    std::vector<std::string> sweep_args;  // the options of `sbufsim sweep`, as given
    std::vector<std::string> outs;        // the --out values among them
    std::string executable;               // this sbufsim
    std::string scratch;                  // a private folder for the points' traces
};
int sweep_kernel(const NkiSweepRequest& request, Io io);

// The traced kernel into `kept` (-o): a text trace with sbufsim's mark first, or (K.sbt) the
// binary form; committed. kExitOk, or kExitInput after saying why on `err`.
int keep_trace(const std::string& traced, OutputFile& kept, std::ostream& err);

// The PE array's peak: 128 x 128 multiply-accumulates a cycle, two flops each.
inline constexpr double kPeakFlopsPerCycle = 2.0 * 128 * 128;

// A number after `"key":` in a run's JSON, 0 when absent (the first occurrence; keys are unique
// per section and the run section comes first), and `"key": "text"`'s text, "" when absent.
double json_number(const std::string& json, const std::string& key);
std::string json_text(const std::string& json, const std::string& key);

// The kernel's matmul flops and HBM bytes (the `# nki` line the tracer writes after the header).
struct KernelTotals {
    double flops = 0, hbm_bytes = 0;
};
KernelTotals kernel_totals(const std::string& trace);

// The run's summary of the scratch trace `traced` naming the kernel instead: the trace is removed
// on return (-o keeps it).
std::string kernel_summary(std::string summary, const std::string& traced, const std::string& kernel);

// The kernel's figures from the run's JSON text (`run_json`; "" when there is none to read).
void print_kernel_figures(std::ostream& os, const KernelTotals& kernel, const std::string& run_json);

// A file's bytes ("" when it cannot be read).
std::string read_text(const std::string& path);

}  // namespace sbufsim::app
