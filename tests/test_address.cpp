// Rule tests for the address model: the 29-bit decode (seed 000 §2), the ECC-bank mapping
// (seed 000 §3–§4), the bank-mask helpers and the SoC apertures (seed 002 §1, §3).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sbufsim/address/address.h"
#include "sbufsim/config/config.h"
#include "shipped.h"

namespace sbufsim {
namespace {

using test::all_generations;
using test::shipped_params;

// ---- decode: known points ---------------------------------------------------------------------

TEST(AddressDecode, Cayman_psum_starts_at_32MiB_magnitude_test) {
    const AddressMap m(shipped_params("cayman"));
    // seed 000 §2 QUIRK: anything at/above 0x2000000 (and below +PSUM_BUF_SZ) is PSUM.
    EXPECT_TRUE(m.addr_in_sbuf(0x1ffffff));
    EXPECT_FALSE(m.addr_in_psum(0x1ffffff));
    EXPECT_TRUE(m.addr_in_psum(0x2000000));
    EXPECT_FALSE(m.addr_in_sbuf(0x2000000));
    EXPECT_TRUE(m.addr_in_psum(0x23fffff));
    EXPECT_FALSE(m.addr_in_psum(0x2400000));
}

TEST(AddressDecode, Cayman_known_addresses) {
    const AddressMap m(shipped_params("cayman"));
    const Decoded s = m.decode(0x5600);
    EXPECT_EQ(s.region, Region::sbuf);
    EXPECT_EQ(s.partition, 0u);
    EXPECT_EQ(s.offset, 0x5600u);
    EXPECT_EQ(s.soc_addr, 0x2000005600u);
    EXPECT_TRUE(s.valid());

    const Decoded p = m.decode(0x2000800);
    EXPECT_EQ(p.region, Region::psum);
    EXPECT_EQ(p.partition, 0u);
    EXPECT_EQ(p.offset, 0x800u);
    EXPECT_EQ(p.bank.hw_bank, 1u);  // seed 000 §5.5: byte_off / 2048
    EXPECT_EQ(p.soc_addr, 0x2802000800u);  // seed 002 §3: TPB_0_PSUM_BUF
    EXPECT_TRUE(p.valid());

    EXPECT_EQ(m.sbuf_addr(3, 0x100), 0xc0100u);
    EXPECT_EQ(m.psum_addr(3, 0x100), 0x2018100u);
    EXPECT_EQ(m.get_sbuf_quadrant_id(m.sbuf_addr(95, 0)), 2u);
    EXPECT_EQ(m.get_psum_quadrant_id(m.psum_addr(96, 0)), 3u);
}

TEST(AddressDecode, Addr_imm_mask_keeps_29_bits) {
    const AddressMap m(shipped_params("cayman"));
    EXPECT_EQ(m.addr_imm_mask(0xe0005600u), 0x5600u);
    EXPECT_EQ(m.addr_imm_mask(0x1fffffffu), 0x1fffffffu);
}

TEST(AddressDecode, Wider_than_29_bits_is_reported_not_masked) {
    const AddressMap m(shipped_params("cayman"));
    const Decoded d = m.decode(0x20000000);
    EXPECT_EQ(d.status, DecodeStatus::too_wide);
    EXPECT_NE(m.explain(d).find("29-bit"), std::string::npos) << m.explain(d);
}

TEST(AddressDecode, Above_psum_is_off_chip) {
    const AddressMap m(shipped_params("cayman"));
    const Decoded d = m.decode(0x2400000);
    EXPECT_EQ(d.region, Region::none);
    EXPECT_EQ(d.status, DecodeStatus::off_chip);
    EXPECT_NE(m.explain(d).find("seed 000 §2"), std::string::npos) << m.explain(d);
}

TEST(AddressDecode, Pad_offset_is_invalid_with_reason) {
    const AddressMap m(shipped_params("cayman"));
    const Decoded d = m.decode(m.sbuf_addr(5, 0x38000));
    EXPECT_EQ(d.region, Region::sbuf);
    EXPECT_EQ(d.partition, 5u);
    EXPECT_EQ(d.status, DecodeStatus::pad);
    EXPECT_FALSE(d.valid());
    EXPECT_NE(m.explain(d).find("past the partition's memory: on cayman an SBUF partition holds 224 KiB (0x38000 bytes)"),
              std::string::npos)
        << m.explain(d);
    EXPECT_NE(m.explain(d).find("place the tile below offset 0x38000"), std::string::npos) << m.explain(d);
    EXPECT_TRUE(m.sbuf_offset_in_pad(0x38000));
    EXPECT_FALSE(m.sbuf_offset_in_pad(0x37fff));
    EXPECT_TRUE(m.psum_offset_in_pad(0x4000));
    EXPECT_FALSE(m.psum_offset_in_pad(0x3fff));
}

// ---- decode: maverick has no PSUM ---------------------------------------------------------------

TEST(MaverickNoPsum, Addr_in_psum_is_always_false) {
    const AddressMap m(shipped_params("maverick"));
    EXPECT_FALSE(m.has_psum());
    for (std::uint32_t a : {0x0u, 0x2000000u, 0x2000800u, 0x23fffffu, 0x8000000u, 0x1fffffffu})
        EXPECT_FALSE(m.addr_in_psum(a)) << hex(a);
}

TEST(MaverickNoPsum, Former_psum_window_is_sbuf_on_maverick) {
    const AddressMap m(shipped_params("maverick"));
    // STATE_BUF_SZ = 0x8000000 covers 0x2000000: partition 32 of the 1 MiB stride (seed 000 §1).
    const Decoded d = m.decode(0x2000000);
    EXPECT_EQ(d.region, Region::sbuf);
    EXPECT_EQ(d.partition, 32u);
    EXPECT_EQ(d.offset, 0u);
}

TEST(MaverickNoPsum, Beyond_sbuf_says_no_psum) {
    const AddressMap m(shipped_params("maverick"));
    const Decoded d = m.decode(0x8000000);
    EXPECT_EQ(d.status, DecodeStatus::off_chip);
    EXPECT_NE(m.explain(d).find("and maverick has no PSUM; give an address inside SBUF (seed 000 §1)"), std::string::npos)
        << m.explain(d);
}

TEST(MaverickNoPsum, Psum_location_is_rejected) {
    const AddressMap m(shipped_params("maverick"));
    const Decoded d = m.decode_location(Region::psum, 0, 0);
    EXPECT_EQ(d.status, DecodeStatus::no_psum);
    EXPECT_EQ(m.explain(d), "maverick has no PSUM; place the operand in SBUF [0x0, 0x8000000) (seed 000 §1)");
    EXPECT_EQ(m.psum_bank_mask(0, 128, 0, 64), 0u);
}

TEST(AddressDecode, Location_checks_partition_count_and_stride) {
    const AddressMap m(shipped_params("cayman"));
    EXPECT_EQ(m.decode_location(Region::sbuf, 128, 0).status, DecodeStatus::partition_out_of_range);
    EXPECT_EQ(m.decode_location(Region::sbuf, 0, 0x40000).status, DecodeStatus::offset_beyond_stride);
    EXPECT_EQ(m.decode_location(Region::psum, 0, 0x8000).status, DecodeStatus::offset_beyond_stride);
    EXPECT_EQ(m.decode_location(Region::psum, 0, 0x4000).status, DecodeStatus::pad);
    const Decoded ok = m.decode_location(Region::psum, 127, 0x3fff);
    EXPECT_TRUE(ok.valid());
    EXPECT_EQ(ok.addr, 0x2000000u + 127u * 0x8000u + 0x3fffu);
}

TEST(AddressDecode, Inferentia_psum_has_64_partitions) {
    const AddressMap m(shipped_params("inferentia"));
    EXPECT_TRUE(m.decode(m.psum_addr(63, 0)).valid());
    const Decoded d = m.decode_location(Region::psum, 64, 0);
    EXPECT_EQ(d.status, DecodeStatus::partition_out_of_range);
    EXPECT_NE(m.explain(d).find("64 PSUM partitions"), std::string::npos) << m.explain(d);
    EXPECT_EQ(m.decode(m.psum_addr(64, 0)).status, DecodeStatus::off_chip);  // past PSUM_BUF_SZ
    // gen1 has 4 banks × 2 KiB = 8 KiB per PSUM partition (seed 004).
    EXPECT_EQ(m.decode(m.psum_addr(0, 0x2000)).status, DecodeStatus::pad);
}

TEST(AddressDecode, Partition_beyond_count_inside_region_is_out_of_range) {
    Params p = shipped_params("inferentia");
    p.psum.region_size = 0x200000;  // a region wider than 64 partitions × stride
    const AddressMap m(p);
    const Decoded d = m.decode(m.psum_addr(64, 0));
    EXPECT_EQ(d.region, Region::psum);
    EXPECT_EQ(d.status, DecodeStatus::partition_out_of_range);
}

// ---- decode: round trip over every partition and edge offset of every generation ----------------

struct Edge {
    std::uint64_t offset;
    bool active;
};

std::vector<Edge> edges(std::uint64_t active, std::uint64_t stride) {
    std::vector<Edge> e{{0, true}, {active - 1, true}, {stride - 1, active == stride}};
    if (active < stride) e.push_back({active, false});  // first pad byte
    return e;
}

void expect_round_trip(const AddressMap& m, Region region) {
    const bool psum = region == Region::psum;
    const std::uint32_t partitions_in_region = static_cast<std::uint32_t>(
        psum ? m.psum().region_size / m.psum().partition_stride : m.sbuf().region_size / m.sbuf().partition_stride);
    const std::uint32_t partitions = psum ? m.psum().partitions : m.sbuf().partitions;
    const std::uint64_t active = psum ? m.psum().partition_active : m.sbuf().partition_active;
    const std::uint64_t stride = psum ? m.psum().partition_stride : m.sbuf().partition_stride;
    const std::uint64_t soc_base = psum ? m.psum().soc_base : m.sbuf().soc_base;
    const std::uint64_t region_offset = psum ? m.psum().region_offset : m.sbuf().region_offset;
    for (std::uint32_t p = 0; p < partitions_in_region; ++p) {
        for (const Edge& e : edges(active, stride)) {
            const auto off = static_cast<std::uint32_t>(e.offset);
            const std::uint32_t a = psum ? m.psum_addr(p, off) : m.sbuf_addr(p, off);
            const Decoded d = m.decode(a);
            SCOPED_TRACE(m.generation() + " " + std::string(to_string(region)) + " p=" + std::to_string(p) +
                         " off=" + hex(off));
            ASSERT_EQ(d.region, region);
            EXPECT_EQ(d.partition, p);
            EXPECT_EQ(d.offset, off);
            EXPECT_EQ(d.quadrant, p / 32);
            EXPECT_EQ(d.soc_addr, soc_base + (a - region_offset));
            const DecodeStatus want = p >= partitions ? DecodeStatus::partition_out_of_range
                                      : e.active      ? DecodeStatus::ok
                                                      : DecodeStatus::pad;
            EXPECT_EQ(d.status, want);
            // The inverse via the SoC aperture lands on the same 29-bit address.
            std::uint32_t back = 0;
            ASSERT_TRUE(m.soc_to_partition_offset(d.soc_addr, back));
            EXPECT_EQ(back, a);
        }
    }
}

TEST(AddressDecode, Round_trip_every_partition_and_edge_offset_every_generation) {
    for (const auto& gen : all_generations()) {
        const AddressMap m(shipped_params(gen));
        expect_round_trip(m, Region::sbuf);
        if (m.has_psum()) expect_round_trip(m, Region::psum);
    }
}

TEST(AddressDecode, Sbuf_region_is_exactly_partitions_times_stride) {
    // seed 000 §1: 128 × stride == STATE_BUF_SZ on every generation; the last byte decodes to
    // partition 127 and the next byte is no longer SBUF.
    for (const auto& gen : all_generations()) {
        const AddressMap m(shipped_params(gen));
        const auto end = static_cast<std::uint32_t>(m.sbuf().region_size);
        EXPECT_EQ(m.decode(end - 1).partition, 127u) << gen;
        EXPECT_FALSE(m.addr_in_sbuf(end)) << gen;
    }
}

// ---- ECC banks ------------------------------------------------------------------------------------

struct SbufBankRow {
    std::uint32_t partition, offset, cluster, half;
};

TEST(SbufEccBank, Partition_half_select_cluster_is_16_partitions_half_is_8) {
    const AddressMap m(shipped_params("cayman"));
    ASSERT_EQ(m.sbuf().half_select, HalfSelect::partition);
    const SbufBankRow rows[] = {
        {0, 0, 0, 0},   {7, 0x30000, 0, 0}, {8, 0, 0, 1},    {15, 0, 0, 1},  {16, 0, 1, 0},
        {24, 0, 1, 1},  {63, 0, 3, 1},      {64, 0, 4, 0},   {120, 0, 7, 1}, {127, 0x37fff, 7, 1},
    };
    for (const auto& r : rows) {
        const EccBank b = m.sbuf_ecc_bank(r.partition, r.offset);
        EXPECT_EQ(b.cluster, r.cluster) << "p=" << r.partition;
        EXPECT_EQ(b.half, r.half) << "p=" << r.partition;
        EXPECT_EQ(b.index, r.cluster * 2 + r.half) << "p=" << r.partition;
    }
}

TEST(SbufEccBank, Offset_half_select_uses_offset_bit) {
    Params p = shipped_params("cayman");
    p.sbuf.half_select = HalfSelect::offset;
    p.sbuf.half_offset_bit = 17;
    const AddressMap m(p);
    const SbufBankRow rows[] = {
        {0, 0, 0, 0},       {8, 0, 0, 0},        {8, 0x1ffff, 0, 0}, {8, 0x20000, 0, 1},
        {15, 0x37fff, 0, 1}, {16, 0x20000, 1, 1}, {127, 0, 7, 0},     {127, 0x30000, 7, 1},
    };
    for (const auto& r : rows) {
        const EccBank b = m.sbuf_ecc_bank(r.partition, r.offset);
        EXPECT_EQ(b.cluster, r.cluster) << "p=" << r.partition << " off=" << hex(r.offset);
        EXPECT_EQ(b.half, r.half) << "p=" << r.partition << " off=" << hex(r.offset);
        EXPECT_EQ(b.index, r.cluster * 2 + r.half);
    }
}

struct PsumBankRow {
    std::uint32_t partition, offset, cluster, hw_bank, index;
};

TEST(PsumEccBank, Cluster_is_column_group_bank_is_offset_over_2048) {
    const AddressMap m(shipped_params("cayman"));
    const PsumBankRow rows[] = {
        {0, 0, 0, 0, 0},        {0, 2047, 0, 0, 0},     {0, 2048, 0, 1, 1},   {31, 0x3fff, 0, 7, 7},
        {32, 0, 1, 0, 8},       {64, 0x1000, 2, 2, 18}, {96, 0x3800, 3, 7, 31}, {127, 0x3800, 3, 7, 31},
    };
    for (const auto& r : rows) {
        const EccBank b = m.psum_ecc_bank(r.partition, r.offset);
        EXPECT_EQ(b.cluster, r.cluster) << "p=" << r.partition << " off=" << r.offset;
        EXPECT_EQ(b.hw_bank, r.hw_bank) << "p=" << r.partition << " off=" << r.offset;
        EXPECT_EQ(b.index, r.index) << "p=" << r.partition << " off=" << r.offset;
        EXPECT_EQ(b.isa_bank, r.hw_bank);  // cayman's ISA view is the 8 × 2048 view
    }
}

TEST(PsumEccBank, Sunda_isa_bank_is_1024_bytes_hw_bank_2048) {
    const AddressMap m(shipped_params("sunda"));
    const EccBank b = m.psum_ecc_bank(0, 1024);
    EXPECT_EQ(b.hw_bank, 0u);
    EXPECT_EQ(b.isa_bank, 1u);  // seed 000 §4.2 GOTCHA: 16 × 1024 ISA banks
    const EccBank last = m.psum_ecc_bank(0, 0x3fff);
    EXPECT_EQ(last.hw_bank, 7u);
    EXPECT_EQ(last.isa_bank, 15u);
}

// ---- bank masks vs a brute-force reference -------------------------------------------------------

std::uint16_t sbuf_mask_reference(const AddressMap& m, std::uint32_t first, std::uint32_t n, std::uint32_t off,
                                  std::uint32_t bytes) {
    std::uint16_t mask = 0;
    for (std::uint32_t p = first; p < first + n; ++p)
        for (std::uint32_t b = off; b < off + bytes; ++b) mask |= std::uint16_t(1u << m.sbuf_ecc_bank(p, b).index);
    return mask;
}

std::uint32_t psum_mask_reference(const AddressMap& m, std::uint32_t first, std::uint32_t n, std::uint32_t off,
                                  std::uint32_t bytes) {
    std::uint32_t mask = 0;
    for (std::uint32_t p = first; p < first + n; ++p)
        for (std::uint32_t b = off; b < off + bytes; ++b) mask |= 1u << m.psum_ecc_bank(p, b).index;
    return mask;
}

// Deterministic pseudo-random numbers (no global state).
struct Lcg {
    std::uint64_t s;
    std::uint32_t next(std::uint32_t bound) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<std::uint32_t>((s >> 33) % bound);
    }
};

void check_sbuf_masks(const AddressMap& m, std::uint32_t max_bytes, int samples) {
    Lcg rng{42};
    const auto active = static_cast<std::uint32_t>(m.sbuf().partition_active);
    for (int i = 0; i < samples; ++i) {
        const std::uint32_t first = rng.next(128);
        const std::uint32_t n = 1 + rng.next(128 - first);
        const std::uint32_t off = rng.next(active);
        const std::uint32_t bytes = 1 + rng.next(std::min(max_bytes, active - off));
        ASSERT_EQ(m.sbuf_bank_mask(first, n, off, bytes), sbuf_mask_reference(m, first, n, off, bytes))
            << "first=" << first << " n=" << n << " off=" << hex(off) << " bytes=" << bytes;
    }
    // Exhaustive over partition ranges for one byte, then single partitions around half blocks.
    for (std::uint32_t first = 0; first < 128; ++first)
        for (std::uint32_t n = 1; first + n <= 128; ++n)
            ASSERT_EQ(m.sbuf_bank_mask(first, n, 0x100, 8), sbuf_mask_reference(m, first, n, 0x100, 8))
                << "first=" << first << " n=" << n;
}

TEST(SbufBankMask, Matches_brute_force_partition_half_select) {
    const AddressMap m(shipped_params("cayman"));
    check_sbuf_masks(m, 256, 2000);
}

TEST(SbufBankMask, Matches_brute_force_offset_half_select_small_block) {
    // A small half-select bit makes every sampled range cross blocks in all the ways that matter.
    Params p = shipped_params("sunda");
    p.sbuf.half_select = HalfSelect::offset;
    p.sbuf.half_offset_bit = 5;
    const AddressMap m(p);
    check_sbuf_masks(m, 200, 3000);
}

TEST(SbufBankMask, Offset_half_select_bit17_boundaries) {
    Params p = shipped_params("cayman");
    p.sbuf.half_select = HalfSelect::offset;
    const AddressMap m(p);
    struct Row {
        std::uint32_t first, n, off, bytes;
        std::uint16_t want;
    };
    const Row rows[] = {
        {0, 1, 0x1fff8, 8, 0x0001},    // last word of half 0 (cluster 0)
        {0, 1, 0x1fffc, 8, 0x0003},    // straddles the 128 KiB boundary: both halves
        {0, 1, 0x20000, 8, 0x0002},    // first word of half 1
        {0, 32, 0x20000, 1, 0x000a},   // clusters 0-1, half 1
        {16, 112, 0, 0x38000, 0xfffc}, // clusters 1-7, both halves
        {0, 0, 0, 8, 0x0000},          // no partitions: nothing
        {0, 4, 0, 0, 0x0000},          // no bytes: nothing
    };
    for (const auto& r : rows) {
        EXPECT_EQ(m.sbuf_bank_mask(r.first, r.n, r.off, r.bytes), r.want)
            << "first=" << r.first << " n=" << r.n << " off=" << hex(r.off) << " bytes=" << r.bytes;
        if (r.n && r.bytes && r.bytes <= 64) {
            EXPECT_EQ(r.want, sbuf_mask_reference(m, r.first, r.n, r.off, r.bytes));
        }
    }
}

TEST(SbufBankMask, Partition_range_maps_to_contiguous_banks) {
    const AddressMap m(shipped_params("cayman"));
    EXPECT_EQ(m.sbuf_bank_mask(0, 128, 0, 8), 0xffff);
    EXPECT_EQ(m.sbuf_bank_mask(0, 8, 0, 8), 0x0001);
    EXPECT_EQ(m.sbuf_bank_mask(7, 2, 0, 8), 0x0003);
    EXPECT_EQ(m.sbuf_bank_mask(32, 32, 0, 0x38000), 0x00f0);  // quadrant 1 = banks 4..7
    EXPECT_EQ(m.sbuf_bank_mask(120, 8, 0, 1), 0x8000);
}

void check_psum_masks(const AddressMap& m, int samples) {
    Lcg rng{7};
    const auto active = static_cast<std::uint32_t>(m.psum().partition_active);
    const std::uint32_t partitions = m.psum().partitions;
    for (int i = 0; i < samples; ++i) {
        const std::uint32_t first = rng.next(partitions);
        const std::uint32_t n = 1 + rng.next(std::min(partitions - first, 40u));
        const std::uint32_t off = rng.next(active);
        const std::uint32_t bytes = 1 + rng.next(std::min(6000u, active - off));
        ASSERT_EQ(m.psum_bank_mask(first, n, off, bytes), psum_mask_reference(m, first, n, off, bytes))
            << m.generation() << " first=" << first << " n=" << n << " off=" << hex(off) << " bytes=" << bytes;
    }
}

TEST(PsumBankMask, Matches_brute_force) {
    for (const char* gen : {"cayman", "sunda", "inferentia"})
        check_psum_masks(AddressMap(shipped_params(gen)), 300);
}

TEST(PsumBankMask, Known_masks) {
    const AddressMap m(shipped_params("cayman"));
    EXPECT_EQ(m.psum_bank_mask(0, 128, 0, 0x4000), 0xffffffffu);     // everything
    EXPECT_EQ(m.psum_bank_mask(0, 32, 0x800, 2048), 0x00000002u);    // cluster 0, bank 1
    EXPECT_EQ(m.psum_bank_mask(31, 2, 0x7ff, 2), 0x00000303u);       // clusters 0-1, banks 0-1
    EXPECT_EQ(m.psum_bank_mask(96, 32, 0x3800, 2048), 0x80000000u);  // cluster 3, bank 7
    EXPECT_EQ(m.psum_bank_mask(0, 0, 0, 8), 0u);
}

TEST(BankMask, Single_byte_mask_is_the_decoded_bank_bit) {
    for (const auto& gen : all_generations()) {
        const AddressMap m(shipped_params(gen));
        for (std::uint32_t p : {0u, 9u, 31u, 32u, 63u}) {
            for (std::uint32_t off : {0u, 0x800u, 0x1fffu}) {
                EXPECT_EQ(m.sbuf_bank_mask(p, 1, off, 1), 1u << m.decode(m.sbuf_addr(p, off)).bank.index) << gen;
                if (m.has_psum()) {
                    EXPECT_EQ(m.psum_bank_mask(p, 1, off, 1), 1u << m.decode(m.psum_addr(p, off)).bank.index)
                        << gen;
                }
            }
        }
    }
}

// ---- geometry sanity ----------------------------------------------------------------------------

TEST(AddressMapGeometry, Rejects_zero_stride) {
    Params p = shipped_params("cayman");
    p.sbuf.partition_stride = 0;
    EXPECT_THROW(AddressMap{p}, std::invalid_argument);
}

// locate() is decode() without the quadrant, ECC bank and SoC address: the same region,
// partition, offset and status for every address, valid or not, of every generation.
TEST(AddressLocate, Lands_where_decode_does_on_every_generation) {
    for (const auto& gen : all_generations()) {
        const AddressMap m(shipped_params(gen));
        std::uint64_t valid = 0;
        for (std::uint64_t a = 0; a < (std::uint64_t{1} << 30); a += 0x1ff3) {  // odd step: every offset class
            const Decoded want = m.decode(a), got = m.locate(a);
            ASSERT_EQ(got.status, want.status) << gen << " " << a;
            ASSERT_EQ(got.region, want.region) << gen << " " << a;
            ASSERT_EQ(got.partition, want.partition) << gen << " " << a;
            ASSERT_EQ(got.offset, want.offset) << gen << " " << a;
            ASSERT_EQ(got.addr, a);
            valid += want.valid();
        }
        EXPECT_GT(valid, 0u) << gen;
    }
}

}  // namespace
}  // namespace sbufsim
