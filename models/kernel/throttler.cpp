#include "models/kernel/throttler.h"


namespace sbufsim::models {

namespace {

constexpr const char* kRegisters =
    "rd_throttle_cfg0 @0x0, rd_throttle_cfg1 @0x4, wr_throttle_cfg0 @0x8, wr_throttle_cfg1 @0xc";
constexpr std::uint32_t kCfg0Mask = 0x1;         // disable_throttle[0]
constexpr std::uint32_t kCfg1Mask = 0x00ff00ff;  // window_len[7:0], transfer_cnt[23:16]
constexpr const char* kEngineNames[kThrottledEngines] = {"pool", "act", "dve"};

std::uint32_t encode_cfg0(const ThrottleCfg& c) { return c.enable ? 0u : 1u; }
std::uint32_t encode_cfg1(const ThrottleCfg& c) {
    return csr::set(csr::set(0, 0, 8, c.window_len), 16, 8, c.transfer_cnt);
}

ThrottleCfg& rd_of(ThrottlerParams& p, ThrottledEngine e) {
    return e == ThrottledEngine::pool ? p.pool_rd : e == ThrottledEngine::act ? p.act_rd : p.dve_rd;
}
ThrottleCfg& wr_of(ThrottlerParams& p, ThrottledEngine e) {
    return e == ThrottledEngine::pool ? p.pool_wr : e == ThrottledEngine::act ? p.act_wr : p.dve_wr;
}

}  // namespace

const char* Throttler::hw_name(ThrottledEngine e) {
    constexpr const char* names[kThrottledEngines] = {"pool_throttler", "act_throttler", "dve_throttler"};
    return names[static_cast<std::uint32_t>(e)];
}

Throttler::Throttler(const sc_core::sc_module_name& name, ThrottledEngine e, const ThrottlerParams& p)
    : sc_core::sc_module(name), engine_(e) {
    load(p);
}

std::string Throttler::csr_block_name() const { return std::string("tpb_sbuf_pool_act.") + hw_name(engine_); }

void Throttler::reset() {
    regs_[0] = regs_[2] = kCfg0Reset;
    regs_[1] = regs_[3] = kCfg1Reset;
}

std::uint32_t Throttler::index(std::uint32_t offset) const {
    const std::string block = csr_block_name();
    csr::check_offset(block, kSizeBytes, offset);
    if (offset > kWrCfg1) csr::no_register(block, offset, kRegisters);
    return offset / 4;
}

std::uint32_t Throttler::read(std::uint32_t offset) const { return regs_[index(offset)]; }

void Throttler::write(std::uint32_t offset, std::uint32_t value) {
    const std::uint32_t i = index(offset);
    regs_[i] = value & (i % 2 == 0 ? kCfg0Mask : kCfg1Mask);  // cfg0 at +0x0 / +0x8
}

ThrottleCfg Throttler::decode(std::uint32_t cfg0) const {
    const std::uint32_t c0 = regs_[cfg0 / 4], c1 = regs_[cfg0 / 4 + 1];
    ThrottleCfg t;
    t.enable = csr::get(c0, 0, 1) == 0;
    t.window_len = csr::get(c1, 0, 8);
    t.transfer_cnt = csr::get(c1, 16, 8);
    return t;
}

void Throttler::load(const ThrottlerParams& p) {
    ThrottlerParams q = p;
    const ThrottleCfg& rd = rd_of(q, engine_);
    const ThrottleCfg& wr = wr_of(q, engine_);
    regs_[0] = encode_cfg0(rd);
    regs_[1] = encode_cfg1(rd);
    regs_[2] = encode_cfg0(wr);
    regs_[3] = encode_cfg1(wr);
}

void Throttler::export_to(ThrottlerParams& p) const {
    for (const bool is_rd : {true, false}) {
        const ThrottleCfg t = is_rd ? rd() : wr();
        if (t.enable && t.window_len == 0)
            throw CsrError(
                csr_block_name() + "." + (is_rd ? "rd" : "wr") +
                "_throttle_cfg1.window_len = 0 with the throttle enabled: a window is 1..255 cycles "
                "(seed 000 §7.2; config key range)");
    }
    rd_of(p, engine_) = rd();
    wr_of(p, engine_) = wr();
}

void Throttler::drive(const Kernel& kernel, Cycle t) {
    if (!bound_) {
        const std::string e = kEngineNames[static_cast<std::uint32_t>(engine_)];
        rd_client_ = kernel.client_index(e + "_rd");
        wr_client_ = kernel.client_index(e + "_wr");
        bound_ = true;
    }
    rd_tokens.write(rd_client_ ? kernel.throttler(*rd_client_).tokens(t) : 0);
    wr_tokens.write(wr_client_ ? kernel.throttler(*wr_client_).tokens(t) : 0);
}

std::vector<CsrRegisterView> Throttler::csr_registers() const {
    return {{"rd_throttle_cfg0", kRdCfg0, regs_[0]},
            {"rd_throttle_cfg1", kRdCfg1, regs_[1]},
            {"wr_throttle_cfg0", kWrCfg0, regs_[2]},
            {"wr_throttle_cfg1", kWrCfg1, regs_[3]}};
}

}  // namespace sbufsim::models
