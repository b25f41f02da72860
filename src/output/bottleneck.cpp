#include "sbufsim/output/bottleneck.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "sbufsim/config/config.h"
#include "sbufsim/output/line_profile.h"
#include "sbufsim/output/report.h"
#include "sbufsim/types/number.h"

namespace sbufsim {

namespace {

double ratio(double part, double whole) { return whole > 0 ? part / whole : 0; }

// Cycle counts with thousands separators, as a person reads them.
std::string num(std::uint64_t v) {
    const std::string digits = std::to_string(v);
    std::string s;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) s += ',';
        s += digits[i];
    }
    return s;
}

// The engine group a front-end belongs to: DMA engines and Q7 cores are reported together.
std::string group_of(const std::string& engine) {
    if (engine == "arr_seq") return "PE";
    if (engine.rfind("dma_", 0) == 0) return "DMA";
    if (engine.rfind("q7_", 0) == 0) return "Q7";
    std::string g = engine;
    for (char& c : g) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    return g;
}

std::size_t cause(PathCause c) { return static_cast<std::size_t>(c); }

std::vector<PathGroup> path_groups(const ReplayResult& r) {
    std::vector<PathGroup> groups;
    const CriticalPathStats& cp = r.critical_path;
    for (std::size_t e = 0; e < cp.cycles.size() && e < r.engines.size(); ++e) {
        if (!cp.engine_total(e)) continue;
        const std::string g = group_of(r.engines[e].name);
        auto it = std::find_if(groups.begin(), groups.end(), [&](const PathGroup& p) { return p.name == g; });
        if (it == groups.end()) it = groups.insert(groups.end(), PathGroup{g, {}, 0});
        for (std::size_t c = 0; c < kPathCauses; ++c) it->cycles[c] += cp.cycles[e][c];
        it->instructions += cp.instructions[e];
    }
    if (cp.tail) {
        PathGroup tail{"kernel", {}, 0};
        tail.cycles[cause(PathCause::compute)] = cp.tail;
        groups.push_back(tail);
    }
    std::stable_sort(groups.begin(), groups.end(),
                     [](const PathGroup& a, const PathGroup& b) { return a.total() > b.total(); });
    return groups;
}

std::vector<EngineBreakdown> engine_breakdown(const ReplayResult& r) {
    std::vector<EngineBreakdown> out;
    for (const EngineStats& e : r.engines) {
        if (!e.instructions && !e.sem_wait) continue;
        EngineBreakdown b{e.name, e.busy - e.bank_wait, e.bank_wait, e.sem_wait, e.port_wait, 0};
        b.idle = r.total_cycles - std::min(r.total_cycles, e.busy + e.sem_wait + e.port_wait);
        out.push_back(b);
    }
    return out;
}

PathCause dominant(const PathGroup& g) {
    std::size_t best = 0;
    for (std::size_t c = 1; c < kPathCauses; ++c)
        if (g.cycles[c] > g.cycles[best]) best = c;
    return static_cast<PathCause>(best);
}

// The engine group a kernel client belongs to (its name's prefix).
std::string client_group(const std::string& client) {
    for (const auto& [prefix, group] : {std::pair{"act_", "ACT"},
                                        {"pool_", "POOL"},
                                        {"dve_", "DVE"},
                                        {"pe_", "PE"},
                                        {"dma_", "DMA"},
                                        {"q7_", "Q7"}})
        if (client.rfind(prefix, 0) == 0) return group;
    return "";
}

// The client that lost the most beat-cycles to other clients' bank use (of `group` only, unless
// empty): whom it lost them to and on which banks.
struct Blocker {
    std::size_t victim = 0;
    std::uint64_t cycles = 0;
    std::string winners, banks;
};

Blocker worst_victim(const Stats& k, const std::string& group) {
    const std::size_t n = k.clients.size();
    Blocker b;
    for (std::size_t v = 0; v < n; ++v) {
        if (!group.empty() && client_group(k.clients[v].name) != group) continue;
        std::uint64_t sum = 0;
        for (std::size_t w = 0; w < n; ++w)
            if (w != v) sum += k.blocked_by[v * n + w];
        if (sum > b.cycles) b.victim = v, b.cycles = sum;
    }
    if (!b.cycles) return b;
    std::vector<std::pair<std::uint64_t, std::size_t>> winners;
    for (std::size_t w = 0; w < n; ++w)
        if (w != b.victim && k.blocked_by[b.victim * n + w])
            winners.emplace_back(k.blocked_by[b.victim * n + w], w);
    std::sort(winners.rbegin(), winners.rend());
    // The banks it lost on: those with stalls, where its winners hold the bank most.
    std::vector<std::pair<std::uint64_t, std::size_t>> banks;
    for (std::size_t i = 0; i < k.banks.size(); ++i) {
        if (!k.banks[i].stalls) continue;
        std::uint64_t held = 0;
        for (const auto& [cycles, w] : winners)
            if (w < k.banks[i].grants.size()) held += k.banks[i].grants[w];
        if (held) banks.emplace_back(held, i);
    }
    std::sort(banks.rbegin(), banks.rend());
    for (std::size_t i = 0; i < winners.size() && i < 4; ++i)
        b.winners += (i ? ", " : "") + k.clients[winners[i].second].name + " " + num(winners[i].first);
    if (winners.size() > 4) b.winners += " and " + std::to_string(winners.size() - 4) + " more";
    for (std::size_t i = 0; i < banks.size() && i < 4; ++i)
        b.banks += (i ? "," : "") + k.banks[banks[i].second].name;
    return b;
}

