// axi2sram (seed 000 §6.1–§6.2, §7.3–§7.4): plain reads/writes land in the ECC banks, PSUM and
// everything outside STATE_BUF is an address error, the 16×N transpose tile lands transposed,
// read-add-write adds and saturates per raw_conv, ECC/parity results travel back to the master.
// Transactions go through the tpb's AXI target socket (b_transport needs no running simulation).
#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>

#include "models/address/axi2sram.h"
#include "sbufsim/config/params.h"
#include "models/top/tpb.h"

using namespace sbufsim;
using namespace sbufsim::models;

namespace {

constexpr std::uint64_t kSbufSoc = 0x2000000000;  // TPB_0_STATE_BUF (seed 002 §1)
constexpr std::uint64_t kPsumSoc = 0x2802000000;  // TPB_0_PSUM_BUF (seed 002 §3)
constexpr std::uint64_t kStride = 0x40000;        // cayman partition stride

std::uint64_t soc(std::uint32_t partition, std::uint32_t offset) { return kSbufSoc + partition * kStride + offset; }

class Axi2SramTest : public ::testing::Test {
protected:
    void SetUp() override {
        // A fresh SystemC context per test: every test elaborates its own "tpb".
        sc_core::sc_curr_simcontext = new sc_core::sc_simcontext();
        sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
        build({});
    }
    void build(Axi2SramOptions axi) {
        tpb.reset();
        TpbOptions o;
        o.banks.functional = true;
        o.axi2sram = axi;
        tpb = std::make_unique<Tpb>("tpb", Params{}, o);
    }

    // One transaction through the tpb's AXI target; returns the response status.
    tlm::tlm_response_status access(tlm::tlm_command cmd, std::uint64_t addr, std::vector<std::uint8_t>& data,
                                    Axi2SramExtension* ext = nullptr) {
        tlm::tlm_generic_payload t;
        t.set_command(cmd);
        t.set_address(addr);
        t.set_data_ptr(data.data());
        t.set_data_length(static_cast<unsigned>(data.size()));
        t.set_streaming_width(static_cast<unsigned>(data.size()));
        t.set_dmi_allowed(true);
        if (ext) t.set_extension(ext);
        delay = sc_core::SC_ZERO_TIME;
        tpb->axi2sram().socket.get_base_export()->b_transport(t, delay);
        if (ext) t.clear_extension(ext);
        dmi_allowed = t.is_dmi_allowed();
        return t.get_response_status();
    }
    tlm::tlm_response_status write(std::uint64_t addr, std::vector<std::uint8_t> data, Axi2SramExtension* ext = nullptr) {
        return access(tlm::TLM_WRITE_COMMAND, addr, data, ext);
    }
    std::vector<std::uint8_t> read(std::uint64_t addr, std::size_t n) {
        std::vector<std::uint8_t> data(n, 0xcc);
        last_read = access(tlm::TLM_READ_COMMAND, addr, data);
        return data;
    }
    const Axi2SramReport& report() const { return tpb->axi2sram().last_report(); }

