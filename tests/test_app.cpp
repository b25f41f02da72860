// The application layer's requests called directly, as a front end other than the command line
// calls them: their results, exit statuses and messages (sbufsim/app/).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sbufsim/app/check.h"
#include "sbufsim/app/generate.h"
#include "sbufsim/app/run.h"
#include "sbufsim/app/sweep.h"
#include "sbufsim/replay/replay.h"
#include "shipped.h"
#include "temp_files.h"

namespace sbufsim::app {
namespace {

using test::shipped;

CheckRequest check_of(const std::string& trace) {
    CheckRequest r;
    r.traces = {trace};
    return r;
}

TEST(App, A_run_request_reports_each_trace_as_the_replay_does) {
    RunRequest r;
    r.traces = {shipped("dma_load.trc"), shipped("matmul_kloop.trc")};
    std::ostringstream out, err;
    const RunResult result = run_traces(r, Io{out, err});
    ASSERT_EQ(result.status, kExitOk) << err.str();
    ASSERT_EQ(result.runs.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        TraceReader reader(r.traces[i]);
        const ReplayResult direct = replay(trace_config(LoadRequest{}, reader).params, reader, {});
        EXPECT_EQ(result.runs[i].result.total_cycles, direct.total_cycles) << r.traces[i];
        EXPECT_EQ(result.runs[i].info.scheduler, "fast");
        EXPECT_EQ(result.runs[i].info.trace_digest.size(), 16u);
    }
    // The summary on `out`: one table, a row per trace and the total.
    EXPECT_NE(out.str().find(r.traces[0] + " "), std::string::npos) << out.str();
    EXPECT_NE(out.str().find(r.traces[1] + " "), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("total (2 runs)"), std::string::npos) << out.str();
}

TEST(App, A_run_request_with_a_document_on_out_moves_the_summary_to_err) {
    RunRequest r;
    r.traces = {shipped("dma_load.trc")};
    r.json = "-";
    std::ostringstream out, err;
    ASSERT_EQ(run_traces(r, Io{out, err}).status, kExitOk) << err.str();
    EXPECT_EQ(out.str().rfind("{", 0), 0u) << out.str().substr(0, 80);
    EXPECT_NE(err.str().find("trace " + r.traces[0]), std::string::npos);
}

TEST(App, A_run_request_is_refused_before_any_work_with_the_reason) {
    RunRequest r;
    r.traces = {shipped("dma_load.trc")};
    r.json = r.csv = "-";
    std::ostringstream out, err;
    const RunResult result = run_traces(r, Io{out, err});
    EXPECT_EQ(result.status, kExitUsage);
    EXPECT_TRUE(result.runs.empty());
    EXPECT_NE(err.str().find("--json - and --csv - both ask for stdout"), std::string::npos) << err.str();
    EXPECT_EQ(out.str(), "");
    // A scheduler a front end mistyped, and --hierarchy with the fast scheduler asked for.
    RunRequest bad;
    bad.scheduler = "slow";
    std::ostringstream out2, err2;
    EXPECT_EQ(run_traces(bad, Io{out2, err2}).status, kExitUsage);
    EXPECT_NE(err2.str().find("unknown scheduler 'slow'"), std::string::npos) << err2.str();
    bad.scheduler = "fast";
    bad.scheduler_given = bad.hierarchy = true;
    std::ostringstream out3, err3;
    EXPECT_EQ(run_traces(bad, Io{out3, err3}).status, kExitUsage);
    EXPECT_NE(err3.str().find("--hierarchy lists the clocked scheduler's modules"), std::string::npos);
    // The clocked scheduler is the front end's to hand over: without it, said, not a crash.
    RunRequest clocked;
    clocked.traces = {shipped("dma_load.trc")};
    clocked.scheduler = "clocked";
    EXPECT_THROW(run_traces(clocked, Io{out3, err3}), ConfigError);
}

TEST(App, A_run_recorded_in_json_is_read_back_for_run_from) {
    RunRequest r;
    r.traces = {shipped("dma_load.trc")};
    r.config.overrides.push_back(Setting{"tdm.dma_slots", "2", Origin{}, ""});
    r.json = test::temp("app_run.json");
    r.quiet = true;
    std::ostringstream out, err;
    ASSERT_EQ(run_traces(r, Io{out, err}).status, kExitOk) << err.str();
    const RecordedRuns recorded = read_recorded_runs(r.json, err);
    ASSERT_EQ(recorded.status, kExitOk) << err.str();
    EXPECT_EQ(recorded.traces, r.traces);
    EXPECT_EQ(recorded.generations, std::vector<std::string>{"cayman"});
    EXPECT_EQ(recorded.scheduler, "fast");
    EXPECT_NE(std::find(recorded.settings.begin(), recorded.settings.end(),
                        std::pair<std::string, std::string>{"tdm.dma_slots", "2"}),
              recorded.settings.end());
    std::ostringstream err2;
    EXPECT_EQ(read_recorded_runs(shipped("dma_load.trc"), err2).status, kExitUsage);
    EXPECT_NE(err2.str().find("not a result file"), std::string::npos) << err2.str();
}

TEST(App, A_generated_trace_passes_the_check_request_and_a_bad_one_does_not) {
    GenerateRequest g;
    g.workload = "gemm";
    g.gemm = GemmShape{128, 128, 256, "gemm"};
    g.output = test::temp("app_gemm.trc");
    std::ostringstream out, err;
    ASSERT_EQ(generate(g, Io{out, err}), kExitOk) << err.str();
    EXPECT_NE(out.str().find("sbufsim gen gemm: "), std::string::npos) << out.str();
    std::ostringstream cout_, cerr_;
    EXPECT_EQ(check_traces(check_of(g.output), Io{cout_, cerr_}), kExitOk) << cout_.str();

    const std::string bad =
        test::write_temp("app_bad.trc", "sbufsim-trace 1\n0 pe_client_9 rd 0x5600 32 512\n");
    std::ostringstream bout, berr;
    EXPECT_EQ(check_traces(check_of(bad), Io{bout, berr}), kExitFindings);
    EXPECT_NE(bout.str().find(bad + ":2: client: unknown client 'pe_client_9'"), std::string::npos)
        << bout.str();
}

TEST(App, A_sweep_request_is_checked_before_any_point_runs) {
    SweepRequest s;
    s.traces = {shipped("dma_load.trc")};
    s.vary = {"tdm.dma_slots=0:2"};
    s.options_only = true;
    std::ostringstream out, err;
    EXPECT_EQ(run_sweep(s, Io{out, err}).status, kExitOk) << err.str();
    s.jobs = 0;
    EXPECT_THROW(run_sweep(s, Io{out, err}), ConfigError);
    s.jobs.reset();
    s.vary = {"block_n=1,2"};  // a tiling is a trace of its own
    try {
        run_sweep(s, Io{out, err});
        ADD_FAILURE() << "a --vary of a gen option was taken";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("is an option of sbufsim gen (--block-n)"), std::string::npos)
            << e.what();
    }
    EXPECT_TRUE(is_workload_option("block-n"));
    EXPECT_TRUE(is_workload_option("seq"));
    EXPECT_FALSE(is_workload_option("tdm.dma_slots"));
}

}  // namespace
}  // namespace sbufsim::app
