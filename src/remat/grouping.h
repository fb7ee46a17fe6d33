// Node grouping (FastSA's first stage): a node whose inputs take no more memory than its outputs is fused
// into its consumer, since regenerating its outputs from its inputs never needs more memory than keeping
// them. Annealing over groups reaches budgets that single-node moves rarely find on large graphs.
#pragma once

#include <vector>

#include "remat/graph.h"

namespace remat {

// A graph of groups and how to expand it back.
struct Grouping {
  Graph graph;                            // one node per group; values keep their indices
  std::vector<std::vector<int>> members;  // original nodes of each group, in reference order
};

// Groups `graph`. A group G is fused into the group H of its consumers when every value G produces
// for outside is read by H alone (so every path out of G passes through H and the result stays acyclic),
// none of them is a graph output, both are recomputable, and G's external inputs total no more bytes than
// its external outputs, or its outputs hold no memory and H reads all of G's inputs itself. A group's cost is the sum of its members'; its inputs and outputs are the union
// minus the values passed inside; its workspace is the most memory its internal values take while its
// members run in order.
Grouping GroupNodes(const Graph& graph);

// Expands a schedule of groups into a schedule of the original nodes (valid when the input is).
Sequence Ungroup(const Grouping& grouping, const Sequence& sequence);

}  // namespace remat
