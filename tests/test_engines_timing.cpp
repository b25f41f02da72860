// Cost-model rules of the engine front-ends (docs/engines.md; the nki.isa cost estimates, the
// architecture guides and the DMA guides cited there).
#include <gtest/gtest.h>
#include <cmath>
#include <tuple>

#include "sbufsim/engines/arr_seq.h"
#include "sbufsim/engines/compute_engine.h"
#include "sbufsim/config/config.h"
#include "shipped.h"
#include "sbufsim/engines/dma_engine.h"
#include "sbufsim/kernel/kernel.h"

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

TEST_F(ComputeCost, Activation_interval_is_max_min_ii_n_and_its_signal_waits_the_turnaround) {
    ComputeEngine act(ComputeKind::act, k, s, p, t, nullptr, 0);
    ComputeInstr i;
    i.op = ComputeOp::activation;
    i.in[0] = sbuf_access(512, 2);
    i.out = sbuf_access(512, 2);
    // nki.isa activation: max(MIN_II, N); the access set-up is hidden from the interval.
    EXPECT_DOUBLE_EQ(act.cost(i).ii, 512);
    // A reader of the output starts after the stream plus ACT's dependent turnaround (265).
    EXPECT_DOUBLE_EQ(act.cost(i).done, 512 + 265);
    i.in[0] = sbuf_access(10, 2);
    i.out = sbuf_access(10, 2);
    EXPECT_DOUBLE_EQ(act.cost(i).ii, 64);         // the MIN_II floor
    EXPECT_DOUBLE_EQ(act.cost(i).done, 10 + 265);  // 1-element chains: ~266 (NKI perf guide Opt #5a)
}

TEST_F(ComputeCost, Tensor_tensor_is_2n_unless_a_performance_mode_applies) {
    ComputeEngine dve(ComputeKind::dve, k, s, p, t, nullptr, 0);
    ComputeInstr i;
    i.op = ComputeOp::tensor_tensor;
    i.in[0] = sbuf_access(256, 4);
    i.in[1] = sbuf_access(256, 4);
    i.out = sbuf_access(256, 4);
    EXPECT_DOUBLE_EQ(dve.cost(i).ii, 512);   // fp32: max(MIN_II, 2N)
    i.in[0] = sbuf_access(256, 2);
    i.in[1] = sbuf_access(256, 2);
    i.out = sbuf_access(256, 2);
    EXPECT_DOUBLE_EQ(dve.cost(i).ii, 256);   // bf16, both SBUF, NC-v3: N
    i.in[1].region = Region::psum;
    EXPECT_DOUBLE_EQ(dve.cost(i).ii, 256);   // one input in PSUM: N
    i.op = ComputeOp::generic;
    i.in[1].region = Region::sbuf;
    EXPECT_DOUBLE_EQ(dve.cost(i).ii, 512);   // no isa=: the rule of thumb, 2N for two inputs
    // NC-v2 (no performance mode): the bf16 fast path stays (nki.isa, SDK 2.20.0) unless
    // timing.dve_bf16_fast is off.
    i.op = ComputeOp::tensor_tensor;
    EngineTiming v2 = t;
    v2.dve_perf_modes = false;
    ComputeEngine dve2(ComputeKind::dve, k, s, p, v2, nullptr, 0);
    EXPECT_DOUBLE_EQ(dve2.cost(i).ii, 256);
    v2.dve_bf16_fast = false;
    ComputeEngine slow(ComputeKind::dve, k, s, p, v2, nullptr, 0);
    EXPECT_DOUBLE_EQ(slow.cost(i).ii, 512);
}

TEST_F(ComputeCost, Bf16_tensor_reduce_takes_n_over_2_without_the_performance_mode) {
    EngineTiming v2 = t;
    v2.dve_perf_modes = false;
    ComputeEngine dve(ComputeKind::dve, k, s, p, v2, nullptr, 0);
    ComputeInstr i;
    i.op = ComputeOp::tensor_reduce;
    i.in[0] = sbuf_access(512, 2);
    i.out = sbuf_access(1, 2);
    EXPECT_DOUBLE_EQ(dve.cost(i).ii, 256);
    i.in[0] = sbuf_access(512, 4);
    i.out = sbuf_access(1, 4);
    EXPECT_DOUBLE_EQ(dve.cost(i).ii, 512);  // fp32: N
}