// The configuration key that raises a client's arbitration priority, "" when none does.
std::string priority_key(const std::string& v) {
    if (v.rfind("pe_client_", 0) == 0) return "arbiter.stage2.pe_rd.prio";
    if (v.rfind("dma_", 0) == 0) return "tdm.dma_slots or arbiter.dma_class.dma.prio";
    if (v.rfind("q7_", 0) == 0) return "arbiter.dma_class.q7.prio";
    if (v.find("psum") == std::string::npos && v != "pe_wr") return "arbiter.stage2." + v + ".prio";
    return "";
}

Finding blocker_text(const Stats& k, const Blocker& b) {
    const std::string v = k.clients[b.victim].name, key = priority_key(v);
    // A beat lost to the other TDM class in its precedence slot counts as a tdm stall, not a bank
    // conflict (the run's bank-conflict total can be 0 while a client loses banks): say which.
    // Every beat-cycle lost to another client is one or the other, so the precedence losses are
    // what the bank conflicts leave; the client's tdm total cannot tell them, since it also holds
    // the strict-TDM gate's stalls, which no client's grant caused.
    const ClientStats& c = k.clients[b.victim];
    const std::uint64_t conflicts = c.stalls[static_cast<int>(StallCause::bank_conflict)];
    const std::uint64_t tdm = b.cycles > conflicts ? b.cycles - conflicts : 0;
    const std::string split = tdm == 0 ? ""
                              : tdm >= b.cycles
                                  ? "; all of them to the other class's TDM precedence (counted in "
                                    "stalls.tdm, not as bank conflicts)"
                                  : "; " + num(tdm) +
                                        " of them to the other class's TDM precedence "
                                        "(stalls.tdm), the rest bank conflicts";
    return {b.cycles,
            v + " lost " + num(b.cycles) + " beat-cycles to other clients taking its banks (" + b.winners +
                ")" + (b.banks.empty() ? "" : " on " + b.banks) + split,
            "place " + v + "'s operands in banks (partitions) its blockers do not use" +
                (key.empty() ? "" : ", or raise " + key)};
}

// What the largest critical-path groups mean and what to try.
// DMA transfers on the critical path. When a quarter or more of the descriptors (contiguous runs)
// are shorter than the size at which one stops paying dma.pkt_min_ns, that is said first: such a
// run moves at a fraction of the engine's bandwidth (the DMA bandwidth guide's payload curve).
// A finding whose size rests on a low-confidence constant says so, and how to see how much the
// conclusion depends on it: the short-descriptor cost is dma.pkt_min_ns, fitted to a public
// bandwidth curve, not observed (a tiling that wins by 24 % at 64 ns wins by 5 % at 32).
std::string uncertain_cost_note(const ReplayResult& r) {
    const KeySpec* k = find_key("dma.pkt_min_ns");
    if (!k || (k->confidence != Confidence::low_inferred && k->confidence != Confidence::low_observed))
        return "";
    // dma_full_run_bytes = pkt_min_ns x engine_gbps, and dma_peak_gbps = engines x engine_gbps.
    const double ns =
        r.dma_peak_gbps > 0 ? r.dma_full_run_bytes * static_cast<double>(r.dma.size()) / r.dma_peak_gbps : 0;
    const std::string values =
        ns > 0 ? "0," + format_number(ns / 2, 3) + "," + format_number(ns, 3) : "0,32,64";
    return ". What short descriptors cost rests on dma.pkt_min_ns" +
           (ns > 0 ? " = " + format_number(ns, 3) + " ns" : std::string()) + ", a " +
           std::string(to_string(k->confidence)) + " value (" + k->source +
           "): before choosing a tiling by it, compare the tilings over it (sbufsim sweep T1 T2 --vary "
           "dma.pkt_min_ns=" +
           values + ")";
}

// `group`'s share of the critical path (0 when the group is not on it).
double path_share(const Bottleneck& b, const std::string& group) {
    for (const PathGroup& g : b.path)
        if (g.name == group) return ratio(static_cast<double>(g.total()), static_cast<double>(b.total));
    return 0;
}

// The critical path's share outside DMA under which loading earlier has no compute to overlap.
constexpr double kOverlapShare = 0.05;

// The HBM side's share of dma.hbm_gbps over the run from which a DMA finding calls the run
// HBM-bound: more engines or earlier loads then cannot move HBM bytes faster, fewer bytes can.
constexpr double kHbmBound = 0.8;

