// `sbufsim gen`: the command line of `gen` (sbufsim/app/generate.h): its options into a
// GenerateRequest. The generators are the library's (include/sbufsim/workload/workload.h).
#include <algorithm>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "sbufsim/app/generate.h"
#include "sbufsim/types/near_miss.h"

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

po::options_description gemm_options(GemmOptions& o, GemmTilingText& f) {
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

std::string option_list(const std::vector<std::string>& names) {
    std::string s;
    for (std::size_t i = 0; i < names.size(); ++i)
        s += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + std::string("--") + names[i];
    return s;
}

// "" when every option given applies to `workload` and its shape is complete; else the first
// problem, with what to do.
std::string misplaced_option(const po::variables_map& vm, const std::string& workload) {
    if (workload != "--topology" && vm.count("topology"))
        return "--topology is a workload of its own: sbufsim gen --topology FILE.csv (without '" + workload +
               "')";
    for (const auto& [name, value] : vm) {
        if (value.defaulted()) continue;
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

// The options of every workload, bound to `r` (and the configuration to `cfg`).
po::options_description gen_options(GenerateRequest& r, ConfigOptions& cfg, std::string& log_level,
                                    bool& help) {
    RandomOptions& ropt = r.random;
    AttentionShape& attn = r.attention;
    ConvShape& conv = r.conv;
    po::options_description common("Output");
    common.add_options()("help,h", po::bool_switch(&help), "show this help")(
        "output,o", po::value(&r.output)->value_name("FILE"),
        "trace file (.trc text, .sbt binary; default stdout); --topology: a directory, or the file with "
        "--single")("format", po::value(&r.format)->value_name("F"),
                    "text | binary (default: from the extension)")(
        "topology", po::value(&r.topology)->value_name("CSV"),
        "SCALE-Sim topology file: one trace per layer")("single", po::bool_switch(&r.single),
                                                        "--topology: one trace for the whole network")(
        "layers", po::value(&r.layers)->value_name("N"), "--topology: only the first N layers");
    add_force_option(common, r.force);
    add_log_level_option(common, log_level);
    po::options_description shapes("Shapes");
    // clang-format off
    shapes.add_options()
        ("m", po::value(&r.gemm.m)->value_name("M"), "gemm: output rows (moving free axis)")
        ("n", po::value(&r.gemm.n)->value_name("N"), "gemm: output columns (stationary columns)")
        ("k", po::value(&r.gemm.k)->value_name("K"), "gemm: contraction; conv: number of filters")
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
    stress.add_options()("clients", po::value(&r.clients)->value_name("A,B"),
                         "kernel clients, e.g. pe_client_0,act_rd,act_wr,dma_0,q7_2,pe_wr")(
        "banks", po::value(&r.banks)->value_name("LIST"), "SBUF ECC banks, e.g. 0-3,8 (default all 16)")(
        "psum-banks", po::value(&r.psum_banks)->value_name("LIST"),
        "PSUM ECC banks for PSUM clients (default all 32)")(
        "rate", po::value(&ropt.rate)->default_value(ropt.rate)->value_name("P"),
        "probability a client issues in a cycle")(
        "pattern", po::value(&r.pattern)->default_value(r.pattern)->value_name("P"),
        "uniform | hotspot | strided")(
        "hot-fraction", po::value(&ropt.hot_fraction)->default_value(ropt.hot_fraction)->value_name("F"),
        "hotspot: share of accesses to the first listed bank")(
        "bytes", po::value(&ropt.bytes)->default_value(ropt.bytes)->value_name("B"),
        "bytes per partition per access")(
        "records", po::value(&ropt.records)->default_value(ropt.records)->value_name("N"),
        "access records to write")("seed", po::value(&ropt.seed)->default_value(ropt.seed)->value_name("S"),
                                   "random seed (same seed, same bytes)");
    po::options_description visible;
    visible.add(common)
        .add(shapes)
        .add(gemm_options(r.tiling, r.tiling_text))
        .add(stress)
        .add(config_options(cfg));
    return visible;
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
    GenerateRequest r;
    std::string log_level;
    bool help = false;
    const po::options_description visible = gen_options(r, cfg, log_level, help);
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
    if (help || (sub.empty() && r.topology.empty())) {
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
    if (const std::string why = misplaced_option(vm, workload); !why.empty()) {
        io.err << "sbufsim gen " << workload << ": " << why << "\n";
        return kExitUsage;
    }
    if (vm.count("tile-m") && r.tiling.tile_m == 0) {
        io.err << "sbufsim gen " << workload
               << ": --tile-m 0: give at least 1, or leave it out for one PSUM bank (512 fp32 elements)\n";
        return kExitUsage;
    }
    apply_log_level(log_level);
    r.workload = sub;
    r.config = make_load_request(cfg, parsed);
    const auto given = [&](const char* option) { return vm.count(option) && !vm[option].defaulted(); };
    r.block_m_given = given("block-m") ? r.tiling.block_m : 0;
    r.block_n_given = given("block-n") ? r.tiling.block_n : 0;
    return generate(r, io);
}

bool is_gen_workload_option(const std::string& name) { return is_workload_option(name); }

}  // namespace sbufsim::cli
