// `run --from` (the recorded runs of a result file), the metric list and --window-stats' help.
#include <algorithm>
#include <filesystem>
#include <sstream>

// property_tree includes boost/bind.hpp, which otherwise prints a deprecation note.
#define BOOST_BIND_GLOBAL_PLACEHOLDERS
#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>

#include "sbufsim/app/run.h"
#include "sbufsim/output/metrics.h"
#include "sbufsim/output/output_file.h"
#include "sbufsim/stats/window_stats.h"
#include "sbufsim/types/input_file.h"

namespace sbufsim::app {

namespace {

// A trace whose digest differs from the one `result` recorded was edited since: its statistics
// will not be the recorded ones, which the user re-running a result expects. Said, not refused
// (replaying an edited trace under the recorded settings is a use of its own).
void warn_if_changed(const std::string& result, const std::string& trace, const std::string& recorded,
                     std::ostream& err) {
    if (recorded.empty() || !input_file_problem(trace).empty()) return;  // the run says why it cannot read it
    const std::string now = file_digest(trace);
    if (now == recorded) return;
    err << "sbufsim run: --from " << result << ": " << trace
        << " changed since the result was written (digest " << recorded << " then, " << now
        << " now): its statistics will differ from the recorded ones\n";
}

}  // namespace

// The metric registry as a table (output/metrics.h).
void print_metric_list(std::ostream& os) {
    os << "metrics (sweep --metric / --rank-by; --json/--csv/--stats write each at its report path, shown in "
          "[ ]\n"
          "where it differs from the name, which also names it; \"sweep only\": not in the report). "
          "Families:\n"
          "<engine> = arr_seq (or pe), act, pool, dve, dma_K, q7_K; <client> = a kernel client as in the "
          "run's\n"
          "client table; <group> = PE, ACT, POOL, DVE, DMA, Q7, kernel; <bank> = sbuf_K, psum_K; <key> = a "
          "config key\n";
    std::size_t w = 0;
    for (const auto& m : metric_registry()) w = std::max(w, m.name.size());
    for (const auto& m : metric_registry()) {
        std::string name = m.name, unit = m.unit.empty() ? "text" : m.unit, better = to_string(m.better);
        name.resize(w + 2, ' ');
        unit.resize(13, ' ');
        better.resize(8, ' ');
        os << "  " << name << unit << better << m.description;
        if (m.report_path.empty())
            os << " [sweep only]";
        else if (m.report_path != m.name)
            os << " [" << m.report_path << "]";
        os << "\n";
    }
}

// --window-stats: the row cap from the one constant that enforces it.
const std::string& window_stats_help() {
    static const std::string help =
        "add per-N-cycle rows (bank busy/conflicts/stalls, client bytes, stalls by cause) to "
        "--json/--csv/--stats; "
        "windows in which nothing happened have no row (at most " +
        std::to_string(kMaxActiveBins) + " rows with activity)";
    return help;
}

RecordedRuns read_recorded_runs(const std::string& result, std::ostream& err) {
    namespace pt = boost::property_tree;
    RecordedRuns recorded;
    if (const std::string why = input_file_problem(result); !why.empty()) {
        err << "sbufsim run: --from " << result << ": cannot open: " << why
            << "; give a file written by sbufsim run --json\n";
        recorded.status = kExitInput;
        return recorded;
    }
    pt::ptree doc;
    recorded.status = kExitUsage;
    try {
        // Read once and checked first (nesting, size, a device of zeros): the parser recurses
        // once per level.
        std::istringstream text(read_json_input(result));
        pt::read_json(text, doc);
    } catch (const InputError& e) {
        err << "sbufsim run: --from " << e.what() << "; give a file written by sbufsim run --json\n";
        return recorded;
    } catch (const pt::json_parser_error& e) {
        err << "sbufsim run: --from " << result << ": not a result file (" << e.message() << " at line "
            << e.line() << "); give a file written by sbufsim run --json\n";
        return recorded;
    }
    const auto runs = doc.get_child_optional("runs");
    if (!runs || runs->empty()) {
        err << "sbufsim run: --from " << result
            << ": no \"runs\" array; give a file written by sbufsim run --json\n";
        return recorded;
    }
    recorded.status = kExitOk;
    for (const auto& [_, run] : *runs) {
        std::string trace = run.get<std::string>("trace", "");
        // A relative trace path is taken from where the result was written, if not found here.
        const std::filesystem::path beside = std::filesystem::path(result).parent_path() / trace;
        if (!std::filesystem::exists(trace) && std::filesystem::exists(beside)) trace = beside.string();
        // A trace moved since: say which result named it and every place it was looked for.
        if (!trace.empty() && !std::filesystem::exists(trace)) {
            const bool two = beside.string() != trace;
            err << "sbufsim run: --from " << result << ": the trace it records, " << trace
                << ", is not there any more (looked for " << trace
                << (two ? " from here and " + beside.string() + " beside the result" : std::string())
                << "); put it "
                << "back, or copy it " << (two ? "beside the result" : "to that path") << "\n";
            recorded.status = kExitInput;
            return recorded;
        }
        warn_if_changed(result, trace, run.get<std::string>("run.trace_digest", ""), err);
        recorded.traces.push_back(trace);
        recorded.generations.push_back(run.get<std::string>("run.generation", ""));
    }
    const pt::ptree& first = runs->front().second;
    recorded.scheduler = first.get<std::string>("run.scheduler", "fast");
    recorded.lenient = first.get<int>("run.lenient", 0) != 0;
    if (const auto config = first.get_child_optional("config"))
        for (const auto& [key, v] : *config)
            recorded.settings.emplace_back(key, v.get<std::string>("value", ""));
    return recorded;
}

}  // namespace sbufsim::app
