// The simulated-annealing loop that both planners share: geometric cooling, Metropolis acceptance,
// the best state kept aside, and the stopping rules (target reached, move budget, time limit, Ctrl-C).
// Each planner supplies only its state and its move; see the Annealable concept below.
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <string>

#include "common/interrupt.h"
#include "common/progress.h"
#include "common/rng.h"
#include "common/stopwatch.h"

namespace common {

// What an annealing planner provides. Lower objective is better.
template <typename P>
concept Annealable = requires(P p, const P cp, double temperature, Rng& rng, double best) {
  { cp.Objective() } -> std::convertible_to<double>;  // objective of the current state
  p.Move(temperature, rng);                            // propose one move; accept or reject it
  p.KeepBest();                                        // remember the current state as the best
  { cp.TargetReached(best) } -> std::convertible_to<bool>;  // stop early at this best objective
  { cp.Describe(best) } -> std::convertible_to<std::string>;  // status for the progress line
};

// How long to anneal and how hot. The temperature falls geometrically from start to end over the run,
// measured in moves when `max_moves` is set (then the same seed gives the same result whatever the
// machine's speed, unless the time limit cuts the run short), else in seconds of `time_limit_s`.
struct AnnealingSchedule {
  double start_temperature = 1.0;
  double end_temperature = 1e-3;
  uint64_t max_moves = 0;       // 0: no move budget (the time limit drives the schedule)
  double time_limit_s = 10.0;   // wall-clock cap; <= 0 means none (then max_moves must be set)
};

// The seconds the default budgets (moves, work) of a run are sized for: `effort_s` where a caller set it (a
// stage given what is left of a deadline, whose budgets must not depend on when it started), else the run's
// time limit.
inline double EffortSeconds(double effort_s, double time_limit_s) { return effort_s > 0 ? effort_s : time_limit_s; }

// Why an annealing run ended.
enum class StopReason { kTarget, kMoveLimit, kTimeLimit, kInterrupted };

// Returns "target", "moves", "time" or "interrupted".
inline const char* ToString(StopReason reason) {
  switch (reason) {
    case StopReason::kTarget: return "target";
    case StopReason::kMoveLimit: return "moves";
    case StopReason::kTimeLimit: return "time";
    case StopReason::kInterrupted: return "interrupted";
  }
  return "?";
}

// Summary of one annealing run.
struct AnnealingResult {
  uint64_t moves = 0;     // moves proposed
  double seconds = 0;     // wall-clock time spent
  double best = 0;        // best objective seen (the state passed to KeepBest())
  StopReason reason = StopReason::kMoveLimit;
};

// Metropolis rule: always accept an improvement, accept a worsening `delta` with probability
// exp(-delta / temperature).
inline bool Metropolis(double delta, double temperature, Rng& rng) {
  if (delta <= 0) return true;
  if (temperature <= 0) return false;
  return rng.Uniform() < std::exp(-delta / temperature);
}

// Anneals `problem` from its current state. On return the best state has been passed to KeepBest();
// the current state is whatever the last move left.
template <Annealable P>
AnnealingResult Anneal(P& problem, const AnnealingSchedule& schedule, Rng& rng, Progress& progress,
                       const std::string& phase) {
  AnnealingResult result;
  Stopwatch clock;
  result.best = problem.Objective();
  problem.KeepBest();
  if (problem.TargetReached(result.best)) {
    result.reason = StopReason::kTarget;
    return result;
  }
  const bool by_moves = schedule.max_moves > 0;
  constexpr uint64_t kCoolingStride = 64;
  const double log_ratio = std::log(schedule.end_temperature / schedule.start_temperature);
  double temperature = schedule.start_temperature;
  // The clock is read every `stride` moves; the stride grows while moves are fast so that reading the
  // clock costs nothing measurable, and stays 1 while moves are slow so that the limit is kept.
  uint64_t stride = 1;
  uint64_t next_check = 0;
  double last_check_time = 0;
  while (true) {
    if (result.moves >= next_check) {
      const double now = clock.Seconds();
      if (InterruptRequested()) {
        result.reason = StopReason::kInterrupted;
        break;
      }
      if (schedule.time_limit_s > 0 && now >= schedule.time_limit_s) {
        result.reason = StopReason::kTimeLimit;
        break;
      }
      if (by_moves && result.moves >= schedule.max_moves) {
        result.reason = StopReason::kMoveLimit;
        break;
      }
      if (now - last_check_time < 1e-3 && stride < 4096) stride *= 2;
      last_check_time = now;
      next_check = result.moves + stride;
      if (by_moves) next_check = std::min(next_check, schedule.max_moves);
      // Time-driven cooling happens at the clock checks: often enough, since the stride stays small.
      if (!by_moves) temperature = schedule.start_temperature * std::exp(log_ratio * now / schedule.time_limit_s);
      if (progress.Due()) progress.Show(phase, problem.Describe(result.best));
    }
    // Move-driven cooling happens at fixed move counts, never at the clock checks (whose spacing depends
    // on the machine's speed), so that the same seed gives the same result.
    if (by_moves && result.moves % kCoolingStride == 0) {
      temperature = schedule.start_temperature *
                    std::exp(log_ratio * static_cast<double>(result.moves) / schedule.max_moves);
    }
    problem.Move(temperature, rng);
    ++result.moves;
    const double objective = problem.Objective();
    if (objective < result.best) {
      result.best = objective;
      problem.KeepBest();
      if (problem.TargetReached(result.best)) {
        result.reason = StopReason::kTarget;
        break;
      }
    }
  }
  result.seconds = clock.Seconds();
  return result;
}

}  // namespace common
