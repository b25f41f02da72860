// Sweep charts (include/sbufsim/sweep/sweep_chart.h) from small hand-written tables: CSV parsing and
// its file:line errors, the chart model (axes, points, skipped rows, inference of --x/--y,
// usage errors) and the SVG (well-formed XML, one marker per point, one cell per (x, y)).
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "sbufsim/sweep/sweep.h"
#include "sbufsim/sweep/sweep_chart.h"
#include "temp_files.h"

namespace sbufsim::chart {
namespace {

namespace pt = boost::property_tree;

// A few metric columns are enough: the parser finds the keys as the columns before the first
// known metric.
const std::string kHeader2 = "trace,tdm.dma_slots,tdm.max_slots,total_cycles,worst_p99_client,jain_fairness,status,message\n";
const std::string kHeader1 = "trace,tdm.dma_slots,total_cycles,worst_p99_client,jain_fairness,status,message\n";

SweepTable table(const std::string& text, const std::string& source = "t.csv") {
    std::istringstream in(text);
    return parse_sweep_csv(in, source);
}

ChartRequest request(const std::string& metric, const std::string& x = "", const std::string& y = "") {
    ChartRequest r;
    r.metric = metric;
    r.x = x;
    r.y = y;
    return r;
}

// The error a call throws: its kind and message.
template <typename F>
std::pair<ChartError::Kind, std::string> error_of(F&& f) {
    try {
        f();
    } catch (const ChartError& e) {
        return {e.kind(), e.what()};
    }
    ADD_FAILURE() << "no ChartError thrown";
    return {ChartError::Kind::usage, ""};
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The attributes of every element `tag` with class `cls` ("" = any), in document order.
void collect(const pt::ptree& node, const std::string& tag, const std::string& cls, std::vector<pt::ptree>& out) {
    for (const auto& [name, child] : node) {
        if (name == tag && (cls.empty() || child.get<std::string>("<xmlattr>.class", "") == cls))
            out.push_back(child.get_child("<xmlattr>", pt::ptree{}));
        collect(child, tag, cls, out);
    }
}

std::vector<pt::ptree> elements(const std::string& svg, const std::string& tag, const std::string& cls = "") {
    std::istringstream in(svg);
    pt::ptree doc;
    pt::read_xml(in, doc);  // throws on malformed XML
    std::vector<pt::ptree> out;
    collect(doc, tag, cls, out);
    return out;
}

// ---- CSV ----------------------------------------------------------------------------------------

TEST(SweepChartCsv, Header_keys_metrics_and_line_numbers) {
    const SweepTable t = table(kHeader2 +
                               "a.trc,1,8,100,dma_0,0.5,ok,\r\n"
                               "\n" +
                               kHeader2 +  // a shard's header repeated: ignored
                               "a.trc,2,8,90,dma_0,0.6,ok,\n");
    EXPECT_EQ(t.keys, 2u);
    EXPECT_EQ(t.key_names(), (std::vector<std::string>{"tdm.dma_slots", "tdm.max_slots"}));
    EXPECT_EQ(t.metric_names(), (std::vector<std::string>{"total_cycles", "worst_p99_client", "jain_fairness"}));
    ASSERT_EQ(t.rows.size(), 2u);
    EXPECT_EQ(t.lines, (std::vector<std::size_t>{2, 5}));
    EXPECT_EQ(t.rows[0].back(), "");  // the CR of a CRLF line is not part of the message
}

TEST(SweepChartCsv, The_real_schema_is_accepted) {
    const std::vector<sweep::Axis> axes = {{"tdm.dma_slots", {"1"}, ""}, {"tdm.strict", {"true"}, ""}};
    const SweepTable t = table(sweep::csv_line(sweep::columns(axes)) + "\n");
    EXPECT_EQ(t.keys, 2u);
    EXPECT_EQ(t.metric_names().size(), sweep::metrics().size());
}

TEST(SweepChartCsv, A_quoted_message_may_span_lines) {
    const SweepTable t = table(kHeader1 + "a.trc,1,,,,invalid,\"bad, very\nbad\"\na.trc,2,90,dma_0,0.6,ok,\n");
    ASSERT_EQ(t.rows.size(), 2u);
    EXPECT_EQ(t.rows[0].back(), "bad, very\nbad");
    EXPECT_EQ(t.lines[1], 4u);
}

TEST(SweepChartCsv, Malformed_tables_name_file_and_line) {
    auto wrong_cells = error_of([] { table(kHeader1 + "a.trc,1,100,dma_0,0.5,ok,\na.trc,2,9\n"); });
    EXPECT_EQ(wrong_cells.first, ChartError::Kind::input);
    EXPECT_TRUE(contains(wrong_cells.second, "t.csv:3: 3 cells where the header has 7")) << wrong_cells.second;

    auto open_quote = error_of([] { table(kHeader1 + "a.trc,1,,,,invalid,\"never closed\n"); });
    EXPECT_TRUE(contains(open_quote.second, "t.csv:2: a quoted cell is not closed")) << open_quote.second;

    auto headless = error_of([] { table("a.trc,1,100,dma_0,0.5,ok,\n"); });
    EXPECT_TRUE(contains(headless.second, "t.csv:1: not a sweep table")) << headless.second;

    auto json = error_of([] { table("trace,x,y,status,message\n"); });
    EXPECT_TRUE(contains(json.second, "no metric column")) << json.second;

    auto empty = error_of([] { table("\n\n"); });
    EXPECT_TRUE(contains(empty.second, "t.csv: empty")) << empty.second;

    auto missing = error_of([] { read_sweep_table("/nonexistent/sweep.csv"); });
    EXPECT_EQ(missing.first, ChartError::Kind::input);
}

// ---- JSON ---------------------------------------------------------------------------------------

SweepTable json_table(const std::string& text, const std::string& source = "t.json") {
    return parse_sweep_json(text, source);
}

TEST(SweepChartJson, Rows_sweep_wrote_read_as_its_csv_table) {
    const std::vector<std::string> cols = {
        "trace", "tdm.dma_slots", "total_cycles", "worst_p99_client", "jain_fairness", "status", "message"};
    const std::vector<sweep::Row> rows = {{"a.trc", "1", "100", "dma_0", "0.5", "ok", ""},
                                          {"a.trc", "2", "", "", "", "invalid", "dma_slots \"2\", too many"},
                                          {"b c.trc", "true", "90", "act_rd", "1", "ok", ""}};
    std::ostringstream json;
    sweep::write_json(json, cols, rows);
    std::string csv = sweep::csv_line(cols) + "\n";
    for (const auto& r : rows) csv += sweep::csv_line(r) + "\n";
    const SweepTable j = json_table(json.str()), c = table(csv);
    EXPECT_EQ(j.columns, c.columns);
    EXPECT_EQ(j.keys, 1u);
    EXPECT_EQ(j.rows, c.rows);    // null is the empty cell; text and booleans as written
    EXPECT_EQ(j.lines, c.lines);  // row N on line N + 1 in both
}

TEST(SweepChartJson, Lines_are_where_each_element_begins) {
    const SweepTable t = json_table(
        "\n [ {\"trace\": \"a\", \"k\": 1, \"total_cycles\": 5, \"status\": \"ok\", \"message\": "
        "\"[{,\\\"\"},\n"
        "\n\n   {\"trace\": \"a\", \"k\": 2,\n \"total_cycles\": null, \"status\": \"crashed\", \"message\": "
        "\"\"} ]");
    EXPECT_EQ(t.lines, (std::vector<std::size_t>{2, 5}));
    ASSERT_EQ(t.rows.size(), 2u);
    EXPECT_EQ(t.rows[0][4], "[{,\"");
    EXPECT_EQ(t.rows[1][2], "");
}

TEST(SweepChartJson, Malformed_rows_name_file_and_line) {
    const std::string row = R"({"trace": "a", "k": 1, "total_cycles": 5, "status": "ok", "message": ""})";
    auto syntax = error_of([&] { json_table("[\n" + row + ",\n{\"trace\": }]"); });
    EXPECT_EQ(syntax.first, ChartError::Kind::input);
    EXPECT_TRUE(contains(syntax.second, "t.json:3: not JSON")) << syntax.second;

    auto other_keys = error_of([&] {
        json_table("[\n" + row + ",\n" +
                   R"({"trace": "a", "j": 1, "total_cycles": 5, "status": "ok", "message": ""})" + "]");
    });
    EXPECT_TRUE(contains(other_keys.second,
                         "t.json:3: this row's keys are not the first row's (trace,k,total_cycles"))
        << other_keys.second;

    auto scalar = error_of([&] { json_table("[\n" + row + ",\n 7]"); });
    EXPECT_TRUE(contains(scalar.second, "t.json:3: element 2 is not an object")) << scalar.second;

    auto nested =
        error_of([&] { json_table(R"([{"trace": "a", "k": [1, 2], "status": "ok", "message": ""}])"); });
    EXPECT_TRUE(contains(nested.second, "t.json:1: `k` holds an object or array")) << nested.second;

    auto object = error_of([] { json_table(R"({"runs": []})"); });
    EXPECT_TRUE(contains(object.second, "must be a JSON array")) << object.second;

    auto no_metric =
        error_of([] { json_table(R"([{"trace": "a", "x": 1, "status": "ok", "message": ""}])"); });
    EXPECT_TRUE(contains(no_metric.second, "t.json:1: not a sweep table: no metric column"))
        << no_metric.second;

    auto empty = error_of([] { json_table("[]\n"); });
    EXPECT_TRUE(contains(empty.second, "t.json: no rows")) << empty.second;
}

TEST(SweepChartJson, Read_picks_the_form_by_the_first_character) {
    const std::string json = test::write_temp(
        "chart_sweep.json",
        "\n  [\n" +
            std::string(R"({"trace": "a", "k": 1, "total_cycles": 5, "status": "ok", "message": ""})") +
            "]\n");
    const std::string csv =
        test::write_temp("chart_sweep_table", "trace,k,total_cycles,status,message\na,1,5,ok,\n");
    const SweepTable j = read_sweep_table(json), c = read_sweep_table(csv);
    EXPECT_EQ(j.rows, c.rows);
    EXPECT_EQ(j.lines, (std::vector<std::size_t>{3}));
    EXPECT_EQ(c.lines, (std::vector<std::size_t>{2}));
}

// ---- keys from the traces' names (`sbufsim nki --sweep-param` tables) -------------------------

const std::string kNoKeys = "trace,total_cycles,worst_p99_client,jain_fairness,status,message\n";

TEST(SweepChartTraceNames, A_kernel_sweeps_parameters_become_its_keys_and_a_heat_chart) {
    SweepTable t = table(kNoKeys +
                         "\"t.traces/M=4,K=8.trc\",614273,dma_0,0.8,ok,\n"
                         "\"t.traces/M=4,K=4.trc\",645225,dma_0,0.8,ok,\n"
                         "\"t.traces/M=8,K=8.trc\",616099,dma_0,0.8,ok,\n"
                         "\"t.traces/M=8,K=4.trc\",629846,dma_0,0.8,ok,\n");
    ASSERT_EQ(t.keys, 0u);
    keys_from_trace_names(t);
    EXPECT_TRUE(t.keys_from_traces);
    EXPECT_EQ(t.key_names(), (std::vector<std::string>{"M", "K"}));
    EXPECT_EQ(t.rows[1], (sweep::Row{"t.traces/M=4,K=4.trc", "4", "4", "645225", "dma_0", "0.8", "ok", ""}));
    const ChartModel m = build_chart(t, request("total_cycles"));
    EXPECT_EQ(m.kind, ChartKind::heat);
    EXPECT_EQ(m.x.key, "M");
    EXPECT_EQ(m.y.key, "K");
    ASSERT_TRUE(m.best.has_value());
    EXPECT_EQ(*m.best, 614273);
    EXPECT_EQ(m.traces.size(), 4u);  // each point's trace, for the subtitle and the generation
    // The subtitle counts the traces instead of listing names the axes already say.
    const std::string svg = render_chart(m, ChartInfo{"cayman (trace header)", ""});
    EXPECT_NE(svg.find("sweep of 4 traces, one per point, each named by its parameters; generation cayman"),
              std::string::npos)
        << svg;
    EXPECT_EQ(svg.find("M=4,K=8.trc"), std::string::npos) << svg;
}

TEST(SweepChartTraceNames, Other_trace_names_or_varied_keys_leave_the_table_as_it_was) {
    const auto unchanged = [](const std::string& text) {
        SweepTable t = table(text);
        const SweepTable before = t;
        keys_from_trace_names(t);
        EXPECT_FALSE(t.keys_from_traces) << text;
        EXPECT_EQ(t.columns, before.columns) << text;
        EXPECT_EQ(t.rows, before.rows) << text;
    };
    unchanged(kNoKeys + "M=4.trc,1,dma_0,0.8,ok,\na.trc,2,dma_0,0.8,ok,\n");             // one name is not
    unchanged(kNoKeys + "M=4.trc,1,dma_0,0.8,ok,\nK=4.trc,2,dma_0,0.8,ok,\n");           // other names
    unchanged(kNoKeys + "\"M=4,M=8.trc\",1,dma_0,0.8,ok,\n");                            // a name twice
    unchanged(kNoKeys + "M=.trc,1,dma_0,0.8,ok,\n=4.trc,2,dma_0,0.8,ok,\n");             // empty parts
    unchanged(kNoKeys + "total_cycles=4.trc,1,dma_0,0.8,ok,\n");                         // a column's name
    unchanged(kHeader1 + "M=4.trc,2,100,dma_0,0.9,ok,\nM=8.trc,4,100,dma_0,0.7,ok,\n");  // keys varied
}

// ---- model: line charts ---------------------------------------------------------------------------

TEST(SweepChartModel, One_numeric_key_is_a_sorted_line_with_every_point) {
    // Rows out of numeric order: the axis sorts them, each point keeps its own value and line.
    const SweepTable t = table(kHeader1 +
                               "a.trc,8,300,dma_0,0.5,ok,\n"
                               "a.trc,2,100,dma_0,0.9,ok,\n"
                               "a.trc,4,100,dma_0,0.7,ok,\n");
    const ChartModel m = build_chart(t, request("total_cycles"));
    EXPECT_EQ(m.kind, ChartKind::line);
    EXPECT_EQ(m.x.key, "tdm.dma_slots");
    EXPECT_TRUE(m.x.numeric);
    EXPECT_EQ(m.x.values, (std::vector<std::string>{"2", "4", "8"}));
    EXPECT_EQ(m.x.numbers, (std::vector<double>{2, 4, 8}));
    EXPECT_TRUE(m.y.key.empty());
    ASSERT_EQ(m.points.size(), 3u);
    std::map<std::string, double> by_x;
    for (const auto& p : m.points) by_x[m.x.values[p.x]] = p.value;
    EXPECT_EQ(by_x, (std::map<std::string, double>{{"2", 100}, {"4", 100}, {"8", 300}}));
    EXPECT_EQ(m.points[0].line, 2u);
    EXPECT_EQ(m.min, 100);
    EXPECT_EQ(m.max, 300);
    ASSERT_TRUE(m.best.has_value());
    EXPECT_EQ(*m.best, 100);  // total_cycles: lower is better; two points share it
    EXPECT_EQ(std::count_if(m.points.begin(), m.points.end(), [](const ChartPoint& p) { return p.best; }), 2);
    EXPECT_EQ(m.traces, (std::vector<std::string>{"a.trc"}));

    const ChartModel fair = build_chart(t, request("jain_fairness"));
    EXPECT_EQ(*fair.best, 0.9);  // higher is better
}

TEST(SweepChartModel, Text_values_make_a_categorical_axis_in_table_order) {
    const SweepTable t = table("trace,tdm.dma_order,total_cycles,status,message\n"
                               "a.trc,round_robin,10,ok,\n"
                               "a.trc,dma_first,20,ok,\n");
    const ChartModel m = build_chart(t, request("total_cycles"));
    EXPECT_FALSE(m.x.numeric);
    EXPECT_EQ(m.x.values, (std::vector<std::string>{"round_robin", "dma_first"}));
}

TEST(SweepChartModel, Failed_rows_are_skipped_with_their_status) {
    const SweepTable t = table(kHeader1 +
                               "a.trc,1,100,dma_0,0.5,ok,\n"
                               "a.trc,2,,,,timeout,killed after 5 s\n"
                               "a.trc,3,120,dma_0,0.5,ok,\n");
    const ChartModel m = build_chart(t, request("total_cycles"));
    EXPECT_EQ(m.points.size(), 2u);
    ASSERT_EQ(m.skipped.size(), 1u);
    EXPECT_EQ(m.skipped[0].status, "timeout");
    EXPECT_EQ(m.skipped[0].message, "killed after 5 s");
    EXPECT_EQ(m.skipped[0].line, 3u);
    EXPECT_EQ(m.x.values.size(), 3u);  // the failed point keeps its place on the axis
    EXPECT_EQ(describe_point(m, m.skipped[0].x, 0), "tdm.dma_slots=2");
}

TEST(SweepChartModel, Several_traces_give_one_line_per_trace) {
    const SweepTable t = table(kHeader1 +
                               "traces/a.trc,1,100,dma_0,0.5,ok,\n"
                               "traces/a.trc,2,90,dma_0,0.5,ok,\n"
                               "traces/b.trc,1,10,dma_0,0.5,ok,\n"
                               "traces/b.trc,2,12,dma_0,0.5,ok,\n");
    const ChartModel m = build_chart(t, request("total_cycles"));
    EXPECT_EQ(m.kind, ChartKind::line);
    EXPECT_EQ(m.x.key, "tdm.dma_slots");
    EXPECT_EQ(m.y.key, "trace");
    EXPECT_EQ(m.y.values.size(), 2u);
    EXPECT_EQ(describe_point(m, 0, 1), "tdm.dma_slots=1, trace=b.trc");
    // --where picks one trace by its file name.
    ChartRequest one = request("total_cycles");
    one.where = {"trace=b.trc"};
    const ChartModel b = build_chart(t, one);
    EXPECT_TRUE(b.y.key.empty());
    EXPECT_EQ(b.points.size(), 2u);
    EXPECT_EQ(b.min, 10);
}

// --where reads a key's value as --vary does: a boolean's yes/on/1, an integer's 0x form.
TEST(SweepChartModel, Where_reads_values_as_the_sweep_does) {
    const SweepTable t = table(
        "trace,tdm.strict,tdm.dma_slots,total_cycles,status,message\n"
        "a.trc,true,1,100,ok,\n"
        "a.trc,true,2,110,ok,\n"
        "a.trc,false,1,50,ok,\n"
        "a.trc,false,2,60,ok,\n");
    for (const char* yes : {"tdm.strict=yes", "tdm.strict=on", "tdm.strict=1", "tdm.strict=TRUE"}) {
        ChartRequest r = request("total_cycles");
        r.where = {yes};
        const ChartModel m = build_chart(t, r);
        EXPECT_EQ(m.min, 100) << yes;
    }
    ChartRequest hex = request("total_cycles", "tdm.strict");
    hex.where = {"tdm.dma_slots=0x2"};
    EXPECT_EQ(build_chart(t, hex).max, 110);
    ChartRequest bad = request("total_cycles");
    bad.where = {"tdm.strict=maybe"};
    const auto e = error_of([&] { build_chart(t, bad); });
    EXPECT_TRUE(contains(e.second, "no row has that value; tdm.strict is one of true, false")) << e.second;
}

// Traces along x (one value of every key): markers without a line between them (the traces have
// no order), no best outlined (each is its trace's only point), and a canvas wide enough for the
// subtitle that lists them.
TEST(SweepChartSvg, Traces_along_x_are_points_without_a_line_and_the_canvas_fits_the_subtitle) {
    const std::string long_name = "traces/gemm_2048x2048x4096_block_n_8_block_m_2_bufs_8_out_bufs_8.sbt";
    const SweepTable t =
        table(kHeader1 + long_name + ",1,100,dma_0,0.5,ok,\n" + "traces/b_" + long_name.substr(7) +
              ",1,10,dma_0,0.5,ok,\n" + "traces/c_" + long_name.substr(7) + ",1,50,dma_0,0.5,ok,\n");
    const ChartModel m = build_chart(t, request("total_cycles"));
    ASSERT_EQ(m.x.key, "trace");
    const std::string svg = render_chart(m, ChartInfo{"cayman (trace header)", ""});
    EXPECT_EQ(elements(svg, "rect", "point").size(), 3u);
    EXPECT_TRUE(elements(svg, "polyline").empty());
    EXPECT_TRUE(elements(svg, "rect", "best-mark").empty());
    std::istringstream in(svg);
    pt::ptree doc;
    pt::read_xml(in, doc);
    const double width = doc.get<double>("svg.<xmlattr>.width");
    // The first subtitle line names the three traces: about 3 x 62 characters at 10 px.
    EXPECT_GT(width, 90 + 3 * 62 * 10 * 0.5) << width;
    // Along a key, the line is drawn as before.
    const SweepTable k = table(kHeader1 + "a.trc,1,100,dma_0,0.5,ok,\n" + "a.trc,2,90,dma_0,0.5,ok,\n");
    EXPECT_EQ(elements(render_chart(build_chart(k, request("total_cycles")), ChartInfo{}), "polyline").size(),
              1u);
}

// ---- model: heat charts and inference -----------------------------------------------------------

std::string grid_3x2() {
    return kHeader2 +
           "a.trc,0,4,100,dma_0,0.5,ok,\n"
           "a.trc,0,8,110,dma_0,0.5,ok,\n"
           "a.trc,4,4,200,dma_0,0.5,ok,\n"
           "a.trc,4,8,120,dma_0,0.5,ok,\n"
           "a.trc,8,4,,,,invalid,tdm.dma_slots = 8 exceeds tdm.max_slots = 4\n"
           "a.trc,8,8,300,dma_0,0.5,ok,\n";
}

TEST(SweepChartModel, Two_keys_make_a_heat_chart_first_key_along_x) {
    const ChartModel m = build_chart(table(grid_3x2()), request("total_cycles"));
    EXPECT_EQ(m.kind, ChartKind::heat);
    EXPECT_EQ(m.x.key, "tdm.dma_slots");
    EXPECT_EQ(m.y.key, "tdm.max_slots");
    EXPECT_EQ(m.x.values, (std::vector<std::string>{"0", "4", "8"}));
    EXPECT_EQ(m.y.values, (std::vector<std::string>{"4", "8"}));
    EXPECT_EQ(m.points.size(), 5u);
    ASSERT_EQ(m.skipped.size(), 1u);
    EXPECT_EQ(describe_point(m, m.skipped[0].x, m.skipped[0].y), "tdm.dma_slots=8, tdm.max_slots=4");
    EXPECT_EQ(m.min, 100);
    EXPECT_EQ(m.max, 300);
    // Swapped on request; --chart line draws the same points as one line per max_slots value.
    const ChartModel swapped = build_chart(table(grid_3x2()), request("total_cycles", "tdm.max_slots"));
    EXPECT_EQ(swapped.x.key, "tdm.max_slots");
    EXPECT_EQ(swapped.y.key, "tdm.dma_slots");
    ChartRequest lines = request("total_cycles");
    lines.kind = ChartKind::line;
    const ChartModel l = build_chart(table(grid_3x2()), lines);
    EXPECT_EQ(l.kind, ChartKind::line);
    EXPECT_EQ(l.y.key, "tdm.max_slots");
    // --zoom is for a line chart's y axis: refused on a heat chart, taken with --chart line.
    ChartRequest zoom = request("total_cycles");
    zoom.zoom = true;
    const auto heat_zoom = error_of([&] { build_chart(table(grid_3x2()), zoom); });
    EXPECT_EQ(heat_zoom.first, ChartError::Kind::usage);
    EXPECT_TRUE(contains(heat_zoom.second, "--zoom fits a line chart's y axis")) << heat_zoom.second;
    zoom.kind = ChartKind::line;
    EXPECT_TRUE(build_chart(table(grid_3x2()), zoom).zoom);
}

TEST(SweepChartModel, A_third_varied_key_must_be_charted_or_fixed) {
    const std::string csv = "trace,k1,k2,k3,total_cycles,status,message\n"
                            "a.trc,1,1,x,5,ok,\na.trc,1,2,x,6,ok,\na.trc,2,1,x,7,ok,\na.trc,2,2,x,8,ok,\n"
                            "a.trc,1,1,y,5,ok,\na.trc,1,2,y,6,ok,\na.trc,2,1,y,7,ok,\na.trc,2,2,y,9,ok,\n";
    const SweepTable t = table(csv);
    auto none = error_of([&] { build_chart(t, request("total_cycles")); });
    EXPECT_EQ(none.first, ChartError::Kind::usage);
    for (const char* k : {"k1 (2 values)", "k2 (2 values)", "k3 (2 values)", "--where"})
        EXPECT_TRUE(contains(none.second, k)) << none.second;
    auto x_only = error_of([&] { build_chart(t, request("total_cycles", "k1")); });
    EXPECT_TRUE(contains(x_only.second, "k2 (2 values), k3 (2 values)")) << x_only.second;
    auto both = error_of([&] { build_chart(t, request("total_cycles", "k1", "k2")); });
    EXPECT_TRUE(contains(both.second, "besides --x and --y the table varies k3")) << both.second;

    ChartRequest fixed = request("total_cycles", "k1", "k2");
    fixed.where = {"k3=y"};
    const ChartModel m = build_chart(t, fixed);
    EXPECT_EQ(m.points.size(), 4u);
    EXPECT_EQ(m.max, 9);
    EXPECT_EQ(m.fixed, (std::vector<std::string>{"k3=y"}));
    // With k3 fixed, --x alone leaves exactly one key for y.
    fixed.y.clear();
    EXPECT_EQ(build_chart(t, fixed).y.key, "k2");
}

// ---- model: errors ------------------------------------------------------------------------------

TEST(SweepChartModel, Unknown_and_text_metrics_list_the_numeric_ones) {
    const SweepTable t = table(grid_3x2());
    auto typo = error_of([&] { build_chart(t, request("total_cycle")); });
    EXPECT_EQ(typo.first, ChartError::Kind::usage);
    EXPECT_TRUE(contains(typo.second, "unknown metric (did you mean 'total_cycles'?)")) << typo.second;
    EXPECT_TRUE(contains(typo.second, "numeric metrics: total_cycles, jain_fairness")) << typo.second;
    auto text = error_of([&] { build_chart(t, request("worst_p99_client")); });
    EXPECT_EQ(text.first, ChartError::Kind::usage);
    EXPECT_TRUE(contains(text.second, "not a number")) << text.second;
    auto key = error_of([&] { build_chart(t, request("tdm.dma_slots")); });
    EXPECT_TRUE(contains(key.second, "a varied key, not a metric")) << key.second;
    // A registered metric this table's sweep did not write: not "unknown", and how to get it.
    auto absent = error_of([&] { build_chart(t, request("mfu")); });
    EXPECT_EQ(absent.first, ChartError::Kind::usage);
    EXPECT_TRUE(contains(absent.second,
                         "--metric 'mfu': not a column of this table (its sweep did not write it); "
                         "sweep again into another --out with --metric mfu"))
        << absent.second;
}

TEST(SweepChartModel, Unknown_keys_and_bad_requests_are_usage_errors) {
    const SweepTable t = table(grid_3x2());
    auto x = error_of([&] { build_chart(t, request("total_cycles", "tdm.dma_slot")); });
    EXPECT_EQ(x.first, ChartError::Kind::usage);
    EXPECT_TRUE(contains(x.second, "--x 'tdm.dma_slot'")) << x.second;
    EXPECT_TRUE(contains(x.second, "did you mean 'tdm.dma_slots'")) << x.second;
    auto same = error_of([&] { build_chart(t, request("total_cycles", "tdm.dma_slots", "tdm.dma_slots")); });
    EXPECT_TRUE(contains(same.second, "same key")) << same.second;
    ChartRequest where = request("total_cycles");
    where.where = {"tdm.max_slots=5"};
    auto value = error_of([&] { build_chart(t, where); });
    EXPECT_TRUE(contains(value.second, "tdm.max_slots is one of 4, 8")) << value.second;
    ChartRequest heat = request("total_cycles");
    heat.kind = ChartKind::heat;
    heat.where = {"tdm.max_slots=8"};
    auto one_key = error_of([&] { build_chart(t, heat); });
    EXPECT_TRUE(contains(one_key.second, "needs a second key")) << one_key.second;
    EXPECT_EQ(error_of([] { parse_chart_kind("pie"); }).first, ChartError::Kind::usage);
}

TEST(SweepChartModel, Table_problems_are_input_errors_with_the_line) {
    auto text = error_of([] { build_chart(table(kHeader1 + "a.trc,1,100,dma_0,0.5,ok,\na.trc,2,lots,dma_0,0.5,ok,\n"),
                                          request("total_cycles")); });
    EXPECT_EQ(text.first, ChartError::Kind::input);
    EXPECT_TRUE(contains(text.second, "t.csv:3: metric total_cycles is 'lots', not a number")) << text.second;
    auto twice = error_of([] {
        build_chart(table(kHeader1 + "a.trc,1,100,dma_0,0.5,ok,\na.trc,2,100,dma_0,0.5,ok,\na.trc,1,100,dma_0,0.5,ok,\n"),
                    request("total_cycles"));
    });
    EXPECT_EQ(twice.first, ChartError::Kind::input);
    EXPECT_TRUE(contains(twice.second, "t.csv:4: a second row for tdm.dma_slots=1 (the first is line 2)")) << twice.second;
    auto none_ok = error_of([] { build_chart(table(kHeader1 + "a.trc,1,,,,crashed,\na.trc,2,,,,crashed,\n"),
                                             request("total_cycles")); });
    EXPECT_EQ(none_ok.first, ChartError::Kind::input);
    EXPECT_TRUE(contains(none_ok.second, "no charted row finished ok (2 skipped)")) << none_ok.second;
}

// ---- SVG ------------------------------------------------------------------------------------------

double attr(const pt::ptree& a, const char* name) { return a.get<double>(name); }

TEST(SweepChartSvg, Line_chart_has_one_marker_per_point_placed_to_scale) {
    const SweepTable t = table(kHeader1 +
                               "a.trc,2,100,dma_0,0.5,ok,\n"
                               "a.trc,4,150,dma_0,0.5,ok,\n"
                               "a.trc,8,300,dma_0,0.5,ok,\n");
    const ChartModel m = build_chart(t, request("total_cycles"));
    const std::string svg = render_chart(m, ChartInfo{"cayman (trace header)", "my label"});
    const auto points = elements(svg, "rect", "point");
    ASSERT_EQ(points.size(), 3u);
    std::map<int, std::pair<double, double>> at;  // x index -> marker centre
    for (const auto& p : points)
        at[p.get<int>("data-x")] = {attr(p, "x") + attr(p, "width") / 2, attr(p, "y") + attr(p, "height") / 2};
    // x to scale: 2 -> 4 is half the distance of 4 -> 8; y: larger values higher up (smaller y).
    EXPECT_NEAR((at[2].first - at[1].first) / (at[1].first - at[0].first), 2.0, 1e-6);
    EXPECT_GT(at[0].second, at[1].second);
    EXPECT_GT(at[1].second, at[2].second);
    EXPECT_EQ(elements(svg, "polyline").size(), 1u);
    EXPECT_EQ(elements(svg, "rect", "best-mark").size(), 1u);  // 100 at x=2
    EXPECT_TRUE(contains(svg, "total_cycles over tdm.dma_slots"));
    EXPECT_TRUE(contains(svg, "generation cayman (trace header)"));
    EXPECT_TRUE(contains(svg, "my label"));
    EXPECT_TRUE(contains(svg, "lower is better"));
}

// Two lines skipping the same x: a cross each, in its line's colour, one above the other.
TEST(SweepChartSvg, Crosses_of_skipped_points_take_their_lines_colour) {
    const SweepTable t = table(kHeader2 +
                               "a.trc,1,4,100,x,1,ok,\na.trc,1,8,90,x,1,ok,\n"
                               "a.trc,2,4,,,,invalid,no\na.trc,2,8,,,,invalid,no\n"
                               "a.trc,3,4,120,x,1,ok,\na.trc,3,8,95,x,1,ok,\n");
    ChartRequest r = request("total_cycles");
    r.kind = ChartKind::line;
    const std::string svg = render_chart(build_chart(t, r), ChartInfo{});
    std::set<std::string> ys, fills;
    const std::regex cross("<text x=\"[^\"]*\" y=\"([^\"]*)\"[^>]* fill=\"([^\"]*)\"[^>]*>\u00d7</text>");
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), cross); it != std::sregex_iterator(); ++it)
        ys.insert((*it)[1]), fills.insert((*it)[2]);
    EXPECT_EQ(ys.size(), 2u) << svg;
    EXPECT_EQ(fills, (std::set<std::string>{"#1f77b4", "#d62728"}));  // the two lines' colours
}