TEST_F(ComputeCost, Iota_and_memset_count_the_output_elements) {
    ComputeEngine pool(ComputeKind::pool, k, s, p, t, nullptr, 0);
    ComputeEngine dve(ComputeKind::dve, k, s, p, t, nullptr, 0);
    ComputeInstr i;
    i.op = ComputeOp::iota;
    i.in[0] = sbuf_access(128, 4);  // a src of another size does not count
    i.out = sbuf_access(512, 4);
    EXPECT_DOUBLE_EQ(pool.cost(i).ii, 150 + 512);
    i.op = ComputeOp::memset;
    i.in[0] = sbuf_access(256, 2);
    i.out = sbuf_access(1024, 2);
    EXPECT_DOUBLE_EQ(dve.cost(i).ii, 512);  // bf16: N / 2 of the output
}

TEST_F(ComputeCost, Tensor_copy_bf16_runs_4x_contiguous_and_2x_strided) {
    ComputeEngine dve(ComputeKind::dve, k, s, p, t, nullptr, 0);
    ComputeInstr i;
    i.op = ComputeOp::tensor_copy;
    i.in[0] = sbuf_access(2048, 2);
    i.out = sbuf_access(2048, 2);
    EXPECT_DOUBLE_EQ(dve.cost(i).ii, 512);
    i.in[0].contiguous = false;
    EXPECT_DOUBLE_EQ(dve.cost(i).ii, 1024);
    EngineTiming v2 = t;
    v2.dve_perf_modes = false;                // NC-v2
    ComputeEngine dve2(ComputeKind::dve, k, s, p, v2, nullptr, 0);
    EXPECT_DOUBLE_EQ(dve2.cost(i).ii, 2048);
}

TEST_F(ComputeCost, Innermost_stride_over_16_bytes_halves_throughput) {
    ComputeEngine act(ComputeKind::act, k, s, p, t, nullptr, 0);
    ComputeInstr i;
    i.op = ComputeOp::activation;
    i.in[0] = sbuf_access(512, 2, /*strided=*/true);
    i.out = sbuf_access(512, 2);
    EXPECT_DOUBLE_EQ(act.cost(i).ii, 1024);
}

TEST_F(ComputeCost, Gpsimd_instructions_pay_their_start_up) {
    ComputeEngine pool(ComputeKind::pool, k, s, p, t, nullptr, 0);
    ComputeInstr i;
    i.op = ComputeOp::iota;
    i.out = sbuf_access(512, 4);
    EXPECT_DOUBLE_EQ(pool.cost(i).ii, 150 + 512);   // nki.isa iota: GPSIMD_START + N
}

TEST_F(MatmulCost, Initiation_interval_follows_the_nc_matmul_cost) {
    ArrSeq a(k, s, p, t, nullptr, 0);
    ArrSeqInstr m;
    m.src = sbuf_access(512, 2);
    EXPECT_EQ(a.matmul_ii(m), 512u);
    m.src = sbuf_access(32, 2);
    EXPECT_EQ(a.matmul_ii(m), 64u);
    m.stationary_cols = 16;                   // max(min(64, N_stationary), N_moving)
    EXPECT_EQ(a.matmul_ii(m), 32u);
    m.stationary_cols = 0;
    m.src = sbuf_access(512, 4);
    m.fp32 = true;
    EXPECT_EQ(a.matmul_ii(m), 2048u);
    m.onezero = true;                         // nki.isa nc_matmul is_stationary_onezero: 2x for fp32
    EXPECT_EQ(a.matmul_ii(m), 1024u);
    m.onezero = false;
    m.src = sbuf_access(1024, 1);             // fp8 double row: two moving rows per column
    m.fp32 = false;
    m.double_row = true;
    EXPECT_EQ(a.matmul_ii(m), 512u);
    m.double_row = false;
    m.onezero = true;                         // no effect on other dtypes
    EXPECT_EQ(a.matmul_ii(m), 1024u);
}

TEST_F(MatmulCost, Load_stationary_is_four_times_faster_than_a_matmul) {
    ArrSeq a(k, s, p, t, nullptr, 0);
    ArrSeqInstr l;
    l.kind = ArrSeqInstr::Kind::ldweights;
    l.cols = 128;
    EXPECT_EQ(a.ldweights_cycles(l), 32u);
    l.cols = 1;
    EXPECT_EQ(a.ldweights_cycles(l), 1u);
    l.cols = 128;
    l.fp32 = true;
    EXPECT_EQ(a.ldweights_cycles(l), 128u);
}

