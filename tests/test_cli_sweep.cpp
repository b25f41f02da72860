// `sbufsim sweep` end to end through the built binary (SBUFSIM_BINARY): each call is a process of
// its own, as a user runs it, so the sweep's worker processes are forked from a clean parent.
// property_tree includes boost/bind.hpp, which otherwise prints a deprecation note.
#define BOOST_BIND_GLOBAL_PLACEHOLDERS
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "cli_harness.h"

namespace {

using Out = sbufsim::test::CliOut;
using sbufsim::test::shipped;
using sbufsim::test::slurp;

std::string tmp(const std::string& name) { return sbufsim::test::temp("cli_sweep_" + name); }

// Each call is the built binary in a process of its own.
Out sbufsim(const std::vector<std::string>& args) {
    return sbufsim::test::sbufsim_process(args, "cli_sweep_");
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> v;
    std::istringstream is(text);
    for (std::string l; std::getline(is, l);) v.push_back(l);
    return v;
}

std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> v;
    std::istringstream is(line);
    for (std::string c; std::getline(is, c, ',');) v.push_back(c);
    if (!line.empty() && line.back() == ',') v.emplace_back();
    return v;
}

// A CSV table as column name -> cell, one map per row (the tests' rows have no quoted cells
// except the message, which is always last and only read as a whole).
std::vector<std::map<std::string, std::string>> table(const std::string& csv) {
    const auto ls = lines(csv);
    std::vector<std::map<std::string, std::string>> rows;
    if (ls.empty()) return rows;
    const auto cols = split(ls[0]);
    for (std::size_t i = 1; i < ls.size(); ++i) {
        const auto cells = split(ls[i]);
        std::map<std::string, std::string> r;
        for (std::size_t c = 0; c < cols.size() && c < cells.size(); ++c) r[cols[c]] = cells[c];
        if (cells.size() > cols.size())  // a message with commas: rejoin its pieces
            for (std::size_t c = cols.size(); c < cells.size(); ++c) r["message"] += "," + cells[c];
        rows.push_back(r);
    }
    return rows;
}

// The test's own reading of the client classes (docs/sweeps.md), independent of the sweep code.
std::string class_of(const std::string& client) {
    if (client.find("psum") != std::string::npos || client == "pe_wr") return "psum";
    for (const char* p : {"act", "pool", "dve", "dma", "q7"})
        if (client.rfind(std::string(p) + "_", 0) == 0) return p;
    return "pe";
}

// What `sbufsim run` says about one point: the JSON numbers, plus the worst p99 and Jain's index
// from its summary's client and fairness tables.
struct RunMetrics {
    boost::property_tree::ptree json;
    std::map<std::string, std::uint64_t> bank_by_class;
    std::uint64_t worst_p99 = 0;
    std::string jain;
};

RunMetrics run_point(const std::string& trace, const std::vector<std::string>& sets) {
    std::vector<std::string> args = {"run", trace, "--json", tmp("run.json"), "--details"};
    for (const auto& s : sets) args.insert(args.end(), {"--set", s});
    const Out o = sbufsim(args);
    EXPECT_EQ(o.rc, 0) << o.err;
    RunMetrics m;
    boost::property_tree::ptree t;
    std::istringstream js(slurp(tmp("run.json")));
    boost::property_tree::read_json(js, t);
    m.json = t.get_child("runs").begin()->second;
    for (const auto& [name, c] : m.json.get_child("client"))
        m.bank_by_class[class_of(name)] += c.get<std::uint64_t>("stall_bank_conflict");
    bool in_clients = false;
    for (const auto& l : lines(o.out)) {
        if (l.rfind("clients (active only)", 0) == 0) {
            in_clients = true;
            continue;
        }
        if (in_clients && l.empty()) in_clients = false;
        std::istringstream is(l);
        std::vector<std::string> tok;
        for (std::string w; is >> w;) tok.push_back(w);
        if (in_clients && tok.size() == 16 && tok[0] != "client")
            m.worst_p99 = std::max<std::uint64_t>(m.worst_p99, std::stoull(tok[14]));
        if (l.rfind("Jain's index ", 0) == 0) m.jain = l.substr(13);
    }
    return m;
}

std::string fixed4(const std::string& v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.4f", std::stod(v));
    return b;
}

TEST(CliSweep, Rows_equal_the_same_points_run_one_by_one) {
    const std::string trace = shipped("dma_vs_compute.trc");
    std::remove(tmp("equal.csv").c_str());
    const Out o = sbufsim({"sweep", trace, "--vary", "tdm.dma_slots=1,4,7", "--vary", "tdm.strict=true,false",
                           "--jobs", "2", "--out", tmp("equal.csv"), "--quiet"});
    ASSERT_EQ(o.rc, 0) << o.err;
    const auto rows = table(slurp(tmp("equal.csv")));
    ASSERT_EQ(rows.size(), 6u);
    for (const auto& r : rows) {
        SCOPED_TRACE("dma_slots " + r.at("tdm.dma_slots") + " strict " + r.at("tdm.strict"));
        EXPECT_EQ(r.at("status"), "ok");
        const RunMetrics m =
            run_point(trace, {"tdm.dma_slots=" + r.at("tdm.dma_slots"), "tdm.strict=" + r.at("tdm.strict")});
        EXPECT_EQ(r.at("total_cycles"), m.json.get<std::string>("run.total_cycles"));
        EXPECT_EQ(r.at("time_ns"), m.json.get<std::string>("run.time_ns"));
        EXPECT_EQ(r.at("pe_utilisation"), m.json.get<std::string>("pe.utilisation"));
        EXPECT_EQ(r.at("bank_conflict_stalls"), m.json.get<std::string>("stalls.bank_conflict"));
        EXPECT_EQ(r.at("tdm_stalls"), m.json.get<std::string>("stalls.tdm"));
        EXPECT_EQ(r.at("throttle_stalls"), m.json.get<std::string>("stalls.throttle"));
        EXPECT_EQ(r.at("dma_gbps"), m.json.get<std::string>("dma.achieved_gbps"));
        for (const char* c : {"pe", "act", "pool", "dve", "dma", "q7", "psum"})
            EXPECT_EQ(r.at(std::string("bank_conflict_") + c),
                      std::to_string(m.bank_by_class.count(c) ? m.bank_by_class.at(c) : 0))
                << c;
        EXPECT_EQ(r.at("worst_p99_latency"), std::to_string(m.worst_p99));
        EXPECT_EQ(fixed4(r.at("jain_fairness")), m.jain);
    }
    // The sweep must see TDM at work, or the comparison proves little.
    EXPECT_NE(rows[0].at("total_cycles"), rows[4].at("total_cycles"));
}

