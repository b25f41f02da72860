#include "sbufsim/output/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <ostream>
#include <vector>

#include "sbufsim/types/number.h"

namespace sbufsim {

namespace {

// 1234 -> "1.23k", 5600000 -> "5.60M", 42 -> "42", 2.5 -> "2.5" (slow rates, e.g. sweep points).
std::string human(double v) {
    const char* unit = "";
    if (v >= 1e9) v /= 1e9, unit = "G";
    else if (v >= 1e6) v /= 1e6, unit = "M";
    else if (v >= 1e3) v /= 1e3, unit = "k";
    const int decimals = *unit ? 2 : v < 10 && v != static_cast<double>(static_cast<long long>(v)) ? 1 : 0;
    return format_fixed(v, decimals) + unit;
}

std::string clock(double seconds) {
    const long long s = std::llround(seconds);
    char b[32];
    if (s >= 3600) std::snprintf(b, sizeof b, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
    else std::snprintf(b, sizeof b, "%lld:%02lld", s / 60, s % 60);
    return b;
}

}  // namespace

Progress::Progress(std::ostream& os, bool enabled, std::uint64_t total, std::string label, std::string unit)
    : os_(os),
      enabled_(enabled),
      total_(total),
      label_(std::move(label)),
      unit_(std::move(unit)),
      start_(Clock::now()),
      last_(start_) {}

Progress::~Progress() { finish(); }

std::string Progress::render(const std::string& label, std::uint64_t done, std::uint64_t total, double seconds,
                             const std::string& unit) {
    // Built with append() only: GCC 12 warns (-Wrestrict, a false positive) on chains of operator+.
    std::string s;
    s.append(label).append(" ");
    const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
    if (total) {
        const double f = std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
        const std::size_t width = 24, fill = static_cast<std::size_t>(f * width);
        s.append("[").append(fill, '#').append(width - fill, '.').append("]");
        char pct[16];
        std::snprintf(pct, sizeof pct, " %3d%%", static_cast<int>(f * 100));
        s.append(pct);
    }
    s.append("  ").append(human(static_cast<double>(done))).append(" ").append(unit).append("  ");
    s.append(human(rate)).append(" ").append(unit).append("/s");
    if (total && rate > 0 && done < total) s.append("  ETA ").append(clock(static_cast<double>(total - done) / rate));
    return s;
}

void Progress::update(std::uint64_t done) {
    if (!enabled_) return;
    const auto now = Clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    const double secs = std::chrono::duration<double>(now - start_).count();
    // \r + erase-to-end-of-line: redraw in place without leaving a longer old line's tail.
    os_ << "\r\x1b[K" << render(label_, done, total_, secs, unit_) << std::flush;
    drawn_ = true;
}

void Progress::finish() {
    if (!drawn_) return;
    os_ << "\r\x1b[K" << std::flush;
    drawn_ = false;
}

double Progress::seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

bool Progress::stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

std::uint64_t Progress::estimate_records(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return 0;
    std::vector<char> buf(1 << 20);
    std::uint64_t lines = 0;
    bool first = true;
    while (f) {
        f.read(buf.data(), static_cast<std::streamsize>(buf.size()));
        const auto n = static_cast<std::size_t>(f.gcount());
        // A binary trace has NUL bytes in its fixed-size header; a text one never does.
        if (first && std::find(buf.data(), buf.data() + std::min<std::size_t>(n, 64), '\0') != buf.data() + std::min<std::size_t>(n, 64)) return 0;
        first = false;
        lines += static_cast<std::uint64_t>(std::count(buf.data(), buf.data() + n, '\n'));
    }
    return lines;
}

}  // namespace sbufsim
