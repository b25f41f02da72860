// `sbufsim check` and `sbufsim convert` end to end: the built binary, its messages and exit codes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_harness.h"
#include "sbufsim/trace/trace.h"

namespace {

// The built binary with `args` (shell syntax); stdout and stderr together in `out`.
using Result = sbufsim::test::CliOut;
Result run(const std::string& args) { return sbufsim::test::sbufsim_process_merged(args, "cli_trace_"); }

using sbufsim::test::slurp;
std::string data(const std::string& name) { return sbufsim::test::data_file(name); }

bool has(const Result& r, const std::string& s) { return r.out.find(s) != std::string::npos; }

}  // namespace

TEST(CliCheck, Clean_crlf_trace_exits_0) {
    const Result r = run("check " + data("clean_crlf.trc"));
    EXPECT_EQ(r.rc, 0) << r.out;
    EXPECT_TRUE(has(r, "3 records, 0 problem(s)")) << r.out;
}

TEST(CliCheck, Each_error_class_exits_1_with_file_line_field) {
    struct Case {
        const char* file;
        std::string expect;
    } cases[] = {
        {"bad_header.trc", "bad_header.trc:2: header: expected the header"},
        {"bad_version.trc", "bad_version.trc:1: header: unsupported trace format version 7"},
        {"empty.trc", "empty.trc: header: empty file"},
        {"q7_psum.trc", "q7_psum.trc:2: operand: GPSIMD/Q7 operand 0x2000000 is in PSUM"},
        {"col_grp_q3.trc", "col_grp_q3.trc:2: col_grp: col_grp 0x8"},
        {"zero_region_1.trc", "zero_region_1.trc:2: zero_region:"},
        {"many_errors.trc", "many_errors.trc:3: record: unknown record kind 'frob'"},
    };
    for (const auto& c : cases) {
        const Result r = run("check " + data(c.file));
        EXPECT_EQ(r.rc, 1) << c.file << "\n" << r.out;
        EXPECT_TRUE(has(r, data("") + c.expect)) << c.file << "\n" << r.out;
    }
}

// A header and nothing else: a problem for check, a warning for run (its report is of 0 cycles),
// whether text or binary.
TEST(CliCheck, A_trace_of_no_records_is_a_problem_and_run_warns) {
    const std::string text =
        sbufsim::test::write_temp("cli_trace_header_only.trc", "sbufsim-trace 1 gen=cayman\n# nothing\n");
    const std::string binary = sbufsim::test::temp("cli_trace_header_only.sbt");
    ASSERT_EQ(run("convert " + text + " " + binary).rc, 0);
    for (const std::string& t : {text, binary}) {
        const Result c = run("check " + t);
        EXPECT_EQ(c.rc, 1) << c.out;
        EXPECT_TRUE(has(c, t + ":1: records: no records after the header")) << c.out;
        const Result r = run("run " + t + " --quiet");
        EXPECT_EQ(r.rc, 0) << r.out;
        EXPECT_TRUE(
            has(r, "sbufsim run: warning: " + t + ": no records after the header, so the run is empty"))
            << r.out;
    }
    const Result one = run("run " + data("clean_crlf.trc") + " --quiet");
    EXPECT_FALSE(has(one, "no records")) << one.out;
}

// A record the reader rejects loses its signal too: the wait it leaves short names it.
TEST(CliCheck, A_wait_short_of_a_rejected_records_signal_names_that_record) {
    const std::string t = sbufsim::test::write_temp(
        "cli_trace_rejected_signal.trc",
        "sbufsim-trace 1 gen=cayman\n"
        "dma queue=qSyncIO0 src=hbm dst=bf16@0x0 partitons=128 bytes=256 signal=1\n"
        "act queue=qAct0 src=bf16@0x0[1][64] dst=bf16@0x30000[1][64] partitions=128 fn=copy wait=1\n");
    const Result r = run("check " + t);
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_TRUE(has(r, t + ":2: partitons: unknown field for dma (did you mean 'partitions'?)")) << r.out;
    EXPECT_TRUE(has(r, t + ":3: wait: waits for semaphore 1") &&
                has(r, "or fix the record rejected at line 2 first: a signal it carries is not counted"))
        << r.out;
}