Finding dma_transfer_finding(const ReplayResult& r, const Bottleneck& b, Cycle n, const std::string& share) {
    // Splitting loads over more engines helps only if some engine has time to spare.
    std::size_t engines = 0, idle_half = 0;
    for (const EngineStats& e : r.engines)
        if (group_of(e.name) == "DMA") ++engines, idle_half += 2 * e.busy < r.total_cycles;
    // The engines' peak (dma.engines x dma.engine_gbps) is above the HBM side's (dma.hbm_gbps),
    // so HBM traffic is measured against its own limit too.
    const bool hbm_limited = r.hbm_peak_gbps > 0 && r.hbm_bytes() > 0;
    const std::string hbm = hbm_limited
                                ? ", and the HBM side " + format_share(b.hbm_bandwidth_utilisation) +
                                      " of dma.hbm_gbps (" + format_number(r.hbm_peak_gbps, 4) + " GB/s)"
                                : std::string();
    Finding f{n,
              "DMA transfers are " + share + "; the DMA engines move " +
                  format_share(b.dma_bandwidth_utilisation) + " of their peak bandwidth over the run" + hbm,
              std::string()};
    // Earlier loads overlap compute only where compute is on the path: a path of DMA alone (a
    // generator's pipelined trace whose loads already run ahead) has none to hide them under.
    const double dma_path = path_share(b, "DMA");
    const bool overlap = 1 - dma_path >= kOverlapShare;
    std::vector<std::string> tries;
    if (overlap)
        tries.emplace_back(
            "start each load earlier so it overlaps compute (double-buffer: issue the next tile's DMA "
            "before this tile's compute)");
    if (idle_half)
        tries.push_back("split large loads over the DMA engines busy less than half the run (" +
                        std::to_string(idle_half) + " of " + std::to_string(engines) + ")");
    tries.emplace_back("keep reused tiles in SBUF");
    for (std::size_t i = 0; i < tries.size(); ++i)
        f.advice += (i == 0 ? "" : i + 1 == tries.size() ? ", or " : ", ") + tries[i];
    if (!overlap)
        f.advice += " (the critical path is " + format_share(dma_path) +
                    " DMA: loading earlier has no compute on it to overlap)";
    if (hbm_limited && b.hbm_bandwidth_utilisation >= kHbmBound)
        f.advice =
            "the HBM side is busy most of the run: more engines or earlier loads cannot move its bytes "
            "faster, fewer bytes can: keep reused tiles in SBUF and load each tile once";
    std::uint64_t runs = 0, short_runs = 0;
    for (const DmaStats& d : r.dma) {
        runs += d.descriptors;
        short_runs += d.short_descriptors;
    }
    const double short_share = runs ? static_cast<double>(short_runs) / static_cast<double>(runs) : 0;
    if (short_share >= 0.25) {
        const std::string full = num(static_cast<std::uint64_t>(r.dma_full_run_bytes));
        f.text += "; " + format_share(short_share) +
                  " of their descriptors (contiguous runs) are shorter than " + full +
                  " B and each takes the per-descriptor minimum (dma.pkt_min_ns)";
        f.advice = "lengthen the contiguous run per partition to " + full +
                   " B or more (wider tiles along the free axis), then " + f.advice;
        f.brief_advice = f.advice.size();
        f.advice += uncertain_cost_note(r);
    }
    return f;
}

// ACT, DVE or POOL on the critical path after their compute (PathCause::drain): the dependent
// turnaround and the output writes still queued at the banks. When the engine's write clients lost
// beats meanwhile (to TDM precedence, a strict-TDM slot or bank conflicts), those writes are what
// to relieve: their arbitration priority or the TDM split, not the engine's compute.
// How a PE-bound run's other engines overlap the matmuls. Evacuating PSUM under the next group's
// accumulation needs a free group: when the run already held as many groups open as the array
// allows (arr_seq.max_groups), that takes a block of fewer groups, which loads its operands
// more often, so the advice says to compare rather than promise.
std::string overlap_advice(const ReplayResult& r) {
    const std::uint64_t peak = r.arr_seq.peak_open_groups;
    if (!r.psum_max_groups || peak < r.psum_max_groups)
        return "overlap it with matmuls (prefetch the next tiles, evacuate PSUM while the next group "
               "accumulates)";
    return "overlap it with matmuls (prefetch the next tiles); PSUM is full (" + std::to_string(peak) +
           " accumulation groups open at the peak, the array's limit arr_seq.max_groups): evacuating while "
           "the "
           "next group accumulates needs a block of fewer groups, which loads more, so compare both";
}

Finding drain_finding(const ReplayResult& r, const PathGroup& g, Cycle n, const std::string& share) {
    const char* engine = g.name == "ACT"   ? "act"
                         : g.name == "DVE" ? "dve"
                                           : "pool";  // timing.<engine>_dep_turnaround
    Finding f{n, g.name + " output writes and turnaround after its compute are " + share,
              "fewer, larger " + g.name + " instructions amortise the turnaround after each (timing." +
                  engine + "_dep_turnaround)"};
    const auto stalled = [](const ClientStats& c, StallCause s) {
        return c.stalls[static_cast<std::size_t>(s)];
    };
    const auto lost = [&](const ClientStats& c) {
        return stalled(c, StallCause::tdm) + stalled(c, StallCause::bank_conflict);
    };
    const ClientStats* worst = nullptr;
    for (const ClientStats& c : r.kernel.clients)
        if (client_group(c.name) == g.name && c.name.ends_with("_wr") && lost(c) &&
            (!worst || lost(c) > lost(*worst)))
            worst = &c;
    if (!worst) return f;
    const std::uint64_t tdm = stalled(*worst, StallCause::tdm),
                        bank = stalled(*worst, StallCause::bank_conflict);
    f.text += "; its writes wait at the banks: " + worst->name + " lost " + num(tdm) +
              " beat-cycles to TDM and " + num(bank) + " to bank conflicts (p99 latency " +
              num(worst->latency.percentile(0.99)) + " cycles)";
    f.advice =
        "raise " + priority_key(worst->name) + " so the writes win their banks" +
        (tdm >= bank
             ? ", or give the compute class more of the TDM period (lower tdm.dma_slots of tdm.max_slots)"
             : ", or place " + g.name + "'s outputs in banks its blockers do not use");
    return f;
}

