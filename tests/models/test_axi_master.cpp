// The DMA engines and Q7 cores as TLM-2.0 initiators on the clocked scheduler's timed path
// (models/axi_master.h): every byte a trace moves on the SBUF side goes through axi2sram's
// b_transport, the backing store holds what a load brought, a platform's own initiator shares the
// bridge, and the bridge's CSR and ERG state answer the masters as they answer anyone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "../report_json.h"
#include "../shipped.h"
#include "../temp_files.h"
#include "models/engines/axi_master.h"
#include "models/replay/clocked_replay.h"
#include "models/top/tpb.h"

using namespace sbufsim;
using namespace sbufsim::models;

namespace {

using test::json_of;

// The SBUF bytes the trace's DMA engines and Q7 cores asked the kernel for (read + written).
std::uint64_t axi_engine_bytes(const ReplayResult& r) {
    std::uint64_t n = 0;
    for (const EngineStats& e : r.engines)
        if (e.name.rfind("dma_", 0) == 0 || e.name.rfind("q7_", 0) == 0) n += e.bytes_read + e.bytes_written;
    return n;
}

// The trace line of the first record of `kind` in a shipped trace.
std::uint64_t line_of_first(const std::string& trace, const std::string& kind) {
    std::ifstream in(test::shipped(trace));
    std::string s;
    for (std::uint64_t line = 1; std::getline(in, s); ++line)
        if (s.rfind(kind + " ", 0) == 0) return line;
    return 0;
}

std::vector<std::uint8_t> read_sbuf(Tpb& tpb, std::uint32_t partition, std::uint32_t offset, std::uint32_t len) {
    const AddressMap& m = tpb.address_map();
    const std::uint32_t addr = m.sbuf_addr(partition, offset);
    std::vector<std::uint8_t> out(len);
    tpb.sbuf_bank(m.decode(addr).bank.index).read(addr, out);
    return out;
}

// A platform's own AXI master: after `at`, one write and one read-back of `data` at `address`.
struct UserMaster : sc_core::sc_module {
    SC_HAS_PROCESS(UserMaster);
    tlm_utils::simple_initiator_socket<UserMaster> socket{"socket"};
    std::uint64_t address;
    sc_core::sc_time at;
    std::vector<std::uint8_t> data = std::vector<std::uint8_t>(256), back = std::vector<std::uint8_t>(256);
    tlm::tlm_response_status write_status = tlm::TLM_INCOMPLETE_RESPONSE, read_status = tlm::TLM_INCOMPLETE_RESPONSE;

    UserMaster(const sc_core::sc_module_name& n, std::uint64_t addr, sc_core::sc_time when)
        : sc_core::sc_module(n), address(addr), at(when) {
        for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(0xa5 ^ i);
        SC_THREAD(run);
    }
    tlm::tlm_response_status go(tlm::tlm_command cmd, std::vector<std::uint8_t>& buf) {
        tlm::tlm_generic_payload t;
        t.set_command(cmd);
        t.set_address(address);
        t.set_data_ptr(buf.data());
        t.set_data_length(static_cast<unsigned>(buf.size()));
        t.set_streaming_width(static_cast<unsigned>(buf.size()));
        t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        socket->b_transport(t, delay);
        wait(delay);
        return t.get_response_status();
    }
    // A thread: nothing here throws (an exception must not unwind across its coroutine stack).
    void run() {
        wait(at);
        write_status = go(tlm::TLM_WRITE_COMMAND, data);
        read_status = go(tlm::TLM_READ_COMMAND, back);
    }
};

struct UserRun {
    ClockedRun run;
    UserMaster* master = nullptr;  // valid inside inspect only
    AxiPortCounters port;
    std::vector<std::uint8_t> written, back;
    tlm::tlm_response_status write_status = tlm::TLM_INCOMPLETE_RESPONSE, read_status = tlm::TLM_INCOMPLETE_RESPONSE;
    std::uint64_t dma_port_transactions = 0;
};

// A clocked replay of `trace` with a UserMaster at `address` bound after the engines' masters.
UserRun with_user_master(const std::string& trace, std::uint64_t address) {
    UserRun u;
    ClockedOptions o;
    o.keep_data = true;
    o.attach = [&](Tpb& tpb) -> std::unique_ptr<sc_core::sc_module> {
        auto m = std::make_unique<UserMaster>("platform_master", address, sc_core::sc_time(100, sc_core::SC_NS));
        m->socket.bind(tpb.axi_socket);
        u.master = m.get();
        return m;
    };
    o.inspect = [&](Tpb& tpb) {
        const std::size_t last = tpb.axi_ports_used() - 1;  // bound last, and it sent something
        u.port = tpb.axi_port(last);
        for (std::size_t i = 0; i < last; ++i) u.dma_port_transactions += tpb.axi_port(i).transactions;
        u.written = u.master->data;
        u.back = u.master->back;
        u.write_status = u.master->write_status;
        u.read_status = u.master->read_status;
    };
    u.run = replay_clocked_trace(test::cayman(), test::shipped(trace), {}, o);
    return u;
}

}  // namespace

