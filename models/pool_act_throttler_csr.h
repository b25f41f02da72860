// pool_act_throttler_csr: the throttler registers of tpb_sbuf_pool_act (tpb_sbuf_pool_act.json,
// seed 000 §7.2): one rd and one wr token bucket for each of POOL, ACT and DVE.
//
//   pool_throttler @0x000, act_throttler @0x100, dve_throttler @0x200; inside each:
//     rd_throttle_cfg0 @+0x0  disable_throttle[0]                 rst 1 (throttle off)
//     rd_throttle_cfg1 @+0x4  window_len[7:0] transfer_cnt[23:16]
//     wr_throttle_cfg0 @+0x8  disable_throttle[0]                 rst 1 (throttle off)
//     wr_throttle_cfg1 @+0xc  window_len[7:0] transfer_cnt[23:16]
// The seed gives the three block offsets, the fields and the disable reset; the register offsets
// inside a block and the cfg1 reset (window_len 16, transfer_cnt 16, the config defaults) are
// INFERRED. Offsets not listed are rejected (CsrError).
//
// Plain C++: the tpb module owns one; export_to() feeds the kernel's Throttler (throttler.h).
#pragma once

#include <array>
#include <cstdint>

#include "erg_parity_model.h"  // CsrError, csr helpers
#include "sbufsim/config/params.h"

namespace sbufsim::models {

enum class ThrottledEngine : std::uint8_t { pool, act, dve };
inline constexpr std::uint32_t kThrottledEngines = 3;

class PoolActThrottlerCsr {
public:
    static constexpr std::uint32_t kSizeBytes = 0x300;
    static constexpr std::uint32_t kBlockStride = 0x100;  // pool @0x000, act @0x100, dve @0x200
    static constexpr std::uint32_t kRdCfg0 = 0x0, kRdCfg1 = 0x4, kWrCfg0 = 0x8, kWrCfg1 = 0xc;
    static constexpr std::uint32_t kCfg0Reset = 1;           // disable_throttle = 1 (seed 000 §7.2)
    static constexpr std::uint32_t kCfg1Reset = 0x00100010;  // window_len 16, transfer_cnt 16 (INFERRED)

    PoolActThrottlerCsr() { reset(); }

    void reset();
    std::uint32_t read(std::uint32_t offset) const;
    void write(std::uint32_t offset, std::uint32_t value);

    // The register offset of one engine's register (e.g. offset(act, kWrCfg1) = 0x10c).
    static constexpr std::uint32_t offset(ThrottledEngine e, std::uint32_t reg) {
        return static_cast<std::uint32_t>(e) * kBlockStride + reg;
    }

    // Decoded token buckets (enable = !disable_throttle).
    ThrottleCfg rd(ThrottledEngine e) const { return decode(e, kRdCfg0); }
    ThrottleCfg wr(ThrottledEngine e) const { return decode(e, kWrCfg0); }

    // Encodes p.throttler into the registers.
    void load(const Params& p);
    // Decodes the registers into p.throttler. Throws CsrError for an enabled bucket with
    // window_len 0 (config key range 1..255; the kernel would read it as 1).
    void export_to(Params& p) const;

private:
    ThrottleCfg decode(ThrottledEngine e, std::uint32_t cfg0) const;
    std::uint32_t& reg(std::uint32_t offset);
    std::uint32_t reg(std::uint32_t offset) const;

    // regs_[engine][register / 4]
    std::array<std::array<std::uint32_t, 4>, kThrottledEngines> regs_{};
};

}  // namespace sbufsim::models
