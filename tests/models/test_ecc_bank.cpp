// sbuf_bank / psum_bank / erg_parity_model / backing store: ECC corrects and parity detects an
// injected single-bit error, counted per bank; the backing store keeps nothing when off; the
// erg_parity_model block has the seed's fields (seed 000 §3.2).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include <systemc>

#include "models/address/backing_store.h"
#include "models/address/erg_parity_model.h"
#include "models/address/psum_bank.h"
#include "models/address/sbuf_bank.h"
#include "sbufsim/stats/stats.h"

using namespace sbufsim::models;

namespace {

// A fresh SystemC context per test so module names never collide with an earlier test's.
class EccBankModule : public ::testing::Test {
protected:
    void SetUp() override {
        sc_core::sc_curr_simcontext = new sc_core::sc_simcontext();
        sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
    }
};

std::vector<std::uint8_t> pattern(std::size_t n, std::uint8_t seed) {
    std::vector<std::uint8_t> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(seed + 7 * i);
    return v;
}

}  // namespace

TEST(ErgParityModel, Reset_values_select_ecc_and_clear_mem_cfg) {
    ErgParityModel erg("sbuf_cluster_0_0");
    EXPECT_EQ(erg.read(ErgParityModel::kCfg), 1u << 20) << "cfg reset: erg_type (bit 20) = ECC";
    EXPECT_EQ(erg.erg_type(), ErgType::ecc);
    EXPECT_EQ(erg.read(ErgParityModel::kMemCfg), 0u) << "mem_cfg reset: shutdown and margin pins clear";
    EXPECT_FALSE(erg.shutdown());
}

TEST(ErgParityModel, Erg_type_is_bit_20_of_cfg) {
    ErgParityModel erg;
    erg.write(ErgParityModel::kCfg, 0);
    EXPECT_EQ(erg.erg_type(), ErgType::parity) << "cfg = 0 clears bit 20: parity";
    erg.write(ErgParityModel::kCfg, 0xffffffffu);
    EXPECT_EQ(erg.erg_type(), ErgType::ecc);
    EXPECT_EQ(erg.read(ErgParityModel::kCfg), 1u << 20) << "bits other than erg_type are reserved and read 0";
}

TEST(ErgParityModel, Mem_cfg_has_shutdown_and_four_margin_pins_only) {
    ErgParityModel erg;
    erg.write(ErgParityModel::kMemCfg, 0xffffffffu);
    EXPECT_EQ(erg.read(ErgParityModel::kMemCfg), 0x1fu)
        << "mem_cfg carries shutdown + test1a/test1b/testrnm/testrwm and no rmea/rmeb (seed 000 §3.2)";
    EXPECT_TRUE(erg.shutdown());
    EXPECT_TRUE(erg.test1a());
    EXPECT_TRUE(erg.test1b());
    EXPECT_TRUE(erg.testrnm());
    EXPECT_TRUE(erg.testrwm());
}

TEST(ErgParityModel, Offsets_outside_the_64_byte_block_are_rejected) {
    ErgParityModel erg;
    EXPECT_THROW(erg.read(0x40), CsrError) << "the block is 0x40 bytes";
    EXPECT_THROW(erg.write(0x2, 0), CsrError) << "unaligned offset";
    EXPECT_THROW(erg.read(0x8), CsrError) << "no register at 0x8";
}

TEST(SparseStore, Allocates_pages_only_when_written) {
    SparseStore s;
    std::array<std::uint8_t, 16> out{};
    out.fill(0xaa);
    s.read(0x1ff0000, out);
    EXPECT_EQ(s.pages(), 0u) << "a read allocates nothing";
    EXPECT_EQ(out[0], 0) << "never-written bytes read 0";
    const auto data = pattern(8192, 3);
    s.write(SparseStore::kPageBytes - 4, data);  // straddles three pages
    EXPECT_EQ(s.pages(), 3u);
    std::vector<std::uint8_t> back(data.size());
    s.read(SparseStore::kPageBytes - 4, back);
    EXPECT_EQ(back, data);
}

