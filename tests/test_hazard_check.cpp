// The race check (include/sbufsim/trace/hazard_check.h, run by SyncCheck): two instructions of
// different units touching the same on-chip bytes, one writing, with no program order or
// semaphore wait between them, are named by line, operand, place and kind; ordered, disjoint and
// same-unit accesses are clean.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "sbufsim/trace/sync_check.h"
#include "shipped.h"

namespace sbufsim {
namespace {

using test::cayman;

std::vector<TraceError> races(const std::string& body) {
    std::istringstream in("sbufsim-trace 1 gen=cayman\n" + body);
    TraceReader r(in, "t.trc");
    SyncCheck c(cayman(), "t.trc");
    Record rec;
    std::vector<TraceError> out;
    while (r.next(rec)) c.add(rec, out);
    c.finish(out);
    return out;
}

bool has(const TraceError& e, const std::string& part) {
    return e.to_string().find(part) != std::string::npos;
}

// Line 2 of every body is its first record.
const std::string kLoadA = "dma queue=qLoad src=hbm dst=bf16@0x0[1][512] partitions=128 bytes=1024 ";
const std::string kLoadB = "dma queue=qLoad src=hbm dst=bf16@0x400[1][512] partitions=128 bytes=1024 ";
const std::string kMatmulA =
    "matmul queue=qPE0 src=bf16@0x0[1][512] dst=fp32@0x2000000[1][512] num_active_rows=128 "
    "num_active_cols=128 ";
const std::string kActPsum =
    "act queue=qAct0 src=fp32@0x2000000[1][512] dst=bf16@0x20000[1][512] partitions=128 ";

TEST(HazardCheck, A_read_of_psum_no_wait_orders_after_its_matmul_is_a_race) {
    // The audit's trace: ACT evacuates the PSUM bank the matmul writes, with no wait.
    const auto e = races(kMatmulA + "signal=1\n" + kActPsum + "\n");
    ASSERT_EQ(e.size(), 1u);
    EXPECT_EQ(e[0].line, 3u);
    EXPECT_EQ(e[0].field, "src");
    EXPECT_TRUE(has(e[0], "ACT line 3 reads PSUM partition 0 bytes 0x0-0x7ff, which PE array line 2 writes"))
        << e[0].to_string();
    EXPECT_TRUE(has(e[0], "(read after write)"));
    EXPECT_TRUE(has(e[0], "make line 3 wait for a signal PE array sends at or after line 2"));
    // The wait the trace meant.
    EXPECT_TRUE(races(kMatmulA + "signal=1\n" + kActPsum + "wait=1\n").empty());
}

TEST(HazardCheck, Reloading_a_buffer_before_its_reader_is_done_is_a_write_after_read) {
    // Single buffering without the release: the second load lands on the tile the matmul reads.
    const std::string body = kLoadA + "signal=1\n" + kMatmulA + "wait=1 signal=2\n" + kLoadA + "signal=1\n";
    const auto e = races(body);
    ASSERT_EQ(e.size(), 1u);
    EXPECT_EQ(e[0].line, 4u);
    EXPECT_EQ(e[0].field, "dst");
    EXPECT_TRUE(has(
        e[0], "DMA queue qLoad line 4 writes SBUF partition 0 bytes 0x0-0x3ff, which PE array line 3 reads"))
        << e[0].to_string();
    EXPECT_TRUE(has(e[0], "(write after read)"));
    // Waiting for the matmul's signal releases the buffer; loading the other buffer needs nothing.
    EXPECT_TRUE(
        races(kLoadA + "signal=1\n" + kMatmulA + "wait=1 signal=2\n" + kLoadA + "wait=2 signal=1\n").empty());
    EXPECT_TRUE(
        races(kLoadA + "signal=1\n" + kMatmulA + "wait=1 signal=2\n" + kLoadB + "signal=1\n").empty());
}

TEST(HazardCheck, Two_queues_writing_one_tile_unordered_is_a_write_after_write) {
    const std::string other = "dma queue=qOther src=hbm dst=bf16@0x200[1][64] partitions=4 bytes=128\n";
    const auto e = races(kLoadA + "\n" + other);
    ASSERT_EQ(e.size(), 1u);
    EXPECT_TRUE(
        has(e[0],
            "DMA queue qOther line 3 writes SBUF partition 0 bytes 0x200-0x27f, which DMA queue qLoad "
            "line 2 writes too"))
        << e[0].to_string();
    EXPECT_TRUE(has(e[0], "(write after write)"));
}

TEST(HazardCheck, Disjoint_partitions_bytes_and_interleaved_elements_are_clean) {
    // Partitions 0-63 and 64-127 of the same bytes.
    EXPECT_TRUE(races("dma queue=q1 src=hbm dst=bf16@0x0 partitions=64 bytes=256\n"
                      "dma queue=q2 src=hbm dst=bf16@0x1000000 partitions=64 bytes=256\n")
                    .empty());
    // The same partitions, bytes [0, 256) and [256, 512).
    EXPECT_TRUE(races("dma queue=q1 src=hbm dst=bf16@0x0 partitions=64 bytes=256\n"
                      "dma queue=q2 src=hbm dst=bf16@0x100 partitions=64 bytes=256\n")
                    .empty());
    // Even and odd elements of one row: the patterns interleave but never meet.
    const std::string even = "act queue=qAct0 src=bf16@0x4000[1][64] dst=bf16@0x0[2][64] partitions=8\n";
    const std::string odd = "dve queue=qDve0 src=bf16@0x4000[1][64] dst=bf16@0x2[2][64] partitions=8\n";
    EXPECT_TRUE(races(even + odd).empty());
    // A contiguous row over the odd elements meets the even ones.
    EXPECT_EQ(
        races(even + "dve queue=qDve0 src=bf16@0x4000[1][64] dst=bf16@0x2[1][64] partitions=8\n").size(), 1u);
}

TEST(HazardCheck, Each_partition_keeps_its_own_writers) {
    // Partitions 0-63 loaded and signalled, 64-127 loaded by a queue nobody waits for: ACT's read
    // of all 128 is ordered after the first load only, and the finding is at partition 64.
    const std::string low = "dma queue=qLow src=hbm dst=bf16@0x0[1][512] partitions=64 bytes=1024 signal=1\n";
    const std::string high = "dma queue=qHigh src=hbm dst=bf16@0x1000000[1][512] partitions=64 bytes=1024\n";
    const std::string act =
        "act queue=qAct0 src=bf16@0x0[1][512] dst=bf16@0x20000[1][512] partitions=128 wait=1\n";
    const auto e = races(low + high + act);
    ASSERT_EQ(e.size(), 1u);
    EXPECT_TRUE(
        has(e[0], "ACT line 4 reads SBUF partition 64 bytes 0x0-0x3ff, which DMA queue qHigh line 3 writes"))
        << e[0].to_string();
    // A later read of partitions 32-63 alone is ordered; one of 96-127 is not.
    const std::string dve =
        "dve queue=qDve0 src=bf16@0x800000[1][512] dst=bf16@0x30000[1][512] partitions=32 wait=1\n";
    EXPECT_TRUE(races(low + high + dve).empty());
    const std::string dve_high =
        "dve queue=qDve0 src=bf16@0x1800000[1][512] dst=bf16@0x30000[1][512] partitions=32 wait=1\n";
    EXPECT_EQ(races(low + high + dve_high).size(), 1u);
}

TEST(HazardCheck, One_unit_is_in_program_order) {
    // ACT writes then reads its own tile; the PE array accumulates into one bank.
    EXPECT_TRUE(races(kActPsum + "\n" +
                      "act queue=qAct0 src=bf16@0x20000[1][512] dst=bf16@0x0[1][512] partitions=128\n")
                    .empty());
    EXPECT_TRUE(races(kMatmulA + "acc_flags=begin\n" + kMatmulA + "acc_flags=end\n").empty());
}

TEST(HazardCheck, Orders_through_program_order_and_a_third_queue) {
    // The load's own queue signals after it; DVE passes the order on to ACT.
    const std::string load = "dma queue=qLoad src=hbm dst=fp32@0x2000000[1][512] partitions=128 bytes=2048\n";
    // On every DMA engine the load uses (a transfer on fewer could complete first: below).
    const std::string later = "dma queue=qLoad src=hbm dst=bf16@0x8000 partitions=128 bytes=64 signal=1\n";
    const std::string relay =
        "dve queue=qDve0 src=bf16@0x8000[1][32] dst=bf16@0x9000[1][32] partitions=1 wait=1 signal=2\n";
    EXPECT_TRUE(races(load + later + relay + kActPsum + "wait=2\n").empty());
    // A later transfer on one engine only does not say the load's other 15 engines are done.
    const std::string narrow = "dma queue=qLoad src=hbm dst=bf16@0x8000 partitions=1 bytes=64 signal=1\n";
    EXPECT_EQ(races(load + narrow + relay + kActPsum + "wait=2\n").size(), 1u);
    // Without the relay's wait, nothing orders the load before ACT.
    const auto e = races(load + later + kActPsum + "\n");
    ASSERT_EQ(e.size(), 1u);
    EXPECT_TRUE(has(e[0], "which DMA queue qLoad line 2 writes"));
}

TEST(HazardCheck, A_wait_orders_only_the_signals_its_value_counts) {
    // Two loads on one queue signal 1 in turn; waiting for S >= 1 orders only the first.
    const std::string body =
        kLoadA + "signal=1\n" + kLoadB + "signal=1\n" +
        "act queue=qAct0 src=bf16@0x400[1][512] dst=bf16@0x20000[1][512] partitions=128 ";
    const auto e = races(body + "wait=1:1\n");
    ASSERT_EQ(e.size(), 1u);
    EXPECT_TRUE(has(e[0], "which DMA queue qLoad line 3 writes"));
    EXPECT_TRUE(races(body + "wait=1:2\n").empty());
    // Plain waits count: the second plain wait=1 of a queue is S >= 2.
    const std::string act_a =
        "act queue=qAct0 src=bf16@0x0[1][512] dst=bf16@0x20000[1][512] partitions=128 wait=1\n";
    const std::string act_b =
        "act queue=qAct0 src=bf16@0x400[1][512] dst=bf16@0x30000[1][512] partitions=128 wait=1\n";
    EXPECT_TRUE(races(kLoadA + "signal=1\n" + kLoadB + "signal=1\n" + act_a + act_b).empty());
}

TEST(HazardCheck, A_race_is_said_once_per_operand_and_instruction) {
    // 128 partitions, each overlapping: one finding, at the first partition.
    const auto e = races(kMatmulA + "\n" + kActPsum + "\n");
    EXPECT_EQ(e.size(), 1u);
    // Two earlier writers of what ACT reads: two findings.
    EXPECT_EQ(
        races(kMatmulA + "\n" +
              "dma queue=qB src=hbm dst=fp32@0x2000400[1][256] partitions=128 bytes=1024\n" + kActPsum + "\n")
            .size(),
        3u);  // qB after the matmul (write after write), then ACT against both
}

TEST(HazardCheck, One_finding_per_other_queue_names_its_latest_instruction) {
    // Eight loads of 64 B each on one queue, then ACT reads all 512 B with no wait: one finding,
    // at line 9, whose wait orders the seven before it too.
    std::string body;
    for (int i = 0; i < 8; ++i)
        body += "dma queue=qLoad src=hbm dst=bf16@0x" + std::string(1, "01234567"[i]) +
                "0[1][32] partitions=4 bytes=64\n";
    // 0x00, 0x10, ... 0x70: 16 bytes apart, so each load overlaps the next; the read covers all.
    const auto e =
        races(body + "act queue=qAct0 src=bf16@0x0[1][256] dst=bf16@0x10000[1][256] partitions=4\n");
    ASSERT_EQ(e.size(), 1u);
    EXPECT_TRUE(has(e[0], "which DMA queue qLoad line 9 writes")) << e[0].to_string();
    EXPECT_TRUE(has(e[0], "make line 10 wait for a signal DMA queue qLoad sends at or after line 9"));
}

TEST(HazardCheck, The_finding_offers_both_orders_and_says_when_an_extent_stood_for_a_pattern) {
    const auto e = races(kMatmulA + "signal=1\n" + kActPsum + "\n");
    ASSERT_EQ(e.size(), 1u);
    EXPECT_TRUE(
        has(e[0],
            "; order them: make line 3 wait for a signal PE array sends at or after line 2, or line 2 "
            "for one ACT sends at or after line 3"))
        << e[0].to_string();
    EXPECT_FALSE(has(e[0], "approximately"));
    // Every other element of 4,097: more runs than kept, so each pattern stands as its extent and
    // the two interleaved ones seem to meet.
    const auto a = races(
        "dma queue=q1 src=hbm dst=bf16@0x0[2][4097] partitions=32 bytes=8194\n"
        "act queue=qAct0 src=bf16@0x2[2][4097] dst=bf16@0x10000[1][4097] partitions=32\n");
    ASSERT_EQ(a.size(), 1u);
    EXPECT_TRUE(has(a[0],
                    "(approximately: an access pattern of more than 4,096 runs per partition is taken as its "
                    "whole extent)"))
        << a[0].to_string();
    // 4,096 runs are kept exactly: no finding.
    EXPECT_TRUE(races("dma queue=q1 src=hbm dst=bf16@0x0[2][4096] partitions=32 bytes=8192\n"
                      "act queue=qAct0 src=bf16@0x2[2][4096] dst=bf16@0x10000[1][4096] partitions=32\n")
                    .empty());
}

TEST(HazardCheck, A_transposing_dma_writes_its_source_rows_as_partitions) {
    // 16 rows of 64 bf16 columns land in partitions 0-63, 32 bytes each.
    const std::string t = "dma queue=qT src=hbm dst=bf16@0x0 partitions=16 bytes=128 transpose=1\n";
    const auto read = [](const std::string& at) {
        return "dve queue=qDve0 src=bf16@" + at + "[1][16] dst=bf16@0x8000[1][16] partitions=1\n";
    };
    EXPECT_EQ(races(t + read("0x800000")).size(), 1u);  // partition 32, bytes 0-31
    EXPECT_TRUE(races(t + read("0x1000000")).empty());  // partition 64
    EXPECT_TRUE(races(t + read("0x20")).empty());       // partition 0, bytes 32-63
}

TEST(HazardCheck, Q7_cores_read_and_write_their_operand) {
    const std::string wr = "q7 queue=qPool0 core=0 op=wr operand=bf16@0x800[1][64] partitions=16\n";
    const std::string rd = "q7 queue=qPool0 core=0 op=rd operand=bf16@0x800[1][64] partitions=16\n";
    EXPECT_EQ(races(wr + "act queue=qAct0 src=bf16@0x800[1][64] dst=bf16@0x0[1][64] partitions=16\n").size(),
              1u);
    EXPECT_TRUE(
        races(rd + "act queue=qAct0 src=bf16@0x800[1][64] dst=bf16@0x0[1][64] partitions=16\n").empty());
}

TEST(HazardCheck, A_record_the_checker_refused_takes_no_part_in_races) {
    // Its operands are not what a replay moves (run --lenient skips it), but its signals count.
    std::istringstream in("sbufsim-trace 1 gen=cayman\n" + kMatmulA + "signal=1\n" + kActPsum + "\n" +
                          kActPsum + "wait=1\n");
    TraceReader r(in, "t.trc");
    SyncCheck c(cayman(), "t.trc");
    Record rec;
    std::vector<TraceError> out;
    for (int i = 0; r.next(rec); ++i) c.add(rec, out, /*valid=*/i != 1);
    EXPECT_TRUE(out.empty()) << out[0].to_string();
    EXPECT_EQ(c.finish(out), 0u);
}

TEST(HazardCheck, Every_shipped_trace_is_race_free) {
    for (const char* t : {"act_vs_matmul_collide.trc", "act_vs_matmul_disjoint.trc", "dma_load.trc",
                          "dma_transpose.trc", "dma_vs_compute.trc", "matmul_kloop.trc", "q7_gpsimd.trc",
                          "resnet50_head.trc", "transformer_layer_head.trc", "access_mix.trc"}) {
        TraceReader r(test::shipped(t));
        SyncCheck c(cayman(), t);
        Record rec;
        std::vector<TraceError> out;
        while (r.next(rec)) c.add(rec, out);
        c.finish(out);
        EXPECT_TRUE(out.empty()) << t << ": " << (out.empty() ? "" : out[0].to_string());
    }
}

// Completion order (completion_order.h): a unit's later instruction that can complete before an
// earlier one does not order the earlier one by its signal, and a count it can reach first orders
// nothing after the earlier one. One case per way the replay completes out of program order.
const std::string kLdw0 = "ldweights queue=qPE0 src=bf16@0x4000[1][128] rows=128 cols=128 ";
const std::string kLdw1 = "ldweights queue=qPE0 src=bf16@0x8000[1][128] rows=128 cols=128 ";
const std::string kMatmulBig =
    "matmul queue=qPE0 src=bf16@0x0[1][512] dst=fp32@0x2000000[1][512] num_active_rows=128 "
    "num_active_cols=128 ";

TEST(CompletionOrder, An_ldweights_after_the_matmul_a_wait_counts_on_can_meet_it_first) {
    // The tracer's pattern: every PE record signals semaphore 1; ACT waits for the matmul, the
    // 2nd signal. The next ldweights, read after the wait, can complete before the matmul.
    const auto e = races(kLdw0 + "signal=1\n" + kMatmulBig + "signal=1\n" + kActPsum + "wait=1:2\n" + kLdw1 +
                         "signal=1\n");
    ASSERT_EQ(e.size(), 1u);
    EXPECT_EQ(e[0].line, 4u);
    EXPECT_EQ(e[0].field, "wait");
    for (const char* part : {"ACT line 4 waits for semaphore 1 >= 2", "PE array line 3 signals toward",
                             "PE array line 5 signals 1 too and can complete first",
                             "an ldweights loads its weights in the background of the matmuls before it",
                             "completion order, docs/trace-format.md"})
        EXPECT_TRUE(has(e[0], part)) << part << "\n" << e[0].to_string();
    // Read before the wait: the wait's clock leaves the matmul out, and ACT's read of its PSUM
    // is a race.
    const auto early = races(kLdw0 + "signal=1\n" + kMatmulBig + "signal=1\n" + kLdw1 + "signal=1\n" +
                             kActPsum + "wait=1:2\n");
    ASSERT_EQ(early.size(), 1u);
    EXPECT_TRUE(has(early[0], "ACT line 5 reads PSUM partition 0")) << early[0].to_string();
    EXPECT_TRUE(has(early[0], "which PE array line 3 writes"));
    // Count 3 cannot be met without the matmul: clean, in either file order.
    EXPECT_TRUE(races(kLdw0 + "signal=1\n" + kMatmulBig + "signal=1\n" + kLdw1 + "signal=1\n" + kActPsum +
                      "wait=1:3\n")
                    .empty());
    // The ldweights on a semaphore of their own: the matmuls' count means what it says.
    EXPECT_TRUE(races(kLdw0 + "signal=2\n" + kMatmulBig + "signal=1\n" + kActPsum + "wait=1:1\n" + kLdw1 +
                      "signal=2\n")
                    .empty());
    // A matmul after the ldweights waits for it (same blocks): its signal says the ldweights is done.
    EXPECT_TRUE(races(kLdw0 + "signal=1\n" + kMatmulBig + "signal=1\n" +
                      "dma queue=qLoad src=hbm dst=bf16@0x4000[1][128] partitions=128 bytes=256 wait=1:2\n")
                    .empty());
}

TEST(CompletionOrder, Matmuls_on_disjoint_tiles_complete_in_either_order) {
    const std::string tile0 =
        "matmul queue=qPE0 src=bf16@0x0[1][512] dst=fp32@0x2000000[1][512] num_active_rows=32 "
        "num_active_cols=32 "
        "tile_position=0,0 tile_size=32,32 ";
    const std::string tile1 =
        "matmul queue=qPE0 src=bf16@0x400[1][512] dst=fp32@0x2000800[1][512] num_active_rows=32 "
        "num_active_cols=32 "
        "tile_position=32,32 tile_size=32,32 ";
    const std::string same =
        "matmul queue=qPE0 src=bf16@0x400[1][512] dst=fp32@0x2000800[1][512] num_active_rows=32 "
        "num_active_cols=32 "
        "tile_position=0,0 tile_size=32,32 ";
    const std::string act =
        "act queue=qAct0 src=fp32@0x2000000[1][512] dst=bf16@0x20000[1][512] partitions=32 ";
    // ACT waits for the first matmul's count; the second, on other PE blocks, can reach it first.
    const auto e = races(tile0 + "signal=1\n" + tile1 + "signal=1\n" + act + "wait=1:1\n");
    ASSERT_EQ(e.size(), 1u) << e[0].to_string();
    EXPECT_TRUE(has(e[0], "ACT line 4 reads PSUM partition 0")) << e[0].to_string();
    const auto late = races(tile0 + "signal=1\n" + act + "wait=1:1\n" + tile1 + "signal=1\n");
    ASSERT_EQ(late.size(), 1u);
    EXPECT_EQ(late[0].field, "wait");
    EXPECT_TRUE(has(late[0], "matmuls on disjoint PE tiles stream side by side")) << late[0].to_string();
    // On the same blocks the second starts after the first's release: in order.
    EXPECT_TRUE(races(tile0 + "signal=1\n" + same + "signal=1\n" + act + "wait=1:1\n").empty());
    // The second's count orders both (two signals: both matmuls done).
    EXPECT_TRUE(races(tile0 + "signal=1\n" + tile1 + "signal=1\n" + act + "wait=1:2\n").empty());
}

TEST(CompletionOrder, A_dma_queues_transfers_on_other_engines_complete_in_either_order) {
    // Partitions 0-63 run on DMA engines 0-7, 64-127 on 8-15 (8 partitions per engine).
    const std::string low =
        "dma queue=qLoad src=hbm dst=bf16@0x0[1][512] partitions=64 bytes=1024 signal=1\n";
    const std::string high =
        "dma queue=qLoad src=hbm dst=bf16@0x1000000[1][512] partitions=64 bytes=1024 signal=1\n";
    const std::string all =
        "dma queue=qLoad src=hbm dst=bf16@0x1000[1][512] partitions=128 bytes=1024 signal=1\n";
    const std::string dve =
        "dve queue=qDve0 src=bf16@0x0[1][512] dst=bf16@0x2000[1][512] partitions=64 wait=1:1\n";
    const auto e = races(low + high + dve);
    ASSERT_EQ(e.size(), 1u);
    EXPECT_TRUE(
        has(e[0], "DVE line 4 reads SBUF partition 0 bytes 0x0-0x3ff, which DMA queue qLoad line 2 writes"))
        << e[0].to_string();
    const auto late = races(low + dve + high);
    ASSERT_EQ(late.size(), 1u);
    EXPECT_EQ(late[0].field, "wait");
    EXPECT_TRUE(has(late[0], "in order on each DMA engine only")) << late[0].to_string();
    // A later transfer on every engine of the earlier one ends after it.
    EXPECT_TRUE(races(low + all + dve).empty());
}

TEST(CompletionOrder, A_compute_instruction_writing_the_other_memory_can_signal_first) {
    const std::string to_sbuf =
        "act queue=qAct0 src=bf16@0x0[1][512] dst=bf16@0x8000[1][512] partitions=128 signal=1\n";
    const std::string to_psum =
        "act queue=qAct0 src=bf16@0x0[1][512] dst=fp32@0x2000000[1][512] partitions=128 signal=1\n";
    const std::string to_sbuf2 =
        "act queue=qAct0 src=bf16@0x0[1][512] dst=bf16@0xc000[1][512] partitions=128 signal=1\n";
    const std::string dve =
        "dve queue=qDve0 src=bf16@0x8000[1][512] dst=bf16@0x10000[1][512] partitions=128 wait=1:1\n";
    // Its signal waits for its own writes only; PSUM's drain can overtake SBUF's.
    const auto e = races(to_sbuf + to_psum + dve);
    ASSERT_EQ(e.size(), 1u);
    EXPECT_TRUE(has(e[0], "DVE line 4 reads SBUF partition 0")) << e[0].to_string();
    EXPECT_TRUE(races(to_sbuf + to_sbuf2 + dve).empty());
}

}  // namespace
}  // namespace sbufsim