// A trace of access records only: the run lasts as long as its busiest client's queue. A client
// moves at most one beat a cycle (seed 000 §8 step 5), so its beats plus the cycles it stalled
// bound the run from below; the client for which that sum is largest is the one to relieve.
Finding access_only_finding(const Stats& k, Cycle n) {
    const auto occupied = [](const ClientStats& c) { return c.beats + c.total_stalls(); };
    const ClientStats* busiest = nullptr;
    for (const ClientStats& c : k.clients)
        if (!busiest || occupied(c) > occupied(*busiest)) busiest = &c;
    if (!busiest || !busiest->beats)
        return {n, "The trace's access records kept the banks busy " + num(n) + " cycles",
                "check their cycles"};
    const std::string& c = busiest->name;
    const double share = ratio(static_cast<double>(occupied(*busiest)), static_cast<double>(n));
    const std::string text = "The trace has only access records, and " + c + " has work " +
                             format_share(share) + " of the run: " + num(busiest->beats) +
                             " beats (a client moves one a cycle at most) and " +
                             num(busiest->total_stalls()) + " stalled cycles of " + num(n);
    // Below half, the clients wait for their records more than for the banks.
    if (share < 0.5) return {n, text, "the records' issue cycles, not the banks, set the run's length"};
    return {n, text, "split " + c + "'s accesses over more clients or move fewer bytes per record"};
}

// The share of the critical path from which DMA start-up latency gets a finding of its own when
// the transfers are DMA's larger part.
constexpr double kLatencyShare = 0.10;
// The share of the critical path in DMA from which a PE-bound run is not called compute-bound.
constexpr double kDmaNotComputeBound = 0.10;

Finding dma_latency_finding(Cycle n, Cycle total, std::uint64_t instructions) {
    return {n,
            "DMA start-up latency is " + num(n) + " cycles (" +
                format_share(ratio(static_cast<double>(n), static_cast<double>(total))) +
                ") of the critical path, " + num(instructions) +
                (instructions == 1 ? " transfer" : " transfers") +
                " on it, each waiting timing.dma_startup_ns before its data moves",
            "use fewer, larger descriptors (each pays timing.dma_startup_ns) or issue them earlier so the "
            "start-up overlaps compute"};
}

void path_findings(const ReplayResult& r, const Bottleneck& b, std::vector<Finding>& out) {
    const std::size_t before = out.size();  // a serial verdict's finding may come first
    for (const PathGroup& g : b.path) {
        const double share = ratio(static_cast<double>(g.total()), static_cast<double>(b.total));
        if (share < 0.10 || out.size() - before >= 3) break;
        const PathCause c = dominant(g);
        const Cycle n = g.cycles[cause(c)];
        const std::string on_path =
            num(n) + " cycles (" + format_share(ratio(static_cast<double>(n), static_cast<double>(b.total))) +
            ") of the critical path";
        const std::string per = g.instructions
                                    ? ", " + num(g.instructions) +
                                          (g.instructions == 1 ? " instruction" : " instructions") + " on it"
                                    : "";
        if (g.name == "kernel" && r.instructions == 0) {
            out.push_back(access_only_finding(r.kernel, n));
        } else if (g.name == "kernel") {
            out.push_back(
                {n, "Access records kept the banks busy " + num(n) + " cycles after the last instruction",
                 "the trace's access records outlast its instructions: check their cycles"});
        } else if (c == PathCause::bank_wait) {
            const Blocker who = worst_victim(r.kernel, g.name);
            Finding f{n, g.name + " instructions waited for SBUF/PSUM banks for " + on_path + per,
                      "move their operands to other banks or partitions, or raise their clients' arbitration "
                      "priority"};
            if (who.cycles) {
                const Finding detail = blocker_text(r.kernel, who);
                f.text += "; " + detail.text;
                f.advice = detail.advice;
            }
            out.push_back(f);
        } else if (c == PathCause::latency && g.name == "DMA") {
            out.push_back(dma_latency_finding(n, b.total, g.instructions));
        } else if (c == PathCause::latency) {
            out.push_back({n, g.name + " issue latency is " + on_path + per,
                           "fewer, larger instructions amortise the fixed start-up of each"});
        } else if (g.name == "DMA") {
            out.push_back(dma_transfer_finding(r, b, n, on_path + per));
            // Start-up latency second to the transfers is still the path's to lose (17.7 % of a
            // softmax-bound attention's): its own finding.
            const Cycle startup = g.cycles[cause(PathCause::latency)];
            if (ratio(static_cast<double>(startup), static_cast<double>(b.total)) >= kLatencyShare)
                out.push_back(dma_latency_finding(startup, b.total, g.instructions));
        } else if (g.name == "PE" && c == PathCause::drain) {
            out.push_back(
                {n, "PSUM write-back after matmuls is " + on_path + per,
                 "evacuate PSUM with ACT/DVE while the next accumulation group runs (more PSUM buffers)"});
        } else if (g.name == "PE") {
            std::string others;
            for (const PathGroup& o : b.path)
                if (o.name != "PE" && others.size() < 40)
                    others +=
                        (others.empty() ? "" : ", ") + o.name + " " +
                        format_share(ratio(static_cast<double>(o.total()), static_cast<double>(b.total)));
            // "compute-bound" only where PE bounds the run, not beside another group's verdict,
            // nor while DMA holds a large share of the path (loads the matmuls wait for).
            const double dma = path_share(b, "DMA");
            const std::string mfu = "MFU " + format_share(b.mfu) + (b.mfu > 1 ? " of the bf16 peak" : "");
            const std::string how =
                b.bound_by != "PE" ? " (" + mfu + ")"
                : dma >= kDmaNotComputeBound
                    ? " (" + mfu + "), but DMA is " + format_share(dma) +
                          " of the path: not compute-bound while the matmuls wait for loads"
                    : ": compute-bound (" + mfu + ")";
            out.push_back({n, "The PE array computes for " + on_path + per + how,
                           others.empty()
                               ? "fewer, larger matmuls (initiation interval max(N, 64) cycles) or a "
                                 "narrower dtype (fp32 streams 4x slower)"
                               : "the rest of the path (" + others +
                                     ") is what keeps the array from its peak: " + overlap_advice(r)});
        } else if (c == PathCause::drain && (g.name == "ACT" || g.name == "DVE" || g.name == "POOL")) {
            out.push_back(drain_finding(r, g, n, on_path + per));
        } else {
            std::string others;
            for (const char* e : {"ACT", "DVE", "POOL"})
                if (g.name != e) others += std::string(others.empty() ? "" : " or ") + e;
            out.push_back(
                {n, g.name + " compute is " + on_path + per,
                 "move part of the work to " + others + " (they run in parallel with " + g.name +
                     "), fuse operations or use larger tiles to amortise the per-instruction overhead"});
        }
    }
}

