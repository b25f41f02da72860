#include "sbufsim/output/timeline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>
#include <stdexcept>
#include <string_view>

#include "sbufsim/output/json_text.h"
#include "sbufsim/trace/trace.h"
#include "sbufsim/types/number.h"

namespace sbufsim {

void parse_window(const std::string& text, Cycle& from, Cycle& to) {
    const auto colon = text.find(':');
    auto bad = [&] { return std::invalid_argument("--window '" + text + "': expected A:B with cycles A < B"); };
    if (colon == std::string::npos) throw bad();
    try {
        std::size_t n1 = 0, n2 = 0;
        const std::string a = text.substr(0, colon), b = text.substr(colon + 1);
        from = std::stoull(a, &n1);
        to = std::stoull(b, &n2);
        if (n1 != a.size() || n2 != b.size() || a.empty() || b.empty() || a[0] == '-' || b[0] == '-') throw bad();
    } catch (const std::logic_error&) {
        throw bad();
    }
    if (to <= from) throw bad();
}

std::string_view to_string(TimelineDetail d) {
    switch (d) {
        case TimelineDetail::instructions: return "instructions";
        case TimelineDetail::stalls: return "stalls";
        case TimelineDetail::all: return "all";
    }
    return "?";
}

TimelineDetail parse_timeline_detail(const std::string& text) {
    for (auto d : {TimelineDetail::instructions, TimelineDetail::stalls, TimelineDetail::all})
        if (text == to_string(d)) return d;
    throw std::invalid_argument("--timeline-detail '" + text + "': expected instructions, stalls or all");
}

std::string_view to_string(TimelineUnit u) { return u == TimelineUnit::cycles ? "cycles" : "ns"; }

TimelineUnit parse_timeline_unit(const std::string& text) {
    for (auto u : {TimelineUnit::cycles, TimelineUnit::ns})
        if (text == to_string(u)) return u;
    throw std::invalid_argument("--timeline-unit '" + text + "': expected cycles or ns");
}

namespace {

constexpr int kPidEngines = 1, kPidClients = 2, kPidBanks = 3, kPidTdm = 4;

std::string jnum(double v) { return format_fixed(v, 6); }

// Chrome's reserved colour names (trace-viewer's color scheme; Perfetto colours by name instead,
// so the span names are the causes too).
const char* cname(StallCause c) {
    switch (c) {
        case StallCause::dependency: return "grey";
        case StallCause::psum_backpressure: return "olive";
        case StallCause::tdm: return "yellow";
        case StallCause::throttle: return "thread_state_iowait";
        case StallCause::stage1_loss: return "rail_animation";
        case StallCause::bank_conflict: return "terrible";
        case StallCause::count: break;
    }
    return "generic_work";
}

// Comma-separated event writer. Times are written in the file's unit: PE cycles as they are
// (viewers label them us), or real time, each cycle boundary rounded to a whole nanosecond and
// written as us with three decimals, so events that meet in cycles meet in the file too.
class Events {
public:
    Events(std::ostream& os, TimelineUnit unit, double pe_clock_ghz)
        : os_(os), unit_(unit), ghz_(pe_clock_ghz) {}
    std::string ts(Cycle c) const {
        if (unit_ == TimelineUnit::cycles) return std::to_string(c);
        return format_fixed(static_cast<double>(ns(c)) / 1000.0, 3);
    }
    // The last tick inside the slice [start, end): where a flow leaves it. In ns a cycle may
    // round onto the slice's end, so the tick is the last whole ns before it.
    std::string last_tick(Cycle start, Cycle end) const {
        if (unit_ == TimelineUnit::cycles) return std::to_string(end > start ? end - 1 : start);
        const std::uint64_t a = ns(start), b = ns(end);
        return format_fixed(static_cast<double>(b > a ? b - 1 : a) / 1000.0, 3);
    }
    std::string dur(Cycle start, Cycle cycles) const {
        if (unit_ == TimelineUnit::cycles) return std::to_string(cycles);
        return format_fixed(static_cast<double>(ns(start + cycles) - ns(start)) / 1000.0, 3);
    }
    void raw(const std::string& body) {
        os_ << (first_ ? "\n" : ",\n") << "{" << body << "}";
        first_ = false;
    }
    // A slice: time in whole cycles, so its end is exactly ts + dur.
    void slice(int pid, int tid, const char* cat, const std::string& name, Cycle start, Cycle cycles,
               const std::string& extra, const std::string& args) {
        raw("\"ph\":\"X\",\"cat\":\"" + std::string(cat) + "\",\"pid\":" + std::to_string(pid) +
            ",\"tid\":" + std::to_string(tid) + ",\"name\":" + json_string(name) + extra +
            ",\"ts\":" + ts(start) + ",\"dur\":" + dur(start, cycles) + ",\"args\":{" + args + "}");
    }
    void meta(int pid, int tid, const char* what, const std::string& name, int sort) {
        raw("\"ph\":\"M\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"name\":\"" +
            what + "_name\",\"args\":{\"name\":" + json_string(name) + "}");
        raw("\"ph\":\"M\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"name\":\"" +
            what + "_sort_index\",\"args\":{\"sort_index\":" + std::to_string(sort) + "}");
    }

private:
    std::uint64_t ns(Cycle c) const {
        return static_cast<std::uint64_t>(std::llround(static_cast<double>(c) / ghz_));
    }

