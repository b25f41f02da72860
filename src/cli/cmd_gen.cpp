// `sbufsim gen`: write realistic traces from workload shapes (GEMM, attention, convolution,
// SCALE-Sim topology files) or synthetic stress traffic. The generators are the library's
// (include/sbufsim/workload/workload.h); this file only parses options and opens the outputs.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "cli/commands.h"
#include "cli/outputs.h"
#include "sbufsim/trace/trace.h"
#include "sbufsim/types/near_miss.h"
#include "sbufsim/types/number.h"
#include "sbufsim/types/text.h"
#include "sbufsim/workload/workload.h"

namespace po = boost::program_options;

namespace sbufsim::cli {

namespace {

constexpr const char* kGenHelp =
    "usage: sbufsim gen gemm --m M --n N --k K [options]\n"
    "       sbufsim gen attention --seq S --heads H --dhead D [options]\n"
    "       sbufsim gen conv --h H --w W --c C --k K --r R --s S [--stride T] [--pad P] [options]\n"
    "       sbufsim gen --topology FILE.csv [-o DIR | --single -o FILE] [options]\n"
    "       sbufsim gen random --clients A,B,.. [--banks 0-15] [--rate P] [--pattern "
    "uniform|hotspot|strided]\n"
    "                          [--records N] [--seed S] [options]\n\n"
    "Write a trace (docs/trace-format.md) that `sbufsim run` replays and `sbufsim check` accepts.\n"
    "GEMMs are tiled as an NKI kernel tiles them: 128-row k-tiles, 128-column stationary tiles,\n"
    "512-element moving tiles (one fp32 PSUM bank); DMA loads into multi-buffered SBUF rings,\n"
    "LdWeights + Matmul K-loops with BEGIN/mid/END flags into PSUM banks rotated over --psum-bufs,\n"
    "ACT evacuation to SBUF, DMA stores, and semaphores exactly where the data flows. Convolutions\n"
    "are im2col GEMMs; attention is Q·Kᵀ with a softmax epilogue (DVE max, ACT exp, DVE sum), then\n"
    "P·V. A topology file is SCALE-Sim's CSV (GEMM rows name,M,N,K; convolution rows\n"
    "name,H,W,Fh,Fw,C,NumFilt,Stride; a header line first): one trace per layer, or --single.\n"
    "Output streams record by record: any length in flat memory. Same options, same bytes.\n"
    "Details: docs/generators.md.\n\n"
    "examples:\n"
    "  sbufsim gen gemm --m 1024 --n 4096 --k 1024 -o gemm.sbt\n"
    "  sbufsim gen gemm --m 300 --n 200 --k 130 --dtype fp32 --bufs 3 -o ragged.trc\n"
    "  sbufsim gen attention --seq 512 --heads 2 --dhead 64 -o attn.trc\n"
    "  sbufsim gen conv --h 56 --w 56 --c 64 --k 64 --r 3 --s 3 --pad 1 -o conv.trc\n"
    "  sbufsim gen --topology traces/topologies/resnet50.csv -o resnet50/\n"
    "  sbufsim gen random --clients act_rd,pe_client_0,dma_0 --banks 0-3 --pattern hotspot --records 1000000 "
    "-o s.sbt\n\n"
    "A summary of what was written goes to stderr when the trace goes to stdout, else to stdout.\n"
    "Every output file is checked before generating and appears only complete (written beside it and\n"
    "renamed); an existing file is replaced without --force only when sbufsim wrote it: a binary\n"
    "trace, or a text trace whose first line is the mark gen writes ('# written by sbufsim ...').\n"
    "exit status: 0 ok, 2 bad command line, shape or option, or a refused output path, 3 a topology\n"
    "file cannot be read or an output could not be written (the OS reason is printed).\n";

// Numbers written as decimal or 0x-hex (offsets are usually given in hex).
std::uint32_t parse_u32(const std::string& option, const std::string& text) {
    const auto v = parse_unsigned(text);   // decimal (010 is ten) or 0x hex; no sign
    if (v && *v <= 0xffffffffULL) return static_cast<std::uint32_t>(*v);
    throw WorkloadError("--" + option + " '" + text + "': expected a number (decimal or 0x-hex)");
}

// "0-3,7,9" → {0,1,2,3,7,9}
std::vector<std::uint32_t> parse_list(const std::string& option, const std::string& text) {
    std::vector<std::uint32_t> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (item.empty()) continue;
        const auto dash = item.find('-');
        if (dash == std::string::npos) {
            out.push_back(parse_u32(option, item));
            continue;
        }
        const std::uint32_t lo = parse_u32(option, item.substr(0, dash)), hi = parse_u32(option, item.substr(dash + 1));
        if (hi < lo || hi - lo > 4096) throw WorkloadError("--" + option + " '" + item + "': a range lo-hi with lo <= hi");
        for (std::uint32_t v = lo; v <= hi; ++v) out.push_back(v);
    }
    return out;
}

std::vector<std::string> split_names(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty()) out.push_back(item);
    return out;
}

