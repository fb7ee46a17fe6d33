// FastSA (Imanishi et al., NeurIPS 2023): recomputation planning by simulated annealing over nop-padded
// slots, in two stages: grouped nodes until the budget is met, then single nodes to remove redundant
// recomputation. ALGORITHMS.md §2.
#pragma once

#include <cstdint>

#include "common/annealing.h"
#include "common/progress.h"
#include "remat/graph.h"

namespace remat {

// How to run FastSA.
struct FastsaOptions {
  Bytes budget = 0;               // peak memory to reach; the objective is max(budget, M) × C
  double time_limit_s = 10;       // for both stages together
  uint64_t seed = 1;
  bool reorder_only = false;      // move steps only: minimise the peak over topological orders
  uint64_t stage1_moves = 20'000'000;  // grouped stage (stops once the budget is met)
  uint64_t stage2_moves = 10'000'000;   // single-node stage
};

// A FastSA run.
struct FastsaResult {
  Sequence sequence;           // the best schedule found
  uint64_t moves = 0;          // moves proposed, both stages
  double seconds = 0;
  size_t groups = 0;           // nodes of the grouped graph (stage 1)
  common::StopReason stop_reason = common::StopReason::kMoveLimit;  // of the last stage run
};

// Plans `graph` from its reference order. Anytime: a time limit or Ctrl-C returns the best so far.
FastsaResult RunFastsa(const Graph& graph, const FastsaOptions& options, common::Progress& progress);

}  // namespace remat
