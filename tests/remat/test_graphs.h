// Graphs for the remat tests: small random DAGs with every feature of remat-graph/v1 (graph inputs,
// multi-output nodes, graph outputs, workspace, nodes that cannot be recomputed).
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

}  // namespace remat::testing
