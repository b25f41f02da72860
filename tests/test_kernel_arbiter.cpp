// Two-stage arbiter rules of the bank-conflict kernel (seed 000 §7.1): greedy bank grant,
// DWRR shares, strict priority, one stage-1 winner.
#include <gtest/gtest.h>

#include "sbufsim/kernel/kernel.h"
#include "kernel_clients.h"

namespace sbufsim {
namespace {

// Engine request on the ECC bank of partitions [first, first + 8) (HalfSelect::partition:
// bank = partition / 8) moving `beats` beats of width.engine_bytes = 8 B per partition.
Request engine(ClientId c, std::uint16_t first, std::uint32_t beats, Cycle issue = 0) {
    Request r;
    r.client = c;
    r.first_partition = first;
    r.partitions = 8;
    r.bytes = 8 * beats;
    r.issue = issue;
    return r;
}

using test::id;

TEST(KernelArbiter, Disjoint_banks_are_both_granted_every_cycle) {
    // pool_rd on bank 0, act_rd on bank 1, 1000 beats each from cycle 0. No bank is shared, so
    // both move one beat per cycle: each finishes in cycle 999 (latency 1000) with no stall.
    Kernel k(test::word_beats());
    const auto pool = id(k, "pool_rd"), act = id(k, "act_rd");
    EXPECT_NE(k.submit(engine(pool, 0, 1000)), kNoRequest);
    EXPECT_NE(k.submit(engine(act, 8, 1000)), kNoRequest);
    ASSERT_EQ(k.run_to_completion(), RunStatus::reached);
    const Stats& s = k.stats();
    EXPECT_EQ(s.cycles, 1000u);
    for (auto c : {pool, act}) {
        const auto& cs = s.clients[index(c)];
        EXPECT_EQ(cs.beats, 1000u);
        EXPECT_EQ(cs.total_stalls(), 0u);
        EXPECT_EQ(cs.latency.max(), 1000u);
    }
    // Cycle 0 grants both with 999 beats left in each run, so cycles 1..998 repeat it and are
    // taken in one leap; cycle 999 is evaluated again (the runs end there).
    EXPECT_EQ(s.stepped, 2u);
    EXPECT_EQ(s.banks[0].busy, 1000u);
    EXPECT_EQ(s.banks[1].busy, 1000u);
    EXPECT_EQ(s.banks[0].conflict_cycles, 0u);
}

TEST(KernelArbiter, Dwrr_weights_1_to_3_share_the_bank_25_75) {
    // Same bank, equal priority 0, weights pool_rd 1 : act_rd 3, both saturated for 10,000
    // cycles. DWRR: pool_rd is favoured for 1 grant, then act_rd for 3, so every 4 cycles
    // pool_rd gets 1 and act_rd 3: 2,500 / 7,500 exactly (the rule allows 1%).
    Params p = test::word_beats();
    p.arbiter.pool_rd = {0, 1};
    p.arbiter.act_rd = {0, 3};
    Kernel k(p);
    const auto pool = id(k, "pool_rd"), act = id(k, "act_rd");
    EXPECT_NE(k.submit(engine(pool, 0, 20000)), kNoRequest);
    EXPECT_NE(k.submit(engine(act, 0, 20000)), kNoRequest);
    k.run_until(10000);
    const Stats& s = k.stats();
    const double pool_share = static_cast<double>(s.clients[index(pool)].beats) / 10000.0;
    const double act_share = static_cast<double>(s.clients[index(act)].beats) / 10000.0;
    EXPECT_NEAR(pool_share, 0.25, 0.01);
    EXPECT_NEAR(act_share, 0.75, 0.01);
    EXPECT_EQ(s.clients[index(pool)].beats + s.clients[index(act)].beats, 10000u);
    // Every lost cycle is a bank conflict, charged to the winner.
    EXPECT_EQ(s.clients[index(pool)].stalls[static_cast<int>(StallCause::bank_conflict)], 7500u);
    EXPECT_EQ(s.blocked(pool, act), 7500u);
    EXPECT_EQ(s.blocked(act, pool), 2500u);
    EXPECT_EQ(s.banks[0].conflict_cycles, 10000u);
    EXPECT_NEAR(s.clients[index(act)].contended_share, 0.75, 0.01);
}

TEST(KernelArbiter, Strict_priority_starves_the_lower_client) {
    // act_rd priority 2 > pool_rd priority 0 on one bank: act_rd wins all 1,000 cycles, pool_rd
    // none, whatever the weights.
    Params p = test::word_beats();
    p.arbiter.act_rd = {2, 1};
    p.arbiter.pool_rd = {0, 15};
    Kernel k(p);
    const auto pool = id(k, "pool_rd"), act = id(k, "act_rd");
    EXPECT_NE(k.submit(engine(pool, 0, 5000)), kNoRequest);
    EXPECT_NE(k.submit(engine(act, 0, 5000)), kNoRequest);
    k.run_until(1000);
    const Stats& s = k.stats();
    EXPECT_EQ(s.clients[index(act)].beats, 1000u);
    EXPECT_EQ(s.clients[index(pool)].beats, 0u);
    EXPECT_EQ(s.clients[index(pool)].max_stall_run, 1000u);
}

TEST(KernelArbiter, Stage1_winner_reaches_stage2_alone) {
    // pe_client_0 on bank 0 and pe_client_1 on bank 1: the banks are free, but stage 1 lets one
    // PE client through per cycle. Equal weights alternate: 500 beats each in 1,000 cycles, and
    // the other 500 cycles of each are stage-1 losses.
    Kernel k(test::word_beats());
    const auto pe0 = id(k, "pe_client_0"), pe1 = id(k, "pe_client_1");
    EXPECT_NE(k.submit(engine(pe0, 0, 5000)), kNoRequest);
    EXPECT_NE(k.submit(engine(pe1, 8, 5000)), kNoRequest);
    k.run_until(1000);
    const Stats& s = k.stats();
    EXPECT_EQ(s.clients[index(pe0)].beats + s.clients[index(pe1)].beats, 1000u);
    EXPECT_EQ(s.clients[index(pe0)].beats, 500u);
    EXPECT_EQ(s.clients[index(pe0)].stalls[static_cast<int>(StallCause::stage1_loss)], 500u);
    EXPECT_EQ(s.clients[index(pe1)].stalls[static_cast<int>(StallCause::stage1_loss)], 500u);
}

TEST(KernelArbiter, Pe_rd_reset_priority_beats_the_engines_at_stage2) {
    // pe_rd resets to priority 1, pool_rd to 0 (seed 000 §7.1): on a shared bank the stage-1
    // winner always wins, so pool_rd moves only after the PE request's 100 beats.
    Kernel k(test::word_beats());
    const auto pe0 = id(k, "pe_client_0"), pool = id(k, "pool_rd");
    EXPECT_NE(k.submit(engine(pe0, 0, 100)), kNoRequest);
    EXPECT_NE(k.submit(engine(pool, 0, 100)), kNoRequest);
    ASSERT_EQ(k.run_to_completion(), RunStatus::reached);
    const Stats& s = k.stats();
    EXPECT_EQ(s.clients[index(pe0)].latency.max(), 100u);
    EXPECT_EQ(s.clients[index(pool)].latency.max(), 200u);
    EXPECT_EQ(s.blocked(pool, pe0), 100u);
}

TEST(KernelArbiter, Dve_and_gpsimd_exclusive_on_sbuf_when_the_rule_is_on) {
    // concurrency.dve_gpsimd_sbuf_exclusive (sunda): dve_rd and pool_rd on different banks may
    // not move in the same cycle. Equal priority and weight: they alternate (pool_rd first, it
    // has the lower index), so 100 beats each take 200 cycles. pool_rd finishes in cycle 198
    // after 99 lost cycles, dve_rd in cycle 199 after 100; every lost cycle is charged as a bank
    // conflict to the other client: 199 in all. With the rule off both finish in 100 cycles.
    for (bool rule : {true, false}) {
        Params p = test::word_beats();
        p.concurrency.dve_gpsimd_sbuf_exclusive = rule;
        Kernel k(p);
        const auto pool = id(k, "pool_rd"), dve = id(k, "dve_rd");
        EXPECT_NE(k.submit(engine(pool, 0, 100)), kNoRequest);
        EXPECT_NE(k.submit(engine(dve, 8, 100)), kNoRequest);
        ASSERT_EQ(k.run_to_completion(), RunStatus::reached);
        const Stats& s = k.stats();
        EXPECT_EQ(s.cycles, rule ? 200u : 100u);
        EXPECT_EQ(s.clients[index(pool)].latency.max(), rule ? 199u : 100u);
        EXPECT_EQ(s.blocked(dve, pool) + s.blocked(pool, dve), rule ? 199u : 0u);
    }
}

}  // namespace
}  // namespace sbufsim
