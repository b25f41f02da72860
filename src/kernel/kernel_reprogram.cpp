// Kernel::reprogram (kernel.h): the host's CSR writes between two cycles (models/tpb.h). Part of
// the kernel's block, apart from kernel.cpp because only the clocked scheduler's host calls it.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "sbufsim/kernel/kernel.h"

namespace sbufsim {

namespace {

constexpr std::uint32_t kPeRdPort = 63;  // stage-2 port of the stage-1 winner (kernel_private.h)

bool same(const ArbWeights& a, const ArbWeights& b) { return a.prio == b.prio && a.weight == b.weight; }

bool same(const ThrottleCfg& a, const ThrottleCfg& b) {
    return a.enable == b.enable && a.window_len == b.window_len && a.transfer_cnt == b.transfer_cnt;
}

}  // namespace

void Kernel::reprogram(const Params& p) {
    ClientSet fresh(p);
    if (fresh.size() != n_)
        throw std::invalid_argument("kernel: reprogram with " + std::to_string(fresh.size()) +
                                    " clients; the kernel has " + std::to_string(n_) +
                                    " (only arbiter, TDM and throttler settings may change)");
    bool stage1_changed = p.arbiter.stage1_policy != params_.arbiter.stage1_policy;
    bool stage2_changed = p.arbiter.stage2_policy != params_.arbiter.stage2_policy ||
                          !same(p.arbiter.pe_rd, params_.arbiter.pe_rd);
    for (std::uint32_t c = 0; c < n_; ++c) {
        const ClientInfo& now = fresh.all()[c];
        const ClientInfo& was = clients_.all()[c];
        if (now.name != was.name || now.group != was.group)
            throw std::invalid_argument("kernel: reprogram changes client " + std::to_string(c) + " from " +
                                        was.name + " to " + now.name);
        if (!same(now.arb, was.arb)) {
            stage1_changed |= now.group == ClientGroup::stage1;
            stage2_changed |= now.group == ClientGroup::stage2;
        }
        if (!same(now.throttle, was.throttle)) {
            // A changed bucket starts full; its windows stay aligned to absolute time.
            throttlers_[c] = now.throttle.enable ? Throttler(now.throttle) : Throttler();
            throttled_ = now.throttle.enable ? throttled_ | (std::uint64_t{1} << c)
                                             : throttled_ & ~(std::uint64_t{1} << c);
        }
    }
    if (stage1_changed) stage1_ = make_arbiter(p.arbiter.stage1_policy);
    if (stage2_changed) stage2_ = make_arbiter(p.arbiter.stage2_policy);
    for (std::uint32_t c = 0; c < n_; ++c) {
        const ClientInfo& ci = fresh.all()[c];
        if (stage1_changed && ci.group == ClientGroup::stage1)
            std::visit([&](auto& a) { a.add_port(c, ci.arb.prio, ci.arb.weight); }, stage1_);
        if (stage2_changed && ci.group == ClientGroup::stage2)
            std::visit([&](auto& a) { a.add_port(c, ci.arb.prio, ci.arb.weight); }, stage2_);
    }
    if (stage2_changed)
        std::visit([&](auto& a) { a.add_port(kPeRdPort, p.arbiter.pe_rd.prio, p.arbiter.pe_rd.weight); },
                   stage2_);

    tdm_ = Tdm(p.tdm);
    if (stats_.tdm_slots.size() < tdm_.slots()) stats_.tdm_slots.resize(tdm_.slots());
    for (std::uint32_t t = 0; t < tdm_.slots(); ++t) stats_.tdm_slots[t].precedence = tdm_.precedence(t);
    slot_cycle_ = kNever;  // the next step recomputes its slot with the new period
    // Whatever the last step derived from the old settings (gate release, steady leap) is void.
    gated_only_ = false;
    gate_release_ = kNever;
    steady_.on = false;
    rotation_.on = false;
    params_.arbiter = p.arbiter;
    params_.tdm = p.tdm;
    params_.throttler = p.throttler;
    clients_ = std::move(fresh);
}

}  // namespace sbufsim
