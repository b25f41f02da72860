// sbuf_cluster_csr: the host-visible CSR block of tpb_sbuf_cluster (tpb_sbuf_cluster.json, seed
// 000 §6.1, §7.1) — the register state of the two-stage arbiter and the axi2sram
// bridge. Registers are read and written by byte offset with the seed's field layouts and reset
// values; export_to() turns the register state into Params so the conflict kernel (which makes
// every decision) can be rebuilt from CSR writes.
//
//   arb_stage1 @0x000  arb_prio   @0x000  pe_client_i[4i+2:4i]  3-bit strict prio, rst 0
//                      arb_weight @0x004  pe_client_i[4i+3:4i]  4-bit DWRR weight, rst 1
//   arb_stage2 @0x100  arb_prio   @0x100  pool_rd[2:0] act_rd[6:4] pool_wr[10:8] act_wr[14:12]
//                                         pe_rd_client[18:16]; pe_rd_client rst 1, others 0
//                      arb_weight @0x104  same clients, 4-bit fields at [4i+3:4i], rst 1
//   tdm_config @0x300  owned by the tdm module (tdm.h)
//   axi2sram_config @0x400
//     axi2sram_transpose_en @0x400  transpose_en[0] rst 1
//     raw_config            @0x404  raw_en[0] rst 1
//     raw_conv              @0x408  sns[0] sis[1] (reset not given: 0, INFERRED)
//     misc_config           @0x410  clk_redun_pipe_gate_en[0] (reset not given: 0, INFERRED)
// The stage-2 arb_weight bit layout is INFERRED (the seed gives "all clients rst=0x1"); it mirrors
// arb_prio with 4-bit fields as stage 1 does. Offsets not listed are rejected (CsrError).
//
// Plain C++: the tpb module owns one, keeps the axi2sram bridge in step with it and routes
// tdm_config @0x300 to its tdm module.
#pragma once

#include <array>
#include <cstdint>

#include <string>
#include <vector>

#include "models/config/csr_block.h"
#include "sbufsim/config/params.h"

namespace sbufsim::models {

// Stage-2 clients in arb_prio field order (seed 000 §7.1).
enum class Stage2Client : std::uint8_t { pool_rd, act_rd, pool_wr, act_wr, pe_rd_client };
inline constexpr std::uint32_t kStage2Clients = 5;

class SbufClusterCsr : public CsrBlock {
public:
    static constexpr std::uint32_t kSizeBytes = 0x500;  // through axi2sram_config (INFERRED end)
    static constexpr std::uint32_t kArbStage1Prio = 0x000;
    static constexpr std::uint32_t kArbStage1Weight = 0x004;
    static constexpr std::uint32_t kArbStage2Prio = 0x100;
    static constexpr std::uint32_t kArbStage2Weight = 0x104;
    static constexpr std::uint32_t kAxi2SramTransposeEn = 0x400;
    static constexpr std::uint32_t kRawConfig = 0x404;
    static constexpr std::uint32_t kRawConv = 0x408;
    static constexpr std::uint32_t kMiscConfig = 0x410;

    // Reset values (seed 000 §6.1, §7.1, §7.2).
    static constexpr std::uint32_t kArbStage1PrioReset = 0x00000;
    static constexpr std::uint32_t kArbStage1WeightReset = 0x11111;
    static constexpr std::uint32_t kArbStage2PrioReset = 0x10000;   // pe_rd_client = 1
    static constexpr std::uint32_t kArbStage2WeightReset = 0x11111;
    static constexpr std::uint32_t kTransposeEnReset = 1;
    static constexpr std::uint32_t kRawConfigReset = 1;
    static constexpr std::uint32_t kRawConvReset = 0;
    static constexpr std::uint32_t kMiscConfigReset = 0;

    SbufClusterCsr() { reset(); }

    void reset();
    // 32-bit register access by byte offset; reserved bits read as 0. Throws CsrError for an
    // offset with no register.
    std::uint32_t read(std::uint32_t offset) const;
    void write(std::uint32_t offset, std::uint32_t value);

    std::string csr_block_name() const override { return "tpb_sbuf_cluster"; }
    std::vector<CsrRegisterView> csr_registers() const override;
    std::uint32_t csr_read(std::uint32_t offset) const override { return read(offset); }
    void csr_write(std::uint32_t offset, std::uint32_t value) override { write(offset, value); }

    // Encodes the arbiter and axi2sram state of `p` into the registers (what firmware would
    // program for that configuration). Fields too narrow for a value keep its low bits.
    void load(const Params& p);
    // Decodes the registers into `p` (arbiter.stage1/stage2 pool/act/pe_rd, axi2sram.*); every
    // other field of `p` is left alone. Throws CsrError when the registers hold a state the
    // kernel cannot run: an arb_weight field of 0 (the DWRR weights are 1..15, config key range).
    void export_to(Params& p) const;

    // Decoded fields.
    ArbWeights stage1(std::uint32_t pe_client) const;  // pe_client < kStage1Clients
    ArbWeights stage2(Stage2Client c) const;
    Axi2SramParams axi2sram() const;

private:
    std::uint32_t arb1_prio_ = 0, arb1_weight_ = 0, arb2_prio_ = 0, arb2_weight_ = 0;
    std::uint32_t transpose_en_ = 0, raw_config_ = 0, raw_conv_ = 0, misc_config_ = 0;
};

}  // namespace sbufsim::models
