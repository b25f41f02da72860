// The metric registry (output/metrics.h): every statistic the report writes is a declared metric
// with a description and a unit, reads the same value as a sweep cell, and the JSON, CSV and stats
// text are three renderings of the same rows.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "sbufsim/output/metrics.h"
#include "shipped.h"

namespace sbufsim {
namespace {

using test::cayman;
using test::shipped;

RunReport report_of(const std::string& trace) {
    RunReport rep;
    rep.result = replay_trace(cayman(), shipped(trace));
    return rep;
}

std::string path_of(const ReportRow& r) { return r.section + (r.name.empty() ? "" : "." + r.name) + "." + r.metric; }

class EveryShippedTrace : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryShippedTrace, Every_report_row_is_a_registered_metric_with_the_sweep_cells_value) {
    const RunReport rep = report_of(GetParam());
    const std::vector<ReportRow> rows = report_rows(rep);
    ASSERT_FALSE(rows.empty());
    for (const ReportRow& row : rows) {
        ASSERT_NE(row.info, nullptr) << path_of(row);  // no --window-stats here
        const std::string path = path_of(row);
        const auto info = find_metric_info(path);
        ASSERT_TRUE(info.has_value()) << path << " is written but not registered";
        EXPECT_EQ(info->description, row.info->description) << path;
        EXPECT_FALSE(info->description.empty()) << path;
        EXPECT_EQ(info->unit.empty(), row.value.kind == MetricValue::Kind::text) << path << ": a number needs a unit";
        // A sweep has no run record (scheduler, version, digests, --set origins): those are empty.
        const std::string cell = metric_value(path, rep.result);
        if (row.section == "config" || (row.section == "run" && cell.empty())) continue;
        EXPECT_EQ(cell, row.value.str()) << path;
        // The registered name (total_cycles, engine.act.busy_fraction) reads the same value.
        std::string registered = row.info->name;
        if (!row.name.empty()) registered = row.section + "." + row.name + registered.substr(registered.rfind('.'));
        EXPECT_EQ(metric_value(registered, rep.result), row.value.str()) << registered;
    }
}

INSTANTIATE_TEST_SUITE_P(Traces, EveryShippedTrace,
                         ::testing::Values("access_mix.trc", "dma_vs_compute.trc", "matmul_kloop.trc", "q7_gpsimd.trc",
                                           "transformer_layer_head.trc"),
                         [](const auto& i) { return i.param.substr(0, i.param.find('.')); });

TEST(MetricRegistry, Names_are_unique_and_every_metric_is_described) {
    std::set<std::string> names;
    for (const MetricInfo& m : metric_registry()) {
        EXPECT_TRUE(names.insert(m.name).second) << m.name << " declared twice";
        EXPECT_FALSE(m.description.empty()) << m.name;
        EXPECT_TRUE(find_metric_info(m.name).has_value()) << m.name;
        if (!m.report_path.empty()) {
            EXPECT_TRUE(find_metric_info(m.report_path).has_value()) << m.report_path;
        }
    }
}

TEST(MetricRegistry, Short_names_and_report_paths_name_the_same_statistic) {
    EXPECT_EQ(find_metric_info("total_cycles")->report_path, "run.total_cycles");
    EXPECT_EQ(find_metric_info("run.total_cycles")->unit, "cycles");
    EXPECT_EQ(find_metric_info("engine.act.busy_fraction")->report_path, "engine.<engine>.busy_share");
    EXPECT_EQ(find_metric_info("engine.act.busy_share")->better, Better::higher);
    EXPECT_EQ(find_metric_info("dma_gbps")->report_path, "dma.achieved_gbps");
    EXPECT_EQ(find_metric_info("bank_conflict_stalls")->report_path, "stalls.bank_conflict");
    EXPECT_EQ(find_metric_info("config.tdm.dma_slots.value")->unit, "");  // config keys hold dots
    EXPECT_FALSE(find_metric_info("engine.act.speed").has_value());
    EXPECT_FALSE(find_metric_info("run.nothing").has_value());
}

TEST(MetricRegistry, Sweep_only_metrics_are_not_written_to_the_report) {
    const RunReport rep = report_of("dma_vs_compute.trc");
    for (const char* name : {"jain_fairness", "worst_p99_latency", "bank_conflict_dma", "client.act_rd.win_rate"}) {
        const auto info = find_metric_info(name);
        ASSERT_TRUE(info.has_value()) << name;
        EXPECT_EQ(info->report_path, "") << name;
        EXPECT_NE(metric_value(name, rep.result), "") << name;
    }
    for (const ReportRow& row : report_rows(rep)) {
        EXPECT_NE(row.metric, "jain_fairness");
        EXPECT_NE(row.metric, "win_rate");
    }
}

TEST(MetricRegistry, A_family_member_the_run_lacks_is_blank_and_a_group_off_the_path_is_zero) {
    const RunReport rep = report_of("dma_load.trc");  // one DMA transfer: no PE, no ACT
    EXPECT_EQ(metric_value("engine.act.busy_fraction", rep.result), "");
    EXPECT_EQ(metric_value("client.no_such_port.requests", rep.result), "");
    EXPECT_EQ(metric_value("critical_path.PE.share", rep.result), "0");
    EXPECT_EQ(metric_value("client.act_rd.requests", rep.result), "0");  // a port that made no request
}

TEST(StatsText, One_line_a_row_with_its_description_and_unit) {
    RunReport rep = report_of("matmul_kloop.trc");
    rep.info.config_hash = "0123456789abcdef";
    std::ostringstream os;
    write_stats(os, {rep});
    const std::string text = os.str();
    std::istringstream in(text);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line.rfind(std::string(kStatsBegin) + " ", 0), 0u) << line;
    std::size_t lines = 0;
    while (std::getline(in, line) && line.rfind("---------- End", 0) != 0) {
        ++lines;
        EXPECT_TRUE(std::regex_match(line, std::regex("[^ ]+ +[^#]* # .+"))) << line;
    }
    EXPECT_EQ(lines, report_rows(rep).size());
    EXPECT_TRUE(std::regex_search(text, std::regex("\\nrun\\.total_cycles +" + std::to_string(rep.result.total_cycles) +
                                                   " +# cycles until the last access or instruction completed \\(cycles\\)\\n")))
        << text;
    EXPECT_TRUE(std::regex_search(text, std::regex("\\nengine\\.arr_seq\\.busy_share +[0-9.]+ +# [^\\n]+ \\(fraction\\)\\n")));
    EXPECT_TRUE(std::regex_search(text, std::regex("\\nrun\\.config_hash +0123456789abcdef +# [^(\\n]+\\n")));  // text: no unit
}

TEST(ReportRows, Json_and_csv_hold_every_row) {
    const RunReport rep = report_of("transformer_layer_head.trc");
    const std::size_t rows = report_rows(rep).size();
    std::ostringstream csv, json;
    write_csv(csv, {rep});
    write_json(json, {rep});
    std::size_t csv_lines = 0;
    for (char c : csv.str()) csv_lines += c == '\n';
    EXPECT_EQ(csv_lines, rows + 1);  // the header
    // Every row is one "metric": value pair in the JSON.
    std::size_t pairs = 0;
    const std::string j = json.str();
    for (std::size_t at = j.find("\": "); at != std::string::npos; at = j.find("\": ", at + 1))
        if (j[at + 3] != '{' && j[at + 3] != '[') ++pairs;
    EXPECT_EQ(pairs, rows + 3);  // "tool", "version" and the run's "trace"
}

}  // namespace
}  // namespace sbufsim
