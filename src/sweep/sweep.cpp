#include "sbufsim/sweep/sweep.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <set>

#include "sbufsim/output/json_text.h"
#include "sbufsim/output/report.h"
#include "sbufsim/trace/trace.h"
#include "sbufsim/types/number.h"
#include "sbufsim/types/text.h"

namespace sbufsim::sweep {

namespace {

// A runaway range or product (a typo such as 0:1e9) should fail fast, not fill the disk.
constexpr std::size_t kMaxPoints = 10'000'000;

ConfigError vary_error(std::string_view arg, const std::string& why) {
    return ConfigError("--vary '" + std::string(arg) + "': " + why);
}

// Where a varied value comes from, for the loader's messages: a point's invalid row says
// "[tdm.dma_slots set at --vary]".
const Origin kVaryOrigin{"--vary", 0};

// A loader's message about a --vary value, without the origin vary_error() already names.
ConfigError vary_value_error(std::string_view arg, const ConfigError& e) {
    const std::string what = e.what();
    const std::string prefix = kVaryOrigin.describe() + ": ";
    return vary_error(arg, what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what);
}

std::optional<long long> parse_int(std::string_view s) {
    long long v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

std::optional<double> parse_real(std::string_view s) {
    if (s.empty()) return std::nullopt;
    const std::string text(s);
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

ConfigError too_many_values(std::string_view arg, double values) {
    return vary_error(arg, "range has " + format_fixed(values, 0) + " values, more than the " +
                               std::to_string(kMaxPoints) + " a sweep runs; take a larger STEP");
}

// Integer ranges stay integers (the u32/u64 keys reject "2.0"); anything else counts in reals.
std::vector<std::string> expand_range(std::string_view arg, const std::vector<std::string>& parts) {
    const std::string step_text = parts.size() == 3 ? parts[2] : "1";
    const auto lo_i = parse_int(parts[0]), hi_i = parse_int(parts[1]), step_i = parse_int(step_text);
    std::vector<std::string> values;
    if (lo_i && hi_i && step_i) {
        if (*step_i <= 0) throw vary_error(arg, "range step must be > 0, got " + step_text);
        if (*hi_i < *lo_i) throw vary_error(arg, "empty range: HI " + parts[1] + " is below LO " + parts[0]);
        const unsigned long long steps =
            static_cast<unsigned long long>(*hi_i - *lo_i) / static_cast<unsigned long long>(*step_i);
        if (steps >= kMaxPoints) throw too_many_values(arg, static_cast<double>(steps) + 1);
        for (long long v = *lo_i; v <= *hi_i; v += *step_i) values.push_back(std::to_string(v));
        return values;
    }
    const auto lo = parse_real(parts[0]), hi = parse_real(parts[1]), step = parse_real(step_text);
    if (!lo || !hi || !step)
        throw vary_error(arg, "bad range: expected LO:HI or LO:HI:STEP with numbers, e.g. tdm.dma_slots=0:8:2");
    if (*step <= 0) throw vary_error(arg, "range step must be > 0, got " + step_text);
    if (*hi < *lo) throw vary_error(arg, "empty range: HI " + parts[1] + " is below LO " + parts[0]);
    // The epsilon keeps HI in the range when (HI-LO)/STEP is an integer up to rounding (0:1:0.1).
    const double n = std::floor((*hi - *lo) / *step + 1e-9);
    if (n >= static_cast<double>(kMaxPoints)) throw too_many_values(arg, n + 1);
    for (std::size_t i = 0; i <= static_cast<std::size_t>(n); ++i)
        values.push_back(format_real(*lo + static_cast<double>(i) * *step));
    return values;
}

std::vector<std::string> expand_list(std::string_view arg, std::string_view spec) {
    std::vector<std::string> values = split(spec, ',');
    for (const auto& v : values)
        if (v.empty()) throw vary_error(arg, "empty value in the list (expected V1,V2,...)");
    return values;
}

bool is_json_number(std::string_view s) {
    std::size_t i = 0;
    auto digits = [&] {
        const std::size_t start = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
        return i > start;
    };
    if (i < s.size() && s[i] == '-') ++i;
    if (i < s.size() && s[i] == '0') ++i;
    else if (!digits()) return false;
    if (i < s.size() && s[i] == '.') {
        ++i;
        if (!digits()) return false;
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        if (!digits()) return false;
    }
    return i == s.size();
}

// Messages live in one CSV cell: keep them on one line.
std::string one_line(std::string_view s) {
    std::string o;
    for (char c : s) {
        if (c == '\n') o += "; ";
        else if (c != '\r') o += c;
    }
    while (o.size() >= 2 && o.compare(o.size() - 2, 2, "; ") == 0) o.resize(o.size() - 2);
    return o;
}

}  // namespace

Axis parse_vary(std::string_view arg) {
    const auto eq = arg.find('=');
    if (eq == std::string_view::npos || eq == 0)
        throw vary_error(arg, "expected KEY=V1,V2,... or KEY=LO:HI[:STEP]");
    Axis axis{std::string(arg.substr(0, eq)), {}, std::string(arg)};
    const std::string_view spec = arg.substr(eq + 1);
    if (spec.empty()) throw vary_error(arg, "empty value list");
    const bool is_range = spec.find(':') != std::string_view::npos && spec.find(',') == std::string_view::npos;
    if (is_range) {
        const auto parts = split(spec, ':');
        if (parts.size() > 3)
            throw vary_error(arg, "bad range: expected LO:HI or LO:HI:STEP, got " + std::to_string(parts.size()) + " fields");
        axis.values = expand_range(arg, parts);
    } else {
        axis.values = expand_list(arg, spec);
    }
    return axis;
}

// Each value checked for type and range and written in canonical form, so that a table never
// holds one point under two spellings (1 and 0x1, true and yes).
void canonicalise(Axis& a, const KeySpec& k) {
    for (std::string& v : a.values) {
        try {
            v = canonical_value(k, v, kVaryOrigin);
        } catch (const ConfigError& e) {
            throw vary_value_error(a.arg, e);
        }
    }
}

// A point listed twice would run twice and be kept once: refused, naming it. Values are compared
// in canonical form (check_keys()), so 1 and 0x1 are one value.
void refuse_repeated_points(const std::vector<Axis>& axes,
                            const std::vector<std::vector<std::string>>& points, bool zip) {
    if (!zip) {
        for (const auto& a : axes) {
            std::set<std::string> seen;
            for (const auto& v : a.values)
                if (!seen.insert(v).second)
                    throw vary_error(
                        a.arg, "value '" + v + "' is listed twice (as the loader reads it); list each once");
        }
        return;
    }
    std::set<std::vector<std::string>> seen;
    for (const auto& p : points) {
        if (seen.insert(p).second) continue;
        std::string point;
        for (std::size_t i = 0; i < axes.size(); ++i) point += (i ? ", " : "") + axes[i].key + "=" + p[i];
        throw vary_error(axes.front().arg, "--zip gives the point " + point + " twice; list each point once");
    }
}

std::vector<Axis> check_keys(std::vector<Axis> axes, const LoadRequest& base) {
    for (auto& a : axes) {
        // The generation is the base's (--gen), never a point's: load_config refuses gen.name from
        // --set, so every point would be an invalid row. Said now, before any point runs.
        if (a.key == "gen.name")
            throw vary_error(
                a.arg,
                "gen.name cannot be varied: a sweep's generation is its --gen; sweep each "
                "generation into its own --out (sbufsim sweep T --gen sunda ..., --gen mariana ...)");
        if (const KeySpec* k = find_key(a.key)) {
            // Every point would replay the same simulation: refuse rather than print a flat table.
            if (!k->no_effect.empty())
                throw vary_error(a.arg, "key '" + a.key + "' is recorded but has no effect on the simulation (" +
                                            k->no_effect + "), so every point would give the same result; " +
                                            "vary a key the model reads (`sbufsim config --help` marks the recorded-only keys)");
            canonicalise(a, *k);
            continue;
        }
        LoadRequest req = base;
        req.overrides.push_back(Setting{a.key, a.values.front(), kVaryOrigin, {}});
        try {
            load_config(req);
        } catch (const ConfigError& e) {
            throw vary_value_error(a.arg, e);
        }
        throw vary_error(a.arg, "unknown key '" + a.key + "'");
    }
    return axes;
}

std::vector<std::vector<std::string>> expand(const std::vector<Axis>& axes, bool zip) {
    for (std::size_t i = 0; i < axes.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (axes[i].key == axes[j].key)
                throw vary_error(axes[i].arg, "key '" + axes[i].key + "' is already varied by --vary '" + axes[j].arg + "'");
    std::vector<std::vector<std::string>> points;
    if (zip && !axes.empty()) {
        for (const auto& a : axes)
            if (a.values.size() != axes.front().values.size())
                throw vary_error(a.arg, "--zip needs lists of one length: it has " + std::to_string(a.values.size()) +
                                            " values, --vary '" + axes.front().arg + "' has " +
                                            std::to_string(axes.front().values.size()));
        for (std::size_t i = 0; i < axes.front().values.size(); ++i) {
            std::vector<std::string> p;
            p.reserve(axes.size());
            for (const auto& a : axes) p.push_back(a.values[i]);
            points.push_back(std::move(p));
        }
        refuse_repeated_points(axes, points, true);
        return points;
    }
    refuse_repeated_points(axes, points, false);
    std::size_t total = 1;
    for (const auto& a : axes) {
        if (total > kMaxPoints / a.values.size())
            throw vary_error(a.arg, "the cartesian product exceeds " + std::to_string(kMaxPoints) + " points");
        total *= a.values.size();
    }
    // An odometer: the last axis turns fastest, so the first --vary is the outermost loop.
    std::vector<std::size_t> digit(axes.size(), 0);
    for (std::size_t n = 0; n < total; ++n) {
        std::vector<std::string> p;
        for (std::size_t i = 0; i < axes.size(); ++i) p.push_back(axes[i].values[digit[i]]);
        points.push_back(std::move(p));
        for (std::size_t i = axes.size(); i-- > 0;) {
            if (++digit[i] < axes[i].values.size()) break;
            digit[i] = 0;
        }
    }
    return points;
}

Shard parse_shard(std::string_view text) {
    const auto slash = text.find('/');
    const auto bad = [&](const std::string& why) {
        return ConfigError("--shard '" + std::string(text) + "': " + why);
    };
    if (slash == std::string_view::npos) throw bad("expected I/N, e.g. 0/4");
    const auto i = parse_int(text.substr(0, slash)), n = parse_int(text.substr(slash + 1));
    if (!i || !n) throw bad("expected I/N with integers, e.g. 0/4");
    if (*n < 1 || *n > 1'000'000) throw bad("N must be between 1 and 1000000");
    if (*i < 0 || *i >= *n) throw bad("I must be in 0.." + std::to_string(*n - 1));
    return Shard{static_cast<std::uint32_t>(*i), static_cast<std::uint32_t>(*n)};
}

std::pair<std::size_t, std::size_t> shard_range(std::size_t total, Shard s) {
    const auto at = [&](std::uint64_t k) { return static_cast<std::size_t>(k * total / s.count); };
    return {at(s.index), at(static_cast<std::uint64_t>(s.index) + 1)};
}

std::string base_digest(const LoadRequest& base, const std::string& trace, bool lenient) {
    // The effective base configuration as `run` would load it for this trace (so an edited
    // --config file or generation file counts too), and the trace's bytes.
    std::string config;
    try {
        TraceReader reader(trace);
        LoadRequest req = base;
        adopt_trace_generation(req, reader.header().generation);
        config = render_ini(load_config(req), false);
    } catch (const std::exception& e) {
        config = std::string("unloadable: ") + e.what();
    }
    if (lenient) config += "\x1flenient";
    return hex16(fnv1a64(config + '\x1f' + file_digest(trace)));
}

std::string base_settings(const LoadRequest& base, bool lenient) {
    std::vector<std::string> parts;
    if (!base.generation.empty()) parts.push_back("gen=" + base.generation);
    for (const auto& f : base.user_files) parts.push_back("config=" + f);
    for (const auto& s : base.overrides) parts.push_back(s.key + "=" + s.value);
    if (lenient) parts.emplace_back("lenient");
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : " ") + p;
    return out;
}

std::vector<std::string> point_notes(const LoadRequest& base, const std::vector<Axis>& axes,
                                     const std::vector<std::vector<std::string>>& points,
                                     std::size_t max_points) {
    std::vector<std::string> notes;
    // Without a throttler axis every point notes what the first does (the base's settings).
    if (std::none_of(axes.begin(), axes.end(),
                     [](const Axis& a) { return a.key.rfind("throttler.", 0) == 0; }))
        max_points = std::min<std::size_t>(max_points, 1);
    for (std::size_t p = 0; p < points.size() && p < max_points; ++p) {
        LoadRequest req = base;
        for (std::size_t i = 0; i < axes.size(); ++i)
            req.overrides.push_back(Setting{axes[i].key, points[p][i], kVaryOrigin, {}});
        try {
            for (std::string& n : settings_without_effect(load_config(req)))
                if (std::find(notes.begin(), notes.end(), n) == notes.end()) notes.push_back(std::move(n));
        } catch (const ConfigError&) {
            // the point's row says why it is invalid
        }
    }
    return notes;
}

std::vector<Job> make_jobs(const std::vector<std::string>& traces, const std::vector<Axis>& axes,
                           const std::vector<std::vector<std::string>>& points,
                           const std::vector<std::string>& metrics) {
    std::vector<Job> jobs;
    for (const auto& trace : traces)
        for (const auto& p : points) {
            Job j{jobs.size(), trace, {}, p, {}, metrics};
            for (std::size_t i = 0; i < axes.size(); ++i)
                j.overrides.push_back(Setting{axes[i].key, p[i], kVaryOrigin, {}});
            jobs.push_back(std::move(j));
        }
    return jobs;
}

namespace {

Metric from_registry(const MetricInfo& m) { return {m.name, m.better, m.description, m.unit}; }

}  // namespace

const std::vector<Metric>& metrics() {
    // The headline columns every sweep table has, in the order of earlier tables.
    static const std::vector<Metric> m = [] {
        std::vector<Metric> v;
        for (const char* name : {"total_cycles", "time_ns", "pe_utilisation", "bank_conflict_stalls",
                                 "bank_conflict_pe", "bank_conflict_act", "bank_conflict_pool", "bank_conflict_dve",
                                 "bank_conflict_dma", "bank_conflict_q7", "bank_conflict_psum", "tdm_stalls",
                                 "throttle_stalls", "dma_gbps", "worst_p99_latency", "worst_p99_client",
                                 "jain_fairness"})
            v.push_back(from_registry(*find_metric_info(name)));
        return v;
    }();
    return m;
}

std::optional<Metric> find_metric(std::string_view name) {
    const auto m = find_metric_info(name);
    if (!m) return std::nullopt;
    return from_registry(*m);
}

std::vector<std::string> metric_names(const std::vector<std::string>& extra) {
    std::vector<std::string> names;
    for (const auto& m : metrics()) names.push_back(m.name);
    for (const auto& e : extra) {
        if (!find_metric_info(e))
            throw ConfigError("metric '" + e + "': not a registered metric" + metric_suggestion(e) +
                              " (sbufsim run --list-metrics lists them)");
        if (std::find(names.begin(), names.end(), e) == names.end()) names.push_back(e);
    }
    return names;
}

std::vector<std::string> columns(const std::vector<Axis>& axes, const std::vector<std::string>& metrics) {
    std::vector<std::string> c{"trace"};
    for (const auto& a : axes) c.push_back(a.key);
    c.insert(c.end(), metrics.begin(), metrics.end());
    c.push_back("base");          // the base settings as given (base_settings())
    c.push_back("base_digest");   // the row's base configuration and trace (resume keeps current ones)
    c.push_back("status");
    c.push_back("message");
    return c;
}

std::string format_real(double v) { return format_number(v); }

std::vector<std::string> metric_cells(const ReplayResult& r, const std::vector<std::string>& metrics) {
    return metric_values(metrics, r);
}

Row make_row(const Job& job, const std::vector<std::string>& cells, std::string_view status,
             std::string_view message) {
    Row row{job.trace};
    row.insert(row.end(), job.values.begin(), job.values.end());
    if (status == kStatusOk && cells.size() != job.metrics.size())
        throw std::logic_error("sweep row of " + job.trace + ": " + std::to_string(cells.size()) + " metric cells for " +
                               std::to_string(job.metrics.size()) + " metric columns");
    if (status == kStatusOk)
        row.insert(row.end(), cells.begin(), cells.end());
    else
        row.resize(row.size() + job.metrics.size());
    row.push_back(job.base);
    row.push_back(job.base_digest);   // every row, whatever its status: resume compares it
    row.emplace_back(status);
    row.push_back(one_line(message));
    return row;
}

Row run_job(const LoadRequest& base, const Job& job) {
    try {
        TraceReader reader(job.trace);
        LoadRequest req = base;
        adopt_trace_generation(req, reader.header().generation);  // as `sbufsim run`
        req.overrides.insert(req.overrides.end(), job.overrides.begin(), job.overrides.end());
        LoadedConfig cfg;
        try {
            cfg = load_config(req);
        } catch (const ConfigError& e) {
            return make_row(job, {}, kStatusInvalid, e.what());
        }
        ReplayOptions options;
        options.lenient = job.lenient;
        return make_row(job, metric_cells(replay(cfg.params, reader, options), job.metrics), kStatusOk, "");
    } catch (const TraceFormatError& e) {
        return make_row(job, {}, kStatusError, e.error().to_string());
    } catch (const std::exception& e) {
        return make_row(job, {}, kStatusError, e.what());
    }
}

std::string csv_line(const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        if (i) line += ',';
        const std::string& c = cells[i];
        if (c.find_first_of(",\"\n\r") == std::string::npos) {
            line += c;
            continue;
        }
        line += '"';
        for (char ch : c) {
            if (ch == '"') line += '"';
            line += ch;
        }
        line += '"';
    }
    return line;
}

std::optional<std::vector<std::string>> parse_csv_line(std::string_view line) {
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c != '"') cells.back() += c;
            else if (i + 1 < line.size() && line[i + 1] == '"') cells.back() += '"', ++i;
            else quoted = false;
        } else if (c == '"' && cells.back().empty()) {
            quoted = true;
        } else if (c == ',') {
            cells.emplace_back();
        } else {
            cells.back() += c;
        }
    }
    if (quoted) return std::nullopt;  // cut off inside a quoted cell
    return cells;
}