TEST(CliCheck, A_race_after_a_rejected_record_says_to_fix_that_record_first) {
    // Line 3 waits for the load and is rejected (a misspelt field): line 4, ordered after the load
    // only through line 3 on the ACT queue, is then reported as racing with it.
    const std::string t = sbufsim::test::write_temp(
        "cli_trace_cascade.trc",
        "sbufsim-trace 1 gen=cayman\n"
        "dma queue=qSyncIO0 engine=0 src=hbm dst=bf16@0x0 partitions=128 bytes=4096 signal=1\n"
        "act queue=qAct0 src=bf16@0x0[1][2048] dst=bf16@0x10000[1][2048] partitions=128 fn=copy wait=1 bogus=3\n"
        "act queue=qAct0 src=bf16@0x0[1][2048] dst=bf16@0x20000[1][2048] partitions=128 fn=copy\n");
    const Result r = run("check " + t);
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_TRUE(has(r, t + ":3: bogus:")) << r.out;
    EXPECT_TRUE(has(r, t + ":4: ") &&
                has(r, "; fix the record rejected at line 3 first: the race check ran without it"))
        << r.out;
}

// A record with a source location is named by its kernel line after the trace line, in a rule's
// message and a race's, and a race names the other side's kernel line too, also when it is found
// after later records were read (line 5 starts once line 6 signals it).
TEST(CliCheck, Check_and_race_messages_name_the_kernel_lines) {
    const std::string t = sbufsim::test::write_temp(
        "cli_trace_kernel_lines.trc",
        "sbufsim-trace 1 gen=cayman\n"
        "dma queue=qSyncIO0 engine=0 src=hbm dst=bf16@0x0 partitions=128 bytes=4096 signal=1 "
        "loc=softmax.py:40:nl.load@softmax_kernel[i=0]\n"
        "act queue=qAct0 src=bf16@0x0[1][2048] dst=bf16@0x10000[1][2048] partitions=129 fn=exp "
        "loc=softmax.py:42:nl.exp@softmax_kernel[i=1]\n"
        "act queue=qAct0 src=bf16@0x0[1][2048] dst=bf16@0x20000[1][2048] partitions=128 fn=copy "
        "loc=softmax.py:44:nl.copy@softmax_kernel[i=0]\n"
        "dve queue=qDve0 src=bf16@0x0[1][2048] dst=bf16@0x30000[1][2048] partitions=128 fn=copy wait=2 "
        "loc=softmax.py:46:nl.copy@softmax_kernel\n"
        "dma queue=qSyncIO1 engine=1 src=hbm dst=bf16@0x40000 partitions=128 bytes=4096 signal=2 "
        "loc=softmax.py:48:nl.load@softmax_kernel\n");
    const Result r = run("check " + t);
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_TRUE(has(r, t + ":3 (softmax.py:42 nl.exp): partitions: 129 partitions")) << r.out;
    EXPECT_TRUE(has(r, t + ":4 (softmax.py:44 nl.copy): src: ACT line 4 reads SBUF") &&
                has(r, "which DMA queue qSyncIO0 line 2 (softmax.py:40 nl.load) writes"))
        << r.out;
    EXPECT_TRUE(has(r, t + ":5 (softmax.py:46 nl.copy): src: DVE line 5 reads SBUF")) << r.out;
}

TEST(CliCheck, Zero_region_1_is_fine_on_mariana) {
    EXPECT_EQ(run("check " + data("zero_region_1.trc") + " --gen mariana").rc, 0);
    EXPECT_EQ(run("check " + data("zero_region_1.trc") + " --gen cayman").rc, 1);
}

// The header need not be the first line (comments may come first): a generation mismatch names
// the header's own line, as record errors name theirs.
TEST(CliCheck, A_generation_mismatch_names_the_header_line) {
    const std::string t =
        std::string(SBUFSIM_SOURCE_DIR) + "/traces/dma_vs_compute.trc";  // two comment lines first
    const Result r = run("check --gen sunda " + t);
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_TRUE(has(r, t + ":3: gen: the trace is for generation cayman but is being checked against sunda"))
        << r.out;
}

