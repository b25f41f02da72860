// `plot` (sbufsim/app/plot.h): a run's heatmap from its --json statistics, or a sweep table's chart.
#include "sbufsim/app/plot.h"

// property_tree includes boost/bind.hpp, which otherwise prints a deprecation note.
#define BOOST_BIND_GLOBAL_PLACEHOLDERS
#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include <spdlog/spdlog.h>

#include "sbufsim/app/outputs.h"
#include "sbufsim/app/picture.h"
#include "sbufsim/output/heatmap.h"
#include "sbufsim/trace/trace.h"
#include "sbufsim/types/input_file.h"

namespace pt = boost::property_tree;

namespace sbufsim::app {

namespace {

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// A "stalled.<cause>" value; a cause this version does not know is left out of the picture.
void add_stalled(WindowRow& r, const std::string& cause, std::uint64_t value) {
    for (std::size_t k = 0; k < kStallCauses; ++k)
        if (cause == to_string(static_cast<StallCause>(k))) r.stalled[k] = value;
}

// The per-window rows of one run object; throws std::runtime_error when it has none.
WindowSeries windows_of(const pt::ptree& run) {
    const auto w = run.get_child_optional("window");
    if (!w || w->empty())
        throw std::runtime_error(
            "the run has no per-window rows: write it with `sbufsim run --window-stats N --json FILE`");
    WindowSeries s;
    s.width = run.get_child("run").get<Cycle>("window_cycles", 0);
    bool first = true;
    for (const auto& [name, m] : *w) {
        WindowRow r;
        for (const auto& [key, v] : m) {
            const auto value = v.get_value<std::uint64_t>();
            if (key == "start")
                r.start = value;
            else if (key == "cycles")
                r.cycles = value;
            else if (key == "tdm.compute_used")
                r.tdm_compute = value;
            else if (key == "tdm.dma_used")
                r.tdm_dma = value;
            else if (starts_with(key, "busy.")) {
                r.busy.push_back(value);
                if (first) s.banks.push_back(key.substr(5));
            } else if (starts_with(key, "conflicts."))
                r.conflicts.push_back(value);
            else if (starts_with(key, "stalls."))
                r.stalls.push_back(value);
            else if (starts_with(key, "stalled."))
                add_stalled(r, key.substr(8), value);
            else if (starts_with(key, "bytes.")) {
                r.bytes.push_back(value);
                if (first) s.clients.push_back(key.substr(6));
            }
        }
        if (r.busy.size() != s.banks.size() || r.stalls.size() != s.banks.size() ||
            r.conflicts.size() != s.banks.size())
            throw std::runtime_error("window row " + name + " does not list every bank");
        r.bytes.resize(s.clients.size());
        s.rows.push_back(std::move(r));
        first = false;
    }
    for (const auto& b : s.banks) s.sbuf_banks += starts_with(b, "sbuf_");
    return s;
}

// Whether the window rows carry stalled.<cause> values (a run's JSON from an older sbufsim does not).
bool has_stalls_by_cause(const pt::ptree& run) {
    const auto w = run.get_child_optional("window");
    if (!w || w->empty()) return false;
    for (const auto& [key, v] : w->front().second)
        if (starts_with(key, "stalled.")) return true;
    return false;
}

// "victim<-winner": {"cycles": n} entries over the clients of the "client" section.
BlockMatrix matrix_of(const pt::ptree& run) {
    BlockMatrix m;
    if (const auto c = run.get_child_optional("client"))
        for (const auto& [name, v] : *c) m.clients.push_back(name);
    const std::size_t n = m.clients.size();
    m.cycles.assign(n * n, 0);
    auto idx = [&](const std::string& name) {
        for (std::size_t i = 0; i < n; ++i)
            if (m.clients[i] == name) return i;
        return n;
    };
    if (const auto b = run.get_child_optional("blocked_by")) {
        for (const auto& [pair, v] : *b) {
            const auto arrow = pair.find("<-");
            if (arrow == std::string::npos) continue;
            const std::size_t vi = idx(pair.substr(0, arrow)), wi = idx(pair.substr(arrow + 2));
            if (vi < n && wi < n) m.cycles[vi * n + wi] = v.get<std::uint64_t>("cycles", 0);
        }
    }
    return m;
}

HeatmapInfo info_of(const pt::ptree& run) {
    const pt::ptree& r = run.get_child("run");
    HeatmapInfo i;
    i.trace = std::filesystem::path(run.get<std::string>("trace", "")).filename().string();
    i.generation = r.get<std::string>("generation", "");
    i.pe_clock_ghz = r.get<double>("pe_clock_ghz", 0);
    i.total_cycles = r.get<Cycle>("total_cycles", 0);
    std::vector<std::string> kv;
    if (const auto c = run.get_child_optional("config"))
        for (const auto& [key, v] : *c) kv.push_back(key + "=" + v.get<std::string>("value", "?"));
    i.settings = heatmap_settings(kv, r.get<std::string>("config_hash", "?"));
    i.stalls_by_cause = has_stalls_by_cause(run);
    // The critical path's groups, largest first as the file lists them (a file written before the
    // section existed has none: no line about them).
    if (const auto cp = run.get_child_optional("critical_path")) {
        std::vector<PathGroup> path;
        for (const auto& [name, g] : *cp) {
            PathGroup pg{name, {}, g.get<std::uint64_t>("instructions", 0)};
            pg.cycles[static_cast<std::size_t>(PathCause::compute)] = g.get<Cycle>("compute_cycles", 0);
            pg.cycles[static_cast<std::size_t>(PathCause::bank_wait)] = g.get<Cycle>("bank_wait_cycles", 0);
            pg.cycles[static_cast<std::size_t>(PathCause::latency)] = g.get<Cycle>("latency_cycles", 0);
            pg.cycles[static_cast<std::size_t>(PathCause::drain)] = g.get<Cycle>("drain_cycles", 0);
            path.push_back(pg);
        }
        i.path = heatmap_path(path, i.total_cycles);
    }
    return i;
}

// Writes the picture to `output` (nullptr = stdout; .png through rsvg-convert, cli/picture.h).
void write_svg(const std::string& svg, OutputFile* output, Io io) {
    write_picture(svg, output, io.out);
    if (output) output->commit();
}

int plot_stats(const std::string& input, OutputFile* output, std::size_t run_index, std::size_t bins, Io io) {
    pt::ptree doc;
    try {
        // Read once and checked first (nesting, size, a device of zeros): the parser recurses
        // once per level.
        std::istringstream text(read_json_input(input));
        pt::read_json(text, doc);
        const auto found = doc.get_child_optional("runs");
        if (!found || found->empty()) {
            io.err << "sbufsim plot: " << input << ": not a run's statistics (no \"runs\" in it"
                   << (doc.get_child_optional("traceEvents") ? "; it is a --timeline file" : "")
                   << "); give a file written by sbufsim run --window-stats N --json, or a sweep's table "
                      "(sweep --out) or rows (sweep --json)\n";
            return kExitInput;
        }
        const auto& runs = *found;
        if (run_index >= runs.size()) {
            io.err << "sbufsim plot: --run " << run_index << ": " << input << " has " << runs.size()
                   << " run(s): --run 0" << (runs.size() > 1 ? ".." + std::to_string(runs.size() - 1) : "")
                   << "\n";
            return kExitUsage;
        }
        const pt::ptree& run = std::next(runs.begin(), static_cast<std::ptrdiff_t>(run_index))->second;
        write_svg(render_heatmap(windows_of(run), matrix_of(run), info_of(run), bins), output, io);
    } catch (const InputError& e) {
        io.err << "sbufsim plot: " << e.what() << "; give a file written by sbufsim run --json\n";
        return kExitInput;
    } catch (const pt::json_parser_error& e) {
        io.err << "sbufsim plot: " << input << ": not a statistics file (" << e.message() << " at line "
               << e.line()
               << "); give a file written by sbufsim run --json, or a sweep's table (sweep --out) or rows "
                  "(sweep --json)\n";
        return kExitInput;
    } catch (const pt::ptree_error& e) {
        io.err << "sbufsim plot: " << input << ": " << e.what() << "\n";
        return kExitInput;
    } catch (const MissingTool& e) {
        io.err << "sbufsim plot: " << e.what() << "\n";
        return kExitUsage;
    } catch (const OutputError&) {
        throw;
    } catch (const std::runtime_error& e) {
        io.err << "sbufsim plot: " << input << ": " << e.what() << "\n";
        return kExitInput;
    }
    return kExitOk;
}

// ---- sweep charts ----

// The generation the traces' headers name, when every readable one names the same. The CSV does
// not record the sweep's --gen/--config, so the chart says where the name comes from.
std::string generation_of(const std::vector<std::string>& traces) {
    std::string gen;
    for (const auto& t : traces) {
        try {
            const std::string g = TraceReader(t).header().generation;
            if (g.empty() || (!gen.empty() && g != gen)) return "";
            gen = g;
        } catch (const std::exception&) {
            return "";  // moved or relative to another directory: say nothing rather than guess
        }
    }
    return gen.empty() ? "" : gen + " (trace header)";
}

int plot_sweep(const std::string& input, OutputFile* output, const PlotRequest& o, Io io) {
    try {
        chart::ChartRequest req = o.chart;
        req.kind = chart::parse_chart_kind(o.chart_kind);
        // A JSON table is checked as run --from's files are before its parser sees it.
        if (std::filesystem::path(input).extension() != ".csv") (void)read_json_input(input);
        const chart::SweepTable table = chart::read_sweep_table(input);
        const chart::ChartModel m = chart::build_chart(table, req);
        if (!m.skipped.empty()) {
            io.err << "sbufsim plot: note: " << chart::skipped_summary(m) << ":\n";
            for (const auto& k : m.skipped)
                io.err << "  " << input << ":" << k.line << ": " << chart::describe_point(m, k.x, k.y) << ": "
                       << k.status << (k.message.empty() ? "" : ": " + k.message) << "\n";
        }
        write_svg(chart::render_chart(m, chart::ChartInfo{generation_of(m.traces), o.label}), output, io);
    } catch (const chart::ChartError& e) {
        io.err << "sbufsim plot: " << e.what() << "\n";
        return e.kind() == chart::ChartError::Kind::usage ? kExitUsage : kExitInput;
    } catch (const MissingTool& e) {
        io.err << "sbufsim plot: " << e.what() << "\n";
        return kExitUsage;
    } catch (const OutputError&) {
        throw;
    } catch (const std::runtime_error& e) {
        io.err << "sbufsim plot: " << e.what() << "\n";
        return kExitInput;
    }
    return kExitOk;
}

}  // namespace

// A sweep table: a .csv name, a first line that is the sweep header (a file named otherwise), or
// a JSON array (`sweep --json`; a run's statistics are an object).
bool is_sweep_table(const std::string& input) {
    if (std::filesystem::path(input).extension() == ".csv") return true;
    std::ifstream f(input);
    std::string head(4096, '\0');
    f.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(f.gcount()));
    return head.rfind("trace,", 0) == 0 || chart::looks_like_sweep_json(head);
}

int plot(const PlotRequest& r, Io io) {
    spdlog::info("plot: {} ({}) -> {}", r.input, r.sweep_table ? "sweep table" : "run statistics", r.output);
    // Checked before reading the input: never the input itself, never a file of another kind.
    std::unique_ptr<OutputFile> file;
    if (r.output != "-")
        file = std::make_unique<OutputFile>(r.output, picture_output_policy("-o file", r.force, {r.input}));
    return r.sweep_table ? plot_sweep(r.input, file.get(), r, io)
                         : plot_stats(r.input, file.get(), r.run, r.bins, io);
}

}  // namespace sbufsim::app
