// The output layer (sbufsim/output/output_file.h): temporaries unique per writer, the target
// replaced only by commit(), never removed on failure, permissions of a replaced file kept.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sbufsim/output/output_file.h"
#include "temp_files.h"

namespace {

namespace fs = std::filesystem;
using sbufsim::OutputError;
using sbufsim::OutputFile;
using sbufsim::OutputPolicy;

std::string fresh_dir(const std::string& name) {
    const std::string d = sbufsim::test::temp("output_file_" + name);
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::size_t count_entries(const std::string& dir) {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}));
}

TEST(OutputFile, Two_writers_of_one_path_have_their_own_temporaries) {
    const std::string d = fresh_dir("two");
    const std::string path = d + "/out.csv";
    OutputFile a(path, OutputPolicy{}), b(path, OutputPolicy{});
    EXPECT_NE(a.write_path(), b.write_path());
    a.stream() << "from a\n";
    b.stream() << "from b\n";
    a.commit();
    EXPECT_EQ(slurp(path), "from a\n");
    b.commit();
    EXPECT_EQ(slurp(path), "from b\n");
    EXPECT_EQ(count_entries(d), 1u);
}

TEST(OutputFile, Uncommitted_output_leaves_the_target_as_it_was) {
    const std::string d = fresh_dir("uncommitted");
    const std::string path = d + "/out.txt";
    std::ofstream(path) << "old\n";
    {
        OutputPolicy p;
        p.own_kind = [](std::string_view head) { return head == "old\n"; };
        OutputFile f(path, p);
        f.stream() << "new, but the command failed\n";
    }
    EXPECT_EQ(slurp(path), "old\n");
    EXPECT_EQ(count_entries(d), 1u);
}

TEST(OutputFile, Foreign_file_is_refused_unless_forced_and_keeps_its_mode) {
    const std::string d = fresh_dir("foreign");
    const std::string path = d + "/data.bin";
    std::ofstream(path) << "someone's data";
    ::chmod(path.c_str(), 0640);
    EXPECT_THROW(OutputFile(path, OutputPolicy{}), OutputError);
    OutputPolicy p;
    p.force = true;
    OutputFile f(path, p);
    f.stream() << "replaced";
    f.commit();
    EXPECT_EQ(slurp(path), "replaced");
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST(OutputFile, An_input_is_never_an_output_even_forced) {
    const std::string d = fresh_dir("input");
    const std::string path = d + "/in.trc";
    std::ofstream(path) << "input";
    OutputPolicy p;
    p.force = true;
    p.inputs = {path};
    try {
        OutputFile f(d + "/../" + fs::path(d).filename().string() + "/in.trc", p);
        FAIL() << "an input was accepted as output";
    } catch (const OutputError& e) {
        EXPECT_EQ(e.kind(), OutputError::Kind::refused);
    }
    EXPECT_EQ(slurp(path), "input");
}

TEST(OutputFile, Full_device_fails_at_commit_with_the_os_reason) {
    struct stat st {};
    if (::stat("/dev/full", &st) != 0 || ::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no writable /dev/full";
    OutputFile f("/dev/full", OutputPolicy{});
    f.stream() << std::string(100000, 'x');
    try {
        f.commit();
        FAIL() << "a write to /dev/full succeeded";
    } catch (const OutputError& e) {
        EXPECT_EQ(e.kind(), OutputError::Kind::io);
        EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
    }
    ASSERT_EQ(::stat("/dev/full", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
}

}  // namespace