TEST(EccBankStore, Backing_store_off_keeps_no_data) {
    EccBankStore bank("sbuf_cluster_0_0");  // functional = false is the default
    const auto data = pattern(64, 1);
    bank.write(0x100, data);
    std::vector<std::uint8_t> back(64, 0xee);
    bank.read(0x100, back);
    EXPECT_EQ(back, std::vector<std::uint8_t>(64, 0)) << "with the store off a read returns zeros";
    EXPECT_EQ(bank.pages(), 0u) << "nothing allocated";
    EXPECT_EQ(bank.counters().writes, 1u) << "the access is still counted";
    EXPECT_EQ(bank.counters().bytes_read, 64u);
}

TEST(EccBankStore, Backing_store_on_round_trips_data) {
    EccBankStore bank("sbuf_cluster_0_0", true);
    const auto data = pattern(64, 1);
    bank.write(0x100, data);
    std::vector<std::uint8_t> back(64);
    bank.read(0x100, back);
    EXPECT_EQ(back, data);
    bank.set_functional(false);
    EXPECT_EQ(bank.pages(), 0u) << "turning the store off drops its pages";
}

TEST(EccBankStore, Ecc_corrects_a_single_bit_error_and_counts_it) {
    EccBankStore bank("sbuf_cluster_2_1", true);
    const auto data = pattern(16, 9);
    bank.write(0x1000, data);
    bank.inject_bit_flip(0x1003, 5);
    std::vector<std::uint8_t> back(16);
    const BankAccess r = bank.read(0x1000, back);
    EXPECT_EQ(back, data) << "ECC hands back the true data";
    EXPECT_EQ(r.corrected, 1u);
    EXPECT_FALSE(r.flagged());
    EXPECT_EQ(bank.counters().corrected, 1u);
    EXPECT_EQ(bank.counters().detected, 0u);
    bank.read(0x1000, back);
    EXPECT_EQ(bank.counters().corrected, 2u) << "no scrubbing: every read of the faulty word corrects again";
}

TEST(EccBankStore, Parity_detects_a_single_bit_error_and_flags_the_data) {
    EccBankStore bank("sbuf_cluster_2_1", true);
    bank.erg().set_erg_type(ErgType::parity);
    const auto data = pattern(16, 9);
    bank.write(0x1000, data);
    bank.inject_bit_flip(0x1003, 5);
    std::vector<std::uint8_t> back(16);
    const BankAccess r = bank.read(0x1000, back);
    auto expected = data;
    expected[3] ^= 1u << 5;
    EXPECT_EQ(back, expected) << "parity cannot correct: the flipped bit reaches the reader";
    EXPECT_TRUE(r.flagged());
    EXPECT_EQ(bank.counters().detected, 1u);
    EXPECT_EQ(bank.counters().corrected, 0u);
}

TEST(EccBankStore, Ecc_detects_but_cannot_correct_two_flips_in_a_word) {
    EccBankStore bank("b", true);
    bank.write(0x0, pattern(8, 0));
    bank.inject_bit_flip(0x0, 0);
    bank.inject_bit_flip(0x7, 7);
    std::vector<std::uint8_t> back(8);
    EXPECT_TRUE(bank.read(0x0, back).flagged());
    EXPECT_EQ(bank.counters().detected, 1u);
    EXPECT_EQ(bank.counters().corrected, 0u);
}

TEST(EccBankStore, Parity_misses_an_even_number_of_flips) {
    EccBankStore bank("b", true);
    bank.erg().set_erg_type(ErgType::parity);
    bank.inject_bit_flip(0x8, 1);
    bank.inject_bit_flip(0x9, 1);
    std::vector<std::uint8_t> back(8);
    EXPECT_FALSE(bank.read(0x8, back).flagged());
    EXPECT_EQ(bank.counters().silent, 1u);
    EXPECT_EQ(back[0], 2) << "the data is silently wrong";
}

