// `sbufsim gen` end to end through the command table: every workload writes a trace that
// `sbufsim check` accepts, outputs are deterministic, bad options exit 2 with the rule.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_harness.h"

namespace sbufsim::cli {
namespace {

using namespace sbufsim::test;
using Out = CliOut;

void expect_clean(const std::string& path) {
    const Out c = sbufsim({"check", path});
    EXPECT_EQ(c.rc, kExitOk) << path << "\n" << c.out << c.err;
}

TEST(CliGen, Gemm_writes_a_clean_trace_and_a_summary) {
    const std::string path = temp("cli_gemm.trc");
    const Out o = sbufsim({"gen", "gemm", "--m", "700", "--n", "200", "--k", "300", "-o", path});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_NE(o.out.find("12 matmuls, 12 LdWeights, 4 PSUM groups"), std::string::npos) << o.out;
    expect_clean(path);
}

// --help comes first in the option list, as in every command's help, and --log-level last in
// its group: the order of the workload option table does not push them below the outputs.
TEST(CliGen, Help_lists_help_first) {
    const Out o = sbufsim({"gen", "--help"});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    const std::size_t help = o.out.find("-h [ --help ]");
    const std::size_t output = o.out.find("-o [ --output ]");
    const std::size_t log_level = o.out.find("--log-level");
    const std::size_t shapes = o.out.find("Shapes:");
    ASSERT_NE(help, std::string::npos) << o.out;
    EXPECT_LT(help, output);
    EXPECT_LT(output, log_level);
    EXPECT_LT(log_level, shapes);
}

// A ResNet 3x3 layer with --pad 1 keeps its 28x28 size; without, it is SCALE-Sim's valid 26x26.
// The summary gives the output and the im2col GEMM, so the size is seen before any run.
TEST(CliGen, Conv_summary_gives_the_output_size_and_its_gemm) {
    const std::vector<std::string> shape = {"gen", "conv", "--h", "28",  "--w", "28",  "--c",
                                            "128", "--k",  "128", "--r", "3",   "--s", "3"};
    auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> cmd = shape;
        cmd.insert(cmd.end(), extra.begin(), extra.end());
        return sbufsim(cmd);
    };
    const Out same = with({"--pad", "1", "-o", temp("cli_conv_same.sbt")});
    ASSERT_EQ(same.rc, kExitOk) << same.err;
    EXPECT_NE(same.out.find("output 28x28x128 (pad 1), im2col GEMM 784x128x1152 (m x n x k)"),
              std::string::npos)
        << same.out;
    expect_clean(temp("cli_conv_same.sbt"));
    const Out valid = with({"-o", temp("cli_conv_valid.sbt")});
    ASSERT_EQ(valid.rc, kExitOk) << valid.err;
    EXPECT_NE(valid.out.find("output 26x26x128 (pad 0), im2col GEMM 676x128x1152"), std::string::npos)
        << valid.out;
    const Out gemm =
        sbufsim({"gen", "gemm", "--m", "64", "--n", "64", "--k", "64", "--pad", "1", "-o", temp("x.trc")});
    EXPECT_EQ(gemm.rc, kExitUsage);
    EXPECT_NE(gemm.err.find("--pad is for conv, not gemm"), std::string::npos) << gemm.err;
}

TEST(CliGen, A_misspelt_option_gets_the_nearest_one) {
    const Out o = sbufsim(
        {"gen", "gemm", "--m", "64", "--n", "64", "--k", "64", "--block_n", "2", "-o", temp("y.trc")});
    EXPECT_EQ(o.rc, kExitUsage);
    EXPECT_NE(o.err.find("unrecognised option '--block_n' (did you mean '--block-n'?)"), std::string::npos)
        << o.err;
}

// Attention's two GEMMs can differ: Q.K^T (K = 128, one k-tile) streams its stationary at the
// default --bufs 8, which loads past the next n-block (4 m-blocks x 1 k-tile), while P.V keeps
// it. The summary says each, and --stationary resident names the reason and the fix.
TEST(CliGen, The_summary_says_each_gemms_stationary_residency_and_why_it_could_not_be_resident) {
    const std::vector<std::string> attention = {"gen",    "attention", "--seq", "2048", "--heads",
                                                "1",      "--dhead",   "128",   "-o",   temp("attn_res.sbt"),
                                                "--force"};
    Out o = sbufsim(attention);
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_NE(
        o.out.find(", stationary streamed in qk, resident in pv\n  the stationary of qk is loaded again for "
                   "every m-block: --bufs 8 loads further ahead than the 4 k-steps of an n-block (4 "
                   "m-blocks x 1 k-tile of qk), past the next n-block's stationary; use --bufs 4 or fewer, "
                   "or a smaller --block-m\n"),
        std::string::npos)
        << o.out;
    auto forced = attention;
    forced.insert(forced.end(), {"--stationary", "resident"});
    o = sbufsim(forced);
    EXPECT_EQ(o.rc, kExitUsage);
    EXPECT_NE(
        o.err.find("--stationary resident: --bufs 8 loads further ahead than the 4 k-steps of an n-block "
                   "(4 m-blocks x 1 k-tile of qk), past the next n-block's stationary; use --bufs 4 or "
                   "fewer, or a smaller --block-m"),
        std::string::npos)
        << o.err;
    forced.insert(forced.end(), {"--bufs", "4"});  // as it says
    o = sbufsim(forced);
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_NE(o.out.find(", stationary resident"), std::string::npos) << o.out;
    EXPECT_EQ(o.out.find("streamed"), std::string::npos) << o.out;
    // Asked to stream, or with one m-block (nothing to reuse): streamed, with no reason to fix.
    auto asked = attention;
    asked.insert(asked.end(), {"--stationary", "stream"});
    o = sbufsim(asked);
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_NE(o.out.find(", stationary streamed\n  P goes to HBM"), std::string::npos) << o.out;
    o = sbufsim({"gen", "gemm", "--m", "128", "--n", "512", "--k", "512", "-o", temp("one_mblock.sbt")});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_NE(o.out.find(", stationary streamed\n"), std::string::npos) << o.out;
}

// The summary names the blocks written, and says which block option given was cut to the tiles
// there are; a default that was cut is not named (nobody asked for it).
TEST(CliGen, The_summary_names_the_blocks_and_a_cut_block_option) {
    const Out cut = sbufsim({"gen", "gemm", "--m", "2048", "--n", "256", "--k", "512", "--block-m", "8", "-o",
                             temp("cut.trc"), "--force"});
    ASSERT_EQ(cut.rc, kExitOk) << cut.err;
    EXPECT_NE(
        cut.out.find("blocks of 4x2 tiles (m x n), --block-m 8 cut to the 4 m-tiles there are, stationary"),
        std::string::npos)
        << cut.out;
    EXPECT_EQ(cut.out.find("--block-n"), std::string::npos) << cut.out;
    const Out one = sbufsim({"gen", "conv", "--h", "14", "--w", "14", "--c", "64", "--k", "64", "--r", "3",
                             "--s", "3", "--block-n", "2", "-o", temp("cut_conv.trc"), "--force"});
    ASSERT_EQ(one.rc, kExitOk) << one.err;
    EXPECT_NE(one.out.find("blocks of 1x1 tiles (m x n), --block-n 2 cut to the 1 n-tile there is"),
              std::string::npos)
        << one.out;
}

// What the generated form moves that a fused kernel would not is said, with its bytes: attention's
// P round trip through HBM, and a convolution's im2col matrix against its input feature map.
TEST(CliGen, The_summary_says_what_the_unfused_forms_move) {
    const Out attn = sbufsim({"gen", "attention", "--seq", "512", "--heads", "2", "--dhead", "64", "-o",
                              temp("moved_attn.trc"), "--force"});
    ASSERT_EQ(attn.rc, kExitOk) << attn.err;
    // P: 512 x 512 bf16 = 0.5 MiB per head, out and back for 2 heads = 2 MiB.
    EXPECT_NE(
        attn.out.find("\n  P goes to HBM and back between the two GEMMs (not fused, whatever the tiling): "
                      "2.00 MiB of the "),
        std::string::npos)
        << attn.out;
    const Out conv = sbufsim({"gen", "conv", "--h", "28", "--w", "28", "--c", "128", "--k", "128", "--r", "3",
                              "--s", "3", "--pad", "1", "-o", temp("moved_conv.trc"), "--force"});
    ASSERT_EQ(conv.rc, kExitOk) << conv.err;
    // 784 x 1152 bf16 = 1.72 MiB of im2col for a 28 x 28 x 128 bf16 map of 0.19 MiB.
    EXPECT_NE(
        conv.out.find("\n  the moving loads carry the im2col matrix: 1.72 MiB for a 0.19 MiB input feature "
                      "map (9.0x;"),
        std::string::npos)
        << conv.out;
    const Out gemm = sbufsim(
        {"gen", "gemm", "--m", "512", "--n", "512", "--k", "512", "-o", temp("moved_gemm.trc"), "--force"});
    EXPECT_EQ(gemm.out.find("HBM and back"), std::string::npos) << gemm.out;
    EXPECT_EQ(gemm.out.find("im2col"), std::string::npos) << gemm.out;
}

// A --set gen does not read leaves the trace as it is, and gen says so and where it belongs; a key
// gen reads is taken without a note.
TEST(CliGen, A_setting_gen_does_not_read_is_noted) {
    const std::string plain = temp("set_plain.trc"), set = temp("set_tdm.trc"), psum = temp("set_psum.trc");
    ASSERT_EQ(sbufsim({"gen", "gemm", "--m", "512", "--n", "256", "--k", "256", "-o", plain, "--force"}).rc,
              kExitOk);
    const Out o = sbufsim({"gen", "gemm", "--m", "512", "--n", "256", "--k", "256", "--set",
                           "tdm.strict=true", "--tdm.dma_slots=7", "-o", set, "--force"});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_NE(o.err.find("note: tdm.strict=true, tdm.dma_slots=7 do not change the trace gen writes"),
              std::string::npos)
        << o.err;
    EXPECT_NE(o.err.find("give them to sbufsim run or sweep"), std::string::npos) << o.err;
    EXPECT_EQ(slurp(set), slurp(plain));
    const Out read = sbufsim({"gen", "gemm", "--m", "512", "--n", "256", "--k", "256", "--set",
                              "sbuf.half_select=offset", "-o", psum, "--force"});
    ASSERT_EQ(read.rc, kExitOk) << read.err;
    EXPECT_EQ(read.err.find("note:"), std::string::npos) << read.err;
}

TEST(CliGen, Every_workload_passes_check) {
    const std::vector<std::vector<std::string>> cmds = {
        {"gen", "gemm", "--m", "1024", "--n", "512", "--k", "256", "--dtype", "fp8", "--block-m", "2", "--block-n", "2"},
        {"gen", "gemm", "--m", "300", "--n", "40", "--k", "20", "--dtype", "fp32", "--row-quadrant", "3",
         "--psum-quadrant", "2", "--bufs", "3", "--dma-queues", "5", "--sbuf-base", "0x1000"},
        {"gen", "attention", "--seq", "256", "--heads", "2", "--dhead", "64"},
        {"gen", "conv", "--h", "30", "--w", "30", "--c", "64", "--k", "128", "--r", "3", "--s", "3", "--stride", "2"},
        {"gen", "random", "--clients", "pe_client_0,act_rd,dma_2,q7_1,pe_wr", "--pattern", "hotspot", "--banks", "2-3",
         "--records", "5000"},
    };
    int i = 0;
    for (auto cmd : cmds) {
        const std::string path = temp("cli_every_" + std::to_string(i++) + ".sbt");
        cmd.push_back("-o");
        cmd.push_back(path);
        const Out o = sbufsim(cmd);
        ASSERT_EQ(o.rc, kExitOk) << cmd[1] << ": " << o.err;
        expect_clean(path);
    }
}

TEST(CliGen, Random_is_deterministic_for_a_seed) {
    const std::string a = temp("cli_rand_a.sbt"), b = temp("cli_rand_b.sbt"), c = temp("cli_rand_c.sbt");
    const std::vector<std::string> base = {"gen", "random", "--records", "10000", "--seed", "9", "--pattern", "strided"};
    auto with = [&](const std::string& path, const std::string& seed) {
        auto v = base;
        v[5] = seed;
        v.push_back("-o");
        v.push_back(path);
        return sbufsim(v).rc;
    };
    ASSERT_EQ(with(a, "9"), kExitOk);
    ASSERT_EQ(with(b, "9"), kExitOk);
    ASSERT_EQ(with(c, "10"), kExitOk);
    EXPECT_EQ(slurp(a), slurp(b));
    EXPECT_NE(slurp(a), slurp(c));
}

TEST(CliGen, Topology_writes_one_trace_per_layer_or_one_for_the_network) {
    const std::string csv = std::string(SBUFSIM_DEFAULT_TRACE_DIR) + "/topologies/resnet50.csv";
    const std::string dir = temp("cli_resnet");
    std::filesystem::remove_all(dir);
    const Out o = sbufsim({"gen", "--topology", csv, "--layers", "3", "-o", dir});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    int files = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        ++files;
        expect_clean(e.path().string());
    }
    EXPECT_EQ(files, 3);
    EXPECT_TRUE(std::filesystem::exists(dir + "/000_Conv1.trc"));
    const std::string single = temp("cli_resnet_single.trc");
    const Out s = sbufsim({"gen", "--topology", csv, "--layers", "6", "--single", "-o", single});
    ASSERT_EQ(s.rc, kExitOk) << s.err;
    EXPECT_NE(s.out.find("6 layers in one trace"), std::string::npos) << s.out;
    expect_clean(single);
    // -o naming a trace file without --single: refused before anything is made (it became a
    // folder named like a trace), the file kept.
    const Out t = sbufsim({"gen", "--topology", csv, "--layers", "2", "-o", single});
    EXPECT_EQ(t.rc, kExitUsage) << t.err;
    EXPECT_NE(t.err.find("-o " + single +
                         " names a trace file, but without --single each layer is a trace of its own"),
              std::string::npos)
        << t.err;
    expect_clean(single);
    const std::string fresh = temp("cli_resnet_fresh.trc");
    EXPECT_EQ(sbufsim({"gen", "--topology", csv, "--layers", "2", "-o", fresh}).rc, kExitUsage);
    EXPECT_FALSE(std::filesystem::exists(fresh));
    // -o naming another file where the folder of layer files goes: refused, the file kept (was
    // an internal error, exit 4).
    const std::string other = temp("cli_resnet_notes.txt");
    { std::ofstream(other) << "notes\n"; }
    const Out f = sbufsim({"gen", "--topology", csv, "--layers", "2", "-o", other});
    EXPECT_EQ(f.rc, kExitUsage) << f.err;
    EXPECT_NE(f.err.find("-o " + other + ": cannot be the folder of the layer files"), std::string::npos)
        << f.err;
    EXPECT_NE(f.err.find("give --single for one trace file"), std::string::npos) << f.err;
    EXPECT_EQ(slurp(other), "notes\n");
}

