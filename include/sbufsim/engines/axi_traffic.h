// What an AXI master engine (a DMA engine, a Q7 core; seed 000 §7.3) tells a data path when an
// instruction retires: the SBUF side it moved, which the kernel has by then granted in full.
//
// Both schedulers decide everything through the kernel; a data path only moves the bytes after
// the decision (the clocked scheduler's TLM initiators, models/axi_master.h, call axi2sram's
// b_transport with them). Without a sink attached (the fast scheduler) nothing is called, and
// attaching one changes no statistic.
#pragma once

#include <cstdint>

#include "sbufsim/engines/tensor_access.h"
#include "sbufsim/kernel/request.h"

namespace sbufsim {

struct AxiTransfer {
    std::uint64_t line = 0;  // the trace line of the instruction
    TensorAccess rd;         // SBUF side read (SBUF->HBM, SBUF->SBUF, a Q7 load); absent otherwise
    TensorAccess wr;         // SBUF side written (HBM->SBUF, SBUF->SBUF, a Q7 store); absent otherwise
    // A DMA transpose through the axi2sram crossbar (seed 000 §6.2): `wr` holds this share's
    // destination partitions, each receiving `src_rows` elements of wr.elem_bytes; the share's
    // columns are [first_col, first_col + wr.parts) of the record's source tile, whose rows are
    // the partitions of `rd` when the source is on chip.
    bool transpose = false;
    std::uint32_t src_rows = 0;
    std::uint32_t first_col = 0;
    Cycle start = 0;    // the instruction started
    Cycle granted = 0;  // the kernel granted its last SBUF beat in this cycle
    Cycle retired = 0;  // the instruction retired (its data is through)
};

// Told of every retired instruction of the engines it is attached to, in retirement order.
class AxiTrafficSink {
public:
    virtual void moved(const AxiTransfer& t) = 0;

protected:
    ~AxiTrafficSink() = default;
};

}  // namespace sbufsim
