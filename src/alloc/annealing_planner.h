// The annealing planner of Imanishi & Xu (ISMM 2024): simulated annealing over drop orders.
//
// The state is a permutation of the free buffers, decoded by dropping them onto the skyline. A move takes
// one buffer x out and scores every reinsertion position at once with the two sweeps of DropDecoder; the
// energy of a position is the height of the longest path through x (the plan's height is flat whenever x
// is off the critical path, so it would give the walk no direction). The new position is drawn from the
// Boltzmann distribution over all positions at the current temperature (a heat-bath choice: among several
// positions that a Metropolis test would pass, lower ones are proportionally likelier, and equal ones are
// tied at random, which lets the walk cross plateaus). After the move the order is normalised: adjacent
// buffers that do not overlap in time are swapped when the first one's top is higher, which leaves the
// layout unchanged and makes the order canonical.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "alloc/drop_order.h"
#include "alloc/problem.h"
#include "common/rng.h"

namespace alloc {

// Annealing state for one problem (models common::Annealable).
class DropOrderAnnealer {
 public:
  // Starts from `start`: its buffers are ordered by offset, which decodes no higher than `start`.
  DropOrderAnnealer(const Problem& problem, const Solution& start, Bytes target_height);

  double Objective() const { return static_cast<double>(layout_.height); }
  // The annealing move: take one buffer out, score every reinsertion position, draw one, normalise.
  void Move(double temperature, common::Rng& rng);
  void KeepBest();
  bool TargetReached(double best) const { return best <= static_cast<double>(target_height_); }
  std::string Describe(double best) const;

  // The best plan seen (after KeepBest()).
  Solution BestSolution() const;
  // Candidate plans scored so far (one per reinsertion position).
  uint64_t candidates_scored() const { return candidates_scored_; }

 private:
  // Bubbles buffers down the order past non-overlapping neighbours with a higher top.
  void Normalise();
  // Normalises the order and lists the critical buffers.
  void Refresh();

  const Problem& problem_;
  DropDecoder decoder_;
  Bytes lower_bound_;
  Bytes target_height_;
  std::vector<BufferIndex> order_;
  DropLayout layout_;            // of order_ (fixed buffers at their offset)
  std::vector<Offset> best_offsets_;
  uint64_t candidates_scored_ = 0;
  // Scratch space reused by every move.
  std::vector<BufferIndex> without_;
  ReinsertionScores scores_;
  std::vector<double> weights_;
  std::vector<BufferIndex> critical_;  // buffers on a longest path (offset + depth == height)
};

}  // namespace alloc
