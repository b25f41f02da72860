// The parts of a sweep (sbufsim/app/sweep.h), private to the app area: the worker pool, the table
// and its journal, the summary.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sbufsim/app/sweep.h"
#include "sbufsim/output/output_file.h"

namespace sbufsim::app::sweep_parts {

using sweep::Job;
using sweep::Row;

// The request with what its checks resolved.
struct Plan : SweepRequest {
    std::vector<sweep::Metric> rank_metrics;  // --rank-by's, in order: the later break ties
    unsigned workers = 1;
};

// The varied keys sit between `trace` and the first metric column (always total_cycles).
std::size_t axis_count(const std::vector<std::string>& cols);
// "trace key=value ..." for log lines and the list of failed points.
std::string describe(const std::vector<std::string>& cols, const Row& row);

// ---- the worker pool (sweep_pool.cpp) ----
// Runs `tasks` on up to `jobs` children at once; `done(task, row)` is called in completion order.
void run_pool(const LoadRequest& base, const std::vector<const Job*>& tasks, unsigned jobs,
              const std::vector<std::string>& cols, double timeout,
              const std::function<void(std::size_t, Row)>& done);
bool write_all(int fd, const std::string& s);

// ---- the table (sweep_table.cpp) ----
// The rows journal: --out opened for appending and locked, so that two sweeps never write one
// table (the second refuses) and a sweep killed midway leaves every finished row behind.
class Journal {
public:
    explicit Journal(const std::string& path);
    ~Journal();
    Journal(const Journal&) = delete;
    Journal& operator=(const Journal&) = delete;
    // Appends; the first failure is kept (the final rewrite reports it).
    void write(const std::string& text);
    // Throws OutputError(io) when an append failed.
    void check() const;

private:
    std::string path_;
    int fd_ = -1;
    int error_ = 0;
};
// The final table, in table order: written beside --out and renamed over it (OutputFile), so an
// interruption while rewriting cannot lose the rows.
void write_csv_file(OutputFile& file, const std::vector<std::string>& cols, const std::vector<Row>& rows,
                    bool header);
// A file this sweep may resume and rewrite: a CSV whose first line is a header or a row.
std::function<bool(std::string_view)> sweep_table_kind(std::size_t ncols);
bool ends_with_newline(const std::string& path);
// --json names another sweep's JSON (rows of other columns): refused (OutputError).
void refuse_other_sweep_json(const std::string& path, const std::vector<std::string>& cols);
// The digest of a row's trace that cannot be read now, followed by why.
inline constexpr std::string_view kUnreadableTrace = "unreadable: ";
// A trace's base digest (sweep::base_digest, or why it cannot be read now), memoised.
using DigestOf = std::function<const std::string&(const std::string&)>;
// Rows of --out from another base configuration or trace version: refused unless --force, else
// dropped (said on err).
void drop_stale_rows(std::vector<Row>& existing, const Plan& o, const std::vector<std::string>& cols,
                     const std::vector<Job>& jobs, std::pair<std::size_t, std::size_t> range,
                     std::size_t axes, const DigestOf& digest_of, std::ostream& err);
// The table to write: this sweep's rows and the rows of other points an earlier sweep left in
// --out (`earlier` of them), merged in point order; `own`: this sweep's rows in point order (the
// JSON, and whether every one is ok decides the exit status).
struct Assembled {
    std::vector<Row> rows, own;
    std::size_t earlier = 0;
};
Assembled assemble(const std::vector<Job>& jobs, std::pair<std::size_t, std::size_t> range,
                   std::map<std::string, Row>& have, std::size_t axes, const std::vector<Row>& existing);

// ---- the summary (sweep_summary.cpp) ----
// How the rows came about: points run now, points found already in --out, rows of other points
// an earlier sweep left there.
struct RowCounts {
    std::size_t ran = 0, kept = 0, earlier = 0;
};
void print_summary(std::ostream& os, const Plan& o, const std::vector<std::string>& cols,
                   const std::vector<Row>& rows, RowCounts counts, double seconds);
void warn_empty_metrics(const Plan& o, const std::vector<std::string>& cols, const std::vector<Row>& rows,
                        std::ostream& err);
void warn_skipped_records(const std::vector<std::string>& cols, const std::vector<Row>& rows,
                          const char* column, std::ostream& err);

}  // namespace sbufsim::app::sweep_parts