    std::ostream& os_;
    bool first_ = true;
    TimelineUnit unit_;
    double ghz_;
};

// What the trace says about one completed instruction.
struct Instr {
    const InstrEvent* ev = nullptr;
    std::string name, args, track;
    int tid = -1;
    std::vector<std::pair<std::uint16_t, std::uint32_t>> waits;  // (sem, resolved value)
    std::vector<std::uint16_t> signals;
};

bool keep(Cycle start, Cycle end_excl, const TimelineOptions& o) {
    return start < o.to && std::max(end_excl, start + 1) > o.from;
}

std::string operand_args(const Record& rec) {
    std::string a;
    auto add = [&](const char* k, const Operand& op) {
        if (op.present()) a += std::string(",\"") + k + "\":" + json_string(format_operand(op));
    };
    add("src", rec.src);
    add("src2", rec.src2);
    add("dst", rec.dst);
    if (rec.partitions) a += ",\"partitions\":" + std::to_string(rec.partitions);
    if (rec.bytes) a += ",\"bytes\":" + std::to_string(rec.bytes);
    if (!rec.fn.empty()) a += ",\"fn\":" + json_string(rec.fn);
    return a;
}

// Reads the trace again and describes every instruction that completed in the replay.
std::vector<Instr> describe(const ReplayResult& r) {
    std::vector<Instr> out(r.timeline.size());
    std::vector<std::pair<std::uint64_t, std::size_t>> by_line;
    for (std::size_t i = 0; i < r.timeline.size(); ++i) {
        out[i].ev = &r.timeline[i];
        by_line.emplace_back(r.timeline[i].line, i);
    }
    std::sort(by_line.begin(), by_line.end());
    TraceReader reader(r.trace);
    WaitResolver resolver;
    Record rec;
    TraceError err;
    for (ReadStatus st; (st = reader.read(rec, err)) != ReadStatus::end;) {
        if (st == ReadStatus::error || rec.kind == RecordKind::access) continue;
        auto it = std::lower_bound(by_line.begin(), by_line.end(), std::make_pair(rec.line, std::size_t{0}));
        if (it == by_line.end() || it->first != rec.line) continue;  // skipped by a lenient replay
        // A DMA spread over engines has one event per engine share; each is named, and the
        // share that ends last (when the record's signals fire) carries the flows.
        Instr* last = nullptr;
        for (; it != by_line.end() && it->first == rec.line; ++it) {
            Instr& in = out[it->second];
            in.name = std::string(to_string(rec.kind));
            if (!rec.fn.empty()) in.name += " " + std::string(rec.fn);
            in.track = std::string(rec.queue);
            in.args = "\"line\":" + std::to_string(rec.line) + ",\"queue\":" + json_string(rec.queue) + operand_args(rec);
            // The kernel line (or generator step) that issued it: what a click in Perfetto names.
            if (rec.has_site()) in.args += ",\"source\":" + json_string(format_location(rec));
            if (!last || in.ev->end > last->ev->end) last = &in;
        }
        for (std::uint32_t w = 0; w < rec.num_waits; ++w)
            last->waits.emplace_back(rec.waits[w].sem, resolver.resolve(rec.queue_id, rec.waits[w]));
        for (std::uint32_t s = 0; s < rec.num_signals; ++s) last->signals.push_back(rec.signals[s]);
    }
    return out;
}

// Queue names in the order a reader counts them: a run of digits compares as its number, so
// qSyncIO2 comes before qSyncIO10.
bool natural_less(const std::string& a, const std::string& b) {
    std::size_t i = 0, j = 0;
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    while (i < a.size() && j < b.size()) {
        if (digit(a[i]) && digit(b[j])) {
            const std::size_t i0 = i, j0 = j;
            while (i < a.size() && digit(a[i])) ++i;
            while (j < b.size() && digit(b[j])) ++j;
            std::string_view x(a.data() + i0, i - i0), y(b.data() + j0, j - j0);
            while (x.size() > 1 && x.front() == '0') x.remove_prefix(1);
            while (y.size() > 1 && y.front() == '0') y.remove_prefix(1);
            if (x.size() != y.size()) return x.size() < y.size();
            if (x != y) return x < y;
        } else {
            if (a[i] != b[j]) return a[i] < b[j];
            ++i, ++j;
        }
    }
    return a.size() - i < b.size() - j || (a.size() - i == b.size() - j && a < b);
}

struct TrackOrder {
    bool operator()(const std::pair<std::uint16_t, std::string>& x,
                    const std::pair<std::uint16_t, std::string>& y) const {
        return x.first != y.first ? x.first < y.first : natural_less(x.second, y.second);
    }
};

// One thread per (engine, queue), in engine order then queue name, plus one more per level of
// overlap: instructions are laid out first-fit in start order, so a queue gets as many threads
// as it ever has instructions in flight at once and each thread's slices are disjoint (the
// trace-event nesting rule; the PE array pipelines matmuls, ACT overlaps its PSUM reads).
void engine_tracks(Events& ev, const ReplayResult& r, std::vector<Instr>& ins) {
    std::map<std::pair<std::uint16_t, std::string>, std::vector<Instr*>, TrackOrder> queues;
    for (auto& in : ins) queues[{in.ev->engine, in.track}].push_back(&in);
    int next = 1;
    for (auto& [key, list] : queues) {
        std::stable_sort(list.begin(), list.end(), [](const Instr* a, const Instr* b) {
            return a->ev->start != b->ev->start ? a->ev->start < b->ev->start : a->ev->line < b->ev->line;
        });
        std::vector<Cycle> lane_end;  // end of the last slice on each of the queue's threads
        for (Instr* in : list) {
            std::size_t lane = 0;
            while (lane < lane_end.size() && lane_end[lane] > in->ev->start) ++lane;
            if (lane == lane_end.size()) lane_end.push_back(0);
            lane_end[lane] = std::max(in->ev->start, in->ev->end);
            in->tid = next + static_cast<int>(lane);
        }
        const std::string engine = key.first < r.engines.size() ? r.engines[key.first].name : "engine";
        for (std::size_t lane = 0; lane < lane_end.size(); ++lane) {
            const int tid = next + static_cast<int>(lane);
            ev.meta(kPidEngines, tid, "thread",
                    engine + " (" + key.second + ")" + (lane ? " #" + std::to_string(lane + 1) : ""), tid);
        }
        next += static_cast<int>(lane_end.size());
    }
}

void instruction_spans(Events& ev, const std::vector<Instr>& ins, const TimelineOptions& o) {
    for (const auto& in : ins) {
        const InstrEvent& e = *in.ev;
        if (!keep(e.start, e.end, o)) continue;
        ev.slice(kPidEngines, in.tid, "instr", in.name, e.start, e.end - e.start, "", in.args);
    }
}

// Signal -> wait arrows: a wait for S >= v was released by the v-th signal of S in time order.
// The start sits on the signaller's last cycle and the end on the waiter's first, so each end
// lies inside its slice and binds to it.
void flows(Events& ev, const std::vector<Instr>& ins, const TimelineOptions& o) {
    std::map<std::uint16_t, std::vector<const Instr*>> signals;
    for (const auto& in : ins)
        for (auto s : in.signals) signals[s].push_back(&in);
    for (auto& [sem, v] : signals)
        std::stable_sort(v.begin(), v.end(), [](const Instr* a, const Instr* b) {
            return a->ev->end != b->ev->end ? a->ev->end < b->ev->end : a->ev->line < b->ev->line;
        });
    std::uint64_t id = 0;
    for (const auto& w : ins) {
        for (const auto& [sem, value] : w.waits) {
            auto it = signals.find(sem);
            if (value == 0 || it == signals.end() || value > it->second.size()) continue;
            const Instr& s = *it->second[value - 1];
            if (!keep(s.ev->start, s.ev->end, o) || !keep(w.ev->start, w.ev->end, o)) continue;
            const std::string common = ",\"cat\":\"semaphore\",\"name\":\"sem " + std::to_string(sem) +
                                       "\",\"id\":" + std::to_string(++id) + ",\"pid\":1";
            ev.raw("\"ph\":\"s\"" + common + ",\"tid\":" + std::to_string(s.tid) +
                   ",\"ts\":" + ev.last_tick(s.ev->start, s.ev->end) +
                   ",\"args\":{\"line\":" + std::to_string(s.ev->line) + "}");
            ev.raw("\"ph\":\"f\",\"bp\":\"e\"" + common + ",\"tid\":" + std::to_string(w.tid) +
                   ",\"ts\":" + ev.ts(w.ev->start) + ",\"args\":{\"line\":" + std::to_string(w.ev->line) +
                   ",\"value\":" + std::to_string(value) + "}");
        }
    }
}

// The stall runs of one (client, cause) grouped: consecutive runs closer than `gap` cycles join
// (gap 0: every run stays its own group). `stalled` keeps the exact stalled cycles inside.
struct StallGroup {
    Cycle start = 0, end = 0;
    std::uint64_t stalled = 0, runs = 0;
};

int stall_tid(std::size_t client, StallCause cause) {
    return static_cast<int>(client * kStallCauses + static_cast<std::size_t>(cause)) + 1;
}

void stall_slice(Events& ev, int tid, StallCause cause, const StallGroup& g, const TimelineOptions& o) {
    if (!keep(g.start, g.end, o)) return;
    std::string args = "\"stalled\":" + std::to_string(g.stalled);
    if (g.runs > 1) args += ",\"runs\":" + std::to_string(g.runs);
    ev.slice(kPidClients, tid, "stall", to_string(cause), g.start, g.end - g.start,
             std::string(",\"cname\":\"") + cname(cause) + "\"", args);
}

// One thread per (client, cause) that stalled, named "client: cause", sorted client by client.
void client_tracks(Events& ev, const Stats& k, const ActivityProbe& probe, const TimelineOptions& o) {
    if (o.detail == TimelineDetail::instructions) return;
    const Cycle gap = o.detail == TimelineDetail::all ? 0 : o.merge_gap;
    std::vector<StallGroup> open(k.clients.size() * kStallCauses);
    for (const auto& s : probe.spans()) {
        const int tid = stall_tid(s.client, s.cause);
        StallGroup& g = open[static_cast<std::size_t>(tid - 1)];
        if (g.runs && s.start < g.end + gap) {
            g.end = std::max(g.end, s.start + s.cycles);
        } else {
            if (g.runs) stall_slice(ev, tid, s.cause, g, o);
            else ev.meta(kPidClients, tid, "thread", k.clients[s.client].name + ": " + to_string(s.cause), tid);
            g = StallGroup{s.start, s.start + s.cycles, 0, 0};
        }
        g.stalled += s.cycles;
        ++g.runs;
    }
    for (std::size_t t = 0; t < open.size(); ++t)
        if (open[t].runs) stall_slice(ev, static_cast<int>(t) + 1, static_cast<StallCause>(t % kStallCauses), open[t], o);
}

double frac(std::uint64_t n, Cycle d) { return d ? static_cast<double>(n) / static_cast<double>(d) : 0; }

// Bank and TDM counters over the rows intersecting the window; a sample is written only when the
// value changes (a counter holds its value until the next sample), plus zeros at the end.
void counters(Events& ev, const ReplayResult& r, const ActivityProbe& probe, const TimelineOptions& o) {
    WindowSeries w = make_windows(probe, r.kernel, r.total_cycles, probe.bin_width());
    std::erase_if(w.rows, [&](const WindowRow& row) { return !keep(row.start, row.start + row.cycles, o); });
    w = rebin(w, o.max_counter_bins);
    ev.meta(kPidBanks, 0, "thread", "bank counters", 0);
    ev.meta(kPidTdm, 0, "thread", "TDM counters", 0);
    std::vector<std::string> last(w.banks.size() + 1);
    auto sample = [&](int pid, const std::string& name, Cycle at, const std::string& args, std::string& prev) {
        if (args == prev) return;
        prev = args;
        ev.raw("\"ph\":\"C\",\"pid\":" + std::to_string(pid) + ",\"tid\":0,\"name\":" + json_string(name) +
               ",\"ts\":" + ev.ts(at) + ",\"args\":{" + args + "}");
    };
    for (const auto& row : w.rows) {
        for (std::size_t b = 0; b < w.banks.size(); ++b)
            sample(kPidBanks, w.banks[b], row.start,
                   "\"busy\":" + jnum(frac(row.busy[b], row.cycles)) + ",\"conflict\":" +
                       jnum(frac(row.conflicts[b], row.cycles)), last[b]);
        sample(kPidTdm, "tdm", row.start,
               "\"compute_used\":" + jnum(frac(row.tdm_compute, row.cycles)) + ",\"dma_used\":" +
                   jnum(frac(row.tdm_dma, row.cycles)), last.back());
    }
    if (w.rows.empty()) return;
    // The closing zeros at the end of the last row, or of the window when it ends inside that row.
    const Cycle end = std::min<Cycle>(w.rows.back().start + w.rows.back().cycles, o.to);
    for (std::size_t b = 0; b < w.banks.size(); ++b)
        sample(kPidBanks, w.banks[b], end, "\"busy\":0,\"conflict\":0", last[b]);
    sample(kPidTdm, "tdm", end, "\"compute_used\":0,\"dma_used\":0", last.back());
}

}  // namespace

void write_timeline(std::ostream& os, const ReplayResult& r, const ActivityProbe& probe, const TimelineOptions& o) {
    std::vector<Instr> ins = describe(r);
    os << "{\"otherData\":{\"tool\":\"sbufsim\",\"trace\":" << json_string(r.trace)
       << ",\"generation\":" << json_string(r.generation) << ",\"pe_clock_ghz\":" << jnum(r.pe_clock_ghz)
       << ",\"time_unit\":\""
       << (o.unit == TimelineUnit::cycles ? "PE cycle (shown as us)"
                                          : "us (PE cycles at pe_clock_ghz, to the ns)")
       << "\",\"detail\":\"" << to_string(o.detail)
       << "\",\"merge_gap_cycles\":" << (o.detail == TimelineDetail::stalls ? o.merge_gap : 0)
       << ",\"total_cycles\":" << r.total_cycles << ",\"window_from\":" << o.from
       << ",\"window_to\":" << (o.to == kNever ? r.total_cycles : o.to) << "},\n\"traceEvents\":[";
    Events ev(os, o.unit, r.pe_clock_ghz);
    ev.meta(kPidEngines, 0, "process", "engine queues", 1);
    ev.meta(kPidClients, 0, "process", "arbiter clients (stalls)", 2);
    ev.meta(kPidBanks, 0, "process", "banks", 3);
    ev.meta(kPidTdm, 0, "process", "TDM", 4);
    engine_tracks(ev, r, ins);
    instruction_spans(ev, ins, o);
    flows(ev, ins, o);
    client_tracks(ev, r.kernel, probe, o);
    counters(ev, r, probe, o);
    os << "\n]}\n";
}

}  // namespace sbufsim
