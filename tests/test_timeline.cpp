// The --timeline document: valid trace-event JSON (tests/trace_event_rules.h: integer time,
// slices nested per track, flows bound inside their slices) on shipped and generated workloads
// at every detail level, the expected tracks, stall slices that add up to the kernel's stall
// counters, semaphore flows paired signal -> waiter, --window filtering and the size bound.
#include <gtest/gtest.h>

#include <cmath>

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "sbufsim/config/config.h"
#include "sbufsim/output/timeline.h"
#include "sbufsim/workload/workload.h"
#include "shipped.h"
#include "temp_files.h"
#include "trace_event_rules.h"

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
    const Params p = test::cayman_word_beats();
    Replayed r;
    r.probe = std::make_unique<ActivityProbe>(ClientSet(p).size(), p.sbuf.ecc_banks + p.psum.ecc_banks,
                                              ProbeOptions{1, false, 4096, true});
    ReplayOptions o;
    o.record_timeline = true;
    o.probe = r.probe.get();
    r.result = replay_trace(p, trace.find('/') == std::string::npos ? shipped(trace) : trace, o);
    return r;
}

std::string timeline_text(const Replayed& r, TimelineOptions o = {}) {
    std::stringstream ss;
    write_timeline(ss, r.result, *r.probe, o);
    return ss.str();
}

pt::ptree parse(const std::string& text) {
    std::istringstream in(text);
    pt::ptree doc;
    pt::read_json(in, doc);  // throws on invalid JSON
    return doc;
}

pt::ptree timeline(const Replayed& r, TimelineOptions o = {}) { return parse(timeline_text(r, o)); }

TimelineOptions at(TimelineDetail d) {
    TimelineOptions o;
    o.detail = d;
    return o;
}

// A generated workload written to a temporary text trace (the timeline reads the trace again).
template <class Generate>
std::string generated(const std::string& name, Generate generate) {
    const std::string path = test::temp("timeline_" + name + ".trc");
    std::ofstream f(path);
    TraceWriter w(f, TraceFormat::text, TraceHeader{1, "cayman"});
    TraceWriterSink sink(w);
    generate(sink);
    return path;
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
            EXPECT_NO_THROW(e.get<Cycle>("dur"));  // whole cycles
        }
        ++n;
    }
    EXPECT_GT(n, 100u);
    std::set<std::string> threads, counters;
    for (const auto& m : events(doc, "M"))
        if (m.get<std::string>("name") == "thread_name") threads.insert(m.get<std::string>("args.name"));
    for (const auto& c : events(doc, "C")) counters.insert(c.get<std::string>("name"));
    for (const char* t : {"arr_seq (qPE0)", "act (qAct0)", "act_wr: bank_conflict", "pe_client_0: stage1_loss"})
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
    std::map<int, std::string> thread;
    for (const auto& m : events(doc, "M"))
        if (m.get<int>("pid") == 2 && m.get<std::string>("name") == "thread_name")
            thread[m.get<int>("tid")] = m.get<std::string>("args.name");
    for (const auto& s : events(doc, "X")) {
        if (s.get<std::string>("cat") != "stall") continue;
        const auto cycles = s.get<std::uint64_t>("args.stalled");
        const std::string track = thread.at(s.get<int>("tid"));  // "client: cause"
        const std::string client = track.substr(0, track.find(':'));
        EXPECT_EQ(track, client + ": " + s.get<std::string>("name"));
        sum[{client, s.get<std::string>("name")}] += cycles;
        EXPECT_LE(cycles, s.get<std::uint64_t>("dur"));
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
        EXPECT_LT(s.get<Cycle>("ts"), f.get<Cycle>("ts"));  // the signal precedes the wait's start
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
        const auto start = s.get<Cycle>("ts");
        const auto end = start + std::max<Cycle>(1, s.get<Cycle>("dur"));
        EXPECT_LT(start, to);
        EXPECT_GT(end, from);
    }
    for (const auto& c : events(doc, "C")) EXPECT_LE(c.get<Cycle>("ts"), to);
    Cycle a = 0, b = 0;
    EXPECT_THROW(parse_window("9:3", a, b), std::invalid_argument);
    EXPECT_THROW(parse_window("x", a, b), std::invalid_argument);
    parse_window("10:20", a, b);
    EXPECT_EQ(a, 10u);
    EXPECT_EQ(b, 20u);
}