void write_json(std::ostream& os, const std::vector<std::string>& columns, const std::vector<Row>& rows) {
    os << "[";
    for (std::size_t r = 0; r < rows.size(); ++r) {
        os << (r ? ",\n  {" : "\n  {");
        for (std::size_t c = 0; c < columns.size() && c < rows[r].size(); ++c) {
            const std::string& v = rows[r][c];
            os << (c ? ", " : "") << json_string(columns[c]) << ": ";
            // Numbers stay numbers for pandas/jq; a missing result is null, not "".
            const bool text_column = c == 0 || columns[c] == "status" || columns[c] == "message" ||
                                     columns[c] == "base" || columns[c] == "base_digest" ||
                                     columns[c] == "worst_p99_client";
            // A bool key's value, as the loader writes it, is a JSON boolean.
            if (v.empty() && !text_column) os << "null";
            else if (!text_column && (is_json_number(v) || v == "true" || v == "false"))
                os << v;
            else os << json_string(v);
        }
        os << "}";
    }
    os << (rows.empty() ? "]\n" : "\n]\n");
}

std::vector<Row> read_existing(const std::string& path, const std::vector<std::string>& columns) {
    std::ifstream in(path);
    std::vector<Row> rows;
    if (!in) return rows;
    const std::size_t status_col = columns.size() - 2;
    std::string line;
    bool first = true;
    while (std::getline(in, line)) {
        auto cells = parse_csv_line(line);
        if (first && cells && !cells->empty() && cells->front() == "trace") {
            if (*cells != columns)
                throw ConfigError(path + ": its header is not this sweep's columns (" + line +
                                  "); write to another --out file or delete it");
            first = false;
            continue;
        }
        first = false;
        if (!cells || cells->size() != columns.size()) continue;  // a row cut off mid-write
        if ((*cells)[status_col] == kStatusCrashed || (*cells)[status_col] == kStatusTimeout) continue;  // retry
        rows.push_back(std::move(*cells));
    }
    return rows;
}