TEST(SweepChartSvg, A_skipped_point_breaks_the_line_and_is_noted) {
    const SweepTable t = table(kHeader1 +
                               "a.trc,1,100,dma_0,0.5,ok,\n"
                               "a.trc,2,110,dma_0,0.5,ok,\n"
                               "a.trc,3,,,,invalid,too <many> & slots\n"
                               "a.trc,4,130,dma_0,0.5,ok,\n"
                               "a.trc,5,140,dma_0,0.5,ok,\n");
    const std::string svg = render_chart(build_chart(t, request("total_cycles")), ChartInfo{});
    EXPECT_EQ(elements(svg, "rect", "point").size(), 4u);
    EXPECT_EQ(elements(svg, "polyline").size(), 2u);  // 1-2 and 4-5, no segment across 3
    EXPECT_TRUE(contains(svg, "skipped 1 point(s) that did not finish ok"));
    EXPECT_TRUE(contains(svg, "tdm.dma_slots=3: invalid \u2014 too &lt;many&gt; &amp; slots"));
}

TEST(SweepChartSvg, Heat_chart_has_one_cell_per_x_y_with_its_status) {
    std::string csv = grid_3x2();
    csv.erase(csv.find("a.trc,4,8,120"), std::string("a.trc,4,8,120,dma_0,0.5,ok,\n").size());  // a point with no row
    const ChartModel m = build_chart(table(csv), request("total_cycles"));
    const std::string svg = render_chart(m, ChartInfo{});
    const auto cells = elements(svg, "rect", "cell");
    ASSERT_EQ(cells.size(), 6u);  // 3 x 2, including the invalid and the missing point
    std::map<std::string, int> status;
    std::set<std::pair<int, int>> seen;
    for (const auto& c : cells) {
        ++status[c.get<std::string>("data-status")];
        seen.insert({c.get<int>("data-x"), c.get<int>("data-y")});
    }
    EXPECT_EQ(seen.size(), 6u);
    EXPECT_EQ(status, (std::map<std::string, int>{{"invalid", 1}, {"missing", 1}, {"ok", 4}}));
    // The values are written in the cells; the lowest (100 at 0,4) is the one outlined.
    for (const char* v : {">100<", ">110<", ">200<", ">300<"}) EXPECT_TRUE(contains(svg, v)) << v;
    EXPECT_EQ(elements(svg, "rect", "best-mark").size(), 1u);
    EXPECT_TRUE(contains(svg, "total_cycles over tdm.dma_slots \u00d7 tdm.max_slots"));
}