Dtype parse_gen_dtype(const std::string& text) {
    if (text == "fp8") return Dtype::fp8e4;   // the usual fp8 of matmul inputs
    if (auto d = parse_dtype(text)) return *d;
    throw WorkloadError("--dtype '" + text + "': expected bf16, fp8 (fp8e4), fp8e3, fp8e5, fp16 or fp32");
}

// Options shared by every GEMM-shaped workload, bound to a GemmOptions.
struct GemmFlags {
    std::string dtype = "bf16", stationary = "auto";
    std::string sbuf_base, stationary_offset, moving_offset, out_offset;
};

po::options_description gemm_options(GemmOptions& o, GemmFlags& f) {
    po::options_description d("GEMM tiling and placement (gemm, attention, conv, --topology)");
    // clang-format off
    d.add_options()
        ("dtype", po::value(&f.dtype)->default_value(f.dtype)->value_name("T"), "input dtype: bf16, fp16, fp8 (fp8e4), fp8e3, fp8e5, fp32 (fp32: 4x matmul time; fp8 matmuls are written without perf_opt=double_row, NKI's default, so they run at the bf16 rate)")
        ("tile-m", po::value(&o.tile_m)->value_name("N"), "moving free size per matmul (default one PSUM bank: 512 fp32; more needs a zero region beyond SIZE2048, mariana)")
        ("block-n", po::value(&o.block_n)->default_value(o.block_n)->value_name("N"), "n-tiles per block: matmuls sharing one moving k-slice (at most the n-tiles there are)")
        ("block-m", po::value(&o.block_m)->default_value(o.block_m)->value_name("N"), "m-tiles per block: matmuls sharing one LdWeights (at most the m-tiles there are)")
        ("bufs", po::value(&o.bufs)->default_value(o.bufs)->value_name("N"), "SBUF ring depth of the k-slices (2 = double buffering)")
        ("out-bufs", po::value(&o.out_bufs)->default_value(o.out_bufs)->value_name("N"), "SBUF result slots between ACT and the store DMA")
        ("stationary", po::value(&f.stationary)->default_value(f.stationary)->value_name("MODE"), "auto | resident | stream: keep an n-block's stationary k-slices across m-blocks")
        ("dma-queues", po::value(&o.dma_queues)->default_value(o.dma_queues)->value_name("N"), "DMA queues qSyncIO0..N-1 (each load or store is one dma_copy, spread over the DMA engines by partition lanes; a queue keeps its transfers in order)")
        ("psum-bufs", po::value(&o.psum_bufs)->default_value(o.psum_bufs)->value_name("N"), "PSUM banks in the rotation (multi-buffering); 0 = every bank from --psum-first-bank on (8 on NC-v2/v3, 4 on inferentia)")
        ("psum-first-bank", po::value(&o.psum_first_bank)->default_value(o.psum_first_bank)->value_name("B"), "first PSUM bank of the rotation")
        ("row-quadrant", po::value(&o.row_quadrant)->default_value(o.row_quadrant)->value_name("Q"), "SBUF quadrant of k-tiles of <=32 rows (33-64 rows: 0 or 2)")
        ("psum-quadrant", po::value(&o.psum_quadrant)->default_value(o.psum_quadrant)->value_name("Q"), "PSUM quadrant of n-tiles of <=32 columns, 0..2 (col_grp 0x8 is a HW bug)")
        ("sbuf-base", po::value(&f.sbuf_base)->value_name("OFF"), "byte offset where the packed SBUF layout starts (default 0)")
        ("stationary-offset", po::value(&f.stationary_offset)->value_name("OFF"), "byte offset of the stationary ring")
        ("moving-offset", po::value(&f.moving_offset)->value_name("OFF"), "byte offset of the moving ring")
        ("out-offset", po::value(&f.out_offset)->value_name("OFF"), "byte offset of the result slots");
    // clang-format on
    return d;
}