// The PE queue alone on a kernel: steps the sequencer and the kernel to each other's next event
// (as the replay does) until the queue is done, and returns its last completion.
struct PeQueue {
    explicit PeQueue(const Params& params) : p(params), k(p), a(k, s, p, p.timing, nullptr, 0) {}
    Cycle run() {
        Cycle now = 0;
        for (;;) {
            while (a.step(now)) {
            }
            const Wake w = a.wake(now);
            if (w.never() || k.run_until(w.at, w.watch) == RunStatus::stuck) break;
            now = k.now();
        }
        EXPECT_TRUE(a.idle());
        a.finish(std::max(now, k.now()));
        return a.stats().last_end;
    }
    std::uint64_t requests(const std::string& client) const {
        for (const auto& c : k.stats().clients)
            if (c.name == client) return c.requests;
        ADD_FAILURE() << "no client " << client;
        return 0;
    }
    Params p;
    Kernel k;
    Semaphores s{256};
    ArrSeq a;
};

ArrSeqInstr moving_matmul(std::uint16_t first, std::uint16_t parts, std::uint64_t n = 512) {
    ArrSeqInstr m;
    m.src = sbuf_access(n, 2);
    m.src.first = first;
    m.src.parts = parts;
    m.rows = parts;
    m.cols = 128;
    return m;
}

ArrSeqInstr psum_matmul(std::uint64_t n, std::uint8_t flags) {
    ArrSeqInstr m = moving_matmul(0, 128, n);
    m.dst.region = Region::psum;
    m.dst.parts = 128;
    m.dst.elems = n;
    m.dst.elem_bytes = 4;
    m.dst.bytes = static_cast<std::uint32_t>(n * 4);
    m.acc_flags = flags;
    return m;
}

ArrSeqInstr load_stationary() {
    ArrSeqInstr l;
    l.kind = ArrSeqInstr::Kind::ldweights;
    l.src = sbuf_access(128, 2);
    l.rows = 128;
    l.cols = 128;
    return l;
}

TEST(PeRowGroups, Maverick_reads_the_moving_tensor_in_two_row_groups_cayman_in_four) {
    // seed 000 §1: PE_ARRAY_NUM_ROW_GROUPS = 4 on cayman, 2 on maverick.
    for (const char* gen : {"cayman", "maverick"}) {
        SCOPED_TRACE(gen);
        PeQueue q(test::shipped_params(gen));
        q.a.push(moving_matmul(0, 128));
        q.run();
        const bool two = std::string(gen) == "maverick";
        EXPECT_GT(q.requests("pe_client_0"), 0u);
        EXPECT_GT(q.requests("pe_client_1"), 0u);
        EXPECT_EQ(q.requests("pe_client_2") > 0, !two);
        EXPECT_EQ(q.requests("pe_client_3") > 0, !two);
    }
}

TEST(PeRowGroups, Partitions_32_to_63_wait_for_row_group_0_on_maverick_and_1_on_cayman) {
    // Row group q is pe.rows / pe.row_groups partitions: 32..63 is group 1 of 4 but group 0 of 2,
    // so its moving read waits for that group's stagger timer (array_stagger_rg{q}_ctrl1).
    auto end = [](const char* gen, std::uint32_t group, std::uint32_t stagger) {
        Params p = test::shipped_params(gen);
        p.arr_seq.rg_stagger[group] = stagger;
        PeQueue q(p);
        q.a.push(moving_matmul(32, 32));
        return q.run();
    };
    for (const char* gen : {"cayman", "maverick"}) {
        SCOPED_TRACE(gen);
        const bool two = std::string(gen) == "maverick";
        const Cycle base = end(gen, 0, 0);
        EXPECT_EQ(end(gen, 0, 300) > base, two);
        EXPECT_EQ(end(gen, 1, 300) > base, !two);
    }
}

TEST(ArrSeqLdWeights, A_second_ldweights_replaces_weights_no_matmul_latched) {
    // Two LoadStationaries in a row: the second replaces the first's weights (which no matmul
    // used) rather than waiting for a latch that never comes; the matmul streams with it.
    PeQueue q(cayman());
    q.a.push(load_stationary());
    q.a.push(load_stationary());
    q.a.push(psum_matmul(512, 3));
    q.a.push(load_stationary());
    q.a.push(psum_matmul(512, 3));
    EXPECT_GT(q.run(), 2u * 512);
    EXPECT_EQ(q.a.arr_stats().ldweights, 3u);
    EXPECT_EQ(q.a.arr_stats().matmuls, 2u);
    // Only the first was replaced unused: the third loads after the first matmul latched.
    EXPECT_EQ(q.a.arr_stats().ldweights_replaced, 1u);
}