TEST(SweepChartSvg, Heat_colours_follow_the_value) {
    const ChartModel m = build_chart(table(grid_3x2()), request("total_cycles"));
    const std::string svg = render_chart(m, ChartInfo{});
    std::map<std::string, std::string> fill;  // "x,y" -> colour
    for (const auto& c : elements(svg, "rect", "cell"))
        fill[c.get<std::string>("data-x") + "," + c.get<std::string>("data-y")] = c.get<std::string>("fill");
    // Red ramp (lower is better): the highest value (300 at 8,8) is darker than the lowest (100 at 0,4).
    auto green = [](const std::string& hex) { return std::stoi(hex.substr(3, 2), nullptr, 16); };
    EXPECT_LT(green(fill["2,1"]), green(fill["0,0"]));
    EXPECT_EQ(fill["2,0"], "#eeeeee");  // invalid: grey, not on the scale
}

// Values 1 % apart are neighbouring tones, not the two ends of the ramp; the legend is labelled
// at round values.
TEST(SweepChartSvg, Heat_colours_of_values_close_together_stay_close) {
    auto fills = [](const std::string& lo, const std::string& hi) {
        const ChartModel m =
            build_chart(table(kHeader2 + "a.trc,0,4," + lo + ",x,1,ok,\n" + "a.trc,0,8," + lo + ",x,1,ok,\n" +
                              "a.trc,1,4," + lo + ",x,1,ok,\n" + "a.trc,1,8," + hi + ",x,1,ok,\n"),
                        request("total_cycles"));
        const std::string svg = render_chart(m, ChartInfo{});
        std::map<std::string, std::string> fill;
        for (const auto& c : elements(svg, "rect", "cell"))
            fill[c.get<std::string>("data-x") + "," + c.get<std::string>("data-y")] =
                c.get<std::string>("fill");
        return std::make_tuple(fill["0,0"], fill["1,1"], svg);
    };
    auto green = [](const std::string& hex) { return std::stoi(hex.substr(3, 2), nullptr, 16); };
    const auto [far_lo, far_hi, far_svg] = fills("100", "300");  // the ramp's two ends
    const auto [near_lo, near_hi, near_svg] = fills("195", "197");
    EXPECT_GT(green(near_hi), green(far_hi) + 40) << near_hi << " against the darkest " << far_hi;
    EXPECT_LT(green(near_lo), green(far_lo) - 40) << near_lo << " against the lightest " << far_lo;
    EXPECT_GT(green(near_lo), green(near_hi));  // still ordered
    // The bar spans 186.15..205.85: labelled every 5, none of them a cell's value.
    for (const char* v : {">190<", ">200<", ">205<"}) EXPECT_TRUE(contains(near_svg, v)) << v;
    EXPECT_FALSE(contains(near_svg, ">196<"));
}

