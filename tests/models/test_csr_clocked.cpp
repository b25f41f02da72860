// Host CSR writes over TLM during a clocked replay (ClockedOptions::csr_writes, tpb.h): a write of
// tdm_cfg, an arbiter priority, a throttler or the PE-array sequencer's queue_cfg / arr_cluster_cfg
// acts from the next cycle, exactly as if the configuration had said so from then on; a refused
// write stops the replay naming it. (axi2sram_config and the ERG blocks: test_axi_master.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "../report_json.h"
#include "../shipped.h"
#include "models/replay/clocked_replay.h"
#include "sbufsim/output/report.h"
#include "models/top/tpb.h"

using namespace sbufsim;
using namespace sbufsim::models;

namespace {

using test::json_of;
Params params_with(const std::vector<std::pair<std::string, std::string>>& overrides) {
    return test::shipped_params("cayman", overrides);
}

ClockedRun clocked(const Params& p, const std::string& trace, std::vector<CsrWrite> writes) {
    ClockedOptions o;
    o.csr_writes = std::move(writes);
    return replay_clocked_trace(p, test::shipped(trace), {}, o);
}

constexpr std::uint64_t kTdmCfg = Tpb::kSbufClusterBase + models::Tdm::kBlockOffset;
constexpr std::uint64_t kStage2Prio = Tpb::kSbufClusterBase + SbufClusterCsr::kArbStage2Prio;

}  // namespace

// Cycle 0 is slot 0 under either split (a DMA slot), so a write in cycle 0 that acts from cycle 1
// must give the run the configuration would have given.
TEST(CsrClocked, Tdm_cfg_written_in_cycle_0_equals_the_configured_split) {
    const Params base = params_with({});
    const std::string trace = "dma_vs_compute.trc";
    const ReplayResult configured = replay_trace(params_with({{"tdm.dma_slots", "3"}}), test::shipped(trace));
    const ClockedRun written = clocked(base, trace, {{0, kTdmCfg, (3u << 16) | 8u}});
    EXPECT_EQ(json_of(written.result), json_of(configured));
    EXPECT_NE(json_of(replay_trace(base, test::shipped(trace))), json_of(configured))
        << "the trace must be one where the split matters";
}

TEST(CsrClocked, Arbiter_priority_written_in_cycle_0_equals_the_configured_priority) {
    const Params base = test::cayman_word_beats();
    Params prio = base;
    prio.arbiter.act_rd.prio = 7;
    prio.arbiter.pe_rd.prio = 0;
    const std::string trace = "act_vs_matmul_collide.trc";
    const ReplayResult configured = replay_trace(prio, test::shipped(trace));
    // arb_stage2.arb_prio: act_rd[6:4] = 7, pe_rd_client[18:16] = 0.
    const ClockedRun written = clocked(base, trace, {{0, kStage2Prio, 7u << 4}});
    EXPECT_EQ(json_of(written.result), json_of(configured));
    EXPECT_NE(json_of(replay_trace(base, test::shipped(trace))), json_of(configured))
        << "the trace must be one where the stage-2 priority matters";
}

// Halving the TDM period in cycle n: cycles 0..n count in the slots of the 8-slot period, cycles
// n+1.. in those of the 4-slot one.
TEST(CsrClocked, Tdm_period_changes_from_the_cycle_after_the_write) {
    const std::uint64_t n = 101;
    const ClockedRun r = clocked(params_with({}), "dma_vs_compute.trc", {{n, kTdmCfg, (1u << 16) | 4u}});
    const auto& slots = r.result.kernel.tdm_slots;
    ASSERT_EQ(slots.size(), 8u);
    std::uint64_t total = 0;
    for (const auto& s : slots) total += s.cycles;
    ASSERT_GT(total, 2 * n);
    std::vector<std::uint64_t> expected(8, 0);
    for (std::uint64_t t = 0; t < total; ++t) ++expected[t <= n ? t % 8 : t % 4];
    for (std::size_t s = 0; s < 8; ++s) EXPECT_EQ(slots[s].cycles, expected[s]) << "slot " << s;
}

TEST(CsrClocked, A_refused_write_stops_the_replay_naming_it) {
    try {
        (void)clocked(params_with({}), "dma_vs_compute.trc", {{5, kTdmCfg, (9u << 16) | 8u}});
        FAIL() << "tdm_dma_slots 9 > tdm_max_slots 8 was accepted";
    } catch (const std::invalid_argument& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("cycle 5"), std::string::npos) << m;
        EXPECT_NE(m.find("GENERIC_ERROR"), std::string::npos) << m;
    }
}

// ---- the throttlers (tpb_sbuf_pool_act) ---------------------------------------------------------