std::string trace_key(const std::string& path) {
    std::error_code ec;
    const std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
    const std::string key = ec ? std::filesystem::path(path).lexically_normal().string() : p.string();
    return key.empty() ? path : key;
}

std::string row_key(const Row& row, std::size_t axes) {
    // A unit separator cannot occur in a trace path or a config value typed on a command line.
    std::string key;
    for (std::size_t i = 0; i <= axes && i < row.size(); ++i)
        key += (i == 0 ? trace_key(row[i]) : row[i]) + '\x1f';
    return key;
}

void sort_by_point(std::vector<Row>& rows, std::size_t axes) {
    // Per column, each cell's sort key: its number when every cell of the column is one, else
    // the rank of its first appearance. Traces (column 0) always go by first appearance.
    std::vector<std::vector<double>> keys(rows.size(), std::vector<double>(axes + 1));
    for (std::size_t c = 0; c <= axes; ++c) {
        bool numeric = c > 0;
        for (std::size_t r = 0; r < rows.size() && numeric; ++r)
            numeric = c < rows[r].size() && parse_real(rows[r][c]);
        std::map<std::string, double> seen;
        std::map<std::string, std::string> canonical;  // trace_key() asks the file system
        for (std::size_t r = 0; r < rows.size(); ++r) {
            std::string cell = c < rows[r].size() ? rows[r][c] : "";
            if (c == 0) {
                auto it = canonical.find(cell);
                if (it == canonical.end()) it = canonical.emplace(cell, trace_key(cell)).first;
                cell = it->second;
            }
            keys[r][c] = numeric ? *parse_real(cell)
                                 : seen.emplace(cell, static_cast<double>(seen.size())).first->second;
        }
    }
    std::vector<std::size_t> order(rows.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
    std::vector<Row> sorted;
    sorted.reserve(rows.size());
    for (const auto i : order) sorted.push_back(std::move(rows[i]));
    rows = std::move(sorted);
}

namespace {

// A row's value of `metric`: none for a row that is not ok or lacks the column.
struct MetricCell {
    MetricCell(const std::vector<std::string>& columns, const Metric& metric)
        : col(static_cast<std::size_t>(std::find(columns.begin(), columns.end(), metric.name) -
                                       columns.begin())),
          status_col(columns.size() - 2) {}
    std::optional<double> operator()(const Row& r) const {
        if (col >= r.size() || r[status_col] != kStatusOk) return std::nullopt;
        return parse_real(r[col]);
    }
    std::size_t col, status_col;
};

// The cells of `metrics`, in order (rank() and ties_at_best() compare rows by them).
std::vector<MetricCell> metric_cells(const std::vector<std::string>& columns,
                                     const std::vector<Metric>& metrics) {
    std::vector<MetricCell> cells;
    cells.reserve(metrics.size());
    for (const Metric& m : metrics) cells.emplace_back(columns, m);
    return cells;
}

}  // namespace

std::vector<std::size_t> rank(const std::vector<std::string>& columns, const std::vector<Row>& rows,
                              const std::vector<Metric>& metrics) {
    const std::vector<MetricCell> cells = metric_cells(columns, metrics);
    std::vector<std::size_t> order(rows.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        for (std::size_t k = 0; k < metrics.size(); ++k) {
            const auto va = cells[k](rows[a]), vb = cells[k](rows[b]);
            if (!va || !vb) {
                if (va.has_value() != vb.has_value()) return va.has_value();
                continue;
            }
            if (*va != *vb) return metrics[k].better == Better::higher ? *va > *vb : *va < *vb;
        }
        return false;
    });
    return order;
}