// A --zip sweep: the second key goes with the first, one line, no grid of missing cells.
TEST(SweepChartModel, Keys_paired_by_zip_go_along_x_together) {
    const SweepTable t = table(kHeader2 +
                               "a.trc,0,16,300,dma_0,0.5,ok,\n"
                               "a.trc,4,12,200,dma_0,0.5,ok,\n"
                               "a.trc,8,8,100,dma_0,0.5,invalid,no\n");
    const ChartModel m = build_chart(t, request("total_cycles"));
    EXPECT_EQ(m.kind, ChartKind::line);
    EXPECT_EQ(m.x.key, "tdm.dma_slots");
    EXPECT_TRUE(m.y.key.empty());
    EXPECT_EQ(m.x.paired, (std::vector<std::string>{"tdm.max_slots"}));
    ASSERT_EQ(m.x.paired_values.size(), 1u);
    EXPECT_EQ(m.x.paired_values[0], (std::vector<std::string>{"16", "12", "8"}));
    EXPECT_EQ(describe_point(m, 1, 0), "tdm.dma_slots=4, tdm.max_slots=12");
    const std::string svg = render_chart(m, ChartInfo{});
    EXPECT_TRUE(contains(svg, "paired (--zip): tdm.max_slots 16, 12, 8 as tdm.dma_slots goes 0, 4, 8"))
        << svg;
    EXPECT_TRUE(contains(svg, "tdm.dma_slots (with tdm.max_slots)"));
    // Chosen the other way round, the first key goes with the second.
    const ChartModel by_max = build_chart(t, request("total_cycles", "tdm.max_slots"));
    EXPECT_EQ(by_max.x.paired, (std::vector<std::string>{"tdm.dma_slots"}));
    // A cartesian table pairs nothing: 0 has two values of tdm.max_slots.
    const ChartModel grid = build_chart(table(kHeader2 + "a.trc,0,4,1,x,1,ok,\na.trc,0,8,2,x,1,ok,\n"
                                                         "a.trc,4,4,3,x,1,ok,\na.trc,4,8,4,x,1,ok,\n"),
                                        request("total_cycles"));
    EXPECT_TRUE(grid.x.paired.empty());
    EXPECT_EQ(grid.kind, ChartKind::heat);
}

