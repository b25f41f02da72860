// The clocked scheduler (models/clocked_replay.h) against the fast one (replay.h): the same trace
// and configuration give the same statistics, byte for byte in the JSON report, on every shipped
// trace, on generated workloads and on randomized instruction streams; the clocked run really
// arbitrates every cycle; its waveforms agree with the statistics; errors are the fast
// scheduler's errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../report_json.h"
#include "../shipped.h"
#include "../temp_files.h"
#include "models/replay/clocked_replay.h"
#include "sbufsim/output/report.h"
#include "sbufsim/workload/workload.h"

using namespace sbufsim;
using namespace sbufsim::models;

namespace {

using test::temp;
using test::write_temp;

using test::json_of;
Params params_for(const std::string& gen, const std::vector<std::pair<std::string, std::string>>& overrides = {}) {
    return test::shipped_params(gen, overrides);
}

struct Both {
    ReplayResult fast;
    ClockedRun clocked;
};

Both run_both(const Params& p, const std::string& path) {
    Both b;
    b.fast = replay_trace(p, path);
    b.clocked = replay_clocked_trace(p, path);
    return b;
}

void expect_identical(const Both& b, const std::string& what) {
    ASSERT_GT(b.fast.total_cycles, 0u) << what;
    EXPECT_EQ(json_of(b.fast), json_of(b.clocked.result)) << what << ": the schedulers disagree";
    // The clocked scheduler evaluated every kernel cycle itself, except idle stretches it skipped.
    EXPECT_EQ(b.clocked.arbitrated_cycles + b.clocked.skipped_cycles, b.clocked.result.kernel.cycles) << what;
    EXPECT_GE(b.clocked.engine_activations, b.clocked.arbitrated_cycles * b.fast.engines.size()) << what;
}

// ---- shipped traces ----------------------------------------------------------------------------

struct ShippedCase {
    std::string trace, gen;
    std::vector<std::pair<std::string, std::string>> overrides;
};

void PrintTo(const ShippedCase& c, std::ostream* os) {
    *os << c.trace << " on " << c.gen;
    for (const auto& [k, v] : c.overrides) *os << " " << k << "=" << v;
}

std::string case_name(const ::testing::TestParamInfo<ShippedCase>& i) {
    std::string n = std::filesystem::path(i.param.trace).stem().string() + "_" + i.param.gen;
    for (const auto& [k, v] : i.param.overrides) n += "_" + k + "_" + v;
    for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return n;
}

std::vector<ShippedCase> shipped_cases() {
    std::vector<std::string> traces;
    for (const auto& e : std::filesystem::directory_iterator(SBUFSIM_DEFAULT_TRACE_DIR))
        if (e.path().extension() == ".trc") traces.push_back(e.path().filename().string());
    std::sort(traces.begin(), traces.end());
    std::vector<ShippedCase> cases;
    // The shipped traces are written for cayman (their headers say so); sunda's concurrency
    // rules are switched on by key instead.
    for (const auto& t : traces) {
        cases.push_back({t, "cayman", {}});
        cases.push_back({t, "cayman",
                         {{"concurrency.dve_gpsimd_sbuf_exclusive", "true"}, {"concurrency.dve_act_psum_exclusive", "true"}}});
    }
    // Settings that change who waits: strict TDM, a wider DMA share, enabled throttlers.
    for (const char* t : {"dma_vs_compute.trc", "act_vs_matmul_collide.trc", "access_mix.trc"}) {
        cases.push_back({t, "cayman", {{"tdm.strict", "true"}, {"tdm.dma_slots", "2"}}});
        cases.push_back({t, "cayman",
                         {{"throttler.act_rd.enable", "true"}, {"throttler.act_rd.window_len", "16"},
                          {"throttler.act_rd.transfer_cnt", "4"}}});
    }
    return cases;
}

class ClockedShipped : public ::testing::TestWithParam<ShippedCase> {};

TEST_P(ClockedShipped, Same_statistics_as_the_fast_scheduler) {
    const ShippedCase& c = GetParam();
    const Both b = run_both(params_for(c.gen, c.overrides), test::shipped(c.trace));
    expect_identical(b, c.trace + " on " + c.gen);
}

INSTANTIATE_TEST_SUITE_P(Traces, ClockedShipped, ::testing::ValuesIn(shipped_cases()), case_name);

// ---- generated workloads -----------------------------------------------------------------------

template <class Generate>
std::string write_trace(const std::string& name, const std::string& gen, Generate&& generate) {
    const std::string path = temp(name);
    std::ofstream f(path);
    TraceWriter w(f, TraceFormat::text, TraceHeader{kTraceFormatVersion, gen});
    TraceWriterSink sink(w);
    generate(sink);
    w.finish();
    return path;
}

TEST(ClockedGenerated, Gemm_attention_conv_and_random_access_traffic) {
    const Params p = params_for("cayman");
    GemmOptions o;
    o.bufs = 3;
    o.psum_bufs = 4;
    const std::string gemm = write_trace("gemm.trc", "cayman", [&](RecordSink& s) {
        generate_gemm(p, GemmShape{300, 200, 260, "g"}, o, s);
    });
    const std::string attn = write_trace("attn.trc", "cayman", [&](RecordSink& s) {
        generate_attention(p, AttentionShape{128, 1, 64}, o, s);
    });
    const std::string conv = write_trace("conv.trc", "cayman", [&](RecordSink& s) {
        ConvShape c;
        c.h = c.w = 14;
        c.c = 32;
        c.k = 64;
        c.r = c.s = 3;
        generate_conv(p, c, o, s);
    });
    RandomOptions ro;
    ro.clients = {"pe_client_0", "act_rd", "pool_wr", "dve_rd", "dma_0", "dma_5", "pe_wr", "act_psum_rd"};
    ro.rate = 0.3;
    ro.records = 3000;
    ro.seed = 7;
    const std::string rnd = write_trace("random.trc", "cayman", [&](RecordSink& s) { generate_random(p, ro, s); });
    for (const auto& path : {gemm, attn, conv, rnd}) {
        expect_identical(run_both(p, path), path);
        std::filesystem::remove(path);
    }
}

// ---- randomized instruction streams ------------------------------------------------------------

// What the random trace writers below share: a seeded generator, the header, one record a line.
class RandomTrace {
public:
    explicit RandomTrace(std::uint64_t seed) : rng_(seed) {}
    virtual ~RandomTrace() = default;