// A shape whose trace runs to tens of GB is said before the first record (here the pipe closes
// after 100 bytes, which ends gen).
TEST(CliGen, A_huge_shape_is_noted_before_it_streams) {
    const std::string err = temp("cli_huge_err.txt");
    shell(shell_quote(SBUFSIM_BINARY) + " gen gemm --m 100000 --n 100000 --k 100000 2> " + shell_quote(err) +
          " | head -c 100 > /dev/null");
    EXPECT_NE(slurp(err).find("note: 120 M matmuls, so at least 240 M records: about 28.8 GB as text"),
              std::string::npos)
        << slurp(err);
    const Out small =
        sbufsim({"gen", "gemm", "--m", "1024", "--n", "1024", "--k", "1024", "-o", temp("cli_small.trc")});
    EXPECT_EQ(small.err.find("note:"), std::string::npos) << small.err;
}

// An option of another workload, a shape left incomplete, --tile-m 0: said, not ignored.
TEST(CliGen, Options_of_another_workload_and_missing_shapes_are_named) {
    const std::string out = temp("cli_misplaced.trc");
    auto err_of = [&](std::vector<std::string> args) {
        args.insert(args.end(), {"-o", out});
        const Out o = sbufsim(args);
        EXPECT_EQ(o.rc, kExitUsage) << o.err;
        EXPECT_FALSE(std::filesystem::exists(out));
        return o.err;
    };
    EXPECT_NE(err_of({"gen", "gemm", "--m", "64", "--n", "64", "--k", "64", "--seq", "5"})
                  .find("gen gemm: --seq is for attention, not gemm"),
              std::string::npos);
    EXPECT_NE(err_of({"gen", "random", "--block-m", "2"})
                  .find("--block-m is for gemm, attention, conv, --topology, not random"),
              std::string::npos);
    EXPECT_NE(
        err_of({"gen", "gemm", "--m", "64", "--n", "64"}).find("--k is missing: gemm needs --m, --n and --k"),
        std::string::npos);
    EXPECT_NE(err_of({"gen", "attention", "--seq", "64"}).find("--heads and --dhead are missing"),
              std::string::npos);
    EXPECT_NE(err_of({"gen", "gemm", "--m", "64", "--n", "64", "--k", "64", "--tile-m", "0"})
                  .find("--tile-m 0: give at least 1"),
              std::string::npos);
    EXPECT_NE(err_of({"gen", "gemm", "--topology", "t.csv"}).find("--topology is a workload of its own"),
              std::string::npos);
    // A misspelt workload is named as such, not its options as misplaced.
    EXPECT_NE(err_of({"gen", "gem", "--m", "64", "--n", "64", "--k", "64"})
                  .find("unknown workload 'gem' (did you mean 'gemm'?)"),
              std::string::npos);
    // What each workload takes still works: --stride for conv and random, --seed for random.
    EXPECT_EQ(sbufsim({"gen", "random", "--records", "5", "--stride", "2", "--seed", "4", "-o", out}).rc,
              kExitOk);
}

