// Source locations of trace records (trace.h, `loc=`): parsing, splitting and writing.
//
// A location is one token: a site ("kernel.py:42:nl.load", "gemm:load_A") and optionally loop
// indices in brackets ("[m=3,k=1]"). The record keeps the site with the index *names* only
// ("gemm:load_A[m,k]"), interned once per reader, and the index values inline: a kernel's loop
// makes thousands of records from one site, and a table entry per iteration would grow with
// the trace.
#include <algorithm>
#include <charconv>

#include "sbufsim/trace/trace.h"
#include "trace_binary.h"

namespace sbufsim {

namespace {

// A site's characters: a name's, a path's slash and '@' (a function after a call).
constexpr std::array<bool, 256> kSiteChar = [] {
    std::array<bool, 256> t{};
    for (int c = 0; c < 256; ++c)
        t[static_cast<std::size_t>(c)] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                         (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-' ||
                                         c == ':' || c == '+' || c == '/' || c == '@';
    return t;
}();
constexpr bool site_char(char c) { return kSiteChar[static_cast<unsigned char>(c)]; }
constexpr bool index_name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

std::string shown(std::string_view s) {
    return "'" + std::string(s.substr(0, 64)) + (s.size() > 64 ? "...'" : "'");
}

}  // namespace

SiteParts split_site(std::string_view site) {
    SiteParts p;
    const auto bracket = site.find('[');
    p.base = site.substr(0, bracket);
    if (bracket != std::string_view::npos && site.size() > bracket + 1 && site.back() == ']')
        p.index_names = site.substr(bracket + 1, site.size() - bracket - 2);
    p.key = p.base;
    // FILE:LINE[:CALL][@FUNCTION]: the first colon followed by digits that end at a colon, an '@'
    // or the end.
    for (std::size_t c = p.base.find(':'); c != std::string_view::npos; c = p.base.find(':', c + 1)) {
        std::size_t e = c + 1;
        while (e < p.base.size() && p.base[e] >= '0' && p.base[e] <= '9') ++e;
        if (e == c + 1 || (e < p.base.size() && p.base[e] != ':' && p.base[e] != '@')) continue;
        std::uint32_t line = 0;
        const auto [ptr, ec] = std::from_chars(p.base.data() + c + 1, p.base.data() + e, line);
        if (ec != std::errc{} || line == 0) continue;
        p.file = p.base.substr(0, c);
        p.line = line;
        p.key = p.base.substr(0, e);
        std::string_view rest = p.base.substr(e);
        if (const auto at = rest.rfind('@'); at != std::string_view::npos) {
            p.function = rest.substr(at + 1);
            rest = rest.substr(0, at);
        }
        if (rest.starts_with(':')) p.call = rest.substr(1);
        break;
    }
    return p;
}

std::string site_label(std::string_view site) {
    if (site.empty()) return {};
    const SiteParts p = split_site(site);
    if (p.line == 0) return std::string(p.base);
    return std::string(p.key) + (p.call.empty() ? "" : " " + std::string(p.call));
}

void locate_errors(const Record& rec, std::vector<TraceError>& out, std::size_t from) {
    if (!rec.has_site() || from >= out.size()) return;
    const std::string label = site_label(rec.site);
    for (std::size_t i = from; i < out.size(); ++i)
        if (out[i].line == rec.line && out[i].source.empty()) out[i].source = label;
}

std::string format_location(const Record& rec) {
    if (!rec.has_site()) return {};
    const SiteParts p = split_site(rec.site);
    if (p.index_names.empty()) return std::string(rec.site);
    std::string out(rec.site.substr(0, rec.site.find('[') + 1));
    std::size_t from = 0;
    for (std::uint32_t i = 0; i < rec.num_indices; ++i) {
        const std::size_t comma = std::min(p.index_names.find(',', from), p.index_names.size());
        if (i) out += ',';
        out += p.index_names.substr(from, comma - from);
        out += '=';
        out += std::to_string(rec.indices[i]);
        from = comma + 1;
    }
    return out + ']';
}

std::optional<std::string> parse_location(std::string_view text, NameTable& sites, Record& rec) {
    const auto bracket = text.find('[');
    const std::string_view base = text.substr(0, bracket);
    if (base.empty() || !std::all_of(base.begin(), base.end(), site_char))
        return "bad location " + shown(text) +
               ": expected FILE:LINE[:CALL] or a step name of [A-Za-z0-9_.:+/@-], "
               "then optionally loop indices [name=value,...]";
    // Reused: a location with indices is put together in it for the table's lookup (one per record).
    thread_local std::string site;
    site.assign(base);
    std::uint8_t n = 0;
    if (bracket != std::string_view::npos) {
        if (text.back() != ']' || text.size() < bracket + 3)
            return "bad loop indices in " + shown(text) + ": expected [name=value,...], e.g. [m=3,k=1]";
        std::string_view rest = text.substr(bracket + 1, text.size() - bracket - 2);
        site += '[';
        while (true) {
            const auto comma = rest.find(',');
            const std::string_view item = rest.substr(0, comma);
            const auto eq = item.find('=');
            const std::string_view name = item.substr(0, eq);
            std::uint32_t value = 0;
            const char* vend = item.data() + item.size();
            if (eq == std::string_view::npos || name.empty() ||
                !std::all_of(name.begin(), name.end(), index_name_char) ||
                std::from_chars(item.data() + eq + 1, vend, value).ptr != vend || eq + 1 == item.size())
                return "bad loop index " + shown(item) + " in " + shown(text) +
                       ": expected name=value (a name of [A-Za-z0-9_], a value 0..4294967295)";
            if (n == kMaxSiteIndices)
                return "more than " + std::to_string(kMaxSiteIndices) + " loop indices in " + shown(text);
            if (n) site += ',';
            site += name;
            rec.indices[n++] = value;
            if (comma == std::string_view::npos) break;
            rest.remove_prefix(comma + 1);
        }
        site += ']';
    }
    if (site.size() > kMaxSiteLength)
        return "location " + shown(text) + " is longer than " + std::to_string(kMaxSiteLength) +
               " bytes without its index values";
    const auto id = sites.intern(site);
    if (!id) return "more than " + std::to_string(kMaxSites) + " distinct source sites";
    rec.site_id = *id;
    rec.site = sites.name(*id);
    rec.num_indices = n;
    return std::nullopt;
}

namespace detail {

bool valid_site(std::string_view site, std::uint8_t& indices) {
    const auto bracket = site.find('[');
    const std::string_view base = site.substr(0, bracket);
    if (base.empty() || site.size() > kMaxSiteLength || !std::all_of(base.begin(), base.end(), site_char))
        return false;
    indices = 0;
    if (bracket == std::string_view::npos) return true;
    if (site.back() != ']' || site.size() < bracket + 3) return false;
    std::string_view rest = site.substr(bracket + 1, site.size() - bracket - 2);
    while (true) {
        const auto comma = rest.find(',');
        const std::string_view name = rest.substr(0, comma);
        if (name.empty() || !std::all_of(name.begin(), name.end(), index_name_char) ||
            indices == kMaxSiteIndices)
            return false;
        ++indices;
        if (comma == std::string_view::npos) return true;
        rest.remove_prefix(comma + 1);
    }
}

}  // namespace detail

}  // namespace sbufsim
