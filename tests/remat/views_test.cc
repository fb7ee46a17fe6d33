#include "remat/views.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "common/progress.h"
#include "remat/grouping.h"
#include "remat/planner.h"
#include "remat/simulator.h"
#include "remat/slot_state.h"
#include "remat/validator.h"
#include "test_graphs.h"

namespace remat {
namespace {

// in (input, 1) -> f -> x (100); x -> view -> y (a view of x); x -> g -> z (10);
// y -> use -> w (1, graph output); y -> view2 -> y2 (a view of y).
// Node indices: f 0, view 1, g 2, use 3, view2 4.
Graph Views(bool aliased, bool view_recomputable = true) {
  Graph graph;
  graph.values = {{.name = "in", .size = 1, .kind = ValueKind::kInput},
                  {.name = "x", .size = 100},
                  {.name = "y", .size = 100, .view_of = 1},
                  {.name = "z", .size = 10},
                  {.name = "w", .size = 1, .graph_output = true},
                  {.name = "y2", .size = 100, .view_of = 2}};
  graph.nodes = {{.key = "0", .name = "f", .cost = 5, .inputs = {0}, .outputs = {1}},
                 {.key = "1", .name = "view", .inputs = {1}, .outputs = {2}, .recomputable = view_recomputable},
                 {.key = "2", .name = "g", .cost = 1, .inputs = {1}, .outputs = {3}},
                 {.key = "3", .name = "use", .cost = 1, .inputs = {2}, .outputs = {4}},
                 {.key = "4", .name = "view2", .inputs = {2}, .outputs = {5}}};
  graph.order = {0, 1, 4, 2, 3};
  LinkAndCheck(graph, "views");
  return aliased ? AliasViews(graph) : graph;
}

// The steps at which a step reads a view whose latest production was made from an owner production that
// has been replaced since: written apart from RefreshViews, by the productions' steps.
std::vector<int> StaleReads(const Graph& graph, const Sequence& sequence) {
  std::vector<std::vector<int>> produced(graph.values.size());
  std::vector<int> stale;
  for (int step = 0; step < static_cast<int>(sequence.size()); ++step) {
    for (int v : graph.nodes[sequence[step]].inputs) {
      if (graph.values[v].view_of < 0 || produced[v].empty()) continue;
      const int owner = StorageOwner(graph, v);
      // The view's production is fresh when no production of its owner came after the owner production
      // that was latest when the view (or the view it was made from) was made.
      int made = produced[v].back();
      for (int base = ViewBase(graph, v); base >= 0 && graph.values[base].view_of >= 0; base = ViewBase(graph, base)) {
        int latest = -1;
        for (int p : produced[base]) latest = p < made ? p : latest;
        made = latest;
      }
      for (int p : produced[owner]) {
        if (p > made && p < step) {
          stale.push_back(step);
          break;
        }
      }
    }
    for (int v : graph.nodes[sequence[step]].outputs) produced[v].push_back(step);
  }
  return stale;
}

TEST(RematViews, AliasingCountsAViewAsItsOwnersMemory) {
  const Graph full = Views(false);
  const Graph aliased = Views(true);
  EXPECT_TRUE(aliased.views_aliased);
  EXPECT_FALSE(full.views_aliased);
  EXPECT_EQ(aliased.values[2].size, 0);
  EXPECT_EQ(aliased.nodes[3].inputs, (std::vector<int>{1, 2}));  // `use` keeps x alive
  EXPECT_EQ(aliased.nodes[4].inputs, (std::vector<int>{1, 2}));
  EXPECT_EQ(StorageOwner(aliased, 5), 1);
  EXPECT_EQ(ViewBase(aliased, 2), 1);
  EXPECT_EQ(ViewBase(aliased, 5), 2);  // the view it reads, not the owner AliasViews added
  // Reference order f, view, view2, g, use: at full size x, y and y2 are live at view2; aliased, x alone.
  EXPECT_EQ(Simulate(full, full.order).memory, (std::vector<Bytes>{101, 201, 301, 211, 102}));
  EXPECT_EQ(Simulate(aliased, aliased.order).memory, (std::vector<Bytes>{101, 101, 101, 111, 102}));
}

// f, view, view2, g, f again, use: the view made from the first x is read after x was recomputed, so in
// PyTorch the first x's storage lives until then, beside the second.
TEST(RematViews, AStaleViewKeepsTheOwnerProductionItWasMadeFrom) {
  const Graph graph = Views(true);
  const Sequence stale = {0, 1, 4, 2, 0, 3};
  EXPECT_EQ(StaleReads(graph, stale), (std::vector<int>{5}));
  const Evaluation eval = Simulate(graph, stale);
  EXPECT_EQ(eval.memory, (std::vector<Bytes>{101, 101, 101, 111, 201, 202}));
  const ScheduleReport report = ValidateSchedule(graph, stale, {.peak = eval.peak, .cost = eval.cost});
  EXPECT_TRUE(report.ok()) << report.errors.front();
  EXPECT_EQ(report.peak, 202);
}

TEST(RematViews, RefreshRemakesStaleViewsWhereTheyAreRead) {
  const Graph graph = Views(true);
  const Sequence refreshed = RefreshViews(graph, {0, 1, 4, 2, 0, 3});
  EXPECT_EQ(refreshed, (Sequence{0, 1, 4, 2, 0, 1, 3}));
  EXPECT_TRUE(StaleReads(graph, refreshed).empty());
  EXPECT_EQ(Simulate(graph, refreshed).memory, (std::vector<Bytes>{101, 101, 101, 111, 101, 101, 102}));
  EXPECT_EQ(Simulate(graph, refreshed).cost, Simulate(graph, {0, 1, 4, 2, 0, 3}).cost);
  EXPECT_EQ(RefreshViews(graph, refreshed), refreshed);
}

TEST(RematViews, RefreshRemakesAViewOfAViewFromTheOwnerUp) {
  Graph graph = Views(false);
  graph.nodes[3].inputs = {5};  // `use` reads y2, the view of y
  LinkAndCheck(graph, "views");
  graph = AliasViews(graph);
  const Sequence refreshed = RefreshViews(graph, {0, 1, 4, 2, 0, 3});
  EXPECT_EQ(refreshed, (Sequence{0, 1, 4, 2, 0, 1, 4, 3}));
  EXPECT_TRUE(StaleReads(graph, refreshed).empty());
  EXPECT_EQ(Simulate(graph, {0, 1, 4, 2, 0, 3}).peak, 202);  // y2 holds the first x through y
  EXPECT_EQ(Simulate(graph, refreshed).memory, (std::vector<Bytes>{101, 101, 101, 111, 101, 101, 101, 102}));
}

TEST(RematViews, RefreshRemakesAStaleGraphOutputAtTheEnd) {
  Graph graph = Views(false);
  graph.values[2].graph_output = true;  // y: its owner x becomes an output when aliased
  LinkAndCheck(graph, "views");
  graph = AliasViews(graph);
  EXPECT_TRUE(graph.values[1].graph_output);
  const Sequence stale = {0, 1, 4, 2, 3, 0};
  EXPECT_EQ(Simulate(graph, stale).peak, 1 + 200 + 1);  // both x to the end: the first through y
  const Sequence refreshed = RefreshViews(graph, stale);
  EXPECT_EQ(refreshed, (Sequence{0, 1, 4, 2, 3, 0, 1}));
  EXPECT_EQ(Simulate(graph, refreshed).peak, 1 + 100 + 10);
  EXPECT_TRUE(ValidateSchedule(graph, refreshed, {.peak = 1 + 100 + 10}).ok());
}

TEST(RematViews, AViewThatCannotBeRecomputedStaysStaleAndIsCountedSo) {
  const Graph graph = Views(true, /*view_recomputable=*/false);
  const Sequence stale = {0, 1, 4, 2, 0, 3};
  EXPECT_EQ(RefreshViews(graph, stale), stale);
  EXPECT_EQ(Simulate(graph, stale).peak, 202);
  EXPECT_TRUE(ValidateSchedule(graph, stale, {.peak = 202}).ok());
}

// y2 is made from y, which cannot be made again: a copy of view2 would hold the same first x through y, so
// the refresh adds none (it added one before each read, and more on each refresh of its own result).
TEST(RematViews, AViewMadeFromAViewThatStaysStaleIsNotRemade) {
  Graph graph = Views(false, /*view_recomputable=*/false);
  graph.nodes[3].inputs = {5};  // `use` reads y2, the view of y
  LinkAndCheck(graph, "views");
  graph = AliasViews(graph);
  const Sequence stale = {0, 1, 4, 2, 0, 3};
  EXPECT_EQ(RefreshViews(graph, stale), stale);
  EXPECT_EQ(Simulate(graph, stale).peak, 202);
}

TEST(RematViews, FullSizeGraphsAreLeftAsTheyAre) {
  const Graph graph = Views(false);
  const Sequence stale = {0, 1, 4, 2, 0, 3};
  EXPECT_EQ(RefreshViews(graph, stale), stale);
  EXPECT_EQ(Simulate(graph, stale).peak, Simulate(Views(false), stale).peak);
}

// Random graphs with views, random recomputations: the simulator and the validator agree on aliased
// graphs, and refreshing leaves no stale read, keeps the sequence valid, never raises its peak and leaves
// nothing for a second refresh.
TEST(RematViews, RefreshOnRandomSchedules) {
  int refreshed_any = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const Graph graph = AliasViews(testing::RandomGraphWithViews(40, seed));
    const Sequence sequence = testing::RandomRecomputations(graph, seed);
    const Evaluation eval = Simulate(graph, sequence);
    const ScheduleReport report = ValidateSchedule(graph, sequence, {.peak = eval.peak, .cost = eval.cost});
    EXPECT_TRUE(report.ok()) << "seed " << seed << ": " << report.errors.front();
    const Sequence refreshed = RefreshViews(graph, sequence);
    refreshed_any += refreshed.size() > sequence.size();
    const Evaluation after = Simulate(graph, refreshed);
    EXPECT_TRUE(ValidateSchedule(graph, refreshed, {.peak = after.peak, .cost = after.cost}).ok()) << seed;
    EXPECT_LE(after.peak, eval.peak) << "seed " << seed;
    EXPECT_EQ(RefreshViews(graph, refreshed), refreshed) << "seed " << seed << ": a refresh is its own refresh";
    for (int step : StaleReads(graph, refreshed)) {
      // Only a view whose producer cannot run again may stay stale.
      bool pinned = false;
      for (int v : graph.nodes[refreshed[step]].inputs) {
        if (graph.values[v].view_of >= 0 && !graph.nodes[graph.values[v].producer].recomputable) pinned = true;
        for (int b = v; b >= 0 && graph.values[b].view_of >= 0; b = ViewBase(graph, b)) {
          pinned = pinned || !graph.nodes[graph.values[b].producer].recomputable;
        }
      }
      EXPECT_TRUE(pinned) << "seed " << seed << ": step " << step << " reads a stale view";
    }
  }
  EXPECT_GT(refreshed_any, 10);
}

TEST(RematViews, PlannedSchedulesOfAliasedGraphsHaveNoStaleViews) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    Graph graph = testing::RandomGraphWithViews(60, seed);
    for (Node& node : graph.nodes) node.recomputable = true;
    graph = AliasViews(graph);
    common::Progress quiet(false);
    const Bytes reference = Simulate(graph, graph.order).peak;
    for (const std::string method : {"fastsa", "chen"}) {
      const RematResult result =
          PlanRemat(graph, {.method = method, .budget = reference * 6 / 10, .moves = 20000}, quiet);
      EXPECT_TRUE(StaleReads(graph, result.sequence).empty()) << method << " seed " << seed;
      const ScheduleReport report =
          ValidateSchedule(graph, result.sequence, {.peak = result.peak, .cost = result.cost});
      EXPECT_TRUE(report.ok()) << method << " seed " << seed << ": " << report.errors.front();
    }
  }
}

