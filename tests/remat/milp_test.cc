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

}  // namespace
}  // namespace remat
