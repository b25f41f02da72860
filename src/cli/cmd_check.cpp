// `sbufsim check TRACE...`: the command line of `check` (sbufsim/app/check.h): validate traces
// without simulating them.
#include <string>
#include <vector>

#include "cli/commands.h"
#include "sbufsim/app/check.h"

namespace po = boost::program_options;

namespace sbufsim::cli {

namespace {

constexpr const char* kCheckHelp =
    "usage: sbufsim check TRACE... [options]\n\n"
    "Validate text (.trc) or binary (.sbt) traces without simulating them: the syntax of every\n"
    "record, field ranges, and the ISA rules with their reason and seed section (operand placement,\n"
    "Matmul row/col groups and the q3 xbus bug, accumulate flags, zero region per generation, DMA\n"
    "transpose tiles, start partitions, the Q7 cores' own partitions and no Q7 path to PSUM, kernel\n"
    "clients and their regions, operand addresses wider than the 29-bit partition offset, semaphore\n"
    "ids, waits that can never be satisfied: too few signals, a cycle of waits between queues or a\n"
    "queue waiting for its own later signal (what `run` would deadlock on), races between queues\n"
    "(two instructions touching the same SBUF/PSUM bytes, one writing, with no wait ordering them:\n"
    "`run` would time them as they happen to fall), access cycles that go back in time).\n"
    "Format: docs/trace-format.md.\n\n"
    "Each problem is printed on stdout as  file:line: field: reason (rule, seed section)\n"
    "(line = record ordinal for binary traces). The generation is --gen if given, else the\n"
    "trace header's gen=, else cayman.\n\n"
    "examples:\n"
    "  sbufsim check traces/matmul_kloop.trc\n"
    "  sbufsim check big.sbt --max-errors 20\n"
    "  sbufsim check mine.trc --gen mariana --set isa.num_semaphores=64\n\n"
    "exit status: 0 every trace is clean, 1 problems found, 2 bad command line or configuration,\n"
    "3 a trace file cannot be opened.\n";

}  // namespace

int cmd_check(const std::vector<std::string>& args, Io io) {
    ConfigOptions cfg;
    CheckRequest r;
    std::vector<std::string>& traces = r.traces;
    std::string log_level;
    bool help = false;

    po::options_description visible("Options");
    visible.add_options()("help,h", po::bool_switch(&help), "show this help")(
        "max-errors", po::value(&r.max_errors)->value_name("N"),
        "stop after N problems (0 = report all; default 0)")("quiet,q", po::bool_switch(&r.quiet),
                                                             "no summary line, only the problems")(
        "lenient", po::bool_switch(&r.lenient),
        "check the records of another generation's trace too (what run --lenient would skip)");
    add_log_level_option(visible, log_level);
    visible.add(config_options(cfg));
    po::options_description hidden;
    hidden.add_options()("trace", po::value(&traces)->composing(), "trace to check");
    hidden.add(key_flag_options());
    po::options_description all;
    all.add(visible).add(hidden);
    po::positional_options_description pos;
    pos.add("trace", -1);

    const ParsedArgs args_in = parse_args(args, all, &pos, log_level);
    const auto& parsed = args_in.parsed;

    if (help) {
        io.out << kCheckHelp << "\n" << visible;
        return kExitOk;
    }
    if (traces.empty()) {
        io.err << "sbufsim check: no trace given (see sbufsim check --help)\n";
        return kExitUsage;
    }

    r.config = make_load_request(cfg, parsed);
    return check_traces(r, io);
}

}  // namespace sbufsim::cli
