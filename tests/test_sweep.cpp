// The sweep core (include/sbufsim/sweep/sweep.h): point expansion, sharding, rows, CSV, resume input,
// ranking. No processes here: tests/test_cli_sweep.cpp runs the command end to end.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>

#include "sbufsim/sweep/sweep.h"
#include "shipped.h"
#include "temp_files.h"

namespace sbufsim::sweep {
namespace {

using Values = std::vector<std::string>;

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

using test::shipped;

TEST(SweepVary, List_keeps_the_given_order) {
    const Axis a = parse_vary("tdm.dma_order=round_robin,fixed");
    EXPECT_EQ(a.key, "tdm.dma_order");
    EXPECT_EQ(a.values, (Values{"round_robin", "fixed"}));
    EXPECT_EQ(parse_vary("tdm.dma_slots=3").values, (Values{"3"}));
}

TEST(SweepVary, Integer_ranges_are_inclusive_with_a_default_step_of_one) {
    EXPECT_EQ(parse_vary("tdm.dma_slots=0:8:2").values, (Values{"0", "2", "4", "6", "8"}));
    EXPECT_EQ(parse_vary("tdm.dma_slots=0:3").values, (Values{"0", "1", "2", "3"}));
    EXPECT_EQ(parse_vary("tdm.dma_slots=1:6:2").values, (Values{"1", "3", "5"}));
    EXPECT_EQ(parse_vary("tdm.dma_slots=4:4").values, (Values{"4"}));
}

TEST(SweepVary, Real_ranges_reach_HI_despite_rounding) {
    EXPECT_EQ(parse_vary("dma.engine_gbps=0.1:0.5:0.1").values, (Values{"0.1", "0.2", "0.3", "0.4", "0.5"}));
    EXPECT_EQ(parse_vary("dma.engine_gbps=10:20:2.5").values, (Values{"10", "12.5", "15", "17.5", "20"}));
}

TEST(SweepVary, Errors_name_the_argument_and_the_reason) {
    EXPECT_NE(error_of([] { parse_vary("tdm.dma_slots"); }).find("--vary 'tdm.dma_slots': expected KEY="), std::string::npos);
    EXPECT_NE(error_of([] { parse_vary("tdm.dma_slots="); }).find("empty value list"), std::string::npos);
    EXPECT_NE(error_of([] { parse_vary("tdm.dma_slots=1,,2"); }).find("empty value in the list"), std::string::npos);
    EXPECT_NE(error_of([] { parse_vary("tdm.dma_slots=0:8:0"); }).find("step must be > 0"), std::string::npos);
    EXPECT_NE(error_of([] { parse_vary("tdm.dma_slots=8:0"); }).find("empty range"), std::string::npos);
    EXPECT_NE(error_of([] { parse_vary("tdm.dma_slots=a:b"); }).find("bad range"), std::string::npos);
    EXPECT_NE(error_of([] { parse_vary("tdm.dma_slots=0:1:2:3"); }).find("4 fields"), std::string::npos);
    EXPECT_NE(error_of([] {
                  parse_vary("tdm.dma_slots=0:100000000");
              }).find("range has 100000001 values, more than the 10000000 a sweep runs; take a larger STEP"),
              std::string::npos);
}

TEST(SweepVary, Unknown_key_reuses_the_loaders_suggestion) {
    const auto axes = std::vector<Axis>{parse_vary("tdm.dma_slot=1,2")};
    const std::string e = error_of([&] { check_keys(axes, LoadRequest{}); });
    EXPECT_NE(e.find("--vary 'tdm.dma_slot=1,2'"), std::string::npos) << e;
    EXPECT_NE(e.find("unknown key 'tdm.dma_slot'"), std::string::npos) << e;
    EXPECT_NE(e.find("did you mean 'tdm.dma_slots'"), std::string::npos) << e;
    EXPECT_EQ(e.find("command line"), std::string::npos) << e;  // --vary, named once
    EXPECT_EQ(error_of([] { check_keys({parse_vary("tdm.dma_slots=1,2")}, LoadRequest{}); }), "");
}

TEST(SweepVary, The_generation_is_refused_as_an_axis) {
    // Every point would be refused by the loader (gen.name comes from --gen): said before any runs.
    const std::string e = error_of([] { check_keys({parse_vary("gen.name=sunda,mariana")}, LoadRequest{}); });
    EXPECT_NE(
        e.find(
            "--vary 'gen.name=sunda,mariana': gen.name cannot be varied: a sweep's generation is its --gen"),
        std::string::npos)
        << e;
}

TEST(SweepVary, A_recorded_only_key_is_refused_with_its_reason) {
    const KeySpec* k = find_key("sbuf.word_size");
    ASSERT_NE(k, nullptr);
    ASSERT_FALSE(k->no_effect.empty());
    const std::string e = error_of([] { check_keys({parse_vary("sbuf.word_size=8,16")}, LoadRequest{}); });
    EXPECT_NE(e.find("--vary 'sbuf.word_size=8,16'"), std::string::npos) << e;
    EXPECT_NE(e.find("recorded but has no effect"), std::string::npos) << e;
    EXPECT_NE(e.find(k->no_effect), std::string::npos) << e;
    // A modelled key next to it is accepted.
    EXPECT_EQ(error_of([] { check_keys({parse_vary("pe.row_groups=2,4")}, LoadRequest{}); }), "");
}

TEST(SweepExpand, Cartesian_product_first_axis_outermost) {
    const auto p = expand({parse_vary("a.x=1,2"), parse_vary("b.y=p,q,r")}, false);
    const std::vector<Values> want = {{"1", "p"}, {"1", "q"}, {"1", "r"}, {"2", "p"}, {"2", "q"}, {"2", "r"}};
    EXPECT_EQ(p, want);
    EXPECT_EQ(expand({}, false), std::vector<Values>{Values{}});  // no axis: one point, the base
    EXPECT_EQ(expand({parse_vary("a=1"), parse_vary("b=1,2"), parse_vary("c=0:3")}, false).size(), 8u);
}

TEST(SweepExpand, Zip_pairs_lists_and_refuses_different_lengths) {
    const auto p = expand({parse_vary("a.x=1,2,3"), parse_vary("b.y=8:24:8")}, true);
    EXPECT_EQ(p, (std::vector<Values>{{"1", "8"}, {"2", "16"}, {"3", "24"}}));
    const std::string e = error_of([] { expand({parse_vary("a.x=1,2,3"), parse_vary("b.y=1,2")}, true); });
    EXPECT_NE(e.find("--vary 'b.y=1,2': --zip needs lists of one length: it has 2 values, --vary 'a.x=1,2,3' has 3"),
              std::string::npos)
        << e;
}

TEST(SweepExpand, Same_key_twice_is_an_error) {
    EXPECT_NE(error_of([] { expand({parse_vary("a=1"), parse_vary("a=2")}, false); }).find("already varied"),
              std::string::npos);
}

TEST(SweepShard, Contiguous_blocks_cover_every_row_once) {
    for (std::size_t total : {0u, 1u, 7u, 64u, 65u})
        for (std::uint32_t n : {1u, 2u, 3u, 5u, 8u}) {
            std::size_t next = 0;
            for (std::uint32_t i = 0; i < n; ++i) {
                const auto [first, last] = shard_range(total, Shard{i, n});
                EXPECT_EQ(first, next);
                EXPECT_LE(last - first, total / n + 1);
                EXPECT_GE(last - first, total / n);
                next = last;
            }
            EXPECT_EQ(next, total);
        }
}

TEST(SweepShard, Parse_checks_index_and_count) {
    EXPECT_EQ(parse_shard("2/3").index, 2u);
    EXPECT_EQ(parse_shard("2/3").count, 3u);
    EXPECT_NE(error_of([] { parse_shard("3/3"); }).find("I must be in 0..2"), std::string::npos);
    EXPECT_NE(error_of([] { parse_shard("1/0"); }).find("N must be"), std::string::npos);
    EXPECT_NE(error_of([] { parse_shard("x"); }).find("expected I/N"), std::string::npos);
}

TEST(SweepRows, Jobs_are_trace_major_and_columns_follow_the_schema) {
    const std::vector<Axis> axes = {parse_vary("tdm.dma_slots=1,2")};
    const auto jobs = make_jobs({"a.trc", "b.trc"}, axes, expand(axes, false));
    ASSERT_EQ(jobs.size(), 4u);
    EXPECT_EQ(jobs[1].trace, "a.trc");
    EXPECT_EQ(jobs[1].values, Values{"2"});
    EXPECT_EQ(jobs[2].trace, "b.trc");
    EXPECT_EQ(jobs[3].index, 3u);
    EXPECT_EQ(jobs[3].overrides.at(0).key, "tdm.dma_slots");
    const auto cols = columns(axes);
    EXPECT_EQ(cols.front(), "trace");
    EXPECT_EQ(cols[1], "tdm.dma_slots");
    EXPECT_EQ(cols[2], "total_cycles");
    EXPECT_EQ(cols[cols.size() - 2], "status");
    EXPECT_EQ(cols.back(), "message");
    EXPECT_EQ(cols[cols.size() - 3], "base_digest");
    EXPECT_EQ(cols[cols.size() - 4], "base");
    EXPECT_EQ(cols.size(), 1 + axes.size() + metrics().size() + kTrailingColumns);
}

TEST(SweepRows, The_base_cell_lists_the_settings_as_given) {
    EXPECT_EQ(base_settings(LoadRequest{}), "");
    LoadRequest req;
    req.generation = "sunda";
    req.user_files = {"site.ini"};
    req.overrides = {Setting{"tdm.strict", "true", Origin{}, {}},
                     Setting{"tdm.dma_slots", "2", Origin{}, {}}};
    EXPECT_EQ(base_settings(req, true), "gen=sunda config=site.ini tdm.strict=true tdm.dma_slots=2 lenient");
    Job j{0, "t.trc", {}, {"1"}, "digest"};
    j.base = base_settings(req);
    const Row row = make_row(j, {}, kStatusError, "why");
    EXPECT_EQ(row[row.size() - 4], "gen=sunda config=site.ini tdm.strict=true tdm.dma_slots=2");
    EXPECT_EQ(row[row.size() - 3], "digest");
}

TEST(SweepRows, Run_job_reports_an_invalid_point_in_its_row) {
    const std::vector<Axis> axes = {parse_vary("tdm.dma_slots=9")};
    const auto jobs = make_jobs({shipped("dma_vs_compute.trc")}, axes, expand(axes, false));
    const Row row = run_job(LoadRequest{}, jobs[0]);
    const auto cols = columns(axes);
    ASSERT_EQ(row.size(), cols.size());
    EXPECT_EQ(row[cols.size() - 2], "invalid");
    EXPECT_NE(row.back().find("tdm.dma_slots = 9 exceeds tdm.max_slots = 8"), std::string::npos) << row.back();
    // The value is named as --vary's, not the command line's --set.
    EXPECT_NE(row.back().find("[tdm.dma_slots set at --vary]"), std::string::npos) << row.back();
    EXPECT_EQ(row[2], "");  // no metrics for an invalid point
}

TEST(SweepRows, Run_job_at_the_shipped_defaults_matches_the_trace_readme) {
    const std::vector<Axis> axes = {parse_vary("tdm.dma_slots=1")};  // cayman's reset value
    const auto jobs = make_jobs({shipped("dma_vs_compute.trc")}, axes, expand(axes, false));
    const Row row = run_job(LoadRequest{}, jobs[0]);
    const auto cols = columns(axes);
    auto cell = [&](const std::string& name) {
        return row.at(static_cast<std::size_t>(std::find(cols.begin(), cols.end(), name) - cols.begin()));
    };
    EXPECT_EQ(cell("status"), "ok") << cell("message");
    EXPECT_EQ(cell("total_cycles"), "50400");
    EXPECT_EQ(cell("tdm_stalls"), "3242");
    EXPECT_EQ(cell("bank_conflict_stalls"), "980");
    std::uint64_t by_class = 0;
    for (const char* c : kClientClassNames) by_class += std::stoull(cell(std::string("bank_conflict_") + c));
    EXPECT_EQ(by_class, 980u);  // the classes partition the clients
}

TEST(SweepMetrics, Registered_per_engine_and_client_metrics_become_columns) {
    const auto names = metric_names({"engine.pe.busy_fraction", "client.act_wr.stall_bank_conflict", "total_cycles"});
    ASSERT_EQ(names.size(), metrics().size() + 2);  // total_cycles is a column already
    EXPECT_EQ(names[names.size() - 2], "engine.pe.busy_fraction");
    EXPECT_EQ(find_metric("engine.pe.busy_fraction")->better, Better::higher);
    EXPECT_EQ(find_metric("client.act_wr.stall_bank_conflict")->unit, "beat-cycles");
    EXPECT_FALSE(find_metric("engine.pe.speed").has_value());
    try {
        metric_names({"engine.pe.busy_fractoin"});
        ADD_FAILURE() << "a misspelt metric was accepted";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("did you mean 'engine.pe.busy_fraction'"), std::string::npos) << e.what();
    }
    const std::vector<Axis> axes = {parse_vary("tdm.dma_slots=1")};  // cayman's reset value
    const auto jobs = make_jobs({shipped("matmul_kloop.trc")}, axes, expand(axes, false), names);
    const Row row = run_job(LoadRequest{}, jobs[0]);
    const auto cols = columns(axes, names);
    ASSERT_EQ(row.size(), cols.size());
    auto cell = [&](const std::string& name) {
        return row.at(static_cast<std::size_t>(std::find(cols.begin(), cols.end(), name) - cols.begin()));
    };
    EXPECT_EQ(cell("status"), "ok") << cell("message");
    // The columns hold the replay's own figures: arr_seq busy over the run, act_wr's bank conflicts.
    LoadRequest req;
    req.generation = "cayman";
    const ReplayResult r = replay_trace(load_config(req).params, shipped("matmul_kloop.trc"));
    const EngineStats& pe = r.engines.at(0);
    ASSERT_EQ(pe.name, "arr_seq");
    EXPECT_EQ(cell("engine.pe.busy_fraction"), format_real(static_cast<double>(pe.busy) / static_cast<double>(r.total_cycles)));
    std::uint64_t act_wr = 0;
    for (const auto& c : r.kernel.clients)
        if (c.name == "act_wr") act_wr = c.stalls[static_cast<std::size_t>(StallCause::bank_conflict)];
    EXPECT_EQ(cell("client.act_wr.stall_bank_conflict"), std::to_string(act_wr));
}

TEST(SweepMetrics, An_ok_row_with_the_wrong_cell_count_is_a_bug_not_a_blank_row) {
    const Job j{0, "t.trc", {}, {}, {}};
    EXPECT_THROW(make_row(j, {"1"}, kStatusOk, ""), std::logic_error);
    EXPECT_EQ(make_row(j, {}, kStatusError, "why").size(), 1 + metrics().size() + kTrailingColumns);
}

TEST(SweepRows, Missing_trace_is_an_error_row) {
    Job j{0, "/nonexistent.trc", {}, {}, {}};
    const Row row = run_job(LoadRequest{}, j);
    EXPECT_EQ(row[row.size() - 2], "error");
    EXPECT_FALSE(row.back().empty());
}

TEST(SweepCsv, Quoting_round_trips) {
    const Values cells = {"plain", "with,comma", "with \"quote\"", "", "x"};
    const auto back = parse_csv_line(csv_line(cells));
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, cells);
    EXPECT_FALSE(parse_csv_line("a,\"cut off").has_value());
}

