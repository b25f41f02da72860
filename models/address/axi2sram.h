// axi2sram: the AXI -> SBUF bridge of the TPB (tpb_sbuf_cluster.json axi2sram_config, seed 000
// §6.1–§6.2, §7.3–§7.4). The only way an AXI master (DMA queues, the Q7/GpSimd cores) reaches
// SBUF; PSUM has no AXI aperture, so a PSUM address is refused (the keystone of seed 000 §7.4).
//
// TLM-2.0 target: `socket` (tlm_utils::simple_target_socket, 32-bit bus width parameter of the
// TLM convention), b_transport only, DMI off (get_direct_mem_ptr returns false, dmi_allowed is
// cleared on every response).
//
// Addresses: SoC addresses inside TPB_0_STATE_BUF [sbuf.soc_base, + sbuf.region_size) (seed 002
// §1). With Axi2SramOptions::accept_partition_offset, a 29-bit PartitionOffset below
// TPB_PARTITION_ADDR_MASK is accepted too (a test or trace convenience; the real master sees SoC
// addresses). A burst must stay inside partitions' active SRAM (no decode pad, seed 000 §1).
//
// Modes, chosen by an Axi2SramExtension on the payload (no extension = plain read/write):
//  * plain     read or write of data_length bytes at the address, through the ECC banks.
//  * transpose (write only; axi2sram_transpose_en.transpose_en must be 1) — the 16-row crossbar
//              tile of seed 000 §6.2. The payload is the source tile in row-major order: 16 rows
//              of tile_cols elements of `dtype`. Element (r, c) lands in destination partition
//              p0 + c at byte offset off + r × dtype_size, where (p0, off) is the decoded
//              address: N = tile_cols source columns become N destination partitions, each holding
//              the 16 elements of one column. Rules (isa_rules.h): tile_rows == 16; tile_cols
//              1..128 for a 2-byte, 1..64 for a 4-byte dtype; destination 32-byte aligned.
//  * read_add_write (write only; raw_config.raw_en must be 1) — the Read-Add-Write block of seed
//              000 §6.1: each element of the payload is added to the stored element and the sum is
//              written back. fp32 and bf16 (sum in fp32, rounded to nearest-even for bf16).
//              raw_conv.sns / .sis saturate a NaN / an infinite result to the largest finite value
//              of the dtype with the result's sign (INFERRED meaning of "non-FP8 NaN/Inf
//              saturate"); without them NaN and Inf are stored as IEEE arithmetic gives them.
//
// Responses: TLM_ADDRESS_ERROR_RESPONSE for an address outside STATE_BUF (PSUM included) or a
// burst into the decode pad; TLM_GENERIC_ERROR_RESPONSE for a tile/mode rule broken, a disabled
// mode, a bank in shutdown, or a read whose data an ECC/parity check flagged (AXI SLVERR; the data
// is still delivered, INFERRED); TLM_COMMAND_ERROR_RESPONSE for a transpose/read-add-write read;
// TLM_BYTE_ENABLE_ERROR_RESPONSE for byte enables; TLM_BURST_ERROR_RESPONSE for a streaming width
// below the data length. The reason is in the extension's report and in last_report().
//
// Timing (INFERRED, kept simple): one beat per `beat_bytes` (default q7.bus_bytes, the 512-bit
// AXI bus of seed 000 §1.1; dma.data_width is the alternative) per kernel cycle, cycle = 1 /
// pe.clock_ghz by default (there is no SBUF clock key yet). plain: ceil(len / beat) beats;
// transpose: tile_cols × ceil(16 × dtype_size / beat) beats (each destination partition is its own
// beat); read-add-write: twice ceil(len / beat) (a read and a write slot, DESIGN.md kernel step 6).
// The cost is added to the b_transport delay; errors cost nothing. Contention is the kernel's
// business, not this bridge's: a transaction whose extension says kernel_timed (the clocked
// scheduler's DMA queues and Q7 cores, whose beats the kernel granted) costs nothing here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "models/address/sbuf_bank.h"
#include "sbufsim/address/address.h"
#include "sbufsim/address/isa_rules.h"
#include "sbufsim/config/params.h"