TEST(ArrSeqMx, An_mx_matmul_streams_as_many_x4_columns_as_bf16_with_4x_the_macs_and_reads_its_scales) {
    // trn3 arch guide, Quad-MXFP8/MXFP4 Matmul Performance: 4x the BF16 throughput; MXFP matmul
    // guide, Scale Tensor: one uint8 per 8 partitions x 4 values, in each quadrant's partitions.
    auto run = [](bool mx) {
        PeQueue q(test::shipped_params("mariana"));
        ArrSeqInstr l = load_stationary();
        ArrSeqInstr m = psum_matmul(512, 3);
        if (mx) {
            l.src = sbuf_access(128, 4);
            m.src = sbuf_access(512, 4);
            m.src.parts = 128;
            for (ArrSeqInstr* i : {&l, &m}) {
                i->mx = true;
                i->scale = sbuf_access(i->src.elems, 1);
                i->scale.offset = 0x6000;
                i->scale.parts = 4;
            }
        }
        q.a.push(l);
        q.a.push(m);
        const Cycle end = q.run();
        return std::tuple{end, q.a.arr_stats().macs, q.a.stats().bytes_read, q.a.arr_stats().pe_stream};
    };
    const auto [bf_end, bf_macs, bf_read, bf_stream] = run(false);
    const auto [mx_end, mx_macs, mx_read, mx_stream] = run(true);
    EXPECT_EQ(mx_stream, bf_stream);             // 512 streaming cycles either way
    EXPECT_EQ(mx_macs, 4 * bf_macs);
    // x4 data is twice bf16's bytes; the scales add 4 partitions per quadrant of each operand
    EXPECT_EQ(mx_read, 2 * bf_read + 4u * 4 * (128 + 512));
    EXPECT_LE(mx_end, bf_end + 16);
}

TEST(ArrSeqThrottle, A_burst_starts_at_half_rate_and_an_idle_gap_re_engages_the_ramp) {
    // Neuron Explorer, Understanding throttling (Trn2/Trn3): ~50 % at first, full after ~3 us,
    // re-engaged after ~3 us below 50 % (read: an idle gap of 1.5 us).
    Params p = cayman();
    ASSERT_EQ(p.pe.ramp_start, 0.5);  // the docs' figure, cayman's (trn2) setting
    Kernel k(p);
    Semaphores s(256);
    ArrSeq a(k, s, p, p.timing, nullptr, 0);
    const Cycle first = a.throttled(512, 0);
    EXPECT_GT(first, 512u);   // below full rate ...
    EXPECT_LE(first, 1024u);  // ... and at least half of it
    const Cycle second = a.throttled(512, first);
    EXPECT_LT(second, first);  // the rate grows
    EXPECT_GT(second, 512u);
    // Back to back: full rate once the ramp (3 us = 7200 cycles) is over.
    const Cycle ramp = static_cast<Cycle>(3000 * p.pe.clock_ghz);
    Cycle now = first + second;
    while (now < ramp) now += a.throttled(512, now);
    EXPECT_EQ(a.throttled(512, now), 512u);
    now += 512;
    // An idle gap shorter than 1.5 us keeps the full rate; one of 1.5 us or more re-engages the
    // limit: the next matmul starts at half rate again.
    const Cycle gap = static_cast<Cycle>(1500 * p.pe.clock_ghz);
    EXPECT_EQ(a.throttled(512, now + gap - 1), 512u);
    now += gap - 1 + 512;
    EXPECT_EQ(a.throttled(512, now + gap), first);
    PeQueue throttled_queue(p);
    throttled_queue.a.push(moving_matmul(0, 128));
    p.pe.ramp_start = 1;  // no throttle
    PeQueue q(p);
    q.a.push(moving_matmul(0, 128));
    const Cycle full_rate = q.run(), slowed = throttled_queue.run();
    EXPECT_LT(full_rate, slowed);
    // The statistics say what the throttle cost and how often it engaged; nothing without it.
    EXPECT_EQ(throttled_queue.a.arr_stats().ramp_engaged, 1u);
    EXPECT_GT(throttled_queue.a.arr_stats().ramp_cycles, 0u);
    EXPECT_LE(throttled_queue.a.arr_stats().ramp_cycles, slowed - full_rate);
    EXPECT_EQ(q.a.arr_stats().ramp_engaged, 0u);
    EXPECT_EQ(q.a.arr_stats().ramp_cycles, 0u);
}

