// The configuration loader: INI files and command-line overrides into Params (see config.h).
//
// INI files are read here rather than by Boost.Program_options' parse_config_file because every
// error must name its file:line, which that parser does not report. The command line itself is
// parsed with Boost.Program_options (src/cli/cli.cpp); both feed the same key table.
#include "sbufsim/config/config.h"
#include "sbufsim/config/data_dirs.h"
#include "sbufsim/types/input_file.h"
#include "sbufsim/types/near_miss.h"
#include "sbufsim/types/number.h"
#include "sbufsim/types/text.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <utility>

namespace sbufsim {

std::string_view to_string(Confidence c) {
    switch (c) {
        case Confidence::high_observed: return "HIGH/OBSERVED";
        case Confidence::high_inferred: return "HIGH/INFERRED";
        case Confidence::med_observed: return "MED/OBSERVED";
        case Confidence::med_inferred: return "MED/INFERRED";
        case Confidence::low_observed: return "LOW/OBSERVED";
        case Confidence::low_inferred: return "LOW/INFERRED";
        case Confidence::public_doc: return "PUBLIC";
        case Confidence::modelling: return "MODEL/INFERRED";
    }
    return "?";
}

std::string_view to_string(KeyType t) {
    switch (t) {
        case KeyType::u32: return "uint32";
        case KeyType::u64: return "uint64";
        case KeyType::boolean: return "bool";
        case KeyType::f64: return "real";
        case KeyType::choice: return "choice";
        case KeyType::text: return "text";
    }
    return "?";
}

std::string integer_bound_text(double bound) {
    constexpr double two_to_64 = 18446744073709551616.0;
    if (bound >= two_to_64) return std::to_string(std::numeric_limits<std::uint64_t>::max());
    return std::to_string(static_cast<std::uint64_t>(bound));
}

std::string Origin::describe() const {
    if (line < 0) return "default";
    if (file.empty()) return "command line";
    if (line == 0) return file;  // a named origin without lines (kOverrides)
    return file + ":" + std::to_string(line);
}

const std::vector<std::string>& generation_names() {
    static const std::vector<std::string> names = {"inferentia", "sunda", "cayman", "mariana",
                                                   "maverick"};
    return names;
}

namespace {

std::string trim(std::string_view s) {
    const auto first = s.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    const auto last = s.find_last_not_of(" \t\r");
    return std::string(s.substr(first, last - first + 1));
}

// A comment starts at '#' or ';' at the start of the line or after whitespace.
std::size_t comment_start(const std::string& line) {
    for (std::size_t i = 0; i < line.size(); ++i) {
        if ((line[i] == '#' || line[i] == ';') && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t'))
            return i;
    }
    return std::string::npos;
}

std::string suggestion_for(std::string_view unknown) {
    if (const KeySpec* best = nearest(unknown, key_table(), [](const KeySpec& k) { return std::string_view(k.name); }))
        return "; did you mean '" + best->name + "'?";
    return "; `sbufsim config --help` lists every key";
}

[[noreturn]] void fail(const Origin& where, const std::string& key, const std::string& what) {
    // Keys and values are echoed from the input: control characters are shown, not sent.
    throw ConfigError(where.describe() + ": " + (key.empty() ? "" : "key '" + key + "': ") + what);
}

std::string range_text(const KeySpec& k) {
    auto num = [&](double v) {
        if (k.type == KeyType::f64) {
            std::ostringstream os;
            os << v;
            return os.str();
        }
        return integer_bound_text(v);
    };
    return "[" + num(k.min) + ", " + num(k.max) + "]";
}

// Check a value against its key's type and range; return it in canonical form.
std::string normalise(const KeySpec& k, const std::string& raw, const Origin& where) {
    std::string v = trim(raw);   // not const: returned by value, it moves
    if (v.empty() && k.type != KeyType::text) fail(where, k.name, "empty value (expected " + std::string(to_string(k.type)) + ")");
    switch (k.type) {
        case KeyType::u32:
        case KeyType::u64: {
            if (v[0] == '-' || v[0] == '+')
                fail(where, k.name, "value '" + v + "' is not an unsigned integer (rule: type " +
                                        std::string(to_string(k.type)) + ")");
            // Decimal or 0x hex: a leading zero is decimal (010 is ten), as in the trace format.
            const std::optional<std::uint64_t> parsed = parse_unsigned(v);
            if (!parsed)
                fail(where, k.name, "value '" + v + "' is not an unsigned integer (rule: type " +
                                        std::string(to_string(k.type)) + "; decimal or 0x hex)");
            const std::uint64_t n = *parsed;
            if (static_cast<double>(n) < k.min || static_cast<double>(n) > k.max)
                fail(where, k.name, "value " + v + " out of range " + range_text(k) +
                                        (k.unit.empty() ? "" : " " + k.unit));
            return std::to_string(n);
        }
        case KeyType::f64: {
            errno = 0;
            char* end = nullptr;
            const double d = std::strtod(v.c_str(), &end);
            if (errno == ERANGE || end == v.c_str() || *end != '\0' || !std::isfinite(d))
                fail(where, k.name, "value '" + v + "' is not a number (rule: type real)");
            if (d < k.min || d > k.max)
                fail(where, k.name, "value " + v + " out of range " + range_text(k) +
                                        (k.unit.empty() ? "" : " " + k.unit));
            return v;
        }
        case KeyType::boolean: {
            std::string l = v;
            std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return std::tolower(c); });
            if (l == "true" || l == "1" || l == "yes" || l == "on") return "true";
            if (l == "false" || l == "0" || l == "no" || l == "off") return "false";
            fail(where, k.name, "value '" + v + "' is not a boolean (rule: true/false, 1/0, yes/no, on/off)");
        }
        case KeyType::choice: {
            if (std::find(k.choices.begin(), k.choices.end(), v) != k.choices.end()) return v;
            std::string list;
            for (const auto& c : k.choices) list += (list.empty() ? "" : ", ") + c;
            fail(where, k.name, "value '" + v + "' is not one of: " + list);
        }
        case KeyType::text:
            return v;
    }
    return v;
}

std::size_t key_position(const KeySpec* k) {
    return static_cast<std::size_t>(k - key_table().data());
}

void apply(LoadedConfig& cfg, const Setting& s) {
    const KeySpec* k = find_key(s.key);
    if (k == nullptr) fail(s.origin, "", "unknown key '" + s.key + "'" + suggestion_for(s.key));
    k->set(cfg.params, normalise(*k, s.value, s.origin));
    cfg.origins[key_position(k)] = s.origin;
}

std::string base_of(const std::vector<Setting>& settings, Origin* where) {
    for (const auto& s : settings)
        if (s.key == "base") {
            *where = s.origin;
            return s.value;
        }
    return {};
}

// A trace given where a configuration file is expected (`--config x.trc`) would otherwise be
// read as INI and fail on its header as an unknown key. The magic words are the trace format's
// (docs/trace-format.md; the config area sits below the trace area, so they are spelled here).
void reject_trace(const Origin& where, const std::string& first_line) {
    const bool text = first_line.rfind("sbufsim-trace", 0) == 0;
    const bool binary = first_line.rfind(std::string_view("SBUFTRC\0", 8), 0) == 0;
    if (!text && !binary) return;
    throw ConfigError(where.describe() + ": this is a " + (binary ? "binary " : "") +
                      "trace (it starts with `" + (binary ? "SBUFTRC" : "sbufsim-trace") +
                      "`), not a configuration file: give it as the command's trace argument, and a "
                      "generation with --gen NAME or an .ini file with --config (configs/ holds one per generation)");
}

}  // namespace

