// Command-line front end: `sbufsim <command> [options]`. Each command lives in its own
// cmd_<name>.cpp and is listed once in the command table of cli.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include <boost/program_options.hpp>

#include "sbufsim/app/app.h"
#include "sbufsim/app/messages.h"
#include "sbufsim/app/outputs.h"
#include "sbufsim/config/config.h"
#include "sbufsim/trace/trace.h"

namespace sbufsim::cli {

// The commands are the command line's front end of the application layer (sbufsim/app/): its
// requests, exit statuses and streams are theirs.
using namespace app;

// A command receives its arguments (without the command name) and the streams to write to.
using CommandFn = int (*)(const std::vector<std::string>& args, Io io);

struct Command {
    const char* name;
    const char* summary;
    CommandFn fn;
};
const std::vector<Command>& commands();

int run_main(int argc, char** argv);
// What ended a command that failed, where the exit status alone does not tell: an output path
// refused or a write that failed (exit 2 or 3, as a bad option or an unreadable input).
// The Python module raises its OutputError for it.
enum class Failure : unsigned char { other, output };
// Same, with explicit arguments and streams (tests, the Python module); `failure`, when given,
// says what ended a failed command.
int run(const std::vector<std::string>& argv, Io io, Failure* failure = nullptr);
// A request of command `command` (its name) with the command line's handling of what it throws:
// the message on io.err as `sbufsim COMMAND: ...` and the exit status (a refused or failed output
// 2 or 3, a configuration or option error 2, anything else 4). The Python module calls the
// application layer's requests through it.
int run_request(const char* command, Io io, Failure* failure, const std::function<int()>& request);

// " (did you mean '--x'?)" for a mistyped long option, among the command's own options less
// those `args` already give that cannot be given twice ("--dheads" beside "--heads 1" is
// "--dhead"); "" when none is near.
std::string option_suggestion(const std::string& typed,
                              const boost::program_options::options_description& options,
                              const std::vector<std::string>& args);

// The values `key` is given in `args`, as `key VALUE` or `key=VALUE`, in order (the options a
// command passes on to another without parsing them).
std::vector<std::string> option_values(const std::vector<std::string>& args, const std::string& key);
// Whether `args` give one of `keys` the value "-" (a document on stdout).
bool gives_stdout(const std::vector<std::string>& args, std::initializer_list<const char*> keys);

// The git revision the binary was built from ("unknown" outside a git checkout) and the line
// `sbufsim --version` prints: "sbufsim 0.1.0 (revision 1a2b3c4d5e6f)".
const char* revision();
std::string version_line();

// The options every command that needs a configuration shares: --gen, --config, --set,
// --config-dir, and one --<key>=<value> flag per declared key (hidden from the short help).
struct ConfigOptions {
    std::string generation;
    std::vector<std::string> files;
    std::vector<std::string> sets;
    std::string config_dir;
};
boost::program_options::options_description config_options(ConfigOptions& into);
// Every declared key as a --<key> flag (for `--tdm.dma_slots=2`).
boost::program_options::options_description key_flag_options();
// Adds key_flag_options() to `all` (the command's own options) unless every long option in
// `args` is exactly one of them: building the flags of every key is most of a short run's
// argument parsing, and a command line without one parses the same either way.
void add_key_flags_if_named(boost::program_options::options_description& all,
                            const std::vector<std::string>& args);
// Build the load request: files, then --set and --<key> flags in command-line order.
LoadRequest make_load_request(const ConfigOptions& opts,
                              const boost::program_options::parsed_options& parsed);

// A command's options after parsing: `parsed` keeps command-line order (make_load_request needs
// it), `vm` the stored values; variables bound with po::value(&x) are already set.
struct ParsedArgs {
    boost::program_options::parsed_options parsed;
    boost::program_options::variables_map vm;
};
// Parses `args` against `options` (and `positional`, when given), stores and notifies, then
// applies the --log-level value bound to `log_level`. Throws po::error on a bad command line.
ParsedArgs parse_args(const std::vector<std::string>& args,
                      const boost::program_options::options_description& options,
                      const boost::program_options::positional_options_description* positional,
                      const std::string& log_level);

// Values boost accepts but no option means: a negative number for an unsigned option (boost
// wraps "-1" to the largest value) and inf/nan for a floating-point one. Throws po::error naming
// the option. parse_args calls it; a command parsing on its own calls it too.
void check_option_values(const boost::program_options::parsed_options& parsed,
                         const boost::program_options::options_description& options);

// --force: replace an existing file that is not of the command's own kind.
void add_force_option(boost::program_options::options_description& desc, bool& into);

// --log-level handling shared by all commands.
void add_log_level_option(boost::program_options::options_description& desc, std::string& into);
void apply_log_level(const std::string& level);  // throws ConfigError on an unknown level

}  // namespace sbufsim::cli