namespace sbufsim::models {

enum class Axi2SramMode : std::uint8_t { plain, transpose, read_add_write };
const char* to_string(Axi2SramMode m);

// What one b_transport did.
struct Axi2SramReport {
    tlm::tlm_response_status status = tlm::TLM_INCOMPLETE_RESPONSE;
    std::string reason;            // empty on success
    std::uint32_t banks = 0;       // bit i: SBUF ECC bank i was read or written
    std::uint32_t beats = 0;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;  // added to the b_transport delay
    std::uint32_t corrected = 0;   // words ECC corrected on the way
    std::uint32_t detected = 0;    // words flagged by ECC/parity
};

// Request side set by the initiator; `report` filled in by axi2sram.
struct Axi2SramExtension : tlm::tlm_extension<Axi2SramExtension> {
    Axi2SramMode mode = Axi2SramMode::plain;
    Dtype dtype = Dtype::bf16;     // element type of transpose / read-add-write
    std::uint32_t tile_rows = 16;  // transpose: tile_src_rows (must be 16)
    std::uint32_t tile_cols = 0;   // transpose: tile_src_cols
    // Set by an initiator whose bank slots the kernel has already granted (the clocked
    // scheduler's DMA queues and Q7 cores, axi_master.h): the bridge adds no beat delay of its
    // own, and report.delay stays zero.
    bool kernel_timed = false;
    std::uint64_t granted_cycle = 0;  // kernel_timed: the cycle the kernel granted the last beat
    Axi2SramReport report;

    tlm::tlm_extension_base* clone() const override { return new Axi2SramExtension(*this); }
    void copy_from(const tlm::tlm_extension_base& e) override {
        *this = static_cast<const Axi2SramExtension&>(e);
    }
};

struct Axi2SramOptions {
    bool accept_partition_offset = false;  // also take 29-bit PartitionOffset addresses
    std::uint32_t beat_bytes = 0;          // 0: q7.bus_bytes
    double cycle_ns = 0;                   // 0: 1 / pe.clock_ghz
};

struct Axi2SramCounters {
    std::uint64_t reads = 0, writes = 0, transposes = 0, read_add_writes = 0;
    std::uint64_t bytes = 0;           // payload bytes of successful transactions
    std::uint64_t address_errors = 0;  // TLM_ADDRESS_ERROR_RESPONSE (PSUM, outside, decode pad)
    std::uint64_t other_errors = 0;    // every other error response
};

class Axi2Sram : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<Axi2Sram> socket;

    // `banks[i]` is SBUF ECC bank i (cluster × 2 + half); the bridge does not own them.
    // Throws std::invalid_argument when the count does not match the geometry.
    Axi2Sram(const sc_core::sc_module_name& name, const Params& p, std::vector<SbufBank*> banks,
             Axi2SramOptions options = {});

    // The axi2sram_config CSR state (tpb keeps it in step with sbuf_cluster_csr).
    void set_config(const Axi2SramParams& c) { cfg_ = c; }
    const Axi2SramParams& config() const { return cfg_; }

    void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);

    const Axi2SramReport& last_report() const { return report_; }
    const Axi2SramCounters& counters() const { return counters_; }
    std::uint32_t beat_bytes() const { return beat_bytes_; }
    const sc_core::sc_time& cycle() const { return cycle_; }

private:
    // A piece of a burst that lies in one bank: payload bytes [pos, pos + len) at `addr`.
    struct Segment {
        std::uint32_t addr;
        std::uint32_t pos;
        std::uint32_t len;
        std::uint32_t bank;
    };

    void serve(tlm::tlm_generic_payload& t, const Axi2SramExtension* ext);
    bool resolve(std::uint64_t address, std::uint64_t len, std::uint32_t& addr);
    bool plan(std::uint32_t addr, std::uint32_t len, std::uint32_t pos, std::vector<Segment>& out);
    bool banks_up(const std::vector<Segment>& segs);
    void read_segments(const std::vector<Segment>& segs, std::uint8_t* data);
    void write_segments(const std::vector<Segment>& segs, const std::uint8_t* data);
    void plain(tlm::tlm_generic_payload& t, std::uint32_t addr);
    void transpose(tlm::tlm_generic_payload& t, std::uint32_t addr, const Axi2SramExtension& ext);
    void read_add_write(tlm::tlm_generic_payload& t, std::uint32_t addr, const Axi2SramExtension& ext);
    void fail(tlm::tlm_response_status s, std::string why);
    std::uint32_t beats_for(std::uint64_t bytes) const {
        return static_cast<std::uint32_t>((bytes + beat_bytes_ - 1) / beat_bytes_);
    }

    AddressMap map_;
    IsaParams isa_;
    std::uint64_t soc_base_;
    std::uint64_t soc_end_;
    std::uint64_t psum_soc_base_;
    std::uint64_t psum_soc_end_;  // == base when the generation has no PSUM
    std::vector<SbufBank*> banks_;
    Axi2SramParams cfg_;
    bool accept_partition_offset_;
    std::uint32_t beat_bytes_;
    sc_core::sc_time cycle_;
    Axi2SramReport report_;
    Axi2SramCounters counters_;
};

}  // namespace sbufsim::models
