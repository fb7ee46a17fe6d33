// Interrupting long runs of the real executables (README "Exit codes"): SIGINT or SIGTERM mid-way must end
// the run with status 130 and leave either a complete, valid output or none, and never a temporary file.
// One signal asks the planner to stop and write its best plan so far, so the output must then exist; a
// second signal ends the process at once, so then "none" is also acceptable.
#include <fcntl.h>
#include <fmt/core.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "common/atomic_file.h"
#include "remat/reader.h"
#include "remat/schedule_io.h"
#include "remat/validator.h"
#include "support/cli_test.h"
#include "support/programs.h"

namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

class InterruptTest : public testing_support::CliTest {
 protected:
  // Starts `argv` in the background with stdout and stderr going to files of the test's directory.
  pid_t Start(const std::vector<std::string>& argv) {
    const std::string out = Path("stdout"), err = Path("stderr");
    const pid_t pid = fork();
    if (pid == 0) {
      const int out_fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int err_fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(out_fd, STDOUT_FILENO);
      ::dup2(err_fd, STDERR_FILENO);
      std::vector<char*> args;
      for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    return pid;
  }

  // Waits at most `limit` for `pid`; returns its exit status, -(signal) if a signal killed it, or kills it and
  // returns -1000 on a hang.
  static int Wait(pid_t pid, milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
      }
      std::this_thread::sleep_for(milliseconds(20));
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return -1000;
  }

