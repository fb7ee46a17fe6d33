// Planning steps that more than one subcommand runs: reading a trace with its sidecar (alloc, validate,
// simulate, report), the allocation methods with validation and the caching-allocator simulation (alloc,
// report), and memplan plan's pipeline, recomputation then the arena (remat, plan, report).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "alloc/caching_allocator.h"
#include "alloc/planner.h"
#include "alloc/problem.h"
#include "alloc/trace_sidecar.h"
#include "common/progress.h"
#include "remat/graph.h"
#include "remat/planner.h"

namespace tools {

// The period of a trace and the sidecar beside it (alloc/trace_sidecar.h), if any.
struct TracePeriod {
  alloc::TimeValue period = 0;
  std::optional<alloc::TraceSidecar> sidecar;
  bool from_sidecar = false;  // no --period was given, and the sidecar's is used
};

// The period of the trace at `path`: `period` (--period) when given, else its sidecar's, else 0 (not
// periodic). A --period that differs from the sidecar's wins, with a note on stderr, as does a sidecar of
// another kind.
TracePeriod PeriodOf(const std::string& path, const std::optional<alloc::TimeValue>& period);

// A trace read with its period (PeriodOf).
struct Trace {
  alloc::Problem problem;
  TracePeriod period;
};

// Reads the trace at `path` (a MiniMalloc CSV) with its period as PeriodOf gives it.
Trace ReadTrace(const std::string& path, const std::optional<alloc::TimeValue>& period);

// Runs each of `methods` with `base` (its method replaced), in order; stops after the current one on Ctrl-C.
std::vector<alloc::PlanResult> PlanMethods(const alloc::Problem& problem, const std::vector<std::string>& methods,
                                           const alloc::PlanOptions& base, common::Progress& progress);

// The figures of one plan as JSON: method, lb, height, fragmentation, wasted_share, seconds (and the
// annealing planner's moves, candidates scored and stop reason).
nlohmann::json PlanJson(const alloc::PlanResult& r);

// Checks every plan with the independent validator. An invalid plan is a bug: its errors go to stderr and
// std::runtime_error (an internal error) is thrown.
void ValidatePlans(const alloc::Problem& problem, const std::vector<alloc::PlanResult>& results);

// The caching-allocator settings a command simulates: `conf` when given (--conf), else the
// PYTORCH_CUDA_ALLOC_CONF variable, else PyTorch's defaults. Stores the settings text in `text` if given.
alloc::CachingAllocatorConfig CachingConfigFromEnvironment(const std::optional<std::string>& conf,
                                                           std::string* text = nullptr);

// One replay of a pattern through the simulated PyTorch caching allocator, and how long it took.
struct CachingRun {
  alloc::CachingAllocatorResult result;
  double seconds = 0;
};

// Replays `problem` through the caching allocator with the settings of `conf` or the environment.
CachingRun SimulateCaching(const alloc::Problem& problem, const std::optional<std::string>& conf);

// Percentage change from `reference` to `value` (0 when the reference is 0).
double PercentIncrease(double value, double reference);

// Works out the budget from its text (bytes or a percentage of the reference peak) and plans, warning on
// stderr when the budget is below `lower_bound` (the graph's PeakLowerBound, computed once by the caller).
remat::RematResult Plan(const remat::Graph& graph, const std::string& budget_text, remat::Bytes lower_bound,
                        const remat::RematOptions& options, bool quiet);

// Says on stderr, where FastSA ended by its moves over a budget that the lower bound does not rule out, how a
// run could go further: more moves, which a longer --time-limit gives by default (efficientnet_b0 at batch 32,
// 25 %: 28.5 % of the reference peak in 10 s, 25.6 % in 40 s). A run cut by the clock or Ctrl-C says so itself.
void NoteMissedBudget(const remat::RematResult& result, remat::Bytes lower_bound, const remat::RematOptions& options);

// Checks a result with the independent validator; throws std::logic_error (an internal error) if invalid.
void CheckResult(const remat::Graph& graph, const remat::RematResult& result);

// One schedule memplan plan planned, and its arena.
struct JointTry {
  bool to_lower_cost = false;    // the cheaper replan: afresh at a fitting retry's aim, for less compute
  bool gone_on = false;          // gone on from the best schedule so far, not planned from the reference order
  remat::Bytes aim = 0;          // the budget the schedule was planned for
  remat::Bytes peak = 0;         // the schedule's peak
  alloc::Bytes arena_height = 0;  // the height of its arena
  remat::Cost cost = 0;          // the schedule's cost
};

// What memplan plan finds: a schedule, its buffers placed in one arena, and what PyTorch's caching
// allocator (simulated, PYTORCH_CUDA_ALLOC_CONF honoured) would reserve instead.
struct JointPlan {
  remat::RematResult schedule;  // budget is the requested one; budget_met says whether the arena fits it
  alloc::Problem buffers;       // the schedule's buffers as an allocation problem
  alloc::PlanResult arena;      // the annealing planner's placement of `buffers`
  alloc::Bytes reserved_reference = 0;  // caching allocator's peak reserved memory for the reference order
  alloc::Bytes reserved_schedule = 0;   // and for the schedule
  std::vector<JointTry> tries;          // every schedule planned, in order (the first, then the retries)
};

// Recomputes to fit the budget, then places every buffer (memplan plan). When the arena is over the budget,
// plans again (three times at most) for a budget lowered by the overshoot or by the fragmentation, whichever
// is more: afresh while the schedules meet their lowered budgets, then going on from the best schedule so far
// (remat::ContinueRemat; at once when the first schedule is over the budget, FastSA only), until one of those
// is over its budget and no better. Keeps the first result whose arena fits, else the lowest arena. After a
// retry that fits, plans once more afresh at its aim with a larger share of the limit (the cheaper replan),
// and keeps that instead if its arena fits too and it costs less.
// `options.time_limit_s` covers every try; each stage's budgets are sized by a fixed share of it, so the same
// inputs give the same plan unless the deadline cuts a stage (planning.cc). The seconds are those of every
// try.
JointPlan PlanJointly(const remat::Graph& graph, const std::string& budget_text, remat::Bytes lower_bound,
                      const remat::RematOptions& options, bool quiet);

}  // namespace tools