std::vector<Setting> read_ini(const std::string& path) {
    if (const std::string why = input_file_problem(path); !why.empty())
        throw ConfigError(path + ": cannot open configuration file (" + why + "); give an .ini file");
    std::ifstream in(path);
    if (!in) throw ConfigError(path + ": cannot open configuration file (" + std::string(std::strerror(errno)) + ")");
    std::vector<Setting> out;
    std::map<std::string, int> seen;
    std::string section, line;
    int lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        // A UTF-8 byte order mark (editors on Windows write one) is not part of the first key.
        if (lineno == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
        const std::size_t hash = comment_start(line);
        const std::string body = trim(std::string_view(line).substr(0, hash));
        const std::string comment = hash == std::string::npos ? "" : trim(std::string_view(line).substr(hash + 1));
        const Origin here{path, lineno};
        if (body.empty()) continue;
        if (out.empty() && section.empty()) reject_trace(here, body);
        if (body.front() == '[') {
            if (body.back() != ']' || body.size() < 3)
                fail(here, "", "malformed section header '" + body + "' (expected [name])");
            section = trim(std::string_view(body).substr(1, body.size() - 2));
            continue;
        }
        const auto eq = body.find('=');
        if (eq == std::string::npos || trim(std::string_view(body).substr(0, eq)).empty())
            fail(here, "", "malformed line '" + body + "' (expected `key = value` or `[section]`)");
        const std::string name = trim(std::string_view(body).substr(0, eq));
        const std::string value = trim(std::string_view(body).substr(eq + 1));
        const std::string key = (section.empty() || name == "base") ? name : section + "." + name;
        if (key == "base" && !section.empty())
            fail(here, "base", "`base` must come before the first [section]");
        if (auto it = seen.find(key); it != seen.end())
            fail(here, key, "set twice in one file (first at line " + std::to_string(it->second) + ")");
        seen.emplace(key, lineno);
        out.push_back(Setting{key, value, here, comment});
    }
    return out;
}

