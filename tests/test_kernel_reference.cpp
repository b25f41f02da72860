// The kernel against a naive per-cycle reference of its SBUF bank arbitration (docs/kernel.md
// "One cycle"), on random workloads. The reference covers SBUF only, work-conserving TDM, no
// throttlers, no concurrency rules, no back-pressure and HalfSelect::partition: stage 1 over the
// PE clients, the stage-2 / DMA-class order with the slot's precedence class first, the greedy
// bank grant, dependencies, and priority + DWRR inside each arbiter. It walks every beat of every
// request one cycle at a time with plain containers, so it shares none of the kernel's runs,
// skips, leaps, rotations or bit-mask arbiter code.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <random>
#include <vector>

#include "sbufsim/kernel/kernel.h"
#include "kernel_clients.h"

namespace sbufsim {
namespace {

constexpr std::uint32_t kPorts = 64;
constexpr std::uint32_t kPeRd = 63;  // the stage-2 port that stands for the stage-1 winner

// Priority + DWRR as docs/kernel.md "DWRR" tells it: higher priority first; inside a level the
// ports cyclically from the level's pointer; the favoured port keeps its place for `weight`
// granted beats; the state moves only in cycles where two or more ports of the level contended.
class RefDwrr {
public:
    void add(std::uint32_t port, std::uint32_t prio, std::uint32_t weight) {
        prio_[port] = prio;
        weight_[port] = std::max<std::uint32_t>(weight, 1);
        levels_[prio];
    }
    std::vector<std::uint32_t> order(const std::vector<std::uint32_t>& cand) const {
        std::vector<std::uint32_t> out = cand;
        std::sort(out.begin(), out.end(), [&](std::uint32_t a, std::uint32_t b) {
            if (prio_.at(a) != prio_.at(b)) return prio_.at(a) > prio_.at(b);
            const std::uint32_t ptr = levels_.at(prio_.at(a)).ptr;
            return (a + kPorts - ptr) % kPorts < (b + kPorts - ptr) % kPorts;
        });
        return out;
    }
    void settle(const std::vector<std::uint32_t>& cand, const std::vector<std::uint32_t>& granted) {
        for (auto& [prio, l] : levels_) {
            std::vector<std::uint32_t> in;
            for (std::uint32_t c : cand)
                if (prio_.at(c) == prio) in.push_back(c);
            if (in.size() < 2) continue;
            const std::uint32_t fav = order(in).front();
            if (fav != l.ptr || l.fresh) l = {fav, weight_.at(fav), false};
            if (std::find(granted.begin(), granted.end(), fav) == granted.end()) continue;
            if (--l.credit == 0) l = {(fav + 1) % kPorts, 0, true};
        }
    }

private:
    struct Level {
        std::uint32_t ptr = 0, credit = 0;
        bool fresh = true;
    };
    std::map<std::uint32_t, std::uint32_t> prio_, weight_;
    std::map<std::uint32_t, Level> levels_;
};

enum class Kind { pe, stage2, dma };

struct RefRequest {
    Cycle issue = 0;
    std::int64_t after = -1;               // index into the workload, -1 = none
    std::vector<std::uint32_t> beats;      // bank mask of each beat, in order
};

struct RefClient {
    std::uint32_t id = 0;  // the kernel's client index (= arbiter port)
    Kind kind = Kind::stage2;
    std::deque<std::size_t> queue;  // workload indices, submission order
    std::size_t beat = 0;           // beats of the head request granted so far
    Cycle free_from = 0;            // previous request's done + 1
    std::uint64_t granted = 0;
    std::array<std::uint64_t, kStallCauses> stalls{};
};

// The banks of partitions [p0, p1] in HalfSelect::partition mode: bank = cluster * 2 + half.
std::uint32_t banks_of(const Params& p, std::uint32_t p0, std::uint32_t p1) {
    std::uint32_t m = 0;
    for (std::uint32_t q = p0; q <= p1; ++q)
        m |= 1u << ((q / (p.sbuf.partitions / p.sbuf.clusters)) * 2 + (q / 8) % 2);
    return m;
}

// Beats of a request: partition chunks of `ppb` partitions (0 = all), byte chunks of `bpb`
// bytes, each chunk twice for a raw access.
std::vector<std::uint32_t> ref_beats(const Params& p, const Request& r, std::uint32_t ppb, std::uint32_t bpb) {
    std::vector<std::uint32_t> out;
    const std::uint32_t chunk = ppb ? ppb : r.partitions;
    for (std::uint32_t p0 = r.first_partition; p0 < r.first_partition + r.partitions; p0 += chunk) {
        const std::uint32_t p1 = std::min<std::uint32_t>(p0 + chunk, r.first_partition + r.partitions) - 1;
        for (std::uint32_t b = 0; b < r.bytes; b += bpb)
            for (int rep = 0; rep < (r.op == Op::raw ? 2 : 1); ++rep) out.push_back(banks_of(p, p0, p1));
    }
    return out;
}

struct RefResult {
    std::vector<Cycle> done;  // per workload request
    std::vector<RefClient> clients;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> blocked;  // (victim, winner)
};

RefResult run_reference(const Params& p, std::vector<RefClient> clients, const std::vector<RefRequest>& work,
                        RefDwrr stage1, RefDwrr stage2, RefDwrr dma) {
    RefResult res;
    res.done.assign(work.size(), kNever);
    auto stall = [&](RefClient& c, StallCause cause) { ++c.stalls[static_cast<std::size_t>(cause)]; };
    for (Cycle t = 0;; ++t) {
        bool work_left = false;
        std::vector<RefClient*> ready;
        for (RefClient& c : clients) {
            if (c.queue.empty()) continue;
            work_left = true;
            const RefRequest& r = work[c.queue.front()];
            if (std::max(r.issue, c.free_from) > t) continue;
            if (r.after >= 0 && !(res.done[r.after] < t)) {  // done by the end of cycle t - 1
                stall(c, StallCause::dependency);
                continue;
            }
            ready.push_back(&c);
        }
        if (!work_left) break;
        std::map<std::uint32_t, RefClient*> by_id;
        std::vector<std::uint32_t> s1, c2, d;
        for (RefClient* c : ready) {
            by_id[c->id] = c;
            (c->kind == Kind::pe ? s1 : c->kind == Kind::stage2 ? c2 : d).push_back(c->id);
        }
        // Stage 1: one PE winner, the others lose.
        std::uint32_t winner = kPorts;
        if (!s1.empty()) {
            winner = stage1.order(s1).front();
            for (std::uint32_t c : s1)
                if (c != winner) stall(*by_id[c], StallCause::stage1_loss);
            c2.push_back(kPeRd);
        }
        // The slot's precedence class first, then the other one.
        const bool dma_prec = t % p.tdm.max_slots < p.tdm.dma_slots;
        std::vector<std::uint32_t> order = dma_prec ? dma.order(d) : stage2.order(c2);
        for (std::uint32_t c : dma_prec ? stage2.order(c2) : dma.order(d)) order.push_back(c);
        // Greedy: a beat goes when all its banks are still free this cycle.
        std::array<std::int64_t, 16> owner;
        owner.fill(-1);
        std::vector<std::uint32_t> granted;
        for (std::uint32_t port : order) {
            RefClient& c = *by_id[port == kPeRd ? winner : port];
            const std::uint32_t banks = work[c.queue.front()].beats[c.beat];
            std::int64_t blocker = -1;
            for (std::uint32_t b = 0; b < 16 && blocker < 0; ++b)
                if ((banks >> b & 1) && owner[b] >= 0) blocker = owner[b];
            if (blocker >= 0) {
                const bool blocker_prec = (by_id[blocker]->kind == Kind::dma) == dma_prec;
                const bool victim_prec = (c.kind == Kind::dma) == dma_prec;
                stall(c, blocker_prec && !victim_prec ? StallCause::tdm : StallCause::bank_conflict);
                ++res.blocked[{c.id, static_cast<std::uint32_t>(blocker)}];
                continue;
            }
            for (std::uint32_t b = 0; b < 16; ++b)
                if (banks >> b & 1) owner[b] = c.id;
            granted.push_back(c.id);
        }
        const bool pe_granted = std::find(granted.begin(), granted.end(), winner) != granted.end();
        stage1.settle(s1, pe_granted ? std::vector<std::uint32_t>{winner} : std::vector<std::uint32_t>{});
        std::vector<std::uint32_t> g2 = granted;
        if (pe_granted) g2.push_back(kPeRd);
        stage2.settle(c2, g2);
        dma.settle(d, granted);
        // Move the granted beats; a request's last beat completes it.
        for (std::uint32_t id : granted) {
            RefClient& c = *by_id[id];
            ++c.granted;
            if (++c.beat < work[c.queue.front()].beats.size()) continue;
            res.done[c.queue.front()] = t;
            c.queue.pop_front();
            c.beat = 0;
            c.free_from = t + 1;
        }
    }
    res.clients = std::move(clients);
    return res;
}

// The random workload's shape: bytes per partition (engine / DMA clients) and the cycles between
// issues. Short requests issued close together keep the kernel stepping cycle by cycle; long
// ones with gaps make it skip, leap and rotate.
struct Shape {
    std::uint32_t engine_bytes, dma_bytes, gap;
};
constexpr Shape kDense{40, 80, 3}, kLongRuns{400, 320, 60};

// Runs `n` random requests (seeded) through the kernel and the reference and compares every
// completion cycle, every client's granted beats and stalls per cause, and who blocked whom.
// Returns the kernel's statistics.
Stats compare_on_random_workload(std::uint32_t seed, std::size_t n, bool random_weights, Shape shape,
                                 Params p = test::word_beats()) {
    std::mt19937 rng(seed);
    auto pick = [&](std::uint32_t lo, std::uint32_t hi) {
        return std::uniform_int_distribution<std::uint32_t>(lo, hi)(rng);
    };
    if (random_weights) {
        for (ArbWeights& w : p.arbiter.stage1) w = {pick(0, 1), pick(1, 3)};
        for (ArbWeights* w : {&p.arbiter.pool_rd, &p.arbiter.act_rd, &p.arbiter.pool_wr, &p.arbiter.act_wr,
                              &p.arbiter.dve_rd, &p.arbiter.dve_wr, &p.arbiter.pe_rd})
            *w = {pick(0, 1), pick(1, 3)};
        p.arbiter.dma = {0, pick(1, 3)};
    }
    Kernel k(p, KernelOptions{.completion_capacity = static_cast<std::uint32_t>(2 * n)});

    const std::vector<std::pair<const char*, Kind>> names = {
        {"pe_client_0", Kind::pe}, {"pe_client_1", Kind::pe}, {"pe_client_2", Kind::pe},
        {"pe_client_3", Kind::pe}, {"pool_rd", Kind::stage2}, {"act_rd", Kind::stage2},
        {"pool_wr", Kind::stage2}, {"act_wr", Kind::stage2},  {"dve_rd", Kind::stage2},
        {"dve_wr", Kind::stage2},  {"dma_0", Kind::dma},      {"dma_1", Kind::dma},
        {"dma_2", Kind::dma}};
    std::vector<RefClient> clients;
    RefDwrr stage1, stage2, dma;
    for (const auto& [name, kind] : names) {
        RefClient c;
        c.id = index(test::id(k, name));
        c.kind = kind;
        const ArbWeights w = k.clients().all()[c.id].arb;
        (kind == Kind::pe ? stage1 : kind == Kind::stage2 ? stage2 : dma).add(c.id, w.prio, w.weight);
        clients.push_back(c);
    }
    stage2.add(kPeRd, p.arbiter.pe_rd.prio, p.arbiter.pe_rd.weight);

    std::vector<RefRequest> work;
    std::vector<RequestId> ids;
    Cycle issue = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t ci = pick(0, static_cast<std::uint32_t>(clients.size()) - 1);
        const bool is_dma = clients[ci].kind == Kind::dma;
        Request r;
        r.client = ClientId{static_cast<std::uint16_t>(clients[ci].id)};
        r.op = pick(0, 3) == 0 ? Op::raw : Op::rd;
        r.first_partition = static_cast<std::uint16_t>(pick(0, 127));
        r.partitions = static_cast<std::uint16_t>(pick(1, std::min<std::uint32_t>(is_dma ? 12 : 24, 128 - r.first_partition)));
        r.bytes = pick(1, is_dma ? shape.dma_bytes : shape.engine_bytes);
        issue += pick(0, shape.gap);
        r.issue = issue;
        r.tag = i;
        RefRequest rr;
        rr.issue = issue;
        if (i > 0 && pick(0, 7) == 0) {
            rr.after = pick(0, static_cast<std::uint32_t>(i) - 1);
            r.after = ids[rr.after];
        }
        rr.beats = is_dma ? ref_beats(p, r, p.width.dma_partitions, p.dma.data_width)
                          : ref_beats(p, r, 0, p.width.engine_bytes);
        ids.push_back(k.submit(r));
        EXPECT_NE(ids.back(), kNoRequest);
        clients[ci].queue.push_back(i);
        work.push_back(rr);
    }

