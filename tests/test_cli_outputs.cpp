// The output guarantees of docs/cli.md, "What is written when": outputs checked before the work,
// complete or absent, never an input, never a file of another kind without --force, links
// followed, devices written in place, write errors (a full device) reported with the OS reason.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <thread>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_harness.h"

namespace {

namespace fs = std::filesystem;
using sbufsim::test::CliOut;
using sbufsim::test::shipped;
using sbufsim::test::slurp;

CliOut run(const std::vector<std::string>& args) { return sbufsim::test::sbufsim(args); }
CliOut process(const std::vector<std::string>& args) { return sbufsim::test::sbufsim_process(args, "cli_outputs_"); }

// A fresh directory of its own for each test: leftovers (temporaries) are visible in it.
std::string fresh_dir(const std::string& name) {
    const std::string d = sbufsim::test::temp("outputs_" + name);
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

std::vector<std::string> entries(const std::string& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::string copy_of(const std::string& trace, const std::string& dir, const std::string& name) {
    const std::string p = dir + "/" + name;
    fs::copy_file(shipped(trace), p, fs::copy_options::overwrite_existing);
    return p;
}

bool have_dev_full() {
    struct stat st {};
    return ::stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode) && ::access("/dev/full", W_OK) == 0;
}

TEST(CliOutputs, Convert_refuses_its_input_as_output_and_leaves_it_intact) {
    const std::string d = fresh_dir("same");
    const std::string in = copy_of("matmul_kloop.trc", d, "k.trc");
    const std::string before = slurp(in);
    for (const std::string& out : {in, d + "/./k.trc"}) {
        const CliOut r = run({"convert", in, out});
        EXPECT_EQ(r.rc, 2) << r.err;
        EXPECT_NE(r.err.find("is also the input"), std::string::npos) << r.err;
    }
    EXPECT_EQ(slurp(in), before);
    EXPECT_EQ(entries(d), std::vector<std::string>{"k.trc"});
}

TEST(CliOutputs, Convert_failure_leaves_an_existing_output_and_no_temporary) {
    const std::string d = fresh_dir("bad_input");
    // A trace convert wrote (one it may replace), so that the bad input is what stops it.
    const std::string out = d + "/out.trc";
    ASSERT_EQ(run({"convert", shipped("matmul_kloop.trc"), out}).rc, 0);
    const std::string before = slurp(out);
    const std::string bad = d + "/bad.trc";
    std::ofstream(bad) << "sbufsim-trace 1 gen=cayman\n0 access client=act_rd bank=0 bytes=16\nthis is not a record\n";
    const CliOut r = run({"convert", bad, out});
    EXPECT_EQ(r.rc, 3) << r.err;
    EXPECT_EQ(slurp(out), before);   // not removed, not truncated
    EXPECT_EQ(entries(d), (std::vector<std::string>{"bad.trc", "out.trc"}));
}

TEST(CliOutputs, Convert_to_a_full_device_fails_with_the_reason_and_keeps_the_device) {
    if (!have_dev_full()) GTEST_SKIP() << "no writable /dev/full";
    const CliOut r = run({"convert", shipped("matmul_kloop.trc"), "/dev/full"});
    EXPECT_EQ(r.rc, 3) << r.err;
    EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
    struct stat st {};
    ASSERT_EQ(::stat("/dev/full", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(CliOutputs, An_existing_file_of_another_kind_needs_force) {
    const std::string d = fresh_dir("kind");
    const std::string notes = d + "/notes.sbt";
    std::ofstream(notes) << "my notes, not a trace\n";
    CliOut r = run({"convert", shipped("matmul_kloop.trc"), notes});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("--force"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(notes), "my notes, not a trace\n");
    r = run({"convert", shipped("matmul_kloop.trc"), notes, "--force"});
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(slurp(notes).substr(0, 7), "SBUFTRC");
    // A trace may be replaced by a trace: the command's own kind.
    r = run({"convert", shipped("dma_load.trc"), notes});
    EXPECT_EQ(r.rc, 0) << r.err;
}

TEST(CliOutputs, A_symlink_is_followed_not_replaced) {
    const std::string d = fresh_dir("link");
    const std::string target = d + "/real.trc", link = d + "/link.trc";
    std::ofstream(target) << "";
    fs::create_symlink("real.trc", link);
    const CliOut r = run({"convert", shipped("matmul_kloop.trc"), link});
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_NE(slurp(target).find("sbufsim-trace"), std::string::npos);
    EXPECT_EQ(entries(d), (std::vector<std::string>{"link.trc", "real.trc"}));
}

TEST(CliOutputs, Run_checks_output_paths_before_simulating) {
    const std::string d = fresh_dir("run_paths");
    CliOut r = run({"run", shipped("matmul_kloop.trc"), "--quiet", "--json", d + "/missing/r.json"});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("No such file or directory"), std::string::npos) << r.err;
    // The trace given as --csv: refused (it is an input), intact.
    const std::string trace = copy_of("dma_load.trc", d, "t.trc");
    const std::string before = slurp(trace);
    r = run({"run", trace, "--quiet", "--csv", trace});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_EQ(slurp(trace), before);
    // Two outputs naming one file.
    r = run({"run", trace, "--quiet", "--json", d + "/x", "--csv", d + "/x"});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("both write"), std::string::npos) << r.err;
    // One new file named two ways relative to the working folder ("y.json" has no part that
    // exists, "./y.json" has one): the same file all the same.
    {
        const fs::path was = fs::current_path();
        fs::current_path(d);
        r = run({"run", trace, "--quiet", "--json", "y.json", "--csv", "./y.json"});
        fs::current_path(was);
    }
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("--json and --csv both write y.json"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(d + "/y.json"));
    // A directory.
    r = run({"run", trace, "--quiet", "--timeline", d});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
}

TEST(CliOutputs, Run_write_errors_exit_3_with_the_reason) {
    if (!have_dev_full()) GTEST_SKIP() << "no writable /dev/full";
    for (const std::string opt : {"--json", "--csv", "--timeline", "--heatmap"}) {
        const CliOut r = run({"run", shipped("dma_load.trc"), "--quiet", opt, "/dev/full"});
        EXPECT_EQ(r.rc, 3) << opt << ": " << r.err;
        EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << opt << ": " << r.err;
        EXPECT_NE(r.err.find(opt + ": cannot write /dev/full"), std::string::npos) << opt << ": " << r.err;
    }
}

// One output that cannot be written leaves the others as they were: none is renamed into place
// until every one is written.
TEST(CliOutputs, Run_outputs_appear_together_or_not_at_all) {
    if (!have_dev_full()) GTEST_SKIP() << "no writable /dev/full";
    const std::string d = fresh_dir("run_all_or_none");
    const std::string json = d + "/r.json", svg = d + "/h.svg", timeline = d + "/t.json";
    ASSERT_EQ(run({"run", shipped("dma_load.trc"), "--quiet", "--json", json, "--heatmap", svg, "--timeline", timeline})
                  .rc,
              0);
    const std::string json_before = slurp(json), svg_before = slurp(svg), timeline_before = slurp(timeline);
    const CliOut r = run({"run", shipped("matmul_kloop.trc"), "--quiet", "--json", json, "--heatmap", svg,
                          "--timeline", timeline, "--csv", "/dev/full"});
    EXPECT_EQ(r.rc, 3) << r.err;
    EXPECT_NE(r.err.find("--csv: cannot write /dev/full: No space left on device"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(json), json_before);
    EXPECT_EQ(slurp(svg), svg_before);
    EXPECT_EQ(slurp(timeline), timeline_before);
    EXPECT_EQ(entries(d), (std::vector<std::string>{"h.svg", "r.json", "t.json"}));  // no temporary left
}

TEST(CliOutputs, Run_replaces_its_own_outputs_and_writes_them_whole) {
    const std::string d = fresh_dir("run_own");
    const std::string json = d + "/r.json", csv = d + "/r.csv";
    for (int i = 0; i < 2; ++i) {
        const CliOut r = run({"run", shipped("dma_load.trc"), "--quiet", "--json", json, "--csv", csv});
        ASSERT_EQ(r.rc, 0) << r.err;
    }
    EXPECT_NE(slurp(json).find("\"tool\": \"sbufsim\""), std::string::npos);
    EXPECT_EQ(slurp(csv).rfind("trace,section,name,metric,value\n", 0), 0u);
    EXPECT_EQ(entries(d), (std::vector<std::string>{"r.csv", "r.json"}));
}

// A read-only file is kept whoever runs the command: root passes the permission check, so the
// mode bits are read as well. --force does not change that.
TEST(CliOutputs, A_read_only_output_file_is_refused_even_for_root_and_with_force) {
    const std::string d = fresh_dir("read_only");
    const std::string trace = copy_of("matmul_kloop.trc", d, "t.trc"), out = d + "/r.json";
    ASSERT_EQ(run({"run", trace, "--quiet", "--json", out}).rc, 0);
    const std::string before = slurp(out);
    ASSERT_EQ(::chmod(out.c_str(), 0444), 0);
    for (const bool force : {false, true}) {
        std::vector<std::string> args = {"run", trace, "--quiet", "--json", out, "--set", "tdm.dma_slots=2"};
        if (force) args.push_back("--force");
        const CliOut r = run(args);
        EXPECT_EQ(r.rc, 2) << r.err;
        EXPECT_TRUE(r.err.find("read-only") != std::string::npos ||
                    r.err.find("Permission denied") != std::string::npos)
            << r.err;
        EXPECT_EQ(slurp(out), before);
    }
    EXPECT_EQ(entries(d), (std::vector<std::string>{"r.json", "t.trc"}));  // no temporary left
}

TEST(CliOutputs, Stdout_write_errors_exit_3) {
    if (!have_dev_full()) GTEST_SKIP() << "no writable /dev/full";
    using sbufsim::test::shell_quote;
    const std::string err = sbufsim::test::temp("cli_outputs_stdout_err.txt");
    const int rc = sbufsim::test::shell(shell_quote(SBUFSIM_BINARY) + " config >/dev/full 2>" + shell_quote(err));
    EXPECT_EQ(rc, 3);
    EXPECT_NE(slurp(err).find("standard output: No space left on device"), std::string::npos) << slurp(err);
}

TEST(CliOutputs, Gen_and_plot_refuse_inputs_and_foreign_files) {
    const std::string d = fresh_dir("gen_plot");
    const std::string cfg = d + "/my.ini";
    std::ofstream(cfg) << "[tdm]\ndma_slots = 2\n";
    CliOut r = run({"gen", "gemm", "--m", "128", "--n", "128", "--k", "128", "--config", cfg, "-o", cfg});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_EQ(slurp(cfg), "[tdm]\ndma_slots = 2\n");
    r = run({"run", shipped("dma_load.trc"), "--quiet", "--window-stats", "64", "--json", d + "/s.json"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const std::string stats = slurp(d + "/s.json");
    r = run({"plot", d + "/s.json", "-o", d + "/s.json"});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_EQ(slurp(d + "/s.json"), stats);
    if (have_dev_full()) {
        r = run({"gen", "gemm", "--m", "128", "--n", "128", "--k", "128", "-o", "/dev/full"});
        EXPECT_EQ(r.rc, 3) << r.err;
        EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
    }
}

TEST(CliOutputs, Sweep_refuses_a_trace_as_out_and_follows_a_link) {
    const std::string d = fresh_dir("sweep");
    const std::string trace = copy_of("dma_vs_compute.trc", d, "t.trc");
    const std::string before = slurp(trace);
    CliOut r = process({"sweep", trace, "--vary", "tdm.dma_slots=1,2", "--quiet", "--jobs", "1", "--out", trace});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_EQ(slurp(trace), before);
    const std::string other = copy_of("dma_load.trc", d, "other.trc");
    r = process({"sweep", trace, "--vary", "tdm.dma_slots=1,2", "--quiet", "--jobs", "1", "--out", other});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("--force"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(other), slurp(shipped("dma_load.trc")));

    std::ofstream(d + "/real.csv") << "";
    fs::create_symlink("real.csv", d + "/link.csv");
    r = process({"sweep", trace, "--vary", "tdm.dma_slots=1,2", "--quiet", "--jobs", "1", "--out", d + "/link.csv"});
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_TRUE(fs::is_symlink(d + "/link.csv"));
    const std::string table = slurp(d + "/real.csv");
    EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 3) << table;   // header and two rows
}

TEST(CliOutputs, A_second_sweep_on_a_locked_out_refuses) {
    const std::string d = fresh_dir("sweep_lock");
    const std::string out = d + "/t.csv";
    // A sweep in progress holds the lock on its --out.
    const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
    CliOut r = process({"sweep", shipped("dma_vs_compute.trc"), "--vary", "tdm.dma_slots=1,2", "--quiet", "--out", out});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("another sweep is writing it"), std::string::npos) << r.err;
    ::close(fd);
    r = process({"sweep", shipped("dma_vs_compute.trc"), "--vary", "tdm.dma_slots=1,2", "--quiet", "--out", out});
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(entries(d), std::vector<std::string>{"t.csv"});
}

TEST(CliOutputs, Sweep_json_write_error_exits_3) {
    if (!have_dev_full()) GTEST_SKIP() << "no writable /dev/full";
    const CliOut r = process({"sweep", shipped("dma_vs_compute.trc"), "--vary", "tdm.dma_slots=1,2", "--quiet",
                              "--jobs", "1", "--json", "/dev/full"});
    EXPECT_EQ(r.rc, 3) << r.err;
    EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
}

// A directory opens without error on Linux and reads as empty: every command that reads a user's
// file names it and exits before any work (3: an unreadable input; 2 for a configuration file, as
// every bad configuration), instead of an internal error or a silently empty input (a config that
// sets nothing, a topology with no layers).
TEST(CliOutputs, A_terminating_signal_leaves_no_temporary_behind) {
    // A sweep of many points, killed as Slurm pre-empts a task once its table's temporary
    // exists: the rows journal stays, the temporary goes, and the process ends by the signal.
    const std::string dir = fresh_dir("signal");
    const std::string out = dir + "/t.csv";
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        const int null = ::open("/dev/null", O_WRONLY);
        ::dup2(null, 1);
        ::dup2(null, 2);
        const std::string trace = shipped("dma_vs_compute.trc");
        ::execl(SBUFSIM_BINARY, "sbufsim", "sweep", trace.c_str(), "--vary",
                "arbiter.stage2.act_rd.weight=1:15", "--vary", "arbiter.stage2.dve_rd.weight=1:15", "--vary",
                "tdm.dma_slots=1:7", "--jobs", "1", "--out", out.c_str(), "-q", static_cast<char*>(nullptr));
        ::_exit(127);
    }
    const auto temporary_exists = [&] {
        const auto names = entries(dir);
        return std::any_of(names.begin(), names.end(),
                           [](const std::string& n) { return n.find(".sbufsim-") != std::string::npos; });
    };
    // Both the temporary and the journal of finished rows (t.csv): killed between the two, the
    // sweep rightly leaves nothing, and the test would not see the journal kept.
    const auto both_exist = [&] { return temporary_exists() && std::filesystem::exists(out); };
    for (int i = 0; i < 2000 && !both_exist(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_TRUE(both_exist()) << "the sweep never created its table's temporary and journal";
    ::kill(pid, SIGTERM);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << WEXITSTATUS(status) << ": the sweep finished first";
    EXPECT_EQ(WTERMSIG(status), SIGTERM);
    EXPECT_EQ(entries(dir), std::vector<std::string>{"t.csv"});
}

// /dev/stdout is a link to /proc/self/fd/1, whose target in a pipe ("pipe:[123]") is no path:
// written through the link in place, not refused as a link that cannot be reached.
TEST(CliOutputs, Json_to_dev_stdout_into_a_pipe_is_written) {
    const std::string d = fresh_dir("stdout_pipe");
    const std::string cmd = "(" + sbufsim::test::shell_quote(SBUFSIM_BINARY) + " run " +
                            sbufsim::test::shell_quote(shipped("dma_load.trc")) +
                            " --quiet --json /dev/stdout; echo rc=$? >&2) 2>" + d + "/err | cat >" + d +
                            "/out";
    ASSERT_EQ(sbufsim::test::shell(cmd), 0);
    EXPECT_NE(slurp(d + "/err").find("rc=0"), std::string::npos) << slurp(d + "/err");
    EXPECT_NE(slurp(d + "/out").find("\"tool\": \"sbufsim\""), std::string::npos) << slurp(d + "/out");
}

// A FIFO nobody reads would block the open forever: refused at once with the reason.
TEST(CliOutputs, A_fifo_with_no_reader_is_refused_not_waited_for) {
    const std::string d = fresh_dir("fifo");
    const std::string fifo = d + "/f";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const CliOut r = run({"run", shipped("dma_load.trc"), "--quiet", "--json", fifo});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("a FIFO that no program is reading"), std::string::npos) << r.err;
    struct stat st {};
    ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

// A device whose reading never ends is refused as an input (check /dev/zero hung).
TEST(CliOutputs, An_endless_device_is_refused_as_an_input) {
    for (const std::vector<std::string>& args : {std::vector<std::string>{"check", "/dev/zero"},
                                                 {"run", "/dev/urandom"},
                                                 {"plot", "/dev/zero", "-o", "-"}}) {
        const CliOut r = run(args);
        EXPECT_NE(r.rc, 0) << args[0];
        EXPECT_NE(r.err.find("is a device whose reading never ends"), std::string::npos)
            << args[0] << ": " << r.err;
    }
}

TEST(CliOutputs, A_directory_given_as_an_input_file_is_refused) {
    const std::string d = fresh_dir("dir_inputs");
    const std::string trace = copy_of("matmul_kloop.trc", d, "t.trc");
    const std::vector<std::pair<int, std::vector<std::string>>> commands = {
        {3, {"run", d, "--quiet"}},
        {3, {"check", d}},
        {3, {"convert", d, d + "/out.sbt"}},
        {3, {"run", "--from", d}},
        {2, {"run", trace, "--quiet", "--config", d}},
        {3, {"gen", "--topology", d, "-o", d + "/net"}},
        {3, {"plot", d, "-o", d + "/h.svg"}},
        {3, {"sweep", d, "--vary", "tdm.dma_slots=1:2", "-o", d + "/s.csv"}},
    };
    for (const auto& [rc, args] : commands) {
        const CliOut r = run(args);
        EXPECT_EQ(r.rc, rc) << args[0] << " " << args[1] << ": " << r.err;
        EXPECT_NE(r.err.find(d + ":"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("is a directory"), std::string::npos)
            << args[0] << " " << args[1] << ": " << r.err;
    }
    EXPECT_EQ(entries(d), std::vector<std::string>{"t.trc"});  // nothing written
}

}  // namespace