// dma_load.trc: one HBM -> SBUF load of 128 partitions x 2 KiB.
TEST(AxiMaster, A_dma_load_lands_in_the_backing_store) {
    const std::uint64_t line = line_of_first("dma_load.trc", "dma");
    ASSERT_GT(line, 0u);
    std::vector<std::vector<std::uint8_t>> got;
    ClockedOptions o;
    o.keep_data = true;
    std::uint64_t bridge_bytes = 0, bank_bytes = 0;
    o.inspect = [&](Tpb& tpb) {
        for (std::uint32_t p : {0u, 7u, 8u, 63u, 127u}) got.push_back(read_sbuf(tpb, p, 0, 2048));
        bridge_bytes = tpb.axi2sram().counters().bytes;
        for (std::uint32_t b = 0; b < tpb.sbuf_bank_count(); ++b) bank_bytes += tpb.sbuf_bank(b).counters().bytes_written;
    };
    const ClockedRun r = replay_clocked_trace(test::cayman(), test::shipped("dma_load.trc"), {}, o);
    EXPECT_EQ(r.axi.bytes_written, 128u * 2048);
    EXPECT_EQ(r.axi.bytes_read, 0u);
    EXPECT_EQ(r.axi.errors, 0u) << r.axi.first_error;
    EXPECT_EQ(r.axi.transactions, 128u) << "one write per partition";
    EXPECT_EQ(bridge_bytes, 128u * 2048);
    EXPECT_EQ(bank_bytes, 128u * 2048) << "the ECC banks saw the bridge's writes";
    ASSERT_EQ(got.size(), 5u);
    const std::uint32_t parts[] = {0, 7, 8, 63, 127};
    for (std::size_t i = 0; i < got.size(); ++i)
        for (std::uint32_t k = 0; k < 2048; k += 97)
            ASSERT_EQ(got[i][k], AxiMaster::hbm_byte(line, parts[i], k)) << "partition " << parts[i] << " byte " << k;
}

// Every shipped trace: the bytes through the bridge are the DMA engines' and Q7 cores' SBUF
// bytes, answered OK, and the statistics stay the fast scheduler's.
TEST(AxiMaster, Every_shipped_trace_moves_its_axi_bytes_through_the_bridge) {
    std::vector<std::string> traces;
    for (const auto& e : std::filesystem::directory_iterator(SBUFSIM_DEFAULT_TRACE_DIR))
        if (e.path().extension() == ".trc") traces.push_back(e.path().filename().string());
    std::sort(traces.begin(), traces.end());
    ASSERT_FALSE(traces.empty());
    std::uint64_t total = 0;
    for (const std::string& t : traces) {
        const Params p = test::cayman();
        const ReplayResult fast = replay_trace(p, test::shipped(t));
        const ClockedRun c = replay_clocked_trace(p, test::shipped(t));
        EXPECT_EQ(json_of(c.result), json_of(fast)) << t;
        EXPECT_EQ(c.axi.bytes_read + c.axi.bytes_written, axi_engine_bytes(fast)) << t;
        EXPECT_EQ(c.axi.errors, 0u) << t << ": " << c.axi.first_error;
        total += c.axi.bytes_read + c.axi.bytes_written;
    }
    EXPECT_GT(total, 0u) << "some shipped trace must move data over AXI";
}

