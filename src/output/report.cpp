#include "sbufsim/output/report.h"

#include "sbufsim/output/line_profile.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sbufsim/config/config.h"
#include "sbufsim/output/bottleneck.h"
#include "sbufsim/output/json_text.h"
#include "sbufsim/output/line_profile.h"
#include "sbufsim/output/metrics.h"
#include "sbufsim/types/number.h"
#include "sbufsim/types/text.h"

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

std::string json_value(const MetricValue& v) {
    return v.kind == MetricValue::Kind::text ? json_string(v.text) : v.str();
}

std::string col(const std::string& s, std::size_t w, bool right = true) {
    if (s.size() >= w) return " " + s;
    return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

double share(Cycle part, Cycle total) {
    return total ? static_cast<double>(part) / static_cast<double>(total) : 0;
}

}  // namespace

bool nothing_to_gain(const Finding& f) { return f.advice.rfind("nothing to gain", 0) == 0; }

void print_critical_path(std::ostream& os, const ReplayResult& r, const Bottleneck& b) {
    const CriticalPathStats& cp = r.critical_path;
    std::uint64_t on_path = 0;
    for (const PathGroup& g : b.path) on_path += g.instructions;
    os << "critical path: " << on_path << (on_path == 1 ? " instruction, " : " instructions, ")
       << cp.semaphore_edges << (cp.semaphore_edges == 1 ? " semaphore wait, " : " semaphore waits, ")
       << cp.queue_edges << (cp.queue_edges == 1 ? " queue-order step" : " queue-order steps")
       << "; cycles by engine and cause (sum = " << r.total_cycles << ")\n"
       << col("engine", 10, false) << col("cycles", 11) << col("share", 7);
    for (std::size_t c = 0; c < kPathCauses; ++c) os << col(to_string(static_cast<PathCause>(c)), 11);
    os << col("instr", 8) << "\n";
    for (const PathGroup& g : b.path) {
        os << col(g.name, 10, false) << col(std::to_string(g.total()), 11)
           << col(format_fixed(100 * share(g.total(), r.total_cycles), 1), 7);
        for (std::size_t c = 0; c < kPathCauses; ++c) os << col(std::to_string(g.cycles[c]), 11);
        os << col(std::to_string(g.instructions), 8) << "\n";
    }
}

void print_bottleneck(std::ostream& os, const ReplayResult& r, const Bottleneck& b) {
    os << b.verdict << "\n";
    if (!b.headroom.empty()) os << b.headroom << "\n";
    print_critical_path(os, r, b);
    // MFU counts dense bf16 MACs per PE and cycle: fp8 double-row and MX matmuls go past 100 %.
    os << "utilisation: PE " << format_fixed(100 * b.pe_utilisation, 1) << " %, MFU "
       << format_fixed(100 * b.mfu, 1) << (b.mfu > 1 ? " % of the bf16 peak" : " %") << ", SBUF banks "
       << format_fixed(100 * b.sbuf_bank_utilisation, 1) << " %, PSUM banks "
       << format_fixed(100 * b.psum_bank_utilisation, 1) << " %, DMA bandwidth "
       << format_fixed(100 * b.dma_bandwidth_utilisation, 1) << " % of " << format_fixed(r.dma_peak_gbps, 0)
       << " GB/s";
    // HBM traffic has a lower ceiling than the engines' sum (dma.hbm_gbps): its own share of it.
    if (r.hbm_peak_gbps > 0 && r.hbm_bytes() > 0)
        os << ", HBM " << format_fixed(100 * b.hbm_bandwidth_utilisation, 1) << " % of "
           << format_number(r.hbm_peak_gbps, 4) << " GB/s";
    os << "\n";
    if (!b.findings.empty()) os << "findings\n";
    for (std::size_t i = 0; i < b.findings.size(); ++i)
        os << "  " << i + 1 << ". " << b.findings[i].text << "\n     try: " << b.findings[i].advice << "\n";
}

