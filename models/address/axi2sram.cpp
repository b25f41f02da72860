#include "models/address/axi2sram.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

namespace sbufsim::models {

const char* to_string(Axi2SramMode m) {
    switch (m) {
        case Axi2SramMode::plain: return "plain";
        case Axi2SramMode::transpose: return "transpose";
        case Axi2SramMode::read_add_write: return "read_add_write";
    }
    return "?";
}

namespace {

// ---- read-add-write arithmetic (seed 000 §6.1 raw_en / raw_conv) ---------------------------------

struct FloatFormat {
    std::uint32_t exp_mask, mant_mask, sign_mask, max_finite;
};
constexpr FloatFormat kFp32{0x7f800000u, 0x007fffffu, 0x80000000u, 0x7f7fffffu};
constexpr FloatFormat kBf16{0x7f80u, 0x007fu, 0x8000u, 0x7f7fu};

// raw_conv: sns turns a NaN result, sis an infinite result, into the largest finite value with
// the result's sign (INFERRED reading of "non-FP8 NaN/Inf saturate").
std::uint32_t saturate(std::uint32_t bits, const FloatFormat& f, const Axi2SramParams& c) {
    if ((bits & f.exp_mask) != f.exp_mask) return bits;  // finite
    const bool nan = (bits & f.mant_mask) != 0;
    if ((nan && c.sns) || (!nan && c.sis)) return (bits & f.sign_mask) | f.max_finite;
    return bits;
}

float bf16_to_float(std::uint16_t b) { return std::bit_cast<float>(std::uint32_t{b} << 16); }

// Round to nearest even; a NaN stays a (quiet) NaN.
std::uint16_t float_to_bf16(float f) {
    const auto u = std::bit_cast<std::uint32_t>(f);
    if ((u & kFp32.exp_mask) == kFp32.exp_mask && (u & kFp32.mant_mask) != 0)
        return static_cast<std::uint16_t>((u >> 16) | 0x40);
    const std::uint32_t bias = 0x7fff + ((u >> 16) & 1);
    return static_cast<std::uint16_t>((u + bias) >> 16);
}

// stored += incoming, element-wise, for `n` elements of `dtype` (fp32 or bf16).
void add_elements(Dtype dtype, std::uint8_t* stored, const std::uint8_t* incoming, std::size_t n,
                  const Axi2SramParams& c) {
    for (std::size_t i = 0; i < n; ++i) {
        if (dtype == Dtype::fp32) {
            float a, b;
            std::memcpy(&a, stored + 4 * i, 4);
            std::memcpy(&b, incoming + 4 * i, 4);
            const std::uint32_t r = saturate(std::bit_cast<std::uint32_t>(a + b), kFp32, c);
            std::memcpy(stored + 4 * i, &r, 4);
        } else {
            std::uint16_t a, b;
            std::memcpy(&a, stored + 2 * i, 2);
            std::memcpy(&b, incoming + 2 * i, 2);
            const auto r = static_cast<std::uint16_t>(
                saturate(float_to_bf16(bf16_to_float(a) + bf16_to_float(b)), kBf16, c));
            std::memcpy(stored + 2 * i, &r, 2);
        }
    }
}

std::uint64_t checked_end(std::uint64_t base, std::uint64_t size) { return base + size; }

}  // namespace

// ---- construction ---------------------------------------------------------------------------------

Axi2Sram::Axi2Sram(const sc_core::sc_module_name& name, const Params& p, std::vector<SbufBank*> banks,
                   Axi2SramOptions options)
    : sc_core::sc_module(name),
      socket("socket"),
      map_(p),
      isa_(p.isa),
      soc_base_(p.sbuf.soc_base),
      soc_end_(checked_end(p.sbuf.soc_base, p.sbuf.region_size)),
      psum_soc_base_(p.psum.soc_base),
      psum_soc_end_(p.has_psum() ? checked_end(p.psum.soc_base, p.psum.region_size) : p.psum.soc_base),
      banks_(std::move(banks)),
      cfg_(p.axi2sram),
      accept_partition_offset_(options.accept_partition_offset),
      beat_bytes_(options.beat_bytes ? options.beat_bytes : p.q7.bus_bytes),
      cycle_(sc_core::sc_time(options.cycle_ns > 0 ? options.cycle_ns : 1.0 / p.pe.clock_ghz, sc_core::SC_NS)) {
    if (banks_.size() != std::size_t{p.sbuf.clusters} * 2)
        throw std::invalid_argument("axi2sram: got " + std::to_string(banks_.size()) + " SBUF banks, the geometry has " +
                                    std::to_string(p.sbuf.clusters * 2) + " (8 clusters x 2 halves, seed 000 §3)");
    for (std::size_t i = 0; i < banks_.size(); ++i)
        if (banks_[i] == nullptr || banks_[i]->index() != i)
            throw std::invalid_argument("axi2sram: SBUF bank slot " + std::to_string(i) + " does not hold bank " +
                                        std::to_string(i));
    if (beat_bytes_ == 0) throw std::invalid_argument("axi2sram: beat_bytes is 0");
    socket.register_b_transport(this, &Axi2Sram::b_transport);
    socket.register_get_direct_mem_ptr(this, &Axi2Sram::get_direct_mem_ptr);
}

bool Axi2Sram::get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
    // DMI would bypass the ECC banks, the transpose crossbar and the counters.
    dmi.allow_read_write();
    dmi.set_start_address(0);
    dmi.set_end_address(0);
    return false;
}

