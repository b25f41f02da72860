// tpb: the top level of the memory subsystem of one NeuronCore TPB, built from a generation's
// Params (configs/<gen>.ini via load_config): the SBUF ECC banks (sbuf_cluster_<c>_<h>, seed 000
// §3), the PSUM ECC banks (psum_cluster<c>_bank<b>, §4; none on maverick, PSUM_BUF_SZ = 0), the
// axi2sram bridge (§6, §7.3), the TDM (tdm), the pool/act/dve throttlers (<engine>_throttler,
// §7.2), the PE-array sequencer (arr_seq, §5.6) and the register block tpb_sbuf_cluster
// (arbiter, axi2sram_config, §6.1, §7.1).
//
// Two TLM-2.0 targets:
//   axi_socket  the AXI masters (DMA queues, Q7 cores, a platform's own initiators): a multi
//               target socket, so any number of initiators may bind to it (none, too); each
//               transaction goes on to axi2sram's socket (the AXI fabric in front of the bridge),
//               so PSUM is unreachable through it. axi_port(i) counts what the i-th bound
//               initiator moved.
//   csr_socket  the host's register window (32-bit accesses), every block at its seed offsets
//               inside it; the block bases are INFERRED (the seeds give the blocks, not where the
//               control plane puts them), the ERG blocks sit at the PEB offsets of seed 000 §3, §4:
//     0x0000000  tpb_sbuf_cluster   arb_stage1 @0x000, arb_stage2 @0x100, tdm_config @0x300
//                                   (the tdm module), axi2sram_config @0x400
//     0x0001000  tpb_sbuf_pool_act  pool/act/dve_throttler @0x000/0x100/0x200
//     0x0002000  arr_seq_top        queue_cfg @0x0, perf counters @0x100 (read-only)
//     0x0003000  arr_seq_cluster    arr_cluster_cfg @0x0, array_stagger_rg0..3_ctrl1 @0x18..0x24
//     0x0d10000  SBUF_CLUSTER_{c}_{h}_ERG_CSR  + c × 0x2000 + h × 0x1000, 0x40 each
//     0x2c10000  PSUM_CLUSTER{c}_ERG_CSR_{b}   + c × 0x1000 + b × 0x40, 0x40 each
//   Responses: an address without a register -> TLM_ADDRESS_ERROR_RESPONSE; a write to a
//   read-only register -> TLM_COMMAND_ERROR_RESPONSE; a write leaving a state the kernel cannot
//   run (tdm_dma_slots > tdm_max_slots, a DWRR weight 0, an enabled throttle with window 0) ->
//   TLM_GENERIC_ERROR_RESPONSE, the register unchanged; length other than 4 ->
//   TLM_BURST_ERROR_RESPONSE; byte enables -> TLM_BYTE_ENABLE_ERROR_RESPONSE.
//
// The register blocks start from the configuration (load), so a user config that sets
// tdm.dma_slots = 2 reads back as tdm_cfg.tdm_dma_slots = 2. A write of an arbiter, TDM,
// throttler or arr_seq register marks the settings stale: under the clocked scheduler the arbiter
// takes them (take_reprogram: Kernel::reprogram, and the PE-array sequencer's front-end) after
// the cycle being arbitrated, so they act from the next cycle. axi2sram_config and the ERG
// blocks act at once (the bridge and the banks read them on every access). effective_params()
// exports the whole register state.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "models/engines/arr_seq.h"
#include "models/address/axi2sram.h"
#include "models/config/csr_block.h"
#include "models/address/psum_bank.h"
#include "models/address/sbuf_bank.h"
#include "models/config/sbuf_cluster_csr.h"
#include "sbufsim/address/address.h"
#include "sbufsim/config/params.h"
#include "models/kernel/tdm.h"
#include "models/kernel/throttler.h"

namespace sbufsim {
struct Stats;
}

namespace sbufsim::models {

// What one initiator bound to Tpb::axi_socket moved (in binding order).
struct AxiPortCounters {
    std::uint64_t transactions = 0;  // b_transport calls
    std::uint64_t bytes = 0;         // payload bytes of the transactions answered OK
    std::uint64_t errors = 0;        // transactions answered with an error response
};

struct TpbOptions {
    EccBankOptions banks;      // functional backing store (off by default) and erg_type at reset
    Axi2SramOptions axi2sram;  // address forms and timing of the bridge
};

class Tpb : public sc_core::sc_module, public CsrOwner {
public:
    // Bases of the register blocks in csr_socket's window (INFERRED, see above).
    static constexpr std::uint64_t kSbufClusterBase = 0x0000000;
    static constexpr std::uint64_t kPoolActBase = 0x0001000;
    static constexpr std::uint64_t kArrSeqTopBase = 0x0002000;
    static constexpr std::uint64_t kArrSeqClusterBase = 0x0003000;
    static constexpr std::uint64_t kSbufErgBase = 0x0d10000;  // seed 000 §3: 0x..D10000
    static constexpr std::uint64_t kSbufErgClusterStride = 0x2000, kSbufErgHalfStride = 0x1000;
    static constexpr std::uint64_t kPsumErgBase = 0x2c10000;  // seed 000 §4: 0x..2C10000
    static constexpr std::uint64_t kPsumErgClusterStride = 0x1000, kPsumErgBankStride = 0x40;

