// "Did you mean ...?" for a mistyped name: the configuration loader's keys, the sweep chart's
// metrics and keys, commands and options, trace fields, record kinds and clients.
#pragma once

#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>

namespace sbufsim {

// Levenshtein distance: insertions, deletions and substitutions of one character each.
std::size_t edit_distance(std::string_view a, std::string_view b);

// Close enough to suggest: at most max(3, |typed| / 4) edits, and fewer than half the typed
// name's length (three edits to a three-letter word suggest an unrelated word).
inline bool near_miss(std::size_t distance, std::string_view typed) {
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