// The workloads an option is for; options of no listed workload (output, configuration) are
// for all. An option given to another workload is a mistake to say, not a wish to ignore.
const std::map<std::string, std::vector<std::string>>& option_workloads() {
    static const std::map<std::string, std::vector<std::string>> m = {{"m", {"gemm"}},
                                                                      {"n", {"gemm"}},
                                                                      {"k", {"gemm", "conv"}},
                                                                      {"seq", {"attention"}},
                                                                      {"heads", {"attention"}},
                                                                      {"dhead", {"attention"}},
                                                                      {"h", {"conv"}},
                                                                      {"w", {"conv"}},
                                                                      {"c", {"conv"}},
                                                                      {"r", {"conv"}},
                                                                      {"s", {"conv"}},
                                                                      {"stride", {"conv", "random"}},
                                                                      {"pad", {"conv"}},
                                                                      {"single", {"--topology"}},
                                                                      {"layers", {"--topology"}},
                                                                      {"clients", {"random"}},
                                                                      {"banks", {"random"}},
                                                                      {"psum-banks", {"random"}},
                                                                      {"rate", {"random"}},
                                                                      {"pattern", {"random"}},
                                                                      {"hot-fraction", {"random"}},
                                                                      {"bytes", {"random"}},
                                                                      {"records", {"random"}},
                                                                      {"seed", {"random"}}};
    return m;
}

// What each workload cannot do without (its shape).
const std::map<std::string, std::vector<std::string>>& required_options() {
    static const std::map<std::string, std::vector<std::string>> m = {
        {"gemm", {"m", "n", "k"}},
        {"attention", {"seq", "heads", "dhead"}},
        {"conv", {"h", "w", "c", "k", "r", "s"}}};
    return m;
}

std::string option_list(const std::vector<std::string>& names) {
    std::string s;
    for (std::size_t i = 0; i < names.size(); ++i)
        s += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + std::string("--") + names[i];
    return s;
}

// "" when every option given applies to `workload` and its shape is complete; else the first
// problem, with what to do.
std::string misplaced_option(const po::variables_map& vm, const std::string& workload,
                             const po::options_description& gemm_tiling) {
    if (workload != "--topology" && vm.count("topology"))
        return "--topology is a workload of its own: sbufsim gen --topology FILE.csv (without '" + workload +
               "')";
    for (const auto& [name, value] : vm) {
        if (value.defaulted()) continue;
        std::vector<std::string> for_ = {"gemm", "attention", "conv", "--topology"};
        if (const auto it = option_workloads().find(name); it != option_workloads().end())
            for_ = it->second;
        else if (!gemm_tiling.find_nothrow(name, false))
            continue;
        if (std::find(for_.begin(), for_.end(), workload) != for_.end()) continue;
        std::string names;
        for (const auto& w : for_) names += (names.empty() ? "" : ", ") + w;
        return "--" + name + " is for " + names + ", not " + workload +
               ": drop it (sbufsim gen --help lists each " + "workload's options)";
    }
    if (const auto it = required_options().find(workload); it != required_options().end()) {
        std::vector<std::string> missing;
        for (const auto& o : it->second)
            if (!vm.count(o)) missing.push_back(o);
        if (!missing.empty())
            return option_list(missing) + (missing.size() == 1 ? " is" : " are") + " missing: " + workload +
                   " needs " + option_list(it->second) + " (see the examples in sbufsim gen --help)";
    }
    return "";
}

// A shape whose trace runs to gigabytes is said before the first record: the matmuls alone (one
// per m-, n- and k-tile) and their LdWeights (one per --block-m matmuls) bound the record count
// from below, at about 120 bytes a text record (125 measured on a 4096^3 GEMM). Streaming, and
// Ctrl-C leaves no file, so a note rather than a refusal.
void warn_if_huge(const GemmShape& g, const GemmOptions& o, const Params& p, std::ostream& err) {
    constexpr double kTextBytesPerRecord = 120, kNoteAbove = 1e9;
    const std::uint64_t tile_m = o.tile_m ? o.tile_m : p.psum.bank_size / 4;
    auto tiles = [](std::uint64_t n, std::uint64_t t) { return t ? (n + t - 1) / t : 0; };
    const double matmuls = static_cast<double>(tiles(g.m, tile_m)) *
                           static_cast<double>(tiles(g.n, p.pe.cols)) *
                           static_cast<double>(tiles(g.k, p.pe.rows));
    const double records = matmuls * (1 + 1.0 / std::max<std::uint32_t>(1, o.block_m));
    if (records * kTextBytesPerRecord < kNoteAbove) return;
    err << "sbufsim gen gemm: note: " << format_number(matmuls / 1e6, 3) << " M matmuls, so at least "
        << format_number(records / 1e6, 3) << " M records: about "
        << format_number(records * kTextBytesPerRecord / 1e9, 3)
        << " GB as text, more as binary; Ctrl-C stops it and leaves no file\n";
}

// A path with a trace file's extension: --topology without --single wants a folder.
bool looks_like_trace_file(const std::string& path) {
    const std::string ext = std::filesystem::path(path).extension().string();
    return (ext == ".trc" || ext == ".sbt") && !std::filesystem::is_directory(path);
}