TEST(CliSweep, One_two_four_workers_and_three_shards_give_one_table) {
    const std::vector<std::string> base = {"sweep",
                                           shipped("act_vs_matmul_collide.trc"),
                                           shipped("access_mix.trc"),
                                           "--vary",
                                           "tdm.dma_slots=0:6:2",
                                           "--vary",
                                           "arbiter.stage2.pe_rd.prio=1,5",
                                           "--quiet"};
    auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> a = base;
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    };
    std::string first_csv, first_json;
    for (const char* jobs : {"1", "2", "4"}) {
        std::remove(tmp(std::string("w") + jobs + ".csv").c_str());
        const Out o = sbufsim(with({"--jobs", jobs, "--out", tmp(std::string("w") + jobs + ".csv"), "--json",
                                    tmp(std::string("w") + jobs + ".json")}));
        ASSERT_EQ(o.rc, 0) << o.err;
        const std::string csv = slurp(tmp(std::string("w") + jobs + ".csv"));
        const std::string json = slurp(tmp(std::string("w") + jobs + ".json"));
        if (first_csv.empty()) {
            first_csv = csv, first_json = json;
            EXPECT_EQ(lines(csv).size(), 1u + 2 * 4 * 2);
        }
        EXPECT_EQ(csv, first_csv) << jobs << " workers";
        EXPECT_EQ(json, first_json) << jobs << " workers";
    }
    std::string joined;
    for (int i = 0; i < 3; ++i) {
        const std::string part = tmp("shard" + std::to_string(i) + ".csv");
        std::remove(part.c_str());
        const Out o = sbufsim(with({"--jobs", "2", "--shard", std::to_string(i) + "/3", "--out", part}));
        ASSERT_EQ(o.rc, 0) << o.err;
        joined += slurp(part);
    }
    EXPECT_EQ(joined, first_csv);
}

TEST(CliSweep, Invalid_point_is_reported_in_its_row_and_the_rest_completes) {
    const std::string out = tmp("invalid.csv");
    std::remove(out.c_str());
    const Out o = sbufsim({"sweep", shipped("dma_vs_compute.trc"), "--vary", "tdm.dma_slots=4,9,2", "--jobs",
                           "2", "--out", out});
    EXPECT_EQ(o.rc, 1) << o.err;
    const auto rows = table(slurp(out));
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].at("status"), "ok");
    EXPECT_EQ(rows[1].at("status"), "invalid");
    EXPECT_EQ(rows[1].at("total_cycles"), "");
    EXPECT_NE(rows[1].at("message").find("tdm.dma_slots = 9 exceeds tdm.max_slots = 8"), std::string::npos);
    EXPECT_EQ(rows[2].at("status"), "ok");
    EXPECT_NE(rows[2].at("total_cycles"), "");
    EXPECT_NE(o.out.find("invalid: " + shipped("dma_vs_compute.trc") + " tdm.dma_slots=9"), std::string::npos)
        << o.out;
}

TEST(CliSweep, A_point_that_never_finishes_times_out_in_its_row) {
    // An 8192 x 8192 x 8192 GEMM (65536 matmuls) under strict TDM, which steps more cycles one
    // by one than the default, replays in about 2.6 s on one core of a 2-core machine (RelWithDebInfo;
    // 1 s without strict TDM, too close to a 1 s limit). With a 0.5 s limit its row times out while
    // the shipped trace's row, a few milliseconds of work, completes in the same sweep.
    const std::string huge = tmp("huge_gemm.sbt");
    ASSERT_EQ(sbufsim({"gen", "gemm", "--m", "8192", "--n", "8192", "--k", "8192", "-o", huge}).rc, 0);
    const std::string out = tmp("timeout.csv");
    std::remove(out.c_str());
    const Out o =
        sbufsim({"sweep", shipped("act_vs_matmul_disjoint.trc"), huge, "--vary", "tdm.dma_slots=1", "--set",
                 "tdm.strict=true", "--jobs", "2", "--timeout", "0.5", "--out", out, "--quiet"});
    EXPECT_EQ(o.rc, 1) << o.err;
    const auto rows = table(slurp(out));
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].at("status"), "ok") << rows[0].at("message");
    EXPECT_EQ(rows[1].at("status"), "timeout") << rows[1].at("message");
    EXPECT_NE(rows[1].at("message").find("no result after 0.5 s"), std::string::npos)
        << rows[1].at("message");
    std::remove(huge.c_str());
}

