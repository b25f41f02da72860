#include "sbufsim/output/report.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "sbufsim/config/config.h"
#include "sbufsim/output/bottleneck.h"
#include "sbufsim/output/json_text.h"
#include "sbufsim/output/metrics.h"

namespace sbufsim {

std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t h) {
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return h;
}

std::string hex16(std::uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

std::string file_digest(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::vector<char> buf(1 << 20);
    std::uint64_t h = 0xcbf29ce484222325ull;
    while (in) {
        in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
        h = fnv1a64(std::string_view(buf.data(), static_cast<std::size_t>(in.gcount())), h);
    }
    return hex16(h);
}

std::vector<RunInfo::Setting> effective_settings(const LoadedConfig& cfg) {
    std::vector<RunInfo::Setting> out;
    const auto& table = key_table();
    for (std::size_t i = 0; i < table.size() && i < cfg.origins.size(); ++i) {
        const Origin& o = cfg.origins[i];
        if (o.line < 0 || o.file == cfg.generation_file) continue;
        out.push_back({table[i].name, table[i].get(cfg.params), o.describe()});
    }
    return out;
}

std::uint64_t total_stalls(const Stats& s, StallCause c) {
    std::uint64_t n = 0;
    for (const auto& cl : s.clients) n += cl.stalls[static_cast<std::size_t>(c)];
    return n;
}

namespace {

std::string fixed(double v, int digits) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(digits) << v;
    return os.str();
}

std::string col(const std::string& s, std::size_t w, bool right = true) {
    if (s.size() >= w) return " " + s;
    return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

double share(Cycle part, Cycle total) { return total ? static_cast<double>(part) / static_cast<double>(total) : 0; }

std::string json_num(double v) {
    if (!(v == v) || v > 1e300 || v < -1e300) return "0";
    std::ostringstream os;
    os << std::setprecision(10) << v;
    return os.str();
}

// Every number of one run as (section, name, metric, value) rows: the single source of the
// JSON groups and the CSV rows, so the two cannot drift apart.
struct Row {
    std::string section, name, metric;
    std::string value;  // already formatted
    bool text = false;
};

// --window-stats rows: every bank (a heatmap needs the full grid), the clients that took part.
void collect_windows(const WindowSeries& w, const Stats& k, std::vector<Row>& rows) {
    if (w.empty()) return;
    auto u = [&](const std::string& name, std::string metric, std::uint64_t v) {
        rows.push_back({"window", name, std::move(metric), std::to_string(v), false});
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
    }
}

void collect(const RunReport& rep, std::vector<Row>& rows) {
    const ReplayResult& r = rep.result;
    const Stats& k = r.kernel;
    auto u = [&](std::string sec, std::string name, std::string metric, std::uint64_t v) {
        rows.push_back({std::move(sec), std::move(name), std::move(metric), std::to_string(v), false});
    };
    auto d = [&](std::string sec, std::string name, std::string metric, double v) {
        rows.push_back({std::move(sec), std::move(name), std::move(metric), json_num(v), false});
    };
    auto t = [&](std::string sec, std::string name, std::string metric, std::string v) {
        rows.push_back({std::move(sec), std::move(name), std::move(metric), std::move(v), true});
    };
    t("run", "", "generation", r.generation);
    t("run", "", "scheduler", rep.info.scheduler);
    t("run", "", "version", rep.info.version);
    t("run", "", "config_hash", rep.info.config_hash);
    t("run", "", "trace_digest", rep.info.trace_digest);
    u("run", "", "lenient", rep.info.lenient ? 1 : 0);
    u("run", "", "total_cycles", r.total_cycles);
    d("run", "", "time_ns", r.time_ns());
    d("run", "", "pe_clock_ghz", r.pe_clock_ghz);
    u("run", "", "records", r.records);
    u("run", "", "access_records", r.access_records);
    u("run", "", "instructions", r.instructions);
    u("run", "", "skipped_records", r.skipped);
    u("run", "", "kernel_cycles", k.cycles);
    if (!rep.windows.empty()) u("run", "", "window_cycles", rep.windows.width);
    for (const auto& c : rep.info.settings) {
        t("config", c.key, "value", c.value);
        t("config", c.key, "from", c.from);
    }
    const Bottleneck b = analyse(r);
    t("bottleneck", "", "verdict", b.verdict);
    // The figures the metric registry declares (name, unit, direction) come from it, so a sweep
    // column and this field are one definition.
    static const std::vector<std::string> registered = {"bound_by", "bound_share", "pe_utilisation", "mfu",
                                                        "sbuf_bank_utilisation", "psum_bank_utilisation",
                                                        "dma_bandwidth_utilisation"};
    const std::vector<std::string> values = metric_values(registered, r);
    for (std::size_t i = 0; i < registered.size(); ++i)
        rows.push_back({"bottleneck", "", registered[i], values[i], find_metric_info(registered[i])->unit.empty()});
    u("bottleneck", "", "semaphore_edges", r.critical_path.semaphore_edges);
    u("bottleneck", "", "queue_edges", r.critical_path.queue_edges);
    for (const PathGroup& g : b.path) {
        u("critical_path", g.name, "cycles", g.total());
        d("critical_path", g.name, "share", share(g.total(), r.total_cycles));
        for (std::size_t c = 0; c < kPathCauses; ++c)
            u("critical_path", g.name, std::string(to_string(static_cast<PathCause>(c))) + "_cycles", g.cycles[c]);
        u("critical_path", g.name, "instructions", g.instructions);
    }
    for (std::size_t i = 0; i < b.findings.size(); ++i) {
        const std::string name = "f" + std::to_string(i + 1);
        u("finding", name, "cycles", b.findings[i].cycles);
        t("finding", name, "text", b.findings[i].text);
        t("finding", name, "advice", b.findings[i].advice);
    }
    for (const EngineBreakdown& e : b.engines) {
        const EngineStats& s = *std::find_if(r.engines.begin(), r.engines.end(), [&](const EngineStats& x) { return x.name == e.name; });
        u("engine", e.name, "instructions", s.instructions);
        u("engine", e.name, "busy_cycles", s.busy);
        d("engine", e.name, "busy_share", share(s.busy, r.total_cycles));
        u("engine", e.name, "compute_cycles", e.compute);
        u("engine", e.name, "bank_wait_cycles", e.bank_wait);
        u("engine", e.name, "semaphore_wait_cycles", e.sem_wait);
        u("engine", e.name, "port_wait_cycles", e.port_wait);
        u("engine", e.name, "idle_cycles", e.idle);
        u("engine", e.name, "bytes_read", s.bytes_read);
        u("engine", e.name, "bytes_written", s.bytes_written);
    }
    const ArrSeqStats& a = r.arr_seq;
    d("pe", "", "utilisation", r.pe_utilisation());
    u("pe", "", "stream_cycles", a.pe_stream);
    u("pe", "", "busy_cycles", a.pe_busy);
    u("pe", "", "weight_wait_cycles", a.weight_wait);
    u("pe", "", "matmuls", a.matmuls);
    u("pe", "", "macs", a.macs);
    u("pe", "", "ldweights", a.ldweights);
    u("pe", "", "p2fifo_backpressure_cycles", a.backpressure_cycles);
    for (const auto& [shape, n] : a.shapes) u("matmul_shape", shape, "count", n);
    u("psum", "", "groups_begun", a.groups_begun);
    u("psum", "", "groups_ended", a.groups_ended);
    u("psum", "", "peak_open_groups", a.peak_open_groups);
    u("psum", "", "group_limit_exceeded", a.group_limit_exceeded);
    u("psum", "", "banks_zeroed", a.psum_banks_zeroed);
    u("psum", "", "write_bytes", a.psum_write_bytes);
    u("psum", "", "accumulate_bytes", a.psum_accumulate_bytes);
    u("dma", "", "bytes", r.dma_bytes());
    d("dma", "", "achieved_gbps", r.dma_gbps());
    for (std::size_t i = 0; i < r.dma.size(); ++i) {
        const DmaStats& s = r.dma[i];
        if (!s.descriptors) continue;
        const std::string name = "dma_" + std::to_string(i);
        u("dma_engine", name, "descriptors", s.descriptors);
        u("dma_engine", name, "bytes", s.bytes);
        u("dma_engine", name, "transposes", s.transposes);
        u("dma_engine", name, "data_cycles", s.data_cycles);
        const double ns = r.pe_clock_ghz > 0 ? static_cast<double>(s.data_cycles) / r.pe_clock_ghz : 0;
        d("dma_engine", name, "gbps_while_active", ns > 0 ? static_cast<double>(s.bytes) / ns : 0);
    }
    for (std::size_t c = 0; c < kStallCauses; ++c)
        u("stalls", "", to_string(static_cast<StallCause>(c)), total_stalls(k, static_cast<StallCause>(c)));
    for (const auto& c : k.clients) {
        if (!c.requests) continue;
        u("client", c.name, "requests", c.requests);
        u("client", c.name, "beats", c.beats);
        u("client", c.name, "bytes", c.bytes);
        for (std::size_t s = 0; s < kStallCauses; ++s)
            u("client", c.name, std::string("stall_") + to_string(static_cast<StallCause>(s)), c.stalls[s]);
    }
    for (const auto& b : k.banks) {
        if (!b.busy && !b.conflict_cycles) continue;
        u("bank", b.name, "busy", b.busy);
        d("bank", b.name, "utilisation", share(b.busy, k.cycles));
        u("bank", b.name, "conflict_cycles", b.conflict_cycles);
        u("bank", b.name, "stalls", b.stalls);
    }
    const std::size_t n = k.clients.size();
    for (std::size_t i = 0; i < k.blocked_by.size(); ++i)
        if (k.blocked_by[i]) u("blocked_by", k.clients[i / n].name + "<-" + k.clients[i % n].name, "cycles", k.blocked_by[i]);
    for (std::size_t s = 0; s < k.tdm_slots.size(); ++s) {
        const auto& ts = k.tdm_slots[s];
        const std::string name = "slot_" + std::to_string(s);
        u("tdm", name, "cycles", ts.cycles);
        u("tdm", name, "compute_used", ts.compute_used);
        u("tdm", name, "dma_used", ts.dma_used);
        u("tdm", name, "idle", ts.idle);
    }
    collect_windows(rep.windows, k, rows);
}

}  // namespace

void print_bottleneck(std::ostream& os, const ReplayResult& r, const Bottleneck& b) {
    const CriticalPathStats& cp = r.critical_path;
    os << b.verdict << "\n";
    std::uint64_t on_path = 0;
    for (const PathGroup& g : b.path) on_path += g.instructions;
    os << "critical path: " << on_path << (on_path == 1 ? " instruction, " : " instructions, ") << cp.semaphore_edges
       << " semaphore waits, "
       << cp.queue_edges << " queue-order steps; cycles by engine and cause (sum = " << r.total_cycles << ")\n"
       << col("engine", 10, false) << col("cycles", 11) << col("share", 7);
    for (std::size_t c = 0; c < kPathCauses; ++c) os << col(to_string(static_cast<PathCause>(c)), 11);
    os << col("instr", 8) << "\n";
    for (const PathGroup& g : b.path) {
        os << col(g.name, 10, false) << col(std::to_string(g.total()), 11)
           << col(fixed(100 * share(g.total(), r.total_cycles), 1), 7);
        for (std::size_t c = 0; c < kPathCauses; ++c) os << col(std::to_string(g.cycles[c]), 11);
        os << col(std::to_string(g.instructions), 8) << "\n";
    }
    os << "utilisation: PE " << fixed(100 * b.pe_utilisation, 1) << " %, MFU " << fixed(100 * b.mfu, 1)
       << " %, SBUF banks " << fixed(100 * b.sbuf_bank_utilisation, 1) << " %, PSUM banks "
       << fixed(100 * b.psum_bank_utilisation, 1) << " %, DMA bandwidth " << fixed(100 * b.dma_bandwidth_utilisation, 1)
       << " % of " << fixed(r.dma_peak_gbps, 0) << " GB/s\n";
    if (!b.findings.empty()) os << "findings\n";
    for (std::size_t i = 0; i < b.findings.size(); ++i)
        os << "  " << i + 1 << ". " << b.findings[i].text << "\n     try: " << b.findings[i].advice << "\n";
}

void print_summary(std::ostream& os, const RunReport& rep) {
    const ReplayResult& r = rep.result;
    const Stats& k = r.kernel;
    os << "trace " << r.trace << "  (gen " << r.generation << ", scheduler " << rep.info.scheduler
       << ", digest " << rep.info.trace_digest << ", config " << rep.info.config_hash << ")\n";
    os << "total " << r.total_cycles << " cycles = " << fixed(r.time_ns(), 1) << " ns at the PE clock "
       << fixed(r.pe_clock_ghz, 2) << " GHz;  " << r.records << " records (" << r.instructions
       << " instructions, " << r.access_records << " access records";
    if (r.skipped) os << ", " << r.skipped << " invalid records skipped";
    os << ")\n\n";

    const Bottleneck b = analyse(r);
    print_bottleneck(os, r, b);
    // The port-wait column only where an NC-v2 shared port held an engine back.
    const bool ports = std::any_of(b.engines.begin(), b.engines.end(), [](const EngineBreakdown& e) { return e.port_wait; });
    os << "\nengines (cycles; compute + bank wait + semaphore wait + " << (ports ? "port wait + " : "") << "idle = "
       << r.total_cycles << ")\n"
       << col("engine", 10, false) << col("instr", 8) << col("compute", 11) << col("bank wait", 11)
       << col("sem wait", 11) << (ports ? col("port wait", 11) : "") << col("idle", 11) << col("busy%", 7)
       << col("read B", 12) << col("written B", 12) << "\n";
    for (const EngineBreakdown& e : b.engines) {
        const EngineStats& s = *std::find_if(r.engines.begin(), r.engines.end(), [&](const EngineStats& x) { return x.name == e.name; });
        os << col(e.name, 10, false) << col(std::to_string(s.instructions), 8) << col(std::to_string(e.compute), 11)
           << col(std::to_string(e.bank_wait), 11) << col(std::to_string(e.sem_wait), 11)
           << (ports ? col(std::to_string(e.port_wait), 11) : "") << col(std::to_string(e.idle), 11) << col(fixed(100 * share(s.busy, r.total_cycles), 1), 7)
           << col(std::to_string(s.bytes_read), 12) << col(std::to_string(s.bytes_written), 12) << "\n";
    }

    const ArrSeqStats& a = r.arr_seq;
    os << "\nPE array: utilisation " << fixed(100 * r.pe_utilisation(), 1) << "% (" << a.pe_stream
       << " streaming cycles, " << a.pe_busy << " busy), " << a.matmuls << " matmuls, " << a.ldweights
       << " ldweights, weight wait " << a.weight_wait << ", p2fifo back-pressure " << a.backpressure_cycles
       << " cycles\n";
    if (!a.shapes.empty()) {
        os << "  matmuls by tile shape (rows x cols):";
        for (const auto& [shape, n] : a.shapes) os << "  " << shape << " " << n;
        os << "\n";
    }
    os << "PSUM groups: " << a.groups_begun << " begun, " << a.groups_ended << " ended, peak " << a.peak_open_groups
       << " open, " << a.group_limit_exceeded << " over the limit; " << a.psum_banks_zeroed << " banks zeroed, "
       << a.psum_write_bytes << " B written, " << a.psum_accumulate_bytes << " B accumulated\n";
    os << "DMA: " << r.dma_bytes() << " B, achieved " << fixed(r.dma_gbps(), 2) << " GB/s over the run";
    for (std::size_t i = 0; i < r.dma.size(); ++i) {
        const DmaStats& s = r.dma[i];
        if (!s.descriptors) continue;
        const double ns = r.pe_clock_ghz > 0 ? static_cast<double>(s.data_cycles) / r.pe_clock_ghz : 0;
        os << "\n  dma_" << i << ": " << s.descriptors << " descriptors, " << s.bytes << " B, " << s.transposes
           << " transposes, " << fixed(ns > 0 ? static_cast<double>(s.bytes) / ns : 0, 2) << " GB/s while active";
    }
    os << "\n";
    // Beat-cycles are per client and overlap in time, so their sum is no part of the run's cycles;
    // a PE client waiting its stage-1 turn while another quadrant's beat uses the port costs the
    // engine nothing (the moving stream is paced by the array), and a request waiting for an
    // earlier one is ordering, not contention.
    os << "client beat-cycles stalled (summed over clients, overlapping in time)\n  lost to other traffic:";
    for (StallCause c : {StallCause::bank_conflict, StallCause::tdm, StallCause::throttle, StallCause::psum_backpressure})
        os << "  " << to_string(c) << " " << total_stalls(k, c);
    os << "\n  by design (turns, ordering):";
    for (StallCause c : {StallCause::stage1_loss, StallCause::dependency})
        os << "  " << to_string(c) << " " << total_stalls(k, c);
    os << "\n\n";
    os << "-- bank kernel --\n";
    print_report(os, k);
    if (!r.skipped_errors.empty()) {
        os << "\nskipped records (first " << r.skipped_errors.size() << ")\n";
        for (const auto& e : r.skipped_errors) os << "  " << e.to_string() << "\n";
    }
}

void write_json(std::ostream& os, const std::vector<RunReport>& runs) {
    os << "{\n  \"tool\": \"sbufsim\",\n  \"version\": " << json_string(SBUFSIM_VERSION) << ",\n  \"runs\": [";
    for (std::size_t i = 0; i < runs.size(); ++i) {
        std::vector<Row> rows;
        collect(runs[i], rows);
        os << (i ? "," : "") << "\n    {\n      \"trace\": " << json_string(runs[i].result.trace);
        // Group rows: section -> (name ->) metric.
        std::size_t j = 0;
        while (j < rows.size()) {
            const std::string sec = rows[j].section;
            const bool named = !rows[j].name.empty();
            os << ",\n      " << json_string(sec) << ": {";
            bool first_name = true;
            while (j < rows.size() && rows[j].section == sec) {
                if (named) {
                    const std::string name = rows[j].name;
                    os << (first_name ? "" : ",") << "\n        " << json_string(name) << ": {";
                    bool first = true;
                    while (j < rows.size() && rows[j].section == sec && rows[j].name == name) {
                        os << (first ? "" : ", ") << json_string(rows[j].metric) << ": "
                           << (rows[j].text ? json_string(rows[j].value) : rows[j].value);
                        first = false;
                        ++j;
                    }
                    os << "}";
                } else {
                    os << (first_name ? "" : ",") << "\n        " << json_string(rows[j].metric) << ": "
                       << (rows[j].text ? json_string(rows[j].value) : rows[j].value);
                    ++j;
                }
                first_name = false;
            }
            os << "\n      }";
        }
        os << "\n    }";
    }
    os << "\n  ]\n}\n";
}

std::string csv_field(std::string_view s) {
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
    std::string o = "\"";
    for (char c : s) {
        if (c == '"') o += '"';
        o += c;
    }
    return o + "\"";
}

void write_csv(std::ostream& os, const std::vector<RunReport>& runs) {
    os << "trace,section,name,metric,value\n";
    for (const auto& run : runs) {
        std::vector<Row> rows;
        collect(run, rows);
        for (const auto& r : rows)
            os << csv_field(run.result.trace) << "," << csv_field(r.section) << "," << csv_field(r.name) << ","
               << csv_field(r.metric) << "," << csv_field(r.value) << "\n";
    }
}

}  // namespace sbufsim