namespace {
std::uint64_t throttle_stalls(const Stats& s) {
    std::uint64_t n = 0;
    for (const ClientStats& c : s.clients) n += c.stalls[static_cast<std::size_t>(StallCause::throttle)];
    return n;
}
constexpr std::uint64_t kActRdCfg0 = Tpb::kPoolActBase + models::Throttler::kBlockStride + models::Throttler::kRdCfg0;
constexpr std::uint64_t kActRdCfg1 = Tpb::kPoolActBase + models::Throttler::kBlockStride + models::Throttler::kRdCfg1;
}  // namespace

// act_throttler.rd_throttle_cfg1 = 2 beats per 16-cycle window, then cfg0 enables it, in cycle 0:
// the run takes the configured throttle's cycles and its ACT reads wait on the bucket as they do
// there, but for one beat-cycle: the write acts from cycle 1, so a read granted in cycle 0 used no
// token of the bucket the kernel builds then (written in cycle 1 instead, 882 stalls, not 895).
TEST(CsrClocked, Act_rd_throttle_written_in_cycle_0_throttles_as_configured) {
    const std::string trace = "act_vs_matmul_collide.trc";
    const ReplayResult configured = replay_trace(
        params_with({{"throttler.act_rd.enable", "true"}, {"throttler.act_rd.window_len", "16"},
                     {"throttler.act_rd.transfer_cnt", "2"}}),
        test::shipped(trace));
    const ReplayResult plain = replay_trace(params_with({}), test::shipped(trace));
    const ClockedRun written =
        clocked(params_with({}), trace, {{0, kActRdCfg1, (2u << 16) | 16u}, {0, kActRdCfg0, 0}});
    ASSERT_EQ(throttle_stalls(plain.kernel), 0u);
    const std::uint64_t throttled = throttle_stalls(configured.kernel);
    ASSERT_GT(throttled, 0u);
    EXPECT_EQ(written.result.total_cycles, configured.total_cycles);
    EXPECT_NEAR(static_cast<double>(throttle_stalls(written.result.kernel)), static_cast<double>(throttled), 1.0);
}

// ---- the PE-array sequencer (arr_seq_top, arr_seq_cluster) --------------------------------------

namespace {
std::uint32_t queue_cfg_of(const Params& p) {
    ArrSeqTopCsr c;
    c.load(p.arr_seq);
    return c.csr_read(ArrSeqTopCsr::kQueueCfg);
}
std::uint32_t arr_cluster_cfg_of(const Params& p) {
    ArrSeqClusterCsr c;
    c.load(p.arr_seq);
    return c.csr_read(ArrSeqClusterCsr::kArrClusterCfg);
}
constexpr std::uint64_t kQueueCfg = Tpb::kArrSeqTopBase + ArrSeqTopCsr::kQueueCfg;
constexpr std::uint64_t kArrClusterCfg = Tpb::kArrSeqClusterBase + ArrSeqClusterCsr::kArrClusterCfg;
constexpr std::uint32_t kDisableDependencyCheck = 1u << 8;  // queue_cfg[8]
constexpr std::uint32_t kEnInterInstrDly = 1u << 12;         // arr_cluster_cfg[12]
}  // namespace

// en_inter_instr_dly / inter_instr_dly_cnt act when the array is released, never in cycle 0:
// written then, the run is the configured one.
TEST(CsrClocked, Arr_seq_inter_instruction_delay_written_in_cycle_0_equals_the_configured_one) {
    const std::string trace = "matmul_kloop.trc";
    const Params base = params_with({});
    const ReplayResult configured = replay_trace(
        params_with({{"arr_seq.en_inter_instr_dly", "true"}, {"arr_seq.inter_instr_dly_cnt", "20"}}),
        test::shipped(trace));
    const std::uint32_t cfg = (arr_cluster_cfg_of(base) & ~(0x3fu << 16)) | kEnInterInstrDly | (20u << 16);
    const ClockedRun written = clocked(base, trace, {{0, kArrClusterCfg, cfg}});
    EXPECT_EQ(json_of(written.result), json_of(configured));
    EXPECT_GT(configured.total_cycles, replay_trace(base, test::shipped(trace)).total_cycles)
        << "a delay between instructions must cost cycles on this trace";
}

// Written halfway, the check is off for only part of the run: the cycles land strictly between
// the run without the write and the run with it from the start.
TEST(CsrClocked, Arr_seq_dependency_check_written_mid_run_acts_from_then_on) {
    const std::string trace = "matmul_kloop.trc";
    const Params base = params_with({});
    const Cycle plain = replay_trace(base, test::shipped(trace)).total_cycles;
    const std::uint32_t off = queue_cfg_of(base) | kDisableDependencyCheck;
    const Cycle from_start = clocked(base, trace, {{0, kQueueCfg, off}}).result.total_cycles;
    const Cycle halfway = clocked(base, trace, {{plain / 2, kQueueCfg, off}}).result.total_cycles;
    ASSERT_NE(plain, from_start);
    EXPECT_GT(halfway, std::min(plain, from_start));
    EXPECT_LT(halfway, std::max(plain, from_start));
}
