#include "sbufsim/output/line_profile.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>
#include <string_view>
#include <utility>

#include "sbufsim/trace/trace.h"
#include "sbufsim/types/number.h"

namespace sbufsim {

namespace {

constexpr const char* kNoLocation = "(no location)";

// The engine group whose instructions use a kernel client (clients.h names).
EngineGroup group_of_client(const std::string& name) {
    if (name.starts_with("pe_")) return EngineGroup::pe;
    if (name.starts_with("act_")) return EngineGroup::act;
    if (name.starts_with("pool_")) return EngineGroup::pool;
    if (name.starts_with("dve_")) return EngineGroup::dve;
    if (name.starts_with("q7_")) return EngineGroup::q7;
    return EngineGroup::dma;
}

void add(SiteCounters& to, const SiteCounters& c) {
    to.instructions += c.instructions;
    for (std::size_t g = 0; g < kEngineGroups; ++g) {
        to.busy[g] += c.busy[g];
        to.bank_wait[g] += c.bank_wait[g];
    }
    to.sem_wait += c.sem_wait;
    to.dma_bytes += c.dma_bytes;
    to.critical += c.critical;
}

// `total` split over `weights` in proportion, in whole cycles that add up to it (largest
// remainders first, ties to the earlier row). All weights zero: all to row 0 (no location).
void apportion(std::uint64_t total, const std::vector<std::uint64_t>& weights,
               std::vector<std::uint64_t>& out) {
    unsigned __int128 sum = 0;
    for (std::uint64_t w : weights) sum += w;
    if (total == 0) return;
    if (sum == 0) {
        out[0] += total;
        return;
    }
    std::vector<std::pair<unsigned __int128, std::size_t>> rest;
    std::uint64_t given = 0;
    for (std::size_t i = 0; i < weights.size(); ++i) {
        const unsigned __int128 p = static_cast<unsigned __int128>(total) * weights[i];
        const auto whole = static_cast<std::uint64_t>(p / sum);
        out[i] += whole;
        given += whole;
        rest.emplace_back(p % sum, i);
    }
    std::stable_sort(rest.begin(), rest.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t k = 0; given < total; ++k, ++given) ++out[rest[k % rest.size()].second];
}

// The kernel's stall cycles of each client and cause, apportioned to the rows by their bank wait
// on the client's engine group (the cycles their instructions were held by queued requests), or
// their busy time there when the group had no bank wait.
void apportion_stalls(const Stats& k, std::vector<LineRow>& rows) {
    std::vector<std::uint64_t> weights(rows.size()), share(rows.size());
    for (const ClientStats& cs : k.clients) {
        const auto g = static_cast<std::size_t>(group_of_client(cs.name));
        std::uint64_t wait = 0;
        for (const LineRow& r : rows) wait += r.c.bank_wait[g];
        for (std::size_t i = 0; i < rows.size(); ++i)
            weights[i] = wait ? rows[i].c.bank_wait[g] : rows[i].c.busy[g];
        for (std::size_t cause = 0; cause < kStallCauses; ++cause) {
            std::fill(share.begin(), share.end(), 0);
            apportion(cs.stalls[cause], weights, share);
            for (std::size_t i = 0; i < rows.size(); ++i) rows[i].stalls[cause] += share[i];
        }
    }
}

}  // namespace

Cycle LineRow::busy() const {
    Cycle n = 0;
    for (Cycle b : c.busy) n += b;
    return n;
}

std::uint64_t LineRow::total_stalls() const {
    std::uint64_t n = 0;
    for (std::uint64_t s : stalls) n += s;
    return n;
}

LineProfile line_profile(const ReplayResult& r) {
    LineProfile out;
    if (r.sites.empty()) return out;
    std::map<std::string, std::size_t> by_key;
    std::vector<LineRow> rows(1);
    rows[0].key = kNoLocation;
    for (std::size_t i = 0; i < r.sites.size() && i < r.site_profile.size(); ++i) {
        std::size_t row = 0;
        if (i > 0) {
            const SiteParts p = split_site(r.sites[i]);
            const auto [it, fresh] = by_key.emplace(std::string(p.key), rows.size());
            if (fresh) {
                rows.emplace_back();
                rows.back().key = p.key;
                rows.back().file = p.file;
                rows.back().line = p.line;
            }
            row = it->second;
            if (rows[row].function.empty()) rows[row].function = p.function;
            const std::string call(p.call);  // a generator step's name is its key already
            std::string& calls = rows[row].calls;
            if (!call.empty() && (", " + calls + ", ").find(", " + call + ", ") == std::string::npos)
                calls += (calls.empty() ? "" : ", ") + call;
        }
        add(rows[row].c, r.site_profile[i]);
    }
    apportion_stalls(r.kernel, rows);
    for (LineRow& row : rows) {
        row.critical_share =
            r.total_cycles ? static_cast<double>(row.c.critical) / static_cast<double>(r.total_cycles) : 0;
        const Cycle dma = row.c.busy[static_cast<std::size_t>(EngineGroup::dma)];
        row.dma_gbps =
            dma ? static_cast<double>(row.c.dma_bytes) / static_cast<double>(dma) * r.pe_clock_ghz : 0;
        add(out.total.c, row.c);
        for (std::size_t s = 0; s < kStallCauses; ++s) out.total.stalls[s] += row.stalls[s];
    }
    out.total.key = "total";
    out.total.critical_share =
        r.total_cycles ? static_cast<double>(out.total.c.critical) / static_cast<double>(r.total_cycles) : 0;
    // The records without a location: a row only when something of the run is theirs.
    const LineRow& none = rows[0];
    if (none.c == SiteCounters{} && none.total_stalls() == 0) rows.erase(rows.begin());
    std::stable_sort(rows.begin(), rows.end(), [](const LineRow& a, const LineRow& b) {
        if (a.c.critical != b.c.critical) return a.c.critical > b.c.critical;
        if (a.busy() != b.busy()) return a.busy() > b.busy();
        return a.key < b.key;
    });
    out.rows = std::move(rows);
    return out;
}

void print_line_profile(std::ostream& os, const LineProfile& p, std::size_t max_rows) {
    if (p.empty()) return;
    std::size_t w = 5;
    const std::size_t n = max_rows ? std::min(max_rows, p.rows.size()) : p.rows.size();
    for (std::size_t i = 0; i < n; ++i) w = std::max(w, p.rows[i].key.size() + 1 + p.rows[i].calls.size());
    auto pad = [](std::string s, std::size_t width, bool right) {
        if (s.size() >= width) return s;
        return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
    };
    os << "\nby source line (critical path first; stalls apportioned by each line's bank wait):\n";
    os << "  " << pad("line", w, false) << pad("crit %", 8, true) << pad("crit cyc", 11, true)
       << pad("busy", 11, true) << pad("bank", 10, true) << pad("tdm", 9, true) << pad("thrtl", 9, true)
       << pad("psum bp", 9, true) << pad("sem wait", 10, true) << pad("DMA MiB", 9, true)
       << pad("GB/s", 7, true) << pad("instr", 8, true) << "\n";
    auto row = [&](const LineRow& r, const std::string& label) {
        auto st = [&](StallCause c) { return std::to_string(r.stalls[static_cast<std::size_t>(c)]); };
        os << "  " << pad(label, w, false) << pad(format_fixed(100 * r.critical_share, 1), 8, true)
           << pad(std::to_string(r.c.critical), 11, true) << pad(std::to_string(r.busy()), 11, true)
           << pad(st(StallCause::bank_conflict), 10, true) << pad(st(StallCause::tdm), 9, true)
           << pad(st(StallCause::throttle), 9, true) << pad(st(StallCause::psum_backpressure), 9, true)
           << pad(std::to_string(r.c.sem_wait), 10, true)
           << pad(format_fixed(static_cast<double>(r.c.dma_bytes) / (1024.0 * 1024.0), 2), 9, true)
           << pad(r.dma_gbps > 0 ? format_fixed(r.dma_gbps, 1) : "-", 7, true)
           << pad(std::to_string(r.c.instructions), 8, true) << "\n";
    };
    for (std::size_t i = 0; i < n; ++i)
        row(p.rows[i], p.rows[i].key + (p.rows[i].calls.empty() ? "" : " " + p.rows[i].calls));
    if (n < p.rows.size()) os << "  ... " << p.rows.size() - n << " more lines (all in --json / --csv)\n";
    row(p.total, "total");
}

bool annotate_source(std::ostream& out, std::ostream& err, const ReplayResult& r, const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    if (in) text << in.rdbuf();
    if (!in || in.bad()) {
        err << "sbufsim run: --annotate " << path
            << ": cannot read it (the kernel source whose lines to show)\n";
        return false;
    }
    const LineProfile p = line_profile(r);
    out << "\n";
    if (print_annotated(out, p, path, text.str()) == 0)
        err << "sbufsim run: note: --annotate " << path << ": "
            << (p.empty() ? "the trace has no source locations (loc=, docs/trace-format.md)"
                          : "the trace's records name no line of that file (they name " + p.rows.front().key +
                                ", ...)")
            << "\n";  // not the trace's path: under `sbufsim nki` it is a scratch file
    return true;
}

namespace {

// The kernel source in lines, with what the excerpt needs of Python's layout: each line's
// indentation (-1 for a blank or comment-only line, or one inside a triple-quoted string: they
// neither open nor close a block).
struct SourceLines {
    std::vector<std::string_view> text;  // [0] is line 1
    std::vector<int> indent;
};

std::size_t count_of(std::string_view line, std::string_view what) {
    std::size_t n = 0;
    for (std::size_t at = line.find(what); at != std::string_view::npos;
         at = line.find(what, at + what.size()))
        ++n;
    return n;
}

SourceLines split_lines(std::string_view source) {
    SourceLines s;
    bool in_string = false;  // inside a triple-quoted string at the line's start
    std::size_t from = 0;
    while (from < source.size()) {
        const std::size_t end = std::min(source.find('\n', from), source.size());
        std::string_view line = source.substr(from, end - from);
        if (line.ends_with('\r')) line.remove_suffix(1);
        from = end + 1;
        const std::size_t first = line.find_first_not_of(" \t");
        const bool blank = first == std::string_view::npos || line[first] == '#';
        s.text.push_back(line);
        s.indent.push_back(blank || in_string ? -1 : static_cast<int>(first));
        if ((count_of(line, "\"\"\"") + count_of(line, "'''")) % 2) in_string = !in_string;
    }
    return s;
}

// Whether the line is `def NAME(` (any def when `name` is empty), `async def` too.
bool is_def(std::string_view line, std::string_view name) {
    line.remove_prefix(std::min(line.find_first_not_of(" \t"), line.size()));
    if (line.starts_with("async ")) line.remove_prefix(std::min(line.find_first_not_of(' ', 5), line.size()));
    if (!line.starts_with("def ")) return false;
    line.remove_prefix(std::min(line.find_first_not_of(' ', 4), line.size()));
    if (name.empty()) return true;
    return line.starts_with(name) && line.size() > name.size() &&
           (line[name.size()] == '(' || line[name.size()] == ' ');
}

// The `def` line (0-based) of the function holding line `n`: the one named `function` before it
// when the records name it, else the innermost def around it by indentation; none: size().
std::size_t def_around(const SourceLines& s, std::size_t n, std::string_view function) {
    int inner = s.indent[n] >= 0 ? s.indent[n] : 1 << 20;
    for (std::size_t k = n + 1; k-- > 0;) {
        if (!function.empty()) {
            if (is_def(s.text[k], function)) return k;
        } else if (s.indent[k] >= 0 && s.indent[k] < inner) {
            if (is_def(s.text[k], {})) return k;
            inner = s.indent[k];
        }
    }
    return s.text.size();
}

// The lines [first, last] (0-based) of the function holding line `n`: its decorators, its `def`
// and its body; {n, n} when it is in none.
std::pair<std::size_t, std::size_t> function_around(const SourceLines& s, std::size_t n,
                                                    std::string_view function) {
    std::size_t def = def_around(s, n, function);
    if (def == s.text.size() && !function.empty()) def = def_around(s, n, {});  // renamed since
    if (def == s.text.size()) return {n, n};
    const int indent = s.indent[def];
    std::size_t first = def;
    while (first > 0 && s.indent[first - 1] == indent &&
           s.text[first - 1].substr(static_cast<std::size_t>(indent)).starts_with('@'))
        --first;
    std::size_t last = def;
    for (std::size_t k = def + 1; k < s.text.size(); ++k) {
        if (s.indent[k] >= 0 && s.indent[k] <= indent) break;
        if (s.indent[k] >= 0) last = k;
    }
    return {first, std::max(last, n)};
}

}  // namespace

std::size_t print_annotated(std::ostream& os, const LineProfile& p, const std::string& source_path,
                            const std::string& source) {
    const std::string name = source_path.substr(source_path.find_last_of('/') + 1);
    std::map<std::uint32_t, const LineRow*> at;
    for (const LineRow& r : p.rows)
        if (r.line && r.file.substr(r.file.find_last_of('/') + 1) == name) at[r.line] = &r;
    const SourceLines s = split_lines(source);
    // What is shown: each function that made records, with kContext lines before it (a comment,
    // a constant it uses); a line with figures outside any function, with kContext around it.
    constexpr std::size_t kContext = 2;
    std::vector<bool> shown_line(s.text.size(), false);
    std::size_t shown = 0;
    for (const auto& [line, r] : at) {
        if (line > s.text.size()) continue;  // the file is shorter than the trace's lines
        ++shown;
        const auto [first, last] = function_around(s, line - 1, r->function);
        const bool alone = first == last && first == line - 1;
        const std::size_t to = std::min(s.text.size() - 1, last + (alone ? kContext : 0));
        for (std::size_t k = first >= kContext ? first - kContext : 0; k <= to; ++k) shown_line[k] = true;
    }
    if (shown == 0) return 0;
    // The hottest lines: the three of most critical-path cycles, if they have any.
    std::vector<const LineRow*> hot;
    for (const auto& [line, r] : at) hot.push_back(r);
    std::stable_sort(hot.begin(), hot.end(),
                     [](const LineRow* a, const LineRow* b) { return a->c.critical > b->c.critical; });
    if (hot.size() > 3) hot.resize(3);
    char head[112];
    std::snprintf(head, sizeof head, "  %5s %10s %10s %10s %10s %8s %6s", "crit%", "crit cyc", "busy",
                  "stalls", "sem wait", "DMA MiB", "instr");
    const std::string margin(std::string(head).size(), ' ');
    os << head << "  line | " << source_path << "\n";
    for (std::size_t k = 0; k < s.text.size(); ++k) {
        if (!shown_line[k]) {
            if (k == 0 || shown_line[k - 1]) os << margin << "   ... |\n";  // lines left out
            continue;
        }
        char number[24];  // " " and a size_t of up to 20 digits
        std::snprintf(number, sizeof number, " %5zu", k + 1);
        const auto it = at.find(static_cast<std::uint32_t>(k + 1));
        if (it == at.end()) {
            os << margin << number << " | " << s.text[k] << "\n";
            continue;
        }
        const LineRow& r = *it->second;
        const bool is_hot = std::find(hot.begin(), hot.end(), &r) != hot.end() && r.c.critical > 0;
        char buf[112];
        std::snprintf(
            buf, sizeof buf, "%s%5.1f %10llu %10llu %10llu %10llu %8.2f %6llu", is_hot ? ">>" : "  ",
            100 * r.critical_share, static_cast<unsigned long long>(r.c.critical),
            static_cast<unsigned long long>(r.busy()), static_cast<unsigned long long>(r.total_stalls()),
            static_cast<unsigned long long>(r.c.sem_wait),
            static_cast<double>(r.c.dma_bytes) / (1024.0 * 1024.0),
            static_cast<unsigned long long>(r.c.instructions));
        os << buf << number << " | " << s.text[k] << "\n";
    }
    return shown;
}

}  // namespace sbufsim
