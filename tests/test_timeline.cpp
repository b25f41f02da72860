// The --timeline document: trace-event JSON with the expected tracks, stall spans that add up to
// the kernel's stall counters, semaphore flows paired signal -> waiter, and --window filtering.
#include <gtest/gtest.h>

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <map>
#include <set>
#include <sstream>

#include "sbufsim/config/config.h"
#include "shipped.h"
#include "sbufsim/output/timeline.h"

namespace sbufsim {
namespace {

namespace pt = boost::property_tree;

using test::cayman;
using test::shipped;

struct Replayed {
    ReplayResult result;
    std::unique_ptr<ActivityProbe> probe;
};

Replayed replay_with_probe(const std::string& trace) {
    const Params p = cayman();
    Replayed r;
    r.probe = std::make_unique<ActivityProbe>(ClientSet(p).size(), p.sbuf.ecc_banks + p.psum.ecc_banks,
                                              ProbeOptions{1, false, 4096, true});
    ReplayOptions o;
    o.record_timeline = true;
    o.probe = r.probe.get();
    r.result = replay_trace(p, shipped(trace), o);
    return r;
}

pt::ptree timeline(const Replayed& r, TimelineOptions o = {}) {
    std::stringstream ss;
    write_timeline(ss, r.result, *r.probe, o);
    pt::ptree doc;
    pt::read_json(ss, doc);  // throws on invalid JSON
    return doc;
}

std::vector<pt::ptree> events(const pt::ptree& doc, const std::string& ph) {
    std::vector<pt::ptree> v;
    for (const auto& [k, e] : doc.get_child("traceEvents"))
        if (e.get<std::string>("ph") == ph) v.push_back(e);
    return v;
}

TEST(Timeline, Is_trace_event_json_with_the_expected_tracks) {
    const Replayed r = replay_with_probe("act_vs_matmul_collide.trc");
    const pt::ptree doc = timeline(r);
    std::size_t n = 0;
    for (const auto& [k, e] : doc.get_child("traceEvents")) {
        const std::string ph = e.get<std::string>("ph");
        EXPECT_TRUE(ph == "X" || ph == "C" || ph == "s" || ph == "f" || ph == "M") << ph;
        e.get<int>("pid");  // every event names its process
        if (ph == "X") {
            EXPECT_GE(e.get<double>("dur"), 0.0);
        }
        ++n;
    }
    EXPECT_GT(n, 100u);
    std::set<std::string> threads, counters;
    for (const auto& m : events(doc, "M"))
        if (m.get<std::string>("name") == "thread_name") threads.insert(m.get<std::string>("args.name"));
    for (const auto& c : events(doc, "C")) counters.insert(c.get<std::string>("name"));
    for (const char* t : {"arr_seq (qPE0)", "act (qAct0)", "act_wr", "act_rd", "pe_client_0"})
        EXPECT_TRUE(threads.count(t)) << t;
    for (int b = 0; b < 16; ++b) EXPECT_TRUE(counters.count("sbuf_" + std::to_string(b))) << b;
    EXPECT_TRUE(counters.count("psum_0"));
    EXPECT_TRUE(counters.count("tdm"));
    // One instruction span per completed instruction, with its operands in profiler notation.
    const auto spans = events(doc, "X");
    std::size_t instr = 0;
    for (const auto& s : spans)
        if (s.get<std::string>("cat") == "instr") {
            ++instr;
            if (s.get<std::string>("name") == "matmul") {
                EXPECT_NE(s.get<std::string>("args.src").find("bf16@0x"), std::string::npos);
            }
        }
    EXPECT_EQ(instr, r.result.instructions);
}

TEST(Timeline, Stall_spans_add_up_to_the_stall_counters) {
    const Replayed r = replay_with_probe("act_vs_matmul_collide.trc");
    const pt::ptree doc = timeline(r);
    std::map<std::pair<std::string, std::string>, std::uint64_t> sum;
    const double us_per_cycle = 1.0 / (r.result.pe_clock_ghz * 1000.0);
    for (const auto& s : events(doc, "X")) {
        if (s.get<std::string>("cat") != "stall") continue;
        const auto cycles = s.get<std::uint64_t>("args.cycles");
        sum[{s.get<std::string>("args.client"), s.get<std::string>("name")}] += cycles;
        EXPECT_NEAR(s.get<double>("dur"), static_cast<double>(cycles) * us_per_cycle, 1e-5);
    }
    std::uint64_t conflicts = 0;
    for (const auto& c : r.result.kernel.clients)
        for (std::size_t k = 0; k < kStallCauses; ++k) {
            const std::string cause = to_string(static_cast<StallCause>(k));
            EXPECT_EQ((sum[{c.name, cause}]), c.stalls[k]) << c.name << " " << cause;
            if (static_cast<StallCause>(k) == StallCause::bank_conflict) conflicts += c.stalls[k];
        }
    EXPECT_GT(conflicts, 0u);  // the shipped conflict trace does conflict
}

TEST(Timeline, Flow_arrows_pair_each_signal_with_its_waiter) {
    const Replayed r = replay_with_probe("matmul_kloop.trc");
    const pt::ptree doc = timeline(r);
    std::map<std::uint64_t, pt::ptree> starts, finishes;
    for (const auto& s : events(doc, "s")) EXPECT_TRUE(starts.emplace(s.get<std::uint64_t>("id"), s).second);
    for (const auto& f : events(doc, "f")) EXPECT_TRUE(finishes.emplace(f.get<std::uint64_t>("id"), f).second);
    // Every wait of the trace is released by some signal: one arrow per wait.
    std::uint64_t waits = 0;
    TraceReader reader(shipped("matmul_kloop.trc"));
    for (Record rec; reader.next(rec);) waits += rec.num_waits;
    ASSERT_GT(waits, 0u);
    EXPECT_EQ(starts.size(), waits);
    ASSERT_EQ(starts.size(), finishes.size());
    for (const auto& [id, s] : starts) {
        ASSERT_TRUE(finishes.count(id)) << id;
        const pt::ptree& f = finishes.at(id);
        EXPECT_EQ(s.get<std::string>("name"), f.get<std::string>("name"));
        EXPECT_LE(s.get<double>("ts"), f.get<double>("ts"));  // the signal precedes the wait's start
        EXPECT_NE(s.get<std::uint64_t>("args.line"), f.get<std::uint64_t>("args.line"));
    }
}

TEST(Timeline, Window_keeps_only_events_intersecting_it) {
    const Replayed r = replay_with_probe("act_vs_matmul_collide.trc");
    const Cycle from = r.result.total_cycles / 3, to = r.result.total_cycles / 2;
    const pt::ptree all = timeline(r);
    const pt::ptree doc = timeline(r, TimelineOptions{from, to});
    const auto spans = events(doc, "X");
    ASSERT_FALSE(spans.empty());
    EXPECT_LT(spans.size(), events(all, "X").size());
    for (const auto& s : spans) {
        const auto start = s.get<Cycle>("args.start_cycle");
        const auto end = start + std::max<Cycle>(1, s.get<Cycle>("args.cycles"));
        EXPECT_LT(start, to);
        EXPECT_GT(end, from);
    }
    const double us = 1.0 / (r.result.pe_clock_ghz * 1000.0);
    for (const auto& c : events(doc, "C")) EXPECT_LE(c.get<double>("ts"), static_cast<double>(to) * us + 1e-6);
    Cycle a = 0, b = 0;
    EXPECT_THROW(parse_window("9:3", a, b), std::invalid_argument);
    EXPECT_THROW(parse_window("x", a, b), std::invalid_argument);
    parse_window("10:20", a, b);
    EXPECT_EQ(a, 10u);
    EXPECT_EQ(b, 20u);
}

}  // namespace
}  // namespace sbufsim