// ---- the trace-event rules -------------------------------------------------------------------------

TEST(TraceEventRules, The_validator_catches_each_broken_rule) {
    const std::string names =
        R"({"ph":"M","pid":1,"tid":0,"name":"process_name","args":{"name":"p"}},)"
        R"({"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"t"}},)";
    auto broken = [&](const std::string& events) {
        return test::trace_event_violations(parse(R"({"traceEvents":[)" + names + events + "]}"));
    };
    EXPECT_TRUE(broken(R"({"ph":"X","pid":1,"tid":1,"name":"a","ts":0,"dur":10},)"
                       R"({"ph":"X","pid":1,"tid":1,"name":"b","ts":2,"dur":3})").empty());
    // Rounded microseconds: not one integer unit.
    EXPECT_FALSE(broken(R"({"ph":"X","pid":1,"tid":1,"name":"a","ts":0.476667,"dur":0.476667})").empty());
    // Two pipelined slices overlapping on one track.
    EXPECT_FALSE(broken(R"({"ph":"X","pid":1,"tid":1,"name":"a","ts":0,"dur":10},)"
                        R"({"ph":"X","pid":1,"tid":1,"name":"b","ts":5,"dur":10})").empty());
    // A flow whose start lies at the end of its slice (outside it), and one without an end.
    EXPECT_FALSE(broken(R"({"ph":"X","pid":1,"tid":1,"name":"a","ts":0,"dur":10},)"
                        R"({"ph":"X","pid":1,"tid":1,"name":"b","ts":20,"dur":10},)"
                        R"({"ph":"s","pid":1,"tid":1,"name":"f","cat":"c","id":1,"ts":10},)"
                        R"({"ph":"f","bp":"e","pid":1,"tid":1,"name":"f","cat":"c","id":1,"ts":20})").empty());
    EXPECT_FALSE(broken(R"({"ph":"X","pid":1,"tid":1,"name":"a","ts":0,"dur":10},)"
                        R"({"ph":"s","pid":1,"tid":1,"name":"f","cat":"c","id":1,"ts":5})").empty());
    // B/E that cross, a counter with a text value, a track without a name.
    EXPECT_FALSE(broken(R"({"ph":"B","pid":1,"tid":1,"name":"a","ts":0},{"ph":"E","pid":1,"tid":1,"ts":0},)"
                        R"({"ph":"E","pid":1,"tid":1,"ts":3})").empty());
    EXPECT_FALSE(broken(R"({"ph":"C","pid":1,"tid":0,"name":"c","ts":0,"args":{"v":"high"}})").empty());
    EXPECT_FALSE(broken(R"({"ph":"X","pid":1,"tid":7,"name":"a","ts":0,"dur":1})").empty());
}

struct Workload {
    std::string name, path;
};

std::vector<Workload> workloads() {
    const Params p = cayman();
    std::vector<Workload> w;
    for (const char* t : {"act_vs_matmul_collide.trc", "matmul_kloop.trc", "dma_vs_compute.trc", "resnet50_head.trc",
                          "transformer_layer_head.trc", "q7_gpsimd.trc"})
        w.push_back({t, shipped(t)});
    w.push_back({"attention 512x2x64", generated("attention", [&](RecordSink& s) {
                     generate_attention(p, AttentionShape{512, 2, 64}, GemmOptions{}, s);
                 })});
    return w;
}

TEST(Timeline, Follows_the_trace_event_rules_at_every_detail_level) {
    for (const auto& w : workloads()) {
        const Replayed r = replay_with_probe(w.path);
        for (auto d : {TimelineDetail::instructions, TimelineDetail::stalls, TimelineDetail::all}) {
            const auto bad = test::trace_event_violations(timeline(r, at(d)));
            EXPECT_TRUE(bad.empty()) << w.name << " at " << to_string(d) << ": " << bad.size() << " violation(s), first: "
                                     << (bad.empty() ? "" : bad.front());
        }
    }
}

