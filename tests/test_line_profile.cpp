// The per-line profile (output/line_profile.h): on generated and shipped workloads with source
// locations, every column summed over the lines is the run's total, the lines are ordered by
// critical-path share, and a trace kept in either form and replayed later reports the same lines.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "sbufsim/output/line_profile.h"
#include "sbufsim/output/metrics.h"
#include "sbufsim/output/report.h"
#include "sbufsim/trace/trace.h"
#include "sbufsim/workload/workload.h"
#include "shipped.h"

namespace sbufsim {
namespace {

using test::cayman;
using test::shipped;

std::string gemm_trace(TraceFormat f, std::uint64_t m, std::uint64_t n, std::uint64_t k) {
    std::ostringstream out;
    TraceWriter w(out, f, TraceHeader{kTraceFormatVersion, "cayman"});
    TraceWriterSink sink(w);
    generate_gemm(cayman(), GemmShape{m, n, k, ""}, GemmOptions{}, sink);
    w.finish();
    return out.str();
}

ReplayResult replay_text(const std::string& bytes) {
    std::istringstream in(bytes);
    TraceReader r(in, "t");
    return replay(cayman(), r);
}

// Every column of the profile against the run's own figure.
void expect_columns_sum_to_the_run(const ReplayResult& r, const std::string& what) {
    const LineProfile p = line_profile(r);
    ASSERT_FALSE(p.empty()) << what;
    SiteCounters sum;
    std::array<std::uint64_t, kStallCauses> stalls{};
    for (const LineRow& row : p.rows) {
        sum.instructions += row.c.instructions;
        sum.critical += row.c.critical;
        sum.sem_wait += row.c.sem_wait;
        sum.dma_bytes += row.c.dma_bytes;
        for (std::size_t g = 0; g < kEngineGroups; ++g) sum.busy[g] += row.c.busy[g];
        for (std::size_t s = 0; s < kStallCauses; ++s) stalls[s] += row.stalls[s];
    }
    EXPECT_EQ(sum.critical, r.total_cycles) << what;
    std::array<Cycle, kEngineGroups> busy{};
    std::uint64_t instructions = 0;
    Cycle sem_wait = 0;
    for (const EngineStats& e : r.engines) {
        const std::size_t g = e.name == "arr_seq"          ? 0
                              : e.name == "act"            ? 1
                              : e.name == "pool"           ? 2
                              : e.name == "dve"            ? 3
                              : e.name.starts_with("dma_") ? 4
                                                           : 5;
        busy[g] += e.busy;
        instructions += e.instructions;
        sem_wait += e.sem_wait;
    }
    EXPECT_EQ(sum.busy, busy) << what;
    EXPECT_EQ(sum.instructions, instructions) << what;
    EXPECT_EQ(sum.sem_wait, sem_wait) << what;
    std::uint64_t dma_bytes = 0;
    for (const DmaStats& d : r.dma) dma_bytes += d.bytes;
    EXPECT_EQ(sum.dma_bytes, dma_bytes) << what;
    for (std::size_t s = 0; s < kStallCauses; ++s)
        EXPECT_EQ(stalls[s], total_stalls(r.kernel, static_cast<StallCause>(s))) << what << " " << s;
    EXPECT_EQ(p.total.c.critical, r.total_cycles);
    for (std::size_t i = 1; i < p.rows.size(); ++i)
        EXPECT_GE(p.rows[i - 1].c.critical, p.rows[i].c.critical) << what << ": not sorted at " << i;
}

TEST(LineProfile, Columns_sum_to_the_run_totals_on_generated_and_shipped_workloads) {
    expect_columns_sum_to_the_run(replay_text(gemm_trace(TraceFormat::text, 1024, 512, 512)),
                                  "gemm 1024x512x512");
    expect_columns_sum_to_the_run(replay_text(gemm_trace(TraceFormat::text, 300, 200, 130)),
                                  "gemm 300x200x130");
    for (const char* t : {"resnet50_head.trc", "transformer_layer_head.trc"})
        expect_columns_sum_to_the_run(replay_trace(cayman(), shipped(t)), t);
}

// A trace without locations has no profile; a trace mixing records with and without puts the
// others' figures on "(no location)", and the columns still add up.
TEST(LineProfile, Records_without_a_location_have_a_row_of_their_own) {
    EXPECT_TRUE(line_profile(replay_trace(cayman(), shipped("dma_load.trc"))).empty());
    const std::string mixed =
        "sbufsim-trace 1 gen=cayman\n"
        "dma queue=qSyncIO0 src=hbm dst=bf16@0x0[1][512] partitions=128 bytes=1024 signal=1 "
        "loc=k.py:3:nl.load\n"
        "act queue=qAct0 src=bf16@0x0[1][512] dst=bf16@0x4000[1][512] partitions=128 wait=1 signal=2 "
        "loc=k.py:4:nl.exp\n"
        "dma queue=qSyncIO1 src=bf16@0x4000[1][512] dst=hbm partitions=128 bytes=1024 wait=2\n";
    const ReplayResult r = replay_text(mixed);
    expect_columns_sum_to_the_run(r, "mixed");
    const LineProfile p = line_profile(r);
    ASSERT_EQ(p.rows.size(), 3u);
    bool none = false;
    // The store: its bytes (a transfer of 128 partitions runs as one share per DMA engine).
    for (const LineRow& row : p.rows)
        none =
            none || (row.key == "(no location)" && row.c.instructions > 0 && row.c.dma_bytes == 128u * 1024u);
    EXPECT_TRUE(none);
}

// The lines of a kept trace: binary and text give the same profile, in the report rows too.
TEST(LineProfile, A_kept_trace_in_either_form_reports_the_same_lines) {
    const ReplayResult a = replay_text(gemm_trace(TraceFormat::text, 512, 512, 256));
    const ReplayResult b = replay_text(gemm_trace(TraceFormat::binary, 512, 512, 256));
    const LineProfile pa = line_profile(a), pb = line_profile(b);
    ASSERT_EQ(pa.rows.size(), pb.rows.size());
    for (std::size_t i = 0; i < pa.rows.size(); ++i) {
        EXPECT_EQ(pa.rows[i].key, pb.rows[i].key);
        EXPECT_EQ(pa.rows[i].c, pb.rows[i].c);
    }
    // The generator's steps, each once.
    std::set<std::string> keys;
    for (const LineRow& row : pa.rows) keys.insert(row.key);
    EXPECT_EQ(keys, (std::set<std::string>{"gemm:load_A", "gemm:load_B", "gemm:ldweights", "gemm:matmul",
                                           "gemm:evacuate", "gemm:store_C"}));
    RunReport rep;
    rep.result = a;
    std::size_t line_rows = 0;
    for (const ReportRow& row : report_rows(rep))
        if (row.section == "line" && row.metric == "critical_cycles") ++line_rows;
    EXPECT_EQ(line_rows, pa.rows.size());
}

// A kernel site names its call and the function holding the line ("@function"); grouping by
// FILE:LINE is the same with or without them.
TEST(LineProfile, A_site_names_its_call_and_function) {
    SiteParts p = split_site("attn.py:88:nl.matmul@attn_fwd[i,k]");
    EXPECT_EQ(p.key, "attn.py:88");
    EXPECT_EQ(p.call, "nl.matmul");
    EXPECT_EQ(p.function, "attn_fwd");
    EXPECT_EQ(p.index_names, "i,k");
    p = split_site("attn.py:90@attn_fwd");
    EXPECT_EQ(p.line, 90u);
    EXPECT_EQ(p.call, "");
    EXPECT_EQ(p.function, "attn_fwd");
    EXPECT_EQ(site_label("attn.py:88:nl.matmul@attn_fwd[i,k]"), "attn.py:88 nl.matmul");
}

// --annotate prints the functions that made records, each line's figures beside it, the hottest
// marked, and leaves the rest of the file out.
TEST(LineProfile, Annotate_prints_only_the_functions_that_made_records) {
    const std::string source =
        "import nki.language as nl\n"         // 1
        "\n"                                  // 2
        "\n"                                  // 3
        "def unused(x):\n"                    // 4
        "    return nl.load(x)\n"             // 5
        "\n"                                  // 6
        "\n"                                  // 7
        "# the kernel\n"                      // 8
        "@nki.jit\n"                          // 9
        "def kern(x):\n"                      // 10
        "    \"\"\"A docstring\n"             // 11
        "at the left margin.\"\"\"\n"         // 12
        "    for i in nl.affine_range(4):\n"  // 13
        "        t = nl.load(x[i])\n"         // 14
        "        nl.store(x[i], value=t)\n"   // 15
        "    return x\n"                      // 16
        "\n"                                  // 17
        "\n"                                  // 18
        "def after(x):\n"                     // 19
        "    return x\n";                     // 20
    const ReplayResult r = replay_text(
        "sbufsim-trace 1 gen=cayman\n"
        "dma queue=qSyncIO0 src=hbm dst=bf16@0x0[1][512] partitions=128 bytes=1024 signal=1 "
        "loc=k.py:14:nl.load@kern[i=0]\n"
        "dma queue=qSyncIO1 src=bf16@0x0[1][512] dst=hbm partitions=128 bytes=1024 wait=1 "
        "loc=k.py:15:nl.store@kern[i=0]\n");
    std::ostringstream out;
    EXPECT_EQ(print_annotated(out, line_profile(r), "dir/k.py", source), 2u);
    const std::string text = out.str();
    for (const char* shown : {"| dir/k.py", "    8 | # the kernel", "    9 | @nki.jit",
                              "   10 | def kern(x):", "   12 | at the left margin.", "   16 |     return x"})
        EXPECT_NE(text.find(shown), std::string::npos) << shown << "\n" << text;
    for (const char* left_out : {"def unused", "def after", "import nki"})
        EXPECT_EQ(text.find(left_out), std::string::npos) << left_out << "\n" << text;
    EXPECT_NE(text.find("... |"), std::string::npos) << text;
    // Both lines have figures and are the hottest; their instructions are counted beside them.
    std::istringstream lines(text);
    std::size_t hot = 0;
    for (std::string line; std::getline(lines, line);)
        if (line.find(" | ") != std::string::npos && line.ends_with("nl.load(x[i])"))
            hot += line.starts_with(">>");
        else if (line.ends_with("nl.store(x[i], value=t)"))
            hot += line.starts_with(">>");
    EXPECT_EQ(hot, 2u) << text;
    // A file the profile names no line of prints nothing.
    std::ostringstream none;
    EXPECT_EQ(print_annotated(none, line_profile(r), "other.py", source), 0u);
    EXPECT_EQ(none.str(), "");
}

}  // namespace
}  // namespace sbufsim
