// The allocation planners behind one entry point: the greedy baselines, the annealing planner and the exact
// search.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "alloc/problem.h"
#include "common/annealing.h"
#include "common/progress.h"

namespace alloc {

// The method `memplan alloc`, `memplan plan` and the Python bindings use unless told otherwise: the exact
// search, then annealing from its plan.
inline constexpr const char* kDefaultMethod = "exact+sa";

// What to run and for how long.
struct PlanOptions {
  std::string method = kDefaultMethod;  // one of Methods()
  double time_limit_s = 10.0;       // wall-clock cap; the default budgets (moves, work) follow it
  // The seconds the default budgets are sized for instead, when positive. A caller that gives a stage what
  // is left of a deadline sets it, so that the budgets, and with them the plan, do not depend on when the
  // stage started (memplan plan).
  double effort_s = 0;
  uint64_t moves = 0;               // annealing move budget (exact search: node budget); 0: the default
  uint64_t seed = 1;
  std::optional<Bytes> capacity;    // stop as soon as the height is at most this
};

// A plan and how it was found.
struct PlanResult {
  Solution solution;
  std::string method;
  Bytes lower_bound = 0;     // peak load
  Bytes height = 0;
  double seconds = 0;
  uint64_t moves = 0;              // annealing moves (0 for greedy methods)
  uint64_t candidates_scored = 0;  // candidate plans scored (annealing: moves x reinsertion positions)
  common::StopReason stop_reason = common::StopReason::kMoveLimit;
  uint64_t nodes = 0;              // exact search: nodes visited over every capacity tried
  uint64_t work = 0;               // exact search: work done (SearchLimits::max_work)
  bool proven_optimal = false;     // exact search: no plan can be lower
  std::string search_outcome;      // exact search: how its last search ended (alloc::ToString(SearchOutcome))
};

// Names accepted by PlanOptions::method, the annealing planner ("sa") first.
const std::vector<std::string>& Methods();

// The annealing planner's move budget when PlanOptions::moves is 0: what half of `time_limit_s` allows at a
// fixed rate model that falls with the number of buffers (planner.cc), at least 50.
uint64_t DefaultAnnealingMoves(size_t buffers, double time_limit_s);

// The rate model of the exact search: units of work (SearchLimits::max_work) a second.
inline constexpr double kSearchWorkPerSecond = 2e8;

// The exact search's work budget when PlanOptions::moves is 0 (with moves, the search gets that many
// nodes instead): what half of `time_limit_s` allows at kSearchWorkPerSecond, at least 10^6.
uint64_t DefaultSearchWork(double time_limit_s);

// Runs one method. Throws std::invalid_argument for an unknown method name.
PlanResult PlanAllocation(const Problem& problem, const PlanOptions& options, common::Progress& progress);

}  // namespace alloc
