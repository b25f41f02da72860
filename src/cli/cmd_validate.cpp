// `sbufsim validate`: replays the validation cases (docs/validation.md) and prints, per case, the
// public or seed figure, sbufsim's figure and the error; exit 1 when a case is out of tolerance.
#include <cmath>
#include <cstdio>
#include <ostream>
#include <regex>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "sbufsim/types/number.h"
#include "sbufsim/validation/validation.h"

namespace po = boost::program_options;

namespace sbufsim::cli {

namespace {

constexpr const char* kValidateHelp =
    "usage: sbufsim validate [options]\n\n"
    "Check sbufsim's timing against the public Neuron documentation and the seeds. Each case\n"
    "replays a small trace built for it (a DMA transfer, a stream of compute instructions, matmul\n"
    "and LoadStationary pairs, PSUM accumulation groups with their evacuation) on one generation,\n"
    "measures one figure and compares it with the figure the public documentation states or\n"
    "implies (document and section in the source column; the arithmetic in docs/validation.md),\n"
    "with a seed HIGH/OBSERVED fact, or with the share of an SBUF bank the seeds' arbiter, TDM\n"
    "and throttler registers give a client (the A cases). A case passes within its tolerance (5 % unless "
    "shown),\n"
    "or, where the public figure is a bound (<= or >=, tol \"bound\"), on its side of it.\n\n"
    "examples:\n"
    "  sbufsim validate                 every case\n"
    "  sbufsim validate --only 'D0.*'   the DMA cases\n"
    "  sbufsim validate --only 'A.*'    the arbitration cases\n"
    "  sbufsim validate --list          the cases without running them\n\n"
    "exit status: 0 every case within tolerance, 1 a case out of tolerance or failing,\n"
    "2 bad command line.\n";

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

int cmd_validate(const std::vector<std::string>& args, Io io) {
    std::string log_level, only, config_dir;
    bool help = false, list = false, verbose = false;
    po::options_description visible("Options");
    visible.add_options()
        ("help,h", po::bool_switch(&help), "show this help")
        ("only", po::value(&only)->value_name("REGEX"), "run only the cases whose id matches REGEX (e.g. 'P0.*')")
        ("list", po::bool_switch(&list), "list the cases (id, generation, setup, source) and exit")
        ("verbose,v", po::bool_switch(&verbose), "print each case's setup and source under its row")
        ("config-dir", po::value(&config_dir)->value_name("DIR"), "generation configs from DIR (default: the shipped ones)");
    add_log_level_option(visible, log_level);
    parse_args(args, visible, nullptr, log_level);
    if (help) {
        io.out << kValidateHelp << "\n" << visible;
        return kExitOk;
    }
    std::regex pick;
    try {
        pick = std::regex(only.empty() ? ".*" : only);
    } catch (const std::regex_error& e) {
        io.err << "sbufsim validate: --only " << only << ": not a regular expression (" << e.what() << ")\n";
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
    io.out << pad("id", 6) << pad("gen", 9) << pad("group", 9) << pad("public/seed", figure_width) << pad("sbufsim", 13)
           << pad("error", 9) << pad("tol", 6) << "result  what (source)\n";
    for (const ValidationCase& c : validation_cases()) {
        if (!std::regex_match(c.id, pick)) continue;
        if (list) {
            io.out << pad(c.id, 6) << pad(c.gen, 9) << pad(c.group, 9) << c.what << " (" << c.source << ")\n";
            continue;
        }
        const ValidationRow r = run_case(c, config_dir);
        ++run;
        failed += r.ok ? 0 : 1;
        const std::string err = (std::signbit(r.error) ? "" : "+") + format_fixed(100.0 * r.error, 1) + "%";
        const std::string tol = c.bound == Bound::near ? format_fixed(100.0 * c.tolerance, 0) + "%" : "bound";
        io.out << pad(c.id, 6) << pad(c.gen, 9) << pad(c.group, 9) << pad(public_figure(c), figure_width)
               << pad(r.failure.empty() ? fmt(r.measured) : "-", 13) << pad(r.failure.empty() ? err : "-", 9) << pad(tol, 6)
               << pad(r.ok ? "ok" : "FAIL", 8) << c.what << "\n";
        if (verbose) io.out << "      source: " << c.source << "\n";
        if (!r.failure.empty()) io.out << "      error: " << r.failure << "\n";
    }
    if (list) return kExitOk;
    if (run == 0) {
        io.err << "sbufsim validate: no case matches --only " << only << " (see --list)\n";
        return kExitUsage;
    }
    io.out << "\n" << run << " case(s), " << (run - failed) << " within tolerance, " << failed << " out of tolerance\n";
    return failed ? kExitFindings : kExitOk;
}

}  // namespace sbufsim::cli
