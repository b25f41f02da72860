// `gen`'s options as one table: each option's name, help and the GenerateRequest field it sets
// from text. The command line builds its option list and --help from it; the Python module's
// generate() sets the same fields by the same names (keywords with '_' for '-'), so both check
// values, misplaced options and missing shapes alike. docs/generators.md.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sbufsim/app/generate.h"

namespace sbufsim::app {

struct GenOption {
    enum class Kind { whole, real, text, flag };
    std::string name;        // without the dashes: "block-n"
    std::string group;       // the --help section it is listed in
    std::string value_name;  // "N" (empty for a flag)
    std::string help;
    Kind kind = Kind::text;
    bool show_default = false;                                      // --help prints the request's default
    std::function<void(GenerateRequest&, const std::string&)> set;  // checked text into the field
    std::function<std::string(const GenerateRequest&)> get;         // the field as text
};

// Every option of `gen` but the configuration's (--gen/--config/--set) and --help/--log-level, in
// --help order.
const std::vector<GenOption>& generate_option_table();

// Sets option `name` (no dashes) from `text` ("" for a flag: on). Throws ConfigError naming the
// option and the value for an unknown option or a value of the wrong kind (a sign on a whole
// number, a word for a number, an infinite real).
void set_generate_option(GenerateRequest& r, const std::string& name, const std::string& text);

// The checks of a request before it runs, given which options were set (names without dashes):
// the workload's name ("" for --topology), an option given to a workload it is not for, a missing
// shape option, --tile-m 0. Completes `r` (its workload, the block sizes the user asked for) and
// returns "", or returns the problem with what to do, as the command line words it after
// "sbufsim " ("gen gemm: --pad is for conv, not gemm: ...").
std::string complete_generate_request(GenerateRequest& r, const std::string& workload,
                                      const std::set<std::string>& given);

// A request from (name, text) pairs, as generate() of the Python module gives them: each set as
// the command line sets it, then completed. Throws ConfigError.
GenerateRequest generate_request(const std::string& workload,
                                 const std::vector<std::pair<std::string, std::string>>& options,
                                 LoadRequest config);

}  // namespace sbufsim::app
