// The GEMM generator: instruction counts and DMA bytes follow the tiling arithmetic (counted from
// the written trace, not from the generator's own tallies), every trace passes TraceChecker,
// generation is deterministic, and a replay reaches the cost-model PE time within fill/drain.
//
// Tile limits on cayman (docs/generators.md): tile_k = 128 partitions, tile_n = 128 columns,
// tile_m = 512 fp32 results = one 2 KiB PSUM bank. Defaults: block_n = 4, block_m = 1, bufs = 8,
// out_bufs = 8, 16 DMA queues, 8 PSUM banks in rotation.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

#include "sbufsim/config/config.h"
#include "sbufsim/replay/replay.h"
#include "sbufsim/trace/sync_check.h"
#include "sbufsim/trace/trace.h"
#include "sbufsim/trace/trace_check.h"
#include "sbufsim/workload/workload.h"
#include "shipped.h"

namespace sbufsim {
namespace {

using test::cayman;

// What a trace contains, counted record by record.
struct Census {
    std::uint64_t records = 0, matmuls = 0, ldweights = 0, act = 0, dve = 0, loads = 0, stores = 0;
    std::uint64_t begin = 0, mid = 0, end = 0, single = 0;
    std::uint64_t load_bytes = 0, store_bytes = 0, pe_cycles = 0;
    std::map<std::string, std::uint64_t> queue_bytes;
    std::vector<TraceError> problems;
    std::vector<Record> matmul_records;   // the first few, for placement checks
};

Census census(const std::string& text, const Params& p) {
    std::istringstream in(text);
    TraceReader reader(in, "gen.trc");
    TraceChecker checker(p, "gen.trc");
    SyncCheck sync(p, "gen.trc");  // deadlocks and races
    Census c;
    checker.check_header(reader.header(), c.problems);
    Record r;
    while (reader.next(r)) {
        ++c.records;
        checker.check(r, c.problems);
        sync.add(r, c.problems);
        switch (r.kind) {
        case RecordKind::matmul:
            ++c.matmuls;
            (r.acc_flags == 1 ? c.begin : r.acc_flags == 2 ? c.end : r.acc_flags == 3 ? c.single : c.mid)++;
            // The initiation interval: max(N, min(64, the stationary's columns)) (docs/engines.md).
            c.pe_cycles +=
                std::max<std::uint64_t>(r.src.elements(), std::min<std::uint64_t>(64, r.num_active_cols)) *
                (dtype_size(r.src.dtype) == 4 ? 4 : 1);
            if (c.matmul_records.size() < 4) c.matmul_records.push_back(r);
            break;
        case RecordKind::ldweights: ++c.ldweights; break;
        case RecordKind::act: ++c.act; break;
        case RecordKind::dve: ++c.dve; break;
        case RecordKind::dma: {
            const std::uint64_t b = std::uint64_t{r.partitions} * r.bytes;
            c.queue_bytes[std::string(r.queue)] += b;
            if (r.src.kind == Operand::Kind::hbm) {
                ++c.loads;
                c.load_bytes += b;
            } else {
                ++c.stores;
                c.store_bytes += b;
            }
            break;
        }
        default: break;
        }
    }
    checker.finish(c.problems);
    sync.finish(c.problems);
    // Views into the reader's buffers do not outlive it: keep only value fields.
    for (auto& m : c.matmul_records) m.queue = m.client = m.fn = {};
    return c;
}

std::string generate(const Params& p, const GemmShape& s, const GemmOptions& o, GemmStats* stats = nullptr) {
    std::ostringstream out;
    TraceWriter w(out, TraceFormat::text, TraceHeader{1, p.generation});
    TraceWriterSink sink(w);
    GemmStats st = generate_gemm(p, s, o, sink);
    w.finish();
    if (stats) *stats = st;
    return out.str();
}

std::string problems(const Census& c) {
    std::string s;
    for (const auto& e : c.problems) s += e.to_string() + "\n";
    return s;
}

TEST(Workload_gemm, Counts_match_tiling_arithmetic_1024x4096x1024_bf16) {
    const Params p = cayman();
    GemmStats st;
    const Census c = census(generate(p, {1024, 4096, 1024, "g"}, GemmOptions{}, &st), p);
    ASSERT_TRUE(c.problems.empty()) << problems(c);
    // MT = 1024/512 = 2, NT = 4096/128 = 32, KT = 1024/128 = 8.
    EXPECT_EQ(c.matmuls, 2u * 32 * 8);      // 512
    EXPECT_EQ(c.ldweights, 512u);           // block_m = 1: one LdWeights per matmul
    EXPECT_EQ(c.begin, 64u);                // PSUM groups = output tiles = 2 x 32
    EXPECT_EQ(c.end, 64u);
    EXPECT_EQ(c.mid, 64u * 6);              // K-loop of 8: BEGIN, 6 mid, END (seed 000 §5.4)
    EXPECT_EQ(c.act, 64u);
    // n-blocks = 32/4 = 8, m-blocks = 2: the stationary is resident (2 x 8 slots of 1 KiB fit),
    // so B is loaded once (K·N·2 = 8 MiB) and A once per n-block (8 x M·K·2 = 16 MiB).
    EXPECT_TRUE(st.stationary_resident());
    EXPECT_EQ(c.load_bytes, (8ull << 20) + (16ull << 20));
    EXPECT_EQ(st.stationary_bytes, 8ull << 20);
    EXPECT_EQ(st.moving_bytes, 16ull << 20);
    EXPECT_EQ(c.store_bytes, 1024ull * 4096 * 2);   // C in bf16
    // Loads: 8 x 8 = 64 stationary + 8 x 2 x 8 = 128 moving slices; 64 stores; all 128 KiB.
    EXPECT_EQ(c.loads, 192u);
    EXPECT_EQ(c.stores, 64u);
    // Round robin over 16 queues: 4 stationary + 8 moving + 4 stores of 128 KiB each = 2 MiB per queue.
    ASSERT_EQ(c.queue_bytes.size(), 16u);
    for (const auto& [q, b] : c.queue_bytes) EXPECT_EQ(b, 2ull << 20) << q;
    // Cost model: 512 matmuls x max(512, 64) PE cycles.
    EXPECT_EQ(c.pe_cycles, 262144u);
    EXPECT_EQ(st.pe_cycles, 262144u);
}

TEST(Workload_gemm, Ragged_edges_give_smaller_last_tiles_and_exact_bytes) {
    const Params p = cayman();
    GemmOptions o;
    o.dma_queues = 2;
    o.bufs = 2;   // resident stationary needs bufs <= m-blocks x k-tiles = 6
    GemmStats st;
    const Census c = census(generate(p, {700, 200, 300, "r"}, o, &st), p);
    ASSERT_TRUE(c.problems.empty()) << problems(c);
    // m-tiles 512 + 188, n-tiles 128 + 72, k-tiles 128 + 128 + 44: 2 x 2 x 3 = 12 matmuls.
    EXPECT_EQ(c.matmuls, 12u);
    EXPECT_EQ(c.ldweights, 12u);
    EXPECT_EQ(c.begin, 4u);
    EXPECT_EQ(c.end, 4u);
    EXPECT_EQ(c.mid, 4u);
    // PE: 6 matmuls of 512 + 6 of 188 columns.
    EXPECT_EQ(c.pe_cycles, 6u * 512 + 6u * 188);
    // Stationary resident (2 m-blocks): K·N·2 = 120000 B; moving once (1 n-block): M·K·2 =
    // 420000 B; stores M·N·2 = 280000 B.
    EXPECT_EQ(st.stationary_bytes, 120000u);
    EXPECT_EQ(st.moving_bytes, 420000u);
    EXPECT_EQ(c.store_bytes, 280000u);
    EXPECT_EQ(c.load_bytes, 540000u);
    // Per queue (stationary from q0, moving from q1 = Q/2, stores from q0 = Q/4, each round robin):
    //   stationary k-slices 128x400, 128x400, 44x400 B -> q0 51200+17600, q1 51200
    //   moving (mb, kt) 128x1024, 128x1024, 44x1024, 128x376, 128x376, 44x376
    //                   -> q1 131072+45056+48128, q0 131072+48128+16544
    //   stores 128x1024, 72x1024, 128x376, 72x376 -> q0 131072+48128, q1 73728+27072
    EXPECT_EQ(c.queue_bytes.at("qSyncIO0"), 68800u + 195744u + 179200u);
    EXPECT_EQ(c.queue_bytes.at("qSyncIO1"), 51200u + 224256u + 100800u);
    EXPECT_EQ(st.queue_bytes[0], 443744u);
    EXPECT_EQ(st.queue_bytes[1], 376256u);
    // The ragged k-tile (44 rows) reads quadrants 0-1 (row_grp 0x3); 72 columns need the full array.
    const Census first = census(generate(p, {700, 200, 44, "r"}, o), p);
    ASSERT_FALSE(first.matmul_records.empty());
    EXPECT_EQ(first.matmul_records[0].row_grp, 0x3);
    EXPECT_EQ(first.matmul_records[0].num_active_rows, 44);
    EXPECT_EQ(first.matmul_records[1].num_active_cols, 72);
    EXPECT_EQ(first.matmul_records[1].col_grp, 0xf);
    EXPECT_EQ(first.matmul_records[0].acc_flags, 3);   // one k-tile: BEGIN|END (SINGLE)
}

TEST(Workload_gemm, Fp32_costs_four_times_per_matmul) {
    const Params p = cayman();
    GemmOptions o;
    o.dtype = Dtype::fp32;
    GemmStats st;
    const Census c = census(generate(p, {512, 128, 128, "f"}, o, &st), p);
    ASSERT_TRUE(c.problems.empty()) << problems(c);
    EXPECT_EQ(c.matmuls, 1u);
    EXPECT_EQ(c.single, 1u);
    EXPECT_EQ(st.pe_cycles, 4u * 512);   // PUBLIC_FACTS: fp32 about 4x
    EXPECT_EQ(c.load_bytes, 128u * 128 * 4 + 128u * 512 * 4);
}

TEST(Workload_gemm, Block_m_shares_one_LdWeights_between_matmuls) {
    const Params p = cayman();
    GemmOptions o;
    o.block_n = 2;
    o.block_m = 2;
    const Census c = census(generate(p, {2048, 256, 256, "b"}, o), p);
    ASSERT_TRUE(c.problems.empty()) << problems(c);
    // MT = 4, NT = 2, KT = 2: 16 matmuls; LdWeights per (kt, nt, m-block) = 2 x 2 x 2 = 8.
    EXPECT_EQ(c.matmuls, 16u);
    EXPECT_EQ(c.ldweights, 8u);
    EXPECT_EQ(c.begin, 8u);
}

std::string refusal(const Params& p, const GemmShape& shape, const GemmOptions& o) {
    try {
        generate(p, shape, o);
    } catch (const WorkloadError& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected a WorkloadError";
    return "";
}

// A block wider than the GEMM's tiles along an axis is cut to them before the PSUM check and the
// SBUF layout: the trace is the one the cut block writes, byte for byte (slots included), and a
// block refused only for its empty part is accepted.
TEST(Workload_gemm, A_block_wider_than_the_gemm_is_cut_to_its_tiles) {
    const Params p = cayman();
    const GemmShape shape{2048, 256, 256, "b"};  // MT = 4, NT = 2
    GemmOptions exact;
    exact.block_m = 4;
    exact.block_n = 2;
    GemmStats st_exact;
    const std::string want = generate(p, shape, exact, &st_exact);
    EXPECT_EQ(st_exact.block_m, 4u);
    EXPECT_EQ(st_exact.block_n, 2u);
    for (const auto& [bm, bn] : {std::pair<std::uint32_t, std::uint32_t>{8, 4}, {16, 4}, {4, 64}}) {
        GemmOptions wide;
        wide.block_m = bm;
        wide.block_n = bn;
        GemmStats st;
        const std::string got = generate(p, shape, wide, &st);  // 16 x 4 alone needs 64 PSUM slots
        EXPECT_EQ(got, want) << "--block-m " << bm << " --block-n " << bn;
        EXPECT_EQ(st.block_m, 4u);
        EXPECT_EQ(st.block_n, 2u);
    }
    // Cut to 4 x 4 it still needs 16 PSUM slots of 8: the refusal names the cut value.
    GemmOptions too_many;
    too_many.block_m = 16;
    too_many.block_n = 4;
    EXPECT_NE(
        refusal(p, {2048, 512, 128, "x"}, too_many)
            .find("--block-n 4 x --block-m 16 (4: the GEMMs have at most 4 m-tiles): every output tile"),
        std::string::npos);
}

// The bounds of several GEMMs take each axis's largest on its own.
TEST(Workload_gemm, Gemm_bounds_take_each_axis_on_its_own) {
    const GemmShape b = gemm_bounds({{512, 4096, 64, "a"}, {2048, 128, 256, "b"}, {64, 64, 1024, "c"}});
    EXPECT_EQ(b.m, 2048u);
    EXPECT_EQ(b.n, 4096u);
    EXPECT_EQ(b.k, 1024u);
    // An emitter of both keeps the block the larger GEMM fills along each axis.
    const Params p = cayman();
    std::ostringstream out;
    TraceWriter w(out, TraceFormat::text, TraceHeader{1, p.generation});
    TraceWriterSink sink(w);
    GemmOptions o;
    o.block_m = 8;
    GemmEmitter em(p, sink, o, gemm_bounds({{512, 128, 64, "a"}, {2048, 128, 256, "b"}}));
    EXPECT_EQ(em.totals().block_m, 4u);  // 2048 / 512
    EXPECT_EQ(em.totals().block_n, 1u);  // 128 / 128
}

TEST(Workload_gemm, Small_tiles_go_to_the_requested_quadrants) {
    const Params p = cayman();
    GemmOptions o;
    o.row_quadrant = 1;
    o.psum_quadrant = 2;
    const Census c = census(generate(p, {100, 20, 20, "q"}, o), p);
    ASSERT_TRUE(c.problems.empty()) << problems(c);
    ASSERT_EQ(c.matmul_records.size(), 1u);
    const Record& mm = c.matmul_records[0];
    EXPECT_EQ(mm.row_grp, 0x2);   // SBUF quadrant 1: partition 32 (seed 000 §5.2)
    EXPECT_EQ(mm.col_grp, 0x4);   // PSUM quadrant 2: partition 64
    EXPECT_EQ(mm.xbus_sel, 0x04);
    EXPECT_EQ(AddressMap(p).get_sbuf_partition_id(mm.src.addr), 32u);
    EXPECT_EQ(AddressMap(p).get_psum_partition_id(mm.dst.addr), 64u);
    EXPECT_EQ(c.pe_cycles, 100u);
}

TEST(Workload_gemm, Psum_quadrant_3_is_refused_for_the_col_grp_bug) {
    const Params p = cayman();
    GemmOptions o;
    o.psum_quadrant = 3;
    try {
        generate(p, {100, 20, 20, "q"}, o);
        FAIL() << "expected a WorkloadError";
    } catch (const WorkloadError& e) {
        EXPECT_NE(std::string(e.what()).find("no valid xbus_sel"), std::string::npos) << e.what();
    }
}

// Each refusal names the one bound broken and a setting that fits.
TEST(Workload_gemm, Too_many_groups_per_block_for_the_psum_rotation_is_an_error) {
    const Params p = cayman();
    GemmOptions o;
    o.block_n = 4;
    o.psum_bufs = 2;
    EXPECT_NE(
        refusal(p, {512, 512, 128, "x"}, o)
            .find("the rotation holds 2: 2 banks (--psum-bufs) of 1 bank(s) per result tile (--tile-m 512); "
                  "give --block-n 2 --block-m 1"),
        std::string::npos);
    // A result tile of one bank is the least a group takes: no smaller --tile-m is suggested then,
    // only where a tile spans several banks (mariana's --tile-m 1024: two).
    EXPECT_EQ(refusal(p, {512, 512, 128, "x"}, o).find("smaller --tile-m"), std::string::npos);
    GemmOptions wide;
    wide.tile_m = 1024;
    wide.block_n = 8;
    EXPECT_NE(
        refusal(test::shipped_params("mariana"), {1024, 1024, 128, "x"}, wide)
            .find("of 2 bank(s) per result tile (--tile-m 1024); give --block-n 4 --block-m 1, or a smaller "
                  "--tile-m"),
        std::string::npos);
    GemmOptions bank;
    bank.psum_first_bank = 9;
    EXPECT_NE(refusal(p, {64, 64, 64, "x"}, bank).find("--psum-first-bank 9: cayman has 8 PSUM banks, 0..7"),
              std::string::npos);
    bank.psum_first_bank = 6;
    bank.psum_bufs = 4;
    EXPECT_NE(refusal(p, {64, 64, 64, "x"}, bank)
                  .find("--psum-bufs 4 from bank 6 runs past the 8 PSUM banks: give at most 2"),
              std::string::npos);
}

TEST(Workload_gemm, By_default_the_psum_rotation_takes_every_bank_from_the_first_one) {
    // 8 banks on cayman, 4 on inferentia: the defaults generate on every generation, and give what
    // naming those counts gives.
    for (const auto& [gen, banks] : {std::pair<const char*, std::uint32_t>{"cayman", 8}, {"inferentia", 4}}) {
        const Params p = test::shipped_params(gen);
        GemmOptions named;
        named.psum_bufs = banks;
        const std::string text = generate(p, {512, 256, 256, "x"}, GemmOptions{});
        EXPECT_EQ(text, generate(p, {512, 256, 256, "x"}, named)) << gen;
        const Census c = census(text, p);
        EXPECT_TRUE(c.problems.empty()) << gen << ": " << problems(c);
    }
    // From bank 4 on cayman: the 4 banks left.
    const Params p = cayman();
    GemmOptions from4, named;
    from4.psum_first_bank = named.psum_first_bank = 4;
    named.psum_bufs = 4;
    EXPECT_EQ(generate(p, {512, 256, 256, "x"}, from4), generate(p, {512, 256, 256, "x"}, named));
}

TEST(Workload_gemm, Psum_banks_rotate_and_reuse_waits_for_the_evacuation) {
    const Params p = cayman();
    GemmOptions o;
    o.block_n = 1;
    o.psum_bufs = 2;
    o.psum_first_bank = 4;
    const std::string text = generate(p, {512, 512, 128, "x"}, o);
    const Census c = census(text, p);
    ASSERT_TRUE(c.problems.empty()) << problems(c);
    // 4 output tiles on banks 4, 5, 4, 5: the third BEGIN waits for the first ACT (S_ACT >= 1).
    EXPECT_NE(text.find("dst=fp32@0x2002000[1][512]"), std::string::npos);   // bank 4
    EXPECT_NE(text.find("dst=fp32@0x2002800[1][512]"), std::string::npos);   // bank 5
    EXPECT_EQ(text.find("dst=fp32@0x2003000"), std::string::npos);           // never bank 6
    // Semaphores: 0..15 the DMA queues, 16 PE k-step, 17 END, 18 ACT.
    std::istringstream lines(text);
    std::string line;
    int third_begin_waits = 0;
    while (std::getline(lines, line))
        if (line.rfind("matmul", 0) == 0 && line.find("dst=fp32@0x2002000") != std::string::npos &&
            line.find("wait=18:1") != std::string::npos)
            ++third_begin_waits;
    EXPECT_EQ(third_begin_waits, 1) << text;
}

TEST(Workload_gemm, Placement_offsets_move_the_buffers) {
    const Params p = cayman();
    GemmOptions o;
    o.moving_offset = 0x20000;
    o.stationary_offset = 0x10000;
    o.out_offset = 0x30000;
    const std::string text = generate(p, {512, 128, 128, "x"}, o);
    const Census c = census(text, p);
    ASSERT_TRUE(c.problems.empty()) << problems(c);
    EXPECT_NE(text.find("ldweights queue=qPE0 src=bf16@0x10000"), std::string::npos) << text;
    EXPECT_NE(text.find("matmul queue=qPE0 src=bf16@0x20000"), std::string::npos) << text;
    EXPECT_NE(text.find("dst=bf16@0x30000"), std::string::npos) << text;
    o.out_offset = 0x20100;   // inside the moving ring
    EXPECT_THROW(generate(p, {512, 128, 128, "x"}, o), WorkloadError);
}

TEST(Workload_gemm, Same_options_give_the_same_bytes) {
    const Params p = cayman();
    GemmOptions o;
    o.dma_queues = 3;
    o.bufs = 3;
    EXPECT_EQ(generate(p, {1000, 300, 700, "d"}, o), generate(p, {1000, 300, 700, "d"}, o));
}

TEST(Workload_gemm, Every_option_combination_passes_check) {
    const Params p = cayman();
    const GemmShape shapes[] = {{1, 1, 1, "a"}, {513, 129, 129, "b"}, {64, 33, 65, "c"}, {2000, 1000, 3000, "d"}};
    for (const Dtype d : {Dtype::bf16, Dtype::fp8e4, Dtype::fp32})
        for (const Residency res : {Residency::automatic, Residency::off})
            for (const std::uint32_t bufs : {1u, 2u, 8u})
                for (const auto& s : shapes) {
                    GemmOptions o;
                    o.dtype = d;
                    o.stationary = res;
                    o.bufs = bufs;
                    o.out_bufs = bufs;
                    o.dma_queues = bufs + 1;
                    const Census c = census(generate(p, s, o), p);
                    EXPECT_TRUE(c.problems.empty()) << s.m << "x" << s.n << "x" << s.k << "\n" << problems(c);
                }
}

TEST(Workload_gemm, Mariana_can_use_a_wider_moving_tile) {
    LoadRequest r;
    r.generation = "mariana";
    const Params p = load_config(r).params;
    GemmOptions o;
    o.tile_m = 2048;      // 4 PSUM banks: MATMUL_ZERO_REGION SIZE8192 (seed 000 §5.3)
    o.block_n = 2;        // 2 groups x 4 banks = the 8 banks
    GemmStats st;
    const Census c = census(generate(p, {4096, 256, 256, "w"}, o, &st), p);
    ASSERT_TRUE(c.problems.empty()) << problems(c);
    EXPECT_EQ(c.matmuls, 2u * 2 * 2);
    EXPECT_EQ(st.pe_cycles, 8u * 2048);
    EXPECT_EQ(c.matmul_records[0].zero_region, 2);
    // Cayman only has SIZE2048: the same tile is refused.
    EXPECT_THROW(generate(cayman(), {4096, 256, 256, "w"}, o), WorkloadError);
}

// Replay with no contention from other work: the PE array streams for exactly the cost-model
// time; the excess is the pipeline fill (the first k-steps' DMA: 1 us start-up + transfer at
// 27 GB/s) and drain (the last END's PSUM write, ACT evacuation, store start-up + transfer).
// Bound (derived in docs/generators.md "Replay check"): busy PE = Σ max(N, 64)·4 exactly, and
//   total <= pe_cycles + fill + drain,  fill = drain = startup + 2 x slice transfer,
// with a slice = 128 partitions x 2 KiB = 256 KiB at 27 GB/s = 9.71 us = 23302 cycles and a
// start-up of 1 us = 2400 cycles at 2.4 GHz.
TEST(Workload_gemm, Replay_reaches_the_cost_model_pe_time_within_fill_and_drain) {
    const Params p = test::no_ramp(cayman());  // the cost model streams at the array's full rate
    GemmOptions o;
    o.dtype = Dtype::fp32;   // fp32: 4x PE time per byte moved, so the DMA keeps up in steady state
    GemmStats st;
    const std::string text = generate(p, {2048, 512, 1024, "replay"}, o, &st);
    EXPECT_EQ(st.pe_cycles, 128u * 512 * 4);   // 4 x 4 x 8 matmuls x 2048 cycles = 262144
    std::istringstream in(text);
    TraceReader reader(in, "replay.trc");
    const ReplayResult r = replay(p, reader);
    const std::uint64_t startup = 2400, slice = 23302;
    const std::uint64_t fill = startup + 2 * slice, drain = startup + 2 * slice;
    EXPECT_EQ(r.arr_seq.pe_stream, st.pe_cycles);
    EXPECT_GE(r.total_cycles, st.pe_cycles);
    EXPECT_LE(r.total_cycles, st.pe_cycles + fill + drain)
        << "total " << r.total_cycles << " vs cost model " << st.pe_cycles;
}

// A narrow GEMM: 40 moving columns against a 16-column stationary stream max(40, min(64, 16)) =
// 40 cycles per matmul, not max(40, 64): the summary gen prints is what the replay streams.
TEST(Workload_gemm, The_cost_model_pe_time_is_what_a_narrow_gemm_streams) {
    const Params p = test::no_ramp(cayman());  // the cost model streams at the array's full rate
    GemmStats st;
    const std::string text = generate(p, {40, 16, 1024, "narrow"}, GemmOptions{}, &st);
    EXPECT_EQ(st.pe_cycles, 8u * 40);
    EXPECT_EQ(census(text, p).pe_cycles, st.pe_cycles);
    std::istringstream in(text);
    TraceReader reader(in, "narrow.trc");
    EXPECT_EQ(replay(p, reader).arr_seq.pe_stream, st.pe_cycles);
}

}  // namespace
}  // namespace sbufsim
