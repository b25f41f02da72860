// `check` (sbufsim/app/check.h): each trace streamed through the reader, TraceChecker and the
// synchronisation check, every problem printed as it is found.
#include "sbufsim/app/check.h"

#include <algorithm>
#include <memory>
#include <ostream>

#include <spdlog/spdlog.h>

#include "sbufsim/app/messages.h"
#include "sbufsim/trace/sync_check.h"
#include "sbufsim/trace/trace.h"
#include "sbufsim/trace/trace_check.h"

namespace sbufsim::app {

namespace {

struct Totals {
    std::uint64_t problems = 0;
    std::uint64_t records = 0;
    std::uint64_t max_errors = 0;  // 0 = no limit
    std::uint64_t unreadable = 0;  // traces that could not be opened
    bool limit_hit() const { return max_errors != 0 && problems >= max_errors; }
};

void report(std::ostream& out, Totals& t, const std::vector<TraceError>& errors) {
    for (const auto& e : errors) {
        if (t.limit_hit()) return;
        out << e.to_string() << "\n";
        ++t.problems;
    }
}

LoadedConfig config_for(const LoadRequest& cfg, const TraceHeader& h) {
    LoadRequest req = cfg;
    // The trace's own generation, unless the command line or a --config file's base picks one.
    if (req.generation.empty() && req.user_files.empty() && !h.generation.empty())
        req.generation = h.generation;
    return load_config(req);
}

void check_one(const std::string& path, const LoadRequest& cfg, Io io, Totals& t, bool lenient) {
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
        config = config_for(cfg, reader->header());
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
            const std::size_t before = errors.size();
            sync.add(rec, errors, valid);
            checker.note_cascade(errors, before);  // races a rejected record's waits would have ordered
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
    const std::size_t before = errors.size();
    sync.finish(errors);  // cycles of waits and self-waits: what `run` would deadlock on
    checker.note_cascade(errors, before);
    report(io.out, t, errors);
    t.records += records;
    spdlog::info("check: {}: {} records, {} problem(s) so far", path, records, t.problems);
}

}  // namespace

int check_traces(const CheckRequest& r, Io io) {
    Totals t;
    t.max_errors = r.max_errors;
    for (const auto& path : r.traces) {
        if (t.limit_hit()) break;
        check_one(path, r.config, io, t, r.lenient);
    }
    if (t.limit_hit()) io.out << "stopped after " << t.problems << " problems (--max-errors)\n";
    if (!r.quiet)
        io.err << "sbufsim check: " << r.traces.size() << " trace(s), " << t.records << " records, "
               << t.problems << " problem(s)"
               << (t.unreadable ? ", " + std::to_string(t.unreadable) + " unreadable" : "") << "\n";
    if (t.unreadable) return kExitInput;
    return t.problems ? kExitFindings : kExitOk;
}

}  // namespace sbufsim::app
