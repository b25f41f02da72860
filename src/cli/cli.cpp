#include "cli/cli.h"

#include <iostream>
#include <sstream>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <typeinfo>

#include "cli/commands.h"
#include "sbufsim/config/data_dirs.h"
#include "sbufsim/output/output_file.h"
#include "sbufsim/types/near_miss.h"
#include "sbufsim/types/text.h"

namespace po = boost::program_options;

namespace sbufsim::cli {

const std::vector<Command>& commands() {
    static const std::vector<Command> table = {
        {"run", "replay traces through the TPB model and report where the cycles went", cmd_run},
        {"check", "validate traces without simulating (file:line: field: reason)", cmd_check},
        {"convert", "convert a trace between the text and binary forms, losslessly", cmd_convert},
        {"config", "print the effective configuration of a generation (re-loadable INI)", cmd_config},
        {"decode", "decode SBUF/PSUM addresses: partition, offset, quadrant, ECC bank, SoC address",
         cmd_decode},
        {"bench", "measure the bank-conflict kernel's speed on synthetic traffic", cmd_bench},
        {"gen", "write realistic traces from GEMM, attention, convolution shapes or synthetic stress",
         cmd_gen},
        {"plot",
         "chart a sweep table's metric over its varied keys, or a run --json's bank x time heatmap (SVG/PNG)",
         cmd_plot},
        {"sweep",
         "run a trace over many settings (TDM, arbiter, throttler...) in parallel, one row per point",
         cmd_sweep},
        {"nki", "trace an NKI kernel (nki.language / nki.isa) and replay it: report, MFU, HBM bandwidth",
         cmd_nki},
        {"validate", "check sbufsim's timing against the public Neuron figures and the seeds", cmd_validate},
    };
    return table;
}

namespace {

void print_usage(std::ostream& os) {
    os << "sbufsim " << SBUFSIM_VERSION
       << " - cycle-approximate simulator of a NeuronCore's SBUF/PSUM memory subsystem\n\n"
          "usage: sbufsim <command> [options]     (sbufsim <command> --help for its options)\n"
          "       sbufsim --version               the version and the source revision\n\n"
          "commands:\n";
    for (const auto& c : commands()) {
        std::string name = c.name;
        name.resize(10, ' ');
        os << "  " << name << c.summary << "\n";
    }
    os << "\nexamples:\n"
          "  sbufsim config --gen sunda                 print sunda's geometry and CSR reset values\n"
          "  sbufsim config --set tdm.dma_slots=2       the default generation with 2 DMA TDM slots\n"
          "  sbufsim decode 0x2000800 0x5600 --gen cayman\n\n"
          "exit status: 0 ok, 1 findings (invalid addresses), 2 usage or configuration error or a\n"
          "refused output path, 3 unreadable or invalid input or an output that could not be written,\n"
          "4 internal error. Output files appear only complete; inputs and files of another kind are\n"
          "never overwritten (--force for the latter). See docs/cli.md.\n";
}

}  // namespace

int run_request(const char* command, Io io, Failure* failure, const std::function<int()>& request) {
    if (failure) *failure = Failure::other;
    try {
        return request();
    } catch (const OutputError& e) {
        // A refused or unwritable path is found before any work (usage); a write that
        // fails later (a full disk) loses the result (exit 3, like unreadable input).
        io.err << "sbufsim " << command << ": " << printable(e.what()) << "\n";
        if (failure) *failure = Failure::output;
        return e.kind() == OutputError::Kind::refused ? kExitUsage : kExitInput;
    } catch (const ConfigError& e) {
        io.err << "sbufsim " << command << ": " << printable(e.what()) << "\n";
        return kExitUsage;
    } catch (const po::error& e) {
        io.err << "sbufsim " << command << ": " << printable(e.what()) << " (see sbufsim " << command
               << " --help)\n";
        return kExitUsage;
    } catch (const std::exception& e) {
        io.err << "sbufsim " << command << ": internal error: " << printable(e.what()) << "\n";
        return kExitInternal;
    }
}

int run(const std::vector<std::string>& argv, Io io, Failure* failure) {
    if (failure) *failure = Failure::other;
    if (argv.empty() || argv[0] == "--help" || argv[0] == "-h" || argv[0] == "help") {
        print_usage(io.out);
        return argv.empty() ? kExitUsage : kExitOk;
    }
    if (argv[0] == "--version") {
        io.out << version_line() << "\n";
        return kExitOk;
    }
    for (const auto& c : commands()) {
        if (argv[0] != c.name) continue;
        std::vector<std::string> rest(argv.begin() + 1, argv.end());
        return run_request(c.name, io, failure, [&] { return c.fn(rest, io); });
    }
    std::vector<std::string> names;
    for (const auto& c : commands()) names.emplace_back(c.name);
    // One line: the near miss, or else the commands; the whole usage is `sbufsim --help`'s.
    const std::string hint = did_you_mean(argv[0], names);
    io.err << "sbufsim: unknown command '" << printable(argv[0]) << "'";
    if (hint.empty()) {
        io.err << "; the commands:";
        for (const std::string& n : names) io.err << " " << n;
        io.err << " (sbufsim --help)";
    }
    io.err << hint << "\n";
    return kExitUsage;
}

int run_main(int argc, char** argv) {
    // Diagnostics go to stderr so that stdout carries only results (tables, INI, JSON with '-').
    spdlog::set_default_logger(spdlog::stderr_color_st("sbufsim"));
    std::vector<std::string> args(argv + 1, argv + argc);
    // Results on stdout count as written only once they left the process: a full disk or a
    // closed pipe behind stdout is an error, not exit 0 with the data lost. std::cout writes
    // through a buffer that keeps the OS reason of a failed write.
    std::fflush(stdout);
    FdStreamBuf out(STDOUT_FILENO, false);
    std::streambuf* const previous = std::cout.rdbuf(&out);
    int rc = run(args, Io{std::cout, std::cerr});
    std::cout.flush();
    out.drain();
    std::cout.rdbuf(previous);
    const int err = out.error() ? out.error() : (std::fflush(stdout) != 0 ? (errno ? errno : EIO) : 0);
    if (err != 0) {
        std::cerr << "sbufsim: cannot write the standard output: " << std::strerror(err) << "\n";
        if (rc == kExitOk || rc == kExitFindings) rc = kExitInput;
    }
    return rc;
}

std::vector<std::string> option_values(const std::vector<std::string>& args, const std::string& key) {
    std::vector<std::string> values;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == key && i + 1 < args.size()) values.push_back(args[i + 1]);
        if (args[i].rfind(key + "=", 0) == 0) values.push_back(args[i].substr(key.size() + 1));
    }
    return values;
}

