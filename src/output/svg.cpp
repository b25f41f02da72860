#include "sbufsim/output/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sbufsim/output/output_file.h"
#include "sbufsim/types/number.h"

namespace sbufsim::svg {

std::string escape(std::string_view s) {
    std::string o;
    o.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&': o += "&amp;"; break;
            case '<': o += "&lt;"; break;
            case '>': o += "&gt;"; break;
            case '"': o += "&quot;"; break;
            case '\'': o += "&apos;"; break;
            default:
                // Control characters are not allowed in XML 1.0 at all: drop them.
                if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t') o += c;
        }
    }
    return o;
}

namespace {

std::string hex(double r, double g, double b) {
    auto c = [](double v) { return static_cast<int>(std::lround(std::clamp(v, 0.0, 255.0))); };
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c(r), c(g), c(b));
    return buf;
}

// Linear blend from white to `to` (r, g, b), t clamped to [0, 1].
std::string from_white(double t, double r, double g, double b) {
    if (!(t > 0)) t = 0;
    t = std::min(t, 1.0);
    return hex(255 + (r - 255) * t, 255 + (g - 255) * t, 255 + (b - 255) * t);
}

}  // namespace

std::string ramp_blue(double t) { return from_white(t, 8, 48, 107); }
std::string ramp_red(double t) { return from_white(t, 165, 15, 21); }
std::string ramp_grey(double t) { return from_white(t, 82, 82, 82); }

std::string num(double v, int digits) { return format_number(v, digits); }

std::vector<double> round_ticks(double lo, double hi, int target) {
    if (!(hi > lo)) hi = lo + 1;
    const double raw = (hi - lo) / std::max(1, target), mag = std::pow(10, std::floor(std::log10(raw)));
    double step = 10 * mag;
    for (double f : {1.0, 2.0, 5.0})
        if (raw <= f * mag) {
            step = f * mag;
            break;
        }
    // Multiples of the step (not a running sum) so labels carry no accumulated rounding.
    const double first = std::floor(lo / step), last = std::ceil(hi / step);
    std::vector<double> t;
    for (double k = first; k <= last; ++k) t.push_back(k == 0 ? 0 : k * step);
    return t;
}

std::string compact(double v) {
    if (!std::isfinite(v)) return "?";
    const double a = std::fabs(v);
    const char* suffix = "";
    double scaled = v;
    if (a >= 999.5e6) scaled = v / 1e9, suffix = "G";
    else if (a >= 999.5e3) scaled = v / 1e6, suffix = "M";
    else if (a >= 999.5) scaled = v / 1e3, suffix = "k";
    return format_number(scaled, 3) + suffix;
}

double log_scale(double v, double max) {
    if (!(v > 0) || !(max > 0)) return 0;
    return std::min(1.0, std::log10(1 + 999 * v / max) / 3);
}

Writer::Writer(double width, double height) : width_(width), height_(height) {}

void Writer::rect(double x, double y, double w, double h, const Style& s) {
    body_ << "<rect x=\"" << num(x, 7) << "\" y=\"" << num(y, 7) << "\" width=\"" << num(w, 7) << "\" height=\""
          << num(h, 7) << "\" fill=\"" << escape(s.fill) << "\"";
    if (s.stroke != "none") body_ << " stroke=\"" << escape(s.stroke) << "\" stroke-width=\"" << num(s.stroke_width) << "\"";
    if (!s.css_class.empty()) body_ << " class=\"" << escape(s.css_class) << "\"";
    if (!s.attrs.empty()) body_ << " " << s.attrs;
    if (s.title.empty()) {
        body_ << "/>\n";
        return;
    }
    body_ << "><title>" << escape(s.title) << "</title></rect>\n";
}

void Writer::text(double x, double y, std::string_view s, double size, std::string_view anchor, double rotate,
                  std::string_view weight, std::string_view fill) {
    body_ << "<text x=\"" << num(x, 7) << "\" y=\"" << num(y, 7) << "\" font-size=\"" << num(size)
          << "\" text-anchor=\"" << escape(anchor) << "\"";
    if (weight != "normal") body_ << " font-weight=\"" << escape(weight) << "\"";
    if (!fill.empty()) body_ << " fill=\"" << escape(fill) << "\"";
    if (rotate != 0) body_ << " transform=\"rotate(" << num(rotate) << " " << num(x, 7) << " " << num(y, 7) << ")\"";
    body_ << ">" << escape(s) << "</text>\n";
}

void Writer::line(double x1, double y1, double x2, double y2, std::string_view stroke, double w) {
    body_ << "<line x1=\"" << num(x1, 7) << "\" y1=\"" << num(y1, 7) << "\" x2=\"" << num(x2, 7) << "\" y2=\""
          << num(y2, 7) << "\" stroke=\"" << escape(stroke) << "\" stroke-width=\"" << num(w) << "\"/>\n";
}

void Writer::polyline(const std::string& points, std::string_view stroke, double w) {
    body_ << "<polyline points=\"" << escape(points) << "\" fill=\"none\" stroke=\"" << escape(stroke)
          << "\" stroke-width=\"" << num(w) << "\"/>\n";
}

void Writer::circle(double x, double y, double r, std::string_view fill) {
    body_ << "<circle cx=\"" << num(x, 7) << "\" cy=\"" << num(y, 7) << "\" r=\"" << num(r) << "\" fill=\""
          << escape(fill) << "\"/>\n";
}

void Writer::open_group(std::string_view id) { body_ << "<g id=\"" << escape(id) << "\">\n"; }
void Writer::close_group() { body_ << "</g>\n"; }

std::string Writer::str() const {
    std::ostringstream o;
    // The comment tells a picture sbufsim drew (and may replace) from another tool's SVG.
    o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<!-- " << kWrittenBy << "; sbufsim replaces this file when told to write it again -->\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << num(width_, 7)
      << "\" height=\"" << num(height_, 7) << "\" viewBox=\"0 0 " << num(width_, 7) << " " << num(height_, 7)
      << "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
      << "<rect x=\"0\" y=\"0\" width=\"" << num(width_, 7) << "\" height=\"" << num(height_, 7)
      << "\" fill=\"#ffffff\"/>\n"
      << body_.str() << "</svg>\n";
    return o.str();
}

}  // namespace sbufsim::svg
