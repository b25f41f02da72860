// Temporary files for the tests: every test process gets a directory of its own, made fresh
// with mkdtemp, so test cases that ctest runs in parallel processes never share a path, and a
// file left behind by an earlier run (a recycled process id) is never mistaken for this run's.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>

namespace sbufsim::test {

// This process's temporary directory, with a trailing '/'.
inline const std::string& temp_dir() {
    static const std::string dir = [] {
        std::string pattern = ::testing::TempDir() + "sbufsim_" + std::to_string(::getpid()) + "_XXXXXX";
        if (::mkdtemp(pattern.data()) == nullptr)
            throw std::runtime_error("mkdtemp " + pattern + ": " + std::strerror(errno));
        return pattern + "/";
    }();
    return dir;
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