// A 1, 2 or 5 times a power of ten.
bool round_step(double step) {
    const double mantissa = step / std::pow(10, std::floor(std::log10(step)));
    return std::fabs(mantissa - 1) < 1e-9 || std::fabs(mantissa - 2) < 1e-9 || std::fabs(mantissa - 5) < 1e-9;
}

TEST(SweepChartSvg, Axis_ticks_cover_the_range_with_round_steps) {
    for (const auto& [lo, hi] : std::vector<std::pair<double, double>>{{50422, 80970}, {0.6458, 0.9624}, {0, 8}, {-3, 7}}) {
        const auto t = axis_ticks(lo, hi, 5);
        ASSERT_GE(t.size(), 4u) << lo;   // at least 3 intervals
        EXPECT_LE(t.size(), 11u) << lo;  // at most 10
        EXPECT_LE(t.front(), lo);
        EXPECT_GE(t.back(), hi);
        const double step = t[1] - t[0];
        EXPECT_TRUE(round_step(step)) << step;
        EXPECT_LT(lo - t.front(), step) << "no empty interval below the data";
        EXPECT_LT(t.back() - hi, step) << "no empty interval above the data";
    }
    EXPECT_EQ(axis_ticks(50422, 80970, 5).front(), 50000);
}

// 0.3..1.3 ticks at 0.2 steps from 0.2 to 1.4; recomputing the ticks over that widened range
// used to pick 0.5 steps (0 and 1.5) and draw them outside the frame.
TEST(SweepChartSvg, Y_ticks_of_a_line_chart_stay_on_the_frame) {
    for (const bool zoom : {false, true})
        for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{
                 {"0.3", "1.3"}, {"50422", "80970"}, {"3", "3"}}) {
            const SweepTable t =
                table(kHeader1 + "a.trc,1," + a + ",dma_0,0.5,ok,\n" + "a.trc,2," + b + ",dma_0,0.5,ok,\n");
            ChartRequest req = request("total_cycles");
            req.zoom = zoom;
            const std::string svg = render_chart(build_chart(t, req), ChartInfo{});
            double top = -1, bottom = -1;
            for (const auto& r : elements(svg, "rect"))
                if (r.get<std::string>("fill", "") == "none" && r.get<std::string>("class", "").empty() &&
                    top < 0)
                    top = attr(r, "y"), bottom = attr(r, "y") + attr(r, "height");
            ASSERT_GT(bottom, top);
            std::size_t grid = 0;
            for (const auto& l : elements(svg, "line"))
                if (l.get<std::string>("stroke", "") == "#e6e6e6") {
                    ++grid;
                    EXPECT_GE(attr(l, "y1"), top - 1e-6) << a << ".." << b;
                    EXPECT_LE(attr(l, "y1"), bottom + 1e-6) << a << ".." << b;
                }
            EXPECT_GE(grid, 3u);
        }
}

