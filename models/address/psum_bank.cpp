#include "models/address/psum_bank.h"

namespace sbufsim::models {

std::string PsumBank::hw_name(std::uint32_t cluster, std::uint32_t bank) {
    return "psum_cluster" + std::to_string(cluster) + "_bank" + std::to_string(bank);
}

PsumBank::PsumBank(const sc_core::sc_module_name& name, std::uint32_t cluster, std::uint32_t bank,
                   std::uint32_t banks_per_cluster, EccBankOptions options)
    : EccBank(name, hw_name(cluster, bank), options), cluster_(cluster), bank_(bank), banks_per_cluster_(banks_per_cluster) {}

}  // namespace sbufsim::models
