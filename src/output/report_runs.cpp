// Several runs side by side (report.h, print_comparison): two tilings of one computation, or the
// layers of a network (`gen --topology` writes one trace per layer; `run DIR/*.trc` replays them).
#include <algorithm>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "sbufsim/output/bottleneck.h"
#include "sbufsim/output/report.h"
#include "sbufsim/types/number.h"

namespace sbufsim {

namespace {

// Rows the one screen keeps of a network's table; the rest are summed in one row.
constexpr std::size_t kBriefRows = 22;

std::string col(const std::string& s, std::size_t w, bool right = true) {
    if (s.size() >= w) return " " + s;
    return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

double ratio(double part, double whole) { return whole > 0 ? part / whole : 0; }

std::string pct_compact(double share) { return format_fixed(100 * share, 1) + "%"; }

// What a row of the table shows of one run (or of several alike, or of their sum).
struct RunFigures {
    Cycle cycles = 0;
    double macs = 0, peak_macs = 0;                                   // peak: pe_peak_macs x cycles
    double ns = 0, dma_bytes = 0, hbm_bytes = 0, hbm_peak_bytes = 0;  // peak: hbm_peak_gbps x ns
    std::uint64_t bank_stalls = 0;
    std::vector<PathGroup> path;  // summed by group
    std::string bound() const {
        const PathGroup* top = nullptr;
        Cycle total = 0;
        for (const PathGroup& g : path) {
            total += g.total();
            if (!top || g.total() > top->total()) top = &g;
        }
        return top ? top->name + " " +
                         pct_compact(ratio(static_cast<double>(top->total()), static_cast<double>(total)))
                   : "-";
    }
    std::string mbu() const {
        return hbm_peak_bytes > 0 ? pct_compact(ratio(hbm_bytes, hbm_peak_bytes)) : "-";
    }
    void add(const RunFigures& o) {
        cycles += o.cycles, macs += o.macs, peak_macs += o.peak_macs, ns += o.ns;
        dma_bytes += o.dma_bytes, hbm_bytes += o.hbm_bytes, hbm_peak_bytes += o.hbm_peak_bytes;
        bank_stalls += o.bank_stalls;
        for (const PathGroup& g : o.path) {
            auto it =
                std::find_if(path.begin(), path.end(), [&](const PathGroup& p) { return p.name == g.name; });
            if (it == path.end()) it = path.insert(path.end(), PathGroup{g.name, {}, 0});
            for (std::size_t c = 0; c < kPathCauses; ++c) it->cycles[c] += g.cycles[c];
            it->instructions += g.instructions;
        }
    }
};

RunFigures figures_of(const RunReport& rep) {
    const ReplayResult& r = rep.result;
    RunFigures f;
    f.cycles = r.total_cycles;
    f.macs = static_cast<double>(r.arr_seq.macs);
    f.peak_macs = static_cast<double>(r.total_cycles) * static_cast<double>(r.pe_peak_macs);
    f.ns = r.time_ns();
    f.dma_bytes = static_cast<double>(r.dma_bytes());
    f.hbm_bytes = static_cast<double>(r.hbm_bytes());
    f.hbm_peak_bytes = r.hbm_bytes() > 0 ? r.hbm_peak_gbps * r.time_ns() : 0;
    f.bank_stalls = total_stalls(r.kernel, StallCause::bank_conflict);
    f.path = analyse(r).path;
    return f;
}

// One row: the runs it stands for (alike: the same figures), and their figures, each run's.
struct Row {
    std::string name;
    std::size_t runs = 1;
    RunFigures each;
    std::string key;  // the figures as printed: rows with the same key are alike
};

std::string row_key(const RunFigures& f) {
    return std::to_string(f.cycles) + "|" + f.bound() + "|" + pct_compact(ratio(f.macs, f.peak_macs)) + "|" +
           f.mbu() + "|" + format_fixed(ratio(f.dma_bytes, f.ns), 1) + "|" + std::to_string(f.bank_stalls);
}

// The columns every row has after its name and its cycles.
std::string common_columns(const RunFigures& f) {
    return col(f.bound(), 13) + col(pct_compact(ratio(f.macs, f.peak_macs)), 8) + col(f.mbu(), 8) +
           col(format_fixed(ratio(f.dma_bytes, f.ns), 1), 10) + col(std::to_string(f.bank_stalls), 13);
}

// Two tilings of one computation: the same matmul work (or, without matmuls, the same DMA bytes).
bool same_work(const std::vector<RunReport>& runs) {
    const ReplayResult& a = runs.front().result;
    return std::all_of(runs.begin(), runs.end(), [&](const RunReport& rep) {
        const ReplayResult& r = rep.result;
        return a.arr_seq.macs ? r.arr_seq.macs == a.arr_seq.macs
                              : r.arr_seq.macs == 0 && r.dma_bytes() == a.dma_bytes();
    });
}

std::vector<Row> alike_rows(const std::vector<RunReport>& runs) {
    std::vector<Row> rows;
    std::map<std::string, std::size_t> seen;
    for (const RunReport& rep : runs) {
        Row row{rep.result.trace, 1, figures_of(rep), {}};
        row.key = row_key(row.each);
        if (const auto it = seen.find(row.key); it != seen.end()) {
            ++rows[it->second].runs;
            continue;
        }
        seen.emplace(row.key, rows.size());
        rows.push_back(std::move(row));
    }
    return rows;
}

void print_same_work(std::ostream& os, const std::vector<RunReport>& runs, std::size_t name_w) {
    const std::vector<Row> rows = alike_rows(runs);
    Cycle fewest = rows.front().each.cycles;
    for (const Row& row : rows) fewest = std::min(fewest, row.each.cycles);
    os << "comparison of " << runs.size() << " runs of the same matmul work (\"vs fewest\": cycles over the "
       << "run with the fewest)\n"
       << col("trace", name_w, false) << col("cycles", 10) << col("vs fewest", 10) << col("bound by", 13)
       << col("MFU", 8) << col("MBU", 8) << col("DMA GB/s", 10) << col("bank stalls", 13) << "\n";
    for (const Row& row : rows) {
        const double over = ratio(static_cast<double>(row.each.cycles), static_cast<double>(fewest)) - 1;
        const std::string name = row.runs > 1 ? row.name + " x" + std::to_string(row.runs) : row.name;
        os << col(name, name_w, false) << col(std::to_string(row.each.cycles), 10)
           << col(row.each.cycles == fewest ? "fewest" : "+" + format_fixed(100 * over, 1) + "%", 10)
           << common_columns(row.each) << "\n";
    }
}

void print_network(std::ostream& os, const std::vector<RunReport>& runs, std::size_t name_w, Detail detail) {
    std::vector<Row> rows = alike_rows(runs);
    RunFigures sum;
    for (const RunReport& rep : runs) sum.add(figures_of(rep));
    const auto cycles_of = [](const Row& r) { return r.each.cycles * r.runs; };
    std::stable_sort(rows.begin(), rows.end(),
                     [&](const Row& a, const Row& b) { return cycles_of(a) > cycles_of(b); });
    const bool cut = detail == Detail::brief && rows.size() > kBriefRows;
    os << runs.size() << " runs of different work, one after another: " << sum.cycles
       << " cycles = " << format_fixed(sum.ns / 1000, 1) << " us"
       << (rows.size() < runs.size() ? "; x N: N runs alike, each with the figures shown" : "") << "\n"
       << col("trace", name_w, false) << col("cycles", 10) << col("share", 8) << col("bound by", 13)
       << col("MFU", 8) << col("MBU", 8) << col("DMA GB/s", 10) << col("bank stalls", 13) << "\n";
    RunFigures rest;
    std::size_t rest_runs = 0, rest_rows = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Row& row = rows[i];
        if (cut && i + 1 >= kBriefRows) {
            for (std::size_t k = 0; k < row.runs; ++k) rest.add(row.each);
            rest_runs += row.runs, ++rest_rows;
            continue;
        }
        const std::string name = row.runs > 1 ? row.name + " x" + std::to_string(row.runs) : row.name;
        os << col(name, name_w, false) << col(std::to_string(row.each.cycles), 10)
           << col(pct_compact(ratio(static_cast<double>(cycles_of(row)), static_cast<double>(sum.cycles))), 8)
           << common_columns(row.each) << "\n";
    }
    if (rest_runs)
        os << col(std::to_string(rest_runs) + " more runs (" + std::to_string(rest_rows) +
                      " rows, --details)",
                  name_w, false)
           << col(std::to_string(rest.cycles), 10)
           << col(pct_compact(ratio(static_cast<double>(rest.cycles), static_cast<double>(sum.cycles))), 8)
           << common_columns(rest) << "\n";
    os << col("total (" + std::to_string(runs.size()) + " runs)", name_w, false)
       << col(std::to_string(sum.cycles), 10) << col("100.0%", 8) << common_columns(sum) << "\n";
}

}  // namespace

void print_comparison(std::ostream& os, const std::vector<RunReport>& runs, Detail detail) {
    if (runs.size() < 2) return;
    std::size_t name_w = 16;
    for (const RunReport& rep : runs) name_w = std::max(name_w, rep.result.trace.size() + 6);  // + " xNN"
    name_w = std::min<std::size_t>(name_w, 40);
    if (same_work(runs))
        print_same_work(os, runs, name_w);
    else
        print_network(os, runs, name_w, detail);
}

}  // namespace sbufsim