TEST(SweepResume, Existing_rows_are_read_cut_and_crashed_ones_dropped) {
    const std::vector<Axis> axes = {parse_vary("tdm.dma_slots=1,2,3")};
    const auto cols = columns(axes);
    const std::string path = test::temp("sweep_resume.csv");
    Job j1{0, "t.trc", {}, {"1"}, {}}, j2{1, "t.trc", {}, {"2"}, {}};
    {
        std::ofstream f(path);
        f << csv_line(cols) << "\n"
          << csv_line(make_row(j1, {}, kStatusInvalid, "bad, really")) << "\n"
          << csv_line(make_row(j2, {}, kStatusCrashed, "signal 9")) << "\n"
          << "t.trc,3,123";  // cut off by an interruption
    }
    const auto rows = read_existing(path, cols);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(row_key(rows[0], 1), row_key(make_row(j1, {}, "", ""), 1));
    EXPECT_EQ(rows[0].back(), "bad, really");

    const auto other = columns({parse_vary("tdm.max_slots=8")});
    EXPECT_NE(error_of([&] { read_existing(path, other); }).find("not this sweep's columns"), std::string::npos);
    EXPECT_TRUE(read_existing(path + ".absent", cols).empty());
}

TEST(SweepRank, Best_first_by_the_metrics_direction_failed_rows_last) {
    const std::vector<Axis> axes = {parse_vary("a=1,2,3,4")};
    const auto cols = columns(axes);
    std::vector<Row> rows;
    const std::vector<std::string> cycles = {"300", "100", "", "200"};
    for (std::size_t i = 0; i < cycles.size(); ++i) {
        Job j{i, "t", {}, {std::to_string(i + 1)}, {}};
        std::vector<std::string> m(metrics().size(), "0");
        m[0] = cycles[i];
        m[2] = cycles[i];  // pe_utilisation: higher is better
        rows.push_back(make_row(j, cycles[i].empty() ? std::vector<std::string>{} : m,
                                cycles[i].empty() ? kStatusInvalid : kStatusOk, ""));
    }
    EXPECT_EQ(rank(cols, rows, {*find_metric("total_cycles")}), (std::vector<std::size_t>{1, 3, 0, 2}));
    EXPECT_EQ(rank(cols, rows, {*find_metric("pe_utilisation")}), (std::vector<std::size_t>{0, 3, 1, 2}));
    EXPECT_EQ(find_metric("worst_p99_client")->better, Better::none);
    EXPECT_FALSE(find_metric("nope").has_value());
}

