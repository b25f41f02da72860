// tpb top level: the bank modules per generation (seed 000 §1, §3, §4), hardware names, CSR
// state loaded from the configuration and exported back, error injection routing, kernel stats.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <systemc>

#include "../shipped.h"
#include "models/top/tpb.h"
#include "sbufsim/kernel/kernel.h"

using namespace sbufsim;
using namespace sbufsim::models;

namespace {

class TpbTest : public ::testing::Test {
protected:
    void SetUp() override {
        // A fresh SystemC context per test: every test elaborates its own "tpb".
        sc_core::sc_curr_simcontext = new sc_core::sc_simcontext();
        sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
    }
    Tpb& make(const Params& p, TpbOptions o = {}) {
        tpb = std::make_unique<Tpb>("tpb", p, o);
        return *tpb;
    }
    std::unique_ptr<Tpb> tpb;
};

}  // namespace

TEST_F(TpbTest, Cayman_has_16_sbuf_and_32_psum_bank_modules) {
    Tpb& t = make(test::shipped_params("cayman"));
    EXPECT_EQ(t.sbuf_bank_count(), 16u) << "8 SBUF clusters x 2 halves (seed 000 §3)";
    EXPECT_EQ(t.psum_bank_count(), 32u) << "4 PSUM clusters x 8 (seed 000 §4)";
    EXPECT_STREQ(t.sbuf_bank(3, 1).name(), "tpb.sbuf_cluster_3_1");
    EXPECT_EQ(t.sbuf_bank(3, 1).index(), 7u);
    EXPECT_STREQ(t.psum_bank(2, 5).name(), "tpb.psum_cluster2_bank5");
    EXPECT_EQ(t.psum_bank(2, 5).index(), 21u);
    EXPECT_STREQ(t.axi2sram().name(), "tpb.axi2sram");
    EXPECT_NE(sc_core::sc_find_object("tpb.psum_cluster3_bank7"), nullptr) << "the last PSUM bank exists";
    EXPECT_EQ(sc_core::sc_find_object("tpb.psum_cluster4_bank0"), nullptr);
}

TEST_F(TpbTest, Maverick_has_16_sbuf_and_no_psum_bank_modules) {
    Tpb& t = make(test::shipped_params("maverick"));
    EXPECT_EQ(t.sbuf_bank_count(), 16u);
    EXPECT_EQ(t.psum_bank_count(), 0u) << "PSUM_BUF_SZ = 0 on maverick (seed 000 §1)";
    EXPECT_THROW(t.psum_bank(0), std::invalid_argument);
    EXPECT_EQ(sc_core::sc_find_object("tpb.psum_cluster0_bank0"), nullptr);
}

TEST_F(TpbTest, Inferentia_psum_has_two_clusters_of_four_banks) {
    Params p = test::shipped_params("inferentia");
    p.psum.ecc_banks = 8;  // configs/inferentia.ini: 2 PE column groups x 4 banks (LOW/INFERRED)
    Tpb& t = make(p);
    EXPECT_EQ(t.psum_bank_count(), 8u);
    EXPECT_STREQ(t.psum_bank(1, 3).name(), "tpb.psum_cluster1_bank3");
    EXPECT_EQ(t.psum_bank(1, 3).index(), 7u);
}

TEST_F(TpbTest, Bank_options_reach_every_bank) {
    TpbOptions o;
    o.banks = {.functional = true, .erg_type = ErgType::parity};
    Tpb& t = make(test::shipped_params("cayman"), o);
    EXPECT_TRUE(t.sbuf_bank(15).store().functional());
    EXPECT_EQ(t.psum_bank(31).erg().erg_type(), ErgType::parity);
    Tpb& d = make(test::shipped_params("cayman"));
    EXPECT_FALSE(d.sbuf_bank(0).store().functional()) << "the backing store is off by default";
}

TEST_F(TpbTest, Csr_blocks_start_from_the_configuration) {
    Params p = test::shipped_params("cayman");
    p.tdm.dma_slots = 2;
    p.throttler.act_rd = {true, 32, 4};
    p.axi2sram.transpose_en = false;
    Tpb& t = make(p);
    EXPECT_EQ(t.read_sbuf_cluster_csr(models::Tdm::kBlockOffset), 0x00020008u);
    EXPECT_EQ(t.read_pool_act_csr(0x100), 0u) << "act rd_throttle_cfg0.disable_throttle = 0";
    EXPECT_FALSE(t.axi2sram().config().transpose_en) << "the bridge follows the configured CSR";
}

TEST_F(TpbTest, Csr_writes_reach_the_effective_params_and_the_bridge) {
    Tpb& t = make(test::shipped_params("cayman"));
    t.write_sbuf_cluster_csr(models::Tdm::kBlockOffset, (4u << 16) | 8u);
    t.write_sbuf_cluster_csr(SbufClusterCsr::kRawConfig, 0);
    t.write_pool_act_csr(models::Throttler::offset(ThrottledEngine::pool, models::Throttler::kWrCfg0), 0);
    const Params e = t.effective_params();
    EXPECT_EQ(e.tdm.dma_slots, 4u);
    EXPECT_FALSE(e.axi2sram.raw_en);
    EXPECT_TRUE(e.throttler.pool_wr.enable);
    EXPECT_FALSE(t.axi2sram().config().raw_en);
    EXPECT_EQ(t.params().tdm.dma_slots, 1u) << "the loaded configuration itself is unchanged";
    EXPECT_EQ(e.sbuf.partition_active, t.params().sbuf.partition_active) << "non-CSR fields are carried over";
}