// ---- b_transport ----------------------------------------------------------------------------------

void Axi2Sram::b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
    auto* ext = t.get_extension<Axi2SramExtension>();
    report_ = {};
    serve(t, ext);
    if (ext && ext->kernel_timed) report_.delay = sc_core::SC_ZERO_TIME;
    t.set_dmi_allowed(false);
    t.set_response_status(report_.status);
    delay += report_.delay;
    if (ext) ext->report = report_;
}

void Axi2Sram::fail(tlm::tlm_response_status s, std::string why) {
    report_.status = s;
    report_.reason = std::move(why);
    report_.delay = sc_core::SC_ZERO_TIME;
    if (s == tlm::TLM_ADDRESS_ERROR_RESPONSE) ++counters_.address_errors;
    else ++counters_.other_errors;
}

void Axi2Sram::serve(tlm::tlm_generic_payload& t, const Axi2SramExtension* ext) {
    if (t.get_command() == tlm::TLM_IGNORE_COMMAND) {
        report_.status = tlm::TLM_OK_RESPONSE;
        return;
    }
    if (t.get_byte_enable_ptr() != nullptr)
        return fail(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE, "axi2sram: byte enables are not modelled");
    if (t.get_streaming_width() < t.get_data_length())
        return fail(tlm::TLM_BURST_ERROR_RESPONSE, "axi2sram: streaming (fixed-address) bursts are not modelled");
    if (t.get_data_length() == 0) return fail(tlm::TLM_GENERIC_ERROR_RESPONSE, "axi2sram: zero-length transaction");

    std::uint32_t addr = 0;
    if (!resolve(t.get_address(), t.get_data_length(), addr)) return;

    const Axi2SramMode mode = ext ? ext->mode : Axi2SramMode::plain;
    if (mode != Axi2SramMode::plain && t.get_command() != tlm::TLM_WRITE_COMMAND)
        return fail(tlm::TLM_COMMAND_ERROR_RESPONSE, std::string("axi2sram: ") + to_string(mode) +
                                                         " is a write-side mode; a read cannot use it (seed 000 §6)");
    switch (mode) {
        case Axi2SramMode::plain: return plain(t, addr);
        case Axi2SramMode::transpose: return transpose(t, addr, *ext);
        case Axi2SramMode::read_add_write: return read_add_write(t, addr, *ext);
    }
}

// SoC (or, by option, 29-bit) address -> 29-bit SBUF PartitionOffset. PSUM is refused here.
bool Axi2Sram::resolve(std::uint64_t a, std::uint64_t len, std::uint32_t& addr) {
    if (a >= soc_base_ && a < soc_end_) {
        if (a + len > soc_end_) {
            fail(tlm::TLM_ADDRESS_ERROR_RESPONSE, "axi2sram: burst " + hex(a) + " + " + std::to_string(len) +
                                                      " runs past the end of TPB_0_STATE_BUF at " + hex(soc_end_) +
                                                      " (seed 002 §1)");
            return false;
        }
        addr = static_cast<std::uint32_t>(map_.sbuf().region_offset + (a - soc_base_));
        return true;
    }
    const bool psum_soc = a >= psum_soc_base_ && a < psum_soc_end_;
    const bool psum_29 = accept_partition_offset_ && a <= isa_.addr_mask && map_.addr_in_psum(static_cast<std::uint32_t>(a));
    if (psum_soc || psum_29) {
        fail(tlm::TLM_ADDRESS_ERROR_RESPONSE,
             "axi2sram: " + hex(a) + " is in PSUM (TPB_0_PSUM_BUF at SoC " + hex(psum_soc_base_) +
                 "): PSUM has no AXI aperture and no axi2sram-equivalent bridge, so an AXI master (DMA, Q7/GpSimd) "
                 "cannot reach it (seed 000 §7.4, seed 002 §3)");
        return false;
    }
    if (accept_partition_offset_ && a <= isa_.addr_mask && map_.addr_in_sbuf(static_cast<std::uint32_t>(a))) {
        addr = static_cast<std::uint32_t>(a);
        return true;
    }
    fail(tlm::TLM_ADDRESS_ERROR_RESPONSE, "axi2sram: " + hex(a) + " is outside the SBUF aperture TPB_0_STATE_BUF [" +
                                              hex(soc_base_) + ", " + hex(soc_end_) + ") (seed 002 §1)" +
                                              (accept_partition_offset_ ? " and outside SBUF's 29-bit range" : ""));
    return false;
}