Setting parse_override(std::string_view arg) {
    const auto eq = arg.find('=');
    if (eq == std::string_view::npos || eq == 0)
        throw ConfigError("command line: --set '" + std::string(arg) +
                          "': expected KEY=VALUE, e.g. --set tdm.dma_slots=2");
    return Setting{trim(arg.substr(0, eq)), trim(arg.substr(eq + 1)), Origin{}, {}};
}

namespace {

// The generation of an instance family's NeuronCore, as the generation files' headers give them
// (gen2 = sunda: Trn1 / Inf2, ...); "" for any other name.
std::string_view generation_of_product(std::string name) {
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    if (name == "inf1") return "inferentia";
    if (name == "trn1" || name == "trn1n" || name == "inf2") return "sunda";
    if (name == "trn2") return "cayman";
    if (name == "trn3") return "mariana";
    return "";
}

// The shipped generation file `gen_file` for generation `gen`, read and checked: gen.name the
// generation's own. A generation file states only the values, and the citations, that differ from
// the key table's declaration; a key it leaves out keeps the declared default, with the
// declaration's source and confidence (render_ini falls back to them) and the origin "default".
LoadedConfig read_generation(const std::string& gen, const std::string& gen_file) {
    LoadedConfig cfg;
    cfg.origins.assign(key_table().size(), Origin{"", -1});
    cfg.citations.assign(key_table().size(), std::string{});
    cfg.generation_file = gen_file;
    for (const auto& s : read_ini(gen_file)) {
        if (s.key == "base") fail(s.origin, "base", "a shipped generation file cannot have a base");
        apply(cfg, s);
        cfg.citations[key_position(find_key(s.key))] = s.comment;
    }
    if (cfg.params.generation != gen)
        throw ConfigError(gen_file + ": gen.name is '" + cfg.params.generation + "', expected '" + gen + "'");
    return cfg;
}

// The whole of a file, false when it cannot be read.
bool read_bytes(const std::string& path, std::string& bytes) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) return false;
    const std::streamoff size = in.tellg();
    if (size < 0) return false;
    bytes.resize(static_cast<std::size_t>(size));
    in.seekg(0);
    return static_cast<bool>(in.read(bytes.data(), size));
}

// read_generation, kept per file while the file's bytes stay the same: a sweep, the Python
// module and the fuzz targets load a configuration per point, and parsing the generation file
// was most of that work. Reading the bytes to compare costs little next to the
// parse, and unlike a modification time it cannot miss a rewrite. A file that fails is not kept,
// so its error is reported each time.
LoadedConfig generation_config(const std::string& gen, const std::string& gen_file) {
    struct Entry {
        std::string bytes;
        LoadedConfig cfg;
    };
    static std::mutex lock;
    static std::map<std::string, Entry> cache;
    std::string bytes;
    if (!read_bytes(gen_file, bytes)) return read_generation(gen, gen_file);  // read_ini says why
    const std::string key = gen + '\n' + gen_file;
    {
        const std::lock_guard<std::mutex> hold(lock);
        if (const auto it = cache.find(key); it != cache.end() && it->second.bytes == bytes)
            return it->second.cfg;
    }
    LoadedConfig cfg = read_generation(gen, gen_file);
    const std::lock_guard<std::mutex> hold(lock);
    cache.insert_or_assign(key, Entry{std::move(bytes), cfg});
    return cfg;
}

}  // namespace

