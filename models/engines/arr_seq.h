// arr_seq: the PE-array sequencer (seed 000 §5.6) as a module of the tpb: its two host-visible
// CSR blocks, and, under the clocked scheduler, the process that steps the sequencer's plain-C++
// front-end (src/engines/arr_seq.cpp) on every rising edge of the PE clock and in every delta
// cycle in which another engine changed something (as engine_shell.h does for the others).
//
//   arr_seq_top (tpb_arr_seq_top_host_visible.json)
//     queue_cfg @0x0  fifo_size_sel[0] bypass_peregwrite_instr[4] disable_dependency_check[8]
//                     disable_bg_xpose[12] rst 1, disable_tagweight_mode[16] rst 1 -> 0x00011000
//     arr_seq_ififo_perf_matmul @0x100 (INFERRED offset)  49 x {lsb, msb} read-only counters
//   arr_seq_cluster (tpb_arr_seq_cluster_host_visible.json)
//     arr_cluster_cfg @0x0  enable_wl_last_active_col[0] flush_p2f_fifos[4] matmul_done_last[8]
//                           en_inter_instr_dly[12] inter_instr_dly_cnt[21:16] rst 8
//                           p2fifo_af[26:24] rst 2 -> 0x02080000
//     array_stagger_rg{0,1,2,3}_ctrl1 @0x18/0x1c/0x20/0x24  rg_ctrl1[15:0] (reset 0, INFERRED)
// Both blocks start from the configuration's arr_seq.* keys. The perf counters are keyed by tile
// shape, whose order the seed does not give: they read 0 and refuse writes. Under the clocked
// scheduler a write acts from the next cycle, as the arbiter's, TDM's and throttlers' do: the
// arbiter hands the sequencer front-end the new state after the cycle being arbitrated
// (reprogram(), sbuf_arbiter.h). Signals queue_cfg and arr_cluster_cfg show the two registers
// (tpb.arr_seq.queue_cfg / arr_cluster_cfg in a VCD).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

#include "models/engines/clocked_link.h"
#include "models/config/csr_block.h"
#include "sbufsim/config/params.h"
#include "sbufsim/engines/arr_seq.h"
#include "sbufsim/engines/engine.h"

namespace sbufsim::models {

// What the clocked scheduler hands the sequencer module (clocked_replay.h).
struct SequencerBinding {
    ::sbufsim::ArrSeq* engine = nullptr;  // the replay's PE-array sequencer front-end
    const Kernel* kernel = nullptr;  // gives the cycle: it has simulated every cycle before now()
    ClockedLink* link = nullptr;     // the activity event the engines share, the failure slot
};

class ArrSeqTopCsr : public CsrBlock {
public:
    static constexpr std::uint32_t kQueueCfg = 0x0;
    static constexpr std::uint32_t kPerfMatmul = 0x100;  // INFERRED: the seed gives no offset
    static constexpr std::uint32_t kPerfCounters = 49;   // 64-bit, {lsb, msb} each
    static constexpr std::uint32_t kSizeBytes = 0x300;
    static constexpr std::uint32_t kQueueCfgReset = 0x00011000;

    void reset() { queue_cfg_ = kQueueCfgReset; }
    void load(const ArrSeqParams& p);
    void export_to(ArrSeqParams& p) const;

    std::string csr_block_name() const override { return "arr_seq_top"; }
    std::vector<CsrRegisterView> csr_registers() const override;
    std::uint32_t csr_read(std::uint32_t offset) const override;
    void csr_write(std::uint32_t offset, std::uint32_t value) override;

private:
    std::uint32_t queue_cfg_ = kQueueCfgReset;
};

class ArrSeqClusterCsr : public CsrBlock {
public:
    static constexpr std::uint32_t kArrClusterCfg = 0x0;
    static constexpr std::uint32_t kStaggerRg0 = 0x18;  // rg1 @0x1c, rg2 @0x20, rg3 @0x24
    static constexpr std::uint32_t kSizeBytes = 0x28;
    static constexpr std::uint32_t kArrClusterCfgReset = 0x02080000;

    void reset();
    void load(const ArrSeqParams& p);
    void export_to(ArrSeqParams& p) const;

    std::string csr_block_name() const override { return "arr_seq_cluster"; }
    std::vector<CsrRegisterView> csr_registers() const override;
    std::uint32_t csr_read(std::uint32_t offset) const override;
    void csr_write(std::uint32_t offset, std::uint32_t value) override;

private:
    std::uint32_t cfg_ = kArrClusterCfgReset;
    std::array<std::uint32_t, 4> stagger_{};
};

class ArrSeq : public sc_core::sc_module, public CsrOwner {
public:
    SC_HAS_PROCESS(ArrSeq);

    // The PE clock; bound by the clocked scheduler (a tpb outside a replay leaves it open). A port
    // like the engine shells' keeps the processes' order on the clock edge the fast scheduler's.
    sc_core::sc_port<sc_core::sc_signal_in_if<bool>, 1, sc_core::SC_ZERO_OR_MORE_BOUND> clk{"clk"};
    // Not idle: something queued or in flight (driven while waveforms are recorded).
    sc_core::sc_signal<bool> busy{"busy"};
    // The registers queue_cfg (arr_seq_top @0x0) and arr_cluster_cfg (arr_seq_cluster @0x0),
    // written with them (csr_written()).
    sc_core::sc_signal<std::uint32_t, sc_core::SC_MANY_WRITERS> queue_cfg{"queue_cfg"};
    sc_core::sc_signal<std::uint32_t, sc_core::SC_MANY_WRITERS> arr_cluster_cfg{"arr_cluster_cfg"};

    // Without a binding the module holds the CSR blocks only (a tpb outside a replay); with one,
    // `clk` must be bound before the simulation starts.
    ArrSeq(const sc_core::sc_module_name& name, const ArrSeqParams& p, const SequencerBinding& binding = {});

    ArrSeqTopCsr& top_csr() { return top_; }
    ArrSeqClusterCsr& cluster_csr() { return cluster_; }
    // Decodes both blocks into p.
    void export_to(ArrSeqParams& p) const;
    // After a host write of either block: the signals follow the registers.
    void csr_written();
    // The sequencer front-end runs with `p` from its next step (no-op without a binding).
    void reprogram(const ArrSeqParams& p) {
        if (bound_.engine) bound_.engine->reprogram(p);
    }

    std::uint64_t activations() const { return activations_; }
    void set_traced(bool on) { traced_ = on; }
    std::vector<const CsrBlock*> csr_blocks() const override { return {&top_, &cluster_}; }

private:
    void step();

    ArrSeqTopCsr top_;
    ArrSeqClusterCsr cluster_;
    SequencerBinding bound_;
    sc_core::sc_event_finder_t<sc_core::sc_signal_in_if<bool>> clk_pos_{
        clk, &sc_core::sc_signal_in_if<bool>::posedge_event};
    std::uint64_t activations_ = 0;
    bool traced_ = false;
};

}  // namespace sbufsim::models