void finish_gemm_options(GemmOptions& o, const GemmFlags& f) {
    o.dtype = parse_gen_dtype(f.dtype);
    if (f.stationary == "auto") o.stationary = Residency::automatic;
    else if (f.stationary == "resident") o.stationary = Residency::on;
    else if (f.stationary == "stream") o.stationary = Residency::off;
    else throw WorkloadError("--stationary '" + f.stationary + "': expected auto, resident or stream");
    if (!f.sbuf_base.empty()) o.sbuf_base = parse_u32("sbuf-base", f.sbuf_base);
    if (!f.stationary_offset.empty()) o.stationary_offset = parse_u32("stationary-offset", f.stationary_offset);
    if (!f.moving_offset.empty()) o.moving_offset = parse_u32("moving-offset", f.moving_offset);
    if (!f.out_offset.empty()) o.out_offset = parse_u32("out-offset", f.out_offset);
}

// One output trace: a file (format from --format or the extension) or stdout.
class Output {
public:
    Output(const std::string& path, const std::string& format, const std::string& generation, Io io,
           const OutputPolicy& policy)
        : path_(path) {
        TraceFormat fmt = path.empty() || path == "-" ? TraceFormat::text : format_for_path(path);
        if (format == "binary") fmt = TraceFormat::binary;
        else if (format == "text") fmt = TraceFormat::text;
        else if (!format.empty()) throw WorkloadError("--format '" + format + "': expected text or binary");
        if (!to_stdout() && fmt != format_for_path(path)) note_extension(io.err, path, fmt);
        std::ostream* os = &io.out;
        if (!to_stdout()) {
            file_ = std::make_unique<OutputFile>(path, policy);
            os = &file_->stream();
        }
        if (fmt == TraceFormat::text) *os << trace_mark("gen") << '\n';
        writer_ = std::make_unique<TraceWriter>(*os, fmt, TraceHeader{kTraceFormatVersion, generation});
        sink_ = std::make_unique<TraceWriterSink>(*writer_);
    }
    RecordSink& sink() { return *sink_; }
    bool to_stdout() const { return path_.empty() || path_ == "-"; }
    void close() {
        if (file_) file_->check();   // a failed write, with its OS reason
        writer_->finish();
        if (file_) file_->commit();
    }

private:
    // The readers take either format under any name, but a name that says the other format
    // misleads whoever lists the folder, and `convert` chooses its output format by the name.
    static void note_extension(std::ostream& err, const std::string& path, TraceFormat fmt) {
        const bool binary = fmt == TraceFormat::binary;
        err << "sbufsim gen: note: " << path << " is written as a " << to_string(fmt) << " trace (--format "
            << to_string(fmt) << "), but its name says " << (binary ? "text" : "binary") << ": name it "
            << (binary ? "*.sbt" : "*.trc") << ", or leave --format out to take the format from the name\n";
    }

    std::string path_;
    std::unique_ptr<OutputFile> file_;
    std::unique_ptr<TraceWriter> writer_;
    std::unique_ptr<TraceWriterSink> sink_;
};

std::string mib(std::uint64_t bytes) {
    return format_fixed(static_cast<double>(bytes) / (1024.0 * 1024.0), 2) + " MiB";
}

// The one-line summary of a GEMM-shaped trace (what README tables quote).
std::string gemm_summary(const GemmStats& st, const Params& p) {
    std::ostringstream s;
    s << st.records << " records: " << st.matmuls << " matmuls, " << st.ldweights << " LdWeights, " << st.psum_groups
      << " PSUM groups, " << st.act << " ACT, " << st.dve << " DVE, " << st.dma_loads << "+" << st.dma_stores
      << " DMA loads+stores (" << mib(st.stationary_bytes + st.moving_bytes) << " in, " << mib(st.store_bytes)
      << " out); cost-model PE time " << st.pe_cycles << " cycles ("
      << format_fixed(static_cast<double>(st.pe_cycles) / p.pe.clock_ghz / 1000.0, 1) << " us at "
      << format_fixed(p.pe.clock_ghz, 1) << " GHz)";
    return s.str();
}

// The keys gen reads (the address map, the tiling's limits, the cost-model PE time of the
// summary); every other key (TDM, arbiters, throttlers, DMA timing, ...) is the replay's.
bool gen_reads(const std::string& key) {
    for (const std::string_view read : {"sbuf.", "psum.", "pe.", "isa.", "arr_seq.", "q7.",
                                        "timing.matmul_min_ii", "timing.matmul_fp32_factor"})
        if (key.starts_with(read)) return true;
    return false;
}