LoadedConfig load_config(const LoadRequest& request) {
    spdlog::debug("configuration: generation '{}', {} file(s), {} override(s)", request.generation,
                  request.user_files.size(), request.overrides.size());
    for (const auto& o : request.overrides) spdlog::debug("configuration: override {} = {}", o.key, o.value);
    std::vector<std::vector<Setting>> user;
    for (const auto& f : request.user_files) user.push_back(read_ini(f));

    std::string gen = request.generation;
    Origin gen_origin;  // where `gen` was chosen: a file's base line, else the command line
    for (const auto& settings : user) {
        Origin where;
        const std::string base = base_of(settings, &where);
        if (base.empty()) continue;
        if (!gen.empty() && gen != base)
            fail(where, "base", "base = " + base + " conflicts with generation '" + gen +
                                    "' chosen earlier (--gen or an earlier file)");
        if (gen.empty()) gen_origin = where;
        gen = base;
    }
    if (gen.empty()) gen = std::string(kDefaultGeneration);
    const auto& names = generation_names();
    if (std::find(names.begin(), names.end(), gen) == names.end()) {
        std::string list;
        for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
        std::string what = "unknown generation '" + gen + "'" + did_you_mean(gen, names) +
                           " (expected one of: " + list + ")";
        if (const std::string_view g = generation_of_product(gen); !g.empty())
            what +=
                "; the generations are named by their NeuronCore: " + gen + "'s is '" + std::string(g) + "'";
        if (!gen_origin.file.empty()) fail(gen_origin, "base", what);
        throw ConfigError(what);
    }

    LoadedConfig cfg =
        generation_config(gen, find_data_file(DataKind::configs, gen + ".ini", request.config_dir));
    // gen.name is the shipped file's: a user file or --set may only repeat it (`sbufsim config`
    // writes it), never rename the generation a result is reported under.
    auto apply_user = [&](const Setting& s) {
        if (s.key == "gen.name" && trim(s.value) != gen)
            fail(s.origin, s.key, "the generation's name cannot be set (it is '" + gen +
                                      "'); choose the generation with --gen or `base = <gen>`");
        apply(cfg, s);
    };
    for (const auto& settings : user)
        for (const auto& s : settings)
            if (s.key != "base") apply_user(s);
    for (const auto& s : request.overrides) apply_user(s);

    if (!request.cross_check) return cfg;
    if (auto bad = check_consistency(cfg.params)) {
        const KeySpec* k = find_key(bad->key);
        const Origin& o = cfg.origins[key_position(k)];
        // A key the generation file leaves out holds its declared default.
        const std::string where =
            o.line < 0 ? cfg.generation_file + " (its declared default)" : o.describe();
        throw ConfigError(bad->message + " [" + bad->key + " set at " + where + "]");
    }
    return cfg;
}

std::string canonical_value(const KeySpec& k, std::string_view raw, const Origin& where) {
    return normalise(k, std::string(raw), where);
}

constexpr double kMinHbmGbps = 0.01;  // dma.engine_gbps's lower bound too

