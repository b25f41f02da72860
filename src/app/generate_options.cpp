// `gen`'s option table (generate_options.h): names, help and the fields they set.
#include "sbufsim/app/generate_options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <type_traits>

#include "sbufsim/types/near_miss.h"
#include "sbufsim/types/number.h"

namespace sbufsim::app {
namespace {

template <class T>
using Ref = T& (*)(GenerateRequest&);

// A whole number as the command line has always read one: decimal digits, no sign.
template <class T>
T whole(const std::string& name, const std::string& text) {
    const std::string t = text.substr(std::min(text.size(), text.find_first_not_of(" \t")));
    if (!t.empty() && t.front() == '-')
        throw ConfigError("--" + name + " '" + text + "': may not be negative (a whole number is expected)");
    T v{};
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc{} || end != t.data() + t.size())
        throw ConfigError("the argument ('" + text + "') for option '--" + name + "' is invalid");
    return v;
}

double real(const std::string& name, const std::string& text) {
    char* end = nullptr;
    const double x = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size())
        throw ConfigError("the argument ('" + text + "') for option '--" + name + "' is invalid");
    if (!std::isfinite(x)) throw ConfigError("--" + name + " '" + text + "': must be a finite number");
    return x;
}

// One option bound to the field `ref` selects; its kind follows the field's type.
template <class T>
GenOption bound(std::string name, std::string group, std::string value_name, std::string help, Ref<T> ref,
                bool show_default = false) {
    GenOption o;
    o.name = std::move(name);
    o.group = std::move(group);
    o.value_name = std::move(value_name);
    o.help = std::move(help);
    o.show_default = show_default;
    const std::string n = o.name;
    if constexpr (std::is_same_v<T, bool>) {
        o.kind = GenOption::Kind::flag;
        o.set = [ref](GenerateRequest& r, const std::string&) { ref(r) = true; };
        o.get = [ref](const GenerateRequest& r) {
            return std::string(ref(const_cast<GenerateRequest&>(r)) ? "true" : "false");
        };
    } else if constexpr (std::is_same_v<T, std::string>) {
        o.kind = GenOption::Kind::text;
        o.set = [ref](GenerateRequest& r, const std::string& v) { ref(r) = v; };
        o.get = [ref](const GenerateRequest& r) { return ref(const_cast<GenerateRequest&>(r)); };
    } else if constexpr (std::is_same_v<T, double>) {
        o.kind = GenOption::Kind::real;
        o.set = [ref, n](GenerateRequest& r, const std::string& v) { ref(r) = real(n, v); };
        o.get = [ref](const GenerateRequest& r) {
            return format_number(ref(const_cast<GenerateRequest&>(r)));
        };
    } else {
        o.kind = GenOption::Kind::whole;
        o.set = [ref, n](GenerateRequest& r, const std::string& v) { ref(r) = whole<T>(n, v); };
        o.get = [ref](const GenerateRequest& r) {
            return std::to_string(ref(const_cast<GenerateRequest&>(r)));
        };
    }
    return o;
}

// The --help section of the GEMM tiling's options, which gemm_tiling_options() lists.
const std::string kTilingGroup = "GEMM tiling and placement (gemm, attention, conv, --topology)";

