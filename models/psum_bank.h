// psum_bank: one of the PSUM ECC banks of a TPB (seed 000 §4): PSUM cluster c (= PE column group
// c, 32 partitions, §4.1) × HW bank b (the 2048-B matmul bank of §5.5), named as the SoC map names
// its ECC CSR block, PSUM_CLUSTER{c}_ERG_CSR_{b} -> module "psum_cluster<c>_bank<b>". 32 banks
// (4 × 8) on sunda/cayman/mariana, none on maverick (PSUM_BUF_SZ = 0, §1).
//
// Same storage as an SBUF bank (backing_store.h). PSUM has no AXI path (§7.4): only the engine
// front-ends reach these banks, by direct calls.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <systemc>

#include "backing_store.h"
#include "sbuf_bank.h"  // EccBankOptions

namespace sbufsim::models {

class PsumBank : public sc_core::sc_module {
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

    // Data path; `addr` is the 29-bit PartitionOffset (PSUM region) of the first byte.
    BankAccess read(std::uint32_t addr, std::span<std::uint8_t> out) { return store_.read(addr, out); }
    BankAccess write(std::uint32_t addr, std::span<const std::uint8_t> in) { return store_.write(addr, in); }
    void inject_bit_flip(std::uint32_t addr, unsigned bit) { store_.inject_bit_flip(addr, bit); }

    ErgParityModel& erg() { return store_.erg(); }
    const ErgParityModel& erg() const { return store_.erg(); }
    EccBankStore& store() { return store_; }
    const EccBankStore& store() const { return store_; }
    const EccBankCounters& counters() const { return store_.counters(); }

private:
    std::uint32_t cluster_;
    std::uint32_t bank_;
    std::uint32_t banks_per_cluster_;
    EccBankStore store_;
};

}  // namespace sbufsim::models