    const RefResult ref = run_reference(p, clients, work, stage1, stage2, dma);
    EXPECT_EQ(k.run_to_completion(), RunStatus::reached);
    Completion c;
    std::size_t completions = 0;
    while (k.pop_completion(c)) {
        ++completions;
        EXPECT_EQ(c.done, ref.done[c.tag]) << "request " << c.tag << " of " << k.clients().all()[index(c.client)].name;
    }
    EXPECT_EQ(completions, n);
    const Stats& s = k.stats();
    std::uint64_t kernel_stalls = 0, ref_stalls = 0;
    for (const RefClient& rc : ref.clients) {
        const ClientStats& cs = s.clients[rc.id];
        EXPECT_EQ(cs.beats, rc.granted) << cs.name;
        for (std::size_t cause = 0; cause < kStallCauses; ++cause)
            EXPECT_EQ(cs.stalls[cause], rc.stalls[cause]) << cs.name << " " << to_string(static_cast<StallCause>(cause));
        kernel_stalls += cs.total_stalls();
        for (std::uint64_t v : rc.stalls) ref_stalls += v;
        for (const RefClient& w : ref.clients) {
            const auto it = ref.blocked.find({rc.id, w.id});
            EXPECT_EQ(s.blocked(ClientId{static_cast<std::uint16_t>(rc.id)}, ClientId{static_cast<std::uint16_t>(w.id)}),
                      it == ref.blocked.end() ? 0 : it->second)
                << cs.name << " blocked by " << s.clients[w.id].name;
        }
    }
    EXPECT_EQ(kernel_stalls, ref_stalls);
    EXPECT_GT(ref_stalls, 0u);  // the workload contends: the comparison is not vacuous
    return s;
}

TEST(KernelReference, Shipped_priorities_and_weights_match_the_naive_reference) {
    for (std::uint32_t seed : {1u, 2u, 3u, 4u, 5u, 6u}) {
        SCOPED_TRACE(seed);
        compare_on_random_workload(seed, 400, false, kDense);
    }
}

TEST(KernelReference, Random_priorities_and_weights_match_the_naive_reference) {
    for (std::uint32_t seed : {11u, 12u, 13u, 14u, 15u, 16u}) {
        SCOPED_TRACE(seed);
        compare_on_random_workload(seed, 400, true, kDense);
    }
}

TEST(KernelReference, Beat_widths_that_are_not_powers_of_two_match_the_naive_reference) {
    // Every shipped beat width is a power of two; the chunk arithmetic of submit() and
    // load_head() (divisions by a beat's bytes and partitions) must hold for any width.
    Params p = test::word_beats();
    p.width.engine_bytes = 12;
    p.dma.data_width = 24;
    for (std::uint32_t dma_partitions : {3u, 4u}) {
        p.width.dma_partitions = dma_partitions;
        for (std::uint32_t seed : {31u, 32u, 33u}) {
            SCOPED_TRACE(testing::Message() << "seed " << seed << ", dma_partitions " << dma_partitions);
            compare_on_random_workload(seed, 400, false, kDense, p);
        }
    }
}

TEST(KernelReference, Long_runs_with_gaps_match_the_naive_reference) {
    // Here the kernel takes most cycles in skips, leaps and rotations rather than one by one.
    for (std::uint32_t seed : {21u, 22u, 23u, 24u}) {
        SCOPED_TRACE(seed);
        const Stats s = compare_on_random_workload(seed, 300, seed % 2 == 0, kLongRuns);
        EXPECT_LT(s.stepped * 2, s.cycles);
    }
}

}  // namespace
}  // namespace sbufsim