// Bank-wait cycles of `group` on the critical path (0 when the group is not on it).
Cycle path_bank_wait(const Bottleneck& b, const std::string& group) {
    for (const PathGroup& g : b.path)
        if (g.name == group) return g.cycles[cause(PathCause::bank_wait)];
    return 0;
}

// Whether a client group's stalls left the run as long as it was: an instruction trace whose
// critical path has none of the group's cycles held past their compute (a DMA descriptor's
// beats held inside its own minimum time, say). Access-record traces have no path: unknown.
bool off_critical_path(const ReplayResult& r, const Bottleneck& bn, const std::string& group) {
    return r.instructions && !group.empty() && path_bank_wait(bn, group) == 0;
}

// The client with the most stalls of `cause` (the first on a tie), null when none has any.
const ClientStats* most_held(const Stats& k, StallCause cause) {
    const ClientStats* worst = nullptr;
    for (const ClientStats& c : k.clients)
        if (c.stalls[static_cast<int>(cause)] &&
            (!worst || c.stalls[static_cast<int>(cause)] > worst->stalls[static_cast<int>(cause)]))
            worst = &c;
    return worst;
}

std::string off_path_clause(const std::string& group, const std::string& what) {
    return "; off the critical path: " + group + " waited for no bank on it, so these " + what +
           " did not lengthen the run";
}

// The client that lost the most beat-cycles to others' bank use. When its engine waited for no
// bank on the critical path, those stalls did not lengthen the run: said so, and no setting is
// offered as a way to shorten it (a sweep of one would change nothing).
void blocker_finding(const ReplayResult& r, const Bottleneck& bn, std::vector<Finding>& out) {
    const Blocker b = worst_victim(r.kernel, "");
    if (!b.cycles) return;
    Finding f = blocker_text(r.kernel, b);
    const std::string& v = r.kernel.clients[b.victim].name;
    const std::string group = client_group(v);
    if (off_critical_path(r, bn, group)) {
        f.text += off_path_clause(group, "stalls");
        f.advice = "nothing to gain in run time here; to free the bandwidth all the same, place " + v +
                   "'s operands in banks (partitions) its blockers do not use";
    }
    out.push_back(f);
}

// Strict TDM (seed 000 §7.2): the client it held longest in the other class's slots, and its
// class's total. Its own cycles rank the finding (a class's beat-cycles add up over its clients).
// Work-conserving TDM holds no one: a beat it charges to `tdm` lost its bank to the class with
// precedence, and the blocker finding names it with its winners.
// Held off the critical path (tdm.* would not shorten the run: a sweep of it shows no change),
// the finding says so and offers the setting only for the bandwidth.
void tdm_finding(const ReplayResult& r, const Bottleneck& bn, std::vector<Finding>& out) {
    const Stats& k = r.kernel;
    const Cycle total = bn.total;
    const auto held = [](const ClientStats& c) { return c.stalls[static_cast<int>(StallCause::tdm)]; };
    const ClientStats* worst = most_held(k, StallCause::tdm);
    if (!worst) return;
    std::uint64_t sum = 0, clients = 0;
    for (const ClientStats& c : k.clients)
        if (held(c) && c.tdm_class == worst->tdm_class) sum += held(c), ++clients;
    const std::uint64_t most = held(*worst);
    const bool dma = worst->tdm_class == TdmClass::dma;
    const std::string mine = dma ? "DMA" : "compute", other = dma ? "compute" : "DMA";
    Finding f{most,
              "TDM held " + worst->name + " back " + num(most) + " cycles (" +
                  format_share(ratio(static_cast<double>(most), static_cast<double>(total))) +
                  " of the run) in the " + other + " class's slots; " + num(sum) + " beat-cycles over the " +
                  num(clients) + " " + mine + "-class client" + (clients > 1 ? "s" : "") + " it held",
              std::string(dma ? "give the DMA class more of the period (raise tdm.dma_slots"
                              : "give the compute class more of the period (lower tdm.dma_slots") +
                  " of tdm.max_slots), or set tdm.strict=false to let it take the banks the " + other +
                  " class leaves free"};
    const std::string group = client_group(worst->name);
    if (off_critical_path(r, bn, group)) {
        f.text += off_path_clause(group, "holds");
        f.advice = "nothing to gain in run time from tdm.*; only to give the " + mine +
                   "-class clients their bandwidth back, " + f.advice;
    } else if (r.kernel.tdm_slots.size() > 1) {
        // The holds are cycles of one client, not of the run, and a split changes the DMA side's
        // pace as well, so no bound on the gain follows from them: a sweep of the split shows it.
        f.advice += "; the holds are not run time (another split also changes the " + other +
                    " class's pace): sbufsim sweep TRACE --set tdm.strict=true --vary tdm.dma_slots=1:" +
                    std::to_string(r.kernel.tdm_slots.size() - 1) + " shows what each split costs";
    }
    out.push_back(std::move(f));
}

