// JSON text helpers shared by the JSON writers (report.cpp, sweep.cpp, timeline.cpp).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace sbufsim {

// `s` as a quoted JSON string: '"' and '\\' escaped, control characters as \u00XX.
inline std::string json_string(std::string_view s) {
    std::string o = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            o += '\\';
            o += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", c);
            o += b;
        } else {
            o += c;
        }
    }
    return o + "\"";
}

}  // namespace sbufsim
