// The bottleneck analysis: the critical path and the per-engine split each add up to the run's
// cycles exactly, the path follows semaphore waits across engines, and the verdict names the
// engine group the path spends most time on.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "sbufsim/engines/critical_path.h"
#include "sbufsim/kernel/clients.h"
#include "sbufsim/output/bottleneck.h"
#include "sbufsim/output/report.h"
#include "sbufsim/trace/trace.h"
#include "sbufsim/types/number.h"
#include "sbufsim/workload/workload.h"
#include "shipped.h"
#include "temp_files.h"

namespace sbufsim {
namespace {

using test::cayman;
using test::shipped;

using test::write_temp;

class EveryShippedTrace : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryShippedTrace, Critical_path_adds_up_to_the_total_cycles) {
    const ReplayResult r = replay_trace(cayman(), shipped(GetParam()));
    EXPECT_EQ(r.critical_path.total(), r.total_cycles);
    Cycle groups = 0;
    for (const PathGroup& g : analyse(r).path) groups += g.total();
    EXPECT_EQ(groups, r.total_cycles);
}

// Each hop of the path (to the engine's previous instruction or to the one whose signal met a
// wait) leads to one more instruction on it: a path of n hops holds n + 1 instructions, whatever
// the segments each instruction's path is cut into (a matmul: start, release, drain).
TEST_P(EveryShippedTrace, Critical_path_holds_one_instruction_more_than_it_has_hops) {
    const ReplayResult r = replay_trace(cayman(), shipped(GetParam()));
    const CriticalPathStats& cp = r.critical_path;
    std::uint64_t instructions = 0;
    for (const std::uint64_t n : cp.instructions) instructions += n;
    const std::uint64_t hops = cp.semaphore_edges + cp.queue_edges;
    EXPECT_EQ(instructions, r.instructions ? hops + 1 : 0) << hops << " hops";
}

TEST_P(EveryShippedTrace, Each_engine_split_adds_up_to_the_total_cycles) {
    const ReplayResult r = replay_trace(cayman(), shipped(GetParam()));
    const Bottleneck b = analyse(r);
    if (r.instructions) {
        ASSERT_FALSE(b.engines.empty());  // access_mix: access records only
    }
    for (const EngineBreakdown& e : b.engines) {
        EXPECT_EQ(e.compute + e.bank_wait + e.sem_wait + e.idle, r.total_cycles) << e.name;
        EXPECT_LE(e.compute + e.bank_wait + e.sem_wait, r.total_cycles) << e.name;  // no overlap
    }
}

INSTANTIATE_TEST_SUITE_P(Traces, EveryShippedTrace,
                         ::testing::Values("access_mix.trc", "act_vs_matmul_collide.trc", "dma_load.trc",
                                           "dma_transpose.trc", "dma_vs_compute.trc", "matmul_kloop.trc",
                                           "q7_gpsimd.trc", "resnet50_head.trc",
                                           "transformer_layer_head.trc"),
                         [](const auto& i) {
                             std::string n = i.param.substr(0, i.param.find('.'));
                             return n;
                         });

TEST(CriticalPath, Follows_a_semaphore_wait_from_the_load_to_its_consumer) {
    // ACT waits for the DMA load: the path is the DMA (start-up + transfer), then ACT.
    const std::string path = write_temp(
        "cp_sem.trc",
        "sbufsim-trace 1 gen=cayman\n"
        "dma queue=qSyncIO0 engine=0 src=hbm dst=bf16@0x0 partitions=128 bytes=2048 signal=1\n"
        "act queue=qAct0 src=bf16@0x0[1][1024] dst=bf16@0x30000[1][1024] partitions=128 fn=copy wait=1\n");
    const ReplayResult r = replay_trace(cayman(), path);
    const CriticalPathStats& cp = r.critical_path;
    EXPECT_EQ(cp.total(), r.total_cycles);
    EXPECT_EQ(cp.semaphore_edges, 1u);
    EXPECT_EQ(cp.queue_edges, 0u);
    const Bottleneck b = analyse(r);
    ASSERT_EQ(b.path.size(), 2u);
    EXPECT_EQ(b.path[0].name, "DMA");
    EXPECT_EQ(b.path[1].name, "ACT");
    EXPECT_EQ(b.path[0].instructions, 1u);
    EXPECT_EQ(b.path[1].instructions, 1u);
    // The DMA's trigger and start-up are latency, its transfer compute (dma_load.trc: a static
    // trigger of 64 SP cycles = 128 PE cycles and 1300 ns = 3120 cycles of semaphore-to-start,
    // then 24468 cycles of transfer: its 2048 B rows take the 78 ns descriptor minimum).
    EXPECT_EQ(b.path[0].cycles[static_cast<std::size_t>(PathCause::latency)], 128u + 3120u);
    EXPECT_EQ(b.bound_by, "DMA");
    EXPECT_EQ(b.verdict.rfind("bound by DMA: ", 0), 0u) << b.verdict;
}

// A tiled matmul written by hand: loads, LdWeights and matmuls, a GELU epilogue per n-tile,
// and two stores on one queue, each waiting for its epilogue.
std::string hand_matmul() {
    return "sbufsim-trace 1 gen=cayman\n"
           "dma queue=qSyncIO0 src=hbm dst=bf16@0x0 partitions=128 bytes=256 signal=1\n"
           "dma queue=qSyncIO0 src=hbm dst=bf16@0x100 partitions=128 bytes=256 signal=2\n"
           "dma queue=qSyncIO1 src=hbm dst=bf16@0x10000 partitions=128 bytes=1024 signal=3\n"
           "dma queue=qSyncIO1 src=hbm dst=bf16@0x10400 partitions=128 bytes=1024 signal=4\n"
           "dma queue=qSyncIO1 src=hbm dst=bf16@0x10800 partitions=128 bytes=1024 signal=5\n"
           "dma queue=qSyncIO1 src=hbm dst=bf16@0x10c00 partitions=128 bytes=1024 signal=6\n"
           "ldweights queue=qPE0 src=bf16@0x0[1][128] rows=128 cols=128 wait=1\n"
           "matmul queue=qPE0 src=bf16@0x10000[1][512] dst=fp32@0x2000000[1][512] num_active_rows=128 "
           "num_active_cols=128 acc_flags=begin wait=3\n"
           "ldweights queue=qPE0 src=bf16@0x100[1][128] rows=128 cols=128 wait=2\n"
           "matmul queue=qPE0 src=bf16@0x10400[1][512] dst=fp32@0x2000000[1][512] num_active_rows=128 "
           "num_active_cols=128 acc_flags=end wait=4 signal=7\n"
           "ldweights queue=qPE0 src=bf16@0x0[1][128] rows=128 cols=128\n"
           "matmul queue=qPE0 src=bf16@0x10800[1][512] dst=fp32@0x2000800[1][512] num_active_rows=128 "
           "num_active_cols=128 acc_flags=begin wait=5\n"
           "ldweights queue=qPE0 src=bf16@0x100[1][128] rows=128 cols=128\n"
           "matmul queue=qPE0 src=bf16@0x10c00[1][512] dst=fp32@0x2000800[1][512] num_active_rows=128 "
           "num_active_cols=128 acc_flags=end wait=6 signal=8\n"
           "act queue=qAct0 isa=activation fn=gelu src=fp32@0x2000000[1][512] dst=bf16@0x20000[1][512] "
           "partitions=128 wait=7 signal=9\n"
           "act queue=qAct0 isa=activation fn=gelu src=fp32@0x2000800[1][512] dst=bf16@0x20400[1][512] "
           "partitions=128 wait=8 signal=10\n"
           "dma queue=qSyncIO2 src=bf16@0x20000 dst=hbm partitions=128 bytes=1024 wait=9\n"
           "dma queue=qSyncIO2 src=bf16@0x20400 dst=hbm partitions=128 bytes=1024 wait=10\n";
}

// The last store's queue predecessor ends before the epilogue's signal plus the DMA start-up:
// the store waited for the signal, so the path runs through ACT, as a faster ACT shows.
TEST(CriticalPath, A_dma_waits_for_the_signal_that_start_up_makes_the_later) {
    const std::string path = write_temp("cp_hand_matmul.trc", hand_matmul());
    const ReplayResult r = replay_trace(cayman(), path);
    const Bottleneck b = analyse(r);
    EXPECT_EQ(r.critical_path.total(), r.total_cycles);
    const auto on_path = [&](const std::string& group) {
        for (const PathGroup& g : b.path)
            if (g.name == group) return g.total();
        return Cycle{0};
    };
    EXPECT_GT(on_path("ACT"), 0u);
    EXPECT_GT(on_path("PE"), 0u);
    EXPECT_EQ(r.critical_path.semaphore_edges, 3u);  // load -> matmul -> GELU -> store

    Params fast_act = cayman();
    fast_act.act.clock_ghz *= 2;
    EXPECT_LT(replay_trace(fast_act, path).total_cycles, r.total_cycles);  // ACT's time is run time
}

TEST(CriticalPath, Without_a_wait_the_engines_run_in_parallel_and_the_longer_one_is_the_path) {
    // Same two instructions, no semaphore: the ACT copy runs at once, the DMA alone is the path.
    const std::string path =
        write_temp("cp_free.trc",
                   "sbufsim-trace 1 gen=cayman\n"
                   "dma queue=qSyncIO0 engine=0 src=hbm dst=bf16@0x0 partitions=128 bytes=2048\n"
                   "act queue=qAct0 src=bf16@0x8000[1][64] dst=bf16@0x30000[1][64] partitions=128 fn=copy\n");
    const ReplayResult r = replay_trace(cayman(), path);
    const Bottleneck b = analyse(r);
    ASSERT_EQ(b.path.size(), 1u);
    EXPECT_EQ(b.path[0].name, "DMA");
    EXPECT_EQ(r.critical_path.semaphore_edges, 0u);
    EXPECT_DOUBLE_EQ(b.bound_share, 1.0);
}

TEST(CriticalPath, Counts_every_matmul_of_an_accumulation_chain_on_the_path) {
    // One stationary tile, then matmuls back to back into one PSUM tile: each starts when the one
    // before releases the array, so every one of them is on the path (and the LdWeights first).
    std::string text =
        "sbufsim-trace 1 gen=cayman\n"
        "ldweights queue=qPE0 src=bf16@0x0[1][128] rows=128 cols=128\n";
    const int matmuls = 40;  // more than CriticalPath::kFlattenDepth segments
    for (int i = 0; i < matmuls; ++i)
        text +=
            "matmul queue=qPE0 src=bf16@0x8000[1][512] dst=fp32@0x2000000[1][512] num_active_rows=128 "
            "num_active_cols=128\n";
    const ReplayResult r = replay_trace(cayman(), write_temp("cp_matmuls.trc", text));
    const Bottleneck b = analyse(r);
    ASSERT_EQ(b.path.size(), 1u);
    EXPECT_EQ(b.path[0].name, "PE");
    EXPECT_EQ(b.path[0].instructions, matmuls + 1u);
    EXPECT_EQ(r.critical_path.queue_edges, static_cast<std::uint64_t>(matmuls));
}

// The finding whose text contains `part` (an empty one when none does).
Finding finding_with(const Bottleneck& b, const std::string& part) {
    for (const Finding& f : b.findings)
        if (f.text.find(part) != std::string::npos) return f;
    return {};
}

ReplayResult replay_gemm(const GemmShape& shape, const GemmOptions& o, const Params& p = cayman()) {
    std::ostringstream out;
    TraceWriter w(out, TraceFormat::text, TraceHeader{1, "cayman"});
    TraceWriterSink sink(w);
    generate_gemm(cayman(), shape, o, sink);
    w.finish();
    return replay_trace(p, write_temp("bottleneck_gemm.trc", out.str()));
}

// The advice fits the run: an engine that waits for the group bounding the run is told that
// buffers do not help; stalls of an engine that waited for no bank on the critical path are said
// to have cost no run time, with no setting offered to shorten it.
TEST(Findings, Advice_follows_what_bounds_the_run) {
    // matmul_kloop: PE-bound, ACT waits for its PSUM tiles. ACT is 7.9 % of the critical path
    // (under kOffPathShare): more buffers for it cannot shorten the run.
    Bottleneck b = analyse(replay_trace(cayman(), shipped("matmul_kloop.trc")));
    ASSERT_EQ(b.bound_by, "PE");
    Finding f = finding_with(b, "act waited");
    EXPECT_EQ(
        f.advice,
        "nothing to gain in run time from more buffers for act: it is 7.9 % of the critical path, and its "
        "waits end when PE's part gets shorter");

    // resnet50_head: DMA-bound; its LdWeights wait for their loads after their moving data; half its
    // DMA engines idle. (The TensorE ramp off: its finding would take the LdWeights one's place
    // among the Bottleneck::kMaxFindings.)
    b = analyse(replay_trace(test::no_ramp(cayman()), shipped("resnet50_head.trc")));
    ASSERT_EQ(b.bound_by, "DMA");
    f = finding_with(b, "LdWeights waited");
    EXPECT_NE(f.advice.find("the run is bound by DMA: load the stationary tiles earlier"), std::string::npos)
        << f.advice;
    f = finding_with(b, "DMA transfers are");
    EXPECT_NE(f.advice.find("busy less than half the run (8 of 16)"), std::string::npos) << f.advice;

    // A GEMM with two m-tiles per LdWeights: PE-bound (a PE clock 20 % slower lengthens it by
    // 14 %), every DMA engine busy most of the run, and its worst bank victim a DMA queue whose
    // engine waited for no bank on the path.
    GemmOptions o;
    o.block_m = 2;
    // One share in flight per DMA engine (dma.outstanding = 1): its busiest engine then computes
    // most of the run (the balanced case below).
    Params one = cayman();
    one.dma.outstanding = 1;
    const ReplayResult r = replay_gemm({1024, 1024, 4096, "g"}, o, one);
    b = analyse(r);
    ASSERT_EQ(b.bound_by, "PE");
    f = finding_with(b, "beat-cycles to other clients taking its banks");
    ASSERT_FALSE(f.text.empty());
    EXPECT_EQ(f.text.rfind("dma_", 0), 0u) << f.text;
    EXPECT_NE(f.text.find("off the critical path: DMA waited for no bank on it"), std::string::npos)
        << f.text;
    // Its lost beats went to the compute class's TDM precedence, which the run counts as tdm
    // stalls: its bank-conflict total is 0, and the finding says why the two differ.
    EXPECT_EQ(total_stalls(r.kernel, StallCause::bank_conflict), 0u);
    EXPECT_NE(
        f.text.find("all of them to the other class's TDM precedence (counted in stalls.tdm, not as bank "
                    "conflicts)"),
        std::string::npos)
        << f.text;
    EXPECT_EQ(f.advice.find("raise"), std::string::npos) << f.advice;

    // Balanced: the busiest DMA engine computes most of the run whatever PE does, so the gain
    // from PE is capped at the rest, said under the verdict (a PE twice as fast gains 7.8 %).
    EXPECT_EQ(b.floor_engine.rfind("dma_", 0), 0u) << b.floor_engine;
    Cycle floor_compute = 0;
    for (const EngineBreakdown& e : b.engines)
        floor_compute = std::max(floor_compute, e.name == "arr_seq" ? 0 : e.compute);
    EXPECT_EQ(b.floor_cycles, floor_compute);
    EXPECT_GT(b.floor_cycles, b.total / 2);
    EXPECT_DOUBLE_EQ(b.gain_limit,
                     static_cast<double>(b.total - b.floor_cycles) / static_cast<double>(b.total));
    EXPECT_LT(b.gain_limit, b.bound_share / 2);
    EXPECT_EQ(b.headroom.rfind("at most " + format_fixed(100 * b.gain_limit, 1) +
                                   " % to gain by shortening PE's part: " + b.floor_engine + " computes ",
                               0),
              0u)
        << b.headroom;

    // PE-bound: the other groups' floor (ACT's compute, 8,192 cycles) is under half the run, but
    // the array's own is higher: its multiply-accumulates at the peak, MFU x total = 16,384
    // cycles. The line says so; PE's finding calls the run compute-bound.
    b = analyse(replay_trace(cayman(), shipped("matmul_kloop.trc")));
    ASSERT_EQ(b.bound_by, "PE");
    EXPECT_EQ(b.floor_engine, "arr_seq");
    EXPECT_EQ(b.floor_cycles, 16384u);  // 32 matmuls x 128 x 128 x 512 MACs / (128 x 128) per cycle
    EXPECT_DOUBLE_EQ(b.gain_limit, static_cast<double>(b.total - 16384) / static_cast<double>(b.total));
    EXPECT_EQ(b.headroom,
              "at most " + format_fixed(100 * b.gain_limit, 1) +
                  " % to gain: the matmuls' multiply-accumulates take 16,384 cycles at the PE array's "
                  "peak (MFU " +
                  format_fixed(100 * b.mfu, 1) + " %), however PE's part is arranged");
    EXPECT_NE(finding_with(b, "The PE array computes for").text.find("compute-bound"), std::string::npos);
}

TEST(Findings, Compute_advice_names_the_other_engines_not_its_own) {
    std::string text = "sbufsim-trace 1 gen=cayman\n";
    for (int i = 0; i < 3; ++i)
        text += "act queue=qAct0 src=bf16@0x0[1][512] dst=bf16@0x30000[1][512] partitions=128 fn=copy\n";
    const Bottleneck b = analyse(replay_trace(cayman(), write_temp("act_only.trc", text)));
    const Finding f = finding_with(b, "ACT compute is");
    EXPECT_NE(f.advice.find("move part of the work to DVE or POOL (they run in parallel with ACT)"),
              std::string::npos)
        << f.advice;
}

TEST(Mfu, Mx_matmuls_count_four_macs_per_pe_and_say_which_peak_they_pass) {
    // An MX matmul contracts four values per PE and column (trn3 arch guide): against the dense
    // bf16 peak its MFU goes past 100 %, and the finding says which peak it is measured against.
    std::string text = "sbufsim-trace 1 gen=mariana\n";
    for (int i = 0; i < 16; ++i)
        text +=
            "ldweights queue=qPE0 src=fp8e4x4@0x0[1][128] src2=uint8@0x4000[1][128] rows=128 cols=128\n"
            "matmul queue=qPE0 src=fp8e4x4@0x8000[1][512] src2=uint8@0x6000[1][512] "
            "dst=fp32@0x2000000[1][512] "
            "num_active_rows=128 num_active_cols=128\n";
    // The ramp off: 16 matmuls are a burst shorter than the TensorE ramp, which would hide the count.
    const ReplayResult r =
        replay_trace(test::no_ramp(test::shipped_params("mariana")), write_temp("mfu_mx.trc", text));
    const Bottleneck b = analyse(r);
    EXPECT_GT(b.mfu, 3.5);
    EXPECT_LE(b.mfu, 4.0);
    std::ostringstream out;
    print_bottleneck(out, r, b);
    EXPECT_NE(out.str().find("of the bf16 peak"), std::string::npos) << out.str();
}

// hand_matmul() with every load on one queue, the stationary tiles first or last.
std::string one_load_queue(bool stationary_first) {
    std::istringstream in(hand_matmul());
    std::string header, line, stationary, moving, rest;
    std::getline(in, header);
    while (std::getline(in, line)) {
        if (line.rfind("dma queue=qSyncIO0", 0) == 0)
            stationary += line + "\n";
        else if (line.rfind("dma queue=qSyncIO1", 0) == 0)
            moving += "dma queue=qSyncIO0" + line.substr(18) + "\n";
        else
            rest += line + "\n";
    }
    return header + "\n" + (stationary_first ? stationary + moving : moving + stationary) + rest;
}

// Weights loaded after the moving tiles: the LdWeights wait while their matmuls' data is in
// SBUF, which stationary_wait counts and the finding reports. Loaded first: the matmuls wait for
// their moving data, not their weights, and neither figure grows with the load times.
TEST(PeArray, Stationary_wait_counts_only_weights_that_came_after_the_moving_data) {
    const ReplayResult late =
        replay_trace(cayman(), write_temp("cp_stationary_late.trc", one_load_queue(false)));
    const ReplayResult early =
        replay_trace(cayman(), write_temp("cp_stationary_early.trc", one_load_queue(true)));
    // The first matmul's moving tile lands a DMA transfer (1,736 cycles) after the run starts;
    // its weights, loaded last, four transfers and two short ones later.
    EXPECT_GT(late.arr_seq.stationary_wait, 4u * 1736u);
    EXPECT_LT(late.arr_seq.stationary_wait, late.arr_seq.weight_wait + late.total_cycles / 2);
    EXPECT_EQ(early.arr_seq.stationary_wait, 0u);
    // Waiting for an LdWeights to finish is its own load of 128 columns (32 cycles), not a DMA.
    EXPECT_LE(early.arr_seq.weight_wait, 4u * 32u);
    EXPECT_LE(late.arr_seq.weight_wait, 4u * 32u);

    const Bottleneck b = analyse(late);
    const Finding f = finding_with(b, "LdWeights waited");
    EXPECT_EQ(f.cycles, late.arr_seq.stationary_wait);
    EXPECT_NE(f.advice.find("load the stationary tiles earlier"), std::string::npos) << f.advice;
    for (const Finding& g : analyse(early).findings)
        EXPECT_EQ(g.text.find("LdWeights waited"), std::string::npos) << g.text;
}

TEST(CriticalPath, Queue_order_chains_the_instructions_of_one_engine) {
    // Three ACT copies in one queue: each waits for the one before; nothing else runs.
    std::string text = "sbufsim-trace 1 gen=cayman\n";
    for (int i = 0; i < 3; ++i)
        text += "act queue=qAct0 src=bf16@0x0[1][512] dst=bf16@0x30000[1][512] partitions=128 fn=copy\n";
    const ReplayResult r = replay_trace(cayman(), write_temp("cp_queue.trc", text));
    EXPECT_EQ(r.critical_path.queue_edges, 2u);
    const Bottleneck b = analyse(r);
    ASSERT_EQ(b.path.size(), 1u);
    EXPECT_EQ(b.path[0].instructions, 3u);
    const EngineBreakdown& act = b.engines.front();
    EXPECT_EQ(act.name, "act");
    EXPECT_EQ(act.sem_wait, 0u);
    // ACT is never idle between its copies, and the path is ACT's busy time plus its start.
    EXPECT_EQ(b.path[0].cycles[static_cast<std::size_t>(PathCause::compute)] +
                  b.path[0].cycles[static_cast<std::size_t>(PathCause::bank_wait)],
              act.compute + act.bank_wait);
}

// The paths of CriticalPath itself: a chain of segments that every kFlattenDepth-th node sums up
// (letting go of the nodes behind it), so the totals must not depend on where that happens.
struct PathModel {
    CriticalPathStats want;
    explicit PathModel(std::size_t engines) {
        want.cycles.assign(engines, {});
        want.instructions.assign(engines, 0);
    }
    // Extends `at` on engine e by latency 1 and the given compute, bank wait and drain; the new
    // point's edge is `edge`. Returns the point; the caller still holds `at`.
    CriticalPath::Point extend(CriticalPath& cp, const CriticalPath::Point& at, std::uint16_t e,
                               Cycle compute, Cycle bank_wait, Cycle drain, bool instruction,
                               CriticalPath::Edge edge) {
        const Cycle s = at.at + 1, c = s + compute, b = c + bank_wait, t = b + drain;
        const CriticalPath::Ref r = cp.extend(at, e, s, c, b, t, instruction);
        auto& cycles = want.cycles[e];
        cycles[static_cast<std::size_t>(PathCause::latency)] += 1;
        cycles[static_cast<std::size_t>(PathCause::compute)] += compute;
        cycles[static_cast<std::size_t>(PathCause::bank_wait)] += bank_wait;
        cycles[static_cast<std::size_t>(PathCause::drain)] += drain;
        want.instructions[e] += instruction;
        want.semaphore_edges += at.edge == CriticalPath::Edge::semaphore;
        want.queue_edges += at.edge == CriticalPath::Edge::queue;
        return {r, t, edge};
    }
};

TEST(CriticalPath, A_chain_longer_than_the_flatten_depth_keeps_every_segment) {
    CriticalPath cp(3, 4);
    PathModel m(3);
    CriticalPath::Point at;  // the empty path at cycle 0
    for (std::uint32_t i = 0; i < 3 * CriticalPath::kFlattenDepth + 5; ++i) {
        const CriticalPath::Point next =
            m.extend(cp, at, static_cast<std::uint16_t>(i % 3), 2 + i % 5, i % 2, i % 3, i % 4 != 0,
                     i % 2 ? CriticalPath::Edge::semaphore : CriticalPath::Edge::queue);
        cp.release(at.ref);  // held by the new node (or summed up into it) alone
        at = next;
    }
    cp.retired(SyncSet{}, at.ref, at.at);
    cp.release(at.ref);
    m.want.tail = 7;
    const CriticalPathStats got = cp.finish(at.at + 7);
    EXPECT_EQ(got, m.want);
    EXPECT_EQ(got.total(), at.at + 7);
    EXPECT_GT(m.want.semaphore_edges, 0u);
}

TEST(CriticalPath, A_path_stays_whole_when_another_from_the_same_prefix_is_dropped) {
    CriticalPath cp(2, 2);
    PathModel m(2);
    CriticalPath::Point at;
    for (std::uint32_t i = 0; i < CriticalPath::kFlattenDepth + 3; ++i) {
        const CriticalPath::Point next = m.extend(cp, at, 0, 3, i % 2, 0, true, CriticalPath::Edge::queue);
        cp.release(at.ref);
        at = next;
    }
    // Two paths from that prefix: A is dropped, B goes on past another flatten.
    PathModel ignore(2);
    const CriticalPath::Point a = ignore.extend(cp, at, 1, 10, 0, 0, true, CriticalPath::Edge::semaphore);
    CriticalPath::Point b = m.extend(cp, at, 1, 20, 1, 0, true, CriticalPath::Edge::semaphore);
    cp.release(at.ref);
    cp.release(a.ref);
    for (std::uint32_t i = 0; i < CriticalPath::kFlattenDepth + 9; ++i) {
        // An unrelated path on every step reuses the nodes just freed.
        const CriticalPath::Point other =
            ignore.extend(cp, {}, 0, 1000, 0, 0, true, CriticalPath::Edge::queue);
        const CriticalPath::Point next = m.extend(cp, b, static_cast<std::uint16_t>(i % 2), 4, 0, i % 3,
                                                  i % 3 == 0, CriticalPath::Edge::queue);
        cp.release(b.ref);
        cp.release(other.ref);
        b = next;
    }
    cp.retired(SyncSet{}, b.ref, b.at);
    cp.release(b.ref);
    const CriticalPathStats got = cp.finish(b.at);
    EXPECT_EQ(got, m.want);
    EXPECT_EQ(got.total(), b.at);
}

TEST(Bottleneck, Mfu_counts_the_matmul_macs_against_the_array_peak) {
    const ReplayResult r = replay_trace(cayman(), shipped("matmul_kloop.trc"));
    const Bottleneck b = analyse(r);
    // 32 matmuls of 128 rows x 128 columns x 512 moving elements.
    EXPECT_EQ(r.arr_seq.macs, 32ull * 128 * 128 * 512);
    EXPECT_DOUBLE_EQ(b.mfu,
                     static_cast<double>(r.arr_seq.macs) / (static_cast<double>(r.total_cycles) * 128 * 128));
    EXPECT_LE(b.mfu, b.pe_utilisation + 1e-12);  // full 128x128 tiles: MFU = streaming share
    EXPECT_GT(b.sbuf_bank_utilisation, 0.0);
    EXPECT_LE(b.sbuf_bank_utilisation, 1.0);
}

TEST(Bottleneck, Findings_name_the_largest_blocker_with_its_cycles) {
    // One 8-byte word per beat in one burst per request: the reading under which the shipped
    // collide trace's ACT writes meet the moving reads (docs/engines.md, SBUF ports).
    Params p = cayman();
    p.width.engine_bytes = 8;
    p.width.psum_bytes = 8;
    p.width.stream_chunks = 1;
    const ReplayResult r = replay_trace(p, shipped("act_vs_matmul_collide.trc"));
    const Bottleneck b = analyse(r);
    ASSERT_FALSE(b.findings.empty());
    ASSERT_LE(b.findings.size(), Bottleneck::kMaxFindings);
    bool blocker = false;
    for (const Finding& f : b.findings) {
        EXPECT_FALSE(f.advice.empty()) << f.text;
        if (f.text.find("beat-cycles to") != std::string::npos) blocker = true;
    }
    EXPECT_TRUE(blocker);
}

// A client that lost one beat-cycle of a 3,001-cycle run is not a finding (Bottleneck::kMinShare);
// the same loss in a 2-cycle run is.
TEST(Bottleneck, A_blocked_client_is_a_finding_only_when_it_lost_a_share_of_the_run) {
    const std::string clash = "0 act_rd rd 0x0 1 32\n0 pe_client_0 rd 0x0 1 32\n";
    auto blocker_findings = [&](const std::string& name, const std::string& tail) {
        const ReplayResult r =
            replay_trace(cayman(), write_temp(name, "sbufsim-trace 1 gen=cayman\n" + clash + tail));
        std::uint64_t blocked = 0;
        for (const std::uint64_t v : r.kernel.blocked_by) blocked += v;
        EXPECT_EQ(blocked, 1u) << name;
        std::size_t n = 0;
        for (const Finding& f : analyse(r).findings) n += f.text.find("beat-cycles to") != std::string::npos;
        return n;
    };
    EXPECT_EQ(blocker_findings("blocked_long.trc", "3000 act_rd rd 0x0 1 32\n"), 0u);
    EXPECT_EQ(blocker_findings("blocked_short.trc", ""), 1u);
}

// A DMA-bound transfer of 128 partitions: with 512-byte rows every descriptor is shorter than
// dma.pkt_min_ns x dma.engine_gbps (78 ns x 27.2 GB/s = 2121 B on cayman) and the finding says
// so first; with 4 KiB rows none is and the advice is the usual one.
TEST(Bottleneck, Dma_finding_names_descriptors_shorter_than_the_per_descriptor_minimum) {
    auto dma_finding = [](const std::string& name, std::uint32_t row_bytes) {
        // 16 transfers in one queue: their data phases, not the start-up, are the path.
        std::string text = "sbufsim-trace 1 gen=cayman\n";
        for (int i = 0; i < 16; ++i)
            text +=
                "dma queue=qSyncIO0 src=hbm dst=bf16@0x0 partitions=128 bytes=" + std::to_string(row_bytes) +
                "\n";
        const std::string path = write_temp(name, text);
        const ReplayResult r = replay_trace(cayman(), path);
        EXPECT_DOUBLE_EQ(r.dma_full_run_bytes, 78 * 27.2);
        for (const Finding& f : analyse(r).findings)
            if (f.text.rfind("DMA transfers are", 0) == 0) return f;
        ADD_FAILURE() << name << ": no DMA transfer finding";
        return Finding{};
    };
    const Finding short_rows = dma_finding("dma_short_rows.trc", 512);
    EXPECT_NE(short_rows.text.find("100.0 % of their descriptors (contiguous runs) are shorter than 2,121 B"),
              std::string::npos)
        << short_rows.text;
    EXPECT_EQ(short_rows.advice.rfind("lengthen the contiguous run per partition to 2,121 B", 0), 0u)
        << short_rows.advice;
    // Their cost rests on a LOW/INFERRED constant: the advice says so, with the sweep to run.
    EXPECT_NE(short_rows.advice.find("rests on dma.pkt_min_ns = 78 ns, a LOW/INFERRED value"),
              std::string::npos)
        << short_rows.advice;
    EXPECT_NE(short_rows.advice.find("--vary dma.pkt_min_ns=0,39,78"), std::string::npos)
        << short_rows.advice;
    const Finding long_rows = dma_finding("dma_long_rows.trc", 4096);
    EXPECT_EQ(long_rows.text.find("shorter than"), std::string::npos) << long_rows.text;
    // 4 KiB rows on all 16 engines keep the HBM side busy (Dma_finding_measures_hbm_traffic...).
    EXPECT_EQ(long_rows.advice.rfind("the HBM side is busy most of the run", 0), 0u) << long_rows.advice;
}

// The engines' peak (16 x 27.2 = 435 GB/s on cayman) is above the HBM side's 362.5 GB/s
// (dma.hbm_gbps), so loads from HBM are measured against that too; when it is nearly used up, the
// advice is to move fewer bytes, not to spread the loads or start them earlier.
TEST(Bottleneck, Dma_finding_measures_hbm_traffic_against_the_hbm_limit) {
    auto run = [](const std::string& name, const Params& p) {
        // Sixteen loads of 128 partitions x 64 KiB: every engine streams, and HBM is the limit
        // (validate D16).
        std::string text = "sbufsim-trace 1 gen=cayman\n";
        for (int i = 0; i < 16; ++i)
            text += "dma queue=qSyncIO" + std::to_string(i % 4) +
                    " src=hbm dst=bf16@0x0 partitions=128 bytes=65536\n";
        const ReplayResult r = replay_trace(p, write_temp(name, text));
        const Bottleneck b = analyse(r);
        for (const Finding& f : b.findings)
            if (f.text.rfind("DMA transfers are", 0) == 0) return std::make_tuple(r, b, f);
        ADD_FAILURE() << name << ": no DMA transfer finding";
        return std::make_tuple(r, b, Finding{});
    };
    const auto [r, b, f] = run("hbm_bound.trc", cayman());
    EXPECT_EQ(r.hbm_bytes(), r.dma_bytes());
    EXPECT_DOUBLE_EQ(r.hbm_peak_gbps, 362.5);
    EXPECT_DOUBLE_EQ(b.hbm_bandwidth_utilisation, r.hbm_gbps() / 362.5);
    EXPECT_GE(b.hbm_bandwidth_utilisation, 0.8);
    EXPECT_LT(b.dma_bandwidth_utilisation, b.hbm_bandwidth_utilisation);
    EXPECT_NE(
        f.text.find("; the DMA engines move " + format_fixed(100 * b.dma_bandwidth_utilisation, 1) +
                    " % of their peak bandwidth over the run, and the HBM side " +
                    format_fixed(100 * b.hbm_bandwidth_utilisation, 1) + " % of dma.hbm_gbps (362.5 GB/s)"),
        std::string::npos)
        << f.text;
    EXPECT_EQ(f.advice.rfind("the HBM side is busy most of the run", 0), 0u) << f.advice;
    std::ostringstream report;
    print_bottleneck(report, r, b);
    EXPECT_NE(report.str().find("% of 435 GB/s, HBM "), std::string::npos) << report.str();
    // Without an HBM limit (dma.hbm_gbps = 0) the engines are the only ceiling.
    Params unlimited = cayman();
    unlimited.dma.hbm_gbps = 0;
    const auto [ru, bu, fu] = run("hbm_unlimited.trc", unlimited);
    EXPECT_EQ(bu.hbm_bandwidth_utilisation, 0);
    EXPECT_EQ(fu.text.find("HBM"), std::string::npos) << fu.text;
    // One load and nothing else: the path is all DMA, so there is no compute to overlap it with.
    EXPECT_EQ(fu.advice.find("start each load earlier"), std::string::npos) << fu.advice;
    EXPECT_NE(
        fu.advice.find("(the critical path is 100.0 % DMA: loading earlier has no compute on it to overlap)"),
        std::string::npos)
        << fu.advice;
}
// A DMA queue streaming next to ACT's reads on other banks: under strict TDM it goes only in the
// DMA slot (1 of 8), and the finding names it with the cycles it was held and the keys to turn.
// In work-conserving mode nothing holds it: the few beats that lose a bank to the class with
// precedence are the blocker finding's.
TEST(Bottleneck, Tdm_finding_names_the_client_the_slots_held_longest) {
    std::string records;
    for (int i = 0; i < 8; ++i) records += "0 dma_0 wr 0x2000 16 64\n";
    records += "0 act_rd rd 0x0 1 64\n";
    const std::string path = write_temp("tdm_strict.trc", "sbufsim-trace 1 gen=cayman\n" + records);
    auto tdm_findings = [&](bool strict) {
        Params p = cayman();
        p.tdm.strict = strict;
        const ReplayResult r = replay_trace(p, path);
        std::vector<Finding> found;
        for (const Finding& f : analyse(r).findings)
            if (f.text.rfind("TDM held", 0) == 0) found.push_back(f);
        return std::pair{r, found};
    };
    const auto [strict, held] = tdm_findings(true);
    const ClientStats& dma = strict.kernel.clients[index(*ClientSet(cayman()).find("dma_0"))];
    const std::uint64_t stalls = dma.stalls[static_cast<int>(StallCause::tdm)];
    // 128 beats, each waiting out the 7 compute slots of the period but the first.
    EXPECT_GE(stalls, 7u * (dma.beats - 1) - 7);
    ASSERT_EQ(held.size(), 1u);
    EXPECT_EQ(held[0].cycles, stalls);
    EXPECT_EQ(held[0].text.rfind("TDM held dma_0 back ", 0), 0u) << held[0].text;
    EXPECT_NE(held[0].text.find("in the compute class's slots"), std::string::npos) << held[0].text;
    EXPECT_EQ(held[0].advice.rfind("give the DMA class more of the period (raise tdm.dma_slots", 0), 0u);
    const auto [conserving, none] = tdm_findings(false);
    EXPECT_GT(total_stalls(conserving.kernel, StallCause::tdm), 0u);
    EXPECT_TRUE(none.empty());
}

// 72877 -> "72,877", as the findings write counts.
std::string thousands(std::uint64_t v) {
    std::string s = std::to_string(v);
    for (std::size_t i = s.size(); i > 3; i -= 3) s.insert(i - 3, ",");
    return s;
}

// Holds that left the run as long as it was are said to be off the critical path, and the keys
// are not offered as a way to shorten it; each claim is checked against the run without the
// setting. Held on the path (dma_vs_compute's DMA under strict TDM), the advice stays.
TEST(Bottleneck, Tdm_and_throttle_findings_say_when_their_holds_left_the_run_as_long) {
    Params strict = cayman();
    strict.tdm.strict = true;
    strict.tdm.dma_slots = 2;
    Params conserving = strict;
    conserving.tdm.strict = false;
    const ReplayResult kloop = replay_trace(strict, shipped("matmul_kloop.trc"));
    Finding f = finding_with(analyse(kloop), "TDM held");
    // The PE reads it held in the DMA slots waited inside the matmuls' own streaming time.
    EXPECT_EQ(f.text.rfind("TDM held pe_client_0 back ", 0), 0u) << f.text;
    EXPECT_NE(
        f.text.find("; off the critical path: PE waited for no bank on it, so these holds did not lengthen "
                    "the run"),
        std::string::npos)
        << f.text;
    EXPECT_EQ(
        f.advice.rfind("nothing to gain in run time from tdm.*; only to give the compute-class clients their "
                       "bandwidth back, give the compute class more of the period",
                       0),
        0u)
        << f.advice;
    EXPECT_EQ(kloop.total_cycles, replay_trace(conserving, shipped("matmul_kloop.trc")).total_cycles);
    const ReplayResult held = replay_trace(strict, shipped("dma_vs_compute.trc"));
    f = finding_with(analyse(held), "TDM held");
    EXPECT_EQ(f.text.find("off the critical path"), std::string::npos) << f.text;
    EXPECT_EQ(f.advice.rfind("give the DMA class more of the period", 0), 0u) << f.advice;
    // Held on the path: the holds are no bound on the gain, and the advice says how to measure it.
    EXPECT_NE(
        f.advice.find("; the holds are not run time (another split also changes the compute class's pace): "
                      "sbufsim sweep TRACE --set tdm.strict=true --vary tdm.dma_slots=1:7 shows what each "
                      "split costs"),
        std::string::npos)
        << f.advice;
    EXPECT_GT(held.total_cycles, replay_trace(conserving, shipped("dma_vs_compute.trc")).total_cycles);

    // act_rd held to 1 beat per 16-cycle window: its throttler, by key, and off the path.
    Params throttled = cayman();
    throttled.throttler.act_rd.enable = true;
    throttled.throttler.act_rd.transfer_cnt = 1;
    const ReplayResult r = replay_trace(throttled, shipped("dma_vs_compute.trc"));
    f = finding_with(analyse(r), "throttlers held back");
    const std::uint64_t stalls = total_stalls(r.kernel, StallCause::throttle);
    ASSERT_GT(stalls, 0u);
    EXPECT_EQ(f.text,
              "throttlers held back " + thousands(stalls) + " beat-cycles, act_rd's " + thousands(stalls) +
                  " the most; off the critical path: ACT waited for no bank on it, so these holds did not "
                  "lengthen the run");
    EXPECT_EQ(f.advice,
              "nothing to gain in run time from throttler.act_rd.*; the limit costs act_rd only bandwidth "
              "it did not need");
    EXPECT_EQ(r.total_cycles, replay_trace(cayman(), shipped("dma_vs_compute.trc")).total_cycles);
    // Access records have no critical path: the keys to turn, whatever the run paid.
    const std::string path =
        write_temp("throttled.trc", "sbufsim-trace 1 gen=cayman\n0 act_rd rd 0x0 1 2048\n");
    f = finding_with(analyse(replay_trace(throttled, path)), "throttlers held back");
    EXPECT_EQ(f.advice,
              "raise throttler.act_rd.* (transfer_cnt beats per window_len cycles) or set "
              "throttler.act_rd.enable=false if the limit is not wanted");
}

// Under strict TDM a client is held by the gate in the other class's slots (stalls.tdm) and can
// lose banks to its own class too (bank conflicts): the blocker finding splits the beats it lost
// to other clients by what they were counted as, not by the client's whole tdm total. matmul_kloop
// with 7 of 8 slots to DMA: act_wr lost 3,785 beat-cycles to the PE clients (its own class), all
// bank conflicts, beside 28,287 gate stalls.
TEST(Bottleneck, Blocker_finding_counts_tdm_precedence_losses_not_the_strict_gates_stalls) {
    Params p = cayman();
    p.tdm.strict = true;
    p.tdm.dma_slots = 7;
    const ReplayResult r = replay_trace(p, shipped("matmul_kloop.trc"));
    const ClientStats& act_wr = r.kernel.clients[index(*ClientSet(p).find("act_wr"))];
    ASSERT_GT(act_wr.stalls[static_cast<int>(StallCause::tdm)],
              act_wr.stalls[static_cast<int>(StallCause::bank_conflict)]);
    ASSERT_EQ(act_wr.stalls[static_cast<int>(StallCause::bank_conflict)], 3785u);
    const Finding f = finding_with(analyse(r), "beat-cycles to other clients taking its banks");
    EXPECT_EQ(f.text.rfind("act_wr lost 3,785 beat-cycles", 0), 0u) << f.text;
    EXPECT_EQ(f.text.find("TDM precedence"), std::string::npos) << f.text;
}

// ACT on the critical path after its compute (its output writes queued at the banks) is not "ACT
// compute": under strict TDM with 7 of 8 slots to DMA, act_wr's writes lose to the DMA class, and
// the finding names them and the key that relieves them (it does: 203,938 -> 186,082 cycles).
// A PE-bound GEMM whose blocks hold as many accumulation groups as the array allows cannot
// evacuate PSUM under the next group without a smaller block: the advice says so rather than
// promise it; with groups to spare it says to evacuate under accumulation.
TEST(Bottleneck, Pe_advice_says_when_psum_holds_the_most_groups_the_array_allows) {
    GemmOptions full;
    full.block_n = 8;  // 8 groups a block: arr_seq.max_groups
    const ReplayResult r = replay_gemm({2048, 1024, 1024, "g"}, full);
    ASSERT_EQ(r.arr_seq.peak_open_groups, r.psum_max_groups);
    Bottleneck b = analyse(r);
    ASSERT_EQ(b.bound_by, "PE");
    Finding f = finding_with(b, "The PE array computes");
    EXPECT_NE(
        f.advice.find("PSUM is full (8 accumulation groups open at the peak, the array's limit "
                      "arr_seq.max_groups): evacuating while the next group accumulates needs a block of "
                      "fewer groups, which loads more, so compare both"),
        std::string::npos)
        << f.advice;
    const ReplayResult s = replay_gemm({2048, 512, 4096, "g"}, GemmOptions{});  // 4 groups a block
    ASSERT_LT(s.arr_seq.peak_open_groups, s.psum_max_groups);
    b = analyse(s);
    ASSERT_EQ(b.bound_by, "PE");
    f = finding_with(b, "The PE array computes");
    EXPECT_NE(f.advice.find("evacuate PSUM while the next group accumulates"), std::string::npos) << f.advice;
    EXPECT_EQ(f.advice.find("PSUM is full"), std::string::npos) << f.advice;
}

TEST(Bottleneck, Act_drain_names_its_queued_writes_not_its_compute) {
    Params p = cayman();
    p.tdm.strict = true;
    p.tdm.dma_slots = 7;
    const ReplayResult r = replay_trace(p, shipped("transformer_layer_head.trc"));
    const Bottleneck b = analyse(r);
    const Finding* drain = nullptr;
    for (const Finding& f : b.findings) {
        EXPECT_EQ(f.text.rfind("ACT compute is", 0), std::string::npos) << f.text;
        if (f.text.rfind("ACT output writes and turnaround after its compute are ", 0) == 0) drain = &f;
    }
    ASSERT_NE(drain, nullptr);
    const ClientStats& wr = r.kernel.clients[index(*ClientSet(p).find("act_wr"))];
    const std::uint64_t tdm = wr.stalls[static_cast<int>(StallCause::tdm)];
    EXPECT_GT(tdm, wr.stalls[static_cast<int>(StallCause::bank_conflict)]);
    EXPECT_NE(drain->text.find("act_wr lost " + thousands(tdm) + " beat-cycles to TDM"), std::string::npos)
        << drain->text;
    EXPECT_EQ(drain->advice.rfind("raise arbiter.stage2.act_wr.prio", 0), 0u) << drain->advice;
    EXPECT_NE(drain->advice.find("lower tdm.dma_slots"), std::string::npos) << drain->advice;
    p.arbiter.act_wr.prio = 1;
    EXPECT_LT(replay_trace(p, shipped("transformer_layer_head.trc")).total_cycles, r.total_cycles);
}

// A trace of access records only. When one client has work nearly all the run (its beats plus its
// stalled cycles), the finding names it and says to spread its accesses; when every client is
// idle most of the run, it says the records' cycles set the length instead.
TEST(Bottleneck, Access_only_finding_names_the_client_with_the_most_work_or_the_records_cycles) {
    auto first_finding = [](const std::string& name, const std::string& records) {
        const ReplayResult r =
            replay_trace(cayman(), write_temp(name, "sbufsim-trace 1 gen=cayman\n" + records));
        const Bottleneck b = analyse(r);
        EXPECT_FALSE(b.findings.empty()) << name;
        return std::pair{r, b.findings.empty() ? Finding{} : b.findings.front()};
    };
    // dma_0 moves one partition per beat: 4 x 16 partitions x 64 B is 64 beats back to back.
    std::string busy;
    for (int i = 0; i < 4; ++i) busy += "0 dma_0 wr 0x2000 16 64\n";
    busy += "0 act_rd rd 0x0 1 64\n";
    const auto [rb, fb] = first_finding("access_only_busy.trc", busy);
    std::uint64_t dma_beats = 0;
    for (const ClientStats& c : rb.kernel.clients)
        if (c.name == "dma_0") dma_beats = c.beats;
    ASSERT_GT(dma_beats, 0u);
    EXPECT_EQ(fb.text.rfind("The trace has only access records, and dma_0 has work", 0), 0u) << fb.text;
    EXPECT_NE(fb.text.find(std::to_string(dma_beats) + " beats"), std::string::npos) << fb.text;
    EXPECT_EQ(fb.advice.rfind("split dma_0's accesses", 0), 0u) << fb.advice;
    // Two one-beat reads 2,000 cycles apart: the clients have work 2 cycles of the run.
    const auto [rs, fs] =
        first_finding("access_only_sparse.trc", "0 act_rd rd 0x0 1 32\n2000 pe_client_0 rd 0x0 1 32\n");
    EXPECT_GE(rs.total_cycles, 2000u);
    EXPECT_EQ(fs.advice, "the records' issue cycles, not the banks, set the run's length") << fs.text;
}

}  // namespace
}  // namespace sbufsim

