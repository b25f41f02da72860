// Engine-level timing under the clocked scheduler (models/clocked_replay.h), on small hand-written
// traces whose expected numbers are derived in the comments from docs/engines.md, docs/kernel.md,
// src/engines/arr_seq.cpp and the shipped generation files:
//   - a back-to-back Matmul stream reaches the cost-model initiation interval max(N, 64) PE
//     cycles (x4 for fp32 moving data);
//   - an ACT access and a matmul's moving read conflict on the same SBUF quadrant, not on
//     disjoint ones;
//   - a DMA burst meets compute at the banks only in the cycles its TDM setting lets both in;
//   - a BEGIN zeroes the banks of its zero region, and a zero region the generation does not
//     have is refused.
// Every case also replays under the fast scheduler (replay.h), which must give the same total.
//
// Numbers used throughout (configs/cayman.ini unless stated): PE clock 2.4 GHz = one kernel
// cycle; ACT 1.2 GHz (one ACT cycle = 2 kernel cycles); width.engine_bytes 32, so a compute or
// PE beat is 32 B of every partition of its request, and an instruction's operand reaches the
// banks in width.stream_chunks = 8 evenly spaced bursts; PSUM beats are 16 B; dma.data_width 32
// and width.dma_partitions 1, so a DMA beat is 32 B of one partition; SBUF bank =
// (partition / 16) x 2 + (partition / 8) % 2, so quadrant q (partitions 32q..32q+31) is banks
// 4q..4q+3; arr_seq stagger timers 0, inter-instruction delay off, p2fifo_af 2. Sections 2 and 3
// count in single 8-byte-word beats, one burst per request (kWordBeats), so that every beat of
// a conflict can be followed by hand.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

#include "../shipped.h"
#include "../temp_files.h"
#include "models/replay/clocked_replay.h"

using namespace sbufsim;
using namespace sbufsim::models;