TEST(CliSweep, Resume_runs_only_the_missing_points) {
    const std::string out = tmp("resume.csv");
    std::remove(out.c_str());
    const std::vector<std::string> args = {"sweep",       shipped("act_vs_matmul_collide.trc"),
                                           "--vary",      "tdm.dma_slots=0:5",
                                           "--jobs",      "2",
                                           "--out",       out,
                                           "--log-level", "info"};
    Out o = sbufsim(args);
    ASSERT_EQ(o.rc, 0) << o.err;
    const std::string full = slurp(out);
    auto ls = lines(full);
    ASSERT_EQ(ls.size(), 7u);
    // The log's "running row" lines, wherever the default logger writes them.
    auto ran_lines = [](const Out& r) {
        std::vector<std::string> ran;
        for (const auto& l : lines(r.out + r.err))
            if (l.find("running row") != std::string::npos) ran.push_back(l);
        return ran;
    };
    EXPECT_EQ(ran_lines(o).size(), 6u) << o.err;

    // Lose rows 1 and 4 (dma_slots 0 and 3): one deleted, one cut off as by an interruption.
    {
        std::ofstream f(out);
        f << ls[0] << "\n"
          << ls[2] << "\n"
          << ls[3] << "\n"
          << ls[5] << "\n"
          << ls[6] << "\n"
          << ls[4].substr(0, ls[4].size() / 3);
    }
    o = sbufsim(args);
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_EQ(slurp(out), full);
    const auto ran = ran_lines(o);
    ASSERT_EQ(ran.size(), 2u) << o.err;
    EXPECT_NE(ran[0].find("tdm.dma_slots=0"), std::string::npos) << ran[0];
    EXPECT_NE(ran[1].find("tdm.dma_slots=3"), std::string::npos) << ran[1];
    EXPECT_NE(o.out.find("ran 2 points"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("4 already in"), std::string::npos) << o.out;

    // Nothing missing: nothing runs.
    o = sbufsim(args);
    EXPECT_EQ(o.rc, 0);
    EXPECT_TRUE(ran_lines(o).empty()) << o.out;
    EXPECT_EQ(slurp(out), full);
}

// A second sweep into the same --out keeps the first's other points: the merged table is in
// value order, and the first sweep's invalid row does not make the second sweep fail.
TEST(CliSweep, Rows_kept_from_an_earlier_sweep_are_merged_in_value_order_and_do_not_decide_the_exit) {
    const std::string out = tmp("merged.csv");
    std::remove(out.c_str());
    const std::string t = shipped("dma_vs_compute.trc");
    Out o = sbufsim({"sweep", t, "--vary", "tdm.dma_slots=4,8,9", "--out", out, "-q"});
    EXPECT_EQ(o.rc, 1) << o.err;  // 9 > tdm.max_slots: invalid
    o = sbufsim({"sweep", t, "--vary", "tdm.dma_slots=0:3", "--out", out});
    EXPECT_EQ(o.rc, 0) << o.out << o.err;
    EXPECT_NE(o.out.find("3 of other points kept from an earlier sweep"), std::string::npos) << o.out;
    std::vector<std::string> slots;
    for (const auto& r : table(slurp(out))) slots.push_back(r.at("tdm.dma_slots"));
    EXPECT_EQ(slots, (std::vector<std::string>{"0", "1", "2", "3", "4", "8", "9"}));
    // One of this sweep's own points invalid: exit 1 again.
    o = sbufsim({"sweep", t, "--vary", "tdm.dma_slots=3,10", "--out", out, "-q"});
    EXPECT_EQ(o.rc, 1) << o.err;
}

TEST(CliSweep, Json_writes_booleans_as_booleans) {
    const Out o =
        sbufsim({"sweep", shipped("dma_vs_compute.trc"), "--vary", "tdm.strict=true,false", "--json", "-"});
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_NE(o.out.find("\"tdm.strict\": true,"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("\"tdm.strict\": false,"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("\"status\": \"ok\""), std::string::npos) << o.out;
}

TEST(CliSweep, A_trace_spelt_another_way_is_the_same_trace) {
    const std::string out = tmp("spelling.csv");
    std::remove(out.c_str());
    const std::string trace = shipped("dma_load.trc");
    const std::string other =
        std::filesystem::path(trace).parent_path().string() + "/./../traces/dma_load.trc";
    Out o = sbufsim({"sweep", trace, "--vary", "tdm.dma_slots=1,2", "--out", out});
    ASSERT_EQ(o.rc, 0) << o.err;
    const std::string full = slurp(out);
    // Resumed under the other spelling: nothing runs, no row is added.
    o = sbufsim({"sweep", other, "--vary", "tdm.dma_slots=1,2", "--out", out});
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_NE(o.out.find("ran 0 points"), std::string::npos) << o.out;
    EXPECT_EQ(slurp(out), full);
    // One file named twice is refused.
    o = sbufsim({"sweep", trace, other, "--vary", "tdm.dma_slots=1"});
    EXPECT_EQ(o.rc, 2);
    EXPECT_NE(o.err.find("are the same file: give each trace once"), std::string::npos) << o.err;
}

TEST(CliSweep, Resume_replaces_rows_of_another_base_configuration_or_trace_only_with_force) {
    const std::string out = tmp("rebase.csv"), trace = tmp("rebase.trc");
    std::remove(out.c_str());
    std::ofstream(trace) << slurp(shipped("act_vs_matmul_collide.trc"));
    auto args = [&](const std::string& set) {
        return std::vector<std::string>{
            "sweep", trace, "--vary", "tdm.dma_slots=1,2", "--jobs", "2", "--out", out, "--set", set};
    };
    Out o = sbufsim(args("arbiter.stage2.act_rd.prio=1"));
    ASSERT_EQ(o.rc, 0) << o.err;
    const std::string first = slurp(out);
    // The same base: everything resumed.
    o = sbufsim(args("arbiter.stage2.act_rd.prio=1"));
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_NE(o.out.find("ran 0 points"), std::string::npos) << o.out;
    EXPECT_EQ(slurp(out), first);
    // Another --set: both rows are another experiment's results, which this sweep would replace.
    // Refused, the file kept; --force runs them again and the table holds only the new ones.
    o = sbufsim(args("arbiter.stage2.act_rd.prio=7"));
    EXPECT_EQ(o.rc, 2) << o.err;
    EXPECT_NE(o.err.find("2 rows came from another base configuration"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("this sweep would run their points again and replace them"), std::string::npos)
        << o.err;
    EXPECT_NE(o.err.find("pass --force to replace them"), std::string::npos) << o.err;
    EXPECT_EQ(slurp(out), first);
    auto forced = args("arbiter.stage2.act_rd.prio=7");
    forced.push_back("--force");
    o = sbufsim(forced);
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_NE(o.err.find("2 rows of " + out + " came from another base configuration"), std::string::npos)
        << o.err;
    EXPECT_NE(o.out.find("ran 2 points"), std::string::npos) << o.out;
    EXPECT_EQ(lines(slurp(out)).size(), 3u);
    EXPECT_NE(slurp(out), first);
    // The trace changed (one more comment line): stale again, the same rule.
    std::ofstream(trace, std::ios::app) << "# edited\n";
    const std::string second = slurp(out);
    o = sbufsim(args("arbiter.stage2.act_rd.prio=7"));
    EXPECT_EQ(o.rc, 2) << o.err;
    EXPECT_NE(o.err.find("or another version of the trace (" + trace + ", tdm.dma_slots=1)"),
              std::string::npos)
        << o.err;
    EXPECT_EQ(slurp(out), second);
    o = sbufsim(forced);
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_NE(o.out.find("ran 2 points"), std::string::npos) << o.out;
}

// A row whose trace was deleted since cannot be checked or run again: resuming into its table is
// refused with why (not an internal error), and --force drops the row.
TEST(CliSweep, Resume_over_a_row_whose_trace_is_gone_says_so) {
    const std::string out = tmp("gone.csv"), gone = tmp("gone.trc");
    std::remove(out.c_str());
    std::filesystem::copy_file(shipped("dma_load.trc"), gone,
                               std::filesystem::copy_options::overwrite_existing);
    ASSERT_EQ(sbufsim({"sweep", gone, "--out", out, "-q"}).rc, 0);
    std::filesystem::remove(gone);
    const std::string first = slurp(out);
    Out o = sbufsim({"sweep", shipped("access_mix.trc"), "--out", out, "-q"});
    EXPECT_EQ(o.rc, 2) << o.err;
    EXPECT_NE(o.err.find("1 row came from a trace that no longer exists (" + gone +
                         "), and this sweep does not run"),
              std::string::npos)
        << o.err;
    EXPECT_EQ(slurp(out), first);
    o = sbufsim({"sweep", shipped("access_mix.trc"), "--out", out, "-q", "--force"});
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_EQ(slurp(out).find(gone), std::string::npos);
}

TEST(CliSweep, Resume_under_another_base_never_drops_rows_it_does_not_run_again) {
    const std::string out = tmp("rebase_lost.csv");
    std::remove(out.c_str());
    const std::string t = shipped("dma_vs_compute.trc");
    Out o = sbufsim({"sweep", t, "--vary", "tdm.dma_slots=1:4", "--out", out, "-q"});
    ASSERT_EQ(o.rc, 0) << o.err;
    const std::string first = slurp(out);
    // Another base over two of the four points: the other two would be lost. Refused, file kept.
    o = sbufsim({"sweep", t, "--set", "tdm.strict=true", "--vary", "tdm.dma_slots=1:2", "--out", out, "-q"});
    EXPECT_EQ(o.rc, 2) << o.err;
    EXPECT_NE(o.err.find("4 rows came from another base configuration"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("(" + t + ", tdm.dma_slots=1)"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("this sweep would replace 2 rows and lose the other 2"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("--force"), std::string::npos) << o.err;
    EXPECT_EQ(slurp(out), first);
    // --force: the two points run again, the other two are dropped, and both are said.
    o = sbufsim({"sweep", t, "--set", "tdm.strict=true", "--vary", "tdm.dma_slots=1:2", "--out", out, "-q",
                 "--force"});
    EXPECT_EQ(o.rc, 0) << o.err;
    EXPECT_NE(o.err.find("2 rows of " + out + " came from another base configuration"), std::string::npos)
        << o.err;
    EXPECT_NE(o.err.find("are not in this sweep: dropped (--force)"), std::string::npos) << o.err;
    const auto rows = table(slurp(out));
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].at("tdm.dma_slots"), "1");
    EXPECT_EQ(rows[0].at("total_cycles"), "143489");  // strict TDM, 1 of 8 slots
}

TEST(CliSweep, Json_of_another_sweep_is_kept_unless_forced) {
    const std::string json = tmp("other.json");
    std::remove(json.c_str());
    const std::string t = shipped("dma_vs_compute.trc");
    Out o = sbufsim({"sweep", t, "--vary", "tdm.dma_slots=1,2", "--json", json, "-q"});
    ASSERT_EQ(o.rc, 0) << o.err;
    const std::string first = slurp(json);
    // The same columns: this sweep's own output, replaced.
    o = sbufsim({"sweep", t, "--vary", "tdm.dma_slots=3,4", "--json", json, "-q"});
    EXPECT_EQ(o.rc, 0) << o.err;
    EXPECT_NE(slurp(json), first);
    const std::string second = slurp(json);
    o = sbufsim({"sweep", t, "--vary", "arbiter.stage2.act_rd.weight=1,2", "--json", json, "-q"});
    EXPECT_EQ(o.rc, 2) << o.err;
    EXPECT_NE(o.err.find("--json " + json + ": holds another sweep's rows (columns trace, tdm.dma_slots, "),
              std::string::npos)
        << o.err;
    EXPECT_EQ(slurp(json), second);
    o = sbufsim({"sweep", t, "--vary", "arbiter.stage2.act_rd.weight=1,2", "--json", json, "-q", "--force"});
    EXPECT_EQ(o.rc, 0) << o.err;
    EXPECT_NE(slurp(json).find("\"arbiter.stage2.act_rd.weight\": 1"), std::string::npos);
}

TEST(CliSweep, Values_are_checked_before_any_point_and_kept_in_canonical_form) {
    const std::string t = shipped("dma_load.trc");
    // Spellings of one value: written as the loader keeps them, so a resumed table matches them.
    Out o = sbufsim(
        {"sweep", t, "--vary", "tdm.strict=yes,0", "--vary", "tdm.dma_slots=0x2", "--out", "-", "-q"});
    EXPECT_EQ(o.rc, 0) << o.err;
    const auto rows = table(o.out);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].at("tdm.strict"), "true");
    EXPECT_EQ(rows[1].at("tdm.strict"), "false");
    EXPECT_EQ(rows[0].at("tdm.dma_slots"), "2");
    o = sbufsim({"sweep", t, "--vary", "tdm.dma_slots=1,0x1"});
    EXPECT_EQ(o.rc, 2);
    EXPECT_NE(o.err.find("value '1' is listed twice"), std::string::npos) << o.err;
    o = sbufsim({"sweep", t, "--vary", "tdm.dma_slots=1,0x1,1", "--vary", "tdm.max_slots=8,8,8", "--zip"});
    EXPECT_EQ(o.rc, 2);
    EXPECT_NE(o.err.find("--zip gives the point tdm.dma_slots=1, tdm.max_slots=8 twice"), std::string::npos)
        << o.err;
    // A bad value, file or --set stops the sweep before any point, as it stops `run`.
    o = sbufsim({"sweep", t, "--vary", "tdm.dma_slots=1:3:0.5", "--out", "-"});
    EXPECT_EQ(o.rc, 2);
    EXPECT_NE(
        o.err.find(
            "--vary 'tdm.dma_slots=1:3:0.5': key 'tdm.dma_slots': value '1.5' is not an unsigned integer"),
        std::string::npos)
        << o.err;
    EXPECT_TRUE(o.out.empty()) << o.out;
    o = sbufsim(
        {"sweep", t, "--config", tmp("no_such.ini"), "--vary", "tdm.strict=true,false", "--out", "-"});
    EXPECT_EQ(o.rc, 2);
    EXPECT_NE(o.err.find("cannot open configuration file"), std::string::npos) << o.err;
    EXPECT_TRUE(o.out.empty()) << o.out;
    o = sbufsim({"sweep", t, "--set", "tdm.dma_slots=x", "--vary", "tdm.strict=true,false", "--out", "-"});
    EXPECT_EQ(o.rc, 2);
    EXPECT_NE(o.err.find("value 'x' is not an unsigned integer"), std::string::npos) << o.err;
    // A base that only a point's value makes consistent still sweeps: strict TDM wants a slot
    // for each class, which the varied tdm.dma_slots gives or not, point by point.
    o = sbufsim({"sweep", t, "--set", "tdm.strict=true", "--set", "tdm.dma_slots=0", "--vary",
                 "tdm.dma_slots=0,2", "--out", "-", "-q"});
    EXPECT_EQ(o.rc, 1) << o.err;
    const auto mixed = table(o.out);
    ASSERT_EQ(mixed.size(), 2u);
    EXPECT_EQ(mixed[0].at("status"), "invalid");
    EXPECT_EQ(mixed[1].at("status"), "ok");
}

TEST(CliSweep, Lenient_replays_another_generations_trace_and_counts_what_it_skipped) {
    const std::string t = shipped("dma_load.trc");  // gen=cayman in its header
    Out o = sbufsim({"sweep", t, "--gen", "sunda", "--vary", "tdm.dma_slots=1,2", "--out", "-", "-q"});
    EXPECT_EQ(o.rc, 1) << o.err;
    for (const auto& r : table(o.out)) EXPECT_EQ(r.at("status"), "error");
    o = sbufsim(
        {"sweep", t, "--gen", "sunda", "--vary", "tdm.dma_slots=1,2", "--lenient", "--out", "-", "-q"});
    EXPECT_EQ(o.rc, 0) << o.err;
    const auto rows = table(o.out);
    ASSERT_EQ(rows.size(), 2u);
    for (const auto& r : rows) {
        EXPECT_EQ(r.at("status"), "ok");
        EXPECT_EQ(r.at("run.skipped_records"), "1");  // the header's gen=
    }
    EXPECT_NE(o.err.find("warning: 2 of 2 rows skipped invalid records (--lenient"), std::string::npos)
        << o.err;
    // The lenient rows are another base: a strict resume of the same table runs them again.
    const Out strict = sbufsim({"sweep", t, "--vary", "tdm.dma_slots=1,2", "--lenient", "--out", "-", "-q"});
    EXPECT_NE(table(strict.out).at(0).at("base_digest"),
              table(sbufsim({"sweep", t, "--vary", "tdm.dma_slots=1,2", "--out", "-", "-q"}).out)
                  .at(0)
                  .at("base_digest"));
}

// The table on the terminal fits 120 columns, its fractions at 4 significant digits; the CSV
// keeps the metric names and all 10 digits.
TEST(CliSweep, The_table_fits_120_columns_at_4_significant_digits) {
    const std::string csv = tmp("narrow.csv");
    const Out o = sbufsim({"sweep", shipped("dma_vs_compute.trc"), "--set", "tdm.strict=true", "--vary",
                           "tdm.dma_slots=1:7", "--rank-by", "total_cycles", "--out", csv});
    ASSERT_EQ(o.rc, 0) << o.err;
    const auto ls = lines(o.out);
    ASSERT_GE(ls.size(), 9u) << o.out;
    for (std::size_t i = 1; i < 9; ++i) EXPECT_LE(ls[i].size(), 120u) << ls[i];
    EXPECT_EQ(ls[1].rfind("tdm.dma_slots  cycles  pe_util  bank_stalls  tdm_stalls", 0), 0u) << ls[1];
    EXPECT_NE(o.out.find("  99.86  "), std::string::npos) << o.out;  // dma_gbps 99.86438095
    EXPECT_EQ(o.out.find("99.864"), std::string::npos) << o.out;
    const std::string file = slurp(csv);
    EXPECT_NE(file.find(",total_cycles,"), std::string::npos);
    EXPECT_NE(file.find("99.86438095"), std::string::npos);
}

// --best replays the best ok point and prints its report: the varied keys as --set.
TEST(CliSweep, Best_prints_the_chosen_points_report) {
    const Out o = sbufsim({"sweep", shipped("dma_vs_compute.trc"), "--set", "tdm.strict=true", "--vary",
                           "tdm.dma_slots=1,2,7", "--rank-by", "total_cycles", "--best"});
    ASSERT_EQ(o.rc, 0) << o.err;
    const auto at =
        o.out.find("\nthe best point: " + shipped("dma_vs_compute.trc") + " --set tdm.dma_slots=7\n");
    ASSERT_NE(at, std::string::npos) << o.out;
    const std::string report = o.out.substr(at);
    EXPECT_NE(report.find("\ntotal 50400 cycles"), std::string::npos)
        << report;  // 7 slots: 50400 (the table's)
    EXPECT_NE(report.find("\nbound by DMA: "), std::string::npos) << report;
    EXPECT_EQ(sbufsim({"sweep", shipped("dma_vs_compute.trc"), "--best", "--quiet"}).rc, 2);  // usage
}

TEST(CliSweep, Rank_by_prints_the_best_points_first) {
    const std::string json = tmp("rank.json");
    const Out o = sbufsim({"sweep", shipped("dma_vs_compute.trc"), "--vary", "tdm.dma_slots=0,4,8", "--jobs",
                           "2", "--rank-by", "dma_gbps", "--json", json});
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_NE(o.out.find("best first by dma_gbps (highest first)"), std::string::npos) << o.out;
    const auto ls = lines(o.out);
    ASSERT_GE(ls.size(), 5u);
    EXPECT_NE(ls[1].find("  p99  p99_client  "), std::string::npos) << ls[1];
    std::map<std::string, std::string> client_of;  // dma_slots -> worst_p99_client, from the JSON
    boost::property_tree::ptree rows;
    boost::property_tree::read_json(json, rows);
    for (const auto& [_, r] : rows)
        client_of[r.get<std::string>(boost::property_tree::path("tdm.dma_slots", '/'))] =
            r.get<std::string>("worst_p99_client");
    std::vector<double> gbps;
    for (std::size_t i = 2; i < 5; ++i) {
        std::istringstream is(ls[i]);
        std::vector<std::string> tok;
        for (std::string w; is >> w;) tok.push_back(w);
        ASSERT_EQ(tok.size(), 11u) << ls[i];  // dma_slots + 10 headline columns
        gbps.push_back(std::stod(tok[6]));
        EXPECT_EQ(tok[8], client_of[tok[0]]) << ls[i];  // the worst p99 with its client
    }
    EXPECT_TRUE(std::is_sorted(gbps.rbegin(), gbps.rend())) << o.out;
}

// A best value several points share is said to be a tie, not presented as a choice: every
// tdm.dma_slots gives dma_vs_compute 50,400 cycles, while its TDM stalls differ.
TEST(CliSweep, Rank_by_says_when_the_best_is_a_tie) {
    const std::string a = shipped("dma_vs_compute.trc");
    Out o = sbufsim({"sweep", a, "--vary", "tdm.dma_slots=0:8", "--rank-by", "total_cycles"});
    ASSERT_EQ(o.rc, 0) << o.err;
    // The note is wrapped at the terminal's 120 columns.
    const std::string joined = std::regex_replace(o.out, std::regex("\n  "), " ");
    EXPECT_NE(joined.find(
                  "\n9 of 9 ok points tie at the best total_cycles (50400): total_cycles does not tell them "
                  "apart; to choose among them by another metric, rank by it after these (--rank-by "
                  "total_cycles,METRIC)\n"),
              std::string::npos)
        << o.out;
    for (const auto& l : lines(o.out)) EXPECT_LE(l.size(), 120u) << l;
    // Doing so: the tying points by fairness, not the table by fairness (whose fairest point
    // could be a slower one). Every point here ties, so the order is fairness's own.
    o = sbufsim(
        {"sweep", a, "--vary", "tdm.dma_slots=0:8", "--rank-by", "total_cycles,jain_fairness", "--top", "0"});
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_NE(o.out.find("best first by total_cycles (lowest first), then jain_fairness (highest first)\n"),
              std::string::npos)
        << o.out;
    EXPECT_EQ(o.out.find("tie at the best"), std::string::npos) << o.out;
    o = sbufsim({"sweep", a, "--vary", "tdm.dma_slots=0:8", "--rank-by", "total_cycles,jainn"});
    EXPECT_EQ(o.rc, 2);  // usage
    EXPECT_NE(o.err.find("--rank-by 'jainn': not a registered metric"), std::string::npos) << o.err;
    o = sbufsim({"sweep", a, "--vary", "tdm.dma_slots=0:8", "--rank-by", "tdm_stalls"});
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_EQ(o.out.find("tie at the best"), std::string::npos) << o.out;
    // Two traces, each a tie: their comparison says its rows are the first of each tie.
    o = sbufsim({"sweep", a, shipped("matmul_kloop.trc"), "--vary", "tdm.dma_slots=1,2", "--rank-by",
                 "total_cycles"});
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_NE(
        o.out.find("(the best of " + a + ", " + shipped("matmul_kloop.trc") +
                   " is one of several tying points: its settings are the first of them in sweep order, "
                   "not a choice)"),
        std::string::npos)
        << o.out;
}

// Two traces of different scale: each gets its own ranked table, without a trace column.
TEST(CliSweep, Rank_by_ranks_within_each_trace) {
    const std::string a = shipped("dma_vs_compute.trc"), b = shipped("access_mix.trc");
    const Out o = sbufsim({"sweep", a, b, "--vary", "tdm.dma_slots=1,4,7", "--rank-by", "tdm_stalls"});
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_NE(o.out.find("(lowest first), ranked within each trace"), std::string::npos) << o.out;
    const auto ls = lines(o.out);
    for (const auto& trace : {a, b}) {
        SCOPED_TRACE(trace);
        const auto at = std::find(ls.begin(), ls.end(), trace + ":");
        ASSERT_NE(at, ls.end()) << o.out;
        ASSERT_GE(ls.end() - at, 5);
        EXPECT_EQ(at[1].rfind("tdm.dma_slots", 0), 0u) << at[1];  // no trace column
        std::vector<long> stalls;
        for (int i = 2; i < 5; ++i) {
            std::istringstream is(at[i]);
            std::vector<std::string> tok;
            for (std::string w; is >> w;) tok.push_back(w);
            ASSERT_EQ(tok.size(), 11u) << at[i];
            stalls.push_back(std::stol(tok[4]));
        }
        EXPECT_TRUE(std::is_sorted(stalls.begin(), stalls.end())) << o.out;
    }
    // Then each trace's best row, best first, across traces.
    const auto bests =
        std::find(ls.begin(), ls.end(),
                  "each trace's best, best first (a comparison where the traces compute the same "
                  "thing, such as two tilings):");
    ASSERT_NE(bests, ls.end()) << o.out;
    ASSERT_GE(ls.end() - bests, 4);
    EXPECT_NE(bests[1].find("trace  tdm.dma_slots"), std::string::npos)
        << bests[1];  // the trace column is back
    long first = 0, second = 0;
    for (auto [line, into] : {std::pair{bests[2], &first}, std::pair{bests[3], &second}}) {
        std::istringstream is(line);
        std::vector<std::string> tok;
        for (std::string w; is >> w;) tok.push_back(w);
        ASSERT_EQ(tok.size(), 12u) << line;
        *into = std::stol(tok[5]);
    }
    EXPECT_LE(first, second) << o.out;
    // Without --vary each trace has one row: one table across them.
    const Out one = sbufsim({"sweep", a, b, "--rank-by", "total_cycles"});
    ASSERT_EQ(one.rc, 0) << one.err;
    EXPECT_NE(one.out.find("best first by total_cycles (lowest first), one row per trace\n"),
              std::string::npos)
        << one.out;
    EXPECT_EQ(one.out.find(a + ":\n"), std::string::npos) << one.out;
    EXPECT_EQ(one.out.find("tie at the best"), std::string::npos) << one.out;
    // Two tilings with the same best: said, one row per trace or in the comparison of bests.
    const std::string twin = tmp("twin_" + std::filesystem::path(b).filename().string());
    std::filesystem::copy_file(b, twin, std::filesystem::copy_options::overwrite_existing);
    const Out tie = sbufsim({"sweep", b, twin, a, "--rank-by", "total_cycles"});
    ASSERT_EQ(tie.rc, 0) << tie.err;
    EXPECT_NE(tie.out.find("2 of 3 ok traces tie at the best total_cycles"), std::string::npos) << tie.out;
    const Out tie_vary =
        sbufsim({"sweep", b, twin, "--vary", "tdm.dma_slots=1,2", "--rank-by", "total_cycles"});
    ASSERT_EQ(tie_vary.rc, 0) << tie_vary.err;
    EXPECT_NE(tie_vary.out.find("2 of 2 ok traces tie at the best total_cycles"), std::string::npos)
        << tie_vary.out;
}

TEST(CliSweep, A_throttler_key_the_configuration_makes_idle_is_noted_before_the_points_run) {
    // Off: its count and window change nothing, and the note says which switch turns it on.
    Out o =
        sbufsim({"sweep", shipped("transformer_layer_head.trc"), "--vary", "throttler.dve_rd.window_len=4,8",
                 "--vary", "throttler.dve_rd.transfer_cnt=1,2", "--quiet"});
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_NE(
        o.err.find("sbufsim sweep: note: throttler.dve_rd.transfer_cnt (set at --vary) has no effect while "
                   "throttler.dve_rd.enable = false; set throttler.dve_rd.enable=true to throttle dve_rd\n"),
        std::string::npos)
        << o.err;
    EXPECT_NE(o.err.find("note: throttler.dve_rd.window_len (set at --vary) has no effect"),
              std::string::npos)
        << o.err;
    // On: only the points whose count reaches the window's length are noted, each once.
    o = sbufsim({"sweep", shipped("transformer_layer_head.trc"), "--vary", "throttler.dve_rd.window_len=8",
                 "--vary", "throttler.dve_rd.transfer_cnt=4,8,16", "--set", "throttler.dve_rd.enable=true",
                 "--quiet"});
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_EQ(o.err.find("transfer_cnt = 4 "), std::string::npos) << o.err;
    EXPECT_NE(
        o.err.find("note: throttler.dve_rd.transfer_cnt = 8 >= throttler.dve_rd.window_len = 8: the limit "
                   "never binds"),
        std::string::npos)
        << o.err;
    EXPECT_NE(o.err.find("note: throttler.dve_rd.transfer_cnt = 16 >= "), std::string::npos) << o.err;
    // No throttler key varied: the base's settings, noted once.
    o = sbufsim({"sweep", shipped("dma_load.trc"), "--vary", "tdm.dma_slots=1,2", "--set",
                 "throttler.dve_rd.transfer_cnt=2", "--quiet"});
    EXPECT_EQ(o.err,
              "sbufsim sweep: note: throttler.dve_rd.transfer_cnt (set at command line) has no effect while "
              "throttler.dve_rd.enable = false; set throttler.dve_rd.enable=true to throttle dve_rd\n");
    o = sbufsim({"sweep", shipped("dma_load.trc"), "--vary", "tdm.dma_slots=1,2", "--quiet"});
    EXPECT_EQ(o.err, "");
}

TEST(CliSweep, A_key_that_changed_no_metric_gets_a_note) {
    // In this trace the DMA clients' class priority reorders nothing (the note's case); the TDM
    // slots change tdm_stalls.
    const Out o =
        sbufsim({"sweep", shipped("resnet50_head.trc"), "--vary", "tdm.dma_slots=0,2", "--vary",
                 "arbiter.dma_class.dma.prio=0,1", "--jobs", "2", "-o", tmp("noeffect.csv"), "--force"});
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_NE(o.out.find("note: arbiter.dma_class.dma.prio changed no metric"), std::string::npos) << o.out;
    EXPECT_EQ(o.out.find("note: tdm.dma_slots"), std::string::npos) << o.out;
    // What the note claims, from the table itself.
    const auto rows = table(slurp(tmp("noeffect.csv")));
    ASSERT_EQ(rows.size(), 4u);
    for (std::size_t i = 0; i < 4; i += 2) {
        auto a = rows[i], b = rows[i + 1];
        EXPECT_NE(a["arbiter.dma_class.dma.prio"], b["arbiter.dma_class.dma.prio"]);
        a.erase("arbiter.dma_class.dma.prio");
        b.erase("arbiter.dma_class.dma.prio");
        EXPECT_EQ(a, b);
    }
    EXPECT_NE(rows[0].at("tdm_stalls"), rows[2].at("tdm_stalls"));
}

TEST(CliSweep, Rank_by_a_per_engine_metric_adds_its_column) {
    const std::string csv = tmp("engine_metric.csv");
    std::remove(csv.c_str());
    const Out o =
        sbufsim({"sweep", shipped("act_vs_matmul_collide.trc"), "--vary", "arbiter.stage2.act_wr.prio=0,7",
                 "--jobs", "2", "--metric", "engine.act.bank_wait_cycles", "--rank-by",
                 "engine.pe.busy_fraction", "--out", csv});
    ASSERT_EQ(o.rc, 0) << o.err;
    EXPECT_NE(o.out.find("best first by engine.pe.busy_fraction (highest first)"), std::string::npos)
        << o.out;
    const auto ls = lines(slurp(csv));
    ASSERT_EQ(ls.size(), 3u);
    EXPECT_NE(ls[0].find(",jain_fairness,engine.act.bank_wait_cycles,engine.pe.busy_fraction,base,base_"
                         "digest,status,message"),
              std::string::npos)
        << ls[0];
    const Out bad = sbufsim({"sweep", shipped("access_mix.trc"), "--vary", "tdm.dma_slots=1", "--metric",
                             "engine.act.idle_cycle"});
    EXPECT_EQ(bad.rc, 2);
    EXPECT_NE(bad.err.find("did you mean 'engine.act.idle_cycles'"), std::string::npos) << bad.err;
    EXPECT_EQ(o.err.find("warning"), std::string::npos) << o.err;
    // A member no run has (the engine is dma_0): an empty column, and said.
    const Out none = sbufsim({"sweep", shipped("dma_vs_compute.trc"), "--vary", "tdm.dma_slots=1,2",
                              "--metric", "engine.dma0.busy_fraction", "--out", "-", "-q"});
    EXPECT_EQ(none.rc, 0) << none.err;
    EXPECT_NE(none.err.find(
                  "warning: engine.dma0.busy_fraction is empty in every ok row: no run had a 'dma0' in its "
                  "engine family (did you mean engine.dma_0.busy_fraction? sbufsim run TRACE --json - lists"),
              std::string::npos)
        << none.err;
    // A name that is not a numbered member without its underscore gets no suggestion.
    const Out odd = sbufsim({"sweep", shipped("dma_vs_compute.trc"), "--vary", "tdm.dma_slots=1", "--metric",
                             "engine.dma_9.busy_fraction", "--out", "-", "-q"});
    EXPECT_EQ(odd.rc, 0) << odd.err;
    EXPECT_NE(
        odd.err.find(
            "no run had a 'dma_9' in its engine family (a misspelt name, or one these traces never use;"),
        std::string::npos)
        << odd.err;
}

TEST(CliSweep, Usage_errors_name_the_argument) {
    const std::string t = shipped("access_mix.trc");
    // A gen option is a trace of its own: the message says how to compare tilings.
    const Out tiling = sbufsim({"sweep", t, "--vary", "block_n=1,2", "-q"});
    EXPECT_EQ(tiling.rc, 2);
    EXPECT_NE(tiling.err.find("'block_n' is an option of sbufsim gen (--block-n), not a configuration key"),
              std::string::npos)
        << tiling.err;
    EXPECT_NE(tiling.err.find("sweep them together"), std::string::npos) << tiling.err;
    // A space in the list: "2" becomes a trace that does not exist, and the message says why.
    Out split = sbufsim({"sweep", t, "--vary", "tdm.dma_slots=1,", "2", "-q"});
    EXPECT_EQ(split.rc, 3);
    EXPECT_NE(split.err.find("'2' was read as a trace: a space in a --vary or --set list splits it"),
              std::string::npos)
        << split.err;
    // A real trace name that is missing gets no such hint.
    split = sbufsim({"sweep", "missing.trc", "--vary", "tdm.dma_slots=1,2", "-q"});
    EXPECT_EQ(split.rc, 3);
    EXPECT_EQ(split.err.find("was read as a trace"), std::string::npos) << split.err;
    Out o = sbufsim({"sweep", t, "--vary", "tdm.dma_slot=1,2"});
    EXPECT_EQ(o.rc, 2);
    EXPECT_NE(o.err.find("--vary 'tdm.dma_slot=1,2'"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("did you mean 'tdm.dma_slots'"), std::string::npos) << o.err;
    // A key no model reads: every point would be the same simulation.
    o = sbufsim({"sweep", t, "--vary", "arr_seq.matmul_done_last=true,false"});
    EXPECT_EQ(o.rc, 2);
    EXPECT_NE(o.err.find("--vary 'arr_seq.matmul_done_last=true,false': key 'arr_seq.matmul_done_last' is "
                         "recorded but has no effect on the simulation ("),
              std::string::npos)
        << o.err;
    EXPECT_NE(o.err.find("vary a key the model reads"), std::string::npos) << o.err;
    EXPECT_TRUE(o.out.empty());
    o = sbufsim({"sweep", t, "--vary", "tdm.dma_slots=5:1"});
    EXPECT_EQ(o.rc, 2);
    EXPECT_NE(o.err.find("--vary 'tdm.dma_slots=5:1': empty range"), std::string::npos) << o.err;
    o = sbufsim({"sweep", t, "--vary", "tdm.dma_slots=1,2", "--vary", "tdm.max_slots=8", "--zip"});
    EXPECT_EQ(o.rc, 2);
    EXPECT_NE(o.err.find("--zip needs lists of one length"), std::string::npos) << o.err;
    o = sbufsim({"sweep", t, "--vary", "tdm.dma_slots=1", "--shard", "3/3"});
    EXPECT_EQ(o.rc, 2);
    o = sbufsim({"sweep", t, "--rank-by", "speed"});
    EXPECT_EQ(o.rc, 2);
    EXPECT_NE(o.err.find("--rank-by 'speed'"), std::string::npos) << o.err;
    o = sbufsim({"sweep", t, "--vary", "tdm.dma_slots=1", "--out", "-", "--json", "-"});
    EXPECT_EQ(o.rc, 2);
    EXPECT_TRUE(o.out.empty());
    EXPECT_NE(o.err.find("--out - and --json - both ask for stdout"), std::string::npos) << o.err;
    o = sbufsim({"sweep", "/nonexistent.trc", "--vary", "tdm.dma_slots=1"});
    EXPECT_EQ(o.rc, 3) << o.err;
}

TEST(CliSweep, Help_lists_examples_and_metrics) {
    const Out o = sbufsim({"sweep", "--help"});
    EXPECT_EQ(o.rc, 0);
    EXPECT_NE(o.out.find("--vary"), std::string::npos);
    EXPECT_NE(o.out.find("examples:"), std::string::npos);
    EXPECT_NE(o.out.find("bank_conflict_psum"), std::string::npos);
    EXPECT_NE(sbufsim({"--help"}).out.find("sweep"), std::string::npos);
}

}  // namespace
