// TraceChecker: each hardware rule a trace record can break, named after the rule, with the
// field and seed section in the message.
#include <gtest/gtest.h>

#include <sstream>

#include "sbufsim/trace/sync_check.h"
#include "sbufsim/trace/trace.h"
#include "sbufsim/trace/trace_check.h"
#include "shipped.h"

using namespace sbufsim;

namespace {

// All findings of a trace body (header added) checked against `gen`.
std::vector<TraceError> check(const std::string& body, const std::string& gen = "cayman") {
    std::istringstream in("sbufsim-trace 1\n" + body);
    TraceReader r(in, "t.trc");
    TraceChecker c(test::shipped_params(gen), "t.trc");
    std::vector<TraceError> out;
    c.check_header(r.header(), out);
    Record rec;
    while (r.next(rec)) c.check(rec, out);
    c.finish(out);
    return out;
}

// Exactly one finding, on `field`, whose text contains `part`.
void expect_one(const std::string& body, const std::string& field, const std::string& part,
                const std::string& gen = "cayman") {
    const auto errs = check(body, gen);
    ASSERT_EQ(errs.size(), 1u) << body << (errs.empty() ? "" : "\nfirst: " + errs[0].to_string());
    EXPECT_EQ(errs[0].field, field) << errs[0].to_string();
    EXPECT_NE(errs[0].to_string().find(part), std::string::npos) << errs[0].to_string();
    EXPECT_EQ(errs[0].to_string().rfind("t.trc:2: " + field + ": ", 0), 0u) << errs[0].to_string();
}

void expect_clean(const std::string& body, const std::string& gen = "cayman") {
    const auto errs = check(body, gen);
    EXPECT_TRUE(errs.empty()) << body << "\n" << (errs.empty() ? "" : errs[0].to_string());
}

const std::string kMatmulOk =
    "matmul queue=qPE0 src=bf16@0x0[1][512] dst=fp32@0x2000000[1][512] num_active_rows=128 num_active_cols=128 "
    "row_grp=0xf col_grp=0xf xbus_sel=0x10 acc_flags=begin";

}  // namespace

TEST(TraceCheck, A_valid_trace_of_every_kind_is_clean) {
    expect_clean("0 pe_client_0 rd 0x5600 32 512\n"
                 "1 pe_wr wr 0x2000000 32 64\n"
                 "dma queue=qSyncIO0 src=hbm dst=bf16@0x0 partitions=128 bytes=4096 signal=1\n"
                 "ldweights queue=qPE0 src=bf16@0x0[1][128] rows=128 cols=128 wait=1\n" +
                 kMatmulOk + " signal=2\n"
                 "act queue=qAct0 src=fp32@0x2000000[1][512] dst=bf16@0x1000[1][512] partitions=128 fn=exp wait=2\n"
                 "dve queue=qDve0 src=bf16@0x1000[1][64] src2=bf16@0x2000[1][64] dst=bf16@0x3000[1][64] partitions=32\n"
                 "q7 queue=qPool0 core=2 op=rd operand=bf16@0x800000[1][64] partitions=16\n");
}

TEST(TraceCheck, An_access_cycle_past_2_to_the_62_is_refused) {
    // Near 2^64 a run's cycle count wrapped: a total below the record's own cycle, or a false
    // deadlock.
    expect_one("18446744073709551614 act_rd rd 0x0 1 64\n", "cycle",
               "is past 4611686018427387904, the last cycle a run can count to (2^62)");
    expect_clean("4611686018427387904 act_rd rd 0x0 1 64\n");
}

TEST(TraceCheck, A_pattern_off_either_end_of_the_partition_is_told_which_way_to_move) {
    expect_one(
        "act queue=qAct0 src=bf16@0x10[-1][64] dst=bf16@0x20000[1][64] partitions=1\n", "src",
        "covers bytes [-110, 18) of each partition, outside it: on cayman an SBUF partition holds 224 KiB (0x38000 "
        "bytes); start higher in "
        "the partition (a negative step reaches below byte 0)");
    expect_one("act queue=qAct0 src=bf16@0x37ff0[1][64] dst=bf16@0x20000[1][64] partitions=1\n", "src",
               "holds 224 KiB (0x38000 bytes); start lower in the partition or shorten the pattern");
}