TEST(SweepRank, A_later_metric_orders_only_the_rows_the_earlier_ones_tie) {
    const auto cols = columns({parse_vary("tdm.dma_slots=1")});
    const std::size_t cycles = 0, fairness = metric_names({}).size() - 1;  // jain_fairness: higher is better
    ASSERT_EQ(metric_names({})[fairness], "jain_fairness");
    std::vector<Row> rows;
    // (total_cycles, jain_fairness): the fairest row is the slowest; two rows tie at the fastest.
    const std::vector<std::pair<std::string, std::string>> cells = {
        {"200", "0.9"}, {"100", "0.5"}, {"300", "1"}, {"100", "0.8"}};
    for (std::size_t i = 0; i < cells.size(); ++i) {
        std::vector<std::string> m(metrics().size(), "0");
        m[cycles] = cells[i].first;
        m[fairness] = cells[i].second;
        rows.push_back(make_row(Job{i, "t", {}, {std::to_string(i + 1)}, {}}, m, kStatusOk, ""));
    }
    const Metric by_cycles = *find_metric("total_cycles"), by_fairness = *find_metric("jain_fairness");
    const auto both = rank(cols, rows, {by_cycles, by_fairness});
    EXPECT_EQ(both, (std::vector<std::size_t>{3, 1, 0, 2}));
    EXPECT_EQ(rank(cols, rows, {by_fairness}), (std::vector<std::size_t>{2, 0, 3, 1}));
    EXPECT_EQ(ties_at_best(cols, rows, rank(cols, rows, {by_cycles}), {by_cycles}), 2u);
    EXPECT_EQ(ties_at_best(cols, rows, both, {by_cycles, by_fairness}), 1u);
}