// The two network examples in traces/ are what the command traces/README.md gives for each writes
// today, byte for byte: a change to the generator that moves them is seen here and the files are
// written again (their golden statistics change with them).
TEST(CliGen, Shipped_network_traces_are_what_their_documented_command_writes) {
    const std::string src = std::string(SBUFSIM_SOURCE_DIR) + "/traces/";
    const struct {
        const char* trace;
        const char* topology;
        const char* layers;
    } shipped[] = {{"resnet50_head.trc", "resnet50.csv", "5"},
                   {"transformer_layer_head.trc", "transformer_layer.csv", "3"}};
    for (const auto& t : shipped) {
        const std::string out = temp(std::string("regen_") + t.trace);
        const Out o = sbufsim({"gen", "--topology", src + "topologies/" + t.topology, "--layers", t.layers,
                               "--single", "-o", out, "--force"});
        ASSERT_EQ(o.rc, kExitOk) << o.err;
        EXPECT_TRUE(slurp(out) == slurp(src + t.trace))
            << t.trace << " differs from `sbufsim gen --topology traces/topologies/" << t.topology
            << " --layers " << t.layers << " --single`: write it again with that command (traces/README.md)";
    }
}

TEST(CliGen, Bad_options_exit_2_naming_the_rule) {
    Out o = sbufsim({"gen", "gemm", "--m", "64", "--n", "20", "--k", "64", "--psum-quadrant", "3"});
    EXPECT_EQ(o.rc, kExitUsage);
    EXPECT_NE(o.err.find("--psum-quadrant 3: use 0..2"), std::string::npos) << o.err;
    EXPECT_EQ(o.out, "");  // refused before the first record: no header left on stdout
    o = sbufsim({"gen", "gemm", "--m", "0", "--n", "1", "--k", "1"});
    EXPECT_EQ(o.rc, kExitUsage);
    o = sbufsim({"gen", "nonsense"});
    EXPECT_EQ(o.rc, kExitUsage);
    o = sbufsim({"gen"});
    EXPECT_EQ(o.rc, kExitUsage);
    o = sbufsim({"gen", "random", "--clients", "nobody"});
    EXPECT_EQ(o.rc, kExitUsage);
    EXPECT_NE(o.err.find("unknown client 'nobody'"), std::string::npos) << o.err;
    o = sbufsim({"gen", "--topology", "/nonexistent.csv"});
    EXPECT_EQ(o.rc, kExitInput);
}