bool gives_stdout(const std::vector<std::string>& args, std::initializer_list<const char*> keys) {
    for (const char* key : keys)
        for (const std::string& value : option_values(args, key))
            if (value == "-") return true;
    return false;
}

po::options_description config_options(ConfigOptions& into) {
    po::options_description desc("Configuration");
    std::string gens;
    for (const auto& g : generation_names()) gens += (gens.empty() ? "" : ", ") + g;
    desc.add_options()(
        "gen,g", po::value(&into.generation)->value_name("GEN"),
        ("generation: " + gens + " (default: the --config file's `base`, else cayman)").c_str())(
        "config,c", po::value(&into.files)->composing()->value_name("FILE"),
        "INI file layered over the generation (repeatable; `base = <gen>` inside picks it)")(
        "set,s", po::value(&into.sets)->composing()->value_name("KEY=VALUE"),
        "override one key, e.g. --set tdm.dma_slots=2 (repeatable; also --tdm.dma_slots=2)")(
        "config-dir", po::value(&into.config_dir)->value_name("DIR"),
        "directory of the <gen>.ini files (default: $SBUFSIM_CONFIG_DIR, else the shipped "
        "share/sbufsim/configs next to the executable)");
    return desc;
}

po::options_description key_flag_options() {
    po::options_description desc(
        "Configuration keys (any key as --<key>=<value>; see sbufsim config --help)");
    for (const auto& k : key_table())
        desc.add_options()(k.name.c_str(), po::value<std::string>()->value_name("V"), k.help.c_str());
    return desc;
}

void add_key_flags_if_named(po::options_description& all, const std::vector<std::string>& args) {
    for (const auto& a : args) {
        if (a.size() < 2 || a[0] != '-' || a[1] != '-') continue;
        // Anything but an exact long name of the command's own (a key, an abbreviation, a typo
        // whose suggestion may be a key, a lone `--`) parses with the key flags, as it always did.
        const std::string name = a.substr(2, a.find('=') - 2);  // to the end when there is no '='
        if (name.empty() || all.find_nothrow(name, false) == nullptr) {
            all.add(key_flag_options());
            return;
        }
    }
}

LoadRequest make_load_request(const ConfigOptions& opts, const po::parsed_options& parsed) {
    LoadRequest req;
    req.generation = opts.generation;
    req.user_files = opts.files;
    req.config_dir = opts.config_dir;
    // Keep command-line order between --set and --<key> so the last one given wins.
    for (const auto& o : parsed.options) {
        if (o.unregistered || o.value.empty()) continue;
        if (o.string_key == "set") {
            Setting s = parse_override(o.value.front());
            req.overrides.push_back(std::move(s));
        } else if (find_key(o.string_key) != nullptr) {
            req.overrides.push_back(Setting{o.string_key, o.value.front(), Origin{}, {}});
        }
    }
    return req;
}

