#include "models/address/erg_parity_model.h"

namespace sbufsim::models {

const char* to_string(ErgType t) { return t == ErgType::ecc ? "ecc" : "parity"; }

namespace {
constexpr const char* kErgRegisters = "cfg @0x0, mem_cfg @0x4";
}

std::uint32_t ErgParityModel::read(std::uint32_t offset) const {
    csr::check_offset(name_ + " erg_parity_model", kSizeBytes, offset);
    switch (offset) {
        case kCfg:
            return cfg_;
        case kMemCfg:
            return mem_cfg_;
        default:
            csr::no_register(name_ + " erg_parity_model", offset, kErgRegisters);
    }
}

void ErgParityModel::write(std::uint32_t offset, std::uint32_t value) {
    csr::check_offset(name_ + " erg_parity_model", kSizeBytes, offset);
    switch (offset) {
        case kCfg:
            cfg_ = value & kCfgMask;
            return;
        case kMemCfg:
            mem_cfg_ = value & kMemCfgMask;
            return;
        default:
            csr::no_register(name_ + " erg_parity_model", offset, kErgRegisters);
    }
}

std::vector<CsrRegisterView> ErgParityModel::csr_registers() const {
    return {{"cfg", kCfg, cfg_}, {"mem_cfg", kMemCfg, mem_cfg_}};
}

}  // namespace sbufsim::models
