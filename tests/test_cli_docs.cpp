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
    std::string verdict;                // "bound by DMA: 86.1 % (compute 85.2 %, latency 0.9 %)"
    std::vector<std::string> figures;   // "MFU 67.3 %", "DMA bandwidth 38.6 %"
};

std::vector<Row> workload_rows() {
    const std::string doc = slurp(std::string(SBUFSIM_SOURCE_DIR) + "/docs/report.md");
    const std::regex row(R"(\| `gen ([^`]+)` \| ([^;|]+); ([^|]+) \|)");
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

TEST(Docs, The_report_pages_workload_table_is_what_run_prints) {
    const auto rows = workload_rows();
    ASSERT_EQ(rows.size(), 3u) << "docs/report.md: the table of generated workloads changed shape";
    const std::string trace = sbufsim::test::temp("docs_workload.sbt");
    for (const auto& r : rows) {
        SCOPED_TRACE(r.gen_args.front() + " " + r.verdict);
        std::vector<std::string> gen = {"gen"};
        gen.insert(gen.end(), r.gen_args.begin(), r.gen_args.end());
        gen.insert(gen.end(), {"-o", trace, "--force"});
        ASSERT_EQ(sbufsim(gen).rc, 0);
        const auto run = sbufsim({"run", trace});
        ASSERT_EQ(run.rc, 0) << run.err;
        // "bound by DMA: 86.1 % (compute ...)" is printed "bound by DMA: 86.1 % of the critical path (compute ...)".
        std::string printed = r.verdict;
        printed.insert(printed.find(" ("), " of the critical path");
        EXPECT_NE(run.out.find(printed + "\n"), std::string::npos) << run.out.substr(0, 600);
        const auto at = run.out.find("\nutilisation: ");
        ASSERT_NE(at, std::string::npos);
        const std::string utilisation = run.out.substr(at, run.out.find('\n', at + 1) - at);
        for (const auto& f : r.figures)
            EXPECT_NE(utilisation.find(" " + f), std::string::npos) << f << " in" << utilisation;
    }
}

}  // namespace