// " (did you mean '--x'?)" for a mistyped long option, among the command's own options.
std::string option_suggestion(const std::string& typed, const po::options_description& options,
                              const std::vector<std::string>& args) {
    std::string name =
        typed.substr(typed.find_first_not_of('-') == std::string::npos ? 0 : typed.find_first_not_of('-'));
    name = name.substr(0, name.find('='));
    // An option given already is not what was meant, unless it may be given again (--set).
    const auto given = [&](const po::option_description& o) {
        if (o.semantic()->is_composing() || o.semantic()->max_tokens() > 1) return false;
        return std::any_of(args.begin(), args.end(), [&](const std::string& a) {
            return a == "--" + o.long_name() || a.rfind("--" + o.long_name() + "=", 0) == 0;
        });
    };
    std::vector<std::string> longs, completions;
    for (const auto& o : options.options()) {
        if (given(*o)) continue;
        longs.push_back(o->long_name());
        if (!name.empty() && o->long_name().rfind(name, 0) == 0) completions.push_back(o->long_name());
    }
    // A shortened name (abbreviations are not taken): the one option it starts, if only one.
    if (completions.size() == 1) return " (did you mean '--" + completions.front() + "'?)";
    const std::string hint = did_you_mean(name, longs);
    return hint.empty() ? "" : " (did you mean '--" + hint.substr(hint.find('\'') + 1);
}

namespace {

// Which word of `args` was one operand too many, by parsing again with every operand collected.
std::string stray_operand_message(const std::vector<std::string>& args,
                                  const po::options_description& options,
                                  const po::positional_options_description* positional) {
    std::vector<std::string> operands;
    po::options_description with_operands;
    with_operands.add(options);
    with_operands.add_options()("sbufsim-operands", po::value(&operands));
    po::positional_options_description all;
    all.add("sbufsim-operands", -1);
    try {
        po::variables_map vm;
        po::store(po::command_line_parser(args).options(with_operands).positional(all).run(), vm);
        po::notify(vm);
    } catch (const po::error&) {
        return "too many arguments";
    }
    const std::size_t allowed = positional != nullptr ? positional->max_total_count() : 0;
    const std::string word = operands.size() > allowed ? operands[allowed] : std::string("?");
    if (allowed == 0)
        return "unexpected argument '" + word +
               "': this command takes options only (--name value or --name=value)";
    return "unexpected argument '" + word + "': this command takes at most " + std::to_string(allowed) +
           " file or name argument" + (allowed == 1 ? "" : "s");
}

}  // namespace

ParsedArgs parse_args(const std::vector<std::string>& args, const po::options_description& options,
                      const po::positional_options_description* positional, const std::string& log_level) {
    po::command_line_parser parser(args);
    // No abbreviations: a shortened option or key flag (--tdm.dma_s=2) is a typo to report with
    // its nearest name, never one to complete silently.
    parser.options(options).style(po::command_line_style::default_style &
                                  ~po::command_line_style::allow_guessing);
    // A command without operands gets an empty description, so that a stray word is "too many
    // positional options" rather than an ambiguous match against every option name.
    const po::positional_options_description no_operands;
    parser.positional(positional != nullptr ? *positional : no_operands);
    ParsedArgs out{[&] {
                       try {
                           return parser.run();
                       } catch (const po::unknown_option& e) {
                           throw po::error(std::string(e.what()) +
                                           option_suggestion(e.get_option_name(), options, args));
                       } catch (const po::too_many_positional_options_error&) {
                           throw po::error(stray_operand_message(args, options, positional));
                       }
                   }(),
                   {}};
    check_option_values(out.parsed, options);
    po::store(out.parsed, out.vm);
    po::notify(out.vm);
    apply_log_level(log_level);
    return out;
}

void check_option_values(const po::parsed_options& parsed, const po::options_description& options) {
    for (const auto& o : parsed.options) {
        if (o.unregistered || o.value.empty()) continue;
        const po::option_description* d = options.find_nothrow(o.string_key, false);
        const auto* typed = d ? dynamic_cast<const po::typed_value_base*>(d->semantic().get()) : nullptr;
        if (typed == nullptr) continue;
        const std::type_info& t = typed->value_type();
        const bool is_unsigned = t == typeid(unsigned) || t == typeid(unsigned long) ||
                                 t == typeid(unsigned long long) || t == typeid(unsigned short);
        const bool is_real = t == typeid(double) || t == typeid(float);
        for (const auto& v : o.value) {
            const std::string text = v.substr(std::min(v.size(), v.find_first_not_of(" \t")));
            if (is_unsigned && !text.empty() && text.front() == '-')
                throw po::error("--" + o.string_key + " '" + v +
                                "': may not be negative (a whole number is expected)");
            if (is_real) {
                char* end = nullptr;
                const double x = std::strtod(text.c_str(), &end);
                if (end != text.c_str() && !std::isfinite(x))
                    throw po::error("--" + o.string_key + " '" + v + "': must be a finite number");
            }
        }
    }
}

void add_force_option(po::options_description& desc, bool& into) {
    desc.add_options()("force", po::bool_switch(&into),
                       "replace an existing output file that is not of the kind this command writes "
                       "(never an input, a directory or a device)");
}

void add_log_level_option(po::options_description& desc, std::string& into) {
    desc.add_options()("log-level", po::value(&into)->default_value("warn")->value_name("LEVEL"),
                       "diagnostics on stderr: trace, debug, info, warn, error, off");
}

void apply_log_level(const std::string& level) {
    auto l = spdlog::level::from_str(level);
    if (l == spdlog::level::off && level != "off")
        throw ConfigError("--log-level: unknown level '" + level +
                          "' (expected trace, debug, info, warn, error, off)");
    spdlog::set_level(l);
}

}  // namespace sbufsim::cli