std::optional<ConsistencyError> check_consistency(const Params& p) {
    auto err = [](std::string key, std::string msg) {
        return std::optional<ConsistencyError>(ConsistencyError{std::move(key), std::move(msg)});
    };
    auto n = [](std::uint64_t v) { return std::to_string(v); };
    const auto& s = p.sbuf;
    if (s.partition_active > s.partition_stride)
        return err("sbuf.partition_active",
                   "sbuf.partition_active = " + n(s.partition_active) + " exceeds sbuf.partition_stride = " +
                       n(s.partition_stride) + " (rule: the active SRAM fits inside the partition stride, seed 000 §1)");
    if (std::uint64_t(s.partitions) * s.partition_stride != s.region_size)
        return err("sbuf.region_size",
                   "sbuf.region_size = " + n(s.region_size) + " is not sbuf.partitions x sbuf.partition_stride = " +
                       n(std::uint64_t(s.partitions) * s.partition_stride) + " (rule: seed 000 §3 (A))");
    if (s.ecc_banks != 2 * s.clusters)
        return err("sbuf.ecc_banks", "sbuf.ecc_banks = " + n(s.ecc_banks) + " is not 2 x sbuf.clusters = " +
                                         n(2 * s.clusters) + " (rule: clusters x 2 halves, seed 000 §3)");
    if (s.partitions % (2 * s.clusters) != 0)
        return err("sbuf.clusters", "sbuf.partitions = " + n(s.partitions) + " is not a multiple of 2 x sbuf.clusters = " +
                                        n(2 * s.clusters) + " (rule: each half holds whole partitions, seed 000 §3.1)");
    if (s.half_select == HalfSelect::offset && (std::uint64_t{1} << s.half_offset_bit) >= s.partition_stride)
        return err("sbuf.half_offset_bit", "sbuf.half_offset_bit = " + n(s.half_offset_bit) +
                                               " selects no half inside the partition stride " + n(s.partition_stride) +
                                               " (rule: the bit must lie inside the partition, seed 000 §3.1)");
    if (s.region_offset + s.region_size - 1 > p.isa.addr_mask)
        return err("sbuf.region_size", "the SBUF region ends past isa.addr_mask (rule: 29-bit addresses, seed 000 §2)");
    if (p.has_psum()) {
        const auto& q = p.psum;
        if (q.bank_size == 0 || q.partition_active % q.bank_size != 0 || q.banks * q.bank_size != q.partition_active)
            return err("psum.bank_size", "psum.banks x psum.bank_size = " + n(q.banks) + " x " + n(q.bank_size) +
                                             " does not tile psum.partition_active = " + n(q.partition_active) +
                                             " (rule: the bank size divides the partition, seed 000 §4)");
        if (q.isa_bank_size == 0 || q.isa_banks * q.isa_bank_size != q.partition_active)
            return err("psum.isa_bank_size", "psum.isa_banks x psum.isa_bank_size = " + n(q.isa_banks) + " x " +
                                                 n(q.isa_bank_size) + " does not tile psum.partition_active = " +
                                                 n(q.partition_active) + " (rule: seed 000 §4.2)");
        if (q.partition_active > q.partition_stride)
            return err("psum.partition_active", "psum.partition_active = " + n(q.partition_active) +
                                                    " exceeds psum.partition_stride = " + n(q.partition_stride) +
                                                    " (rule: seed 000 §4)");
        if (std::uint64_t(q.partitions) * q.partition_stride > q.region_size)
            return err("psum.region_size", "psum.partitions x psum.partition_stride = " +
                                               n(std::uint64_t(q.partitions) * q.partition_stride) +
                                               " does not fit psum.region_size = " + n(q.region_size) + " (rule: seed 000 §2)");
        if (q.region_offset < s.region_offset + s.region_size)
            return err("psum.region_offset", "psum.region_offset = " + n(q.region_offset) +
                                                 " overlaps the SBUF region (rule: addr_in_psum is a magnitude test above SBUF, seed 000 §2)");
        if (q.region_offset + q.region_size - 1 > p.isa.addr_mask)
            return err("psum.region_size", "the PSUM region ends past isa.addr_mask (rule: 29-bit addresses, seed 000 §2)");
        if (q.ecc_clusters == 0 || q.partitions % q.ecc_clusters != 0 || q.ecc_banks != q.ecc_clusters * q.banks)
            return err("psum.ecc_banks", "psum.ecc_banks = " + n(q.ecc_banks) + " is not psum.ecc_clusters x psum.banks = " +
                                             n(q.ecc_clusters) + " x " + n(q.banks) +
                                             " with whole partitions per cluster (rule: seed 000 §4)");
    }
    if (p.tdm.dma_slots > p.tdm.max_slots)
        return err("tdm.dma_slots", "tdm.dma_slots = " + n(p.tdm.dma_slots) + " exceeds tdm.max_slots = " +
                                        n(p.tdm.max_slots) + " (rule: the DMA slots are part of the TDM period, seed 000 §7.2)");
    if (p.tdm.strict && (p.tdm.dma_slots == 0 || p.tdm.dma_slots == p.tdm.max_slots))
        return err("tdm.dma_slots", "tdm.strict = true with tdm.dma_slots = " + n(p.tdm.dma_slots) + " of " +
                                        n(p.tdm.max_slots) + " gives the " +
                                        (p.tdm.dma_slots == 0 ? "DMA" : "compute") +
                                        " class no slot at all (rule: strict TDM holds each class to its own slots, seed 000 §7.2)");
    const std::pair<const char*, const ThrottleCfg*> buckets[] = {
        {"throttler.pool_rd", &p.throttler.pool_rd}, {"throttler.pool_wr", &p.throttler.pool_wr},
        {"throttler.act_rd", &p.throttler.act_rd},   {"throttler.act_wr", &p.throttler.act_wr},
        {"throttler.dve_rd", &p.throttler.dve_rd},   {"throttler.dve_wr", &p.throttler.dve_wr}};
    for (const auto& [name, b] : buckets)
        if (b->enable && b->transfer_cnt == 0)
            return err(std::string(name) + ".transfer_cnt",
                       std::string(name) + " is enabled with transfer_cnt = 0: the engine could never move a beat "
                                           "(rule: a token bucket must pass at least one beat per window, seed 000 §7.2)");
    if (p.pe.rows % p.pe.row_groups != 0)
        return err("pe.row_groups", "pe.rows = " + n(p.pe.rows) + " is not a multiple of pe.row_groups = " + n(p.pe.row_groups));
    for (std::uint32_t g = p.pe.row_groups; g < p.arr_seq.rg_stagger.size(); ++g)
        if (p.arr_seq.rg_stagger[g] != 0)
            return err("arr_seq.rg" + n(g) + "_stagger",
                       "arr_seq.rg" + n(g) + "_stagger = " + n(p.arr_seq.rg_stagger[g]) + " times row group " + n(g) +
                           ", but pe.row_groups = " + n(p.pe.row_groups) + " (rule: one load-stagger timer per PE row "
                           "group, seed 000 §5.6); set it to 0 or raise pe.row_groups");
    if (p.pe.tile_min != 0 && (p.pe.tile_min % 32 != 0 || (p.pe.tile_min & (p.pe.tile_min - 1)) != 0 ||
                               p.pe.tile_min > std::min(p.pe.rows, p.pe.cols)))
        return err("pe.tile_min", "pe.tile_min = " + n(p.pe.tile_min) + " is not 0 or a power of two of at least 32 up to the "
                                      "array's rows and columns (rule: PE tiles are 32-row/column blocks, nki.isa nc_matmul "
                                      "Tiling mode)");
    if (p.pe.cols % p.pe.col_groups != 0)
        return err("pe.col_groups", "pe.cols = " + n(p.pe.cols) + " is not a multiple of pe.col_groups = " + n(p.pe.col_groups));
    if (p.q7.cores * p.q7.partitions_per_core != s.partitions)
        return err("q7.partitions_per_core", "q7.cores x q7.partitions_per_core = " +
                                                 n(p.q7.cores * p.q7.partitions_per_core) + " is not sbuf.partitions = " +
                                                 n(s.partitions) + " (rule: core c owns 16 partitions, seed 000 §7.5)");
    if (s.partitions % p.isa.quadrant_partitions != 0)
        return err("isa.quadrant_partitions", "sbuf.partitions is not a multiple of isa.quadrant_partitions");
    // A transfer at a few bytes per second would take more cycles than a 64-bit count holds.
    if (p.dma.hbm_gbps > 0 && p.dma.hbm_gbps < kMinHbmGbps)
        return err("dma.hbm_gbps", "dma.hbm_gbps = " + format_number(p.dma.hbm_gbps, 6) +
                                       " is below 0.01 GB/s, the least bandwidth the DMA model times (as "
                                       "dma.engine_gbps); set 0 for no HBM limit, or at least 0.01");
    if (p.dma.hbm_shared_gbps > 0 && p.dma.hbm_shared_gbps < kMinHbmGbps)
        return err("dma.hbm_shared_gbps", "dma.hbm_shared_gbps = " + format_number(p.dma.hbm_shared_gbps, 6) +
                                              " is below 0.01 GB/s, the least bandwidth the DMA model times; set 0 "
                                              "for no shared limit, or at least 0.01");
    if (const std::uint32_t c = declared_clients(p); c > kMaxKernelClients)
        return err("dma.engines", "dma.engines = " + n(p.dma.engines) + " and q7.cores = " + n(p.q7.cores) + " declare " +
                                      n(c) + " arbiter clients, more than the " + n(kMaxKernelClients) +
                                      " the bank-conflict kernel tracks (rule: one bit per client in a 64-bit mask, "
                                      "docs/kernel.md); lower dma.engines or q7.cores");
    return std::nullopt;
}

