// tpb_sbuf_cluster CSRs (seed 000 §6.1, §7.1; tdm_config is test_tdm.cpp's): reset values, field round-trips, export to
// Params. Plain C++, no simulation.
#include <gtest/gtest.h>

#include "models/config/sbuf_cluster_csr.h"
#include "sbufsim/config/params.h"

using namespace sbufsim;
using namespace sbufsim::models;

TEST(SbufClusterCsr, Reset_values_match_the_seed) {
    const SbufClusterCsr c;
    EXPECT_EQ(c.read(0x000), 0x00000u) << "arb_stage1.arb_prio: pe_client_0..4 reset 0 (seed 000 §7.1 CORRECTION)";
    EXPECT_EQ(c.read(0x004), 0x11111u) << "arb_stage1.arb_weight: all weights reset 1";
    EXPECT_EQ(c.read(0x100), 0x10000u) << "arb_stage2.arb_prio: only pe_rd_client[18:16] resets to 1";
    EXPECT_EQ(c.read(0x104), 0x11111u) << "arb_stage2.arb_weight: all weights reset 1";
    EXPECT_EQ(c.read(0x400), 1u) << "axi2sram_transpose_en.transpose_en resets 1 (seed 000 §6.1)";
    EXPECT_EQ(c.read(0x404), 1u) << "raw_config.raw_en resets 1 (seed 000 §6.1)";
    EXPECT_EQ(c.read(0x408), 0u) << "raw_conv sns/sis";
    EXPECT_EQ(c.read(0x410), 0u) << "misc_config.clk_redun_pipe_gate_en";
    EXPECT_EQ(c.stage2(Stage2Client::pe_rd_client).prio, 1u);
    EXPECT_EQ(c.stage2(Stage2Client::pool_rd).prio, 0u);
    for (std::uint32_t i = 0; i < kStage1Clients; ++i) {
        EXPECT_EQ(c.stage1(i).prio, 0u) << "pe_client_" << i;
        EXPECT_EQ(c.stage1(i).weight, 1u) << "pe_client_" << i;
    }
    EXPECT_TRUE(c.axi2sram().transpose_en);
    EXPECT_TRUE(c.axi2sram().raw_en);
}

TEST(SbufClusterCsr, Reset_state_exports_the_params_defaults) {
    const SbufClusterCsr c;
    Params p;
    p.arbiter.pe_rd.prio = 5;  // must be overwritten
    c.export_to(p);
    const Params d;
    EXPECT_EQ(p.arbiter.pe_rd.prio, d.arbiter.pe_rd.prio);
    EXPECT_EQ(p.axi2sram.transpose_en, d.axi2sram.transpose_en);
}

TEST(SbufClusterCsr, Stage1_fields_sit_at_a_4_bit_pitch) {
    SbufClusterCsr c;
    c.write(SbufClusterCsr::kArbStage1Prio, 7u << 12);   // pe_client_3[14:12]
    c.write(SbufClusterCsr::kArbStage1Weight, 0x9u << 16 | 0x11111u);  // pe_client_4[19:16] = 9 | others 1
    EXPECT_EQ(c.stage1(3).prio, 7u);
    EXPECT_EQ(c.stage1(2).prio, 0u);
    EXPECT_EQ(c.stage1(4).weight, 9u);
    Params p;
    c.export_to(p);
    EXPECT_EQ(p.arbiter.stage1[3].prio, 7u);
    EXPECT_EQ(p.arbiter.stage1[4].weight, 9u);
}

TEST(SbufClusterCsr, Prio_fields_are_3_bits_wide) {
    SbufClusterCsr c;
    c.write(SbufClusterCsr::kArbStage2Prio, 0xfffffu);
    EXPECT_EQ(c.read(SbufClusterCsr::kArbStage2Prio), 0x77777u) << "bit 3 of each 4-bit slot is reserved";
}

TEST(SbufClusterCsr, Stage2_fields_follow_the_seed_order) {
    SbufClusterCsr c;
    c.write(SbufClusterCsr::kArbStage2Prio, (2u << 4) | (5u << 12));  // act_rd[6:4] = 2, act_wr[14:12] = 5
    Params p;
    c.export_to(p);
    EXPECT_EQ(p.arbiter.act_rd.prio, 2u);
    EXPECT_EQ(p.arbiter.act_wr.prio, 5u);
    EXPECT_EQ(p.arbiter.pool_rd.prio, 0u);
    EXPECT_EQ(p.arbiter.pe_rd.prio, 0u) << "the write cleared pe_rd_client";
}

TEST(SbufClusterCsr, Axi2sram_config_fields_round_trip) {
    SbufClusterCsr c;
    c.write(SbufClusterCsr::kAxi2SramTransposeEn, 0);
    c.write(SbufClusterCsr::kRawConv, 0x2);  // sis only
    c.write(SbufClusterCsr::kMiscConfig, 1);
    EXPECT_EQ(c.read(SbufClusterCsr::kRawConv), 2u);
    const Axi2SramParams a = c.axi2sram();
    EXPECT_FALSE(a.transpose_en);
    EXPECT_TRUE(a.raw_en);
    EXPECT_FALSE(a.sns);
    EXPECT_TRUE(a.sis);
    EXPECT_TRUE(a.clk_redun_pipe_gate_en);
}

TEST(SbufClusterCsr, Load_encodes_a_configuration) {
    Params p;
    p.arbiter.pool_wr = {3, 4};
    p.axi2sram.sns = true;
    SbufClusterCsr c;
    c.load(p);
    EXPECT_EQ(c.stage2(Stage2Client::pool_wr).prio, 3u);
    EXPECT_EQ(c.stage2(Stage2Client::pool_wr).weight, 4u);
    EXPECT_EQ(c.read(SbufClusterCsr::kRawConv), 1u);
}

TEST(SbufClusterCsr, Export_rejects_states_the_kernel_cannot_run) {
    SbufClusterCsr c;
    c.write(SbufClusterCsr::kArbStage2Prio, 0x3u);        // pool_rd prio 3
    c.write(SbufClusterCsr::kArbStage2Weight, 0x01111u);  // pe_rd_client weight 0
    Params p;
    EXPECT_THROW(c.export_to(p), CsrError) << "a DWRR weight of 0";
    EXPECT_EQ(p.arbiter.pool_rd.prio, 0u) << "a rejected export leaves Params alone";
}

TEST(SbufClusterCsr, Unknown_offsets_are_rejected) {
    SbufClusterCsr c;
    EXPECT_THROW(c.read(0x008), CsrError);
    EXPECT_THROW(c.write(0x40c, 1), CsrError) << "0x40c is between raw_conv and misc_config";
    EXPECT_THROW(c.read(0x500), CsrError);
    EXPECT_THROW(c.read(0x302), CsrError);
    EXPECT_THROW(c.read(0x300), CsrError) << "tdm_config belongs to the tdm module";
}