// q7_gpsimd.trc: each core stores 4 KiB per partition, then loads it back.
TEST(AxiMaster, Q7_cores_store_and_load_through_the_bridge) {
    const ClockedRun r = replay_clocked_trace(test::cayman(), test::shipped("q7_gpsimd.trc"));
    EXPECT_EQ(r.axi.bytes_read, 8u * 16 * 4096) << "the eight cores' loads";
    EXPECT_EQ(r.axi.bytes_written, 8u * 16 * 4096 + 128u * 2048) << "their stores and the DMA load";
}

// dma_transpose.trc: a 16 x 128 bf16 tile through the crossbar, then a plain load.
TEST(AxiMaster, A_dma_transpose_goes_through_the_crossbar) {
    const std::uint64_t line = line_of_first("dma_transpose.trc", "dma");
    std::vector<std::uint8_t> p5;
    ClockedOptions o;
    o.keep_data = true;
    std::uint64_t transposes = 0;
    o.inspect = [&](Tpb& tpb) {
        p5 = read_sbuf(tpb, 5, 0, 32);
        transposes = tpb.axi2sram().counters().transposes;
    };
    const ClockedRun r = replay_clocked_trace(test::cayman(), test::shipped("dma_transpose.trc"), {}, o);
    EXPECT_EQ(r.axi.errors, 0u) << r.axi.first_error;
    EXPECT_GT(transposes, 0u);
    // Destination partition 5 holds column 5 of the source tile: row r's bf16 element 5.
    for (std::uint32_t row = 0; row < 16; ++row) {
        EXPECT_EQ(p5[2 * row], AxiMaster::hbm_byte(line, row, 10)) << "row " << row;
        EXPECT_EQ(p5[2 * row + 1], AxiMaster::hbm_byte(line, row, 11)) << "row " << row;
    }
}

// A transpose of 48 source rows is three 16-row crossbar tiles (seed 000 §6.2): tile j lands at
// element 16 j of every destination partition.
TEST(AxiMaster, A_transpose_of_several_row_tiles_writes_one_crossbar_tile_each) {
    const std::string path = test::temp("xpose48.trc");
    {
        std::ofstream f(path);
        f << "sbufsim-trace 1 gen=cayman\ndma queue=qSyncIO0 src=hbm dst=bf16@0x0 partitions=48 bytes=256 transpose=1\n";
    }
    std::vector<std::uint8_t> p5;
    std::uint64_t transposes = 0;
    ClockedOptions o;
    o.keep_data = true;
    o.inspect = [&](Tpb& tpb) {
        p5 = read_sbuf(tpb, 5, 0, 96);
        transposes = tpb.axi2sram().counters().transposes;
    };
    const ClockedRun r = replay_clocked_trace(test::cayman(), path, {}, o);
    std::filesystem::remove(path);
    EXPECT_EQ(r.axi.errors, 0u) << r.axi.first_error;
    EXPECT_EQ(transposes, 16u * 3) << "three tiles in each of the 16 engines' shares";
    EXPECT_EQ(r.axi.bytes_written, 48u * 256);
    ASSERT_EQ(p5.size(), 96u);
    for (std::uint32_t row = 0; row < 48; ++row) {  // column 5 of source row `row`
        EXPECT_EQ(p5[2 * row], AxiMaster::hbm_byte(2, row, 10)) << "row " << row;
        EXPECT_EQ(p5[2 * row + 1], AxiMaster::hbm_byte(2, row, 11)) << "row " << row;
    }
}

