#include "remat/fastsa.h"

#include <gtest/gtest.h>

#include "remat/chen.h"
#include "remat/grouping.h"
#include "remat/simulator.h"
#include "remat/slot_state.h"
#include "remat/validator.h"
#include "test_graphs.h"

namespace remat {
namespace {

// Makes random moves at `temperature` and checks, after every one, that the schedule is valid and that
// the incremental peak and cost equal the simulator's.
void CheckIncremental(const Graph& graph, MoveSet moves, double temperature, uint64_t seed) {
  SlotState state(graph, graph.order, 0, moves, false);
  common::Rng rng(seed);
  for (int i = 0; i < 3000; ++i) {
    state.Move(temperature, rng);
    const Sequence sequence = state.Current();
    const ScheduleReport report = ValidateSchedule(graph, sequence, {});
    ASSERT_TRUE(report.ok()) << "move " << i << ": " << report.errors.front();
    ASSERT_EQ(state.Peak(), report.peak) << "move " << i;
    ASSERT_DOUBLE_EQ(state.TotalCost(), report.cost) << "move " << i;
    const Evaluation eval = Simulate(graph, sequence);
    ASSERT_EQ(state.Peak(), eval.peak) << "move " << i;
    if (moves == MoveSet::kReorderOnly) {
      ASSERT_EQ(sequence.size(), graph.nodes.size());
    }
  }
  EXPECT_GT(state.AcceptedMoves(), 100u);
}

TEST(RematSlotState, IncrementalPeakAndCostMatchTheSimulatorWhenEveryMoveIsAccepted) {
  for (uint64_t seed = 1; seed <= 5; ++seed) CheckIncremental(testing::RandomGraph(40, seed), MoveSet::kFull, 1e300, seed);
}

TEST(RematSlotState, RejectedMovesAreUndoneExactly) {
  for (uint64_t seed = 6; seed <= 8; ++seed) CheckIncremental(testing::RandomGraph(40, seed), MoveSet::kFull, 1.0, seed);
}

TEST(RematSlotState, ReorderOnlyKeepsEveryNodeOnce) {
  CheckIncremental(testing::RandomGraph(40, 9), MoveSet::kReorderOnly, 1e300, 9);
}

// Best() is the schedule of the last KeepBest() call, whether few moves followed it (replayed from the
// journal) or more than the journal keeps (copied).
TEST(RematSlotState, BestIsTheStateLastKept) {
  const Graph graph = testing::RandomGraph(40, 11);
  SlotState state(graph, graph.order, 0, MoveSet::kFull, false);
  common::Rng rng(11);
  Sequence kept = state.Current();
  state.KeepBest();
  for (int i = 1; i <= 20000; ++i) {
    state.Move(1e300, rng);
    if (i % 7 == 0 || (i > 8000 && i % 3001 == 0)) {
      ASSERT_EQ(state.Best(), kept) << "move " << i;
    }
    // Keeps after 1, 2, ... 50 moves, then once after thousands.
    if (i < 1300 ? i % (i / 26 + 1) == 0 : i == 9000 || i == 19999) {
      kept = state.Current();
      state.KeepBest();
    }
  }
  EXPECT_EQ(state.Best(), kept);
  EXPECT_GT(state.AcceptedMoves(), 5000u);
}

TEST(RematGrouping, GroupedPlansUngroupIntoValidSchedules) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    const Graph graph = testing::RandomGraph(60, seed);
    const Grouping grouping = GroupNodes(graph);
    size_t members = 0;
    for (const auto& group : grouping.members) members += group.size();
    EXPECT_EQ(members, graph.nodes.size());
    SlotState state(grouping.graph, grouping.graph.order, 0, MoveSet::kFull, false);
    common::Rng rng(seed);
    for (int i = 0; i < 2000; ++i) {
      state.Move(1e300, rng);
      if (i % 100 != 0) continue;
      const Sequence grouped = state.Current();
      const Sequence expanded = Ungroup(grouping, grouped);
      const ScheduleReport report = ValidateSchedule(graph, expanded, {});
      ASSERT_TRUE(report.ok()) << report.errors.front();
      // A group's step counts its inputs, outputs and internal peak together: never less than its members.
      EXPECT_LE(report.peak, Simulate(grouping.graph, grouped).peak);
    }
  }
}

TEST(RematGrouping, FusesCheapProducersIntoTheirConsumer) {
  // a (1 byte in) -> relu-like b (in 10, out 10) -> c: b's inputs are no bigger than its outputs.
  Graph graph;
  graph.values = {{.name = "x", .size = 10}, {.name = "y", .size = 10}, {.name = "z", .size = 1}};
  graph.nodes = {{.key = "0", .name = "a", .cost = 1, .outputs = {0}},
                 {.key = "1", .name = "b", .cost = 1, .inputs = {0}, .outputs = {1}},
                 {.key = "2", .name = "c", .cost = 1, .inputs = {1}, .outputs = {2}}};
  LinkAndCheck(graph, "g");
  const Grouping grouping = GroupNodes(graph);
  EXPECT_LT(grouping.members.size(), 3u);
  EXPECT_EQ(Ungroup(grouping, grouping.graph.order), (Sequence{0, 1, 2}));
}

TEST(RematFastsa, MeetsReachableBudgetsAndIsDeterministic) {
  const Graph graph = testing::RandomGraph(80, 3, false);
  const Bytes reference = Simulate(graph, graph.order).peak;
  const Bytes budget = reference * 8 / 10;
  const FastsaOptions options{.budget = budget, .time_limit_s = 20, .seed = 5, .stage1_moves = 200000,
                              .stage2_moves = 100000};
  common::Progress progress(false);
  const FastsaResult first = RunFastsa(graph, options, progress);
  const FastsaResult second = RunFastsa(graph, options, progress);
  EXPECT_EQ(first.sequence, second.sequence);
  const ScheduleReport report = ValidateSchedule(graph, first.sequence, {.budget = budget});
  EXPECT_TRUE(report.ok());
  // Wherever √n checkpointing reaches the budget, FastSA does too.
  const bool chen_met = Simulate(graph, ChenSchedule(graph, budget)).peak <= budget;
  EXPECT_TRUE(report.budget_met || !chen_met) << report.peak << " > " << budget;
}

TEST(RematFastsa, ReorderOnlyNeverRecomputesAndNeverWorsensThePeak) {
  const Graph graph = testing::RandomGraph(60, 4);
  common::Progress progress(false);
  const FastsaResult result =
      RunFastsa(graph, {.budget = 0, .time_limit_s = 20, .reorder_only = true, .stage1_moves = 100000}, progress);
  EXPECT_EQ(result.sequence.size(), graph.nodes.size());
  const ScheduleReport report = ValidateSchedule(graph, result.sequence, {});
  EXPECT_TRUE(report.ok());
  EXPECT_LE(report.peak, Simulate(graph, graph.order).peak);
}

TEST(RematChen, CheckpointSchedulesAreValidAndTradeCostForMemory) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const Graph graph = testing::RandomGraph(50, seed);
    for (int segment : {1, 3, 7, 50}) {
      const ScheduleReport report = ValidateSchedule(graph, CheckpointSchedule(graph, segment), {});
      EXPECT_TRUE(report.ok()) << report.errors.front();
    }
    const Sequence chen = ChenSchedule(graph, 0);
    EXPECT_LE(Simulate(graph, chen).peak, Simulate(graph, graph.order).peak);
  }
}

}  // namespace
}  // namespace remat
