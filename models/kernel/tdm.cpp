#include "models/kernel/tdm.h"


namespace sbufsim::models {

namespace {
constexpr const char* kBlock = "tpb_sbuf_cluster.tdm_config";
}

Tdm::Tdm(const sc_core::sc_module_name& name, const TdmParams& p) : sc_core::sc_module(name), active_(p) {
    load(p);
}

void Tdm::set(std::uint32_t value) {
    tdm_cfg_ = value;  // two full 16-bit fields, no reserved bits
    tdm_cfg.write(value);
}

void Tdm::reset() { set(kTdmCfgReset); }

std::uint32_t Tdm::read(std::uint32_t offset) const {
    csr::check_offset(kBlock, kSizeBytes, offset);
    if (offset != kTdmCfg) csr::no_register(kBlock, offset, "tdm_cfg @0x0");
    return tdm_cfg_;
}

void Tdm::write(std::uint32_t offset, std::uint32_t value) {
    csr::check_offset(kBlock, kSizeBytes, offset);
    if (offset != kTdmCfg) csr::no_register(kBlock, offset, "tdm_cfg @0x0");
    set(value);
}

std::uint32_t Tdm::max_slots() const { return csr::get(tdm_cfg_, 0, 16); }
std::uint32_t Tdm::dma_slots() const { return csr::get(tdm_cfg_, 16, 16); }

void Tdm::load(const TdmParams& p) { set(csr::set(csr::set(0, 0, 16, p.max_slots), 16, 16, p.dma_slots)); }

void Tdm::export_to(TdmParams& p) const {
    if (max_slots() == 0)
        throw CsrError(std::string(kBlock) +
                       ": tdm_cfg.tdm_max_slots = 0: the TDM period needs at least one slot "
                       "(seed 000 §7.2)");
    if (dma_slots() > max_slots())
        throw CsrError(std::string(kBlock) + ": tdm_cfg.tdm_dma_slots = " + std::to_string(dma_slots()) +
                       " exceeds tdm_max_slots = " + std::to_string(max_slots()) +
                       " (the DMA slots are part of the TDM period, seed 000 §7.2)");
    p.max_slots = max_slots();
    p.dma_slots = dma_slots();
}

void Tdm::drive(Cycle t) {
    const std::uint32_t s = active_.slot(t);
    slot.write(s);
    dma_precedence.write(active_.precedence(s) == TdmClass::dma);
}

std::vector<CsrRegisterView> Tdm::csr_registers() const { return {{"tdm_cfg", kTdmCfg, tdm_cfg_}}; }

}  // namespace sbufsim::models
