// NC-v2's concurrency rules as whole-instruction exclusion (shared_ports.h; PUBLIC_FACTS
// "Concurrency on NC-v2"): the port arbitration itself, then replays in which VectorE and GpSimd
// (or VectorE and ScalarE on PSUM) serialise on sunda and overlap on cayman.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sbufsim/engines/shared_ports.h"
#include "sbufsim/replay/replay.h"
#include "shipped.h"
#include "temp_files.h"

namespace sbufsim {
namespace {

constexpr std::uint8_t kSbuf = SharedPorts::bit(SharedPorts::sbuf);
constexpr std::uint8_t kPsum = SharedPorts::bit(SharedPorts::psum);

// ---- the arbitration -----------------------------------------------------------------------------

TEST(SharedPorts, A_lone_claim_is_granted_at_the_end_of_the_cycle) {
    SharedPorts ports(true, true);
    const auto dve = ports.join(PortSide::vector);
    ports.claim(dve, kSbuf);
    EXPECT_FALSE(ports.granted(dve));  // not within the cycle: the other side may still claim
    EXPECT_EQ(ports.resolve(), std::uint64_t{1} << dve);
    EXPECT_TRUE(ports.granted(dve));
}

TEST(SharedPorts, The_other_side_waits_until_the_holder_releases) {
    SharedPorts ports(true, false);
    const auto dve = ports.join(PortSide::vector), pool = ports.join(PortSide::other);
    ports.claim(dve, kSbuf);
    ports.resolve();
    EXPECT_EQ(ports.start(dve), kSbuf);
    ports.claim(pool, kSbuf);
    EXPECT_EQ(ports.resolve(), 0u);
    EXPECT_FALSE(ports.granted(pool));
    ports.release(dve);
    EXPECT_EQ(ports.resolve(), std::uint64_t{1} << pool);
}

TEST(SharedPorts, One_side_shares_the_port_and_a_tie_alternates) {
    SharedPorts ports(true, false);
    const auto dve = ports.join(PortSide::vector), pool = ports.join(PortSide::other), q7 = ports.join(PortSide::other);
    // POOL and a Q7 core are both GpSimd: granted together.
    ports.claim(pool, kSbuf);
    ports.claim(q7, kSbuf);
    EXPECT_EQ(ports.resolve(), (std::uint64_t{1} << pool) | (std::uint64_t{1} << q7));
    ports.start(pool);
    ports.start(q7);
    ports.release(pool);
    ports.release(q7);
    // Both sides claim a free port: the side that did not have it last (VectorE) goes first.
    ports.claim(dve, kSbuf);
    ports.claim(pool, kSbuf);
    EXPECT_EQ(ports.resolve(), std::uint64_t{1} << dve);
    ports.start(dve);
    ports.release(dve);
    EXPECT_EQ(ports.resolve(), std::uint64_t{1} << pool);
}

TEST(SharedPorts, A_holding_side_takes_no_more_while_the_other_waits) {
    SharedPorts ports(true, false);
    const auto dve = ports.join(PortSide::vector), pool = ports.join(PortSide::other), q7 = ports.join(PortSide::other);
    ports.claim(pool, kSbuf);
    ports.resolve();
    ports.start(pool);
    ports.claim(dve, kSbuf);
    ports.claim(q7, kSbuf);  // same side as the holder, but VectorE is waiting: no starvation
    EXPECT_EQ(ports.resolve(), 0u);
    ports.release(pool);
    EXPECT_EQ(ports.resolve(), std::uint64_t{1} << dve);
}

TEST(SharedPorts, An_instruction_needing_both_ports_starts_when_both_are_granted) {
    SharedPorts ports(true, true);
    const auto dve = ports.join(PortSide::vector), act = ports.join(PortSide::other);
    ports.claim(act, kPsum);
    ports.resolve();
    ports.start(act);
    ports.claim(dve, kSbuf | kPsum);
    EXPECT_EQ(ports.resolve(), 0u);  // SBUF is granted (reserved), PSUM is ACT's
    EXPECT_FALSE(ports.granted(dve));
    ports.release(act);
    EXPECT_EQ(ports.resolve(), std::uint64_t{1} << dve);
}

// ---- replays -------------------------------------------------------------------------------------

std::string write_trace(const std::string& name, const std::string& body) {
    const std::string path = test::temp("ports_" + name + ".trc");
    std::ofstream(path) << "sbufsim-trace 1\n" << body;
    return path;
}

// Two independent 512-element bf16 instructions, one per side, both ready at cycle 0.
const char* kDvePool =
    "dve queue=qVector0 src=bf16@0x0[1][512] dst=bf16@0x4000[1][512] partitions=128 isa=tensor_scalar\n"
    "pool queue=qPool0 src=bf16@0x8000[1][512] dst=bf16@0xc000[1][512] partitions=128 isa=tensor_scalar\n";
const char* kDveActPsum =
    "dve queue=qVector0 src=fp32@0x2000000[1][512] dst=bf16@0x0[1][512] partitions=128 isa=tensor_copy\n"
    "act queue=qAct0 src=fp32@0x2000800[1][512] dst=bf16@0x4000[1][512] partitions=128 isa=activation\n";

struct Runs {
    ReplayResult apart, together;
};

Runs replay_pair(const std::string& name, const char* body, Params serialised, Params free) {
    const std::string path = write_trace(name, body);
    Runs r{replay_trace(serialised, path), replay_trace(free, path)};
    std::filesystem::remove(path);
    return r;
}

Cycle busy(const ReplayResult& r, const std::string& engine) {
    for (const EngineStats& e : r.engines)
        if (e.name == engine) return e.busy;
    return 0;
}
Cycle port_wait(const ReplayResult& r, const std::string& engine) {
    for (const EngineStats& e : r.engines)
        if (e.name == engine) return e.port_wait;
    return 0;
}

TEST(SharedPortReplay, Vector_and_gpsimd_instructions_serialise_on_sunda_sbuf) {
    Params beat = test::shipped_params("sunda");
    beat.concurrency.scope = ExclusiveScope::beat;
    const Runs r = replay_pair("dve_pool", kDvePool, test::shipped_params("sunda"), beat);
    // VectorE goes first at the tie; POOL waits for its whole instruction.
    EXPECT_EQ(port_wait(r.apart, "dve"), 0u);
    EXPECT_GE(port_wait(r.apart, "pool"), busy(r.apart, "dve") - 1);
    EXPECT_GE(r.apart.total_cycles, busy(r.apart, "dve") + busy(r.apart, "pool"));
    // Per beat only, the two overlap.
    EXPECT_EQ(port_wait(r.together, "pool"), 0u);
    EXPECT_LT(r.together.total_cycles, busy(r.together, "dve") + busy(r.together, "pool"));
}

TEST(SharedPortReplay, Vector_and_scalar_psum_readers_serialise_on_sunda) {
    Params off = test::shipped_params("sunda");
    off.concurrency.dve_act_psum_exclusive = false;
    off.concurrency.dve_gpsimd_sbuf_exclusive = false;
    const Runs r = replay_pair("dve_act", kDveActPsum, test::shipped_params("sunda"), off);
    EXPECT_GT(port_wait(r.apart, "act"), 0u);
    EXPECT_GE(r.apart.total_cycles, busy(r.apart, "dve") + busy(r.apart, "act"));
    EXPECT_LT(r.together.total_cycles, r.apart.total_cycles);
}

TEST(SharedPortReplay, Cayman_lifts_both_rules) {
    Params on = test::cayman();
    on.concurrency.dve_gpsimd_sbuf_exclusive = true;
    const Runs r = replay_pair("cayman", kDvePool, on, test::cayman());
    EXPECT_GT(port_wait(r.apart, "pool"), 0u);   // the rule switched on by hand acts
    EXPECT_EQ(port_wait(r.together, "pool"), 0u);  // the shipped cayman has no such rule
    EXPECT_LT(r.together.total_cycles, r.apart.total_cycles);
}

}  // namespace
}  // namespace sbufsim
