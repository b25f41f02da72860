// The CLI test harness shared by tests/test_cli_*.cpp: run `sbufsim` in process through the
// command table (cli::run with captured streams) or as the built binary (SBUFSIM_BINARY) in a
// process of its own, plus the shipped-trace and file helpers (temp paths: temp_files.h) the tests use.
#pragma once

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "shipped.h"
#include "temp_files.h"

namespace sbufsim::test {

// Exit code and captured streams of one `sbufsim` call.
struct CliOut {
    int rc = -1;
    std::string out, err;
};

// `sbufsim args...` in this process, through the command table.
inline CliOut sbufsim(std::vector<std::string> args) {
    std::ostringstream out, err;
    const int rc = cli::run(args, cli::Io{out, err});
    return {rc, out.str(), err.str()};
}

// A test data file (tests/data/); shipped traces and configurations are in shipped.h.
inline std::string data_file(const std::string& name) { return std::string(SBUFSIM_TEST_DATA_DIR) + "/" + name; }

// A whole file's bytes ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// `s` as one single-quoted shell word.
inline std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// Runs a shell command line; its exit code, -1 when it did not exit normally.
inline int shell(const std::string& cmd) {
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The built binary with `args` (each one shell word), stdout and stderr captured apart through
// temp files named after `tag`.
inline CliOut sbufsim_process(const std::vector<std::string>& args, const std::string& tag = "cli_") {
    std::string cmd = shell_quote(SBUFSIM_BINARY);
    for (const auto& a : args) cmd += " " + shell_quote(a);
    const std::string out = temp(tag + "stdout.txt"), err = temp(tag + "stderr.txt");
    const int rc = shell(cmd + " >" + shell_quote(out) + " 2>" + shell_quote(err));
    return {rc, slurp(out), slurp(err)};
}

// The built binary with a shell-syntax argument string, stdout and stderr together in `out`.
inline CliOut sbufsim_process_merged(const std::string& args, const std::string& tag = "cli_") {
    const std::string out = temp(tag + "output.txt");
    const int rc = shell(std::string(SBUFSIM_BINARY) + " " + args + " >" + shell_quote(out) + " 2>&1");
    return {rc, slurp(out), {}};
}

}  // namespace sbufsim::test
