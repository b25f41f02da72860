// psum_bank: one of the PSUM ECC banks of a TPB (seed 000 §4): PSUM cluster c (= PE column group
// c, 32 partitions, §4.1) × HW bank b (the 2048-B matmul bank of §5.5), named as the SoC map names
// its ECC CSR block, PSUM_CLUSTER{c}_ERG_CSR_{b} -> module "psum_cluster<c>_bank<b>". 32 banks
// (4 × 8) on sunda/cayman/mariana, none on maverick (PSUM_BUF_SZ = 0, §1).
//
// Same storage as an SBUF bank (backing_store.h). PSUM has no AXI path (§7.4): only the engine
// front-ends reach these banks, by direct calls.
#pragma once

#include <cstdint>
#include <string>

#include "models/address/ecc_bank.h"

namespace sbufsim::models {

class PsumBank : public EccBank {
public:
    // "psum_cluster2_bank5" for cluster 2, bank 5.
    static std::string hw_name(std::uint32_t cluster, std::uint32_t bank);

    // `banks_per_cluster` (psum.banks: 8, gen1 4) makes index() match the AddressMap.
    PsumBank(const sc_core::sc_module_name& name, std::uint32_t cluster, std::uint32_t bank,
             std::uint32_t banks_per_cluster, EccBankOptions options = {});

    std::uint32_t cluster() const { return cluster_; }
    std::uint32_t bank() const { return bank_; }
    // Bank index as the kernel and the AddressMap count it: cluster × banks + bank.
    std::uint32_t index() const { return cluster_ * banks_per_cluster_ + bank_; }

private:
    std::uint32_t cluster_;
    std::uint32_t bank_;
    std::uint32_t banks_per_cluster_;
};

}  // namespace sbufsim::models
