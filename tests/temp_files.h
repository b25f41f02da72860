// Temporary files for the tests: every test process gets a directory of its own, made fresh
// with mkdtemp, so test cases that ctest runs in parallel processes never share a path, and a
// file left behind by an earlier run (a recycled process id) is never mistaken for this run's.
// The directory and all in it are removed when the process exits: ctest runs each test case
// as a process of its own, so a suite run would otherwise leave a directory per case behind
// (some hold a copy of the sbufsim binary). SBUFSIM_KEEP_TEST_FILES=1 keeps them to look at.
// Only the process that made it removes it: a child forked by a test that exits normally
// leaves its parent's directory alone.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace sbufsim::test {

// A directory made with mkdtemp and removed, with its contents, when the process exits.
class ProcessTempDir {
public:
    ProcessTempDir() : path_(::testing::TempDir() + "sbufsim_" + std::to_string(::getpid()) + "_XXXXXX") {
        if (::mkdtemp(path_.data()) == nullptr)
            throw std::runtime_error("mkdtemp " + path_ + ": " + std::strerror(errno));
        owner_ = ::getpid();
        path_ += '/';
    }
    ~ProcessTempDir() {
        const char* keep = std::getenv("SBUFSIM_KEEP_TEST_FILES");
        if (::getpid() != owner_ || (keep != nullptr && *keep != '\0' && std::string(keep) != "0")) return;
        std::error_code ec;  // best effort: a test's failure says more than a cleanup's
        std::filesystem::remove_all(path_, ec);
    }
    ProcessTempDir(const ProcessTempDir&) = delete;
    ProcessTempDir& operator=(const ProcessTempDir&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
    pid_t owner_ = 0;
};

// This process's temporary directory, with a trailing '/'.
inline const std::string& temp_dir() {
    static const ProcessTempDir dir;
    return dir.path();
}

// A path in this process's temporary directory.
inline std::string temp(const std::string& name) { return temp_dir() + name; }

// Writes `text` to the temp file `name`; returns its path.
inline std::string write_temp(const std::string& name, const std::string& text) {
    const std::string path = temp(name);
    std::ofstream(path) << text;
    return path;
}

}  // namespace sbufsim::test
