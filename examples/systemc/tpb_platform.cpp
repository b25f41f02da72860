// An sc_main of a virtual platform that embeds one sbufsim TPB: a small host/traffic generator
// programs the TPB's CSRs over TLM (csr_socket), moves data into and out of SBUF through the
// axi2sram bridge from two AXI initiators sharing the TPB's axi_socket, and the platform prints
// what the TPB counted.
//
//   tpb_platform [GENERATION]     (default cayman; configs from SBUFSIM_CONFIG_DIR or the install)
#include <cstdint>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "sbufsim/config/config.h"
#include "models/top/tpb.h"

using sbufsim::models::Tpb;

// The host: one CSR initiator (a CPU on the control plane) and two AXI initiators (two DMA
// queues), both bound to the TPB's axi_socket.
struct TrafficGenerator : sc_core::sc_module {
    SC_HAS_PROCESS(TrafficGenerator);
    tlm_utils::simple_initiator_socket<TrafficGenerator> csr{"csr"};
    tlm_utils::simple_initiator_socket<TrafficGenerator> axi{"axi"};
    tlm_utils::simple_initiator_socket<TrafficGenerator> axi2{"axi2"};

    TrafficGenerator(const sc_core::sc_module_name& n, std::uint64_t sbuf_base,
                     std::uint64_t partition_stride)
        : sc_core::sc_module(n), sbuf_base_(sbuf_base), stride_(partition_stride) {
        SC_THREAD(run);
    }

    bool ok = true;
    std::uint64_t bytes_moved = 0;

private:
    tlm::tlm_response_status transport(tlm_utils::simple_initiator_socket<TrafficGenerator>& s,
                                       tlm::tlm_command cmd, std::uint64_t addr, unsigned char* data,
                                       unsigned len) {
        tlm::tlm_generic_payload pl;
        pl.set_command(cmd);
        pl.set_address(addr);
        pl.set_data_ptr(data);
        pl.set_data_length(len);
        pl.set_streaming_width(len);
        pl.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        s->b_transport(pl, delay);
        wait(delay);  // the bridge's beats; the CSRs answer at once
        return pl.get_response_status();
    }
    std::uint32_t csr_read(std::uint64_t addr) {
        std::uint32_t v = 0;
        check(transport(csr, tlm::TLM_READ_COMMAND, addr, reinterpret_cast<unsigned char*>(&v), 4),
              "CSR read");
        return v;
    }
    void csr_write(std::uint64_t addr, std::uint32_t v) {
        check(transport(csr, tlm::TLM_WRITE_COMMAND, addr, reinterpret_cast<unsigned char*>(&v), 4),
              "CSR write");
    }
    void check(tlm::tlm_response_status s, const char* what) {
        if (s == tlm::TLM_OK_RESPONSE) return;
        std::cout << what << " failed: response " << s << "\n";
        ok = false;
    }