TEST(TraceCheck, An_operand_says_how_much_it_moves_once) {
    // Neither a pattern nor bytes=: it was taken as one element.
    expect_one("act queue=qAct0 src=bf16@0x1000 dst=bf16@0x20000[1][64] partitions=32\n", "src",
               "has no size: give its access pattern (dtype@addr[steps][sizes]) or bytes=N");
    expect_one("q7 queue=qPool0 core=0 op=rd operand=bf16@0x0 partitions=16\n", "operand", "has no size");
    expect_clean("act queue=qAct0 src=bf16@0x1000 dst=bf16@0x20000 partitions=32 bytes=128\n");
    // Both, disagreeing: bytes= won, the pattern was ignored.
    expect_one(
        "act queue=qAct0 src=bf16@0x1000[1][64] dst=bf16@0x20000 partitions=32 bytes=1024\n", "src",
        "the access pattern moves 64 bf16 elements (128 bytes) per partition, but bytes=1024; make them "
        "agree, or drop bytes=");
    expect_one("dma queue=q0 src=hbm dst=bf16@0x0[1][64] partitions=128 bytes=256\n", "dst",
               "(128 bytes) per partition, but bytes=256; make them agree (");
    expect_clean("dma queue=q0 src=hbm dst=bf16@0x0[1][64] partitions=128 bytes=128\n");
    // A second input is an operand like the first; only an MX scale tile is sized by its data.
    expect_one("dve queue=qDve0 src=bf16@0x0[1][64] src2=fp32@0x200 dst=bf16@0x1000[1][64] partitions=32\n",
               "src2", "has no size");
    expect_clean(
        "ldweights queue=qPE0 src=fp8e4x4@0x40[1][128] src2=uint8@0x440[1][128] rows=128 cols=128 "
        "bytes=512\n",
        "mariana");
    // A size of 0 moves nothing.
    expect_one("pool queue=qPool0 src=bf16@0x1000[1,64][0,2] dst=bf16@0x20000[1][64] partitions=32\n", "src",
               "dimension 0 of the access pattern has size 0, so it moves nothing");
    // A transposing DMA's destination is derived from bytes=; a pattern given with it is checked
    // for emptiness all the same.
    expect_one("dma queue=q0 engine=0 src=hbm dst=bf16@0x0[1][0] partitions=16 bytes=256 transpose=1\n",
               "dst", "dimension 0 of the access pattern has size 0");
    expect_clean("dma queue=q0 engine=0 src=hbm dst=bf16@0x0 partitions=16 bytes=256 transpose=1\n");
}

TEST(TraceCheck, Q7_operand_in_psum_has_no_axi_path) {
    expect_one("q7 queue=qPool0 core=0 op=rd operand=bf16@0x2000000[1][64] partitions=16\n", "operand",
               "no AXI aperture. Stage the tensor in SBUF (copy it there with ACT or DVE) first. (GpSimd AXI reach, "
               "seed 000 §7.4");
}

TEST(TraceCheck, An_access_pattern_whose_extent_wraps_64_bits_is_rejected) {
    // Each dimension spans (2^31) x 2^30 x 4 bytes = 2^63: in 64-bit arithmetic the two wrap to
    // an extent of one element, which looked like a valid access.
    expect_one("q7 queue=qPool0 core=2 op=rd operand=fp32@0x800000[1073741824,1073741824][2147483649,2147483649] "
               "partitions=16\n",
               "operand", "does not fit in 64 bits");
    // A large but representable pattern is still reported by the bytes it covers.
    expect_one("q7 queue=qPool0 core=2 op=rd operand=fp32@0x800000[1073741824][3] partitions=16\n", "operand",
               "covers bytes [0, 8589934596)");
}

TEST(TraceCheck, Zero_partitions_is_one_finding_per_record) {
    // Every operand of the record spans the record's partitions: the zero is one mistake.
    expect_one("act queue=qAct0 src=fp32@0x2000000[1][512] dst=bf16@0x1000[1][512] partitions=0\n",
               "partitions", "must be at least 1");
    expect_one(
        "dve queue=qDve0 src=bf16@0x1000[1][64] src2=bf16@0x2000[1][64] dst=bf16@0x3000[1][64] "
        "partitions=0\n",
        "partitions", "must be at least 1");
}

TEST(TraceCheck, More_partitions_than_the_array_has_is_one_finding_of_the_count) {
    // No starting partition fits 129: the count is the mistake, said once, with the limit.
    expect_one("act queue=qAct0 src=bf16@0x0[1][64] dst=bf16@0x30000[1][64] partitions=129 fn=copy\n",
               "partitions", "129 partitions, more than the 128 of SBUF; use at most 128");
    // A count that fits from an earlier partition: the operand's start is the mistake.
    expect_one("act queue=qAct0 src=bf16@0x0[1][64] dst=bf16@0x1000000[1][64] partitions=96 fn=copy\n", "dst",
               "starts at partition 64 and spans 96 partitions, past the 128 of SBUF; start at partition 32 "
               "or lower");
    // All 128 partitions: only partition 0 fits.
    expect_one(
        "act queue=qAct0 src=bf16@0x40000[1][64] dst=bf16@0x30000[1][64] partitions=128 fn=copy\n", "src",
        "starts at partition 1 and spans 128 partitions, past the 128 of SBUF; start at partition 0, or use "
        "fewer partitions");
}

