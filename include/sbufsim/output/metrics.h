// The metric registry: every statistic of a run declared once, with its unit, description and
// which direction is better, and how to read it from the run. The registry is the single source
// of the JSON and CSV reports (write_json / write_csv), the gem5-style stats text (write_stats),
// sweep columns, `sweep --rank-by` / `--metric` and `run --list-metrics`: adding a statistic is one
// declaration in metrics.cpp.
//
// Statistics sit in sections, as the JSON groups them. A section is either one record ("run",
// "bottleneck", "pe", "psum", "dma", "stalls") or a family with one record per engine, client, bank,
// ... ("engine", "client", "critical_path", ...). A statistic's registered name is its report
// path, section.field or section.<item>.field, unless its declaration gives a shorter one
// (total_cycles for run.total_cycles, engine.<engine>.busy_fraction for engine.<engine>.busy_share):
//
//   engine.<engine>.busy_fraction      <engine>: arr_seq (or pe), act, pool, dve, dma_K, q7_K
//   client.<client>.stall_bank_conflict <client>: a kernel client (pe_client_0, act_wr, dma_3, ...)
//   critical_path.<group>.share        <group>: PE, ACT, POOL, DVE, DMA, Q7, kernel
//
// A few statistics are derived for sweeps only (the per-class bank-conflict sums, the worst p99,
// Jain's index, per-client p99 and win rate) and are not written to the report.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sbufsim/output/report.h"

namespace sbufsim {

enum class Better : std::uint8_t { lower, higher, none };
const char* to_string(Better b);

struct MetricInfo {
    std::string name;         // concrete ("engine.act.busy_fraction") or a family pattern
    std::string unit;         // "cycles", "beat-cycles", "fraction", "GB/s", "B", "ns", "" (text)
    std::string description;
    Better better = Better::lower;
    // Where the report writes it ("engine.<engine>.busy_share"); "" for a sweep-only metric.
    std::string report_path;
};

// One value of a run: a count, a real or a text.
struct MetricValue {
    enum class Kind : std::uint8_t { count, real, text };
    Kind kind = Kind::count;
    std::uint64_t count = 0;
    double real = 0;
    std::string text;
    // Counts exact, reals by format_number (types/number.h), texts as they are.
    std::string str() const;
};

// One statistic of one run as the report writes it: JSON `section: {name: {metric: value}}`
// (no name level for a one-record section), one CSV row, one stats-text line.
struct ReportRow {
    std::string section, name, metric;
    MetricValue value;
    const MetricInfo* info = nullptr;  // the declaration (unit, description); null for window rows
};

// Every declared metric: one-record sections first, then the families (names with <engine>,
// <client>, ...), in report order.
const std::vector<MetricInfo>& metric_registry();
// A concrete metric name resolved against the registry (families by their section and last
// component); nothing when it names no metric.
std::optional<MetricInfo> find_metric_info(std::string_view name);
// " (did you mean 'x'?)" among the registered names, "" when none is close.
std::string metric_suggestion(std::string_view name);
// The metric's value for a finished run, as a sweep cell shows it; "" when the run has no such
// engine, client or bank, or the metric needs what only `sbufsim run` records (version, digests).
std::string metric_value(std::string_view name, const ReplayResult& r);
// Several at once (the run's analysis is made once).
std::vector<std::string> metric_values(const std::vector<std::string>& names, const ReplayResult& r);
// The same as values (nothing where metric_values gives ""), for a writer that formats them itself.
std::vector<std::optional<MetricValue>> metric_typed_values(const std::vector<std::string>& names, const ReplayResult& r);

// Every statistic of a run in report order, then its --window-stats rows: the single source of
// the JSON groups, the CSV rows and the stats text, so they cannot drift apart.
std::vector<ReportRow> report_rows(const RunReport& rep);

// Client classes of the per-class bank-conflict metrics (by client name and region):
//   pe: pe_client_* (stage-1 PE-array reads)   act: act_rd act_wr   pool: pool_rd pool_wr
//   dve: dve_rd dve_wr   dma: dma_*   q7: q7_*   psum: every PSUM-region port (pe_wr, *_psum_*)
inline constexpr std::size_t kClientClasses = 7;
extern const char* const kClientClassNames[kClientClasses];
std::size_t client_class(const ClientStats& c);

}  // namespace sbufsim
