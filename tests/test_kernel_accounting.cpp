// Beats, ordering and stall accounting of the kernel; skipping idle and gated stretches gives
// the same statistics as stepping every cycle.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "sbufsim/kernel/kernel.h"
#include "kernel_clients.h"

namespace sbufsim {
namespace {

using test::id;

std::vector<Completion> drain(Kernel& k) {
    std::vector<Completion> out;
    Completion c;
    while (k.pop_completion(c)) out.push_back(c);
    return out;
}

TEST(KernelAccounting, Raw_occupies_a_read_and_a_write_slot) {
    // pool_wr (priority 2) does one raw chunk (8 partitions x 8 B) on bank 0: 2 beats, cycles 0
    // and 1. act_rd (priority 0) wants bank 0 from cycle 0 for 1 beat: it waits both slots and
    // moves in cycle 2 (latency 3, 2 bank-conflict stalls charged to pool_wr). The same as a plain
    // wr takes 1 beat.
    Params p = test::word_beats();
    p.arbiter.pool_wr = {2, 1};
    Kernel k(p, KernelOptions{.completion_capacity = 64});
    const auto pool = id(k, "pool_wr"), act = id(k, "act_rd");
    Request raw;
    raw.client = pool;
    raw.op = Op::raw;
    raw.partitions = 8;
    raw.bytes = 8;
    EXPECT_NE(k.submit(raw), kNoRequest);
    Request rd = raw;
    rd.client = act;
    rd.op = Op::rd;
    EXPECT_NE(k.submit(rd), kNoRequest);
    ASSERT_EQ(k.run_to_completion(), RunStatus::reached);
    const Stats& s = k.stats();
    EXPECT_EQ(s.clients[index(pool)].beats, 2u);
    EXPECT_EQ(s.clients[index(pool)].bytes, 128u);  // 64 B read + 64 B written
    EXPECT_EQ(s.clients[index(pool)].latency.max(), 2u);
    EXPECT_EQ(s.clients[index(act)].latency.max(), 3u);
    EXPECT_EQ(s.blocked(act, pool), 2u);
    EXPECT_EQ(s.banks[0].busy, 3u);

    Kernel w(p);
    raw.op = Op::wr;
    EXPECT_NE(w.submit(raw), kNoRequest);
    w.run_to_completion();
    EXPECT_EQ(w.stats().clients[index(pool)].beats, 1u);
}

TEST(KernelAccounting, Multi_beat_requests_hold_order) {
    // dma_0 (1 partition x 32 B per beat) moves partitions 0..15, 64 B each: partition-chunk
    // major, so beats 0..15 cover partitions 0..7 (bank 0, 2 byte chunks each) and beats 16..31
    // partitions 8..15 (bank 1). A second request (1 beat, bank 2) completes after the first.
    Kernel k(test::word_beats(), KernelOptions{.completion_capacity = 64});
    const auto d0 = id(k, "dma_0");
    Request r;
    r.client = d0;
    r.first_partition = 0;
    r.partitions = 16;
    r.bytes = 64;
    r.tag = 1;
    EXPECT_NE(k.submit(r), kNoRequest);
    Request r2 = r;
    r2.first_partition = 16;
    r2.partitions = 1;
    r2.bytes = 32;
    r2.tag = 2;
    EXPECT_NE(k.submit(r2), kNoRequest);
    for (Cycle t = 0; t < 33; ++t) {
        k.run_until(t + 1);
        const Stats& s = k.stats();
        const std::uint64_t want0 = std::min<Cycle>(t + 1, 16), want1 = t < 16 ? 0 : std::min<Cycle>(t - 15, 16);
        EXPECT_EQ(s.banks[0].grants[index(d0)], want0) << "cycle " << t;
        EXPECT_EQ(s.banks[1].grants[index(d0)], want1) << "cycle " << t;
    }
    const auto done = drain(k);
    ASSERT_EQ(done.size(), 2u);
    EXPECT_EQ(done[0].tag, 1u);
    EXPECT_EQ(done[0].done, 31u);
    EXPECT_EQ(done[1].tag, 2u);
    EXPECT_EQ(done[1].done, 32u);
    EXPECT_EQ(k.stats().banks[2].grants[index(d0)], 1u);
}

TEST(KernelAccounting, Dependency_wait_is_charged_until_the_named_request_completes) {
    // act_rd's 1-beat request depends on pool_rd's 10-beat request (cycles 0..9): it may move
    // from cycle 10 on, so it waits 10 cycles, all charged to dependency.
    Kernel k(test::word_beats());
    const auto pool = id(k, "pool_rd"), act = id(k, "act_rd");
    Request a;
    a.client = pool;
    a.partitions = 8;
    a.bytes = 80;
    const RequestId first = k.submit(a);
    Request b = a;
    b.client = act;
    b.first_partition = 8;
    b.bytes = 8;
    b.after = first;
    EXPECT_NE(k.submit(b), kNoRequest);
    ASSERT_EQ(k.run_to_completion(), RunStatus::reached);
    const Stats& s = k.stats();
    EXPECT_TRUE(k.is_complete(first));
    EXPECT_EQ(s.clients[index(act)].stalls[static_cast<int>(StallCause::dependency)], 10u);
    EXPECT_EQ(s.clients[index(act)].latency.max(), 11u);
}

// Submits one 1-beat pe_wr request (32 PSUM partitions x 8 B) and holds pe_wr by back-pressure.
ClientId held_pe_write(Kernel& k) {
    const auto pe = id(k, "pe_wr");
    Request r;
    r.client = pe;
    r.region = Region::psum;
    r.partitions = 32;
    r.bytes = 8;
    EXPECT_NE(k.submit(r), kNoRequest);
    k.set_backpressure(pe, true);
    return pe;
}

TEST(KernelAccounting, Backpressure_stalls_until_released) {
    // pe_wr's 1-beat request is held by back-pressure for cycles 0..49 (run_until(50)). The
    // run_to_completion that finds it stuck has evaluated cycle 50 too: 51 stalls, and after the
    // release it moves in cycle 51 (latency 52).
    Kernel k(test::word_beats());
    const auto pe = held_pe_write(k);
    k.run_until(50);
    EXPECT_EQ(k.run_to_completion(), RunStatus::stuck);
    k.set_backpressure(pe, false);
    ASSERT_EQ(k.run_to_completion(), RunStatus::reached);
    const Stats& s = k.stats();
    EXPECT_EQ(s.clients[index(pe)].stalls[static_cast<int>(StallCause::psum_backpressure)], 51u);
    EXPECT_EQ(s.clients[index(pe)].latency.max(), 52u);
}

// ---------------------------------------------------------------------------------------------
// Random workloads: the invariants, and skipping == stepping.

struct Workload {
    Params params = test::word_beats();
    std::vector<Request> requests;            // `after` holds an index into requests (or none)
    std::vector<std::int64_t> after_index;
    std::vector<Cycle> run_points;            // run_until targets between submission batches
};

// One request of a test queue: 8 partitions from `bank`'s first on SBUF, 32 from partition 0 on
// PSUM. DVE's reads wait for POOL's request before them (`pool_request`, the index of the last one).
void push_queue_request(Workload& w, const ClientSet& clients, std::string_view name, std::uint16_t bank,
                        Op op, std::uint32_t bytes, Cycle issue, std::int64_t& pool_request) {
    const ClientInfo& ci = clients.all()[index(*clients.find(name))];
    Request r;
    r.client = *clients.find(name);
    r.region = ci.region;
    r.op = op;
    r.first_partition = static_cast<std::uint16_t>(ci.region == Region::sbuf ? bank * 8 : 0);
    r.partitions = ci.region == Region::sbuf ? 8 : 32;
    r.bytes = bytes;
    r.issue = issue;
    r.tag = w.requests.size();
    w.after_index.push_back(name == "dve_rd" ? pool_request : -1);
    if (name == "pool_rd") pool_request = static_cast<std::int64_t>(w.requests.size());
    w.requests.push_back(r);
}

Workload random_workload(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto pick = [&](std::uint64_t n) { return rng() % n; };
    Workload w;
    Params& p = w.params;
    p.tdm.strict = pick(2);
    p.tdm.dma_slots = 1 + static_cast<std::uint32_t>(pick(3));
    p.tdm.dma_order = static_cast<DmaOrder>(pick(3));
    p.sbuf.half_select = pick(2) ? HalfSelect::offset : HalfSelect::partition;
    p.concurrency.dve_gpsimd_sbuf_exclusive = pick(2);
    p.concurrency.dve_act_psum_exclusive = pick(2);
    for (ThrottleCfg* t : {&p.throttler.pool_rd, &p.throttler.act_wr, &p.throttler.dve_rd})
        *t = {pick(2) == 1, static_cast<std::uint32_t>(4 + pick(30)), static_cast<std::uint32_t>(1 + pick(6))};
    for (ArbWeights* a : {&p.arbiter.pool_rd, &p.arbiter.act_rd, &p.arbiter.pool_wr, &p.arbiter.dve_wr,
                          &p.arbiter.stage1[0], &p.arbiter.stage1[2], &p.arbiter.psum_act})
        *a = {static_cast<std::uint32_t>(pick(3)), static_cast<std::uint32_t>(1 + pick(15))};

    const ClientSet clients(p);
    Cycle t = 0;
    for (int batch = 0; batch < 40; ++batch) {
        const int n = 1 + static_cast<int>(pick(25));
        for (int i = 0; i < n; ++i) {
            Request r;
            const std::uint32_t c = static_cast<std::uint32_t>(pick(clients.size()));
            const ClientInfo& ci = clients.all()[c];
            r.client = ClientId{static_cast<std::uint16_t>(c)};
            r.region = ci.region;
            r.op = static_cast<Op>(pick(3));
            const std::uint32_t parts = ci.region == Region::sbuf ? p.sbuf.partitions : p.psum.partitions;
            r.first_partition = static_cast<std::uint16_t>(pick(parts));
            r.partitions = static_cast<std::uint16_t>(1 + pick(std::min<std::uint64_t>(40, parts - r.first_partition)));
            const std::uint32_t space = ci.region == Region::sbuf ? 0x38000 : 0x4000;
            r.bytes = static_cast<std::uint32_t>(1 + pick(200));
            r.offset = static_cast<std::uint32_t>(pick(space - r.bytes));
            r.issue = t + pick(60);
            r.tag = w.requests.size();
            w.after_index.push_back(!w.requests.empty() && pick(4) == 0
                                        ? static_cast<std::int64_t>(pick(w.requests.size()))
                                        : -1);
            w.requests.push_back(r);
        }
        t += pick(2) ? pick(50) : 500 + pick(3000);  // some long idle gaps
        w.run_points.push_back(t);
    }
    return w;
}

struct Outcome {
    Stats stats;
    std::vector<Completion> done;
};

Outcome replay(const Workload& w, bool step_every_cycle) {
    Kernel k(w.params, KernelOptions{.step_every_cycle = step_every_cycle, .completion_capacity = 256});
    std::vector<RequestId> ids;
    Outcome out;
    std::size_t next = 0;
    const ClientId bp_client = *k.client_index("dve_psum_rd");
    for (std::size_t b = 0; b < w.run_points.size(); ++b) {
        // Submit this batch (the requests generated before run point b).
        const std::size_t end = next + (w.requests.size() - next) / (w.run_points.size() - b);
        for (; next < end; ++next) {
            Request r = w.requests[next];
            if (w.after_index[next] >= 0) r.after = ids[static_cast<std::size_t>(w.after_index[next])];
            ids.push_back(k.submit(r));
        }
        k.set_backpressure(bp_client, b % 3 == 1);
        for (;;) {
            const RunStatus st = k.run_until(w.run_points[b]);
            for (auto d : drain(k)) out.done.push_back(d);
            if (st == RunStatus::reached) break;
        }
    }
    for (; next < w.requests.size(); ++next) ids.push_back(k.submit(w.requests[next]));
    k.set_backpressure(bp_client, false);
    for (;;) {
        const RunStatus st = k.run_to_completion();
        for (auto d : drain(k)) out.done.push_back(d);
        if (st != RunStatus::completions_full) {
            EXPECT_EQ(st, RunStatus::reached);
            break;
        }
    }
    out.stats = k.stats();
    return out;
}

// The kernel that skips, leaps and rotates against the one that steps every cycle: the same
// statistics and the same completions in the same order.
void expect_same_as_stepping(const Outcome& fast, const Outcome& stepped) {
    EXPECT_TRUE(fast.stats.same_results(stepped.stats));
    EXPECT_EQ(fast.stats.cycles, stepped.stats.cycles);
    ASSERT_EQ(fast.done.size(), stepped.done.size());
    for (std::size_t i = 0; i < fast.done.size(); ++i) {
        EXPECT_EQ(fast.done[i].id, stepped.done[i].id);
        EXPECT_EQ(fast.done[i].done, stepped.done[i].done);
    }
}

// The cycles a client's beats were held by `cause`.
std::uint64_t stalls_of(const Outcome& o, const ClientSet& clients, const char* name, StallCause cause) {
    return o.stats.clients[index(*clients.find(name))].stalls[static_cast<int>(cause)];
}

class KernelRandom : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(KernelRandom, Stall_causes_sum_to_the_wait_and_every_requested_beat_is_granted) {
    // For each client: every cycle its head beat is ready either moves one beat or is charged
    // to exactly one cause, so sum(stalls) = sum over requests of (done - start + 1 - beats),
    // with start = max(issue, previous done + 1), recomputed here from the completions.
    const Outcome o = replay(random_workload(GetParam()), false);
    std::vector<std::uint64_t> wait(o.stats.clients.size(), 0);
    std::vector<Cycle> prev_done(o.stats.clients.size(), 0);
    std::vector<bool> seen(o.stats.clients.size(), false);
    for (const auto& d : o.done) {
        const std::uint32_t c = index(d.client);
        const Cycle start = seen[c] ? std::max(d.issue, prev_done[c] + 1) : d.issue;
        EXPECT_EQ(d.start, start);
        EXPECT_GE(d.done + 1 - start, d.beats);
        wait[c] += d.done + 1 - start - d.beats;
        prev_done[c] = d.done;
        seen[c] = true;
    }
    std::uint64_t beats = 0;
    for (std::size_t c = 0; c < o.stats.clients.size(); ++c) {
        const auto& cs = o.stats.clients[c];
        EXPECT_EQ(cs.total_stalls(), cs.wait_cycles) << cs.name;
        EXPECT_EQ(cs.wait_cycles, wait[c]) << cs.name;
        EXPECT_EQ(cs.beats, cs.beats_requested) << cs.name;
        EXPECT_EQ(cs.completed, cs.requests) << cs.name;
        beats += cs.beats;
    }
    EXPECT_GT(beats, 0u);
    // A bank is held by one beat per cycle.
    for (const auto& b : o.stats.banks) EXPECT_LE(b.busy, o.stats.cycles) << b.name;
    // Per bank, a stall is a lost bank: to the other TDM class in its slot (tdm_stalls, the
    // clients' `tdm` stalls unless strict TDM also holds a class out with no bank lost) or to
    // another beat (a `bank_conflict` stall, as is a loss under a concurrency rule, which names no
    // bank).
    std::uint64_t bank_tdm = 0, bank_other = 0, client_tdm = 0, client_conflict = 0;
    for (const auto& b : o.stats.banks) {
        EXPECT_LE(b.tdm_stalls, b.stalls) << b.name;
        bank_tdm += b.tdm_stalls;
        bank_other += b.stalls - b.tdm_stalls;
    }
    for (const auto& cs : o.stats.clients) {
        client_tdm += cs.stalls[static_cast<int>(StallCause::tdm)];
        client_conflict += cs.stalls[static_cast<int>(StallCause::bank_conflict)];
    }
    const Params& p = random_workload(GetParam()).params;
    if (p.tdm.strict) {
        EXPECT_LE(bank_tdm, client_tdm);
    } else {
        EXPECT_EQ(bank_tdm, client_tdm);
    }
    const bool rules = p.concurrency.dve_gpsimd_sbuf_exclusive || p.concurrency.dve_act_psum_exclusive;
    if (rules) {
        EXPECT_LE(bank_other, client_conflict);
    } else {
        EXPECT_EQ(bank_other, client_conflict);
    }
}

TEST_P(KernelRandom, Skipping_gives_bit_identical_statistics_to_stepping) {
    const Workload w = random_workload(GetParam());
    const Outcome skipped = replay(w, false), stepped = replay(w, true);
    expect_same_as_stepping(skipped, stepped);
    EXPECT_LT(skipped.stats.stepped, stepped.stats.stepped);
    // Same input, same output.
    EXPECT_TRUE(replay(w, false).stats.same_results(skipped.stats));
}

INSTANTIATE_TEST_SUITE_P(Seeds, KernelRandom, ::testing::Values(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12));

// Long runs on mostly disjoint banks: the cycles the kernel takes in leaps (every ready beat
// granted, the same again next cycle) rather than one by one. DWRR levels with several
// contenders, strict or work-conserving TDM, PSUM clients and the odd shared bank vary by seed.
Workload steady_workload(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto pick = [&](std::uint64_t n) { return rng() % n; };
    Workload w;
    Params& p = w.params;
    p.tdm.strict = pick(2);
    p.tdm.dma_slots = 1 + static_cast<std::uint32_t>(pick(3));
    p.concurrency.dve_act_psum_exclusive = pick(2);
    for (ArbWeights* a : {&p.arbiter.pool_rd, &p.arbiter.act_rd, &p.arbiter.pool_wr, &p.arbiter.act_wr,
                          &p.arbiter.dve_rd, &p.arbiter.dve_wr, &p.arbiter.dma, &p.arbiter.psum_act})
        *a = {static_cast<std::uint32_t>(pick(2)), static_cast<std::uint32_t>(1 + pick(15))};
    const ClientSet clients(p);
    std::vector<std::uint32_t> used;
    for (const char* n : {"pool_rd", "act_rd", "pool_wr", "act_wr", "dve_rd", "dve_wr", "pe_client_0", "dma_0",
                          "dma_1", "dma_2", "act_psum_rd", "pe_wr", "pool_psum_rd"})
        if (auto c = clients.find(n)) used.push_back(index(*c));
    for (int batch = 0; batch < 12; ++batch) {
        for (std::size_t k = 0; k < used.size(); ++k) {
            if (pick(4) == 0) continue;
            const ClientInfo& ci = clients.all()[used[k]];
            Request r;
            r.client = ClientId{static_cast<std::uint16_t>(used[k])};
            r.region = ci.region;
            r.op = pick(8) == 0 ? Op::raw : Op::rd;
            if (ci.region == Region::sbuf) {
                // A home bank per client (8 partitions each), now and then a neighbour's.
                const std::uint32_t home = static_cast<std::uint32_t>(k + (pick(6) == 0 ? 1 : 0)) % 16;
                r.first_partition = static_cast<std::uint16_t>(home * 8);
                r.partitions = 8;
                r.bytes = static_cast<std::uint32_t>(8 * (64 + pick(512)));
                r.offset = static_cast<std::uint32_t>(pick(64) * 64);
            } else {
                const std::uint32_t cluster = static_cast<std::uint32_t>(k % 4);
                r.first_partition = static_cast<std::uint16_t>(cluster * 32);
                r.partitions = 32;
                r.bytes = static_cast<std::uint32_t>(8 * (16 + pick(200)));
                r.offset = static_cast<std::uint32_t>(pick(4) * 2048);
            }
            r.tag = w.requests.size();
            w.after_index.push_back(-1);
            w.requests.push_back(r);
        }
        w.run_points.push_back(static_cast<Cycle>(batch + 1) * (300 + pick(700)));
    }
    return w;
}

class KernelSteady : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(KernelSteady, Leaps_over_repeated_cycles_give_bit_identical_statistics_to_stepping) {
    const Workload w = steady_workload(GetParam());
    const Outcome leapt = replay(w, false), stepped = replay(w, true);
    expect_same_as_stepping(leapt, stepped);
}

INSTANTIATE_TEST_SUITE_P(Seeds, KernelSteady, ::testing::Values(1, 2, 3, 4, 5, 6, 7, 8));

// Queues of back-to-back requests on banks of their own, of random lengths: a run ends whenever a
// request completes, and the next request's beats go through with the others' again. The cycle
// in which runs end is stepped, and the next ones are leapt at once from the new heads.
class KernelSteadyHeads : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(KernelSteadyHeads, After_runs_end_the_new_heads_are_leapt_at_once) {
    std::mt19937_64 rng(GetParam());
    auto pick = [&](std::uint64_t n) { return rng() % n; };
    Workload w;
    const ClientSet clients(w.params);
    const std::pair<const char*, std::uint16_t> queues[] = {{"act_rd", 0}, {"pool_rd", 2},     {"dma_0", 4},
                                                            {"dma_1", 6},  {"pe_client_0", 8}, {"pe_wr", 0}};
    std::int64_t pool_request = -1;  // no DVE read here to wait for it
    for (const auto& [name, bank] : queues) {
        for (int i = 0; i < 20; ++i) {
            const auto bytes =
                static_cast<std::uint32_t>(64 * (1 + pick(16)));  // whole beats: one run a request
            push_queue_request(w, clients, name, bank, Op::rd, bytes, 0, pool_request);
        }
    }
    w.run_points.push_back(1);
    const Outcome fast = replay(w, false), stepped = replay(w, true);
    expect_same_as_stepping(fast, stepped);
    // One evaluated cycle per cycle in which requests completed (and the first two); stepping the
    // cycle after each of them too would double that.
    std::set<Cycle> done_cycles;
    for (const auto& d : fast.done) done_cycles.insert(d.done);
    EXPECT_GT(done_cycles.size(), 50u);
    EXPECT_LE(fast.stats.stepped, done_cycles.size() + 2);
}

INSTANTIATE_TEST_SUITE_P(Seeds, KernelSteadyHeads, ::testing::Values(1, 2, 3, 4));

// Long runs on banks of their own next to beats a gate holds: a DMA queue strict TDM holds out of
// the compute slots (and the compute clients out of the DMA slots), ACT reads whose throttler
// bucket is spent, DVE reads waiting for a request of POOL's, a PSUM read held by back-pressure
// (on in every third batch). The beats that go through are granted alike until the shortest run
// ends, a throttled client's bucket runs out or its window ends, or a gate may open (the TDM
// class changes, a throttler window starts), so those cycles are leapt with the held beats
// charged their gate, not stepped one by one.
class KernelGatedLeaps : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(KernelGatedLeaps, Beats_held_by_a_gate_do_not_stop_a_leap) {
    std::mt19937_64 rng(GetParam());
    auto pick = [&](std::uint64_t n) { return rng() % n; };
    Workload w;
    Params& p = w.params;
    p.tdm.strict = true;
    p.tdm.max_slots = 32;
    p.tdm.dma_slots = 1 + static_cast<std::uint32_t>(pick(8));
    p.throttler.act_rd = {true, static_cast<std::uint32_t>(16 + pick(48)),
                          static_cast<std::uint32_t>(1 + pick(4))};
    // POOL's writes: a bucket of half a window to a whole one, which often outlasts the window
    // (a leap then stops at the window's end, where the bucket refills).
    const std::uint32_t pool_window = 8 + static_cast<std::uint32_t>(pick(16));
    p.throttler.pool_wr = {true, pool_window,
                           pool_window / 2 + static_cast<std::uint32_t>(pick(pool_window / 2 + 1))};
    const ClientSet clients(p);
    const std::pair<const char*, std::uint16_t> queues[] = {
        {"pool_rd", 0}, {"pool_wr", 1}, {"act_rd", 2}, {"dve_rd", 3}, {"dma_0", 4}, {"dve_psum_rd", 0}};
    std::int64_t pool_request = -1;
    for (int batch = 0; batch < 6; ++batch) {
        for (const auto& [name, bank] : queues) {
            const ClientInfo& ci = clients.all()[index(*clients.find(name))];
            Request r;
            r.client = *clients.find(name);
            r.region = ci.region;
            r.first_partition = static_cast<std::uint16_t>(ci.region == Region::sbuf ? bank * 8 : 0);
            r.partitions = ci.region == Region::sbuf ? 8 : 32;
            r.bytes = static_cast<std::uint32_t>(8 * (200 + pick(800)));
            r.tag = w.requests.size();
            // DVE's reads wait for POOL's request of the batch before.
            w.after_index.push_back(std::string_view(name) == "dve_rd" ? pool_request : -1);
            if (std::string_view(name) == "pool_rd")
                pool_request = static_cast<std::int64_t>(w.requests.size());
            w.requests.push_back(r);
        }
        w.run_points.push_back((w.run_points.empty() ? 0 : w.run_points.back()) + 500 + pick(1500));
    }
    const Outcome fast = replay(w, false), stepped = replay(w, true);
    expect_same_as_stepping(fast, stepped);
    // Every gate held someone for a while.
    const auto stalls = [&](const char* name, StallCause cause) {
        return stalls_of(fast, clients, name, cause);
    };
    EXPECT_GT(stalls("dma_0", StallCause::tdm), 1000u);
    EXPECT_GT(stalls("pool_rd", StallCause::tdm), 100u);
    EXPECT_GT(stalls("act_rd", StallCause::throttle), 1000u);
    EXPECT_GT(stalls("dve_rd", StallCause::dependency), 500u);
    EXPECT_GT(stalls("dve_psum_rd", StallCause::psum_backpressure), 100u);
    // Stepped: the two TDM class changes of each 32-cycle period, the throttler windows' ends,
    // the run ends (7-16 % of the cycles over these seeds). Were a held beat or a throttled grant
    // to stop the leaps, only the stretches in which every ready beat is held would be skipped
    // (24-42 % stepped in three of the six seeds, 10-17 % in the others).
    EXPECT_LT(fast.stats.stepped * 5, fast.stats.cycles) << fast.stats.stepped << " of " << fast.stats.cycles;
}

INSTANTIATE_TEST_SUITE_P(Seeds, KernelGatedLeaps, ::testing::Values(1, 2, 3, 4, 5, 6));

// Strict TDM with each class streaming on banks of its own: the compute clients (a PE client,
// ACT, POOL, DVE after POOL) go through in the compute slots and the DMA queues in the DMA slots,
// next to a PSUM read (held by back-pressure in every third batch) that no TDM gate holds. A DMA
// queue shares a bank with the PE client and another with ACT: two classes never meet under
// strict TDM. Each class change swaps which class goes through, turn after turn, so a leap goes
// on past it (note_turns()) until a run ends or a request issues. In seeds above 4, dma_1 now and
// then takes dma_2's bank and a second PE client now and then joins the first: a turn in which
// not every beat would go through stops the leap at the class change. Per seed: the period and
// its split (a slot of one cycle in two seeds of three), the DMA-class order, the stage-2 and DMA
// weights.
Workload strict_turns_workload(std::uint64_t seed) {
    const bool clashes = seed > 4;
    std::mt19937_64 rng(seed);
    auto pick = [&](std::uint64_t n) { return rng() % n; };
    Workload w;
    Params& p = w.params;
    p.tdm.strict = true;
    p.tdm.max_slots = 8 + static_cast<std::uint32_t>(pick(25));
    // A DMA slot of one cycle (as in the shipped configs), a compute slot of one, or any split.
    const std::uint32_t split = 1 + static_cast<std::uint32_t>(pick(p.tdm.max_slots - 1));
    p.tdm.dma_slots = seed % 3 == 0 ? 1 : seed % 3 == 1 ? p.tdm.max_slots - 1 : split;
    p.tdm.dma_order = static_cast<DmaOrder>(pick(3));
    for (ArbWeights* a :
         {&p.arbiter.act_rd, &p.arbiter.pool_rd, &p.arbiter.dve_rd, &p.arbiter.pe_rd, &p.arbiter.dma})
        *a = {static_cast<std::uint32_t>(pick(2)), static_cast<std::uint32_t>(1 + pick(15))};
    const ClientSet clients(p);
    const std::pair<const char*, std::uint16_t> queues[] = {
        {"pe_client_0", 0}, {"act_rd", 1}, {"pool_rd", 2},     {"dve_rd", 3},     {"dma_0", 0},
        {"dma_1", 5},       {"dma_2", 1},  {"pe_client_1", 6}, {"dve_psum_rd", 0}};
    std::int64_t pool_request = -1;
    for (int batch = 0; batch < 8; ++batch) {
        for (const auto& [name, home] : queues) {
            const std::string_view n = name;
            if (n == "pe_client_1" && !(clashes && pick(3) == 0)) continue;
            std::uint16_t bank = home;
            if (n == "dma_1" && clashes && pick(3) == 0) bank = 1;
            // Drawn in this order (the seeds' workloads depend on it).
            const Op op = pick(8) == 0 ? Op::raw : Op::rd;
            const auto bytes = static_cast<std::uint32_t>(8 * (200 + pick(1200)));
            const Cycle issue = static_cast<Cycle>(batch) * 2000 + pick(100);
            push_queue_request(w, clients, n, bank, op, bytes, issue, pool_request);
        }
        w.run_points.push_back(static_cast<Cycle>(batch + 1) * (1000 + pick(2000)));
    }
    return w;
}

class KernelStrictTurns : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(KernelStrictTurns, Leaps_go_on_past_strict_TDM_class_changes) {
    const Workload w = strict_turns_workload(GetParam());
    const Outcome fast = replay(w, false), stepped = replay(w, true);
    expect_same_as_stepping(fast, stepped);
    const ClientSet clients(w.params);
    const auto stalls = [&](const char* name, StallCause cause) {
        return stalls_of(fast, clients, name, cause);
    };
    EXPECT_GT(stalls("dma_0", StallCause::tdm), 200u);
    EXPECT_GT(stalls("act_rd", StallCause::tdm), 200u);
    EXPECT_GT(stalls("dve_psum_rd", StallCause::psum_backpressure), 100u);
    // Stepped: the cycles in which runs end or requests issue (0.24-2.3 % of the cycles in seeds
    // 1-4). Were a leap to stop at each class change, the kernel would step about two cycles a
    // turn (6.4-20 %).
    if (GetParam() <= 4) {
        EXPECT_LT(fast.stats.stepped * 20, fast.stats.cycles)
            << fast.stats.stepped << " of " << fast.stats.cycles;
    }
}

INSTANTIATE_TEST_SUITE_P(Seeds, KernelStrictTurns, ::testing::Range<std::uint64_t>(1, 9));

// Throttled clients streaming on banks of their own (TDM not strict): ACT, POOL and DVE reads and
// ACT writes, each bucket its own window length (8-71 cycles) and size (1 beat to the whole
// window; ACT's reads 1 beat in the even seeds), next to an unthrottled PE client, a DMA queue and a PSUM read (held by back-pressure
// in every third batch), DVE's reads after POOL's request of the batch before. Every window each
// throttled client goes through until its bucket is spent, then waits for its window's refill;
// as long as nothing else changes (the held beats stay held), the leap goes on past each empty
// bucket and each refill (throttle_windows()). In seeds above 4, pool_rd now and then takes act_rd's bank: a clash the
// buckets alone do not decide, so those cycles are stepped. Per seed: the buckets and the
// stage-2 weights.
Workload throttle_windows_workload(std::uint64_t seed) {
    const bool clashes = seed > 4;
    std::mt19937_64 rng(seed);
    auto pick = [&](std::uint64_t n) { return rng() % n; };
    Workload w;
    Params& p = w.params;
    for (ThrottleCfg* t :
         {&p.throttler.act_rd, &p.throttler.pool_rd, &p.throttler.dve_rd, &p.throttler.act_wr}) {
        const auto window = static_cast<std::uint32_t>(8 + pick(64));
        *t = {true, window, static_cast<std::uint32_t>(1 + pick(window))};
    }
    // A bucket of one beat in every other seed: the cycle that grants it spends it.
    if (seed % 2 == 0) p.throttler.act_rd.transfer_cnt = 1;
    for (ArbWeights* a : {&p.arbiter.act_rd, &p.arbiter.pool_rd, &p.arbiter.dve_rd, &p.arbiter.pe_rd})
        *a = {static_cast<std::uint32_t>(pick(2)), static_cast<std::uint32_t>(1 + pick(15))};
    const ClientSet clients(p);
    const std::pair<const char*, std::uint16_t> queues[] = {
        {"act_rd", 1},      {"pool_rd", 2}, {"dve_rd", 3},     {"act_wr", 4},
        {"pe_client_0", 0}, {"dma_0", 5},   {"dve_psum_rd", 0}};
    std::int64_t pool_request = -1;
    for (int batch = 0; batch < 6; ++batch) {
        for (const auto& [name, home] : queues) {
            const std::string_view n = name;
            std::uint16_t bank = home;
            if (n == "pool_rd" && clashes && pick(3) == 0) bank = 1;
            const auto bytes = static_cast<std::uint32_t>(8 * (200 + pick(1200)));
            const Cycle issue = static_cast<Cycle>(batch) * 3000 + pick(100);
            push_queue_request(w, clients, n, bank, n.ends_with("_wr") ? Op::wr : Op::rd, bytes, issue,
                               pool_request);
        }
        w.run_points.push_back(static_cast<Cycle>(batch + 1) * (2000 + pick(3000)));
    }
    return w;
}

class KernelThrottleWindows : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(KernelThrottleWindows, Leaps_go_on_past_empty_buckets_and_refills) {
    const Workload w = throttle_windows_workload(GetParam());
    const Outcome fast = replay(w, false), stepped = replay(w, true);
    expect_same_as_stepping(fast, stepped);
    const ClientSet clients(w.params);
    std::uint64_t throttled = 0;
    for (const char* name : {"act_rd", "pool_rd", "dve_rd", "act_wr"})
        throttled += stalls_of(fast, clients, name, StallCause::throttle);
    EXPECT_GT(throttled, 10000u);
    EXPECT_GT(stalls_of(fast, clients, "dve_psum_rd", StallCause::psum_backpressure), 100u);
    // Stepped: the cycles in which runs end or requests issue (0.26-0.6 % of the cycles in seeds
    // 1-4). Were a leap to stop at each empty bucket and each refill, the kernel would step
    // 5.6-15.5 %; were the beats a dependency or back-pressure holds to stop it, 1.8-4.2 %.
    if (GetParam() <= 4) {
        EXPECT_LT(fast.stats.stepped * 50, fast.stats.cycles)
            << fast.stats.stepped << " of " << fast.stats.cycles;
    }
}

INSTANTIATE_TEST_SUITE_P(Seeds, KernelThrottleWindows, ::testing::Range<std::uint64_t>(1, 9));

// PE clients rotating through the one stage-1 slot next to long runs on other banks (a GEMM's
// moving reads): the cycles the kernel takes in rotate() rather than one by one. Per seed: the
// PE clients' weights and priorities, how often a PE request lands on another client's bank,
// PSUM traffic, and run targets that cut the rotation.
Workload rotation_workload(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto pick = [&](std::uint64_t n) { return rng() % n; };
    Workload w;
    Params& p = w.params;
    p.tdm.dma_slots = 1 + static_cast<std::uint32_t>(pick(3));
    for (std::size_t i = 0; i < 4; ++i)
        p.arbiter.stage1[i] = {static_cast<std::uint32_t>(pick(4) == 0 ? 1 : 0), static_cast<std::uint32_t>(1 + pick(4))};
    const ClientSet clients(p);
    std::vector<std::uint32_t> used;
    for (const char* n : {"pe_client_0", "pe_client_1", "pe_client_2", "pe_client_3", "act_rd", "pool_wr", "dma_0",
                          "pe_wr", "act_psum_wr"})
        if (auto c = clients.find(n)) used.push_back(index(*c));
    for (int batch = 0; batch < 10; ++batch) {
        for (std::size_t k = 0; k < used.size(); ++k) {
            if (pick(5) == 0) continue;
            const ClientInfo& ci = clients.all()[used[k]];
            Request r;
            r.client = ClientId{static_cast<std::uint16_t>(used[k])};
            r.region = ci.region;
            r.op = pick(10) == 0 ? Op::raw : Op::rd;
            if (ci.region == Region::sbuf) {
                // A home bank per client; now and then one of the next clients' (a shared bank).
                const std::uint32_t home = static_cast<std::uint32_t>(k + (pick(8) == 0 ? 1 + pick(3) : 0)) % 16;
                r.first_partition = static_cast<std::uint16_t>(home * 8);
                r.partitions = 8;
                r.bytes = static_cast<std::uint32_t>(8 * (32 + pick(400)));
                r.offset = static_cast<std::uint32_t>(pick(64) * 64);
            } else {
                r.first_partition = static_cast<std::uint16_t>((k % 4) * 32);
                r.partitions = 32;
                r.bytes = static_cast<std::uint32_t>(8 * (16 + pick(200)));
                r.offset = static_cast<std::uint32_t>(pick(4) * 2048);
            }
            r.issue = static_cast<Cycle>(batch) * 400 + pick(30);
            r.tag = w.requests.size();
            w.after_index.push_back(-1);
            w.requests.push_back(r);
        }
        w.run_points.push_back(static_cast<Cycle>(batch + 1) * (200 + pick(600)));
    }
    // Half the seeds put ACT's reads on the PE port's stage-2 level: the grants a rotation settles
    // in batches then move that level's DWRR state, with the PE port among its candidates only
    // while a PE client is (picked last, so the requests are the same either way).
    if (pick(2)) p.arbiter.act_rd = {p.arbiter.pe_rd.prio, static_cast<std::uint32_t>(1 + pick(3))};
    return w;
}

class KernelRotation : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(KernelRotation, Rotating_stage1_winners_give_bit_identical_statistics_to_stepping) {
    const Workload w = rotation_workload(GetParam());
    const Outcome rotated = replay(w, false), stepped = replay(w, true);
    expect_same_as_stepping(rotated, stepped);
    // The PE clients did rotate, and mostly not one cycle at a time: a stepped cycle charges at
    // most three stage-1 losses (four PE clients), so without rotate() the kernel would step at
    // least a third as many cycles as there are losses.
    std::uint64_t losses = 0;
    for (const auto& c : rotated.stats.clients) losses += c.stalls[static_cast<std::size_t>(StallCause::stage1_loss)];
    EXPECT_GT(losses, 0u);
    EXPECT_LT(rotated.stats.stepped * 3, losses);
}

INSTANTIATE_TEST_SUITE_P(Seeds, KernelRotation, ::testing::Range<std::uint64_t>(1, 17));

// PE clients rotating through stage 1 while DMA queues stream on the same banks (a GEMM's moving
// reads next to the loads of the next tiles): each PE client shares its home bank with one DMA
// queue, which loses to it in the compute class's TDM slots and beats it in the DMA class's. Other
// DMA queues, ACT and PSUM traffic run on banks no PE client touches, except in seeds above 8
// (which test exactness only): there ACT's long reads take PE banks half the time and dma_5 now
// and then takes dma_4's bank. Per seed: the TDM split, the PE clients'
// weights and priorities, the DMA arbiter's weights, whether ACT shares the PE port's stage-2
// level, request sizes and run targets.
Workload contested_rotation_workload(std::uint64_t seed) {
    const bool act_on_pe_banks = seed > 8;
    std::mt19937_64 rng(seed);
    auto pick = [&](std::uint64_t n) { return rng() % n; };
    Workload w;
    Params& p = w.params;
    p.tdm.dma_slots = 1 + static_cast<std::uint32_t>(pick(4));
    for (std::size_t i = 0; i < 4; ++i)
        p.arbiter.stage1[i] = {static_cast<std::uint32_t>(pick(4) == 0 ? 1 : 0),
                               static_cast<std::uint32_t>(1 + pick(4))};
    p.arbiter.dma = {0, static_cast<std::uint32_t>(1 + pick(3))};
    if (pick(2)) p.arbiter.act_rd = {p.arbiter.pe_rd.prio, static_cast<std::uint32_t>(1 + pick(3))};
    const ClientSet clients(p);
    struct Stream {
        const char* client;
        std::uint32_t bank;  // SBUF home bank; PSUM clients take a cluster by their place
        std::uint32_t bytes;
    };
    const Stream streams[] = {{"pe_client_0", 0, 64},
                              {"pe_client_1", 1, 64},
                              {"pe_client_2", 2, 64},
                              {"pe_client_3", 3, 64},
                              {"dma_0", 0, 1024},
                              {"dma_1", 1, 1024},
                              {"dma_2", 2, 1024},
                              {"dma_3", 3, 1024},
                              {"dma_4", 8, 2048},
                              {"dma_5", 9, 2048},
                              {"act_rd", 12, act_on_pe_banks ? 1024u : 256u},
                              {"pe_wr", 0, 256}};
    for (int batch = 0; batch < 8; ++batch) {
        for (std::size_t k = 0; k < std::size(streams); ++k) {
            if (pick(6) == 0) continue;
            const ClientInfo& ci = clients.all()[index(*clients.find(streams[k].client))];
            for (std::uint64_t rep = 1 + pick(3); rep; --rep) {
                Request r;
                r.client = *clients.find(streams[k].client);
                r.region = ci.region;
                r.op = Op::rd;
                if (ci.region == Region::sbuf) {
                    // ACT on a PE client's bank, dma_5 on dma_4's: then the order the stage-2 and
                    // DMA-class arbiters kept through the rotations decides.
                    std::uint32_t bank = streams[k].bank;
                    if (bank == 12 && act_on_pe_banks && pick(2) == 0)
                        bank = static_cast<std::uint32_t>(pick(4));
                    if (bank == 9 && act_on_pe_banks && pick(4) == 0) bank = 8;
                    r.first_partition = static_cast<std::uint16_t>(bank * 8);
                    r.partitions = 8;
                    r.bytes = static_cast<std::uint32_t>(8 * (streams[k].bytes / 2 + pick(streams[k].bytes)));
                    r.offset = static_cast<std::uint32_t>(pick(32) * 64);
                } else {
                    r.first_partition = 0;
                    r.partitions = 32;
                    r.bytes = static_cast<std::uint32_t>(8 * (16 + pick(200)));
                    r.offset = static_cast<std::uint32_t>(pick(4) * 2048);
                }
                r.issue = static_cast<Cycle>(batch) * 1500 + pick(40);
                r.tag = w.requests.size();
                w.after_index.push_back(-1);
                w.requests.push_back(r);
            }
        }
        w.run_points.push_back(static_cast<Cycle>(batch + 1) * (700 + pick(1500)));
    }
    return w;
}

class KernelRotationContested : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(KernelRotationContested,
       Rotating_winners_that_share_banks_with_dma_queues_give_bit_identical_statistics) {
    const Workload w = contested_rotation_workload(GetParam());
    const Outcome rotated = replay(w, false), stepped = replay(w, true);
    expect_same_as_stepping(rotated, stepped);
    // The winners and the DMA queues on their banks took turns losing, and those cycles were
    // mostly not stepped: a PE client shares its home bank with one DMA queue, so a stepped cycle
    // charges at most one loss between the two (the winner's or its queue's), and without
    // contested rotations the kernel would step a cycle for each.
    const ClientSet clients(w.params);
    std::uint64_t dma_losses = 0, pe_losses = 0;
    for (int k = 0; k < 4; ++k) {
        const ClientId pe = *clients.find("pe_client_" + std::to_string(k));
        const ClientId dma = *clients.find("dma_" + std::to_string(k));
        dma_losses += rotated.stats.blocked(dma, pe);
        pe_losses += rotated.stats.blocked(pe, dma);
    }
    EXPECT_GT(dma_losses, 0u);
    EXPECT_GT(pe_losses, 0u);  // the winners lost in the DMA class's slots
    // (With ACT often on the PE banks, most cycles are not rotations at all.)
    if (GetParam() <= 4) {
        EXPECT_LT(rotated.stats.stepped, dma_losses + pe_losses);
    }
}

INSTANTIATE_TEST_SUITE_P(Seeds, KernelRotationContested, ::testing::Range<std::uint64_t>(1, 17));

// Every registered arbitration policy (arbiter_registry.h) on both stages, and one on stage 1
// with the next on stage 2: skipping and leaping stay identical to stepping. Parameter: the
// stage-1 policy, the stage-2 policy and the workload seed.
class KernelPolicies : public ::testing::TestWithParam<std::tuple<std::size_t, std::size_t, std::uint64_t>> {};

TEST_P(KernelPolicies, Skipping_and_leaping_give_bit_identical_statistics_to_stepping) {
    const auto [stage1, stage2, seed] = GetParam();
    for (Workload w : {random_workload(seed), steady_workload(seed), rotation_workload(seed),
                       contested_rotation_workload(seed), contested_rotation_workload(seed + 8),
                       strict_turns_workload(seed), strict_turns_workload(seed + 4),
                       throttle_windows_workload(seed), throttle_windows_workload(seed + 4)}) {
        w.params.arbiter.stage1_policy = static_cast<ArbiterPolicyId>(stage1);
        w.params.arbiter.stage2_policy = static_cast<ArbiterPolicyId>(stage2);
        const Outcome skipped = replay(w, false), stepped = replay(w, true);
        expect_same_as_stepping(skipped, stepped);
        EXPECT_LT(skipped.stats.stepped, stepped.stats.stepped);
    }
}

std::vector<std::tuple<std::size_t, std::size_t, std::uint64_t>> policy_cases() {
    std::vector<std::tuple<std::size_t, std::size_t, std::uint64_t>> cases;
    const std::size_t n = kArbiterPolicyNames.size();
    for (std::size_t p = 0; p < n; ++p)
        for (std::uint64_t seed : {1, 2, 3}) {
            cases.emplace_back(p, p, seed);
            cases.emplace_back(p, (p + 1) % n, seed + 10);
        }
    return cases;
}

INSTANTIATE_TEST_SUITE_P(Policies, KernelPolicies, ::testing::ValuesIn(policy_cases()));

TEST(KernelAccounting, A_watched_run_with_no_target_is_stuck_when_nothing_can_move) {
    // pe_wr's request is held by back-pressure: watching it with no target cannot end in a
    // completion, so the run says stuck (after evaluating cycle 0) instead of running forever.
    Kernel k(test::word_beats());
    const auto pe = held_pe_write(k);
    EXPECT_EQ(k.run_until(kNever, std::uint64_t{1} << index(pe)), RunStatus::stuck);
    EXPECT_EQ(k.now(), 1u);
    EXPECT_FALSE(k.idle());
    k.set_backpressure(pe, false);
    EXPECT_EQ(k.run_until(kNever, std::uint64_t{1} << index(pe)), RunStatus::watched);
    EXPECT_EQ(k.now(), 2u);
    EXPECT_TRUE(k.idle());
}

TEST(KernelAccounting, A_watched_completion_stops_the_run_after_its_cycle) {
    // act_rd moves 10 beats on bank 0 (cycles 0..9), pool_rd 30 beats on bank 1 (cycles 0..29).
    // Watching act_rd, run_until(1000) stops after cycle 9; the completed clients name act_rd
    // only. Watching nothing with no target, the run goes on until no queued beat is left.
    Kernel k(test::word_beats());
    const auto act = id(k, "act_rd"), pool = id(k, "pool_rd");
    Request a;
    a.client = act;
    a.partitions = 8;
    a.bytes = 80;
    EXPECT_NE(k.submit(a), kNoRequest);
    Request b = a;
    b.client = pool;
    b.first_partition = 8;
    b.bytes = 240;
    EXPECT_NE(k.submit(b), kNoRequest);
    const std::uint64_t act_bit = std::uint64_t{1} << index(act), pool_bit = std::uint64_t{1} << index(pool);
    EXPECT_EQ(k.run_until(1000, act_bit), RunStatus::watched);
    EXPECT_EQ(k.now(), 10u);
    EXPECT_EQ(k.completed_clients(), act_bit);
    k.clear_completed_clients();
    EXPECT_EQ(k.run_until(kNever, 0), RunStatus::stuck);
    EXPECT_EQ(k.now(), 30u);
    EXPECT_EQ(k.completed_clients(), pool_bit);
    EXPECT_TRUE(k.idle());
}

}  // namespace
}  // namespace sbufsim
