#include "models/replay/sbuf_arbiter.h"

#include <stdexcept>
#include <string>

namespace sbufsim::models {

SbufArbiter::SbufArbiter(const sc_core::sc_module_name& name, Kernel& kernel, Tpb& tpb, ClockedLink& link,
                         const ActivityProbe* probe)
    : sc_core::sc_module(name), kernel_(kernel), tpb_(tpb), link_(link), probe_(probe) {
    for (std::uint32_t b = 0; b < tpb_.sbuf_bank_count(); ++b) banks_.push_back(&tpb_.sbuf_bank(b));
    for (std::uint32_t b = 0; b < tpb_.psum_bank_count(); ++b) banks_.push_back(&tpb_.psum_bank(b));
    for (const ClientInfo& c : kernel_.clients().all()) {
        ClientSignals s;
        s.stall = std::make_unique<sc_core::sc_signal<std::uint8_t>>((c.name + "_stall").c_str());
        s.grant = std::make_unique<sc_core::sc_signal<bool>>((c.name + "_grant").c_str());
        clients_.push_back(std::move(s));
    }
    granted_.resize(clients_.size());
    SC_METHOD(arbitrate);
    sensitive << go;
    dont_initialize();
}

void SbufArbiter::trace(sc_core::sc_trace_file* f) {
    if (!probe_ || !probe_->cycle_view())
        throw std::logic_error("sbuf_arbiter: tracing needs an activity probe with a cycle view");
    for (EccBank* b : banks_) {
        const std::string n = b->name();
        sc_core::sc_trace(f, b->busy, n + ".busy");
        sc_core::sc_trace(f, b->conflict, n + ".conflict");
        sc_core::sc_trace(f, b->winner, n + ".winner");
        sc_core::sc_trace(f, b->grants, n + ".grants");
    }
    Tdm& tdm = tpb_.tdm();
    sc_core::sc_trace(f, tdm.tdm_cfg, tdm.tdm_cfg.name());
    sc_core::sc_trace(f, tdm.slot, tdm.slot.name());
    sc_core::sc_trace(f, tdm.dma_precedence, tdm.dma_precedence.name());
    for (std::uint32_t e = 0; e < kThrottledEngines; ++e) {
        Throttler& t = tpb_.throttler(static_cast<ThrottledEngine>(e));
        sc_core::sc_trace(f, t.rd_tokens, t.rd_tokens.name());
        sc_core::sc_trace(f, t.wr_tokens, t.wr_tokens.name());
    }
    for (std::size_t c = 0; c < clients_.size(); ++c) {
        sc_core::sc_trace(f, *clients_[c].stall, clients_[c].stall->name());
        sc_core::sc_trace(f, *clients_[c].grant, clients_[c].grant->name());
    }
    traced_ = true;
}

void SbufArbiter::arbitrate() {
    const Cycle t = kernel_.now();
    kernel_.run_until(t + 1);
    ++cycles_;
    if (traced_) publish(t);
    if (!tpb_.reprogram_pending()) return;
    try {
        Params next;
        if (tpb_.take_reprogram(next)) kernel_.reprogram(next);  // the host's writes act from t + 1
    } catch (...) {
        link_.fail();
    }
}

// The signals of cycle t from the probe's cycle view (written now, seen after this delta).
void SbufArbiter::publish(Cycle t) {
    std::fill(granted_.begin(), granted_.end(), 0);
    for (std::uint32_t b = 0; b < banks_.size(); ++b) {
        EccBank& bank = *banks_[b];
        std::uint16_t client = 0;
        const bool busy = probe_->granted(b, t, client);
        bank.busy.write(busy);
        bank.conflict.write(probe_->contended(b, t));
        bank.winner.write(busy ? client : -1);
        if (busy) {
            bank.grants.write(bank.grants.read() + 1);
            granted_[client] = 1;
        }
    }
    tpb_.tdm().drive(t);
    for (std::uint32_t e = 0; e < kThrottledEngines; ++e)
        tpb_.throttler(static_cast<ThrottledEngine>(e)).drive(kernel_, t);
    for (std::uint32_t c = 0; c < clients_.size(); ++c) {
        StallCause cause{};
        const bool stalled = probe_->stalled(c, t, cause);
        clients_[c].stall->write(stalled ? static_cast<std::uint8_t>(1 + static_cast<unsigned>(cause)) : 0);
        clients_[c].grant->write(granted_[c] != 0);
    }
}

}  // namespace sbufsim::models
