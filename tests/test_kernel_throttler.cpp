// Pool/act/dve token-bucket throttlers (tpb_sbuf_pool_act.json, seed 000 §7.2).
#include <gtest/gtest.h>

#include "sbufsim/kernel/kernel.h"
#include "kernel_clients.h"

namespace sbufsim {
namespace {

Stats run_pool_rd(bool enable, bool step_every_cycle) {
    Params p = test::word_beats();
    p.throttler.pool_rd = {enable, 16, 4};
    Kernel k(p, KernelOptions{.step_every_cycle = step_every_cycle});
    Request r;
    r.client = *k.client_index("pool_rd");
    r.partitions = 8;
    r.bytes = 8 * 10000;  // 10,000 beats: saturates the port for 1,600 cycles
    EXPECT_NE(k.submit(r), kNoRequest);
    k.run_until(1600);
    return k.stats();
}

TEST(KernelThrottler, Window_16_transfer_cnt_4_caps_a_saturating_client_at_a_quarter) {
    // Windows are aligned to cycle / 16: 4 beats in cycles 16w..16w+3, then 12 throttle stalls.
    // 1,600 cycles = 100 windows: 400 beats, 1,200 throttle stalls, longest wait 12 cycles.
    for (bool step : {false, true}) {
        const Stats s = run_pool_rd(true, step);
        const auto& c = s.clients[5];
        ASSERT_EQ(c.name, "pool_rd");
        EXPECT_EQ(c.beats, 400u);
        EXPECT_EQ(c.stalls[static_cast<int>(StallCause::throttle)], 1200u);
        EXPECT_EQ(c.max_stall_run, 12u);
    }
    // Skipping the throttled stretches gives the same statistics as stepping through them.
    const Stats skipped = run_pool_rd(true, false), stepped = run_pool_rd(true, true);
    EXPECT_TRUE(skipped.same_results(stepped));
    EXPECT_LT(skipped.stepped, stepped.stepped);
}

TEST(KernelThrottler, Disabled_throttler_has_no_effect) {
    // Same CSR values with disable_throttle set (the reset state): one beat every cycle.
    const Stats s = run_pool_rd(false, false);
    EXPECT_EQ(s.clients[5].beats, 1600u);
    EXPECT_EQ(s.clients[5].total_stalls(), 0u);
}

TEST(KernelThrottler, Throttler_limits_only_its_own_client) {
    // pool_rd throttled to 4/16 on bank 0; act_rd unthrottled on bank 0 too, weight 1 each:
    // act_rd gets every cycle pool_rd is throttled or loses the round robin; together they
    // use the bank every cycle.
    Params p = test::word_beats();
    p.throttler.pool_rd = {true, 16, 4};
    Kernel k(p);
    for (const char* n : {"pool_rd", "act_rd"}) {
        Request r;
        r.client = *k.client_index(n);
        r.partitions = 8;
        r.bytes = 8 * 10000;
        EXPECT_NE(k.submit(r), kNoRequest);
    }
    k.run_until(1600);
    const Stats& s = k.stats();
    EXPECT_EQ(s.clients[5].beats, 400u);
    EXPECT_EQ(s.clients[6].beats, 1200u);
    EXPECT_EQ(s.banks[0].busy, 1600u);
}

}  // namespace
}  // namespace sbufsim