std::size_t ties_at_best(const std::vector<std::string>& columns, const std::vector<Row>& rows,
                         const std::vector<std::size_t>& ranked, const std::vector<Metric>& metrics) {
    const std::vector<MetricCell> cells = metric_cells(columns, metrics);
    if (ranked.empty() || cells.empty() || !cells[0](rows[ranked[0]])) return 0;
    const Row& best = rows[ranked[0]];
    std::size_t n = 0;
    for (const std::size_t i : ranked)
        n += std::all_of(cells.begin(), cells.end(), [&](const MetricCell& value) {
            return value(rows[i]) == value(best);  // optionals: both empty, or the same text's double
        });
    return n;
}

std::vector<std::string> keys_without_effect(const std::vector<std::string>& columns,
                                             const std::vector<Row>& rows, std::size_t axes) {
    // Row layout (columns()): trace, the varied keys, the metrics, the trailing columns.
    const std::size_t first_metric = 1 + axes, end_metric = columns.size() - kTrailingColumns,
                      status_col = columns.size() - 2;
    std::vector<std::string> out;
    for (std::size_t k = 1; k <= axes; ++k) {
        // The first ok row of each group of rows that differ at most in key k.
        std::map<std::vector<std::string>, const Row*> first;
        bool compared = false, changed = false;
        for (const Row& r : rows) {
            if (r.size() != columns.size() || r[status_col] != kStatusOk) continue;
            std::vector<std::string> group(r.begin(), r.begin() + static_cast<std::ptrdiff_t>(first_metric));
            group[k].clear();
            const auto [at, fresh] = first.emplace(std::move(group), &r);
            if (fresh || (*at->second)[k] == r[k]) continue;
            compared = true;
            if (!std::equal(r.begin() + static_cast<std::ptrdiff_t>(first_metric),
                            r.begin() + static_cast<std::ptrdiff_t>(end_metric),
                            at->second->begin() + static_cast<std::ptrdiff_t>(first_metric))) {
                changed = true;
                break;
            }
        }
        if (compared && !changed) out.push_back(columns[k]);
    }
    return out;
}

}  // namespace sbufsim::sweep