namespace {

// The engine table: statistics of the registry's engine section (metrics.h), so a column and the
// report field of the same name are one value. A fraction shows as a percentage.
struct EngineColumn {
    const char* header;
    std::size_t width;
    const char* field;  // engine.<engine>.<field>
};
constexpr EngineColumn kEngineColumns[] = {{"instr", 8, "instructions"},
                                           {"compute", 11, "compute_cycles"},
                                           {"bank wait", 11, "bank_wait_cycles"},
                                           {"sem wait", 11, "semaphore_wait_cycles"},
                                           {"port wait", 11, "port_wait_cycles"},
                                           {"idle", 11, "idle_cycles"},
                                           {"busy%", 7, "busy_share"},
                                           {"read B", 12, "bytes_read"},
                                           {"written B", 12, "bytes_written"}};

void print_engine_table(std::ostream& os, const ReplayResult& r, const Bottleneck& b) {
    // The port-wait column only where an NC-v2 shared port held an engine back.
    const bool ports =
        std::any_of(b.engines.begin(), b.engines.end(), [](const EngineBreakdown& e) { return e.port_wait; });
    auto shown = [&](const EngineColumn& c) {
        return ports || std::string_view(c.field) != "port_wait_cycles";
    };
    os << "\nengines (cycles; compute + bank wait + semaphore wait + " << (ports ? "port wait + " : "")
       << "idle = " << r.total_cycles << ")\n"
       << col("engine", 10, false);
    std::vector<std::string> names;
    for (const EngineColumn& c : kEngineColumns) {
        if (!shown(c)) continue;
        os << col(c.header, c.width);
        for (const EngineBreakdown& e : b.engines) names.push_back("engine." + e.name + "." + c.field);
    }
    os << "\n";
    const std::vector<std::optional<MetricValue>> values = metric_typed_values(names, r);
    std::vector<TableRow> rows;
    for (std::size_t i = 0; i < b.engines.size(); ++i) {
        TableRow row{b.engines[i].name, {}};
        std::size_t column = 0;
        for (const EngineColumn& c : kEngineColumns) {
            if (!shown(c)) continue;
            const std::optional<MetricValue>& v = values[column++ * b.engines.size() + i];
            const bool fraction = v && v->kind == MetricValue::Kind::real;
            row.figures += col(!v ? "" : fraction ? format_fixed(100 * v->real, 1) : v->str(), c.width);
        }
        rows.push_back(std::move(row));
    }
    rows = merge_numbered_rows(rows);
    for (const TableRow& row : rows) os << col(row.name, 10, false) << row.figures << "\n";
    os << merged_rows_note(rows, "engine");
}

// The DMA engines that moved data, one line each (engines alike merged).
void print_dma_engines(std::ostream& os, const ReplayResult& r) {
    std::vector<TableRow> rows;
    for (std::size_t i = 0; i < r.dma.size(); ++i) {
        const DmaStats& s = r.dma[i];
        if (!s.descriptors) continue;
        const double ns = r.pe_clock_ghz > 0 ? static_cast<double>(s.data_cycles) / r.pe_clock_ghz : 0;
        rows.push_back({"dma_" + std::to_string(i),
                        std::to_string(s.descriptors) + " descriptors, " + std::to_string(s.bytes) + " B, " +
                            std::to_string(s.transposes) + " transposes, " +
                            format_fixed(ns > 0 ? static_cast<double>(s.bytes) / ns : 0, 2) +
                            " GB/s while active"});
    }
    for (const TableRow& row : merge_numbered_rows(rows))
        os << "\n  " << row.name << ": " << (row.count > 1 ? "each " : "") << row.figures;
}

}  // namespace

void print_totals(std::ostream& os, const ReplayResult& r) {
    os << "total " << r.total_cycles << " cycles = " << format_fixed(r.time_ns(), 1) << " ns at the PE clock "
       << format_fixed(r.pe_clock_ghz, 2) << " GHz;  " << r.records << " records (" << r.instructions
       << " instructions, " << r.access_records << " access records";
    if (r.skipped) os << ", " << r.skipped << " invalid record" << (r.skipped == 1 ? "" : "s") << " skipped";
    os << ")\n";
}

