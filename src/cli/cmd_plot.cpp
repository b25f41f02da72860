// sbufsim plot: draw the bank x time heatmap and the who-blocked-whom matrix from the JSON that
// `sbufsim run --window-stats N --json FILE` wrote. docs/visualisation.md.
// property_tree includes boost/bind.hpp, which otherwise prints a deprecation note.
#define BOOST_BIND_GLOBAL_PLACEHOLDERS
#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <filesystem>
#include <fstream>

#include "cli/commands.h"
#include "sbufsim/heatmap.h"

namespace po = boost::program_options;
namespace pt = boost::property_tree;

namespace sbufsim::cli {

namespace {

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// The per-window rows of one run object; throws std::runtime_error when it has none.
WindowSeries windows_of(const pt::ptree& run) {
    const auto w = run.get_child_optional("window");
    if (!w || w->empty())
        throw std::runtime_error("the run has no per-window rows: write it with `sbufsim run --window-stats N --json FILE`");
    WindowSeries s;
    s.width = run.get_child("run").get<Cycle>("window_cycles", 0);
    bool first = true;
    for (const auto& [name, m] : *w) {
        WindowRow r;
        for (const auto& [key, v] : m) {
            const auto value = v.get_value<std::uint64_t>();
            if (key == "start") r.start = value;
            else if (key == "cycles") r.cycles = value;
            else if (key == "tdm.compute_used") r.tdm_compute = value;
            else if (key == "tdm.dma_used") r.tdm_dma = value;
            else if (starts_with(key, "busy.")) {
                r.busy.push_back(value);
                if (first) s.banks.push_back(key.substr(5));
            } else if (starts_with(key, "conflicts.")) r.conflicts.push_back(value);
            else if (starts_with(key, "stalls.")) r.stalls.push_back(value);
            else if (starts_with(key, "bytes.")) {
                r.bytes.push_back(value);
                if (first) s.clients.push_back(key.substr(6));
            }
        }
        if (r.busy.size() != s.banks.size() || r.stalls.size() != s.banks.size() || r.conflicts.size() != s.banks.size())
            throw std::runtime_error("window row " + name + " does not list every bank");
        r.bytes.resize(s.clients.size());
        s.rows.push_back(std::move(r));
        first = false;
    }
    for (const auto& b : s.banks) s.sbuf_banks += starts_with(b, "sbuf_");
    return s;
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
    i.settings = "config " + r.get<std::string>("config_hash", "?");
    return i;
}

}  // namespace

int cmd_plot(const std::vector<std::string>& args, Io io) {
    std::string input, output, log_level;
    std::size_t run_index = 0, bins = 200;
    po::options_description desc("sbufsim plot STATS.json -o FILE.svg [options]");
    desc.add_options()("help,h", "show this help")
        ("output,o", po::value(&output)->value_name("FILE"), "the SVG to write ('-' = stdout)")
        ("run", po::value(&run_index)->default_value(run_index)->value_name("K"), "which run of the file (0-based)")
        ("bins", po::value(&bins)->default_value(bins)->value_name("N"), "at most N time bins");
    add_log_level_option(desc, log_level);
    po::options_description hidden;
    hidden.add_options()("input", po::value(&input), "statistics file");
    po::positional_options_description pos;
    pos.add("input", 1);
    po::options_description all;
    all.add(desc).add(hidden);
    const po::variables_map vm = parse_args(args, all, &pos, log_level).vm;
    if (vm.count("help")) {
        io.out << "Draw the bank x time heatmap (utilisation and conflict stalls per ECC bank) and the\n"
                  "client x client who-blocked-whom matrix of a run, as SVG.\n\n"
               << desc
               << "\nexamples:\n"
                  "  sbufsim run traces/act_vs_matmul_collide.trc --window-stats 16 --json s.json --quiet\n"
                  "  sbufsim plot s.json -o heatmap.svg\n";
        return kExitOk;
    }
    if (input.empty() || output.empty() || bins == 0) {
        io.err << "sbufsim plot: need STATS.json and -o FILE.svg (and --bins >= 1); see --help\n";
        return kExitUsage;
    }
    if (std::filesystem::path(input).extension() == ".csv") {
        io.err << "sbufsim plot: sweep charts from CSV are not supported yet; plot a `run --json` file\n";
        return kExitUsage;
    }
    pt::ptree doc;
    try {
        pt::read_json(input, doc);
        const auto& runs = doc.get_child("runs");
        if (run_index >= runs.size()) throw std::runtime_error("the file has " + std::to_string(runs.size()) + " run(s)");
        const pt::ptree& run = std::next(runs.begin(), static_cast<std::ptrdiff_t>(run_index))->second;
        const std::string svg = render_heatmap(windows_of(run), matrix_of(run), info_of(run), bins);
        if (output == "-") {
            io.out << svg;
        } else {
            std::ofstream f(output);
            if (!f) throw std::runtime_error("cannot write " + output);
            f << svg;
        }
    } catch (const pt::ptree_error& e) {
        io.err << "sbufsim plot: " << input << ": " << e.what() << "\n";
        return kExitInput;
    } catch (const std::runtime_error& e) {
        io.err << "sbufsim plot: " << input << ": " << e.what() << "\n";
        return kExitInput;
    }
    return kExitOk;
}

}  // namespace sbufsim::cli
