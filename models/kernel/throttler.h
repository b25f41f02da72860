// throttler: one engine's rd and wr token buckets of tpb_sbuf_pool_act (tpb_sbuf_pool_act.json,
// seed 000 §7.2) as a module of the tpb: pool_throttler @0x000, act_throttler @0x100,
// dve_throttler @0x200 of the block. It owns its four registers and drives the buckets' token
// counts; the kernel's buckets (sbufsim::Throttler, kernel/throttler.h) make the decision.
//
//   rd_throttle_cfg0 @+0x0  disable_throttle[0]                 rst 1 (throttle off)
//   rd_throttle_cfg1 @+0x4  window_len[7:0] transfer_cnt[23:16]
//   wr_throttle_cfg0 @+0x8  disable_throttle[0]                 rst 1 (throttle off)
//   wr_throttle_cfg1 @+0xc  window_len[7:0] transfer_cnt[23:16]
// The seed gives the three block offsets, the fields and the disable reset; the register offsets
// inside a block and the cfg1 reset (window_len 16, transfer_cnt 16, the config defaults) are
// INFERRED. Offsets not listed are rejected (CsrError).
//
// Signals: tpb.<engine>_throttler.rd_tokens / wr_tokens, the beats each bucket still allows in
// the window of the cycle just arbitrated (0 while disabled); driven only while waveforms are
// recorded (drive()).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <systemc>

#include "models/config/csr_block.h"
#include "sbufsim/config/params.h"
#include "sbufsim/kernel/kernel.h"

namespace sbufsim::models {

enum class ThrottledEngine : std::uint8_t { pool, act, dve };
inline constexpr std::uint32_t kThrottledEngines = 3;

class Throttler : public sc_core::sc_module, public CsrBlock, public CsrOwner {
public:
    static constexpr std::uint32_t kBlockStride = 0x100;  // pool @0x000, act @0x100, dve @0x200
    static constexpr std::uint32_t kSizeBytes = kBlockStride;
    static constexpr std::uint32_t kRdCfg0 = 0x0, kRdCfg1 = 0x4, kWrCfg0 = 0x8, kWrCfg1 = 0xc;
    static constexpr std::uint32_t kCfg0Reset = 1;           // disable_throttle = 1 (seed 000 §7.2)
    static constexpr std::uint32_t kCfg1Reset = 0x00100010;  // window_len 16, transfer_cnt 16 (INFERRED)

    // The tpb_sbuf_pool_act offset of one engine's register (e.g. offset(act, kWrCfg1) = 0x10c).
    static constexpr std::uint32_t offset(ThrottledEngine e, std::uint32_t reg) {
        return static_cast<std::uint32_t>(e) * kBlockStride + reg;
    }
    // "pool_throttler", "act_throttler", "dve_throttler".
    static const char* hw_name(ThrottledEngine e);

    sc_core::sc_signal<std::uint32_t> rd_tokens{"rd_tokens"};
    sc_core::sc_signal<std::uint32_t> wr_tokens{"wr_tokens"};

    // `name` is hw_name(e) in the tpb; starts from the configuration's buckets (load(p)).
    Throttler(const sc_core::sc_module_name& name, ThrottledEngine e, const ThrottlerParams& p);

    ThrottledEngine engine() const { return engine_; }
    void reset();
    // 32-bit register access by byte offset inside this engine's block (0x0..0xc).
    std::uint32_t read(std::uint32_t offset) const;
    void write(std::uint32_t offset, std::uint32_t value);

    // Decoded buckets (enable = !disable_throttle).
    ThrottleCfg rd() const { return decode(kRdCfg0); }
    ThrottleCfg wr() const { return decode(kWrCfg0); }

    // Encodes this engine's buckets of `p`.
    void load(const ThrottlerParams& p);
    // Decodes the registers into this engine's buckets of `p`. Throws CsrError, leaving `p`
    // alone, for an enabled bucket with window_len 0 (config key range 1..255).
    void export_to(ThrottlerParams& p) const;

    // Drives rd_tokens / wr_tokens from the kernel's buckets of <engine>_rd / <engine>_wr after
    // cycle t (the kernel has arbitrated t).
    void drive(const Kernel& kernel, Cycle t);

    std::string csr_block_name() const override;
    std::vector<CsrRegisterView> csr_registers() const override;
    std::uint32_t csr_read(std::uint32_t offset) const override { return read(offset); }
    void csr_write(std::uint32_t offset, std::uint32_t value) override { write(offset, value); }
    std::vector<const CsrBlock*> csr_blocks() const override { return {this}; }

private:
    ThrottleCfg decode(std::uint32_t cfg0) const;
    std::uint32_t index(std::uint32_t offset) const;  // checked register index 0..3

    ThrottledEngine engine_;
    std::uint32_t regs_[4] = {kCfg0Reset, kCfg1Reset, kCfg0Reset, kCfg1Reset};
    // The kernel's clients, looked up at the first drive().
    bool bound_ = false;
    std::optional<ClientId> rd_client_, wr_client_;
};

}  // namespace sbufsim::models