namespace sbufsim {
namespace {

ReplayResult replay_attention(const AttentionShape& shape) {
    std::ostringstream out;
    TraceWriter w(out, TraceFormat::text, TraceHeader{1, "cayman"});
    TraceWriterSink sink(w);
    generate_attention(cayman(), shape, GemmOptions{}, sink);
    w.finish();
    return replay_trace(cayman(), write_temp("bottleneck_attention.trc", out.str()));
}

// One head of 512 x 128: DMA, DVE and ACT hand the path to each other at semaphores and none
// holds half of it (DMA 40 %, DVE 38 %, ACT 20 %): the run is their sum, and the verdict says
// so rather than "bound by DMA", with what overlapping them could give back.
TEST(Verdict, Engines_that_take_turns_on_the_path_are_serial_not_bound_by_the_largest) {
    const ReplayResult r = replay_attention({512, 1, 128});
    const Bottleneck b = analyse(r);
    ASSERT_LT(b.bound_share, 0.5);
    ASSERT_GE(r.critical_path.semaphore_edges, 4u);
    EXPECT_EQ(b.verdict.rfind("serial, not overlapped: DMA ", 0), 0u) << b.verdict;
    EXPECT_EQ(b.bound_by, "DMA");  // the JSON's bound_by still names the largest group
    ASSERT_FALSE(b.findings.empty());
    EXPECT_NE(b.findings.front().text.find("of the critical path take turns"), std::string::npos)
        << b.findings.front().text;
    EXPECT_NE(b.findings.front().advice.find("overlapped fully, the run approaches its largest part, DMA's"),
              std::string::npos)
        << b.findings.front().advice;
    // A group that holds most of the path keeps its verdict.
    const Bottleneck gemm = analyse(replay_gemm({1024, 1024, 4096, "g"}, GemmOptions{}));
    EXPECT_EQ(gemm.verdict.rfind("bound by PE: ", 0), 0u) << gemm.verdict;
}

// DMA start-up latency second to the transfers on the path is a finding of its own.
TEST(Verdict, Dma_start_up_latency_under_the_transfers_has_a_finding) {
    const Bottleneck b = analyse(replay_trace(cayman(), shipped("dma_load.trc")));
    ASSERT_EQ(b.bound_by, "DMA");  // compute 88.3 %, latency 11.7 %
    const Finding f = finding_with(b, "DMA start-up latency is ");
    EXPECT_NE(f.text.find("(11.7 %) of the critical path, 1 transfer on it"), std::string::npos) << f.text;
    EXPECT_NE(f.advice.find("fewer, larger descriptors"), std::string::npos) << f.advice;
}

// A PE-bound run whose path is a tenth DMA or more is not called compute-bound: its matmuls
// wait for loads (at 4 buffers, 13.5 % of the path). One with little DMA on its path is.
TEST(Verdict, No_compute_bound_while_much_of_the_path_is_dma) {
    GemmOptions few;
    few.bufs = 4;
    const ReplayResult r = replay_gemm({1024, 1024, 4096, "g"}, few);
    Bottleneck b = analyse(r);
    double dma = 0;
    for (const PathGroup& g : b.path)
        if (g.name == "DMA") dma = static_cast<double>(g.total()) / static_cast<double>(b.total);
    ASSERT_EQ(b.bound_by, "PE") << b.verdict;
    ASSERT_GE(dma, 0.10);
    Finding f = finding_with(b, "The PE array computes");
    EXPECT_EQ(f.text.find("compute-bound ("), std::string::npos) << f.text;
    EXPECT_NE(f.text.find("not compute-bound while the matmuls wait for loads"), std::string::npos) << f.text;
    b = analyse(replay_trace(cayman(), shipped("matmul_kloop.trc")));
    f = finding_with(b, "The PE array computes");
    EXPECT_NE(f.text.find(": compute-bound (MFU 82.9 %)"), std::string::npos) << f.text;
}

}  // namespace
}  // namespace sbufsim
