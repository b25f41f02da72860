// SCALE-Sim topology files (include/sbufsim/workload/workload.h, docs/generators.md "Topology files").
//
// SCALE-Sim's two layouts, each after one header line:
//   convolution  Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels,
//                Num Filter, Strides,
//   GEMM         Layer, M, N, K,
// A row with 7 numbers is a convolution, a row with 3 numbers a GEMM (trailing comma optional).
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include "sbufsim/types/input_file.h"
#include "sbufsim/workload/workload.h"

namespace sbufsim {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> split_fields(std::string_view line) {
    std::vector<std::string_view> out;
    for (;;) {
        const auto comma = line.find(',');
        out.push_back(trim(line.substr(0, comma)));
        if (comma == std::string_view::npos) break;
        line.remove_prefix(comma + 1);
    }
    while (!out.empty() && out.back().empty()) out.pop_back();   // "name,M,N,K," ends in a comma
    return out;
}

}  // namespace

std::vector<TopologyLayer> parse_topology(std::string_view text, const std::string& file) {
    std::vector<TopologyLayer> layers;
    std::size_t line_no = 0;
    bool header_seen = false;
    while (!text.empty()) {
        const auto nl = text.find('\n');
        const std::string_view line = trim(text.substr(0, nl));
        text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
        ++line_no;
        if (line.empty() || line.front() == '#') continue;
        if (!header_seen) {   // SCALE-Sim files start with a header line naming the columns
            header_seen = true;
            continue;
        }
        const auto f = split_fields(line);
        const std::string where = file + ":" + std::to_string(line_no) + ": ";
        if (f.size() != 4 && f.size() != 8)
            throw WorkloadError(where + "expected `name,M,N,K,` (GEMM) or `name,H,W,Fh,Fw,C,NumFilt,Stride,` "
                                        "(convolution), got " + std::to_string(f.size()) + " fields");
        static const char* const kGemmFields[] = {"name", "M", "N", "K"};
        static const char* const kConvFields[] = {"name", "H", "W", "Fh", "Fw", "C", "NumFilt", "Stride"};
        std::vector<std::uint64_t> v(f.size(), 0);
        for (std::size_t i = 1; i < f.size(); ++i) {
            const auto [p, ec] = std::from_chars(f[i].data(), f[i].data() + f[i].size(), v[i]);
            if (ec != std::errc{} || p != f[i].data() + f[i].size() || v[i] == 0)
                throw WorkloadError(where + (f.size() == 4 ? kGemmFields[i] : kConvFields[i]) + ": '" +
                                    std::string(f[i]) + "' is not a positive integer");
        }
        TopologyLayer l;
        l.name = std::string(f[0]);
        if (f.size() == 4) {
            l.gemm = GemmShape{v[1], v[2], v[3], l.name};
        } else {
            l.conv =
                ConvShape{v[1], v[2], v[5], v[6], v[3], v[4], v[7], 0, l.name};  // padding folded into H, W
            try {
                l.gemm = conv_as_gemm(*l.conv);
            } catch (const WorkloadError& e) {
                throw WorkloadError(where + e.what());
            }
        }
        layers.push_back(std::move(l));
    }
    if (layers.empty()) throw WorkloadError(file + ": no layers (a header line, then one row per layer)");
    return layers;
}

std::vector<TopologyLayer> read_topology(const std::string& path) {
    if (const std::string why = input_file_problem(path); !why.empty())
        throw WorkloadError(path + ": cannot open the topology file (" + why + ")");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw WorkloadError(path + ": cannot open the topology file (" + std::strerror(errno) + ")");
    std::ostringstream text;
    text << in.rdbuf();
    return parse_topology(text.str(), path);
}

}  // namespace sbufsim
