// `sbufsim gen`: the command line of `gen` (sbufsim/app/generate.h): its options into a
// GenerateRequest. The generators are the library's (include/sbufsim/workload/workload.h).
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "sbufsim/app/generate.h"
#include "sbufsim/app/generate_options.h"
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

// The options of every workload, from app's table: each value into `given` as text (a flag as
// "" when on), set on the request once parsed; with the configuration's into `cfg`.
po::options_description gen_options(std::map<std::string, std::string>& given,
                                    std::map<std::string, bool>& flags, ConfigOptions& cfg,
                                    std::string& log_level, bool& help) {
    po::options_description visible;
    std::map<std::string, po::options_description> groups;
    std::vector<std::string> order;
    const GenerateRequest defaults;
    for (const GenOption& o : generate_option_table()) {
        if (!groups.count(o.group)) {
            groups.emplace(o.group, po::options_description(o.group));
            // --help first, as every command lists it (--log-level ends the same group below)
            if (order.empty())
                groups.at(o.group).add_options()("help,h", po::bool_switch(&help), "show this help");
            order.push_back(o.group);
        }
        po::options_description& d = groups.at(o.group);
        const std::string name = o.name == "output" ? "output,o" : o.name;
        if (o.kind == GenOption::Kind::flag) {
            d.add_options()(name.c_str(), po::bool_switch(&flags[o.name]), o.help.c_str());
            continue;
        }
        auto* value = po::value<std::string>()
                          ->value_name(o.value_name)
                          ->notifier([&given, n = o.name](const std::string& v) { given[n] = v; });
        if (o.show_default) value->default_value(o.get(defaults));
        d.add_options()(name.c_str(), value, o.help.c_str());
    }
    add_log_level_option(groups.at(order.front()), log_level);
    for (const std::string& g : order) visible.add(groups.at(g));
    visible.add(config_options(cfg));
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
    std::map<std::string, std::string> values;  // the options given, as text
    std::map<std::string, bool> flags;
    std::string log_level;
    bool help = false;
    const po::options_description visible = gen_options(values, flags, cfg, log_level, help);
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
    check_option_values(parsed, all);  // the key flags' values (--tdm.dma_slots=...)
    po::variables_map vm;
    po::store(parsed, vm);
    po::notify(vm);
    if (help || (sub.empty() && !vm.count("topology"))) {
        (help ? io.out : io.err) << kGenHelp << "\n" << visible;
        return help ? kExitOk : kExitUsage;
    }
    // What the user gave (not the defaults --help shows), set as the Python module sets it.
    std::set<std::string> given;
    for (const auto& [name, text] : values)
        if (!vm[name].defaulted()) {
            set_generate_option(r, name, text);
            given.insert(name);
        }
    for (const auto& [name, on] : flags)
        if (on) {
            set_generate_option(r, name, "");
            given.insert(name);
        }
    if (const std::string why = complete_generate_request(r, sub, given); !why.empty()) {
        io.err << "sbufsim " << why << "\n";
        return kExitUsage;
    }
    apply_log_level(log_level);
    r.config = make_load_request(cfg, parsed);
    return generate(r, io);
}

bool is_gen_workload_option(const std::string& name) { return is_workload_option(name); }

}  // namespace sbufsim::cli
