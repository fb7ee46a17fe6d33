#include "alloc/planner.h"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "alloc/annealing_planner.h"
#include "alloc/drop_order.h"
#include "alloc/exact_search.h"
#include "alloc/greedy.h"
#include "common/stopwatch.h"

namespace alloc {

const std::vector<std::string>& Methods() {
  static const std::vector<std::string> methods = {"sa",   "exact", "exact+sa",         "first-fit",
                                                   "best-fit", "xla", "drop", "online-first-fit", "online-best-fit"};
  return methods;
}

namespace {

// Where the annealing planner and the exact search start: the lowest first fit over six orders, all by
// decreasing size. Longer lifespan first among buffers of one size (TFLite, XLA) does as well as the others
// on the MiniMalloc inputs and the PyTorch traces, but on the buffers of recomputation schedules
// (data/schedules), where many activations share a size, it can end far higher, and neither annealing nor the
// search moves far from their start there: taking them in allocation order, or latest freed first, stacks
// each layer's tensors the way they come and go. Over those 14 schedules `exact+sa` at the default 10 s went
// from 2.93 % over the peak load on average to 1.40 % (mobilenet_v3_large_bs64 at 25 %: 19.4 % to 1.1 %).
// Sizes by octave or half octave (SizeClasses) put the activations saved for the backward pass below the
// slightly larger gradients at its end: with longer lifespan first within an octave or half octave, and
// earlier allocation first within an octave, `exact+sa` went from 3.58 to 1.59 % over the peak load on
// densenet121_bs32's schedule at 50 %, from 6.44 to 4.13 % at 25 %, from 9.28 to 6.37 % at 40 % (not in
// data/schedules), convnext_tiny_bs32's at 25 % from 0.23 to 0.05 %, the others and the MiniMalloc inputs as
// before but D (5.40 to 5.30 %); without the sixth order J ended at 6.00 % instead of 4.35 % (2026-12-01,
// docs/alloc.md). Above kMaxBuffersForAllStarts only the first order is tried: first fit takes 4.7 s on a
// generated training pattern of 10^5 buffers (33 000 alive at once), and three of them overran the default
// limit; six at 2·10^4 take 0.1–0.2 s more than one. (Best fit is seldom lower on the MiniMalloc inputs and
// costs far more on training patterns with thousands of live buffers, where its gap search dominates.)
constexpr size_t kMaxBuffersForAllStarts = 20000;
// The orders StartingPlan tries, the one for large inputs first.
constexpr std::array<std::pair<SizeTies, SizeClasses>, 6> kStartingOrders{{
    {SizeTies::kLongerLifespan, SizeClasses::kExact},
    {SizeTies::kEarlierAllocation, SizeClasses::kExact},
    {SizeTies::kLaterFree, SizeClasses::kExact},
    {SizeTies::kLongerLifespan, SizeClasses::kOctave},
    {SizeTies::kLongerLifespan, SizeClasses::kHalfOctave},
    {SizeTies::kEarlierAllocation, SizeClasses::kOctave},
}};

// The start, shown on the progress line as each first fit ends (under a sanitizer, six of them on a
// training pattern of 5000 buffers take half a second).
Solution StartingPlan(const Problem& problem, Bytes lower_bound, common::Progress& progress,
                      const std::string& label) {
  const size_t orders = problem.buffers.size() <= kMaxBuffersForAllStarts ? kStartingOrders.size() : 1;
  Solution best;
  Bytes best_height = std::numeric_limits<Bytes>::max();
  for (size_t k = 0; k < orders; ++k) {
    const auto [ties, classes] = kStartingOrders[k];
    Solution plan = PlaceInOrder(problem, OrderBySize(problem, ties, classes), GapRule::kFirstFit);
    const Bytes height = Height(problem, plan);
    if (height < best_height) {
      best = std::move(plan);
      best_height = height;
    }
    if (progress.Due()) {
      progress.Show(label,
                    fmt::format("first fit {} of {}, {}", k + 1, orders, DescribeHeight(best_height, lower_bound)));
    }
  }
  return best;
}

// What the progress line calls a run of `options.method`.
std::string ProgressLabel(const PlanOptions& options) { return "memplan alloc (" + options.method + ")"; }

}  // namespace

// Default move budget: what half the time limit allows at a fixed rate model of 3·10^6 / (1 + N / 5000)
// buffer-moves a second (a move scores every reinsertion position of one buffer; on this project's 2-core
// machine 3–7·10^6 a second at N of a few hundred, 2–6·10^6 at 1000, 2–4·10^6 at 5000 and 1.0–1.2·10^6 at
// 10^4, over the MiniMalloc inputs, the generated families and the schedules of data/torch), so that the
// user's time limit buys quality while the moves, not the clock, end the run: the same input, seed and time
// limit give the same plan on any machine up to about twice as slow as the model. (Until 2026-11-30 the
// budget was 6·10^6 / N moves whatever the time limit: 0.7 s of the default 10 on the buffers of
// resnet18_bs8's schedule at 75 %, 4.3 % over LB where 10^5 moves give 2.2 %.)
uint64_t DefaultAnnealingMoves(size_t buffers, double time_limit_s) {
  const double n = static_cast<double>(std::max<size_t>(buffers, 1));
  const double buffer_moves_per_second = 3e6 / (1 + n / 5000);
  const double affordable = 0.5 * std::max(time_limit_s, 0.0) * buffer_moves_per_second / n;
  return static_cast<uint64_t>(std::clamp(affordable, 50.0, 1e8));
}

// Default work budget: what half the time limit allows at a fixed rate model of 2·10^8 units of work a second.
// Measured on this project's 2-core machine: 1.7–4.1·10^8 a second over MiniMalloc's inputs, the buffers of
// memplan plan's schedules and generated training patterns of 10^4 buffers, so runs end by their budget, not
// the clock. (Until 2026-11-30 the budget was in nodes, at 2·10^7 / (N + 100) a second; but a node's cost
// grows with its part's buffers and their lifespans: 5 µs on MiniMalloc's inputs, 2.3 ms on a training
// pattern of 10^4 buffers, whose default run took 11.4 s of a 10-s limit.)
uint64_t DefaultSearchWork(double time_limit_s) {
  return static_cast<uint64_t>(std::clamp(0.5 * std::max(time_limit_s, 0.0) * kSearchWorkPerSecond, 1e6, 1e15));
}

namespace {

// The seconds the default budgets of a run with `options` are sized for.
double EffortSeconds(const PlanOptions& options) {
  return common::EffortSeconds(options.effort_s, options.time_limit_s);
}

// The annealing planner from `start`: rounds, each a full cooling from the best plan so far, the first of
// 6·10^6 / N moves (the whole budget until 2026-11-30), each next one twice as long, the last taking what is
// left. One long cooling is not better than a short one on every input (resnet18_bs8's CPU trace: 0.00 %
// over LB in 27 000 moves, 0.36 % in one cooling of 65 000); the rounds keep what the first one found.
void AnnealFrom(const Problem& problem, Solution start, uint64_t total_moves, Bytes target, const PlanOptions& options,
                const common::Stopwatch& clock, common::Progress& progress, PlanResult& result) {
  common::AnnealingSchedule schedule;
  // The paper's schedule, in bytes: from peak_load / 300 down to min(100, start / 1000).
  schedule.start_temperature = std::max(1.0, static_cast<double>(result.lower_bound) / 300.0);
  schedule.end_temperature = std::min(100.0, schedule.start_temperature / 1000.0);
  const uint64_t first_round =
      std::clamp<uint64_t>(6'000'000ull / std::max<size_t>(problem.buffers.size(), 1), 50, 1'000'000);
  common::Rng rng(options.seed);
  Solution best = std::move(start);
  Bytes best_height = Height(problem, best);
  uint64_t round_moves = first_round;
  for (uint64_t left = total_moves; left > 0;) {
    // The first round as the old budget was, exactly; a later one takes the rest when the rest would not
    // make a round of its own.
    const uint64_t moves =
        round_moves >= left || (round_moves > first_round && 2 * round_moves >= left) ? left : round_moves;
    DropOrderAnnealer annealer(problem, best, target);
    schedule.max_moves = moves;
    schedule.time_limit_s = std::max(1e-9, options.time_limit_s - clock.Seconds());
    const common::AnnealingResult run =
        common::Anneal(annealer, schedule, rng, progress, ProgressLabel(options));
    result.moves += run.moves;
    result.candidates_scored += annealer.candidates_scored();
    result.stop_reason = run.reason;
    const Solution solution = annealer.BestSolution();
    const Bytes height = Height(problem, solution);
    if (height < best_height) {
      best = solution;
      best_height = height;
    }
    if (run.reason != common::StopReason::kMoveLimit) break;
    left -= moves;
    round_moves *= 2;
  }
  result.solution = std::move(best);
}

// The exact search from StartingPlan, with `options.moves` nodes or else the default work budget; fills the
// search fields of `result`. True when it found a plan below that start.
bool SearchExactly(const Problem& problem, Bytes good_enough, const PlanOptions& options,
                   const common::Stopwatch& clock, common::Progress& progress, PlanResult& result) {
  SearchLimits limits;
  if (options.moves > 0) {
    limits.max_nodes = options.moves;
  } else {
    limits.max_work = DefaultSearchWork(EffortSeconds(options));
  }
  limits.time_limit_s = std::max(1e-9, options.time_limit_s - clock.Seconds());
  limits.label = ProgressLabel(options);
  const Solution start = StartingPlan(problem, result.lower_bound, progress, limits.label);
  ExactPlan plan = SearchLowestPlan(problem, start, limits, progress, good_enough);
  const bool improved = plan.height < Height(problem, start);
  result.solution = std::move(plan.solution);
  result.nodes = plan.nodes;
  result.work = plan.work;
  result.proven_optimal = plan.optimal;
  result.search_outcome = ToString(plan.last);
  result.stop_reason = plan.last == SearchOutcome::kTimeLimit     ? common::StopReason::kTimeLimit
                       : plan.last == SearchOutcome::kInterrupted ? common::StopReason::kInterrupted
                       : plan.last == SearchOutcome::kNodeLimit   ? common::StopReason::kMoveLimit
                                                                  : common::StopReason::kTarget;
  return improved;
}

}  // namespace

PlanResult PlanAllocation(const Problem& problem, const PlanOptions& options, common::Progress& progress) {
  common::Stopwatch clock;
  PlanResult result;
  result.method = options.method;
  result.lower_bound = PeakLoad(problem);
  const std::string& m = options.method;
  const size_t n = problem.buffers.size();
  const Bytes target = options.capacity ? std::max(*options.capacity, result.lower_bound) : result.lower_bound;
  if (m == "sa") {
    AnnealFrom(problem, StartingPlan(problem, result.lower_bound, progress, ProgressLabel(options)),
               options.moves > 0 ? options.moves : DefaultAnnealingMoves(n, EffortSeconds(options)), target, options,
               clock, progress, result);
  } else if (m == "exact") {
    SearchExactly(problem, target, options, clock, progress, result);
  } else if (m == "exact+sa") {
    // The search as `exact` runs it (so this is never above `exact`), then, unless its plan is proven lowest
    // or low enough, annealing from that plan for the time limit less the time the search took at its rate
    // model (at least half the time limit): both rate models are below the measured rates, so the two
    // together stay within the time limit. Where the search found nothing below its start, or was not run
    // (kTooLarge, kOverBudget), the annealing is `sa`'s run, move for move. Neither alone is
    // best everywhere: on the buffers of memplan plan's schedules the search ends above what annealing
    // reaches on some (mobilenet_v3_large_bs8 at 75 %, before the per-part ranking: 5.4 % over LB against
    // 3.3 %) and packs others at LB where annealing stays 3.7–4.6 % above (resnet18_bs8).
    const bool improved = SearchExactly(problem, target, options, clock, progress, result);
    if (!result.proven_optimal && Height(problem, result.solution) > target &&
        result.stop_reason != common::StopReason::kInterrupted && clock.Seconds() < options.time_limit_s) {
      const double effort = EffortSeconds(options);
      const double search_seconds = static_cast<double>(result.work) / kSearchWorkPerSecond;
      const double annealing_limit = improved ? std::max(effort / 2, effort - search_seconds) : effort;
      AnnealFrom(problem, std::move(result.solution),
                 options.moves > 0 ? options.moves : DefaultAnnealingMoves(n, annealing_limit), target, options,
                 clock, progress, result);
    }
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
