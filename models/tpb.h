// tpb: the top level of the memory subsystem of one NeuronCore TPB, built from a generation's
// Params (configs/<gen>.ini via load_config): the SBUF ECC banks (sbuf_cluster_<c>_<h>, seed 000
// §3), the PSUM ECC banks (psum_cluster<c>_bank<b>, §4; none on maverick, PSUM_BUF_SZ = 0), the
// axi2sram bridge (§6, §7.3) and the host-visible CSR blocks tpb_sbuf_cluster (arbiter, TDM,
// axi2sram_config, §7.1–§7.2) and tpb_sbuf_pool_act (throttlers, §7.2).
//
// `axi_socket` is the TLM-2.0 target for the AXI masters (DMA queues, Q7 cores); it is bound
// hierarchically to axi2sram's socket, so PSUM is unreachable through it.
//
// The CSR blocks start from the configuration (load(p)), so a user config that sets
// tdm.dma_slots = 2 reads back as tdm_cfg.tdm_dma_slots = 2. CSR writes go through the tpb so that
// the axi2sram bridge follows axi2sram_config at once; effective_params() exports the register
// state for rebuilding the kernel.
//
// The engine front-ends and the clocked/fast schedulers attach here in the next step.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>

#include "axi2sram.h"
#include "pool_act_throttler_csr.h"
#include "psum_bank.h"
#include "sbuf_bank.h"
#include "sbuf_cluster_csr.h"
#include "sbufsim/address/address.h"
#include "sbufsim/config/params.h"

namespace sbufsim {
struct Stats;
}

namespace sbufsim::models {

struct TpbOptions {
    EccBankOptions banks;      // functional backing store (off by default) and erg_type at reset
    Axi2SramOptions axi2sram;  // address forms and timing of the bridge
};

class Tpb : public sc_core::sc_module {
public:
    tlm::tlm_target_socket<> axi_socket;

    // Throws std::invalid_argument when the bank counts of `p` do not fit its geometry.
    Tpb(const sc_core::sc_module_name& name, const Params& p, TpbOptions options = {});

    const Params& params() const { return params_; }
    const AddressMap& address_map() const { return map_; }

    std::size_t sbuf_bank_count() const { return sbuf_banks_.size(); }
    std::size_t psum_bank_count() const { return psum_banks_.size(); }
    SbufBank& sbuf_bank(std::uint32_t index);  // cluster × 2 + half
    SbufBank& sbuf_bank(std::uint32_t cluster, std::uint32_t half) { return sbuf_bank(cluster * 2 + half); }
    PsumBank& psum_bank(std::uint32_t index);  // cluster × psum.banks + bank
    PsumBank& psum_bank(std::uint32_t cluster, std::uint32_t bank) {
        return psum_bank(cluster * params_.psum.banks + bank);
    }
    Axi2Sram& axi2sram() { return *axi2sram_; }

    // Host register access of the CSR blocks (offsets as in sbuf_cluster_csr.h /
    // pool_act_throttler_csr.h). Throw CsrError for an offset without a register.
    std::uint32_t read_sbuf_cluster_csr(std::uint32_t offset) const { return cluster_csr_.read(offset); }
    void write_sbuf_cluster_csr(std::uint32_t offset, std::uint32_t value);
    std::uint32_t read_pool_act_csr(std::uint32_t offset) const { return pool_act_csr_.read(offset); }
    void write_pool_act_csr(std::uint32_t offset, std::uint32_t value) { pool_act_csr_.write(offset, value); }
    const SbufClusterCsr& sbuf_cluster_csr() const { return cluster_csr_; }
    const PoolActThrottlerCsr& pool_act_csr() const { return pool_act_csr_; }

    // The configuration with the CSR state exported into it: what the kernel should run with
    // after the host's register writes. Throws CsrError for a register state the kernel cannot run.
    Params effective_params() const;

    // Flips bit `bit` (0..7) of the byte at a 29-bit PartitionOffset (SBUF or PSUM), in the ECC
    // bank that holds it. Throws std::invalid_argument for an address without SRAM behind it.
    void inject_bit_flip(std::uint32_t addr, unsigned bit);

    // Adds the kernel's per-bank arbitration counts (stats.banks: the SBUF banks, then PSUM).
    // Throws std::invalid_argument when the bank counts differ.
    void add_kernel_stats(const Stats& s);

private:
    void build_sbuf_banks(const EccBankOptions& o);
    void build_psum_banks(const EccBankOptions& o);

    Params params_;
    AddressMap map_;
    std::vector<std::unique_ptr<SbufBank>> sbuf_banks_;
    std::vector<std::unique_ptr<PsumBank>> psum_banks_;
    std::unique_ptr<Axi2Sram> axi2sram_;
    SbufClusterCsr cluster_csr_;
    PoolActThrottlerCsr pool_act_csr_;
};

}  // namespace sbufsim::models