void print_summary(std::ostream& os, const RunReport& rep, Detail detail) {
    if (detail == Detail::brief) return print_brief(os, rep);
    const ReplayResult& r = rep.result;
    const Stats& k = r.kernel;
    os << "trace " << r.trace << "  (gen " << r.generation << ", scheduler " << rep.info.scheduler
       << ", digest " << rep.info.trace_digest << ", config " << rep.info.config_hash << ")\n";
    print_totals(os, r);
    if (r.races)
        os << "races: " << r.races << " pair" << (r.races == 1 ? "" : "s")
           << " of instructions on different queues touch the same bytes, one writing, with no wait ordering "
              "them;"
              " the run times each as it happens to fall, so its figures may not hold (listed at the end)\n";
    os << "\n";

    const Bottleneck b = analyse(r);
    print_bottleneck(os, r, b);
    print_engine_table(os, r, b);
    print_line_profile(os, line_profile(r), 15);

    const ArrSeqStats& a = r.arr_seq;
    os << "\nPE array: utilisation " << format_fixed(100 * r.pe_utilisation(), 1) << "% (" << a.pe_stream
       << " streaming cycles, " << a.pe_busy << " busy), " << a.matmuls << " matmuls, " << a.ldweights
       << " ldweights"
       << (a.ldweights_replaced ? " (" + std::to_string(a.ldweights_replaced) + " replaced unused)" : "")
       << (a.ramp_cycles ? ", TensorE throttle " + std::to_string(a.ramp_cycles) + " cycles" : "")
       << ", weight wait " << a.weight_wait << ", stationary wait " << a.stationary_wait
       << ", p2fifo back-pressure " << a.backpressure_cycles << " cycles\n";
    if (!a.shapes.empty()) {
        os << "  matmuls by tile shape (rows x cols):";
        for (const auto& [shape, n] : a.shapes) os << "  " << shape << " " << n;
        os << "\n";
    }
    os << "PSUM groups: " << a.groups_begun << " begun, " << a.groups_ended << " ended, peak "
       << a.peak_open_groups << " open, " << a.group_limit_exceeded << " over the limit; "
       << a.psum_banks_zeroed << " banks zeroed, " << a.psum_write_bytes << " B written, "
       << a.psum_accumulate_bytes << " B accumulated\n";
    os << "DMA: " << r.dma_bytes() << " B, achieved " << format_fixed(r.dma_gbps(), 2)
       << " GB/s over the run";
    print_dma_engines(os, r);
    os << "\n";
    // Beat-cycles are per client and overlap in time, so their sum is no part of the run's cycles;
    // a PE client waiting its stage-1 turn while another quadrant's beat uses the port costs the
    // engine nothing (the moving stream is paced by the array), and a request waiting for an
    // earlier one is ordering, not contention.
    os << "client beat-cycles stalled (summed over clients, overlapping in time)\n  lost to other traffic:";
    for (StallCause c :
         {StallCause::bank_conflict, StallCause::tdm, StallCause::throttle, StallCause::psum_backpressure})
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
    if (!r.race_errors.empty()) {
        os << "\nraces (first " << r.race_errors.size() << " of " << r.races
           << "; sbufsim check lists them all)\n";
        for (const auto& e : r.race_errors) os << "  " << e.to_string() << "\n";
    }
}

void write_json(std::ostream& os, const std::vector<RunReport>& runs) {
    os << "{\n  \"tool\": \"sbufsim\",\n  \"version\": " << json_string(SBUFSIM_VERSION)
       << ",\n  \"runs\": [";
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const std::vector<ReportRow> rows = report_rows(runs[i]);
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
                           << json_value(rows[j].value);
                        first = false;
                        ++j;
                    }
                    os << "}";
                } else {
                    os << (first_name ? "" : ",") << "\n        " << json_string(rows[j].metric) << ": "
                       << json_value(rows[j].value);
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
        for (const ReportRow& r : report_rows(run))
            os << csv_field(run.result.trace) << "," << csv_field(r.section) << "," << csv_field(r.name)
               << "," << csv_field(r.metric) << "," << csv_field(r.value.str()) << "\n";
    }
}

void write_stats(std::ostream& os, const std::vector<RunReport>& runs) {
    for (const RunReport& run : runs) {
        os << kStatsBegin << " " << run.result.trace << " ----------\n";
        for (const ReportRow& r : report_rows(run)) {
            std::string name = r.section + (r.name.empty() ? "" : "." + r.name) + "." + r.metric;
            std::string value = r.value.str();
            std::replace(value.begin(), value.end(), '\n', ' ');
            name.resize(std::max<std::size_t>(name.size() + 1, 48), ' ');
            value.resize(std::max<std::size_t>(value.size() + 1, 16), ' ');
            os << name << value << "# ";
            if (!r.info) {
                os << "--window-stats row\n";
                continue;
            }
            os << r.info->description;
            if (!r.info->unit.empty()) os << " (" << r.info->unit << ")";
            os << "\n";
        }
        os << "---------- End sbufsim statistics ----------\n";
    }
}

}  // namespace sbufsim
