#include "models/address/sbuf_bank.h"

namespace sbufsim::models {

std::string SbufBank::hw_name(std::uint32_t cluster, std::uint32_t half) {
    return "sbuf_cluster_" + std::to_string(cluster) + "_" + std::to_string(half);
}

SbufBank::SbufBank(const sc_core::sc_module_name& name, std::uint32_t cluster, std::uint32_t half,
                   EccBankOptions options)
    : EccBank(name, hw_name(cluster, half), options), cluster_(cluster), half_(half) {}

}  // namespace sbufsim::models