// A --set that cannot change the trace gen writes is said once, with where it belongs: a trace
// written "with" tdm.dma_slots=7 is the one written without it.
void note_unread_settings(const std::vector<Setting>& overrides, std::ostream& err) {
    std::string unread;
    std::size_t n = 0;
    for (const Setting& s : overrides)
        if (!gen_reads(s.key)) unread += (n++ ? ", " : "") + s.key + "=" + s.value;
    if (!n) return;
    err << "sbufsim gen: note: " << unread << (n == 1 ? " does" : " do")
        << " not change the trace gen writes (it reads the sbuf, psum, pe, isa, arr_seq and q7 keys and "
           "timing.matmul_*): give "
        << (n == 1 ? "it" : "them") << " to sbufsim run or sweep when replaying the trace\n";
}

// What the user asked of --block-m / --block-n on the command line (0: the default).
struct BlockAsk {
    std::uint32_t m = 0, n = 0;
};

// "stationary resident" / "stationary streamed" when every GEMM did the same; else each GEMM's
// (attention: "stationary streamed in qk, resident in pv"), or counted when there are many.
std::string residency_summary(const GemmStats& st) {
    const auto resident = static_cast<std::size_t>(
        std::count_if(st.residency.begin(), st.residency.end(), [](const auto& g) { return g.resident; }));
    if (resident == st.residency.size()) return "stationary resident";
    if (resident == 0) return "stationary streamed";
    constexpr std::size_t kNamed = 3;
    if (st.residency.size() > kNamed)
        return "stationary resident in " + std::to_string(resident) + " of " +
               std::to_string(st.residency.size()) + " GEMMs, streamed in the others";
    std::string out = "stationary";
    for (const auto& g : st.residency)
        out += std::string(out == "stationary" ? " " : ", ") + (g.resident ? "resident" : "streamed") +
               " in " + g.name;
    return out;
}

// A line for a stationary that --stationary auto streamed though several m-blocks reuse it: why,
// and the fix (the first such GEMM's: a fix that keeps one resident is what to try first).
std::string streamed_note(const GemmStats& st) {
    for (const auto& g : st.residency)
        if (!g.streamed_because.empty())
            return "\n  the stationary" + (g.name.empty() ? std::string() : " of " + g.name) +
                   " is loaded again for every m-block: " + g.streamed_because;
    return "";
}

// The blocks a GEMM trace was written with, and which of the --block-m / --block-n given were cut
// to the most tiles a GEMM of the trace has along that axis (GemmEmitter).
std::string block_summary(const BlockAsk& asked, const GemmStats& st) {
    std::string s =
        "blocks of " + std::to_string(st.block_m) + "x" + std::to_string(st.block_n) + " tiles (m x n)";
    const auto cut = [&](const char* name, std::uint32_t given, std::uint32_t used, const char* axis) {
        if (given && given != used)
            s += std::string(", --") + name + " " + std::to_string(given) + " cut to the " +
                 std::to_string(used) + " " + axis + (used == 1 ? "" : "s") + " there " +
                 (used == 1 ? "is" : "are");
    };
    cut("block-m", asked.m, st.block_m, "m-tile");
    cut("block-n", asked.n, st.block_n, "n-tile");
    return s;
}

// What the form gen writes moves that a fused kernel would not, on a line of its own ("" for a
// GEMM): attention's P through HBM, a convolution's im2col matrix against its feature map. No
// tiling option changes either.
std::string unfused_note(const std::string& workload, const GemmStats& st, const ConvShape& conv,
                         Dtype dtype) {
    if (workload == "attention")
        return "\n  P goes to HBM and back between the two GEMMs (not fused, whatever the tiling): " +
               mib(st.round_trip_bytes) + " of the " +
               mib(st.stationary_bytes + st.moving_bytes + st.store_bytes) + " moved";
    if (workload != "conv") return "";
    const std::uint64_t map = conv.h * conv.w * conv.c * dtype_size(dtype);
    return "\n  the moving loads carry the im2col matrix: " + mib(st.moving_bytes) + " for a " + mib(map) +
           " input feature map (" +
           format_fixed(static_cast<double>(st.moving_bytes) / static_cast<double>(map), 1) +
           "x; a kernel that forms the filter taps on chip reads the map once)";
}

std::string sanitize(const std::string& name) {
    std::string out;
    for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
    return out.empty() ? "layer" : out;
}

}  // namespace

