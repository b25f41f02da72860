// axi2sram under a running simulation: an AXI master thread writes and reads through the tpb's
// socket and waits out the annotated delay, so simulated time advances by one kernel cycle per bus
// beat. The only test in this file: SystemC allows one sc_start-simulation per process.
#include <gtest/gtest.h>

#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "models/top/tpb.h"

using namespace sbufsim;
using namespace sbufsim::models;

namespace {

struct Master : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Master> socket{"socket"};
    std::vector<std::uint8_t> written = std::vector<std::uint8_t>(128), back = std::vector<std::uint8_t>(128);
    tlm::tlm_response_status write_status = tlm::TLM_INCOMPLETE_RESPONSE, read_status = tlm::TLM_INCOMPLETE_RESPONSE;
    tlm::tlm_response_status psum_status = tlm::TLM_INCOMPLETE_RESPONSE;
    sc_core::sc_time after_write, after_read;

    SC_HAS_PROCESS(Master);
    explicit Master(const sc_core::sc_module_name& n) : sc_core::sc_module(n) { SC_THREAD(run); }

    tlm::tlm_response_status go(tlm::tlm_command cmd, std::uint64_t addr, std::vector<std::uint8_t>& data) {
        tlm::tlm_generic_payload t;
        t.set_command(cmd);
        t.set_address(addr);
        t.set_data_ptr(data.data());
        t.set_data_length(static_cast<unsigned>(data.size()));
        t.set_streaming_width(static_cast<unsigned>(data.size()));
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        socket->b_transport(t, delay);
        wait(delay);  // no temporal decoupling here: the master pays the cost at once
        return t.get_response_status();
    }
    void run() {
        for (std::size_t i = 0; i < written.size(); ++i) written[i] = static_cast<std::uint8_t>(3 * i + 1);
        write_status = go(tlm::TLM_WRITE_COMMAND, 0x2000000000 + 17 * 0x40000, written);
        after_write = sc_core::sc_time_stamp();
        read_status = go(tlm::TLM_READ_COMMAND, 0x2000000000 + 17 * 0x40000, back);
        after_read = sc_core::sc_time_stamp();
        std::vector<std::uint8_t> psum(64);
        psum_status = go(tlm::TLM_WRITE_COMMAND, 0x2802000000, psum);
    }
};

}  // namespace

TEST(Axi2SramSim, Master_sees_its_data_and_pays_one_cycle_per_beat) {
    TpbOptions o;
    o.banks.functional = true;
    Tpb tpb("tpb", Params{}, o);
    Master master("master");
    master.socket.bind(tpb.axi_socket);
    sc_core::sc_start();
    const sc_core::sc_time cycle = tpb.axi2sram().cycle();
    EXPECT_EQ(master.write_status, tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(master.read_status, tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(master.back, master.written);
    EXPECT_EQ(master.after_write, cycle * 2) << "128 B over the 64-B AXI bus: 2 beats";
    EXPECT_EQ(master.after_read, cycle * 4);
    EXPECT_EQ(master.psum_status, tlm::TLM_ADDRESS_ERROR_RESPONSE) << "PSUM is unreachable (seed 000 §7.4)";
    EXPECT_EQ(sc_core::sc_time_stamp(), cycle * 4) << "an error response costs no time";
    EXPECT_EQ(tpb.sbuf_bank(1, 0).counters().writes, 1u) << "partition 17 = sbuf_cluster_1_0";
}

