#include "sbuf_arbiter.h"

#include <stdexcept>
#include <string>

namespace sbufsim::models {

SbufArbiter::SbufArbiter(const sc_core::sc_module_name& name, Kernel& kernel, const TdmParams& tdm,
                         std::vector<EccBank*> banks, const ActivityProbe* probe)
    : sc_core::sc_module(name), kernel_(kernel), tdm_(tdm), banks_(std::move(banks)), probe_(probe) {
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
    sc_core::sc_trace(f, tdm_slot_, tdm_slot_.name());
    sc_core::sc_trace(f, dma_precedence_, dma_precedence_.name());
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
    const std::uint32_t slot = tdm_.slot(t);
    tdm_slot_.write(slot);
    dma_precedence_.write(tdm_.precedence(slot) == TdmClass::dma);
    for (std::uint32_t c = 0; c < clients_.size(); ++c) {
        StallCause cause{};
        const bool stalled = probe_->stalled(c, t, cause);
        clients_[c].stall->write(stalled ? static_cast<std::uint8_t>(1 + static_cast<unsigned>(cause)) : 0);
        clients_[c].grant->write(granted_[c] != 0);
    }
}

}  // namespace sbufsim::models
