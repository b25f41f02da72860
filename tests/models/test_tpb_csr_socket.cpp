// The tpb's memory-mapped CSRs (models/tpb.h): every block at its offset behind csr_socket, reads
// of the seeds' reset values, TLM error responses for unmapped, read-only, malformed and
// unrunnable accesses. Driven by a TLM initiator over b_transport, as a host CPU model would.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "../shipped.h"
#include "models/top/tpb.h"

using namespace sbufsim;
using namespace sbufsim::models;

namespace {

struct Host : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Host> socket{"socket"};
    explicit Host(const sc_core::sc_module_name& n) : sc_core::sc_module(n) {}

    tlm::tlm_response_status access(tlm::tlm_command cmd, std::uint64_t addr, std::uint32_t& value,
                                    unsigned length = 4) {
        unsigned char buf[8] = {};
        std::memcpy(buf, &value, 4);
        tlm::tlm_generic_payload pl;
        pl.set_command(cmd);
        pl.set_address(addr);
        pl.set_data_ptr(buf);
        pl.set_data_length(length);
        pl.set_streaming_width(length);
        pl.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        socket->b_transport(pl, d);
        std::memcpy(&value, buf, 4);
        return pl.get_response_status();
    }
    tlm::tlm_response_status read(std::uint64_t addr, std::uint32_t& v) {
        return access(tlm::TLM_READ_COMMAND, addr, v);
    }
    tlm::tlm_response_status write(std::uint64_t addr, std::uint32_t v) {
        return access(tlm::TLM_WRITE_COMMAND, addr, v);
    }
};

class CsrSocketTest : public ::testing::Test {
protected:
    void SetUp() override {
        sc_core::sc_curr_simcontext = new sc_core::sc_simcontext();
        sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
        tpb = std::make_unique<Tpb>("tpb", test::shipped_params("cayman"));
        host = std::make_unique<Host>("host");
        host->socket.bind(tpb->csr_socket);
    }
    std::uint32_t read(std::uint64_t addr) {
        std::uint32_t v = 0xdeadbeef;
        EXPECT_EQ(host->read(addr, v), tlm::TLM_OK_RESPONSE) << "read of " << std::hex << addr;
        return v;
    }
    std::unique_ptr<Tpb> tpb;
    std::unique_ptr<Host> host;
};

}  // namespace

TEST_F(CsrSocketTest, Reads_return_the_seed_reset_values) {
    EXPECT_EQ(read(Tpb::kSbufClusterBase + 0x000), 0x00000u) << "arb_stage1.arb_prio (seed 000 §7.1)";
    EXPECT_EQ(read(Tpb::kSbufClusterBase + 0x004), 0x11111u) << "arb_stage1.arb_weight";
    EXPECT_EQ(read(Tpb::kSbufClusterBase + 0x100), 0x10000u) << "arb_stage2.arb_prio: pe_rd_client 1";
    EXPECT_EQ(read(Tpb::kSbufClusterBase + 0x300), 0x00010008u) << "tdm_cfg (seed 000 §7.2)";
    EXPECT_EQ(read(Tpb::kSbufClusterBase + 0x400), 1u) << "axi2sram_transpose_en (seed 000 §6.1)";
    EXPECT_EQ(read(Tpb::kSbufClusterBase + 0x404), 1u) << "raw_config.raw_en";
    for (std::uint32_t e = 0; e < 3; ++e) {
        EXPECT_EQ(read(Tpb::kPoolActBase + 0x100 * e + 0x0), 1u)
            << "rd_throttle_cfg0.disable_throttle (§7.2)";
        EXPECT_EQ(read(Tpb::kPoolActBase + 0x100 * e + 0x8), 1u) << "wr_throttle_cfg0.disable_throttle";
    }
    EXPECT_EQ(read(Tpb::kArrSeqTopBase), 0x00011000u)
        << "queue_cfg: disable_bg_xpose, disable_tagweight_mode (§5.6)";
    EXPECT_EQ(read(Tpb::kArrSeqClusterBase), 0x02080000u)
        << "arr_cluster_cfg: inter_instr_dly_cnt 8, p2fifo_af 2";
    EXPECT_EQ(read(Tpb::kSbufErgBase + 3 * 0x2000 + 0x1000), 1u << 20)
        << "SBUF_CLUSTER_3_1_ERG_CSR cfg: erg_type ECC (seed 000 §3.2)";
    EXPECT_EQ(read(Tpb::kPsumErgBase + 2 * 0x1000 + 5 * 0x40 + 4), 0u) << "PSUM_CLUSTER2_ERG_CSR_5 mem_cfg";
}

