// The ISA verifier's placement and Matmul/transpose validity rules, under the names of the ISA
// header predicates (seed 000 §2.2, §5, §6.2) plus the GPSIMD/Q7 reachability keystone
// (seed 000 §7.4, seed 002 §3).
//
// Every rule returns a Verdict (or a Checked<T> when it also produces a value) whose reason
// says in the user's words why an operand was rejected and what to change, and whose rule names
// the hardware rule and where it was read (printed after the words, as the trace checker's other
// findings are). These run when a trace is loaded, never per cycle.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sbufsim/address/address.h"

namespace sbufsim {

// ---- results ---------------------------------------------------------------------------------

struct Verdict {
    bool ok = true;
    std::string reason;  // empty when ok
    std::string rule;    // the rule and its source, e.g. "col_grp table, seed 000 §5.2"

    static Verdict pass() { return {}; }
    static Verdict fail(std::string why, std::string rule = {}) { return {false, std::move(why), std::move(rule)}; }
    explicit operator bool() const { return ok; }
};

// A rule that also yields a value (e.g. the partition a col_grp selects).
template <class T>
struct Checked {
    std::optional<T> value;
    std::string reason;  // empty when value is set
    std::string rule;    // as Verdict::rule

    bool ok() const { return value.has_value(); }
    explicit operator bool() const { return ok(); }
};

// ---- data types --------------------------------------------------------------------------------

// NEURON_ISA_TPB_DTYPE as far as the seeds name it (Matmul in_dtype: FP32/FP16/BF16/FP8e{3,4,5}/
// UINT8, seed 000 §5), plus the integer types the verifier's 1/2/4/8 alignment implies (§1.1),
// plus NeuronCore-v4's quad-packed MX types (nki.language float8_e4m3fn_x4, float8_e5m2_x4:
// four fp8 elements in 32 bits; float4_e2m1fn_x4: four fp4 elements in 16 bits), appended so
// that the binary trace's dtype bytes keep their values.
enum class Dtype : std::uint8_t {
    fp32, fp16, bf16, fp8e3, fp8e4, fp8e5,
    uint8, int8, uint16, int16, uint32, int32, uint64, int64,
    fp8e4x4, fp8e5x4, fp4x4,
};
inline constexpr Dtype kLastDtype = Dtype::fp4x4;
std::string_view to_string(Dtype t);
std::uint32_t dtype_size(Dtype t);              // bytes: 1, 2, 4 or 8 (an x4 element: 4 or 2)
// A quad-packed MX type (nki.isa nc_matmul_mx data): one element holds four values.
inline bool is_mx(Dtype t) { return t == Dtype::fp8e4x4 || t == Dtype::fp8e5x4 || t == Dtype::fp4x4; }
// 4-byte data in the PE's sense (a quarter-rate matmul): 4-byte elements that are not x4 packs.
inline bool is_pe_4byte(Dtype t) { return !is_mx(t) && dtype_size(t) == 4; }
std::optional<Dtype> parse_dtype(std::string_view name);  // case-insensitive, "fp8_e4" etc. accepted
std::string dtype_names();                     // "fp32, fp16, ..." for help texts

// type_size_check(dtype, n): the dtype is exactly n bytes wide.
inline bool type_size_check(Dtype t, std::uint32_t bytes) { return dtype_size(t) == bytes; }
// addr_aligned_dtype: the start address is a multiple of the dtype width (seed 000 §1.1).
inline bool addr_aligned_dtype(std::uint32_t addr, Dtype t) { return addr % dtype_size(t) == 0; }

// ---- ADDR4 --------------------------------------------------------------------------------------

// An operand start address as the instruction encodes it: a 29-bit immediate, or, with the
// register marker, a runtime address register (seed 000 §2.2).
struct Addr4 {
    std::uint32_t addr_immediate = 0;
    std::uint8_t marker = 0;        // ADDR4_MARKER_ADDR_REG (0x80) = "address is in a register"
    std::uint8_t regnum = 0;
    std::uint8_t reserved0_lo = 0;
    std::uint8_t reserved0_hi = 0;

