#include "models/engines/arr_seq.h"

#include "sbufsim/kernel/kernel.h"

namespace sbufsim::models {

namespace {

std::uint32_t flag(bool b, unsigned bit) { return b ? 1u << bit : 0u; }
bool bit_of(std::uint32_t reg, unsigned bit) { return csr::get(reg, bit, 1) != 0; }

constexpr std::uint32_t kQueueCfgMask = 0x00011111;    // bits 0, 4, 8, 12, 16
constexpr std::uint32_t kClusterCfgMask = 0x073f1111;  // bits 0, 4, 8, 12, [21:16], [26:24]

}  // namespace

// ---- arr_seq_top ------------------------------------------------------------------------------

void ArrSeqTopCsr::load(const ArrSeqParams& p) {
    queue_cfg_ = csr::set(0, 0, 1, p.fifo_size_sel) | flag(p.bypass_peregwrite_instr, 4) |
                 flag(p.disable_dependency_check, 8) | flag(p.disable_bg_xpose, 12) |
                 flag(p.disable_tagweight_mode, 16);
}

void ArrSeqTopCsr::export_to(ArrSeqParams& p) const {
    p.fifo_size_sel = csr::get(queue_cfg_, 0, 1);
    p.bypass_peregwrite_instr = bit_of(queue_cfg_, 4);
    p.disable_dependency_check = bit_of(queue_cfg_, 8);
    p.disable_bg_xpose = bit_of(queue_cfg_, 12);
    p.disable_tagweight_mode = bit_of(queue_cfg_, 16);
}

std::uint32_t ArrSeqTopCsr::csr_read(std::uint32_t offset) const {
    csr::check_offset("arr_seq_top", kSizeBytes, offset);
    if (offset == kQueueCfg) return queue_cfg_;
    if (offset >= kPerfMatmul && offset < kPerfMatmul + 8 * kPerfCounters) return 0;  // not counted
    csr::no_register("arr_seq_top", offset, "queue_cfg @0x0, arr_seq_ififo_perf_matmul @0x100..0x284");
}

void ArrSeqTopCsr::csr_write(std::uint32_t offset, std::uint32_t value) {
    csr::check_offset("arr_seq_top", kSizeBytes, offset);
    if (offset == kQueueCfg) {
        queue_cfg_ = value & kQueueCfgMask;
        return;
    }
    if (offset >= kPerfMatmul && offset < kPerfMatmul + 8 * kPerfCounters)
        throw CsrReadOnlyError("arr_seq_top: arr_seq_ififo_perf_matmul @" + csr::hex32(offset) +
                               " is a performance counter the host can only read (seed 000 §5.6)");
    csr::no_register("arr_seq_top", offset, "queue_cfg @0x0, arr_seq_ififo_perf_matmul @0x100..0x284");
}

std::vector<CsrRegisterView> ArrSeqTopCsr::csr_registers() const {
    std::vector<CsrRegisterView> r{{"queue_cfg", kQueueCfg, queue_cfg_}};
    for (std::uint32_t i = 0; i < kPerfCounters; ++i) {
        const std::string n = "arr_seq_ififo_perf_matmul." + std::to_string(i);
        r.push_back({n + ".lsb", kPerfMatmul + 8 * i, 0, true});
        r.push_back({n + ".msb", kPerfMatmul + 8 * i + 4, 0, true});
    }
    return r;
}

// ---- arr_seq_cluster --------------------------------------------------------------------------

void ArrSeqClusterCsr::reset() {
    cfg_ = kArrClusterCfgReset;
    stagger_ = {};
}

void ArrSeqClusterCsr::load(const ArrSeqParams& p) {
    cfg_ = flag(p.enable_wl_last_active_col, 0) | flag(p.flush_p2f_fifos, 4) | flag(p.matmul_done_last, 8) |
           flag(p.en_inter_instr_dly, 12) | csr::set(0, 16, 6, p.inter_instr_dly_cnt) |
           csr::set(0, 24, 3, p.p2fifo_af);
    for (std::size_t i = 0; i < stagger_.size(); ++i) stagger_[i] = csr::get(p.rg_stagger[i], 0, 16);
}

void ArrSeqClusterCsr::export_to(ArrSeqParams& p) const {
    p.enable_wl_last_active_col = bit_of(cfg_, 0);
    p.flush_p2f_fifos = bit_of(cfg_, 4);
    p.matmul_done_last = bit_of(cfg_, 8);
    p.en_inter_instr_dly = bit_of(cfg_, 12);
    p.inter_instr_dly_cnt = csr::get(cfg_, 16, 6);
    p.p2fifo_af = csr::get(cfg_, 24, 3);
    for (std::size_t i = 0; i < stagger_.size(); ++i) p.rg_stagger[i] = stagger_[i];
}

std::uint32_t ArrSeqClusterCsr::csr_read(std::uint32_t offset) const {
    csr::check_offset("arr_seq_cluster", kSizeBytes, offset);
    if (offset == kArrClusterCfg) return cfg_;
    if (offset >= kStaggerRg0) return stagger_[(offset - kStaggerRg0) / 4];
    csr::no_register("arr_seq_cluster", offset,
                     "arr_cluster_cfg @0x0, array_stagger_rg0..3_ctrl1 @0x18..0x24");
}

void ArrSeqClusterCsr::csr_write(std::uint32_t offset, std::uint32_t value) {
    csr::check_offset("arr_seq_cluster", kSizeBytes, offset);
    if (offset == kArrClusterCfg) {
        cfg_ = value & kClusterCfgMask;
        return;
    }
    if (offset >= kStaggerRg0) {
        stagger_[(offset - kStaggerRg0) / 4] = value & 0xffffu;
        return;
    }
    csr::no_register("arr_seq_cluster", offset,
                     "arr_cluster_cfg @0x0, array_stagger_rg0..3_ctrl1 @0x18..0x24");
}

std::vector<CsrRegisterView> ArrSeqClusterCsr::csr_registers() const {
    std::vector<CsrRegisterView> r{{"arr_cluster_cfg", kArrClusterCfg, cfg_}};
    for (std::uint32_t i = 0; i < stagger_.size(); ++i)
        r.push_back({"array_stagger_rg" + std::to_string(i) + "_ctrl1", kStaggerRg0 + 4 * i, stagger_[i]});
    return r;
}

// ---- the module -------------------------------------------------------------------------------

ArrSeq::ArrSeq(const sc_core::sc_module_name& name, const ArrSeqParams& p, const SequencerBinding& binding)
    : sc_core::sc_module(name), bound_(binding) {
    top_.load(p);
    cluster_.load(p);
    csr_written();
    if (!bound_.engine) return;
    SC_METHOD(step);
    sensitive << clk_pos_ << bound_.link->activity;
    dont_initialize();
}

void ArrSeq::export_to(ArrSeqParams& p) const {
    top_.export_to(p);
    cluster_.export_to(p);
}

void ArrSeq::csr_written() {
    queue_cfg.write(top_.csr_read(ArrSeqTopCsr::kQueueCfg));
    arr_cluster_cfg.write(cluster_.csr_read(ArrSeqClusterCsr::kArrClusterCfg));
}

void ArrSeq::step() {
    ++activations_;
    try {
        if (bound_.engine->step(bound_.kernel->now())) bound_.link->activity.notify(sc_core::SC_ZERO_TIME);
    } catch (...) {
        bound_.link->fail();
    }
    if (traced_) busy.write(!bound_.engine->idle());
}

}  // namespace sbufsim::models
