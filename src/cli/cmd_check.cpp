// `sbufsim check TRACE...`: validate traces without simulating. Streams each trace through the
// reader (syntax, field widths) and TraceChecker (hardware rules), printing every problem as
// `file:line: field: reason (rule, seed section)`.
#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "sbufsim/trace/trace.h"
#include "sbufsim/trace/sync_check.h"
#include "sbufsim/trace/trace_check.h"

#include <spdlog/spdlog.h>

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

struct Totals {
    std::uint64_t problems = 0;
    std::uint64_t records = 0;
    std::uint64_t max_errors = 0;   // 0 = no limit
    std::uint64_t unreadable = 0;   // traces that could not be opened
    bool limit_hit() const { return max_errors != 0 && problems >= max_errors; }
};

void report(std::ostream& out, Totals& t, const std::vector<TraceError>& errors) {
    for (const auto& e : errors) {
        if (t.limit_hit()) return;
        out << e.to_string() << "\n";
        ++t.problems;
    }
}

LoadedConfig config_for(const ConfigOptions& cfg, const po::parsed_options& parsed, const TraceHeader& h) {
    LoadRequest req = make_load_request(cfg, parsed);
    // The trace's own generation, unless the command line or a --config file's base picks one.
    if (req.generation.empty() && req.user_files.empty() && !h.generation.empty()) req.generation = h.generation;
    return load_config(req);
}

void check_one(const std::string& path, const ConfigOptions& cfg, const po::parsed_options& parsed, Io io,
               Totals& t, bool lenient) {
    std::vector<TraceError> errors;
    std::unique_ptr<TraceReader> reader;
    try {
        reader = std::make_unique<TraceReader>(path);
    } catch (const TraceFormatError& e) {
        if (e.error().field == "file") {
            io.err << "sbufsim check: " << e.what() << shipped_trace_hint(path) << "\n";
            ++t.unreadable;
            return;
        }
        report(io.out, t, {e.error()});
        return;
    }
    LoadedConfig config;
    try {
        config = config_for(cfg, parsed, reader->header());
    } catch (const ConfigError& e) {
        // An unknown generation in the header is the trace's fault, not the command line's.
        if (cfg.generation.empty() && !reader->header().generation.empty()) {
            report(io.out, t,
                   {TraceError{path, reader->header().line, "gen", e.what(),
                               "trace format v1, docs/trace-format.md"}});
            return;
        }
        throw;
    }
    spdlog::info("check: {} against generation {}", path, config.params.generation);
    TraceChecker checker(config.params, path);
    SyncCheck sync(config.params, path);
    checker.check_header(reader->header(), errors);
    report(io.out, t, errors);
    // Another generation's trace: its addresses and engines are that generation's, so every
    // record would be a problem of the choice, not of the trace. Said once, unless asked for.
    const bool other_generation =
        std::any_of(errors.begin(), errors.end(), [](const TraceError& e) { return e.field == "gen"; });
    if (other_generation && !lenient) {
        io.err << "sbufsim check: " << path << ": records not checked against " << config.params.generation
               << " (the trace is " << reader->header().generation
               << "'s); --lenient checks them anyway, listing what run --lenient would skip\n";
        return;
    }

    Record rec;
    TraceError err;
    std::uint64_t records = 0;
    for (;;) {
        if (t.limit_hit()) break;  // the records read so far still count in the summary
        errors.clear();
        const ReadStatus s = reader->read(rec, err);
        if (s == ReadStatus::end) break;
        if (s == ReadStatus::error) {
            errors.push_back(err);
            checker.note_rejected(err.line);
        } else {
            ++records;
            const bool valid = checker.check(rec, errors) == 0;
            sync.add(rec, errors, valid);
        }
        report(io.out, t, errors);
    }
    errors.clear();
    // Nothing after the header reads as a clean trace, yet is almost never meant: a copy or write
    // cut off after the header, a generator that wrote nothing, or CR line endings.
    if (records == 0 && !t.limit_hit())
        errors.push_back(
            TraceError{path, reader->header().line, "records",
                       "no records after the header: an empty trace (cut off after its header, or "
                       "written by something that had nothing to write?); run replays it as 0 cycles",
                       "trace format v1, docs/trace-format.md"});
    checker.finish(errors);
    sync.finish(errors);   // cycles of waits and self-waits: what `run` would deadlock on
    report(io.out, t, errors);
    t.records += records;
    spdlog::info("check: {}: {} records, {} problem(s) so far", path, records, t.problems);
}

}  // namespace

int cmd_check(const std::vector<std::string>& args, Io io) {
    ConfigOptions cfg;
    std::vector<std::string> traces;
    std::string log_level;
    bool help = false, quiet = false, lenient = false;
    std::uint64_t max_errors = 0;

    po::options_description visible("Options");
    visible.add_options()("help,h", po::bool_switch(&help), "show this help")(
        "max-errors", po::value(&max_errors)->value_name("N"),
        "stop after N problems (0 = report all; default 0)")("quiet,q", po::bool_switch(&quiet),
                                                             "no summary line, only the problems")(
        "lenient", po::bool_switch(&lenient),
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

    Totals t;
    t.max_errors = max_errors;
    for (const auto& path : traces) {
        if (t.limit_hit()) break;
        check_one(path, cfg, parsed, io, t, lenient);
    }
    if (t.limit_hit()) io.out << "stopped after " << t.problems << " problems (--max-errors)\n";
    if (!quiet)
        io.err << "sbufsim check: " << traces.size() << " trace(s), " << t.records << " records, "
               << t.problems << " problem(s)"
               << (t.unreadable ? ", " + std::to_string(t.unreadable) + " unreadable" : "") << "\n";
    if (t.unreadable) return kExitInput;
    return t.problems ? kExitFindings : kExitOk;
}

}  // namespace sbufsim::cli
