#include "alloc/planner.h"

#include <stdexcept>

#include "alloc/annealing_planner.h"
#include "alloc/drop_order.h"
#include "alloc/greedy.h"
#include "common/stopwatch.h"

namespace alloc {

const std::vector<std::string>& Methods() {
  static const std::vector<std::string> methods = {"sa",  "first-fit",        "best-fit",       "xla",
                                                   "drop", "online-first-fit", "online-best-fit"};
  return methods;
}

namespace {

// Where the annealing planner starts: first fit in decreasing size order. (Best fit is seldom lower on
// the MiniMalloc inputs and costs far more on training patterns with thousands of live buffers, where its
// gap search dominates; see bench/.)
Solution StartingPlan(const Problem& problem) {
  return PlaceInOrder(problem, OrderBySize(problem), GapRule::kFirstFit);
}

// Default move budget: a move costs about 10 skyline operations per buffer, so 6 * 10^6 / N moves are
// about 6 * 10^7 operations, one to a few seconds on one core. A fixed budget (not the clock) drives the
// cooling so that the same input and seed give the same plan on any machine.
uint64_t DefaultMoves(size_t buffers) {
  return std::clamp<uint64_t>(6'000'000ull / std::max<size_t>(buffers, 1), 50, 1'000'000);
}

}  // namespace

PlanResult PlanAllocation(const Problem& problem, const PlanOptions& options, common::Progress& progress) {
  common::Stopwatch clock;
  PlanResult result;
  result.method = options.method;
  result.lower_bound = PeakLoad(problem);
  const std::string& m = options.method;
  if (m == "sa") {
    const Bytes target = options.capacity ? std::max(*options.capacity, result.lower_bound) : result.lower_bound;
    DropOrderAnnealer annealer(problem, StartingPlan(problem), target);
    common::AnnealingSchedule schedule;
    // The paper's schedule, in bytes: from peak_load / 300 down to min(100, start / 1000).
    schedule.start_temperature = std::max(1.0, static_cast<double>(result.lower_bound) / 300.0);
    schedule.end_temperature = std::min(100.0, schedule.start_temperature / 1000.0);
    schedule.max_moves = options.moves > 0 ? options.moves : DefaultMoves(problem.buffers.size());
    schedule.time_limit_s = std::max(0.0, options.time_limit_s - clock.Seconds());
    if (schedule.time_limit_s <= 0) schedule.time_limit_s = 1e-9;
    common::Rng rng(options.seed);
    const common::AnnealingResult run = common::Anneal(annealer, schedule, rng, progress, "memplan alloc (sa)");
    result.solution = annealer.BestSolution();
    result.moves = run.moves;
    result.candidates_scored = annealer.candidates_scored();
    result.stop_reason = run.reason;
  } else if (m == "first-fit" || m == "best-fit") {
    result.solution = PlaceInOrder(problem, OrderBySize(problem), m == "first-fit" ? GapRule::kFirstFit : GapRule::kBestFit);
  } else if (m == "xla") {
    Solution by_size = PlaceInOrder(problem, OrderBySize(problem), GapRule::kBestFit);
    Solution by_lifespan = PlaceInOrder(problem, OrderByLifespan(problem), GapRule::kBestFit);
    result.solution = Height(problem, by_size) <= Height(problem, by_lifespan) ? by_size : by_lifespan;
  } else if (m == "drop") {
    // Decreasing size order dropped onto the skyline: O(N log T), for inputs too large for the gap search.
    DropDecoder decoder(problem);
    result.solution.offsets.assign(problem.buffers.size(), 0);
    for (size_t i = 0; i < problem.buffers.size(); ++i) {
      if (problem.buffers[i].fixed_offset) result.solution.offsets[i] = *problem.buffers[i].fixed_offset;
    }
    decoder.Decode(OrderBySize(problem), result.solution.offsets);
  } else if (m == "online-first-fit" || m == "online-best-fit") {
    result.solution = PlaceInOrder(problem, OrderByAllocationTime(problem),
                                   m == "online-first-fit" ? GapRule::kFirstFit : GapRule::kBestFit);
  } else {
    throw std::invalid_argument("unknown method '" + m + "'");
  }
  result.height = Height(problem, result.solution);
  result.seconds = clock.Seconds();
  return result;
}

}  // namespace alloc