// A line's height is its value: the y axis starts at 0 unless --zoom fits it to the values, and
// the notes say when the axis is zoomed, or when values too close to tell apart could be.
TEST(SweepChartSvg, The_y_axis_starts_at_0_unless_zoomed) {
    const SweepTable t = table(kHeader1 + "a.trc,2,150,dma_0,0.5,ok,\n" + "a.trc,4,300,dma_0,0.5,ok,\n");
    const auto heights = [&](bool zoom) {
        ChartRequest req = request("total_cycles");
        req.zoom = zoom;
        const std::string svg = render_chart(build_chart(t, req), ChartInfo{});
        double bottom = -1;
        for (const auto& r : elements(svg, "rect"))
            if (r.get<std::string>("fill", "") == "none" && r.get<std::string>("class", "").empty() &&
                bottom < 0)
                bottom = attr(r, "y") + attr(r, "height");
        std::vector<double> h;
        for (const auto& p : elements(svg, "rect", "point"))
            h.push_back(bottom - (attr(p, "y") + attr(p, "height") / 2));
        return std::pair{h, svg};
    };
    const auto [from0, plain] = heights(false);
    ASSERT_EQ(from0.size(), 2u);
    EXPECT_NEAR(from0[1] / from0[0], 2.0, 1e-6);  // 300 stands twice as high as 150
    EXPECT_FALSE(contains(plain, "--zoom")) << plain;
    const auto [zoomed, svg] = heights(true);
    EXPECT_GT(zoomed[1] / zoomed[0], 2.5);
    EXPECT_TRUE(contains(svg, "y axis fitted to the values (--zoom): it does not start at 0")) << svg;

    EXPECT_EQ(svg.find("the values differ by"), std::string::npos);

    const SweepTable close =
        table(kHeader1 + "a.trc,2,1000,dma_0,0.5,ok,\n" + "a.trc,4,1010,dma_0,0.5,ok,\n");
    EXPECT_TRUE(
        contains(render_chart(build_chart(close, request("total_cycles")), ChartInfo{}),
                 "the values differ by 0.99 % of the largest at most: --zoom fits the y axis to them"));
}

