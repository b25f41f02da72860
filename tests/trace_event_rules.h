// A validator for Chrome trace-event / Perfetto JSON documents, as the timeline tests use it: the
// rules a viewer relies on when it imports the file, checked on the parsed document.
//
//   - events: `ph` is one of X B E C M s t f i; pid and tid are integers; every event but M has
//     a `ts`; X has a `dur`; counters (C) carry only numeric args; metadata (M) is a
//     process/thread name or sort index with the matching arg;
//   - time: `ts` and `dur` are non-negative integers (one unit, no rounding: a slice ends at
//     exactly ts + dur), so what nests in cycles nests in the file;
//   - slices on one track (pid, tid) nest: two slices are disjoint or one contains the other;
//     B/E pairs match like brackets, E not before its B;
//   - flows: every id has exactly one start `s` and one end `f` (with steps `t` between), with
//     the same cat and name; s.ts <= f.ts; each end binds to a slice of its own track: inside
//     it (start <= ts < end; `f` with bp "e", the enclosing slice) or, for an `f` without bp,
//     the next slice that starts at or after its ts;
//   - every track with slices is named (thread_name), every process with tracks too.
//
// violations() returns one line per broken rule instance (the first `limit`), empty when valid.
#pragma once

#include <algorithm>
#include <boost/property_tree/ptree.hpp>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace sbufsim::test {