TEST(TraceCheck, Q7_core_reaches_only_its_own_16_partitions) {
    expect_one("q7 queue=qPool0 core=1 op=wr operand=bf16@0x0[1][64] partitions=16\n", "partitions",
               "core 1 reaches partitions [16, 32) only");
    expect_one("q7 queue=qPool0 core=1 op=wr operand=bf16@0x440000[1][64] partitions=16\n", "partitions",
               "seed 000 §7.5");   // partition 17..32: one past the core's window
    expect_one("q7 queue=qPool0 core=8 op=wr operand=bf16@0x0 partitions=1\n", "core", "does not exist");
}

TEST(TraceCheck, Matmul_dst_in_sbuf_is_rejected) {
    expect_one("matmul queue=qPE0 src=bf16@0x0[1][512] dst=fp32@0x1000[1][512] num_active_rows=128 "
               "num_active_cols=128\n",
               "dst", "may only be in PSUM");
}

TEST(TraceCheck, Matmul_moving_in_psum_is_rejected) {
    expect_one("matmul queue=qPE0 src=bf16@0x2000000[1][512] dst=fp32@0x2000000[1][512] num_active_rows=128 "
               "num_active_cols=128\n",
               "src", "may only be in SBUF");
}

TEST(TraceCheck, Matmul_dst_must_be_fp32) {
    expect_one("matmul queue=qPE0 src=bf16@0x0[1][512] dst=int32@0x2000000[1][512] num_active_rows=128 "
               "num_active_cols=128\n",
               "dst", "seed 000 §5.1");
}

TEST(TraceCheck, Col_grp_q3_fails_xbus_validation) {
    expect_one("matmul queue=qPE0 src=bf16@0x0[1][512] dst=fp32@0x2300000[1][512] num_active_rows=32 "
               "num_active_cols=32 row_grp=q0 col_grp=0x8 xbus_sel=0x08\n",
               "col_grp", "seed 000 §5.2");
    expect_clean("matmul queue=qPE0 src=bf16@0x0[1][512] dst=fp32@0x2200000[1][512] num_active_rows=32 "
                 "num_active_cols=32 row_grp=q0 col_grp=q2 xbus_sel=0x04\n");
}

TEST(TraceCheck, Xbus_sel_must_match_col_grp) {
    expect_one("matmul queue=qPE0 src=bf16@0x0[1][512] dst=fp32@0x2000000[1][512] num_active_rows=128 "
               "num_active_cols=128 xbus_sel=0x01\n",
               "xbus_sel", "does not match");
}

TEST(TraceCheck, Matmul_dst_partition_follows_col_grp) {
    expect_one("matmul queue=qPE0 src=bf16@0x0[1][512] dst=fp32@0x2000000[1][512] num_active_rows=32 "
               "num_active_cols=32 row_grp=q0 col_grp=q1 xbus_sel=0x02\n",
               "dst", "selects partition 32");
}

TEST(TraceCheck, Acc_flags_beyond_3_are_rejected) {
    expect_one(kMatmulOk.substr(0, kMatmulOk.find(" acc_flags")) + " acc_flags=7\n", "acc_flags", "seed 000 §5.4");
}

TEST(TraceCheck, Zero_region_1_only_from_mariana) {
    const std::string mm = kMatmulOk + " zero_region=1\n";
    expect_one(mm, "zero_region", "seed 000 §5.3", "cayman");
    expect_clean(mm, "mariana");
}

TEST(TraceCheck, Matmul_result_stays_in_its_zero_region) {
    // 1024 fp32 = 4 KiB per partition: two banks, fine only with zero_region=1 (mariana).
    const std::string mm = "matmul queue=qPE0 src=bf16@0x0[1][512] dst=fp32@0x2000000[1][1024] num_active_rows=128 "
                           "num_active_cols=128 zero_region=";
    expect_one(mm + "0\n", "dst", "zero region", "mariana");
    expect_clean(mm + "1\n", "mariana");
}

TEST(TraceCheck, Start_partition_rules) {
    expect_one("act queue=q src=bf16@0x800000[1][8] dst=bf16@0x0[1][8] partitions=64\n", "src",
               "may not start at partition 32");   // 33-64 partitions: 0 or 64
    expect_one("act queue=q src=bf16@0x40000[1][8] dst=bf16@0x0[1][8] partitions=8\n", "src",
               "may not start at partition 1");
    expect_clean("act queue=q src=bf16@0x1000000[1][8] dst=bf16@0x0[1][8] partitions=64\n");
}

TEST(TraceCheck, Engine_with_two_psum_operands) {
    expect_one("act queue=q src=fp32@0x2000000[1][8] dst=fp32@0x2000100[1][8] partitions=32\n", "dst",
               "at most one PSUM operand");
    const auto errs = check("dve queue=q src=fp32@0x2000000[1][8] src2=fp32@0x2000100[1][8] dst=bf16@0x0[1][8] partitions=32\n");
    ASSERT_EQ(errs.size(), 1u);
    EXPECT_EQ(errs[0].field, "src2");
}

