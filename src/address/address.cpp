#include "sbufsim/address/address.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace sbufsim {

std::string_view to_string(Region r) {
    switch (r) {
        case Region::sbuf: return "SBUF";
        case Region::psum: return "PSUM";
        case Region::none: break;
    }
    return "none";
}

std::string_view to_string(DecodeStatus s) {
    switch (s) {
        case DecodeStatus::ok: return "active";
        case DecodeStatus::pad: return "pad";
        case DecodeStatus::partition_out_of_range: return "partition out of range";
        case DecodeStatus::off_chip: return "off-chip";
        case DecodeStatus::too_wide: return "wider than 29 bits";
        case DecodeStatus::offset_beyond_stride: return "offset beyond partition stride";
        case DecodeStatus::no_psum: return "no PSUM on this generation";
    }
    return "?";
}

std::string hex(std::uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

namespace {

[[noreturn]] void bad_geometry(const std::string& what) {
    throw std::invalid_argument("address map: " + what);
}

// Bits [lo, hi] set; hi < 64.
constexpr std::uint64_t bit_range(std::uint32_t lo, std::uint32_t hi) {
    const std::uint64_t upto_hi = (hi >= 63) ? ~std::uint64_t{0} : ((std::uint64_t{1} << (hi + 1)) - 1);
    return upto_hi & ~((std::uint64_t{1} << lo) - 1);
}

}  // namespace

AddressMap::AddressMap(const Params& p)
    : generation_(p.generation), sbuf_(p.sbuf), psum_(p.psum), isa_(p.isa) {
    // Geometry sanity. The config loader rejects these with key names and file:line; this is
    // the last line of defence against a division by zero for hand-built Params.
    if (sbuf_.partition_stride == 0 || sbuf_.partitions == 0) bad_geometry("SBUF stride/partitions is 0");
    if (isa_.quadrant_partitions == 0) bad_geometry("isa.quadrant_partitions is 0");
    if (sbuf_.clusters == 0 || sbuf_.partitions % sbuf_.clusters != 0)
        bad_geometry("sbuf.partitions must be a multiple of sbuf.clusters");
    sbuf_partitions_per_cluster_ = sbuf_.partitions / sbuf_.clusters;
    // Two halves per cluster (seed 000 §3: 8 clusters × 2 halves = 16 ECC banks).
    if (sbuf_partitions_per_cluster_ % 2 != 0) bad_geometry("an SBUF cluster must hold an even number of partitions");
    if (sbuf_.clusters * 2 > kMaxSbufEccBanks)
        bad_geometry("more than " + std::to_string(kMaxSbufEccBanks) + " SBUF ECC banks do not fit the bank mask");
    sbuf_partitions_per_half_ = sbuf_partitions_per_cluster_ / 2;
    if (sbuf_.half_offset_bit >= 32) bad_geometry("sbuf.half_offset_bit must be < 32");

    sbuf_end_ = sbuf_.region_offset + sbuf_.region_size;
    psum_end_ = psum_.region_offset + psum_.region_size;
    sbuf_quadrant_bytes_ = sbuf_.partition_stride * isa_.quadrant_partitions;

    if (has_psum()) {
        if (psum_.partition_stride == 0 || psum_.bank_size == 0 || psum_.isa_bank_size == 0 || psum_.banks == 0)
            bad_geometry("PSUM stride/bank size/banks is 0");
        // PSUM cluster == PE column group == 32-partition quadrant (seed 000 §4.1).
        psum_partitions_per_cluster_ = isa_.quadrant_partitions;
        const std::uint32_t clusters =
            (psum_.partitions + psum_partitions_per_cluster_ - 1) / psum_partitions_per_cluster_;
        if (clusters * psum_.banks > kMaxPsumEccBanks)
            bad_geometry("more than " + std::to_string(kMaxPsumEccBanks) + " PSUM ECC banks do not fit the bank mask");
        psum_quadrant_bytes_ = psum_.partition_stride * isa_.quadrant_partitions;
    } else {
        psum_quadrant_bytes_ = 1;  // never used: addr_in_psum is always false
    }
}

// seed 000 §3.1 (MED/INFERRED): cluster c covers partitions [16c, 16c+16) — the 8 GpSimd cores'
// ranges; the half is a partition bit by default, a byte-offset bit when configured.
EccBank AddressMap::sbuf_ecc_bank(std::uint32_t partition, std::uint32_t byte_off) const {
    EccBank b;
    b.cluster = partition / sbuf_partitions_per_cluster_;
    b.half = sbuf_.half_select == HalfSelect::partition
                 ? (partition / sbuf_partitions_per_half_) % 2
                 : (byte_off >> sbuf_.half_offset_bit) & 1u;
    b.index = b.cluster * 2 + b.half;
    return b;
}

// seed 000 §4, §5.5: the in-partition offset picks the 2048-B HW bank; the cluster is the PE
// column group (32 partitions). sunda's ISA header counts 16 × 1024-B banks over the same
// 16 KiB, so the ISA bank is reported separately (seed 000 §4.2 GOTCHA).
EccBank AddressMap::psum_ecc_bank(std::uint32_t partition, std::uint32_t byte_off) const {
    EccBank b;
    b.cluster = partition / psum_partitions_per_cluster_;
    b.hw_bank = static_cast<std::uint32_t>(byte_off / psum_.bank_size);
    b.isa_bank = static_cast<std::uint32_t>(byte_off / psum_.isa_bank_size);
    b.index = b.cluster * psum_.banks + b.hw_bank;
    return b;
}

std::uint16_t AddressMap::sbuf_bank_mask(std::uint32_t first_partition, std::uint32_t partitions,
                                         std::uint32_t offset, std::uint32_t bytes) const {
    if (partitions == 0 || bytes == 0) return 0;
    const std::uint32_t last_partition = first_partition + partitions - 1;
    if (sbuf_.half_select == HalfSelect::partition) {
        // index = cluster*2 + (p/pph)%2 = p/pph since a cluster is exactly two halves:
        // a partition range maps to a contiguous bank range.
        return static_cast<std::uint16_t>(bit_range(first_partition / sbuf_partitions_per_half_,
                                                    last_partition / sbuf_partitions_per_half_));
    }
    // Offset-selected half: the clusters of the partition range, times the halves the byte
    // range touches. Consecutive 2^bit blocks alternate halves, so a range crossing a block
    // boundary touches both.
    const std::uint32_t c0 = first_partition / sbuf_partitions_per_cluster_;
    const std::uint32_t c1 = last_partition / sbuf_partitions_per_cluster_;
    const std::uint64_t first_block = std::uint64_t{offset} >> sbuf_.half_offset_bit;
    const std::uint64_t last_block = (std::uint64_t{offset} + bytes - 1) >> sbuf_.half_offset_bit;
    std::uint64_t halves = 0xffff;              // both halves of every cluster
    if (first_block == last_block) halves = (first_block & 1) ? 0xaaaa : 0x5555;
    return static_cast<std::uint16_t>(bit_range(2 * c0, 2 * c1 + 1) & halves);
}

std::uint32_t AddressMap::psum_bank_mask(std::uint32_t first_partition, std::uint32_t partitions,
                                         std::uint32_t offset, std::uint32_t bytes) const {
    if (partitions == 0 || bytes == 0 || !has_psum()) return 0;
    const std::uint32_t last_partition = first_partition + partitions - 1;
    const std::uint32_t c0 = first_partition / psum_partitions_per_cluster_;
    const std::uint32_t c1 = last_partition / psum_partitions_per_cluster_;
    // Clamp to the cluster's banks so an out-of-contract (pad) range never aliases into the
    // next cluster's bits.
    const std::uint32_t top = psum_.banks - 1;
    const auto b0 = static_cast<std::uint32_t>(std::min<std::uint64_t>(offset / psum_.bank_size, top));
    const auto b1 = static_cast<std::uint32_t>(
        std::min<std::uint64_t>((std::uint64_t{offset} + bytes - 1) / psum_.bank_size, top));
    const std::uint64_t banks_in_cluster = bit_range(b0, b1);
    std::uint64_t mask = 0;
    for (std::uint32_t c = c0; c <= c1; ++c) mask |= banks_in_cluster << (c * psum_.banks);  // <= 4 clusters
    return static_cast<std::uint32_t>(mask);
}

bool AddressMap::soc_to_partition_offset(std::uint64_t soc, std::uint32_t& addr) const {
    if (soc >= sbuf_.soc_base && soc < sbuf_.soc_base + sbuf_.region_size) {
        addr = static_cast<std::uint32_t>(sbuf_.region_offset + (soc - sbuf_.soc_base));
        return true;
    }
    if (has_psum() && soc >= psum_.soc_base && soc < psum_.soc_base + psum_.region_size) {
        addr = static_cast<std::uint32_t>(psum_.region_offset + (soc - psum_.soc_base));
        return true;
    }
    return false;
}

Decoded AddressMap::decode(std::uint64_t addr) const {
    // locate() finds the region, partition, offset and status; the rest follows from them.
    Decoded d = locate(addr);
    const auto a = static_cast<std::uint32_t>(addr);
    if (d.region == Region::sbuf) {
        d.quadrant = get_sbuf_quadrant_id(a);
        d.soc_addr = sbuf_soc_addr(a);
        if (d.valid()) d.bank = sbuf_ecc_bank(d.partition, d.offset);
    } else if (d.region == Region::psum) {
        d.quadrant = get_psum_quadrant_id(a);
        d.soc_addr = psum_soc_addr(a);
        if (d.valid()) d.bank = psum_ecc_bank(d.partition, d.offset);
    }
    return d;
}

Decoded AddressMap::decode_location(Region region, std::uint32_t partition, std::uint64_t offset) const {
    Decoded d;
    d.region = region;
    d.partition = partition;
    d.offset = static_cast<std::uint32_t>(std::min<std::uint64_t>(offset, 0xffffffffu));
    if (region == Region::none) return d;  // off_chip
    if (region == Region::psum && !has_psum()) {
        d.status = DecodeStatus::no_psum;
        return d;
    }
    const bool psum = region == Region::psum;
    const std::uint32_t count = psum ? psum_.partitions : sbuf_.partitions;
    const std::uint64_t stride = psum ? psum_.partition_stride : sbuf_.partition_stride;
    if (partition >= count) {
        d.status = DecodeStatus::partition_out_of_range;
        return d;
    }
    if (offset >= stride) {
        d.status = DecodeStatus::offset_beyond_stride;
        return d;
    }
    const std::uint32_t a = psum ? psum_addr(partition, d.offset) : sbuf_addr(partition, d.offset);
    return decode(a);
}

std::string AddressMap::partition_holds(Region r) const {
    const std::uint64_t active = r == Region::psum ? psum_.partition_active : sbuf_.partition_active;
    const std::string size = active % 1024 == 0
                                 ? std::to_string(active / 1024) + " KiB (" + hex(active) + " bytes)"
                                 : hex(active) + " bytes";
    return "on " + generation_ + " a" + (r == Region::psum ? " PSUM" : "n SBUF") + " partition holds " + size;
}

std::string AddressMap::explain(const Decoded& d) const {
    const std::string what = hex(d.addr);
    const std::string where = std::string(to_string(d.region)) + " partition " + std::to_string(d.partition);
    switch (d.status) {
        case DecodeStatus::ok:
            return "";
        case DecodeStatus::too_wide:
            return what + " does not fit the 29-bit on-chip address an instruction holds: " + generation_ +
                   " keeps only the bits of " + hex(isa_.addr_mask) +
                   " and would silently drop the rest (seed 000 §2)";
        case DecodeStatus::off_chip:
            if (!has_psum())
                return what + " is beyond SBUF [" + hex(sbuf_.region_offset) + ", " + hex(sbuf_end_) +
                       ") and " + generation_ + " has no PSUM; give an address inside SBUF (seed 000 §1)";
            return what + " is neither in SBUF [" + hex(sbuf_.region_offset) + ", " + hex(sbuf_end_) +
                   ") nor in PSUM [" + hex(psum_.region_offset) + ", " + hex(psum_end_) + ") on " +
                   generation_ + "; give an address inside one of them (seed 000 §2)";
        case DecodeStatus::no_psum:
            return generation_ + " has no PSUM; place the operand in SBUF [" + hex(sbuf_.region_offset) +
                   ", " + hex(sbuf_end_) + ") (seed 000 §1)";
        case DecodeStatus::partition_out_of_range: {
            const std::uint32_t count = d.region == Region::psum ? psum_.partitions : sbuf_.partitions;
            return where + " does not exist: " + generation_ + " has " + std::to_string(count) + " " +
                   std::string(to_string(d.region)) + " partitions; use partition 0.." +
                   std::to_string(count - 1) + " (seed 004)";
        }
        case DecodeStatus::offset_beyond_stride: {
            const bool psum = d.region == Region::psum;
            const std::uint64_t active = psum ? psum_.partition_active : sbuf_.partition_active;
            const std::uint64_t stride = psum ? psum_.partition_stride : sbuf_.partition_stride;
            return "offset " + hex(d.offset) + " is past the end of a " + std::string(to_string(d.region)) +
                   " partition, which spans " + hex(stride) + " bytes of addresses on " + generation_ +
                   ": it would land in the next partition; give an offset below " + hex(active) +
                   " (the partition's memory) (seed 000 §1-§2)";
        }
        case DecodeStatus::pad: {
            const bool psum = d.region == Region::psum;
            const std::uint64_t active = psum ? psum_.partition_active : sbuf_.partition_active;
            const std::uint64_t stride = psum ? psum_.partition_stride : sbuf_.partition_stride;
            return "offset " + hex(d.offset) + " of " + where +
                   " is past the partition's memory: " + partition_holds(d.region) + " of its " +
                   hex(stride) + "-byte address stride, the rest is unbacked; place the tile below offset " +
                   hex(active) + " (seed 000 §1" + (psum ? ", §4" : "") + ")";
        }
    }
    return "?";
}

}  // namespace sbufsim
