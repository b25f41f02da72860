// Beats handed out in runs: the kernel moves a request's consecutive beats that share banks and
// bytes as one run and counts the run's beats, bytes and bank grants when it loads the run. These
// tests read the statistics in the middle of requests and of runs: they must count exactly the
// beats granted so far, however the request splits into runs. Each client is alone on its banks,
// so it moves one beat per cycle from cycle 0 and k cycles mean k beats.
//
// Default geometry (params.h): SBUF bank = partition / 8 (16 partitions per cluster, half = 8
// partitions); DMA beat = 1 partition x 32 B; engine beat = all partitions x 8 B; PSUM beat =
// all partitions x 8 B, PSUM bank = (partition / 32) x 8 + offset / 2048.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "sbufsim/address/address.h"
#include "sbufsim/kernel/kernel.h"
#include "kernel_clients.h"

namespace sbufsim {
namespace {

using test::id;

struct Snapshot {
    std::uint64_t beats, bytes;
};

Snapshot snapshot(Kernel& k, ClientId c) {
    const ClientStats& cs = k.stats().clients[index(c)];
    return {cs.beats, cs.bytes};
}

std::uint64_t bank_grants(Kernel& k, std::uint32_t bank, ClientId c) {
    return k.stats().banks[bank].grants[index(c)];
}

TEST(KernelRuns, Short_byte_chunks_and_a_bank_change_count_beat_by_beat) {
    // dma_0: partitions 4..11, 40 B each: per partition a 32 B beat then an 8 B beat (16 beats,
    // 320 B). Partitions 4..7 are on bank 0, 8..11 on bank 1.
    Params p = test::word_beats();
    Kernel k(p);
    const auto dma = id(k, "dma_0");
    EXPECT_NE(k.submit({.client = dma, .first_partition = 4, .partitions = 8, .bytes = 40}), kNoRequest);

    k.run_until(5);  // p4: 32 + 8, p5: 32 + 8, p6: 32
    Snapshot s = snapshot(k, dma);
    EXPECT_EQ(s.beats, 5u);
    EXPECT_EQ(s.bytes, 112u);
    EXPECT_EQ(bank_grants(k, 0, dma), 5u);
    EXPECT_EQ(bank_grants(k, 1, dma), 0u);

    // Reading the statistics twice changes nothing.
    s = snapshot(k, dma);
    EXPECT_EQ(s.beats, 5u);
    EXPECT_EQ(s.bytes, 112u);

    k.run_until(9);  // p4..p7 done (160 B), then p8's first 32 B on bank 1
    s = snapshot(k, dma);
    EXPECT_EQ(s.beats, 9u);
    EXPECT_EQ(s.bytes, 192u);
    EXPECT_EQ(bank_grants(k, 0, dma), 8u);
    EXPECT_EQ(bank_grants(k, 1, dma), 1u);

    ASSERT_EQ(k.run_to_completion(), RunStatus::reached);
    s = snapshot(k, dma);
    EXPECT_EQ(s.beats, 16u);
    EXPECT_EQ(s.bytes, 320u);
    EXPECT_EQ(bank_grants(k, 0, dma), 8u);
    EXPECT_EQ(bank_grants(k, 1, dma), 8u);
    EXPECT_EQ(k.now(), 16u);
}

TEST(KernelRuns, Equal_partition_chunks_on_two_banks_make_two_runs) {
    // dma_0: partitions 0..15, 32 B each: 16 one-beat chunks, 8 on bank 0 then 8 on bank 1.
    Params p = test::word_beats();
    Kernel k(p);
    const auto dma = id(k, "dma_0");
    EXPECT_NE(k.submit({.client = dma, .partitions = 16, .bytes = 32}), kNoRequest);

    k.run_until(3);  // inside the first run
    EXPECT_EQ(snapshot(k, dma).beats, 3u);
    EXPECT_EQ(snapshot(k, dma).bytes, 96u);
    EXPECT_EQ(bank_grants(k, 0, dma), 3u);

    k.run_until(10);  // the whole first run and 2 beats of the second
    EXPECT_EQ(snapshot(k, dma).beats, 10u);
    EXPECT_EQ(snapshot(k, dma).bytes, 320u);
    EXPECT_EQ(bank_grants(k, 0, dma), 8u);
    EXPECT_EQ(bank_grants(k, 1, dma), 2u);

    k.run_to_completion();
    EXPECT_EQ(snapshot(k, dma).beats, 16u);
    EXPECT_EQ(bank_grants(k, 1, dma), 8u);
}

TEST(KernelRuns, A_raw_request_on_one_bank_is_one_run) {
    // act_rd raw: partitions 0..7 x 64 B = 8 chunks of 8 partitions x 8 B, each a read and a write
    // beat: 16 beats of 64 B on bank 0, then a second request on bank 1 (partitions 8..15, rd,
    // 16 B = 2 beats).
    Params p = test::word_beats();
    Kernel k(p, KernelOptions{.completion_capacity = 8});
    const auto act = id(k, "act_rd");
    EXPECT_NE(k.submit({.client = act, .op = Op::raw, .partitions = 8, .bytes = 64}), kNoRequest);
    EXPECT_NE(k.submit({.client = act, .first_partition = 8, .partitions = 8, .bytes = 16}), kNoRequest);

    k.run_until(5);
    EXPECT_EQ(snapshot(k, act).beats, 5u);
    EXPECT_EQ(snapshot(k, act).bytes, 320u);
    EXPECT_EQ(bank_grants(k, 0, act), 5u);

    k.run_until(17);  // the raw request (cycles 0..15) and the first beat of the read
    EXPECT_EQ(snapshot(k, act).beats, 17u);
    EXPECT_EQ(snapshot(k, act).bytes, 1024u + 64u);
    EXPECT_EQ(bank_grants(k, 0, act), 16u);
    EXPECT_EQ(bank_grants(k, 1, act), 1u);
    Completion c;
    ASSERT_TRUE(k.pop_completion(c));
    EXPECT_EQ(c.done, 15u);
    EXPECT_EQ(c.beats, 16u);

    k.run_to_completion();
    EXPECT_EQ(snapshot(k, act).beats, 18u);
    EXPECT_EQ(snapshot(k, act).bytes, 1024u + 128u);
    EXPECT_EQ(k.stats().clients[index(act)].beats_requested, 18u);
}

TEST(KernelRuns, Psum_beats_follow_the_offset_across_banks) {
    // pe_wr: partitions 0..31, offset 2048 - 16, 32 B: 4 beats of 8 B x 32 partitions, the first
    // two in PSUM bank 0, the last two in PSUM bank 1 (offset 2048).
    Params p = test::word_beats();
    Kernel k(p);
    const auto pe = id(k, "pe_wr");
    const std::uint32_t psum0 = k.stats().sbuf_banks;
    EXPECT_NE(k.submit({.client = pe, .region = Region::psum, .partitions = 32, .offset = 2048 - 16, .bytes = 32}), kNoRequest);

    k.run_until(3);
    EXPECT_EQ(snapshot(k, pe).beats, 3u);
    EXPECT_EQ(snapshot(k, pe).bytes, 3u * 256u);
    EXPECT_EQ(bank_grants(k, psum0, pe), 2u);
    EXPECT_EQ(bank_grants(k, psum0 + 1, pe), 1u);

    k.run_to_completion();
    EXPECT_EQ(snapshot(k, pe).beats, 4u);
    EXPECT_EQ(bank_grants(k, psum0 + 1, pe), 2u);
    EXPECT_EQ(k.now(), 4u);
}

TEST(KernelRuns, Runs_walked_in_steps_end_where_the_banks_change) {
    // load_run() takes the chunks known to share banks in one step: whole partition chunks on one
    // SBUF bank, full byte chunks inside one PSUM bank or SBUF half. Each request below starts
    // and ends mid-bank; its bank grants must be what a chunk-by-chunk walk gives.
    Params p = test::word_beats();
    Kernel k(p);
    const auto dma = id(k, "dma_0");
    const auto pe = id(k, "pe_wr");
    const std::uint32_t psum0 = k.stats().sbuf_banks;
    // dma_0: partitions 5..16 x 64 B = 2 beats of 32 B each: 5..7 on bank 0 (6 beats), 8..15 on
    // bank 1 (16), 16 on bank 2 (2).
    EXPECT_NE(k.submit({.client = dma, .first_partition = 5, .partitions = 12, .bytes = 64}), kNoRequest);
    // pe_wr: offset 2008, 80 B = 10 beats of 8 B: 5 in PSUM bank 0, 5 in bank 1.
    EXPECT_NE(k.submit({.client = pe, .region = Region::psum, .partitions = 32, .offset = 2008, .bytes = 80}), kNoRequest);
    // Then offset 2044, 24 B: the first beat straddles banks 0 and 1, the other two are in bank 1.
    EXPECT_NE(k.submit({.client = pe, .region = Region::psum, .partitions = 32, .offset = 2044, .bytes = 24}), kNoRequest);

    k.run_until(10);
    EXPECT_EQ(bank_grants(k, 0, dma), 6u);
    EXPECT_EQ(bank_grants(k, 1, dma), 4u);
    EXPECT_EQ(bank_grants(k, psum0, pe), 5u);
    EXPECT_EQ(bank_grants(k, psum0 + 1, pe), 5u);

    ASSERT_EQ(k.run_to_completion(), RunStatus::reached);
    EXPECT_EQ(bank_grants(k, 0, dma), 6u);
    EXPECT_EQ(bank_grants(k, 1, dma), 16u);
    EXPECT_EQ(bank_grants(k, 2, dma), 2u);
    EXPECT_EQ(snapshot(k, dma).bytes, 12u * 64u);
    EXPECT_EQ(bank_grants(k, psum0, pe), 6u);
    EXPECT_EQ(bank_grants(k, psum0 + 1, pe), 8u);
    EXPECT_EQ(snapshot(k, pe).beats, 13u);
}

// The kernel builds its bank masks from per-partition tables made at setup (docs/kernel.md, "Bank
// mapping"); AddressMap decodes the same geometry from the seed's rules (seed 000 §3-§4). On random
// requests of both regions and both SBUF half selects, a request is granted on exactly the banks
// AddressMap says its access touches: the two stay one mapping.
TEST(KernelRuns, Banks_granted_are_the_address_maps_banks) {
    std::mt19937_64 rng(16);
    auto pick = [&](std::uint64_t lo, std::uint64_t hi) { return lo + rng() % (hi - lo + 1); };
    for (HalfSelect half : {HalfSelect::partition, HalfSelect::offset}) {
        Params p = test::word_beats();
        p.sbuf.half_select = half;
        const AddressMap map(p);
        for (int i = 0; i < 300; ++i) {
            Kernel k(p);
            const bool psum = i % 3 == 0;
            const char* client = psum ? "pe_wr" : i % 3 == 1 ? "dma_0" : "act_rd";
            const auto c = id(k, client);
            const std::uint32_t parts = psum ? p.psum.partitions : p.sbuf.partitions;
            const std::uint64_t active = psum ? p.psum.partition_active : p.sbuf.partition_active;
            Request r{.client = c, .region = psum ? Region::psum : Region::sbuf};
            r.first_partition = static_cast<std::uint16_t>(pick(0, parts - 1));
            r.partitions = static_cast<std::uint16_t>(pick(1, std::min<std::uint64_t>(parts - r.first_partition, 40)));
            r.bytes = static_cast<std::uint32_t>(pick(1, 4096));
            r.offset = static_cast<std::uint32_t>(pick(0, active - r.bytes));
            if (!psum && half == HalfSelect::offset && i % 2) {
                r.offset = static_cast<std::uint32_t>((1u << p.sbuf.half_offset_bit) - pick(1, r.bytes));  // straddle
            }
            ASSERT_NE(k.submit(r), kNoRequest);
            ASSERT_EQ(k.run_to_completion(), RunStatus::reached);
            const std::uint64_t want = psum ? std::uint64_t{map.psum_bank_mask(r.first_partition, r.partitions, r.offset, r.bytes)}
                                                  << k.stats().sbuf_banks
                                            : map.sbuf_bank_mask(r.first_partition, r.partitions, r.offset, r.bytes);
            std::uint64_t got = 0;
            for (std::size_t b = 0; b < k.stats().banks.size(); ++b)
                if (k.stats().banks[b].grants[index(c)]) got |= std::uint64_t{1} << b;
            EXPECT_EQ(got, want) << client << " partitions " << r.first_partition << "+" << r.partitions << " offset "
                                 << r.offset << " bytes " << r.bytes << (half == HalfSelect::offset ? " (offset half)" : "");
        }
    }
}

TEST(KernelRuns, Offset_half_select_runs_end_at_the_half_boundary) {
    // sbuf.half_select = offset: the half is bit 17 of the byte offset. act_rd on partitions 0..15
    // (cluster 0), offset 0x20000 - 24, 48 B = 6 beats of 8 B: 3 in the lower half (bank 0), 3 in
    // the upper half (bank 1).
    Params p = test::word_beats();
    p.sbuf.half_select = HalfSelect::offset;
    Kernel k(p);
    const auto act = id(k, "act_rd");
    EXPECT_NE(k.submit({.client = act, .partitions = 16, .offset = 0x20000 - 24, .bytes = 48}), kNoRequest);
    k.run_until(2);
    EXPECT_EQ(bank_grants(k, 0, act), 2u);
    ASSERT_EQ(k.run_to_completion(), RunStatus::reached);
    EXPECT_EQ(bank_grants(k, 0, act), 3u);
    EXPECT_EQ(bank_grants(k, 1, act), 3u);
    EXPECT_EQ(snapshot(k, act).beats, 6u);
}

TEST(KernelRuns, Copies_carry_their_runs) {
    // A copy taken in the middle of a run continues exactly as the original.
    Params p = test::word_beats();
    Kernel k(p);
    const auto dma = id(k, "dma_0");
    const auto act = id(k, "act_wr");
    EXPECT_NE(k.submit({.client = dma, .partitions = 16, .bytes = 40}), kNoRequest);
    EXPECT_NE(k.submit({.client = act, .first_partition = 64, .partitions = 8, .bytes = 64}), kNoRequest);
    k.run_until(7);
    Kernel copy = k;
    k.run_to_completion();
    copy.run_to_completion();
    EXPECT_TRUE(k.stats().same_results(copy.stats()));
    EXPECT_EQ(copy.stats().clients[index(dma)].bytes, 16u * 40u);
    EXPECT_EQ(copy.stats().clients[index(act)].bytes, 8u * 64u);
}

}  // namespace
}  // namespace sbufsim
