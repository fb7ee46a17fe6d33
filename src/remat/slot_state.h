// The state FastSA anneals: a fixed vector of T time slots, each holding a node or a nop, with the live
// intervals of every value kept in a lazy segment tree so that each move updates the peak in
// O(degree · log T). It satisfies common::Annealable; the stages and grouping live in fastsa.h.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/rng.h"
#include "remat/graph.h"
#include "remat/segment_tree.h"

namespace remat {

// The moves a state may make.
enum class MoveSet {
  kFull,         // add a recomputation, remove one, move a step
  kReorderOnly,  // move steps only: every node runs exactly once
};

// How the annealing objective weighs a schedule whose peak is over the budget.
struct OverBudget {
  double excess_power = 2;  // the excess M / budget is raised to this power (see SlotState::ObjectiveOf)
  // 0: the excess is that of the peak M. k > 0: that of a soft maximum of memory over time,
  // log(Σ_t exp(k · M_t / budget)) · budget / k, which lies between M and M + log(T) · budget / k and also
  // falls when fewer time slots come near the peak. Where many steps are within a few percent of the peak
  // (the forward pass of a network whose checkpoints are kept), lowering one of them does not lower M, and
  // the walk sees nothing; the soft maximum rewards it.
  double soft_peak = 0;
};

// How far an add move's chain of recomputed producers reaches (SlotState::AddChain).
struct ChainRule {
  // The most levels of producers a chain adds (half the add moves chain). Training-batch graphs at 25 %,
  // default moves at 10 s, seeds 1-2: depths 4, 6, 8, 10, 20 gave 33.65, 33.49, 33.86, 33.90, 33.90 % of the
  // reference (one level with the static rule, seeds 1-3: 34.4 %; docs/remat.md).
  int depth = 6;
  // A producer joins the chain when its copy lengthens no more bytes than its outputs hold. false: counting
  // its inputs at their sizes; true: counting each input at the least of its size and what the producer's
  // own chain behind it (up to the depth left) would lengthen instead. So a chain goes through a residual
  // add, whose two wide inputs the plain rule counts in full, back to the narrow checkpoint both come from.
  bool lookahead = false;
  // true: a producer joins only where Graph::Regenerable holds as well, its inputs counted at their full
  // sizes, live or not (the grouping rule, and the chains' only rule before 2026-12-01). FastSA's grouped
  // stage takes it in every other round without the lookahead (GroupedChainRule).
  bool regenerable_only = false;
};

// How many producers back a chain reaches with the lookahead: at 6, as without it, the lookahead lost on
// the training-batch graphs of data/torch at 25 % (34.6 against 33.5 % of the reference, seeds 1-3).
inline constexpr int kLookaheadChainDepth = 10;

// The chain rule with or without the lookahead (FastsaOptions::chain_lookahead).
inline ChainRule ChainRuleFor(bool lookahead) {
  if (!lookahead) return {};
  return {.depth = kLookaheadChainDepth, .lookahead = true};
}

// Which producers an add move's chain goes on through (SlotState::AddChain).
enum class ChainJoin {
  kRule,          // those that RegeneratesAt allows, by the state's ChainRule
  kLookahead,     // those that RegeneratesAt allows with the lookahead, whatever the ChainRule
  kEveryProducer  // every producer whose output's life the copy would lengthen
};

// A schedule spread over nop-padded slots, with incremental peak and cost.
class SlotState {
 public:
  // Spreads `initial` (a valid schedule of `graph`) evenly over the slots. `budget` enters the objective
  // max(budget, M) × C, shaped over the budget by `over_budget`; `stop_at_budget` makes TargetReached true
  // once the best state meets it.
  SlotState(const Graph& graph, const Sequence& initial, Bytes budget, MoveSet moves, bool stop_at_budget,
            const OverBudget& over_budget = {}, const ChainRule& chains = {});

