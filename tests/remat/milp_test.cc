#include "remat/milp.h"

#include <gtest/gtest.h>

#include <limits>

#include "remat/simulator.h"
#include "remat/validator.h"
#include "test_graphs.h"

namespace remat {
namespace {

// The cheapest schedule within `budget` among those Checkmate's formulation describes (stage t runs any
// subset of the nodes before position t, then node t), by trying every subset; infinity when none fits.
Cost BruteForce(const Graph& graph, Bytes budget) {
  const int n = static_cast<int>(graph.order.size());
  const int bits = n * (n - 1) / 2;
  Cost best = std::numeric_limits<Cost>::infinity();
  for (uint64_t mask = 0; mask < (uint64_t{1} << bits); ++mask) {
    Sequence sequence;
    int bit = 0;
    for (int t = 0; t < n; ++t) {
      for (int i = 0; i < t; ++i) {
        if (mask >> bit++ & 1) sequence.push_back(graph.order[i]);
      }
      sequence.push_back(graph.order[t]);
    }
    const ScheduleReport report = ValidateSchedule(graph, sequence, {.budget = budget});
    if (report.ok() && report.budget_met) best = std::min(best, report.cost);
  }
  return best;
}

TEST(RematMilp, EqualsBruteForceOnTinyGraphs) {
  int solved = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const Graph graph = testing::RandomGraph(5, seed, false);
    const Bytes reference = Simulate(graph, graph.order).peak;
    const Bytes lower = graph.PeakLowerBound();
    for (Bytes budget : {reference, (reference + lower) / 2, lower, lower - 1}) {
      const Cost expected = BruteForce(graph, budget);
      const MilpResult milp = SolveCheckmateMilp(graph, budget, 30);
      if (expected == std::numeric_limits<Cost>::infinity()) {
        EXPECT_EQ(milp.status, "infeasible") << "seed " << seed << " budget " << budget;
        continue;
      }
      ASSERT_EQ(milp.status, "optimal") << "seed " << seed << " budget " << budget;
      const ScheduleReport report = ValidateSchedule(graph, milp.sequence, {.budget = budget});
      EXPECT_TRUE(report.ok()) << report.errors.front();
      EXPECT_TRUE(report.budget_met) << "seed " << seed << ": peak " << report.peak << " > " << budget;
      EXPECT_DOUBLE_EQ(report.cost, expected) << "seed " << seed << " budget " << budget;
      ++solved;
    }
  }
  EXPECT_GT(solved, 12);
}

// A deadline shorter than the solve: whatever comes back (the last incumbent CBC streamed, or nothing) is
// a valid schedule within the budget, and the status says the search was cut short.
TEST(RematMilp, DeadlineReturnsTheLastIncumbent) {
  const Graph graph = testing::RandomGraph(60, 7, false);
  const Bytes budget = (Simulate(graph, graph.order).peak + graph.PeakLowerBound()) / 2;
  const MilpResult milp = SolveCheckmateMilp(graph, budget, 0.3);
  ASSERT_TRUE(milp.status == "feasible" || milp.status == "no solution" || milp.status == "optimal") << milp.status;
  if (milp.status == "no solution") {
    EXPECT_TRUE(milp.sequence.empty());
    return;
  }
  const ScheduleReport report = ValidateSchedule(graph, milp.sequence, {.budget = budget});
  ASSERT_TRUE(report.ok()) << report.errors.front();
  EXPECT_TRUE(report.budget_met);
}

}  // namespace
}  // namespace remat