    std::string trace(std::size_t records) {
        std::ostringstream os;
        os << "sbufsim-trace 1 gen=cayman\n";
        for (std::size_t i = 0; i < records; ++i) os << line() << "\n";
        return os.str();
    }

protected:
    virtual std::string line() = 0;
    std::uint32_t pick(std::uint32_t n) { return std::uniform_int_distribution<std::uint32_t>(0, n - 1)(rng_); }
    bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
    static std::string hex(std::uint64_t v) {
        std::ostringstream os;
        os << "0x" << std::hex << v;
        return os.str();
    }

private:
    std::mt19937_64 rng_;
};

// A valid random trace: DMA loads/stores/copies on several queues and engines, ACT/POOL/DVE over
// SBUF and PSUM, LdWeights/Matmul groups into PSUM banks, Q7 accesses, a few access records, and
// semaphores. A wait names only values that records earlier in the file signal, so no stream can
// deadlock (each queue's waits depend on strictly earlier records).
class StreamGen : public RandomTrace {
public:
    using RandomTrace::RandomTrace;

private:
    std::string line() override {
        std::string r = record();
        return r + sync();
    }
    // An SBUF tensor at partition 0 (the record's partitions span from there), 64-byte aligned.
    std::string sbuf(std::uint32_t elems) {
        return "bf16@" + hex(64u * pick(1024)) + "[1][" + std::to_string(elems) + "]";
    }
    std::string psum_bank(std::uint32_t bank, std::uint32_t elems) {
        return "fp32@" + hex(0x2000000u + 0x800u * bank) + "[1][" + std::to_string(elems) + "]";
    }
    std::uint32_t parts() { return 32u << pick(3); }
    std::uint32_t elems() { return 32u << pick(5); }  // 32..512