// The TensorE throttle (pe.ramp_*, the Neuron Explorer docs' "Understanding throttling"): after an
// idle gap the array starts near half rate and takes about pe.ramp_ns to reach full rate, so short
// bursts of matmuls between long gaps never stream at the peak.
Finding ramp_finding(const ReplayResult& r, const Bottleneck& b) {
    const Cycle added = r.arr_seq.ramp_cycles;
    Finding f{added,
              "the TensorE throttle slowed the matmuls by " + num(added) + " cycles (" +
                  format_share(ratio(static_cast<double>(added), static_cast<double>(b.total))) +
                  " of the run): after an idle gap the array starts at pe.ramp_start of its rate and reaches "
                  "full rate over pe.ramp_ns",
              ""};
    const std::uint64_t gaps = r.arr_seq.ramp_engaged > 0 ? r.arr_seq.ramp_engaged - 1 : 0;
    if (gaps == 0)
        f.advice =
            "the throttle engaged once, at the first matmul: a kernel pays it once per start, so it "
            "weighs less in longer runs (more work per launch)";
    else
        f.advice =
            "it engaged " + num(r.arr_seq.ramp_engaged) + " times, " + num(gaps) +
            " after idle gaps of the array: keep the PE array streaming (issue the next matmuls' loads "
            "earlier so that bursts run back to back)";
    if (path_share(b, "PE") == 0) {
        f.text += "; PE is not on the critical path, so this did not lengthen the run";
        f.advice = "nothing to gain in run time from fewer PE gaps";
    }
    return f;
}

// Throttler stalls (seed 000 §7.2): the client held most, its keys, and whether the run paid.
void throttle_finding(const ReplayResult& r, const Bottleneck& bn, std::vector<Finding>& out) {
    const ClientStats* worst = most_held(r.kernel, StallCause::throttle);
    if (!worst) return;
    const std::uint64_t sum = total_stalls(r.kernel, StallCause::throttle);
    const auto held = [](const ClientStats& c) { return c.stalls[static_cast<int>(StallCause::throttle)]; };
    const std::string keys = "throttler." + worst->name + ".*";
    Finding f{sum,
              "throttlers held back " + num(sum) + " beat-cycles, " + worst->name + "'s " +
                  num(held(*worst)) + " the most",
              "raise " + keys + " (transfer_cnt beats per window_len cycles) or set throttler." +
                  worst->name + ".enable=false if the limit is not wanted"};
    const std::string group = client_group(worst->name);
    if (off_critical_path(r, bn, group)) {
        f.text += off_path_clause(group, "holds");
        f.advice = "nothing to gain in run time from " + keys + "; the limit costs " + worst->name +
                   " only bandwidth it did not need";
    }
    out.push_back(std::move(f));
}

// The critical-path share under which a waiting engine's buffers are not worth more of them.
constexpr double kOffPathShare = 0.1;

// LdWeights held by their semaphores once the array has computed: the stationary tiles arrive
// late. Loading them earlier shortens the run only as far as the PE array is on its path.
Finding stationary_finding(Cycle n, const Bottleneck& b) {
    std::string text =
        "LdWeights waited " + num(n) +
        " cycles for their semaphores (in a GEMM, the stationary tiles' loads) while the matmuls "
        "after them had their moving data";
    const double pe = path_share(b, "PE");
    if (b.bound_by == "DMA")
        return {
            n, std::move(text),
            "the run is bound by DMA: load the stationary tiles earlier (the next block's under this block's "
            "matmuls, on a queue the moving loads do not hold up)"};
    if (pe >= kOffPathShare)
        return {n, std::move(text),
                "load the stationary tiles earlier (the next block's under this block's matmuls): the PE "
                "array is " +
                    format_share(pe) + " of the critical path"};
    return {n, std::move(text),
            "nothing to gain in run time from loading them earlier: the PE array is " + format_share(pe) +
                " of the critical path"};
}

