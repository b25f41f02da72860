#include "sbufsim/trace/sync_check.h"

#include <algorithm>
#include <functional>
#include <map>

namespace sbufsim {

namespace {

constexpr std::string_view kDeadlockRule = "semaphores, docs/trace-format.md";
constexpr std::string_view kRaceRule = "races, docs/trace-format.md";
constexpr std::string_view kCompletionRule = "completion order, docs/trace-format.md";

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
      early_(params.isa.num_semaphores),
      met_(params.isa.num_semaphores),
      rules_(params),
      signalled_(params.isa.num_semaphores),
      hazards_(params) {}

// The replay's in-order units (replay_session.cpp, route()): one per engine for the PE array and the
// compute engines, one per DMA queue name, one per Q7 core.
std::uint32_t SyncCheck::unit_of(const Record& rec) {
    std::uint64_t key = 0;
    switch (rec.kind) {
        case RecordKind::ldweights:
        case RecordKind::matmul:
            key = 0;
            break;
        case RecordKind::act:
            key = 1;
            break;
        case RecordKind::pool:
            key = 2;
            break;
        case RecordKind::dve:
            key = 3;
            break;
        case RecordKind::dma:
            key = (std::uint64_t{4} << 32) | rec.queue_id;
            break;
        case RecordKind::q7:
            key = (std::uint64_t{5} << 32) | rec.core;
            break;
        case RecordKind::access:
            break;
    }
    if (units_.size() >= kMaxUnits && !unit_index_.contains(key)) return kMaxUnits;
    const auto [it, fresh] = unit_index_.try_emplace(key, static_cast<std::uint32_t>(units_.size()));
    if (fresh) {
        static constexpr const char* kEngines[] = {"PE array", "ACT", "POOL", "DVE", "DMA"};
        const std::string engine =
            key >> 32 == 5 ? "Q7 core " + std::to_string(rec.core) : kEngines[key < 4 ? key : 4];
        units_.push_back(
            Unit{engine, key >> 32 == 4 ? "DMA queue " + std::string(rec.queue) : engine, {}, 0, {}, {}, {}});
    }
    return it->second;
}

void SyncCheck::add(const Record& rec, std::vector<TraceError>& out, bool valid) {
    const std::size_t before = out.size();
    add_record(rec, out, valid);
    locate_errors(rec, out, before);
}

void SyncCheck::add_record(const Record& rec, std::vector<TraceError>& out, bool valid) {
    if (!is_instruction(rec.kind) || stopped_) return;
    std::uint32_t u = unit_of(rec);
    const CompletionShape shape = u == kMaxUnits ? CompletionShape{} : rules_.shape(rec);
    bool fresh_lane = false;
    const std::size_t lane = u == kMaxUnits ? 0 : units_[u].lanes.lane_of(shape, fresh_lane);
    if (fresh_lane) {
        if (lane_unit_.size() >= kMaxUnits) {
            u = kMaxUnits;
        } else {
            units_[u].lanes.lanes()[lane].id = static_cast<std::uint32_t>(lane_unit_.size());
            lane_unit_.push_back(u);
        }
    }
    if (u == kMaxUnits) {
        stopped_ = true;
        out.push_back(TraceError{
            file_, rec.line, "queue",
            "more than " + std::to_string(kMaxUnits) +
                " queues (engines, DMA queues and the DMA engines of their transfers, Q7 cores): the " +
                "semaphore and race check follows at most that many and stops here, so the " +
                "records from this line on are not checked for deadlocks and races",
            "limits, docs/trace-format.md"});
        return;
    }
    Instr in;
    in.line = rec.line;
    if (rec.has_site()) {
        in.site = rec.site_id;
        if (site_labels_.size() <= rec.site_id) site_labels_.resize(rec.site_id + 1u);
        if (site_labels_[rec.site_id].empty()) site_labels_[rec.site_id] = site_label(rec.site);
    }
    const auto [q, fresh] =
        queue_index_.try_emplace(rec.queue_id, static_cast<std::uint32_t>(queue_names_.size()));
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
    in.shape = shape;
    in.lane = static_cast<std::uint32_t>(lane);
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
    std::vector<std::uint32_t>& work = work_;  // a member: no allocation per record
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
    std::vector<std::uint32_t>& before = clock_;  // members: their storage is kept between instructions
    before.assign(units_[u].before.begin(), units_[u].before.end());
    before.resize(lane_unit_.size(), 0);
    for (std::uint8_t w = 0; w < head.waits; ++w) {
        if (head.wait_value[w] == 0) continue;
        join_wait(before, head.wait_sem[w], head.wait_value[w]);
        auto& met = met_[head.wait_sem[w]];
        met.push_back(MetWait{head.wait_value[w], head.line, u, false});
        if (met.size() > kKeptMetWaits) met.pop_front();
    }
    // Its unit's part (completion_order.h): what completes before it starts, and before it
    // completes, which its signals order after them.
    UnitLanes& lanes = units_[u].lanes;
    lanes.started(rules_, head.lane, head.shape, before);
    const CompletionLane& lane = lanes.lanes()[head.lane];
    UnitPosition me{lane.id, lane.count, head.line, u};
    me.site = head.site;
    conflicts_.clear();
    hazards_.start(head.footprint, me, before, conflicts_);
    for (const Conflict& c : conflicts_) out.push_back(describe(head, u, c));
    std::vector<std::uint32_t>& done = done_;
    done.assign(before.begin(), before.end());
    lanes.completed(rules_, head.lane, head.shape, done);
    if (!units_[u].signallers.empty() && head.signals) note_overtaken(u, head, done, out);
    for (std::uint8_t s = 0; s < head.signals; ++s) {
        Signalled& list = signalled_[head.signal_sem[s]];
        std::vector<std::uint32_t> after = done;
        if (!list.after.empty()) join(after, list.after.back());
        list.after.push_back(std::move(after));
        while (list.after.size() > kept_signals()) {
            list.after.pop_front();
            ++list.dropped;
        }
    }
    if (head.signals) {
        Unit::Signaller sig{me.unit, me.index, head.line, head.shape, head.signals, {}, {}, {}};
        for (std::uint8_t s = 0; s < head.signals; ++s) {
            sig.sem[s] = head.signal_sem[s];
            // The count before this signal (drain() adds it after start()).
            sig.rank[s] =
                static_cast<std::uint32_t>(std::min<std::uint64_t>(value_[head.signal_sem[s]], 0xffffffffu));
        }
        auto& list = units_[u].signallers;
        list.push_back(sig);
        if (list.size() > kKeptSignallers) list.pop_front();
    }
    units_[u].before = before;
}

void SyncCheck::join_wait(std::vector<std::uint32_t>& before, std::uint16_t sem, std::uint32_t value) const {
    // The first `take` signals of the game are the ones every order has had by then: all `value`,
    // unless a later signal can reach the count before an earlier one's instruction completes.
    std::uint64_t take = value;
    for (const EarlyCount& e : early_[sem])
        if (e.rank < value && value <= e.count) take = std::min<std::uint64_t>(take, e.rank);
    if (take == 0) return;
    const Signalled& s = signalled_[sem];
    if (s.after.empty()) return;
    const std::uint64_t at = take - 1;
    join(before, s.after[at < s.dropped ? 0
                                        : std::min<std::size_t>(s.after.size() - 1,
                                                                static_cast<std::size_t>(at - s.dropped))]);
}

namespace {
// Why `later` can complete before an earlier instruction of its unit (completion_order.h).
std::string overtake_reason(const CompletionShape& earlier, const CompletionShape& later,
                            bool background_transpose) {
    using Kind = CompletionShape::Kind;
    if (later.kind == Kind::ldweights)
        return "an ldweights loads its weights in the background of the matmuls before it";
    if (earlier.kind == Kind::ldweights) return "a matmul waits only for an ldweights on its own PE blocks";
    if (later.kind == Kind::matmul)
        return background_transpose && (later.transpose || earlier.transpose)
                   ? "a PE transpose streams beside another matmul on its blocks (background transpose)"
                   : "matmuls on disjoint PE tiles stream side by side";
    if (later.kind == Kind::dma)
        return "a DMA queue's transfers are in order on each DMA engine only, and its transfer does not "
               "use every engine the earlier one does";
    return "a signal waits for its own instruction's output writes only, and its writes drain on another "
           "write client (SBUF, PSUM) than the earlier one's, or it has none";
}
}  // namespace

void SyncCheck::note_overtaken(std::uint32_t u, const Instr& later, const std::vector<std::uint32_t>& done,
                               std::vector<TraceError>& out) {
    for (Unit::Signaller& x : units_[u].signallers) {
        if (done[x.lane] > x.index) continue;  // complete before `later` completes, in every order
        for (std::uint8_t j = 0; j < x.signals; ++j) {
            if (std::count(later.signal_sem, later.signal_sem + later.signals, x.sem[j]) == 0) continue;
            const std::uint32_t count = x.rank[j] + ++x.overtakers[j];
            auto& early = early_[x.sem[j]];
            auto it = std::find_if(early.begin(), early.end(), [&](const EarlyCount& e) {
                return e.line == x.line && e.rank == x.rank[j];
            });
            if (it == early.end()) {
                early.push_back(EarlyCount{x.rank[j], count, x.line, u});
                if (early.size() > kKeptEarlyCounts) early.pop_front();
            } else {
                it->count = std::max(it->count, count);
            }
            // A wait the game met at this count, with x's signal among those it counted.
            for (MetWait& m : met_[x.sem[j]]) {
                if (m.reported || m.value != count) continue;
                m.reported = true;
                out.push_back(early_wait(m, x, j, u, later));
            }
        }
    }
}

TraceError SyncCheck::early_wait(const MetWait& m, const Unit::Signaller& x, std::uint8_t j, std::uint32_t u,
                                 const Instr& later) const {
    const std::string& unit = units_[u].label;
    const std::string why =
        units_[m.unit].label + " line " + std::to_string(m.line) + " waits for semaphore " +
        std::to_string(x.sem[j]) + " >= " + std::to_string(m.value) + ", a count " + unit + " line " +
        std::to_string(x.line) + " signals toward, but " + unit + " line " + std::to_string(later.line) +
        " signals " + std::to_string(x.sem[j]) + " too and can complete first (" +
        overtake_reason(x.shape, later.shape, rules_.background_transpose()) +
        "): the wait can be met while line " + std::to_string(x.line) +
        " is still running, and nothing orders line " + std::to_string(m.line) +
        " after it; wait for a semaphore that only instructions completing after line " +
        std::to_string(x.line) + " signal";
    return TraceError{file_, m.line, "wait", why, std::string(kCompletionRule)};
}

// kKeptSignals, or fewer when every semaphore keeping that many clocks of this many units would
// pass kKeptClockEntries; at least one (the latest).
std::size_t SyncCheck::kept_signals() const {
    const std::size_t per_signal =
        std::max<std::size_t>(1, lane_unit_.size()) * std::max<std::size_t>(1, semaphores_);
    return std::clamp<std::size_t>(kKeptClockEntries / per_signal, 1, kKeptSignals);
}

std::string SyncCheck::site_of(SiteId site) const {
    return site < site_labels_.size() ? site_labels_[site] : std::string();
}

TraceError SyncCheck::describe(const Instr& head, std::uint32_t u, const Conflict& c) const {
    const std::string me = units_[u].label + " line " + std::to_string(head.line);
    const std::string other_site = site_of(c.other.site);
    const std::string other = units_[c.other.queue].label + " line " + std::to_string(c.other.line) +
                              (other_site.empty() ? "" : " (" + other_site + ")");
    const std::string where = std::string(c.region == Region::psum ? "PSUM" : "SBUF") + " partition " +
                              std::to_string(c.partition) + " bytes " + hex(c.lo) + "-" + hex(c.hi - 1);
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
    const std::string& early_unit = me_later ? units_[c.other.queue].label : units_[u].label;
    const std::string& late_unit = me_later ? units_[u].label : units_[c.other.queue].label;
    why += "; order them: make line " + std::to_string(late) + " wait for a signal " + early_unit +
           " sends at or after line " + std::to_string(early) + ", or line " + std::to_string(early) +
           " for one " + late_unit + " sends at or after line " + std::to_string(late);
    TraceError e{file_, head.line, c.field, why, std::string(kRaceRule)};
    e.source = site_of(head.site);  // the race may be found after later records were read
    return e;
}

std::string SyncCheck::describe(std::uint32_t unit) const {
    const Instr& head = units_[unit].pending.front();
    return units_[unit].engine + " queue " + queue_names_[head.queue] + " (line " +
           std::to_string(head.line) + ")";
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
            why = describe(first) + " waits for semaphore " + std::to_string(st.sem) +
                  " >= " + std::to_string(st.want) + ", which stays at " + std::to_string(value_[st.sem]) +
                  ": the signals still to come are " +
                  (by == head.line ? "its own (it signals " + std::to_string(st.sem) + " when it completes)"
                                   : "from its own queue's later line " + std::to_string(by)) +
                  ", which cannot run before it (a self-wait; `run` would deadlock); signal semaphore " +
                  std::to_string(st.sem) +
                  " from another queue or earlier in this one, or lower the wait's value";
        } else {
            why = "semaphore cycle between " + std::to_string(scc.size()) +
                  " queues, none of which can start (`run` would deadlock):";
            for (std::uint32_t u : scc) {
                const Stuck& st = stuck.at(u);
                std::pair<std::uint64_t, std::uint32_t> by{0, 0};
                for (const auto& [v, at] : st.signallers)
                    if (std::count(scc.begin(), scc.end(), v) && (by.first == 0 || at.first < by.first))
                        by = at;
                why += " " + describe(u) + " waits for semaphore " + std::to_string(st.sem) +
                       " >= " + std::to_string(st.want) + ", signalled next by " + queue_names_[by.second] +
                       " line " + std::to_string(by.first) + ";";
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
