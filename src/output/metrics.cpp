#include "sbufsim/output/metrics.h"

#include <algorithm>
#include <functional>

#include "sbufsim/engines/dma_trigger.h"
#include "sbufsim/output/bottleneck.h"
#include "sbufsim/output/line_profile.h"
#include "sbufsim/types/near_miss.h"
#include "sbufsim/types/number.h"

namespace sbufsim {

const char* to_string(Better b) {
    switch (b) {
        case Better::lower: return "lower";
        case Better::higher: return "higher";
        case Better::none: return "none";
    }
    return "?";
}

std::string MetricValue::str() const {
    switch (kind) {
        case Kind::count: return std::to_string(count);
        case Kind::real: return format_number(real);
        case Kind::text: return text;
    }
    return "";
}

const char* const kClientClassNames[kClientClasses] = {"pe", "act", "pool", "dve", "dma", "q7", "psum"};

std::size_t client_class(const ClientStats& c) {
    if (c.region == Region::psum) return 6;
    const std::string_view n = c.name;
    if (n.starts_with("pe_client_") || n == "pe_rd") return 0;
    if (n.starts_with("act_")) return 1;
    if (n.starts_with("pool_")) return 2;
    if (n.starts_with("dve_")) return 3;
    if (n.starts_with("dma_")) return 4;
    if (n.starts_with("q7_")) return 5;
    return 0;  // no other SBUF port exists (clients.h); count any newcomer with the PE array
}

namespace {

// A run and what is derived from it, made once for all the statistics asked of it.
struct Context {
    const ReplayResult& r;
    const RunInfo* info;          // null for a sweep cell: no version, digests or settings
    const WindowSeries* windows;  // null: no --window-stats
    Bottleneck b;
    std::vector<const EngineStats*> engine_stats;  // parallel to b.engines
    LineProfile lines;                             // empty: the trace had no source locations

