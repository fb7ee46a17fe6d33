#include "remat/graph.h"

#include <fmt/core.h>

#include <algorithm>
#include <queue>

#include "common/error.h"

namespace remat {

Bytes Graph::ResidentBytes() const {
  Bytes total = 0;
  for (int v = 0; v < static_cast<int>(values.size()); ++v) {
    if (IsGraphInput(v)) total += values[v].size;
  }
  return total;
}

Bytes Graph::TotalBytes(const std::vector<int>& of) const {
  Bytes total = 0;
  for (int v : of) total += values[v].size;
  return total;
}

bool Graph::Regenerable(const std::vector<int>& inputs, const std::vector<int>& outputs) const {
  Bytes freeable = 0;
  for (int v : inputs) {
    if (!IsGraphInput(v)) freeable += values[v].size;
  }
  return freeable <= TotalBytes(outputs);
}

Bytes Graph::PeakLowerBound() const {
  const int n = static_cast<int>(nodes.size());
  std::vector<Bytes> step(n, 0);  // what each step holds itself, and what must be live across it
  size_t edges = 0;
  std::vector<int> pinned;  // nodes that run exactly once and produce something
  for (int u = 0; u < n; ++u) {
    const Node& node = nodes[u];
    step[u] = node.workspace;
    for (int v : node.inputs) {
      if (!IsGraphInput(v)) step[u] += values[v].size;
    }
    for (int v : node.outputs) step[u] += values[v].size;
    edges += node.inputs.size();
    if (!node.recomputable && !node.outputs.empty()) pinned.push_back(u);
  }
  // A node that runs once, P, produces its outputs once: each stays live from P's step through its last
  // reader, or to the end for a graph output. So at the first run of any step s that has P among its
  // ancestors and a reader of the value among its descendants (or when the value is a graph output), that
  // value is live besides what s holds. One pass over the graph per pinned value, skipped where that would
  // cost more than about a second.
  const size_t pinned_values = [&] {
    size_t count = 0;
    for (int p : pinned) count += nodes[p].outputs.size();
    return count;
  }();
  if (pinned_values * (static_cast<size_t>(n) + edges) <= 50'000'000) {
    // Marks in `seen` the nodes reachable from `starts` along `next` (a start only if reached again).
    std::vector<char> seen(n);
    std::vector<int> stack;
    const auto mark = [&](int w) {
      if (!seen[w]) {
        seen[w] = 1;
        stack.push_back(w);
      }
    };
    const auto reach = [&](const std::vector<int>& starts, auto next) {
      std::fill(seen.begin(), seen.end(), 0);
      stack.clear();
      for (int u : starts) next(u, mark);
      while (!stack.empty()) {
        const int u = stack.back();
        stack.pop_back();
        next(u, mark);
      }
    };
    const auto successors = [&](int u, auto visit) {
      for (int v : nodes[u].outputs) {
        for (int c : values[v].consumers) visit(c);
      }
    };
    const auto predecessors = [&](int u, auto visit) {
      for (int v : nodes[u].inputs) {
        if (values[v].producer >= 0) visit(values[v].producer);
      }
    };
    std::vector<Bytes> across(n, 0);
    for (int p : pinned) {
      reach(std::vector<int>{p}, successors);
      const std::vector<char> after = seen;  // strict descendants of p
      for (int v : nodes[p].outputs) {
        const Value& value = values[v];
        if (!value.graph_output) reach(value.consumers, predecessors);  // strict ancestors of its readers
        for (int s = 0; s < n; ++s) {
          if (!after[s] || (!value.graph_output && !seen[s])) continue;
          const std::vector<int>& ins = nodes[s].inputs;
          if (std::find(ins.begin(), ins.end(), v) == ins.end()) across[s] += value.size;
        }
      }
    }
    for (int s = 0; s < n; ++s) step[s] += across[s];
  }
  Bytes outputs = 0;  // every graph output is live at the last step
  for (int v = 0; v < static_cast<int>(values.size()); ++v) {
    if (values[v].graph_output && !IsGraphInput(v)) outputs += values[v].size;
  }
  const Bytes largest_step = n == 0 ? 0 : *std::max_element(step.begin(), step.end());
  return ResidentBytes() + std::max(largest_step, outputs);
}

namespace {

// Finds a cycle by depth-first search and returns it as "a -> b -> ... -> a", or "" when acyclic.
std::string FindCycle(const Graph& graph) {
  const int n = static_cast<int>(graph.nodes.size());
  enum Color : char { kWhite, kGrey, kBlack };
  std::vector<Color> color(n, kWhite);
  std::vector<int> parent(n, -1);
  // Iterative DFS over successor nodes (consumers of a node's outputs), to survive deep graphs.
  std::vector<std::pair<int, size_t>> stack;  // node, index into its successor list
  std::vector<std::vector<int>> successors(n);
  for (int u = 0; u < n; ++u) {
    for (int v : graph.nodes[u].outputs) {
      for (int c : graph.values[v].consumers) successors[u].push_back(c);
    }
  }
  for (int root = 0; root < n; ++root) {
    if (color[root] != kWhite) continue;
    stack.push_back({root, 0});
    color[root] = kGrey;
    while (!stack.empty()) {
      auto& [u, next] = stack.back();
      if (next == successors[u].size()) {
        color[u] = kBlack;
        stack.pop_back();
        continue;
      }
      const int w = successors[u][next++];
      if (color[w] == kGrey) {
        std::vector<int> cycle{w};
        for (int x = u; x != w; x = parent[x]) cycle.push_back(x);
        std::reverse(cycle.begin() + 1, cycle.end());
        std::string text;
        for (int x : cycle) text += fmt::format("{} -> ", graph.nodes[x].name);
        return text + graph.nodes[w].name;
      }
      if (color[w] == kWhite) {
        parent[w] = u;
        color[w] = kGrey;
        stack.push_back({w, 0});
      }
    }
  }
  return "";
}

// Kahn's algorithm, smallest node index first: node index order wherever that is topological.
std::vector<int> TopologicalOrderByIndex(const Graph& graph) {
  const int n = static_cast<int>(graph.nodes.size());
  std::vector<int> pending(n, 0);
  for (int u = 0; u < n; ++u) {
    for (int v : graph.nodes[u].inputs) pending[u] += graph.values[v].producer >= 0 ? 1 : 0;
  }
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (int u = 0; u < n; ++u) {
    if (pending[u] == 0) ready.push(u);
  }
  std::vector<int> order;
  while (!ready.empty()) {
    const int u = ready.top();
    ready.pop();
    order.push_back(u);
    for (int v : graph.nodes[u].outputs) {
      for (int c : graph.values[v].consumers) {
        if (--pending[c] == 0) ready.push(c);
      }
    }
  }
  return order;
}

}  // namespace

void LinkAndCheck(Graph& graph, const std::string& file) {
  for (Value& value : graph.values) {
    value.producer = -1;
    value.consumers.clear();
  }
  for (int u = 0; u < static_cast<int>(graph.nodes.size()); ++u) {
    const Node& node = graph.nodes[u];
    for (size_t j = 0; j < node.outputs.size(); ++j) {
      Value& value = graph.values[node.outputs[j]];
      if (graph.IsGraphInput(node.outputs[j])) {
        common::FailAt(file, 0, fmt::format("nodes[{}].outputs[{}]: value '{}' is a graph input but is produced by "
                                            "node '{}'", u, j, value.name, node.name));
      }
      if (value.producer >= 0) {
        common::FailAt(file, 0, fmt::format("nodes[{}].outputs[{}]: value '{}' is produced by both '{}' and '{}'", u,
                                            j, value.name, graph.nodes[value.producer].name, node.name));
      }
      value.producer = u;
    }
    for (int v : node.inputs) graph.values[v].consumers.push_back(u);
  }
  for (int u = 0; u < static_cast<int>(graph.nodes.size()); ++u) {
    const Node& node = graph.nodes[u];
    for (size_t j = 0; j < node.inputs.size(); ++j) {
      const int v = node.inputs[j];
      if (graph.values[v].producer < 0 && !graph.IsGraphInput(v)) {
        common::FailAt(file, 0, fmt::format("nodes[{}].inputs[{}]: value '{}' is neither produced by a node nor a "
                                            "graph input", u, j, graph.values[v].name));
      }
    }
  }
  for (size_t v = 0; v < graph.values.size(); ++v) {
    if (graph.values[v].graph_output && graph.values[v].producer < 0 && !graph.IsGraphInput(static_cast<int>(v))) {
      common::FailAt(file, 0, fmt::format("values[{}]: output '{}' is produced by no node", v, graph.values[v].name));
    }
  }
  const std::string cycle = FindCycle(graph);
  if (!cycle.empty()) common::FailAt(file, 0, "the graph has a cycle: " + cycle);
  if (graph.order.empty()) graph.order = TopologicalOrderByIndex(graph);
  // The reference order must be a topological order that runs every node exactly once.
  std::vector<int> position(graph.nodes.size(), -1);
  for (size_t i = 0; i < graph.order.size(); ++i) {
    const int u = graph.order[i];
    if (position[u] >= 0) {
      common::FailAt(file, 0, fmt::format("order[{}]: node '{}' appears twice", i, graph.nodes[u].name));
    }
    position[u] = static_cast<int>(i);
  }
  for (size_t u = 0; u < graph.nodes.size(); ++u) {
    if (position[u] < 0) {
      common::FailAt(file, 0, fmt::format("order: node '{}' is missing", graph.nodes[u].name));
    }
    for (int v : graph.nodes[u].inputs) {
      const int p = graph.values[v].producer;
      if (p >= 0 && position[p] > position[u]) {
        common::FailAt(file, 0, fmt::format("order[{}]: node '{}' runs before '{}', which produces its input '{}'",
                                            position[u], graph.nodes[u].name, graph.nodes[p].name,
                                            graph.values[v].name));
      }
    }
  }
}

}  // namespace remat