TEST(EccBankStore, A_write_over_the_flipped_byte_clears_the_fault) {
    EccBankStore bank("b", true);
    bank.inject_bit_flip(0x13, 2);
    const std::array<std::uint8_t, 1> one{0x5a};
    bank.write(0x12, one);  // same word, other byte: fault stays
    EXPECT_EQ(bank.faulty_words(), 1u);
    bank.write(0x13, one);
    EXPECT_EQ(bank.faulty_words(), 0u);
    std::vector<std::uint8_t> back(8);
    bank.read(0x10, back);
    EXPECT_EQ(bank.counters().corrected, 0u) << "nothing left to correct";
}

TEST(EccBankStore, Error_checks_work_without_the_backing_store) {
    EccBankStore bank("b");
    bank.inject_bit_flip(0x20, 0);
    std::vector<std::uint8_t> back(8);
    bank.read(0x20, back);
    EXPECT_EQ(bank.counters().corrected, 1u);
}

TEST(EccBankStore, A_read_elsewhere_does_not_see_the_fault) {
    EccBankStore bank("b", true);
    bank.inject_bit_flip(0x100, 0);
    std::vector<std::uint8_t> back(8);
    bank.read(0x108, back);
    bank.read(0xf8, back);
    EXPECT_EQ(bank.counters().corrected, 0u);
}

TEST(EccBankStore, Shutdown_refuses_accesses) {
    EccBankStore bank("b", true);
    bank.erg().write(ErgParityModel::kMemCfg, 1);
    std::vector<std::uint8_t> back(8);
    EXPECT_TRUE(bank.read(0, back).refused);
    EXPECT_EQ(bank.counters().refused, 1u);
    EXPECT_EQ(bank.counters().reads, 0u);
}

TEST(EccBankStore, Bit_numbers_above_7_are_rejected) {
    EccBankStore bank("b");
    EXPECT_THROW(bank.inject_bit_flip(0, 8), std::invalid_argument);
}

TEST(EccBankStore, Kernel_bank_stats_are_added) {
    EccBankStore bank("b");
    sbufsim::BankStats s;
    s.busy = 10;
    s.conflict_cycles = 3;
    s.stalls = 4;
    bank.add_kernel_stats(s);
    bank.add_kernel_stats(s);
    EXPECT_EQ(bank.counters().busy_cycles, 20u);
    EXPECT_EQ(bank.counters().conflict_cycles, 6u);
    EXPECT_EQ(bank.counters().conflict_stalls, 8u);
}

TEST_F(EccBankModule, Sbuf_bank_is_named_like_its_erg_csr_node) {
    SbufBank bank(SbufBank::hw_name(3, 1).c_str(), 3, 1);
    EXPECT_STREQ(bank.name(), "sbuf_cluster_3_1");
    EXPECT_EQ(bank.index(), 7u);
    EXPECT_EQ(bank.erg().name(), "sbuf_cluster_3_1");
    EXPECT_FALSE(bank.store().functional()) << "backing store off by default";
}

TEST_F(EccBankModule, Psum_bank_is_named_like_its_erg_csr_node) {
    PsumBank bank(PsumBank::hw_name(2, 5).c_str(), 2, 5, 8, {.functional = true, .erg_type = ErgType::parity});
    EXPECT_STREQ(bank.name(), "psum_cluster2_bank5");
    EXPECT_EQ(bank.index(), 21u);
    EXPECT_EQ(bank.erg().erg_type(), ErgType::parity);
    EXPECT_TRUE(bank.store().functional());
}

TEST_F(EccBankModule, Errors_are_counted_per_bank) {
    SbufBank a("sbuf_cluster_0_0", 0, 0, {.functional = true});
    SbufBank b("sbuf_cluster_0_1", 0, 1, {.functional = true});
    a.inject_bit_flip(0x40, 3);
    std::vector<std::uint8_t> back(8);
    a.read(0x40, back);
    b.read(0x40, back);
    EXPECT_EQ(a.counters().corrected, 1u);
    EXPECT_EQ(b.counters().corrected, 0u) << "the fault lives in bank a only";
}

