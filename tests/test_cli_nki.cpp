// `sbufsim nki` as a process: the kernel's tracer is a child of its own, in a private scratch
// folder; how it ends (a signal, exit 0 without a trace, --timeout, a signal to sbufsim) is
// reported, and nothing is left behind (docs/cli.md, "What is written when").
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_harness.h"
#include "sbufsim/trace/trace.h"

namespace sbufsim::cli {
namespace {

using namespace sbufsim::test;
namespace fs = std::filesystem;

// A build without the Python module (the sanitizer build) has no package beside the executable:
// the tracer then runs from the source tree's python/ (tracing needs only the standard library).
const bool kPackageFound = [] {
    const fs::path beside = fs::path(SBUFSIM_BINARY).parent_path() / "python" / "sbufsim" / "nki";
    if (!fs::exists(beside)) ::setenv("SBUFSIM_PYTHONPATH", SBUFSIM_SOURCE_DIR "/python", 0);
    return true;
}();

// A fresh folder of its own for one test.
std::string fresh(const std::string& name) {
    const std::string dir = temp("nki_" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

// The transpose example with `prelude` run first, when the tracer imports the kernel file.
std::string kernel_with(const std::string& dir, const std::string& prelude) {
    const std::string path = dir + "/k.py";
    std::ofstream(path) << "import os, sys, signal, time\n"
                        << prelude << "\n"
                        << slurp(std::string(SBUFSIM_SOURCE_DIR) + "/examples/nki/transpose.py");
    return path;
}

// `sbufsim nki K::transpose --input x=bf16[128,128] extra...` with TMPDIR=dir/tmp (where its
// scratch folder goes), stdout and stderr merged.
CliOut nki(const std::string& dir, const std::string& kernel, const std::vector<std::string>& extra) {
    fs::create_directories(dir + "/tmp");
    // timeout(1) only so that a regression fails the test instead of hanging it.
    std::string cmd = "TMPDIR=" + shell_quote(dir + "/tmp") + " timeout -k 5 200 " +
                      shell_quote(SBUFSIM_BINARY) + " nki " + shell_quote(kernel + "::transpose") +
                      " --input 'x=bf16[128,128]'";
    for (const auto& a : extra) cmd += " " + shell_quote(a);
    const std::string out = dir + "/said.txt";
    const int rc = shell(cmd + " >" + shell_quote(out) + " 2>&1");
    return {rc, slurp(out), {}};
}

std::size_t entries(const std::string& dir) {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
    return n;
}

bool running(pid_t pid) { return ::kill(pid, 0) == 0; }

TEST(CliNki, A_tracer_killed_by_a_signal_is_reported_with_it_and_o_is_not_written) {
    const std::string dir = fresh("killed");
    const std::string k = kernel_with(dir, "os.kill(os.getpid(), signal.SIGKILL)");
    const CliOut r = nki(dir, k, {"-o", dir + "/k.trc"});
    EXPECT_EQ(r.rc, kExitInput) << r.out;
    EXPECT_NE(r.out.find("the kernel's tracer was killed by signal 9 (SIGKILL)"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(dir + "/k.trc"));
    EXPECT_EQ(entries(dir + "/tmp"), 0u) << "the scratch folder is left";
}

TEST(CliNki, A_tracer_exiting_0_without_a_trace_is_an_error_and_o_keeps_what_it_held) {
    const std::string dir = fresh("exit0");
    const std::string k = kernel_with(dir, "os._exit(0)");
    const std::string out = dir + "/k.trc";
    std::ofstream(out) << "# written by sbufsim nki; an earlier trace\nsbufsim-trace 1 gen=cayman\n";
    const std::string before = slurp(out);
    const CliOut r = nki(dir, k, {"-o", out});
    EXPECT_EQ(r.rc, kExitInput) << r.out;
    EXPECT_NE(r.out.find("exited 0 without writing a trace"), std::string::npos) << r.out;
    EXPECT_EQ(slurp(out), before);
    EXPECT_EQ(entries(dir + "/tmp"), 0u);
}

TEST(CliNki, Timeout_bounds_the_tracing) {
    const std::string dir = fresh("timeout");
    const std::string k = kernel_with(dir, "time.sleep(60)");
    const auto start = std::chrono::steady_clock::now();
    const CliOut r = nki(dir, k, {"--timeout", "1"});
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.rc, kExitInput) << r.out;
    EXPECT_NE(r.out.find("ran longer than --timeout 1"), std::string::npos) << r.out;
    EXPECT_LT(took, 30.0);
    EXPECT_EQ(entries(dir + "/tmp"), 0u);
    for (const std::string bad : {"-1", "1e10", "nan", "soon"}) {
        const CliOut b = nki(dir, k, {"--timeout", bad});
        EXPECT_EQ(b.rc, kExitUsage) << bad << ": " << b.out;
        EXPECT_NE(b.out.find("--timeout " + (bad == "-1"     ? std::string("-1")
                                             : bad == "1e10" ? "1e+10"
                                                             : bad)),
                  std::string::npos)
            << b.out;
    }
}

// The scratch folder is made by mkdtemp: mode 700, a name no one can guess from the PID (a
// symlink planted at /tmp/sbufsim-nki-<pid> was followed before), a new one per run.
TEST(CliNki, The_scratch_folder_is_private_and_never_reused) {
    const std::string dir = fresh("scratch");
    const std::string seen = dir + "/seen.txt";
    const std::string k = kernel_with(dir,
                                      "d = os.path.dirname(sys.argv[sys.argv.index('-o') + 1])\n"
                                      "open(" +
                                          std::string("'") + seen +
                                          "', 'a').write('%s %o\\n' % (d, os.stat(d).st_mode & 0o777))");
    ASSERT_EQ(nki(dir, k, {}).rc, 0);
    ASSERT_EQ(nki(dir, k, {}).rc, 0);
    std::istringstream lines(slurp(seen));
    std::string first, first_mode, second, second_mode;
    lines >> first >> first_mode >> second >> second_mode;
    EXPECT_EQ(first_mode, "700");
    EXPECT_EQ(second_mode, "700");
    EXPECT_NE(first, second);
    EXPECT_EQ(fs::path(first).parent_path(), fs::path(dir + "/tmp"));
    EXPECT_EQ(entries(dir + "/tmp"), 0u);
}

// SIGTERM to sbufsim ends the kernel's python3 too (its own process group, ended by sbufsim's
// handler) and removes the scratch folder; sbufsim then ends as the signal would.
TEST(CliNki, Sigterm_ends_the_tracer_and_removes_the_scratch_folder) {
    const std::string dir = fresh("sigterm");
    const std::string pidfile = dir + "/pid";
    const std::string k =
        kernel_with(dir, "open('" + pidfile + "', 'w').write(str(os.getpid()))\ntime.sleep(60)");
    fs::create_directories(dir + "/tmp");
    const pid_t sbufsim = ::fork();
    ASSERT_GE(sbufsim, 0);
    if (sbufsim == 0) {
        ::setenv("TMPDIR", (dir + "/tmp").c_str(), 1);
        const std::string kernel = k + "::transpose";
        ::execl(SBUFSIM_BINARY, SBUFSIM_BINARY, "nki", kernel.c_str(), "--input", "x=bf16[128,128]",
                static_cast<char*>(nullptr));
        ::_exit(127);
    }
    pid_t tracer = 0;
    for (int i = 0; i < 300 && tracer == 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        std::ifstream in(pidfile);
        in >> tracer;
    }
    ASSERT_GT(tracer, 0) << "the kernel did not start";
    ASSERT_TRUE(running(tracer));
    ::kill(sbufsim, SIGTERM);
    int status = 0;
    ASSERT_EQ(::waitpid(sbufsim, &status, 0), sbufsim);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
    EXPECT_FALSE(running(tracer)) << "the kernel's python3 outlived sbufsim";
    if (running(tracer)) ::kill(tracer, SIGKILL);
    EXPECT_EQ(entries(dir + "/tmp"), 0u) << "the scratch folder is left";
}

// One point's tracer killed (the out-of-memory killer) or never ending: that point's row says
// so, the others are replayed, and the sweep ends (it hung forever on a Pool).
TEST(CliNki, A_sweep_point_whose_tracer_dies_or_hangs_fails_that_point_only) {
    const std::string dir = fresh("sweep_death");
    const std::string k = dir + "/k.py";
    std::ofstream(k) << "import os, signal, time\n"
                        "import nki\nimport nki.isa as nisa\nimport nki.language as nl\n\n"
                        "@nki.jit\ndef transpose(x, P=1):\n"
                        "    if P == 2:\n        os.kill(os.getpid(), signal.SIGKILL)\n"
                        "    if P == 3:\n        time.sleep(120)\n"
                        "    out = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.hbm)\n"
                        "    block = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.sbuf)\n"
                        "    nisa.dma_copy(dst=block, src=x[0:128, 0:128])\n"
                        "    nl.store(out[0:128, 0:128], value=block)\n"
                        "    return out\n";
    const auto start = std::chrono::steady_clock::now();
    const CliOut r = nki(dir, k, {"--sweep-param", "P=1,2,3", "--timeout", "8", "--jobs", "3"});
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_LT(took, 100.0);
    EXPECT_NE(r.out.find("killed by signal 9 (SIGKILL)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("not traced within --timeout 8 s"), std::string::npos) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("\\n *1 +[0-9]+ "))) << "point P=1 replayed: " << r.out;
    EXPECT_EQ(entries(dir + "/tmp"), 0u);
}

// A sweep with --out T re-run with other inputs is refused by the table (its rows are of other
// traces); the points' traces kept in T.traces/ are those the table's rows were replayed from,
// and stay so (they were replaced before the refusal: a row of 370,682 cycles then replayed as
// 2,372,126).
TEST(CliNki, A_refused_sweep_table_leaves_the_kept_traces_as_they_were) {
    const std::string dir = fresh("sweep_out");
    const std::string table = dir + "/t.csv";
    const std::string k2 = dir + "/k2.py";
    std::ofstream(k2) << "import nki\nimport nki.isa as nisa\nimport nki.language as nl\n\n"
                         "@nki.jit\ndef transpose(x, P=1):\n"
                         "    M, N = x.shape\n"
                         "    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.hbm)\n"
                         "    for i in nl.affine_range(M // 128):\n"
                         "        for p in nl.affine_range(P):\n"
                         "            block = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.sbuf)\n"
                         "            nisa.dma_copy(dst=block, src=x[i * 128:(i + 1) * 128, 0:128])\n"
                         "            nl.store(out[i * 128:(i + 1) * 128, 0:128], value=block)\n"
                         "    return out\n";
    const CliOut made = nki(dir, k2, {"--sweep-param", "P=1,2", "--out", table});
    ASSERT_EQ(made.rc, 0) << made.out;
    std::vector<std::pair<std::string, std::string>> before;
    for (const auto& e : fs::directory_iterator(dir + "/t.traces"))
        before.emplace_back(e.path(), slurp(e.path()));
    ASSERT_EQ(before.size(), 2u);
    // Other inputs: other traces at the same paths, which the table's rows were not made from.
    fs::create_directories(dir + "/tmp");
    const std::string cmd = "TMPDIR=" + shell_quote(dir + "/tmp") + " timeout -k 5 200 " +
                            shell_quote(SBUFSIM_BINARY) + " nki " + shell_quote(k2 + "::transpose") +
                            " --input 'x=bf16[256,256]' --sweep-param P=1,2 --out " + shell_quote(table) +
                            " >" + shell_quote(dir + "/said.txt") + " 2>&1";
    EXPECT_EQ(shell(cmd), kExitUsage) << slurp(dir + "/said.txt");
    for (const auto& [path, text] : before) EXPECT_EQ(slurp(path), text) << path << " was replaced";
    EXPECT_EQ(entries(dir + "/t.traces"), 2u) << "a backup folder is left";
}

// Every option is checked before the kernel runs: `-q` beside --sweep-param (which the sweep
// is given already) failed after the points were traced.
TEST(CliNki, Sweep_options_are_checked_before_any_point_is_traced) {
    const std::string dir = fresh("sweep_options");
    const std::string marker = dir + "/imported";
    const std::string k = kernel_with(dir, "open('" + marker + "', 'w').write('traced')");
    for (const std::vector<std::string>& extra : {std::vector<std::string>{"--sweep-param", "x=1", "-q"},
                                                  {"--sweep-param", "x=1", "--jobs", "0"},
                                                  {"--sweep-param", "x=1", "--set", "no.such_key=1"}}) {
        const CliOut r = nki(dir, k, extra);
        EXPECT_EQ(r.rc, kExitUsage) << extra.back() << ": " << r.out;
        EXPECT_FALSE(fs::exists(marker))
            << extra.back() << ": the kernel ran before the options were checked";
    }
}

// --quiet (or -q) prints nothing, as `sbufsim run --quiet` does: not the tracer's line, not the
// kernel's figures, on one core or a launch on two; -o is still written and errors still said.
TEST(CliNki, Quiet_prints_nothing_but_still_keeps_the_trace) {
    const std::string dir = fresh("quiet");
    const std::string transpose = std::string(SBUFSIM_SOURCE_DIR) + "/examples/nki/transpose.py";
    const CliOut loud = nki(dir, transpose, {});
    ASSERT_EQ(loud.rc, 0) << loud.out;
    EXPECT_NE(loud.out.find("transpose: traced"), std::string::npos) << loud.out;
    for (const char* flag : {"--quiet", "-q"}) {
        const CliOut quiet = nki(dir, transpose, {flag, "-o", dir + "/kept.trc"});
        EXPECT_EQ(quiet.rc, 0) << quiet.out;
        EXPECT_EQ(quiet.out, "") << flag;
        EXPECT_TRUE(fs::exists(dir + "/kept.trc"));
        fs::remove(dir + "/kept.trc");
    }
    const std::string spmd = std::string(SBUFSIM_SOURCE_DIR) + "/examples/nki/spmd_add.py::spmd_add";
    const CliOut launch = sbufsim_process(
        {"nki", spmd, "--input", "a=bf16[1000,512]", "--input", "b=bf16[1000,512]", "-q"}, "nki_quiet_");
    EXPECT_EQ(launch.rc, 0) << launch.err;
    EXPECT_EQ(launch.out, "");
    const CliOut bad = nki(dir, transpose, {"-q", "--set", "sbuf.no_such_key=1"});
    EXPECT_EQ(bad.rc, 2);
    EXPECT_NE(bad.out.find("no_such_key"), std::string::npos) << bad.out;
}

TEST(CliNki, O_with_sbt_keeps_the_binary_form) {
    const std::string dir = fresh("sbt");
    const std::string out = dir + "/k.sbt";
    const CliOut r = nki(dir, kernel_with(dir, ""), {"-o", out});
    ASSERT_EQ(r.rc, 0) << r.out;
    EXPECT_EQ(slurp(out).substr(0, kTraceBinaryMagic.size()),
              std::string(kTraceBinaryMagic.data(), kTraceBinaryMagic.size()));
    const CliOut again = sbufsim_process({"run", out, "--quiet", "--json", "-"}, "nki_sbt_");
    EXPECT_EQ(again.rc, 0) << again.err;
    // The same cycles as the replay of the kept trace nki printed.
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex("total ([0-9]+) cycles"))) << r.out;
    EXPECT_NE(again.out.find("\"total_cycles\": " + m[1].str()), std::string::npos)
        << again.out.substr(0, 400);
}

// A trace kept with -o (text or binary) reports by kernel line whenever it is replayed: the
// tiled GEMM's lines, its `acc += nl.matmul(...)` named nl.matmul. `nki --annotate` without a
// file prints the kernel's own file, only the function that made records.
TEST(CliNki, A_kept_trace_reports_by_kernel_line_when_replayed_and_annotate_takes_the_kernel_file) {
    const std::string dir = fresh("lines");
    const std::string kernel = dir + "/mm.py";
    const std::string source = slurp(std::string(SBUFSIM_SOURCE_DIR) + "/examples/nki/matmul.py");
    std::ofstream(kernel) << source;
    // The source line (1-based) of the first line holding `text`.
    const auto line_of = [&](const std::string& text) {
        const std::size_t at = source.find(text);
        return at == std::string::npos ? 0 : 1 + std::count(source.begin(), source.begin() + at, '\n');
    };
    const std::vector<std::string> traced{
        "nki",     kernel + "::matmul_tiled", "--input", "lhsT=bf16[256,256]",
        "--input", "rhs=bf16[256,512]",       "--quiet"};
    for (const std::string& kept : {dir + "/k.trc", dir + "/k.sbt"}) {
        std::vector<std::string> args = traced;
        args.insert(args.end(), {"-o", kept});
        ASSERT_EQ(sbufsim_process(args, "nki_lines_").rc, 0);
        const CliOut again = sbufsim_process({"run", kept, "--quiet", "--json", "-"}, "nki_lines_");
        ASSERT_EQ(again.rc, 0) << again.err;
        for (const auto& [text, call] :
             {std::pair<std::string, std::string>{"acc += nl.matmul(a, b, ", "nl.matmul"},
              {"a[...] = nl.load(lhsT[k * TILE_K", "nl.load"},
              {"nl.store(result[m * TILE_M", "nl.store"}}) {
            const std::regex row("\"mm\\.py:" + std::to_string(line_of(text)) + "\": \\{\\s*\"calls\": \"" +
                                 call + "\"");
            EXPECT_TRUE(std::regex_search(again.out, row)) << kept << ": " << text << "\n"
                                                           << again.out.substr(0, 600);
        }
    }
    std::vector<std::string> args = traced;
    args.pop_back();                              // --quiet: the report and the source are wanted
    args.insert(args.begin() + 2, "--annotate");  // before --input: the kernel's own file
    const CliOut shown = sbufsim_process(args, "nki_lines_");
    ASSERT_EQ(shown.rc, 0) << shown.err;
    EXPECT_NE(shown.out.find("| " + kernel), std::string::npos) << shown.out;
    EXPECT_NE(shown.out.find("| def matmul_tiled(lhsT, rhs):"), std::string::npos) << shown.out;
    EXPECT_EQ(shown.out.find("def matmul_hoisted"), std::string::npos) << shown.out;  // made no records
    // The stationary load, two thirds of the critical path, is among the lines marked hottest.
    const std::regex hot(">>[^|\n]* " + std::to_string(line_of("a[...] = nl.load(lhsT[k * TILE_K")) +
                         " \\| ");
    EXPECT_TRUE(std::regex_search(shown.out, hot)) << shown.out;
}

// --grid G launches the kernel as kernel[G] from the command line: the same records as the
// example's own launch of it over 8 row blocks (core 0's trace, at -o: cayman's two cores run four
// each), which are those of half the grid on one core (--cores 1), and a size that is no size
// refused before anything is traced.
TEST(CliNki, Grid_launches_the_kernel_as_its_spmd_launch_would) {
    const std::string dir = fresh("grid");
    const std::string example = std::string(SBUFSIM_SOURCE_DIR) + "/examples/nki/spmd_add.py";
    const auto traced = [&](const std::string& func, const std::vector<std::string>& extra) {
        std::vector<std::string> args{"nki",     example + "::" + func, "--input", "a=bf16[1000,512]",
                                      "--input", "b=bf16[1000,512]",    "--quiet"};
        args.insert(args.end(), extra.begin(), extra.end());
        return sbufsim_process(args, "nki_grid_");
    };
    // The records after the mark line (the first), which names nothing of the launch.
    const auto records = [](const std::string& path) {
        const std::string text = slurp(path);
        return text.substr(text.find('\n') + 1);
    };
    ASSERT_EQ(traced("spmd_add", {"-o", dir + "/own.trc"}).rc, 0);
    const CliOut eight = traced("add_exp", {"--grid", "8", "-o", dir + "/g8.trc"});
    ASSERT_EQ(eight.rc, 0) << eight.err;
    EXPECT_EQ(records(dir + "/g8.trc"), records(dir + "/own.trc"));
    ASSERT_EQ(traced("add_exp", {"--grid=4", "--cores", "1", "-o", dir + "/g4.trc"}).rc, 0);
    EXPECT_NE(records(dir + "/g4.trc").find("records=23"), std::string::npos) << records(dir + "/g4.trc");
    EXPECT_EQ(records(dir + "/g8.trc"), records(dir + "/g4.trc"));
    ASSERT_EQ(traced("add_exp", {"--grid", "8", "--cores=1", "-o", dir + "/one.trc"}).rc, 0);
    EXPECT_NE(records(dir + "/one.trc").find("records=47"), std::string::npos);
    const CliOut zero = traced("add_exp", {"--grid", "0", "-o", dir + "/g0.trc"});
    EXPECT_EQ(zero.rc, 2);
    EXPECT_NE(zero.err.find("--grid '0': expected one to four positive sizes"), std::string::npos)
        << zero.err;
    EXPECT_FALSE(fs::exists(dir + "/g0.trc"));
}

// -o of a launch on two cores keeps each core's trace: core 0's at the file, core 1's beside it
// (k.core1.trc), each replayable alone with the cycles the launch reported for its core. A file of
// someone else's where a core's trace goes is refused before anything is traced; a launch that
// leaves a core idle writes nothing for it.
TEST(CliNki, Output_of_a_launch_keeps_every_cores_trace) {
    const std::string dir = fresh("launch_output");
    const std::string example = std::string(SBUFSIM_SOURCE_DIR) + "/examples/nki/spmd_add.py::add_exp";
    const auto traced = [&](const std::vector<std::string>& extra) {
        std::vector<std::string> args{"nki",     example,           "--input", "a=bf16[1000,512]",
                                      "--input", "b=bf16[1000,512]"};
        args.insert(args.end(), extra.begin(), extra.end());
        return sbufsim_process(args, "nki_launch_output_");
    };
    const CliOut two = traced({"--grid", "8", "-o", dir + "/k.sbt"});
    ASSERT_EQ(two.rc, 0) << two.err;
    EXPECT_NE(two.out.find("core N's in " + dir + "/k.coreN.sbt"), std::string::npos) << two.out;
    const std::regex core(R"(  core (\d): 4 instances, 23 records, (\d+) cycles)");
    int cores = 0;
    for (auto it = std::sregex_iterator(two.out.begin(), two.out.end(), core); it != std::sregex_iterator();
         ++it) {
        ++cores;
        const std::string kept = dir + ((*it)[1] == "0" ? "/k.sbt" : "/k.core" + (*it)[1].str() + ".sbt");
        ASSERT_TRUE(fs::exists(kept)) << kept;
        // alone, at the launch's share of the HBM bandwidth (two cores streaming: 362.5 GB/s each)
        const CliOut alone =
            sbufsim_process({"run", kept, "--set", "dma.hbm_gbps=362.5"}, "nki_launch_output_run_");
        ASSERT_EQ(alone.rc, 0) << alone.err;
        EXPECT_NE(alone.out.find("total " + (*it)[2].str() + " cycles"), std::string::npos) << alone.out;
    }
    EXPECT_EQ(cores, 2) << two.out;
    EXPECT_FALSE(fs::exists(dir + "/k.core2.sbt"));
    std::ofstream(dir + "/f.core1.trc") << "mine\n";
    const CliOut refused = traced({"--grid", "8", "-o", dir + "/f.trc"});
    EXPECT_EQ(refused.rc, 2) << refused.err;
    EXPECT_NE(refused.err.find("f.core1.trc: exists and is not what this command writes"), std::string::npos)
        << refused.err;
    EXPECT_EQ(slurp(dir + "/f.core1.trc"), "mine\n");
    EXPECT_FALSE(fs::exists(dir + "/f.trc"));
    ASSERT_EQ(traced({"--grid", "1", "-o", dir + "/one.trc"}).rc, 0);
    EXPECT_TRUE(fs::exists(dir + "/one.trc"));
    EXPECT_FALSE(fs::exists(dir + "/one.core1.trc"));
}

// A launch of eight instances on cayman's two cores (gen.lnc = 2): one line per core, four
// instances each, the launch as long as the latest core, and its summary that core's; the run's
// --json FILE is the latest core's replay. --cores 1 runs all eight on one core, which takes
// longer (the row blocks are DMA-bound and each core moves its own).
TEST(CliNki, A_launch_on_two_cores_reports_the_launch_and_each_core) {
    const std::string dir = fresh("launch");
    const std::string example = std::string(SBUFSIM_SOURCE_DIR) + "/examples/nki/spmd_add.py::spmd_add";
    const auto traced = [&](const std::vector<std::string>& extra) {
        std::vector<std::string> args{"nki",     example,           "--input", "a=bf16[1000,512]",
                                      "--input", "b=bf16[1000,512]"};
        args.insert(args.end(), extra.begin(), extra.end());
        return sbufsim_process(args, "nki_launch_");
    };
    const CliOut two = traced({"--json", dir + "/two.json"});
    ASSERT_EQ(two.rc, 0) << two.err;
    const std::regex launch(R"(launch: 8 instances on 2 NeuronCores, (\d+) cycles)");
    const std::regex core(R"(  core (\d): 4 instances, 23 records, (\d+) cycles, bound by DMA)");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(two.out, m, launch)) << two.out;
    const long cycles = std::stol(m[1]);
    long latest = 0;
    int cores = 0;
    for (auto it = std::sregex_iterator(two.out.begin(), two.out.end(), core); it != std::sregex_iterator();
         ++it) {
        ++cores;
        latest = std::max(latest, std::stol((*it)[2]));
    }
    EXPECT_EQ(cores, 2) << two.out;
    EXPECT_EQ(cycles, latest);
    EXPECT_NE(slurp(dir + "/two.json").find("\"total_cycles\": " + std::to_string(cycles)),
              std::string::npos);
    const CliOut one = traced({"--cores", "1"});
    ASSERT_EQ(one.rc, 0) << one.err;
    EXPECT_EQ(one.out.find("launch:"), std::string::npos) << one.out;
    ASSERT_TRUE(std::regex_search(one.out, m, std::regex(R"(total (\d+) cycles)")));
    EXPECT_GT(std::stol(m[1]), cycles);
}

// --loop-buffers reaches the tracer: the tiled GEMM's loads cycle through that many SBUF
// buffers (default 3, docs/nki.md "Operands and the allocator"); out of range is a usage error.
TEST(CliNki, Loop_buffers_sets_the_buffers_a_loop_tile_rotates_over) {
    const std::string dir = fresh("loop_buffers");
    const std::string example = std::string(SBUFSIM_SOURCE_DIR) + "/examples/nki/matmul.py::matmul_tiled";
    const auto traced = [&](const std::vector<std::string>& extra) {
        std::vector<std::string> args{
            "nki", example, "--input", "lhsT=bf16[512,512]", "--input", "rhs=bf16[512,512]", "--quiet"};
        args.insert(args.end(), extra.begin(), extra.end());
        return sbufsim_process(args, "nki_loop_buffers_");
    };
    // The distinct SBUF addresses the lhsT loads (the first load of each K step) write.
    const auto lhs_buffers = [](const std::string& path) {
        std::set<std::string> addresses;
        const std::regex load(R"(dma queue=\S+ src=hbm\S* dst=\w+@(0x[0-9a-f]+).*nl\.load)");
        const std::string text = slurp(path);
        std::istringstream lines(text);
        int n = 0;
        for (std::string line; std::getline(lines, line);)
            if (std::smatch m; std::regex_search(line, m, load) && n++ % 2 == 0) addresses.insert(m[1]);
        return addresses.size();
    };
    const CliOut two = traced({"--loop-buffers", "2", "-o", dir + "/two.trc"});
    ASSERT_EQ(two.rc, 0) << two.err;
    const CliOut three = traced({"-o", dir + "/three.trc"});
    ASSERT_EQ(three.rc, 0) << three.err;
    EXPECT_EQ(lhs_buffers(dir + "/two.trc"), 2u);
    EXPECT_EQ(lhs_buffers(dir + "/three.trc"), 3u);
    const CliOut zero = traced({"--loop-buffers=0", "-o", dir + "/zero.trc"});
    EXPECT_EQ(zero.rc, 2);
    EXPECT_NE(zero.err.find("an integer from 1 to 8"), std::string::npos) << zero.err;
    EXPECT_FALSE(fs::exists(dir + "/zero.trc"));
}

TEST(CliNki, Help_says_the_kernel_runs_as_python_with_the_users_rights) {
    const CliOut r = sbufsim_process({"nki", "--help"}, "nki_help_");
    EXPECT_EQ(r.rc, 0);
    EXPECT_NE(r.out.find("The kernel file is executed as Python, with your rights"), std::string::npos)
        << r.out;
}

}  // namespace
}  // namespace sbufsim::cli