// in (input) -> f -> x (100); x -> view -> y (a view of x); x -> g -> z (10); y -> use -> w (output).
Graph OneView(bool aliased) {
  Graph graph;
  graph.values = {{.name = "in", .size = 1, .kind = ValueKind::kInput},
                  {.name = "x", .size = 100},
                  {.name = "y", .size = 100, .view_of = 1},
                  {.name = "z", .size = 10},
                  {.name = "w", .size = 1, .graph_output = true}};
  graph.nodes = {{.key = "0", .name = "f", .cost = 5, .inputs = {0}, .outputs = {1}},
                 {.key = "1", .name = "view", .inputs = {1}, .outputs = {2}},
                 {.key = "2", .name = "g", .cost = 1, .inputs = {1}, .outputs = {3}},
                 {.key = "3", .name = "use", .cost = 1, .inputs = {2, 3}, .outputs = {4}}};
  LinkAndCheck(graph, "one view");
  return aliased ? AliasViews(graph) : graph;
}

TEST(RematViews, GroupingFusesAnAliasedViewIntoTheGroupThatReadsItsOwner) {
  // `view` holds no bytes of its own when aliased, and its reader `use` reads x anyway: fused. With views
  // at full size its input and output are the same size: fused too.
  for (const bool aliased : {true, false}) {
    const Grouping grouping = GroupNodes(OneView(aliased));
    const auto with_view = std::find_if(grouping.members.begin(), grouping.members.end(), [](const auto& m) {
      return std::find(m.begin(), m.end(), 1) != m.end();
    });
    ASSERT_NE(with_view, grouping.members.end());
    EXPECT_GT(with_view->size(), 1u) << (aliased ? "aliased" : "full");
  }
}

TEST(RematViews, AnnealingNeverAddsACopyOfAnAliasedView) {
  // Every move accepted (infinite temperature) from the reference order: copies of other nodes appear,
  // never of a node whose outputs are aliased views; RefreshViews adds those a schedule needs.
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const Graph graph = AliasViews(testing::RandomGraphWithViews(60, seed));
    SlotState state(graph, graph.order, 1, MoveSet::kFull, false);
    common::Rng rng(seed);
    for (int i = 0; i < 20000; ++i) state.Move(std::numeric_limits<double>::infinity(), rng);
    std::vector<int> runs(graph.nodes.size(), 0);
    for (int u : state.Current()) ++runs[u];
    int views = 0;
    int copies = 0;
    for (int u = 0; u < static_cast<int>(graph.nodes.size()); ++u) {
      copies += runs[u] - 1;
      const int v = graph.nodes[u].outputs[0];
      if (graph.nodes[u].outputs.size() != 1 || graph.values[v].view_of < 0) continue;
      ++views;
      EXPECT_EQ(runs[u], 1) << "seed " << seed << " node " << u;
    }
    EXPECT_GT(views, 0);
    EXPECT_GT(copies, 0);
  }
}

}  // namespace
}  // namespace remat
