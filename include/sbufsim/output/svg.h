// A small SVG writer: just enough for the project's charts (rectangles, text, lines, a colour
// ramp), so that plots need no Python or graphics library at run time. Output is plain SVG 1.1
// that browsers, rsvg-convert and Inkscape open; every string written is XML-escaped.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace sbufsim::svg {

// Escapes & < > " ' for text content and attribute values.
std::string escape(std::string_view s);

// Colour ramps on t in [0, 1] as "#rrggbb": white→blue for utilisation, white→red for stalls
// (one hue per quantity so the two panels are not confused).
std::string ramp_blue(double t);
std::string ramp_red(double t);
// White to a dark grey: a stall that is by design (a turn, an ordering), not lost to other traffic.
std::string ramp_grey(double t);

struct Style {
    std::string fill = "none";
    std::string stroke = "none";
    double stroke_width = 0;
    std::string css_class;      // class="..." (tests count cells by class)
    std::string title;          // <title> child: the browser tooltip
    std::string attrs;          // extra attributes, written as is (caller escapes), e.g. data-bin="3"
};

class Writer {
public:
    Writer(double width, double height);
    void rect(double x, double y, double w, double h, const Style& s);
    // anchor: start | middle | end; rotate: degrees about (x, y); fill: "" = black.
    void text(double x, double y, std::string_view s, double size = 11, std::string_view anchor = "start",
              double rotate = 0, std::string_view weight = "normal", std::string_view fill = "");
    void line(double x1, double y1, double x2, double y2, std::string_view stroke = "#000", double w = 1);
    void polyline(const std::string& points, std::string_view stroke, double w = 1.5);
    void circle(double x, double y, double r, std::string_view fill);
    // A raw group start/end (for data attributes on a panel).
    void open_group(std::string_view id);
    void close_group();
    // The finished document.
    std::string str() const;

private:
    double width_, height_;
    std::ostringstream body_;
};

// A number with at most `digits` significant digits, no trailing zeros ("0.25", "1200", "3.5e+06").
std::string num(double v, int digits = 4);

// Tick values of a numeric axis: multiples of a 1/2/5 x 10^k step, about `target` intervals,
// the first <= lo and the last >= hi (so every value lies inside the axis).
std::vector<double> round_ticks(double lo, double hi, int target);

// A count as a label: three significant digits with k/M/G ("208", "55.4k", "1.2M", "0.25").
std::string compact(double v);

// Position of v on a logarithmic colour scale over three decades below `max`: 0 for v <= 0,
// log10(1 + 999 v / max) / 3, so max -> 1, max/10 -> 0.67, max/100 -> 0.35, max/1000 -> 0.1.
// A start-up spike then no longer washes out everything an order of magnitude below it.
double log_scale(double v, double max);

}  // namespace sbufsim::svg