// Rows of two sweeps merged: traces by first appearance, numbers by value (10 after 9, not
// after 1 as text would put it), other values by first appearance, first key outermost.
TEST(SweepOrder, Merged_rows_sort_by_trace_then_each_key_by_value) {
    auto row = [](std::string trace, std::string a, std::string b) {
        return Row{std::move(trace), std::move(a), std::move(b), "cycles", "digest", "ok", ""};
    };
    std::vector<Row> rows = {row("t2", "10", "dma_first"),  row("t1", "9", "round_robin"),
                             row("t2", "2", "round_robin"), row("t1", "10", "dma_first"),
                             row("t2", "2", "dma_first"),   row("t1", "9", "dma_first")};
    sort_by_point(rows, 2);
    std::vector<std::string> got;
    for (const auto& r : rows) got.push_back(r[0] + " " + r[1] + " " + r[2]);
    EXPECT_EQ(got, (std::vector<std::string>{"t2 2 dma_first", "t2 2 round_robin", "t2 10 dma_first",
                                             "t1 9 dma_first", "t1 9 round_robin", "t1 10 dma_first"}));
}

// Two keys over two traces: `a` moves total_cycles, `b` moves nothing. One metric cell that
// differs between two points of different `b` clears it; failed rows are not compared; a zip
// sweep (no two points differ in one key alone) names none.
TEST(SweepNoEffect, Names_the_keys_whose_points_differ_in_nothing_else) {
    const std::vector<Axis> axes = {parse_vary("a=1,2"), parse_vary("b=x,y,z")};
    const auto cols = columns(axes);
    const auto row = [](const std::string& trace, const std::string& a, const std::string& b,
                        std::string_view status) {
        Job j{0, trace, {}, {a, b}, {}};
        std::vector<std::string> m(metrics().size(), "7");
        m[0] = std::to_string((a == "1" ? 100 : 200) + (trace == "t2" ? 1 : 0));  // total_cycles
        return make_row(j, status == kStatusOk ? m : std::vector<std::string>{}, status, "");
    };
    std::vector<Row> rows;
    for (const char* t : {"t1", "t2"})
        for (const char* a : {"1", "2"})
            for (const char* b : {"x", "y", "z"}) rows.push_back(row(t, a, b, kStatusOk));
    EXPECT_EQ(keys_without_effect(cols, rows, 2), (std::vector<std::string>{"b"}));

    std::vector<Row> failed = rows;
    failed[4] = row("t1", "2", "y", kStatusInvalid);
    EXPECT_EQ(keys_without_effect(cols, failed, 2), (std::vector<std::string>{"b"}));

    std::vector<Row> moved = rows;
    moved.back()[3 + 5] = "8";  // one metric cell of t2, a=2, b=z
    EXPECT_TRUE(keys_without_effect(cols, moved, 2).empty());

    const std::vector<Row> zip = {row("t1", "1", "x", kStatusOk), row("t1", "2", "y", kStatusOk)};
    EXPECT_TRUE(keys_without_effect(cols, zip, 2).empty());
}

}  // namespace
}  // namespace sbufsim::sweep
