// tpb_sbuf_pool_act throttler CSRs (seed 000 §7.2): reset values, field round-trips, export.
#include <gtest/gtest.h>

#include "pool_act_throttler_csr.h"
#include "sbufsim/config/params.h"

using namespace sbufsim;
using namespace sbufsim::models;

TEST(PoolActThrottlerCsr, Reset_disables_every_throttle) {
    const PoolActThrottlerCsr c;
    for (std::uint32_t base : {0x000u, 0x100u, 0x200u}) {
        EXPECT_EQ(c.read(base + 0x0), 1u) << "rd_throttle_cfg0.disable_throttle resets 1 @" << base;
        EXPECT_EQ(c.read(base + 0x8), 1u) << "wr_throttle_cfg0.disable_throttle resets 1 @" << base;
        EXPECT_EQ(c.read(base + 0x4), 0x00100010u) << "cfg1 reset (INFERRED) @" << base;
    }
    Params p;
    p.throttler.act_wr.enable = true;
    c.export_to(p);
    EXPECT_FALSE(p.throttler.act_wr.enable) << "reset state: throttle off";
    EXPECT_FALSE(p.throttler.dve_rd.enable);
}

TEST(PoolActThrottlerCsr, Cfg1_fields_round_trip) {
    PoolActThrottlerCsr c;
    const std::uint32_t act_wr1 = PoolActThrottlerCsr::offset(ThrottledEngine::act, PoolActThrottlerCsr::kWrCfg1);
    EXPECT_EQ(act_wr1, 0x10cu);
    c.write(act_wr1, 0xffffffffu);
    EXPECT_EQ(c.read(act_wr1), 0x00ff00ffu) << "window_len[7:0], transfer_cnt[23:16]; the rest reserved";
    c.write(act_wr1, (5u << 16) | 40u);
    c.write(PoolActThrottlerCsr::offset(ThrottledEngine::act, PoolActThrottlerCsr::kWrCfg0), 0);
    const ThrottleCfg t = c.wr(ThrottledEngine::act);
    EXPECT_TRUE(t.enable);
    EXPECT_EQ(t.window_len, 40u);
    EXPECT_EQ(t.transfer_cnt, 5u);
    EXPECT_FALSE(c.rd(ThrottledEngine::act).enable) << "the rd bucket is separate";
    Params p;
    c.export_to(p);
    EXPECT_TRUE(p.throttler.act_wr.enable);
    EXPECT_EQ(p.throttler.act_wr.window_len, 40u);
    EXPECT_EQ(p.throttler.act_wr.transfer_cnt, 5u);
    EXPECT_FALSE(p.throttler.pool_wr.enable);
}

TEST(PoolActThrottlerCsr, Dve_block_is_at_0x200) {
    PoolActThrottlerCsr c;
    c.write(0x200, 0);
    c.write(0x204, (2u << 16) | 8u);
    Params p;
    c.export_to(p);
    EXPECT_TRUE(p.throttler.dve_rd.enable);
    EXPECT_EQ(p.throttler.dve_rd.window_len, 8u);
    EXPECT_FALSE(p.throttler.pool_rd.enable);
}

TEST(PoolActThrottlerCsr, Load_then_export_is_identity) {
    Params p;
    p.throttler.pool_rd = {true, 12, 3};
    p.throttler.dve_wr = {true, 255, 0};
    PoolActThrottlerCsr c;
    c.load(p);
    Params q;
    c.export_to(q);
    EXPECT_TRUE(q.throttler.pool_rd.enable);
    EXPECT_EQ(q.throttler.pool_rd.window_len, 12u);
    EXPECT_EQ(q.throttler.pool_rd.transfer_cnt, 3u);
    EXPECT_EQ(q.throttler.dve_wr.window_len, 255u);
    EXPECT_EQ(q.throttler.dve_wr.transfer_cnt, 0u);
}

TEST(PoolActThrottlerCsr, Enabled_zero_window_is_rejected) {
    PoolActThrottlerCsr c;
    c.write(0x100, 0);  // act rd enabled
    c.write(0x104, 0);  // window_len 0
    Params p;
    EXPECT_THROW(c.export_to(p), CsrError);
}

TEST(PoolActThrottlerCsr, Unknown_offsets_are_rejected) {
    PoolActThrottlerCsr c;
    EXPECT_THROW(c.read(0x010), CsrError) << "only four registers per throttler";
    EXPECT_THROW(c.read(0x300), CsrError) << "past dve_throttler";
    EXPECT_THROW(c.write(0x001, 0), CsrError);
}