TEST_F(TpbTest, Injection_routes_to_the_bank_that_holds_the_address) {
    Tpb& t = make(test::shipped_params("cayman"));
    // PSUM partition 70 (cluster 2), offset 5 × 2048 + 16 (bank 5): psum_cluster2_bank5.
    const std::uint32_t psum = 0x2000000 + 70 * 0x8000 + 5 * 2048 + 16;
    t.inject_bit_flip(psum, 0);
    EXPECT_EQ(t.psum_bank(2, 5).store().faulty_words(), 1u);
    std::vector<std::uint8_t> out(8);
    t.psum_bank(2, 5).read(psum, out);
    EXPECT_EQ(t.psum_bank(2, 5).counters().corrected, 1u);
    t.inject_bit_flip(9 * 0x40000 + 8, 1);  // SBUF partition 9: sbuf_cluster_0_1
    EXPECT_EQ(t.sbuf_bank(0, 1).store().faulty_words(), 1u);
    EXPECT_THROW(t.inject_bit_flip(0x38000, 0), std::invalid_argument) << "decode pad has no SRAM";
}

TEST_F(TpbTest, Kernel_bank_stats_feed_the_bank_counters) {
    const Params p = test::shipped_params("cayman");
    Kernel k(p);
    const ClientId act = *k.client_index("act_rd");
    Request r;
    r.client = act;
    r.first_partition = 0;
    r.partitions = 32;  // banks 0..3
    r.bytes = 64;
    EXPECT_NE(k.submit(r), kNoRequest);
    k.run_to_completion();
    Tpb& t = make(p);
    t.add_kernel_stats(k.stats());
    std::uint64_t busy = 0;
    for (std::uint32_t b = 0; b < 16; ++b) busy += t.sbuf_bank(b).counters().busy_cycles;
    EXPECT_GT(busy, 0u);
    EXPECT_EQ(t.sbuf_bank(0).counters().busy_cycles, k.stats().banks[0].busy);
    EXPECT_EQ(t.sbuf_bank(15).counters().busy_cycles, 0u) << "partitions 0..31 never touch bank 15";
    Kernel maverick(test::shipped_params("maverick"));
    EXPECT_THROW(t.add_kernel_stats(maverick.stats()), std::invalid_argument) << "16 banks vs 48";
}

TEST_F(TpbTest, Tdm_throttlers_and_sequencer_are_modules_of_the_tpb) {
    Tpb& t = make(test::shipped_params("cayman"));
    EXPECT_STREQ(t.tdm().name(), "tpb.tdm");
    EXPECT_STREQ(t.throttler(ThrottledEngine::pool).name(), "tpb.pool_throttler");
    EXPECT_STREQ(t.throttler(ThrottledEngine::dve).name(), "tpb.dve_throttler");
    EXPECT_STREQ(t.arr_seq().name(), "tpb.arr_seq");
    EXPECT_NE(sc_core::sc_find_object("tpb.tdm.slot"), nullptr) << "the TDM drives its slot as a signal";
    EXPECT_NE(sc_core::sc_find_object("tpb.act_throttler.rd_tokens"), nullptr);
    EXPECT_NE(sc_core::sc_find_object("tpb.csr_socket"), nullptr);
}

TEST_F(TpbTest, Sequencer_csrs_start_from_the_configuration) {
    Params p = test::shipped_params("cayman");
    p.arr_seq.inter_instr_dly_cnt = 5;
    p.arr_seq.disable_bg_xpose = false;
    p.arr_seq.rg_stagger[2] = 0x1234;
    Tpb& t = make(p);
    EXPECT_EQ(t.csr_read(Tpb::kArrSeqTopBase + ArrSeqTopCsr::kQueueCfg), 0x00010000u)
        << "only disable_tagweight_mode[16] left set";
    EXPECT_EQ(t.csr_read(Tpb::kArrSeqClusterBase + ArrSeqClusterCsr::kArrClusterCfg), 0x02050000u)
        << "inter_instr_dly_cnt[21:16] = 5, p2fifo_af[26:24] = 2";
    EXPECT_EQ(t.csr_read(Tpb::kArrSeqClusterBase + 0x20), 0x1234u) << "array_stagger_rg2_ctrl1 @0x20";
    t.csr_write(Tpb::kArrSeqClusterBase + ArrSeqClusterCsr::kArrClusterCfg, (1u << 12) | (9u << 16));
    const Params e = t.effective_params();
    EXPECT_TRUE(e.arr_seq.en_inter_instr_dly);
    EXPECT_EQ(e.arr_seq.inter_instr_dly_cnt, 9u);
    EXPECT_EQ(e.arr_seq.p2fifo_af, 0u);
}

TEST_F(TpbTest, Csr_writes_of_the_kernels_registers_ask_for_a_reprogram) {
    Tpb& t = make(test::shipped_params("cayman"));
    Params out;
    EXPECT_FALSE(t.take_reprogram(out));
    t.write_sbuf_cluster_csr(SbufClusterCsr::kRawConfig, 0);
    EXPECT_FALSE(t.reprogram_pending()) << "axi2sram_config is the bridge's, not the kernel's";
    t.write_sbuf_cluster_csr(SbufClusterCsr::kArbStage2Prio, 0x7u);  // pool_rd prio 7
    ASSERT_TRUE(t.take_reprogram(out));
    EXPECT_EQ(out.arbiter.pool_rd.prio, 7u);
    EXPECT_FALSE(t.take_reprogram(out)) << "once per batch of writes";
}
