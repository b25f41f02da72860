#include "models/engines/axi_master.h"

#include <algorithm>
#include <cstring>

namespace sbufsim::models {

namespace {

// The element type the crossbar turns, by size (the rule of seed 000 §6.2 depends on it only).
Dtype xpose_dtype(std::uint32_t elem_bytes) {
    switch (elem_bytes) {
        case 1:
            return Dtype::uint8;
        case 2:
            return Dtype::bf16;
        case 8:
            return Dtype::uint64;
        default:
            return Dtype::fp32;
    }
}

}  // namespace

AxiMaster::AxiMaster(const sc_core::sc_module_name& name, const Params& p)
    : sc_core::sc_module(name), map_(p), soc_base_(p.sbuf.soc_base), region_offset_(p.sbuf.region_offset) {
    ext_.kernel_timed = true;
}

bool AxiMaster::transport(tlm::tlm_command cmd, std::uint32_t addr, std::uint8_t* data, std::uint32_t len,
                          const AxiTransfer& t, Axi2SramExtension* mode) {
    tlm::tlm_generic_payload& pl = payload_;
    pl.set_command(cmd);
    pl.set_address(soc_base_ + (addr - region_offset_));  // TPB_0_STATE_BUF (seed 002 §1)
    pl.set_data_ptr(data);
    pl.set_data_length(len);
    pl.set_streaming_width(len);
    pl.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    Axi2SramExtension* ext = mode ? mode : &ext_;
    ext->kernel_timed = true;
    ext->granted_cycle = t.granted;
    pl.set_extension(ext);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    socket->b_transport(pl, delay);
    pl.clear_extension(ext);
    ++counters_.transactions;
    if (pl.is_response_ok()) {
        (cmd == tlm::TLM_READ_COMMAND ? counters_.bytes_read : counters_.bytes_written) += len;
        return true;
    }
    ++counters_.errors;
    if (first_error_.empty())
        first_error_ = "trace line " + std::to_string(t.line) + ": " + pl.get_response_string() + ": " +
                       ext->report.reason;
    return false;
}

void AxiMaster::moved(const AxiTransfer& t) {
    ++counters_.instructions;
    counters_.last_granted = t.granted;
    if (t.transpose && t.wr.present())
        transpose(t);
    else
        copy(t);
}

// Partition i of the read side goes to partition i of the write side; an absent side is HBM.
void AxiMaster::copy(const AxiTransfer& t) {
    const TensorAccess& side = t.wr.present() ? t.wr : t.rd;
    const std::uint32_t len = side.bytes;
    buf_.resize(len);
    for (std::uint32_t i = 0; i < side.parts; ++i) {
        bool ok = true;
        if (t.rd.present()) {
            ok = transport(tlm::TLM_READ_COMMAND, map_.sbuf_addr(t.rd.first + i, t.rd.offset), buf_.data(),
                           std::min(len, t.rd.bytes), t);
        } else {
            for (std::uint32_t k = 0; k < len; ++k) buf_[k] = hbm_byte(t.line, side.first + i, k);
        }
        if (ok && t.wr.present())
            transport(tlm::TLM_WRITE_COMMAND, map_.sbuf_addr(t.wr.first + i, t.wr.offset), buf_.data(), len,
                      t);
    }
}

// The share's columns [first_col, first_col + wr.parts) of the src_rows-row source tile, row-major,
// written once in the crossbar's transpose mode at its first destination partition.
void AxiMaster::transpose(const AxiTransfer& t) {
    // One crossbar write per 16-row tile of the source rows (seed 000 §6.2: tile_src_rows == 16);
    // tile j lands at element 16 j of every destination partition.
    const std::uint32_t esz = std::max<std::uint32_t>(1, t.wr.elem_bytes);
    const std::uint32_t cols = t.wr.parts, row_bytes = cols * esz;
    const std::uint32_t tile_rows = std::max<std::uint32_t>(1, std::min<std::uint32_t>(t.src_rows, map_.isa().xpose_tile_rows));
    tile_.resize(std::size_t{tile_rows} * row_bytes);
    for (std::uint32_t first = 0; first < t.src_rows; first += tile_rows) {
        for (std::uint32_t r = 0; r < tile_rows; ++r) {
            std::uint8_t* row = tile_.data() + std::size_t{r} * row_bytes;
            const std::uint32_t src_row = first + r;
            if (t.rd.present()) {
                if (!transport(tlm::TLM_READ_COMMAND,
                               map_.sbuf_addr(t.rd.first + src_row, t.rd.offset + t.first_col * esz), row, row_bytes, t))
                    return;
            } else {
                for (std::uint32_t k = 0; k < row_bytes; ++k) row[k] = hbm_byte(t.line, src_row, t.first_col * esz + k);
            }
        }
        Axi2SramExtension x;
        x.mode = Axi2SramMode::transpose;
        x.dtype = xpose_dtype(esz);
        x.tile_rows = tile_rows;
        x.tile_cols = cols;
        if (!transport(tlm::TLM_WRITE_COMMAND, map_.sbuf_addr(t.wr.first, t.wr.offset + first * esz), tile_.data(),
                       static_cast<std::uint32_t>(tile_.size()), t, &x))
            return;
    }
}

}  // namespace sbufsim::models