// --timeline-unit ns: the same events at real time, each cycle boundary to the nanosecond, still
// following every rule (nothing that nests in cycles overlaps in ns), the last slice ending at
// the run's duration.
TEST(Timeline, In_ns_the_same_events_follow_the_rules_at_real_time) {
    for (const auto& w : workloads()) {
        const Replayed r = replay_with_probe(w.path);
        TimelineOptions o;
        o.unit = TimelineUnit::ns;
        const pt::ptree ns = timeline(r, o), cycles = timeline(r);
        const auto bad = test::trace_event_violations(ns, 20, 3);
        EXPECT_TRUE(bad.empty()) << w.name << ": " << bad.size()
                                 << " violation(s), first: " << (bad.empty() ? "" : bad.front());
        const auto a = events(ns, "X"), b = events(cycles, "X");
        ASSERT_EQ(a.size(), b.size()) << w.name;
        double last = 0;
        for (std::size_t i = 0; i < a.size(); ++i) {
            const double start = b[i].get<double>("ts"), len = b[i].get<double>("dur");
            const double want = std::round(start / r.result.pe_clock_ghz) / 1000;
            ASSERT_NEAR(a[i].get<double>("ts"), want, 1e-9) << w.name << " event " << i;
            ASSERT_NEAR(a[i].get<double>("ts") + a[i].get<double>("dur"),
                        std::round((start + len) / r.result.pe_clock_ghz) / 1000, 1e-6)
                << w.name << " event " << i;
            last = std::max(last, a[i].get<double>("ts") + a[i].get<double>("dur"));
        }
        EXPECT_LE(last, static_cast<double>(r.result.total_cycles) / r.result.pe_clock_ghz / 1000 + 0.001)
            << w.name;
        EXPECT_EQ(ns.get<std::string>("otherData.time_unit"), "us (PE cycles at pe_clock_ghz, to the ns)");
    }
}

TEST(Timeline, Pipelined_instructions_get_their_own_threads) {
    const Replayed r = replay_with_probe(shipped("matmul_kloop.trc"));
    const pt::ptree doc = timeline(r);
    std::set<std::string> threads;
    for (const auto& m : events(doc, "M"))
        if (m.get<int>("pid") == 1 && m.get<std::string>("name") == "thread_name") threads.insert(m.get<std::string>("args.name"));
    // Matmuls overlap their predecessor's drain: the PE queue needs a second thread.
    EXPECT_TRUE(threads.count("arr_seq (qPE0)"));
    EXPECT_TRUE(threads.count("arr_seq (qPE0) #2"));
    std::size_t instr = 0;
    for (const auto& s : events(doc, "X")) instr += s.get<std::string>("cat") == "instr";
    EXPECT_EQ(instr, r.result.instructions);  // no instruction lost to the extra threads
}

// Tracks come in engine order, then queue names as counted: qSyncIO2 before qSyncIO10.
TEST(Timeline, Queue_tracks_are_in_counting_order) {
    const Params p = cayman();
    GemmOptions o;
    o.dma_queues = 20;
    const std::string path = generated("queues", [&](RecordSink& s) {
        generate_gemm(p, GemmShape{512, 512, 512, "g"}, o, s);
    });
    const pt::ptree doc = timeline(replay_with_probe(path));
    std::map<int, std::string> by_tid;
    for (const auto& m : events(doc, "M"))
        if (m.get<int>("pid") == 1 && m.get<std::string>("name") == "thread_name")
            by_tid[m.get<int>("tid")] = m.get<std::string>("args.name");
    std::vector<int> dma_0;  // the queue numbers of dma_0's tracks, in track order
    for (const auto& [tid, name] : by_tid)
        if (name.rfind("dma_0 (qSyncIO", 0) == 0 && name.find('#') == std::string::npos)
            dma_0.push_back(std::stoi(name.substr(std::string("dma_0 (qSyncIO").size())));
    ASSERT_GT(dma_0.size(), 3u);
    EXPECT_TRUE(std::is_sorted(dma_0.begin(), dma_0.end()));
    EXPECT_GE(dma_0.back(), 10);
    std::filesystem::remove(path);
}