// The throttle is on where AWS's docs name it (Trn2 and Trn3: "starts at roughly 50% utilization",
// Neuron Explorer, Understanding throttling) and off on the generations they do not.
TEST(ArrSeqThrottle, Trn2_and_trn3_start_at_half_rate_the_other_generations_have_no_ramp) {
    for (const char* gen : {"cayman", "mariana"})
        EXPECT_EQ(test::shipped_params(gen).pe.ramp_start, 0.5) << gen;
    for (const char* gen : {"sunda", "inferentia", "maverick"})
        EXPECT_EQ(test::shipped_params(gen).pe.ramp_start, 1.0) << gen;
}

TEST(ArrSeqCsr, Disable_dependency_check_single_threads_the_queue) {
    // Background LoadStationary overlaps the matmul before it; a single-threaded queue cannot.
    auto end = [](bool single) {
        Params p = test::no_ramp(cayman());  // exact matmul cycles: the ramp off
        p.arr_seq.disable_dependency_check = single;
        PeQueue q(p);
        for (int i = 0; i < 4; ++i) {
            q.a.push(load_stationary());
            q.a.push(psum_matmul(512, 3));
        }
        return q.run();
    };
    const Cycle overlapped = end(false), single = end(true);
    // Each of the last three LoadStationaries (ceil(128 / 4) = 32 PE cycles) is exposed at least.
    EXPECT_GE(single, overlapped + 3 * 32);
}

TEST(ArrSeqCsr, Flush_p2f_fifos_holds_a_matmul_until_the_earlier_psum_writes_drain) {
    // Short matmuls (N = 64) release the array before their PSUM writes issue
    // (timing.pe_drain_latency = 128 after the start), so without the flush they run back to back.
    auto end = [](bool flush) {
        Params p = test::no_ramp(cayman());  // exact matmul cycles: the ramp off
        p.arr_seq.flush_p2f_fifos = flush;
        PeQueue q(p);
        for (int i = 0; i < 4; ++i) q.a.push(psum_matmul(64, 3));
        return q.run();
    };
    const Cycle streamed = end(false), flushed = end(true);
    // Each of the last three matmuls waits at least the drain latency less its own interval.
    EXPECT_GE(flushed, streamed + 3 * (128 - 64));
}

TEST(DmaReadAddWrite, Moves_data_at_the_rmw_fraction_of_a_copy) {
    // trn3 arch guide, SBUF Read-Add-Write: the same throughput as a copy on NeuronCore-v4, 50 %
    // before it (timing.dma_rmw_fraction).
    for (const char* gen : {"cayman", "mariana"}) {
        SCOPED_TRACE(gen);
        const Params p = test::shipped_params(gen);
        Kernel k(p);
        Semaphores s(256);
        DmaEngine d(0, k, s, p, p.timing, nullptr, 0);
        DmaInstr i;
        i.partitions = 8;
        i.bytes_per_partition = 65536;
        i.bytes = 8 * 65536;
        const double fixed = p.dma.xfer_fixed_ns, copy = d.data_ns(i) - fixed;
        i.rmw = true;
        EXPECT_NEAR((d.data_ns(i) - fixed) / copy, 1.0 / p.timing.dma_rmw_fraction, 1e-9);
        EXPECT_DOUBLE_EQ(p.timing.dma_rmw_fraction, std::string(gen) == "mariana" ? 1.0 : 0.5);
    }
}