// Splits [addr, addr + len) into per-bank pieces inside active SRAM; payload position starts at pos.
bool Axi2Sram::plan(std::uint32_t addr, std::uint32_t len, std::uint32_t pos, std::vector<Segment>& out) {
    const SbufParams& s = map_.sbuf();
    std::uint32_t done = 0;
    while (done < len) {
        const std::uint64_t cur = std::uint64_t{addr} + done;
        const Decoded d = map_.decode(cur);
        if (d.region != Region::sbuf || !d.valid()) {
            const std::string why = d.region == Region::psum
                                        ? "the burst runs out of SBUF into PSUM at " + hex(cur) + " (seed 000 §7.4)"
                                        : map_.explain(d);
            fail(tlm::TLM_ADDRESS_ERROR_RESPONSE, "axi2sram: " + why);
            return false;
        }
        std::uint64_t seg = std::min<std::uint64_t>(len - done, s.partition_active - d.offset);
        if (s.half_select == HalfSelect::offset) {  // the half changes at every 2^bit block
            const std::uint64_t block = std::uint64_t{1} << s.half_offset_bit;
            seg = std::min<std::uint64_t>(seg, block - d.offset % block);
        }
        out.push_back({static_cast<std::uint32_t>(cur), pos + done, static_cast<std::uint32_t>(seg), d.bank.index});
        report_.banks |= 1u << d.bank.index;
        done += static_cast<std::uint32_t>(seg);
    }
    return true;
}

bool Axi2Sram::banks_up(const std::vector<Segment>& segs) {
    for (const Segment& g : segs) {
        if (banks_[g.bank]->erg().shutdown()) {
            fail(tlm::TLM_GENERIC_ERROR_RESPONSE, "axi2sram: ECC bank " + banks_[g.bank]->erg().name() +
                                                      " is shut down (erg_parity_model mem_cfg.shutdown, seed 000 §3.2)");
            return false;
        }
    }
    return true;
}

void Axi2Sram::read_segments(const std::vector<Segment>& segs, std::uint8_t* data) {
    for (const Segment& g : segs) {
        const BankAccess r = banks_[g.bank]->read(g.addr, {data + g.pos, g.len});
        report_.corrected += r.corrected;
        report_.detected += r.detected;
    }
}

void Axi2Sram::write_segments(const std::vector<Segment>& segs, const std::uint8_t* data) {
    for (const Segment& g : segs) banks_[g.bank]->write(g.addr, {data + g.pos, g.len});
}

// A read whose data a check flagged answers SLVERR; the other outcomes answer OKAY.
static tlm::tlm_response_status data_status(const Axi2SramReport& r) {
    return r.detected ? tlm::TLM_GENERIC_ERROR_RESPONSE : tlm::TLM_OK_RESPONSE;
}

void Axi2Sram::plain(tlm::tlm_generic_payload& t, std::uint32_t addr) {
    std::vector<Segment> segs;
    const std::uint32_t len = t.get_data_length();
    if (!plan(addr, len, 0, segs) || !banks_up(segs)) return;
    const bool is_read = t.get_command() == tlm::TLM_READ_COMMAND;
    if (is_read) read_segments(segs, t.get_data_ptr());
    else write_segments(segs, t.get_data_ptr());
    report_.beats = beats_for(len);
    report_.delay = cycle_ * report_.beats;
    report_.status = data_status(report_);
    if (report_.detected)
        report_.reason = "axi2sram: " + std::to_string(report_.detected) +
                         " word(s) of the read failed the ECC/parity check (erg_type, seed 000 §3.2)";
    ++(is_read ? counters_.reads : counters_.writes);
    counters_.bytes += len;
}

