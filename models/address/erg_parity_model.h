// erg_parity_model: the 64-byte ECC/BIST register block every SBUF and PSUM ECC bank owns
// (csrs/erg/erg_parity_model.json, seed 000 §3.2 and §4).
//
// Fields the seed names (HIGH/OBSERVED): cfg.erg_type at bit 20 (parity vs ECC); mem_cfg with
// shutdown and the four margin pins test1a/test1b/testrnm/testrwm (and no rmea/rmeb/rma/rmb:
// seed 000 §3.2 CORRECTION). The seed gives neither the register offsets inside the block, nor
// the other bit positions, nor the reset values; what this model uses is INFERRED and listed in
// docs/models.md:
//   cfg     @0x00  erg_type[20]   1 = ECC, 0 = parity; reset 1 (the banks are "ECC banks")
//   mem_cfg @0x04  shutdown[0] test1a[1] test1b[2] testrnm[3] testrwm[4]; reset 0
// Any other offset inside the block, and any offset outside it, is rejected with a CsrError:
// a strict map catches a mistyped offset in a test or a sweep.
//
// Plain C++: the bank modules (sbuf_bank.h, psum_bank.h) own one of these.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/config/csr_block.h"

namespace sbufsim::models {

// Error-detection mode of one ECC bank (cfg.erg_type, seed 000 §3.2).
enum class ErgType : std::uint8_t { parity = 0, ecc = 1 };
const char* to_string(ErgType t);

class ErgParityModel : public CsrBlock {
public:
    static constexpr std::uint32_t kSizeBytes = 0x40;  // SizeInBytes = 0x40 (seed 000 §3.2)
    static constexpr std::uint32_t kCfg = 0x00;        // INFERRED offset
    static constexpr std::uint32_t kMemCfg = 0x04;     // INFERRED offset
    static constexpr unsigned kErgTypeBit = 20;        // seed 000 §3.2: erg_type is bit 20 of cfg
    // mem_cfg bit positions (INFERRED: the seed names the fields only).
    static constexpr unsigned kShutdownBit = 0, kTest1aBit = 1, kTest1bBit = 2, kTestrnmBit = 3,
                              kTestrwmBit = 4;
    static constexpr std::uint32_t kCfgReset = 1u << kErgTypeBit;  // ECC (INFERRED)
    static constexpr std::uint32_t kMemCfgReset = 0;

    // `name` is the bank's hardware name, used in error messages (e.g. "sbuf_cluster_3_1").
    explicit ErgParityModel(std::string name = "erg_parity_model") : name_(std::move(name)) {}

    void reset() {
        cfg_ = kCfgReset;
        mem_cfg_ = kMemCfgReset;
    }
    // 32-bit register access by byte offset inside the 0x40 block. Reserved bits read as 0.
    std::uint32_t read(std::uint32_t offset) const;
    void write(std::uint32_t offset, std::uint32_t value);

    ErgType erg_type() const { return csr::get(cfg_, kErgTypeBit, 1) ? ErgType::ecc : ErgType::parity; }
    void set_erg_type(ErgType t) { cfg_ = csr::set(cfg_, kErgTypeBit, 1, t == ErgType::ecc ? 1 : 0); }
    // A bank in shutdown refuses accesses (INFERRED; its content is kept).
    bool shutdown() const { return csr::get(mem_cfg_, kShutdownBit, 1) != 0; }
    bool test1a() const { return csr::get(mem_cfg_, kTest1aBit, 1) != 0; }
    bool test1b() const { return csr::get(mem_cfg_, kTest1bBit, 1) != 0; }
    bool testrnm() const { return csr::get(mem_cfg_, kTestrnmBit, 1) != 0; }
    bool testrwm() const { return csr::get(mem_cfg_, kTestrwmBit, 1) != 0; }
    const std::string& name() const { return name_; }

    // CsrBlock: the register view (both registers read-write).
    std::string csr_block_name() const override { return name_ + ".erg_parity_model"; }
    std::vector<CsrRegisterView> csr_registers() const override;
    std::uint32_t csr_read(std::uint32_t offset) const override { return read(offset); }
    void csr_write(std::uint32_t offset, std::uint32_t value) override { write(offset, value); }

private:
    static constexpr std::uint32_t kCfgMask = 1u << kErgTypeBit;
    static constexpr std::uint32_t kMemCfgMask = 0x1f;

    std::string name_;
    std::uint32_t cfg_ = kCfgReset;
    std::uint32_t mem_cfg_ = kMemCfgReset;
};

}  // namespace sbufsim::models
