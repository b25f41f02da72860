// The arbitration policies of the stage-1 / stage-2 arbiters (arbiter.h, arbiter_registry.h):
// the contract every registered policy keeps (typed tests over the whole registry, so a new
// policy is checked without listing it here), each policy against a naive reference written
// from its description, and each policy's effect on a kernel run.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <map>
#include <random>
#include <variant>
#include <vector>

#include "sbufsim/kernel/arbiter_registry.h"
#include "sbufsim/kernel/kernel.h"
#include "kernel_clients.h"

namespace sbufsim {
namespace {

using test::id;

// The grant order segments() describes, port by port.
template <class A>
std::vector<std::uint32_t> order_of(const A& a, std::uint64_t candidates) {
    std::uint64_t seg[2 * kArbiterPorts + 1];
    const std::uint32_t n = a.segments(candidates, seg);
    std::vector<std::uint32_t> out;
    for (std::uint32_t s = 0; s < n; ++s)
        for (std::uint64_t m = seg[s]; m; m &= m - 1) out.push_back(static_cast<std::uint32_t>(std::countr_zero(m)));
    return out;
}

struct Port {
    std::uint32_t prio, weight;
};

// Random ports: 2..14 of them, priorities 0..2, weights 1..15.
std::vector<Port> random_ports(std::mt19937_64& rng) {
    std::vector<Port> ports(2 + rng() % 13);
    for (Port& p : ports) p = {static_cast<std::uint32_t>(rng() % 3), static_cast<std::uint32_t>(1 + rng() % 15)};
    return ports;
}

template <class A>
A declared(const std::vector<Port>& ports) {
    A a;
    for (std::uint32_t q = 0; q < ports.size(); ++q) a.add_port(q, ports[q].prio, ports[q].weight);
    return a;
}

// A cycle's grants: each candidate wants one of `banks` banks; in grant order a candidate goes
// when its bank is still free (the kernel's greedy grant, one bank per beat).
template <class A>
std::uint64_t greedy_grant(const A& a, std::uint64_t candidates, const std::vector<std::uint32_t>& bank_of) {
    std::uint64_t used = 0, granted = 0;
    for (std::uint32_t q : order_of(a, candidates)) {
        const std::uint64_t b = std::uint64_t{1} << bank_of[q];
        if (used & b) continue;
        used |= b;
        granted |= std::uint64_t{1} << q;
    }
    return granted;
}

// ---------------------------------------------------------------------------------------------
// The contract, for every registered policy.

template <class V>
struct AllOf;
template <class... Ts>
struct AllOf<std::variant<Ts...>> {
    using type = ::testing::Types<Ts...>;
};

template <class A>
class ArbiterPolicyContract : public ::testing::Test {};
TYPED_TEST_SUITE(ArbiterPolicyContract, AllOf<AnyArbiter>::type);

TYPED_TEST(ArbiterPolicyContract, Segments_list_every_candidate_once_and_first_leads_them) {
    std::mt19937_64 rng(3);
    for (int trial = 0; trial < 100; ++trial) {
        const auto ports = random_ports(rng);
        auto a = declared<TypeParam>(ports);
        const std::uint64_t all = (std::uint64_t{1} << ports.size()) - 1;
        for (int cycle = 0; cycle < 50; ++cycle) {
            const std::uint64_t c = rng() & all;
            const auto order = order_of(a, c);
            ASSERT_EQ(order.size(), static_cast<std::size_t>(std::popcount(c)));
            std::uint64_t seen = 0;
            for (std::uint32_t q : order) seen |= std::uint64_t{1} << q;
            ASSERT_EQ(seen, c);
            if (c) {
                ASSERT_EQ(a.first(c), order.front());
            }
            a.settle(c, c & rng());
        }
    }
}

TYPED_TEST(ArbiterPolicyContract, Settle_granted_n_equals_n_settles_with_every_candidate_granted) {
    // The leap law the kernel relies on: settle_granted(m, n) stands for n cycles in which every
    // candidate of m was granted. One arbiter is driven cycle by cycle, one by the shortcut; the
    // grant orders must then agree for every candidate set, also after further mixed cycles.
    std::mt19937_64 rng(11);
    for (int trial = 0; trial < 200; ++trial) {
        const auto ports = random_ports(rng);
        auto a = declared<TypeParam>(ports), b = a;
        const std::uint64_t all = (std::uint64_t{1} << ports.size()) - 1;
        for (int phase = 0; phase < 6; ++phase) {
            const std::uint64_t m = rng() & all;
            const std::uint64_t n = rng() % 3 == 0 ? rng() % 4 : rng() % 500;
            for (std::uint64_t i = 0; i < n; ++i) a.settle(m, m);
            b.settle_granted(m, n);
            const std::uint64_t c = rng() & all, g = c & rng();
            a.settle(c, g);
            b.settle(c, g);
            for (std::uint64_t probe : {all, m, c, rng() & all})
                ASSERT_EQ(order_of(a, probe), order_of(b, probe))
                    << TypeParam::kName << " trial " << trial << " phase " << phase << " n " << n;
        }
    }
}

TEST(ArbiterRegistry, Every_name_makes_the_policy_of_that_name) {
    for (std::size_t i = 0; i < kArbiterPolicyNames.size(); ++i) {
        const AnyArbiter a = make_arbiter(static_cast<ArbiterPolicyId>(i));
        EXPECT_EQ(a.index(), i);
        std::visit([&](const auto& p) { EXPECT_EQ(p.kName, kArbiterPolicyNames[i]); }, a);
    }
    EXPECT_THROW(make_arbiter(static_cast<ArbiterPolicyId>(kArbiterPolicyNames.size())), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// Each policy against a naive reference on random request patterns: the same grant order every
// cycle, with grants from a greedy bank grant over random banks.

// round_robin: one pointer over all ports; the favourite is the first candidate at or after it
// and, granted while another contended, moves the pointer past itself.
struct NaiveRoundRobin {
    std::uint32_t ptr = 0;
    std::vector<std::uint32_t> order(std::uint64_t c) const {
        std::vector<std::uint32_t> out;
        for (std::uint32_t i = 0; i < 64; ++i)
            if (c >> ((ptr + i) % 64) & 1) out.push_back((ptr + i) % 64);
        return out;
    }
    void settle(std::uint64_t c, std::uint64_t g) {
        const auto o = order(c);
        if (o.size() >= 2 && (g >> o.front() & 1)) ptr = (o.front() + 1) % 64;
    }
};

// fixed_priority: higher priority first, then the lower port.
struct NaiveFixedPriority {
    std::vector<Port> ports;
    std::vector<std::uint32_t> order(std::uint64_t c) const {
        std::vector<std::uint32_t> out;
        for (std::uint32_t q = 0; q < ports.size(); ++q)
            if (c >> q & 1) out.push_back(q);
        std::stable_sort(out.begin(), out.end(), [&](auto x, auto y) { return ports[x].prio > ports[y].prio; });
        return out;
    }
    void settle(std::uint64_t, std::uint64_t) {}
};

// oldest_first: a stamp per port, the smallest goes first; the ports granted in a cycle get
// stamps above every other, keeping their order among themselves.
struct NaiveOldestFirst {
    std::map<std::uint32_t, std::uint64_t> stamp;  // declared port -> stamp
    std::vector<std::uint32_t> order(std::uint64_t c) const {
        std::vector<std::uint32_t> out;
        for (const auto& [q, s] : stamp)
            if (c >> q & 1) out.push_back(q);
        std::sort(out.begin(), out.end(), [&](auto x, auto y) { return stamp.at(x) < stamp.at(y); });
        return out;
    }
    void settle(std::uint64_t, std::uint64_t g) {
        std::uint64_t top = 0;
        for (const auto& [q, s] : stamp) top = std::max(top, s);
        for (std::uint32_t q : order(g)) stamp[q] = ++top;
    }
};

template <class A, class Naive>
void same_grants_as(Naive naive, const std::vector<Port>& ports, std::mt19937_64& rng) {
    A a = declared<A>(ports);
    const std::uint64_t all = (std::uint64_t{1} << ports.size()) - 1;
    std::vector<std::uint32_t> bank_of(ports.size());
    for (int cycle = 0; cycle < 300; ++cycle) {
        for (auto& b : bank_of) b = static_cast<std::uint32_t>(rng() % 4);
        const std::uint64_t c = rng() & rng() & all;  // about a quarter of the ports each cycle
        ASSERT_EQ(order_of(a, c), naive.order(c)) << A::kName << " cycle " << cycle;
        const std::uint64_t g = greedy_grant(a, c, bank_of);
        a.settle(c, g);
        naive.settle(c, g);
    }
}

TEST(ArbiterPolicies, Round_robin_matches_its_naive_reference) {
    std::mt19937_64 rng(21);
    for (int trial = 0; trial < 100; ++trial) same_grants_as<RoundRobin>(NaiveRoundRobin{}, random_ports(rng), rng);
}

TEST(ArbiterPolicies, Fixed_priority_matches_its_naive_reference) {
    std::mt19937_64 rng(22);
    for (int trial = 0; trial < 100; ++trial) {
        const auto ports = random_ports(rng);
        same_grants_as<FixedPriority>(NaiveFixedPriority{ports}, ports, rng);
    }
}

TEST(ArbiterPolicies, Oldest_first_matches_its_naive_reference) {
    std::mt19937_64 rng(23);
    for (int trial = 0; trial < 100; ++trial) {
        const auto ports = random_ports(rng);
        NaiveOldestFirst naive;
        for (std::uint32_t q = 0; q < ports.size(); ++q) naive.stamp[q] = q;
        same_grants_as<OldestFirst>(naive, ports, rng);
    }
}

TEST(ArbiterPolicies, Round_robin_is_priority_dwrr_with_one_priority_and_weight_1) {
    // The two implementations share nothing but the description.
    std::mt19937_64 rng(24);
    for (int trial = 0; trial < 100; ++trial) {
        auto ports = random_ports(rng);
        for (Port& p : ports) p = {3, 1};
        RoundRobin rr = declared<RoundRobin>(ports);
        PriorityDwrr dwrr = declared<PriorityDwrr>(ports);
        const std::uint64_t all = (std::uint64_t{1} << ports.size()) - 1;
        std::vector<std::uint32_t> bank_of(ports.size());
        for (int cycle = 0; cycle < 300; ++cycle) {
            for (auto& b : bank_of) b = static_cast<std::uint32_t>(rng() % 4);
            const std::uint64_t c = rng() & all;
            ASSERT_EQ(order_of(rr, c), order_of(dwrr, c));
            const std::uint64_t g = greedy_grant(rr, c, bank_of);
            rr.settle(c, g);
            dwrr.settle(c, g);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The policies in a kernel run: two engine clients saturating one bank.

Request engine(ClientId c, std::uint32_t beats) {
    Request r;
    r.client = c;
    r.first_partition = 0;
    r.partitions = 8;
    r.bytes = 8 * beats;
    return r;
}

struct Shares {
    std::uint64_t pool, act;
};

// pool_rd (priority 0, weight 1) and act_rd (priority `act_prio`, weight 3) on bank 0 for 1,000
// cycles under the stage-2 policy `policy`.
Shares two_on_one_bank(std::string_view policy, std::uint32_t act_prio) {
    Params p;
    p.arbiter.stage2_policy = static_cast<ArbiterPolicyId>(
        std::find(kArbiterPolicyNames.begin(), kArbiterPolicyNames.end(), policy) - kArbiterPolicyNames.begin());
    p.arbiter.pool_rd = {0, 1};
    p.arbiter.act_rd = {act_prio, 3};
    Kernel k(p);
    const auto pool = id(k, "pool_rd"), act = id(k, "act_rd");
    EXPECT_NE(k.submit(engine(pool, 5000)), kNoRequest);
    EXPECT_NE(k.submit(engine(act, 5000)), kNoRequest);
    k.run_until(1000);
    const Stats& s = k.stats();
    return {s.clients[index(pool)].beats, s.clients[index(act)].beats};
}

TEST(ArbiterPolicies, In_a_kernel_run_each_policy_shares_a_bank_its_own_way) {
    // Equal priorities: DWRR splits 1:3 by weight, round robin and oldest-first alternate (weights
    // ignored), fixed priority lets the lower-numbered of the two take every cycle.
    const Shares dwrr = two_on_one_bank("priority_dwrr", 0);
    EXPECT_EQ(dwrr.pool, 250u);
    EXPECT_EQ(dwrr.act, 750u);
    for (auto fair : {"round_robin", "oldest_first"}) {
        const Shares s = two_on_one_bank(fair, 0);
        EXPECT_EQ(s.pool, 500u) << fair;
        EXPECT_EQ(s.act, 500u) << fair;
    }
    const Shares fixed = two_on_one_bank("fixed_priority", 0);
    EXPECT_EQ(fixed.pool + fixed.act, 1000u);
    EXPECT_EQ(std::min(fixed.pool, fixed.act), 0u);
    // A higher priority: the priority policies starve pool_rd, the others ignore it.
    EXPECT_EQ(two_on_one_bank("priority_dwrr", 2).pool, 0u);
    EXPECT_EQ(two_on_one_bank("fixed_priority", 2).pool, 0u);
    EXPECT_EQ(two_on_one_bank("round_robin", 2).pool, 500u);
    EXPECT_EQ(two_on_one_bank("oldest_first", 2).pool, 500u);
}

}  // namespace
}  // namespace sbufsim
