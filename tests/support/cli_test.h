// A GoogleTest fixture for end-to-end tests that run the real executables on files in a fresh directory.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace testing_support {

// A fresh temporary directory per test (removed at the end) and a way to run a command in it.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("memplan_cli_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A path inside the test's directory.
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // Writes `text` to the file `name` in the test's directory and returns its path.
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(Path(name)) << text;
    return Path(name);
  }

  // Runs `binary` with `args` (a shell fragment); returns the exit status and keeps stdout and stderr.
  int Run(const std::string& binary, const std::string& args) {
    const std::string command = binary + " " + args + " >" + Path("stdout") + " 2>" + Path("stderr");
    const int status = std::system(command.c_str());
    out_ = Slurp(Path("stdout"));
    err_ = Slurp(Path("stderr"));
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

#ifdef MEMPLAN_BIN
  // Runs the memplan executable.
  int Memplan(const std::string& args) { return Run(MEMPLAN_BIN, args); }
#endif

  // The whole content of a file ("" when it cannot be read).
  static std::string Slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  // Files in the test's directory other than the captured stdout and stderr.
  int OutputFiles() const {
    int n = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
      const std::string name = entry.path().filename().string();
      n += name != "stdout" && name != "stderr";
    }
    return n;
  }

  std::filesystem::path dir_;
  std::string out_;
  std::string err_;
};

}  // namespace testing_support