  // common::Annealable. The annealing loop keeps the state with the least Objective(): a schedule within
  // budget ranks before every schedule over it, then by the annealing objective (over the budget, that of
  // the soft peak when there is one: keeping the lowest peak instead did worse, docs/remat.md).
  double Objective() const { return Peak() <= budget_ ? objective_ : objective_ * kOverBudgetRank; }
  void Move(double temperature, common::Rng& rng);
  void KeepBest();
  bool TargetReached(double best) const;
  std::string Describe(double best) const;

  double AnnealingObjective() const { return objective_; }  // what Metropolis compares; sets temperatures
  Bytes Peak() const { return resident_ + tree_.Max(); }  // M of the current state
  // What the walk sees of M over the budget: M itself, or its soft maximum over time (OverBudget).
  double SoftPeak() const { return static_cast<double>(resident_) + tree_.SoftMax(); }
  Cost TotalCost() const { return cost_; }                // C of the current state
  Sequence Current() const;                               // the current schedule
  Sequence Best() const;                                  // the best schedule passed to KeepBest()
  Bytes BestPeak() const { return best_peak_; }
  Cost BestCost() const { return best_cost_; }
  uint64_t AcceptedMoves() const { return accepted_; }

  // A greedy descent on cost alone, for after annealing: removes copies of recomputed nodes, dearest first,
  // wherever the schedule stays valid and its peak at most `limit`. Annealing the soft peak keeps copies
  // that lower memory away from the peak only; they cost compute and buy nothing. Returns how many went.
  int PruneCopies(Bytes limit);

  // A greedy descent on the peak, for after annealing over the budget: where a value is held across the step
  // of the peak for a read after it, recomputes it in a free slot before that read, with every producer
  // behind it whose output is not live there, all after the peak, and keeps the chain that lowers the peak
  // most, or the soft peak at an equal peak (of those that meet the budget, the cheapest); until the budget
  // is met or no chain helps. The walk's chains reach 6 producers back by the rule of RegeneratesAt; this
  // one reaches the stem of mobilenet_v3_large_bs64, 9 back, whose outputs all have one size (docs/remat.md,
  // "Chains past the peak"). Where no such chain lowers the peak, a graph output made before the peak is
  // made again after it, so that its earlier instance ends at its last read. Returns the chains kept, none
  // unless the peak fell.
  int RecomputePastPeak();

  // Whether `node` may join an add move's chain at all: an addable node, Regenerable as well under
  // ChainRule::regenerable_only; where it goes, RegeneratesAt decides.
  bool Chainable(int node) const { return chainable_[node] != 0; }

  // True when a copy of `node` at `slot` (an empty slot after its inputs exist) would lengthen the lives of
  // inputs that take no more bytes than its outputs, graph inputs left out (they stay resident): the
  // grouping rule, counting only the inputs not live at `slot` anyway, and with `depth` > 0 each input at
  // the least of its size and what its producer's copy up to `depth` levels back would lengthen
  // (LengthenedAt). An add move's chain (AddChain) goes on through such producers only, so it goes through a
  // bottleneck convolution whose wide input is a kept checkpoint (resnet50: a block recomputed from the
  // block before it), where the static rule stops.
  bool RegeneratesAt(int node, int slot, int depth = 0) const;

