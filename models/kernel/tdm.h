// tdm: the TDM layer of the SBUF cluster arbiter (tpb_sbuf_cluster.json tdm_config @0x300, seed
// 000 §7.2) as a module of the tpb. It owns the tdm_cfg register and drives, per cycle, the slot
// and the class with precedence in it; the kernel makes the decision (sbufsim::Tdm inside
// Kernel, kernel/tdm.h), this module shows what the kernel runs with.
//
//   tdm_cfg @0x0 (block @0x300)  tdm_max_slots[15:0] rst 0x8, tdm_dma_slots[31:16] rst 0x1
//
// Signals: tpb.tdm.tdm_cfg (the register), tpb.tdm.slot (slot of the cycle just arbitrated),
// tpb.tdm.dma_precedence (1 = the DMA class has precedence in it). slot and dma_precedence are
// driven only while waveforms are recorded (drive()).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

#include "models/config/csr_block.h"
#include "sbufsim/config/params.h"
#include "sbufsim/kernel/tdm.h"

namespace sbufsim::models {

class Tdm : public sc_core::sc_module, public CsrBlock, public CsrOwner {
public:
    static constexpr std::uint32_t kBlockOffset = 0x300;  // tdm_config in tpb_sbuf_cluster
    static constexpr std::uint32_t kSizeBytes = 0x100;    // up to axi2sram_config @0x400
    static constexpr std::uint32_t kTdmCfg = 0x0;
    static constexpr std::uint32_t kTdmCfgReset = 0x00010008;  // seed 000 §7.2: 1 DMA slot of 8

    sc_core::sc_signal<std::uint32_t, sc_core::SC_MANY_WRITERS> tdm_cfg{"tdm_cfg"};
    sc_core::sc_signal<std::uint32_t> slot{"slot"};
    sc_core::sc_signal<bool> dma_precedence{"dma_precedence"};

    // Starts from the configuration's split (load(p.tdm)).
    Tdm(const sc_core::sc_module_name& name, const TdmParams& p);

    void reset();
    std::uint32_t read(std::uint32_t offset) const;
    void write(std::uint32_t offset, std::uint32_t value);
    std::uint32_t max_slots() const;
    std::uint32_t dma_slots() const;

    // Encodes p.max_slots / p.dma_slots into tdm_cfg.
    void load(const TdmParams& p);
    // Decodes tdm_cfg into p.max_slots / p.dma_slots (strict and dma_order are configuration
    // only). Throws CsrError, leaving `p` alone, for tdm_max_slots 0 or tdm_dma_slots >
    // tdm_max_slots: a state the kernel cannot run.
    void export_to(TdmParams& p) const;

    // The kernel runs with `p` from now on (the decoder behind slot/dma_precedence follows).
    void follow(const TdmParams& p) { active_ = sbufsim::Tdm(p); }
    // Drives slot and dma_precedence for cycle t.
    void drive(Cycle t);

    std::string csr_block_name() const override { return "tpb_sbuf_cluster.tdm_config"; }
    std::vector<CsrRegisterView> csr_registers() const override;
    std::uint32_t csr_read(std::uint32_t offset) const override { return read(offset); }
    void csr_write(std::uint32_t offset, std::uint32_t value) override { write(offset, value); }
    std::vector<const CsrBlock*> csr_blocks() const override { return {this}; }

private:
    void set(std::uint32_t value);

    std::uint32_t tdm_cfg_ = kTdmCfgReset;
    sbufsim::Tdm active_;
};

}  // namespace sbufsim::models
