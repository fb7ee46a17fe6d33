// Peak memory M and cost C of a schedule, computed from scratch (ARCHITECTURE.md, memory semantics).
// The planners' incremental bookkeeping is tested against this.
#pragma once

#include <vector>

#include "remat/graph.h"

namespace remat {

// What a schedule costs.
struct Evaluation {
  Bytes peak = 0;              // M: the largest memory over the steps (resident bytes included)
  Cost cost = 0;               // C: the sum of the costs of the steps, repeats included
  std::vector<Bytes> memory;   // memory at each step, for the memory curve
};

// One live interval of one value instance: steps [first, last] inclusive.
struct LiveInterval {
  int value = 0;
  int first = 0;
  int last = 0;
};

// The live intervals of the produced values: each production lives from its step through the last use
// it serves (a use is served by the latest earlier production), or to the last step when the value is a
// graph output and this is its last production. In an aliased graph (remat/views.h) an owner's production
// also lives as long as any view production made from it (through ViewBase, at the view's step). Throws
// std::logic_error when a step reads a value that no earlier step produced (callers validate first).
std::vector<LiveInterval> LiveIntervals(const Graph& graph, const Sequence& sequence);

// Evaluates a schedule; an empty one has peak = resident bytes.
Evaluation Simulate(const Graph& graph, const Sequence& sequence);

}  // namespace remat
