// The exact search against brute force: on small problems it finds a packing at the optimum and proves
// that none exists one byte lower; its plans are valid with periods, alignment and fixed offsets; it is
// deterministic under a node and a work budget. Throughout, its incremental section bound is checked
// against the bound's definition at every node (SearchLimits::verify_bound).
#include "alloc/exact_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "alloc/greedy.h"
#include "alloc/validator.h"
#include "common/rng.h"
#include "support/random_problem.h"

namespace alloc {
namespace {

// The optimum from its definition: the lowest height over every drop order, each buffer dropped onto the
// buffers before it that it overlaps. (Any packing, its buffers taken in order of offset, drops to at most
// its own offsets, so some order reaches the optimum.)
Bytes BruteForceOptimum(const Problem& p) {
  std::vector<size_t> order(p.buffers.size());
  std::iota(order.begin(), order.end(), size_t{0});
  Bytes best = std::numeric_limits<Bytes>::max();
  do {
    std::vector<Offset> offset(p.buffers.size(), -1);
    Bytes height = 0;
    for (size_t i : order) {
      Offset at = 0;
      for (size_t j = 0; j < p.buffers.size(); ++j) {
        if (offset[j] >= 0 && testing_support::NaiveOverlap(p, i, j)) at = std::max(at, offset[j] + p.buffers[j].size);
      }
      offset[i] = at;
      height = std::max(height, at + p.buffers[i].size);
    }
    best = std::min(best, height);
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

TEST(ExactSearch, FindsTheOptimumAndProvesNothingIsLower) {
  common::Rng rng(11);
  common::Progress quiet(false);
  SearchLimits unlimited;
  unlimited.time_limit_s = 0;
  unlimited.verify_bound = true;  // the watched bound prunes exactly as its definition, at every node
  for (int trial = 0; trial < 200; ++trial) {
    // Short horizons give ties and parts that share no moment (the decomposition); periodic ones wrap.
    const Problem p = testing_support::RandomProblem(
        rng, {.buffers = 2 + rng.Below(7), .horizon = 6 + static_cast<alloc::TimeValue>(rng.Below(10)),
              .periodic = trial % 4 == 0, .max_size = 9});
    const Bytes optimum = BruteForceOptimum(p);

    const SearchResult at = SearchPackingWithin(p, optimum, unlimited, quiet);
    ASSERT_EQ(at.outcome, SearchOutcome::kFound) << "trial " << trial << ", optimum " << optimum;
    const ValidationReport report = Validate(p, *at.solution);
    ASSERT_TRUE(report.ok()) << "trial " << trial << ": " << report.errors[0];
    EXPECT_LE(report.height, optimum);

    const SearchResult below = SearchPackingWithin(p, optimum - 1, unlimited, quiet);
    EXPECT_EQ(below.outcome, SearchOutcome::kNoneExists) << "trial " << trial << ", optimum " << optimum;
    EXPECT_TRUE(below.complete);

    const Solution start = PlaceInOrder(p, OrderBySize(p), GapRule::kFirstFit);
    const ExactPlan plan = SearchLowestPlan(p, start, unlimited, quiet, PeakLoad(p));
    EXPECT_EQ(plan.height, optimum) << "trial " << trial;
    EXPECT_TRUE(plan.optimal) << "trial " << trial;
    EXPECT_EQ(Height(p, plan.solution), plan.height);
  }
}

TEST(ExactSearch, PlansWithAlignmentAndFixedOffsetsAreValidButProveNothing) {
  common::Rng rng(12);
  common::Progress quiet(false);
  SearchLimits limits;
  limits.max_nodes = 20000;
  limits.verify_bound = true;
  for (int trial = 0; trial < 40; ++trial) {
    Problem p = testing_support::RandomProblem(rng, {.buffers = 5 + rng.Below(30), .aligned = true});
    if (trial % 2 == 0) p.buffers[0].fixed_offset = AlignUp(37, p.buffers[0].alignment);
    const Solution start = PlaceInOrder(p, OrderBySize(p), GapRule::kFirstFit);
    const ExactPlan plan = SearchLowestPlan(p, start, limits, quiet, PeakLoad(p));
    const ValidationReport report = Validate(p, plan.solution);
    ASSERT_TRUE(report.ok()) << "trial " << trial << ": " << report.errors[0];
    EXPECT_LE(plan.height, Height(p, start));
    const SearchResult r = SearchPackingWithin(p, PeakLoad(p), limits, quiet);
    EXPECT_FALSE(r.complete);
  }
}

TEST(ExactSearch, SameBudgetSamePlan) {
  common::Rng rng(13);
  common::Progress quiet(false);
  SearchLimits by_nodes;
  by_nodes.max_nodes = 5000;
  by_nodes.time_limit_s = 0;
  SearchLimits by_work;
  by_work.max_work = 2'000'000;
  by_work.time_limit_s = 0;
  for (int trial = 0; trial < 10; ++trial) {
    const Problem p = testing_support::RandomProblem(rng, {.buffers = 60, .horizon = 30});
    const Solution start = PlaceInOrder(p, OrderBySize(p), GapRule::kFirstFit);
    for (const SearchLimits& limits : {by_nodes, by_work}) {
      const ExactPlan a = SearchLowestPlan(p, start, limits, quiet, PeakLoad(p));
      const ExactPlan b = SearchLowestPlan(p, start, limits, quiet, PeakLoad(p));
      EXPECT_EQ(a.solution.offsets, b.solution.offsets);
      EXPECT_EQ(a.nodes, b.nodes);
      EXPECT_EQ(a.work, b.work);
      if (limits.max_nodes > 0) {
        EXPECT_LE(a.nodes, limits.max_nodes);
      }
    }
  }
}

// The work budget is checked at every node: a search stops within one node (and the unwinding) of it.
TEST(ExactSearch, StopsAtTheWorkBudget) {
  common::Rng rng(15);
  common::Progress quiet(false);
  const Problem p = testing_support::RandomProblem(rng, {.buffers = 300, .horizon = 60});
  SearchLimits limits;
  limits.max_work = 200'000;
  limits.time_limit_s = 0;
  const SearchResult r = SearchPackingWithin(p, PeakLoad(p), limits, quiet);
  EXPECT_EQ(r.outcome, SearchOutcome::kNodeLimit);
  EXPECT_GE(r.work, limits.max_work);
  EXPECT_LT(r.work, limits.max_work + 100'000);
  EXPECT_FALSE(r.solution);
}

// Where one descent alone costs more than the budget (300 buffers alive together: each of its 300 nodes
// scans 300 buffers twice), nothing is built or searched, and the plan is the start.
TEST(ExactSearch, RefusesWhatOneDescentCannotFinish) {
  Problem p;
  auto add = [&](std::string id, TimeValue lower, TimeValue upper, Bytes size) {
    Buffer b;
    b.id = std::move(id);
    b.lower = lower;
    b.upper = upper;
    b.size = size;
    p.buffers.push_back(b);
  };
  for (int i = 0; i < 300; ++i) add(fmt::format("b{}", i), 0, 10, 1 + i % 7);
  add("short", 10, 11, 5);
  common::Progress quiet(false);
  SearchLimits limits;
  limits.max_work = 2 * 300 * 300 - 1;
  const SearchResult r = SearchPackingWithin(p, PeakLoad(p), limits, quiet);
  EXPECT_EQ(r.outcome, SearchOutcome::kOverBudget);
  EXPECT_EQ(r.nodes, 0u);
  Solution start;  // valid and above the peak load: 8 bytes a buffer
  for (size_t i = 0; i < p.buffers.size(); ++i) start.offsets.push_back(8 * static_cast<Offset>(i % 300));
  const ExactPlan plan = SearchLowestPlan(p, start, limits, quiet, PeakLoad(p));
  EXPECT_EQ(plan.last, SearchOutcome::kOverBudget);
  EXPECT_EQ(plan.solution.offsets, start.offsets);
  limits.max_work = 2 * 300 * 300 + 2 * 1 * 1 + 1'000'000;  // the descent fits: the search runs
  EXPECT_NE(SearchPackingWithin(p, PeakLoad(p), limits, quiet).outcome, SearchOutcome::kOverBudget);
}

TEST(ExactSearch, StopsAtTheNodeBudget) {
  common::Rng rng(14);
  common::Progress quiet(false);
  const Problem p = testing_support::RandomProblem(rng, {.buffers = 300, .horizon = 60});
  SearchLimits limits;
  limits.max_nodes = 100;
  limits.time_limit_s = 0;
  const SearchResult r = SearchPackingWithin(p, PeakLoad(p), limits, quiet);
  EXPECT_EQ(r.outcome, SearchOutcome::kNodeLimit);
  EXPECT_EQ(r.nodes, limits.max_nodes);
  EXPECT_FALSE(r.solution);
}

}  // namespace
}  // namespace alloc
