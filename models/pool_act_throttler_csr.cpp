#include "pool_act_throttler_csr.h"

#include <string>

namespace sbufsim::models {

namespace {

constexpr const char* kBlock = "tpb_sbuf_pool_act";
constexpr const char* kRegisters =
    "{pool @0x000, act @0x100, dve @0x200} + rd_throttle_cfg0 @0x0, rd_throttle_cfg1 @0x4, "
    "wr_throttle_cfg0 @0x8, wr_throttle_cfg1 @0xc";
constexpr const char* kEngineNames[kThrottledEngines] = {"pool", "act", "dve"};
constexpr std::uint32_t kCfg0Mask = 0x1;        // disable_throttle[0]
constexpr std::uint32_t kCfg1Mask = 0x00ff00ff; // window_len[7:0], transfer_cnt[23:16]

std::uint32_t encode_cfg1(const ThrottleCfg& c) {
    return csr::set(csr::set(0, 0, 8, c.window_len), 16, 8, c.transfer_cnt);
}

}  // namespace

void PoolActThrottlerCsr::reset() {
    for (auto& r : regs_) r = {kCfg0Reset, kCfg1Reset, kCfg0Reset, kCfg1Reset};
}

std::uint32_t& PoolActThrottlerCsr::reg(std::uint32_t offset) {
    csr::check_offset(kBlock, kSizeBytes, offset);
    const std::uint32_t in_block = offset % kBlockStride;
    if (in_block > kWrCfg1) csr::no_register(kBlock, offset, kRegisters);
    return regs_[offset / kBlockStride][in_block / 4];
}

std::uint32_t PoolActThrottlerCsr::reg(std::uint32_t offset) const {
    return const_cast<PoolActThrottlerCsr*>(this)->reg(offset);
}

std::uint32_t PoolActThrottlerCsr::read(std::uint32_t offset) const { return reg(offset); }

void PoolActThrottlerCsr::write(std::uint32_t offset, std::uint32_t value) {
    const bool cfg0 = (offset % kBlockStride) % 8 == 0;  // cfg0 at +0x0 / +0x8, cfg1 at +0x4 / +0xc
    reg(offset) = value & (cfg0 ? kCfg0Mask : kCfg1Mask);
}

ThrottleCfg PoolActThrottlerCsr::decode(ThrottledEngine e, std::uint32_t cfg0) const {
    const std::uint32_t c0 = reg(offset(e, cfg0));
    const std::uint32_t c1 = reg(offset(e, cfg0 + 4));
    ThrottleCfg t;
    t.enable = csr::get(c0, 0, 1) == 0;
    t.window_len = csr::get(c1, 0, 8);
    t.transfer_cnt = csr::get(c1, 16, 8);
    return t;
}

void PoolActThrottlerCsr::load(const Params& p) {
    const ThrottleCfg* cfg[kThrottledEngines][2] = {{&p.throttler.pool_rd, &p.throttler.pool_wr},
                                                    {&p.throttler.act_rd, &p.throttler.act_wr},
                                                    {&p.throttler.dve_rd, &p.throttler.dve_wr}};
    for (std::uint32_t e = 0; e < kThrottledEngines; ++e) {
        regs_[e] = {cfg[e][0]->enable ? 0u : 1u, encode_cfg1(*cfg[e][0]), cfg[e][1]->enable ? 0u : 1u,
                    encode_cfg1(*cfg[e][1])};
    }
}

void PoolActThrottlerCsr::export_to(Params& p) const {
    ThrottleCfg* cfg[kThrottledEngines][2] = {{&p.throttler.pool_rd, &p.throttler.pool_wr},
                                              {&p.throttler.act_rd, &p.throttler.act_wr},
                                              {&p.throttler.dve_rd, &p.throttler.dve_wr}};
    for (std::uint32_t e = 0; e < kThrottledEngines; ++e) {
        const auto engine = static_cast<ThrottledEngine>(e);
        for (const bool is_rd : {true, false}) {
            const ThrottleCfg t = is_rd ? rd(engine) : wr(engine);
            if (t.enable && t.window_len == 0)
                throw CsrError(std::string(kBlock) + ": " + kEngineNames[e] + "_throttler." + (is_rd ? "rd" : "wr") +
                               "_throttle_cfg1.window_len = 0 with the throttle enabled: a window is 1..255 cycles "
                               "(seed 000 §7.2; config key range)");
        }
    }
    for (std::uint32_t e = 0; e < kThrottledEngines; ++e) {
        *cfg[e][0] = rd(static_cast<ThrottledEngine>(e));
        *cfg[e][1] = wr(static_cast<ThrottledEngine>(e));
    }
}

}  // namespace sbufsim::models