TEST(SweepChartSvg, Lines_drawn_over_each_other_are_noted) {
    const SweepTable t = table(kHeader2 +
                               "a.trc,1,8,100,dma_0,0.5,ok,\n"
                               "a.trc,2,8,90,dma_0,0.5,ok,\n"
                               "a.trc,1,16,120,dma_0,0.5,ok,\n"
                               "a.trc,2,16,95,dma_0,0.5,ok,\n"
                               "a.trc,1,32,120,dma_0,0.5,ok,\n"
                               "a.trc,2,32,95,dma_0,0.5,ok,\n");
    ChartRequest r = request("total_cycles");
    r.kind = ChartKind::line;
    const std::string svg = render_chart(build_chart(t, r), ChartInfo{});
    EXPECT_TRUE(contains(svg, "tdm.max_slots 16, 32: the same value at every point")) << svg;
    EXPECT_FALSE(contains(svg, "tdm.max_slots 8, ")) << svg;
}

TEST(SweepChartSvg, The_best_value_note_names_the_best_points_or_says_all_are_equal) {
    const std::string rows =
        "a.trc,1,100,dma_0,0.5,ok,\n"
        "a.trc,2,90,dma_0,0.5,ok,\n";
    std::string svg = render_chart(build_chart(table(kHeader1 + rows), request("total_cycles")), ChartInfo{});
    EXPECT_TRUE(contains(svg, "lowest total_cycles 90 (outlined) at tdm.dma_slots=2")) << svg;
    const std::string tied =
        "a.trc,1,100,dma_0,0.5,ok,\n"
        "a.trc,2,100,dma_0,0.5,ok,\n"
        "a.trc,3,100,dma_0,0.5,ok,\n"
        "a.trc,4,100,dma_0,0.5,ok,\n";
    svg = render_chart(build_chart(table(kHeader1 + tied), request("total_cycles")), ChartInfo{});
    EXPECT_TRUE(contains(svg, "total_cycles 100 at all 4 points: the swept values do not change it")) << svg;
    EXPECT_FALSE(contains(svg, "lowest")) << svg;
    // Too many to outline (4 of 5): named all the same, not only counted.
    svg = render_chart(
        build_chart(table(kHeader1 + tied + "a.trc,5,120,dma_0,0.5,ok,\n"), request("total_cycles")),
        ChartInfo{});
    EXPECT_TRUE(contains(svg, ">lowest total_cycles 100 at 4 of 5 points:<")) << svg;
    EXPECT_TRUE(contains(svg, ">tdm.dma_slots=1; tdm.dma_slots=2; tdm.dma_slots=3; tdm.dma_slots=4<")) << svg;
    EXPECT_FALSE(contains(svg, "(outlined)")) << svg;
    std::string many;  // 8 of 9 at the best: the first four named, the rest counted
    for (int x = 1; x <= 9; ++x)
        many += "a.trc," + std::to_string(x) + "," + (x == 9 ? "120" : "100") + ",dma_0,0.5,ok,\n";
    svg = render_chart(build_chart(table(kHeader1 + many), request("total_cycles")), ChartInfo{});
    EXPECT_TRUE(
        contains(svg, ">tdm.dma_slots=1; tdm.dma_slots=2; tdm.dma_slots=3; tdm.dma_slots=4 and 4 more<"))
        << svg;
}

