// Every memplan and loopfuse subcommand prints one JSON object on stdout with --json, and nothing on stderr
// when stderr is not a terminal (no progress line; README "memplan alloc": a progress line is shown on a
// terminal only).
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/cli_test.h"

namespace {

class CliOutputTest : public testing_support::CliTest {
 protected:
  // Runs memplan (or `binary`) with `args`; expects `status`, a single JSON object on stdout and a silent
  // stderr.
  nlohmann::json Json(const std::string& args, int status = 0, const std::string& binary = MEMPLAN_BIN) {
    EXPECT_EQ(Run(binary, args), status) << args << "\n" << err_;
    EXPECT_EQ(err_, "") << args;
    EXPECT_TRUE(nlohmann::json::accept(out_)) << args << ": not one JSON object:\n" << out_;
    return nlohmann::json::parse(out_, nullptr, false);
  }
};

TEST_F(CliOutputTest, EverySubcommandHasJson) {
  const std::string trace = Path("trace.csv"), plan = Path("plan.csv");
  EXPECT_EQ(Json(fmt::format("gen --family training -n 300 --seed 2 -o {} --json", trace))["buffers"], 300);
  EXPECT_EQ(Json(fmt::format("alloc {} -o {} --moves 2000 --json", trace, plan))["method"], "exact+sa");
  const nlohmann::json valid = Json(fmt::format("validate {} {} --json", trace, plan));
  EXPECT_EQ(valid["valid"], true);
  EXPECT_EQ(valid["errors"].size(), 0u);
  EXPECT_GT(Json(fmt::format("simulate {} --json", trace))["peak_reserved"], 0);

  const std::string graph = std::string(EXAMPLES_DIR) + "/remat/mlp_train.json";
  EXPECT_EQ(Json(fmt::format("remat {} --budget 80% --time-limit 1 -o {} --json", graph, Path("s.json")))["budget_met"],
            true);
  EXPECT_EQ(Json(fmt::format("plan {} --budget 80% --time-limit 1 --json", graph))["budget_met"], true);
}

TEST_F(CliOutputTest, ValidateJsonListsErrorsWithStatus1) {
  const std::string trace = Write("t.csv", "id,lower,upper,size\na,0,4,16\nb,2,6,16\n");
  const std::string plan = Write("p.csv", "id,offset\na,0\nb,8\n");
  const nlohmann::json report = Json(fmt::format("validate {} {} --json", trace, plan), 1);
  EXPECT_EQ(report["valid"], false);
  EXPECT_EQ(report["errors"].size(), 1u);
}

TEST_F(CliOutputTest, QuietIsAcceptedWhereAPlannerRuns) {
  const std::string graph = std::string(EXAMPLES_DIR) + "/remat/mlp_train.json";
  EXPECT_EQ(Memplan(fmt::format("remat {} --budget 80% --time-limit 1 -q", graph)), 0) << err_;
  EXPECT_EQ(err_, "");
  EXPECT_EQ(Memplan(fmt::format("plan {} --budget 80% --time-limit 1 -q", graph)), 0) << err_;
  EXPECT_EQ(err_, "");
}

// loopfuse too: verify prints its verdict, fuse and horn the program they would print as text.
TEST_F(CliOutputTest, EveryLoopfuseSubcommandHasJson) {
  const std::string program = std::string(EXAMPLES_DIR) + "/fusion/counters_bug.c";
  EXPECT_EQ(Json("verify --json " + program, 1, LOOPFUSE_BIN)["verdict"], "false");
  const nlohmann::json fused = Json("fuse --json " + program, 0, LOOPFUSE_BIN);
  EXPECT_FALSE(fused["transformations"].empty()) << out_;
  EXPECT_NE(fused["program"].get<std::string>().find("int main"), std::string::npos) << out_;
  const std::string smt2 = Json("horn --json " + program, 0, LOOPFUSE_BIN)["smt2"];
  EXPECT_EQ(smt2.rfind("(set-logic HORN)", 0), 0u) << out_;
}

TEST_F(CliOutputTest, GenJsonNeedsAnOutputFile) {
  EXPECT_EQ(Memplan("gen -n 5 --json"), 2);
  EXPECT_NE(err_.find("--json requires --output"), std::string::npos) << err_;
}

}  // namespace
