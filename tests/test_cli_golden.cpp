// Golden statistics: every case of tests/golden/cases.txt (each shipped trace, generated
// workloads on each generation with a PSUM) is run through the command line and its JSON
// statistics are compared field by field with tests/golden/<case>.json. Any change of behaviour
// shows up here as a list of changed fields; after reviewing it, scripts/update_golden.sh
// rewrites the files (SBUFSIM_GOLDEN_UPDATE=1) and the diff is committed with its reason.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cli_harness.h"

namespace sbufsim::test {
namespace {

const std::string kSourceDir = SBUFSIM_SOURCE_DIR;
const std::string kGoldenDir = kSourceDir + "/tests/golden";

struct GoldenCase {
    std::string name;
    std::vector<std::vector<std::string>> commands;  // argument lists, run in order
};

// gtest names a failing case by this instead of its bytes.
void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.name; }

std::vector<std::string> words(const std::string& s) {
    std::istringstream in(s);
    std::vector<std::string> w;
    for (std::string t; in >> t;) w.push_back(t);
    return w;
}

std::vector<GoldenCase> read_cases() {
    std::ifstream in(kGoldenDir + "/cases.txt");
    std::vector<GoldenCase> cases;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        GoldenCase c;
        std::vector<std::string> w = words(line);
        if (w.empty()) continue;
        c.name = w[0];
        std::vector<std::string> cmd;
        for (std::size_t i = 1; i < w.size(); ++i) {
            if (w[i] == ";") {
                c.commands.push_back(cmd);
                cmd.clear();
            } else {
                cmd.push_back(w[i]);
            }
        }
        if (!cmd.empty()) c.commands.push_back(cmd);
        cases.push_back(c);
    }
    return cases;
}

// ---- a flat view of a JSON document: path -> literal ---------------------------------------------

class Flattener {
public:
    explicit Flattener(const std::string& text) : s_(text) {}