TEST_F(CsrSocketTest, Writes_land_in_the_owning_module) {
    EXPECT_EQ(host->write(Tpb::kSbufClusterBase + 0x300, (2u << 16) | 8u), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(tpb->tdm().dma_slots(), 2u);
    EXPECT_EQ(host->write(Tpb::kPoolActBase + 0x104, (4u << 16) | 32u), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(tpb->throttler(ThrottledEngine::act).rd().transfer_cnt, 4u);
    EXPECT_EQ(host->write(Tpb::kSbufClusterBase + 0x404, 0), tlm::TLM_OK_RESPONSE);
    EXPECT_FALSE(tpb->axi2sram().config().raw_en) << "the bridge follows axi2sram_config";
    EXPECT_EQ(host->write(Tpb::kPsumErgBase + 0x1000 + 4, 1), tlm::TLM_OK_RESPONSE);
    EXPECT_TRUE(tpb->psum_bank(1, 0).erg().shutdown()) << "PSUM_CLUSTER1_ERG_CSR_0 mem_cfg.shutdown";
    EXPECT_TRUE(tpb->reprogram_pending());
}

TEST_F(CsrSocketTest, Unmapped_addresses_answer_an_address_error) {
    std::uint32_t v = 0;
    EXPECT_EQ(host->read(Tpb::kSbufClusterBase + 0x008, v), tlm::TLM_ADDRESS_ERROR_RESPONSE) << "no register";
    EXPECT_EQ(host->write(Tpb::kSbufClusterBase + 0x304, 1), tlm::TLM_ADDRESS_ERROR_RESPONSE)
        << "only tdm_cfg";
    EXPECT_EQ(host->read(Tpb::kPoolActBase + 0x300, v), tlm::TLM_ADDRESS_ERROR_RESPONSE)
        << "past dve_throttler";
    EXPECT_EQ(host->read(0x0100000, v), tlm::TLM_ADDRESS_ERROR_RESPONSE) << "between blocks";
    EXPECT_EQ(host->read(Tpb::kSbufClusterBase + 0x002, v), tlm::TLM_ADDRESS_ERROR_RESPONSE) << "unaligned";
}

TEST_F(CsrSocketTest, Read_only_registers_refuse_writes_with_a_command_error) {
    std::uint32_t v = 1;
    EXPECT_EQ(host->read(Tpb::kArrSeqTopBase + ArrSeqTopCsr::kPerfMatmul, v), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v, 0u);
    EXPECT_EQ(host->write(Tpb::kArrSeqTopBase + ArrSeqTopCsr::kPerfMatmul + 4, 7),
              tlm::TLM_COMMAND_ERROR_RESPONSE)
        << "arr_seq_ififo_perf_matmul is a counter";
}

TEST_F(CsrSocketTest, Unrunnable_writes_are_refused_and_leave_the_register) {
    EXPECT_EQ(host->write(Tpb::kSbufClusterBase + 0x300, (9u << 16) | 8u), tlm::TLM_GENERIC_ERROR_RESPONSE)
        << "tdm_dma_slots 9 > tdm_max_slots 8";
    EXPECT_EQ(read(Tpb::kSbufClusterBase + 0x300), 0x00010008u);
    EXPECT_EQ(host->write(Tpb::kSbufClusterBase + 0x104, 0x01111u), tlm::TLM_GENERIC_ERROR_RESPONSE)
        << "pe_rd_client weight 0";
    EXPECT_EQ(read(Tpb::kSbufClusterBase + 0x104), 0x11111u);
    EXPECT_FALSE(tpb->reprogram_pending()) << "nothing for the kernel to take";
}

TEST_F(CsrSocketTest, Malformed_payloads_get_burst_and_byte_enable_errors) {
    std::uint32_t v = 0;
    EXPECT_EQ(host->access(tlm::TLM_READ_COMMAND, Tpb::kSbufClusterBase + 0x300, v, 8),
              tlm::TLM_BURST_ERROR_RESPONSE);
    unsigned char be[4] = {0xff, 0, 0xff, 0};
    tlm::tlm_generic_payload pl;
    pl.set_command(tlm::TLM_WRITE_COMMAND);
    pl.set_address(Tpb::kSbufClusterBase + 0x300);
    pl.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
    pl.set_data_length(4);
    pl.set_streaming_width(4);
    pl.set_byte_enable_ptr(be);
    pl.set_byte_enable_length(4);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    host->socket->b_transport(pl, d);
    EXPECT_EQ(pl.get_response_status(), tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
}
