#include "sbufsim/output/metrics.h"

#include <algorithm>
#include <array>
#include <functional>
#include <iomanip>
#include <sstream>

#include "sbufsim/output/bottleneck.h"
#include "sbufsim/output/report.h"
#include "sbufsim/types/near_miss.h"

namespace sbufsim {

const char* to_string(Better b) {
    switch (b) {
        case Better::lower: return "lower";
        case Better::higher: return "higher";
        case Better::none: return "none";
    }
    return "?";
}

std::string format_metric_real(double v) {
    // The same rendering as `sbufsim run --json`, so a sweep cell and a run value compare as text.
    if (!(v == v) || v > 1e300 || v < -1e300) return "0";
    std::ostringstream os;
    os << std::setprecision(10) << v;
    return os.str();
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

// A run and its analysis, made once for all the metrics asked of it.
struct Context {
    const ReplayResult& r;
    Bottleneck b;
};

std::string u(std::uint64_t v) { return std::to_string(v); }
std::string d(double v) { return format_metric_real(v); }
double frac(std::uint64_t part, std::uint64_t whole) {
    return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
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

struct RunMetric {
    MetricInfo info;
    std::function<std::string(const Context&)> value;
};

const std::vector<RunMetric>& run_metrics() {
    static const std::vector<RunMetric> m = [] {
        std::vector<RunMetric> t = {
            {{"total_cycles", "cycles", "cycles until the last access or instruction completed", Better::lower},
             [](const Context& c) { return u(c.r.total_cycles); }},
            {{"time_ns", "ns", "total_cycles at the PE clock", Better::lower}, [](const Context& c) { return d(c.r.time_ns()); }},
            {{"pe_utilisation", "fraction", "PE-array streaming cycles / total cycles", Better::higher},
             [](const Context& c) { return d(c.r.pe_utilisation()); }},
            {{"mfu", "fraction", "matmul multiply-accumulates / (total cycles x pe.rows x pe.cols)", Better::higher},
             [](const Context& c) { return d(c.b.mfu); }},
            {{"sbuf_bank_utilisation", "fraction", "busy SBUF bank-cycles / (SBUF banks x total cycles)", Better::higher},
             [](const Context& c) { return d(c.b.sbuf_bank_utilisation); }},
            {{"psum_bank_utilisation", "fraction", "busy PSUM bank-cycles / (PSUM banks x total cycles)", Better::higher},
             [](const Context& c) { return d(c.b.psum_bank_utilisation); }},
            {{"bound_by", "", "the engine group with the largest share of the critical path", Better::none},
             [](const Context& c) { return c.b.bound_by; }},
            {{"bound_share", "fraction", "that group's share of the critical path", Better::none},
             [](const Context& c) { return d(c.b.bound_share); }},
            {{"bank_conflict_stalls", "beat-cycles", "bank-conflict stall cycles, all clients", Better::lower},
             [](const Context& c) { return u(total_stalls(c.r.kernel, StallCause::bank_conflict)); }},
        };
        const char* const help[kClientClasses] = {"the PE-array stage-1 clients pe_client_*", "act_rd, act_wr",
                                                   "pool_rd, pool_wr", "dve_rd, dve_wr", "the DMA queues dma_*",
                                                   "the Q7 cores q7_*", "the PSUM ports (pe_wr, *_psum_*)"};
        for (std::size_t k = 0; k < kClientClasses; ++k)
            t.push_back({{std::string("bank_conflict_") + kClientClassNames[k], "beat-cycles",
                          std::string("bank-conflict stall cycles of ") + help[k], Better::lower},
                         [k](const Context& c) { return u(class_conflicts(c.r.kernel, k)); }});
        const std::vector<RunMetric> rest = {
            {{"tdm_stalls", "beat-cycles", "TDM stall cycles, all clients", Better::lower},
             [](const Context& c) { return u(total_stalls(c.r.kernel, StallCause::tdm)); }},
            {{"throttle_stalls", "beat-cycles", "throttler stall cycles, all clients", Better::lower},
             [](const Context& c) { return u(total_stalls(c.r.kernel, StallCause::throttle)); }},
            {{"dma_gbps", "GB/s", "achieved DMA bandwidth over the run", Better::higher},
             [](const Context& c) { return d(c.r.dma_gbps()); }},
            {{"dma_bandwidth_utilisation", "fraction", "achieved DMA bandwidth / (dma.engines x dma.engine_gbps)",
              Better::higher},
             [](const Context& c) { return d(c.b.dma_bandwidth_utilisation); }},
            {{"worst_p99_latency", "cycles", "largest per-client p99 request latency", Better::lower},
             [](const Context& c) { return u(worst_p99(c.r.kernel).first); }},
            {{"worst_p99_client", "", "the client with that p99", Better::none},
             [](const Context& c) { return worst_p99(c.r.kernel).second; }},
            {{"jain_fairness", "index", "Jain's index of the contending clients' win rates", Better::higher},
             [](const Context& c) { return d(c.r.kernel.jain_index); }},
        };
        t.insert(t.end(), rest.begin(), rest.end());
        return t;
    }();
    return m;
}

// ---- families ------------------------------------------------------------------------------------

struct EngineMetric {
    const char* suffix;
    const char* unit;
    const char* description;
    Better better;
    std::function<std::string(const EngineStats&, const EngineBreakdown&, Cycle total)> value;
};

const std::vector<EngineMetric>& engine_metrics() {
    static const std::vector<EngineMetric> m = {
        {"instructions", "count", "instructions completed", Better::none,
         [](const EngineStats& e, const EngineBreakdown&, Cycle) { return u(e.instructions); }},
        {"busy_fraction", "fraction", "cycles with an instruction in progress / total cycles", Better::higher,
         [](const EngineStats& e, const EngineBreakdown&, Cycle t) { return d(frac(e.busy, t)); }},
        {"compute_cycles", "cycles", "an instruction in progress within its cost-model time", Better::none,
         [](const EngineStats&, const EngineBreakdown& b, Cycle) { return u(b.compute); }},
        {"bank_wait_cycles", "cycles", "an instruction held past its cost-model time by queued bank requests",
         Better::lower, [](const EngineStats&, const EngineBreakdown& b, Cycle) { return u(b.bank_wait); }},
        {"semaphore_wait_cycles", "cycles", "free, the next instruction waiting for a semaphore", Better::lower,
         [](const EngineStats&, const EngineBreakdown& b, Cycle) { return u(b.sem_wait); }},
        {"port_wait_cycles", "cycles", "free, the next instruction waiting for an NC-v2 shared port the other side held",
         Better::lower, [](const EngineStats&, const EngineBreakdown& b, Cycle) { return u(b.port_wait); }},
        {"idle_cycles", "cycles", "nothing to do (or a DMA descriptor in its start-up)", Better::none,
         [](const EngineStats&, const EngineBreakdown& b, Cycle) { return u(b.idle); }},
    };
    return m;
}

struct ClientMetric {
    std::string suffix;
    const char* unit;
    std::string description;
    Better better;
    std::function<std::string(const ClientStats&)> value;
};

const std::vector<ClientMetric>& client_metrics() {
    static const std::vector<ClientMetric> m = [] {
        std::vector<ClientMetric> t = {
            {"requests", "count", "requests submitted", Better::none, [](const ClientStats& c) { return u(c.requests); }},
            {"bytes", "B", "bytes moved over the port", Better::higher, [](const ClientStats& c) { return u(c.bytes); }},
            {"p99_latency", "cycles", "p99 request latency (issue to last beat)", Better::lower,
             [](const ClientStats& c) { return u(c.latency.percentile(0.99)); }},
            {"win_rate", "fraction", "contended cycles it got its beat through / contended cycles", Better::higher,
             [](const ClientStats& c) { return d(c.win_rate); }},
        };
        for (std::size_t s = 0; s < kStallCauses; ++s) {
            const std::string cause = to_string(static_cast<StallCause>(s));
            t.push_back({"stall_" + cause, "beat-cycles", "head-beat cycles stalled by " + cause, Better::lower,
                         [s](const ClientStats& c) { return u(c.stalls[s]); }});
        }
        return t;
    }();
    return m;
}

struct PathMetric {
    const char* suffix;
    const char* unit;
    const char* description;
    std::function<std::string(const PathGroup&, Cycle total)> value;
};

const std::vector<PathMetric>& path_metrics() {
    static const std::vector<PathMetric> m = {
        {"cycles", "cycles", "critical-path cycles on the group's engines",
         [](const PathGroup& g, Cycle) { return u(g.total()); }},
        {"share", "fraction", "the group's share of the critical path",
         [](const PathGroup& g, Cycle t) { return d(frac(g.total(), t)); }},
    };
    return m;
}

// "engine.<x>.<suffix>" split into x and suffix; false when `name` does not start with `prefix`.
bool split_family(std::string_view name, std::string_view prefix, std::string& who, std::string& suffix) {
    if (!name.starts_with(prefix)) return false;
    name.remove_prefix(prefix.size());
    const auto dot = name.rfind('.');
    if (dot == std::string_view::npos || dot == 0) return false;
    who = std::string(name.substr(0, dot));
    suffix = std::string(name.substr(dot + 1));
    return true;
}

std::string engine_name(const std::string& who) { return who == "pe" ? "arr_seq" : who; }

std::string value_of(std::string_view name, const Context& c) {
    for (const auto& m : run_metrics())
        if (m.info.name == name) return m.value(c);
    std::string who, suffix;
    if (split_family(name, "engine.", who, suffix)) {
        for (const auto& m : engine_metrics()) {
            if (suffix != m.suffix) continue;
            for (const EngineBreakdown& b : c.b.engines)
                if (b.name == engine_name(who))
                    for (const EngineStats& e : c.r.engines)
                        if (e.name == b.name) return m.value(e, b, c.r.total_cycles);
        }
        return "";
    }
    if (split_family(name, "client.", who, suffix)) {
        for (const auto& m : client_metrics()) {
            if (suffix != m.suffix) continue;
            for (const ClientStats& cl : c.r.kernel.clients)
                if (cl.name == who) return m.value(cl);
        }
        return "";
    }
    if (split_family(name, "critical_path.", who, suffix)) {
        for (const auto& m : path_metrics()) {
            if (suffix != m.suffix) continue;
            for (const PathGroup& g : c.b.path)
                if (g.name == who) return m.value(g, c.r.total_cycles);
            return m.value(PathGroup{who, {}, 0}, c.r.total_cycles);  // not on the path: 0
        }
    }
    return "";
}

}  // namespace

const std::vector<MetricInfo>& metric_registry() {
    static const std::vector<MetricInfo> all = [] {
        std::vector<MetricInfo> v;
        for (const auto& m : run_metrics()) v.push_back(m.info);
        for (const auto& m : engine_metrics())
            v.push_back({std::string("engine.<engine>.") + m.suffix, m.unit, m.description, m.better});
        for (const auto& m : client_metrics())
            v.push_back({"client.<client>." + m.suffix, m.unit, m.description, m.better});
        for (const auto& m : path_metrics())
            v.push_back({std::string("critical_path.<group>.") + m.suffix, m.unit, m.description, Better::none});
        return v;
    }();
    return all;
}

std::optional<MetricInfo> find_metric_info(std::string_view name) {
    for (const auto& m : run_metrics())
        if (m.info.name == name) return m.info;
    std::string who, suffix;
    if (split_family(name, "engine.", who, suffix))
        for (const auto& m : engine_metrics())
            if (suffix == m.suffix) return MetricInfo{std::string(name), m.unit, m.description, m.better};
    if (split_family(name, "client.", who, suffix))
        for (const auto& m : client_metrics())
            if (suffix == m.suffix) return MetricInfo{std::string(name), m.unit, m.description, m.better};
    if (split_family(name, "critical_path.", who, suffix))
        for (const auto& m : path_metrics())
            if (suffix == m.suffix) return MetricInfo{std::string(name), m.unit, m.description, Better::none};
    return std::nullopt;
}

std::string metric_suggestion(std::string_view name) {
    std::vector<std::string> names;
    for (const auto& m : metric_registry()) names.push_back(m.name);
    // A family member: compare its last component with the family's suffixes.
    std::string who, suffix;
    for (const char* prefix : {"engine.", "client.", "critical_path."})
        if (split_family(name, prefix, who, suffix))
            for (const auto& m : metric_registry())
                if (m.name.starts_with(prefix)) names.push_back(std::string(prefix) + who + m.name.substr(m.name.rfind('.')));
    return did_you_mean(name, names);
}

std::vector<std::string> metric_values(const std::vector<std::string>& names, const ReplayResult& r) {
    const Context c{r, analyse(r)};
    std::vector<std::string> out;
    out.reserve(names.size());
    for (const auto& n : names) out.push_back(value_of(n, c));
    return out;
}

std::string metric_value(std::string_view name, const ReplayResult& r) {
    return metric_values({std::string(name)}, r).front();
}

}  // namespace sbufsim
