// csr_block: CsrError, and what the tpb's CSR socket (tpb.h) and the hierarchy listing (hierarchy.h) know of a
// host-visible register block: its registers by byte offset, each with its name, current value
// and whether the host may write it. The blocks (sbuf_cluster_csr, tdm, throttler, arr_seq,
// erg_parity_model) keep their own field layouts; this is only the common view, with the
// register-field helpers (csr::get / csr::set) and the offset checks every block shares.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <stdexcept>

namespace sbufsim::models {

// A register access the block cannot take: the message names the block, the offset and the rule.
class CsrError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A write to a register the host may only read (a performance counter).
class CsrReadOnlyError : public CsrError {
public:
    using CsrError::CsrError;
};

// A write the register takes but whose result the kernel cannot run (tdm_dma_slots >
// tdm_max_slots, a DWRR weight of 0): refused, the register keeps its value (tpb.h).
class CsrStateError : public CsrError {
public:
    using CsrError::CsrError;
};

struct CsrRegisterView {
    std::string name;      // as the CSR JSON names it, e.g. "tdm_cfg"
    std::uint32_t offset;  // byte offset inside the block
    std::uint32_t value;
    bool read_only = false;
};

class CsrBlock {
public:
    virtual ~CsrBlock() = default;
    // The block's name in the CSR JSON set, e.g. "tpb_sbuf_pool_act.act_throttler".
    virtual std::string csr_block_name() const = 0;
    virtual std::vector<CsrRegisterView> csr_registers() const = 0;
    // 32-bit register access by byte offset. Throw CsrError for an offset with no register,
    // CsrReadOnlyError for a write the register does not take.
    virtual std::uint32_t csr_read(std::uint32_t offset) const = 0;
    virtual void csr_write(std::uint32_t offset, std::uint32_t value) = 0;
};

// An sc_module that owns register blocks (listed under it by `--hierarchy`).
class CsrOwner {
public:
    virtual ~CsrOwner() = default;
    virtual std::vector<const CsrBlock*> csr_blocks() const = 0;
};

namespace csr {

// The value of bits [lsb, lsb + width) of `reg`.
constexpr std::uint32_t get(std::uint32_t reg, unsigned lsb, unsigned width) {
    const std::uint32_t mask = width >= 32 ? ~0u : ((1u << width) - 1u);
    return (reg >> lsb) & mask;
}
// `reg` with bits [lsb, lsb + width) replaced by the low `width` bits of `value`.
constexpr std::uint32_t set(std::uint32_t reg, unsigned lsb, unsigned width, std::uint32_t value) {
    const std::uint32_t mask = (width >= 32 ? ~0u : ((1u << width) - 1u)) << lsb;
    return (reg & ~mask) | ((value << lsb) & mask);
}
// Throws CsrError unless `offset` is a 4-byte aligned offset below `size`.
void check_offset(const std::string& block, std::uint32_t size, std::uint32_t offset);
// "no register at offset 0x8 of <block> (registers: ...)".
[[noreturn]] void no_register(const std::string& block, std::uint32_t offset, const char* known);
std::string hex32(std::uint32_t v);

}  // namespace csr

}  // namespace sbufsim::models
