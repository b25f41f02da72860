#include "models/config/sbuf_cluster_csr.h"

#include <string>

namespace sbufsim::models {

namespace {

constexpr const char* kBlock = "tpb_sbuf_cluster";
constexpr const char* kRegisters =
    "arb_stage1.arb_prio @0x0, arb_stage1.arb_weight @0x4, arb_stage2.arb_prio @0x100, "
    "arb_stage2.arb_weight @0x104, axi2sram_transpose_en @0x400, raw_config @0x404, "
    "raw_conv @0x408, misc_config @0x410";

// Five 3-bit priority fields at a 4-bit pitch: bits [4i+2:4i] (seed 000 §7.1).
constexpr std::uint32_t kPrioMask = 0x77777;
// Five 4-bit weight fields: bits [4i+3:4i].
constexpr std::uint32_t kWeightMask = 0xfffff;

constexpr const char* kStage2Names[kStage2Clients] = {"pool_rd", "act_rd", "pool_wr", "act_wr", "pe_rd_client"};

ArbWeights field_pair(std::uint32_t prio_reg, std::uint32_t weight_reg, std::uint32_t i) {
    return ArbWeights{csr::get(prio_reg, 4 * i, 3), csr::get(weight_reg, 4 * i, 4)};
}

void put_pair(std::uint32_t& prio_reg, std::uint32_t& weight_reg, std::uint32_t i, const ArbWeights& w) {
    prio_reg = csr::set(prio_reg, 4 * i, 3, w.prio);
    weight_reg = csr::set(weight_reg, 4 * i, 4, w.weight);
}

void check_weight(const ArbWeights& w, const std::string& reg, const std::string& field) {
    if (w.weight == 0)
        throw CsrError(std::string(kBlock) + ": " + reg + "." + field +
                       " = 0: a DWRR weight must be 1..15 (seed 000 §7.1; config key range)");
}

}  // namespace

void SbufClusterCsr::reset() {
    arb1_prio_ = kArbStage1PrioReset;
    arb1_weight_ = kArbStage1WeightReset;
    arb2_prio_ = kArbStage2PrioReset;
    arb2_weight_ = kArbStage2WeightReset;
    transpose_en_ = kTransposeEnReset;
    raw_config_ = kRawConfigReset;
    raw_conv_ = kRawConvReset;
    misc_config_ = kMiscConfigReset;
}

std::uint32_t SbufClusterCsr::read(std::uint32_t offset) const {
    csr::check_offset(kBlock, kSizeBytes, offset);
    switch (offset) {
        case kArbStage1Prio: return arb1_prio_;
        case kArbStage1Weight: return arb1_weight_;
        case kArbStage2Prio: return arb2_prio_;
        case kArbStage2Weight:
            return arb2_weight_;
        case kAxi2SramTransposeEn: return transpose_en_;
        case kRawConfig: return raw_config_;
        case kRawConv: return raw_conv_;
        case kMiscConfig: return misc_config_;
        default: csr::no_register(kBlock, offset, kRegisters);
    }
}

void SbufClusterCsr::write(std::uint32_t offset, std::uint32_t value) {
    csr::check_offset(kBlock, kSizeBytes, offset);
    switch (offset) {
        case kArbStage1Prio: arb1_prio_ = value & kPrioMask; return;
        case kArbStage1Weight: arb1_weight_ = value & kWeightMask; return;
        case kArbStage2Prio: arb2_prio_ = value & kPrioMask; return;
        case kArbStage2Weight:
            arb2_weight_ = value & kWeightMask;
            return;
        case kAxi2SramTransposeEn: transpose_en_ = value & 1u; return;
        case kRawConfig: raw_config_ = value & 1u; return;
        case kRawConv: raw_conv_ = value & 3u; return;
        case kMiscConfig: misc_config_ = value & 1u; return;
        default: csr::no_register(kBlock, offset, kRegisters);
    }
}

ArbWeights SbufClusterCsr::stage1(std::uint32_t pe_client) const {
    if (pe_client >= kStage1Clients)
        throw CsrError(std::string(kBlock) + ": arb_stage1 has pe_client_0..4, not pe_client_" +
                       std::to_string(pe_client) + " (seed 000 §7.1)");
    return field_pair(arb1_prio_, arb1_weight_, pe_client);
}

ArbWeights SbufClusterCsr::stage2(Stage2Client c) const {
    return field_pair(arb2_prio_, arb2_weight_, static_cast<std::uint32_t>(c));
}

Axi2SramParams SbufClusterCsr::axi2sram() const {
    Axi2SramParams a;
    a.transpose_en = csr::get(transpose_en_, 0, 1) != 0;
    a.raw_en = csr::get(raw_config_, 0, 1) != 0;
    a.sns = csr::get(raw_conv_, 0, 1) != 0;
    a.sis = csr::get(raw_conv_, 1, 1) != 0;
    a.clk_redun_pipe_gate_en = csr::get(misc_config_, 0, 1) != 0;
    return a;
}

std::vector<CsrRegisterView> SbufClusterCsr::csr_registers() const {
    return {{"arb_stage1.arb_prio", kArbStage1Prio, arb1_prio_},
            {"arb_stage1.arb_weight", kArbStage1Weight, arb1_weight_},
            {"arb_stage2.arb_prio", kArbStage2Prio, arb2_prio_},
            {"arb_stage2.arb_weight", kArbStage2Weight, arb2_weight_},
            {"axi2sram_transpose_en", kAxi2SramTransposeEn, transpose_en_},
            {"raw_config", kRawConfig, raw_config_},
            {"raw_conv", kRawConv, raw_conv_},
            {"misc_config", kMiscConfig, misc_config_}};
}

void SbufClusterCsr::load(const Params& p) {
    for (std::uint32_t i = 0; i < kStage1Clients; ++i) put_pair(arb1_prio_, arb1_weight_, i, p.arbiter.stage1[i]);
    const ArbWeights* stage2[kStage2Clients] = {&p.arbiter.pool_rd, &p.arbiter.act_rd, &p.arbiter.pool_wr,
                                                &p.arbiter.act_wr, &p.arbiter.pe_rd};
    for (std::uint32_t i = 0; i < kStage2Clients; ++i) put_pair(arb2_prio_, arb2_weight_, i, *stage2[i]);
    transpose_en_ = p.axi2sram.transpose_en ? 1 : 0;
    raw_config_ = p.axi2sram.raw_en ? 1 : 0;
    raw_conv_ = (p.axi2sram.sns ? 1u : 0u) | (p.axi2sram.sis ? 2u : 0u);
    misc_config_ = p.axi2sram.clk_redun_pipe_gate_en ? 1 : 0;
}

void SbufClusterCsr::export_to(Params& p) const {
    for (std::uint32_t i = 0; i < kStage1Clients; ++i)
        check_weight(stage1(i), "arb_stage1.arb_weight", "pe_client_" + std::to_string(i));
    for (std::uint32_t i = 0; i < kStage2Clients; ++i)
        check_weight(stage2(static_cast<Stage2Client>(i)), "arb_stage2.arb_weight", kStage2Names[i]);

    for (std::uint32_t i = 0; i < kStage1Clients; ++i) p.arbiter.stage1[i] = stage1(i);
    p.arbiter.pool_rd = stage2(Stage2Client::pool_rd);
    p.arbiter.act_rd = stage2(Stage2Client::act_rd);
    p.arbiter.pool_wr = stage2(Stage2Client::pool_wr);
    p.arbiter.act_wr = stage2(Stage2Client::act_wr);
    p.arbiter.pe_rd = stage2(Stage2Client::pe_rd_client);
    p.axi2sram = axi2sram();
}

}  // namespace sbufsim::models