void Axi2Sram::transpose(tlm::tlm_generic_payload& t, std::uint32_t addr, const Axi2SramExtension& ext) {
    if (!cfg_.transpose_en)
        return fail(tlm::TLM_GENERIC_ERROR_RESPONSE, "axi2sram: transpose requested but axi2sram_transpose_en."
                                                     "transpose_en is 0 (axi2sram_config @0x400, seed 000 §6.1)");
    const Verdict v = dma_direct2d_xpose_valid(isa_, ext.tile_rows, ext.tile_cols, ext.dtype, addr);
    if (!v) return fail(tlm::TLM_GENERIC_ERROR_RESPONSE, "axi2sram: " + v.reason);
    const std::uint32_t esize = dtype_size(ext.dtype);
    const std::uint32_t column_bytes = ext.tile_rows * esize;  // one destination partition's share
    const std::uint64_t tile_bytes = std::uint64_t{column_bytes} * ext.tile_cols;
    if (t.get_data_length() != tile_bytes)
        return fail(tlm::TLM_GENERIC_ERROR_RESPONSE,
                    "axi2sram: a " + std::to_string(ext.tile_rows) + "x" + std::to_string(ext.tile_cols) + " " +
                        std::string(to_string(ext.dtype)) + " transpose tile is " + std::to_string(tile_bytes) +
                        " bytes, the payload has " + std::to_string(t.get_data_length()));

    const std::uint32_t p0 = map_.get_sbuf_partition_id(addr);
    const std::uint32_t off = map_.get_sbuf_byte_offset_in_partition(addr);
    if (p0 + ext.tile_cols > map_.sbuf().partitions)
        return fail(tlm::TLM_ADDRESS_ERROR_RESPONSE,
                    "axi2sram: a transpose of " + std::to_string(ext.tile_cols) + " columns from partition " +
                        std::to_string(p0) + " needs partitions up to " + std::to_string(p0 + ext.tile_cols - 1) +
                        "; there are " + std::to_string(map_.sbuf().partitions) + " (seed 000 §6.2)");
    // Column c of the source tile becomes partition p0 + c; the staging buffer holds the
    // destination bytes in that order so each column is one contiguous write.
    std::vector<std::uint8_t> staged(tile_bytes);
    const std::uint8_t* src = t.get_data_ptr();
    for (std::uint32_t c = 0; c < ext.tile_cols; ++c)
        for (std::uint32_t r = 0; r < ext.tile_rows; ++r)
            std::memcpy(&staged[std::size_t{c} * column_bytes + std::size_t{r} * esize],
                        src + (std::size_t{r} * ext.tile_cols + c) * esize, esize);
    std::vector<Segment> segs;
    for (std::uint32_t c = 0; c < ext.tile_cols; ++c)
        if (!plan(map_.sbuf_addr(p0 + c, off), column_bytes, c * column_bytes, segs)) return;
    if (!banks_up(segs)) return;
    write_segments(segs, staged.data());
    report_.beats = ext.tile_cols * beats_for(column_bytes);
    report_.delay = cycle_ * report_.beats;
    report_.status = tlm::TLM_OK_RESPONSE;
    ++counters_.transposes;
    counters_.bytes += tile_bytes;
}

void Axi2Sram::read_add_write(tlm::tlm_generic_payload& t, std::uint32_t addr, const Axi2SramExtension& ext) {
    if (!cfg_.raw_en)
        return fail(tlm::TLM_GENERIC_ERROR_RESPONSE, "axi2sram: read-add-write requested but raw_config.raw_en is 0 "
                                                     "(axi2sram_config @0x404, seed 000 §6.1)");
    if (ext.dtype != Dtype::fp32 && ext.dtype != Dtype::bf16)
        return fail(tlm::TLM_GENERIC_ERROR_RESPONSE, "axi2sram: read-add-write of " +
                                                         std::string(to_string(ext.dtype)) +
                                                         " is not modelled (fp32 and bf16 are)");
    const std::uint32_t esize = dtype_size(ext.dtype);
    const std::uint32_t len = t.get_data_length();
    if (addr % esize != 0 || len % esize != 0)
        return fail(tlm::TLM_GENERIC_ERROR_RESPONSE, "axi2sram: read-add-write of " +
                                                         std::string(to_string(ext.dtype)) + " at " + hex(addr) +
                                                         " length " + std::to_string(len) +
                                                         " is not a whole number of aligned elements");
    std::vector<Segment> segs;
    if (!plan(addr, len, 0, segs) || !banks_up(segs)) return;
    std::vector<std::uint8_t> stored(len);
    read_segments(segs, stored.data());
    add_elements(ext.dtype, stored.data(), t.get_data_ptr(), len / esize, cfg_);
    write_segments(segs, stored.data());
    report_.beats = 2 * beats_for(len);
    report_.delay = cycle_ * report_.beats;
    report_.status = data_status(report_);
    if (report_.detected)
        report_.reason = "axi2sram: read-add-write added to " + std::to_string(report_.detected) +
                         " word(s) that failed the ECC/parity check (erg_type, seed 000 §3.2)";
    ++counters_.read_add_writes;
    counters_.bytes += len;
}

}  // namespace sbufsim::models
