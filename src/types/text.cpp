#include "sbufsim/types/text.h"

#include <charconv>

namespace sbufsim {

std::optional<std::uint64_t> parse_unsigned(std::string_view text) {
    int base = 10;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        text.remove_prefix(2);
        base = 16;
    }
    if (text.empty() || text.front() == '-' || text.front() == '+') return std::nullopt;
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
    if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return v;
}

std::string printable(std::string_view text) {
    static const char* hex = "0123456789abcdef";
    std::string out;
    out.reserve(text.size());
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x20 || c == 0x7f) {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 0xf];
        } else {
            out += ch;
        }
    }
    return out;
}

std::vector<std::string> split(std::string_view s, char sep) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        const auto at = s.find(sep, start);
        out.emplace_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
        if (at == std::string_view::npos) return out;
        start = at + 1;
    }
}

}  // namespace sbufsim

namespace sbufsim {

namespace {

// The number after a name's last '_' (dma_7: 7), or none.
std::optional<std::size_t> row_number(const std::string& name) {
    const std::size_t us = name.rfind('_');
    if (us == std::string::npos || us + 1 == name.size()) return std::nullopt;
    std::size_t v = 0;
    for (std::size_t i = us + 1; i < name.size(); ++i) {
        if (name[i] < '0' || name[i] > '9') return std::nullopt;
        v = v * 10 + static_cast<std::size_t>(name[i] - '0');
    }
    return v;
}

}  // namespace

std::vector<TableRow> merge_numbered_rows(const std::vector<TableRow>& rows) {
    std::vector<TableRow> out;
    std::size_t first = 0;  // number of the run's first row
    for (const TableRow& row : rows) {
        const std::optional<std::size_t> i = row_number(row.name);
        if (!out.empty() && i && out.back().figures == row.figures) {
            const std::string& head = out.back().name;
            const std::size_t stem = row.name.rfind('_') + 1;
            if (head.compare(0, stem, row.name, 0, stem) == 0 && *i == first + out.back().count) {
                ++out.back().count;
                continue;
            }
        }
        out.push_back(row);
        out.back().count = 1;
        first = i.value_or(0);
    }
    for (TableRow& row : out)
        if (row.count > 1) row.name += ".." + std::to_string(*row_number(row.name) + row.count - 1);
    return out;
}

std::string merged_rows_note(const std::vector<TableRow>& rows, std::string_view what) {
    std::string merged;
    for (const TableRow& row : rows)
        if (row.count > 1) merged += (merged.empty() ? "" : ", ") + row.name;
    if (merged.empty()) return merged;
    return "  (" + merged + ": each " + std::string(what) + " of the range has the figures shown)\n";
}

std::string wrap_text(std::string_view text, std::size_t width, std::size_t indent, std::size_t start) {
    // The words; a unit stays with its number ("12.2 %").
    std::vector<std::string> words;
    for (const std::string& w : split(text, ' ')) {
        if (w.empty()) continue;
        if (w == "%" && !words.empty())
            words.back() += " %";
        else
            words.push_back(w);
    }
    std::string out, line;
    for (const std::string& word : words) {
        const std::size_t lead = out.empty() ? start : indent;
        if (!line.empty() && lead + line.size() + 1 + word.size() > width) {
            out += (out.empty() ? "" : "\n" + std::string(indent, ' ')) + line;
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
    }
    if (!line.empty()) out += (out.empty() ? "" : "\n" + std::string(indent, ' ')) + line;
    return out;
}

}  // namespace sbufsim