std::vector<GenOption> make_table() {
    const std::string out = "Output", shape = "Shapes", tiling = kTilingGroup,
                      stress = "Synthetic stress (random)";
    std::vector<GenOption> t;
    t.push_back(bound<std::string>(
        "output", out, "FILE",
        "trace file (.trc text, .sbt binary; default stdout); --topology: a directory, "
        "or the file with --single",
        +[](GenerateRequest & r) -> auto& { return r.output; }));
    t.push_back(bound<std::string>(
        "format", out, "F", "text | binary (default: from the extension)",
        +[](GenerateRequest & r) -> auto& { return r.format; }));
    t.push_back(bound<std::string>(
        "topology", out, "CSV", "SCALE-Sim topology file: one trace per layer",
        +[](GenerateRequest & r) -> auto& { return r.topology; }));
    t.push_back(bound<bool>(
        "single", out, "", "--topology: one trace for the whole network",
        +[](GenerateRequest & r) -> auto& { return r.single; }));
    t.push_back(bound<std::uint64_t>(
        "layers", out, "N", "--topology: only the first N layers",
        +[](GenerateRequest & r) -> auto& { return r.layers; }));
    t.push_back(bound<bool>(
        "force", out, "",
        "replace an existing output file that is not of the kind this command writes "
        "(never an input, a directory or a device)",
        +[](GenerateRequest & r) -> auto& { return r.force; }));

    using U64 = std::uint64_t;
    t.push_back(bound<U64>(
        "m", shape, "M", "gemm: output rows (moving free axis)",
        +[](GenerateRequest & r) -> auto& { return r.gemm.m; }));
    t.push_back(bound<U64>(
        "n", shape, "N", "gemm: output columns (stationary columns)",
        +[](GenerateRequest & r) -> auto& { return r.gemm.n; }));
    t.push_back(bound<U64>(
        "k", shape, "K", "gemm: contraction; conv: number of filters",
        +[](GenerateRequest & r) -> auto& { return r.gemm.k; }));
    t.push_back(bound<U64>(
        "seq", shape, "S", "attention: sequence length",
        +[](GenerateRequest & r) -> auto& { return r.attention.seq; }));
    t.push_back(bound<U64>(
        "heads", shape, "H", "attention: heads",
        +[](GenerateRequest & r) -> auto& { return r.attention.heads; }));
    t.push_back(bound<U64>(
        "dhead", shape, "D", "attention: head dimension",
        +[](GenerateRequest & r) -> auto& { return r.attention.dhead; }));
    t.push_back(bound<U64>(
        "h", shape, "H", "conv: input height", +[](GenerateRequest & r) -> auto& { return r.conv.h; }));
    t.push_back(bound<U64>(
        "w", shape, "W", "conv: input width", +[](GenerateRequest & r) -> auto& { return r.conv.w; }));
    t.push_back(bound<U64>(
        "c", shape, "C", "conv: input channels", +[](GenerateRequest & r) -> auto& { return r.conv.c; }));
    t.push_back(bound<U64>(
        "r", shape, "R", "conv: filter height", +[](GenerateRequest & r) -> auto& { return r.conv.r; }));
    t.push_back(bound<U64>(
        "s", shape, "S", "conv: filter width", +[](GenerateRequest & r) -> auto& { return r.conv.s; }));
    t.push_back(bound<U64>(
        "stride", shape, "T", "conv: stride; random: banks advanced per access",
        +[](GenerateRequest & r) -> auto& { return r.conv.stride; }, true));
    t.push_back(bound<U64>(
        "pad", shape, "P",
        "conv: zero padding on each side (0: valid, SCALE-Sim's convention; 1: a 3x3 stride-1 "
        "layer keeps its HxW)",
        +[](GenerateRequest & r) -> auto& { return r.conv.pad; }, true));

    using U32 = std::uint32_t;
    t.push_back(bound<std::string>(
        "dtype", tiling, "T",
        "input dtype: bf16, fp16, fp8 (fp8e4), fp8e3, fp8e5, fp32 (fp32: 4x matmul time; fp8 matmuls are "
        "written without perf_opt=double_row, NKI's default, so they run at the bf16 rate)",
        +[](GenerateRequest & r) -> auto& { return r.tiling_text.dtype; }, true));
    t.push_back(bound<U32>(
        "tile-m", tiling, "N",
        "moving free size per matmul (default one PSUM bank: 512 fp32; more needs a zero "
        "region beyond SIZE2048, mariana)",
        +[](GenerateRequest & r) -> auto& { return r.tiling.tile_m; }));
    t.push_back(bound<U32>(
        "block-n", tiling, "N",
        "n-tiles per block: matmuls sharing one moving k-slice (at most the n-tiles there are)",
        +[](GenerateRequest & r) -> auto& { return r.tiling.block_n; }, true));
    t.push_back(bound<U32>(
        "block-m", tiling, "N",
        "m-tiles per block: matmuls sharing one LdWeights (at most the m-tiles there are)",
        +[](GenerateRequest & r) -> auto& { return r.tiling.block_m; }, true));
    t.push_back(bound<U32>(
        "bufs", tiling, "N", "SBUF ring depth of the k-slices (2 = double buffering)",
        +[](GenerateRequest & r) -> auto& { return r.tiling.bufs; }, true));
    t.push_back(bound<U32>(
        "out-bufs", tiling, "N", "SBUF result slots between ACT and the store DMA",
        +[](GenerateRequest & r) -> auto& { return r.tiling.out_bufs; }, true));
    t.push_back(bound<std::string>(
        "stationary", tiling, "MODE",
        "auto | resident | stream: keep an n-block's stationary k-slices across m-blocks",
        +[](GenerateRequest & r) -> auto& { return r.tiling_text.stationary; }, true));
    t.push_back(bound<U32>(
        "dma-queues", tiling, "N",
        "DMA queues qSyncIO0..N-1 (each load or store is one dma_copy, spread over the DMA "
        "engines by partition lanes; a queue keeps its transfers in order)",
        +[](GenerateRequest & r) -> auto& { return r.tiling.dma_queues; }, true));
    t.push_back(bound<U32>(
        "psum-bufs", tiling, "N",
        "PSUM banks in the rotation (multi-buffering); 0 = every bank from --psum-first-bank "
        "on (8 on NC-v2/v3, 4 on inferentia)",
        +[](GenerateRequest & r) -> auto& { return r.tiling.psum_bufs; }, true));
    t.push_back(bound<U32>(
        "psum-first-bank", tiling, "B", "first PSUM bank of the rotation",
        +[](GenerateRequest & r) -> auto& { return r.tiling.psum_first_bank; }, true));
    t.push_back(bound<U32>(
        "row-quadrant", tiling, "Q", "SBUF quadrant of k-tiles of <=32 rows (33-64 rows: 0 or 2)",
        +[](GenerateRequest & r) -> auto& { return r.tiling.row_quadrant; }, true));
    t.push_back(bound<U32>(
        "psum-quadrant", tiling, "Q",
        "PSUM quadrant of n-tiles of <=32 columns, 0..2 (col_grp 0x8 is a HW bug)",
        +[](GenerateRequest & r) -> auto& { return r.tiling.psum_quadrant; }, true));
    t.push_back(bound<std::string>(
        "sbuf-base", tiling, "OFF", "byte offset where the packed SBUF layout starts (default 0)",
        +[](GenerateRequest & r) -> auto& { return r.tiling_text.sbuf_base; }));
    t.push_back(bound<std::string>(
        "stationary-offset", tiling, "OFF", "byte offset of the stationary ring",
        +[](GenerateRequest & r) -> auto& { return r.tiling_text.stationary_offset; }));
    t.push_back(bound<std::string>(
        "moving-offset", tiling, "OFF", "byte offset of the moving ring",
        +[](GenerateRequest & r) -> auto& { return r.tiling_text.moving_offset; }));
    t.push_back(bound<std::string>(
        "out-offset", tiling, "OFF", "byte offset of the result slots",
        +[](GenerateRequest & r) -> auto& { return r.tiling_text.out_offset; }));

    t.push_back(bound<std::string>(
        "clients", stress, "A,B", "kernel clients, e.g. pe_client_0,act_rd,act_wr,dma_0,q7_2,pe_wr",
        +[](GenerateRequest & r) -> auto& { return r.clients; }));
    t.push_back(bound<std::string>(
        "banks", stress, "LIST", "SBUF ECC banks, e.g. 0-3,8 (default all 16)",
        +[](GenerateRequest & r) -> auto& { return r.banks; }));
    t.push_back(bound<std::string>(
        "psum-banks", stress, "LIST", "PSUM ECC banks for PSUM clients (default all 32)",
        +[](GenerateRequest & r) -> auto& { return r.psum_banks; }));
    t.push_back(bound<double>(
        "rate", stress, "P", "probability a client issues in a cycle",
        +[](GenerateRequest & r) -> auto& { return r.random.rate; }, true));
    t.push_back(bound<std::string>(
        "pattern", stress, "P", "uniform | hotspot | strided",
        +[](GenerateRequest & r) -> auto& { return r.pattern; }, true));
    t.push_back(bound<double>(
        "hot-fraction", stress, "F", "hotspot: share of accesses to the first listed bank",
        +[](GenerateRequest & r) -> auto& { return r.random.hot_fraction; }, true));
    t.push_back(bound<U32>(
        "bytes", stress, "B", "bytes per partition per access",
        +[](GenerateRequest & r) -> auto& { return r.random.bytes; }, true));
    t.push_back(bound<U64>(
        "records", stress, "N", "access records to write",
        +[](GenerateRequest & r) -> auto& { return r.random.records; }, true));
    t.push_back(bound<U64>(
        "seed", stress, "S", "random seed (same seed, same bytes)",
        +[](GenerateRequest & r) -> auto& { return r.random.seed; }, true));
    return t;
}

