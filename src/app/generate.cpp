// `gen` (sbufsim/app/generate.h): the configuration, the outputs checked before the first record,
// one generator per workload, the summary of what was written.
#include "sbufsim/app/generate.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <memory>
#include <ostream>
#include <sstream>

#include <spdlog/spdlog.h>

#include "sbufsim/app/outputs.h"
#include "sbufsim/output/output_file.h"
#include "sbufsim/trace/trace.h"
#include "sbufsim/types/number.h"
#include "sbufsim/types/text.h"

namespace sbufsim::app {

// The workloads an option is for; options of no listed workload (output, configuration) are
// for all. An option given to another workload is a mistake to say, not a wish to ignore.
const std::map<std::string, std::vector<std::string>>& workload_options() {
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

bool is_workload_option(const std::string& name) {
    const auto& tiling = gemm_tiling_options();
    return workload_options().count(name) || std::find(tiling.begin(), tiling.end(), name) != tiling.end();
}

namespace {

// Numbers written as decimal or 0x-hex (offsets are usually given in hex).
std::uint32_t parse_u32(const std::string& option, const std::string& text) {
    const auto v = parse_unsigned(text);  // decimal (010 is ten) or 0x hex; no sign
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
        const std::uint32_t lo = parse_u32(option, item.substr(0, dash)),
                            hi = parse_u32(option, item.substr(dash + 1));
        if (hi < lo || hi - lo > 4096)
            throw WorkloadError("--" + option + " '" + item + "': a range lo-hi with lo <= hi");
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
    if (text == "fp8") return Dtype::fp8e4;  // the usual fp8 of matmul inputs
    if (auto d = parse_dtype(text)) return *d;
    throw WorkloadError("--dtype '" + text + "': expected bf16, fp8 (fp8e4), fp8e3, fp8e5, fp16 or fp32");
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

void finish_gemm_options(GemmOptions& o, const GemmTilingText& f) {
    o.dtype = parse_gen_dtype(f.dtype);
    if (f.stationary == "auto")
        o.stationary = Residency::automatic;
    else if (f.stationary == "resident")
        o.stationary = Residency::on;
    else if (f.stationary == "stream")
        o.stationary = Residency::off;
    else
        throw WorkloadError("--stationary '" + f.stationary + "': expected auto, resident or stream");
    if (!f.sbuf_base.empty()) o.sbuf_base = parse_u32("sbuf-base", f.sbuf_base);
    if (!f.stationary_offset.empty())
        o.stationary_offset = parse_u32("stationary-offset", f.stationary_offset);
    if (!f.moving_offset.empty()) o.moving_offset = parse_u32("moving-offset", f.moving_offset);
    if (!f.out_offset.empty()) o.out_offset = parse_u32("out-offset", f.out_offset);
}

// One output trace: a file (format from --format or the extension) or stdout. The mark and the
// header go out with the first record (or at close()), so that an option a generator refuses
// before its first record leaves stdout empty rather than holding a header it cannot take back.
class Output final : public RecordSink {
public:
    Output(const std::string& path, const std::string& format, const std::string& generation, Io io,
           const OutputPolicy& policy)
        : path_(path), generation_(generation), os_(&io.out) {
        fmt_ = path.empty() || path == "-" ? TraceFormat::text : format_for_path(path);
        if (format == "binary")
            fmt_ = TraceFormat::binary;
        else if (format == "text")
            fmt_ = TraceFormat::text;
        else if (!format.empty())
            throw WorkloadError("--format '" + format + "': expected text or binary");
        if (!to_stdout() && fmt_ != format_for_path(path)) note_extension(io.err, path, fmt_);
        if (!to_stdout()) {
            file_ = std::make_unique<OutputFile>(path, policy);
            os_ = &file_->stream();
        }
    }
    RecordSink& sink() { return *this; }
    void write(const Record& rec) override { started().write(rec); }
    bool to_stdout() const { return path_.empty() || path_ == "-"; }
    void close() {
        TraceWriter& w = started();
        if (file_) file_->check();  // a failed write, with its OS reason
        w.finish();
        if (file_) file_->commit();
    }

private:
    TraceWriter& started() {
        if (!writer_) {
            if (fmt_ == TraceFormat::text) *os_ << trace_mark("gen") << '\n';
            writer_ = std::make_unique<TraceWriter>(*os_, fmt_, TraceHeader{kTraceFormatVersion, generation_});
        }
        return *writer_;
    }

    // The readers take either format under any name, but a name that says the other format
    // misleads whoever lists the folder, and `convert` chooses its output format by the name.
    static void note_extension(std::ostream& err, const std::string& path, TraceFormat fmt) {
        const bool binary = fmt == TraceFormat::binary;
        err << "sbufsim gen: note: " << path << " is written as a " << to_string(fmt) << " trace (--format "
            << to_string(fmt) << "), but its name says " << (binary ? "text" : "binary") << ": name it "
            << (binary ? "*.sbt" : "*.trc") << ", or leave --format out to take the format from the name\n";
    }

    std::string path_, generation_;
    TraceFormat fmt_ = TraceFormat::text;
    std::ostream* os_;
    std::unique_ptr<OutputFile> file_;
    std::unique_ptr<TraceWriter> writer_;
};

std::string mib(std::uint64_t bytes) {
    return format_fixed(static_cast<double>(bytes) / (1024.0 * 1024.0), 2) + " MiB";
}

// The one-line summary of a GEMM-shaped trace (what README tables quote).
std::string gemm_summary(const GemmStats& st, const Params& p) {
    std::ostringstream s;
    s << st.records << " records: " << st.matmuls << " matmuls, " << st.ldweights << " LdWeights, "
      << st.psum_groups << " PSUM groups, " << st.act << " ACT, " << st.dve << " DVE, " << st.dma_loads << "+"
      << st.dma_stores << " DMA loads+stores (" << mib(st.stationary_bytes + st.moving_bytes) << " in, "
      << mib(st.store_bytes) << " out); cost-model PE time " << st.pe_cycles << " cycles ("
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
    for (char c : name)
        out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
    return out.empty() ? "layer" : out;
}

// What one workload wrote: the summary, and whether the trace went to the output stream.
struct Written {
    std::string summary;
    bool to_stdout = false;
};

Written generate_random_trace(const GenerateRequest& r, const Params& params, const OutputPolicy& policy,
                              Io io) {
    RandomOptions ropt = r.random;
    ropt.clients = split_names(r.clients.empty() ? "pe_client_0,act_rd,act_wr,dma_0" : r.clients);
    if (!r.banks.empty()) ropt.banks = parse_list("banks", r.banks);
    if (!r.psum_banks.empty()) ropt.psum_banks = parse_list("psum-banks", r.psum_banks);
    const auto p = parse_stress_pattern(r.pattern);
    if (!p) throw WorkloadError("--pattern '" + r.pattern + "': expected uniform, hotspot or strided");
    ropt.pattern = *p;
    ropt.stride = static_cast<std::uint32_t>(r.conv.stride);
    if (ropt.records == 0) throw WorkloadError("--records must be at least 1");
    Output out(r.output, r.format, params.generation, io, policy);
    const RandomStats st = generate_random(params, ropt, out.sink());
    out.close();
    return {std::to_string(st.records) + " access records over " + std::to_string(st.last_cycle + 1) +
                " cycles, " + std::to_string(ropt.clients.size()) + " clients, pattern " +
                std::string(to_string(ropt.pattern)) + ", seed " + std::to_string(ropt.seed),
            out.to_stdout()};
}

// --topology --single: every layer into one trace.
Written generate_network(const GenerateRequest& r, const std::vector<TopologyLayer>& layers,
                         const GemmOptions& gopt, const Params& params, const OutputPolicy& policy, Io io) {
    const BlockAsk asked{r.block_m_given, r.block_n_given};
    std::vector<GemmShape> shapes;
    shapes.reserve(layers.size());
    for (const auto& l : layers) shapes.push_back(l.gemm);
    std::ostringstream lines;
    Output out(r.output, r.format, params.generation, io, policy);
    GemmEmitter em(params, out.sink(), gopt, gemm_bounds(shapes));
    for (const auto& l : layers) {
        const GemmStats st = em.gemm(l.gemm);
        lines << "  " << l.name << " (" << l.gemm.m << "x" << l.gemm.n << "x" << l.gemm.k
              << "): " << gemm_summary(st, params) << "\n";
    }
    out.close();
    return {std::to_string(layers.size()) + " layers in one trace, " + gemm_summary(em.totals(), params) +
                "; " + block_summary(asked, em.totals()) + "\n" + lines.str(),
            out.to_stdout()};
}

// --topology: one trace per layer in the folder -o names.
Written generate_layers(const GenerateRequest& r, const std::vector<TopologyLayer>& layers,
                        const GemmOptions& gopt, const Params& params, const OutputPolicy& policy, Io io) {
    const BlockAsk asked{r.block_m_given, r.block_n_given};
    const std::string dir = r.output.empty() ? "." : r.output;
    // -o names the folder of the layer files: a file there, or a folder that cannot be
    // made, is refused with the OS reason before any layer is generated.
    std::error_code made;
    std::filesystem::create_directories(dir, made);
    if (made || !std::filesystem::is_directory(dir))
        throw OutputError(OutputError::Kind::refused,
                          "-o " + dir + ": cannot be the folder of the layer files (" +
                              (made ? made.message() : std::string("it is a file")) +
                              "); name a folder, or give --single for one trace file");
    const std::string ext = r.format == "binary" ? ".sbt" : ".trc";
    GemmStats total;
    // Every layer's file is checked and opened before the first one is generated.
    std::vector<std::string> paths;
    std::vector<std::unique_ptr<Output>> outs;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        std::ostringstream file;
        file << std::setw(3) << std::setfill('0') << i << "_" << sanitize(layers[i].name) << ext;
        paths.push_back((std::filesystem::path(dir) / file.str()).string());
        outs.push_back(std::make_unique<Output>(paths.back(), r.format, params.generation, io, policy));
    }
    std::ostringstream lines;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        Output& out = *outs[i];
        const GemmStats st = generate_gemm(params, layers[i].gemm, gopt, out.sink());
        out.close();
        total.add(st);
        lines << "  " << paths[i] << " (" << layers[i].gemm.m << "x" << layers[i].gemm.n << "x"
              << layers[i].gemm.k << "): " << gemm_summary(st, params) << "; " << block_summary(asked, st)
              << "\n";
    }
    return {std::to_string(layers.size()) + " layer traces in " + dir + ", " + gemm_summary(total, params) +
                "\n" + lines.str(),
            false};
}

Written generate_topology(const GenerateRequest& r, const Params& params, const OutputPolicy& policy, Io io) {
    GemmOptions gopt = r.tiling;
    finish_gemm_options(gopt, r.tiling_text);
    auto layers = read_topology(r.topology);
    if (r.layers && layers.size() > r.layers) layers.resize(r.layers);
    return r.single ? generate_network(r, layers, gopt, params, policy, io)
                    : generate_layers(r, layers, gopt, params, policy, io);
}

// gemm, attention, conv: one GEMM-shaped trace.
Written generate_shaped(const GenerateRequest& r, const Params& params, const OutputPolicy& policy, Io io) {
    const std::string& sub = r.workload;
    GemmOptions gopt = r.tiling;
    finish_gemm_options(gopt, r.tiling_text);
    const std::uint64_t m = r.gemm.m, n = r.gemm.n, k = r.gemm.k;
    if (sub == "gemm" && (m == 0 || n == 0 || k == 0))
        throw WorkloadError("--m, --n and --k must each be at least 1 (got " + std::to_string(m) + "x" +
                            std::to_string(n) + "x" + std::to_string(k) + ")");
    if (sub == "gemm") warn_if_huge(GemmShape{m, n, k, "gemm"}, gopt, params, io.err);
    Output out(r.output, r.format, params.generation, io, policy);
    GemmStats st;
    ConvShape conv = r.conv;
    if (sub == "gemm") {
        st = generate_gemm(params, GemmShape{m, n, k, "gemm"}, gopt, out.sink());
    } else if (sub == "attention") {
        st = generate_attention(params, r.attention, gopt, out.sink());
    } else {
        conv.k = k;
        conv.name = "conv";
        st = generate_conv(params, conv, gopt, out.sink());
    }
    out.close();
    std::string summary;
    if (sub == "conv") {  // the size the output comes to (with or without --pad) and its GEMM
        const GemmShape g = conv_as_gemm(conv);
        const auto [ho, wo] = conv_output(conv);
        summary = "output " + std::to_string(ho) + "x" + std::to_string(wo) + "x" + std::to_string(g.n) +
                  " (pad " + std::to_string(conv.pad) + "), im2col GEMM " + std::to_string(g.m) + "x" +
                  std::to_string(g.n) + "x" + std::to_string(g.k) + " (m x n x k); ";
    }
    const BlockAsk asked{r.block_m_given, r.block_n_given};
    summary += gemm_summary(st, params) + "; tiles " + std::to_string(st.tile_m) + "x" +
               std::to_string(st.tile_n) + "x" + std::to_string(st.tile_k) + " (m x n x k), " +
               block_summary(asked, st) + ", " + residency_summary(st) + streamed_note(st) +
               unfused_note(sub, st, conv, gopt.dtype);
    return {summary, out.to_stdout()};
}

}  // namespace

int generate(const GenerateRequest& r, Io io) {
    const std::string& sub = r.workload;
    if (!r.topology.empty() && !r.single && looks_like_trace_file(r.output)) {
        io.err
            << "sbufsim gen --topology: -o " << r.output
            << " names a trace file, but without --single each layer is a trace of its own in the folder -o "
               "names; give --single for one trace of the whole network, or name a folder (-o "
            << std::filesystem::path(r.output).stem().string() << "/)\n";
        return kExitUsage;
    }
    const LoadedConfig config = load_config(r.config);
    const Params& params = config.params;
    note_unread_settings(r.config.overrides, io.err);
    std::vector<std::string> inputs = r.config.user_files;
    if (!r.topology.empty()) inputs.push_back(r.topology);
    const OutputPolicy policy = trace_output_policy("trace", r.force, inputs);
    spdlog::info("gen: {} for generation {} to {}", sub.empty() ? "topology " + r.topology : sub,
                 params.generation, r.output.empty() ? "stdout" : r.output);
    try {
        const auto t0 = std::chrono::steady_clock::now();
        Written w;
        if (sub == "random") {
            w = generate_random_trace(r, params, policy, io);
        } else if (sub.empty()) {  // --topology
            w = generate_topology(r, params, policy, io);
        } else if (sub == "gemm" || sub == "attention" || sub == "conv") {
            w = generate_shaped(r, params, policy, io);
        } else {
            io.err << "sbufsim gen: unknown workload '" << sub
                   << "' (gemm, attention, conv, random, or --topology FILE)\n";
            return kExitUsage;
        }
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::ostream& os = w.to_stdout ? io.err : io.out;
        os << "sbufsim gen " << (sub.empty() ? "--topology" : sub) << ": " << w.summary;
        if (w.summary.empty() || w.summary.back() != '\n') os << "\n";
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

}  // namespace sbufsim::app
