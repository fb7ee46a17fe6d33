// The progress line as a user sees it (src/common/progress.h): the real executables, run with stderr on a
// pseudo-terminal, draw "phase: best value [elapsed s]", redrawn in place after a carriage return and
// erased when the run ends; with -q/--quiet or --json, or with stderr not a terminal, they draw nothing.
#include <fcntl.h>
#include <fmt/core.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_test.h"
#include "support/programs.h"

namespace {

// One drawing of the progress line.
struct ProgressLine {
  std::string phase;
  std::string status;
  double elapsed = 0;
};

// Every progress line in what a terminal received: "\r\033[K" (back to the start of the line, erase it),
// then "phase: status [elapsed s]".
std::vector<ProgressLine> ProgressLines(const std::string& tty) {
  static const std::regex kLine("\r\x1b\\[K([^\r\n\x1b:]+): ([^\r\n\x1b]*) \\[([0-9]+\\.[0-9]) s\\]");
  std::vector<ProgressLine> lines;
  for (auto it = std::sregex_iterator(tty.begin(), tty.end(), kLine); it != std::sregex_iterator(); ++it) {
    lines.push_back({(*it)[1].str(), (*it)[2].str(), std::stod((*it)[3].str())});
  }
  return lines;
}

// The number after `word ` in a status ("height 1234 (LB ...)"), or -1.
long long NumberAfter(const std::string& status, const std::string& word) {
  const size_t at = status.find(word + " ");
  return at == std::string::npos ? -1 : std::stoll(status.substr(at + word.size() + 1));
}

class ProgressTtyTest : public testing_support::CliTest {
 protected:
  // Runs argv with stderr on a new pseudo-terminal, stdout to the test's "stdout" file and stdin from
  // /dev/null; returns the exit status and keeps in tty_ everything the terminal received.
  int RunOnTerminal(const std::vector<std::string>& argv) {
    int master = -1, slave = -1;
    if (::openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) {
      ADD_FAILURE() << "openpty: " << std::strerror(errno);
      return -1;
    }
    const std::string out = Path("stdout");
    const pid_t pid = fork();
    if (pid == 0) {
      ::close(master);
      const int in_fd = ::open("/dev/null", O_RDONLY);
      const int out_fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(in_fd, STDIN_FILENO);
      ::dup2(out_fd, STDOUT_FILENO);
      ::dup2(slave, STDERR_FILENO);
      std::vector<char*> args;
      for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    ::close(slave);
    // Reads until the child's side is closed (read fails with EIO on Linux), so that the terminal never
    // fills up and blocks the child; a run that outlives the deadline is killed.
    tty_.clear();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    char buffer[4096];
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{master, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      const ssize_t n = ::read(master, buffer, sizeof buffer);
      if (n > 0) {
        tty_.append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        break;
      }
    }
    ::close(master);
    if (std::chrono::steady_clock::now() >= deadline) ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    out_ = Slurp(out);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  // A 5000-buffer training pattern: the annealing planner is far from done within its one-second limit.
  std::string Trace() {
    EXPECT_EQ(Memplan("gen --family training -n 5000 --seed 4 -o " + Path("trace.csv")), 0) << err_;
    return Path("trace.csv");
  }

  // Checks that the terminal got at least two drawings of the line (one run lasts a second; the line is
  // redrawn five times a second), all of phases that start with `phase`, with non-decreasing elapsed
  // times, and that the line was erased at the end (the last bytes of the progress output).
  std::vector<ProgressLine> ExpectProgress(const std::string& phase) {
    const std::vector<ProgressLine> lines = ProgressLines(tty_);
    EXPECT_GE(lines.size(), 2u) << "terminal got:\n" << tty_;
    for (size_t i = 0; i < lines.size(); ++i) {
      EXPECT_EQ(lines[i].phase.rfind(phase, 0), 0u) << lines[i].phase;
      if (i > 0) {
        EXPECT_GE(lines[i].elapsed, lines[i - 1].elapsed);
      }
    }
    const size_t last_erase = tty_.rfind("\r\x1b[K");
    EXPECT_NE(last_erase, std::string::npos);
    EXPECT_EQ(ProgressLines(tty_.substr(last_erase)).size(), 0u) << "the line is not erased at the end:\n" << tty_;
    return lines;
  }

  // A program whose verification lasts its whole time-out (support/programs.h).
  std::string Cubes() { return Write("cubes.c", testing_support::kCubesProgram); }

  std::string tty_;
};

TEST_F(ProgressTtyTest, AllocShowsItsBestHeightOnATerminal) {
  const std::string trace = Trace();
  ASSERT_EQ(RunOnTerminal({MEMPLAN_BIN, "alloc", trace, "-o", Path("plan.csv"), "--method", "sa", "--moves", "1000000000000",
                           "--time-limit", "1"}),
            0)
      << tty_;
  const std::vector<ProgressLine> lines = ExpectProgress("memplan alloc (sa)");
  long long previous = -1;
  for (const ProgressLine& line : lines) {
    const long long height = NumberAfter(line.status, "height");
    EXPECT_GT(height, 0) << line.status;
    EXPECT_NE(line.status.find("LB "), std::string::npos) << line.status;
    // The best height found so far never grows.
    if (previous >= 0) {
      EXPECT_LE(height, previous) << line.status;
    }
    previous = height;
  }
  // The summary (on stdout, not the terminal) reports a height no higher than the last one shown.
  std::istringstream summary(out_.substr(out_.find("\nsa ") + 1));
  std::string method;
  long long height = -1;
  summary >> method >> height;
  EXPECT_GT(height, 0) << out_;
  EXPECT_LE(height, previous) << out_;
}

TEST_F(ProgressTtyTest, RematAndPlanShowTheirBestPeakOnATerminal) {
  const std::string graph = std::string(EXAMPLES_DIR) + "/remat/mlp_train.json";
  for (const std::string command : {"remat", "plan"}) {
    SCOPED_TRACE(command);
    // A move budget far beyond one second's worth, so that the time limit, not the moves, ends the run.
    ASSERT_EQ(RunOnTerminal({MEMPLAN_BIN, command, graph, "--budget", "80%", "--time-limit", "1", "--moves",
                             "1000000000", "-o", Path("schedule.json")}),
              0)
        << tty_;
    for (const ProgressLine& line : ExpectProgress("")) {
      if (line.phase.rfind("remat", 0) != 0) continue;  // plan also shows the arena's annealing
      EXPECT_GT(NumberAfter(line.status, "peak"), 0) << line.status;
      EXPECT_NE(line.status.find("budget"), std::string::npos) << line.status;
    }
    EXPECT_NE(tty_.find("\x1b[Kremat "), std::string::npos) << tty_;  // the phase names FastSA's stage
  }
}

TEST_F(ProgressTtyTest, VerifyShowsThatItIsStillWorkingOnATerminal) {
  const std::string program = Cubes();
  EXPECT_EQ(RunOnTerminal({LOOPFUSE_BIN, "verify", program, "--timeout", "1"}), 4) << tty_;
  for (const ProgressLine& line : ExpectProgress("loopfuse verify")) {
    EXPECT_EQ(line.status, program + ": no verdict yet (time-out 1 s)");
  }
  EXPECT_NE(out_.find(program + ": unknown"), std::string::npos) << out_;
}

// -q/--quiet and --json silence the line on a terminal too; a planner whose stderr is a file never draws
// it. Nothing at all reaches the terminal then (the runs succeed without warnings).
TEST_F(ProgressTtyTest, QuietJsonAndNonTerminalsGetNoProgressLine) {
  const std::string trace = Trace();
  const std::string graph = std::string(EXAMPLES_DIR) + "/remat/mlp_train.json";
  const std::string program = Cubes();
  const std::vector<std::vector<std::string>> runs = {
      {MEMPLAN_BIN, "alloc", trace, "-o", Path("plan.csv"), "--moves", "1000000000000", "--time-limit", "1"},
      {MEMPLAN_BIN, "remat", graph, "--budget", "80%", "--time-limit", "1"},
      {MEMPLAN_BIN, "plan", graph, "--budget", "80%", "--time-limit", "1"},
      {LOOPFUSE_BIN, "verify", program, "--timeout", "1"},
  };
  for (const auto& run : runs) {
    for (const std::string flag : {"-q", "--quiet", "--json"}) {
      std::vector<std::string> argv = run;
      argv.push_back(flag);
      SCOPED_TRACE(fmt::format("{} {}", argv[1], flag));
      RunOnTerminal(argv);
      EXPECT_EQ(tty_, "");
    }
    std::string shell;
    for (const std::string& a : run) shell += "'" + a + "' ";
    SCOPED_TRACE(shell + "with stderr a file");
    Run(shell, "");
    EXPECT_EQ(ProgressLines(err_).size(), 0u) << err_;
    EXPECT_EQ(err_.find('\r'), std::string::npos) << err_;
  }
}

}  // namespace