TEST(CliGen, A_format_that_contradicts_the_file_name_is_noted) {
    const std::string sbt = temp("text_named.sbt"), trc = temp("binary_named.trc"), ok = temp("plain.sbt");
    const Out text =
        sbufsim({"gen", "gemm", "--m", "64", "--n", "64", "--k", "64", "--format", "text", "-o", sbt});
    ASSERT_EQ(text.rc, kExitOk) << text.err;
    EXPECT_NE(text.err.find("note: " + sbt +
                            " is written as a text trace (--format text), but its name says "
                            "binary: name it *.trc, or leave --format out"),
              std::string::npos)
        << text.err;
    EXPECT_EQ(slurp(sbt).rfind("# written by sbufsim gen; ", 0), 0u) << "written as asked";
    const Out binary =
        sbufsim({"gen", "gemm", "--m", "64", "--n", "64", "--k", "64", "--format", "binary", "-o", trc});
    ASSERT_EQ(binary.rc, kExitOk) << binary.err;
    EXPECT_NE(binary.err.find("but its name says text: name it *.sbt"), std::string::npos) << binary.err;
    const Out agree =
        sbufsim({"gen", "gemm", "--m", "64", "--n", "64", "--k", "64", "--format", "binary", "-o", ok});
    ASSERT_EQ(agree.rc, kExitOk) << agree.err;
    EXPECT_EQ(agree.err.find("note:"), std::string::npos) << agree.err;
}