// When the second key does not change the best (every point at the best x is a best one), the
// note names the x values alone; otherwise it lists the points.
TEST(SweepChartSvg, The_best_value_note_names_one_key_when_the_other_does_not_change_the_best) {
    const std::string by_x =
        "a.trc,1,8,90,dma_0,0.5,ok,\n"
        "a.trc,1,16,90,dma_0,0.5,ok,\n"
        "a.trc,2,8,100,dma_0,0.5,ok,\n"
        "a.trc,2,16,100,dma_0,0.5,ok,\n";
    std::string svg = render_chart(build_chart(table(kHeader2 + by_x), request("total_cycles")), ChartInfo{});
    EXPECT_TRUE(contains(svg, "lowest total_cycles 90 (outlined) at tdm.dma_slots=1 (any tdm.max_slots)"))
        << svg;
    const std::string by_y =
        "a.trc,1,8,100,dma_0,0.5,ok,\n"
        "a.trc,1,16,90,dma_0,0.5,ok,\n"
        "a.trc,2,8,100,dma_0,0.5,ok,\n"
        "a.trc,2,16,90,dma_0,0.5,ok,\n";
    svg = render_chart(build_chart(table(kHeader2 + by_y), request("total_cycles")), ChartInfo{});
    EXPECT_TRUE(contains(svg, "lowest total_cycles 90 (outlined) at tdm.max_slots=16 (any tdm.dma_slots)"))
        << svg;
    const std::string mixed =
        "a.trc,1,8,90,dma_0,0.5,ok,\n"
        "a.trc,1,16,100,dma_0,0.5,ok,\n"
        "a.trc,2,8,100,dma_0,0.5,ok,\n"
        "a.trc,2,16,90,dma_0,0.5,ok,\n";
    svg = render_chart(build_chart(table(kHeader2 + mixed), request("total_cycles")), ChartInfo{});
    EXPECT_TRUE(contains(svg, "at tdm.dma_slots=1, tdm.max_slots=8; tdm.dma_slots=2, tdm.max_slots=16"))
        << svg;
}

// Two workloads are not ranked against each other: each trace's best is its own, and a run of
// three or more neighbouring axis values is written first..last.
TEST(SweepChartSvg, Each_trace_has_its_own_best_and_runs_of_values_are_shortened) {
    const std::string rows =
        "traces/a.trc,1,100,dma_0,0.5,ok,\n"
        "traces/a.trc,2,90,dma_0,0.5,ok,\n"
        "traces/a.trc,3,90,dma_0,0.5,ok,\n"
        "traces/a.trc,4,90,dma_0,0.5,ok,\n"
        "traces/b.trc,1,10,dma_0,0.5,ok,\n"
        "traces/b.trc,2,12,dma_0,0.5,ok,\n"
        "traces/b.trc,3,12,dma_0,0.5,ok,\n"
        "traces/b.trc,4,12,dma_0,0.5,ok,\n";
    const ChartModel m = build_chart(table(kHeader1 + rows), request("total_cycles"));
    EXPECT_EQ(std::count_if(m.points.begin(), m.points.end(), [](const ChartPoint& p) { return p.best; }), 4);
    const std::string svg = render_chart(m, ChartInfo{});
    EXPECT_TRUE(contains(svg, "a.trc: lowest total_cycles 90 at tdm.dma_slots=2..4")) << svg;
    EXPECT_TRUE(contains(svg, "b.trc: lowest total_cycles 10 at tdm.dma_slots=1")) << svg;
    EXPECT_FALSE(contains(svg, "lowest total_cycles 10 (outlined)"))
        << svg;  // no best across the two workloads
    const std::string flat =
        "traces/a.trc,1,7,dma_0,0.5,ok,\ntraces/a.trc,2,7,dma_0,0.5,ok,\n"
        "traces/b.trc,1,9,dma_0,0.5,ok,\ntraces/b.trc,2,8,dma_0,0.5,ok,\n";
    EXPECT_TRUE(
        contains(render_chart(build_chart(table(kHeader1 + flat), request("total_cycles")), ChartInfo{}),
                 "a.trc: total_cycles 7 at every tdm.dma_slots: the swept values do not change it"));
}

// A value too wide for its cell across is written up it (a grid of many narrow columns), not
// left out where its neighbours' zeros are written.
TEST(SweepChartSvg, A_heat_cell_too_narrow_for_its_value_writes_it_upright) {
    std::string rows;
    for (int x = 0; x < 48; ++x)
        for (int y : {8, 16})
            rows += "a.trc," + std::to_string(x) + "," + std::to_string(y) + "," + (x == 0 ? "21406" : "0") +
                    ",dma_0,0.5,ok,\n";
    const std::string svg =
        render_chart(build_chart(table(kHeader2 + rows), request("total_cycles")), ChartInfo{});
    EXPECT_NE(svg.find(">21406</text>"), std::string::npos) << svg;
    const std::size_t at = svg.rfind("<text", svg.find(">21406</text>"));
    EXPECT_NE(svg.substr(at, svg.find('>', at) - at).find("rotate(-90"), std::string::npos);
}

// Ticks read as the heatmap's do ("200k", not "200000"), on the line chart's y axis and the heat
// chart's colour bar alike; cell values keep their digits.
TEST(SweepChartSvg, Ticks_read_in_k_as_every_chart_does) {
    const SweepTable line = table(kHeader1 + "a.trc,1,50400,dma_0,0.5,ok,\n" + "a.trc,2,286721,dma_0,0.5,ok,\n");
    const std::string l = render_chart(build_chart(line, request("total_cycles")), ChartInfo{});
    EXPECT_NE(l.find(">200k</text>"), std::string::npos) << l;
    EXPECT_EQ(l.find(">200000</text>"), std::string::npos);
    const SweepTable heat = table(kHeader2 + "a.trc,1,4,50400,dma_0,0.5,ok,\n" + "a.trc,2,4,286721,dma_0,0.5,ok,\n" +
                                  "a.trc,1,8,143489,dma_0,0.5,ok,\n" + "a.trc,2,8,72593,dma_0,0.5,ok,\n");
    const std::string h = render_chart(build_chart(heat, request("total_cycles")), ChartInfo{});
    EXPECT_NE(h.find(">200k</text>"), std::string::npos) << h;
    EXPECT_EQ(h.find(">200000</text>"), std::string::npos);
    EXPECT_NE(h.find(">286721</text>"), std::string::npos);  // a cell's own value, every digit
}

TEST(SweepChartSvg, Short_numbers) {
    EXPECT_EQ(short_number(50422), "50422");
    EXPECT_EQ(short_number(0.9624294599), "0.9624");
    EXPECT_EQ(short_number(99.82080838), "99.82");
    EXPECT_EQ(short_number(21009.16667), "21009");
    EXPECT_EQ(short_number(123456789), "123.5M");
    EXPECT_EQ(short_number(-0.0), "0");
}

}  // namespace
}  // namespace sbufsim::chart