// Another generation's records are not listed one by one: every one would be a problem of the
// choice of generation. --lenient lists them (what run --lenient would skip).
TEST(CliCheck, A_generation_mismatch_stops_the_trace_unless_lenient) {
    const std::string t = std::string(SBUFSIM_SOURCE_DIR) + "/traces/matmul_kloop.trc";
    const Result r = run("check --gen maverick " + t);
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_TRUE(has(r, "gen: the trace is for generation cayman but is being checked against maverick"))
        << r.out;
    EXPECT_TRUE(has(r, "records not checked against maverick (the trace is cayman's)")) << r.out;
    EXPECT_TRUE(has(r, "1 problem(s)")) << r.out;
    const Result all = run("check --gen maverick --lenient " + t);
    EXPECT_EQ(all.rc, 1) << all.out;
    EXPECT_TRUE(has(all, "which this generation does not have")) << all.out;
    EXPECT_FALSE(has(all, "records not checked")) << all.out;
}

TEST(CliCheck, Reports_every_problem_and_honours_max_errors) {
    const Result all = run("check " + data("many_errors.trc"));
    EXPECT_EQ(all.rc, 1);
    EXPECT_TRUE(has(all, "many_errors.trc:3: record:")) << all.out;
    EXPECT_TRUE(has(all, "many_errors.trc:4: cycle:")) << all.out;
    EXPECT_TRUE(has(all, "many_errors.trc:5: cycle:")) << all.out;
    const Result one = run("check " + data("many_errors.trc") + " --max-errors 1");
    EXPECT_EQ(one.rc, 1);
    EXPECT_TRUE(has(one, "stopped after 1 problems")) << one.out;
    EXPECT_FALSE(has(one, "many_errors.trc:4:")) << one.out;
    // The records read before it stopped are counted.
    EXPECT_TRUE(has(one, "1 trace(s), 1 records, 1 problem(s)")) << one.out;
}

TEST(CliCheck, Finds_the_semaphore_cycle_run_deadlocks_on) {
    const std::string path = sbufsim::test::write_temp("check_cycle.trc",
        "sbufsim-trace 1 gen=cayman\n"
        "act queue=qAct0 src=bf16@0x0[1][64] dst=bf16@0x1000[1][64] partitions=32 wait=1 signal=2\n"
        "dve queue=qDve0 src=bf16@0x2000[1][64] dst=bf16@0x3000[1][64] partitions=32 wait=2 signal=1\n");
    const Result c = run("check " + path + " --quiet");
    EXPECT_EQ(c.rc, 1);
    EXPECT_TRUE(has(c, "check_cycle.trc:2: wait: semaphore cycle between 2 queues")) << c.out;
    EXPECT_EQ(run("run " + path + " --quiet").rc, 3);  // what run refuses: a deadlock
}

TEST(CliCheck, Log_level_info_says_what_the_command_is_doing) {
    const Result quiet = run("check " + data("clean_crlf.trc") + " --quiet");
    EXPECT_FALSE(has(quiet, "[info]")) << quiet.out;
    const Result info = run("check " + data("clean_crlf.trc") + " --quiet --log-level info");
    EXPECT_TRUE(has(info, "[info] check: ")) << info.out;
    EXPECT_TRUE(has(info, "against generation")) << info.out;
    const Result debug = run("config --set tdm.dma_slots=2 --log-level debug");
    EXPECT_TRUE(has(debug, "[debug] configuration: override tdm.dma_slots = 2")) << debug.out;
}

TEST(CliCheck, Missing_file_and_usage) {
    EXPECT_EQ(run("check /nonexistent/x.trc").rc, 3);
    EXPECT_EQ(run("check").rc, 2);
    const Result h = run("check --help");
    EXPECT_EQ(h.rc, 0);
    EXPECT_TRUE(has(h, "examples:"));
}

