// Views counted as memory of the value that owns their storage (`memplan remat --views-alias`), as
// PyTorch's allocator sees them: the graph rewrite, and the schedule repair that keeps its figures exact.
//
// In PyTorch a view holds the storage it was made from. Once its owner is recomputed, the owner's new
// production has a new storage, and a view made before then still holds the old one: it is "stale". An
// aliased graph's simulator (remat/simulator.h) keeps an owner's production live as long as any view made
// from it is, so a stale view costs what it costs in PyTorch; RefreshViews re-makes stale views instead.
#pragma once

#include <vector>

#include "remat/graph.h"

namespace remat {

// `graph` with every view (Value::view_of, followed to the value that owns the storage) counted as memory
// of its owner instead of its own: the view's size becomes 0, every node that reads it also reads the owner
// (so the owner lives through the view's uses), and a view that is a graph output makes its owner one.
// Sets Graph::views_aliased. remat-graph/v1 counts views at full size; this is what PyTorch's allocator
// sees. Node indices, and so schedules, are the same in both graphs.
Graph AliasViews(Graph graph);

// How a schedule's figures count views: "alias" for a graph from AliasViews, "full" otherwise.
const char* ViewAccounting(const Graph& graph);

// The value that owns `value`'s storage: `value` itself unless it is a view.
int StorageOwner(const Graph& graph, int value);

// The input of `view`'s producer that `view` was made from: Value::view_of if the producer reads it, else
// an input view with the same storage owner, else the owner; -1 when the producer reads none of them.
int ViewBase(const Graph& graph, int view);

// ViewBase of every value, -1 for values that are not views.
std::vector<int> ViewBases(const Graph& graph);

// `sequence` (valid for `graph`) with each stale view re-made just before the step that reads it, and at
// the end for a graph output, when its producer is recomputable and the view it is made from is fresh or can
// be made so (views of views first). A refreshed sequence is its own refresh. Views cost
// nothing and are free in an aliased graph, so this lets the owner's old production die where the planner's
// incremental model (which does not see staleness) expected it to. The sequence itself when the graph is
// not aliased.
Sequence RefreshViews(const Graph& graph, const Sequence& sequence);

}  // namespace remat
