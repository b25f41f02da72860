// Attention, convolution and SCALE-Sim topology generators: the GEMMs they map to (hand
// arithmetic), their instruction counts, and that every trace passes TraceChecker.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "sbufsim/config/config.h"
#include "sbufsim/trace/sync_check.h"
#include "sbufsim/trace/trace.h"
#include "sbufsim/trace/trace_check.h"
#include "sbufsim/workload/workload.h"
#include "shipped.h"

namespace sbufsim {
namespace {

using test::cayman;

struct Counted {
    std::uint64_t matmuls = 0, act = 0, dve = 0, records = 0;
    std::vector<std::string> exp_fns;
    std::string problems;
};

// Writes with `write`, reads back and checks every record.
template <class F>
Counted write_and_check(const Params& p, F write) {
    std::ostringstream out;
    {
        TraceWriter w(out, TraceFormat::binary, TraceHeader{1, p.generation});
        TraceWriterSink sink(w);
        write(sink);
        w.finish();
    }
    std::istringstream in(out.str());
    TraceReader reader(in, "shape.sbt");
    TraceChecker checker(p, "shape.sbt");
    SyncCheck sync(p, "shape.sbt");  // deadlocks and races
    std::vector<TraceError> errors;
    Counted c;
    Record r;
    while (reader.next(r)) {
        ++c.records;
        checker.check(r, errors);
        sync.add(r, errors);
        c.matmuls += r.kind == RecordKind::matmul;
        c.act += r.kind == RecordKind::act;
        c.dve += r.kind == RecordKind::dve;
    }
    checker.finish(errors);
    sync.finish(errors);
    for (const auto& e : errors) c.problems += e.to_string() + "\n";
    return c;
}

TEST(Workload_conv, Im2col_gemm_follows_the_scalesim_output_size) {
    // ResNet-50 conv1: 224x224x3, 7x7, 64 filters, stride 2 -> (224-7)/2+1 = 109 per side.
    const GemmShape g = conv_as_gemm(ConvShape{224, 224, 3, 64, 7, 7, 2, 0, "conv1"});
    EXPECT_EQ(g.m, 109u * 109);
    EXPECT_EQ(g.n, 64u);
    EXPECT_EQ(g.k, 7u * 7 * 3);
    EXPECT_THROW(conv_as_gemm(ConvShape{4, 4, 1, 1, 5, 5, 1, 0, "big"}), WorkloadError);
}

TEST(Workload_conv, Padding_widens_the_input_on_each_side) {
    // ResNet-50's 3x3 layers with padding 1 keep their size: 28x28 -> 28x28 = 784 output rows
    // (26x26 = 676 without).
    EXPECT_EQ(conv_as_gemm(ConvShape{28, 28, 128, 128, 3, 3, 1, 1, "same"}).m, 28u * 28);
    EXPECT_EQ(conv_as_gemm(ConvShape{28, 28, 128, 128, 3, 3, 1, 0, "valid"}).m, 26u * 26);
    // conv1 of ResNet-50 as the framework writes it: 224x224, 7x7 stride 2, padding 3 -> 112x112.
    EXPECT_EQ(conv_as_gemm(ConvShape{224, 224, 3, 64, 7, 7, 2, 3, "conv1"}).m, 112u * 112);
    // A filter larger than the input fits once the padding makes room.
    EXPECT_THROW(conv_as_gemm(ConvShape{2, 2, 8, 8, 5, 5, 1, 1, "small"}), WorkloadError);
    EXPECT_EQ(conv_as_gemm(ConvShape{2, 2, 8, 8, 5, 5, 1, 2, "fits"}).m, 2u * 2);
}

TEST(Workload_conv, Conv_trace_passes_check_with_the_im2col_counts) {
    const Params p = cayman();
    GemmStats st;
    const Counted c = write_and_check(p, [&](RecordSink& s) {
        st = generate_conv(p, ConvShape{56, 56, 64, 64, 3, 3, 1, 0, "c"}, GemmOptions{}, s);
    });
    EXPECT_TRUE(c.problems.empty()) << c.problems;
    // M = 54 x 54 = 2916 -> 6 m-tiles; N = 64 -> 1 n-tile; K = 576 -> 5 k-tiles: 30 matmuls.
    EXPECT_EQ(c.matmuls, 30u);
    EXPECT_EQ(st.matmuls, 30u);
    EXPECT_EQ(c.act, 6u);
    EXPECT_EQ(st.moving_bytes, 2916u * 576 * 2);   // the im2col matrix, bf16
}

TEST(Workload_attention, Qk_softmax_pv_counts) {
    const Params p = cayman();
    const AttentionShape a{512, 2, 64};
    const auto g = attention_gemms(a);
    ASSERT_EQ(g.size(), 2u);
    EXPECT_EQ(g[0].m, 512u);   // keys along the free axis
    EXPECT_EQ(g[0].n, 512u);   // queries on PSUM partitions
    EXPECT_EQ(g[0].k, 64u);    // contraction over dhead
    EXPECT_EQ(g[1].n, 64u);    // Oᵀ: dhead on partitions
    EXPECT_EQ(g[1].k, 512u);   // contraction over keys
    GemmStats st;
    const Counted c = write_and_check(p, [&](RecordSink& s) { st = generate_attention(p, a, GemmOptions{}, s); });
    EXPECT_TRUE(c.problems.empty()) << c.problems;
    // Per head: QKᵀ 1 x 4 x 1 = 4 matmuls (4 score tiles), PV 1 x 1 x 4 = 4 matmuls (1 tile).
    EXPECT_EQ(c.matmuls, 2u * (4 + 4));
    // ACT: one exp per score tile + one copy per output tile; DVE: max + sum per score tile.
    EXPECT_EQ(c.act, 2u * (4 + 1));
    EXPECT_EQ(c.dve, 2u * (4 * 2));
    EXPECT_EQ(st.psum_groups, 2u * 5);
    // P (seq x seq bf16 per head) leaves as QKᵀ's stores and comes back as PV's moving loads
    // (dhead 64 is one n-tile: loaded once): twice its bytes per head, all of QKᵀ's stores.
    EXPECT_EQ(st.round_trip_bytes, 2u * 2 * (512u * 512 * 2));
    EXPECT_EQ(st.store_bytes, 2u * (512u * 512 * 2 + 512u * 64 * 2));
}

TEST(Workload_attention, One_result_slot_is_race_free) {
    // With one result slot, P·V's first evacuation overwrites the last probability tile, which
    // the softmax's row sum reads as well as its store: the store waits for the sum.
    const Params p = cayman();
    for (const std::uint32_t out_bufs : {1u, 2u, 8u}) {
        GemmOptions o;
        o.bufs = 2;
        o.out_bufs = out_bufs;
        const Counted c = write_and_check(p, [&](RecordSink& s) {
            generate_attention(p, {2048, 2, 64}, o, s);
        });
        EXPECT_TRUE(c.problems.empty()) << "out_bufs " << out_bufs << ": " << c.problems;
    }
}

TEST(Workload_topology, Reads_gemm_and_conv_rows) {
    const std::string csv =
        "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"
        "Conv1, 224, 224, 7, 7, 3, 64, 2,\n"
        "# a comment\n"
        "\n"
        "FC, 1, 1000, 2048,\n"
        "Last,16,32,8\n";
    const auto layers = parse_topology(csv, "t.csv");
    ASSERT_EQ(layers.size(), 3u);
    EXPECT_EQ(layers[0].name, "Conv1");
    ASSERT_TRUE(layers[0].conv.has_value());
    EXPECT_EQ(layers[0].gemm.m, 109u * 109);
    EXPECT_EQ(layers[0].gemm.k, 147u);
    EXPECT_FALSE(layers[1].conv.has_value());
    EXPECT_EQ(layers[1].gemm.m, 1u);
    EXPECT_EQ(layers[1].gemm.n, 1000u);
    EXPECT_EQ(layers[1].gemm.k, 2048u);
    EXPECT_EQ(layers[2].gemm.k, 8u);
}

TEST(Workload_topology, Bad_rows_name_file_line_and_field) {
    try {
        parse_topology("h\nA,1,x,3,\n", "t.csv");
        FAIL();
    } catch (const WorkloadError& e) {
        EXPECT_NE(std::string(e.what()).find("t.csv:2: N"), std::string::npos) << e.what();
    }
    EXPECT_THROW(parse_topology("h\nA,1,2,\n", "t.csv"), WorkloadError);
    EXPECT_THROW(parse_topology("h\n", "t.csv"), WorkloadError);
}

TEST(Workload_topology, Shipped_topologies_generate_clean_network_traces) {
    const Params p = cayman();
    for (const char* name : {"resnet50.csv", "transformer_layer.csv"}) {
        const auto layers = read_topology(std::string(SBUFSIM_DEFAULT_TRACE_DIR) + "/topologies/" + name);
        ASSERT_FALSE(layers.empty()) << name;
        std::vector<GemmShape> shapes;
        std::uint64_t expected = 0;
        for (const auto& l : layers) {
            shapes.push_back(l.gemm);
            expected += ((l.gemm.m + 511) / 512) * ((l.gemm.n + 127) / 128) * ((l.gemm.k + 127) / 128);
        }
        // One trace for the network: buffers and semaphore counts carry over between layers.
        const Counted c = write_and_check(p, [&](RecordSink& s) {
            GemmEmitter em(p, s, GemmOptions{}, gemm_bounds(shapes));
            for (const auto& l : layers) em.gemm(l.gemm);
        });
        EXPECT_TRUE(c.problems.empty()) << name << "\n" << c.problems;
        EXPECT_EQ(c.matmuls, expected) << name;
    }
}

}  // namespace
}  // namespace sbufsim