    static Addr4 immediate(std::uint32_t a) { return Addr4{a}; }
    static Addr4 reg(std::uint8_t regnum, std::uint8_t marker = 0x80) {
        Addr4 r;
        r.marker = marker;
        r.regnum = regnum;
        return r;
    }
};

// The register bypass: resolved at run time, so the placement check does not apply.
bool addr_from_register(const AddressMap& m, const Addr4& a);

// Per-operand flags of the ISA (names as in the header).
enum class AllowedInPSUM : bool { False = false, True = true };
enum class AllowedInSBUF : bool { False = false, True = true };
enum class WriteTensor : bool { False = false, True = true };

// ---- seed 000 §2.2: placement ---------------------------------------------------------------

// The per-operand placement gate: dtype alignment, on-chip, op may use PSUM/SBUF, PSUM writes
// are 4-byte. Beyond the header pseudo-code, a start address in the partition's decode pad or
// in a partition the generation does not have is rejected too (seed 000 §1: only
// PARTITION_ACTIVE_SIZE bytes are SRAM).
Verdict tensor_start_addr_valid(const AddressMap& m, const Addr4& addr, Dtype dtype, WriteTensor write,
                                AllowedInPSUM allow_psum, AllowedInSBUF allow_sbuf);

// Two SBUF addresses in the same 32-partition quadrant (seed 000 §2.1).
bool addresses_in_same_sbuf_quadrant(const AddressMap& m, std::uint32_t a0, std::uint32_t a1);
bool addresses_in_same_psum_quadrant(const AddressMap& m, std::uint32_t a0, std::uint32_t a1);

// tensor_tensor operands: {PSUM,SBUF}, {SBUF,PSUM} or {SBUF,SBUF} in one quadrant; never
// {PSUM,PSUM} (seed 000 §2.2).
Verdict tt_valid_partitions(const AddressMap& m, const Addr4& a0, const Addr4& a1);

// ---- seed 000 §7.4 / seed 002 §3: the keystone --------------------------------------------------

// An operand of a GPSIMD (Q7 AXI master) access: SBUF only. PSUM has no AXI aperture, no pinned
// NX window and no axi2sram-equivalent bridge, so a Q7 cannot reach it at all.
Verdict gpsimd_operand_valid(const AddressMap& m, const Addr4& addr);
// The GPSIMD-routed tensor_tensor: the {SBUF,SBUF} subset of tt_valid_partitions (seed 000 §2.2 NOTE).
Verdict gpsimd_tt_valid_partitions(const AddressMap& m, const Addr4& a0, const Addr4& a1);

// ---- seed 000 §5: Matmul ------------------------------------------------------------------------

// col_grp → first PSUM partition of the destination (0xf/0x3/0x1 → 0, 0x2 → 32, 0xc/0x4 → 64,
// 0x8 → 96); any other mask is not a column group.
Checked<std::uint32_t> valid_mm_psum_quadrant(const AddressMap& m, std::uint32_t col_grp);
// row_grp → first SBUF partition of the moving tensor, the same bitmask table.
Checked<std::uint32_t> valid_mm_sbuf_quadrant(const AddressMap& m, std::uint32_t row_grp);
// num_active_cols fits the column group: ≤128 (0xf), ≤64 (0x3, 0xc), ≤32 (one quadrant); ≥ 1.
Verdict s3d3_mm_valid_col_group_active_columns(std::uint32_t col_grp, std::uint32_t num_active_cols);
// xbus_sel matches the column group. col_grp 0x8 (quadrant 3 alone) has no case: HW bug.
Verdict s3d3_mm_valid_xbus_sel(std::uint32_t col_grp, std::uint32_t xbus_sel);
// The xbus_sel a column group requires, if any (none for 0x8 and for non-groups).
std::optional<std::uint32_t> mm_xbus_sel_for(std::uint32_t col_grp);
// All three col_grp checks together, as the verifier applies them.
Verdict mm_col_grp_valid(const AddressMap& m, std::uint32_t col_grp, std::uint32_t num_active_cols,
                         std::uint32_t xbus_sel);

// MATMUL_PSUM_ACCUMULATE_FLAGS: BEGIN (1) | END (2); accepts exactly {0,1,2,3} (seed 000 §5.4).
inline constexpr std::uint32_t kBeginMatmulGroup = 1u << 0;
inline constexpr std::uint32_t kEndMatmulGroup = 1u << 1;
Verdict mm_psum_flags(std::uint32_t flags);

// MATMUL_ZERO_REGION: SIZE2048 = 0 only on sunda/cayman; SIZE4096/8192/16384 = 1/2/3 from
// mariana (seed 000 §5.3). The per-generation limit is isa.matmul_zero_region_max.
inline constexpr std::uint32_t kMatmulZeroRegionMaxPlusOne = 4;
Verdict valid_zero_region(std::uint32_t value, const Params& p);
// Bytes per partition zeroed at group begin: 2048 << value.
inline std::uint64_t zero_region_bytes(std::uint32_t value) { return std::uint64_t{2048} << value; }

// The Matmul destination dtype: UINT32 for UINT8 input, else FP32 (seed 000 §5.1).
Verdict mm_dst_dtype_valid(Dtype in_dtype, Dtype dst_dtype);

// ---- seed 000 §6.2: axi2sram transpose tile -------------------------------------------------------

// has_valid_xpose_tile_rows_temporary: tile_src_rows must be 16.
Verdict has_valid_xpose_tile_rows(const IsaParams& isa, std::uint32_t tile_src_rows);
// A transposing DMA's source rows: whole 16-row crossbar tiles, the gather transpose's row-tile
// alignment (src_num_elem[gather_dim] % 16 == 0; nki.isa dma_transpose: "src.shape[0] must be
// divisible by 16"); each tile is one DMA_DIRECT2D tile of tile_src_rows == 16.
Verdict has_valid_xpose_src_rows(const IsaParams& isa, std::uint32_t src_rows);
// has_valid_xpose_tile_cols_temporary: 1..128 for a 2-byte out_dtype, 1..64 for a 4-byte one.
Verdict has_valid_xpose_tile_cols(const IsaParams& isa, std::uint32_t tile_src_cols, Dtype out_dtype);
// The crossbar writes 32-byte aligned destinations.
Verdict xpose_dst_aligned(const IsaParams& isa, std::uint32_t dst_start_addr);
// DMA_DIRECT2D transpose: all three tile rules.
Verdict dma_direct2d_xpose_valid(const IsaParams& isa, std::uint32_t tile_src_rows,
                                 std::uint32_t tile_src_cols, Dtype out_dtype, std::uint32_t dst_start_addr);
// DMA_GATHER_TRANSPOSE: src_num_elem[gather_dim] % 16 == 0, src_num_elem[1] == dst_num_elem[0],
// dst_start_addr % 32 == 0, dst_step_elem[1] % 32 == 0.
Verdict dma_gather_xpose_valid(const IsaParams& isa, std::uint32_t src_num_elem_gather,
                               std::uint32_t src_num_elem_1, std::uint32_t dst_num_elem_0,
                               std::uint32_t dst_start_addr, std::uint32_t dst_step_elem_1);

}  // namespace sbufsim