void engine_findings(const ReplayResult& r, const Bottleneck& b, std::vector<Finding>& out) {
    const EngineBreakdown* waiter = nullptr;
    for (const auto& e : b.engines)
        if (!waiter || e.sem_wait > waiter->sem_wait) waiter = &e;
    if (waiter && ratio(static_cast<double>(waiter->sem_wait), static_cast<double>(b.total)) >= 0.2) {
        // An engine other than the bound group that waits: its producers may be the bound group,
        // which more buffers cannot make produce sooner (which producer it waited for is not
        // recorded, so the advice says what to shorten first rather than whom it waited for).
        const bool waits_for_bound =
            !b.bound_by.empty() && b.bound_by != "kernel" && group_of(waiter->name) != b.bound_by;
        // Barely on the path (an evacuation engine behind a PE-bound run): its waits end when the
        // bound group's part gets shorter, and more buffers for it cannot shorten the run.
        const double on_path = path_share(b, group_of(waiter->name));
        std::string advice =
            waits_for_bound
                ? "the run is bound by " + b.bound_by + ": shorten " + b.bound_by +
                      "'s part of the critical path first; more buffers let it run ahead only where its "
                      "producers sit idle while it waits"
                : "its producers run late (see the critical path); more buffers let it run ahead";
        if (waits_for_bound && on_path < kOffPathShare)
            advice = "nothing to gain in run time from more buffers for " + waiter->name + ": it is " +
                     (on_path > 0 ? format_share(on_path) + " of the critical path"
                                  : std::string("not on the critical path")) +
                     ", and its waits end when " + b.bound_by + "'s part gets shorter";
        out.push_back(
            {waiter->sem_wait,
             waiter->name + " waited " + num(waiter->sem_wait) + " cycles (" +
                 format_share(ratio(static_cast<double>(waiter->sem_wait), static_cast<double>(b.total))) +
                 " of the run) for semaphores",
             std::move(advice)});
    }
    const EngineBreakdown* shut = nullptr;
    for (const auto& e : b.engines)
        if (e.port_wait && (!shut || e.port_wait > shut->port_wait)) shut = &e;
    if (shut && ratio(static_cast<double>(shut->port_wait), static_cast<double>(b.total)) >= 0.05)
        out.push_back(
            {shut->port_wait,
             shut->name + " waited " + num(shut->port_wait) + " cycles (" +
                 format_share(ratio(static_cast<double>(shut->port_wait), static_cast<double>(b.total))) +
                 " of the run) for a port the other side held: on NC-v2 VectorE and GpSimd do not "
                 "access SBUF together, nor VectorE and ScalarE PSUM (concurrency.*)",
             "move the work between DVE and POOL/ACT so the two sides do not alternate on the same "
             "memory, or batch each side's instructions into longer runs"});
    const ArrSeqStats& a = r.arr_seq;
    if (a.backpressure_cycles)
        out.push_back(
            {a.backpressure_cycles,
             "p2fifo almost-full held back the PE reads for " + num(a.backpressure_cycles) + " cycles",
             "PSUM writes queue up: free their banks (fewer readers of PSUM at once) or raise "
             "arr_seq.p2fifo_af"});
    if (a.weight_wait)
        out.push_back({a.weight_wait,
                       "matmuls waited " + num(a.weight_wait) + " cycles for their LdWeights to finish",
                       "issue each LdWeights earlier, under the previous matmul: it loads the array's "
                       "background weights while the array streams"});
    if (a.stationary_wait) out.push_back(stationary_finding(a.stationary_wait, b));
    if (a.ramp_cycles) out.push_back(ramp_finding(r, b));
    throttle_finding(r, b, out);
    if (r.tdm_strict) tdm_finding(r, b, out);
}

// The floor other engines set under the run: their own compute stays, whatever the bound group
// gets. A run bound by DMA at 65 % of its path whose PE array computes 88.7 % of it can gain at
// most 11.3 % from DMA, not 65 %.
//
// A run bound by the PE array has a floor of its own: its matmuls' multiply-accumulates at the
// array's peak (MFU 100 %), however the path is arranged. At 96.9 % MFU that leaves 3.1 % to
// gain, whatever the other engines' floor says. (Not for MFU above 100 %: fp8 double-row and MX
// matmuls run past the bf16 peak the MFU counts against.)
void set_floor(Bottleneck& b) {
    if (b.bound_by.empty() || b.bound_by == "kernel" || b.total == 0) return;
    for (const EngineBreakdown& e : b.engines)
        if (group_of(e.name) != b.bound_by && e.compute > b.floor_cycles)
            b.floor_engine = e.name, b.floor_cycles = e.compute;
    const double total = static_cast<double>(b.total);
    const Cycle peak_cycles = b.mfu <= 1 ? static_cast<Cycle>(std::ceil(b.mfu * total - 1e-9)) : 0;
    if (b.bound_by == "PE" && peak_cycles > b.floor_cycles) {
        b.floor_engine = "arr_seq";
        b.floor_cycles = peak_cycles;
        b.gain_limit = ratio(total - static_cast<double>(peak_cycles), total);
        b.headroom = "at most " + format_share(b.gain_limit) +
                     " to gain: the matmuls' multiply-accumulates take " + num(peak_cycles) +
                     " cycles at the PE array's peak (MFU " + format_share(b.mfu) +
                     "), however PE's part is arranged";
        return;
    }
    b.gain_limit = ratio(total - static_cast<double>(b.floor_cycles), total);
    if (ratio(static_cast<double>(b.floor_cycles), total) < Bottleneck::kFloorShown) return;
    b.headroom = "at most " + format_share(b.gain_limit) + " to gain by shortening " + b.bound_by +
                 "'s part: " + b.floor_engine + (group_of(b.floor_engine) == "PE" ? " (the PE array)" : "") +
                 " computes " + num(b.floor_cycles) + " cycles (" +
                 format_share(ratio(static_cast<double>(b.floor_cycles), total)) + " of the run) whatever " +
                 b.bound_by + " does";
}

}  // namespace