    std::string record() {
        access_ = false;
        switch (pick(10)) {
            case 0:
            case 1: {
                const std::uint32_t q = pick(6), n = elems();
                const std::string src = chance(0.7) ? "hbm" : sbuf(n), dst = src == "hbm" || chance(0.5) ? sbuf(n) : "hbm";
                return "dma queue=qSyncIO" + std::to_string(q) + " engine=" + std::to_string(q % 4) + " src=" + src +
                       " dst=" + dst + " partitions=" + std::to_string(parts()) + " bytes=" + std::to_string(2 * n);
            }
            case 2: {
                const std::uint32_t n = elems();
                const bool from_psum = chance(0.4);
                return "act queue=qAct0 src=" + (from_psum ? psum_bank(pick(8), n) : sbuf(n)) + " dst=" + sbuf(n) +
                       " partitions=" + std::to_string(parts()) + " fn=copy";
            }
            case 3: {
                const std::uint32_t n = elems();
                return "pool queue=qPool0 src=" + sbuf(n) + " dst=" + sbuf(n) + " partitions=" + std::to_string(parts());
            }
            case 4: {
                const std::uint32_t n = elems();
                return "dve queue=qVector0 src=" + (chance(0.3) ? psum_bank(pick(8), n) : sbuf(n)) + " dst=" + sbuf(n) +
                       " partitions=" + std::to_string(parts());
            }
            case 5:
            case 6: {
                const std::uint32_t bank = pick(8), n = elems();
                const char* flags[] = {"begin", "0", "end"};
                return "ldweights queue=qPE0 src=" + sbuf(128) + " rows=128 cols=128\nmatmul queue=qPE0 src=" + sbuf(n) +
                       " dst=" + psum_bank(bank, n) + " num_active_rows=128 num_active_cols=128 acc_flags=" + flags[pick(3)];
            }
            case 7: {
                const std::uint32_t c = pick(8);
                return "q7 queue=qGpSimd" + std::to_string(c) + " core=" + std::to_string(c) + " op=" +
                       (chance(0.5) ? "rd" : "wr") + " operand=bf16@" + hex(16u * c * 0x40000u + 64u * pick(512)) +
                       " partitions=16 bytes=" + std::to_string(64u << pick(4));
            }
            default: {
                access_ = true;
                access_cycle_ += pick(400);
                // Read ports read, write ports write, a DMA queue does either. pe_wr writes into
                // a PSUM bank beside the matmuls' own writes (arr_seq counts the queued ones:
                // p2fifo almost-full), so when it is submitted is visible.
                const char* clients[] = {"act_rd", "pool_wr", "dma_3", "pe_client_2", "pe_wr"};
                const std::uint32_t c = pick(5);
                const char* op = c == 0 || c == 3 ? "rd" : c == 1 || c == 4 ? "wr" : chance(0.5) ? "rd" : "wr";
                const std::uint64_t addr = c == 4 ? 0x2000000u + 0x800u * pick(8) : pick(124) * 0x40000u + 64u * pick(256);
                return std::to_string(access_cycle_) + " " + clients[c] + " " + op + " " + hex(addr) + " " +
                       std::to_string(1 + pick(4)) + " " + std::to_string(64u << pick(3));
            }
        }
    }

