// `sbufsim plot SWEEP.csv` end to end: a real `sbufsim sweep` on a shipped trace (the built
// binary, so its worker processes fork from a clean parent), then `plot` on its table through
// the command table: the chart's points and cells match the table, failed points are skipped
// with a note, and every kind of mistake gets its message and exit status.
#include <gtest/gtest.h>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include "cli/outputs.h"
#include "cli_harness.h"
#include "sbufsim/sweep/sweep.h"

namespace sbufsim::cli {
namespace {

namespace pt = boost::property_tree;
using namespace sbufsim::test;

std::string tmp(const std::string& name) { return temp("plot_sweep_" + name); }

// A sweep of dma_vs_compute.trc written to `out`; fails the test when the sweep itself fails
// for another reason than invalid points (exit status 1).
void run_sweep(const std::vector<std::string>& vary, const std::string& out, int expected_rc = kExitOk,
               const std::vector<std::string>& base = {}) {
    std::vector<std::string> args = {"sweep", shipped("dma_vs_compute.trc"), "--jobs", "2", "--quiet", "--out", out};
    for (const auto& v : vary) args.insert(args.end(), {"--vary", v});
    args.insert(args.end(), base.begin(), base.end());
    const CliOut o = sbufsim_process(args, "plot_sweep_");
    ASSERT_EQ(o.rc, expected_rc) << o.err;
}

// The table's rows as column -> cell maps.
std::vector<std::map<std::string, std::string>> read_rows(const std::string& path) {
    std::istringstream in(slurp(path));
    std::string line;
    std::getline(in, line);
    const auto header = *sweep::parse_csv_line(line);
    std::vector<std::map<std::string, std::string>> rows;
    while (std::getline(in, line)) {
        const auto cells = *sweep::parse_csv_line(line);
        std::map<std::string, std::string> r;
        for (std::size_t i = 0; i < header.size(); ++i) r[header[i]] = cells[i];
        rows.push_back(r);
    }
    return rows;
}

void collect(const pt::ptree& node, const std::string& cls, std::vector<pt::ptree>& out) {
    for (const auto& [name, child] : node) {
        if (name == "rect" && child.get<std::string>("<xmlattr>.class", "") == cls) out.push_back(child);
        collect(child, cls, out);
    }
}

// The <rect class=cls> elements of an SVG file (attributes under <xmlattr>, tooltip in title).
std::vector<pt::ptree> rects(const std::string& svg_path, const std::string& cls) {
    pt::ptree doc;
    pt::read_xml(svg_path, doc);  // throws when the file is not well-formed XML
    std::vector<pt::ptree> out;
    collect(doc, cls, out);
    return out;
}

TEST(CliPlotSweep, Two_keys_give_one_heat_cell_per_point_with_the_tables_values) {
    const std::string csv = tmp("grid.csv"), svg = tmp("grid.svg");
    // dma_slots 5 > max_slots 4 is rejected by the loader: an invalid row, sweep exit 1.
    run_sweep({"tdm.dma_slots=1,3,5", "tdm.max_slots=4,8"}, csv, kExitFindings);
    const CliOut o = sbufsim({"plot", csv, "-o", svg, "--metric", "tdm_stalls"});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_NE(o.err.find("note: skipped 1 point(s)"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("tdm.dma_slots=5, tdm.max_slots=4: invalid"), std::string::npos) << o.err;

    const auto cells = rects(svg, "cell");
    ASSERT_EQ(cells.size(), 6u);  // 3 dma_slots x 2 max_slots
    // Each ok cell's tooltip holds the table's value for its point.
    std::map<std::string, std::string> expected;  // "dma_slots=..., max_slots=..." -> tdm_stalls
    for (const auto& r : read_rows(csv))
        expected["tdm.dma_slots=" + r.at("tdm.dma_slots") + ", tdm.max_slots=" + r.at("tdm.max_slots")] =
            r.at("status") == "ok" ? "tdm_stalls = " + r.at("tdm_stalls") : r.at("status");
    ASSERT_EQ(expected.size(), 6u);
    std::size_t ok = 0;
    for (const auto& c : cells) {
        const std::string title = c.get<std::string>("title");
        const std::string point = title.substr(0, title.find(':'));
        ASSERT_TRUE(expected.count(point)) << title;
        EXPECT_NE(title.find(expected[point]), std::string::npos) << title << " vs " << expected[point];
        ok += c.get<std::string>("<xmlattr>.data-status") == "ok";
    }
    EXPECT_EQ(ok, 5u);
    const std::string text = slurp(svg);
    EXPECT_NE(text.find("sweep of dma_vs_compute.trc; generation cayman (trace header)"), std::string::npos);
}

// `sweep --json` rows chart as the same sweep's `--out` table does: the same picture, and the
// skipped point at the same line (each form holds row N on line N + 1).
TEST(CliPlotSweep, Sweep_json_rows_chart_as_its_csv_table_does) {
    const std::string csv = tmp("both.csv"), json = tmp("both.json");
    run_sweep({"tdm.dma_slots=1,3,5", "tdm.max_slots=4,8"}, csv, kExitFindings, {"--json", json});
    const CliOut from_csv = sbufsim({"plot", csv, "-o", "-", "--metric", "tdm_stalls"});
    const CliOut from_json = sbufsim({"plot", json, "-o", "-", "--metric", "tdm_stalls"});
    ASSERT_EQ(from_csv.rc, kExitOk) << from_csv.err;
    ASSERT_EQ(from_json.rc, kExitOk) << from_json.err;
    EXPECT_EQ(from_json.out, from_csv.out);
    EXPECT_EQ(rects(write_temp("plot_sweep_both.svg", from_json.out), "cell").size(), 6u);
    const auto skipped = [](const std::string& err, const std::string& file) {
        const std::size_t at = err.find(file + ":");
        return at == std::string::npos ? std::string{} : err.substr(at + file.size());
    };
    EXPECT_NE(skipped(from_json.err, json).find(": tdm.dma_slots=5, tdm.max_slots=4: invalid"),
              std::string::npos)
        << from_json.err;
    EXPECT_EQ(skipped(from_json.err, json), skipped(from_csv.err, csv)) << from_json.err << from_csv.err;
}

TEST(CliPlotSweep, One_key_gives_a_line_with_a_marker_per_point) {
    const std::string csv = tmp("line.csv");
    run_sweep({"tdm.dma_slots=0,4,8"}, csv);
    const CliOut o = sbufsim({"plot", csv, "-o", "-", "--metric", "jain_fairness"});  // SVG on stdout
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_TRUE(o.err.empty()) << o.err;
    const std::string svg = write_temp("plot_sweep_line.svg", o.out);
    EXPECT_EQ(rects(svg, "point").size(), 3u);
    EXPECT_EQ(rects(svg, "cell").size(), 0u);
    EXPECT_NE(o.out.find("jain_fairness over tdm.dma_slots"), std::string::npos);
    EXPECT_NE(o.out.find("higher is better"), std::string::npos);
    EXPECT_NE(o.out.find("base: none set (the generation file as shipped)"), std::string::npos);
    EXPECT_EQ(o.out.find("not ok (notes below)"), std::string::npos);  // nothing skipped
}

// A strict-TDM sweep and a work-conserving one chart alike but for their base line: the table
// keeps the base settings in every row, and the chart says them.
TEST(CliPlotSweep, The_chart_names_the_base_settings_the_table_holds) {
    const std::string csv = tmp("strict.csv");
    // dma_slots = 4 of 4 leaves strict TDM's compute class no slot: an invalid row.
    run_sweep({"tdm.dma_slots=1,2,4"}, csv, kExitFindings,
              {"--set", "tdm.strict=true", "--set", "tdm.max_slots=4"});
    for (const auto& r : read_rows(csv)) EXPECT_EQ(r.at("base"), "tdm.strict=true tdm.max_slots=4");
    const CliOut o = sbufsim({"plot", csv, "-o", "-", "--metric", "tdm_stalls"});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_NE(o.out.find("base: tdm.strict=true tdm.max_slots=4"), std::string::npos);
    // The invalid point's cross on the axis, and the legend says what a cross is.
    EXPECT_NE(o.out.find(">\u00d7</text>"), std::string::npos);
    EXPECT_NE(o.out.find(">not ok (notes below)</text>"), std::string::npos);
    // A table written before the column existed still charts, without a base line.
    std::string old = slurp(csv);
    const auto drop_base = [](std::string line) {
        auto cells = *sweep::parse_csv_line(line);
        cells.erase(cells.end() - 4);
        return sweep::csv_line(cells);
    };
    std::istringstream in(old);
    std::string out, line;
    while (std::getline(in, line)) out += drop_base(line) + "\n";
    const std::string older = write_temp("plot_sweep_older.csv", out);
    const CliOut o2 = sbufsim({"plot", older, "-o", "-", "--metric", "tdm_stalls"});
    ASSERT_EQ(o2.rc, kExitOk) << o2.err;
    EXPECT_EQ(o2.out.find("base:"), std::string::npos);
    EXPECT_NE(o2.out.find("tdm_stalls over tdm.dma_slots"), std::string::npos);
}

// rsvg-convert on PATH, as the PNG export looks for it.
bool have_rsvg_convert() {
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "";
    for (std::size_t start = 0; start <= dirs.size();) {
        const std::size_t end = std::min(dirs.find(':', start), dirs.size());
        if (std::filesystem::exists(std::filesystem::path(dirs.substr(start, end - start)) / "rsvg-convert")) return true;
        start = end + 1;
    }
    return false;
}

TEST(CliPlotSweep, Png_export_through_rsvg_convert_or_a_clear_refusal) {
    const std::string csv = tmp("png.csv"), png = tmp("png.png");
    run_sweep({"tdm.dma_slots=0,4,8"}, csv);
    // Without the renderer: a usage error that says what to install, and no file.
    setenv("SBUFSIM_RSVG_CONVERT", "/nonexistent/rsvg-convert", 1);
    const CliOut missing = sbufsim({"plot", csv, "-o", png});
    unsetenv("SBUFSIM_RSVG_CONVERT");
    EXPECT_EQ(missing.rc, kExitUsage);
    EXPECT_NE(missing.err.find("apt-get install librsvg2-bin"), std::string::npos) << missing.err;
    EXPECT_FALSE(std::filesystem::exists(png));
    if (!have_rsvg_convert()) GTEST_SKIP() << "rsvg-convert is not installed (optional): PNG rendering not checked";
    const CliOut o = sbufsim({"plot", csv, "-o", png});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_EQ(slurp(png).substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    // sbufsim's mark: a Software text chunk right after the header chunk, with its CRC.
    const std::string drawn = slurp(png);
    ASSERT_GT(drawn.size(), 33u + 12u);
    EXPECT_EQ(drawn.substr(37, 12 + 1 + kWrittenBy.size()), png_mark());
    EXPECT_TRUE(is_picture(drawn.substr(0, 4096)));
    EXPECT_EQ(sbufsim({"plot", csv, "-o", png}).rc, kExitOk);  // its own picture: replaced
    // A renderer that exits 0 without writing a PNG is an error, not an empty picture.
    setenv("SBUFSIM_RSVG_CONVERT", "/bin/true", 1);
    const CliOut empty = sbufsim({"plot", csv, "-o", tmp("empty.png")});
    unsetenv("SBUFSIM_RSVG_CONVERT");
    EXPECT_EQ(empty.rc, kExitInput) << empty.err;
    EXPECT_NE(empty.err.find("exited 0 but wrote no PNG"), std::string::npos) << empty.err;
    EXPECT_FALSE(std::filesystem::exists(tmp("empty.png")));
}

// A picture another tool drew is the user's: replaced only with --force; sbufsim's own (its
// comment before <svg>) is replaced.
TEST(CliPlotSweep, A_picture_sbufsim_did_not_draw_is_kept) {
    const std::string csv = tmp("theirs.csv"), svg = tmp("theirs.svg");
    run_sweep({"tdm.dma_slots=0,4"}, csv);
    const std::string theirs = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"/>\n";
    std::ofstream(svg) << theirs;
    CliOut o = sbufsim({"plot", csv, "-o", svg});
    EXPECT_EQ(o.rc, kExitUsage) << o.err;
    EXPECT_NE(o.err.find("only a picture sbufsim drew is replaced"), std::string::npos) << o.err;
    EXPECT_EQ(slurp(svg), theirs);
    EXPECT_FALSE(is_picture(std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16)));  // a PNG without the mark
    ASSERT_EQ(sbufsim({"plot", csv, "-o", svg, "--force"}).rc, kExitOk);
    EXPECT_NE(slurp(svg).find("<!-- written by sbufsim;"), std::string::npos);
    EXPECT_EQ(sbufsim({"plot", csv, "-o", svg}).rc, kExitOk);
}

// A picture is SVG or PNG: any other extension is refused before anything is drawn or written,
// not filled with SVG under a name that promises another format.
TEST(CliPlotSweep, A_picture_named_neither_svg_nor_png_is_refused) {
    const std::string csv = tmp("ext.csv"), jpg = tmp("ext.jpg"), bare = tmp("ext_svg");
    run_sweep({"tdm.dma_slots=0,4"}, csv);
    CliOut o = sbufsim({"plot", csv, "-o", jpg});
    EXPECT_EQ(o.rc, kExitUsage);
    EXPECT_NE(o.err.find("not jpg; name the file .svg or .png"), std::string::npos) << o.err;
    EXPECT_FALSE(std::filesystem::exists(jpg));
    o = sbufsim({"run", test::shipped("matmul_kloop.trc"), "--quiet", "--heatmap", jpg});
    EXPECT_EQ(o.rc, kExitUsage);
    EXPECT_NE(o.err.find("--heatmap " + jpg + ": pictures are written as SVG (.svg) or PNG (.png)"),
              std::string::npos)
        << o.err;
    EXPECT_FALSE(std::filesystem::exists(jpg));
    o = sbufsim({"plot", csv, "-o", bare});  // no extension: SVG
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_NE(slurp(bare).find("<svg"), std::string::npos) << slurp(bare).substr(0, 80);
}

TEST(CliPlotSweep, Request_errors_are_usage_errors_with_the_choices) {
    const std::string csv = tmp("err.csv");
    run_sweep({"tdm.dma_slots=0,4", "tdm.max_slots=8,16", "tdm.dma_order=round_robin,dma_first"}, csv);
    const std::string svg = tmp("err.svg");

    CliOut o = sbufsim({"plot", csv, "-o", svg, "--metric", "tdm_stall"});
    EXPECT_EQ(o.rc, kExitUsage);
    EXPECT_NE(o.err.find("did you mean 'tdm_stalls'"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("dma_gbps"), std::string::npos) << o.err;  // the list of metrics

    o = sbufsim({"plot", csv, "-o", svg, "--metric", "worst_p99_client"});
    EXPECT_EQ(o.rc, kExitUsage);
    EXPECT_NE(o.err.find("not a number"), std::string::npos) << o.err;

    o = sbufsim({"plot", csv, "-o", svg});  // three varied keys: which two?
    EXPECT_EQ(o.rc, kExitUsage);
    EXPECT_NE(o.err.find("tdm.dma_slots (2 values), tdm.max_slots (2 values), tdm.dma_order (2 values)"), std::string::npos)
        << o.err;

    o = sbufsim({"plot", csv, "-o", svg, "--x", "tdm.max_slot", "--where", "tdm.dma_order=dma_first"});
    EXPECT_EQ(o.rc, kExitUsage);
    EXPECT_NE(o.err.find("did you mean 'tdm.max_slots'"), std::string::npos) << o.err;

    o = sbufsim({"plot", csv, "-o", svg, "--bins", "10"});  // a heatmap option on a sweep table
    EXPECT_EQ(o.rc, kExitUsage);
    EXPECT_NE(o.err.find("--bins"), std::string::npos) << o.err;

    // Each missing piece named alone: no -o is not a --bins problem.
    o = sbufsim({"plot", csv});
    EXPECT_EQ(o.rc, kExitUsage);
    EXPECT_NE(o.err.find("need -o FILE.svg"), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find("--bins"), std::string::npos) << o.err;
    o = sbufsim({"plot", "-o", svg});
    EXPECT_EQ(o.rc, kExitUsage);
    EXPECT_NE(o.err.find("need the file to chart"), std::string::npos) << o.err;

    o = sbufsim({"plot", csv, "-o", svg, "--chart", "pie"});
    EXPECT_EQ(o.rc, kExitUsage);

    // Fixing the third key makes it chartable; --chart line draws one line per max_slots.
    o = sbufsim({"plot", csv, "-o", svg, "--where", "tdm.dma_order=dma_first", "--chart", "line", "--metric", "tdm_stalls"});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_EQ(rects(svg, "point").size(), 4u);
    EXPECT_NE(slurp(svg).find("fixed: tdm.dma_order=dma_first"), std::string::npos);
}

TEST(CliPlotSweep, Bad_tables_are_input_errors_with_file_and_line) {
    const std::string csv = tmp("good.csv");
    run_sweep({"tdm.dma_slots=0,4"}, csv);
    const std::string text = slurp(csv);
    for (const auto& row : read_rows(csv)) ASSERT_EQ(row.at("status"), "ok") << text;
    // The last row cut off after its third cell, as an interrupted sweep leaves it (cut at a
    // comma, so the cut cannot fall inside a quoted message whatever the row holds).
    const std::size_t last_row = text.rfind('\n', text.size() - 2) + 1;
    std::size_t end = last_row;
    for (int cells = 0; cells < 3; ++cells) end = text.find(',', end) + 1;
    const std::string cut = write_temp("plot_sweep_cut.csv", text.substr(0, end - 1) + "\n");
    CliOut o = sbufsim({"plot", cut, "-o", tmp("x.svg")});
    EXPECT_EQ(o.rc, kExitInput);
    EXPECT_NE(o.err.find(cut + ":3: "), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("cells where the header has"), std::string::npos) << o.err;

    // A shard part without the header.
    const std::string headless = write_temp("plot_sweep_headless.csv", text.substr(text.find('\n') + 1));
    o = sbufsim({"plot", headless, "-o", tmp("x.svg")});
    EXPECT_EQ(o.rc, kExitInput);
    EXPECT_NE(o.err.find(headless + ":1: not a sweep table"), std::string::npos) << o.err;

    o = sbufsim({"plot", tmp("absent.csv"), "-o", tmp("x.svg")});
    EXPECT_EQ(o.rc, kExitInput);
    EXPECT_NE(o.err.find("cannot open"), std::string::npos) << o.err;
}

// A file of another kind, a run that is not in the file, a metric no run had: each says so.
TEST(CliPlotSweep, A_wrong_file_run_or_empty_metric_says_what_it_is) {
    const std::string js = tmp("two_runs.json");
    ASSERT_EQ(sbufsim({"run", shipped("dma_load.trc"), shipped("dma_load.trc"), "--window-stats", "1000",
                       "--json", js, "--quiet"})
                  .rc,
              kExitOk);
    CliOut o = sbufsim({"plot", js, "-o", tmp("h.svg"), "--run", "5"});
    EXPECT_EQ(o.rc, kExitUsage);
    EXPECT_NE(o.err.find("--run 5: " + js + " has 2 run(s): --run 0..1"), std::string::npos) << o.err;
    const std::string other = write_temp("plot_sweep_other.json", "{\"traceEvents\": []}\n");
    o = sbufsim({"plot", other, "-o", tmp("h.svg")});
    EXPECT_EQ(o.rc, kExitInput);
    EXPECT_NE(o.err.find("not a run's statistics (no \"runs\" in it; it is a --timeline file)"),
              std::string::npos)
        << o.err;
    // engine.pool.* is empty in every row (dma_vs_compute has no POOL work): not "a text column".
    const std::string csv = tmp("empty_metric.csv");
    const CliOut sw =
        sbufsim_process({"sweep", shipped("dma_vs_compute.trc"), shipped("dma_load.trc"), "--jobs", "2",
                         "--quiet", "--vary", "tdm.dma_slots=1,2", "--metric", "engine.pool.compute_cycles",
                         "--metric", "engine.dve.compute_cycles", "--out", csv},
                        "plot_sweep_");
    ASSERT_EQ(sw.rc, kExitOk) << sw.err;
    o = sbufsim({"plot", csv, "-o", tmp("e.svg"), "--metric", "engine.pool.compute_cycles"});
    EXPECT_EQ(o.rc, kExitUsage);
    EXPECT_NE(o.err.find("empty in every row that finished ok: no run had what it names"), std::string::npos)
        << o.err;
    // engine.dve.* has values for dma_vs_compute only: dma_load's points are gaps, not zeros.
    o = sbufsim({"plot", csv, "-o", tmp("e.svg"), "--metric", "engine.dve.compute_cycles"});
    EXPECT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_NE(o.err.find("skipped 2 point(s) that did not finish ok or have no value"), std::string::npos)
        << o.err;
    EXPECT_NE(o.err.find("no value: the run had nothing engine.dve.compute_cycles names"), std::string::npos)
        << o.err;
}

TEST(CliPlotSweep, Sweep_options_on_a_stats_file_are_refused_and_help_shows_both) {
    const std::string js = tmp("s.json");
    ASSERT_EQ(sbufsim({"run", shipped("dma_load.trc"), "--window-stats", "1000", "--json", js, "--quiet"}).rc, kExitOk);
    const CliOut o = sbufsim({"plot", js, "-o", tmp("h.svg"), "--metric", "total_cycles"});
    EXPECT_EQ(o.rc, kExitUsage);
    EXPECT_NE(o.err.find("--metric applies to a sweep chart"), std::string::npos) << o.err;
    EXPECT_EQ(sbufsim({"plot", js, "-o", tmp("h.svg")}).rc, kExitOk);  // the heatmap still works
    const CliOut h = sbufsim({"plot", "--help"});
    EXPECT_EQ(h.rc, kExitOk);
    for (const char* s : {"SWEEP.csv", "--metric", "--where", "--chart", "--bins"})
        EXPECT_NE(h.out.find(s), std::string::npos) << s;
}

}  // namespace
}  // namespace sbufsim::cli