TEST(TraceCheck, Ldweights_src_sbuf_only) {
    expect_one("ldweights queue=qPE0 src=bf16@0x2000000[1][128] rows=128 cols=128\n", "src", "may only be in SBUF");
}

TEST(TraceCheck, Dma_transpose_tile_rules) {
    expect_clean("dma queue=q src=hbm dst=bf16@0x40[1][1] partitions=16 bytes=256 transpose=1\n");
    expect_one("dma queue=q src=hbm dst=bf16@0x40 partitions=8 bytes=256 transpose=1\n", "partitions", "16");
    // several whole 16-row tiles (the gather transpose's row-tile alignment)
    expect_clean("dma queue=q src=hbm dst=bf16@0x40 partitions=2048 bytes=256 transpose=1\n");
    expect_one("dma queue=q src=hbm dst=bf16@0x40 partitions=40 bytes=256 transpose=1\n", "partitions", "multiple of 16");
    expect_one("dma queue=q src=hbm dst=fp32@0x40 partitions=16 bytes=512 transpose=1\n", "bytes", "tile_src_cols 128");
    expect_one("dma queue=q src=hbm dst=bf16@0x42 partitions=16 bytes=256 transpose=1\n", "dst", "32");
}

TEST(TraceCheck, Dma_cannot_reach_psum) {
    expect_one("dma queue=q src=hbm dst=fp32@0x2000000 partitions=1 bytes=64\n", "dst", "may only be in SBUF");
}

TEST(TraceCheck, Access_client_and_region) {
    expect_one("0 pe_client_9 rd 0x0 1 8\n", "client", "unknown client 'pe_client_9'");
    expect_one("0 pe_client_0 rd 0x2000000 1 8\n", "address", "is a SBUF port but 0x2000000 is in PSUM");
    expect_one("0 q7_0 rd 0x2000000 1 8\n", "address", "seed 000 §7.4");
    expect_one("0 act_rd wr 0x0 1 8\n", "op", "read port");
    expect_one("0 dma_0 rd 0x39000 1 8\n", "address", "past the partition's memory");
    expect_one("0 dma_0 rd 0x0 1 0x38001\n", "bytes", "on cayman an SBUF partition holds 224 KiB");
    expect_one("0 q7_1 rd 0x0 1 8\n", "partitions", "seed 000 §7.5");
}

TEST(TraceCheck, Out_of_order_access_cycles) {
    const auto errs = check("10 dma_0 rd 0x0 1 8\n9 dma_0 rd 0x0 1 8\n10 dma_0 rd 0x0 1 8\n");
    ASSERT_EQ(errs.size(), 1u);
    EXPECT_EQ(errs[0].line, 3u);
    EXPECT_EQ(errs[0].field, "cycle");
    EXPECT_NE(errs[0].reason.find("before cycle 10 of line 2"), std::string::npos);
}

TEST(TraceCheck, Semaphore_ids_and_unsatisfiable_waits) {
    expect_one("dma queue=q src=hbm dst=bf16@0 partitions=1 bytes=2 signal=256\n", "signal", "does not exist");
    // Two plain waits need two signals; one is given.
    const auto errs = check("dma queue=a src=hbm dst=bf16@0 partitions=1 bytes=2 signal=3\n"
                            "dma queue=b src=hbm dst=bf16@0 partitions=1 bytes=2 wait=3\n"
                            "dma queue=b src=hbm dst=bf16@0 partitions=1 bytes=2 wait=3\n");
    ASSERT_EQ(errs.size(), 1u);
    EXPECT_EQ(errs[0].line, 4u);
    EXPECT_EQ(errs[0].field, "wait");
    EXPECT_NE(errs[0].reason.find("reach 2 but the whole trace signals it only 1"), std::string::npos);
}

TEST(TraceCheck, Header_generation_mismatch) {
    std::istringstream in("sbufsim-trace 1 gen=mariana\n");
    TraceReader r(in, "t.trc");
    TraceChecker c(test::shipped_params("cayman"), "t.trc");
    std::vector<TraceError> out;
    c.check_header(r.header(), out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].field, "gen");
    // Either choice of generation can be the cause: the message names both and the fix of each.
    EXPECT_NE(out[0].reason.find("chosen by --gen or a --config file's base"), std::string::npos)
        << out[0].reason;
    EXPECT_NE(out[0].reason.find("(--gen mariana, or base = mariana in the file)"), std::string::npos)
        << out[0].reason;
}