TEST(CliConvert, Text_binary_text_round_trip_through_the_binary) {
    const std::string dir = sbufsim::test::temp("convert_round_trip");
    std::filesystem::create_directory(dir);
    ASSERT_EQ(run("convert " + data("clean_crlf.trc") + " " + dir + "/a.sbt").rc, 0);
    ASSERT_EQ(run("convert " + dir + "/a.sbt " + dir + "/b.trc").rc, 0);
    ASSERT_EQ(run("convert " + dir + "/b.trc " + dir + "/c.sbt").rc, 0);
    ASSERT_EQ(run("convert " + dir + "/c.sbt " + dir + "/d.trc").rc, 0);
    EXPECT_EQ(slurp(dir + "/a.sbt"), slurp(dir + "/c.sbt"));
    EXPECT_EQ(slurp(dir + "/b.trc"), slurp(dir + "/d.trc"));
    const std::string b = slurp(dir + "/b.trc");
    EXPECT_EQ(b.rfind("# written by sbufsim convert; ", 0), 0u) << b;
    EXPECT_EQ(b.find("\nsbufsim-trace 1 gen=cayman\n0 pe_client_0 rd 0x5600 32 512\n"), b.find('\n')) << b;
    EXPECT_EQ(run("check " + dir + "/a.sbt").rc, 0);
    ASSERT_EQ(run("convert " + data("clean_crlf.trc") + " " + dir + "/e.bin --to binary").rc, 0);
    EXPECT_EQ(slurp(dir + "/e.bin"), slurp(dir + "/a.sbt"));
}

TEST(CliConvert, Malformed_input_exits_3_and_leaves_no_output) {
    const std::string out = sbufsim::test::temp("bad.sbt");
    const Result r = run("convert " + data("many_errors.trc") + " " + out);
    EXPECT_EQ(r.rc, 3) << r.out;
    EXPECT_TRUE(has(r, "many_errors.trc:3: record:")) << r.out;
    EXPECT_FALSE(std::ifstream(out).good());
    EXPECT_EQ(run("convert only_one").rc, 2);
}

// A binary trace ends with a checksum of its bytes: every single flipped bit of a record or the
// header is found (59 of 1,500 read as valid, other traces, before), and a file written before the
// checksum (header flag bit 1 clear, the end record's bytes 16-23 zero) still reads.
TEST(CliConvert, Binary_traces_carry_a_checksum_and_old_files_still_read) {
    const std::string sbt = sbufsim::test::temp("checksum.sbt");
    ASSERT_EQ(run("convert " + sbufsim::test::shipped("dma_vs_compute.trc") + " " + sbt).rc, 0);
    const std::string good = slurp(sbt);
    ASSERT_GT(good.size(), 64u + 24u);
    const auto reads_clean = [](const std::string& bytes) {
        std::istringstream in(bytes);
        try {
            sbufsim::TraceReader r(in, "t.sbt");
            sbufsim::Record rec;
            sbufsim::TraceError err;
            for (;;) {
                const sbufsim::ReadStatus s = r.read(rec, err);
                if (s == sbufsim::ReadStatus::end) return true;
                if (s == sbufsim::ReadStatus::error) return false;
            }
        } catch (const sbufsim::TraceFormatError&) {
            return false;
        }
    };
    ASSERT_TRUE(reads_clean(good));
    std::size_t valid = 0, tried = 0;
    const std::size_t end_record = good.size() - 24;
    for (std::size_t byte = 0; byte < end_record; byte += 3)
        for (int bit = 0; bit < 8; bit += 3) {
            std::string flipped = good;
            flipped[byte] = static_cast<char>(flipped[byte] ^ (1 << bit));
            ++tried;
            valid += reads_clean(flipped);
        }
    EXPECT_GT(tried, 500u);
    EXPECT_EQ(valid, 0u) << "of " << tried << " single bit flips";
    // As written before the checksum: flag bit 1 clear, no checksum in the end record.
    std::string old = good;
    old[48] = static_cast<char>(old[48] & ~2);
    std::fill(old.end() - 8, old.end(), '\0');
    EXPECT_TRUE(reads_clean(old));
    std::string tampered = old;
    tampered[good.size() - 3] = 1;  // a stray byte where an old file has zeros
    EXPECT_FALSE(reads_clean(tampered));
}
