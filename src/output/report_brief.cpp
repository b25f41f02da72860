// The one-screen summary of a run (report.h, Detail::brief): what a kernel engineer reads first.
// Everything it shows is also in the full summary (run --details) and the JSON.
#include <algorithm>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "sbufsim/output/bottleneck.h"
#include "sbufsim/output/report.h"
#include "sbufsim/types/number.h"
#include "sbufsim/types/text.h"

namespace sbufsim {

namespace {

// The findings the one screen shows: those with something to gain in run time, at most three,
// as many as fit in kScreenLines with the lines around them.
constexpr std::size_t kBriefFindings = 3;
// 26 of the screen's 30 lines: `nki` adds its tracer's line and the kernel's figures.
constexpr std::size_t kScreenLines = 26;

// MFU and MBU, as neuron-profile names them: the PE array's multiply-accumulates against its
// peak, and the HBM side's bandwidth against dma.hbm_gbps; then the engines' own figures.
std::string utilisation_line(const ReplayResult& r, const Bottleneck& b) {
    std::string s =
        "utilisation: MFU " + format_share(b.mfu) + (b.mfu > 1 ? " of the bf16 peak" : "") + ", MBU ";
    if (r.hbm_bytes() == 0)
        s += "0.0 % (no HBM transfers)";
    else if (r.hbm_peak_gbps > 0)
        s += format_share(b.hbm_bandwidth_utilisation) + " of " + format_number(r.hbm_peak_gbps, 4) +
             " GB/s HBM";
    else
        s += "- (dma.hbm_gbps = 0: unlimited)";
    return s + ", PE array " + format_share(b.pe_utilisation) + ", DMA engines " +
           format_share(b.dma_bandwidth_utilisation) + " of " + format_fixed(r.dma_peak_gbps, 0) + " GB/s";
}

// `text` from column `start`, its further lines from column `indent`, within the screen's width.
void print_wrapped(std::ostream& os, const std::string& text, std::size_t start, std::size_t indent) {
    os << std::string(start, ' ') << wrap_text(text, kScreenColumns, indent, start) << "\n";
}

std::size_t line_count(const std::string& s) {
    return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

// The header, the verdict, the gain bound, the critical path and the utilisation.
std::string brief_head(const RunReport& rep, const Bottleneck& b) {
    const ReplayResult& r = rep.result;
    std::ostringstream os;
    os << "trace " << r.trace << "  (gen " << r.generation << ", scheduler " << rep.info.scheduler << ")\n";
    print_totals(os, r);
    if (r.races)
        print_wrapped(os,
                      "races: " + std::to_string(r.races) + (r.races == 1 ? " pair" : " pairs") +
                          " of instructions on different queues touch the same bytes, one writing, with no "
                          "wait ordering them: the figures may not hold (sbufsim check lists them)",
                      0, 2);
    os << "\n";
    print_wrapped(os, b.verdict, 0, 2);
    if (!b.headroom.empty()) print_wrapped(os, b.headroom, 0, 2);
    print_critical_path(os, r, b);
    print_wrapped(os, utilisation_line(r, b), 0, 2);
    return os.str();
}

}  // namespace

void print_brief(std::ostream& os, const RunReport& rep) {
    const Bottleneck b = analyse(rep.result);
    const std::string head = brief_head(rep, b);
    os << head;
    // The findings with something to gain, largest first, as many of the three as the screen
    // holds with "findings" and the --details line; the top source line's among them whatever
    // comes before it (it is the last).
    std::size_t lines = line_count(head) + 2;
    const bool line_kept = std::any_of(b.findings.begin(), b.findings.end(),
                                       [](const Finding& f) { return f.source_line && !nothing_to_gain(f); });
    std::vector<std::string> shown;
    for (const Finding& f : b.findings) {
        const std::size_t slots = kBriefFindings - (line_kept && !f.source_line ? 1 : 0);
        if (nothing_to_gain(f) || shown.size() >= slots) continue;
        std::ostringstream one;
        print_wrapped(one, std::to_string(shown.size() + 1) + ". " + f.text, 2, 5);
        const bool cut = f.brief_advice < f.advice.size();
        print_wrapped(
            one,
            "try: " + f.advice.substr(0, f.brief_advice) + (cut ? " (--details: what this rests on)" : ""), 5,
            10);
        const std::size_t n = line_count(one.str());
        if (lines + n > kScreenLines) continue;
        lines += n;
        shown.push_back(one.str());
    }
    if (!shown.empty()) os << "findings\n";
    for (const std::string& text : shown) os << text;
    const std::size_t rest = b.findings.size() - shown.size();
    os << "--details: "
       << (rest ? std::to_string(rest) + (rest == 1 ? " more finding, " : " more findings, ") : "")
       << "the engine, source-line, PE, DMA, client and bank tables\n";
}

}  // namespace sbufsim