    std::unique_ptr<Tpb> tpb;
    sc_core::sc_time delay;
    bool dmi_allowed = true;
    tlm::tlm_response_status last_read = tlm::TLM_INCOMPLETE_RESPONSE;
};

std::vector<std::uint8_t> pattern(std::size_t n, std::uint8_t seed) {
    std::vector<std::uint8_t> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(seed + 13 * i);
    return v;
}

template <class T>
std::vector<std::uint8_t> bytes_of(const std::vector<T>& v) {
    std::vector<std::uint8_t> b(v.size() * sizeof(T));
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

template <class T>
std::vector<T> values_of(const std::vector<std::uint8_t>& b) {
    std::vector<T> v(b.size() / sizeof(T));
    std::memcpy(v.data(), b.data(), b.size());
    return v;
}

}  // namespace

// ---- plain path ---------------------------------------------------------------------------------

TEST_F(Axi2SramTest, Write_then_read_returns_the_bytes_and_touches_the_expected_bank) {
    const auto data = pattern(64, 5);
    ASSERT_EQ(write(soc(20, 0x100), data), tlm::TLM_OK_RESPONSE) << report().reason;
    // Partition 20 is cluster 1 (partitions 16..31), half 0 (partitions 16..23): ECC bank 2.
    EXPECT_EQ(report().banks, 1u << 2) << "partition 20 lives in sbuf_cluster_1_0 (seed 000 §3.1)";
    EXPECT_EQ(read(soc(20, 0x100), 64), data);
    EXPECT_EQ(last_read, tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(tpb->sbuf_bank(1, 0).counters().writes, 1u);
    EXPECT_EQ(tpb->sbuf_bank(1, 0).counters().reads, 1u);
    EXPECT_EQ(tpb->sbuf_bank(0, 0).counters().writes, 0u) << "no other bank was touched";
}

TEST_F(Axi2SramTest, Upper_half_partitions_touch_the_other_bank_of_the_cluster) {
    ASSERT_EQ(write(soc(127, 0), pattern(8, 1)), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(report().banks, 1u << 15) << "partition 127 is sbuf_cluster_7_1";
}

TEST_F(Axi2SramTest, Delay_is_one_kernel_cycle_per_bus_beat) {
    const sc_core::sc_time cycle = tpb->axi2sram().cycle();
    EXPECT_EQ(tpb->axi2sram().beat_bytes(), 64u) << "q7.bus_bytes: the 512-bit AXI bus";
    ASSERT_EQ(write(soc(0, 0), pattern(256, 1)), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(delay, cycle * 4) << "256 B = 4 beats of 64 B";
    ASSERT_EQ(write(soc(0, 0), pattern(65, 1)), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(delay, cycle * 2) << "a partial beat is a whole beat";
    EXPECT_EQ(report().beats, 2u);
}

TEST_F(Axi2SramTest, Dmi_is_refused) {
    tlm::tlm_generic_payload t;
    tlm::tlm_dmi dmi;
    t.set_address(kSbufSoc);
    EXPECT_FALSE(tpb->axi2sram().socket.get_base_export()->get_direct_mem_ptr(t, dmi));
    ASSERT_EQ(write(soc(0, 0), pattern(8, 1)), tlm::TLM_OK_RESPONSE);
    EXPECT_FALSE(dmi_allowed) << "every response clears dmi_allowed";
}

// ---- the keystone and the aperture ---------------------------------------------------------------

TEST_F(Axi2SramTest, Psum_soc_address_is_an_address_error) {
    EXPECT_EQ(write(kPsumSoc, pattern(64, 1)), tlm::TLM_ADDRESS_ERROR_RESPONSE)
        << "PSUM has no AXI path (seed 000 §7.4)";
    EXPECT_NE(report().reason.find("PSUM has no AXI aperture"), std::string::npos) << report().reason;
    read(kPsumSoc + 0x100, 8);
    EXPECT_EQ(last_read, tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(tpb->axi2sram().counters().address_errors, 2u);
    for (std::size_t i = 0; i < tpb->psum_bank_count(); ++i)
        EXPECT_EQ(tpb->psum_bank(static_cast<std::uint32_t>(i)).counters().writes, 0u);
}

TEST_F(Axi2SramTest, Address_outside_state_buf_is_an_address_error) {
    EXPECT_EQ(write(kSbufSoc - 8, pattern(8, 1)), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(write(kSbufSoc + 0x2000000, pattern(8, 1)), tlm::TLM_ADDRESS_ERROR_RESPONSE)
        << "STATE_BUF_SCRATCH_RAM region is past STATE_BUF";
    EXPECT_EQ(write(0x100, pattern(8, 1)), tlm::TLM_ADDRESS_ERROR_RESPONSE)
        << "a 29-bit address is refused unless accept_partition_offset is set";
}

TEST_F(Axi2SramTest, Burst_into_the_decode_pad_is_an_address_error) {
    EXPECT_EQ(write(soc(3, 0x38000), pattern(8, 1)), tlm::TLM_ADDRESS_ERROR_RESPONSE)
        << "cayman has 0x38000 active bytes per 0x40000 stride (seed 000 §1)";
    EXPECT_EQ(write(soc(3, 0x37ff8), pattern(16, 1)), tlm::TLM_ADDRESS_ERROR_RESPONSE)
        << "a burst that starts in SRAM but runs into the pad";
    EXPECT_EQ(read(soc(3, 0x37ff8), 8), std::vector<std::uint8_t>(8, 0)) << "the refused write wrote nothing";
}

TEST_F(Axi2SramTest, Partition_offset_addresses_by_option) {
    build({.accept_partition_offset = true});
    const auto data = pattern(32, 2);
    ASSERT_EQ(write(5 * kStride + 0x40, data), tlm::TLM_OK_RESPONSE) << report().reason;
    EXPECT_EQ(read(soc(5, 0x40), 32), data) << "the 29-bit and the SoC address name the same bytes";
    EXPECT_EQ(write(0x2000000, pattern(8, 1)), tlm::TLM_ADDRESS_ERROR_RESPONSE)
        << "29-bit PSUM (0x2000000) is refused too";
    EXPECT_NE(report().reason.find("PSUM"), std::string::npos);
}

TEST_F(Axi2SramTest, Byte_enables_and_streaming_are_refused) {
    auto data = pattern(8, 1);
    std::vector<std::uint8_t> be(8, 0xff);
    tlm::tlm_generic_payload t;
    t.set_command(tlm::TLM_WRITE_COMMAND);
    t.set_address(soc(0, 0));
    t.set_data_ptr(data.data());
    t.set_data_length(8);
    t.set_streaming_width(8);
    t.set_byte_enable_ptr(be.data());
    t.set_byte_enable_length(8);
    sc_core::sc_time d;
    tpb->axi2sram().socket.get_base_export()->b_transport(t, d);
    EXPECT_EQ(t.get_response_status(), tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    t.set_byte_enable_ptr(nullptr);
    t.set_streaming_width(4);
    tpb->axi2sram().socket.get_base_export()->b_transport(t, d);
    EXPECT_EQ(t.get_response_status(), tlm::TLM_BURST_ERROR_RESPONSE);
}

// ---- ECC / parity through the bridge --------------------------------------------------------------

TEST_F(Axi2SramTest, Ecc_bank_corrects_an_injected_bit_on_an_axi_read) {
    const auto data = pattern(64, 7);
    ASSERT_EQ(write(soc(40, 0x80), data), tlm::TLM_OK_RESPONSE);
    tpb->inject_bit_flip(static_cast<std::uint32_t>(40 * kStride + 0x85), 6);
    EXPECT_EQ(read(soc(40, 0x80), 64), data);
    EXPECT_EQ(last_read, tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(report().corrected, 1u);
    EXPECT_EQ(tpb->sbuf_bank(2, 1).counters().corrected, 1u) << "partition 40 = sbuf_cluster_2_1";
}

TEST_F(Axi2SramTest, Parity_bank_flags_an_injected_bit_with_an_error_response) {
    tpb->sbuf_bank(2, 1).erg().write(ErgParityModel::kCfg, 0);  // erg_type = parity
    const auto data = pattern(64, 7);
    ASSERT_EQ(write(soc(40, 0x80), data), tlm::TLM_OK_RESPONSE);
    tpb->inject_bit_flip(static_cast<std::uint32_t>(40 * kStride + 0x85), 6);
    auto expected = data;
    expected[5] ^= 1u << 6;
    EXPECT_EQ(read(soc(40, 0x80), 64), expected) << "parity delivers the flipped data";
    EXPECT_EQ(last_read, tlm::TLM_GENERIC_ERROR_RESPONSE) << "and flags it (AXI SLVERR)";
    EXPECT_EQ(report().detected, 1u);
    EXPECT_EQ(tpb->sbuf_bank(2, 1).counters().detected, 1u);
}

TEST_F(Axi2SramTest, Shut_down_bank_refuses_the_whole_burst) {
    tpb->sbuf_bank(0, 1).erg().write(ErgParityModel::kMemCfg, 1);
    EXPECT_EQ(write(soc(8, 0), pattern(8, 1)), tlm::TLM_GENERIC_ERROR_RESPONSE);
    EXPECT_NE(report().reason.find("sbuf_cluster_0_1"), std::string::npos) << report().reason;
}

// ---- transpose (seed 000 §6.2) -------------------------------------------------------------------

namespace {
Axi2SramExtension transpose_ext(Dtype dt, std::uint32_t cols, std::uint32_t rows = 16) {
    Axi2SramExtension e;
    e.mode = Axi2SramMode::transpose;
    e.dtype = dt;
    e.tile_rows = rows;
    e.tile_cols = cols;
    return e;
}
}  // namespace

TEST_F(Axi2SramTest, Transpose_lands_a_16xN_tile_across_N_partitions) {
    constexpr std::uint32_t N = 40, p0 = 8, off = 0x200;
    std::vector<std::uint16_t> tile(16 * N);
    for (std::uint32_t r = 0; r < 16; ++r)
        for (std::uint32_t c = 0; c < N; ++c) tile[r * N + c] = static_cast<std::uint16_t>(r * 1000 + c);
    auto ext = transpose_ext(Dtype::bf16, N);
    ASSERT_EQ(write(soc(p0, off), bytes_of(tile), &ext), tlm::TLM_OK_RESPONSE) << ext.report.reason;
    for (std::uint32_t c = 0; c < N; ++c) {
        const auto column = values_of<std::uint16_t>(read(soc(p0 + c, off), 32));
        for (std::uint32_t r = 0; r < 16; ++r)
            ASSERT_EQ(column[r], r * 1000 + c) << "source (row " << r << ", col " << c << ") must land in partition "
                                               << p0 + c << " element " << r;
    }
    EXPECT_EQ(read(soc(p0 + N, off), 2), std::vector<std::uint8_t>(2, 0)) << "partition p0 + N is untouched";
    EXPECT_EQ(ext.report.banks, 0b111110u) << "partitions 8..47 = ECC banks 1..5";
    EXPECT_EQ(ext.report.beats, N) << "one 32-B beat per destination partition";
    EXPECT_EQ(tpb->axi2sram().counters().transposes, 1u);
}

TEST_F(Axi2SramTest, Transpose_of_fp32_lands_64_bytes_per_partition) {
    constexpr std::uint32_t N = 64;
    std::vector<float> tile(16 * N);
    for (std::uint32_t i = 0; i < tile.size(); ++i) tile[i] = static_cast<float>(i);
    auto ext = transpose_ext(Dtype::fp32, N);
    ASSERT_EQ(write(soc(64, 0), bytes_of(tile), &ext), tlm::TLM_OK_RESPONSE) << ext.report.reason;
    const auto last = values_of<float>(read(soc(64 + N - 1, 0), 64));
    EXPECT_EQ(last[15], static_cast<float>(15 * N + N - 1));
}

TEST_F(Axi2SramTest, Transpose_rejects_129_bf16_columns) {
    auto ext = transpose_ext(Dtype::bf16, 129);
    EXPECT_EQ(write(soc(0, 0), std::vector<std::uint8_t>(16 * 129 * 2, 1), &ext), tlm::TLM_GENERIC_ERROR_RESPONSE);
    EXPECT_NE(ext.report.reason.find("1..128"), std::string::npos) << ext.report.reason;
    EXPECT_EQ(read(soc(0, 0), 8), std::vector<std::uint8_t>(8, 0)) << "nothing written";
}

TEST_F(Axi2SramTest, Transpose_rejects_65_fp32_columns_and_8_rows) {
    auto ext = transpose_ext(Dtype::fp32, 65);
    EXPECT_EQ(write(soc(0, 0), std::vector<std::uint8_t>(16 * 65 * 4, 1), &ext), tlm::TLM_GENERIC_ERROR_RESPONSE)
        << "4-byte dtypes allow 1..64 columns";
    auto rows = transpose_ext(Dtype::bf16, 4, 8);
    EXPECT_EQ(write(soc(0, 0), std::vector<std::uint8_t>(8 * 4 * 2, 1), &rows), tlm::TLM_GENERIC_ERROR_RESPONSE)
        << "the tile is 16 source rows";
}

TEST_F(Axi2SramTest, Transpose_rejects_an_unaligned_destination) {
    auto ext = transpose_ext(Dtype::bf16, 4);
    EXPECT_EQ(write(soc(0, 0x210), std::vector<std::uint8_t>(16 * 4 * 2, 1), &ext), tlm::TLM_GENERIC_ERROR_RESPONSE);
    EXPECT_NE(ext.report.reason.find("32-byte aligned"), std::string::npos) << ext.report.reason;
}

TEST_F(Axi2SramTest, Transpose_rejects_a_tile_past_the_last_partition_and_a_wrong_length) {
    auto ext = transpose_ext(Dtype::bf16, 8);
    EXPECT_EQ(write(soc(124, 0), std::vector<std::uint8_t>(16 * 8 * 2, 1), &ext), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(write(soc(0, 0), std::vector<std::uint8_t>(16 * 8 * 2 - 2, 1), &ext), tlm::TLM_GENERIC_ERROR_RESPONSE);
}

TEST_F(Axi2SramTest, Transpose_needs_transpose_en_and_a_write) {
    auto ext = transpose_ext(Dtype::bf16, 4);
    std::vector<std::uint8_t> data(16 * 4 * 2, 1);
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, soc(0, 0), data, &ext), tlm::TLM_COMMAND_ERROR_RESPONSE);
    tpb->write_sbuf_cluster_csr(SbufClusterCsr::kAxi2SramTransposeEn, 0);
    EXPECT_EQ(write(soc(0, 0), data, &ext), tlm::TLM_GENERIC_ERROR_RESPONSE);
    EXPECT_NE(ext.report.reason.find("transpose_en is 0"), std::string::npos) << ext.report.reason;
}

// ---- read-add-write (seed 000 §6.1) --------------------------------------------------------------

namespace {
Axi2SramExtension raw_ext(Dtype dt) {
    Axi2SramExtension e;
    e.mode = Axi2SramMode::read_add_write;
    e.dtype = dt;
    return e;
}
std::uint16_t bf16(float f) { return static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(f) >> 16); }
}  // namespace

TEST_F(Axi2SramTest, Read_add_write_adds_fp32) {
    ASSERT_EQ(write(soc(1, 0x40), bytes_of(std::vector<float>{1.5f, 2.0f, -3.0f, 100.0f})), tlm::TLM_OK_RESPONSE);
    auto ext = raw_ext(Dtype::fp32);
    ASSERT_EQ(write(soc(1, 0x40), bytes_of(std::vector<float>{1.0f, 0.25f, 3.0f, -0.5f}), &ext), tlm::TLM_OK_RESPONSE)
        << ext.report.reason;
    EXPECT_EQ(values_of<float>(read(soc(1, 0x40), 16)), (std::vector<float>{2.5f, 2.25f, 0.0f, 99.5f}));
    EXPECT_EQ(ext.report.beats, 2u) << "a read slot and a write slot";
}

TEST_F(Axi2SramTest, Read_add_write_adds_bf16) {
    ASSERT_EQ(write(soc(2, 0), bytes_of(std::vector<std::uint16_t>{bf16(1.0f), bf16(-2.0f)})), tlm::TLM_OK_RESPONSE);
    auto ext = raw_ext(Dtype::bf16);
    ASSERT_EQ(write(soc(2, 0), bytes_of(std::vector<std::uint16_t>{bf16(2.0f), bf16(0.5f)}), &ext), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(values_of<std::uint16_t>(read(soc(2, 0), 4)), (std::vector<std::uint16_t>{bf16(3.0f), bf16(-1.5f)}));
}

TEST_F(Axi2SramTest, Without_sis_an_overflow_stores_infinity) {
    ASSERT_EQ(write(soc(0, 0), bytes_of(std::vector<float>{FLT_MAX})), tlm::TLM_OK_RESPONSE);
    auto ext = raw_ext(Dtype::fp32);
    ASSERT_EQ(write(soc(0, 0), bytes_of(std::vector<float>{FLT_MAX}), &ext), tlm::TLM_OK_RESPONSE);
    EXPECT_TRUE(std::isinf(values_of<float>(read(soc(0, 0), 4))[0])) << "raw_conv.sis resets 0";
}

TEST_F(Axi2SramTest, Sis_saturates_an_infinite_fp32_sum_to_max_finite) {
    tpb->write_sbuf_cluster_csr(SbufClusterCsr::kRawConv, 0x2);  // sis
    ASSERT_EQ(write(soc(0, 0), bytes_of(std::vector<float>{FLT_MAX, -FLT_MAX})), tlm::TLM_OK_RESPONSE);
    auto ext = raw_ext(Dtype::fp32);
    ASSERT_EQ(write(soc(0, 0), bytes_of(std::vector<float>{FLT_MAX, -FLT_MAX}), &ext), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(values_of<float>(read(soc(0, 0), 8)), (std::vector<float>{FLT_MAX, -FLT_MAX}))
        << "+Inf -> +max finite, -Inf -> -max finite";
}

TEST_F(Axi2SramTest, Sns_saturates_a_nan_sum_and_leaves_inf_alone) {
    const float inf = INFINITY;
    ASSERT_EQ(write(soc(0, 0), bytes_of(std::vector<float>{inf, 1.0f})), tlm::TLM_OK_RESPONSE);
    auto ext = raw_ext(Dtype::fp32);
    ASSERT_EQ(write(soc(0, 0), bytes_of(std::vector<float>{-inf, inf}), &ext), tlm::TLM_OK_RESPONSE);
    auto plain = values_of<float>(read(soc(0, 0), 8));
    EXPECT_TRUE(std::isnan(plain[0])) << "Inf + -Inf is NaN without sns";
    tpb->write_sbuf_cluster_csr(SbufClusterCsr::kRawConv, 0x1);  // sns only
    ASSERT_EQ(write(soc(0, 0), bytes_of(std::vector<float>{inf, 1.0f})), tlm::TLM_OK_RESPONSE);
    ASSERT_EQ(write(soc(0, 0), bytes_of(std::vector<float>{-inf, inf}), &ext), tlm::TLM_OK_RESPONSE);
    const auto sat = values_of<float>(read(soc(0, 0), 8));
    EXPECT_EQ(std::fabs(sat[0]), FLT_MAX) << "sns: NaN -> max finite";
    EXPECT_TRUE(std::isinf(sat[1])) << "sis is off: Inf stays Inf";
}

TEST_F(Axi2SramTest, Sis_saturates_a_bf16_overflow) {
    tpb->write_sbuf_cluster_csr(SbufClusterCsr::kRawConv, 0x2);
    const std::uint16_t bf16_max = 0x7f7f;
    ASSERT_EQ(write(soc(0, 0), bytes_of(std::vector<std::uint16_t>{bf16_max})), tlm::TLM_OK_RESPONSE);
    auto ext = raw_ext(Dtype::bf16);
    ASSERT_EQ(write(soc(0, 0), bytes_of(std::vector<std::uint16_t>{bf16_max}), &ext), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(values_of<std::uint16_t>(read(soc(0, 0), 2))[0], bf16_max);
}

TEST_F(Axi2SramTest, Read_add_write_needs_raw_en_and_a_supported_dtype) {
    auto ext = raw_ext(Dtype::fp32);
    tpb->write_sbuf_cluster_csr(SbufClusterCsr::kRawConfig, 0);
    EXPECT_EQ(write(soc(0, 0), std::vector<std::uint8_t>(8, 0), &ext), tlm::TLM_GENERIC_ERROR_RESPONSE);
    EXPECT_NE(ext.report.reason.find("raw_en is 0"), std::string::npos) << ext.report.reason;
    tpb->write_sbuf_cluster_csr(SbufClusterCsr::kRawConfig, 1);
    auto int_ext = raw_ext(Dtype::int32);
    EXPECT_EQ(write(soc(0, 0), std::vector<std::uint8_t>(8, 0), &int_ext), tlm::TLM_GENERIC_ERROR_RESPONSE);
    auto odd = raw_ext(Dtype::fp32);
    EXPECT_EQ(write(soc(0, 2), std::vector<std::uint8_t>(8, 0), &odd), tlm::TLM_GENERIC_ERROR_RESPONSE)
        << "unaligned fp32 elements";
}

