#include "sbufsim/address/isa_rules.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace sbufsim {

// ---- data types --------------------------------------------------------------------------------

namespace {

struct DtypeInfo {
    Dtype type;
    std::string_view name;
    std::uint32_t bytes;
};

constexpr std::array<DtypeInfo, static_cast<std::size_t>(kLastDtype) + 1> kDtypes{{
    {Dtype::fp32, "fp32", 4},   {Dtype::fp16, "fp16", 2},   {Dtype::bf16, "bf16", 2},
    {Dtype::fp8e3, "fp8e3", 1}, {Dtype::fp8e4, "fp8e4", 1}, {Dtype::fp8e5, "fp8e5", 1},
    {Dtype::uint8, "uint8", 1}, {Dtype::int8, "int8", 1},   {Dtype::uint16, "uint16", 2},
    {Dtype::int16, "int16", 2}, {Dtype::uint32, "uint32", 4}, {Dtype::int32, "int32", 4},
    {Dtype::uint64, "uint64", 8}, {Dtype::int64, "int64", 8},
    {Dtype::fp8e4x4, "fp8e4x4", 4}, {Dtype::fp8e5x4, "fp8e5x4", 4}, {Dtype::fp4x4, "fp4x4", 2},
}};

const DtypeInfo& info(Dtype t) { return kDtypes[static_cast<std::size_t>(t)]; }

std::string lower_without_separators(std::string_view s) {
    std::string out;
    for (char c : s)
        if (c != '_' && c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace

std::string_view to_string(Dtype t) { return info(t).name; }
std::uint32_t dtype_size(Dtype t) { return info(t).bytes; }

std::optional<Dtype> parse_dtype(std::string_view name) {
    const std::string key = lower_without_separators(name);
    for (const auto& d : kDtypes)
        if (key == d.name) return d.type;
    // The ISA header spells the fp8 family FP8e3/FP8e4/FP8e5; "float32"-style aliases for convenience.
    if (key == "float32") return Dtype::fp32;
    if (key == "float16") return Dtype::fp16;
    if (key == "bfloat16") return Dtype::bf16;
    // nki.language's names of the MX quad types.
    if (key == "float8e4m3fnx4") return Dtype::fp8e4x4;
    if (key == "float8e5m2x4") return Dtype::fp8e5x4;
    if (key == "float4e2m1fnx4") return Dtype::fp4x4;
    return std::nullopt;
}

std::string dtype_names() {
    std::string s;
    for (const auto& d : kDtypes) s += (s.empty() ? "" : ", ") + std::string(d.name);
    return s;
}

// ---- seed 000 §2.2: placement ---------------------------------------------------------------

bool addr_from_register(const AddressMap& m, const Addr4& a) {
    return a.marker == m.isa().addr_reg_marker && a.reserved0_lo == 0 && a.reserved0_hi == 0 &&
           a.regnum < m.isa().num_addr_registers;
}

Verdict tensor_start_addr_valid(const AddressMap& m, const Addr4& addr, Dtype dtype, WriteTensor write,
                                AllowedInPSUM allow_psum, AllowedInSBUF allow_sbuf) {
    // (a) register bypass: the address is only known at run time.
    if (addr_from_register(m, addr)) return Verdict::pass();
    // A marker with reserved bits set or regnum >= 64 is not a register address: like the header
    // pseudo-code, fall through and check the immediate.
    const std::uint32_t a = m.addr_imm_mask(addr.addr_immediate);
    if (!addr_aligned_dtype(addr.addr_immediate, dtype))
        return Verdict::fail("start address " + hex(addr.addr_immediate) + " is not aligned to the " +
                             std::to_string(dtype_size(dtype)) + "-byte " + std::string(to_string(dtype)) +
                             ": start the tensor at a multiple of " + std::to_string(dtype_size(dtype)) + " bytes", "dtype alignment, seed 000 §1.1, §2.2");
    const bool in_psum = m.addr_in_psum(a);
    const bool in_sbuf = m.addr_in_sbuf(a);
    if (!in_psum && !in_sbuf) return Verdict::fail(m.explain(m.decode(a)));
    if (in_psum && allow_psum == AllowedInPSUM::False)
        return Verdict::fail("operand at " + hex(a) + " is in PSUM, but this operand may only be in SBUF; place it in SBUF [" +
                             hex(m.sbuf().region_offset) + ", " + hex(m.sbuf().region_offset + m.sbuf().region_size) + ")", "operand placement, seed 000 §2.2");
    if (in_sbuf && allow_sbuf == AllowedInSBUF::False && !m.has_psum())
        return Verdict::fail(
            "operand at " + hex(a) +
            " is in SBUF, but this operand may only be in PSUM, which this "
            "generation does not have: the instruction cannot run on it; replay the trace under a "
            "generation with PSUM", "operand placement, seed 000 §2.2");
    if (in_sbuf && allow_sbuf == AllowedInSBUF::False)
        return Verdict::fail("operand at " + hex(a) + " is in SBUF, but this operand may only be in PSUM; place it in PSUM from " +
                             hex(m.psum().region_offset), "operand placement, seed 000 §2.2");
    if (in_psum && write == WriteTensor::True && !type_size_check(dtype, 4))
        return Verdict::fail("a PSUM write must be a 4-byte dtype (PSUM accumulates in fp32), not " +
                             std::string(to_string(dtype)) + ": write fp32 (or int32) to PSUM and cast on the copy out", "PSUM write dtype, seed 000 §2.2");
    // Beyond the header pseudo-code: there is no SRAM in the decode pad (seed 000 §1).
    const Decoded d = m.decode(a);
    if (!d.valid()) return Verdict::fail(m.explain(d));
    return Verdict::pass();
}

bool addresses_in_same_sbuf_quadrant(const AddressMap& m, std::uint32_t a0, std::uint32_t a1) {
    return m.addr_in_sbuf(a0) && m.addr_in_sbuf(a1) && m.get_sbuf_quadrant_id(a0) == m.get_sbuf_quadrant_id(a1);
}

bool addresses_in_same_psum_quadrant(const AddressMap& m, std::uint32_t a0, std::uint32_t a1) {
    return m.addr_in_psum(a0) && m.addr_in_psum(a1) && m.get_psum_quadrant_id(a0) == m.get_psum_quadrant_id(a1);
}

Verdict tt_valid_partitions(const AddressMap& m, const Addr4& a0, const Addr4& a1) {
    if (addr_from_register(m, a0) || addr_from_register(m, a1)) return Verdict::pass();
    const std::uint32_t x = m.addr_imm_mask(a0.addr_immediate);
    const std::uint32_t y = m.addr_imm_mask(a1.addr_immediate);
    const bool xp = m.addr_in_psum(x), yp = m.addr_in_psum(y);
    const bool xs = m.addr_in_sbuf(x), ys = m.addr_in_sbuf(y);
    if ((xp && ys) || (xs && yp)) return Verdict::pass();
    if (xs && ys) {
        if (addresses_in_same_sbuf_quadrant(m, x, y)) return Verdict::pass();
        return Verdict::fail("tensor_tensor SBUF operands " + hex(x) + " (quadrant " +
                             std::to_string(m.get_sbuf_quadrant_id(x)) + ") and " + hex(y) + " (quadrant " +
                             std::to_string(m.get_sbuf_quadrant_id(y)) +
                             ") must be in the same 32-partition quadrant: tensor_tensor reads both SBUF operands "
                             "through one quadrant; start both in one quadrant, or copy one there first", "tensor_tensor partitions, seed 000 §2.2");
    }
    if (xp && yp)
        return Verdict::fail("tensor_tensor may touch at most one PSUM operand; both " + hex(x) + " and " + hex(y) +
                             " are in PSUM: copy one of them to SBUF first", "tensor_tensor partitions, seed 000 §2.2");
    return Verdict::fail(m.explain(m.decode(xs || xp ? y : x)));
}

// ---- keystone ----------------------------------------------------------------------------------

namespace {

std::string no_axi_path(const AddressMap& m, std::uint32_t a) {
    return "GPSIMD/Q7 operand " + hex(a) + " is in PSUM, which the GpSimd cores cannot reach: they see the "
           "State Buffer only, through the axi2sram bridge (SBUF at SoC " + hex(m.sbuf().soc_base) +
           "); PSUM (SoC " + hex(m.psum().soc_base) +
           ") has no AXI aperture. Stage the tensor in SBUF (copy it there with ACT or DVE) first.";
}

}  // namespace

Verdict gpsimd_operand_valid(const AddressMap& m, const Addr4& addr) {
    if (addr_from_register(m, addr)) return Verdict::pass();
    const std::uint32_t a = m.addr_imm_mask(addr.addr_immediate);
    if (m.addr_in_psum(a)) return Verdict::fail(no_axi_path(m, a), "GpSimd AXI reach, seed 000 §7.4, seed 002 §3");
    const Decoded d = m.decode(a);
    if (!d.valid()) return Verdict::fail(m.explain(d));
    return Verdict::pass();
}

Verdict gpsimd_tt_valid_partitions(const AddressMap& m, const Addr4& a0, const Addr4& a1) {
    if (Verdict v = gpsimd_operand_valid(m, a0); !v) return v;
    if (Verdict v = gpsimd_operand_valid(m, a1); !v) return v;
    return tt_valid_partitions(m, a0, a1);
}

// ---- Matmul ------------------------------------------------------------------------------------

namespace {

// seed 000 §5.2 table: the quadrant index the group starts at and the column budget.
struct ColGroup {
    std::uint32_t mask;
    std::uint32_t first_quadrant;
    std::uint32_t max_cols;
    std::optional<std::uint32_t> xbus_sel;  // none: q3 alone (HW bug)
};

constexpr std::array<ColGroup, 7> kColGroups{{
    {0xf, 0, 128, 0x10},  // full array → xbus[4]
    {0x3, 0, 64, 0x01},   // lower half → xbus[0]
    {0xc, 2, 64, 0x04},   // upper half → xbus[2]
    {0x1, 0, 32, 0x01},   // q0
    {0x2, 1, 32, 0x02},   // q1
    {0x4, 2, 32, 0x04},   // q2
    {0x8, 3, 32, std::nullopt},  // q3 — "NOT SUPPORTED, BUG": no xbus_sel case
}};

const ColGroup* find_group(std::uint32_t mask) {
    for (const auto& g : kColGroups)
        if (g.mask == mask) return &g;
    return nullptr;
}

std::string not_a_group(std::string_view field, std::uint32_t v) {
    return std::string(field) + " " + hex(v) +
           " is not a column/row group of the PE array: use 0xf (all four 32-row quadrants), 0x3 or 0xc "
           "(a half), or 0x1, 0x2, 0x4 (one quadrant)";
}

Checked<std::uint32_t> group_partition(const AddressMap& m, std::string_view field, std::uint32_t mask) {
    Checked<std::uint32_t> r;
    if (const ColGroup* g = find_group(mask)) r.value = g->first_quadrant * m.isa().quadrant_partitions;
    else r.reason = not_a_group(field, mask), r.rule = "col_grp table, seed 000 §5.2";
    return r;
}

}  // namespace

Checked<std::uint32_t> valid_mm_psum_quadrant(const AddressMap& m, std::uint32_t col_grp) {
    return group_partition(m, "col_grp", col_grp);
}

Checked<std::uint32_t> valid_mm_sbuf_quadrant(const AddressMap& m, std::uint32_t row_grp) {
    return group_partition(m, "row_grp", row_grp);
}

Verdict s3d3_mm_valid_col_group_active_columns(std::uint32_t col_grp, std::uint32_t num_active_cols) {
    const ColGroup* g = find_group(col_grp);
    if (!g) return Verdict::fail(not_a_group("col_grp", col_grp), "col_grp table, seed 000 §5.2");
    if (num_active_cols < 1 || num_active_cols > g->max_cols)
        return Verdict::fail("num_active_cols " + std::to_string(num_active_cols) + " does not fit col_grp " +
                             hex(col_grp) + ": 1.." + std::to_string(g->max_cols) +
                             " columns; use a wider group (0xf takes 128) or split the matmul", "col_grp table, seed 000 §5.2");
    return Verdict::pass();
}

std::optional<std::uint32_t> mm_xbus_sel_for(std::uint32_t col_grp) {
    const ColGroup* g = find_group(col_grp);
    return g ? g->xbus_sel : std::nullopt;
}

Verdict s3d3_mm_valid_xbus_sel(std::uint32_t col_grp, std::uint32_t xbus_sel) {
    const ColGroup* g = find_group(col_grp);
    if (!g) return Verdict::fail(not_a_group("col_grp", col_grp), "col_grp table, seed 000 §5.2");
    if (!g->xbus_sel)
        return Verdict::fail("col_grp " + hex(col_grp) +
                             " (quadrant 3 alone) has no valid xbus_sel: the hardware's selection check "
                             "rejects every value for it; use 0xc or 0xf", "col_grp table, seed 000 §5.2");
    if (xbus_sel != *g->xbus_sel)
        return Verdict::fail("xbus_sel " + hex(xbus_sel) + " does not match col_grp " + hex(col_grp) +
                             ", which requires xbus_sel " + hex(*g->xbus_sel) +
                             "; set xbus_sel=" + hex(*g->xbus_sel) + " or leave it out", "col_grp table, seed 000 §5.2");
    return Verdict::pass();
}

Verdict mm_col_grp_valid(const AddressMap& m, std::uint32_t col_grp, std::uint32_t num_active_cols,
                         std::uint32_t xbus_sel) {
    if (auto q = valid_mm_psum_quadrant(m, col_grp); !q) return Verdict::fail(q.reason, q.rule);
    if (Verdict v = s3d3_mm_valid_col_group_active_columns(col_grp, num_active_cols); !v) return v;
    return s3d3_mm_valid_xbus_sel(col_grp, xbus_sel);
}

Verdict mm_psum_flags(std::uint32_t flags) {
    if (flags <= (kBeginMatmulGroup | kEndMatmulGroup)) return Verdict::pass();
    return Verdict::fail("psum_accumulate_flags " + hex(flags) +
                         " is not a matmul-group flag set: 0 (accumulate), 1 (the group's first matmul: "
                         "overwrite), 2 (its last), 3 (a group of one); in a trace, acc_flags=mid|begin|end|single", "accumulate flags, seed 000 §5.4");
}

Verdict valid_zero_region(std::uint32_t value, const Params& p) {
    static constexpr std::array<std::string_view, kMatmulZeroRegionMaxPlusOne> names{
        "SIZE2048", "SIZE4096", "SIZE8192", "SIZE16384"};
    if (value >= kMatmulZeroRegionMaxPlusOne)
        return Verdict::fail("psum_zero_region " + std::to_string(value) +
                             " is out of range: use 0 (2 KiB), 1 (4 KiB), 2 (8 KiB) or 3 (16 KiB), up to " +
                             std::to_string(p.isa.matmul_zero_region_max) + " on " + p.generation, "zero region, seed 000 §5.3");
    if (value > p.isa.matmul_zero_region_max)
        return Verdict::fail("MATMUL_ZERO_REGION " + std::string(names[value]) + " = " + std::to_string(value) +
                             " does not exist on " + p.generation + ": its enum ends at " +
                             std::string(names[std::min<std::uint32_t>(p.isa.matmul_zero_region_max, 3)]) +
                             " (sunda and cayman zero 2 KiB only; 2-, 4- and 8-bank regions come with mariana): "
                             "use psum_zero_region=0 on " + p.generation, "zero region, seed 000 §5.3");
    return Verdict::pass();
}

Verdict mm_dst_dtype_valid(Dtype in_dtype, Dtype dst_dtype) {
    // An MX matmul dequantizes into fp32 or bf16 PSUM (nki.isa nc_matmul_mx; MXFP matmul guide:
    // "outputting results in FP32 or BF16").
    if (is_mx(in_dtype)) {
        if (dst_dtype == Dtype::fp32 || dst_dtype == Dtype::bf16) return Verdict::pass();
        return Verdict::fail("MX matmul destination dtype " + std::string(to_string(dst_dtype)) +
                             " must be fp32 or bf16: write fp32 or bf16 to PSUM", "nki.isa nc_matmul_mx");
    }
    const Dtype want = in_dtype == Dtype::uint8 ? Dtype::uint32 : Dtype::fp32;
    if (dst_dtype == want) return Verdict::pass();
    return Verdict::fail("Matmul destination dtype " + std::string(to_string(dst_dtype)) + " for " +
                         std::string(to_string(in_dtype)) + " input must be " + std::string(to_string(want)) +
                         " (PSUM accumulates in fp32, and in uint32 for uint8 input): write " +
                         std::string(to_string(want)) + " and cast on the copy out", "matmul dtypes, seed 000 §5.1");
}

// ---- transpose ---------------------------------------------------------------------------------

Verdict has_valid_xpose_tile_rows(const IsaParams& isa, std::uint32_t tile_src_rows) {
    if (tile_src_rows == isa.xpose_tile_rows) return Verdict::pass();
    return Verdict::fail("tile_src_rows " + std::to_string(tile_src_rows) + " must be " +
                         std::to_string(isa.xpose_tile_rows) +
                         ": the transposing crossbar moves tiles of " + std::to_string(isa.xpose_tile_rows) +
                         " source rows; set tile_src_rows=" + std::to_string(isa.xpose_tile_rows), "transpose tile, seed 000 §6.2");
}

Verdict has_valid_xpose_src_rows(const IsaParams& isa, std::uint32_t src_rows) {
    const std::uint32_t tile = std::max<std::uint32_t>(1, isa.xpose_tile_rows);
    if (src_rows != 0 && src_rows % tile == 0) return Verdict::pass();
    return Verdict::fail(std::to_string(src_rows) + " source rows: a transposing DMA moves whole " + std::to_string(tile) +
                         "-row crossbar tiles, so give a multiple of " + std::to_string(tile) +
                         " (nki.isa dma_transpose: src.shape[0] divisible by 16); pad the rows or split the transfer", "transpose tile, seed 000 §6.2; nki.isa dma_transpose");
}

Verdict has_valid_xpose_tile_cols(const IsaParams& isa, std::uint32_t tile_src_cols, Dtype out_dtype) {
    const std::uint32_t size = dtype_size(out_dtype);
    if (size != 2 && size != 4)
        return Verdict::fail("transpose out_dtype " + std::string(to_string(out_dtype)) +
                             " is not a 2- or 4-byte type, the only sizes the transposing crossbar moves; "
                             "transpose bf16/fp16 or fp32 data", "transpose tile, seed 000 §6.2");
    const std::uint32_t max = size == 2 ? isa.xpose_max_cols_2b : isa.xpose_max_cols_4b;
    if (tile_src_cols >= 1 && tile_src_cols <= max) return Verdict::pass();
    return Verdict::fail("tile_src_cols " + std::to_string(tile_src_cols) + " must be 1.." + std::to_string(max) +
                         " for a " + std::to_string(size) + "-byte out_dtype; split the columns into tiles of " +
                         std::to_string(max) + " or fewer", "transpose tile, seed 000 §6.2");
}

Verdict xpose_dst_aligned(const IsaParams& isa, std::uint32_t dst_start_addr) {
    if (dst_start_addr % isa.xpose_dst_align == 0) return Verdict::pass();
    return Verdict::fail("transpose destination " + hex(dst_start_addr) + " must be " +
                         std::to_string(isa.xpose_dst_align) + "-byte aligned: the transposing crossbar writes whole " +
                         std::to_string(isa.xpose_dst_align) + "-byte lines; start the destination on one", "transpose tile, seed 000 §6.2");
}

Verdict dma_direct2d_xpose_valid(const IsaParams& isa, std::uint32_t tile_src_rows, std::uint32_t tile_src_cols,
                                 Dtype out_dtype, std::uint32_t dst_start_addr) {
    if (Verdict v = has_valid_xpose_tile_rows(isa, tile_src_rows); !v) return v;
    if (Verdict v = has_valid_xpose_tile_cols(isa, tile_src_cols, out_dtype); !v) return v;
    return xpose_dst_aligned(isa, dst_start_addr);
}

Verdict dma_gather_xpose_valid(const IsaParams& isa, std::uint32_t src_num_elem_gather,
                               std::uint32_t src_num_elem_1, std::uint32_t dst_num_elem_0,
                               std::uint32_t dst_start_addr, std::uint32_t dst_step_elem_1) {
    if (src_num_elem_gather % isa.xpose_tile_rows != 0)
        return Verdict::fail("src_num_elem[gather_dim] " + std::to_string(src_num_elem_gather) +
                             " must be a multiple of " + std::to_string(isa.xpose_tile_rows) +
                             ": the transposing crossbar moves whole row tiles; pad the gathered rows", "transpose tile, seed 000 §6.2");
    if (src_num_elem_1 != dst_num_elem_0)
        return Verdict::fail("src_num_elem[1] " + std::to_string(src_num_elem_1) + " must equal dst_num_elem[0] " +
                             std::to_string(dst_num_elem_0) + ": a gather transpose writes one destination row per "
                             "gathered index", "transpose tile, seed 000 §6.2");
    if (Verdict v = xpose_dst_aligned(isa, dst_start_addr); !v) return v;
    if (dst_step_elem_1 % isa.xpose_dst_align != 0)
        return Verdict::fail("dst_step_elem[1] " + std::to_string(dst_step_elem_1) + " must be a multiple of " +
                             std::to_string(isa.xpose_dst_align) + ": each destination row starts on a whole "
                             "crossbar line; use a row step that is a multiple of " +
                             std::to_string(isa.xpose_dst_align), "transpose tile, seed 000 §6.2");
    return Verdict::pass();
}

}  // namespace sbufsim