    // Every scalar of the document under its path (`runs[0].engine.dma_0.busy_cycles`); throws on
    // malformed input.
    std::map<std::string, std::string> run() {
        value("");
        skip_space();
        if (i_ != s_.size()) fail("trailing text");
        return out_;
    }

private:
    [[noreturn]] void fail(const std::string& why) const {
        throw std::runtime_error("JSON: " + why + " at offset " + std::to_string(i_));
    }
    void skip_space() {
        while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    char peek() {
        skip_space();
        if (i_ >= s_.size()) fail("unexpected end");
        return s_[i_];
    }
    void expect(char c) {
        if (peek() != c) fail(std::string("expected '") + c + "'");
        ++i_;
    }
    std::string string_literal() {
        expect('"');
        const std::size_t start = i_;
        while (i_ < s_.size() && s_[i_] != '"') i_ += s_[i_] == '\\' ? 2 : 1;
        if (i_ >= s_.size()) fail("unterminated string");
        return s_.substr(start, i_++ - start);
    }
    void value(const std::string& path) {
        const char c = peek();
        if (c == '{') {
            ++i_;
            if (peek() == '}') { ++i_; return; }
            for (;;) {
                const std::string key = string_literal();
                expect(':');
                value(path.empty() ? key : path + "." + key);
                if (peek() == ',') { ++i_; continue; }
                expect('}');
                return;
            }
        }
        if (c == '[') {
            ++i_;
            if (peek() == ']') { ++i_; return; }
            for (std::size_t k = 0;; ++k) {
                value(path + "[" + std::to_string(k) + "]");
                if (peek() == ',') { ++i_; continue; }
                expect(']');
                return;
            }
        }
        if (c == '"') {
            out_[path] = '"' + string_literal() + '"';
            return;
        }
        const std::size_t start = i_;
        while (i_ < s_.size() && std::string_view(",]} \t\r\n").find(s_[i_]) == std::string_view::npos) ++i_;
        if (start == i_) fail("expected a value");
        out_[path] = s_.substr(start, i_ - start);
    }

    const std::string& s_;
    std::size_t i_ = 0;
    std::map<std::string, std::string> out_;
};

// Fields that name the build or the configuration's text rather than the result: the
// configuration hash covers every key, so a new key (or a reworded default that changes no
// statistic) would otherwise rewrite every golden file. What a key changes shows in the statistics.
bool ignored(const std::string& path) {
    return path == "version" || path.ends_with(".version") || path.ends_with(".config_hash");
}

// The document without its configuration hash lines (`"config_hash": "...",`, never the last
// field of its object), as the golden files keep it.
std::string without_config_hash(const std::string& json) {
    std::istringstream in(json);
    std::string out;
    for (std::string line; std::getline(in, line);) {
        if (line.find("\"config_hash\": ") != std::string::npos && line.ends_with(",")) continue;
        out += line + "\n";
    }
    return out;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
        s.replace(p, from.size(), to);
    return s;
}

// The case's JSON statistics, temp paths written back as `{tmp}`.
std::string run_case(const GoldenCase& c) {
    const std::string tmp = temp("golden_" + c.name);
    std::string json;
    for (std::vector<std::string> cmd : c.commands) {
        for (auto& a : cmd) a = replace_all(a, "{tmp}", tmp);
        const bool is_run = cmd.front() == "run";
        if (is_run) cmd.insert(cmd.end(), {"--json", "-", "-q"});
        const CliOut o = sbufsim(cmd);
        if (o.rc != 0) throw std::runtime_error("sbufsim exited " + std::to_string(o.rc) + ": " + o.err);
        if (is_run) json = o.out;
    }
    return replace_all(json, tmp, "{tmp}");
}

class Golden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(Golden, Statistics_match_the_reviewed_file) {
    ASSERT_EQ(::chdir(kSourceDir.c_str()), 0);
    const GoldenCase& c = GetParam();
    const std::string path = kGoldenDir + "/" + c.name + ".json";
    const std::string actual = run_case(c);
    if (std::getenv("SBUFSIM_GOLDEN_UPDATE")) {
        std::ofstream(path) << without_config_hash(actual);
        SUCCEED() << "rewrote " << path;
        return;
    }
    const std::string expected = slurp(path);
    ASSERT_FALSE(expected.empty()) << path << " is missing: run scripts/update_golden.sh";
    const auto want = Flattener(expected).run();
    const auto got = Flattener(actual).run();
    std::ostringstream diff;
    int differences = 0;
    for (const auto& [k, v] : want) {
        if (ignored(k)) continue;
        const auto it = got.find(k);
        if (it == got.end()) {
            diff << "  removed " << k << " (was " << v << ")\n";
            ++differences;
        } else if (it->second != v) {
            diff << "  changed " << k << ": " << v << " -> " << it->second << "\n";
            ++differences;
        }
    }
    for (const auto& [k, v] : got)
        if (!ignored(k) && !want.count(k)) {
            diff << "  added " << k << " = " << v << "\n";
            ++differences;
        }
    EXPECT_EQ(differences, 0) << c.name << ": " << differences << " field(s) differ from " << path
                              << " (review, then scripts/update_golden.sh):\n"
                              << diff.str();
}

INSTANTIATE_TEST_SUITE_P(Cases, Golden, ::testing::ValuesIn(read_cases()),
                         [](const ::testing::TestParamInfo<GoldenCase>& i) { return i.param.name; });

// A golden file keeps the statistics, not the configuration's hash: written without it, still a
// document, and a changed hash alone is no difference.
TEST(GoldenFlattener, Golden_files_leave_the_configuration_hash_out) {
    const std::string doc = "{\n  \"run\": {\n    \"config_hash\": \"044c93910352ceff\",\n    \"total_cycles\": 7\n  }\n}\n";
    const auto kept = Flattener(without_config_hash(doc)).run();
    EXPECT_EQ(kept.count("run.config_hash"), 0u);
    EXPECT_EQ(kept.at("run.total_cycles"), "7");
    EXPECT_TRUE(ignored("runs[0].run.config_hash"));
    EXPECT_FALSE(ignored("runs[0].run.trace_digest"));
    for (const auto& f : std::filesystem::directory_iterator(kGoldenDir)) {
        if (f.path().extension() != ".json") continue;
        EXPECT_EQ(slurp(f.path().string()).find("config_hash"), std::string::npos) << f.path();
    }
}

TEST(GoldenFlattener, Paths_name_every_scalar_and_reject_malformed_text) {
    const auto f = Flattener(R"({"a": {"b": [1, {"c": "x"}]}, "d": 2.5})").run();
    EXPECT_EQ(f.at("a.b[0]"), "1");
    EXPECT_EQ(f.at("a.b[1].c"), "\"x\"");
    EXPECT_EQ(f.at("d"), "2.5");
    EXPECT_EQ(f.size(), 3u);
    EXPECT_THROW(Flattener(R"({"a": )").run(), std::runtime_error);
    EXPECT_THROW(Flattener(R"({"a": 1} x)").run(), std::runtime_error);
}

TEST(GoldenCases, Every_golden_file_has_a_case) {
    std::map<std::string, bool> named;
    for (const auto& c : read_cases()) named[c.name] = true;
    ASSERT_FALSE(named.empty());
    for (const auto& e : std::filesystem::directory_iterator(kGoldenDir)) {
        if (e.path().extension() != ".json") continue;
        EXPECT_TRUE(named.count(e.path().stem().string())) << e.path() << " has no line in cases.txt";
    }
}

}  // namespace
}  // namespace sbufsim::test
