// Where the shipped data is found (include/sbufsim/config/data_dirs.h): the explicit directory,
// then the environment, then the data roots next to the running code; an explicit choice never
// falls back; a miss names every place looked at.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "sbufsim/config/config.h"
#include "sbufsim/config/data_dirs.h"
#include "temp_files.h"

namespace sbufsim {
namespace {

namespace fs = std::filesystem;

// A scratch folder per test process, removed at the end; restores the data roots and the
// environment the test changed.
class DataDirs : public ::testing::Test {
protected:
    void SetUp() override {
        roots_ = data_roots();
        dir_ = fs::path(sbufsim::test::temp("data_dirs"));
        fs::create_directories(dir_);
        ::unsetenv("SBUFSIM_CONFIG_DIR");
        ::unsetenv("SBUFSIM_TRACE_DIR");
    }
    void TearDown() override {
        set_data_roots(roots_);
        ::unsetenv("SBUFSIM_CONFIG_DIR");
        ::unsetenv("SBUFSIM_TRACE_DIR");
        fs::remove_all(dir_);
    }
    // A data root under the scratch folder, optionally holding configs/<file>.
    std::string root(const std::string& name, const std::string& config_file = {}) {
        const fs::path r = dir_ / name;
        fs::create_directories(r / "configs");
        if (!config_file.empty()) std::ofstream(r / "configs" / config_file) << "# test\n";
        return r.string();
    }
    std::string error_of(DataKind kind, const std::string& file, const std::string& requested = {}) {
        try {
            find_data_file(kind, file, requested);
        } catch (const ConfigError& e) {
            return e.what();
        }
        ADD_FAILURE() << "no error for " << file;
        return {};
    }

    std::vector<DataPlace> roots_;
    fs::path dir_;
};

TEST_F(DataDirs, The_build_tree_finds_its_data_next_to_the_executable) {
    // build/tests/test_data_dirs -> build/share/sbufsim (CMake links it to the source folders).
    const std::string cayman = find_data_file(DataKind::configs, "cayman.ini");
    EXPECT_TRUE(fs::is_regular_file(cayman)) << cayman;
    EXPECT_NE(cayman.find("share/sbufsim/configs/cayman.ini"), std::string::npos) << cayman;
    EXPECT_TRUE(fs::is_regular_file(find_data_file(DataKind::traces, "matmul_kloop.trc")));
}

TEST_F(DataDirs, The_first_root_holding_the_file_wins) {
    set_data_roots({{root("a"), "first"}, {root("b", "x.ini"), "second"}, {root("c", "x.ini"), "third"}});
    EXPECT_EQ(find_data_file(DataKind::configs, "x.ini"), (dir_ / "b" / "configs" / "x.ini").string());
}

TEST_F(DataDirs, A_miss_names_every_root_and_how_to_point_elsewhere) {
    set_data_roots({{root("a"), "an install"}, {(dir_ / "missing").string(), "a build tree"}});
    const std::string e = error_of(DataKind::configs, "cayman.ini");
    EXPECT_NE(e.find("cannot find the generation file cayman.ini"), std::string::npos) << e;
    EXPECT_NE(e.find((dir_ / "a" / "configs").string() + " (an install)"), std::string::npos) << e;
    EXPECT_NE(e.find((dir_ / "missing" / "configs").string() + " (a build tree; no such directory)"), std::string::npos) << e;
    EXPECT_NE(e.find("set SBUFSIM_CONFIG_DIR or --config-dir"), std::string::npos) << e;
}

TEST_F(DataDirs, The_environment_beats_the_roots_and_never_falls_back) {
    const std::string shipped = root("shipped", "cayman.ini");
    set_data_roots({{shipped, "an install"}});
    const std::string mine = root("mine", "cayman.ini");
    ::setenv("SBUFSIM_CONFIG_DIR", (fs::path(mine) / "configs").c_str(), 1);
    EXPECT_EQ(find_data_file(DataKind::configs, "cayman.ini"), (fs::path(mine) / "configs" / "cayman.ini").string());

    ::setenv("SBUFSIM_CONFIG_DIR", "/nonexistent", 1);
    const std::string e = error_of(DataKind::configs, "cayman.ini");
    EXPECT_NE(e.find("looked in /nonexistent (from $SBUFSIM_CONFIG_DIR; no such directory)"), std::string::npos) << e;
    EXPECT_NE(e.find("the shipped one is in " + (fs::path(shipped) / "configs").string() +
                     " (unset SBUFSIM_CONFIG_DIR to use it)"),
              std::string::npos)
        << e;
}

TEST_F(DataDirs, An_explicit_directory_beats_the_environment) {
    const std::string flag = root("flag", "cayman.ini");
    ::setenv("SBUFSIM_CONFIG_DIR", "/nonexistent", 1);
    const std::string dir = (fs::path(flag) / "configs").string();
    EXPECT_EQ(find_data_file(DataKind::configs, "cayman.ini", dir), dir + "/cayman.ini");
    const std::string e = error_of(DataKind::configs, "sunda.ini", dir);
    EXPECT_NE(e.find("looked in " + dir + " (from --config-dir)"), std::string::npos) << e;
}

TEST_F(DataDirs, Traces_have_their_own_variable) {
    set_data_roots({});
    ::setenv("SBUFSIM_CONFIG_DIR", "/nonexistent", 1);  // not consulted for traces
    const std::string e = error_of(DataKind::traces, "matmul_kloop.trc");
    EXPECT_NE(e.find("cannot find the shipped trace matmul_kloop.trc: looked in no place"), std::string::npos) << e;
    EXPECT_NE(e.find("set SBUFSIM_TRACE_DIR to the folder"), std::string::npos) << e;
    ::setenv("SBUFSIM_TRACE_DIR", "/nonexistent/traces", 1);
    EXPECT_NE(error_of(DataKind::traces, "x.trc").find("/nonexistent/traces (from $SBUFSIM_TRACE_DIR"), std::string::npos);
}

TEST_F(DataDirs, Loading_a_configuration_reports_the_lookup) {
    set_data_roots({{root("empty"), "an install"}});
    LoadRequest r;
    r.generation = "sunda";
    try {
        load_config(r);
        FAIL() << "loaded without a generation file";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("cannot find the generation file sunda.ini: looked in " +
                                             (dir_ / "empty" / "configs").string()),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace sbufsim