std::uint32_t declared_clients(const Params& p) {
    constexpr std::uint32_t kEnginePorts = 6;   // pool/act/dve rd and wr (seed 000 §7.1)
    constexpr std::uint32_t kPsumClients = 7;   // pe_wr, act/pool/dve PSUM rd and wr (seed 000 §7.4)
    return kStage1Clients + kEnginePorts + p.dma.engines + p.q7.cores + (p.has_psum() ? kPsumClients : 0);
}

std::string render_ini(const LoadedConfig& config, bool annotate) {
    std::ostringstream os;
    os << "# sbufsim effective configuration: generation " << config.params.generation
       << " (NeuronCore-" << config.params.neuroncore << ")\n"
       << "# Re-loadable: sbufsim config --config THIS_FILE. Comments: unit | source | confidence.\n";
    // Only the annotated form explains the mark: the plain form is what a result's config hash
    // covers, and it carries no comments.
    if (annotate)
        os << "# A trailing 'recorded, no effect': the value is kept but no model reads it (sbufsim config --help).\n";
    os << "base = " << config.params.generation << "\n";
    std::string section;
    const auto& table = key_table();
    for (std::size_t i = 0; i < table.size(); ++i) {
        const auto& k = table[i];
        const auto dot = k.name.find('.');
        const std::string sec = k.name.substr(0, dot);
        if (sec != section) {
            section = sec;
            os << "\n[" << section << "]\n";
        }
        std::string line = k.name.substr(dot + 1) + " = " + k.get(config.params);
        os << line;
        if (annotate) {
            // The generation file's citation when it has one, else the key table's.
            const std::string cite = i < config.citations.size() && !config.citations[i].empty()
                                         ? config.citations[i]
                                         : k.source + " | " + std::string(to_string(k.confidence));
            os << std::string(line.size() < 34 ? 34 - line.size() : 1, ' ') << "# "
               << (k.unit.empty() ? "-" : k.unit) << " | " << cite;
            // Say where a value came from only when it is not the generation's own.
            const Origin o = i < config.origins.size() ? config.origins[i] : Origin{"", -1};
            if (o.line >= 0 && o.file != config.generation_file) os << " | from " << o.describe();
            if (!k.no_effect.empty()) os << " | recorded, no effect";
        }
        os << "\n";
    }
    return os.str();
}

