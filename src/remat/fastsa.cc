#include "remat/fastsa.h"

#include <cmath>

#include "common/rng.h"
#include "common/stopwatch.h"
#include "remat/grouping.h"
#include "remat/slot_state.h"

namespace remat {
namespace {

// The paper's cooling: from 0.1 % of the starting objective down by 10^-4 over a stage.
constexpr double kStartFraction = 1e-3;
constexpr double kCooling = 1e-4;

}  // namespace

FastsaResult RunFastsa(const Graph& graph, const FastsaOptions& options, common::Progress& progress) {
  FastsaResult result;
  common::Stopwatch clock;
  common::Rng rng(options.seed);
  Sequence start = graph.order;
  double temperature = -1;  // where stage 2 starts cooling from; set by stage 1
  const auto remaining = [&] { return std::max(1e-3, options.time_limit_s - clock.Seconds()); };
  if (!options.reorder_only) {
    // Stage 1: grouped nodes, stopping as soon as the budget is met; at most 60 % of the time.
    const Grouping grouping = GroupNodes(graph);
    result.groups = grouping.graph.nodes.size();
    SlotState state(grouping.graph, grouping.graph.order, options.budget, MoveSet::kFull, true);
    const double start_temperature = kStartFraction * state.AnnealingObjective();
    const common::AnnealingResult run = common::Anneal(
        state,
        {.start_temperature = start_temperature,
         .end_temperature = start_temperature * kCooling,
         .max_moves = options.stage1_moves,
         .time_limit_s = 0.6 * options.time_limit_s},
        rng, progress, "remat stage 1 (grouped)");
    result.moves += run.moves;
    result.stop_reason = run.reason;
    start = Ungroup(grouping, state.Best());
    temperature = start_temperature * std::pow(kCooling, static_cast<double>(run.moves) / options.stage1_moves);
    if (run.reason == common::StopReason::kInterrupted) {
      result.sequence = start;
      result.seconds = clock.Seconds();
      return result;
    }
  }
  // Stage 2 (or the only stage of reorder-only): single nodes, from the best schedule so far.
  SlotState state(graph, start, options.budget,
                  options.reorder_only ? MoveSet::kReorderOnly : MoveSet::kFull, false);
  if (temperature < 0) temperature = kStartFraction * state.AnnealingObjective();
  const common::AnnealingResult run = common::Anneal(
      state,
      {.start_temperature = temperature,
       .end_temperature = temperature * kCooling,
       .max_moves = options.reorder_only ? options.stage1_moves : options.stage2_moves,
       .time_limit_s = remaining()},
      rng, progress, options.reorder_only ? "remat reorder" : "remat stage 2");
  result.moves += run.moves;
  result.stop_reason = run.reason;
  result.sequence = state.Best();
  result.seconds = clock.Seconds();
  return result;
}

}  // namespace remat
