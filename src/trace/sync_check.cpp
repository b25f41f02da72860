#include "sbufsim/trace/sync_check.h"

#include <algorithm>
#include <functional>
#include <map>

namespace sbufsim {

namespace {

constexpr std::string_view kDeadlockRule = "semaphores, docs/trace-format.md";
constexpr std::string_view kRaceRule = "races, docs/trace-format.md";

std::string num(std::uint64_t v) { return std::to_string(v); }

// a[u] = max(a[u], b[u]) for every unit.
void join(std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
    if (a.size() < b.size()) a.resize(b.size(), 0);
    for (std::size_t u = 0; u < b.size(); ++u) a[u] = std::max(a[u], b[u]);
}

}  // namespace

SyncCheck::SyncCheck(const Params& params, std::string file)
    : file_(std::move(file)),
      semaphores_(params.isa.num_semaphores),
      value_(params.isa.num_semaphores, 0),
      total_(params.isa.num_semaphores, 0),
      blocked_on_(params.isa.num_semaphores),
      signalled_(params.isa.num_semaphores),
      hazards_(params) {}

// The replay's in-order units (replay_session.cpp, route()): one per engine for the PE array and the
// compute engines, one per DMA queue name, one per Q7 core.
std::uint32_t SyncCheck::unit_of(const Record& rec) {
    std::uint64_t key = 0;
    switch (rec.kind) {
        case RecordKind::ldweights:
        case RecordKind::matmul: key = 0; break;
        case RecordKind::act: key = 1; break;
        case RecordKind::pool: key = 2; break;
        case RecordKind::dve: key = 3; break;
        case RecordKind::dma: key = (std::uint64_t{4} << 32) | rec.queue_id; break;
        case RecordKind::q7: key = (std::uint64_t{5} << 32) | rec.core; break;
        case RecordKind::access: break;
    }
    if (units_.size() >= kMaxUnits && !unit_index_.contains(key)) return kMaxUnits;
    const auto [it, fresh] = unit_index_.try_emplace(key, static_cast<std::uint32_t>(units_.size()));
    if (fresh) {
        static constexpr const char* kEngines[] = {"PE array", "ACT", "POOL", "DVE", "DMA"};
        const std::string engine = key >> 32 == 5 ? "Q7 core " + num(rec.core) : kEngines[key < 4 ? key : 4];
        units_.push_back(Unit{engine, key >> 32 == 4 ? "DMA queue " + std::string(rec.queue) : engine, {}, 0, {}});
    }
    return it->second;
}

void SyncCheck::add(const Record& rec, std::vector<TraceError>& out, bool valid) {
    if (!is_instruction(rec.kind) || stopped_) return;
    const std::uint32_t u = unit_of(rec);
    if (u == kMaxUnits) {
        stopped_ = true;
        out.push_back(
            TraceError{file_, rec.line, "queue",
                       "more than " + num(kMaxUnits) + " queues (engines, DMA queues, Q7 cores): the " +
                           "semaphore and race check follows at most that many and stops here, so the " +
                           "records from this line on are not checked for deadlocks and races",
                       "limits, docs/trace-format.md"});
        return;
    }
    Instr in;
    in.line = rec.line;
    const auto [q, fresh] = queue_index_.try_emplace(rec.queue_id, static_cast<std::uint32_t>(queue_names_.size()));
    if (fresh) queue_names_.emplace_back(rec.queue);
    in.queue = q->second;
    for (std::uint32_t w = 0; w < rec.num_waits; ++w) {
        const std::uint32_t v = resolver_.resolve(rec.queue_id, rec.waits[w]);
        if (rec.waits[w].sem >= semaphores_) continue;
        in.wait_sem[in.waits] = rec.waits[w].sem;
        in.wait_value[in.waits++] = v;
    }
    for (std::uint32_t s = 0; s < rec.num_signals; ++s) {
        if (rec.signals[s] >= semaphores_) continue;
        in.signal_sem[in.signals++] = rec.signals[s];
        ++total_[rec.signals[s]];
    }
    in.index = units_[u].added++;
    if (valid) in.footprint = hazards_.footprint(rec);
    units_[u].pending.push_back(std::move(in));
    if (units_[u].pending.size() == 1) drain(u, out);
}

int SyncCheck::unmet(const Instr& i) const {
    for (std::uint8_t w = 0; w < i.waits; ++w)
        if (value_[i.wait_sem[w]] < i.wait_value[w]) return w;
    return -1;
}

void SyncCheck::drain(std::uint32_t first, std::vector<TraceError>& out) {
    std::vector<std::uint32_t>& work = work_;   // a member: no allocation per record
    work.assign(1, first);
    while (!work.empty()) {
        const std::uint32_t u = work.back();
        work.pop_back();
        auto& q = units_[u].pending;
        while (!q.empty()) {
            const Instr& head = q.front();
            if (const int w = unmet(head); w >= 0) {
                auto& list = blocked_on_[head.wait_sem[w]];
                if (std::find(list.begin(), list.end(), u) == list.end()) list.push_back(u);
                break;
            }
            start(u, head, out);
            for (std::uint8_t s = 0; s < head.signals; ++s) {
                ++value_[head.signal_sem[s]];
                auto& list = blocked_on_[head.signal_sem[s]];
                work.insert(work.end(), list.begin(), list.end());
                list.clear();
            }
            q.pop_front();
        }
    }
}

void SyncCheck::start(std::uint32_t u, const Instr& head, std::vector<TraceError>& out) {
    std::vector<std::uint32_t>& before = clock_;   // a member: its storage is kept between instructions
    before.assign(units_[u].before.begin(), units_[u].before.end());
    before.resize(units_.size(), 0);
    for (std::uint8_t w = 0; w < head.waits; ++w) {
        if (head.wait_value[w] == 0) continue;
        const Signalled& s = signalled_[head.wait_sem[w]];
        const std::uint64_t at = head.wait_value[w] - 1;
        join(before, s.after[at < s.dropped ? 0 : static_cast<std::size_t>(at - s.dropped)]);
    }
    conflicts_.clear();
    hazards_.start(head.footprint, UnitPosition{u, head.index, head.line}, before, conflicts_);
    for (const Conflict& c : conflicts_) out.push_back(describe(head, u, c));
    before[u] = head.index + 1;
    for (std::uint8_t s = 0; s < head.signals; ++s) {
        Signalled& list = signalled_[head.signal_sem[s]];
        std::vector<std::uint32_t> after = before;
        if (!list.after.empty()) join(after, list.after.back());
        list.after.push_back(std::move(after));
        while (list.after.size() > kept_signals()) {
            list.after.pop_front();
            ++list.dropped;
        }
    }
    units_[u].before = before;
}

// kKeptSignals, or fewer when every semaphore keeping that many clocks of this many units would
// pass kKeptClockEntries; at least one (the latest).
std::size_t SyncCheck::kept_signals() const {
    const std::size_t per_signal =
        std::max<std::size_t>(1, units_.size()) * std::max<std::size_t>(1, semaphores_);
    return std::clamp<std::size_t>(kKeptClockEntries / per_signal, 1, kKeptSignals);
}

TraceError SyncCheck::describe(const Instr& head, std::uint32_t u, const Conflict& c) const {
    const std::string me = units_[u].label + " line " + num(head.line);
    const std::string other = units_[c.other.unit].label + " line " + num(c.other.line);
    const std::string where = std::string(c.region == Region::psum ? "PSUM" : "SBUF") + " partition " +
                              num(c.partition) + " bytes " + hex(c.lo) + "-" + hex(c.hi - 1);
    std::string why;
    switch (c.kind) {
        case Conflict::Kind::read_after_write:
            why = me + " reads " + where + ", which " + other +
                  " writes, and no semaphore orders the two: the read may come before the write (read after "
                  "write)";
            break;
        case Conflict::Kind::write_after_read:
            why = me + " writes " + where + ", which " + other +
                  " reads, and no semaphore orders the two: the write may come before the read (write after "
                  "read)";
            break;
        case Conflict::Kind::write_after_write:
            why = me + " writes " + where + ", which " + other +
                  " writes too, and no semaphore orders the two: which value stays depends on timing (write "
                  "after write)";
            break;
    }
    if (c.approximate)
        why +=
            " (approximately: an access pattern of more than 4,096 runs per partition is taken as its whole "
            "extent)";
    // Which of the two the kernel means first the trace does not say: the later line of the file
    // going second is the likelier, the other order is offered too.
    const bool me_later = head.line > c.other.line;
    const std::uint64_t early = me_later ? c.other.line : head.line,
                        late = me_later ? head.line : c.other.line;
    const std::string& early_unit = me_later ? units_[c.other.unit].label : units_[u].label;
    const std::string& late_unit = me_later ? units_[u].label : units_[c.other.unit].label;
    why += "; order them: make line " + num(late) + " wait for a signal " + early_unit +
           " sends at or after line " + num(early) + ", or line " + num(early) + " for one " + late_unit +
           " sends at or after line " + num(late);
    return TraceError{file_, head.line, c.field, why, std::string(kRaceRule)};
}

std::string SyncCheck::describe(std::uint32_t unit) const {
    const Instr& head = units_[unit].pending.front();
    return units_[unit].engine + " queue " + queue_names_[head.queue] + " (line " + num(head.line) + ")";
}

std::size_t SyncCheck::finish(std::vector<TraceError>& out) {
    // Stuck units, the semaphore each head still waits for, and who could still signal it.
    struct Stuck {
        std::uint16_t sem = 0;
        std::uint32_t want = 0;
        // unit -> (line, queue) of its first pending instruction that signals sem
        std::map<std::uint32_t, std::pair<std::uint64_t, std::uint32_t>> signallers;
    };
    std::map<std::uint32_t, Stuck> stuck;
    for (std::uint32_t u = 0; u < units_.size(); ++u) {
        if (units_[u].pending.empty()) continue;
        const Instr& head = units_[u].pending.front();
        const int w = unmet(head);
        if (w < 0) continue;
        if (total_[head.wait_sem[w]] < head.wait_value[w]) continue;  // too few signals: TraceChecker::finish
        stuck[u] = Stuck{head.wait_sem[w], head.wait_value[w], {}};
    }
    for (auto& [u, st] : stuck)
        for (std::uint32_t v = 0; v < units_.size(); ++v)
            for (const Instr& i : units_[v].pending)
                if (std::count(i.signal_sem, i.signal_sem + i.signals, st.sem)) {
                    st.signallers.emplace(v, std::make_pair(i.line, i.queue));
                    break;
                }
    // Tarjan's strongly connected components over "u waits for a signal v still has to send".
    std::map<std::uint32_t, int> index, low;
    std::vector<std::uint32_t> stack;
    std::map<std::uint32_t, bool> on_stack;
    std::vector<std::vector<std::uint32_t>> circles;
    int next = 0;
    std::function<void(std::uint32_t)> visit = [&](std::uint32_t u) {
        index[u] = low[u] = next++;
        stack.push_back(u);
        on_stack[u] = true;
        for (const auto& [v, line] : stuck.at(u).signallers) {
            if (!stuck.count(v)) continue;
            if (!index.count(v)) {
                visit(v);
                low[u] = std::min(low[u], low[v]);
            } else if (on_stack[v]) {
                low[u] = std::min(low[u], index[v]);
            }
        }
        if (low[u] != index[u]) return;
        std::vector<std::uint32_t> scc;
        std::uint32_t v = 0;
        do {
            v = stack.back();
            stack.pop_back();
            on_stack[v] = false;
            scc.push_back(v);
        } while (v != u);
        if (scc.size() > 1 || stuck.at(u).signallers.count(u)) circles.push_back(scc);
    };
    for (const auto& [u, st] : stuck)
        if (!index.count(u)) visit(u);

    for (auto& scc : circles) {
        std::sort(scc.begin(), scc.end(), [&](std::uint32_t a, std::uint32_t b) {
            return units_[a].pending.front().line < units_[b].pending.front().line;
        });
        const std::uint32_t first = scc.front();
        const Instr& head = units_[first].pending.front();
        std::string why;
        if (scc.size() == 1) {
            const Stuck& st = stuck.at(first);
            const std::uint64_t by = st.signallers.at(first).first;
            why = describe(first) + " waits for semaphore " + num(st.sem) + " >= " + num(st.want) + ", which stays at " +
                  num(value_[st.sem]) + ": the signals still to come are " +
                  (by == head.line ? "its own (it signals " + num(st.sem) + " when it completes)"
                                   : "from its own queue's later line " + num(by)) +
                  ", which cannot run before it (a self-wait; `run` would deadlock); signal semaphore " + num(st.sem) +
                  " from another queue or earlier in this one, or lower the wait's value";
        } else {
            why = "semaphore cycle between " + num(scc.size()) + " queues, none of which can start (`run` would deadlock):";
            for (std::uint32_t u : scc) {
                const Stuck& st = stuck.at(u);
                std::pair<std::uint64_t, std::uint32_t> by{0, 0};
                for (const auto& [v, at] : st.signallers)
                    if (std::count(scc.begin(), scc.end(), v) && (by.first == 0 || at.first < by.first)) by = at;
                why += " " + describe(u) + " waits for semaphore " + num(st.sem) + " >= " + num(st.want) +
                       ", signalled next by " + queue_names_[by.second] + " line " + num(by.first) + ";";
            }
            why += " move one of these signals before its queue's wait, or remove a wait";
        }
        out.push_back(TraceError{file_, head.line, "wait", why, std::string(kDeadlockRule)});
    }
    return circles.size();
}

RaceScan scan_races(const Params& params, TraceReader& reader) {
    SyncCheck sync(params, reader.file());
    RaceScan scan;
    std::vector<TraceError> found;
    Record rec;
    TraceError err;
    for (ReadStatus s; (s = reader.read(rec, err)) != ReadStatus::end;) {
        if (s == ReadStatus::error) break;
        found.clear();
        sync.add(rec, found);
        scan.races += found.size();
        if (scan.first.empty() && !found.empty()) scan.first.push_back(found.front());
    }
    return scan;
}

}  // namespace sbufsim