TEST(Timeline, Detail_levels_keep_the_stall_cycles_and_shrink_the_file) {
    const Replayed r = replay_with_probe(shipped("resnet50_head.trc"));
    std::map<TimelineDetail, std::uint64_t> stalled, slices;
    std::map<TimelineDetail, std::size_t> bytes;
    for (auto d : {TimelineDetail::instructions, TimelineDetail::stalls, TimelineDetail::all}) {
        const std::string text = timeline_text(r, at(d));
        bytes[d] = text.size();
        for (const auto& s : events(parse(text), "X"))
            if (s.get<std::string>("cat") == "stall") stalled[d] += s.get<std::uint64_t>("args.stalled"), ++slices[d];
    }
    std::uint64_t counters = 0;
    for (const auto& c : r.result.kernel.clients)
        for (auto n : c.stalls) counters += n;
    ASSERT_GT(counters, 0u);
    EXPECT_EQ(slices[TimelineDetail::instructions], 0u);
    EXPECT_EQ(stalled[TimelineDetail::all], counters);
    EXPECT_EQ(stalled[TimelineDetail::stalls], counters);  // merged, not dropped
    EXPECT_LT(slices[TimelineDetail::stalls], slices[TimelineDetail::all] / 2);
    EXPECT_LT(bytes[TimelineDetail::instructions], bytes[TimelineDetail::stalls]);
    EXPECT_LT(bytes[TimelineDetail::stalls], bytes[TimelineDetail::all]);
    EXPECT_EQ(parse_timeline_detail("all"), TimelineDetail::all);
    EXPECT_THROW(parse_timeline_detail("everything"), std::invalid_argument);
}

// The issue's large case: at the default detail the GEMM 1024x4096x1024 timeline stays small (it
// was 123 MB with every stall run in fractional microseconds) and valid.
TEST(Timeline, Gemm_1024x4096x1024_at_the_default_detail_is_valid_and_under_20_MB) {
    const Params p = cayman();
    const std::string path = generated("gemm", [&](RecordSink& s) {
        generate_gemm(p, GemmShape{1024, 4096, 1024, "g"}, GemmOptions{}, s);
    });
    const Replayed r = replay_with_probe(path);
    const std::string text = timeline_text(r);
    EXPECT_LT(text.size(), 20u << 20);
    const auto bad = test::trace_event_violations(parse(text));
    EXPECT_TRUE(bad.empty()) << bad.size() << " violation(s), first: " << (bad.empty() ? "" : bad.front());
    std::filesystem::remove(path);
}

// Each instruction's slice names its record's source location in its args (`source`, as loc=
// writes it, loop indices included), so a click in Perfetto names the kernel line; a record
// without one has no `source`.
TEST(Timeline, Instruction_slices_carry_their_source_location) {
    const std::string path = test::temp("timeline_source.trc");
    {
        std::ofstream f(path);
        f << "sbufsim-trace 1 gen=cayman\n"
             "dma queue=qSyncIO0 src=hbm dst=bf16@0x0[1][512] partitions=128 bytes=1024 signal=1 "
             "loc=softmax.py:40:nl.load@softmax_kernel[i=3]\n"
             "act queue=qAct0 src=bf16@0x0[1][512] dst=bf16@0x4000[1][512] partitions=128 fn=exp wait=1 "
             "signal=2 loc=softmax.py:42:nl.exp@softmax_kernel[i=3]\n"
             "dma queue=qSyncIO1 src=bf16@0x4000[1][512] dst=hbm partitions=128 bytes=1024 wait=2\n";
    }
    const Replayed r = replay_with_probe(path);
    std::multiset<std::string> sources;  // the instruction slices' args.source
    for (const auto& s : events(timeline(r), "X"))
        if (s.get<std::string>("cat") == "instr") sources.insert(s.get<std::string>("args.source", "(none)"));
    // The ACT instruction's slice, and the load's and the store's (a slice per DMA engine of the
    // transfer): the load's carry its location, the store's none.
    EXPECT_EQ(sources.count("softmax.py:42:nl.exp@softmax_kernel[i=3]"), 1u);
    EXPECT_GT(sources.count("softmax.py:40:nl.load@softmax_kernel[i=3]"), 0u);
    EXPECT_GT(sources.count("(none)"), 0u);
    EXPECT_EQ(std::set<std::string>(sources.begin(), sources.end()).size(), 3u);
}

}  // namespace
}  // namespace sbufsim
