// tdm module (seed 000 §7.2): tdm_cfg reset and field layout, load/export, the states the kernel
// cannot run, the slot and class it drives.
#include <gtest/gtest.h>

#include <memory>

#include <systemc>

#include "sbufsim/config/params.h"
#include "models/kernel/tdm.h"

using namespace sbufsim;
using namespace sbufsim::models;

namespace {

class TdmTest : public ::testing::Test {
protected:
    void SetUp() override {
        sc_core::sc_curr_simcontext = new sc_core::sc_simcontext();
        sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
    }
    models::Tdm& make(const TdmParams& p = {}) {
        tdm = std::make_unique<models::Tdm>("tdm", p);
        return *tdm;
    }
    std::unique_ptr<models::Tdm> tdm;
};

}  // namespace

TEST_F(TdmTest, Reset_is_one_dma_slot_of_eight) {
    models::Tdm& t = make();
    t.write(models::Tdm::kTdmCfg, 0x12345678u);
    t.reset();
    EXPECT_EQ(t.read(models::Tdm::kTdmCfg), 0x00010008u)
        << "tdm_max_slots 8, tdm_dma_slots 1 (seed 000 §7.2)";
    EXPECT_EQ(t.max_slots(), 8u);
    EXPECT_EQ(t.dma_slots(), 1u);
}

TEST_F(TdmTest, Tdm_cfg_fields_are_max_slots_low_and_dma_slots_high) {
    models::Tdm& t = make();
    t.write(models::Tdm::kTdmCfg, (3u << 16) | 16u);
    EXPECT_EQ(t.read(models::Tdm::kTdmCfg), 0x00030010u);
    EXPECT_EQ(t.dma_slots(), 3u) << "tdm_dma_slots is bits [31:16]";
    EXPECT_EQ(t.max_slots(), 16u) << "tdm_max_slots is bits [15:0]";
    TdmParams p;
    t.export_to(p);
    EXPECT_EQ(p.dma_slots, 3u);
    EXPECT_EQ(p.max_slots, 16u);
}

TEST_F(TdmTest, Starts_from_the_configuration) {
    TdmParams p;
    p.dma_slots = 2;
    p.strict = true;
    models::Tdm& t = make(p);
    EXPECT_EQ(t.read(models::Tdm::kTdmCfg), 0x00020008u);
    TdmParams q;
    t.export_to(q);
    EXPECT_EQ(q.dma_slots, 2u);
    EXPECT_FALSE(q.strict) << "strict is a configuration key, not a register field";
}

TEST_F(TdmTest, Export_rejects_states_the_kernel_cannot_run) {
    models::Tdm& t = make();
    t.write(models::Tdm::kTdmCfg, (9u << 16) | 8u);
    TdmParams p;
    EXPECT_THROW(t.export_to(p), CsrError) << "tdm_dma_slots 9 > tdm_max_slots 8";
    EXPECT_EQ(p.dma_slots, TdmParams{}.dma_slots) << "a rejected export leaves Params alone";
    t.write(models::Tdm::kTdmCfg, 0);
    EXPECT_THROW(t.export_to(p), CsrError) << "tdm_max_slots 0";
}

TEST_F(TdmTest, Only_tdm_cfg_is_mapped) {
    models::Tdm& t = make();
    EXPECT_THROW(t.read(0x4), CsrError);
    EXPECT_THROW(t.write(0x2, 1), CsrError) << "unaligned";
    EXPECT_THROW(t.read(models::Tdm::kSizeBytes), CsrError);
}

TEST_F(TdmTest, Drives_the_slot_and_class_of_the_settings_it_follows) {
    TdmParams p;
    p.max_slots = 4;
    p.dma_slots = 2;
    models::Tdm& t = make(p);
    std::uint32_t slot = 99;
    bool dma = false;
    struct Probe : sc_core::sc_module {
        SC_HAS_PROCESS(Probe);
        models::Tdm& t;
        std::uint32_t& slot;
        bool& dma;
        Cycle c = 0;
        Probe(const sc_core::sc_module_name& n, models::Tdm& tdm, std::uint32_t& s, bool& d)
            : sc_core::sc_module(n), t(tdm), slot(s), dma(d) {
            SC_THREAD(run);
        }
        void run() {
            t.drive(5);  // 5 mod 4 = slot 1: a DMA slot
            wait(sc_core::SC_ZERO_TIME);
            slot = t.slot.read();
            dma = t.dma_precedence.read();
        }
    } probe("probe", t, slot, dma);
    sc_core::sc_start();
    EXPECT_EQ(slot, 1u);
    EXPECT_TRUE(dma);
}
