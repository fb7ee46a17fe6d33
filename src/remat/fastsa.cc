#include "remat/fastsa.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/rng.h"
#include "common/stopwatch.h"
#include "remat/grouping.h"
#include "remat/slot_state.h"

namespace remat {
namespace {

// Cooling from 1 % of the starting objective down by 10^-4 over a stage. The paper starts at 0.1 %; on the
// Moccasin graphs a single step costs about 1 % of the total, so at 0.1 % every recomputation is refused from
// the start and the walk keeps the first schedule that meets the budget (FCN8-VGG at 70 %: +3.04 % at 0.1 %,
// +1.59 % at 1 %; RL n1000 at 70 %: +7.6 % -> +6.1 %; RL n250 at 70 %: +3.2 % -> +0.75 %).
constexpr double kStartFraction = 1e-2;
constexpr double kCooling = 1e-4;

// Runs a SlotState through common::Anneal with a temperature that follows whichever is further along, the
// stage's moves or its time. With moves alone, a stage cut short by the time limit (a 10k-node graph makes
// well under 20 M moves in seconds) would end still at its starting temperature, a random walk; with time
// alone, the same seed would not give the same plan. A run whose moves outpace its time is driven by moves
// only, so it stays deterministic; only a run that the time limit would cut short anyway depends on the clock.
class PacedState {
 public:
  PacedState(SlotState& state, double start_temperature, double cooling, uint64_t max_moves, double seconds)
      : state_(state), start_(start_temperature), log_cooling_(std::log(cooling)), max_moves_(max_moves),
        seconds_(seconds), temperature_(start_temperature) {}

  double Objective() const { return state_.Objective(); }
  void Move(double, common::Rng& rng) {
    if (moves_ % kStride == 0) {
      if (moves_ % (16 * kStride) == 0 && seconds_ > 0) time_fraction_ = clock_.Seconds() / seconds_;
      fraction_ = std::min(1.0, std::max(static_cast<double>(moves_) / static_cast<double>(max_moves_), time_fraction_));
      temperature_ = start_ * std::exp(log_cooling_ * fraction_);
    }
    ++moves_;
    state_.Move(temperature_, rng);
  }
  void KeepBest() { state_.KeepBest(); }
  bool TargetReached(double best) const { return state_.TargetReached(best); }
  std::string Describe(double best) const { return state_.Describe(best); }
  double Temperature() const { return temperature_; }

 private:
  static constexpr uint64_t kStride = 64;
  SlotState& state_;
  double start_;
  double log_cooling_;
  uint64_t max_moves_;
  double seconds_;
  common::Stopwatch clock_;
  uint64_t moves_ = 0;
  double time_fraction_ = 0;
  double fraction_ = 0;
  double temperature_;
};

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
    PacedState paced(state, kStartFraction * state.AnnealingObjective(), kCooling, options.stage1_moves,
                     0.6 * options.time_limit_s);
    // The annealing loop's own temperature is unused: PacedState sets it.
    const common::AnnealingResult run = common::Anneal(
        paced, {.max_moves = options.stage1_moves, .time_limit_s = 0.6 * options.time_limit_s}, rng, progress,
        "remat stage 1 (grouped)");
    result.moves += run.moves;
    result.stop_reason = run.reason;
    start = Ungroup(grouping, state.Best());
    temperature = paced.Temperature();
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
  const uint64_t moves = options.reorder_only ? options.stage1_moves : options.stage2_moves;
  const double seconds = remaining();
  PacedState paced(state, temperature, kCooling, moves, seconds);
  const common::AnnealingResult run =
      common::Anneal(paced, {.max_moves = moves, .time_limit_s = seconds}, rng, progress,
                     options.reorder_only ? "remat reorder" : "remat stage 2");
  result.moves += run.moves;
  result.stop_reason = run.reason;
  result.sequence = state.Best();
  result.seconds = clock.Seconds();
  return result;
}

}  // namespace remat
