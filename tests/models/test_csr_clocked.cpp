// Host CSR writes over TLM during a clocked replay (ClockedOptions::csr_writes, tpb.h): a write of
// tdm_cfg or of an arbiter priority changes arbitration from the next cycle, exactly as if the
// configuration had said so from then on; a refused write stops the replay naming it.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "../report_json.h"
#include "../shipped.h"
#include "clocked_replay.h"
#include "sbufsim/output/report.h"
#include "tpb.h"

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