TEST(TraceCheck, Operand_wider_than_the_29_bit_partition_offset_is_rejected) {
    // 0x40000000 would be masked to 0x0 by the ISA and silently land in SBUF partition 0.
    expect_one("act queue=qAct0 src=bf16@0x40000000[1][64] dst=bf16@0x1000[1][64] partitions=32\n", "src",
               "does not fit the 29-bit on-chip address an instruction holds: cayman keeps only the bits of 0x1fffffff");
    expect_one("act queue=qAct0 src=bf16@0x40000000[1][64] dst=bf16@0x1000[1][64] partitions=32\n", "src",
               "it would land at 0x0");
}

TEST(TraceCheck, Messages_say_how_to_fix_in_the_projects_words) {
    const auto e = check("ldweights queue=qPE0 src=bf16@0x2000000[1][128] rows=128 cols=128\n"
                         "0 act_rdd rd 0x0 1 4\n");
    ASSERT_EQ(e.size(), 2u);
    EXPECT_EQ(e[0].to_string().find("::"), std::string::npos) << e[0].to_string();  // no C++ names
    EXPECT_NE(e[0].to_string().find("place it in SBUF"), std::string::npos) << e[0].to_string();
    EXPECT_NE(e[1].to_string().find("did you mean 'act_rd'"), std::string::npos) << e[1].to_string();
}

// A rule message speaks of the hardware as a user sees it: the generation whose limit applies and
// what to change, never the name of a seed constant or of a source file.
TEST(TraceCheck, Rule_messages_name_the_generation_and_a_fix_not_internal_names) {
    const std::string bad[] = {
        "0 dma_0 rd 0x30000 1 0x8001\n",                                                       // past the partition
        "0 pe_client_0 rd 0x2000000 1 8\n",                                                    // wrong port
        "0 dma_0 rd 0x39000 1 8\n",                                                            // pad
        "act queue=qAct0 src=bf16@0x40000000[1][64] dst=bf16@0x1000[1][64] partitions=32\n",  // too wide
        "act queue=qAct0 src=bf16@0x37ff0[1][64] dst=bf16@0x20000[1][64] partitions=1\n",     // pattern
        "matmul queue=qPE0 src=bf16@0x0[1][512] dst=fp32@0x2000000[1][512] num_active_rows=129 num_active_cols=128 "
        "row_grp=0xf col_grp=0xf xbus_sel=0x10\n",
    };
    for (const std::string& body : bad) {
        const auto errs = check(body);
        ASSERT_FALSE(errs.empty()) << body;
        const std::string m = errs[0].to_string();
        for (const char* internal : {"PARTITION_ACTIVE_SIZE", "TPB_PARTITION_ADDR_MASK", "PARTITION_SIZE", "clients.h",
                                     "S3D3_MM", "PSUM_BUF_SZ", "decode pad"})
            EXPECT_EQ(m.find(internal), std::string::npos) << internal << " in: " << m;
        EXPECT_NE(m.find("cayman"), std::string::npos) << "no generation in: " << m;
    }
    const auto errs = check("0 dma_0 rd 0x30000 1 0x8001\n");
    ASSERT_EQ(errs.size(), 1u);
    EXPECT_EQ(errs[0].reason,
              "32769 bytes from offset 0x30000 run past the end of the partition: on cayman an SBUF partition "
              "holds 224 KiB (0x38000 bytes); start at offset 0x2ffff or lower, or move at most 32768 bytes from "
              "this offset");
    EXPECT_EQ(errs[0].rule, "partition size, seed 000 §1");  // the seed citation after the words
}

// The loop of `sbufsim check`: the reader's rejections, the rule check, the race check, and the
// note on what of the race check follows a rejected record.
std::vector<TraceError> check_with_races(const std::string& body) {
    std::istringstream in("sbufsim-trace 1 gen=cayman\n" + body);
    TraceReader reader(in, "t.trc");
    const Params p = test::shipped_params("cayman");
    TraceChecker checker(p, "t.trc");
    SyncCheck sync(p, "t.trc");
    std::vector<TraceError> out;
    Record rec;
    TraceError err;
    for (ReadStatus s; (s = reader.read(rec, err)) != ReadStatus::end;) {
        if (s == ReadStatus::error) {
            out.push_back(err);
            checker.note_rejected(err.line);
            continue;
        }
        const bool valid = checker.check(rec, out) == 0;
        const std::size_t from = out.size();
        sync.add(rec, out, valid);
        checker.note_cascade(out, from);
    }
    checker.finish(out);
    const std::size_t from = out.size();
    sync.finish(out);
    checker.note_cascade(out, from);
    return out;
}

