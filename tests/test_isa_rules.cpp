// Rule tests for the ISA validity predicates: placement (seed 000 §2.2), Matmul col_grp/row_grp/
// xbus_sel, accumulate flags and zero region (seed 000 §5), the transpose tile (seed 000 §6.2) and
// the GPSIMD/Q7 keystone (seed 000 §7.4, seed 002 §3).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sbufsim/address/isa_rules.h"
#include "shipped.h"

namespace sbufsim {
namespace {

using test::all_generations;
using test::shipped_params;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// ---- Matmul col_grp / row_grp (seed 000 §5.2) ----------------------------------------------------

struct ColGrpRow {
    std::uint32_t col_grp;
    std::uint32_t partition;
    std::uint32_t max_cols;
    int xbus_sel;  // -1: no valid xbus_sel (q3 bug)
};

// The table of seed 000 §5.2, row by row.
constexpr ColGrpRow kColGrpTable[] = {
    {0xf, 0, 128, 0x10}, {0x3, 0, 64, 0x01}, {0xc, 64, 64, 0x04}, {0x1, 0, 32, 0x01},
    {0x2, 32, 32, 0x02}, {0x4, 64, 32, 0x04}, {0x8, 96, 32, -1},
};

TEST(MatmulColGrp, Psum_quadrant_of_every_table_row) {
    const AddressMap m(shipped_params("cayman"));
    for (const auto& r : kColGrpTable) {
        const auto q = valid_mm_psum_quadrant(m, r.col_grp);
        ASSERT_TRUE(q.ok()) << hex(r.col_grp) << ": " << q.reason;
        EXPECT_EQ(*q.value, r.partition) << hex(r.col_grp);
    }
}

TEST(MatmulColGrp, Active_columns_limit_of_every_table_row) {
    for (const auto& r : kColGrpTable) {
        EXPECT_TRUE(s3d3_mm_valid_col_group_active_columns(r.col_grp, 1)) << hex(r.col_grp);
        EXPECT_TRUE(s3d3_mm_valid_col_group_active_columns(r.col_grp, r.max_cols)) << hex(r.col_grp);
        const Verdict over = s3d3_mm_valid_col_group_active_columns(r.col_grp, r.max_cols + 1);
        EXPECT_FALSE(over) << hex(r.col_grp);
        EXPECT_TRUE(contains(over.reason, "use a wider group (0xf takes 128) or split the matmul")) << over.reason;
        EXPECT_FALSE(s3d3_mm_valid_col_group_active_columns(r.col_grp, 0)) << hex(r.col_grp);
    }
}

TEST(MatmulColGrp, Xbus_sel_of_every_table_row) {
    for (const auto& r : kColGrpTable) {
        if (r.xbus_sel < 0) continue;
        const auto want = static_cast<std::uint32_t>(r.xbus_sel);
        EXPECT_TRUE(s3d3_mm_valid_xbus_sel(r.col_grp, want)) << hex(r.col_grp);
        EXPECT_EQ(mm_xbus_sel_for(r.col_grp), want);
        for (std::uint32_t other = 0; other < 0x20; ++other) {
            if (other == want) continue;
            const Verdict v = s3d3_mm_valid_xbus_sel(r.col_grp, other);
            EXPECT_FALSE(v) << hex(r.col_grp) << " xbus " << hex(other);
            EXPECT_TRUE(contains(v.reason, "requires xbus_sel " + hex(want))) << v.reason;
        }
    }
}

TEST(MatmulColGrp, Q3_alone_fails_xbus_validation) {
    // seed 000 §5.2 HW BUG: col_grp 0x8 maps to partition 96 and allows 32 columns, but no
    // xbus_sel value passes — not even the "natural" 0x08.
    const AddressMap m(shipped_params("cayman"));
    EXPECT_EQ(*valid_mm_psum_quadrant(m, 0x8).value, 96u);
    EXPECT_TRUE(s3d3_mm_valid_col_group_active_columns(0x8, 32));
    EXPECT_FALSE(mm_xbus_sel_for(0x8).has_value());
    for (std::uint32_t xbus = 0; xbus < 0x100; ++xbus) {
        const Verdict v = s3d3_mm_valid_xbus_sel(0x8, xbus);
        ASSERT_FALSE(v) << "xbus " << hex(xbus);
        EXPECT_EQ(v.reason,
                  "col_grp 0x8 (quadrant 3 alone) has no valid xbus_sel: the hardware's selection check rejects every "
                  "value for it; use 0xc or 0xf");
    }
    EXPECT_FALSE(mm_col_grp_valid(m, 0x8, 32, 0x08));
}

TEST(MatmulColGrp, Q3_reachable_through_upper_half_and_full_groups) {
    const AddressMap m(shipped_params("cayman"));
    EXPECT_TRUE(mm_col_grp_valid(m, 0xc, 64, 0x04));
    EXPECT_TRUE(mm_col_grp_valid(m, 0xf, 128, 0x10));
}

TEST(MatmulColGrp, Non_group_masks_are_rejected) {
    const AddressMap m(shipped_params("cayman"));
    for (std::uint32_t mask : {0x0u, 0x5u, 0x6u, 0x7u, 0x9u, 0xau, 0xbu, 0xdu, 0xeu, 0x10u, 0xffu}) {
        const auto q = valid_mm_psum_quadrant(m, mask);
        EXPECT_FALSE(q.ok()) << hex(mask);
        EXPECT_TRUE(contains(q.reason, "not a column/row group")) << q.reason;
        EXPECT_FALSE(valid_mm_sbuf_quadrant(m, mask).ok()) << hex(mask);
        EXPECT_FALSE(s3d3_mm_valid_col_group_active_columns(mask, 1)) << hex(mask);
        EXPECT_FALSE(s3d3_mm_valid_xbus_sel(mask, 0x10)) << hex(mask);
    }
}

TEST(MatmulRowGrp, Sbuf_quadrant_of_every_table_row) {
    // seed 000 §5.2: the mirror table 0xf/0x3→0, 0xc→64, 0x1→0, 0x2→32, 0x4→64, 0x8→96.
    const AddressMap m(shipped_params("cayman"));
    for (const auto& r : kColGrpTable) {
        const auto q = valid_mm_sbuf_quadrant(m, r.col_grp);
        ASSERT_TRUE(q.ok()) << hex(r.col_grp) << ": " << q.reason;
        EXPECT_EQ(*q.value, r.partition) << hex(r.col_grp);
    }
}

// ---- accumulate flags and zero region (seed 000 §5.3–§5.4) ---------------------------------------

TEST(MatmulPsumFlags, Accepts_exactly_0_to_3) {
    for (std::uint32_t f = 0; f < 4; ++f) EXPECT_TRUE(mm_psum_flags(f)) << f;
    for (std::uint32_t f = 4; f < 256; ++f) {
        const Verdict v = mm_psum_flags(f);
        EXPECT_FALSE(v) << f;
        EXPECT_TRUE(contains(v.reason, "acc_flags=mid|begin|end|single")) << v.reason;
    }
    EXPECT_EQ(kBeginMatmulGroup | kEndMatmulGroup, 3u);  // SINGLE = begin|end
}

TEST(MatmulZeroRegion, Size2048_only_on_sunda_and_cayman) {
    for (const char* gen : {"sunda", "cayman"}) {
        const Params p = shipped_params(gen);
        EXPECT_TRUE(valid_zero_region(0, p)) << gen;
        for (std::uint32_t v = 1; v < 5; ++v) EXPECT_FALSE(valid_zero_region(v, p)) << gen << " " << v;
    }
}

TEST(MatmulZeroRegion, Size4096_rejected_on_cayman_accepted_on_mariana) {
    const Verdict cayman = valid_zero_region(1, shipped_params("cayman"));
    EXPECT_FALSE(cayman);
    EXPECT_TRUE(contains(cayman.reason, "SIZE4096")) << cayman.reason;
    EXPECT_TRUE(contains(cayman.reason, "cayman")) << cayman.reason;
    EXPECT_TRUE(contains(cayman.reason, "use psum_zero_region=0 on cayman")) << cayman.reason;
    EXPECT_TRUE(valid_zero_region(1, shipped_params("mariana")));
}

TEST(MatmulZeroRegion, Zero_to_3_on_mariana_and_maverick) {
    for (const char* gen : {"mariana", "maverick"}) {
        const Params p = shipped_params(gen);
        for (std::uint32_t v = 0; v < 4; ++v) EXPECT_TRUE(valid_zero_region(v, p)) << gen << " " << v;
        EXPECT_FALSE(valid_zero_region(4, p)) << gen;  // MATMUL_ZERO_REGION_MAX_PLUS_ONE = 4
    }
    EXPECT_EQ(zero_region_bytes(0), 2048u);
    EXPECT_EQ(zero_region_bytes(3), 16384u);
}

TEST(MatmulDstDtype, Fp32_or_uint32_for_uint8_input) {
    EXPECT_TRUE(mm_dst_dtype_valid(Dtype::bf16, Dtype::fp32));
    EXPECT_TRUE(mm_dst_dtype_valid(Dtype::uint8, Dtype::uint32));
    EXPECT_FALSE(mm_dst_dtype_valid(Dtype::uint8, Dtype::fp32));
    EXPECT_FALSE(mm_dst_dtype_valid(Dtype::fp16, Dtype::bf16));
}

// ---- placement: tensor_start_addr_valid (seed 000 §2.2) ------------------------------------------

Verdict place(const AddressMap& m, std::uint32_t a, Dtype t, WriteTensor w = WriteTensor::False,
              AllowedInPSUM ap = AllowedInPSUM::True, AllowedInSBUF as = AllowedInSBUF::True) {
    return tensor_start_addr_valid(m, Addr4::immediate(a), t, w, ap, as);
}

TEST(TensorStartAddrValid, Register_marker_bypasses_placement) {
    const AddressMap m(shipped_params("cayman"));
    Addr4 r = Addr4::reg(63);
    r.addr_immediate = 0x1fffffff;  // would be off-chip and misaligned as an immediate
    EXPECT_TRUE(tensor_start_addr_valid(m, r, Dtype::fp32, WriteTensor::True, AllowedInPSUM::False,
                                        AllowedInSBUF::False));
}

TEST(TensorStartAddrValid, Register_bypass_needs_regnum_below_64_and_zero_reserved) {
    const AddressMap m(shipped_params("cayman"));
    Addr4 r = Addr4::reg(64);
    r.addr_immediate = 0x1fffffff;
    EXPECT_FALSE(addr_from_register(m, r));
    EXPECT_FALSE(tensor_start_addr_valid(m, r, Dtype::fp32, WriteTensor::False, AllowedInPSUM::True,
                                         AllowedInSBUF::True));
    Addr4 res = Addr4::reg(3);
    res.reserved0_hi = 1;
    res.addr_immediate = 0x1fffffff;
    EXPECT_FALSE(addr_from_register(m, res));
    EXPECT_FALSE(tensor_start_addr_valid(m, res, Dtype::fp32, WriteTensor::False, AllowedInPSUM::True,
                                         AllowedInSBUF::True));
    EXPECT_FALSE(addr_from_register(m, Addr4::reg(3, 0x40)));
}

TEST(TensorStartAddrValid, Dtype_alignment_1_2_4_8) {
    const AddressMap m(shipped_params("cayman"));
    EXPECT_TRUE(place(m, 0x101, Dtype::uint8));
    EXPECT_TRUE(place(m, 0x102, Dtype::bf16));
    EXPECT_FALSE(place(m, 0x101, Dtype::bf16));
    EXPECT_TRUE(place(m, 0x104, Dtype::fp32));
    const Verdict v = place(m, 0x102, Dtype::fp32);
    EXPECT_FALSE(v);
    EXPECT_TRUE(contains(v.reason, "not aligned")) << v.reason;
    EXPECT_TRUE(place(m, 0x108, Dtype::uint64));
    EXPECT_FALSE(place(m, 0x104, Dtype::uint64));
}

TEST(TensorStartAddrValid, Must_be_on_chip) {
    const AddressMap m(shipped_params("cayman"));
    const Verdict v = place(m, 0x2400000, Dtype::fp32);
    EXPECT_FALSE(v);
    EXPECT_TRUE(contains(v.reason, "neither in SBUF")) << v.reason;
}

TEST(TensorStartAddrValid, Allowed_in_psum_and_sbuf_flags) {
    const AddressMap m(shipped_params("cayman"));
    const std::uint32_t psum = m.psum_addr(0, 0), sbuf = m.sbuf_addr(0, 0);
    // LdWeights src: AllowedInPSUM::False (seed 000 §7.4).
    const Verdict lw = place(m, psum, Dtype::bf16, WriteTensor::False, AllowedInPSUM::False);
    EXPECT_FALSE(lw);
    EXPECT_TRUE(contains(lw.reason, "may only be in SBUF")) << lw.reason;
    EXPECT_TRUE(place(m, sbuf, Dtype::bf16, WriteTensor::False, AllowedInPSUM::False));
    // Matmul dst: AllowedInSBUF::False.
    const Verdict mm = place(m, sbuf, Dtype::fp32, WriteTensor::True, AllowedInPSUM::True, AllowedInSBUF::False);
    EXPECT_FALSE(mm);
    EXPECT_TRUE(contains(mm.reason, "may only be in PSUM")) << mm.reason;
    EXPECT_TRUE(place(m, psum, Dtype::fp32, WriteTensor::True, AllowedInPSUM::True, AllowedInSBUF::False));
}

TEST(TensorStartAddrValid, Psum_writes_must_be_4_byte) {
    const AddressMap m(shipped_params("cayman"));
    const std::uint32_t psum = m.psum_addr(2, 0x800);
    const Verdict v = place(m, psum, Dtype::bf16, WriteTensor::True);
    EXPECT_FALSE(v);
    EXPECT_TRUE(contains(v.reason, "4-byte")) << v.reason;
    EXPECT_TRUE(place(m, psum, Dtype::fp32, WriteTensor::True));
    EXPECT_TRUE(place(m, psum, Dtype::int32, WriteTensor::True));
    EXPECT_TRUE(place(m, psum, Dtype::bf16, WriteTensor::False));  // reading bf16 from PSUM is fine
    EXPECT_TRUE(place(m, m.sbuf_addr(2, 0x800), Dtype::bf16, WriteTensor::True));  // SBUF write any width
}

TEST(TensorStartAddrValid, Decode_pad_start_is_rejected) {
    const AddressMap m(shipped_params("sunda"));
    EXPECT_TRUE(place(m, m.sbuf_addr(9, 0x2fff0), Dtype::fp32));
    const Verdict v = place(m, m.sbuf_addr(9, 0x30000), Dtype::fp32);
    EXPECT_FALSE(v);
    EXPECT_TRUE(contains(v.reason, "on sunda an SBUF partition holds 192 KiB (0x30000 bytes)")) << v.reason;
    EXPECT_TRUE(contains(v.reason, "place the tile below offset 0x30000")) << v.reason;
    EXPECT_FALSE(place(m, m.psum_addr(9, 0x4000), Dtype::fp32));
}

// ---- tensor_tensor and quadrants (seed 000 §2.1–§2.2) --------------------------------------------

TEST(TtValidPartitions, At_most_one_psum_operand_or_same_sbuf_quadrant) {
    const AddressMap m(shipped_params("cayman"));
    const auto I = [](std::uint32_t a) { return Addr4::immediate(a); };
    const std::uint32_t s0 = m.sbuf_addr(0, 0), s31 = m.sbuf_addr(31, 0x100), s32 = m.sbuf_addr(32, 0);
    const std::uint32_t p0 = m.psum_addr(0, 0), p64 = m.psum_addr(64, 0);
    EXPECT_TRUE(tt_valid_partitions(m, I(p0), I(s32)));
    EXPECT_TRUE(tt_valid_partitions(m, I(s32), I(p0)));
    EXPECT_TRUE(tt_valid_partitions(m, I(s0), I(s31)));
    const Verdict q = tt_valid_partitions(m, I(s31), I(s32));
    EXPECT_FALSE(q);
    EXPECT_TRUE(contains(q.reason, "same 32-partition quadrant")) << q.reason;
    const Verdict pp = tt_valid_partitions(m, I(p0), I(p64));
    EXPECT_FALSE(pp);
    EXPECT_TRUE(contains(pp.reason, "at most one PSUM operand")) << pp.reason;
    EXPECT_FALSE(tt_valid_partitions(m, I(p0), I(0x2400000)));
    EXPECT_TRUE(tt_valid_partitions(m, Addr4::reg(1), I(p64)));
}

TEST(SameQuadrant, Sbuf_and_psum_quadrants_are_32_partitions) {
    const AddressMap m(shipped_params("cayman"));
    EXPECT_TRUE(addresses_in_same_sbuf_quadrant(m, m.sbuf_addr(64, 0), m.sbuf_addr(95, 0x37fff)));
    EXPECT_FALSE(addresses_in_same_sbuf_quadrant(m, m.sbuf_addr(63, 0), m.sbuf_addr(64, 0)));
    EXPECT_FALSE(addresses_in_same_sbuf_quadrant(m, m.sbuf_addr(0, 0), m.psum_addr(0, 0)));
    EXPECT_TRUE(addresses_in_same_psum_quadrant(m, m.psum_addr(96, 0), m.psum_addr(127, 0x3fff)));
    EXPECT_FALSE(addresses_in_same_psum_quadrant(m, m.psum_addr(31, 0), m.psum_addr(32, 0)));
    EXPECT_FALSE(addresses_in_same_psum_quadrant(m, m.sbuf_addr(0, 0), m.sbuf_addr(1, 0)));
}

// ---- the keystone: GPSIMD/Q7 cannot reach PSUM (seed 000 §7.4, seed 002 §3) ----------------------

TEST(Q7Keystone, Gpsimd_operand_in_psum_is_rejected_no_axi_path) {
    for (const auto& gen : all_generations()) {
        const AddressMap m(shipped_params(gen));
        if (!m.has_psum()) continue;
        const Verdict v = gpsimd_operand_valid(m, Addr4::immediate(m.psum_addr(0, 0)));
        EXPECT_FALSE(v) << gen;
        EXPECT_TRUE(contains(v.reason, "no AXI aperture")) << v.reason;
        EXPECT_TRUE(contains(v.reason, "Stage the tensor in SBUF")) << v.reason;
        EXPECT_TRUE(contains(v.reason, "0x2802000000")) << v.reason;
        EXPECT_TRUE(gpsimd_operand_valid(m, Addr4::immediate(m.sbuf_addr(17, 0x40)))) << gen;
    }
}

TEST(Q7Keystone, Gpsimd_tensor_tensor_is_the_sbuf_sbuf_subset) {
    const AddressMap m(shipped_params("cayman"));
    const Addr4 s = Addr4::immediate(m.sbuf_addr(3, 0)), p = Addr4::immediate(m.psum_addr(3, 0));
    EXPECT_TRUE(tt_valid_partitions(m, s, p));          // fine for ACT/POOL/DVE
    EXPECT_FALSE(gpsimd_tt_valid_partitions(m, s, p));  // not for a Q7
    EXPECT_FALSE(gpsimd_tt_valid_partitions(m, p, s));
    EXPECT_TRUE(gpsimd_tt_valid_partitions(m, s, Addr4::immediate(m.sbuf_addr(30, 0))));
    EXPECT_FALSE(gpsimd_tt_valid_partitions(m, s, Addr4::immediate(m.sbuf_addr(40, 0))));
}

TEST(Q7Keystone, Gpsimd_operand_in_pad_or_off_chip_is_rejected) {
    const AddressMap m(shipped_params("cayman"));
    EXPECT_FALSE(gpsimd_operand_valid(m, Addr4::immediate(m.sbuf_addr(0, 0x38000))));
    EXPECT_FALSE(gpsimd_operand_valid(m, Addr4::immediate(0x2400000)));
}

TEST(MaverickNoPsum, Any_psum_placement_is_rejected) {
    const AddressMap m(shipped_params("maverick"));
    // Above STATE_BUF_SZ there is nothing at all on maverick.
    const Verdict v = place(m, 0x8000000, Dtype::fp32, WriteTensor::True);
    EXPECT_FALSE(v);
    EXPECT_TRUE(contains(v.reason, "maverick has no PSUM; give an address inside SBUF (seed 000 §1)")) << v.reason;
    EXPECT_FALSE(gpsimd_operand_valid(m, Addr4::immediate(0x8000000)));
    // The location form of a PSUM operand is rejected with the same words.
    const Decoded d = m.decode_location(Region::psum, 5, 0x800);
    EXPECT_EQ(m.explain(d), "maverick has no PSUM; place the operand in SBUF [0x0, 0x8000000) (seed 000 §1)");
    // A PSUM-only operand in SBUF is not told to move to a PSUM that does not exist.
    const Verdict mm = place(m, m.sbuf_addr(0, 0x100), Dtype::fp32, WriteTensor::True, AllowedInPSUM::True,
                             AllowedInSBUF::False);
    EXPECT_FALSE(mm);
    EXPECT_TRUE(contains(mm.reason, "may only be in PSUM, which this generation does not have")) << mm.reason;
    EXPECT_FALSE(contains(mm.reason, "place it in PSUM")) << mm.reason;
}

// ---- transpose tile (seed 000 §6.2) ----------------------------------------------------------------

TEST(XposeTile, Src_rows_must_be_16) {
    const IsaParams isa;
    EXPECT_TRUE(has_valid_xpose_tile_rows(isa, 16));
    for (std::uint32_t r : {0u, 1u, 8u, 15u, 17u, 32u}) {
        const Verdict v = has_valid_xpose_tile_rows(isa, r);
        EXPECT_FALSE(v) << r;
        EXPECT_TRUE(contains(v.reason, "tiles of 16 source rows")) << v.reason;
    }
}

TEST(XposeTile, Cols_1_to_128_for_2_byte_1_to_64_for_4_byte) {
    const IsaParams isa;
    for (Dtype t : {Dtype::bf16, Dtype::fp16}) {
        EXPECT_TRUE(has_valid_xpose_tile_cols(isa, 1, t));
        EXPECT_TRUE(has_valid_xpose_tile_cols(isa, 128, t));
        EXPECT_FALSE(has_valid_xpose_tile_cols(isa, 0, t));
        EXPECT_FALSE(has_valid_xpose_tile_cols(isa, 129, t));
    }
    EXPECT_TRUE(has_valid_xpose_tile_cols(isa, 64, Dtype::fp32));
    EXPECT_FALSE(has_valid_xpose_tile_cols(isa, 65, Dtype::fp32));
    EXPECT_FALSE(has_valid_xpose_tile_cols(isa, 0, Dtype::int32));
    EXPECT_FALSE(has_valid_xpose_tile_cols(isa, 8, Dtype::fp8e4));  // no limit listed for 1-byte
}

TEST(XposeTile, Destination_32_byte_aligned) {
    const IsaParams isa;
    EXPECT_TRUE(xpose_dst_aligned(isa, 0x1000));
    EXPECT_TRUE(xpose_dst_aligned(isa, 0x20));
    EXPECT_FALSE(xpose_dst_aligned(isa, 0x10));
    EXPECT_FALSE(xpose_dst_aligned(isa, 0x1004));
    EXPECT_TRUE(dma_direct2d_xpose_valid(isa, 16, 128, Dtype::bf16, 0x40));
    EXPECT_FALSE(dma_direct2d_xpose_valid(isa, 16, 128, Dtype::bf16, 0x48));
    EXPECT_FALSE(dma_direct2d_xpose_valid(isa, 16, 128, Dtype::fp32, 0x40));
    EXPECT_FALSE(dma_direct2d_xpose_valid(isa, 8, 16, Dtype::bf16, 0x40));
}

TEST(XposeGather, Row_tile_index_count_and_alignment) {
    const IsaParams isa;
    EXPECT_TRUE(dma_gather_xpose_valid(isa, 32, 7, 7, 0x40, 64));
    EXPECT_FALSE(dma_gather_xpose_valid(isa, 24, 7, 7, 0x40, 64));  // 24 % 16 != 0
    EXPECT_FALSE(dma_gather_xpose_valid(isa, 32, 7, 8, 0x40, 64));  // index count changed
    EXPECT_FALSE(dma_gather_xpose_valid(isa, 32, 7, 7, 0x44, 64));  // dst not 32-B aligned
    EXPECT_FALSE(dma_gather_xpose_valid(isa, 32, 7, 7, 0x40, 48));  // dst step not 32-multiple
}

// ---- dtypes --------------------------------------------------------------------------------------------

TEST(Dtype, Sizes_and_names) {
    EXPECT_EQ(dtype_size(Dtype::fp32), 4u);
    EXPECT_EQ(dtype_size(Dtype::bf16), 2u);
    EXPECT_EQ(dtype_size(Dtype::fp8e5), 1u);
    EXPECT_EQ(dtype_size(Dtype::uint64), 8u);
    EXPECT_EQ(parse_dtype("BF16"), Dtype::bf16);
    EXPECT_EQ(parse_dtype("fp8_e4"), Dtype::fp8e4);
    EXPECT_EQ(parse_dtype("uint32"), Dtype::uint32);
    EXPECT_EQ(parse_dtype("float32"), Dtype::fp32);
    EXPECT_FALSE(parse_dtype("fp12").has_value());
    for (int i = 0; i <= static_cast<int>(Dtype::int64); ++i) {
        const auto t = static_cast<Dtype>(i);
        EXPECT_EQ(parse_dtype(to_string(t)), t) << to_string(t);
    }
    EXPECT_TRUE(contains(dtype_names(), "fp8e3"));
}

// A rule message is read by someone fixing a kernel or a trace: it names the fact and a fix in the
// user's words, never the simulator's function names, the hardware headers' constants or the
// documents the rules were read from.
TEST(RuleMessages, Name_no_internals_and_say_what_to_do) {
    const AddressMap m(shipped_params("cayman"));
    const IsaParams isa;
    const std::vector<std::string> reasons = {
        tensor_start_addr_valid(m, Addr4::immediate(m.sbuf_addr(0, 1)), Dtype::fp32, WriteTensor::False,
                                AllowedInPSUM::True, AllowedInSBUF::True)
            .reason,
        tensor_start_addr_valid(m, Addr4::immediate(m.psum_addr(0, 0)), Dtype::bf16, WriteTensor::True,
                                AllowedInPSUM::True, AllowedInSBUF::True)
            .reason,
        tt_valid_partitions(m, Addr4::immediate(m.sbuf_addr(0, 0)), Addr4::immediate(m.sbuf_addr(40, 0)))
            .reason,
        tt_valid_partitions(m, Addr4::immediate(m.psum_addr(0, 0)), Addr4::immediate(m.psum_addr(1, 0)))
            .reason,
        gpsimd_operand_valid(m, Addr4::immediate(m.psum_addr(0, 0))).reason,
        valid_mm_psum_quadrant(m, 0x5).reason,
        s3d3_mm_valid_col_group_active_columns(0x1, 33).reason,
        s3d3_mm_valid_xbus_sel(0xf, 0x1).reason,
        mm_psum_flags(4).reason,
        valid_zero_region(4, shipped_params("cayman")).reason,
        valid_zero_region(1, shipped_params("cayman")).reason,
        mm_dst_dtype_valid(Dtype::bf16, Dtype::bf16).reason,
        has_valid_xpose_tile_rows(isa, 8).reason,
        has_valid_xpose_src_rows(isa, 8).reason,
        has_valid_xpose_tile_cols(isa, 1, Dtype::fp8e4).reason,
        has_valid_xpose_tile_cols(isa, 1000, Dtype::bf16).reason,
        xpose_dst_aligned(isa, 3).reason,
        dma_gather_xpose_valid(isa, 8, 1, 1, 0, 0).reason,
        dma_gather_xpose_valid(isa, 16, 1, 2, 0, 0).reason,
        dma_gather_xpose_valid(isa, 16, 1, 1, 0, 3).reason,
    };
    for (const std::string& r : reasons) {
        ASSERT_FALSE(r.empty());
        for (const char* internal : {"seed 0", "s3d3", "mm_psum_flags", "tt_valid_partitions", "addr_aligned_dtype",
                                     "MAX_PLUS_ONE", "BEGIN_MATMUL_GROUP", "STATE_BUF", "PSUM_BUF"})
            EXPECT_FALSE(contains(r, internal)) << internal << " in: " << r;
        // A fix: what to use, set, start, split, pad, copy, write or stage instead.
        const bool fix = contains(r, "use ") || contains(r, "set ") || contains(r, "start ") || contains(r, "split") ||
                         contains(r, "pad ") || contains(r, "copy ") || contains(r, "write ") || contains(r, "Stage") ||
                         contains(r, "transpose ") || contains(r, "place ") || contains(r, "give ") ||
                         contains(r, "acc_flags=") || contains(r, "a gather transpose writes");
        EXPECT_TRUE(fix) << "no fix in: " << r;
    }
}

}  // namespace
}  // namespace sbufsim