namespace {

// The kernel line (or generator step) that holds most of the critical path, when the trace has
// source locations (line_profile.h): the first thing a kernel engineer asks.
void line_finding(const ReplayResult& r, std::vector<Finding>& out) {
    const LineProfile p = line_profile(r);
    if (p.empty() || p.rows.front().c.critical == 0) return;
    const LineRow& top = p.rows.front();
    Finding f;
    f.cycles = top.c.critical;
    f.text = top.key + (top.calls.empty() ? "" : " " + top.calls) + ": " + format_share(top.critical_share) +
             " of the critical path (" + std::to_string(top.c.critical) + " cycles; " +
             std::to_string(top.c.instructions) + " instructions";
    if (top.c.dma_bytes)
        f.text += ", " + format_fixed(static_cast<double>(top.c.dma_bytes) / (1024.0 * 1024.0), 2) +
                  " MiB by DMA at " + format_fixed(top.dma_gbps, 1) + " GB/s";
    if (top.total_stalls()) f.text += ", " + std::to_string(top.total_stalls()) + " bank stall cycles";
    f.text += ")";
    f.advice =
        "the line to work on first; `--annotate KERNEL.py` (on `sbufsim run` or `sbufsim nki`) prints each "
        "line's figures beside the source";
    f.source_line = true;
    out.push_back(std::move(f));
}

// Engine groups that take turns on the critical path: none holds half of it, a second one holds
// kSerialSecond or more, and the path crosses between engines at semaphores at least
// kSerialHandOffs times. Each waits for the other, so the run is their sum, not the largest:
// "bound by DMA" would send the reader to the loads alone.
constexpr double kSerialTop = 0.5, kSerialSecond = 0.2;
constexpr std::uint64_t kSerialHandOffs = 4;

// The groups with 10 % of the path or more, "DMA 45.7 %, DVE 30.1 %, ACT 22.0 %".
std::string turn_takers(const Bottleneck& b) {
    std::string s;
    for (const PathGroup& g : b.path) {
        const double share = ratio(static_cast<double>(g.total()), static_cast<double>(b.total));
        if (share >= 0.10 && g.name != "kernel")
            s += (s.empty() ? "" : ", ") + g.name + " " + format_share(share);
    }
    return s;
}

std::optional<Finding> serial_finding(const ReplayResult& r, const Bottleneck& b) {
    if (b.path.size() < 2 || b.path.front().name == "kernel" || b.bound_share >= kSerialTop)
        return std::nullopt;
    const double second = ratio(static_cast<double>(b.path[1].total()), static_cast<double>(b.total));
    const std::uint64_t hand_offs = r.critical_path.semaphore_edges;
    if (second < kSerialSecond || b.path[1].name == "kernel" || hand_offs < kSerialHandOffs)
        return std::nullopt;
    return Finding{
        b.total - b.path.front().total(),
        turn_takers(b) + " of the critical path take turns: it passes between engines at " + num(hand_offs) +
            " semaphore waits, each engine waiting for the other's result, so the run " + "is their sum",
        "overlap them: give the loads and the compute separate buffers (double-buffer) so the next "
        "tile loads while this one computes; overlapped fully, the run approaches its largest part, " +
            b.path.front().name + "'s " + format_share(b.bound_share)};
}

std::string serial_verdict(const Bottleneck& b) {
    return "serial, not overlapped: " + turn_takers(b) + " of the critical path take turns, none holds half";
}

}  // namespace

Bottleneck analyse(const ReplayResult& r) {
    Bottleneck b;
    b.total = r.total_cycles;
    b.path = path_groups(r);
    b.engines = engine_breakdown(r);
    const double total = static_cast<double>(r.total_cycles);
    b.pe_utilisation = r.pe_utilisation();
    b.mfu = ratio(static_cast<double>(r.arr_seq.macs), total * static_cast<double>(r.pe_peak_macs));
    const Stats& k = r.kernel;
    Cycle sbuf = 0, psum = 0;
    for (std::size_t i = 0; i < k.banks.size(); ++i) (i < k.sbuf_banks ? sbuf : psum) += k.banks[i].busy;
    b.sbuf_bank_utilisation = ratio(static_cast<double>(sbuf), total * k.sbuf_banks);
    b.psum_bank_utilisation =
        ratio(static_cast<double>(psum), total * static_cast<double>(k.banks.size() - k.sbuf_banks));
    b.dma_bandwidth_utilisation = ratio(r.dma_gbps(), r.dma_peak_gbps);
    b.hbm_bandwidth_utilisation = ratio(r.hbm_gbps(), r.hbm_peak_gbps);
    if (!b.path.empty()) {
        const PathGroup& top = b.path.front();
        b.bound_by = top.name;
        b.bound_share = ratio(static_cast<double>(top.total()), total);
        std::string causes;
        for (std::size_t c = 0; c < kPathCauses; ++c)
            if (top.cycles[c])
                causes += std::string(causes.empty() ? "" : ", ") + to_string(static_cast<PathCause>(c)) +
                          " " + format_share(ratio(static_cast<double>(top.cycles[c]), total));
        b.verdict = "bound by " + top.name + ": " + format_share(b.bound_share) + " of the critical path" +
                    (top.name == "kernel" ? "" : " (" + causes + ")");
    }
    set_floor(b);
    const std::optional<Finding> serial = serial_finding(r, b);
    if (serial) {
        b.verdict = serial_verdict(b);
        b.findings.push_back(*serial);
    }
    path_findings(r, b, b.findings);
    std::vector<Finding> rest;
    blocker_finding(r, b, rest);
    // The overall worst victim may already be told in a bank-wait finding of the path.
    if (!rest.empty())
        for (const Finding& f : b.findings)
            if (f.text.find(rest.front().text) != std::string::npos) {
                rest.erase(rest.begin());
                break;
            }
    engine_findings(r, b, rest);
    std::stable_sort(rest.begin(), rest.end(),
                     [](const Finding& x, const Finding& y) { return x.cycles > y.cycles; });
    for (auto& f : rest)
        if (b.findings.size() < Bottleneck::kMaxFindings &&
            ratio(static_cast<double>(f.cycles), total) >= Bottleneck::kMinShare)
            b.findings.push_back(std::move(f));
    // The top source line, when the trace has locations, a place of its own beyond kMaxFindings:
    // last, so that the findings of a trace without locations read as they did.
    line_finding(r, b.findings);
    return b;
}

}  // namespace sbufsim
