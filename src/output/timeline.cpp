#include "sbufsim/output/timeline.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <ostream>
#include <stdexcept>

#include "sbufsim/output/json_text.h"
#include "sbufsim/trace/trace.h"

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

namespace {

constexpr int kPidEngines = 1, kPidClients = 2, kPidBanks = 3, kPidTdm = 4;

std::string jnum(double v) {
    char b[40];
    std::snprintf(b, sizeof b, "%.6f", v);
    return b;
}

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

// Comma-separated event writer.
class Events {
public:
    Events(std::ostream& os, double ghz) : os_(os), ghz_(ghz > 0 ? ghz : 1) {}
    void raw(const std::string& body) {
        os_ << (first_ ? "\n" : ",\n") << "{" << body << "}";
        first_ = false;
    }
    std::string ts(Cycle c) const { return jnum(static_cast<double>(c) / (ghz_ * 1000.0)); }
    void meta(int pid, int tid, const char* what, const std::string& name, int sort) {
        raw("\"ph\":\"M\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"name\":\"" +
            what + "_name\",\"args\":{\"name\":" + json_string(name) + "}");
        raw("\"ph\":\"M\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"name\":\"" +
            what + "_sort_index\",\"args\":{\"sort_index\":" + std::to_string(sort) + "}");
    }

private:
    std::ostream& os_;
    double ghz_;
    bool first_ = true;
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
        Instr& in = out[it->second];
        in.name = std::string(to_string(rec.kind));
        if (!rec.fn.empty()) in.name += " " + std::string(rec.fn);
        in.track = std::string(rec.queue);
        in.args = ",\"line\":" + std::to_string(rec.line) + ",\"queue\":" + json_string(rec.queue) + operand_args(rec);
        for (std::uint32_t w = 0; w < rec.num_waits; ++w)
            in.waits.emplace_back(rec.waits[w].sem, resolver.resolve(rec.queue_id, rec.waits[w]));
        for (std::uint32_t s = 0; s < rec.num_signals; ++s) in.signals.push_back(rec.signals[s]);
    }
    return out;
}

// One thread per (engine, queue), in engine order then first appearance.
void engine_tracks(Events& ev, const ReplayResult& r, std::vector<Instr>& ins) {
    std::map<std::pair<std::uint16_t, std::string>, int> tids;
    for (auto& in : ins) tids.emplace(std::make_pair(in.ev->engine, in.track), 0);
    int next = 1;
    for (auto& [key, tid] : tids) {
        tid = next++;
        const std::string engine = key.first < r.engines.size() ? r.engines[key.first].name : "engine";
        ev.meta(kPidEngines, tid, "thread", engine + " (" + key.second + ")", tid);
    }
    for (auto& in : ins) in.tid = tids.at({in.ev->engine, in.track});
}

void instruction_spans(Events& ev, const std::vector<Instr>& ins, const TimelineOptions& o) {
    for (const auto& in : ins) {
        const InstrEvent& e = *in.ev;
        if (!keep(e.start, e.end, o)) continue;
        ev.raw("\"ph\":\"X\",\"cat\":\"instr\",\"pid\":1,\"tid\":" + std::to_string(in.tid) + ",\"name\":" +
               json_string(in.name) + ",\"ts\":" + ev.ts(e.start) + ",\"dur\":" + ev.ts(e.end - e.start) +
               ",\"args\":{\"start_cycle\":" + std::to_string(e.start) + ",\"cycles\":" +
               std::to_string(e.end - e.start) + in.args + "}");
    }
}

// Signal -> wait arrows: a wait for S >= v was released by the v-th signal of S in time order.
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
            ev.raw("\"ph\":\"s\"" + common + ",\"tid\":" + std::to_string(s.tid) + ",\"ts\":" + ev.ts(s.ev->end) +
                   ",\"args\":{\"line\":" + std::to_string(s.ev->line) + "}");
            ev.raw("\"ph\":\"f\",\"bp\":\"e\"" + common + ",\"tid\":" + std::to_string(w.tid) + ",\"ts\":" +
                   ev.ts(w.ev->start) + ",\"args\":{\"line\":" + std::to_string(w.ev->line) + ",\"value\":" +
                   std::to_string(value) + "}");
        }
    }
}

void client_tracks(Events& ev, const Stats& k, const ActivityProbe& probe, const TimelineOptions& o) {
    std::vector<bool> used(k.clients.size(), false);
    for (std::size_t c = 0; c < k.clients.size(); ++c) used[c] = k.clients[c].requests > 0;
    for (const auto& s : probe.spans()) used[s.client] = true;
    for (std::size_t c = 0; c < k.clients.size(); ++c)
        if (used[c]) ev.meta(kPidClients, static_cast<int>(c) + 1, "thread", k.clients[c].name, static_cast<int>(c));
    for (const auto& s : probe.spans()) {
        if (!keep(s.start, s.start + s.cycles, o)) continue;
        ev.raw("\"ph\":\"X\",\"cat\":\"stall\",\"pid\":2,\"tid\":" + std::to_string(s.client + 1) + ",\"name\":" +
               json_string(to_string(s.cause)) + ",\"cname\":\"" + cname(s.cause) + "\",\"ts\":" + ev.ts(s.start) +
               ",\"dur\":" + ev.ts(s.cycles) + ",\"args\":{\"client\":" + json_string(k.clients[s.client].name) +
               ",\"cause\":" + json_string(to_string(s.cause)) + ",\"start_cycle\":" + std::to_string(s.start) +
               ",\"cycles\":" + std::to_string(s.cycles) + "}");
    }
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
    const Cycle end = w.rows.back().start + w.rows.back().cycles;
    for (std::size_t b = 0; b < w.banks.size(); ++b)
        sample(kPidBanks, w.banks[b], end, "\"busy\":0,\"conflict\":0", last[b]);
    sample(kPidTdm, "tdm", end, "\"compute_used\":0,\"dma_used\":0", last.back());
}

}  // namespace

void write_timeline(std::ostream& os, const ReplayResult& r, const ActivityProbe& probe, const TimelineOptions& o) {
    std::vector<Instr> ins = describe(r);
    os << "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"sbufsim\",\"trace\":" << json_string(r.trace)
       << ",\"generation\":" << json_string(r.generation) << ",\"pe_clock_ghz\":" << jnum(r.pe_clock_ghz)
       << ",\"time_unit\":\"us at the PE clock\",\"total_cycles\":" << r.total_cycles
       << ",\"window_from\":" << o.from << ",\"window_to\":" << (o.to == kNever ? r.total_cycles : o.to)
       << "},\n\"traceEvents\":[";
    Events ev(os, r.pe_clock_ghz);
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
