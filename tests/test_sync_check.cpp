// The static deadlock check (include/sbufsim/sync_check.h): cycles of semaphore waits between
// queues and self-waits are found without simulating, named by queue, line and semaphore; traces
// the replay finishes have no findings.
#include <gtest/gtest.h>

#include <sstream>

#include "sbufsim/replay/replay.h"
#include "sbufsim/trace/sync_check.h"
#include "sbufsim/trace/trace_check.h"
#include "shipped.h"

namespace sbufsim {
namespace {

using test::cayman;
using test::shipped;

std::vector<TraceError> deadlocks(std::istream& in, const std::string& name) {
    TraceReader r(in, name);
    SyncCheck c(cayman(), name);
    Record rec;
    std::vector<TraceError> out;
    while (r.next(rec)) c.add(rec, out);
    out.clear();  // races: test_hazard_check.cpp
    const std::size_t found = c.finish(out);
    EXPECT_EQ(found, out.size());
    return out;
}

std::vector<TraceError> deadlocks(const std::string& body) {
    std::istringstream in("sbufsim-trace 1 gen=cayman\n" + body);
    return deadlocks(in, "t.trc");
}

bool has(const TraceError& e, const std::string& part) {
    return e.to_string().find(part) != std::string::npos;
}

const std::string kAct = "act queue=qAct0 src=bf16@0x0[1][64] dst=bf16@0x1000[1][64] partitions=32 ";
const std::string kDve = "dve queue=qDve0 src=bf16@0x2000[1][64] dst=bf16@0x3000[1][64] partitions=32 ";
std::string dma(const std::string& q, const std::string& sync) {
    return "dma queue=" + q + " src=hbm dst=bf16@0x0 partitions=1 bytes=64 " + sync + "\n";
}

// Each unit's clock has an entry per unit: 64 k queues took their square in memory (bad_alloc).
// Past kMaxUnits the check stops with one finding at the first record of one queue too many, and
// what it keeps stays bounded however many queues and signals follow.
TEST(SyncCheck, More_queues_than_the_limit_stop_the_check_with_one_finding) {
    std::string body;
    const std::size_t queues = SyncCheck::kMaxUnits + 200;
    for (std::size_t q = 0; q < queues; ++q) body += dma("q" + std::to_string(q), "signal=1");
    std::istringstream in("sbufsim-trace 1 gen=cayman\n" + body);
    TraceReader r(in, "many.trc");
    SyncCheck c(cayman(), "many.trc");
    Record rec;
    std::vector<TraceError> out;
    // Not valid for the race check (all write the same bytes): only the queue count matters here.
    while (r.next(rec)) c.add(rec, out, false);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].field, "queue");
    // The header is line 1; the first queue past the limit is record kMaxUnits + 1.
    EXPECT_EQ(out[0].line, SyncCheck::kMaxUnits + 2);
    EXPECT_TRUE(has(out[0], "more than 4096 queues")) << out[0].to_string();
    out.clear();
    EXPECT_EQ(c.finish(out), 0u);
}

TEST(SyncCheck, Two_queues_waiting_for_each_other_are_a_cycle_naming_both) {
    const auto e = deadlocks(kAct + "wait=1 signal=2\n" + kDve + "wait=2 signal=1\n");
    ASSERT_EQ(e.size(), 1u);
    EXPECT_EQ(e[0].line, 2u);
    EXPECT_EQ(e[0].field, "wait");
    for (const char* part :
         {"semaphore cycle between 2 queues", "qAct0 (line 2) waits for semaphore 1 >= 1",
          "signalled next by qDve0 line 3", "qDve0 (line 3) waits for semaphore 2 >= 1", "deadlock"})
        EXPECT_TRUE(has(e[0], part)) << part << "\n" << e[0].to_string();
}

TEST(SyncCheck, A_cycle_through_three_dma_queues_is_one_finding) {
    const auto e =
        deadlocks(dma("qA", "wait=3 signal=1") + dma("qB", "wait=1 signal=2") + dma("qC", "wait=2 signal=3") +
                  kAct + "wait=3\n");  // ACT waits behind the cycle: not a cycle of its own
    ASSERT_EQ(e.size(), 1u) << e[0].to_string();
    EXPECT_TRUE(has(e[0], "between 3 queues")) << e[0].to_string();
    EXPECT_FALSE(has(e[0], "qAct0")) << e[0].to_string();
}

