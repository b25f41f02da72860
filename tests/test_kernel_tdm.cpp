// TDM layer of the kernel (seed 000 §7.2): 1 DMA slot of 8, strict and work-conserving modes.
#include <gtest/gtest.h>

#include "sbufsim/kernel/kernel.h"
#include "kernel_clients.h"

namespace sbufsim {
namespace {

using test::id;

// act_rd: `beats` beats on the bank of partitions [first, first + 8) (bank first / 8).
Request compute(ClientId c, std::uint16_t first, std::uint32_t beats) {
    Request r;
    r.client = c;
    r.first_partition = first;
    r.partitions = 8;
    r.bytes = 8 * beats;
    return r;
}

// dma_0: one partition per beat, 32 B per beat (dma.data_width): partition 0 = bank 0.
Request dma(ClientId c, std::uint32_t beats) {
    Request r;
    r.client = c;
    r.first_partition = 0;
    r.partitions = 1;
    r.bytes = 32 * beats;
    return r;
}

Params tdm_params(bool strict) {
    Params p = test::word_beats();
    p.tdm.max_slots = 8;
    p.tdm.dma_slots = 1;
    p.tdm.strict = strict;
    return p;
}

TEST(KernelTdm, Strict_mode_gives_a_saturating_dma_client_exactly_one_slot_in_eight) {
    // act_rd and dma_0 saturate bank 0 for 8,000 cycles. Strict: slot 0 of every 8 belongs to
    // the DMA class alone, slots 1..7 to compute alone: dma_0 gets 1,000 beats, act_rd 7,000.
    // Each waits at most max_slots cycles: dma_0 7 in a row, act_rd 1.
    Kernel k(tdm_params(true));
    const auto act = id(k, "act_rd"), d0 = id(k, "dma_0");
    EXPECT_NE(k.submit(compute(act, 0, 7000)), kNoRequest);
    EXPECT_NE(k.submit(dma(d0, 6000)), kNoRequest);
    k.run_until(8000);
    const Stats& s = k.stats();
    EXPECT_EQ(s.clients[index(d0)].beats, 1000u);
    EXPECT_EQ(s.clients[index(act)].beats, 7000u);
    EXPECT_EQ(s.clients[index(d0)].stalls[static_cast<int>(StallCause::tdm)], 7000u);
    EXPECT_EQ(s.clients[index(act)].stalls[static_cast<int>(StallCause::tdm)], 1000u);
    EXPECT_EQ(s.clients[index(d0)].max_stall_run, 7u);
    EXPECT_EQ(s.clients[index(act)].max_stall_run, 1u);
    EXPECT_LE(s.clients[index(d0)].max_stall_run, 8u);
    EXPECT_EQ(s.tdm_slots[0].dma_used, 1000u);
    EXPECT_EQ(s.tdm_slots[0].compute_used, 0u);
    EXPECT_EQ(s.tdm_slots[3].compute_used, 1000u);
}

TEST(KernelTdm, Strict_mode_holds_the_dma_class_out_even_on_free_banks) {
    // Strict TDM is a time split, not a bank split: dma_0 on bank 0 with compute on bank 1 still
    // gets only slot 0 of each period: 100 of 800 cycles.
    Kernel k(tdm_params(true));
    const auto act = id(k, "act_rd"), d0 = id(k, "dma_0");
    EXPECT_NE(k.submit(compute(act, 8, 5000)), kNoRequest);
    EXPECT_NE(k.submit(dma(d0, 5000)), kNoRequest);
    k.run_until(800);
    EXPECT_EQ(k.stats().clients[index(d0)].beats, 100u);
}

TEST(KernelTdm, Work_conserving_dma_takes_its_slot_and_every_bank_compute_leaves_free) {
    // Compute (act_rd) alternates 1-beat requests on bank 0 and bank 1, back to back; dma_0
    // saturates bank 0. Stepping cycle by cycle: dma_0 moves in cycle t exactly when t is a DMA
    // slot (t mod 8 == 0: it has precedence) or compute's beat in t went to bank 1 (compute left
    // bank 0 free). Compute, in turn, loses only the DMA slots in which its beat wanted bank 0.
    Kernel k(tdm_params(false));
    const auto act = id(k, "act_rd"), d0 = id(k, "dma_0");
    for (int i = 0; i < 600; ++i) EXPECT_NE(k.submit(compute(act, (i % 2) ? 8 : 0, 1)), kNoRequest);
    EXPECT_NE(k.submit(dma(d0, 2000)), kNoRequest);
    std::uint64_t prev_act0 = 0, prev_dma = 0, free_cycles = 0, dma_slots = 0;
    for (Cycle t = 0; t < 400; ++t) {
        k.run_until(t + 1);
        const Stats& s = k.stats();
        const std::uint64_t act0 = s.banks[0].grants[index(act)];
        const std::uint64_t dmab = s.clients[index(d0)].beats;
        const bool compute_on_bank0 = act0 != prev_act0;
        const bool dma_slot = t % 8 == 0;
        const bool expected = dma_slot || !compute_on_bank0;
        EXPECT_EQ(dmab - prev_dma, expected ? 1u : 0u) << "cycle " << t;
        free_cycles += !dma_slot && !compute_on_bank0;
        dma_slots += dma_slot;
        prev_act0 = act0;
        prev_dma = dmab;
    }
    const Stats& s = k.stats();
    EXPECT_EQ(s.clients[index(d0)].beats, free_cycles + dma_slots);
    EXPECT_GT(free_cycles, 100u);  // compute is on bank 1 about half the time
    EXPECT_LE(s.clients[index(d0)].max_stall_run, 8u);
    EXPECT_LE(s.clients[index(act)].max_stall_run, 8u);
}

TEST(KernelTdm, Work_conserving_same_bank_waits_are_bounded_by_the_period) {
    // Both saturate bank 0: compute has precedence in 7 slots and takes bank 0, so dma_0 moves
    // only in slot 0 (1/8, waiting 7 cycles in a row: a TDM stall, not a bank conflict, since it
    // lost to the other class in that class's slot); compute waits 1 cycle per period.
    Kernel k(tdm_params(false));
    const auto act = id(k, "act_rd"), d0 = id(k, "dma_0");
    EXPECT_NE(k.submit(compute(act, 0, 9000)), kNoRequest);
    EXPECT_NE(k.submit(dma(d0, 7000)), kNoRequest);
    k.run_until(8000);
    const Stats& s = k.stats();
    EXPECT_EQ(s.clients[index(d0)].beats, 1000u);
    EXPECT_EQ(s.clients[index(d0)].stalls[static_cast<int>(StallCause::tdm)], 7000u);
    EXPECT_EQ(s.clients[index(act)].stalls[static_cast<int>(StallCause::tdm)], 1000u);
    EXPECT_EQ(s.clients[index(d0)].max_stall_run, 7u);
    EXPECT_EQ(s.clients[index(act)].max_stall_run, 1u);
    EXPECT_EQ(s.blocked(d0, act), 7000u);
}

TEST(KernelTdm, Same_class_loss_is_a_bank_conflict) {
    // dma_0 and dma_1 both on partition 0 (bank 0), no compute: round robin inside the DMA class
    // (tdm.dma_order = round_robin), every lost cycle is a bank conflict, never a TDM stall.
    Kernel k(tdm_params(false));
    const auto d0 = id(k, "dma_0"), d1 = id(k, "dma_1");
    EXPECT_NE(k.submit(dma(d0, 100)), kNoRequest);
    EXPECT_NE(k.submit(dma(d1, 100)), kNoRequest);
    ASSERT_EQ(k.run_to_completion(), RunStatus::reached);
    const Stats& s = k.stats();
    EXPECT_EQ(s.cycles, 200u);
    for (auto c : {d0, d1}) {
        EXPECT_EQ(s.clients[index(c)].stalls[static_cast<int>(StallCause::tdm)], 0u);
        EXPECT_GT(s.clients[index(c)].stalls[static_cast<int>(StallCause::bank_conflict)], 0u);
    }
}

}  // namespace
}  // namespace sbufsim
