// Cost-model rules of the engine front-ends (PUBLIC_FACTS.md "Engines", "Matmul", "DMA").
#include <gtest/gtest.h>

#include "sbufsim/engines/arr_seq.h"
#include "sbufsim/engines/compute_engine.h"
#include "sbufsim/config/config.h"
#include "shipped.h"
#include "sbufsim/engines/dma_engine.h"

namespace sbufsim {
namespace {

using test::cayman;

TensorAccess sbuf_access(std::uint64_t elems, std::uint32_t esz, bool strided = false) {
    TensorAccess a;
    a.region = Region::sbuf;
    a.parts = 128;
    a.elems = elems;
    a.elem_bytes = esz;
    a.bytes = static_cast<std::uint32_t>(elems * esz);
    a.strided = strided;
    return a;
}

struct Fixture : ::testing::Test {
    Params p = cayman();
    Kernel k{p};
    Semaphores s{256};
    EngineTiming t;
};

using ComputeCost = Fixture;
using MatmulCost = Fixture;
using DmaCost = Fixture;

TEST_F(ComputeCost, Act_costs_overhead_plus_max_64_n) {
    ComputeEngine act(ComputeKind::act, k, s, p, t, nullptr, 0);
    ComputeInstr i;
    i.in[0] = sbuf_access(512, 2);
    i.out = sbuf_access(512, 2);
    EXPECT_DOUBLE_EQ(act.cost_cycles(i), 60 + 512);
    i.in[0] = sbuf_access(10, 2);
    i.out = sbuf_access(10, 2);
    EXPECT_DOUBLE_EQ(act.cost_cycles(i), 60 + 64);  // the 64-cycle floor
}

TEST_F(ComputeCost, Dve_two_input_costs_2n) {
    ComputeEngine dve(ComputeKind::dve, k, s, p, t, nullptr, 0);
    ComputeInstr i;
    i.in[0] = sbuf_access(256, 2);
    i.in[1] = sbuf_access(256, 2);
    i.out = sbuf_access(256, 2);
    EXPECT_DOUBLE_EQ(dve.cost_cycles(i), 60 + 512);
}

TEST_F(ComputeCost, Innermost_stride_over_16_bytes_halves_throughput) {
    ComputeEngine act(ComputeKind::act, k, s, p, t, nullptr, 0);
    ComputeInstr i;
    i.in[0] = sbuf_access(512, 2, /*strided=*/true);
    i.out = sbuf_access(512, 2);
    EXPECT_DOUBLE_EQ(act.cost_cycles(i), 60 + 1024);
}

TEST_F(MatmulCost, Initiation_interval_is_max_n_64_and_4x_for_fp32) {
    ArrSeq a(k, s, p, t, nullptr, 0);
    ArrSeqInstr m;
    m.src = sbuf_access(512, 2);
    EXPECT_EQ(a.matmul_ii(m), 512u);
    m.src = sbuf_access(32, 2);
    EXPECT_EQ(a.matmul_ii(m), 64u);
    m.src = sbuf_access(512, 4);
    m.fp32 = true;
    EXPECT_EQ(a.matmul_ii(m), 2048u);
}

TEST_F(DmaCost, Transfer_time_is_rounded_partitions_over_engine_bandwidth) {
    DmaEngine d(0, k, s, p, t, nullptr, 0);
    DmaInstr i;
    i.partitions = 128;
    i.bytes_per_partition = 2048;
    // 262144 B / 27 GB/s = 9709.04 ns; x 2.4 GHz = 23301.7 -> 23302 PE cycles.
    EXPECT_EQ(d.transfer_cycles(i), 23302u);
    i.partitions = 20;  // rounded up to 32 partitions (seed 000 §7.5)
    i.bytes_per_partition = 2048;
    EXPECT_EQ(d.transfer_cycles(i), 5826u);  // 65536 / 27 * 2.4 = 5825.4
    i.transpose = true;                      // HBM->SBUF transpose at 90%
    EXPECT_EQ(d.transfer_cycles(i), 6473u);  // 5825.4 / 0.9 = 6472.7
    EXPECT_EQ(d.startup_cycles(), 2400u);    // 1 us at 2.4 GHz
}

}  // namespace
}  // namespace sbufsim