TEST(SyncCheck, Waiting_for_its_own_signal_is_a_self_wait) {
    auto e = deadlocks(kAct + "wait=1 signal=1\n");
    ASSERT_EQ(e.size(), 1u);
    EXPECT_TRUE(has(e[0], "a self-wait")) << e[0].to_string();
    EXPECT_TRUE(has(e[0], "its own (it signals 1 when it completes)")) << e[0].to_string();
    e = deadlocks(kAct + "wait=1\n" + kAct + "signal=1\n");  // the signal comes later in the same queue
    ASSERT_EQ(e.size(), 1u);
    EXPECT_TRUE(has(e[0], "its own queue's later line 3")) << e[0].to_string();
    // ACT instructions on two queue names still run in ACT's one order.
    e = deadlocks(kAct + "wait=1\n" +
                  "act queue=qAct1 src=bf16@0x0[1][64] dst=bf16@0x1000[1][64] partitions=32 signal=1\n");
    ASSERT_EQ(e.size(), 1u);
    // Two DMA queues are independent: the same pattern is fine.
    EXPECT_TRUE(deadlocks(dma("qA", "wait=1") + dma("qB", "signal=1")).empty());
}

TEST(SyncCheck, Too_few_signals_are_left_to_the_trace_checker) {
    // Semaphore 1 is signalled once and waited for twice: TraceChecker::finish reports it.
    EXPECT_TRUE(deadlocks(kAct + "wait=1:2\n" + kDve + "signal=1\n").empty());
}

TEST(SyncCheck, Waits_met_in_any_file_order_are_clean) {
    // The waiting record comes first in the file, its signal later: no deadlock.
    EXPECT_TRUE(deadlocks(kAct + "wait=1 signal=2\n" + kDve + "signal=1\n" + kDve + "wait=2\n").empty());
    // Plain waits count per queue: the second wait=1 of qAct0 waits for the second signal.
    EXPECT_TRUE(
        deadlocks(kAct + "wait=1\n" + kAct + "wait=1\n" + kDve + "signal=1\n" + kDve + "signal=1\n").empty());
    EXPECT_EQ(deadlocks(kAct + "wait=1\n" + kAct + "wait=1 signal=1\n" + kDve + "signal=1\n").size(), 1u);
}

TEST(SyncCheck, Every_shipped_trace_is_clean) {
    for (const char* t : {"act_vs_matmul_collide.trc", "act_vs_matmul_disjoint.trc", "dma_load.trc",
                          "dma_transpose.trc", "dma_vs_compute.trc", "matmul_kloop.trc", "q7_gpsimd.trc",
                          "resnet50_head.trc", "transformer_layer_head.trc", "access_mix.trc"}) {
        TraceReader r(shipped(t));
        SyncCheck c(cayman(), t);
        Record rec;
        std::vector<TraceError> out;
        while (r.next(rec)) c.add(rec, out);
        out.clear();  // races: test_hazard_check.cpp
        EXPECT_EQ(c.finish(out), 0u) << t << ": " << (out.empty() ? "" : out[0].to_string());
    }
}

// What the check finds is what the replay deadlocks on.
TEST(SyncCheck, A_cycle_it_reports_deadlocks_the_replay) {
    const std::string body = kAct + "wait=1 signal=2\n" + kDve + "wait=2 signal=1\n";
    ASSERT_EQ(deadlocks(body).size(), 1u);
    std::istringstream in("sbufsim-trace 1 gen=cayman\n" + body);
    TraceReader r(in, "t.trc");
    try {
        replay(cayman(), r);
        FAIL() << "the replay did not deadlock";
    } catch (const ReplayError& e) {
        EXPECT_EQ(e.kind(), ReplayError::Kind::deadlock);
    }
}

// The replay completes an ldweights before the matmul ahead of it: a wait on the count of the
// matmul's signal, shared with the ldweights, is met while the matmul still runs (what the race
// check reports, test_hazard_check.cpp "CompletionOrder").
TEST(SyncCheck, The_replay_meets_a_count_an_ldweights_reaches_before_the_matmul_ahead_of_it) {
    const std::string body =
        "ldweights queue=qPE0 src=bf16@0x4000[1][128] rows=128 cols=128 signal=1\n"
        "matmul queue=qPE0 src=bf16@0x0[1][512] dst=fp32@0x2000000[1][512] num_active_rows=128 "
        "num_active_cols=128 signal=1\n"
        "act queue=qAct0 src=fp32@0x2000000[1][512] dst=bf16@0x20000[1][512] partitions=128 wait=1:2\n"
        "ldweights queue=qPE0 src=bf16@0x8000[1][128] rows=128 cols=128 signal=1\n";
    std::istringstream in("sbufsim-trace 1 gen=cayman\n" + body);
    TraceReader r(in, "t.trc");
    ReplayOptions opt;
    opt.record_timeline = true;
    const ReplayResult res = replay(cayman(), r, opt);
    Cycle matmul_end = 0, act_start = 0;
    for (const InstrEvent& e : res.timeline) {
        if (e.line == 3) matmul_end = e.end;
        if (e.line == 4) act_start = e.start;
    }
    ASSERT_GT(matmul_end, 0u);
    EXPECT_LT(act_start, matmul_end) << "ACT started at " << act_start << ", the matmul ended at "
                                     << matmul_end;
    EXPECT_EQ(res.races, 1u);  // the early wait, counted with the races
}

}  // namespace
}  // namespace sbufsim