std::string option_list(const std::vector<std::string>& names) {
    std::string s;
    for (std::size_t i = 0; i < names.size(); ++i)
        s += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + std::string("--") + names[i];
    return s;
}

// "" when every option given applies to `workload` and its shape is complete; else the first
// problem, with what to do.
std::string misplaced_option(const std::set<std::string>& given, const std::string& workload) {
    if (workload != "--topology" && given.count("topology"))
        return "--topology is a workload of its own: sbufsim gen --topology FILE.csv (without '" + workload +
               "')";
    for (const std::string& name : given) {
        std::vector<std::string> for_ = {"gemm", "attention", "conv", "--topology"};
        if (const auto it = workload_options().find(name); it != workload_options().end())
            for_ = it->second;
        else if (std::find(gemm_tiling_options().begin(), gemm_tiling_options().end(), name) ==
                 gemm_tiling_options().end())
            continue;
        if (std::find(for_.begin(), for_.end(), workload) != for_.end()) continue;
        std::string names;
        for (const auto& w : for_) names += (names.empty() ? "" : ", ") + w;
        return "--" + name + " is for " + names + ", not " + workload +
               ": drop it (sbufsim gen --help lists each workload's options)";
    }
    if (const auto it = required_options().find(workload); it != required_options().end()) {
        std::vector<std::string> missing;
        for (const auto& o : it->second)
            if (!given.count(o)) missing.push_back(o);
        if (!missing.empty())
            return option_list(missing) + (missing.size() == 1 ? " is" : " are") + " missing: " + workload +
                   " needs " + option_list(it->second) + " (see the examples in sbufsim gen --help)";
    }
    return "";
}

}  // namespace

