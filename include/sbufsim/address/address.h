// The on-chip address model of one NeuronCore TPB: the 29-bit PartitionOffset decode of SBUF and
// PSUM (seed 000 §2), the ECC-bank decomposition of both arrays (seed 000 §3–§4) and the SoC
// apertures they appear at (seed 002 §1, §3).
//
// Function names follow the ISA header predicates (addr_imm_mask, addr_in_sbuf, sbuf_addr, ...).
// Everything is parameterised by one generation's geometry; the derived divisors and masks are
// computed once in the AddressMap constructor so that a decode is a handful of integer ops.
//
// Plain C++: nothing here depends on SystemC.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sbufsim/config/params.h"
#include "sbufsim/types/types.h"

namespace sbufsim {

// Which array an address decodes into. `none` = neither region (off-chip for the ISA).
std::string_view to_string(Region r);

// Why a decoded address is not usable storage. `ok` is the only state with SRAM behind it.
enum class DecodeStatus : std::uint8_t {
    ok,
    pad,                    // offset >= PARTITION_ACTIVE_SIZE: decode pad, no SRAM (seed 000 §1)
    partition_out_of_range, // partition index >= the array's partition count (gen1 PSUM: 64)
    off_chip,               // neither in [STATE_BUF) nor in [PSUM_BUF) (seed 000 §2)
    too_wide,               // bits above TPB_PARTITION_ADDR_MASK set (seed 000 §2)
    offset_beyond_stride,   // (partition, offset) form with offset >= PARTITION_SIZE
    no_psum,                // a PSUM location on a generation with PSUM_BUF_SZ == 0 (maverick)
};
std::string_view to_string(DecodeStatus s);

// ECC banks the bank masks hold: SBUF banks in 16 bits, PSUM banks in 32 (AddressMap, the kernel).
inline constexpr std::uint32_t kMaxSbufEccBanks = 16;
inline constexpr std::uint32_t kMaxPsumEccBanks = 32;

// The ECC-bank coordinates of one (partition, offset).
// SBUF: 8 clusters × 2 halves = 16 banks (seed 000 §3); `half` is meaningful, `hw_bank` is 0.
// PSUM: 4 clusters × 8 = 32 banks (seed 000 §4); `hw_bank` is the 2048-B matmul bank and
// `isa_bank` the bank as the generation's ISA header counts it (sunda: 16 × 1024 B).
struct EccBank {
    std::uint32_t index = 0;    // 0..15 (SBUF) or 0..31 (PSUM)
    std::uint32_t cluster = 0;
    std::uint32_t half = 0;     // SBUF only
    std::uint32_t hw_bank = 0;  // PSUM only
    std::uint32_t isa_bank = 0; // PSUM only
};

// Everything a (29-bit) address means. Produced by AddressMap::decode; not used on hot paths.
struct Decoded {
    std::uint64_t addr = 0;      // as given (may be wider than 29 bits when status == too_wide)
    Region region = Region::none;
    DecodeStatus status = DecodeStatus::off_chip;
    std::uint32_t partition = 0;
    std::uint32_t offset = 0;    // byte offset inside the partition's stride
    std::uint32_t quadrant = 0;  // partition / 32 (seed 000 §2.1)
    EccBank bank;
    std::uint64_t soc_addr = 0;  // STATE_BUF / PSUM_BUF SoC address (seed 002 §1, §3)

    bool valid() const { return status == DecodeStatus::ok; }
    bool active() const { return status == DecodeStatus::ok; }
};

// One generation's address geometry with its derived constants. Cheap to copy; holds no
// reference to the Params it was built from.
class AddressMap {
public:
    explicit AddressMap(const Params& p);

    const SbufParams& sbuf() const { return sbuf_; }
    const PsumParams& psum() const { return psum_; }
    const IsaParams& isa() const { return isa_; }
    const std::string& generation() const { return generation_; }
    bool has_psum() const { return psum_.region_size != 0; }
    // "on cayman an SBUF partition holds 224 KiB (0x38000 bytes)": the limit an out-of-partition
    // message names, in the generation's own figures.
    std::string partition_holds(Region r) const;