TEST(CliGen, Trace_to_stdout_puts_the_summary_on_stderr) {
    const Out o = sbufsim({"gen", "gemm", "--m", "64", "--n", "64", "--k", "64"});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    // The trace alone: gen's mark, then the header.
    EXPECT_EQ(o.out.rfind("# written by sbufsim gen; ", 0), 0u) << o.out;
    EXPECT_EQ(o.out.find("\nsbufsim-trace 1 gen=cayman\n"), o.out.find('\n')) << o.out;
    EXPECT_NE(o.err.find("1 matmuls"), std::string::npos) << o.err;
}

// Every record gen writes names the step of the tiled loop nest that wrote it (loc=, with the tile
// indices), and convert carries the locations through the binary form and back unchanged.
TEST(CliGen, Records_carry_their_generator_step_through_convert) {
    const std::string text = temp("steps.trc"), bin = temp("steps.sbt"), back = temp("steps_back.trc");
    ASSERT_EQ(sbufsim({"gen", "attention", "--seq", "256", "--heads", "1", "--dhead", "64", "-o", text}).rc, kExitOk);
    const std::string body = slurp(text);
    std::istringstream lines(body);
    std::size_t records = 0, located = 0;
    for (std::string line; std::getline(lines, line);) {
        if (line.empty() || line[0] == '#' || line.starts_with("sbufsim-trace")) continue;
        ++records;
        located += line.find(" loc=") != std::string::npos;
    }
    EXPECT_GT(records, 0u);
    EXPECT_EQ(located, records);
    for (const char* step : {" loc=qk:load_B[n=0,k=0]", " loc=qk:matmul[m=0,n=1,k=0]", " loc=qk:row_max[m=0,n=0]",
                             " loc=qk:evacuate[m=0,n=0]", " loc=qk:row_sum[m=0,n=0]", " loc=qk:store_C[m=0,n=0]",
                             " loc=pv:load_A[m=0,k=1]", " loc=pv:ldweights[n=0,k=1]"})
        EXPECT_NE(body.find(step), std::string::npos) << step;
    ASSERT_EQ(sbufsim({"convert", text, bin}).rc, kExitOk);
    ASSERT_EQ(sbufsim({"convert", bin, back}).rc, kExitOk);
    const std::string again = slurp(back);
    // The same records; only the first line (whose writer it names) differs.
    EXPECT_EQ(again.substr(again.find('\n')), body.substr(body.find('\n')));
}