TEST(TraceCheck, A_race_after_a_rejected_record_says_to_fix_that_record_first) {
    // Line 3 waits for the load and is rejected (a misspelt field): line 4, ordered after the load
    // only through line 3 on the ACT queue, then races with it.
    const std::string load = "dma queue=qSyncIO0 engine=0 src=hbm dst=bf16@0x0 partitions=128 bytes=4096 signal=1\n";
    const std::string act = "act queue=qAct0 src=bf16@0x0[1][2048] dst=bf16@0x20000[1][2048] partitions=128 fn=copy\n";
    const auto errs = check_with_races(
        load + "act queue=qAct0 src=bf16@0x0[1][2048] dst=bf16@0x10000[1][2048] partitions=128 fn=copy wait=1 bogus=3\n" +
        act);
    ASSERT_EQ(errs.size(), 2u);
    EXPECT_EQ(errs[0].line, 3u);
    EXPECT_EQ(errs[0].field, "bogus");
    EXPECT_EQ(errs[1].line, 4u);
    EXPECT_NE(errs[1].reason.find("read after write"), std::string::npos) << errs[1].reason;
    EXPECT_NE(errs[1].reason.find("; fix the record rejected at line 3 first: the race check ran without it"),
              std::string::npos)
        << errs[1].reason;
    // The same race with no rejected record before it has no such note.
    const auto plain = check_with_races(load + act);
    ASSERT_EQ(plain.size(), 1u);
    EXPECT_EQ(plain[0].reason.find("rejected"), std::string::npos) << plain[0].reason;
}

TEST(TraceCheck, Pe_tiles_follow_the_nc_matmul_tiling_mode) {
    const std::string ldw = "ldweights queue=qPE0 src=bf16@0x1000000[1][128] rows=64 cols=128 ";
    const std::string mm = "matmul queue=qPE0 src=bf16@0x1000000[1][512] dst=fp32@0x2000000[1][512] num_active_rows=64 "
                           "num_active_cols=128 row_grp=0xc ";
    expect_clean(ldw + "tile_position=64,0 tile_size=64,128\n" + mm + "tile_position=64,0 tile_size=64,128\n");
    expect_clean(mm + "tile_position=64,0 tile_size=64,128\n", "sunda");
    // Both fields or neither.
    expect_one(mm + "tile_size=64,128\n", "tile_position", "must both be set");
    expect_one(ldw + "tile_position=64,0\n", "tile_size", "must both be set");
    // 32-row tiles from NeuronCore-v3; none on inferentia.
    expect_one(ldw + "tile_position=64,0 tile_size=32,128\n", "tile_size", "a tile of 32 PE rows does not exist on sunda", "sunda");
    expect_one("ldweights queue=qPE0 src=bf16@0x0[1][64] rows=64 cols=64 tile_position=0,0 tile_size=64,64\n", "tile_size",
               "inferentia has no PE tiling mode", "inferentia");
    expect_one(ldw + "tile_position=0,0 tile_size=96,128\n", "tile_size", "row tiles are 32, 64, 128");
    // A tile starts at a multiple of its size, inside the array.
    expect_one(ldw + "tile_position=32,0 tile_size=64,128\n", "tile_position", "may not start at row 32");
    expect_one(ldw + "tile_position=0,128 tile_size=64,32\n", "tile_position", "(0, 32, 64, 96)");
    // The stationary fits the tile.
    expect_one(ldw + "tile_position=0,0 tile_size=64,64\n", "tile_size", "does not fit the 64 x 64 tile");
    expect_one(mm + "tile_position=0,0 tile_size=32,128\n", "tile_size", "(64 partitions x 128 columns)");
    // double_row is not combinable with column tiling nor with a transpose.
    const std::string fp8 = "matmul queue=qPE0 src=fp8e4@0x0[1][512] dst=fp32@0x2000000[1][512] num_active_rows=128 "
                            "num_active_cols=64 col_grp=0x3 perf_opt=double_row ";
    expect_clean(fp8 + "tile_position=0,0 tile_size=128,128\n");
    expect_one(fp8 + "tile_position=0,64 tile_size=128,64\n", "perf_opt", "column tiling");
    expect_one(fp8 + "transpose=1\n", "perf_opt", "transpose");
}

TEST(TraceCheck, A_pe_transpose_writes_its_data_dtype_where_the_pe_has_a_transpose_mode) {
    // Seed 000 §2.2, §5.1: an accumulating matmul writes fp32; nki.isa nc_transpose: the output
    // has the data's dtype. pe.transpose_passthrough (cayman: true, sunda: false) reconciles them.
    const std::string xpose = "matmul queue=qPE0 src=bf16@0x0[1][128] dst=bf16@0x2000000[1][128] num_active_rows=128 "
                              "num_active_cols=128 transpose=1\n";
    const std::string fp32 = "matmul queue=qPE0 src=bf16@0x0[1][128] dst=fp32@0x2000000[1][128] num_active_rows=128 "
                             "num_active_cols=128 transpose=1\n";
    expect_clean(xpose);
    expect_clean(fp32);
    expect_clean(fp32, "sunda");
    auto dst_findings = [](const std::string& body, const std::string& gen) {
        std::size_t n = 0;
        for (const TraceError& e : check(body, gen)) n += e.field == "dst" ? 1 : 0;
        return n;
    };
    EXPECT_GT(dst_findings(xpose, "sunda"), 0u);
    // an accumulating matmul keeps the seed's rule everywhere
    std::string accumulating = xpose;
    accumulating.replace(accumulating.find(" transpose=1"), 12, "");
    EXPECT_GT(dst_findings(accumulating, "cayman"), 0u);
    // a transpose into a third dtype is no pass-through
    std::string other = xpose;
    other.replace(other.find("dst=bf16"), 8, "dst=fp16");
    EXPECT_GT(dst_findings(other, "cayman"), 0u);
}

