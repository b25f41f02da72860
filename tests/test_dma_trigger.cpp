// DMA triggers and queue scheduling (dma_trigger.h, dma_engine.h; docs/engines.md "DMA
// triggers"): where a DMA instruction's trigger is paid and how an engine picks among its
// queues. Each case replays a small trace and reads the instructions' start cycles.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sbufsim/output/metrics.h"
#include "sbufsim/replay/replay.h"
#include "shipped.h"
#include "temp_files.h"

namespace sbufsim {
namespace {

std::string write_trace(const std::string& name, const std::string& body) {
    const std::string path = test::temp("trigger_" + name + ".trc");
    std::ofstream(path) << "sbufsim-trace 1\n" << body;
    return path;
}

ReplayResult run(const Params& p, const std::string& name, const std::string& body) {
    const std::string path = write_trace(name, body);
    ReplayOptions o;
    o.record_timeline = true;
    ReplayResult r = replay_trace(p, path, o);
    std::filesystem::remove(path);
    return r;
}

// The timeline event of trace line `line` (the header is line 1).
InstrEvent event(const ReplayResult& r, std::uint64_t line) {
    for (const InstrEvent& e : r.timeline)
        if (e.line == line) return e;
    ADD_FAILURE() << "no timeline event for line " << line;
    return {};
}

Cycle ns_cycles(const Params& p, double ns) { return static_cast<Cycle>(std::ceil(ns * p.pe.clock_ghz - 1e-9)); }

// 8 partitions x 4 KiB into SBUF partitions [first, first + 8): one share on engine first / 8.
std::string load(std::uint32_t first, const std::string& queue, const std::string& extra) {
    char addr[32];
    std::snprintf(addr, sizeof addr, "0x%x", first * 0x40000u);
    return "dma queue=" + queue + " src=hbm dst=bf16@" + addr + " partitions=8 bytes=4096 " + extra + "\n";
}

TEST(DmaTrigger, The_trigger_time_shows_in_the_transfers_start) {
    const Params p = test::cayman();
    const Cycle startup = ns_cycles(p, p.timing.dma_startup_ns);
    // Static: 64 SP cycles at the ACT clock (1.2 GHz) = 128 PE cycles; hardware DGE: 600 ns.
    const Cycle stat = event(run(p, "static", load(0, "qSync", "dge=none")), 2).start;
    const Cycle hw = event(run(p, "hwdge", load(0, "qSync", "dge=hwdge")), 2).start;
    EXPECT_EQ(stat, 128 + startup);
    EXPECT_EQ(hw, ns_cycles(p, 600) + startup);
    // Without a trigger cost the transfer starts after the semaphore-to-start latency alone.
    Params free = p;
    free.dma.static_trigger_cycles = 0;
    EXPECT_EQ(event(run(free, "free", load(0, "qSync", "")), 2).start, startup);
}

TEST(DmaTrigger, Two_hardware_dge_triggers_on_one_block_serialise_and_two_blocks_overlap) {
    const Params p = test::cayman();
    const Cycle hw = ns_cycles(p, 600);
    // Two transfers on different engines and queues, both triggered through the SP's DGE block.
    const ReplayResult same = run(p, "same", load(0, "qA", "dge=hwdge issuer=sp") + load(8, "qB", "dge=hwdge issuer=sp"));
    EXPECT_EQ(event(same, 3).start, event(same, 2).start + hw);
    // One through SP, one through ACT: blocks 0 and 1 work at once.
    const ReplayResult both = run(p, "both", load(0, "qA", "dge=hwdge issuer=sp") + load(8, "qB", "dge=hwdge issuer=act"));
    EXPECT_EQ(event(both, 3).start, event(both, 2).start);
    // With one block they serialise again.
    Params one = p;
    one.dma.hwdge_units = 1;
    const ReplayResult single = run(one, "single", load(0, "qA", "dge=hwdge issuer=sp") + load(8, "qB", "dge=hwdge issuer=act"));
    EXPECT_EQ(event(single, 3).start, event(single, 2).start + hw);
}

TEST(DmaTrigger, Triggers_armed_in_one_cycle_are_served_in_record_order) {
    const Params p = test::cayman();
    const Cycle hw = ns_cycles(p, 600);
    // Both arm in cycle 0 on SP's DGE block. The earlier record's share is on dma_8, the later
    // one's on dma_0, which a scheduler may well step first: the record order decides.
    const ReplayResult r = run(p, "order", load(64, "qA", "dge=hwdge") + load(0, "qB", "dge=hwdge"));
    EXPECT_EQ(event(r, 2).start, hw + ns_cycles(p, p.timing.dma_startup_ns));
    EXPECT_EQ(event(r, 3).start, event(r, 2).start + hw);
}

TEST(DmaTrigger, A_transfer_without_trigger_or_startup_latency_starts_in_the_cycle_it_is_armed) {
    Params p = test::cayman();
    p.dma.static_trigger_cycles = 0;
    p.timing.dma_startup_ns = 0;
    // The second load waits for the first; its trigger is claimed and served in the cycle the
    // signal comes, and it starts in that very cycle.
    const ReplayResult r = run(p, "zero", load(0, "qA", "signal=1") + load(8, "qB", "wait=1"));
    EXPECT_EQ(event(r, 2).start, 0u);
    EXPECT_EQ(event(r, 3).start, event(r, 2).end);
}

TEST(DmaTrigger, The_report_gives_each_units_trigger_time_and_the_short_descriptors) {
    const Params p = test::cayman();
    // A hardware DGE trigger through SP's block, a static one issued by ACT, a static one by SP
    // (64 cycles at the ACT clock = 128 PE cycles each); the last load's runs are 2 bytes.
    const ReplayResult r = run(p, "report",
                               load(0, "qA", "dge=hwdge issuer=sp") + load(8, "qB", "dge=none issuer=act") + load(16, "qC", "") +
                                   "dma queue=qD src=hbm dst=bf16@0x1000000[2][64] partitions=8 bytes=128\n");
    EXPECT_EQ(metric_value("dma_trigger.dge0.busy_cycles", r), std::to_string(ns_cycles(p, 600)));
    EXPECT_EQ(metric_value("dma_trigger.act.busy_cycles", r), "128");
    EXPECT_EQ(metric_value("dma_trigger.sp.busy_cycles", r), "256");
    EXPECT_EQ(metric_value("dma_trigger.pool.busy_cycles", r), "0");
    EXPECT_EQ(metric_value("dma_trigger.dge7.busy_cycles", r), "");  // cayman has two blocks
    // Engine 8 serves partitions 64..71: 8 partitions x 64 one-element runs, each below
    // dma.pkt_min_ns x dma.engine_gbps; engine 0's 4 KiB runs are not short.
    EXPECT_EQ(metric_value("dma_engine.dma_8.short_descriptors", r), "512");
    EXPECT_EQ(metric_value("dma_engine.dma_0.short_descriptors", r), "0");
}

// POOL instruction A, a DMA triggered on POOL, POOL instruction B: all ready at cycle 0.
const char* kPoolA = "pool queue=qPool src=bf16@0x0[1][512] dst=bf16@0x4000[1][512] partitions=128 isa=tensor_scalar\n";
const char* kPoolB = "pool queue=qPool src=bf16@0x8000[1][512] dst=bf16@0xc000[1][512] partitions=128 isa=tensor_scalar\n";

TEST(DmaTrigger, A_software_dge_trigger_holds_the_pool_engine) {
    const Params p = test::cayman();
    const Cycle startup = ns_cycles(p, p.timing.dma_startup_ns), sw = ns_cycles(p, p.dma.swdge_ns);
    const ReplayResult r = run(p, "swdge", std::string(kPoolA) + load(16, "qGpSimdDynamic", "dge=swdge") + kPoolB);
    const InstrEvent a = event(r, 2), dma = event(r, 3), b = event(r, 4);
    // A started first; the trigger waited for A's interval, then held POOL for swdge_ns.
    EXPECT_EQ(b.start - a.start, (dma.start - startup) - a.start);
    EXPECT_GE(b.start, a.start + sw);
    // Through the ACT's hardware DGE block POOL is not held: B follows A directly.
    const ReplayResult h = run(p, "hwdge_act", std::string(kPoolA) + load(16, "qAct", "dge=hwdge issuer=act") + kPoolB);
    EXPECT_LT(event(h, 4).start, a.start + sw);
    EXPECT_EQ(event(h, 3).start, ns_cycles(p, 600) + startup);
}

TEST(DmaTrigger, A_static_trigger_issued_by_act_costs_act_cycles) {
    const Params p = test::cayman();
    const char* act = "act queue=qAct src=bf16@0x0[1][2048] dst=bf16@0x4000[1][2048] partitions=128 isa=activation\n";
    const ReplayResult r = run(p, "act", std::string(act) + load(16, "qAct", "dge=none issuer=act"));
    // The trigger follows the activation's interval on ACT: 64 ACT cycles = 128 PE cycles later.
    const InstrEvent a = event(r, 2), dma = event(r, 3);
    const Cycle act_ii = static_cast<Cycle>(std::ceil(2048 * p.pe.clock_ghz / p.act.clock_ghz - 1e-9));
    EXPECT_EQ(dma.start, a.start + act_ii + 128 + ns_cycles(p, p.timing.dma_startup_ns));
}

// Four queues on engine 0; qZ's transfer runs while the other three are triggered (one after
// another on SP), so all three wait at its end; qC's transfer has priority 0.
std::string four_queues() {
    return load(0, "qZ", "priority=3") + load(0, "qA", "priority=3") + load(0, "qB", "priority=3") +
           load(0, "qC", "priority=0");
}

TEST(DmaQueues, Strict_priority_lets_priority_0_overtake_on_mariana) {
    const ReplayResult prio = run(test::shipped_params("mariana"), "prio", four_queues());
    EXPECT_EQ(event(prio, 5).start, event(prio, 2).end);
    EXPECT_LT(event(prio, 5).start, event(prio, 3).start);
    EXPECT_LT(event(prio, 5).start, event(prio, 4).start);
    // Round robin (cayman's policy) serves the queues in turn: qC's transfer goes last.
    const ReplayResult rr = run(test::shipped_params("mariana", {{"dma.queue_policy", "round_robin"}}), "rr", four_queues());
    EXPECT_GT(event(rr, 5).start, event(rr, 3).start);
    EXPECT_GT(event(rr, 5).start, event(rr, 4).start);
}

TEST(DmaQueues, A_started_transfer_is_not_preempted_by_a_higher_class) {
    // qC's priority-0 transfer becomes ready while qA's transfer moves data: it starts when that
    // one ends, ahead of qB's transfer that was waiting longer.
    const std::string body = std::string("act queue=qAct src=bf16@0x0[1][64] dst=bf16@0x4000[1][64] partitions=128 signal=1\n") +
                             load(0, "qA", "priority=3") + load(0, "qB", "priority=3") + load(0, "qC", "priority=0 wait=1");
    const ReplayResult r = run(test::shipped_params("mariana"), "preempt", body);
    const InstrEvent a = event(r, 3), b = event(r, 4), c = event(r, 5);
    EXPECT_LT(a.start, c.start);
    EXPECT_EQ(c.start, a.end);
    EXPECT_GT(b.start, c.start);
}

}  // namespace
}  // namespace sbufsim
