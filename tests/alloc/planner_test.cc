// The greedy baselines and the annealing planner: validity on random problems, agreement with naive
// definitions, determinism, and the stopping rules.
#include "alloc/planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "alloc/converter.h"
#include "alloc/greedy.h"
#include "alloc/validator.h"
#include "common/rng.h"
#include "support/random_problem.h"

namespace alloc {
namespace {

// A random problem with optional period, alignment and fixed buffers (fixed ones do not collide).
Problem RandomProblem(common::Rng& rng, size_t n, bool periodic, bool aligned, bool fixed) {
  Problem p = testing_support::RandomProblem(rng, {.buffers = n, .periodic = periodic, .aligned = aligned});
  if (fixed) {
    // Two fixed buffers far above everything else, so they never collide with each other.
    p.buffers[0].fixed_offset = AlignUp(100000, p.buffers[0].alignment);
    p.buffers[1].fixed_offset = AlignUp(200000, p.buffers[1].alignment);
  }
  return p;
}

// First fit / best fit written from the definition: try every candidate offset (0 and the top of every
// placed neighbour), keep the lowest that fits (first fit) or the one in the smallest gap (best fit).
Solution NaivePlace(const Problem& p, const std::vector<BufferIndex>& order, GapRule rule) {
  Solution s;
  s.offsets.assign(p.buffers.size(), 0);
  std::vector<bool> placed(p.buffers.size(), false);
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    if (p.buffers[i].fixed_offset) {
      s.offsets[i] = *p.buffers[i].fixed_offset;
      placed[i] = true;
    }
  }
  for (BufferIndex i : order) {
    const Buffer& b = p.buffers[i];
    std::vector<std::pair<Offset, Offset>> used;
    for (size_t k = 0; k < p.buffers.size(); ++k) {
      if (placed[k] && testing_support::NaiveOverlap(p, i, k)) used.emplace_back(s.offsets[k], s.offsets[k] + p.buffers[k].size);
    }
    std::vector<Offset> gap_starts = {0};
    for (const auto& u : used) gap_starts.push_back(u.second);
    std::sort(gap_starts.begin(), gap_starts.end());
    Offset best = -1;
    Bytes best_gap = std::numeric_limits<Bytes>::max();
    for (Offset start : gap_starts) {
      bool inside = false;
      Offset limit = std::numeric_limits<Offset>::max();
      for (const auto& u : used) {
        if (u.first <= start && start < u.second) inside = true;
        if (u.first > start) limit = std::min(limit, u.first);
      }
      if (inside) continue;
      const Offset candidate = AlignUp(start, b.alignment);
      if (candidate + b.size > limit) continue;
      if (rule == GapRule::kFirstFit) {
        best = candidate;
        break;
      }
      const Bytes gap = limit == std::numeric_limits<Offset>::max() ? std::numeric_limits<Bytes>::max() - 1 : limit - start;
      if (gap < best_gap) {
        best_gap = gap;
        best = candidate;
      }
    }
    s.offsets[i] = best;
    placed[i] = true;
  }
  return s;
}

TEST(Greedy, FirstFitAndBestFitMatchTheirDefinitions) {
  common::Rng rng(21);
  for (int trial = 0; trial < 300; ++trial) {
    // Every 30th problem is large enough that a set of address runs holds dozens, which a gap search
    // walks through in strides.
    const size_t n = trial % 30 == 0 ? 400 + rng.Below(200) : 2 + rng.Below(30);
    Problem p = RandomProblem(rng, n, trial % 3 == 0, trial % 2 == 0, false);
    for (GapRule rule : {GapRule::kFirstFit, GapRule::kBestFit}) {
      for (const auto& order : {OrderBySize(p), OrderBySize(p, SizeTies::kEarlierAllocation),
                                OrderBySize(p, SizeTies::kLaterFree),
                                OrderBySize(p, SizeTies::kLongerLifespan, SizeClasses::kOctave),
                                OrderBySize(p, SizeTies::kEarlierAllocation, SizeClasses::kHalfOctave),
                                OrderByLifespan(p), OrderByAllocationTime(p)}) {
        const Solution fast = PlaceInOrder(p, order, rule);
        const Solution naive = NaivePlace(p, order, rule);
        ASSERT_EQ(fast.offsets, naive.offsets) << "trial " << trial << " rule " << static_cast<int>(rule);
      }
    }
  }
}

TEST(Greedy, OrderBySizeBreaksTiesAsAsked) {
  // Buffers 0-2 share a size: 0 lives [4, 6), 1 lives [0, 9), 2 lives [2, 5); 3 is the largest.
  Problem p;
  for (const auto& [lower, upper, size] : {std::tuple{4, 6, 8}, {0, 9, 8}, {2, 5, 8}, {7, 8, 16}}) {
    Buffer b;
    b.lower = lower;
    b.upper = upper;
    b.size = size;
    p.buffers.push_back(b);
  }
  EXPECT_EQ(OrderBySize(p), (std::vector<BufferIndex>{3, 1, 2, 0}));
  EXPECT_EQ(OrderBySize(p, SizeTies::kLongerLifespan), (std::vector<BufferIndex>{3, 1, 2, 0}));
  EXPECT_EQ(OrderBySize(p, SizeTies::kEarlierAllocation), (std::vector<BufferIndex>{3, 1, 2, 0}));
  EXPECT_EQ(OrderBySize(p, SizeTies::kLaterFree), (std::vector<BufferIndex>{3, 1, 0, 2}));
  p.buffers[2].lower = 5;  // now [5, 7): allocated after 0
  p.buffers[2].upper = 7;
  EXPECT_EQ(OrderBySize(p, SizeTies::kEarlierAllocation), (std::vector<BufferIndex>{3, 1, 0, 2}));
}

TEST(Greedy, OrderBySizeTakesSizeClassesAsOne) {
  // 1448 < 2^10 * sqrt(2) < 1449: one octave, two half octaves. Buffer 0 is the longest-lived and the last
  // allocated.
  Problem p;
  for (const auto& [lower, size] : {std::pair{3, 1448}, {1, 1449}, {2, 1500}, {0, 2048}}) {
    Buffer b;
    b.lower = lower;
    b.upper = lower == 3 ? 20 : 5;
    b.size = size;
    p.buffers.push_back(b);
  }
  EXPECT_EQ(OrderBySize(p), (std::vector<BufferIndex>{3, 2, 1, 0}));
  EXPECT_EQ(OrderBySize(p, SizeTies::kLongerLifespan, SizeClasses::kOctave),
            (std::vector<BufferIndex>{3, 0, 1, 2}));
  EXPECT_EQ(OrderBySize(p, SizeTies::kEarlierAllocation, SizeClasses::kOctave),
            (std::vector<BufferIndex>{3, 1, 2, 0}));
  // 1449 and 1500 share a half octave and are freed together: the larger goes first.
  EXPECT_EQ(OrderBySize(p, SizeTies::kLaterFree, SizeClasses::kHalfOctave), (std::vector<BufferIndex>{3, 2, 1, 0}));
  // Sizes beyond 2^31 (their squares overflow 64 bits): 1.3 * 2^40 and 2^40 share a half octave, 1.5 * 2^40
  // is in the next one.
  const Bytes tera = Bytes{1} << 40;
  p.buffers[0].size = tera * 13 / 10;
  p.buffers[1].size = tera;
  p.buffers[2].size = tera * 3 / 2;
  EXPECT_EQ(OrderBySize(p, SizeTies::kLongerLifespan, SizeClasses::kHalfOctave),
            (std::vector<BufferIndex>{2, 0, 1, 3}));
}

// The lowest first fit of the three orders by exact size.
Bytes LowestByExactSize(const Problem& p) {
  Bytes lowest = std::numeric_limits<Bytes>::max();
  for (const SizeTies ties : {SizeTies::kLongerLifespan, SizeTies::kEarlierAllocation, SizeTies::kLaterFree}) {
    lowest = std::min(lowest, Height(p, PlaceInOrder(p, OrderBySize(p, ties), GapRule::kFirstFit)));
  }
  return lowest;
}

// The lowest first fit of the planners' six starting orders: the three by exact size and three by classes.
Bytes LowestFirstFit(const Problem& p) {
  Bytes lowest = LowestByExactSize(p);
  for (const auto& order : {OrderBySize(p, SizeTies::kLongerLifespan, SizeClasses::kOctave),
                            OrderBySize(p, SizeTies::kLongerLifespan, SizeClasses::kHalfOctave),
                            OrderBySize(p, SizeTies::kEarlierAllocation, SizeClasses::kOctave)}) {
    lowest = std::min(lowest, Height(p, PlaceInOrder(p, order, GapRule::kFirstFit)));
  }
  return lowest;
}

// The annealing planner and the exact search start from the lowest first fit: with one move or node they
// end no higher.
void ExpectStartNoHigherThan(const Problem& p, Bytes height) {
  common::Progress quiet(false);
  for (const std::string method : {"sa", "exact", "exact+sa"}) {
    PlanOptions options;
    options.method = method;
    options.moves = 1;
    EXPECT_LE(PlanAllocation(p, options, quiet).height, height) << method;
  }
}

// The buffers of FastSA's schedule of mobilenet_v3_large_bs64 at 25 % (data/schedules): many activations
// share a size, and first fit with ties by longer lifespan ends 19.4 % above the peak load where ties by
// allocation time end 1.1 % above.
TEST(Planner, StartsFromTheLowestFirstFit) {
  const Problem p = ReadProblem(std::string(SCHEDULES_DIR) + "/mobilenet_v3_large_bs64-25.csv");
  const Bytes lowest = LowestFirstFit(p);
  const Bytes by_lifespan = Height(p, PlaceInOrder(p, OrderBySize(p), GapRule::kFirstFit));
  EXPECT_GT(Fragmentation(by_lifespan, PeakLoad(p)), 0.1);
  EXPECT_LT(Fragmentation(lowest, PeakLoad(p)), 0.02);
  ExpectStartNoHigherThan(p, lowest);
}

// densenet121_bs32's schedules (data/schedules): by octave or half octave the saved activations go below the
// gradients at the end of the backward pass. At 50 % by half octaves, longer lifespan first: 3.2 % above the
// peak load where the orders by exact size end 3.6 % above or higher; at 25 % by octaves, earlier allocation
// first: 4.1 % against 6.4 %.
TEST(Planner, StartsFromSizeClassesWhereTheyAreLower) {
  struct Case {
    std::string file;
    SizeTies ties;
    SizeClasses classes;
    double exact_size_above;  // the orders by exact size end at least this far above the peak load
    double classes_below;     // the order by classes ends below this
  };
  const Case cases[] = {
      {"densenet121_bs32-50.csv", SizeTies::kLongerLifespan, SizeClasses::kHalfOctave, 0.035, 0.033},
      {"densenet121_bs32-25.csv", SizeTies::kEarlierAllocation, SizeClasses::kOctave, 0.06, 0.045},
  };
  for (const Case& c : cases) {
    const Problem p = ReadProblem(std::string(SCHEDULES_DIR) + "/" + c.file);
    const Bytes by_classes = Height(p, PlaceInOrder(p, OrderBySize(p, c.ties, c.classes), GapRule::kFirstFit));
    EXPECT_GT(Fragmentation(LowestByExactSize(p), PeakLoad(p)), c.exact_size_above) << c.file;
    EXPECT_LT(Fragmentation(by_classes, PeakLoad(p)), c.classes_below) << c.file;
    EXPECT_EQ(LowestFirstFit(p), by_classes) << c.file;
    ExpectStartNoHigherThan(p, by_classes);
  }
}

TEST(Planner, EveryMethodGivesValidPlans) {
  common::Rng rng(8);
  common::Progress quiet(false);
  for (int trial = 0; trial < 60; ++trial) {
    Problem p = RandomProblem(rng, 3 + rng.Below(60), trial % 3 == 0, trial % 2 == 0, trial % 5 == 0);
    const Bytes lb = PeakLoad(p);
    for (const std::string& method : Methods()) {
      PlanOptions options;
      options.method = method;
      options.moves = 300;
      options.seed = static_cast<uint64_t>(trial);
      const PlanResult r = PlanAllocation(p, options, quiet);
      const ValidationReport report = Validate(p, r.solution);
      ASSERT_TRUE(report.ok()) << method << " trial " << trial << ": " << report.errors[0];
      EXPECT_EQ(r.height, report.height);
      EXPECT_EQ(r.lower_bound, lb);
      EXPECT_GE(r.height, lb);
    }
  }
}

TEST(Planner, AnnealingIsNeverWorseThanFirstFitAndIsDeterministic) {
  common::Rng rng(4);
  common::Progress quiet(false);
  for (int trial = 0; trial < 20; ++trial) {
    Problem p = RandomProblem(rng, 40 + rng.Below(60), false, false, false);
    PlanOptions options;
    options.method = "sa";
    options.moves = 500;
    options.seed = 7;
    const PlanResult a = PlanAllocation(p, options, quiet);
    const PlanResult b = PlanAllocation(p, options, quiet);
    EXPECT_EQ(a.solution.offsets, b.solution.offsets);
    EXPECT_LE(a.height, Height(p, PlaceInOrder(p, OrderBySize(p), GapRule::kFirstFit)));
    if (a.moves > 0) {
      EXPECT_EQ(a.candidates_scored % a.moves, 0u);  // every move scores every position
    }
  }
}

TEST(Planner, AnnealingStopsAtTheLowerBoundAndAtTheCapacity) {
  common::Progress quiet(false);
  // MiniMalloc's example: LB 12 is reachable.
  Problem p = ParseProblem("input.12.csv", "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n");
  PlanOptions options;
  options.method = "sa";
  options.moves = 100000;
  PlanResult r = PlanAllocation(p, options, quiet);
  EXPECT_EQ(r.height, 12);
  EXPECT_EQ(r.stop_reason, common::StopReason::kTarget);
  EXPECT_LT(r.moves, 100000u);

  // A capacity above the greedy height stops at once, with the greedy plan.
  common::Rng rng(2);
  Problem q = RandomProblem(rng, 80, false, false, false);
  options.capacity = std::numeric_limits<Bytes>::max() / 4;
  r = PlanAllocation(q, options, quiet);
  EXPECT_EQ(r.stop_reason, common::StopReason::kTarget);
  EXPECT_EQ(r.moves, 0u);
}

// The default budget is bought by the time limit, not fixed by the problem's size: four times the time, four
// times the moves; more buffers, fewer moves (each scores more positions, and more slowly); never below 50.
TEST(Planner, DefaultMovesFollowTheTimeLimit) {
  EXPECT_NEAR(static_cast<double>(DefaultAnnealingMoves(465, 40)), 4.0 * DefaultAnnealingMoves(465, 10), 4);
  EXPECT_GT(DefaultAnnealingMoves(465, 10), 20000u);  // 6·10^6 / N before; too few for schedules' buffers
  EXPECT_LT(DefaultAnnealingMoves(10000, 10) * 10000, DefaultAnnealingMoves(1000, 10) * 1000);
  EXPECT_EQ(DefaultAnnealingMoves(1000000, 1), 50u);
  EXPECT_EQ(DefaultAnnealingMoves(0, 0), 50u);
}

// The search's default budget is work, bought by the time limit like the annealing moves.
TEST(Planner, DefaultSearchWorkFollowsTheTimeLimit) {
  EXPECT_EQ(DefaultSearchWork(40), 4 * DefaultSearchWork(10));
  EXPECT_EQ(DefaultSearchWork(10), static_cast<uint64_t>(5 * kSearchWorkPerSecond));
  EXPECT_EQ(DefaultSearchWork(0), 1000000u);
}

// effort_s, where given, sizes the default budgets in place of the time limit, which then only caps the wall
// clock: a stage given what is left of a deadline (memplan plan) plans the same whenever it starts.
TEST(Planner, EffortSizesTheDefaultBudgetsNotTheTimeLimit) {
  common::Rng rng(6);
  common::Progress quiet(false);
  const Problem p = RandomProblem(rng, 300, false, false, false);
  PlanOptions options;
  options.method = "sa";
  options.time_limit_s = 60;
  options.effort_s = 0.01;
  const PlanResult annealed = PlanAllocation(p, options, quiet);
  ASSERT_EQ(annealed.stop_reason, common::StopReason::kMoveLimit);
  EXPECT_EQ(annealed.moves, DefaultAnnealingMoves(p.buffers.size(), 0.01));
  options.method = "exact+sa";
  const PlanResult a = PlanAllocation(p, options, quiet);
  EXPECT_LE(a.work, DefaultSearchWork(0.01) + DefaultSearchWork(0.01) / 10);  // a node's work may overrun
  options.time_limit_s = 30;
  const PlanResult b = PlanAllocation(p, options, quiet);
  EXPECT_EQ(a.solution.offsets, b.solution.offsets);
  EXPECT_EQ(a.moves, b.moves);
  EXPECT_EQ(a.work, b.work);
}

// Where the search cannot end one descent within its budget it is not run, and exact+sa is sa move for
// move: the time limit buys the same annealing.
TEST(Planner, ExactThenAnnealingIsAnnealingAloneWhereTheSearchIsRefused) {
  common::Rng rng(5);
  common::Progress quiet(false);
  const Problem p = RandomProblem(rng, 5000, false, false, false);
  PlanOptions options;
  options.time_limit_s = 0.4;  // 4·10^7 units of work; one descent of 5000 buffers in one part costs more
  options.method = "exact+sa";
  const PlanResult both = PlanAllocation(p, options, quiet);
  EXPECT_EQ(both.search_outcome, "over-budget");
  EXPECT_EQ(both.nodes, 0u);
  options.method = "sa";
  const PlanResult annealing = PlanAllocation(p, options, quiet);
  if (both.stop_reason != common::StopReason::kMoveLimit || annealing.stop_reason != common::StopReason::kMoveLimit) {
    GTEST_SKIP() << "the clock ended a run (a slow or instrumented build): the move budgets were not compared";
  }
  EXPECT_EQ(both.moves, annealing.moves);
  EXPECT_EQ(both.solution.offsets, annealing.solution.offsets);
}

TEST(Planner, UnknownMethodIsRejected) {
  common::Progress quiet(false);
  Problem p = ParseProblem("p.csv", "id,lower,upper,size\na,0,1,1\n");
  PlanOptions options;
  options.method = "magic";
  EXPECT_THROW(PlanAllocation(p, options, quiet), std::invalid_argument);
}

}  // namespace
}  // namespace alloc
