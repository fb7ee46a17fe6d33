// FastSA (Imanishi et al., NeurIPS 2023): recomputation planning by simulated annealing over nop-padded
// slots. A reordering stage first (when it meets the budget, nothing can cost less), then rounds of the
// paper's two stages — grouped nodes until the budget is met, then single nodes to remove redundant
// recomputation — each from its own random stream, the best kept; over the budget the rounds anneal a soft
// maximum of memory over time, the paper's appendix option. ALGORITHMS.md §2, docs/remat.md.
#pragma once

#include <cstdint>
#include <optional>

#include "common/annealing.h"
#include "common/progress.h"
#include "remat/graph.h"
#include "remat/slot_state.h"

namespace remat {

// The sharpness of FastSA's soft peak unless one is given (docs/remat.md, "The soft peak"), and the largest
// accepted (far beyond it the soft peak is the peak).
inline constexpr double kDefaultSoftPeak = 20;
inline constexpr double kMaxSoftPeak = 1e4;
// The soft peak is used only when the move budget allows this many moves per node: it converges more slowly
// than the peak, and with fewer moves it did worse (the 50 000-node generated transformer at 29 and 43 moves
// per node missed a 50 % budget that the peak met; at 100 and 333 moves per node both met it at about the same
// cost). Until 2026-11-30 the threshold was 1000, which left the peak to the graphs of 360–950 moves per node
// that do far better with the soft peak (docs/remat.md, "The soft peak").
inline constexpr double kSoftPeakMinMovesPerNode = 100;

// The share of a run's moves that its last stage gets where the rounds end over the budget (below). On the
// 45 budgets of data/torch's graphs that FastSA misses (seeds 1-3, default 10 s, 2026-12-05), 0.3 lowered the
// mean cost from +14.8 to +13.0 %, in 13 runs by more than a point (resnet50_bs4 at 25 %, seed 2: +63.4 to
// +39.5 %; gpt_small_bs64 at 50 %, seed 2: +28.2 to +15.5 %), raised no run's cost or peak, and added 0.7 s
// to a run on average (docs/remat.md, "Cheaper at the peak reached").
inline constexpr double kDefaultCheaperShare = 0.3;

// The share of the rounds' moves that rounds with the chain lookahead get, beyond them, where the rounds miss a
// budget that the lower bound does not rule out (FastsaOptions::lookahead_share). On resnet18_bs64 at 50 %, the
// one such budget of data/torch's training batches, every default run ends at 50.31 %; with 0.5 seeds 1-5 met
// it 3 times (0.75: 4, 1: 3, --chain-lookahead alone: 4), and a missed run took 6.9-7.7 s of its 10 instead of
// 3.8-4.0 (0.75: 9.0-9.7 s, too near the limit for the moves to end the run on a slower machine; 2026-12-05,
// docs/remat.md, "Deviations": "The lookahead where the default misses").
inline constexpr double kDefaultLookaheadShare = 0.5;

// How to run FastSA.
struct FastsaOptions {
  Bytes budget = 0;               // peak memory to reach; the objective is max(budget, M) × C
  double time_limit_s = 10;       // for all stages together
  // The seconds the default move budget is sized for instead, when positive: a caller that gives the run what
  // is left of a deadline sets it, so that the schedule does not depend on when the run started (memplan plan).
  double effort_s = 0;
  uint64_t seed = 1;
  bool reorder_only = false;      // move steps only: minimise the peak over topological orders
  uint64_t moves = 0;             // moves over all stages; 0: DefaultFastsaMoves
  int rounds = 4;                 // grouped + single-node runs after the reordering stage (1 to 16)
  // Over the budget, the rounds anneal a soft maximum of memory over time (remat::OverBudget::soft_peak; 0:
  // the peak) when the moves allow kSoftPeakMinMovesPerNode. The reordering stage always anneals the peak.
  double soft_peak = kDefaultSoftPeak;
  // Chained add moves judge a producer by what the chain behind it would keep alive, up to
  // kLookaheadChainDepth producers back (ChainRuleFor), not by its own inputs, 6 back. Off by default:
  // it met resnet18_bs64's 50 % budget on three seeds of three where the default misses (data/torch), at
  // more cost there and on the Moccasin graphs, in about twice the time (docs/remat.md, "Chain lookahead");
  // the default runs it where needed (lookahead_share).
  bool chain_lookahead = false;
  // Where the rounds end over the budget, a last stage of this share of the moves, beyond them, at the peak
  // they reached: the single-node stage alone, for less compute at no higher peak (0: none). Over the budget
  // the rounds trade compute for peak, and below the lower bound they anneal the square of the excess.
  double cheaper_share = kDefaultCheaperShare;
  // Where the rounds miss a budget at or above the lower bound and chain_lookahead is off, rounds again with the
  // lookahead, of this share of the rounds' moves, beyond them; the best of all rounds is kept (0: none).
  double lookahead_share = kDefaultLookaheadShare;
  // The graph's Graph::PeakLowerBound where the caller has it (it can take about a second of FastSA's clock);
  // computed here otherwise.
  std::optional<Bytes> lower_bound = std::nullopt;
};

// A FastSA run.
struct FastsaResult {
  Sequence sequence;           // the best schedule found
  uint64_t moves = 0;          // moves proposed, all stages
  double seconds = 0;
  size_t groups = 0;           // nodes of the grouped graph (stage 1)
  double soft_peak = 0;        // the soft peak the rounds annealed (0: the peak)
  // Whether the schedule's chained add moves looked back: FastsaOptions::chain_lookahead, or the schedule came
  // from the rounds with the lookahead that a missed budget runs (FastsaOptions::lookahead_share).
  bool chain_lookahead = false;
  common::StopReason stop_reason = common::StopReason::kMoveLimit;  // of the last stage run
};

// The move budget of a run on `graph` within `time_limit_s` when none is given: what the graph's size needs,
// capped by what half the time limit allows at a fixed rate model. The cooling follows moves, not the clock,
// so a run that the time limit cuts short ends hotter than planned, and depends on the machine's speed.
uint64_t DefaultFastsaMoves(const Graph& graph, double time_limit_s);

// The power of the peak's excess over the budget that round `round` (from 0) anneals: 2 and 1 alternately,
// or 2 in every round where the budget is not reachable (below Graph::PeakLowerBound). Power 1 trades a point
// of peak for a point of cost, which finds cheaper schedules near a budget that can be met; below the lower
// bound the best schedule is the one of the lowest peak, and rounds of power 1 settle far above it
// (efficientnet_b0 at batch 4, 25 %: 47.8 % of the reference peak with them, 39.1 % without; docs/remat.md).
double RoundExcessPower(int round, bool budget_reachable);

// The chain rule of round `round`'s grouped stage: `chains`, and without the lookahead, in the odd rounds,
// through Regenerable producers only (ChainRule::regenerable_only). On the generated 50k-node transformer,
// 29 moves a node at 10 s, the grouped stages' longer chains left starts that the single-node stage could not
// bring under a 50 % budget: 56.2-56.3 % of the reference on seeds 1-3, met on each with this. The rule in
// every round cost more on RL n250 at 70 % (+2.78 against +1.27 %, seed 1), and with the lookahead in the odd
// rounds it lost resnet18_bs64 at 50 %, which the lookahead is for (docs/remat.md, "Deviations").
ChainRule GroupedChainRule(const ChainRule& chains, int round);

// Plans `graph` from its reference order. Anytime: a time limit or Ctrl-C returns the best so far. Each
// round's schedule, where it ends over the budget, has values held across its peak recomputed after it
// (SlotState::RecomputePastPeak); then it is pruned (SlotState::PruneCopies) and its stale views re-made
// (RefreshViews) before it is ranked. Where the best ends over a budget that the lower bound does not rule out,
// rounds with the chain lookahead follow (FastsaOptions::lookahead_share); where the best still ends over the
// budget, the run goes on from it at its own peak for less compute (FastsaOptions::cheaper_share). The same
// graph, options and seed give the same schedule unless the time limit or Ctrl-C ends the run. Throws
// std::invalid_argument for a soft peak outside [0, kMaxSoftPeak] (NaN included).
FastsaResult RunFastsa(const Graph& graph, const FastsaOptions& options, common::Progress& progress);

// Goes on from `start`, a valid schedule of `graph`, towards `options.budget`: FastSA's single-node stage
// alone, from a temperature low enough to keep what `start` recomputes, its best schedule polished as a
// round's is, and returned only where it ranks before `start` (views refreshed in both) as the rounds are ranked:
// never worse than `start`. For a schedule found for one budget and wanted a little lower (memplan plan, when
// fragmentation pushes the arena over the budget): a run from the reference order in a tenth of the time may
// end far above where `start` already is. `options.reorder_only` and `options.rounds` do not apply. Same
// determinism and exceptions as RunFastsa.
FastsaResult ContinueFastsa(const Graph& graph, const Sequence& start, const FastsaOptions& options,
                            common::Progress& progress);

}  // namespace remat