    // ---- seed 000 §2: the byte-exact ISA predicates -------------------------------------
    // A TPB on-chip address is only 29 bits wide (TPB_PARTITION_ADDR_MASK).
    std::uint32_t addr_imm_mask(std::uint64_t addr) const {
        return static_cast<std::uint32_t>(addr & isa_.addr_mask);
    }
    // Region tests are pure magnitude compares; note that addr_in_sbuf has no lower bound
    // because STATE_BUF_OFFSET is 0 (seed 000 §2 QUIRK).
    bool addr_in_sbuf(std::uint32_t a) const { return a >= sbuf_.region_offset && a < sbuf_end_; }
    // Always false when PSUM_BUF_SZ == 0 (maverick, seed 000 §1).
    bool addr_in_psum(std::uint32_t a) const { return a >= psum_.region_offset && a < psum_end_; }

    // Forward maps. Arguments are not range-checked (the ISA macros are not either); use
    // decode() or the isa_rules.h checks for validation.
    std::uint32_t sbuf_addr(std::uint32_t partition, std::uint32_t byte_off) const {
        return static_cast<std::uint32_t>(sbuf_.region_offset + partition * sbuf_.partition_stride +
                                          byte_off);
    }
    std::uint32_t psum_addr(std::uint32_t partition, std::uint32_t byte_off) const {
        return static_cast<std::uint32_t>(psum_.region_offset + partition * psum_.partition_stride +
                                          byte_off);
    }

    // Inverse maps; valid for addresses for which addr_in_sbuf / addr_in_psum holds.
    std::uint32_t get_sbuf_partition_id(std::uint32_t a) const {
        return static_cast<std::uint32_t>((a - sbuf_.region_offset) / sbuf_.partition_stride);
    }
    std::uint32_t get_sbuf_byte_offset_in_partition(std::uint32_t a) const {
        return static_cast<std::uint32_t>((a - sbuf_.region_offset) % sbuf_.partition_stride);
    }
    std::uint32_t get_sbuf_quadrant_id(std::uint32_t a) const {
        return static_cast<std::uint32_t>((a - sbuf_.region_offset) / sbuf_quadrant_bytes_);
    }
    std::uint32_t get_psum_partition_id(std::uint32_t a) const {
        return static_cast<std::uint32_t>((a - psum_.region_offset) / psum_.partition_stride);
    }
    std::uint32_t get_psum_byte_offset_in_partition(std::uint32_t a) const {
        return static_cast<std::uint32_t>((a - psum_.region_offset) % psum_.partition_stride);
    }
    std::uint32_t get_psum_quadrant_id(std::uint32_t a) const {
        return static_cast<std::uint32_t>((a - psum_.region_offset) / psum_quadrant_bytes_);
    }

    // Offset past PARTITION_ACTIVE_SIZE: inside the stride but with no SRAM behind it.
    bool sbuf_offset_in_pad(std::uint32_t byte_off) const { return byte_off >= sbuf_.partition_active; }
    bool psum_offset_in_pad(std::uint32_t byte_off) const { return byte_off >= psum_.partition_active; }
    bool offset_in_pad(Region r, std::uint32_t byte_off) const {
        return r == Region::psum ? psum_offset_in_pad(byte_off) : sbuf_offset_in_pad(byte_off);
    }

    std::uint32_t quadrant_of_partition(std::uint32_t partition) const {
        return partition / isa_.quadrant_partitions;
    }

    // ---- ECC banks (seed 000 §3–§4) -----------------------------------------------------
    EccBank sbuf_ecc_bank(std::uint32_t partition, std::uint32_t byte_off) const;
    EccBank psum_ecc_bank(std::uint32_t partition, std::uint32_t byte_off) const;

    // Bit i set = the access touches ECC bank i. The access covers `partitions` partitions
    // starting at `first_partition`, and bytes [offset, offset + bytes) in each of them.
    // Precondition: partitions and bytes stay inside the array (the kernel validates requests
    // at load time); zero partitions or zero bytes touch nothing. O(1) / O(clusters).
    std::uint16_t sbuf_bank_mask(std::uint32_t first_partition, std::uint32_t partitions,
                                 std::uint32_t offset, std::uint32_t bytes) const;
    std::uint32_t psum_bank_mask(std::uint32_t first_partition, std::uint32_t partitions,
                                 std::uint32_t offset, std::uint32_t bytes) const;

