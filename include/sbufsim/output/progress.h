// The one progress bar on stderr, for long replays (records) and sweeps (points): items done,
// rate, ETA. Shown only when the stream is a terminal (the caller checks stderr_is_terminal()),
// so logs, pipes and tests see nothing; redrawn at most 10 times a second so it costs nothing
// measurable.
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace sbufsim {

class Progress {
public:
    // total = 0: unknown (no percentage, no ETA). `unit` names the items ("rec", "pt").
    Progress(std::ostream& os, bool enabled, std::uint64_t total, std::string label, std::string unit = "rec");
    ~Progress();
    void update(std::uint64_t done);
    // Erases the bar (the summary that follows starts on a clean line).
    void finish();
    // Seconds since the bar was made (shown or not).
    double seconds() const;

    // The bar's text for `done` of `total` after `seconds`, e.g.
    // "run x.trc [#######.......]  45%  1.20M rec  3.40M rec/s  ETA 0:12".
    static std::string render(const std::string& label, std::uint64_t done, std::uint64_t total, double seconds,
                              const std::string& unit = "rec");
    static bool stderr_is_terminal();
    // Records of a text trace (its lines), 0 for a binary one or on error: the ETA's denominator.
    static std::uint64_t estimate_records(const std::string& path);

private:
    using Clock = std::chrono::steady_clock;
    std::ostream& os_;
    bool enabled_;
    bool drawn_ = false;
    std::uint64_t total_;
    std::string label_, unit_;
    Clock::time_point start_, last_;
};

}  // namespace sbufsim
