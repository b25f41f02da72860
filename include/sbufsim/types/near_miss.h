// "Did you mean ...?" for a mistyped name: the configuration loader's keys, the sweep chart's
// metrics and keys, commands and options, trace fields, record kinds and clients.
#pragma once

#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>

namespace sbufsim {

// Edit distance with adjacent transpositions (optimal string alignment): insertions, deletions,
// substitutions of one character and swaps of two neighbours count one edit each, so that
// "jsno" is as near "json" as "jsn" is. Letters compare without case ("TDM" is "tdm").
std::size_t edit_distance(std::string_view a, std::string_view b);

// Close enough to suggest: at most max(3, |typed| / 4) edits, and fewer than half the typed
// name's length (three edits to a three-letter word suggest an unrelated word); one edit to a
// name of two or more characters always is ("rn" for "run").
inline bool near_miss(std::size_t distance, std::string_view typed) {
    if (distance == 1) return typed.size() >= 2;
    return distance <= (typed.size() / 4 > 3 ? typed.size() / 4 : 3) && 2 * distance < typed.size();
}

// " (did you mean 'x'?)" for the candidate nearest to `typed`, "" when none is a near miss.
template <class Range>
std::string did_you_mean(std::string_view typed, const Range& candidates);

// The candidate nearest to `typed` if it is a near miss, else nullptr. `Range` holds anything
// `name_of` maps to a string_view.
template <class Range, class NameOf>
auto nearest(std::string_view typed, const Range& candidates, NameOf name_of) -> decltype(&*std::begin(candidates)) {
    decltype(&*std::begin(candidates)) best = nullptr;
    std::size_t best_d = static_cast<std::size_t>(-1);
    for (const auto& c : candidates) {
        const std::size_t d = edit_distance(typed, name_of(c));
        if (d < best_d) best_d = d, best = &c;
    }
    return best && near_miss(best_d, typed) ? best : nullptr;
}

template <class Range>
std::string did_you_mean(std::string_view typed, const Range& candidates) {
    const auto* best = nearest(typed, candidates, [](const auto& c) { return std::string_view(c); });
    return best ? " (did you mean '" + std::string(std::string_view(*best)) + "'?)" : "";
}

}  // namespace sbufsim