    // ---- SoC apertures (seed 002 §1, §3) --------------------------------------------------
    std::uint64_t sbuf_soc_addr(std::uint32_t a) const { return sbuf_.soc_base + (a - sbuf_.region_offset); }
    std::uint64_t psum_soc_addr(std::uint32_t a) const { return psum_.soc_base + (a - psum_.region_offset); }
    // The inverse: a SoC address inside TPB_0_STATE_BUF / TPB_0_PSUM_BUF back to its 29-bit
    // PartitionOffset. Returns false when the SoC address is in neither aperture.
    bool soc_to_partition_offset(std::uint64_t soc, std::uint32_t& addr) const;

    // ---- full decode ----------------------------------------------------------------------
    // Decode a 29-bit PartitionOffset. An argument wider than 29 bits is reported as too_wide
    // (the ISA would silently mask it with addr_imm_mask; a tool should not).
    Decoded decode(std::uint64_t addr) const;
    // decode() without the quadrant, ECC bank and SoC address (left 0): where an access lands
    // and whether it is valid, for a per-record check (TraceChecker, the replay).
    Decoded locate(std::uint64_t addr) const {
        Decoded d;
        locate(addr, d);
        return d;
    }
    // The same, written field by field into `d` (whose other fields keep their values): a
    // caller that keeps the result reads it back field by field, where a copy of a returned
    // Decoded would read it back 16 bytes at a time, stalled on those narrow stores.
    void locate(std::uint64_t addr, Decoded& d) const {
        d.addr = addr;
        d.region = Region::none;
        d.status = DecodeStatus::off_chip;
        d.partition = 0;
        d.offset = 0;
        if (addr > isa_.addr_mask) {
            d.status = DecodeStatus::too_wide;
            return;
        }
        const auto a = static_cast<std::uint32_t>(addr);
        if (addr_in_sbuf(a)) {
            d.region = Region::sbuf;
            d.partition = get_sbuf_partition_id(a);
            d.offset = get_sbuf_byte_offset_in_partition(a);
            d.status = d.partition >= sbuf_.partitions ? DecodeStatus::partition_out_of_range
                       : sbuf_offset_in_pad(d.offset)  ? DecodeStatus::pad
                                                       : DecodeStatus::ok;
        } else if (addr_in_psum(a)) {
            d.region = Region::psum;
            d.partition = get_psum_partition_id(a);
            d.offset = get_psum_byte_offset_in_partition(a);
            d.status = d.partition >= psum_.partitions ? DecodeStatus::partition_out_of_range
                       : psum_offset_in_pad(d.offset)  ? DecodeStatus::pad
                                                       : DecodeStatus::ok;
        }
    }
    // Decode a (partition, byte offset) location of one array, as written `p=P,off=O`. Checks
    // what the forward maps do not: the partition count, the stride, and that PSUM exists.
    Decoded decode_location(Region region, std::uint32_t partition, std::uint64_t offset) const;

    // A human-readable reason for a non-ok decode, citing the seed, e.g.
    // "offset 0x39000 of SBUF partition 3 is in the decode pad: PARTITION_ACTIVE_SIZE is 0x38000 ...".
    std::string explain(const Decoded& d) const;

private:
    std::string generation_;
    SbufParams sbuf_;
    PsumParams psum_;
    IsaParams isa_;
    // Derived once (why: every decode/mask uses them; no divisions by parameter products later).
    std::uint64_t sbuf_end_ = 0;
    std::uint64_t psum_end_ = 0;
    std::uint64_t sbuf_quadrant_bytes_ = 0;
    std::uint64_t psum_quadrant_bytes_ = 0;
    std::uint32_t sbuf_partitions_per_cluster_ = 16;  // 128 / 8 clusters (seed 000 §3.1)
    std::uint32_t sbuf_partitions_per_half_ = 8;      // half = (partition / 8) % 2
    std::uint32_t psum_partitions_per_cluster_ = 32;  // PSUM cluster = PE column group = quadrant
};

// Helpers for printing addresses.
std::string hex(std::uint64_t v);

}  // namespace sbufsim
