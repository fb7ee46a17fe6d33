#include "remat/simulator.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "remat/reader.h"
#include "remat/validator.h"
#include "test_graphs.h"

namespace remat {
namespace {

// x (input, 4) -> f -> a (8) -> g -> b (16, output); a also read by h at the end.
Graph Chain() {
  Graph graph;
  graph.values = {{.name = "x", .size = 4, .kind = ValueKind::kInput},
                  {.name = "a", .size = 8},
                  {.name = "b", .size = 16, .graph_output = true},
                  {.name = "c", .size = 2}};
  graph.nodes = {{.key = "0", .name = "f", .cost = 2, .inputs = {0}, .outputs = {1}},
                 {.key = "1", .name = "g", .cost = 3, .inputs = {1}, .outputs = {2}, .workspace = 1},
                 {.key = "2", .name = "h", .cost = 5, .inputs = {1}, .outputs = {3}}};
  LinkAndCheck(graph, "chain");
  return graph;
}

// x (input, 1) -> p -> m (10); m -> q -> a (1) -> r -> b (50) -> s -> c (1); c and m -> t -> d (1).
// `pinned`: p runs only once.
Graph Pinned(bool pinned) {
  Graph graph;
  graph.values = {{.name = "x", .size = 1, .kind = ValueKind::kInput},
                  {.name = "m", .size = 10},
                  {.name = "a", .size = 1},
                  {.name = "b", .size = 50},
                  {.name = "c", .size = 1},
                  {.name = "d", .size = 1}};
  graph.nodes = {{.key = "0", .name = "p", .inputs = {0}, .outputs = {1}, .recomputable = !pinned},
                 {.key = "1", .name = "q", .inputs = {1}, .outputs = {2}},
                 {.key = "2", .name = "r", .inputs = {2}, .outputs = {3}},
                 {.key = "3", .name = "s", .inputs = {3}, .outputs = {4}},
                 {.key = "4", .name = "t", .inputs = {1, 4}, .outputs = {5}}};
  LinkAndCheck(graph, "pinned");
  return graph;
}

// The largest steps, r and s (51 bytes each, x aside), lie between p and t, the last reader of m: when p runs
// only once, m (10) is live across them in every schedule, and the bound says so; when p may run again,
// recomputing m just before t reaches the plain bound.
TEST(RematSimulator, LowerBoundCountsValuesThatCannotBeRecomputed) {
  const Graph pinned = Pinned(true);
  EXPECT_EQ(pinned.PeakLowerBound(), 1 + 51 + 10);
  EXPECT_EQ(Simulate(pinned, pinned.order).peak, 1 + 51 + 10);
  const Graph free = Pinned(false);
  EXPECT_EQ(free.PeakLowerBound(), 1 + 51);
  EXPECT_EQ(Simulate(free, {0, 1, 2, 3, 0, 4}).peak, 1 + 51);
}

TEST(RematSimulator, FollowsTheMemorySemantics) {
  const Graph graph = Chain();
  const Evaluation eval = Simulate(graph, {0, 1, 2});
  // step 0: x + a; step 1: x + a + b + workspace; step 2: x + a + b + c.
  EXPECT_EQ(eval.memory, (std::vector<Bytes>{12, 29, 30}));
  EXPECT_EQ(eval.peak, 30);
  EXPECT_EQ(eval.cost, 10);
  // Recomputing a before h frees it between g and the recomputation.
  const Evaluation recomputed = Simulate(graph, {0, 1, 0, 2});
  EXPECT_EQ(recomputed.memory, (std::vector<Bytes>{12, 29, 28, 30}));
  EXPECT_EQ(recomputed.cost, 12);
}

TEST(RematSimulator, AgreesWithTheValidatorOnRandomSchedules) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const Graph graph = testing::RandomGraph(30, seed);
    const Sequence sequence = testing::RandomRecomputations(graph, seed);
    const Evaluation eval = Simulate(graph, sequence);
    const ScheduleReport report = ValidateSchedule(graph, sequence, {.peak = eval.peak, .cost = eval.cost});
    EXPECT_TRUE(report.ok()) << (report.errors.empty() ? "" : report.errors.front());
  }
}

TEST(RematValidator, ReportsWhatIsWrong) {
  const Graph graph = Chain();
  const ScheduleReport report = ValidateSchedule(graph, {1, 0}, {.peak = 1, .budget = 10});
  ASSERT_EQ(report.errors.size(), 3u);
  EXPECT_EQ(report.errors[0], "step 0: node 'g' reads 'a' before any step produces it");
  EXPECT_EQ(report.errors[1], "node 'h' never runs");
  EXPECT_NE(report.errors[2].find("reported peak 1"), std::string::npos);
  EXPECT_FALSE(report.budget_met);
}

// Every Moccasin graph's reference peak and cost, as BASELINES.tsv gives them.
TEST(RematSimulator, ReproducesMoccasinBaselines) {
  const std::filesystem::path dir = std::filesystem::path(SHARED_DATA_DIR) / "remat" / "moccasin";
  std::ifstream table(dir / "BASELINES.tsv");
  if (!table) GTEST_SKIP() << "no " << (dir / "BASELINES.tsv") << " (../shared/data is absent)";
  std::string line;
  std::getline(table, line);
  int rows = 0;
  while (std::getline(table, line)) {
    std::istringstream fields(line);
    std::string file;
    size_t nodes = 0, edges = 0;
    Bytes peak = 0;
    double cost = 0;
    Bytes b90 = 0, b80 = 0, single_step = 0;
    fields >> file >> nodes >> edges >> peak >> cost >> b90 >> b80 >> single_step;
    const Graph graph = ReadGraph((dir / file).string());
    EXPECT_EQ(graph.nodes.size(), nodes) << file;
    const Evaluation eval = Simulate(graph, graph.order);
    EXPECT_EQ(eval.peak, peak) << file;
    EXPECT_EQ(eval.cost, cost) << file;
    EXPECT_EQ(graph.PeakLowerBound(), single_step) << file;
    ++rows;
  }
  EXPECT_EQ(rows, 18);
}

}  // namespace
}  // namespace remat
