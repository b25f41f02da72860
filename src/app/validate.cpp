// `validate` (sbufsim/app/validate.h): the cases run in order, a row printed as each finishes.
#include "sbufsim/app/validate.h"

#include <cmath>
#include <filesystem>
#include <memory>
#include <ostream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "sbufsim/app/nki.h"
#include "sbufsim/config/data_dirs.h"
#include "sbufsim/output/output_file.h"
#include "sbufsim/types/number.h"
#include "sbufsim/validation/validation.h"

namespace sbufsim::app {

namespace {

// Whole numbers and large ones without decimals, fractions to three significant digits (a 1/8
// share reads 0.125, not 0.12), the rest with two decimals.
std::string fmt(double v) {
    if (std::fabs(v) >= 1000 || v == std::floor(v)) return format_fixed(v, 0);
    return std::fabs(v) < 1 ? format_number(v, 3) : format_fixed(v, 2);
}

std::string pad(std::string s, std::size_t w) {
    if (s.size() < w) s.append(w - s.size(), ' ');
    return s;
}

// The shipped NKI examples (the kernel cases' kernels): an install's share/sbufsim/examples or
// the build tree's link to the source folder; "" when neither holds them.
std::string examples_dir() {
    std::error_code ec;
    for (const DataPlace& root : data_roots()) {
        const std::filesystem::path dir = std::filesystem::path(root.dir) / "examples";
        if (std::filesystem::is_regular_file(dir / "nki" / "matmul.py", ec)) return dir.string();
    }
    return {};
}

// The first line of the tracer's complaint, for a row's error.
std::string first_line(const std::string& s) {
    const std::string line = s.substr(0, s.find('\n'));
    return line.empty() ? "no reason given" : line;
}

// The kernel cases' tracer: the NKI front-end as `nki` runs it, each kernel traced into `scratch`
// (none without the Python package or the examples: the kernel cases are then skipped).
KernelTracer kernel_tracer(const ValidateRequest& request, const std::string& scratch) {
    const std::string examples = examples_dir();
    if (request.pythonpath.empty() || examples.empty()) return {};
    return [=](const KernelTrace& k, const std::string& gen) {
        const std::string trace = (std::filesystem::path(scratch) / "kernel.trc").string();
        // A kernel case traces in about a second; a minute means something is wrong.
        const NkiTraceRequest r{examples + "/" + k.kernel, gen, k.args, request.python,
                                request.pythonpath,        60};
        std::ostringstream text, err;
        if (trace_kernel(r, trace, text, err) != kExitOk)
            throw std::runtime_error("tracing " + k.kernel + ": " + first_line(err.str()));
        std::string t = read_text(trace);
        if (t.empty()) throw std::runtime_error("tracing " + k.kernel + ": no trace written");
        return t;
    };
}

}  // namespace

int validate(const ValidateRequest& request, Io io) {
    std::regex pick;
    try {
        pick = std::regex(request.only.empty() ? ".*" : request.only);
    } catch (const std::regex_error& e) {
        io.err << "sbufsim validate: --only " << request.only << ": not a regular expression (" << e.what()
               << ")\n";
        return kExitUsage;
    }
    // The public figure's column is as wide as its widest entry (rows print as each case runs).
    auto public_figure = [](const ValidationCase& c) {
        const char* bound = c.bound == Bound::at_most ? "<= " : c.bound == Bound::at_least ? ">= " : "";
        return bound + fmt(c.expected) + " " + c.unit;
    };
    std::size_t figure_width = 13;
    for (const ValidationCase& c : validation_cases())
        if (std::regex_match(c.id, pick)) figure_width = std::max(figure_width, public_figure(c).size() + 2);
    std::size_t run = 0, failed = 0, gaps = 0, skipped = 0;
    std::unique_ptr<ScratchDir> scratch;  // made once a kernel case runs
    KernelTracer tracer;
    auto tracer_for = [&](const ValidationCase& c) -> const KernelTracer& {
        if (!c.kernels.empty() && !scratch && !request.list) {
            scratch = std::make_unique<ScratchDir>("sbufsim-validate");
            tracer = kernel_tracer(request, scratch->path());
        }
        return tracer;
    };
    io.out << pad("id", 6) << pad("gen", 9) << pad("group", 9) << pad("public/seed", figure_width)
           << pad("sbufsim", 13) << pad("error", 9) << pad("tol", 6) << "result  what (source)\n";
    for (const ValidationCase& c : validation_cases()) {
        if (!std::regex_match(c.id, pick)) continue;
        if (request.list) {
            io.out << pad(c.id, 6) << pad(c.gen, 9) << pad(c.group, 9) << c.what << " (" << c.source << ")\n";
            continue;
        }
        const ValidationRow r = run_case(c, request.config_dir, tracer_for(c));
        ++run;
        failed += r.ok || r.gap || r.skipped ? 0 : 1;
        gaps += r.gap ? 1 : 0;
        skipped += r.skipped ? 1 : 0;
        const char* result = r.ok ? "ok" : r.gap ? "gap" : r.skipped ? "skip" : "FAIL";
        const std::string err = (std::signbit(r.error) ? "" : "+") + format_fixed(100.0 * r.error, 1) + "%";
        const std::string tol = c.bound == Bound::near ? format_fixed(100.0 * c.tolerance, 0) + "%" : "bound";
        io.out << pad(c.id, 6) << pad(c.gen, 9) << pad(c.group, 9) << pad(public_figure(c), figure_width)
               << pad(r.failure.empty() ? fmt(r.measured) : "-", 13) << pad(r.failure.empty() ? err : "-", 9)
               << pad(tol, 6) << pad(result, 8) << c.what << "\n";
        if (request.verbose) io.out << "      source: " << c.source << "\n";
        if (r.gap) io.out << "      known gap: " << c.gap << "\n";
        if (r.skipped)
            io.out << "      skipped: " << r.failure
                   << " (the sbufsim Python package was not found: build with SBUFSIM_BUILD_PYTHON or set "
                      "SBUFSIM_PYTHONPATH)\n";
        else if (!r.failure.empty())
            io.out << "      error: " << r.failure << "\n";
    }
    if (request.list) return kExitOk;
    if (run == 0) {
        io.err << "sbufsim validate: no case matches --only " << request.only << " (see --list)\n";
        return kExitUsage;
    }
    io.out << "\n"
           << run << " case(s), " << (run - failed - gaps - skipped) << " within tolerance, " << failed
           << " out of tolerance";
    if (gaps) io.out << ", " << gaps << " known gap(s) (docs/validation.md)";
    if (skipped) io.out << ", " << skipped << " skipped (no NKI front-end)";
    io.out << "\n";
    return failed ? kExitFindings : kExitOk;
}

}  // namespace sbufsim::app