    void run() {
        const std::uint64_t tdm_cfg = Tpb::kSbufClusterBase + sbufsim::models::Tdm::kBlockOffset;
        std::cout << "tdm_cfg at reset:      0x" << std::hex << csr_read(tdm_cfg) << std::dec << "\n";
        csr_write(tdm_cfg, (2u << 16) | 8u);  // two DMA slots of eight
        std::cout << "tdm_cfg programmed:    0x" << std::hex << csr_read(tdm_cfg) << std::dec << "\n";
        // Throttle ACT reads: 4 beats per 32-cycle window (act_throttler.rd_throttle_cfg1/cfg0).
        csr_write(Tpb::kPoolActBase + 0x104, (4u << 16) | 32u);
        csr_write(Tpb::kPoolActBase + 0x100, 0);
        // A refused access: a DWRR weight of 0 in arb_stage2.arb_weight.
        std::uint32_t zero = 0x01111;
        const auto refused = transport(csr, tlm::TLM_WRITE_COMMAND, Tpb::kSbufClusterBase + 0x104,
                                       reinterpret_cast<unsigned char*>(&zero), 4);
        std::cout << "weight 0 refused:      " << (refused == tlm::TLM_GENERIC_ERROR_RESPONSE ? "yes" : "NO")
                  << "\n";
        ok = ok && refused == tlm::TLM_GENERIC_ERROR_RESPONSE;

        // DMA traffic: 512 bytes into each of 16 partitions (two per SBUF cluster), read back;
        // the even partitions from the first initiator, the odd ones from the second.
        std::vector<unsigned char> out(512), in(512);
        for (std::uint32_t k = 0; k < 16; ++k) {
            auto& port = k % 2 ? axi2 : axi;
            const std::uint64_t addr = sbuf_base_ + (8 * k) * stride_ + 0x100;
            for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<unsigned char>(i * 7 + k);
            check(transport(port, tlm::TLM_WRITE_COMMAND, addr, out.data(), 512), "AXI write");
            check(transport(port, tlm::TLM_READ_COMMAND, addr, in.data(), 512), "AXI read");
            if (in != out) {
                std::cout << "data mismatch in partition " << 8 * k << "\n";
                ok = false;
            }
            bytes_moved += 2 * out.size();
        }
    }

    std::uint64_t sbuf_base_, stride_;
};

int sc_main(int argc, char* argv[]) {
    sbufsim::LoadRequest req;
    req.generation = argc > 1 ? argv[1] : "cayman";
    const sbufsim::LoadedConfig cfg = sbufsim::load_config(req);

    sbufsim::models::TpbOptions o;
    o.banks.functional = true;  // keep the data the traffic writes
    Tpb tpb("tpb", cfg.params, o);
    TrafficGenerator host("host", cfg.params.sbuf.soc_base, cfg.params.sbuf.partition_stride);
    host.csr.bind(tpb.csr_socket);
    host.axi.bind(tpb.axi_socket);
    host.axi2.bind(tpb.axi_socket);  // a multi-initiator socket: the AXI fabric before axi2sram
    sc_core::sc_start();

    const sbufsim::Params effective = tpb.effective_params();
    std::cout << "generation:            " << cfg.params.generation << "\n"
              << "simulated time:        " << sc_core::sc_time_stamp() << "\n"
              << "bytes moved over AXI:  " << host.bytes_moved << "\n"
              << "TDM split the kernel would run: " << effective.tdm.dma_slots << " DMA of "
              << effective.tdm.max_slots << " slots; act_rd throttle "
              << (effective.throttler.act_rd.enable ? "on" : "off") << " ("
              << effective.throttler.act_rd.transfer_cnt << " beats / "
              << effective.throttler.act_rd.window_len << " cycles)\n"
              << "bank  reads  writes  bytes\n";
    std::uint64_t bytes = 0;
    for (std::uint32_t b = 0; b < tpb.sbuf_bank_count(); ++b) {
        const auto& c = tpb.sbuf_bank(b).counters();
        bytes += c.bytes_read + c.bytes_written;
        if (c.reads || c.writes)
            std::cout << tpb.sbuf_bank(b).basename() << "  " << c.reads << "  " << c.writes << "  "
                      << c.bytes_read + c.bytes_written << "\n";
    }
    const auto port0 = tpb.axi_port(0), port1 = tpb.axi_port(1);
    std::cout << "AXI port 0 / 1:        " << port0.transactions << " / " << port1.transactions
              << " transactions, " << port0.bytes << " / " << port1.bytes << " bytes\n";
    const bool counted = bytes == host.bytes_moved && port0.bytes + port1.bytes == host.bytes_moved &&
                         port0.transactions == 16 && port1.transactions == 16;
    std::cout << "bank bytes add up:     " << (counted ? "yes" : "NO") << "\n"
              << (host.ok && counted ? "tpb_platform: ok" : "tpb_platform: FAILED") << "\n";
    return host.ok && counted ? 0 : 1;
}