    Context(const ReplayResult& run, const RunInfo* i, const WindowSeries* w)
        : r(run), info(i), windows(w), b(analyse(run)), lines(line_profile(run)) {
        for (const EngineBreakdown& e : b.engines)
            engine_stats.push_back(&*std::find_if(r.engines.begin(), r.engines.end(),
                                                  [&](const EngineStats& x) { return x.name == e.name; }));
    }
};

using Value = std::optional<MetricValue>;  // nothing: the run has no such value (not written)

Value count(std::uint64_t v) {
    MetricValue m;
    m.count = v;
    return m;
}
Value real(double v) {
    MetricValue m;
    m.kind = MetricValue::Kind::real;
    m.real = v;
    return m;
}
Value text(std::string v) {
    MetricValue m;
    m.kind = MetricValue::Kind::text;
    m.text = std::move(v);
    return m;
}
double frac(std::uint64_t part, std::uint64_t whole) {
    return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

using Getter = std::function<Value(const Context&, std::size_t item)>;

// One statistic. Its registered name is the report path unless `name` gives another: the whole
// name in a one-record section, the last component in a family.
struct Stat {
    std::string field;  // the metric's key in the JSON group and the CSV `metric` column
    std::string unit;
    std::string description;
    Better better;
    Getter get;
    std::string name = {};
    bool reported = true;  // false: derived for sweeps, not written to the report
    MetricInfo info = {};  // filled when the table is built
};

struct Item {
    std::string name;
    std::size_t index;  // into the vector the section's getters read
};

struct Section {
    std::string name;
    std::string placeholder;  // "" for a one-record section; "<engine>" for the engine family
    // The records the report writes, in order.
    std::function<std::vector<Item>(const Context&)> items;
    // A record by name for a metric; unset: one of `items`.
    std::function<std::optional<std::size_t>(const Context&, std::string_view)> find;
    std::vector<Stat> stats;
};

// Stat helpers: the getters of most statistics read one integer or real.
template <class F>
Stat c_(std::string field, std::string unit, std::string description, Better better, F f, std::string name = {}) {
    return {std::move(field), std::move(unit), std::move(description), better,
            [f](const Context& c, std::size_t i) { return count(f(c, i)); }, std::move(name)};
}
template <class F>
Stat r_(std::string field, std::string unit, std::string description, Better better, F f, std::string name = {}) {
    return {std::move(field), std::move(unit), std::move(description), better,
            [f](const Context& c, std::size_t i) { return real(f(c, i)); }, std::move(name)};
}
template <class F>
Stat t_(std::string field, std::string description, F f, std::string name = {}) {
    return {std::move(field), "", std::move(description), Better::none,
            [f](const Context& c, std::size_t i) -> Value {
                std::optional<std::string> s = f(c, i);
                return s ? text(std::move(*s)) : std::nullopt;
            },
            std::move(name)};
}
Stat derived(Stat s) {
    s.reported = false;
    return s;
}

// Worst p99 over the clients that completed requests; the first such client wins a tie so the
// name is deterministic.
std::pair<std::uint64_t, std::string> worst_p99(const Stats& k) {
    std::uint64_t worst = 0;
    std::string who;
    for (const auto& c : k.clients) {
        if (!c.completed) continue;
        const std::uint64_t p = c.latency.percentile(0.99);
        if (who.empty() || p > worst) worst = p, who = c.name;
    }
    return {worst, who};
}

std::uint64_t class_conflicts(const Stats& k, std::size_t cls) {
    std::uint64_t n = 0;
    for (const auto& c : k.clients)
        if (client_class(c) == cls) n += c.stalls[static_cast<std::size_t>(StallCause::bank_conflict)];
    return n;
}

std::vector<Item> numbered(std::size_t n, const std::string& prefix, std::size_t first,
                           const std::function<bool(std::size_t)>& keep = {}) {
    std::vector<Item> v;
    for (std::size_t i = 0; i < n; ++i)
        if (!keep || keep(i)) v.push_back({prefix + std::to_string(i + first), i});
    return v;
}

template <class V, class Name>
std::optional<std::size_t> by_name(const V& v, std::string_view who, Name name) {
    for (std::size_t i = 0; i < v.size(); ++i)
        if (name(v[i]) == who) return i;
    return std::nullopt;
}

const PathGroup& path_group(const Context& c, std::size_t i) {
    static const PathGroup none{};
    return i < c.b.path.size() ? c.b.path[i] : none;  // a group not on the path: all zero
}

const ArrSeqStats& pe(const Context& c) { return c.r.arr_seq; }
const Stats& kernel(const Context& c) { return c.r.kernel; }

// ---- the declarations, in report order -----------------------------------------------------------

Section run_section() {
    auto info = [](auto f) {
        return [f](const Context& c, std::size_t) -> std::optional<std::string> {
            if (!c.info) return std::nullopt;
            return f(*c.info);
        };
    };
    return {
        "run",
        "",
        {},
        {},
        {t_("generation", "the Trainium/Inferentia generation whose configuration ran",
            [](const Context& c, std::size_t) { return std::optional<std::string>(c.r.generation); }),
         t_("scheduler", "fast (event-driven) or clocked (SystemC, every cycle)",
            info([](const RunInfo& i) { return i.scheduler; })),
         t_("version", "the sbufsim version that ran", info([](const RunInfo& i) { return i.version; })),
         t_("config_hash", "FNV-1a 64 of the effective configuration",
            info([](const RunInfo& i) { return i.config_hash; })),
         t_("trace_digest", "FNV-1a 64 of the trace file's bytes",
            info([](const RunInfo& i) { return i.trace_digest; })),
         {"lenient", "flag", "1: invalid records were skipped (--lenient)", Better::none,
          [](const Context& c, std::size_t) -> Value {
              return c.info ? count(c.info->lenient ? 1 : 0) : std::nullopt;
          }},
         c_(
             "total_cycles", "cycles", "cycles until the last access or instruction completed", Better::lower,
             [](const Context& c, std::size_t) { return c.r.total_cycles; }, "total_cycles"),
         r_(
             "time_ns", "ns", "total_cycles at the PE clock", Better::lower,
             [](const Context& c, std::size_t) { return c.r.time_ns(); }, "time_ns"),
         r_("pe_clock_ghz", "GHz", "the PE clock", Better::none,
            [](const Context& c, std::size_t) { return c.r.pe_clock_ghz; }),
         c_("records", "count", "trace records read (skipped ones included)", Better::none,
            [](const Context& c, std::size_t) { return c.r.records; }),
         c_("access_records", "count", "access records replayed", Better::none,
            [](const Context& c, std::size_t) { return c.r.access_records; }),
         c_("instructions", "count", "instruction records replayed", Better::none,
            [](const Context& c, std::size_t) { return c.r.instructions; }),
         c_("skipped_records", "count", "invalid records skipped (--lenient)", Better::lower,
            [](const Context& c, std::size_t) { return c.r.skipped; }),
         c_("races", "count",
            "instruction pairs of different queues touching the same bytes, one writing, with no wait "
            "ordering them "
            "(sbufsim check lists them)",
            Better::lower, [](const Context& c, std::size_t) { return c.r.races; }),
         c_("kernel_cycles", "cycles", "cycles the bank kernel simulated (stepped or skipped)", Better::none,
            [](const Context& c, std::size_t) { return kernel(c).cycles; }),
         {"window_cycles", "cycles", "the --window-stats window width (only with --window-stats)",
          Better::none, [](const Context& c, std::size_t) -> Value {
              return c.windows && !c.windows->empty() ? count(c.windows->width) : std::nullopt;
          }}}};
}

Section config_section() {
    auto setting = [](auto f) {
        return [f](const Context& c, std::size_t i) { return std::optional<std::string>(f(c.info->settings[i])); };
    };
    return {"config", "<key>",
        [](const Context& c) {
            std::vector<Item> v;
            if (c.info)
                for (std::size_t i = 0; i < c.info->settings.size(); ++i) v.push_back({c.info->settings[i].key, i});
            return v;
        },
        {},
        {t_("value", "the key's effective value where it differs from the generation file's",
            setting([](const RunInfo::Setting& s) { return s.value; })),
         t_("from", "where that value came from (a --config file and line, or the command line)",
            setting([](const RunInfo::Setting& s) { return s.from; }))}};
}

Section bottleneck_section() {
    return {"bottleneck",
            "",
            {},
            {},
            {t_("verdict", "what bounded the run, in a sentence",
                [](const Context& c, std::size_t) { return std::optional<std::string>(c.b.verdict); }),
             t_(
                 "bound_by", "the engine group with the largest share of the critical path",
                 [](const Context& c, std::size_t) { return std::optional<std::string>(c.b.bound_by); },
                 "bound_by"),
             r_(
                 "bound_share", "fraction", "that group's share of the critical path", Better::none,
                 [](const Context& c, std::size_t) { return c.b.bound_share; }, "bound_share"),
             r_("gain_limit", "fraction",
                "the most relieving the bound group can gain: (total - floor_cycles) / total cycles",
                Better::none, [](const Context& c, std::size_t) { return c.b.gain_limit; }),
             t_("floor_engine", "the busiest engine outside the bound group, by its own compute cycles",
                [](const Context& c, std::size_t) { return std::optional<std::string>(c.b.floor_engine); }),
             c_("floor_cycles", "cycles",
                "that engine's compute cycles: a floor under the run whatever the bound group does",
                Better::none, [](const Context& c, std::size_t) { return c.b.floor_cycles; }),
             r_(
                 "pe_utilisation", "fraction", "PE-array streaming cycles / total cycles", Better::higher,
                 [](const Context& c, std::size_t) { return c.b.pe_utilisation; }, "pe_utilisation"),
             r_(
                 "mfu", "fraction", "matmul multiply-accumulates / (total cycles x pe.rows x pe.cols)",
                 Better::higher, [](const Context& c, std::size_t) { return c.b.mfu; }, "mfu"),
             r_(
                 "sbuf_bank_utilisation", "fraction", "busy SBUF bank-cycles / (SBUF banks x total cycles)",
                 Better::higher, [](const Context& c, std::size_t) { return c.b.sbuf_bank_utilisation; },
                 "sbuf_bank_utilisation"),
             r_(
                 "psum_bank_utilisation", "fraction", "busy PSUM bank-cycles / (PSUM banks x total cycles)",
                 Better::higher, [](const Context& c, std::size_t) { return c.b.psum_bank_utilisation; },
                 "psum_bank_utilisation"),
             r_(
                 "dma_bandwidth_utilisation", "fraction",
                 "achieved DMA bandwidth / (dma.engines x dma.engine_gbps)", Better::higher,
                 [](const Context& c, std::size_t) { return c.b.dma_bandwidth_utilisation; },
                 "dma_bandwidth_utilisation"),
             r_(
                 "hbm_bandwidth_utilisation", "fraction",
                 "achieved bandwidth of transfers with an HBM end / dma.hbm_gbps (0 when unlimited)",
                 Better::higher, [](const Context& c, std::size_t) { return c.b.hbm_bandwidth_utilisation; },
                 "hbm_bandwidth_utilisation"),
             c_("semaphore_edges", "count", "critical-path steps that waited for a semaphore", Better::none,
                [](const Context& c, std::size_t) { return c.r.critical_path.semaphore_edges; }),
             c_("queue_edges", "count", "critical-path steps that followed the engine's queue order",
                Better::none, [](const Context& c, std::size_t) { return c.r.critical_path.queue_edges; })}};
}

Section critical_path_section() {
    std::vector<Stat> s = {
        c_("cycles", "cycles", "critical-path cycles on the group's engines", Better::none,
           [](const Context& c, std::size_t i) { return path_group(c, i).total(); }),
        r_("share", "fraction", "the group's share of the critical path", Better::none,
           [](const Context& c, std::size_t i) { return frac(path_group(c, i).total(), c.r.total_cycles); })};
    for (std::size_t k = 0; k < kPathCauses; ++k) {
        const std::string cause = to_string(static_cast<PathCause>(k));
        s.push_back(c_(cause + "_cycles", "cycles", "critical-path cycles of the group spent in " + cause, Better::none,
                       [k](const Context& c, std::size_t i) { return path_group(c, i).cycles[k]; }));
    }
    s.push_back(c_("instructions", "count", "the group's instructions on the critical path", Better::none,
                   [](const Context& c, std::size_t i) { return path_group(c, i).instructions; }));
    return {"critical_path", "<group>",
            [](const Context& c) {
                std::vector<Item> v;
                for (std::size_t i = 0; i < c.b.path.size(); ++i) v.push_back({c.b.path[i].name, i});
                return v;
            },
            // Any group is a metric: one not on the path has zero cycles.
            [](const Context& c, std::string_view who) -> std::optional<std::size_t> {
                return by_name(c.b.path, who, [](const PathGroup& g) { return g.name; }).value_or(c.b.path.size());
            },
            std::move(s)};
}

// The per-line profile (line_profile.h): one record per kernel line, when the trace had locations.
Section line_section() {
    auto l = [](const Context& c, std::size_t i) -> const LineRow& { return c.lines.rows[i]; };
    std::vector<Stat> s = {
        t_("calls", "the nki calls (or generator steps) on the line",
           [l](const Context& c, std::size_t i) { return std::optional<std::string>(l(c, i).calls); }),
        c_("critical_cycles", "cycles",
           "critical-path cycles of the line's instructions (the lines add up to the run's cycles)",
           Better::none, [l](const Context& c, std::size_t i) { return l(c, i).c.critical; }),
        r_("critical_share", "fraction", "the line's share of the critical path", Better::none,
           [l](const Context& c, std::size_t i) { return l(c, i).critical_share; }),
        c_("instructions", "count", "instructions of the line completed", Better::none,
           [l](const Context& c, std::size_t i) { return l(c, i).c.instructions; }),
        c_("busy_cycles", "cycles",
           "engine cycles with one of the line's instructions in flight, over the engines", Better::none,
           [l](const Context& c, std::size_t i) { return l(c, i).busy(); })};
    for (std::size_t g = 0; g < kEngineGroups; ++g) {
        const std::string name = to_string(static_cast<EngineGroup>(g));
        s.push_back(c_("busy_" + name, "cycles",
                       "busy cycles of the " + name + " engines on the line's instructions", Better::none,
                       [l, g](const Context& c, std::size_t i) { return l(c, i).c.busy[g]; }));
    }
    for (std::size_t k = 0; k < kStallCauses; ++k)
        s.push_back(c_(std::string(to_string(static_cast<StallCause>(k))) + "_stalls", "beat-cycles",
                       std::string(to_string(static_cast<StallCause>(k))) +
                           " stalls of the kernel's clients, apportioned to the line by its bank wait on the "
                           "client's engine",
                       Better::lower, [l, k](const Context& c, std::size_t i) { return l(c, i).stalls[k]; }));
    s.push_back(c_("sem_wait_cycles", "cycles",
                   "cycles an engine was free while the line's instruction at its head waited a semaphore",
                   Better::none, [l](const Context& c, std::size_t i) { return l(c, i).c.sem_wait; }));
    s.push_back(c_("dma_bytes", "B", "bytes the line's DMA transfers moved", Better::none,
                   [l](const Context& c, std::size_t i) { return l(c, i).c.dma_bytes; }));
    s.push_back(r_("dma_gbps", "GB/s", "the line's DMA bytes over its DMA busy time", Better::higher,
                   [l](const Context& c, std::size_t i) { return l(c, i).dma_gbps; }));
    return {"line", "<line>",
            [](const Context& c) {
                std::vector<Item> v;
                for (std::size_t i = 0; i < c.lines.rows.size(); ++i) v.push_back({c.lines.rows[i].key, i});
                return v;
            },
            [](const Context& c, std::string_view who) {
                return by_name(c.lines.rows, who, [](const LineRow& r) { return r.key; });
            },
            std::move(s)};
}

Section finding_section() {
    return {"finding", "<fN>",
        [](const Context& c) { return numbered(c.b.findings.size(), "f", 1); },
        {},
        {c_("cycles", "cycles", "the cycles the finding is about (orders the findings)", Better::lower,
            [](const Context& c, std::size_t i) { return c.b.findings[i].cycles; }),
         t_("text", "what happened, with the number",
            [](const Context& c, std::size_t i) { return std::optional<std::string>(c.b.findings[i].text); }),
         t_("advice", "what to try", [](const Context& c, std::size_t i) { return std::optional<std::string>(c.b.findings[i].advice); })}};
}

Section engine_section() {
    auto s = [](const Context& c, std::size_t i) -> const EngineStats& { return *c.engine_stats[i]; };
    auto b = [](const Context& c, std::size_t i) -> const EngineBreakdown& { return c.b.engines[i]; };
    return {"engine", "<engine>",
        [](const Context& c) {
            std::vector<Item> v;
            for (std::size_t i = 0; i < c.b.engines.size(); ++i) v.push_back({c.b.engines[i].name, i});
            return v;
        },
        [](const Context& c, std::string_view who) {
            return by_name(c.b.engines, who == "pe" ? "arr_seq" : who, [](const EngineBreakdown& e) { return e.name; });
        },
        {c_("instructions", "count", "instructions completed", Better::none,
            [s](const Context& c, std::size_t i) { return s(c, i).instructions; }),
         c_("busy_cycles", "cycles", "cycles with an instruction in progress", Better::none,
            [s](const Context& c, std::size_t i) { return s(c, i).busy; }),
         r_("busy_share", "fraction", "cycles with an instruction in progress / total cycles", Better::higher,
            [s](const Context& c, std::size_t i) { return frac(s(c, i).busy, c.r.total_cycles); }, "busy_fraction"),
         c_("compute_cycles", "cycles", "an instruction in progress within its cost-model time", Better::none,
            [b](const Context& c, std::size_t i) { return b(c, i).compute; }),
         c_("bank_wait_cycles", "cycles", "an instruction held past its cost-model time by queued bank requests",
            Better::lower, [b](const Context& c, std::size_t i) { return b(c, i).bank_wait; }),
         c_("semaphore_wait_cycles", "cycles", "free, the next instruction waiting for a semaphore", Better::lower,
            [b](const Context& c, std::size_t i) { return b(c, i).sem_wait; }),
         c_("port_wait_cycles", "cycles", "free, the next instruction waiting for an NC-v2 shared port the other side held",
            Better::lower, [b](const Context& c, std::size_t i) { return b(c, i).port_wait; }),
         c_("idle_cycles", "cycles", "nothing to do (or a DMA descriptor in its start-up)", Better::none,
            [b](const Context& c, std::size_t i) { return b(c, i).idle; }),
         c_("bytes_read", "B", "SBUF/PSUM bytes its instructions read", Better::none,
            [s](const Context& c, std::size_t i) { return s(c, i).bytes_read; }),
         c_("bytes_written", "B", "SBUF/PSUM bytes its instructions wrote", Better::none,
            [s](const Context& c, std::size_t i) { return s(c, i).bytes_written; })}};
}

Section pe_section() {
    return {
        "pe",
        "",
        {},
        {},
        {r_("utilisation", "fraction", "PE-array streaming cycles / total cycles (as pe_utilisation)",
            Better::higher, [](const Context& c, std::size_t) { return c.r.pe_utilisation(); }),
         c_("stream_cycles", "cycles",
            "cycles the array streamed data (sum of initiation intervals; a PE tile counts its share of "
            "the array, a block streaming two things once)",
            Better::none, [](const Context& c, std::size_t) { return pe(c).pe_stream; }),
         c_("busy_cycles", "cycles",
            "array occupancy (streaming plus bank-stall extension; array-equivalent, as stream_cycles)",
            Better::none, [](const Context& c, std::size_t) { return pe(c).pe_busy; }),
         c_("ramp_cycles", "cycles",
            "cycles the TensorE throttle (pe.ramp_*) added to matmuls' initiation intervals: the "
            "array streams below its full rate for about pe.ramp_ns after an idle gap",
            Better::lower, [](const Context& c, std::size_t) { return pe(c).ramp_cycles; }),
         c_("ramp_engaged", "count",
            "times the TensorE throttle engaged: at the first matmul and at each after an idle gap of "
            "(1 - pe.ramp_reengage) x pe.ramp_window_ns",
            Better::lower, [](const Context& c, std::size_t) { return pe(c).ramp_engaged; }),
         c_("weight_wait_cycles", "cycles", "cycles a matmul at the head waited for its LdWeights to finish",
            Better::lower, [](const Context& c, std::size_t) { return pe(c).weight_wait; }),
         c_("stationary_wait_cycles", "cycles",
            "cycles an LdWeights at the head waited for its semaphores (in a GEMM, its stationary "
            "tile's load) while the matmul after it had its data and its PE blocks; part of "
            "engine.arr_seq.semaphore_wait_cycles",
            Better::lower, [](const Context& c, std::size_t) { return pe(c).stationary_wait; }),
         c_("matmuls", "count", "matmul instructions", Better::none,
            [](const Context& c, std::size_t) { return pe(c).matmuls; }),
         c_("macs", "count", "multiply-accumulates (rows x cols x moving elements per matmul)", Better::none,
            [](const Context& c, std::size_t) { return pe(c).macs; }),
         c_("ldweights", "count", "LdWeights instructions", Better::none,
            [](const Context& c, std::size_t) { return pe(c).ldweights; }),
         c_("ldweights_replaced", "count",
            "LdWeights whose weights the next LdWeights replaced before a matmul used them", Better::lower,
            [](const Context& c, std::size_t) { return pe(c).ldweights_replaced; }),
         c_("p2fifo_backpressure_cycles", "cycles", "cycles the p2fifo almost-full signal was asserted",
            Better::lower, [](const Context& c, std::size_t) { return pe(c).backpressure_cycles; })}};
}

Section matmul_shape_section() {
    return {"matmul_shape", "<RxC>",
        [](const Context& c) {
            std::vector<Item> v;
            for (std::size_t i = 0; i < pe(c).shapes.size(); ++i) v.push_back({pe(c).shapes[i].first, i});
            return v;
        },
        {},
        {c_("count", "count", "matmuls of that tile shape (num_active_rows x num_active_cols)", Better::none,
            [](const Context& c, std::size_t i) { return pe(c).shapes[i].second; })}};
}

Section psum_section() {
    return {"psum", "", {}, {},
        {c_("groups_begun", "count", "accumulation groups begun", Better::none, [](const Context& c, std::size_t) { return pe(c).groups_begun; }),
         c_("groups_ended", "count", "accumulation groups ended", Better::none, [](const Context& c, std::size_t) { return pe(c).groups_ended; }),
         c_("peak_open_groups", "count", "most accumulation groups open at once", Better::none,
            [](const Context& c, std::size_t) { return pe(c).peak_open_groups; }),
         c_("group_limit_exceeded", "count", "BEGINs while the group limit was reached", Better::lower,
            [](const Context& c, std::size_t) { return pe(c).group_limit_exceeded; }),
         c_("banks_zeroed", "count", "PSUM banks zeroed", Better::none, [](const Context& c, std::size_t) { return pe(c).psum_banks_zeroed; }),
         c_("write_bytes", "B", "bytes written to PSUM", Better::none, [](const Context& c, std::size_t) { return pe(c).psum_write_bytes; }),
         c_("accumulate_bytes", "B", "bytes accumulated into PSUM", Better::none,
            [](const Context& c, std::size_t) { return pe(c).psum_accumulate_bytes; })}};
}

Section dma_section() {
    return {"dma",
            "",
            {},
            {},
            {c_("bytes", "B", "bytes the DMA engines moved", Better::none,
                [](const Context& c, std::size_t) { return c.r.dma_bytes(); }),
             r_(
                 "achieved_gbps", "GB/s", "achieved DMA bandwidth over the run", Better::higher,
                 [](const Context& c, std::size_t) { return c.r.dma_gbps(); }, "dma_gbps"),
             c_("hbm_bytes", "B", "of the bytes, those of transfers with an HBM end", Better::none,
                [](const Context& c, std::size_t) { return c.r.hbm_bytes(); }),
             r_(
                 "hbm_gbps", "GB/s",
                 "achieved bandwidth of transfers with an HBM end over the run (limit: dma.hbm_gbps)",
                 Better::higher, [](const Context& c, std::size_t) { return c.r.hbm_gbps(); }, "hbm_gbps")}};
}

Section dma_engine_section() {
    auto d = [](const Context& c, std::size_t i) -> const DmaStats& { return c.r.dma[i]; };
    return {
        "dma_engine",
        "<dma_K>",
        [](const Context& c) {
            return numbered(c.r.dma.size(), "dma_", 0,
                            [&](std::size_t i) { return c.r.dma[i].descriptors > 0; });
        },
        [](const Context& c, std::string_view who) -> std::optional<std::size_t> {
            for (const Item& it : numbered(c.r.dma.size(), "dma_", 0))
                if (it.name == who) return it.index;
            return std::nullopt;
        },
        {c_("descriptors", "count", "descriptors (contiguous runs) moved", Better::none,
            [d](const Context& c, std::size_t i) { return d(c, i).descriptors; }),
         c_("short_descriptors", "count", "of the descriptors, runs short enough to pay dma.pkt_min_ns",
            Better::lower, [d](const Context& c, std::size_t i) { return d(c, i).short_descriptors; }),
         c_("bytes", "B", "payload bytes moved", Better::none,
            [d](const Context& c, std::size_t i) { return d(c, i).bytes; }),
         c_("hbm_bytes", "B", "of them, bytes of transfers with an HBM end", Better::none,
            [d](const Context& c, std::size_t i) { return d(c, i).hbm_bytes; }),
         c_("transposes", "count", "transposing descriptors", Better::none,
            [d](const Context& c, std::size_t i) { return d(c, i).transposes; }),
         c_("data_cycles", "cycles", "cycles the engine moved data", Better::none,
            [d](const Context& c, std::size_t i) { return d(c, i).data_cycles; }),
         r_("gbps_while_active", "GB/s", "bytes / the time the engine moved data", Better::higher,
            [d](const Context& c, std::size_t i) {
                const double ns = c.r.pe_clock_ghz > 0 ? static_cast<double>(d(c, i).data_cycles) / c.r.pe_clock_ghz : 0;
                return ns > 0 ? static_cast<double>(d(c, i).bytes) / ns : 0;
            })}};
}

// The units that trigger DMAs (dma_trigger.h): the SP/ACT/POOL/DVE sequencers and the DGE blocks,
// written when they triggered something.
Section dma_trigger_section() {
    auto busy = [](const Context& c, std::size_t i) { return c.r.dma_trigger_busy[i]; };
    auto units = [](const Context& c, bool used_only) {
        std::vector<Item> v;
        for (std::size_t i = 0; i < c.r.dma_trigger_busy.size(); ++i)
            if (!used_only || c.r.dma_trigger_busy[i] > 0) v.push_back({trigger_unit_name(i), i});
        return v;
    };
    return {"dma_trigger", "<unit>", [units](const Context& c) { return units(c, true); },
        [units](const Context& c, std::string_view who) -> std::optional<std::size_t> {
            for (const Item& it : units(c, false))
                if (it.name == who) return it.index;
            return std::nullopt;
        },
        {c_("busy_cycles", "cycles", "cycles the unit spent triggering DMAs (docs/engines.md \"DMA triggers\")", Better::none, busy)}};
}

Section stalls_section() {
    std::vector<Stat> s;
    for (std::size_t k = 0; k < kStallCauses; ++k) {
        const auto cause = static_cast<StallCause>(k);
        // The three kinds of lost time a sweep table shows have their short names of old.
        const std::string name = cause == StallCause::bank_conflict ? "bank_conflict_stalls"
                                 : cause == StallCause::tdm         ? "tdm_stalls"
                                 : cause == StallCause::throttle    ? "throttle_stalls"
                                                                    : "";
        // Summed over the clients: sixteen DMA queues held together count sixteen a cycle, so
        // the sum can pass the run's cycles.
        s.push_back(c_(
            to_string(cause), "beat-cycles",
            std::string(to_string(cause)) + " stalls: each client's stalled cycles, summed over the clients "
                                            "(not wall cycles)",
            cause == StallCause::stage1_loss || cause == StallCause::dependency ? Better::none
                                                                                : Better::lower,
            [cause](const Context& c, std::size_t) { return total_stalls(kernel(c), cause); }, name));
    }
    const char* const help[kClientClasses] = {"the PE-array stage-1 clients pe_client_*", "act_rd, act_wr",
                                               "pool_rd, pool_wr", "dve_rd, dve_wr", "the DMA queues dma_*",
                                               "the Q7 cores q7_*", "the PSUM ports (pe_wr, *_psum_*)"};
    for (std::size_t k = 0; k < kClientClasses; ++k)
        s.push_back(derived(c_(
            "bank_conflict_" + std::string(kClientClassNames[k]), "beat-cycles",
            std::string("bank-conflict stalls summed over ") + help[k], Better::lower,
            [k](const Context& c, std::size_t) { return class_conflicts(kernel(c), k); },
            "bank_conflict_" + std::string(kClientClassNames[k]))));
    return {"stalls", "", {}, {}, std::move(s)};
}

Section client_section() {
    auto cl = [](const Context& c, std::size_t i) -> const ClientStats& { return kernel(c).clients[i]; };
    std::vector<Stat> s = {
        c_("requests", "count", "requests submitted", Better::none, [cl](const Context& c, std::size_t i) { return cl(c, i).requests; }),
        c_("beats", "count", "beats granted", Better::none, [cl](const Context& c, std::size_t i) { return cl(c, i).beats; }),
        c_("bytes", "B", "bytes moved over the port", Better::higher, [cl](const Context& c, std::size_t i) { return cl(c, i).bytes; })};
    for (std::size_t k = 0; k < kStallCauses; ++k) {
        const std::string cause = to_string(static_cast<StallCause>(k));
        s.push_back(c_("stall_" + cause, "beat-cycles", "head-beat cycles stalled by " + cause, Better::lower,
                       [cl, k](const Context& c, std::size_t i) { return cl(c, i).stalls[k]; }));
    }
    s.push_back(derived(c_("p99_latency", "cycles", "p99 request latency (issue to last beat)", Better::lower,
                           [cl](const Context& c, std::size_t i) { return cl(c, i).latency.percentile(0.99); })));
    s.push_back(derived(r_("win_rate", "fraction", "contended cycles it got its beat through / contended cycles",
                           Better::higher, [cl](const Context& c, std::size_t i) { return cl(c, i).win_rate; })));
    return {"client", "<client>",
            [](const Context& c) {
                std::vector<Item> v;
                for (std::size_t i = 0; i < kernel(c).clients.size(); ++i)
                    if (kernel(c).clients[i].requests) v.push_back({kernel(c).clients[i].name, i});
                return v;
            },
            // Any client is a metric, also one that made no request.
            [](const Context& c, std::string_view who) {
                return by_name(kernel(c).clients, who, [](const ClientStats& x) { return x.name; });
            },
            std::move(s)};
}

Section bank_section() {
    auto bk = [](const Context& c, std::size_t i) -> const BankStats& { return kernel(c).banks[i]; };
    return {"bank",
            "<bank>",
            [](const Context& c) {
                std::vector<Item> v;
                for (std::size_t i = 0; i < kernel(c).banks.size(); ++i) {
                    const BankStats& b = kernel(c).banks[i];
                    if (b.busy || b.conflict_cycles) v.push_back({b.name, i});
                }
                return v;
            },
            [](const Context& c, std::string_view who) {
                return by_name(kernel(c).banks, who, [](const BankStats& b) { return b.name; });
            },
            {c_("busy", "cycles", "cycles granted to some beat", Better::none,
                [bk](const Context& c, std::size_t i) { return bk(c, i).busy; }),
             r_("utilisation", "fraction", "busy cycles / kernel cycles", Better::higher,
                [bk](const Context& c, std::size_t i) { return frac(bk(c, i).busy, kernel(c).cycles); }),
             c_("conflict_cycles", "cycles", "cycles two or more beats at the grant stage wanted it",
                Better::lower, [bk](const Context& c, std::size_t i) { return bk(c, i).conflict_cycles; }),
             c_("stalls", "beat-cycles", "stalled beat-cycles charged to a loss of this bank", Better::lower,
                [bk](const Context& c, std::size_t i) { return bk(c, i).stalls; }),
             c_("tdm_stalls", "beat-cycles",
                "of the stalls, beats that lost this bank to the other class in its TDM slot", Better::lower,
                [bk](const Context& c, std::size_t i) { return bk(c, i).tdm_stalls; })}};
}

Section blocked_by_section() {
    return {"blocked_by", "<victim><-<winner>",
        [](const Context& c) {
            const Stats& k = kernel(c);
            const std::size_t n = k.clients.size();
            std::vector<Item> v;
            for (std::size_t i = 0; i < k.blocked_by.size(); ++i)
                if (k.blocked_by[i]) v.push_back({k.clients[i / n].name + "<-" + k.clients[i % n].name, i});
            return v;
        },
        {},
        {c_("cycles", "beat-cycles", "stalled cycles of the victim caused by the winner taking its bank", Better::lower,
            [](const Context& c, std::size_t i) { return kernel(c).blocked_by[i]; })}};
}

Section tdm_section() {
    auto ts = [](const Context& c, std::size_t i) -> const TdmSlotStats& { return kernel(c).tdm_slots[i]; };
    return {"tdm", "<slot_K>",
        [](const Context& c) { return numbered(kernel(c).tdm_slots.size(), "slot_", 0); },
        {},
        {c_("cycles", "cycles", "cycles in this TDM slot", Better::none, [ts](const Context& c, std::size_t i) { return ts(c, i).cycles; }),
         c_("compute_used", "cycles", "of them, cycles with a compute-class SBUF grant", Better::none,
            [ts](const Context& c, std::size_t i) { return ts(c, i).compute_used; }),
         c_("dma_used", "cycles", "of them, cycles with a DMA-class SBUF grant", Better::none,
            [ts](const Context& c, std::size_t i) { return ts(c, i).dma_used; }),
         c_("idle", "cycles", "of them, cycles with no SBUF grant", Better::none,
            [ts](const Context& c, std::size_t i) { return ts(c, i).idle; })}};
}

// Run-level figures a sweep table shows that the report does not write (it has their parts).
Section summary_section() {
    return {"summary", "", {}, {},
        {derived(c_("worst_p99_latency", "cycles", "largest per-client p99 request latency", Better::lower,
                    [](const Context& c, std::size_t) { return worst_p99(kernel(c)).first; }, "worst_p99_latency")),
         derived(t_("worst_p99_client", "the client with that p99",
                    [](const Context& c, std::size_t) { return std::optional<std::string>(worst_p99(kernel(c)).second); },
                    "worst_p99_client")),
         derived(r_("jain_fairness", "index", "Jain's index of the contending clients' win rates", Better::higher,
                    [](const Context& c, std::size_t) { return kernel(c).jain_index; }, "jain_fairness"))}};
}

const std::vector<Section>& sections() {
    static const std::vector<Section> all = [] {
        std::vector<Section> v = {
            run_section(),     config_section(),  bottleneck_section(), critical_path_section(),
            finding_section(), engine_section(),  pe_section(),         matmul_shape_section(),
            psum_section(),    dma_section(),     dma_engine_section(), dma_trigger_section(),
            stalls_section(),  client_section(),  bank_section(),       blocked_by_section(),
            tdm_section(),     summary_section(), line_section()};
        for (Section& sec : v)
            for (Stat& s : sec.stats) {
                const std::string path = sec.name + (sec.placeholder.empty() ? "" : "." + sec.placeholder) + "." + s.field;
                const std::string name = s.name.empty()              ? path
                                         : sec.placeholder.empty() ? s.name
                                                                   : sec.name + "." + sec.placeholder + "." + s.name;
                s.info = {name, s.unit, s.description, s.better, s.reported ? path : ""};
            }
        return v;
    }();
    return all;
}

// The statistic a concrete name means, with the record it reads.
struct Resolved {
    const Stat* stat = nullptr;
    std::optional<std::size_t> item;  // nothing: a family metric whose record the run lacks
};

// "engine.act.busy_fraction" split after `section.` into the record "act" and the last component
// "busy_fraction"; false when it does not start with the section's name. Config keys hold dots,
// so the record is everything up to the last one.
bool split_family(std::string_view name, const Section& sec, std::string_view& who, std::string_view& last) {
    if (!name.starts_with(sec.name) || name.size() <= sec.name.size() || name[sec.name.size()] != '.') return false;
    name.remove_prefix(sec.name.size() + 1);
    const auto dot = name.rfind('.');
    if (dot == std::string_view::npos || dot == 0) return false;
    who = name.substr(0, dot);
    last = name.substr(dot + 1);
    return true;
}

std::string_view last_component(const MetricInfo& i) { return std::string_view(i.name).substr(i.name.rfind('.') + 1); }

// The declaration `name` means, without reading a run: a one-record statistic by its name, a family
// statistic by its section and last component (and the record's name in `who`).
// A statistic the report writes is found by its report path too (engine.act.busy_share).
const Stat* declaration(std::string_view name, std::string_view& who) {
    for (const Section& sec : sections())
        if (sec.placeholder.empty())
            for (const Stat& s : sec.stats)
                if (s.info.name == name || (s.reported && name == sec.name + "." + s.field)) return &s;
    std::string_view last;
    for (const Section& sec : sections())
        if (!sec.placeholder.empty() && split_family(name, sec, who, last))
            for (const Stat& s : sec.stats)
                if (last_component(s.info) == last || (s.reported && s.field == last)) return &s;
    return nullptr;
}

const Section& section_of(const Stat* stat) {
    for (const Section& sec : sections())
        for (const Stat& s : sec.stats)
            if (&s == stat) return sec;
    return sections().front();
}

// The record `who` of a family section; nothing when the run has none.
std::optional<std::size_t> find_record(const Section& sec, const Context& c, std::string_view who) {
    if (sec.find) return sec.find(c, who);
    for (const Item& it : sec.items(c))
        if (it.name == who) return it.index;
    return std::nullopt;
}

Value value_of(std::string_view name, const Context& c) {
    std::string_view who;
    const Stat* s = declaration(name, who);
    if (!s) return std::nullopt;
    const Section& sec = section_of(s);
    std::size_t item = 0;
    if (!sec.placeholder.empty()) {
        const std::optional<std::size_t> found = find_record(sec, c, who);
        if (!found) return std::nullopt;
        item = *found;
    }
    return s->get(c, item);
}

}  // namespace

const std::vector<MetricInfo>& metric_registry() {
    static const std::vector<MetricInfo> all = [] {
        std::vector<MetricInfo> one, families;
        for (const Section& sec : sections())
            for (const Stat& s : sec.stats) (sec.placeholder.empty() ? one : families).push_back(s.info);
        one.insert(one.end(), families.begin(), families.end());
        return one;
    }();
    return all;
}

std::optional<MetricInfo> find_metric_info(std::string_view name) {
    std::string_view who;
    const Stat* s = declaration(name, who);
    if (!s) return std::nullopt;
    MetricInfo m = s->info;
    m.name = std::string(name);
    return m;
}

std::string metric_suggestion(std::string_view name) {
    std::vector<std::string> names;
    for (const auto& m : metric_registry()) names.push_back(m.name);
    // A family member: compare its last component with the family's.
    std::string_view who, last;
    for (const Section& sec : sections())
        if (!sec.placeholder.empty() && split_family(name, sec, who, last))
            for (const Stat& s : sec.stats)
                names.push_back(sec.name + "." + std::string(who) + "." + std::string(last_component(s.info)));
    return did_you_mean(name, names);
}

std::vector<std::optional<MetricValue>> metric_typed_values(const std::vector<std::string>& names, const ReplayResult& r) {
    const Context c(r, nullptr, nullptr);
    std::vector<std::optional<MetricValue>> out;
    out.reserve(names.size());
    for (const auto& n : names) out.push_back(value_of(n, c));
    return out;
}

std::vector<std::string> metric_values(const std::vector<std::string>& names, const ReplayResult& r) {
    std::vector<std::string> out;
    out.reserve(names.size());
    for (const auto& v : metric_typed_values(names, r)) out.push_back(v ? v->str() : "");
    return out;
}

std::string metric_value(std::string_view name, const ReplayResult& r) {
    return metric_values({std::string(name)}, r).front();
}

namespace {

// --window-stats rows: every bank (a heatmap needs the full grid), the clients that took part.
// A time series, not statistics of the run: its metrics are documented with --window-stats.
void window_rows(const WindowSeries& w, const Stats& k, std::vector<ReportRow>& rows) {
    if (w.empty()) return;
    auto u = [&](const std::string& name, std::string metric, std::uint64_t v) {
        rows.push_back({"window", name, std::move(metric), *count(v), nullptr});
    };
    for (std::size_t i = 0; i < w.rows.size(); ++i) {
        const WindowRow& r = w.rows[i];
        const std::string name = std::string("w").append(std::to_string(i));  // not "w" + ...: GCC 12 -O3 -Wrestrict false positive
        u(name, "start", r.start);
        u(name, "cycles", r.cycles);
        for (std::size_t b = 0; b < w.banks.size(); ++b) {
            u(name, "busy." + w.banks[b], r.busy[b]);
            u(name, "conflicts." + w.banks[b], r.conflicts[b]);
            u(name, "stalls." + w.banks[b], r.stalls[b]);
        }
        for (std::size_t c = 0; c < w.clients.size(); ++c)
            if (c < k.clients.size() && k.clients[c].requests) u(name, "bytes." + w.clients[c], r.bytes[c]);
        u(name, "tdm.compute_used", r.tdm_compute);
        u(name, "tdm.dma_used", r.tdm_dma);
        for (std::size_t k = 0; k < kStallCauses; ++k)
            u(name, std::string("stalled.") + to_string(static_cast<StallCause>(k)), r.stalled[k]);
    }
}

}  // namespace

std::vector<ReportRow> report_rows(const RunReport& rep) {
    const Context c(rep.result, &rep.info, &rep.windows);
    std::vector<ReportRow> rows;
    for (const Section& sec : sections()) {
        const std::vector<Item> items = sec.placeholder.empty() ? std::vector<Item>{{"", 0}} : sec.items(c);
        for (const Item& it : items)
            for (const Stat& s : sec.stats)
                if (s.reported)
                    if (Value v = s.get(c, it.index)) rows.push_back({sec.name, it.name, s.field, std::move(*v), &s.info});
    }
    window_rows(rep.windows, rep.result.kernel, rows);
    return rows;
}

}  // namespace sbufsim
