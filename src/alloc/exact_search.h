// The exact search: a depth-first branch and bound over "canonical" packings, after MiniMalloc (Moffitt,
// ASPLOS 2023), for the inputs where annealing over drop orders stalls a few percent above the peak load.
//
// Canonical packings: every buffer rests on a buffer below it (or on 0), and the buffers are placed in order
// of offset. Any packing can be pushed down into one, so searching those alone loses nothing. A node places
// one more buffer at its lowest offset above the buffers already placed that it overlaps in time. Pruning:
// the offsets never decrease along a path (ties in a preorder); a buffer is not placed where some other one
// would fit wholly below it (the gap would be wasted); in every time section, the lowest offset the unplaced
// buffers alive there can start from (and at least the last offset placed) plus their sizes must stay within
// the capacity. When the buffers left split into groups that share no moment, each group is searched alone,
// ranked afresh in the preorder from the bytes left in it. The search restarts with doubling node limits,
// turn by turn over three preorders, since one bad early choice can cost more than a fresh start.
// docs/alloc.md has the measurements.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "alloc/problem.h"
#include "common/progress.h"

namespace alloc {

// How a search for a packing within one capacity ended.
enum class SearchOutcome {
  kFound,        // a packing within the capacity
  kNoneExists,   // the search space is exhausted: proven when the search is complete (see SearchResult)
  kNodeLimit,    // the node or work budget ran out first
  kTimeLimit,    // the clock ran out first
  kInterrupted,  // Ctrl-C
  kTooLarge,     // the input has more overlapping pairs than the search keeps in memory (kMaxOverlapPairs)
  kOverBudget,   // one descent alone would cost more than the work budget (SearchLimits::max_work)
};

// "found", "none", "nodes" (for either budget), "time", "interrupted", "too-large" or "over-budget".
const char* ToString(SearchOutcome outcome);

// Overlapping buffer pairs the search indexes at most (8 bytes each, both directions).
inline constexpr uint64_t kMaxOverlapPairs = 20'000'000;

// Budgets of one search; the node and work budgets make a run reproducible, the clock only caps it.
struct SearchLimits {
  uint64_t max_nodes = 0;      // 0: none
  // Work: buffers, sections and overlap entries visited, building the indexes included. Unlike a node,
  // whose cost grows with the buffers of its part and their lifespans, a unit of work takes about the same
  // time on any input, so a work budget sets the run time of a search (planner.cc, DefaultSearchWork).
  uint64_t max_work = 0;       // 0: none
  double time_limit_s = 10.0;  // <= 0: none
  std::string label = "memplan alloc (exact)";  // what the progress line says is running
  // Tests: at every node, check the section bound the search keeps incrementally against its definition
  // (every section scanned), and throw std::logic_error where they differ.
  bool verify_bound = false;
};

// What one search found.
struct SearchResult {
  SearchOutcome outcome = SearchOutcome::kNodeLimit;
  std::optional<Solution> solution;  // with kFound
  uint64_t nodes = 0;                // nodes visited
  uint64_t work = 0;                 // work done (SearchLimits::max_work)
  // kNoneExists is a proof only when this is true: no fixed offsets and no alignment above 1 (with those,
  // the canonical packings may miss a packing that exists).
  bool complete = true;
};

// Looks for offsets that keep every buffer at most `capacity` high.
SearchResult SearchPackingWithin(const Problem& problem, Bytes capacity, const SearchLimits& limits,
                                 common::Progress& progress);

// The lowest plan the exact search reaches within its budget.
struct ExactPlan {
  Solution solution;
  Bytes height = 0;
  bool optimal = false;   // proven lowest: at the peak load, or one byte lower proven impossible
  uint64_t nodes = 0;     // over all capacities tried
  uint64_t work = 0;      // the same, in work (SearchLimits::max_work)
  SearchOutcome last = SearchOutcome::kFound;  // how the last search ended
};

// Searches at `good_enough` (at least the peak load) first, then bisects between the lowest capacity not
// yet searched and the best plan so far (`start`, a valid plan, at first), until a plan is at most
// `good_enough` high or the budget is spent. Each search gets half of the node and work budgets left.
ExactPlan SearchLowestPlan(const Problem& problem, const Solution& start, const SearchLimits& limits,
                           common::Progress& progress, Bytes good_enough);

}  // namespace alloc
