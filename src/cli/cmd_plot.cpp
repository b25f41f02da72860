// sbufsim plot: the command line of `plot` (sbufsim/app/plot.h): a run's heatmap or a sweep
// table's chart. docs/visualisation.md.
#include "cli/commands.h"
#include "sbufsim/app/picture.h"
#include "sbufsim/app/plot.h"
#include "sbufsim/types/input_file.h"

namespace po = boost::program_options;

namespace sbufsim::cli {

namespace {

const char* kPlotHelp =
    "Draw, as SVG (or PNG through rsvg-convert when -o ends in .png):\n"
    "  - from a `run --window-stats N --json` file: the bank x time heatmap (utilisation and conflict\n"
    "    stalls per ECC bank, stalls of all clients by cause) and the client x client\n"
    "    who-blocked-whom matrix of a run;\n"
    "  - from a `sweep --out` CSV table or `sweep --json` rows: one metric over the varied keys.\n"
    "    One varied key: a line chart; two: a heat chart (one cell per point), or with --chart\n"
    "    line / several traces one line per value of the second key. --x/--y are inferred when\n"
    "    the table leaves no choice; fix further varied keys with --where KEY=VALUE. Points not\n"
    "    `ok` are skipped and listed.\n";

const char* kPlotExamples =
    "\nexamples:\n"
    "  sbufsim run traces/act_vs_matmul_collide.trc --window-stats 16 --json s.json --quiet\n"
    "  sbufsim plot s.json -o heatmap.svg\n"
    "  sbufsim plot s.json -o heatmap.png                    PNG, needs rsvg-convert (librsvg2-bin)\n"
    "  sbufsim sweep traces/dma_vs_compute.trc --vary tdm.dma_slots=0:8 --out tdm.csv\n"
    "  sbufsim plot tdm.csv -o tdm.svg --metric tdm_stalls\n"
    "  sbufsim sweep traces/dma_vs_compute.trc --vary tdm.dma_slots=0:8 --vary tdm.max_slots=8,12,16 --out "
    "t2.csv\n"
    "  sbufsim plot t2.csv -o t2.svg --metric total_cycles --x tdm.dma_slots --y tdm.max_slots\n"
    "  sbufsim plot t2.csv -o t2l.svg --metric jain_fairness --chart line\n";

}  // namespace

int cmd_plot(const std::vector<std::string>& args, Io io) {
    std::string log_level;
    PlotRequest r;
    std::string &input = r.input, &output = r.output;
    po::options_description desc("sbufsim plot STATS.json|SWEEP.csv|SWEEP.json -o FILE.svg [options]");
    desc.add_options()("help,h", "show this help")(
        "output,o", po::value(&output)->value_name("FILE"),
        "the picture to write: FILE.svg, or FILE.png rendered by rsvg-convert (package librsvg2-bin) "
        "when installed ('-' = SVG on stdout)");
    po::options_description stats("Run heatmap (STATS.json)");
    stats.add_options()("run", po::value(&r.run)->default_value(r.run)->value_name("K"),
                        "which run of the file (0-based)")(
        "bins", po::value(&r.bins)->default_value(r.bins)->value_name("N"), "at most N time bins");
    po::options_description sweep("Sweep chart (SWEEP.csv or SWEEP.json)");
    sweep.add_options()("metric", po::value(&r.chart.metric)->default_value(r.chart.metric)->value_name("M"),
                        "the metric to chart (a numeric column of the table)")(
        "x", po::value(&r.chart.x)->value_name("KEY"), "the key along the x axis (default: inferred)")(
        "y", po::value(&r.chart.y)->value_name("KEY"),
        "the second key: heat chart rows, or one line per value")(
        "where", po::value(&r.chart.where)->composing()->value_name("KEY=VALUE"),
        "chart only the rows with this value (repeatable; fixes a further varied key)")(
        "chart", po::value(&r.chart_kind)->default_value(r.chart_kind)->value_name("auto|line|heat"),
        "auto: line for one key (or a key over several traces), heat for two")(
        "label", po::value(&r.label)->value_name("TEXT"),
        "an extra subtitle line (e.g. the sweep's --gen/--set)")(
        "zoom", po::bool_switch(&r.chart.zoom),
        "line chart: fit the y axis to the values (default: from 0, so a line's height is its value); "
        "a note under the chart says so");
    add_force_option(desc, r.force);
    add_log_level_option(desc, log_level);
    po::options_description hidden;
    hidden.add_options()("input", po::value(&input), "statistics file or sweep table");
    po::positional_options_description pos;
    pos.add("input", 1);
    po::options_description all;
    all.add(desc).add(stats).add(sweep).add(hidden);
    const po::variables_map vm = parse_args(args, all, &pos, log_level).vm;
    if (vm.count("help")) {
        po::options_description shown;
        shown.add(desc).add(stats).add(sweep);
        io.out << kPlotHelp << shown << kPlotExamples;
        return kExitOk;
    }
    // One message per mistake: the one the user made, not the list of everything plot needs.
    const char* missing = input.empty()
                              ? "need the file to chart: STATS.json (sbufsim run --json), SWEEP.csv "
                                "(sbufsim sweep --out) or SWEEP.json (sbufsim sweep --json)"
                          : output.empty() ? "need -o FILE.svg (or FILE.png) for the picture"
                          : r.bins == 0    ? "--bins 0: a heatmap needs at least one time bin"
                                           : nullptr;
    if (missing) {
        io.err << "sbufsim plot: " << missing << "; see --help\n";
        return kExitUsage;
    }
    if (const std::string why = picture_path_problem(output == "-" ? "" : output); !why.empty()) {
        io.err << "sbufsim plot: -o " << why << "\n";
        return kExitUsage;
    }
    if (const std::string why = input_file_problem(input); !why.empty()) {
        io.err << "sbufsim plot: " << input << ": cannot open: " << why
               << "; give a statistics file (sbufsim run --json) or a sweep table (sbufsim sweep)\n";
        return kExitInput;
    }
    // Options of the other kind of input are mistakes, not silently ignored wishes.
    const bool table = is_sweep_table(input);
    for (const auto& [name, value] : vm) {
        const bool sweep_only = sweep.find_nothrow(name, false) != nullptr;
        const bool stats_only = stats.find_nothrow(name, false) != nullptr;
        if (value.defaulted() || (table ? !stats_only : !sweep_only)) continue;
        io.err << "sbufsim plot: --" << name << " applies to "
               << (table ? "a STATS.json heatmap" : "a sweep chart") << ", and " << input << " is "
               << (table ? "a sweep table" : "not a sweep table") << "\n";
        return kExitUsage;
    }
    r.sweep_table = table;
    return plot(r, io);
}

}  // namespace sbufsim::cli