  // Runs `argv`, sends `signals` (each after its delay) and returns the exit status.
  int RunAndSignal(const std::vector<std::string>& argv, const std::vector<std::pair<int, milliseconds>>& signals) {
    const pid_t pid = Start(argv);
    for (const auto& [signal_number, delay] : signals) {
      std::this_thread::sleep_for(delay);
      ::kill(pid, signal_number);
    }
    // A stopped planner writes its outputs within a second or two, even under a sanitizer.
    const int status = Wait(pid, milliseconds(60'000));
    out_ = Slurp(Path("stdout"));
    err_ = Slurp(Path("stderr"));
    return status;
  }

  // Temporary files that WriteFileAtomically left behind (there must be none).
  std::vector<std::string> Leftovers() const {
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      const std::string name = entry.path().filename().string();
      if (name.find(".tmp.") != std::string::npos) found.push_back(name);
    }
    return found;
  }

  // A 20000-buffer training pattern: the annealing planner needs far longer than the test waits.
  std::string Trace() {
    EXPECT_EQ(Memplan("gen --family training -n 20000 --seed 3 -o " + Path("trace.csv")), 0) << err_;
    return Path("trace.csv");
  }

  // An alloc run that only a signal (or a 10-minute time limit) ends.
  std::vector<std::string> AllocArgs(const std::string& trace) {
    return {MEMPLAN_BIN, "alloc", trace, "-o", Path("plan.csv"), "--svg", Path("plan.svg"),
            "--moves", "1000000000000", "--time-limit", "600", "-q"};
  }

  // A training-like graph: a chain of `n` forward nodes, then the backward nodes, each reading its forward
  // activation. Below the reference peak every schedule must recompute, so FastSA runs to its time limit.
  std::string ChainGraph(int n) {
    nlohmann::json values = nlohmann::json::array({{{"id", "x"}, {"size", 64}, {"kind", "input"}}});
    nlohmann::json nodes = nlohmann::json::array();
    for (int i = 0; i < n; ++i) {
      values.push_back({{"id", fmt::format("f{}", i)}, {"size", 100 + i % 7}});
      nodes.push_back({{"id", fmt::format("F{}", i)}, {"cost", 1 + i % 3},
                       {"inputs", {i == 0 ? std::string("x") : fmt::format("f{}", i - 1)}},
                       {"outputs", {fmt::format("f{}", i)}}});
    }
    for (int i = n - 1; i >= 0; --i) {
      values.push_back({{"id", fmt::format("b{}", i)}, {"size", 100 + i % 5}});
      std::vector<std::string> inputs = {fmt::format("f{}", i)};
      if (i < n - 1) inputs.push_back(fmt::format("b{}", i + 1));
      nodes.push_back({{"id", fmt::format("B{}", i)}, {"cost", 1 + i % 3}, {"inputs", inputs},
                       {"outputs", {fmt::format("b{}", i)}}});
    }
    values.back()["kind"] = "output";
    const nlohmann::json graph = {{"format", "remat-graph/v1"}, {"name", "chain"}, {"values", values}, {"nodes", nodes}};
    return Write("graph.json", graph.dump());
  }

  std::vector<std::string> RematArgs(const std::string& graph) {
    return {MEMPLAN_BIN, "remat", graph, "--budget", "40%", "--time-limit", "600", "-o", Path("schedule.json"),
            "--emit-buffers", Path("buffers.csv"), "--quiet"};
  }

  // Checks a schedule file against its graph with the independent validator, including its claimed figures.
  void ExpectValidSchedule(const std::string& graph_path) {
    const remat::Graph graph = remat::ReadGraph(graph_path);
    const std::string text = common::ReadFile(Path("schedule.json"));
    ASSERT_TRUE(nlohmann::json::accept(text)) << "schedule.json is not complete JSON";
    const remat::ScheduleFile schedule = remat::ParseSchedule(Path("schedule.json"), text, graph);
    const remat::ScheduleReport report = remat::ValidateSchedule(graph, schedule.sequence, schedule.claims);
    EXPECT_TRUE(report.ok()) << (report.errors.empty() ? "" : report.errors.front());
  }
  // The processes whose parent is this one, other than `except` (reaps those that have ended).
  static std::vector<pid_t> LiveChildren() {
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    std::vector<pid_t> found;
    for (const auto& entry : fs::directory_iterator("/proc")) {
      const std::string name = entry.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::ifstream stat(entry.path() / "stat");
      std::string line;
      std::getline(stat, line);
      // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
      const size_t close = line.rfind(')');
      if (close == std::string::npos) continue;
      char state = 0;
      long ppid = 0;
      if (std::sscanf(line.c_str() + close + 1, " %c %ld", &state, &ppid) == 2 && ppid == ::getpid() && state != 'Z') {
        found.push_back(static_cast<pid_t>(std::atol(name.c_str())));
      }
    }
    return found;
  }

  // A program whose verification lasts its whole time-out (support/programs.h).
  std::string Cubes() { return Write("cubes.c", testing_support::kCubesProgram); }

  // Stops `loopfuse verify` with `signal` while its solver processes run, and checks that none of them
  // outlives it: with this process as the subreaper, an orphaned solver process would become its child.
  void ExpectNoSolverProcessOutlives(int signal) {
    ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    ASSERT_TRUE(LiveChildren().empty());
    const pid_t pid = Start({LOOPFUSE_BIN, "verify", Cubes(), "--timeout", "600", "--quiet"});
    std::this_thread::sleep_for(milliseconds(1500));
    ::kill(pid, signal);
    const int status = Wait(pid, milliseconds(10'000));
    EXPECT_EQ(status, -signal);
    std::vector<pid_t> left = LiveChildren();
    for (int i = 0; i < 100 && !left.empty(); ++i) {
      std::this_thread::sleep_for(milliseconds(50));
      left = LiveChildren();
    }
    EXPECT_TRUE(left.empty()) << left.size() << " solver processes outlived loopfuse";
    for (pid_t p : left) ::kill(p, SIGKILL);
    ::prctl(PR_SET_CHILD_SUBREAPER, 0);
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
  }
};

TEST_F(InterruptTest, AllocWritesAValidPlanOnSigint) {
  const std::string trace = Trace();
  EXPECT_EQ(RunAndSignal(AllocArgs(trace), {{SIGINT, milliseconds(1500)}}), 130) << err_;
  ASSERT_TRUE(fs::exists(Path("plan.csv")));
  EXPECT_TRUE(fs::exists(Path("plan.svg")));
  EXPECT_EQ(Memplan(fmt::format("validate {} {}", trace, Path("plan.csv"))), 0) << out_ << err_;
  EXPECT_TRUE(Leftovers().empty());
}

TEST_F(InterruptTest, AllocWritesAValidPlanOnSigterm) {
  const std::string trace = Trace();
  EXPECT_EQ(RunAndSignal(AllocArgs(trace), {{SIGTERM, milliseconds(1500)}}), 130) << err_;
  ASSERT_TRUE(fs::exists(Path("plan.csv")));
  EXPECT_EQ(Memplan(fmt::format("validate {} {}", trace, Path("plan.csv"))), 0) << out_ << err_;
  EXPECT_TRUE(Leftovers().empty());
}

// A second Ctrl-C ends the process at once, possibly in the middle of writing: the plan is then either
// absent or complete, and the temporary file is removed. The delays sweep the moment of the second signal
// across the planner's stop and the writing of both outputs.
TEST_F(InterruptTest, AllocSecondSigintLeavesAValidPlanOrNone) {
  const std::string trace = Trace();
  for (int delay_ms : {0, 5, 20, 60, 150}) {
    SCOPED_TRACE(delay_ms);
    fs::remove(Path("plan.csv"));
    fs::remove(Path("plan.svg"));
    EXPECT_EQ(RunAndSignal(AllocArgs(trace), {{SIGINT, milliseconds(1000)}, {SIGINT, milliseconds(delay_ms)}}), 130)
        << err_;
    if (fs::exists(Path("plan.csv"))) {
      EXPECT_EQ(Memplan(fmt::format("validate {} {}", trace, Path("plan.csv"))), 0) << out_ << err_;
    }
    EXPECT_TRUE(Leftovers().empty()) << Leftovers().front();
  }
}

TEST_F(InterruptTest, RematWritesAValidScheduleOnSigint) {
  const std::string graph = ChainGraph(1500);
  EXPECT_EQ(RunAndSignal(RematArgs(graph), {{SIGINT, milliseconds(1500)}}), 130) << err_;
  ASSERT_TRUE(fs::exists(Path("schedule.json")));
  ExpectValidSchedule(graph);
  // The emitted buffers are a well-formed allocation problem.
  EXPECT_EQ(Memplan("alloc " + Path("buffers.csv") + " --method first-fit -o " + Path("buffers_plan.csv")), 0) << err_;
  EXPECT_TRUE(Leftovers().empty());
}

TEST_F(InterruptTest, RematWritesAValidScheduleOnSigterm) {
  const std::string graph = ChainGraph(1500);
  EXPECT_EQ(RunAndSignal(RematArgs(graph), {{SIGTERM, milliseconds(1500)}}), 130) << err_;
  ASSERT_TRUE(fs::exists(Path("schedule.json")));
  ExpectValidSchedule(graph);
  EXPECT_TRUE(Leftovers().empty());
}

TEST_F(InterruptTest, PlanWritesAValidScheduleOnSigint) {
  const std::string graph = ChainGraph(1500);
  EXPECT_EQ(RunAndSignal({MEMPLAN_BIN, "plan", graph, "--budget", "40%", "--time-limit", "600", "-o",
                          Path("schedule.json"), "--quiet"},
                         {{SIGINT, milliseconds(1500)}}),
            130)
      << err_;
  ASSERT_TRUE(fs::exists(Path("schedule.json")));
  ExpectValidSchedule(graph);
  EXPECT_TRUE(Leftovers().empty());
}

// The report's planners stop at the signal; the page is written with what they found, whole.
TEST_F(InterruptTest, ReportWritesACompletePageOnSigint) {
  const std::string graph = ChainGraph(1500);
  EXPECT_EQ(RunAndSignal({MEMPLAN_BIN, "report", graph, "--budget", "40%", "--time-limit", "600", "-o",
                          Path("page.html"), "--quiet"},
                         {{SIGINT, milliseconds(1500)}}),
            130)
      << err_;
  ASSERT_TRUE(fs::exists(Path("page.html")));
  const std::string page = Slurp(Path("page.html"));
  EXPECT_NE(page.find("<!DOCTYPE html>"), std::string::npos);
  EXPECT_NE(page.rfind("</html>"), std::string::npos);
  EXPECT_TRUE(Leftovers().empty());
}

// loopfuse has no output file to save: Ctrl-C ends it at once, and its solver processes with it (each is a
// child of a server process that dies with loopfuse, and dies with the server).
TEST_F(InterruptTest, LoopfuseLeavesNoSolverProcessOnSigint) { ExpectNoSolverProcessOutlives(SIGINT); }

TEST_F(InterruptTest, LoopfuseLeavesNoSolverProcessOnSigkill) { ExpectNoSolverProcessOutlives(SIGKILL); }

}  // namespace
