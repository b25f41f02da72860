#include "models/top/tpb.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include "sbufsim/stats/stats.h"

namespace sbufsim::models {

namespace {

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("tpb: " + what); }

}  // namespace

Tpb::Tpb(const sc_core::sc_module_name& name, const Params& p, TpbOptions options,
         const SequencerBinding& sequencer)
    : sc_core::sc_module(name), axi_socket("axi_socket"), csr_socket("csr_socket"), params_(p), map_(p) {
    build_sbuf_banks(options.banks);
    build_psum_banks(options.banks);
    std::vector<SbufBank*> banks;
    for (auto& b : sbuf_banks_) banks.push_back(b.get());
    axi2sram_ = std::make_unique<Axi2Sram>("axi2sram", p, std::move(banks), options.axi2sram);
    to_axi2sram_.bind(axi2sram_->socket);
    axi_socket.register_b_transport(this, &Tpb::axi_transport);
    axi_socket.register_get_direct_mem_ptr(this, &Tpb::axi_dmi);
    tdm_ = std::make_unique<Tdm>("tdm", p.tdm);
    for (std::uint32_t e = 0; e < kThrottledEngines; ++e)
        throttlers_.push_back(std::make_unique<Throttler>(Throttler::hw_name(static_cast<ThrottledEngine>(e)),
                                                          static_cast<ThrottledEngine>(e), p.throttler));
    arr_seq_ = std::make_unique<ArrSeq>("arr_seq", p.arr_seq, sequencer);
    cluster_csr_.load(p);
    axi2sram_->set_config(cluster_csr_.axi2sram());
    build_csr_map();
    csr_socket.register_b_transport(this, &Tpb::csr_transport);
}

void Tpb::build_csr_map() {
    const std::uint64_t c = kSbufClusterBase;
    csr_map_ = {{c, Tdm::kBlockOffset, c, &cluster_csr_, true},
                {c + Tdm::kBlockOffset, Tdm::kSizeBytes, c + Tdm::kBlockOffset, tdm_.get(), true},
                {c + SbufClusterCsr::kAxi2SramTransposeEn,
                 SbufClusterCsr::kSizeBytes - SbufClusterCsr::kAxi2SramTransposeEn, c, &cluster_csr_, false}};
    for (auto& t : throttlers_) {
        const std::uint64_t base = kPoolActBase + Throttler::offset(t->engine(), 0);
        csr_map_.push_back({base, Throttler::kSizeBytes, base, t.get(), true});
    }
    csr_map_.push_back(
        {kArrSeqTopBase, ArrSeqTopCsr::kSizeBytes, kArrSeqTopBase, &arr_seq_->top_csr(), true});
    csr_map_.push_back({kArrSeqClusterBase, ArrSeqClusterCsr::kSizeBytes, kArrSeqClusterBase,
                        &arr_seq_->cluster_csr(), true});
    for (auto& b : sbuf_banks_) {
        const std::uint64_t base =
            kSbufErgBase + b->cluster() * kSbufErgClusterStride + b->half() * kSbufErgHalfStride;
        csr_map_.push_back({base, ErgParityModel::kSizeBytes, base, &b->erg(), false});
    }
    for (auto& b : psum_banks_) {
        const std::uint64_t base =
            kPsumErgBase + b->cluster() * kPsumErgClusterStride + b->bank() * kPsumErgBankStride;
        csr_map_.push_back({base, ErgParityModel::kSizeBytes, base, &b->erg(), false});
    }
}

const Tpb::CsrWindow& Tpb::window(std::uint64_t addr) const {
    for (const CsrWindow& w : csr_map_)
        if (addr >= w.base && addr - w.base < w.size) return w;
    throw CsrError("tpb: no register block at CSR address " + hex(addr) +
                   " (blocks: tpb_sbuf_cluster @0x0, tpb_sbuf_pool_act @0x1000, arr_seq_top @0x2000, "
                   "arr_seq_cluster @0x3000, SBUF ERG @0xd10000, PSUM ERG @0x2c10000; models/tpb.h)");
}

std::uint32_t Tpb::csr_read(std::uint64_t addr) const {
    const CsrWindow& w = window(addr);
    return w.block->csr_read(static_cast<std::uint32_t>(addr - w.block_base));
}

void Tpb::csr_write(std::uint64_t addr, std::uint32_t value) {
    const CsrWindow& w = window(addr);
    const auto offset = static_cast<std::uint32_t>(addr - w.block_base);
    const std::uint32_t old = w.block->csr_read(offset);
    w.block->csr_write(offset, value);
    if (w.kernel) {
        try {
            (void)effective_params();  // a state the kernel cannot run is refused
        } catch (const CsrError& e) {
            w.block->csr_write(offset, old);
            throw CsrStateError(std::string(e.what()) + "; the write is refused, the register keeps " +
                                csr::hex32(old));
        }
        reprogram_ = true;
    }
    if (w.block == &arr_seq_->top_csr() || w.block == &arr_seq_->cluster_csr()) arr_seq_->csr_written();
    if (w.block == &cluster_csr_)
        axi2sram_->set_config(cluster_csr_.axi2sram());  // the bridge follows at once
}

// The AXI fabric: every bound initiator's transaction goes on to the bridge unchanged.
void Tpb::axi_transport(int port, tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
    const auto p = static_cast<std::size_t>(port);
    if (p >= axi_ports_.size()) axi_ports_.resize(p + 1);
    AxiPortCounters& c = axi_ports_[p];
    ++c.transactions;
    to_axi2sram_->b_transport(t, delay);
    if (t.is_response_ok()) c.bytes += t.get_data_length();
    else ++c.errors;
}

bool Tpb::axi_dmi(int /*port*/, tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi) {
    return to_axi2sram_->get_direct_mem_ptr(t, dmi);
}

void Tpb::csr_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& /*delay*/) {
    t.set_dmi_allowed(false);
    if (t.get_byte_enable_ptr()) return t.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    if (t.get_data_length() != 4 || t.get_streaming_width() < 4)
        return t.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    try {
        std::uint32_t v = 0;
        if (t.is_read()) {
            v = csr_read(t.get_address());
            std::memcpy(t.get_data_ptr(), &v, 4);
        } else if (t.is_write()) {
            std::memcpy(&v, t.get_data_ptr(), 4);
            csr_write(t.get_address(), v);
        }
        t.set_response_status(tlm::TLM_OK_RESPONSE);
    } catch (const CsrReadOnlyError&) {
        t.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    } catch (const CsrStateError&) {
        t.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    } catch (const CsrError&) {
        t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    }
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

Params Tpb::effective_params() const {
    Params p = params_;
    cluster_csr_.export_to(p);
    tdm_->export_to(p.tdm);
    for (const auto& t : throttlers_) t->export_to(p.throttler);
    arr_seq_->export_to(p.arr_seq);
    return p;
}

bool Tpb::take_reprogram(Params& out) {
    if (!reprogram_) return false;
    reprogram_ = false;
    out = effective_params();
    tdm_->follow(out.tdm);
    arr_seq_->reprogram(out.arr_seq);  // the sequencer front-end, from its next step
    return true;
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