int cmd_gen(const std::vector<std::string>& args, Io io) {
    std::string sub;
    std::vector<std::string> rest = args;
    if (!args.empty() && args[0].rfind('-', 0) != 0) {
        sub = args[0];
        rest.erase(rest.begin());
    }

    ConfigOptions cfg;
    GemmOptions gopt;
    GemmFlags gflags;
    RandomOptions ropt;
    std::string output, format, topology, log_level, clients, banks, psum_banks, pattern = "uniform";
    bool help = false, single = false, force = false;
    std::uint64_t m = 0, n = 0, k = 0, layers_max = 0;
    AttentionShape attn;
    ConvShape conv;

    po::options_description common("Output");
    common.add_options()
        ("help,h", po::bool_switch(&help), "show this help")
        ("output,o", po::value(&output)->value_name("FILE"), "trace file (.trc text, .sbt binary; default stdout); --topology: a directory, or the file with --single")
        ("format", po::value(&format)->value_name("F"), "text | binary (default: from the extension)")
        ("topology", po::value(&topology)->value_name("CSV"), "SCALE-Sim topology file: one trace per layer")
        ("single", po::bool_switch(&single), "--topology: one trace for the whole network")
        ("layers", po::value(&layers_max)->value_name("N"), "--topology: only the first N layers");
    add_force_option(common, force);
    add_log_level_option(common, log_level);
    po::options_description shapes("Shapes");
    // clang-format off
    shapes.add_options()
        ("m", po::value(&m)->value_name("M"), "gemm: output rows (moving free axis)")
        ("n", po::value(&n)->value_name("N"), "gemm: output columns (stationary columns)")
        ("k", po::value(&k)->value_name("K"), "gemm: contraction; conv: number of filters")
        ("seq", po::value(&attn.seq)->value_name("S"), "attention: sequence length")
        ("heads", po::value(&attn.heads)->value_name("H"), "attention: heads")
        ("dhead", po::value(&attn.dhead)->value_name("D"), "attention: head dimension")
        ("h", po::value(&conv.h)->value_name("H"), "conv: input height")
        ("w", po::value(&conv.w)->value_name("W"), "conv: input width")
        ("c", po::value(&conv.c)->value_name("C"), "conv: input channels")
        ("r", po::value(&conv.r)->value_name("R"), "conv: filter height")
        ("s", po::value(&conv.s)->value_name("S"), "conv: filter width")
        ("stride", po::value(&conv.stride)->default_value(1)->value_name("T"), "conv: stride; random: banks advanced per access")
        ("pad", po::value(&conv.pad)->default_value(0)->value_name("P"),
         "conv: zero padding on each side (0: valid, SCALE-Sim's convention; 1: a 3x3 stride-1 layer keeps its HxW)");
    // clang-format on
    po::options_description stress("Synthetic stress (random)");
    stress.add_options()
        ("clients", po::value(&clients)->value_name("A,B"), "kernel clients, e.g. pe_client_0,act_rd,act_wr,dma_0,q7_2,pe_wr")
        ("banks", po::value(&banks)->value_name("LIST"), "SBUF ECC banks, e.g. 0-3,8 (default all 16)")
        ("psum-banks", po::value(&psum_banks)->value_name("LIST"), "PSUM ECC banks for PSUM clients (default all 32)")
        ("rate", po::value(&ropt.rate)->default_value(ropt.rate)->value_name("P"), "probability a client issues in a cycle")
        ("pattern", po::value(&pattern)->default_value(pattern)->value_name("P"), "uniform | hotspot | strided")
        ("hot-fraction", po::value(&ropt.hot_fraction)->default_value(ropt.hot_fraction)->value_name("F"), "hotspot: share of accesses to the first listed bank")
        ("bytes", po::value(&ropt.bytes)->default_value(ropt.bytes)->value_name("B"), "bytes per partition per access")
        ("records", po::value(&ropt.records)->default_value(ropt.records)->value_name("N"), "access records to write")
        ("seed", po::value(&ropt.seed)->default_value(ropt.seed)->value_name("S"), "random seed (same seed, same bytes)");
    po::options_description visible;
    visible.add(common).add(shapes).add(gemm_options(gopt, gflags)).add(stress).add(config_options(cfg));
    po::options_description all;
    all.add(visible);
    add_key_flags_if_named(all, rest);

    // No abbreviations: --h (height) must not be taken for --heads or --help.
    const po::parsed_options parsed = [&] {
        try {
            return po::command_line_parser(rest)
                .options(all)
                .style(po::command_line_style::default_style & ~po::command_line_style::allow_guessing)
                .run();
        } catch (const po::unknown_option& e) {
            throw po::error(std::string(e.what()) + option_suggestion(e.get_option_name(), all, rest));
        }
    }();
    check_option_values(parsed, all);
    po::variables_map vm;
    po::store(parsed, vm);
    po::notify(vm);
    if (help || (sub.empty() && topology.empty())) {
        (help ? io.out : io.err) << kGenHelp << "\n" << visible;
        return help ? kExitOk : kExitUsage;
    }
    // The workload's name first: a misspelt one would make every option look misplaced.
    if (!sub.empty() && sub != "gemm" && sub != "attention" && sub != "conv" && sub != "random") {
        io.err << "sbufsim gen: unknown workload '" << sub << "'"
               << did_you_mean(sub, std::vector<std::string>{"gemm", "attention", "conv", "random"})
               << " (gemm, attention, conv, random, or --topology FILE)\n";
        return kExitUsage;
    }
    const std::string workload = sub.empty() ? "--topology" : sub;
    if (const std::string why = misplaced_option(vm, workload, gemm_options(gopt, gflags)); !why.empty()) {
        io.err << "sbufsim gen " << workload << ": " << why << "\n";
        return kExitUsage;
    }
    if (vm.count("tile-m") && gopt.tile_m == 0) {
        io.err << "sbufsim gen " << workload
               << ": --tile-m 0: give at least 1, or leave it out for one PSUM bank (512 fp32 elements)\n";
        return kExitUsage;
    }
    if (!topology.empty() && !single && looks_like_trace_file(output)) {
        io.err
            << "sbufsim gen --topology: -o " << output
            << " names a trace file, but without --single each layer is a trace of its own in the folder -o "
               "names; give --single for one trace of the whole network, or name a folder (-o "
            << std::filesystem::path(output).stem().string() << "/)\n";
        return kExitUsage;
    }
    apply_log_level(log_level);
    const LoadRequest request = make_load_request(cfg, parsed);
    const LoadedConfig config = load_config(request);
    const Params& params = config.params;
    note_unread_settings(request.overrides, io.err);
    std::vector<std::string> inputs = cfg.files;
    if (!topology.empty()) inputs.push_back(topology);
    const OutputPolicy policy = trace_output_policy("trace", force, inputs);
    spdlog::info("gen: {} for generation {} to {}", sub.empty() ? "topology " + topology : sub, params.generation,
                 output.empty() ? "stdout" : output);

    const auto given = [&](const char* option) { return vm.count(option) && !vm[option].defaulted(); };
    const BlockAsk asked_blocks{given("block-m") ? gopt.block_m : 0, given("block-n") ? gopt.block_n : 0};
    try {
        const auto t0 = std::chrono::steady_clock::now();
        std::string summary;
        bool to_stdout = false;
        if (sub == "random") {
            ropt.clients = split_names(clients.empty() ? "pe_client_0,act_rd,act_wr,dma_0" : clients);
            if (!banks.empty()) ropt.banks = parse_list("banks", banks);
            if (!psum_banks.empty()) ropt.psum_banks = parse_list("psum-banks", psum_banks);
            const auto p = parse_stress_pattern(pattern);
            if (!p) throw WorkloadError("--pattern '" + pattern + "': expected uniform, hotspot or strided");
            ropt.pattern = *p;
            ropt.stride = static_cast<std::uint32_t>(conv.stride);
            // Refused before the header goes out (to stdout it could not be taken back).
            if (ropt.records == 0) throw WorkloadError("--records must be at least 1");
            Output out(output, format, params.generation, io, policy);
            const RandomStats st = generate_random(params, ropt, out.sink());
            out.close();
            to_stdout = out.to_stdout();
            summary = std::to_string(st.records) + " access records over " + std::to_string(st.last_cycle + 1) +
                      " cycles, " + std::to_string(ropt.clients.size()) + " clients, pattern " +
                      std::string(to_string(ropt.pattern)) + ", seed " + std::to_string(ropt.seed);
        } else if (sub.empty()) {   // --topology
            finish_gemm_options(gopt, gflags);
            auto layers = read_topology(topology);
            if (layers_max && layers.size() > layers_max) layers.resize(layers_max);
            std::vector<GemmShape> shapes;
            shapes.reserve(layers.size());
            for (const auto& l : layers) shapes.push_back(l.gemm);
            std::ostringstream lines;
            if (single) {
                Output out(output, format, params.generation, io, policy);
                GemmEmitter em(params, out.sink(), gopt, gemm_bounds(shapes));
                for (const auto& l : layers) {
                    const GemmStats st = em.gemm(l.gemm);
                    lines << "  " << l.name << " (" << l.gemm.m << "x" << l.gemm.n << "x" << l.gemm.k << "): " << gemm_summary(st, params) << "\n";
                }
                out.close();
                to_stdout = out.to_stdout();
                summary = std::to_string(layers.size()) + " layers in one trace, " +
                          gemm_summary(em.totals(), params) + "; " +
                          block_summary(asked_blocks, em.totals()) + "\n" + lines.str();
            } else {
                const std::string dir = output.empty() ? "." : output;
                // -o names the folder of the layer files: a file there, or a folder that cannot be
                // made, is refused with the OS reason before any layer is generated.
                std::error_code made;
                std::filesystem::create_directories(dir, made);
                if (made || !std::filesystem::is_directory(dir))
                    throw OutputError(OutputError::Kind::refused,
                                      "-o " + dir + ": cannot be the folder of the layer files (" +
                                          (made ? made.message() : std::string("it is a file")) +
                                          "); name a folder, or give --single for one trace file");
                const std::string ext = format == "binary" ? ".sbt" : ".trc";
                GemmStats total;
                // Every layer's file is checked and opened before the first one is generated.
                std::vector<std::string> paths;
                std::vector<std::unique_ptr<Output>> outs;
                for (std::size_t i = 0; i < layers.size(); ++i) {
                    std::ostringstream file;
                    file << std::setw(3) << std::setfill('0') << i << "_" << sanitize(layers[i].name) << ext;
                    paths.push_back((std::filesystem::path(dir) / file.str()).string());
                    outs.push_back(std::make_unique<Output>(paths.back(), format, params.generation, io, policy));
                }
                for (std::size_t i = 0; i < layers.size(); ++i) {
                    const std::string& path = paths[i];
                    Output& out = *outs[i];
                    const GemmStats st = generate_gemm(params, layers[i].gemm, gopt, out.sink());
                    out.close();
                    total.add(st);
                    lines << "  " << path << " (" << layers[i].gemm.m << "x" << layers[i].gemm.n << "x"
                          << layers[i].gemm.k << "): " << gemm_summary(st, params) << "; "
                          << block_summary(asked_blocks, st) << "\n";
                }
                summary = std::to_string(layers.size()) + " layer traces in " + dir + ", " + gemm_summary(total, params) + "\n" + lines.str();
            }
        } else if (sub == "gemm" || sub == "attention" || sub == "conv") {
            finish_gemm_options(gopt, gflags);
            if (sub == "gemm" && (m == 0 || n == 0 || k == 0))
                throw WorkloadError("--m, --n and --k must each be at least 1 (got " + std::to_string(m) + "x" +
                                    std::to_string(n) + "x" + std::to_string(k) + ")");
            if (sub == "gemm") warn_if_huge(GemmShape{m, n, k, "gemm"}, gopt, params, io.err);
            Output out(output, format, params.generation, io, policy);
            GemmStats st;
            if (sub == "gemm") {
                st = generate_gemm(params, GemmShape{m, n, k, "gemm"}, gopt, out.sink());
            } else if (sub == "attention") {
                st = generate_attention(params, attn, gopt, out.sink());
            } else {
                conv.k = k;
                conv.name = "conv";
                st = generate_conv(params, conv, gopt, out.sink());
            }
            out.close();
            to_stdout = out.to_stdout();
            if (sub == "conv") {  // the size the output comes to (with or without --pad) and its GEMM
                const GemmShape g = conv_as_gemm(conv);
                const auto [ho, wo] = conv_output(conv);
                summary = "output " + std::to_string(ho) + "x" + std::to_string(wo) + "x" +
                          std::to_string(g.n) + " (pad " + std::to_string(conv.pad) + "), im2col GEMM " +
                          std::to_string(g.m) + "x" + std::to_string(g.n) + "x" + std::to_string(g.k) +
                          " (m x n x k); ";
            }
            summary += gemm_summary(st, params) + "; tiles " + std::to_string(st.tile_m) + "x" +
                       std::to_string(st.tile_n) + "x" + std::to_string(st.tile_k) + " (m x n x k), " +
                       block_summary(asked_blocks, st) + ", " + residency_summary(st) + streamed_note(st) +
                       unfused_note(sub, st, conv, gopt.dtype);
        } else {
            io.err << "sbufsim gen: unknown workload '" << sub << "' (gemm, attention, conv, random, or --topology FILE)\n";
            return kExitUsage;
        }
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::ostream& os = to_stdout ? io.err : io.out;
        os << "sbufsim gen " << (sub.empty() ? "--topology" : sub) << ": " << summary;
        if (summary.empty() || summary.back() != '\n') os << "\n";
        os << "  generated in " << format_fixed(secs, 2) << " s\n";
        return kExitOk;
    } catch (const WorkloadError& e) {
        io.err << "sbufsim gen: " << e.what() << "\n";
        return std::string(e.what()).find("cannot open") != std::string::npos ? kExitInput : kExitUsage;
    } catch (const std::ios_base::failure& e) {
        io.err << "sbufsim gen: " << e.what() << "\n";
        return kExitInput;
    }
}

bool is_gen_workload_option(const std::string& name) {
    GemmOptions o;
    GemmFlags f;
    return option_workloads().count(name) || gemm_options(o, f).find_nothrow(name, false) != nullptr;
}

}  // namespace sbufsim::cli