    tlm_utils::multi_passthrough_target_socket_optional<Tpb> axi_socket;
    // May stay unbound (a platform without a register master).
    tlm_utils::simple_target_socket_optional<Tpb> csr_socket;

    // Throws std::invalid_argument when the bank counts of `p` do not fit its geometry.
    // `sequencer` hands arr_seq its front-end under the clocked scheduler (arr_seq.h).
    Tpb(const sc_core::sc_module_name& name, const Params& p, TpbOptions options = {},
        const SequencerBinding& sequencer = {});

    const Params& params() const { return params_; }
    const AddressMap& address_map() const { return map_; }

    std::size_t sbuf_bank_count() const { return sbuf_banks_.size(); }
    std::size_t psum_bank_count() const { return psum_banks_.size(); }
    SbufBank& sbuf_bank(std::uint32_t index);  // cluster × 2 + half
    SbufBank& sbuf_bank(std::uint32_t cluster, std::uint32_t half) { return sbuf_bank(cluster * 2 + half); }
    PsumBank& psum_bank(std::uint32_t index);  // cluster × psum.banks + bank
    PsumBank& psum_bank(std::uint32_t cluster, std::uint32_t bank) {
        return psum_bank(cluster * params_.psum.banks + bank);
    }
    Axi2Sram& axi2sram() { return *axi2sram_; }
    const Axi2Sram& axi2sram() const { return *axi2sram_; }
    // The counters of the `port`-th initiator bound to axi_socket (zero for one that has sent
    // nothing yet) and how many ports have sent something.
    AxiPortCounters axi_port(std::size_t port) const {
        return port < axi_ports_.size() ? axi_ports_[port] : AxiPortCounters{};
    }
    std::size_t axi_ports_used() const { return axi_ports_.size(); }
    Tdm& tdm() { return *tdm_; }
    Throttler& throttler(ThrottledEngine e) { return *throttlers_[static_cast<std::uint32_t>(e)]; }
    ArrSeq& arr_seq() { return *arr_seq_; }

    // Host register access by csr_socket address (what b_transport does). Throw CsrError for an
    // address without a register, CsrReadOnlyError, CsrStateError as listed above.
    std::uint32_t csr_read(std::uint64_t addr) const;
    void csr_write(std::uint64_t addr, std::uint32_t value);

    // The same by offset inside tpb_sbuf_cluster / tpb_sbuf_pool_act.
    std::uint32_t read_sbuf_cluster_csr(std::uint32_t offset) const {
        return csr_read(kSbufClusterBase + offset);
    }
    void write_sbuf_cluster_csr(std::uint32_t offset, std::uint32_t value) {
        csr_write(kSbufClusterBase + offset, value);
    }
    std::uint32_t read_pool_act_csr(std::uint32_t offset) const { return csr_read(kPoolActBase + offset); }
    void write_pool_act_csr(std::uint32_t offset, std::uint32_t value) {
        csr_write(kPoolActBase + offset, value);
    }
    const SbufClusterCsr& sbuf_cluster_csr() const { return cluster_csr_; }

    // The configuration with the register state exported into it: what the kernel and the
    // sequencer run with after the host's writes.
    Params effective_params() const;
    // True once after a write of an arbiter, TDM, throttler or arr_seq register: `out` = the
    // settings the kernel should take; the tdm module and the sequencer front-end follow them.
    bool take_reprogram(Params& out);
    bool reprogram_pending() const { return reprogram_; }

    // Flips bit `bit` (0..7) of the byte at a 29-bit PartitionOffset (SBUF or PSUM), in the ECC
    // bank that holds it. Throws std::invalid_argument for an address without SRAM behind it.
    void inject_bit_flip(std::uint32_t addr, unsigned bit);

    // Adds the kernel's per-bank arbitration counts (stats.banks: the SBUF banks, then PSUM).
    // Throws std::invalid_argument when the bank counts differ.
    void add_kernel_stats(const Stats& s);

    std::vector<const CsrBlock*> csr_blocks() const override { return {&cluster_csr_}; }

private:
    struct CsrWindow {
        std::uint64_t base, size;  // socket addresses [base, base + size)
        std::uint64_t block_base;  // address of the block's offset 0
        CsrBlock* block;
        bool kernel;  // the replay runs with its registers (arbiter, TDM, throttler, arr_seq)
    };
    void build_sbuf_banks(const EccBankOptions& o);
    void build_psum_banks(const EccBankOptions& o);
    void build_csr_map();
    const CsrWindow& window(std::uint64_t addr) const;
    void csr_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
    void axi_transport(int port, tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
    bool axi_dmi(int port, tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi);

    Params params_;
    AddressMap map_;
    std::vector<std::unique_ptr<SbufBank>> sbuf_banks_;
    std::vector<std::unique_ptr<PsumBank>> psum_banks_;
    std::unique_ptr<Axi2Sram> axi2sram_;
    tlm_utils::simple_initiator_socket<Tpb> to_axi2sram_{"to_axi2sram"};  // the fabric's one link on
    std::vector<AxiPortCounters> axi_ports_;
    std::unique_ptr<Tdm> tdm_;
    std::vector<std::unique_ptr<Throttler>> throttlers_;
    std::unique_ptr<ArrSeq> arr_seq_;
    SbufClusterCsr cluster_csr_;
    std::vector<CsrWindow> csr_map_;
    bool reprogram_ = false;
};

}  // namespace sbufsim::models
