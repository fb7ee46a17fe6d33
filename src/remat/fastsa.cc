#include "remat/fastsa.h"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <tuple>

#include "common/rng.h"
#include "common/stopwatch.h"
#include "remat/grouping.h"
#include "remat/simulator.h"
#include "remat/slot_state.h"
#include "remat/views.h"

namespace remat {
namespace {

// Cooling from 1 % of the starting objective down by 10^-4 over a stage. The paper starts at 0.1 %; on the
// Moccasin graphs a single step costs about 1 % of the total, so at 0.1 % every recomputation is refused from
// the start and the walk keeps the first schedule that meets the budget (FCN8-VGG at 70 %: +3.04 % at 0.1 %,
// +1.59 % at 1 %; RL n1000 at 70 %: +7.6 % -> +6.1 %; RL n250 at 70 %: +3.2 % -> +0.75 %).
constexpr double kStartFraction = 1e-2;
constexpr double kCooling = 1e-4;
// A continuation (ContinueFastsa) cools from 10^-4 of its start's objective: it must keep the schedule it goes
// on from. memplan plan's retries at 25 % on the training batches of data/torch, seeds 1–3 of densenet121,
// vit_b_16 and convnext_tiny, met the budget 5 times of 9 from 10^-4 and 3 from 10^-3; seed 1 from 10^-2 none
// of 3, where a hotter walk gives back the recomputations the start had (2026-12-01).
constexpr double kContinueStartFraction = 1e-4;
// Share of the moves that the reordering stage gets when recomputation follows.
constexpr double kReorderShare = 0.1;
// The reordering stage starts hotter, at 10 % of its objective: its cost is fixed, so the objective moves
// only with the peak, and at 1 % a move that raises the peak by 1 % passes with probability e^-2; the walk
// froze in the first order it found (RL n100 at 80 %: 88.8 % of the reference peak on every seed, so the
// rounds had to recompute, +1.57 %; at 10 % the stage reaches 79.9 % in 0.07 M moves, at +0.00 %).
constexpr double kReorderStartFraction = 0.1;
// Share of a round's moves that its grouped stage may use; the single-node stage gets the rest.
constexpr double kGroupedShare = 2.0 / 3.0;
// The power of the peak's excess over the budget in the objective, by round. The paper's plain product (1)
// refuses a recomputation of a few percent that brings a peak a few percent over the budget under it; the
// square accepts it but settles on costlier schedules elsewhere (RL n100 at 80 %: +1.57 % with 2, +0.0 % on
// some seeds with 1; at 70 %: budget met on 2 of 3 seeds alternating, never with 2 alone).
constexpr std::array<double, 2> kExcessPowers{2, 1};

// Orders schedules: within budget before over it; within budget by cost, then peak; over it by peak, then
// cost. Smaller is better.
std::tuple<bool, double, double> Rank(const Evaluation& evaluation, Bytes budget) {
  const bool over = evaluation.peak > budget;
  const double peak = static_cast<double>(evaluation.peak);
  return over ? std::tuple{true, peak, evaluation.cost} : std::tuple{false, evaluation.cost, peak};
}

// `candidate` after two greedy passes: over the budget, chains recomputed past the peak where they lower it
// (SlotState::RecomputePastPeak, its ties broken by the soft peak of sharpness `soft_peak`); then less the
// copies a descent on cost finds needless (SlotState::PruneCopies): within the budget its peak may rise up
// to it, over the budget it may not rise at all.
Sequence Polish(const Graph& graph, const Sequence& candidate, Bytes budget, double soft_peak) {
  SlotState state(graph, candidate, budget, MoveSet::kFull, false, {.soft_peak = soft_peak});
  state.RecomputePastPeak();
  state.PruneCopies(std::max(budget, state.Peak()));
  return state.Current();
}

// Runs the annealing loop on one stage and returns how it ended, and the temperature it ended at (which a
// stage stopped early at the budget hands on to the next).
struct StageRun {
  common::AnnealingResult run;
  double end_temperature;
};
StageRun AnnealStage(SlotState& state, double start_temperature, uint64_t moves, double seconds,
                     common::Rng& rng, common::Progress& progress, const std::string& phase) {
  const double end_temperature = start_temperature * kCooling;
  StageRun stage{common::Anneal(state,
                                {.start_temperature = start_temperature,
                                 .end_temperature = end_temperature,
                                 .max_moves = std::max<uint64_t>(moves, 1),
                                 .time_limit_s = seconds},
                                rng, progress, phase),
                 0};
  const double done = std::min(1.0, static_cast<double>(stage.run.moves) / std::max<uint64_t>(moves, 1));
  stage.end_temperature = start_temperature * std::pow(kCooling, done);
  return stage;
}

// FastSA's single-node stage alone from `start` towards `budget` for `moves` within `seconds`, cooling from
// kContinueStartFraction of its objective so as to keep what `start` recomputes, its best polished as a
// round's is. The walk's model does not see views that stay stale (their node may not run again), so its best
// can be worse than `start` in truth: ranked as the rounds are at `budget`, `start` stands (views refreshed)
// unless the walk beat it.
Sequence GoOn(const Graph& graph, const Sequence& start, Bytes budget, uint64_t moves, double seconds,
              double soft_peak, const ChainRule& chains, common::Rng& rng, common::Progress& progress,
              const std::string& phase, StageRun& stage) {
  SlotState single(graph, start, budget, MoveSet::kFull, false,
                   {.excess_power = kExcessPowers.front(), .soft_peak = soft_peak}, chains);
  stage = AnnealStage(single, kContinueStartFraction * single.AnnealingObjective(), moves, seconds, rng, progress,
                      phase);
  Sequence walked = RefreshViews(graph, Polish(graph, single.Best(), budget, soft_peak));
  Sequence started = RefreshViews(graph, start);
  const bool better = Rank(Simulate(graph, walked), budget) < Rank(Simulate(graph, started), budget);
  return better ? std::move(walked) : std::move(started);
}

// Throws std::invalid_argument for a soft peak outside [0, kMaxSoftPeak] (NaN included).
void CheckSoftPeak(const FastsaOptions& options) {
  if (!(options.soft_peak >= 0 && options.soft_peak <= kMaxSoftPeak)) {
    throw std::invalid_argument(fmt::format("soft peak {} is not in [0, {}]", options.soft_peak, kMaxSoftPeak));
  }
}

// The move budget of a run with `options`.
uint64_t TotalMoves(const Graph& graph, const FastsaOptions& options) {
  return options.moves > 0 ? options.moves
                           : DefaultFastsaMoves(graph, common::EffortSeconds(options.effort_s, options.time_limit_s));
}

// The soft peak a run of `total_moves` anneals over the budget: the option's, given the moves it needs, else
// 0 (the peak).
double SoftPeakFor(const Graph& graph, uint64_t total_moves, const FastsaOptions& options) {
  const bool enough_moves =
      static_cast<double>(total_moves) >= kSoftPeakMinMovesPerNode * static_cast<double>(graph.nodes.size());
  return enough_moves ? options.soft_peak : 0;
}

}  // namespace

uint64_t DefaultFastsaMoves(const Graph& graph, double time_limit_s) {
  // Enough moves for the quality: 10^5 per node up to 3·10^7, which the Moccasin graphs of 250 to 1000 nodes
  // need. As many as half the time limit allows at a fixed rate model of 1 M/s at a few hundred nodes,
  // divided by 1 + nodes / 2·10^4 (a move costs O(degree · log T); whole runs on the training-batch graphs
  // of data/torch take 1.0–1.8 M/s on this project's 2-core machine, 2026-12-04), so that the moves, not the
  // clock, end a run and the same seed gives the same schedule: here a default run takes 26–46 % of its limit
  // (0.43 M/s on the generated 50k-node transformer, 33 %). A fixed rate, not a measured one, since a
  // measured rate would make the budget, and so the schedule, depend on the machine's load.
  const double nodes = static_cast<double>(std::max<size_t>(graph.nodes.size(), 1));
  const double enough = std::clamp(1e5 * nodes, 2e5, 3e7);
  const double affordable = 0.5 * std::max(time_limit_s, 0.0) * 1e6 / (1 + nodes / 2e4);
  return static_cast<uint64_t>(std::max(1e4, std::min(enough, affordable)));
}

double RoundExcessPower(int round, bool budget_reachable) {
  return budget_reachable ? kExcessPowers[round % kExcessPowers.size()] : kExcessPowers.front();
}

ChainRule GroupedChainRule(const ChainRule& chains, int round) {
  ChainRule rule = chains;
  rule.regenerable_only = !chains.lookahead && round % 2 == 1;
  return rule;
}

FastsaResult RunFastsa(const Graph& graph, const FastsaOptions& options, common::Progress& progress) {
  CheckSoftPeak(options);
  FastsaResult result;
  result.chain_lookahead = options.chain_lookahead;
  common::Stopwatch clock;
  common::Rng rng(options.seed);
  const uint64_t total_moves = TotalMoves(graph, options);
  // The time is shared among the stages still to run in proportion to their moves, so that a move budget
  // the clock cannot keep up with still leaves time to every stage (the reordering stage alone would
  // otherwise take it all). A stage may take twice its share: the last rounds run on longer schedules, with
  // more copies, and are slower per move than the first (with chains 20 deep, convnext_tiny_bs32 at 25 %
  // ended its last round at its share 7.2 s into a 10-s run). A stage that ends at its share makes the run
  // depend on the clock: `clocked`.
  uint64_t unspent = total_moves;
  bool clocked = false;
  const auto stage_seconds = [&](uint64_t moves) {
    constexpr double kShareSlack = 2;
    const double remaining = options.time_limit_s - clock.Seconds();
    const double share = static_cast<double>(moves) / static_cast<double>(std::max<uint64_t>(unspent, 1));
    return std::max(1e-3, remaining * std::min(1.0, kShareSlack * share));
  };
  // Runs one stage of `moves` and accounts for it; true when the run must stop (Ctrl-C, or no time left).
  const auto run_stage = [&](SlotState& state, double temperature, uint64_t moves, const std::string& phase,
                             StageRun& stage) {
    stage = AnnealStage(state, temperature, moves, stage_seconds(moves), rng, progress, phase);
    result.moves += stage.run.moves;
    unspent -= std::min(unspent, moves);
    result.stop_reason = stage.run.reason;
    if (stage.run.reason == common::StopReason::kTimeLimit) clocked = true;
    return stage.run.reason == common::StopReason::kInterrupted || clock.Seconds() >= options.time_limit_s;
  };
  const auto finish = [&](Sequence sequence) {
    if (clocked && result.stop_reason != common::StopReason::kInterrupted) {
      result.stop_reason = common::StopReason::kTimeLimit;
    }
    result.sequence = std::move(sequence);
    result.seconds = clock.Seconds();
    return result;
  };

  // Reordering: every node runs once, so a schedule it finds within budget costs the least possible.
  SlotState reorder(graph, graph.order, options.budget, MoveSet::kReorderOnly, false);
  const uint64_t reorder_moves =
      options.reorder_only ? total_moves : static_cast<uint64_t>(kReorderShare * static_cast<double>(total_moves));
  StageRun stage;
  const bool out_of_time =
      run_stage(reorder, kReorderStartFraction * reorder.AnnealingObjective(), reorder_moves, "remat reorder", stage);
  Sequence best = reorder.Best();  // every node once: no view is stale
  if (out_of_time || options.reorder_only || stage.run.reason == common::StopReason::kTarget) return finish(std::move(best));
  auto best_rank = Rank(Simulate(graph, best), options.budget);

  // Over the budget the rounds follow the soft peak, given the moves it needs.
  result.soft_peak = SoftPeakFor(graph, total_moves, options);

  // Rounds of the paper's two stages, each from the reference order with the random stream where the previous
  // round left it, each twice as long as the one before: when the time limit cuts the run short, the short
  // rounds have finished cooling, and the best of them stands. The grouped stage stops once the budget is met
  // and leaves its unused moves to the single-node stage.
  const Grouping grouping = GroupNodes(graph);
  result.groups = grouping.graph.nodes.size();
  const int rounds = std::clamp(options.rounds, 1, 16);
  const Bytes lower_bound = options.lower_bound ? *options.lower_bound : graph.PeakLowerBound();
  const bool budget_reachable = options.budget >= lower_bound;
  const uint64_t rest = total_moves - reorder_moves;
  // Runs the rounds on `moves` with the chained add moves of `chains`, keeping their best where it ranks before
  // `best`; true when the run must stop.
  const auto run_rounds = [&](const ChainRule& chains, uint64_t moves, const std::string& name) {
    // Round r gets 2^r shares of the 2^rounds - 1; the last also takes what the division left.
    const uint64_t share = moves / ((uint64_t{1} << rounds) - 1);
    for (int round = 0; round < rounds; ++round) {
      const uint64_t round_moves = round + 1 == rounds ? moves - share * ((uint64_t{1} << round) - 1) : share << round;
      const double power = RoundExcessPower(round, budget_reachable);
      const OverBudget over_budget{.excess_power = power, .soft_peak = result.soft_peak};
      SlotState grouped(grouping.graph, grouping.graph.order, options.budget, MoveSet::kFull, true, over_budget,
                        GroupedChainRule(chains, round));
      const uint64_t grouped_moves = static_cast<uint64_t>(kGroupedShare * static_cast<double>(round_moves));
      bool stop = run_stage(grouped, kStartFraction * grouped.AnnealingObjective(), grouped_moves,
                            fmt::format("{} {} grouped", name, round + 1), stage);
      const uint64_t grouped_used = stage.run.moves;
      Sequence candidate = Ungroup(grouping, grouped.Best());
      if (!stop) {
        SlotState single(graph, candidate, options.budget, MoveSet::kFull, false, over_budget, chains);
        unspent += grouped_moves - grouped_used;  // the single-node stage's moves include what grouping left
        stop = run_stage(single, stage.end_temperature, round_moves - grouped_used,
                         fmt::format("{} {} single", name, round + 1), stage);
        candidate = single.Best();
      }
      candidate = RefreshViews(graph, Polish(graph, candidate, options.budget, result.soft_peak));
      const auto rank = Rank(Simulate(graph, candidate), options.budget);
      if (rank < best_rank) {
        best_rank = rank;
        best = std::move(candidate);
      }
      if (stop) return true;
      // A target reached by the single-node stage is the least cost within budget: no round can do better.
      if (stage.run.reason == common::StopReason::kTarget) return false;
    }
    return false;
  };
  bool stop = run_rounds(ChainRuleFor(options.chain_lookahead), rest, "remat round");  // Ctrl-C, or no time left
  // Where the rounds miss a budget that the lower bound does not rule out, rounds again with the chain
  // lookahead, which meets some such budgets that the default chains miss (resnet18_bs64 at 50 %) and whose
  // moves cost about twice as much: so it is tried only where needed.
  if (!stop && std::get<0>(best_rank) && budget_reachable && !options.chain_lookahead && options.lookahead_share > 0) {
    const auto moves = static_cast<uint64_t>(options.lookahead_share * static_cast<double>(rest));
    unspent += moves;
    const auto rank_before = best_rank;
    stop = run_rounds(ChainRuleFor(true), moves, "remat lookahead round");
    result.chain_lookahead = best_rank < rank_before;
  }
  // Over the budget the rounds trade compute for peak to the end (below the lower bound, the square of the
  // excess), so the lowest peak they reach comes at whatever compute it took: resnet50_bs4 at 25 %, +38.5 to
  // +63.4 % on seeds 1-3. At that peak as the budget, the single-node stage keeps it and lowers the compute.
  const bool best_over_budget = std::get<0>(best_rank);  // Rank's first key
  if (!stop && best_over_budget && options.cheaper_share > 0) {
    const Bytes reached = Simulate(graph, best).peak;
    const auto moves = static_cast<uint64_t>(options.cheaper_share * static_cast<double>(total_moves));
    best = GoOn(graph, best, reached, moves, stage_seconds(moves), result.soft_peak,
                ChainRuleFor(options.chain_lookahead), rng, progress, "remat cheaper at its peak", stage);
    result.moves += stage.run.moves;
    // Its target (nothing left to recompute less) is not the run's: the run still missed its budget.
    if (stage.run.reason != common::StopReason::kTarget) result.stop_reason = stage.run.reason;
    if (stage.run.reason == common::StopReason::kTimeLimit) clocked = true;
  }
  return finish(std::move(best));
}

FastsaResult ContinueFastsa(const Graph& graph, const Sequence& start, const FastsaOptions& options,
                            common::Progress& progress) {
  CheckSoftPeak(options);
  FastsaResult result;
  result.chain_lookahead = options.chain_lookahead;
  common::Stopwatch clock;
  common::Rng rng(options.seed);
  const uint64_t moves = TotalMoves(graph, options);
  result.soft_peak = SoftPeakFor(graph, moves, options);
  StageRun stage;
  result.sequence = GoOn(graph, start, options.budget, moves, options.time_limit_s, result.soft_peak,
                         ChainRuleFor(options.chain_lookahead), rng, progress, "remat go on", stage);
  result.moves = stage.run.moves;
  result.stop_reason = stage.run.reason;
  result.seconds = clock.Seconds();
  return result;
}

}  // namespace remat