std::vector<std::string> settings_without_effect(const LoadedConfig& cfg) {
    const std::vector<KeySpec>& keys = key_table();
    // Where a user (a --config file or the command line) set the key; null when only the
    // generation file or the default did.
    const auto set_by_user = [&](const std::string& name) -> const Origin* {
        for (std::size_t i = 0; i < keys.size() && i < cfg.origins.size(); ++i)
            if (keys[i].name == name) {
                const Origin& o = cfg.origins[i];
                return o.line >= 0 && o.file != cfg.generation_file ? &o : nullptr;
            }
        return nullptr;
    };
    const ThrottlerParams& t = cfg.params.throttler;
    const std::pair<const char*, const ThrottleCfg*> throttlers[] = {
        {"pool_rd", &t.pool_rd}, {"pool_wr", &t.pool_wr}, {"act_rd", &t.act_rd},
        {"act_wr", &t.act_wr},   {"dve_rd", &t.dve_rd},   {"dve_wr", &t.dve_wr}};
    std::vector<std::string> notes;
    for (const auto& [client, th] : throttlers) {
        const std::string base = std::string("throttler.") + client + ".";
        if (!th->enable) {
            for (const char* field : {"transfer_cnt", "window_len"})
                if (const Origin* o = set_by_user(base + field))
                    notes.push_back(base + field + " (set at " + o->describe() + ") has no effect while " +
                                    base + "enable = false; set " + base + "enable=true to throttle " +
                                    client);
        } else if (th->transfer_cnt >= th->window_len) {
            notes.push_back(base + "transfer_cnt = " + std::to_string(th->transfer_cnt) + " >= " + base +
                            "window_len = " + std::to_string(th->window_len) + ": the limit never binds (" +
                            client + " moves at most one beat a cycle, " + std::to_string(th->window_len) +
                            " per window)");
        }
    }
    return notes;
}

}  // namespace sbufsim
