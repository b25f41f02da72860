// The visualisation options of `sbufsim run` and `sbufsim plot`, end to end through the command
// table: --window-stats rows in JSON/CSV add up to the totals, --timeline/--heatmap files are
// written and parse, plot reads run's JSON back, usage errors are reported, no progress bar
// when stderr is not a terminal.
#include <gtest/gtest.h>

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "cli_harness.h"
#include "sbufsim/stats/stats.h"
#include "trace_event_rules.h"

namespace sbufsim::cli {
namespace {

namespace pt = boost::property_tree;

using namespace sbufsim::test;
using Out = CliOut;

std::size_t count_class(const pt::ptree& node, const std::string& cls) {
    std::size_t n = 0;
    for (const auto& [tag, child] : node) {
        if (tag == "rect" && child.get<std::string>("<xmlattr>.class", "") == cls) ++n;
        n += count_class(child, cls);
    }
    return n;
}

TEST(CliViz, Window_stats_rows_in_json_sum_to_the_totals) {
    const std::string json = temp("ws.json");
    const Out o = sbufsim({"run", shipped("act_vs_matmul_collide.trc"), "--window-stats", "250", "--json", json, "--quiet"});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_TRUE(o.err.empty()) << o.err;  // stderr is not a terminal: no progress bar
    pt::ptree doc;
    pt::read_json(json, doc);
    const pt::ptree& r = doc.get_child("runs").front().second;
    EXPECT_EQ(r.get<std::uint64_t>("run.window_cycles"), 250u);
    std::map<std::string, std::uint64_t> sum;
    std::uint64_t cycles = 0, rows = 0;
    for (const auto& [name, w] : r.get_child("window")) {
        ++rows;
        cycles += w.get<std::uint64_t>("cycles");
        for (const auto& [key, v] : w) sum[key] += v.get_value<std::uint64_t>();
    }
    const auto total = r.get<std::uint64_t>("run.total_cycles");
    // Windows in which nothing happened have no row.
    EXPECT_GT(rows, 0u);
    EXPECT_LE(rows, (total + 249) / 250);
    EXPECT_LE(cycles, total);
    EXPECT_EQ(sum["start"] % 250, 0u);
    std::size_t checked = 0;
    for (const auto& [bank, m] : r.get_child("bank")) {
        EXPECT_EQ(sum["busy." + bank], m.get<std::uint64_t>("busy")) << bank;
        EXPECT_EQ(sum["conflicts." + bank], m.get<std::uint64_t>("conflict_cycles")) << bank;
        EXPECT_EQ(sum["stalls." + bank], m.get<std::uint64_t>("stalls")) << bank;
        ++checked;
    }
    std::map<std::string, std::uint64_t> stalled;
    for (const auto& [client, m] : r.get_child("client")) {
        EXPECT_EQ(sum["bytes." + client], m.get<std::uint64_t>("bytes")) << client;
        for (const auto& [key, v] : m)
            if (key.rfind("stall_", 0) == 0) stalled[key.substr(6)] += v.get_value<std::uint64_t>();
        ++checked;
    }
    EXPECT_GT(checked, 5u);
    // The stalls by cause: every cause a client can be charged, each summing to the clients' total.
    EXPECT_EQ(stalled.size(), kStallCauses);
    std::uint64_t any = 0;
    for (const auto& [cause, n] : stalled) {
        EXPECT_EQ(sum["stalled." + cause], n) << cause;
        any += n;
    }
    EXPECT_GT(any, 0u);
}

TEST(CliViz, Window_stats_of_a_sparse_trace_have_rows_only_where_something_happened) {
    // Two accesses five million cycles apart in 1-cycle windows: a handful of rows, not millions.
    const std::string trace = temp("sparse.trc"), json = temp("sparse.json");
    std::ofstream(trace) << "sbufsim-trace 1 gen=cayman\n0 act_rd rd 0x0 16 64\n5000000 act_rd rd 0x0 16 64\n";
    const Out o = sbufsim({"run", trace, "--window-stats", "1", "--json", json, "--quiet"});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    pt::ptree doc;
    pt::read_json(json, doc);
    const pt::ptree& r = doc.get_child("runs").front().second;
    EXPECT_GE(r.get<std::uint64_t>("run.total_cycles"), 5000000u);
    std::uint64_t rows = 0, bytes = 0, last_start = 0;
    for (const auto& [name, w] : r.get_child("window")) {
        ++rows;
        std::uint64_t start = 0;
        for (const auto& [key, v] : w) {   // keys hold dots: not ptree paths
            if (key == "start") start = v.get_value<std::uint64_t>();
            if (key == "bytes.act_rd") bytes += v.get_value<std::uint64_t>();
        }
        if (rows > 1) {
            EXPECT_GT(start, last_start);
        }
        last_start = start;
    }
    EXPECT_GE(rows, 2u);
    EXPECT_LT(rows, 1000u);
    EXPECT_GE(last_start, 5000000u);
    EXPECT_EQ(bytes, r.get<std::uint64_t>("client.act_rd.bytes"));
}

TEST(CliViz, Window_stats_rows_in_csv) {
    const Out o = sbufsim({"run", shipped("act_vs_matmul_collide.trc"), "--window-stats", "1000", "--csv", "-", "--quiet"});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_NE(o.out.find(",window,w0,busy.sbuf_0,"), std::string::npos);
    EXPECT_NE(o.out.find(",window,w1,start,1000\n"), std::string::npos);
}

TEST(CliViz, Timeline_and_heatmap_files_parse_and_plot_reads_run_json) {
    const std::string tl = temp("t.json"), hm = temp("h.svg"), js = temp("s.json"), pl = temp("p.svg");
    // The TensorE ramp off: the trace's matmuls at the pace it was written for, where no client
    // loses a beat to another at the default beats (asserted below).
    const Out o =
        sbufsim({"run", shipped("act_vs_matmul_collide.trc"), "--set", "pe.ramp_start=1", "--timeline", tl,
                 "--window", "0:3000", "--heatmap", hm, "--window-stats", "64", "--json", js, "--quiet"});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    // The window cuts the timeline, not the heatmap: said.
    EXPECT_NE(o.err.find("note: --window 0:3000 cuts the timeline only; --heatmap covers the whole run"),
              std::string::npos)
        << o.err;
    pt::ptree t;
    pt::read_json(tl, t);
    EXPECT_GT(t.get_child("traceEvents").size(), 10u);
    EXPECT_EQ(t.get<std::uint64_t>("otherData.window_to"), 3000u);
    pt::ptree h;
    pt::read_xml(hm, h);
    EXPECT_EQ(count_class(h, "util") % 48, 0u);
    EXPECT_GT(count_class(h, "util"), 0u);
    const Out p = sbufsim({"plot", js, "-o", pl, "--bins", "20"});
    ASSERT_EQ(p.rc, kExitOk) << p.err;
    pt::ptree svg;
    pt::read_xml(pl, svg);
    // Rows are merged in whole groups of k so that at most 20 bins remain.
    pt::ptree stats;
    pt::read_json(js, stats);
    // Rows with activity are laid on a grid of 64-cycle windows from the first row to the last
    // (idle windows zero), merged in whole groups of k so that at most 20 bins remain.
    const pt::ptree& window = stats.get_child("runs").front().second.get_child("window");
    const auto first = window.front().second.get<std::uint64_t>("start");
    const auto end = window.back().second.get<std::uint64_t>("start") + window.back().second.get<std::uint64_t>("cycles");
    const std::size_t rows = (end - first + 63) / 64;
    const std::size_t k = (rows + 19) / 20, bins = (rows + k - 1) / k;
    ASSERT_GT(rows, 20u);
    EXPECT_LE(bins, 20u);
    EXPECT_EQ(count_class(svg, "util"), 48u * bins);
    // No PSUM bank lost a beat in this trace: the stall panel has the SBUF rows alone.
    EXPECT_EQ(count_class(svg, "stall"), 16u * bins);
    // At the default paced beats no client of this trace loses a beat to another: no matrix.
    EXPECT_EQ(count_class(svg, "blocked"), 0u);
    std::ifstream drawn(pl);
    const std::string text((std::istreambuf_iterator<char>(drawn)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("(no client lost a beat to another client)"), std::string::npos);
}

// Every text node of an SVG, joined.
std::string svg_text(const pt::ptree& node) {
    std::string s;
    for (const auto& [tag, child] : node) {
        if (tag == "text") s += child.get_value<std::string>() + "\n";
        s += svg_text(child);
    }
    return s;
}

TEST(CliViz, Heatmap_names_the_changed_keys_and_shows_the_gate_stalls) {
    const std::string hm = temp("strict.svg"), js = temp("strict.json"), pl = temp("strict_plot.svg");
    const Out o = sbufsim({"run", shipped("dma_vs_compute.trc"), "--set", "tdm.strict=true", "--heatmap", hm,
                           "--window-stats", "100", "--json", js, "--quiet"});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    ASSERT_EQ(sbufsim({"plot", js, "-o", pl}).rc, kExitOk);
    for (const std::string& file : {hm, pl}) {
        pt::ptree svg;
        pt::read_xml(file, svg);
        const std::string text = svg_text(svg);
        EXPECT_NE(text.find("settings: tdm.strict=true (config "), std::string::npos) << file << "\n" << text;
        // The strict gate holds the DMA queues on the critical path: its bank waits, the same from
        // the run and from its JSON.
        EXPECT_NE(
            text.find(
                "critical path: bound by DMA; its instructions waited 93089 cycles for SBUF/PSUM access "
                "(64.9 % of the run)"),
            std::string::npos)
            << file << "\n"
            << text;
        EXPECT_NE(text.find("stalls by cause"), std::string::npos) << file;
        EXPECT_EQ(count_class(svg, "cause") % kStallCauses, 0u) << file;
        EXPECT_GT(count_class(svg, "cause"), 0u) << file;
    }
    // A run's JSON from before the window rows carried stalls by cause: the panel says so.
    pt::ptree old;
    pt::read_json(js, old);
    for (auto& [name, w] : old.get_child("runs").front().second.get_child("window"))
        for (auto it = w.begin(); it != w.end();)
            it = it->first.rfind("stalled.", 0) == 0 ? w.erase(it) : std::next(it);
    const std::string old_js = temp("strict_old.json"), old_pl = temp("strict_old.svg");
    pt::write_json(old_js, old);
    ASSERT_EQ(sbufsim({"plot", js, "-o", pl}).rc, kExitOk);
    ASSERT_EQ(sbufsim({"plot", old_js, "-o", old_pl}).rc, kExitOk);
    pt::ptree now_svg, old_svg;
    pt::read_xml(pl, now_svg);
    pt::read_xml(old_pl, old_svg);
    EXPECT_EQ(svg_text(now_svg).find("not in this file"), std::string::npos);
    // An access-record trace: its run is the kernel's own traffic, whose stalls lengthen it
    // directly: no critical-path line.
    const std::string access = temp("access.svg");
    ASSERT_EQ(sbufsim({"run", shipped("access_mix.trc"), "--heatmap", access, "--quiet"}).rc, kExitOk);
    pt::ptree access_svg;
    pt::read_xml(access, access_svg);
    EXPECT_EQ(svg_text(access_svg).find("critical path"), std::string::npos);
    EXPECT_NE(svg_text(old_svg).find("not in this file"), std::string::npos);
    // The run had strict-TDM stalls for that panel to show.
    pt::ptree stats;
    pt::read_json(js, stats);
    std::uint64_t tdm = 0;
    for (const auto& [name, w] : stats.get_child("runs").front().second.get_child("window"))
        for (const auto& [key, v] : w)
            if (key == "stalled.tdm") tdm += v.get_value<std::uint64_t>();
    EXPECT_GT(tdm, 0u);
}

TEST(CliViz, Timeline_detail_levels_from_the_command_line_are_valid_trace_events) {
    std::map<std::string, std::size_t> stalls;
    for (const char* d : {"instructions", "stalls", "all"}) {
        const std::string tl = temp(std::string("d_") + d + ".json");
        const Out o = sbufsim({"run", shipped("act_vs_matmul_collide.trc"), "--timeline", tl, "--timeline-detail", d, "--quiet"});
        ASSERT_EQ(o.rc, kExitOk) << o.err;
        pt::ptree t;
        pt::read_json(tl, t);
        const auto bad = test::trace_event_violations(t);
        EXPECT_TRUE(bad.empty()) << d << ": " << (bad.empty() ? "" : bad.front());
        EXPECT_EQ(t.get<std::string>("otherData.detail"), d);
        for (const auto& [k, e] : t.get_child("traceEvents")) stalls[d] += e.get<std::string>("cat", "") == "stall";
    }
    EXPECT_EQ(stalls["instructions"], 0u);
    EXPECT_GT(stalls["stalls"], 0u);
    EXPECT_GT(stalls["all"], stalls["stalls"]);
    const Out no_timeline = sbufsim({"run", shipped("dma_load.trc"), "--timeline-detail", "all"});
    EXPECT_EQ(no_timeline.rc, kExitUsage);
    EXPECT_NE(no_timeline.err.find("applies to --timeline"), std::string::npos) << no_timeline.err;
    const Out bad = sbufsim({"run", shipped("dma_load.trc"), "--timeline", temp("x.json"), "--timeline-detail", "most"});
    EXPECT_EQ(bad.rc, kExitUsage);
    EXPECT_NE(bad.err.find("instructions, stalls or all"), std::string::npos) << bad.err;
}

TEST(CliViz, Usage_errors) {
    EXPECT_EQ(sbufsim({"run", shipped("dma_load.trc"), "--window", "0:10"}).rc, kExitUsage);  // no --timeline
    const Out unit = sbufsim({"run", shipped("dma_load.trc"), "--timeline-unit", "ns"});
    EXPECT_EQ(unit.rc, kExitUsage);
    EXPECT_NE(unit.err.find("--timeline-unit applies to --timeline"), std::string::npos) << unit.err;
    const Out ms =
        sbufsim({"run", shipped("dma_load.trc"), "--timeline", temp("u.json"), "--timeline-unit", "ms"});
    EXPECT_EQ(ms.rc, kExitUsage);
    EXPECT_NE(ms.err.find("--timeline-unit 'ms': expected cycles or ns"), std::string::npos) << ms.err;
    const Out bad = sbufsim({"run", shipped("dma_load.trc"), "--timeline", temp("x.json"), "--window", "9:3"});
    EXPECT_EQ(bad.rc, kExitUsage);
    EXPECT_NE(bad.err.find("A:B"), std::string::npos);
    EXPECT_EQ(sbufsim({"run", shipped("dma_load.trc"), "--window-stats", "0"}).rc, kExitUsage);
    // plot needs per-window rows.
    const std::string js = temp("plain.json");
    ASSERT_EQ(sbufsim({"run", shipped("dma_load.trc"), "--json", js, "--quiet"}).rc, kExitOk);
    const Out p = sbufsim({"plot", js, "-o", temp("n.svg")});
    EXPECT_EQ(p.rc, kExitInput);
    EXPECT_NE(p.err.find("--window-stats"), std::string::npos) << p.err;
    EXPECT_EQ(sbufsim({"plot", js}).rc, kExitUsage);  // no -o
}

TEST(CliViz, Binary_run_writes_no_progress_to_a_pipe) {
    // The real binary with stderr redirected to a file: not a terminal, so no bar.
    const std::string err = temp("stderr.txt");
    ASSERT_EQ(shell(std::string(SBUFSIM_BINARY) + " run " + shipped("matmul_kloop.trc") + " > /dev/null 2> " + err), 0);
    const std::string text = slurp(err);
    EXPECT_EQ(text.find('\r'), std::string::npos) << text;
}

}  // namespace
}  // namespace sbufsim::cli
