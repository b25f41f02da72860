#include "tpb.h"

#include <stdexcept>
#include <string>

#include "sbufsim/stats/stats.h"

namespace sbufsim::models {

namespace {

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("tpb: " + what); }

}  // namespace

Tpb::Tpb(const sc_core::sc_module_name& name, const Params& p, TpbOptions options)
    : sc_core::sc_module(name), axi_socket("axi_socket"), params_(p), map_(p) {
    build_sbuf_banks(options.banks);
    build_psum_banks(options.banks);
    std::vector<SbufBank*> banks;
    for (auto& b : sbuf_banks_) banks.push_back(b.get());
    axi2sram_ = std::make_unique<Axi2Sram>("axi2sram", p, std::move(banks), options.axi2sram);
    axi_socket.bind(axi2sram_->socket);  // hierarchical: the tpb's target is the bridge's
    cluster_csr_.load(p);
    pool_act_csr_.load(p);
    axi2sram_->set_config(cluster_csr_.axi2sram());
}

// seed 000 §3: 8 clusters × 2 halves, SBUF_CLUSTER_{c}_{h}_ERG_CSR.
void Tpb::build_sbuf_banks(const EccBankOptions& o) {
    const SbufParams& s = params_.sbuf;
    if (s.ecc_banks != s.clusters * 2)
        bad("sbuf.ecc_banks = " + std::to_string(s.ecc_banks) + " is not 2 x sbuf.clusters = " +
            std::to_string(s.clusters * 2) + " (seed 000 §3)");
    for (std::uint32_t c = 0; c < s.clusters; ++c)
        for (std::uint32_t h = 0; h < 2; ++h)
            sbuf_banks_.push_back(std::make_unique<SbufBank>(SbufBank::hw_name(c, h).c_str(), c, h, o));
}

// seed 000 §4: PSUM_CLUSTER{c}_ERG_CSR_{b}, clusters × psum.banks; nothing when PSUM_BUF_SZ = 0.
void Tpb::build_psum_banks(const EccBankOptions& o) {
    if (!params_.has_psum()) return;
    const PsumParams& q = params_.psum;
    if (q.banks == 0 || q.ecc_banks % q.banks != 0)
        bad("psum.ecc_banks = " + std::to_string(q.ecc_banks) + " is not a multiple of psum.banks = " +
            std::to_string(q.banks) + " (seed 000 §4)");
    const std::uint32_t clusters = q.ecc_banks / q.banks;
    for (std::uint32_t c = 0; c < clusters; ++c)
        for (std::uint32_t b = 0; b < q.banks; ++b)
            psum_banks_.push_back(std::make_unique<PsumBank>(PsumBank::hw_name(c, b).c_str(), c, b, q.banks, o));
}

SbufBank& Tpb::sbuf_bank(std::uint32_t index) {
    if (index >= sbuf_banks_.size())
        bad("no SBUF ECC bank " + std::to_string(index) + "; there are " + std::to_string(sbuf_banks_.size()));
    return *sbuf_banks_[index];
}

PsumBank& Tpb::psum_bank(std::uint32_t index) {
    if (index >= psum_banks_.size())
        bad("no PSUM ECC bank " + std::to_string(index) + "; " + params_.generation + " has " +
            std::to_string(psum_banks_.size()) + (params_.has_psum() ? "" : " (PSUM_BUF_SZ = 0, seed 000 §1)"));
    return *psum_banks_[index];
}

void Tpb::write_sbuf_cluster_csr(std::uint32_t offset, std::uint32_t value) {
    cluster_csr_.write(offset, value);
    axi2sram_->set_config(cluster_csr_.axi2sram());  // the bridge follows axi2sram_config at once
}

Params Tpb::effective_params() const {
    Params p = params_;
    cluster_csr_.export_to(p);
    pool_act_csr_.export_to(p);
    return p;
}

void Tpb::inject_bit_flip(std::uint32_t addr, unsigned bit) {
    const Decoded d = map_.decode(addr);
    if (!d.valid()) bad("cannot inject an error at " + hex(addr) + ": " + map_.explain(d));
    if (d.region == Region::sbuf) sbuf_bank(d.bank.index).inject_bit_flip(addr, bit);
    else psum_bank(d.bank.index).inject_bit_flip(addr, bit);
}

void Tpb::add_kernel_stats(const Stats& s) {
    if (s.sbuf_banks != sbuf_banks_.size() || s.banks.size() != sbuf_banks_.size() + psum_banks_.size())
        bad("kernel statistics have " + std::to_string(s.banks.size()) + " banks (" + std::to_string(s.sbuf_banks) +
            " SBUF); the tpb has " +
            std::to_string(sbuf_banks_.size()) + " + " + std::to_string(psum_banks_.size()));
    for (std::size_t i = 0; i < s.banks.size(); ++i) {
        if (i < sbuf_banks_.size()) sbuf_banks_[i]->store().add_kernel_stats(s.banks[i]);
        else psum_banks_[i - sbuf_banks_.size()]->store().add_kernel_stats(s.banks[i]);
    }
}

}  // namespace sbufsim::models