namespace trace_event {

namespace pt = boost::property_tree;

inline bool is_uint(const std::string& s) {
    return !s.empty() && s.size() <= 19 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

inline bool is_number(const std::string& s) {
    if (s.empty()) return false;
    char* end = nullptr;
    std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size();
}

struct Slice {
    std::uint64_t ts = 0, end = 0;
    std::size_t index = 0;   // event index, for messages
};

struct Flow {
    std::string ph, cat, name, bp;
    std::uint64_t ts = 0;
    std::pair<std::int64_t, std::int64_t> track;
    std::size_t index = 0;
};

class Validator {
public:
    // `decimals`: ts and dur may carry up to that many decimals (a timeline in us to the ns has
    // 3); they are compared as integers of that unit, so the no-rounding rule still holds.
    explicit Validator(std::size_t limit, int decimals = 0) : limit_(limit), decimals_(decimals) {}

    std::vector<std::string> run(const pt::ptree& doc) {
        const auto events = doc.get_child_optional("traceEvents");
        if (!events) {
            bad(0, "no traceEvents array");
            return out_;
        }
        std::size_t i = 0;
        for (const auto& [k, e] : *events) event(e, i++);
        nesting();
        flows();
        names();
        return out_;
    }

private:
    using Track = std::pair<std::int64_t, std::int64_t>;

    void bad(std::size_t i, const std::string& why) {
        if (out_.size() < limit_) out_.push_back("event " + std::to_string(i) + ": " + why);
    }

    // An integer field; false (and a violation) when missing or not a non-negative integer.
    bool uint_field(const pt::ptree& e, const char* key, std::size_t i, std::uint64_t& v) {
        const auto s = e.get_optional<std::string>(key);
        const auto dot = s ? s->find('.') : std::string::npos;
        const std::string whole = s ? s->substr(0, dot) : "",
                          frac = dot == std::string::npos ? "" : s->substr(dot + 1);
        if (!s || !is_uint(whole) || (dot != std::string::npos && (frac.empty() || !is_uint(frac))) ||
            frac.size() > static_cast<std::size_t>(decimals_)) {
            bad(i, std::string(key) + " is " +
                       (s ? "'" + *s + "', not a non-negative number with at most " +
                                std::to_string(decimals_) + " decimals"
                          : "missing"));
            return false;
        }
        v = std::stoull(whole + frac + std::string(static_cast<std::size_t>(decimals_) - frac.size(), '0'));
        return true;
    }

    void event(const pt::ptree& e, std::size_t i) {
        const std::string ph = e.get<std::string>("ph", "");
        static const std::set<std::string> kPhases{"X", "B", "E", "C", "M", "s", "t", "f", "i"};
        if (!kPhases.count(ph)) return bad(i, "unknown ph '" + ph + "'");
        const auto pid = e.get_optional<std::string>("pid"), tid = e.get_optional<std::string>("tid");
        if (!pid || !is_uint(*pid)) return bad(i, "pid missing or not an integer");
        if (tid && !is_uint(*tid)) return bad(i, "tid not an integer");
        const Track track{std::stoll(*pid), tid ? std::stoll(*tid) : 0};
        if (ph == "M") return metadata(e, i, track);
        std::uint64_t ts = 0;
        if (!uint_field(e, "ts", i, ts)) return;
        if (ph == "X") {
            std::uint64_t dur = 0;
            if (!uint_field(e, "dur", i, dur)) return;
            slices_[track].push_back({ts, ts + dur, i});
        } else if (ph == "B") {
            open_[track].push_back({ts, ts, i});
        } else if (ph == "E") {
            auto& stack = open_[track];
            if (stack.empty()) return bad(i, "E without an open B on its track");
            Slice s = stack.back();
            stack.pop_back();
            if (ts < s.ts) return bad(i, "E before its B (event " + std::to_string(s.index) + ")");
            s.end = ts;
            slices_[track].push_back(s);
        } else if (ph == "C") {
            const auto args = e.get_child_optional("args");
            if (!args || args->empty()) return bad(i, "counter without args");
            for (const auto& [name, v] : *args)
                if (!is_number(v.data()) || !v.empty()) bad(i, "counter arg '" + name + "' is not a number");
        } else if (ph == "s" || ph == "t" || ph == "f") {
            const auto id = e.get_optional<std::string>("id");
            if (!id) return bad(i, "flow event without id");
            flows_[*id].push_back({ph, e.get<std::string>("cat", ""), e.get<std::string>("name", ""),
                                   e.get<std::string>("bp", ""), ts, track, i});
        }
        if (ph != "C" && ph != "E" && e.get<std::string>("name", "").empty()) bad(i, "event without a name");
        used_.insert(track);
    }

    void metadata(const pt::ptree& e, std::size_t i, const Track& track) {
        const std::string name = e.get<std::string>("name", "");
        if (name == "process_name" || name == "thread_name") {
            if (e.get<std::string>("args.name", "").empty()) return bad(i, name + " without args.name");
            (name == "thread_name" ? named_threads_ : named_processes_).insert(name == "thread_name" ? track : Track{track.first, 0});
        } else if (name == "process_sort_index" || name == "thread_sort_index") {
            if (!is_number(e.get<std::string>("args.sort_index", ""))) bad(i, name + " without a numeric args.sort_index");
        } else {
            bad(i, "unknown metadata '" + name + "'");
        }
    }

    // Sorted by start, longest first: a slice either starts after the enclosing one ended or
    // must end inside it.
    void nesting() {
        for (auto& [track, list] : slices_) {
            std::sort(list.begin(), list.end(), [](const Slice& a, const Slice& b) {
                return a.ts != b.ts ? a.ts < b.ts : a.end > b.end;
            });
            std::vector<const Slice*> stack;
            for (const auto& s : list) {
                while (!stack.empty() && stack.back()->end <= s.ts) stack.pop_back();
                if (!stack.empty() && s.end > stack.back()->end)
                    bad(s.index, "slice [" + std::to_string(s.ts) + ", " + std::to_string(s.end) + ") on track " +
                                     std::to_string(track.first) + "/" + std::to_string(track.second) +
                                     " overlaps slice [" + std::to_string(stack.back()->ts) + ", " +
                                     std::to_string(stack.back()->end) + ") (event " +
                                     std::to_string(stack.back()->index) + ") without nesting in it");
                stack.push_back(&s);
            }
        }
        for (const auto& [track, stack] : open_)
            for (const auto& s : stack) bad(s.index, "B without its E");
    }

    bool binds(const Flow& f) const {
        const auto it = slices_.find(f.track);
        if (it == slices_.end()) return false;
        const bool next_slice = f.ph == "f" && f.bp != "e";
        for (const auto& s : it->second) {
            if (next_slice ? s.ts >= f.ts : (s.ts <= f.ts && (f.ts < s.end || (s.ts == s.end && s.ts == f.ts))))
                return true;
        }
        return false;
    }

    void flows() {
        for (const auto& [id, steps] : flows_) {
            std::size_t starts = 0, ends = 0;
            for (const auto& f : steps) {
                starts += f.ph == "s";
                ends += f.ph == "f";
                if (f.cat != steps.front().cat || f.name != steps.front().name)
                    bad(f.index, "flow " + id + ": cat/name differ from its start");
                if (!binds(f)) bad(f.index, "flow " + id + " " + f.ph + " at ts " + std::to_string(f.ts) + " is not inside a slice of its track");
            }
            if (starts != 1 || ends != 1) {
                bad(steps.front().index, "flow " + id + " has " + std::to_string(starts) + " start(s) and " +
                                             std::to_string(ends) + " end(s)");
                continue;
            }
            const auto s = std::find_if(steps.begin(), steps.end(), [](const Flow& f) { return f.ph == "s"; });
            const auto f = std::find_if(steps.begin(), steps.end(), [](const Flow& x) { return x.ph == "f"; });
            if (f->ts < s->ts) bad(f->index, "flow " + id + " ends before it starts");
        }
    }

    void names() {
        for (const auto& [track, list] : slices_) {
            if (!named_threads_.count(track))
                bad(list.front().index, "track " + std::to_string(track.first) + "/" + std::to_string(track.second) + " has no thread_name");
            if (!named_processes_.count({track.first, 0}))
                bad(list.front().index, "process " + std::to_string(track.first) + " has no process_name");
        }
    }

    std::size_t limit_;
    int decimals_;
    std::vector<std::string> out_;
    std::map<Track, std::vector<Slice>> slices_;
    std::map<Track, std::vector<Slice>> open_;
    std::map<std::string, std::vector<Flow>> flows_;
    std::set<Track> named_threads_, named_processes_, used_;
};

}  // namespace trace_event

// The rules `doc` breaks, at most `limit` of them; empty when it is a valid timeline.
inline std::vector<std::string> trace_event_violations(const boost::property_tree::ptree& doc,
                                                       std::size_t limit = 20, int decimals = 0) {
    return trace_event::Validator(limit, decimals).run(doc);
}

}  // namespace sbufsim::test