 private:
  // The objective of a memory figure and a cost: the paper's max(budget, M) × C, with the excess over the
  // budget raised to a power, so that a schedule within budget beats one over it that is cheaper by a few
  // percent (with the plain product, a 5 % cost increase that brings a 4 %-too-high peak under budget is
  // refused). A tiny cost offset keeps the peak in play when every cost is 0.
  double ObjectiveOf(double memory, Cost cost) const {
    const double excess = std::max(1.0, memory / static_cast<double>(budget_));
    return static_cast<double>(budget_) * std::pow(excess, over_budget_.excess_power) * (cost + cost_offset_);
  }
  // The annealing objective of the current state: over the budget, of the soft peak.
  double CurrentObjective() const { return ObjectiveOf(Peak() > budget_ ? SoftPeak() : 0.0, cost_); }
  static constexpr double kOverBudgetRank = 1e6;
  OverBudget over_budget_;
  // Applies a valid change and updates the tree, cost and objective.
  void AddStep(int node, int slot);
  void RemoveStep(int node, int slot);
  // Removes the (node, slot) steps `added` holds, last first: undoes the AddStep calls that made them.
  void RemoveSteps(const std::vector<std::pair<int, int>>& added);
  void AddUse(int value, int slot);
  void RemoveUse(int value, int slot);
  // The last slot of the instance of `value` produced at `production`, whose next production is `next`
  // (-1: none): its last use before `next`, the end of time for a graph output's last production, else
  // `production` itself.
  int InstanceEnd(int value, int production, int next) const;
  // The last slot of the instance of `value` that a read at `slot` takes, the one produced last before it
  // (-1 when none is).
  int EndOfInstanceBefore(int value, int slot) const;
  // The latest use of `value` in (after, before), or `after` when there is none.
  int LastUseBetween(int value, int after, int before) const;
  // The nearest empty slot before `slot` after `node`'s inputs exist and after `after`, within a short
  // search; -1 when none.
  int FreeSlotBefore(int node, int slot, int after = -1) const;
  // The bytes whose lives a copy of `node` at `slot` would lengthen, each input counted at the least of its
  // size and, up to `depth` levels back, what its producer's copy in the nearest free slot before would;
  // looking at `visits` producers at most (decremented), in depth-first order.
  Bytes LengthenedAt(int node, int slot, int depth, int& visits) const;
  // Earliest slot at which all of `node`'s inputs exist, minus one.
  int InputsReadyAfter(int node) const;
  // Earliest use of any output of `node` (slots_ when unused).
  int FirstUse(int node) const;
  // Latest slot at which a copy of `node` can serve anything.
  int LastUsefulSlot(int node) const;
  // Adds `node` at `slot` and, up to `depth` levels back, a copy of each input's producer in the nearest
  // free slot before its reader wherever the reader would otherwise lengthen that input's life and the
  // producer RegeneratesAt that slot (looking the depth left back under ChainRule::lookahead): the chain that
  // recomputes a value from further back instead of keeping its inputs. Appends every step added. With
  // `join` other than kRule: the lookahead's rule, or every such producer whatever it lengthens; copies go
  // after slot `after` only.
  void AddChain(int node, int slot, int depth, std::vector<std::pair<int, int>>& added, int after = -1,
                ChainJoin join = ChainJoin::kRule);

  const Graph& graph_;
  int slots_ = 0;                                 // T
  std::vector<int> slot_node_;                    // node at each slot, -1 for nop
  std::vector<std::vector<int>> node_slots_;      // slots of each node's copies, ascending
  std::vector<std::vector<int>> use_slots_;       // slots of each value's readers, ascending
  std::vector<int> recomputable_;                 // nodes whose copies may be removed
  std::vector<int> addable_;                      // recomputable nodes whose outputs hold memory: may be added
  std::vector<char> chainable_;                   // by node: may join an add move's chain (Chainable)
  std::vector<std::pair<int, int>> chain_;        // (node, slot) of the steps the current add move added
  MaxSegmentTree tree_;
  ChainRule chains_;
  MoveSet moves_;
  bool stop_at_budget_;
  Bytes budget_;
  Bytes resident_;
  Cost cost_ = 0;
  Cost min_cost_ = 0;      // every node once: no schedule costs less
  Cost cost_offset_ = 0;
  double objective_ = 0;
  uint64_t accepted_ = 0;
  // The best state's slots, and the accepted moves since it (so that KeepBest replays a few moves instead
  // of copying T slots), unless there were too many to keep.
  struct Change {
    int node, from, to;  // from: slot emptied, to: slot filled; -1 for none
  };
  std::vector<int> best_slots_;
  std::vector<Change> journal_;
  bool journal_overflowed_ = false;
  Bytes best_peak_ = 0;
  Cost best_cost_ = 0;
};

}  // namespace remat
