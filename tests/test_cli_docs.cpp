// Figures the docs quote from a run are the figures the tool prints: each row of
// docs/report.md's table of generated workloads is generated and replayed here.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli_harness.h"
#include "temp_files.h"

namespace {

using sbufsim::test::sbufsim;
using sbufsim::test::slurp;

struct Row {
    std::vector<std::string> gen_args;  // after "gen"
    std::string verdict;                // the verdict line as run prints it
    std::vector<std::string> figures;   // "MFU 67.3 %", "DMA engines 38.6 %"
};

std::vector<Row> workload_rows() {
    const std::string doc = slurp(std::string(SBUFSIM_SOURCE_DIR) + "/docs/report.md");
    const std::regex row(R"(\| `gen ([^`]+)` \| ([^|]+) \| ([^|]+) \| [^|]+ \|)");
    std::vector<Row> rows;
    for (auto it = std::sregex_iterator(doc.begin(), doc.end(), row); it != std::sregex_iterator(); ++it) {
        Row r;
        std::istringstream args((*it)[1].str());
        for (std::string a; args >> a;) r.gen_args.push_back(a);
        r.verdict = (*it)[2].str();
        std::istringstream figures((*it)[3].str());
        for (std::string f; std::getline(figures, f, ',');) {
            f.erase(0, f.find_first_not_of(' '));
            f.erase(f.find_last_not_of(' ') + 1);
            r.figures.push_back(f);
        }
        rows.push_back(r);
    }
    return rows;
}

// The one-screen summary with its wrapped lines joined: a figure split at the screen's width
// still reads as one.
std::string unwrapped(const std::string& text) { return std::regex_replace(text, std::regex("\n  +"), " "); }

TEST(Docs, The_report_pages_workload_table_is_what_run_prints) {
    const auto rows = workload_rows();
    ASSERT_EQ(rows.size(), 4u) << "docs/report.md: the table of generated workloads changed shape";
    const std::string trace = sbufsim::test::temp("docs_workload.sbt");
    for (const auto& r : rows) {
        SCOPED_TRACE(r.gen_args.front() + " " + r.verdict);
        std::vector<std::string> gen = {"gen"};
        gen.insert(gen.end(), r.gen_args.begin(), r.gen_args.end());
        gen.insert(gen.end(), {"-o", trace, "--force"});
        ASSERT_EQ(sbufsim(gen).rc, 0);
        const auto run = sbufsim({"run", trace});
        ASSERT_EQ(run.rc, 0) << run.err;
        const std::string out = unwrapped(run.out);
        EXPECT_NE(out.find("\n" + r.verdict + "\n"), std::string::npos) << out.substr(0, 600);
        const auto at = out.find("\nutilisation: ");
        ASSERT_NE(at, std::string::npos);
        const std::string utilisation = out.substr(at, out.find('\n', at + 1) - at);
        for (const auto& f : r.figures)
            EXPECT_NE(utilisation.find(" " + f), std::string::npos) << f << " in" << utilisation;
    }
}

// The README's first example is what `sbufsim run` prints, line for line (the shipped trace's
// folder aside, which depends on where it is installed).
TEST(Docs, The_readmes_example_is_what_run_prints) {
    const std::string readme = slurp(std::string(SBUFSIM_SOURCE_DIR) + "/README.md");
    const auto start = readme.find("```\ntrace traces/matmul_kloop.trc");
    ASSERT_NE(start, std::string::npos) << "README.md: the example of `sbufsim run` is gone";
    const std::string example = readme.substr(start + 4, readme.find("```", start + 4) - start - 4);
    const auto run = sbufsim({"run"});
    ASSERT_EQ(run.rc, 0) << run.err;
    EXPECT_EQ(std::regex_replace(run.out, std::regex("^trace [^ ]*/traces/"), "trace traces/"), example);
}

}  // namespace
