// throttler modules of tpb_sbuf_pool_act (seed 000 §7.2): reset values, field round-trips, export,
// the states the kernel cannot run, and the token counts they drive from the kernel's buckets.
#include <gtest/gtest.h>

#include <memory>

#include <systemc>

#include "../shipped.h"
#include "models/kernel/throttler.h"
#include "sbufsim/kernel/kernel.h"

using namespace sbufsim;
using namespace sbufsim::models;

namespace {

class ThrottlerTest : public ::testing::Test {
protected:
    void SetUp() override {
        sc_core::sc_curr_simcontext = new sc_core::sc_simcontext();
        sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
    }
    models::Throttler& make(ThrottledEngine e, const ThrottlerParams& p = {}) {
        t = std::make_unique<models::Throttler>(models::Throttler::hw_name(e), e, p);
        return *t;
    }
    std::unique_ptr<models::Throttler> t;
};

}  // namespace

TEST_F(ThrottlerTest, Reset_disables_both_buckets) {
    models::Throttler& c = make(ThrottledEngine::act);
    c.write(models::Throttler::kRdCfg0, 0);
    c.reset();
    EXPECT_EQ(c.read(models::Throttler::kRdCfg0), 1u) << "rd_throttle_cfg0.disable_throttle resets 1";
    EXPECT_EQ(c.read(models::Throttler::kWrCfg0), 1u) << "wr_throttle_cfg0.disable_throttle resets 1";
    EXPECT_EQ(c.read(models::Throttler::kRdCfg1), 0x00100010u) << "cfg1 reset (INFERRED)";
    ThrottlerParams p;
    p.act_wr.enable = true;
    c.export_to(p);
    EXPECT_FALSE(p.act_wr.enable) << "reset state: throttle off";
    EXPECT_STREQ(c.name(), "act_throttler");
}

TEST_F(ThrottlerTest, Block_offsets_follow_the_seed) {
    EXPECT_EQ(models::Throttler::offset(ThrottledEngine::pool, models::Throttler::kRdCfg0), 0x000u);
    EXPECT_EQ(models::Throttler::offset(ThrottledEngine::act, models::Throttler::kWrCfg1), 0x10cu);
    EXPECT_EQ(models::Throttler::offset(ThrottledEngine::dve, models::Throttler::kRdCfg0), 0x200u);
}

TEST_F(ThrottlerTest, Cfg1_fields_round_trip) {
    models::Throttler& c = make(ThrottledEngine::act);
    c.write(models::Throttler::kWrCfg1, 0xffffffffu);
    EXPECT_EQ(c.read(models::Throttler::kWrCfg1), 0x00ff00ffu)
        << "window_len[7:0], transfer_cnt[23:16]; the rest reserved";
    c.write(models::Throttler::kWrCfg1, (5u << 16) | 40u);
    c.write(models::Throttler::kWrCfg0, 0);
    EXPECT_TRUE(c.wr().enable);
    EXPECT_EQ(c.wr().window_len, 40u);
    EXPECT_EQ(c.wr().transfer_cnt, 5u);
    EXPECT_FALSE(c.rd().enable) << "the rd bucket is separate";
    ThrottlerParams p;
    c.export_to(p);
    EXPECT_TRUE(p.act_wr.enable);
    EXPECT_EQ(p.act_wr.window_len, 40u);
    EXPECT_FALSE(p.pool_wr.enable) << "another engine's buckets are left alone";
}

TEST_F(ThrottlerTest, Load_then_export_is_identity) {
    ThrottlerParams p;
    p.dve_rd = {true, 12, 3};
    p.dve_wr = {true, 255, 0};
    models::Throttler& c = make(ThrottledEngine::dve, p);
    ThrottlerParams q;
    c.export_to(q);
    EXPECT_TRUE(q.dve_rd.enable);
    EXPECT_EQ(q.dve_rd.window_len, 12u);
    EXPECT_EQ(q.dve_rd.transfer_cnt, 3u);
    EXPECT_EQ(q.dve_wr.window_len, 255u);
    EXPECT_EQ(q.dve_wr.transfer_cnt, 0u);
}

TEST_F(ThrottlerTest, Enabled_zero_window_is_rejected) {
    models::Throttler& c = make(ThrottledEngine::pool);
    c.write(models::Throttler::kRdCfg0, 0);
    c.write(models::Throttler::kRdCfg1, 0);
    ThrottlerParams p;
    EXPECT_THROW(c.export_to(p), CsrError);
    EXPECT_FALSE(p.pool_rd.enable) << "a rejected export leaves Params alone";
}

TEST_F(ThrottlerTest, Unknown_offsets_are_rejected) {
    models::Throttler& c = make(ThrottledEngine::pool);
    EXPECT_THROW(c.read(0x010), CsrError) << "only four registers per throttler";
    EXPECT_THROW(c.read(0x100), CsrError) << "past the block";
    EXPECT_THROW(c.write(0x001, 0), CsrError);
}

TEST_F(ThrottlerTest, Tokens_are_the_kernels_beats_left_in_the_window) {
    Params p = test::shipped_params("cayman");
    p.throttler.act_rd = {true, 16, 3};  // 3 beats per 16 cycles
    Kernel k(p);
    Request r;
    r.client = *k.client_index("act_rd");
    r.partitions = 8;
    r.bytes = 4096;  // more beats than one window allows
    ASSERT_NE(k.submit(r), kNoRequest);
    k.run_until(4);
    const std::uint64_t beats = k.stats().clients[index(r.client)].beats;
    ASSERT_GT(beats, 0u);
    ASSERT_LE(beats, 3u) << "the bucket allows 3 beats in cycles 0..15";
    EXPECT_EQ(k.throttler(r.client).tokens(3), 3u - beats);
    EXPECT_EQ(k.throttler(r.client).tokens(16), 3u) << "the next window starts full";
    EXPECT_EQ(k.throttler(*k.client_index("pool_rd")).tokens(3), 0u) << "disabled: no tokens";
    models::Throttler& m = make(ThrottledEngine::act, p.throttler);
    struct Probe : sc_core::sc_module {
        SC_HAS_PROCESS(Probe);
        models::Throttler& m;
        const Kernel& k;
        std::uint32_t rd = 99, wr = 99;
        Probe(const sc_core::sc_module_name& n, models::Throttler& t, const Kernel& kernel)
            : sc_core::sc_module(n), m(t), k(kernel) {
            SC_THREAD(run);
        }
        void run() {
            m.drive(k, 3);
            wait(sc_core::SC_ZERO_TIME);
            rd = m.rd_tokens.read();
            wr = m.wr_tokens.read();
        }
    } probe("probe", m, k);
    sc_core::sc_start();
    EXPECT_EQ(probe.rd, 3u - beats);
    EXPECT_EQ(probe.wr, 0u) << "act_wr is not throttled";
}