TEST_F(DmaCost, Transfer_time_is_the_fixed_cost_plus_each_descriptor) {
    DmaEngine d(0, k, s, p, t, nullptr, 0);
    DmaInstr i;
    // DMA overview Example 1: 4 partitions x 8192 B on one engine, 211 + 4 x 8192 / 27.2 ns =
    // 1415.7 ns = 3397.7 -> 3398 PE cycles.
    i.partitions = 4;
    i.bytes_per_partition = 8192;
    i.bytes = 32768;
    EXPECT_NEAR(d.data_ns(i), 1415.7, 0.1);
    EXPECT_EQ(d.transfer_cycles(i), 3398u);
    EXPECT_EQ(d.descriptors(i), 4u);
    // Bytes are the bytes moved: 20 partitions are not rounded up to 32.
    i.partitions = 20;
    i.bytes_per_partition = 2048;
    i.bytes = 40960;
    EXPECT_NEAR(d.data_ns(i), 211 + 20 * 78.0, 1e-6);  // a 2048 B row: 75.3 ns of bytes, the 78 ns minimum
    i.bytes_per_partition = 4096;
    i.bytes = 81920;
    EXPECT_NEAR(d.data_ns(i), 211 + 20 * 4096 / 27.2, 1e-6);
    i.bytes_per_partition = 2048;
    i.bytes = 40960;
    // 64-byte contiguous runs: each descriptor takes the 78 ns minimum.
    i.run_bytes = 64;
    EXPECT_EQ(d.descriptors(i), 20u * 32);
    EXPECT_NEAR(d.data_ns(i), 211 + 20 * 32 * 78.0, 1e-6);
    EXPECT_NEAR(d.bytes_ns(i), 40960 / 27.2, 1e-6);  // the part only the bytes take
    i.run_bytes = 0;
    i.transpose = true;   // HBM->SBUF transpose at 90 %
    EXPECT_NEAR(d.data_ns(i), 211 + 40960 / (27.2 * 0.9), 1e-6);
    EXPECT_EQ(d.startup_cycles(), 3120u);   // 1300 ns semaphore-to-start at 2.4 GHz
}

// One engine, `n` loads of 8 partitions x `row` bytes, spread over `queues` queues round robin;
// returns the cycle the last one ends.
Cycle dma_stream_end(Params p, std::uint32_t outstanding, std::uint32_t queues, std::uint32_t n,
                     std::uint32_t row) {
    p.dma.outstanding = outstanding;
    Kernel k(p);
    Semaphores s(256);
    DmaEngine d(0, k, s, p, p.timing, nullptr, 0);
    for (std::uint32_t q = 0; q < queues; ++q) d.add_queue("q" + std::to_string(q));
    for (std::uint32_t j = 0; j < n; ++j) {
        DmaInstr i;
        i.partitions = 8;
        i.bytes_per_partition = row;
        i.bytes = 8 * row;
        i.wr.region = Region::sbuf;
        i.wr.parts = 8;
        i.wr.elems = row / 2;
        i.wr.elem_bytes = 2;
        i.wr.bytes = row;
        d.push(j % queues, i);
    }
    Cycle now = 0;
    for (;;) {
        while (d.step(now)) {}
        const Wake w = d.wake(now);
        if (w.never() || k.run_until(w.at, w.watch) == RunStatus::stuck) break;
        now = k.now();
    }
    EXPECT_TRUE(d.idle());
    d.finish(std::max(now, k.now()));
    return d.stats().last_end;
}

TEST(DmaOutstanding, Overheads_overlap_other_queues_data_but_not_their_own_queues) {
    const Params p = cayman();
    Kernel k(p);
    Semaphores s(256);
    DmaEngine probe(0, k, s, p, p.timing, nullptr, 0);
    // 512 B rows: each share is 211 + 8 x 78 = 835 ns alone, of which 8 x 512 / 27.2 = 150.6 ns bytes.
    DmaInstr i;
    i.partitions = 8;
    i.bytes_per_partition = 512;
    i.bytes = 4096;
    const Cycle whole = probe.transfer_cycles(i);
    const Cycle bytes = static_cast<Cycle>(std::ceil(probe.bytes_ns(i) * p.pe.clock_ghz - 1e-9));
    // One queue: in order, every share pays its whole cost whatever dma.outstanding is.
    const Cycle serial = dma_stream_end(p, 1, 1, 16, 512);
    EXPECT_EQ(dma_stream_end(p, 2, 1, 16, 512), serial);
    EXPECT_GE(serial, 16 * whole);
    // Two queues, one share in flight: the same.
    EXPECT_EQ(dma_stream_end(p, 1, 2, 16, 512), serial);
    // Two queues, two in flight: each share after the first hides the overhead that ran during
    // the data of the share ahead of it (bytes only here: the overhead is longer than the data).
    const Cycle overlapped = dma_stream_end(p, 2, 2, 16, 512);
    EXPECT_LT(overlapped, serial);
    EXPECT_LE(overlapped, serial - 15 * bytes);
    EXPECT_GE(overlapped, whole + 15 * bytes);
}

}  // namespace
}  // namespace sbufsim
