// `validate` (sbufsim/app/validate.h): the cases run in order, a row printed as each finishes.
#include "sbufsim/app/validate.h"

#include <cmath>
#include <ostream>
#include <regex>

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
    std::size_t run = 0, failed = 0;
    io.out << pad("id", 6) << pad("gen", 9) << pad("group", 9) << pad("public/seed", figure_width)
           << pad("sbufsim", 13) << pad("error", 9) << pad("tol", 6) << "result  what (source)\n";
    for (const ValidationCase& c : validation_cases()) {
        if (!std::regex_match(c.id, pick)) continue;
        if (request.list) {
            io.out << pad(c.id, 6) << pad(c.gen, 9) << pad(c.group, 9) << c.what << " (" << c.source << ")\n";
            continue;
        }
        const ValidationRow r = run_case(c, request.config_dir);
        ++run;
        failed += r.ok ? 0 : 1;
        const std::string err = (std::signbit(r.error) ? "" : "+") + format_fixed(100.0 * r.error, 1) + "%";
        const std::string tol = c.bound == Bound::near ? format_fixed(100.0 * c.tolerance, 0) + "%" : "bound";
        io.out << pad(c.id, 6) << pad(c.gen, 9) << pad(c.group, 9) << pad(public_figure(c), figure_width)
               << pad(r.failure.empty() ? fmt(r.measured) : "-", 13) << pad(r.failure.empty() ? err : "-", 9)
               << pad(tol, 6) << pad(r.ok ? "ok" : "FAIL", 8) << c.what << "\n";
        if (request.verbose) io.out << "      source: " << c.source << "\n";
        if (!r.failure.empty()) io.out << "      error: " << r.failure << "\n";
    }
    if (request.list) return kExitOk;
    if (run == 0) {
        io.err << "sbufsim validate: no case matches --only " << request.only << " (see --list)\n";
        return kExitUsage;
    }
    io.out << "\n"
           << run << " case(s), " << (run - failed) << " within tolerance, " << failed
           << " out of tolerance\n";
    return failed ? kExitFindings : kExitOk;
}

}  // namespace sbufsim::app
