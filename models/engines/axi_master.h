// axi_master: the AXI side of one DMA engine or Q7 core under the clocked scheduler (seed 000
// §7.3: the DMA queues and the GpSimd cores reach SBUF only through axi2sram). A TLM-2.0
// initiator bound to the tpb's axi_socket that moves the data of every instruction its engine
// retires through the bridge's b_transport, so the ECC banks' backing store sees the trace's
// traffic and a platform's own initiator shares the bridge with it.
//
// Timing stays the kernel's: the engine (src/engines) decided when each beat was granted, and
// the master hears of the instruction when it retires (AxiTrafficSink, axi_traffic.h) — the
// first rising edge at which the kernel has granted all its SBUF beats. The transactions are
// issued then, marked kernel_timed (the bridge adds no beat delay: the bank slots were the
// kernel's grants) and annotated with the kernel's grant cycles; the delay they return is zero.
//
// Transactions (one b_transport per SBUF partition, at the SoC address of TPB_0_STATE_BUF, seed
// 002 §1):
//   HBM -> SBUF, Q7 store   a write of each partition's [offset, offset + bytes); HBM has no
//                           model, so the bytes are hbm_byte(line, row, k) (below)
//   SBUF -> HBM, Q7 load    a read of each partition's range; the data goes nowhere further
//   SBUF -> SBUF            a read of each source partition, then a write of the same bytes
//   transpose (§6.2)        one write in the bridge's transpose mode per share: the source tile
//                           (src_rows rows of this share's columns, read from SBUF or made by
//                           hbm_byte) is turned by the crossbar into the destination partitions
// The range is the one the kernel charged: [offset, offset + bytes) of each partition, the span
// of the operand's access pattern.
//
// An error response (a bank shut down through its ERG CSR, transpose or read-add-write turned
// off in axi2sram_config, an address outside STATE_BUF) does not stop the replay — the timing
// was decided — it counts in counters().errors and first_error() keeps the bridge's reason.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "models/address/axi2sram.h"
#include "sbufsim/address/address.h"
#include "sbufsim/config/params.h"
#include "sbufsim/engines/axi_traffic.h"

namespace sbufsim::models {

struct AxiMasterCounters {
    std::uint64_t instructions = 0;   // retired instructions with an SBUF side
    std::uint64_t transactions = 0;   // b_transport calls
    std::uint64_t bytes_read = 0;     // payload bytes read from SBUF (responses OK)
    std::uint64_t bytes_written = 0;  // payload bytes written into SBUF (responses OK)
    std::uint64_t errors = 0;         // transactions answered with an error response
    Cycle last_granted = 0;           // the kernel's grant cycle of the last instruction moved
};

class AxiMaster : public sc_core::sc_module, public AxiTrafficSink {
public:
    tlm_utils::simple_initiator_socket<AxiMaster> socket{"socket"};

    AxiMaster(const sc_core::sc_module_name& name, const Params& p);

    // The byte HBM supplies at byte k of row `row` (a partition, or a transpose's source row) of
    // the instruction at trace line `line`: a pattern a test can recompute.
    static std::uint8_t hbm_byte(std::uint64_t line, std::uint32_t row, std::uint32_t k) {
        return static_cast<std::uint8_t>(line * 31 + row * 7 + k);
    }

    void moved(const AxiTransfer& t) override;

    const AxiMasterCounters& counters() const { return counters_; }
    const std::string& first_error() const { return first_error_; }

private:
    // One b_transport of `len` bytes at 29-bit PartitionOffset `addr`; false on an error response.
    bool transport(tlm::tlm_command cmd, std::uint32_t addr, std::uint8_t* data, std::uint32_t len,
                   const AxiTransfer& t, Axi2SramExtension* mode = nullptr);
    void copy(const AxiTransfer& t);
    void transpose(const AxiTransfer& t);

    AddressMap map_;
    std::uint64_t soc_base_;
    std::uint64_t region_offset_;
    std::vector<std::uint8_t> buf_, tile_;  // staging, reused
    tlm::tlm_generic_payload payload_;      // reused: a payload allocates its extension slots
    Axi2SramExtension ext_;                 // kernel_timed plain transfers
    AxiMasterCounters counters_;
    std::string first_error_;
};

}  // namespace sbufsim::models