TEST(TraceCheck, Dma_read_add_write_takes_bf16_or_fp32_of_matching_dtypes) {
    // nki.isa dma_copy dst_rmw_op; trn3 arch guide, SBUF Read-Add-Write: "BF16 or FP32, matching dtypes".
    expect_clean("dma queue=qSyncIO0 src=hbm dst=bf16@0x0 partitions=8 bytes=128 dst_rmw_op=add\n"
                 "dma queue=qSyncIO0 src=fp32@0x1000 dst=fp32@0x2000 partitions=8 bytes=128 dst_rmw_op=add\n"
                 "dma queue=qSyncIO0 src=fp32@0x1000 dst=hbm partitions=8 bytes=128 dst_rmw_op=add\n");
    expect_one("dma queue=qSyncIO0 src=hbm dst=fp8e4@0x0 partitions=8 bytes=128 dst_rmw_op=add\n", "dst",
               "adds bf16 or fp32 data, not fp8e4");
    expect_one("dma queue=qSyncIO0 src=bf16@0x1000 dst=fp32@0x2000 partitions=8 bytes=128 dst_rmw_op=add\n", "src",
               "matching dtypes: src is bf16, dst fp32");
    expect_one("dma queue=qSyncIO0 src=hbm dst=bf16@0x0 partitions=16 bytes=256 transpose=1 dst_rmw_op=add\n",
               "dst_rmw_op", "cannot add into its destination");
    // an HBM end with its own dtype is what is added, so it must match too
    expect_clean("dma queue=qSyncIO0 src=bf16@hbm dst=bf16@0x0 partitions=8 bytes=128 dst_rmw_op=add\n");
    expect_one("dma queue=qSyncIO0 src=fp32@hbm dst=bf16@0x0 partitions=8 bytes=128 dst_rmw_op=add\n", "src",
               "matching dtypes: src is fp32, dst bf16");
}

TEST(TraceCheck, A_casting_dma_converts_except_through_the_transpose_crossbar) {
    // nki.isa dma_copy: a cast where src and dst differ; nki.isa dma_transpose: one dtype.
    expect_clean(
        "dma queue=qSyncIO0 src=fp32@hbm dst=bf16@0x0 partitions=8 bytes=128\n"
        "dma queue=qSyncIO1 src=fp32@0x1000 dst=bf16@hbm partitions=8 bytes=128\n"
        "dma queue=qSyncIO2 src=bf16@hbm dst=bf16@0x2000 partitions=16 bytes=256 transpose=1\n");
    expect_one("dma queue=qSyncIO0 src=fp32@hbm dst=bf16@0x0 partitions=16 bytes=256 transpose=1\n", "src",
               "does not convert elements");
}

TEST(TraceCheck, Dma_trigger_modes_follow_the_dge_reference) {
    const std::string load = "dma queue=qSyncIO0 src=hbm dst=bf16@0x0 partitions=8 bytes=128 ";
    expect_clean(load + "dge=hwdge issuer=act priority=0\n" + load + "dge=swdge priority=1\n" + load +
                 "dge=none issuer=dve\n" + load + "priority=3\n");
    // No hardware DGE before NeuronCore-v3; only SP and ACT trigger one; software DGE runs on POOL.
    expect_one(load + "dge=hwdge\n", "dge", "sunda has no hardware DGE", "sunda");
    expect_one(load + "dge=hwdge issuer=pool\n", "issuer", "Sync (sp) or Scalar (act) sequencer only");
    expect_one(load + "dge=swdge issuer=act\n", "issuer", "issuer must be pool");
    expect_one(load + "priority=4\n", "priority", "DMA QoS class 4 does not exist");
    // nki.isa dma_copy: priority is "Currently not supported when DGE is turned off".
    expect_one(load + "dge=none priority=2\n", "priority", "not supported with DGE turned off (dge=none)");
    // The fields belong to dma records only: the reader refuses them elsewhere.
    EXPECT_THROW(check("act queue=qAct0 src=bf16@0x0 dst=bf16@0x1000 partitions=8 bytes=64 dge=hwdge\n"), TraceFormatError);
}