const std::vector<GenOption>& generate_option_table() {
    static const std::vector<GenOption> table = make_table();
    return table;
}

const std::vector<std::string>& gemm_tiling_options() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (const GenOption& o : generate_option_table())
            if (o.group == kTilingGroup) v.push_back(o.name);
        return v;
    }();
    return names;
}

void set_generate_option(GenerateRequest& r, const std::string& name, const std::string& text) {
    const auto& table = generate_option_table();
    const auto it =
        std::find_if(table.begin(), table.end(), [&](const GenOption& o) { return o.name == name; });
    if (it == table.end()) {
        std::vector<std::string> names;
        names.reserve(table.size());
        for (const GenOption& o : table) names.push_back("--" + o.name);
        throw ConfigError("unrecognised option '--" + name + "'" + did_you_mean("--" + name, names));
    }
    it->set(r, text);
}

std::string complete_generate_request(GenerateRequest& r, const std::string& workload,
                                      const std::set<std::string>& given) {
    const std::vector<std::string> workloads = {"gemm", "attention", "conv", "random"};
    // The workload's name first: a misspelt one would make every option look misplaced.
    if (!workload.empty() && std::find(workloads.begin(), workloads.end(), workload) == workloads.end())
        return "gen: unknown workload '" + workload + "'" + did_you_mean(workload, workloads) +
               " (gemm, attention, conv, random, or --topology FILE)";
    const std::string named = workload.empty() ? "--topology" : workload;
    if (const std::string why = misplaced_option(given, named); !why.empty())
        return "gen " + named + ": " + why;
    if (given.count("tile-m") && r.tiling.tile_m == 0)
        return "gen " + named +
               ": --tile-m 0: give at least 1, or leave it out for one PSUM bank (512 fp32 elements)";
    r.workload = workload;
    r.block_m_given = given.count("block-m") ? r.tiling.block_m : 0;
    r.block_n_given = given.count("block-n") ? r.tiling.block_n : 0;
    return "";
}

GenerateRequest generate_request(const std::string& workload,
                                 const std::vector<std::pair<std::string, std::string>>& options,
                                 LoadRequest config) {
    GenerateRequest r;
    std::set<std::string> given;
    for (const auto& [name, text] : options) {
        set_generate_option(r, name, text);
        given.insert(name);
    }
    if (workload.empty() && r.topology.empty())
        throw ConfigError("give a workload (gemm, attention, conv, random) or a topology file");
    if (const std::string why = complete_generate_request(r, workload, given); !why.empty())
        throw ConfigError(why.substr(why.find(": ") + 2));
    r.config = std::move(config);
    return r;
}

}  // namespace sbufsim::app
