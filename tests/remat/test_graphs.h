// Graphs for the remat tests: small random DAGs with every feature of remat-graph/v1 (graph inputs,
// multi-output nodes, graph outputs, workspace, nodes that cannot be recomputed, views).
#pragma once

#include <fmt/core.h>

#include <algorithm>
#include <string>

#include "common/rng.h"
#include "remat/graph.h"

namespace remat::testing {

// A random connected DAG of `nodes` nodes in a valid reference order (node index order).
inline Graph RandomGraph(int nodes, uint64_t seed, bool with_extras = true) {
  common::Rng rng(seed);
  Graph graph;
  graph.name = fmt::format("random{}", seed);
  const auto add_value = [&](ValueKind kind) {
    Value value;
    value.name = fmt::format("v{}", graph.values.size());
    value.size = 1 + static_cast<Bytes>(rng.Below(100));
    value.kind = kind;
    graph.values.push_back(value);
    return static_cast<int>(graph.values.size()) - 1;
  };
  if (with_extras) add_value(ValueKind::kInput);
  for (int u = 0; u < nodes; ++u) {
    Node node;
    node.key = fmt::format("{}", u);
    node.name = fmt::format("n{}", u);
    node.cost = 1 + static_cast<double>(rng.Below(10));
    const int produced = static_cast<int>(graph.values.size());
    // Up to three inputs among the values produced so far, favouring recent ones, and the graph input.
    for (int k = 0; k < 3 && produced > 0; ++k) {
      const int back = static_cast<int>(rng.Below(std::min(produced, 8)));
      const int v = produced - 1 - back;
      if (k == 0 || rng.Below(2) == 0) node.inputs.push_back(v);
    }
    std::sort(node.inputs.begin(), node.inputs.end());
    node.inputs.erase(std::unique(node.inputs.begin(), node.inputs.end()), node.inputs.end());
    node.outputs.push_back(add_value(ValueKind::kIntermediate));
    if (with_extras && rng.Below(5) == 0) node.outputs.push_back(add_value(ValueKind::kIntermediate));
    if (with_extras && rng.Below(6) == 0) node.workspace = static_cast<Bytes>(rng.Below(50));
    if (with_extras && rng.Below(10) == 0) node.recomputable = false;
    graph.nodes.push_back(node);
  }
  if (with_extras) graph.values.back().graph_output = true;
  LinkAndCheck(graph, "random");
  return graph;
}

// The reference order of `graph` with random recomputations of earlier nodes inserted (always valid).
inline Sequence RandomRecomputations(const Graph& graph, uint64_t seed) {
  common::Rng rng(seed);
  Sequence sequence;
  for (int u : graph.order) {
    if (!sequence.empty() && rng.Below(3) == 0) {
      const int again = sequence[rng.Below(sequence.size())];
      if (graph.nodes[again].recomputable) sequence.push_back(again);
    }
    sequence.push_back(u);
  }
  return sequence;
}

// RandomGraph with views: the output of each node that reads one produced value and writes one becomes a
// view of that value (views of views included), costing nothing, as exported views do.
inline Graph RandomGraphWithViews(int nodes, uint64_t seed) {
  Graph graph = RandomGraph(nodes, seed);
  for (Node& node : graph.nodes) {
    if (node.inputs.size() != 1 || node.outputs.size() != 1 || graph.IsGraphInput(node.inputs[0])) continue;
    Value& view = graph.values[node.outputs[0]];
    view.view_of = node.inputs[0];
    view.size = std::min(view.size, graph.values[node.inputs[0]].size);
    node.cost = 0;
    node.workspace = 0;
  }
  return graph;
}

}  // namespace remat::testing