TEST(TraceCheck, Mx_matmuls_take_x4_data_with_uint8_scales_on_neuroncore_v4) {
    // nki.isa nc_matmul_mx; MXFP matmul guide: x4 data, uint8 scales, fp32 or bf16 results, row
    // tiling only, NeuronCore-v4 and newer (pe.mx).
    const std::string ldw = "ldweights queue=qPE0 src=fp8e4x4@0x0[1][128] src2=uint8@0x4000[1][128] rows=128 cols=128\n";
    const std::string mm = "matmul queue=qPE0 src=fp8e4x4@0x8000[1][512] src2=uint8@0x6000[1][512] "
                           "dst=fp32@0x2000000[1][512] num_active_rows=128 num_active_cols=128";
    expect_clean(ldw + mm + "\n", "mariana");
    expect_clean(ldw + "matmul queue=qPE0 src=fp4x4@0x8000[1][512] src2=uint8@0x6000[1][512] dst=bf16@0x2000000[1][1024] "
                       "num_active_rows=128 num_active_cols=128\n", "mariana");
    // not before NeuronCore-v4
    expect_one(ldw, "src", "pe.mx = false");
    // the scale tile is required, uint8, and only with x4 data
    expect_one("ldweights queue=qPE0 src=fp8e4x4@0x0[1][128] rows=128 cols=128\n", "src2", "scale tile", "mariana");
    expect_one("ldweights queue=qPE0 src=fp8e4x4@0x0[1][128] src2=bf16@0x4000[1][128] rows=128 cols=128\n", "src2",
               "uint8", "mariana");
    expect_one("ldweights queue=qPE0 src=bf16@0x0[1][128] src2=uint8@0x4000[1][128] rows=128 cols=128\n", "src2",
               "MX scale tile of x4 data", "mariana");
    // no transpose, no double row, no column tiling; one PSUM bank of fp32 or bf16
    expect_one(mm + " transpose=1\n", "transpose", "cannot transpose", "mariana");
    expect_one(mm + " perf_opt=double_row\n", "perf_opt", "no double-row mode", "mariana");
    expect_one("matmul queue=qPE0 src=fp8e4x4@0x8000[1][512] src2=uint8@0x6000[1][512] dst=fp32@0x2000000[1][512] "
                     "num_active_rows=128 num_active_cols=64 col_grp=0x3 tile_position=0,0 tile_size=128,64\n",
               "tile_size", "only row tiling", "mariana");
    expect_clean(ldw + "matmul queue=qPE0 src=fp8e4x4@0x8000[1][512] src2=uint8@0x6000[1][512] dst=fp32@0x2000000[1][512] "
                       "num_active_rows=32 num_active_cols=128 tile_position=32,0 tile_size=32,128\n", "mariana");
    std::string fp16 = mm;
    fp16.replace(fp16.find("dst=fp32"), 8, "dst=fp16");
    bool named = false;
    for (const TraceError& e : check(fp16 + "\n", "mariana")) named |= e.to_string().find("must be fp32 or bf16") != std::string::npos;
    EXPECT_TRUE(named);
    std::string wide = mm;
    wide.replace(wide.find("[1][512] src2"), 8, "[1][1024]");
    wide.replace(wide.find("uint8@0x6000[1][512]"), 20, "uint8@0x6000[1][1024]");
    wide.replace(wide.find("dst=fp32@0x2000000[1][512]"), 26, "dst=fp32@0x2000000[1][1024] zero_region=1");
    expect_one(wide + "\n", "src", "at most 512 x4 columns with a fp32 result", "mariana");
}

TEST(TraceCheck, A_one_zero_hint_is_a_matmul_field) {
    expect_clean(kMatmulOk + " onezero=1\n");
    // a field the reader refuses on other kinds
    EXPECT_THROW(check("ldweights queue=qPE0 src=bf16@0x0[1][128] rows=128 cols=128 onezero=1\n"), TraceFormatError);
}

TEST(TraceCheck, Quantize_mx_is_a_vector_engine_instruction_of_neuroncore_v4) {
    // nki.isa quantize_mx; trn3 arch guide, QuantizeMX; MXFP matmul guide: no FP4 output.
    const std::string q = "dve queue=qDve0 src=bf16@0x1000[1][2048] dst=fp8e4x4@0x20000[1][512] partitions=128 "
                          "isa=quantize_mx\n";
    expect_clean(q, "mariana");
    bool isa = false;  // on cayman the x4 dst is refused too
    for (const TraceError& e : check(q)) isa |= e.field == "isa" && e.to_string().find("NeuronCore-v4 instruction") != std::string::npos;
    EXPECT_TRUE(isa);
    std::string act = q;
    act.replace(0, 3, "act");
    expect_one(act, "isa", "Vector Engine", "mariana");
    std::string fp4 = q;
    fp4.replace(fp4.find("fp8e4x4"), 7, "fp4x4");
    expect_one(fp4, "dst", "no FP4 output", "mariana");
    std::string fp32 = q;
    fp32.replace(fp32.find("src=bf16"), 8, "src=fp32");
    expect_one(fp32, "src", "bf16 or fp16", "mariana");
}