// A trace gen or convert wrote carries their mark and is replaced by them; one written by hand
// (or by a script, or by `sbufsim nki`) is not, unless --force; deleting the mark keeps it.
TEST(CliGen, A_trace_is_replaced_only_when_gen_or_convert_wrote_it) {
    const std::string path = temp("mine.trc"), bin = temp("mine.sbt");
    const std::string hand = "sbufsim-trace 1 gen=cayman\n# my tile, by hand\n";
    const std::vector<std::string> gen = {"gen", "gemm", "--m", "64", "--n", "64", "--k", "64", "-o", path};
    std::ofstream(path) << hand;
    Out o = sbufsim(gen);
    EXPECT_EQ(o.rc, kExitUsage);
    EXPECT_NE(o.err.find("first line starts '# written by sbufsim'"), std::string::npos) << o.err;
    EXPECT_EQ(slurp(path), hand);
    o = sbufsim({"convert", shipped("dma_load.trc"), path});
    EXPECT_EQ(o.rc, kExitUsage) << o.err;
    EXPECT_EQ(slurp(path), hand);
    // gen's own trace: replaced by gen and by convert, each writing its mark.
    std::filesystem::remove(path);
    ASSERT_EQ(sbufsim(gen).rc, kExitOk);
    EXPECT_EQ(slurp(path).rfind("# written by sbufsim gen; ", 0), 0u);
    ASSERT_EQ(sbufsim({"convert", path, bin}).rc, kExitOk);
    o = sbufsim({"convert", bin, path});
    ASSERT_EQ(o.rc, kExitOk) << o.err;
    EXPECT_EQ(slurp(path).rfind("# written by sbufsim convert; ", 0), 0u);
    // A binary trace is sbufsim's writing: replaced.
    EXPECT_EQ(sbufsim({"convert", path, bin}).rc, kExitOk);
    // The mark deleted: the user's now.
    std::string text = slurp(path);
    std::ofstream(path) << text.substr(text.find('\n') + 1);
    EXPECT_EQ(sbufsim(gen).rc, kExitUsage);
    std::vector<std::string> forced = gen;
    forced.push_back("--force");
    EXPECT_EQ(sbufsim(forced).rc, kExitOk);
    std::filesystem::remove(path);
    std::filesystem::remove(bin);
}

}  // namespace
}  // namespace sbufsim::cli