namespace {

using Overrides = std::vector<std::pair<std::string, std::string>>;

// One 8-byte ECC word per beat and each request in one burst (the seed-literal beat).
const Overrides kWordBeats{{"width.engine_bytes", "8"}, {"width.psum_bytes", "8"}, {"width.stream_chunks", "1"}};

Params params_for(const std::string& gen, const Overrides& overrides = {}) {
    return test::shipped_params(gen, overrides);
}

// A trace in the temporary directory, named with the pid so that test processes running in
// parallel do not share files; removed when the test is done with it.
class TempTrace {
public:
    TempTrace(const std::string& name, const std::string& text) : path_(test::temp("engines_" + name)) {
        std::ofstream(path_) << text;
    }
    ~TempTrace() { std::filesystem::remove(path_); }
    TempTrace(const TempTrace&) = delete;
    TempTrace& operator=(const TempTrace&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

std::string hex(std::uint64_t v) {
    std::ostringstream os;
    os << "0x" << std::hex << v;
    return os.str();
}

// The clocked run is the one under test; the fast replay of the same trace must end on the same
// cycle.
ReplayResult run_clocked(const Params& p, const std::string& path) {
    const ReplayResult fast = replay_trace(p, path);
    const ClockedRun clocked = replay_clocked_trace(p, path);
    EXPECT_EQ(clocked.result.total_cycles, fast.total_cycles) << path << ": the schedulers disagree";
    return clocked.result;
}

std::size_t client_index(const Stats& s, const std::string& name) {
    for (std::size_t i = 0; i < s.clients.size(); ++i)
        if (s.clients[i].name == name) return i;
    ADD_FAILURE() << "no client " << name;
    return 0;
}

const ClientStats& client(const Stats& s, const std::string& name) { return s.clients[client_index(s, name)]; }

std::uint64_t stalls(const Stats& s, const std::string& name, StallCause c) {
    return client(s, name).stalls[static_cast<std::size_t>(c)];
}

std::uint64_t total_stalls(const Stats& s, StallCause c) {
    std::uint64_t n = 0;
    for (const auto& cl : s.clients) n += cl.stalls[static_cast<std::size_t>(c)];
    return n;
}

// Stalled cycles of `victim` charged to `winner` holding one of its banks.
std::uint64_t blocked(const Stats& s, const std::string& victim, const std::string& winner) {
    return s.blocked_by[client_index(s, victim) * s.clients.size() + client_index(s, winner)];
}

const EngineStats& engine(const ReplayResult& r, const std::string& name) {
    for (const auto& e : r.engines)
        if (e.name == name) return e;
    ADD_FAILURE() << "no engine " << name;
    return r.engines.front();
}

// ---- 1. Matmul initiation interval ---------------------------------------------------------------

// One LdWeights (128 x 128) then `count` matmuls of 128 rows x `free` moving elements of `dtype`
// into successive PSUM banks, each a single-tile group (acc_flags single).
std::string matmul_stream(const std::string& dtype, std::uint32_t free, std::uint32_t count) {
    const std::uint32_t elem = dtype == "fp32" ? 4 : 2;
    std::ostringstream os;
    os << "sbufsim-trace 1 gen=cayman\n";
    os << "ldweights queue=qPE0 src=" << dtype << "@0x10000[1][128] rows=128 cols=128\n";
    for (std::uint32_t k = 0; k < count; ++k)
        os << "matmul queue=qPE0 src=" << dtype << "@" << hex(std::uint64_t{k} * free * elem) << "[1][" << free
           << "] dst=fp32@" << hex(0x2000000u + 0x800u * (k % 8)) << "[1][" << free
           << "] num_active_rows=128 num_active_cols=128\n";
    return os.str();
}

TEST(MatmulStream, Bf16_free_size_512_streams_at_the_cost_model_ii) {
    const TempTrace t("mm_bf16_512.trc", matmul_stream("bf16", 512, 8));
    // exact matmul cycles: the ramp off (test::no_ramp)
    const ReplayResult r = run_clocked(test::no_ramp(params_for("cayman")), t.path());
    // ii = max(512, 64) = 512 PE cycles per matmul: 8 x 512 = 4096 streaming cycles.
    EXPECT_EQ(r.arr_seq.matmuls, 8u);
    EXPECT_EQ(r.arr_seq.ldweights, 1u);
    ASSERT_EQ(r.arr_seq.shapes.size(), 1u);
    EXPECT_EQ(r.arr_seq.shapes[0], (std::pair<std::string, std::uint64_t>{"128x128", 8}));
    EXPECT_EQ(r.arr_seq.pe_stream, 4096u);
    // Each matmul's moving read is 128 partitions x 1024 B, one 32-partition request per row
    // group on pe_client_0..3: 4 x 32 beats of 32 B, in 8 bursts of 4 beats per row group, the
    // bursts 64 cycles apart. Stage 1 admits one PE beat per cycle, so a burst round (16 beats)
    // takes 16 of its 64 cycles: the data keeps pace with the cost model, the array is never
    // held past ii (busy = stream, no bank stall) and nothing conflicts.
    EXPECT_EQ(r.arr_seq.pe_busy, 4096u);
    EXPECT_EQ(engine(r, "arr_seq").bank_wait, 0u);
    for (const char* pe : {"pe_client_0", "pe_client_1", "pe_client_2", "pe_client_3"})
        EXPECT_EQ(client(r.kernel, pe).beats, 8u * 32) << pe;
    EXPECT_EQ(total_stalls(r.kernel, StallCause::bank_conflict), 0u);
    // In a burst round the row groups take turns (DWRR, weight 1): the k-th in turn (k = 0..3)
    // gets its 4 beats at t + k + 4j, j = 0..3, its last at t + 12 + k, so it is charged
    // 12 + k + 1 - 4 = 9 + k stage-1 losses: 42 per round, 8 rounds per matmul, 2688 for 8.
    EXPECT_EQ(total_stalls(r.kernel, StallCause::stage1_loss), 2688u);
    // Start-up: the first matmul waits for the LdWeights, ceil(128 cols / 4) = 32 PE cycles (fast
    // LoadStationary; its 8 beats of 128 partitions x 256 B on pe_client_4 fit in that). Then the
    // matmuls start back to back at 32 + 512k. The last one's PSUM write (128 partitions x
    // 2048 B = 128 beats of 16 B) is issued pe_drain_latency = 128 cycles after its start and
    // granted by start + 256, before the array releases it at start + 512, so the run ends at
    // 32 + 8 x 512 = 4128.
    EXPECT_EQ(r.arr_seq.weight_wait, 32u);
    EXPECT_EQ(r.total_cycles, 32u + 4096u);
    EXPECT_EQ(engine(r, "arr_seq").busy, 4128u);
    // PSUM drains never exceed one queued write: no p2fifo back-pressure.
    EXPECT_EQ(r.arr_seq.backpressure_cycles, 0u);
}

TEST(MatmulStream, Free_size_32_costs_the_64_cycle_floor) {
    const TempTrace t32("mm_bf16_32.trc", matmul_stream("bf16", 32, 8));
    const TempTrace t64("mm_bf16_64.trc", matmul_stream("bf16", 64, 8));
    // exact matmul cycles: the ramp off (test::no_ramp)
    const ReplayResult r = run_clocked(test::no_ramp(params_for("cayman")), t32.path());
    const ReplayResult r64 = run_clocked(test::no_ramp(params_for("cayman")), t64.path());
    // ii = max(32, 64) = 64 PE cycles: 8 x 64 = 512, the same cost-model sum as free size 64.
    EXPECT_EQ(r.arr_seq.matmuls, 8u);
    EXPECT_EQ(r.arr_seq.pe_stream, 8u * 64);
    EXPECT_EQ(r.arr_seq.pe_stream, r64.arr_seq.pe_stream);
    // A PSUM write of free size 64 (128 partitions x 64 fp32 = 256 B per partition / 16 B = 16
    // beats) enters the p2fifo only when issued, 128 cycles after its matmul started, one every
    // 64 cycles, and drains in 16: at most one waits at a time, never more than p2fifo_af = 2,
    // so no back-pressure and the array keeps the cost-model pace. The LdWeights takes
    // ceil(128 / 4) = 32 cycles; the last matmul starts at 32 + 7 x 64 = 480, its write issues at
    // 608, is granted 608..623 and seen at 624.
    EXPECT_EQ(r64.arr_seq.backpressure_cycles, 0u);
    EXPECT_EQ(r64.arr_seq.pe_busy, 8u * 64);
    EXPECT_EQ(r64.total_cycles, 624u);
    // The moving read is 4 row groups x 32 partitions x 64 B = 4 x 2 beats of 32 B: the floor,
    // not the data, holds each matmul for 64 cycles.
    EXPECT_EQ(client(r.kernel, "pe_client_0").beats, 8u * 2);
    EXPECT_EQ(r.arr_seq.pe_busy, 8u * 64);
    EXPECT_EQ(engine(r, "arr_seq").bank_wait, 0u);
    // The last matmul (k = 7) starts at 480; its PSUM write, 128 partitions x 32 fp32 = 128 B =
    // 8 beats, is issued 128 cycles later at 608, granted 608..615, and the matmul completes
    // when that is seen, at 616.
    EXPECT_EQ(r.total_cycles, 616u);
}

TEST(MatmulStream, Fp32_moving_data_costs_four_times_bf16) {
    const TempTrace tf("mm_fp32_512.trc", matmul_stream("fp32", 512, 8));
    const TempTrace tb("mm_bf16_512.trc", matmul_stream("bf16", 512, 8));
    // exact matmul cycles: the ramp off (test::no_ramp)
    const ReplayResult f = run_clocked(test::no_ramp(params_for("cayman")), tf.path());
    const ReplayResult b = run_clocked(test::no_ramp(params_for("cayman")), tb.path());
    // ii = max(512, 64) x 4 = 2048 PE cycles: 8 x 2048 = 16384 = 4 x the bf16 stream's 4096.
    EXPECT_EQ(f.arr_seq.pe_stream, 16384u);
    EXPECT_EQ(f.arr_seq.pe_stream, 4 * b.arr_seq.pe_stream);
    // The fp32 moving read is 4 x 32 partitions x 2048 B = 256 beats of 32 B: no stretch.
    EXPECT_EQ(f.arr_seq.pe_busy, 16384u);
    EXPECT_EQ(engine(f, "arr_seq").bank_wait, 0u);
    // The fp32 LdWeights costs ceil(128 / 4) x 4 = 128 cycles before the first matmul; the last
    // matmul starts at 128 + 7 x 2048 and its 128-beat PSUM write is done long before its ii
    // ends: 128 + 16384 = 16512.
    EXPECT_EQ(f.arr_seq.weight_wait, 128u);
    EXPECT_EQ(f.total_cycles, 128u + 16384u);
}

// ---- 2. ACT vs a matmul's moving read ------------------------------------------------------------

// LdWeights 32 x 32 and one 32-row matmul (row_grp q0: moving data in partitions 0..31, SBUF
// banks 0..3) with an ACT copy of 32 partitions x 64 bf16 reading `act_src` and writing `act_dst`.
std::string act_vs_matmul(std::uint32_t act_src, std::uint32_t act_dst) {
    return "sbufsim-trace 1 gen=cayman\n"
           "ldweights queue=qPE0 src=bf16@0x0[1][32] rows=32 cols=32\n"
           "matmul queue=qPE0 src=bf16@0x8000[1][512] dst=fp32@0x2000000[1][512] num_active_rows=32 "
           "num_active_cols=32 row_grp=q0 col_grp=q0\n"
           "act queue=qAct0 src=bf16@" + hex(act_src) + "[1][64] dst=bf16@" + hex(act_dst) +
           "[1][64] partitions=32 fn=copy\n";
}

// Timeline shared by both cases (kWordBeats: 8-byte beats, one burst per request):
//   - LdWeights: ceil(32 / 4) = 8 cycles (fast LoadStationary); its 8 beats (32 partitions x
//     64 B) on pe_client_4 at 0..7.
//   - Matmul: starts at 8; 128 beats (32 partitions x 1024 B) on pe_client_0 at 8..135;
//     ii max(512, min(64, 32)) = 512, so the array releases it at 520 (its 256-beat PSUM write,
//     136..391, is done by then).
//   - ACT (a one-input copy, N = 64): initiation interval max(64, 64) = 64 ACT cycles = 128
//     kernel cycles. Its 16 read beats (32 partitions x 128 B) are issued at its start, 0; its
//     16 write beats trail by the access set-up, 60 ACT cycles = 120 kernel cycles. Its signal,
//     and so the end of the run, is at 64 + 265 (dependent turnaround) = 329 ACT cycles = 658.

TEST(QuadrantConflict, Act_and_a_matmul_moving_read_on_the_same_quadrant_conflict) {
    // ACT reads partitions 0..31 (q0, the matmul's quadrant) and writes 32..63 (q1).
    const TempTrace t("act_mm_same.trc", act_vs_matmul(0x18000, 0x818000));
    // the conflict's cycles as the stream runs without the ramp
    const ReplayResult r = run_clocked(test::no_ramp(params_for("cayman", kWordBeats)), t.path());
    // act_rd is ready from 0 but pe_rd (stage-2 priority 1 over act_rd's 0) holds banks 0..3,
    // for the LdWeights 0..7 and then for the moving read until 135: 136 bank-conflict stalls,
    // 8 charged to pe_client_4 and 128 to pe_client_0, the stage-1 winners pe_rd stood for.
    EXPECT_EQ(stalls(r.kernel, "act_rd", StallCause::bank_conflict), 136u);
    EXPECT_EQ(blocked(r.kernel, "act_rd", "pe_client_0"), 128u);
    EXPECT_EQ(blocked(r.kernel, "act_rd", "pe_client_4"), 8u);
    // The PE wins every one of those cycles: its reads are never stalled.
    EXPECT_EQ(client(r.kernel, "pe_client_0").total_stalls(), 0u);
    EXPECT_EQ(blocked(r.kernel, "pe_client_0", "act_rd"), 0u);
    EXPECT_EQ(engine(r, "arr_seq").bank_wait, 0u);
    // The write side (q1) never meets the matmul.
    EXPECT_EQ(stalls(r.kernel, "act_wr", StallCause::bank_conflict), 0u);
    // Each of banks 0..3 saw two beats wanting it in those 136 cycles; q1's banks none.
    for (std::uint32_t b = 0; b < 4; ++b) EXPECT_EQ(r.kernel.banks[b].conflict_cycles, 136u) << "sbuf_" << b;
    for (std::uint32_t b = 4; b < 16; ++b) EXPECT_EQ(r.kernel.banks[b].conflict_cycles, 0u) << "sbuf_" << b;
    // ACT's reads end at 136 + 16 = 152, past its 128-cycle initiation interval: the conflict
    // holds the ACT 24 cycles longer (its bank wait). Its signal is still due at 658.
    EXPECT_EQ(engine(r, "act").bank_wait, 24u);
    EXPECT_EQ(r.total_cycles, 658u);
}

TEST(QuadrantConflict, Disjoint_quadrants_do_not_conflict) {
    // ACT reads partitions 64..95 (q2) and writes 96..127 (q3); the matmul reads q0.
    const TempTrace t("act_mm_apart.trc", act_vs_matmul(0x1018000, 0x1818000));
    // the stream's cycles without the ramp
    const ReplayResult r = run_clocked(test::no_ramp(params_for("cayman", kWordBeats)), t.path());
    EXPECT_EQ(total_stalls(r.kernel, StallCause::bank_conflict), 0u);
    for (const char* act : {"act_rd", "act_wr"})
        for (const char* pe : {"pe_client_0", "pe_client_4"}) {
            EXPECT_EQ(blocked(r.kernel, act, pe), 0u) << act << " by " << pe;
            EXPECT_EQ(blocked(r.kernel, pe, act), 0u) << pe << " by " << act;
        }
    for (const auto& b : r.kernel.banks) EXPECT_EQ(b.conflict_cycles, 0u) << b.name;
    // Same work as the colliding case: 16 + 16 ACT beats, 128 moving beats, the same end at
    // the ACT's signal (658), and no bank stall for the ACT.
    EXPECT_EQ(client(r.kernel, "act_rd").beats, 16u);
    EXPECT_EQ(client(r.kernel, "act_wr").beats, 16u);
    EXPECT_EQ(client(r.kernel, "pe_client_0").beats, 128u);
    EXPECT_EQ(engine(r, "act").bank_wait, 0u);
    EXPECT_EQ(r.total_cycles, 658u);
}

TEST(QuadrantConflict, Shipped_collide_and_disjoint_traces) {
    // traces/act_vs_matmul_*.trc: eight 32-row q0 matmuls with ACT copies writing q0 (collide)
    // or reading q2 and writing q3 (disjoint). Every bank-conflict stall of the colliding trace
    // is act_wr losing to the moving read; the disjoint one has none.
    const Params p = params_for("cayman", kWordBeats);
    const ReplayResult same = run_clocked(p, test::shipped("act_vs_matmul_collide.trc"));
    const ReplayResult apart = run_clocked(p, test::shipped("act_vs_matmul_disjoint.trc"));
    EXPECT_GT(blocked(same.kernel, "act_wr", "pe_client_0"), 0u);
    EXPECT_EQ(blocked(same.kernel, "act_wr", "pe_client_0"), total_stalls(same.kernel, StallCause::bank_conflict));
    EXPECT_EQ(total_stalls(apart.kernel, StallCause::bank_conflict), 0u);
    EXPECT_EQ(blocked(apart.kernel, "act_wr", "pe_client_0"), 0u);
    EXPECT_EQ(blocked(apart.kernel, "act_rd", "pe_client_0"), 0u);
}

// ---- 3. DMA burst vs compute under TDM -----------------------------------------------------------

// One DMA descriptor HBM -> SBUF, 32 partitions x 1024 B at partitions 0..31 (SBUF banks 0..3),
// and ACT read-port traffic of 32 partitions x 8192 B at partition `act_partition` issued at
// cycle 2400. The DMA starts when its start-up has passed: 1000 ns x 2.4 GHz = 2400 cycles, so
// both begin at cycle 2400, which is TDM slot 2400 mod 8 = 0.
//   dma_0:  32 partitions x 1024 B / 32 B = 1024 beats, one partition each (bank 0..3);
//           cost model 32 x 1024 B / 27 GB/s x 2.4 GHz = 2912.7 -> 2913 cycles.
//   act_rd: 32 partitions x 8192 B / 8 B = 1024 beats, each over all 32 partitions.
std::string dma_vs_act(std::uint32_t act_partition) {
    return "sbufsim-trace 1 gen=cayman\n"
           "dma queue=qSyncIO0 engine=0 src=hbm dst=bf16@0x0 partitions=32 bytes=1024\n"
           "2400 act_rd rd " + hex(0x40000u * act_partition + 0x10000u) + " 32 8192\n";
}

// The DMA engine of these cases has no per-transfer fixed cost, no trigger cost and no shared HBM
// limit, runs at 27 GB/s after a 1000 ns start-up, so that its cost model is bytes / bandwidth alone.
Overrides tdm_case(const char* strict) {
    Overrides o = kWordBeats;
    o.insert(o.end(), {{"tdm.strict", strict}, {"tdm.dma_slots", "1"}, {"tdm.max_slots", "8"},
                       {"dma.xfer_fixed_ns", "0"}, {"dma.pkt_min_ns", "0"}, {"dma.hbm_gbps", "0"},
                       {"dma.engine_gbps", "27"}, {"timing.dma_startup_ns", "1000"},
                       {"dma.static_trigger_cycles", "0"}});
    return o;
}
const Overrides kStrict = tdm_case("true");
const Overrides kWorkConserving = tdm_case("false");

// Strict TDM, 1 DMA slot of 8: slot 0 (cycle mod 8 = 0) admits only the DMA class, slots 1..7
// only compute, whatever the banks.
//   act_rd: 7 beats per 8 cycles; 1024 = 146 x 7 + 2, so 147 beats in each of slots 1 and 2
//           and 146 in slots 3..7, the last at 2400 + 146 x 8 + 2 = 3570; held out of the 147
//           slot-0 cycles it was ready in (2400, 2408, .., 3568): 147 TDM stalls.
//   dma_0:  one beat per slot-0 cycle, 2400 + 8j for j = 0..1023, the last at 10584; ready
//           2400..10584 = 8185 cycles, so 8185 - 1024 = 7161 TDM stalls. It completes at 10585,
//           5272 cycles past its cost-model end 2400 + 2913.
void expect_strict_split(const ReplayResult& r) {
    ASSERT_EQ(r.kernel.tdm_slots.size(), 8u);
    EXPECT_EQ(r.kernel.tdm_slots[0].dma_used, 1024u);
    EXPECT_EQ(r.kernel.tdm_slots[0].compute_used, 0u);
    for (std::size_t s = 1; s < 8; ++s) {
        EXPECT_EQ(r.kernel.tdm_slots[s].dma_used, 0u) << "slot " << s;
        EXPECT_EQ(r.kernel.tdm_slots[s].compute_used, s <= 2 ? 147u : 146u) << "slot " << s;
    }
    EXPECT_EQ(stalls(r.kernel, "act_rd", StallCause::tdm), 147u);
    EXPECT_EQ(stalls(r.kernel, "dma_0", StallCause::tdm), 7161u);
    // The classes never reach the banks in the same cycle, so neither ever blocks the other.
    EXPECT_EQ(blocked(r.kernel, "dma_0", "act_rd"), 0u);
    EXPECT_EQ(blocked(r.kernel, "act_rd", "dma_0"), 0u);
    EXPECT_EQ(total_stalls(r.kernel, StallCause::bank_conflict), 0u);
    EXPECT_EQ(r.total_cycles, 2400u + 8u * 1023 + 1);
    EXPECT_EQ(engine(r, "dma_0").bank_wait, 10585u - (2400u + 2913u));
}

TEST(TdmDma, Strict_one_dma_slot_keeps_the_classes_apart_on_shared_banks) {
    const TempTrace t("tdm_strict_shared.trc", dma_vs_act(0));
    expect_strict_split(run_clocked(params_for("cayman", kStrict), t.path()));
}

TEST(TdmDma, Strict_one_dma_slot_keeps_the_classes_apart_on_disjoint_banks_too) {
    // act_rd on partitions 96..127 (banks 12..15): no bank in common with the DMA, yet the
    // strict gate gives exactly the same split: the slot, not the banks, decides.
    const TempTrace t("tdm_strict_apart.trc", dma_vs_act(96));
    expect_strict_split(run_clocked(params_for("cayman", kStrict), t.path()));
}

TEST(TdmDma, Work_conserving_dma_takes_compute_slots_when_compute_leaves_the_banks) {
    const TempTrace t("tdm_wc_shared.trc", dma_vs_act(0));
    const ReplayResult r = run_clocked(params_for("cayman", kWorkConserving), t.path());
    // Shared banks 0..3, every act_rd beat covering all four. Slot 0 gives the DMA class
    // precedence: the DMA takes the banks and act_rd loses the slot; slots 1..7 give compute
    // precedence: act_rd takes them and the DMA loses. Both losses are to the other class in its
    // precedence slot, so both are TDM stalls, and each is recorded against the other client.
    //   act_rd: as under strict TDM, 147 / 147 / 146 x 5 beats in slots 1..7, done at
    //           2400 + 1170; 147 slot-0 losses.
    //   dma_0:  147 slot-0 beats (2400 + 8j, j = 0..146) while act_rd runs, 1024 losses
    //           (2400..3570 is 1171 cycles, 147 of them won), then the remaining 877 beats
    //           every cycle from 3571 to 4447. Those fill slots 3..7 of the group starting at
    //           3568 and then 109 whole groups (3576..4447).
    //   => slot 0: DMA 147 + 109 = 256; slots 1, 2: compute 147, DMA 109; slots 3..7: compute
    //      146, DMA 110.
    ASSERT_EQ(r.kernel.tdm_slots.size(), 8u);
    EXPECT_EQ(r.kernel.tdm_slots[0].dma_used, 256u);
    EXPECT_EQ(r.kernel.tdm_slots[0].compute_used, 0u);
    for (std::size_t s = 1; s < 8; ++s) {
        EXPECT_EQ(r.kernel.tdm_slots[s].compute_used, s <= 2 ? 147u : 146u) << "slot " << s;
        EXPECT_EQ(r.kernel.tdm_slots[s].dma_used, s <= 2 ? 109u : 110u) << "slot " << s;
    }
    EXPECT_EQ(stalls(r.kernel, "act_rd", StallCause::tdm), 147u);
    EXPECT_EQ(stalls(r.kernel, "dma_0", StallCause::tdm), 1024u);
    EXPECT_EQ(blocked(r.kernel, "act_rd", "dma_0"), 147u);
    EXPECT_EQ(blocked(r.kernel, "dma_0", "act_rd"), 1024u);
    EXPECT_EQ(total_stalls(r.kernel, StallCause::bank_conflict), 0u);
    // The kernel is done at 4448, before the DMA's cost model (2400 + 2913 = 5313) ends: the
    // descriptor takes its bandwidth time, not more.
    EXPECT_EQ(engine(r, "dma_0").bank_wait, 0u);
    EXPECT_EQ(r.total_cycles, 2400u + 2913u);
}

TEST(TdmDma, Work_conserving_dma_uses_every_slot_on_free_banks) {
    // act_rd on banks 12..15, the DMA on banks 0..3: in work-conserving mode each class uses
    // the banks the other leaves free in every slot, so both move one beat per cycle from 2400
    // to 3423 (1024 cycles = 128 of each slot) and nobody waits.
    const TempTrace t("tdm_wc_apart.trc", dma_vs_act(96));
    const ReplayResult r = run_clocked(params_for("cayman", kWorkConserving), t.path());
    ASSERT_EQ(r.kernel.tdm_slots.size(), 8u);
    for (std::size_t s = 0; s < 8; ++s) {
        EXPECT_EQ(r.kernel.tdm_slots[s].dma_used, 128u) << "slot " << s;
        EXPECT_EQ(r.kernel.tdm_slots[s].compute_used, 128u) << "slot " << s;
    }
    EXPECT_EQ(client(r.kernel, "dma_0").total_stalls(), 0u);
    EXPECT_EQ(client(r.kernel, "act_rd").total_stalls(), 0u);
    EXPECT_EQ(r.total_cycles, 2400u + 2913u);
}

// ---- 4. BEGIN and the zero region ----------------------------------------------------------------

struct ZeroCase {
    std::string gen;
    std::uint32_t zero_region;
};

void PrintTo(const ZeroCase& c, std::ostream* os) { *os << c.gen << " zero_region=" << c.zero_region; }

// One BEGIN matmul (128 x 512 bf16) into PSUM bank 0 with the given zero region. The result
// (2048 B per partition at offset 0) lies inside every zero region, so only the zero_region rule
// itself can refuse it.
std::string begin_matmul(const ZeroCase& c) {
    return "sbufsim-trace 1 gen=" + c.gen +
           "\nmatmul queue=qPE0 src=bf16@0x0[1][512] dst=fp32@0x2000000[1][512] num_active_rows=128 "
           "num_active_cols=128 acc_flags=begin zero_region=" + std::to_string(c.zero_region) + "\n";
}

class ZeroRegion : public ::testing::TestWithParam<ZeroCase> {};

// isa.matmul_zero_region_max: sunda 0, cayman 0 (SIZE2048 only), mariana 3 (SIZE2048..SIZE16384),
// seed 000 §5.3. psum.bank_size is 2048 on all three, so zero_region Z covers
// (2048 << Z) / 2048 = 2^Z banks.
TEST_P(ZeroRegion, Begin_zeroes_its_region_or_the_checker_refuses_it) {
    const ZeroCase& c = GetParam();
    // exact matmul cycles: the ramp off (test::no_ramp)
    const Params p = test::no_ramp(params_for(c.gen));
    ASSERT_EQ(p.psum.bank_size, 2048u);
    const std::uint32_t max = c.gen == "mariana" ? 3 : 0;
    ASSERT_EQ(p.isa.matmul_zero_region_max, max);
    const TempTrace t("zero_" + c.gen + "_" + std::to_string(c.zero_region) + ".trc", begin_matmul(c));
    if (c.zero_region <= max) {
        const ReplayResult r = run_clocked(p, t.path());
        EXPECT_EQ(r.arr_seq.groups_begun, 1u);
        EXPECT_EQ(r.arr_seq.psum_banks_zeroed, std::uint64_t{1} << c.zero_region);
        EXPECT_EQ(r.arr_seq.psum_write_bytes, 128u * 2048);
        // A lone matmul: ii 512, its 128-beat PSUM write (128..255) done before the array
        // releases it.
        EXPECT_EQ(r.total_cycles, 512u);
        return;
    }
    // Both schedulers refuse the record before simulating, with the same checker error on line 2
    // naming zero_region.
    std::string fast, clocked;
    try {
        replay_trace(p, t.path());
        ADD_FAILURE() << "the fast replay accepted zero_region " << c.zero_region << " on " << c.gen;
    } catch (const ReplayError& e) {
        fast = e.what();
    }
    try {
        replay_clocked_trace(p, t.path());
        ADD_FAILURE() << "the clocked replay accepted zero_region " << c.zero_region << " on " << c.gen;
    } catch (const ReplayError& e) {
        EXPECT_EQ(e.kind(), ReplayError::Kind::invalid_trace);
        ASSERT_FALSE(e.errors().empty());
        EXPECT_EQ(e.errors()[0].field, "zero_region");
        EXPECT_EQ(e.errors()[0].line, 2u);
        EXPECT_NE(std::string(e.what()).find("does not exist on " + c.gen), std::string::npos) << e.what();
        clocked = e.what();
    }
    EXPECT_EQ(fast, clocked);
}

std::vector<ZeroCase> zero_cases() {
    std::vector<ZeroCase> v;
    for (const char* g : {"sunda", "cayman", "mariana"})
        for (std::uint32_t z = 0; z < 4; ++z) v.push_back({g, z});
    return v;
}

std::string zero_name(const ::testing::TestParamInfo<ZeroCase>& i) {
    return i.param.gen + "_z" + std::to_string(i.param.zero_region);
}

INSTANTIATE_TEST_SUITE_P(Generations, ZeroRegion, ::testing::ValuesIn(zero_cases()), zero_name);

TEST(ZeroRegionGroup, Only_begin_zeroes_mid_and_end_accumulate) {
    // mariana: BEGIN with SIZE16384 (8 banks), then a mid and an END tile on the same bank.
    const TempTrace t("zero_group.trc",
                      "sbufsim-trace 1 gen=mariana\n"
                      "matmul queue=qPE0 src=bf16@0x0[1][512] dst=fp32@0x2000000[1][512] num_active_rows=128 "
                      "num_active_cols=128 acc_flags=begin zero_region=3\n"
                      "matmul queue=qPE0 src=bf16@0x400[1][512] dst=fp32@0x2000000[1][512] num_active_rows=128 "
                      "num_active_cols=128 acc_flags=mid zero_region=3\n"
                      "matmul queue=qPE0 src=bf16@0x800[1][512] dst=fp32@0x2000000[1][512] num_active_rows=128 "
                      "num_active_cols=128 acc_flags=end zero_region=3\n");
    // exact matmul cycles: the ramp off (test::no_ramp)
    const ReplayResult r = run_clocked(test::no_ramp(params_for("mariana")), t.path());
    EXPECT_EQ(r.arr_seq.psum_banks_zeroed, 8u);
    EXPECT_EQ(r.arr_seq.groups_begun, 1u);
    EXPECT_EQ(r.arr_seq.groups_ended, 1u);
    // BEGIN writes 128 x 2048 B; mid and END read-add-write the same bytes.
    EXPECT_EQ(r.arr_seq.psum_write_bytes, 128u * 2048);
    EXPECT_EQ(r.arr_seq.psum_accumulate_bytes, 2u * 128 * 2048);
    // Three back-to-back 512-cycle matmuls starting at 0, 512, 1024. A read-add-write chunk is
    // two PSUM beats of 16 B, so each accumulate is 2 x 128 = 256 beats: the END's is issued at
    // 1024 + 128 = 1152 and granted by 1407, before its ii ends at 1536.
    EXPECT_EQ(r.total_cycles, 1536u);
}

}  // namespace