TEST(AxiMaster, A_platform_initiator_shares_the_bridge_with_the_dma_engines) {
    const Params p = test::cayman();
    const std::uint64_t addr = p.sbuf.soc_base + 100 * p.sbuf.partition_stride + 0x8000;
    const UserRun u = with_user_master("dma_load.trc", addr);
    EXPECT_EQ(u.write_status, tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(u.read_status, tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(u.back, u.written);
    EXPECT_EQ(u.port.transactions, 2u);
    EXPECT_EQ(u.port.bytes, 512u);
    EXPECT_EQ(u.dma_port_transactions, 128u) << "the DMA engines' own transactions, on their own ports";
    EXPECT_EQ(json_of(u.run.result), json_of(replay_trace(p, test::shipped("dma_load.trc"))))
        << "a platform's traffic is the bridge's, not the kernel's: the statistics do not move";
}

TEST(AxiMaster, A_platform_initiator_outside_state_buf_gets_an_address_error) {
    const Params p = test::cayman();
    const UserRun u = with_user_master("dma_load.trc", p.psum.soc_base);
    EXPECT_EQ(u.write_status, tlm::TLM_ADDRESS_ERROR_RESPONSE) << "PSUM has no AXI aperture (seed 000 §7.4)";
    EXPECT_EQ(u.read_status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(u.port.errors, 2u);
    EXPECT_EQ(u.run.axi.errors, 0u) << "the DMA engines' own traffic is unaffected";
}

// axi2sram_config is read on every access: transpose_en written 0 over TLM before the first
// transpose makes the crossbar refuse it (the kernel's timing stands; the masters count the error).
TEST(AxiMaster, Transpose_en_written_over_tlm_refuses_the_next_transposes) {
    ClockedOptions o;
    o.csr_writes = {{0, Tpb::kSbufClusterBase + SbufClusterCsr::kAxi2SramTransposeEn, 0}};
    const ClockedRun r = replay_clocked_trace(test::cayman(), test::shipped("dma_transpose.trc"), {}, o);
    const ClockedRun plain = replay_clocked_trace(test::cayman(), test::shipped("dma_transpose.trc"));
    EXPECT_EQ(plain.axi.errors, 0u);
    std::uint64_t transposes = 0;
    for (const DmaStats& d : plain.result.dma) transposes += d.transposes;
    ASSERT_GT(transposes, 0u);
    EXPECT_EQ(r.axi.errors, transposes) << "every transpose refused, nothing else";
    EXPECT_EQ(r.axi.bytes_written, plain.axi.bytes_written - transposes * 16 * 256)
        << "the plain load still lands";
    EXPECT_NE(r.axi.first_error.find("transpose_en"), std::string::npos) << r.axi.first_error;
    EXPECT_EQ(json_of(r.result), json_of(plain.result));
}

// An ECC bank shut down through its ERG block (mem_cfg.shutdown) refuses the loads into it.
TEST(AxiMaster, A_bank_shut_down_over_tlm_refuses_the_dma_writes_into_it) {
    ClockedOptions o;
    o.csr_writes = {{0, Tpb::kSbufErgBase + ErgParityModel::kMemCfg, 1u << ErgParityModel::kShutdownBit}};
    const ClockedRun r = replay_clocked_trace(test::cayman(), test::shipped("dma_load.trc"), {}, o);
    EXPECT_EQ(r.axi.errors, 8u) << "partitions 0..7: sbuf_cluster_0_0 (half by partition bit 3)";
    EXPECT_EQ(r.axi.bytes_written, 120u * 2048);
    EXPECT_NE(r.axi.first_error.find("shut down"), std::string::npos) << r.axi.first_error;
}
