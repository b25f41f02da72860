// sbuf_bank: one of the 16 SBUF ECC banks of a TPB (seed 000 §3): SBUF cluster c (partitions
// [16c, 16c+16), the 8 GpSimd cores' ranges) × half h, named as the SoC map names its ECC CSR
// block, SBUF_CLUSTER_{c}_{h}_ERG_CSR -> module "sbuf_cluster_<c>_<h>".
//
// The module is the SystemC shell; the storage (erg_parity_model CSRs, optional functional data,
// injected faults, counters) is an EccBankStore (backing_store.h). Which partition/offset lands in
// which bank is the AddressMap's business (address.h, half-select MED/INFERRED); a caller hands
// the bank only ranges that decode to it.
#pragma once

#include <cstdint>
#include <string>

#include "models/address/ecc_bank.h"

namespace sbufsim::models {

class SbufBank : public EccBank {
public:
    // "sbuf_cluster_3_1" for cluster 3, half 1.
    static std::string hw_name(std::uint32_t cluster, std::uint32_t half);

    SbufBank(const sc_core::sc_module_name& name, std::uint32_t cluster, std::uint32_t half,
             EccBankOptions options = {});

    std::uint32_t cluster() const { return cluster_; }
    std::uint32_t half() const { return half_; }
    // Bank index as the kernel and the AddressMap count it: cluster × 2 + half.
    std::uint32_t index() const { return cluster_ * 2 + half_; }

private:
    std::uint32_t cluster_;
    std::uint32_t half_;
};

}  // namespace sbufsim::models
