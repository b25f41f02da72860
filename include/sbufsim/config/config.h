// The configuration layer: one dotted key namespace for generation files, user files and the
// command line, declared once in a key table (src/config/config_keys.cpp) and loaded into Params.
//
// Layering, lowest to highest precedence:
//   configs/<gen>.ini (the shipped generation) < user files (--config F, in order) < --set k=v
// A user file may say `base = <gen>` to pick the generation it layers over.
//
// Errors never surface as std::out_of_range or a crash: every problem becomes a ConfigError whose
// message names the key, the file:line (or "command line"), the rule broken and the value.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sbufsim/config/params.h"
#include "sbufsim/types/text.h"

namespace sbufsim {

// How much a value can be trusted, as the seeds tag it (seeds/README.md).
enum class Confidence : std::uint8_t {
    high_observed,
    high_inferred,
    med_observed,
    med_inferred,
    low_observed,
    low_inferred,
    public_doc,   // AWS public Neuron documentation (PUBLIC_FACTS.md)
    modelling,    // a simulator modelling choice where the sources are silent
};
std::string_view to_string(Confidence c);

enum class KeyType : std::uint8_t { u32, u64, boolean, f64, choice, text };
std::string_view to_string(KeyType t);

// Where a setting came from, for error messages and `sbufsim config --origins`.
struct Origin {
    std::string file;  // empty = command line; with line 0, a name for where else (kOverrides)
    int line = 0;      // -1 = not set anywhere: the key table's default
    std::string describe() const;  // "file:line", "command line", the name, or "default"
};

// The origin of settings given as key/value pairs by an API rather than --set (the Python
// module's Config overrides): errors then name the overrides, not a command line.
inline constexpr const char* kOverrides = "overrides";

// One declared key. Built once at start-up; never consulted on a hot path.
struct KeySpec {
    std::string name;            // dotted: section.key
    KeyType type = KeyType::u32;
    std::string default_text;    // default as written in an INI file
    double min = 0;              // numeric range, inclusive (u32/u64/f64)
    double max = 0;
    std::vector<std::string> choices;  // for KeyType::choice
    std::string unit;            // "B", "cycles", "GHz", "" ...
    std::string help;
    std::string source;          // "seed 000 §7.2", "PUBLIC_FACTS", ...
    Confidence confidence = Confidence::high_observed;
    // Non-empty: the value is recorded (loaded, range-checked, echoed by `sbufsim config`, part
    // of a result's configuration) but no model reads it; the text says why. `sweep --vary`
    // refuses such a key, since every point would replay the same simulation.
    std::string no_effect;
    // Setup-time accessors into Params. `set` receives a value already checked for type, range
    // and choice; `get` renders the current value in INI form.
    std::function<void(Params&, std::string_view)> set;
    std::function<std::string(const Params&)> get;
};

// An integer key's range bound as text. A u64 bound of 2^64 - 1 is held as the double 2^64,
// which converts to no integer: it is written as 2^64 - 1.
std::string integer_bound_text(double bound);

// The key table, in documentation order.
const std::vector<KeySpec>& key_table();
// nullptr when the key is not declared.
const KeySpec* find_key(std::string_view name);

// The message echoes keys and values from the input: its control characters are shown as \xNN.
class ConfigError : public std::runtime_error {
public:
    explicit ConfigError(const std::string& what) : std::runtime_error(printable(what)) {}
};

// One `key = value` with where it came from.
struct Setting {
    std::string key;
    std::string value;
    Origin origin;
    std::string comment;  // the line's trailing comment (a generation file's source | confidence)
};

// The generations shipped in configs/, in order of age.
const std::vector<std::string>& generation_names();
inline constexpr std::string_view kDefaultGeneration = "cayman";

struct LoadRequest {
    std::string generation;                // empty: the first user file's `base`, else cayman
    std::vector<std::string> user_files;   // layered over the generation in order
    std::vector<Setting> overrides;        // --set / --<key>=<value>, applied last
    std::string config_dir;                // empty: $SBUFSIM_CONFIG_DIR, else the shipped files (data_dirs.h)
    // false: stop after the type and range checks of every value, before check_consistency();
    // a sweep checks its base so, since a point's values may make it consistent.
    bool cross_check = true;
};

// The result of loading: the typed parameters plus, per key, where its value came from.
struct LoadedConfig {
    Params params;
    std::vector<Origin> origins;  // parallel to key_table(); line -1 = never set (default)
    std::string generation_file;  // the configs/<gen>.ini the values were layered over
    // Per key, the generation file's own citation ("seed 000 §1 | HIGH/OBSERVED"): the
    // confidence of a value can differ by generation (maverick's interior geometry is carried).
    std::vector<std::string> citations;
};

// Load, layer, type-check, range-check and cross-check. Throws ConfigError.
LoadedConfig load_config(const LoadRequest& request);

// Settings a user made that cannot change a run, one sentence each: a throttler's
// transfer_cnt or window_len set while the throttler is off, or a limit of window_len or more
// beats per window (a client moves at most one beat a cycle). Valid, so not errors; `run` prints
// them as notes.
std::vector<std::string> settings_without_effect(const LoadedConfig& cfg);

// A value for `k` checked for type, range and choice, in the form the loader keeps: integers in
// decimal ("0x10" -> "16"), booleans as true/false ("yes" -> "true"), anything else as written
// (trimmed). Throws ConfigError naming `where` and the key.
std::string canonical_value(const KeySpec& k, std::string_view raw, const Origin& where);

// A trace naming its generation (its header's gen=) picks it unless the request already chose a
// generation or a user file (whose `base` decides).
inline void adopt_trace_generation(LoadRequest& r, const std::string& trace_generation) {
    if (r.generation.empty() && r.user_files.empty()) r.generation = trace_generation;
}

// Read one INI file into settings (sections become dotted prefixes). `base` is returned as a
// setting named "base". Throws ConfigError for unreadable files and malformed lines.
std::vector<Setting> read_ini(const std::string& path);

// Parse "key=value" as given to --set; throws ConfigError naming the argument.
Setting parse_override(std::string_view arg);

// The effective configuration in INI form, re-loadable with --config. With `annotate`, each
// value carries a comment with its unit, source and confidence.
std::string render_ini(const LoadedConfig& config, bool annotate = true);

// A broken consistency rule: the key most to blame (its origin is added to the error) and a
// message naming the keys, their values and the rule.
struct ConsistencyError {
    std::string key;
    std::string message;
};
// The kernel keeps client sets in 64-bit masks and reserves bit 63: at most this many clients.
inline constexpr std::uint32_t kMaxKernelClients = 63;
// The arbiter clients a configuration declares (the kernel's ClientSet has exactly these): the
// stage-1 PE clients, six engine ports, dma.engines, q7.cores and, with PSUM, seven PSUM clients.
std::uint32_t declared_clients(const Params& p);

// Consistency rules between keys (geometry that does not fit, slots over max, ...). Returns the
// first broken rule, or nothing. Called by load_config; exposed for tests.
std::optional<ConsistencyError> check_consistency(const Params& p);

}  // namespace sbufsim