    // wait=/signal= for the record just written (none for access records).
    std::string sync() {
        if (access_) return "";
        std::string s;
        const std::uint32_t w = pick(kSems);
        if (signalled_[w] && chance(0.35)) s += " wait=" + std::to_string(w) + ":" + std::to_string(1 + pick(signalled_[w]));
        if (chance(0.35)) {
            const std::uint32_t g = pick(kSems);
            ++signalled_[g];
            s += " signal=" + std::to_string(g);
        }
        return s;
    }
    static constexpr std::uint32_t kSems = 12;
    std::uint32_t signalled_[kSems] = {};
    std::uint64_t access_cycle_ = 0;
    bool access_ = false;  // the last record() was an access record
};

class ClockedRandomStream : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(ClockedRandomStream, Same_statistics_as_the_fast_scheduler) {
    const std::uint64_t seed = GetParam();
    const std::string path = write_temp("stream_" + std::to_string(seed) + ".trc", StreamGen(seed).trace(160));
    // Alternate settings so that TDM, throttlers and the sunda concurrency rules all take part.
    const std::vector<std::pair<std::string, std::string>> settings[] = {
        {},
        {{"tdm.strict", "true"}, {"tdm.dma_slots", "3"}},
        {{"throttler.pool_wr.enable", "true"}, {"throttler.pool_wr.transfer_cnt", "2"}},
    };
    auto set = settings[seed % 3];
    if (seed % 4 == 3) {  // sunda's concurrency rules
        set.push_back({"concurrency.dve_gpsimd_sbuf_exclusive", "true"});
        set.push_back({"concurrency.dve_act_psum_exclusive", "true"});
    }
    const Params p = params_for("cayman", set);
    expect_identical(run_both(p, path), "seed " + std::to_string(seed));
    std::filesystem::remove(path);
}

INSTANTIATE_TEST_SUITE_P(Seeds, ClockedRandomStream, ::testing::Range<std::uint64_t>(1, 13));

// Transfers that become ready in the same cycle on different engines: spread records (no
// `engine=`) and pinned ones whose waits one signal meets at once, triggers of every mode on
// shared units (SP, ACT, POOL's swdge, the DGE blocks) beside compute instructions that hold
// them, and HBM-side bandwidth shared by them all. What each engine gets first may not depend on
// the order the schedulers step the engines in within a cycle.
class DmaRaceGen : public RandomTrace {
public:
    using RandomTrace::RandomTrace;

private:
    std::string line() override { return record(); }
    std::string record() {
        const std::uint32_t sem = pick(3);
        switch (pick(8)) {
            case 0: {  // a signal several queues wait on
                const std::string w = waited(sem);
                ++signalled_[sem];
                return "q7 queue=qPool" + std::to_string(sem) + " core=" + std::to_string(3 + sem) +
                       " op=rd operand=bf16@" + hex(0x40000u * 16u * (3 + sem)) +
                       "[1][256] partitions=16 signal=" + std::to_string(sem) + w;
            }
            case 1: {  // a compute instruction on a trigger unit
                const char* kinds[] = {"act queue=qAct0", "pool queue=qPool9", "dve queue=qVector0"};
                const std::uint32_t n = 32u << pick(4);
                return std::string(kinds[pick(3)]) + " src=bf16@" + hex(0x8000u + 64u * pick(256)) + "[1][" +
                       std::to_string(n) + "] dst=bf16@" + hex(0x10000u + 64u * pick(256)) + "[1][" +
                       std::to_string(n) + "] partitions=32" + waited(sem);
            }
            default: {
                const std::uint32_t q = pick(6), first = 8u * pick(16), parts = 1u + pick(128 - first);
                const char* modes[] = {"",           " dge=hwdge issuer=sp", " dge=hwdge issuer=act",
                                       " dge=swdge", " issuer=act",          " issuer=dve"};
                std::string r = "dma queue=qSyncIO" + std::to_string(q) +
                                (pick(4) == 0 ? " engine=" + std::to_string(q % 3) : "") +
                                " src=hbm dst=bf16@" + hex(first * 0x40000u + 64u * pick(64)) +
                                " partitions=" + std::to_string(parts) +
                                " bytes=" + std::to_string(64u << pick(4)) + modes[pick(6)];
                return r + waited(sem);
            }
        }
    }
    // A wait on `sem` for a value already signalled (so no queue can deadlock), most of the time.
    std::string waited(std::uint32_t sem) {
        if (!signalled_[sem] || pick(4) == 0) return "";
        return " wait=" + std::to_string(sem) + ":" + std::to_string(1 + pick(signalled_[sem]));
    }
    std::uint32_t signalled_[3] = {};
};

class ClockedDmaRace : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(ClockedDmaRace, Same_statistics_as_the_fast_scheduler) {
    const std::uint64_t seed = GetParam();
    const std::string path = write_temp("race_" + std::to_string(seed) + ".trc", DmaRaceGen(seed).trace(120));
    // A narrow HBM side makes the shares' reservations order matter; priority queues too.
    const std::vector<std::pair<std::string, std::string>> settings[] = {
        {},
        {{"dma.hbm_gbps", "20"}},
        {{"dma.queue_policy", "priority"}, {"dma.hbm_gbps", "50"}},
    };
    const Params p = params_for("cayman", settings[seed % 3]);
    expect_identical(run_both(p, path), "seed " + std::to_string(seed));
    std::filesystem::remove(path);
}

INSTANTIATE_TEST_SUITE_P(Seeds, ClockedDmaRace, ::testing::Range<std::uint64_t>(1, 25));

// NC-v2's shared ports decide at the end of a settled cycle, so the order the two schedulers step
// engines in cannot change who gets a port (shared_ports.h): random traffic with both rules on,
// and enough of it that instructions did wait for a port.
TEST(ClockedSharedPorts, Same_statistics_as_the_fast_scheduler_with_ports_contended) {
    Cycle waited = 0;
    for (std::uint64_t seed = 13; seed < 19; ++seed) {
        const std::string path = write_temp("ports_" + std::to_string(seed) + ".trc", StreamGen(seed).trace(200));
        const Params p = params_for("cayman", {{"concurrency.dve_gpsimd_sbuf_exclusive", "true"},
                                               {"concurrency.dve_act_psum_exclusive", "true"}});
        const Both b = run_both(p, path);
        expect_identical(b, "seed " + std::to_string(seed));
        for (const EngineStats& e : b.fast.engines) {
            waited += e.port_wait;
            // bank_wait is part of busy (the report's compute time is their difference)
            EXPECT_LE(e.bank_wait, e.busy) << e.name << " seed " << seed;
        }
        std::filesystem::remove(path);
    }
    EXPECT_GT(waited, 0u) << "no instruction waited for a port: the traffic does not exercise the rule";
}

// ---- errors --------------------------------------------------------------------------------------

TEST(ClockedErrors, Deadlock_is_reported_as_by_the_fast_scheduler) {
    const std::string path = write_temp(
        "deadlock.trc",
        "sbufsim-trace 1 gen=cayman\n"
        "act queue=qAct0 src=bf16@0x0[1][64] dst=bf16@0x400[1][64] partitions=32 wait=3:1 signal=4\n"
        "pool queue=qPool0 src=bf16@0x800[1][64] dst=bf16@0xc00[1][64] partitions=32 wait=4:1 signal=3\n");
    const Params p = params_for("cayman");
    std::string fast, clocked;
    try {
        replay_trace(p, path);
    } catch (const ReplayError& e) {
        EXPECT_EQ(e.kind(), ReplayError::Kind::deadlock);
        fast = e.what();
    }
    try {
        replay_clocked_trace(p, path);
    } catch (const ReplayError& e) {
        EXPECT_EQ(e.kind(), ReplayError::Kind::deadlock);
        clocked = e.what();
    }
    EXPECT_NE(fast.find("semaphore 3"), std::string::npos) << fast;
    EXPECT_EQ(fast, clocked);
    std::filesystem::remove(path);
}

TEST(ClockedErrors, Invalid_record_stops_the_clocked_replay_with_the_checker_error) {
    const std::string path =
        write_temp("invalid.trc",
                   "sbufsim-trace 1 gen=cayman\n"
                   "act queue=qAct0 src=bf16@0x0[1][64] dst=bf16@0x400[1][64] partitions=32\n"
                   "q7 queue=qGpSimd0 core=0 op=rd operand=fp32@0x2000000 partitions=16 bytes=64\n");
    try {
        replay_clocked_trace(params_for("cayman"), path);
        ADD_FAILURE() << "a Q7 access to PSUM must be refused";
    } catch (const ReplayError& e) {
        EXPECT_EQ(e.kind(), ReplayError::Kind::invalid_trace);
        EXPECT_NE(std::string(e.what()).find(":3:"), std::string::npos) << e.what();
    }
    std::filesystem::remove(path);
}

// ---- idle cycles -------------------------------------------------------------------------------

// Skipping the cycles in which nothing is queued and nobody is due changes no statistic.
TEST(ClockedIdle, Skipping_idle_cycles_gives_the_statistics_of_stepping_every_cycle) {
    const Params p = params_for("cayman");
    const std::string path = test::shipped("matmul_kloop.trc");
    ClockedOptions every;
    every.step_every_cycle = true;
    const ClockedRun stepped = replay_clocked_trace(p, path, {}, every);
    const ClockedRun skipping = replay_clocked_trace(p, path);
    EXPECT_EQ(stepped.skipped_cycles, 0u);
    EXPECT_EQ(stepped.arbitrated_cycles, stepped.result.kernel.cycles);
    EXPECT_GT(skipping.skipped_cycles, 0u) << "the trace has stretches with no bank traffic";
    EXPECT_EQ(skipping.arbitrated_cycles + skipping.skipped_cycles, stepped.arbitrated_cycles);
    EXPECT_EQ(json_of(skipping.result), json_of(stepped.result));
    EXPECT_EQ(json_of(skipping.result), json_of(replay_trace(p, path)));
}

// One access at cycle 2^31: the clocked scheduler must not step two billion idle cycles.
TEST(ClockedIdle, A_lone_access_at_cycle_2_pow_31_is_reached_without_stepping_the_gap) {
    const std::string path = write_temp("far.trc",
                                        "sbufsim-trace 1 gen=cayman\n"
                                        "0 act_rd rd 0x0 16 64\n"
                                        "2147483648 act_rd rd 0x0 16 64\n");
    const Params p = params_for("cayman");
    const ReplayResult fast = replay_trace(p, path);
    const ClockedRun clocked = replay_clocked_trace(p, path);
    ASSERT_GT(fast.kernel.cycles, 2147483648u);
    EXPECT_EQ(json_of(clocked.result), json_of(fast));
    EXPECT_LT(clocked.arbitrated_cycles, 100000u) << "idle cycles were stepped";
    EXPECT_EQ(clocked.arbitrated_cycles + clocked.skipped_cycles, clocked.result.kernel.cycles);
    std::filesystem::remove(path);
}

}  // namespace
