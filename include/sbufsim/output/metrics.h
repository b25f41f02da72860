// The metric registry: every statistic a sweep column, `sweep --rank-by` / `--metric` and
// `run --list-metrics` can name, declared once with its unit, description and which direction is
// better. Run-level metrics have fixed names; per-engine, per-client and per-critical-path-group
// metrics are families whose names hold the engine, client or group:
//
//   engine.<engine>.busy_fraction      <engine>: arr_seq (or pe), act, pool, dve, dma_K, q7_K
//   client.<client>.stall_bank_conflict <client>: a kernel client (pe_client_0, act_wr, dma_3, ...)
//   critical_path.<group>.share        <group>: PE, ACT, POOL, DVE, DMA, Q7, kernel
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sbufsim/replay/replay.h"

namespace sbufsim {

enum class Better : std::uint8_t { lower, higher, none };
const char* to_string(Better b);

struct MetricInfo {
    std::string name;         // concrete ("engine.act.busy_fraction") or a family pattern
    std::string unit;         // "cycles", "beat-cycles", "fraction", "GB/s", "B", "ns", "" (text)
    std::string description;
    Better better = Better::lower;
};

// Every declared metric: the run-level ones, then the families (names with <engine>, <client>,
// <group>), in documentation order.
const std::vector<MetricInfo>& metric_registry();
// A concrete metric name resolved against the registry (families by their prefix and last
// component); nothing when it names no metric.
std::optional<MetricInfo> find_metric_info(std::string_view name);
// " (did you mean 'x'?)" among the registered names, "" when none is close.
std::string metric_suggestion(std::string_view name);
// The metric's value for a finished run, as a sweep cell shows it (integers exact, reals with 10
// significant digits); "" when the run has no such engine, client or path group.
std::string metric_value(std::string_view name, const ReplayResult& r);
// Several at once (the run's analysis is made once).
std::vector<std::string> metric_values(const std::vector<std::string>& names, const ReplayResult& r);
// Reals as the metrics print them.
std::string format_metric_real(double v);

// Client classes of the per-class bank-conflict metrics (by client name and region):
//   pe: pe_client_* (stage-1 PE-array reads)   act: act_rd act_wr   pool: pool_rd pool_wr
//   dve: dve_rd dve_wr   dma: dma_*   q7: q7_*   psum: every PSUM-region port (pe_wr, *_psum_*)
inline constexpr std::size_t kClientClasses = 7;
extern const char* const kClientClassNames[kClientClasses];
std::size_t client_class(const ClientStats& c);

}  // namespace sbufsim
