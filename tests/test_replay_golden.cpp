// Golden end-to-end replays of the shipped traces (traces/README.md), with the expected numbers
// derived by hand in the comments, plus semaphore ordering and deadlock reports.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>

#include "sbufsim/config/config.h"
#include "report_json.h"
#include "shipped.h"
#include "temp_files.h"
#include "sbufsim/replay/replay.h"
#include "sbufsim/output/report.h"

namespace sbufsim {
namespace {

using test::cayman;
using test::shipped;

ReplayResult run(const std::string& name, bool timeline = false) {
    ReplayOptions o;
    o.record_timeline = timeline;
    return replay_trace(cayman(), shipped(name), o);
}

const EngineStats& engine(const ReplayResult& r, const std::string& name) {
    for (const auto& e : r.engines)
        if (e.name == name) return e;
    throw std::runtime_error("no engine " + name);
}

using test::write_temp;

TEST(ReplayGolden, Dma_load_moves_one_tile_at_engine_bandwidth_after_startup) {
    const ReplayResult r = run("dma_load.trc");
    // 128 partitions x 2048 B = 262144 B; dma_0 beats are 32 B of one partition: 128 x 64 = 8192.
    EXPECT_EQ(r.dma_bytes(), 262144u);
    EXPECT_EQ(r.kernel.clients[index(ClientId{0})].beats, 0u);  // pe_client_0 untouched
    std::uint64_t dma_beats = 0;
    for (const auto& c : r.kernel.clients)
        if (c.name == "dma_0") dma_beats = c.beats;
    EXPECT_EQ(dma_beats, 8192u);
    // A static trigger of 64 SP cycles at 1.2 GHz = 128 PE cycles, semaphore-to-start 1300 ns =
    // 3120 PE cycles, then 211 ns + 128 descriptors x 78 ns (a 2048 B row takes the dma.pkt_min_ns
    // minimum) = 10195 ns x 2.4 GHz = 24468.
    EXPECT_EQ(engine(r, "dma_0").busy, 24468u);
    EXPECT_EQ(r.total_cycles, 128u + 3120u + 24468u);
    EXPECT_EQ(total_stalls(r.kernel, StallCause::bank_conflict), 0u);
}

TEST(ReplayGolden, Matmul_kloop_counts_matmuls_groups_and_pe_time) {
    // exact matmul cycles (pe_stream below): the ramp off (test::no_ramp)
    const ReplayResult r = replay_trace(test::no_ramp(cayman()), shipped("matmul_kloop.trc"), ReplayOptions{});
    // 8 output tiles x K = 4: 32 LdWeights + 32 Matmuls (128x128), 8 ACT evacuations.
    EXPECT_EQ(r.arr_seq.matmuls, 32u);
    EXPECT_EQ(r.arr_seq.ldweights, 32u);
    ASSERT_EQ(r.arr_seq.shapes.size(), 1u);
    EXPECT_EQ(r.arr_seq.shapes[0].first, "128x128");
    EXPECT_EQ(r.arr_seq.shapes[0].second, 32u);
    EXPECT_EQ(engine(r, "act").instructions, 8u);
    // One group per tile: BEGIN on k = 0, END on k = 3; banks rotate over 4, so at most one is
    // open at a time in this in-order stream.
    EXPECT_EQ(r.arr_seq.groups_begun, 8u);
    EXPECT_EQ(r.arr_seq.groups_ended, 8u);
    EXPECT_EQ(r.arr_seq.group_limit_exceeded, 0u);
    // PSUM bytes: BEGIN writes 8 x 128 x 2048 B, the 24 others accumulate 24 x 128 x 2048 B.
    EXPECT_EQ(r.arr_seq.psum_write_bytes, 8u * 128 * 2048);
    EXPECT_EQ(r.arr_seq.psum_accumulate_bytes, 24u * 128 * 2048);
    // Cost model: ii = max(512, 64) = 512 PE cycles per bf16 matmul; 32 x 512 = 16384.
    EXPECT_EQ(r.arr_seq.pe_stream, 16384u);
    EXPECT_GE(r.arr_seq.pe_busy, r.arr_seq.pe_stream);
    // The last ACT (512 ACT cycles = 1024 PE cycles) follows the last matmul.
    EXPECT_GE(r.total_cycles, 16384u + 1024u);
    EXPECT_GT(r.pe_utilisation(), 0.5);
    EXPECT_LE(r.pe_utilisation(), 1.0);
}

TEST(ReplayGolden, Same_quadrant_collides_and_disjoint_quadrants_do_not) {
    // One 8-byte word per beat in one burst per request (the reading under which they meet).
    const Params p = test::cayman_word_beats();
    const ReplayResult same = replay_trace(p, shipped("act_vs_matmul_collide.trc"));
    const ReplayResult apart = replay_trace(p, shipped("act_vs_matmul_disjoint.trc"));
    EXPECT_GT(total_stalls(same.kernel, StallCause::bank_conflict), 0u);
    EXPECT_EQ(total_stalls(apart.kernel, StallCause::bank_conflict), 0u);
    // Same work in both.
    EXPECT_EQ(same.arr_seq.matmuls, apart.arr_seq.matmuls);
    EXPECT_EQ(engine(same, "act").bytes_written, engine(apart, "act").bytes_written);
}

TEST(ReplayGolden, Dma_burst_contends_with_compute) {
    const ReplayResult r = run("dma_vs_compute.trc");
    EXPECT_EQ(r.dma_bytes(), 4u * 128 * 4096);
    EXPECT_GT(total_stalls(r.kernel, StallCause::tdm) + total_stalls(r.kernel, StallCause::bank_conflict), 0u);
}

TEST(ReplayGolden, Q7_cores_use_their_own_clients_in_the_dma_class) {
    const ReplayResult r = run("q7_gpsimd.trc");
    for (int c = 0; c < 8; ++c) {
        const EngineStats& e = engine(r, "q7_" + std::to_string(c));
        EXPECT_EQ(e.instructions, 2u);
        EXPECT_EQ(e.bytes_written, 16u * 4096);  // 16 partitions x 4 KiB
    }
}

TEST(ReplayGolden, A_waiting_instruction_never_starts_before_its_signal) {
    const ReplayResult r = run("matmul_kloop.trc", /*timeline=*/true);
    // Pair the n-th ACT (wait=1) with the n-th END matmul (signal=1) by their trace lines.
    std::ifstream in(shipped("matmul_kloop.trc"));
    std::string line;
    std::vector<std::uint64_t> ends, acts;
    for (std::uint64_t no = 1; std::getline(in, line); ++no) {
        if (line.rfind("matmul", 0) == 0 && line.find("signal=1") != std::string::npos) ends.push_back(no);
        if (line.rfind("act", 0) == 0) acts.push_back(no);
    }
    ASSERT_EQ(ends.size(), 8u);
    ASSERT_EQ(acts.size(), 8u);
    std::map<std::uint64_t, InstrEvent> by_line;
    for (const auto& e : r.timeline) by_line[e.line] = e;
    for (std::size_t i = 0; i < 8; ++i) {
        ASSERT_TRUE(by_line.count(ends[i]) && by_line.count(acts[i]));
        EXPECT_GE(by_line[acts[i]].start, by_line[ends[i]].end) << "ACT at line " << acts[i];
    }
}

// The deadlock a replay of `path` ends in (a test failure when it ends otherwise).
ReplayError deadlock_of(const std::string& path, const ReplayOptions& o = {}) {
    try {
        replay_trace(cayman(), path, o);
    } catch (const ReplayError& e) {
        EXPECT_EQ(e.kind(), ReplayError::Kind::deadlock) << e.what();
        return e;
    }
    ADD_FAILURE() << path << ": no deadlock reported";
    return ReplayError(ReplayError::Kind::deadlock, "", {});
}

TEST(ReplayGolden, Circular_waits_are_reported_as_a_deadlock_naming_queue_line_and_semaphore) {
    // ACT waits for DVE's signal and DVE for ACT's: each semaphore is signalled once in the trace,
    // so the checker's count passes, but neither can go first.
    const std::string path = write_temp("deadlock.trc",
        "sbufsim-trace 1 gen=cayman\n"
        "act queue=qAct0 src=bf16@0x0[1][64] dst=bf16@0x1000[1][64] partitions=32 wait=1 signal=2\n"
        "dve queue=qDve0 src=bf16@0x2000[1][64] dst=bf16@0x3000[1][64] partitions=32 wait=2 signal=1\n");
    const std::string m = deadlock_of(path).what();
    EXPECT_NE(m.find("queue qAct0"), std::string::npos) << m;
    EXPECT_NE(m.find("deadlock.trc:2"), std::string::npos) << m;
    EXPECT_NE(m.find("semaphore 1 >= 1"), std::string::npos) << m;
    EXPECT_NE(m.find("queue qDve0"), std::string::npos) << m;
    EXPECT_NE(m.find("deadlock.trc:3"), std::string::npos) << m;
}

TEST(ReplayGolden, A_deadlock_names_every_blocked_queue_of_a_dma_engine_and_a_skipped_signaller) {
    // Two queues on dma_0, each waiting for the other: both are named, not only the first.
    const std::string cycle =
        write_temp("dma_cycle.trc",
                   "sbufsim-trace 1 gen=cayman\n"
                   "dma queue=qA src=hbm dst=bf16@0x0 partitions=1 bytes=64 wait=2 signal=1\n"
                   "dma queue=qB src=hbm dst=bf16@0x40 partitions=1 bytes=64 wait=1 signal=2\n");
    const ReplayError waits = deadlock_of(cycle);
    std::string m = waits.what();
    EXPECT_NE(m.find("so none can run to signal another"), std::string::npos) << m;
    EXPECT_NE(m.find("queue qA (" + cycle + ":2) waits for semaphore 2 >= 1"), std::string::npos) << m;
    EXPECT_NE(m.find("queue qB (" + cycle + ":3) waits for semaphore 1 >= 1"), std::string::npos) << m;
    EXPECT_EQ(waits.errors().size(), 2u);
    EXPECT_NE(m.find("`sbufsim check " + cycle + "` follows each wait to its signals"), std::string::npos)
        << m;
    // Records spread over all 16 DMA engines: each queue named once, not once per engine.
    const std::string spread =
        write_temp("dma_spread_cycle.trc",
                   "sbufsim-trace 1 gen=cayman\n"
                   "dma queue=qA src=hbm dst=bf16@0x0 partitions=128 bytes=64 wait=2 signal=1\n"
                   "dma queue=qB src=hbm dst=bf16@0x40 partitions=128 bytes=64 wait=1 signal=2\n");
    const ReplayError spread_waits = deadlock_of(spread);
    m = spread_waits.what();
    EXPECT_EQ(spread_waits.errors().size(), 2u) << m;
    EXPECT_EQ(m.find("queue qA", m.find("queue qA") + 1), std::string::npos) << m;
    // --lenient skipped the only signaller (engine 99 does not exist): the deadlock says so.
    const std::string skipped =
        write_temp("skipped_signal.trc",
                   "sbufsim-trace 1 gen=cayman\n"
                   "dma queue=qA src=hbm dst=bf16@0x0 partitions=1 bytes=64 engine=99 signal=1\n"
                   "dma queue=qB src=hbm dst=bf16@0x40 partitions=1 bytes=64 wait=1\n");
    ReplayOptions lenient;
    lenient.lenient = true;
    m = deadlock_of(skipped, lenient).what();
    EXPECT_NE(m.find("the record at " + skipped + ":2 that signals it was skipped (--lenient)"),
              std::string::npos)
        << m;
    EXPECT_EQ(m.find("the whole trace signals it only"), std::string::npos) << m;
    // --lenient replays a wait nothing in the trace signals (strict refuses it up front): the
    // deadlock gives the strict check's count and fix. A cycle of waits, signalled enough, does not.
    const std::string unsignalled =
        write_temp("unsignalled.trc",
                   "sbufsim-trace 1 gen=cayman\n"
                   "dma queue=qA src=hbm dst=bf16@0x0 partitions=1 bytes=64 signal=1\n"
                   "dma queue=qB src=hbm dst=bf16@0x40 partitions=1 bytes=64 wait=1 wait=3\n");
    m = deadlock_of(unsignalled, lenient).what();
    EXPECT_NE(m.find("waits for semaphore 3 >= 1 (value 0); the whole trace signals it only 0 times: add the "
                     "missing signal=3 or lower the wait's value"),
              std::string::npos)
        << m;
    m = deadlock_of(cycle, lenient).what();
    EXPECT_EQ(m.find("the whole trace signals it only"), std::string::npos) << m;
}

TEST(ReplayGolden, Replay_is_deterministic) {
    const ReplayResult a = run("dma_vs_compute.trc");
    const ReplayResult b = run("dma_vs_compute.trc");
    EXPECT_EQ(a.total_cycles, b.total_cycles);
    EXPECT_TRUE(a.kernel.same_results(b.kernel));
    EXPECT_EQ(a.engines, b.engines);
}

TEST(ReplayGolden, A_read_add_write_dma_takes_longer_before_neuroncore_v4_only) {
    // dst_rmw_op=add (nki.isa dma_copy; trn3 arch guide, SBUF Read-Add-Write): half a copy's
    // throughput on cayman, a copy's on mariana; the SBUF side writes the destination once.
    auto data_cycles = [](const std::string& gen, const std::string& extra) {
        const std::string path = write_temp("rmw_" + gen + ".trc", "sbufsim-trace 1 gen=" + gen +
                                            "\ndma queue=qSyncIO0 src=hbm dst=bf16@0x0 partitions=8 bytes=65536" + extra + "\n");
        const ReplayResult r = replay_trace(test::shipped_params(gen), path);
        EXPECT_EQ(engine(r, "dma_0").bytes_written, 8u * 65536);
        EXPECT_EQ(engine(r, "dma_0").bytes_read, 0u);
        return r.dma.at(0).data_cycles;
    };
    EXPECT_GT(data_cycles("cayman", " dst_rmw_op=add"), data_cycles("cayman", "") * 19 / 10);
    EXPECT_EQ(data_cycles("mariana", " dst_rmw_op=add"), data_cycles("mariana", ""));
}

TEST(ReplayGolden, A_casting_dma_counts_the_hbm_ends_bytes_and_moves_the_tiles) {
    // nki.isa dma_copy: "a cast will happen if the src and dst have different dtype". An fp32 tile
    // stored as bf16 (`dst=bf16@hbm`) writes half its bytes to HBM; a bf16 tile loaded from fp32
    // reads twice its own. The engine moves the SBUF side's bytes either way.
    auto run_one = [](const std::string& name, const std::string& record) {
        const std::string path = write_temp(name, "sbufsim-trace 1 gen=cayman\n" + record + "\n");
        return replay_trace(cayman(), path);
    };
    const ReplayResult store =
        run_one("cast_store.trc", "dma queue=qSyncIO0 src=fp32@0x0 dst=bf16@hbm partitions=8 bytes=4096");
    const ReplayResult plain =
        run_one("plain_store.trc", "dma queue=qSyncIO0 src=fp32@0x0 dst=hbm partitions=8 bytes=4096");
    const ReplayResult load =
        run_one("cast_load.trc", "dma queue=qSyncIO0 src=fp32@hbm dst=bf16@0x0 partitions=8 bytes=4096");
    const ReplayResult same =
        run_one("same_load.trc", "dma queue=qSyncIO0 src=bf16@hbm dst=bf16@0x0 partitions=8 bytes=4096");
    EXPECT_EQ(store.hbm_bytes(), 8u * 4096 / 2);
    EXPECT_EQ(plain.hbm_bytes(), 8u * 4096);
    EXPECT_EQ(load.hbm_bytes(), 8u * 4096 * 2);
    EXPECT_EQ(same.hbm_bytes(), 8u * 4096);  // bf16@hbm beside a bf16 tile: no cast
    EXPECT_EQ(engine(store, "dma_0").bytes_read, 8u * 4096);
    EXPECT_EQ(engine(load, "dma_0").bytes_written, 8u * 4096);
    EXPECT_EQ(store.dma_bytes(), plain.dma_bytes());
    EXPECT_EQ(store.total_cycles, plain.total_cycles);  // the HBM side is not what bounds one share
}

TEST(ReplayGolden, An_sbuf_to_sbuf_dma_writes_each_burst_after_reading_it) {
    // A copy inside SBUF reads and writes through one DMA client whose requests complete in
    // order: its bursts alternate (read i, write i), so the write keeps pace with the read and the
    // transfer ends at its cost (dma.xfer_fixed_ns + bytes / dma.engine_gbps), with no bank wait.
    // Before, every write queued behind the whole read and the copy ran 23 % over its cost.
    const std::string path = write_temp("s2s.trc", "sbufsim-trace 1 gen=cayman\n"
                                                   "dma queue=qSyncIO0 src=bf16@0x10000 dst=bf16@0x0 partitions=8 "
                                                   "bytes=4096 engine=0\n");
    const Params p = cayman();
    const ReplayResult r = replay_trace(p, path);
    const EngineStats& e = engine(r, "dma_0");
    EXPECT_EQ(e.bank_wait, 0u);
    const double cost_ns = p.dma.xfer_fixed_ns + 8.0 * 4096 / p.dma.engine_gbps;
    EXPECT_EQ(r.dma.at(0).data_cycles, static_cast<Cycle>(std::ceil(cost_ns * p.pe.clock_ghz - 1e-9)));
    EXPECT_EQ(e.bytes_read, 8u * 4096);
    EXPECT_EQ(e.bytes_written, 8u * 4096);
}

TEST(ReplayGolden, Invalid_record_is_refused_unless_lenient) {
    // Line 3: a Q7 access to PSUM (seed 000 §7.4, the keystone) is invalid.
    const std::string path = write_temp("invalid.trc",
        "sbufsim-trace 1 gen=cayman\n"
        "act queue=qAct0 src=bf16@0x0[1][64] dst=bf16@0x1000[1][64] partitions=32\n"
        "q7 queue=qGpSimd0 core=0 op=rd operand=fp32@0x2000000 partitions=16 bytes=64\n");
    EXPECT_THROW(replay_trace(cayman(), path), ReplayError);
    ReplayOptions o;
    o.lenient = true;
    const ReplayResult r = replay_trace(cayman(), path, o);
    EXPECT_EQ(r.skipped, 1u);
    EXPECT_EQ(engine(r, "act").instructions, 1u);
}

// ---- access batches ------------------------------------------------------------------------------

// Access records go into the kernel in batches (ReplayOptions::access_batch); how early within
// its batch a record is submitted is visible to no statistic, so every batch size gives the
// report of record-by-record submission. A window of 16 cycles makes batches end between the
// instructions; the pe_wr records beside matmuls are the ones arr_seq counts (p2fifo
// almost-full), which must keep their record-by-record cycle.
TEST(ReplayBatches, Any_access_batch_gives_the_statistics_of_record_by_record_submission) {
    std::ostringstream mm;
    mm << "sbufsim-trace 1 gen=cayman\n";
    // First PE reads and writes alone (no engine has work): three queued writes pass p2fifo
    // almost-full (2) and hold the PE reads back, so writes submitted early would stall the
    // read 30 cycles before them.
    for (int g = 0; g < 20; ++g) {
        mm << 200 * g + 20 << " pe_client_0 rd 0x0 1 64\n";
        for (int k = 0; k < 3; ++k) mm << 200 * g + 50 << " pe_wr wr 0x2000000 1 32\n";
    }
    for (int i = 0; i < 40; ++i) {
        mm << "ldweights queue=qPE0 src=bf16@0x0[1][128] rows=128 cols=128\n"
           << "matmul queue=qPE0 src=bf16@0x" << std::hex << 0x40 * (i % 8) << std::dec
           << "[1][128] dst=fp32@0x2000000[1][128] num_active_rows=128 num_active_cols=128 acc_flags=single\n";
        for (int k = 0; k < 3; ++k)
            mm << 4000 + 60 * (3 * i + k) << " pe_wr wr 0x" << std::hex << 0x2000800 + 0x100 * k << std::dec << " 64 256\n";
        if (i % 4 == 3) mm << "act queue=qAct0 src=fp32@0x2000000[1][128] dst=bf16@0x400[1][128] partitions=128 fn=copy\n";
    }
    // Records on the clients ACT and DMA engine 0 use themselves, dense and then sparse, between
    // their instructions: a record submitted early would pass an engine's own request.
    std::ostringstream shared;
    shared << "sbufsim-trace 1 gen=cayman\n";
    for (int i = 0; i < 60; ++i) {
        const int cycle = i < 30 ? 7 * i : 210 + 900 * (i - 30);
        shared << cycle << (i % 2 ? " act_rd rd 0x" : " dma_0 wr 0x") << std::hex << 0x40000 * (i % 4) << std::dec << " 32 128\n";
        if (i % 5 == 0) shared << "act queue=qAct0 src=bf16@0x0[1][256] dst=bf16@0x800[1][256] partitions=128 fn=copy\n";
        if (i % 7 == 0) shared << "dma queue=qSyncIO0 engine=0 src=hbm dst=bf16@0x1000[1][512] partitions=128 bytes=1024\n";
    }
    const std::string pe_wr = write_temp("batches_pe_wr.trc", mm.str());
    const std::string engines = write_temp("batches_engines.trc", shared.str());
    for (const std::string& t : {shipped("access_mix.trc"), pe_wr, engines}) {
        for (const Cycle window : {Cycle{4096}, Cycle{16}}) {
            ReplayOptions one;
            one.access_window = window;
            one.access_batch = 0;
            const ReplayResult want = replay_trace(cayman(), t, one);
            ASSERT_GT(want.access_records, 0u) << t;
            for (const Cycle batch : {Cycle{1}, Cycle{100}, Cycle{100000}}) {
                ReplayOptions o = one;
                o.access_batch = batch;
                EXPECT_EQ(test::json_of(replay_trace(cayman(), t, o)), test::json_of(want))
                    << t << ", window " << window << ", batch " << batch;
            }
        }
    }
    std::filesystem::remove(pe_wr);
    std::filesystem::remove(engines);
}

// A DMA engine arms only the queues a push, a start or a met wait can have changed
// (DmaEngine::arm); walking every queue on every step is the reference. Random streams of DMA
// transfers on eight queues over two engines (four queues each) with waits on values other
// records signal, ACT copies signalling too; each wait names a value records earlier in the file
// signal, so no stream deadlocks.
std::string dma_wait_stream(std::uint64_t seed, std::size_t records) {
    std::mt19937_64 rng(seed);
    auto pick = [&](std::uint32_t n) { return std::uniform_int_distribution<std::uint32_t>(0, n - 1)(rng); };
    constexpr std::uint32_t kSems = 6;
    std::uint32_t signalled[kSems] = {};
    std::ostringstream os;
    os << "sbufsim-trace 1 gen=cayman\n";
    for (std::size_t i = 0; i < records; ++i) {
        const std::uint32_t elems = 32u << pick(5);
        const std::string tile = "bf16@0x" + (std::ostringstream() << std::hex << 64u * pick(1024)).str() +
                                 "[1][" + std::to_string(elems) + "]";
        if (pick(5) == 0) {
            os << "act queue=qAct0 src=" << tile << " dst=bf16@0x10000[1][" << elems
               << "] partitions=64 fn=copy";
        } else {
            const std::uint32_t q = pick(8);
            const bool load = pick(3) != 0;
            os << "dma queue=qSyncIO" << q << " engine=" << q % 2 << " src=" << (load ? "hbm" : tile)
               << " dst=" << (load ? tile : "hbm") << " partitions=" << (32u << pick(3))
               << " bytes=" << 2 * elems;
        }
        const std::uint32_t w = pick(kSems);
        // Mostly the latest value signalled so far: a wait that still blocks when its record is read.
        if (signalled[w] != 0 && pick(2) == 0)
            os << " wait=" << w << ":" << signalled[w] - pick(2) * pick(signalled[w]);
        if (pick(2) == 0) {
            const std::uint32_t g = pick(kSems);
            ++signalled[g];
            os << " signal=" << g;
        }
        os << "\n";
    }
    return os.str();
}

TEST(ReplayDmaArming, Arming_per_queue_gives_the_statistics_of_walking_every_queue_on_every_step) {
    Cycle sem_wait = 0;  // cycles a DMA engine sat free with every queue's head waiting
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        const std::string t =
            write_temp("dma_arming_" + std::to_string(seed) + ".trc", dma_wait_stream(seed, 240));
        for (const char* depth : {"1", "4", "16"}) {
            for (const char* policy : {"round_robin", "priority"}) {
                const Params p = test::shipped_params(
                    "cayman", {{"dma.prefetch_depth", depth}, {"dma.queue_policy", policy}});
                ReplayOptions walk;
                walk.dma_arm_every_queue = true;
                const ReplayResult want = replay_trace(p, t, walk);
                for (const auto& e : want.engines)
                    if (e.name.rfind("dma_", 0) == 0) sem_wait += e.sem_wait;
                EXPECT_EQ(test::json_of(replay_trace(p, t, {})), test::json_of(want))
                    << "seed " << seed << ", dma.prefetch_depth " << depth << ", dma.queue_policy " << policy;
            }
        }
        std::filesystem::remove(t);
    }
    EXPECT_GT(sem_wait, 0u) << "the streams never held a DMA engine on its waits";
}

}  // namespace
}  // namespace sbufsim
