#include "remat/grouping.h"

#include <algorithm>
#include <numeric>

namespace remat {
namespace {

// Disjoint sets over node indices.
class UnionFind {
 public:
  explicit UnionFind(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  int Find(int x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void Merge(int from, int into) { parent_[Find(from)] = Find(into); }

 private:
  std::vector<int> parent_;
};

// Values produced inside `members` and read (or needed at the end) outside it, and values read inside it
// but produced outside.
void Boundary(const Graph& graph, const std::vector<int>& members, const std::vector<char>& inside,
              std::vector<int>& inputs, std::vector<int>& outputs) {
  inputs.clear();
  outputs.clear();
  for (int u : members) {
    for (int v : graph.nodes[u].inputs) {
      const int p = graph.values[v].producer;
      if (p < 0 || !inside[p]) inputs.push_back(v);
    }
    for (int v : graph.nodes[u].outputs) {
      const auto& consumers = graph.values[v].consumers;
      const bool external = graph.values[v].graph_output ||
                            std::any_of(consumers.begin(), consumers.end(), [&](int c) { return !inside[c]; });
      if (external) outputs.push_back(v);
    }
  }
  std::sort(inputs.begin(), inputs.end());
  inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
}

// True when the group `members` reads every value of `values` (sorted) from outside itself.
bool ReadsAll(const Graph& graph, const std::vector<int>& members, std::vector<char>& inside,
              const std::vector<int>& values) {
  std::vector<int> inputs;
  std::vector<int> outputs;
  for (int m : members) inside[m] = 1;
  Boundary(graph, members, inside, inputs, outputs);
  for (int m : members) inside[m] = 0;
  return std::includes(inputs.begin(), inputs.end(), values.begin(), values.end());
}

// The most bytes the internal values (produced and read only inside) hold at once while the members run
// in order, plus the running member's workspace.
Bytes InternalPeak(const Graph& graph, const std::vector<int>& members, const std::vector<int>& outputs) {
  std::vector<int> last_read(graph.values.size(), -1);
  for (size_t i = 0; i < members.size(); ++i) {
    for (int v : graph.nodes[members[i]].inputs) last_read[v] = static_cast<int>(i);
  }
  Bytes live = 0;
  Bytes peak = 0;
  std::vector<Bytes> frees(members.size() + 1, 0);
  for (size_t i = 0; i < members.size(); ++i) {
    for (int v : graph.nodes[members[i]].outputs) {
      if (std::find(outputs.begin(), outputs.end(), v) != outputs.end()) continue;
      live += graph.values[v].size;
      frees[std::max<int>(static_cast<int>(i), last_read[v])] += graph.values[v].size;
    }
    peak = std::max(peak, live + graph.nodes[members[i]].workspace);
    live -= frees[i];
  }
  return peak;
}

}  // namespace

Grouping GroupNodes(const Graph& graph) {
  const int n = static_cast<int>(graph.nodes.size());
  std::vector<int> position(n);
  for (int i = 0; i < n; ++i) position[graph.order[i]] = i;
  UnionFind sets(n);
  std::vector<std::vector<int>> members(n);
  std::vector<char> recomputable(n);
  for (int u = 0; u < n; ++u) {
    members[u] = {u};
    recomputable[u] = graph.nodes[u].recomputable;
  }
  std::vector<char> inside(n, 0);
  std::vector<int> inputs;
  std::vector<int> outputs;
  for (int u : graph.order) {
    const int group = sets.Find(u);
    if (!recomputable[group]) continue;
    for (int m : members[group]) inside[m] = 1;
    Boundary(graph, members[group], inside, inputs, outputs);
    int target = -1;
    bool fusable = !outputs.empty();
    for (int v : outputs) {
      if (graph.values[v].graph_output) fusable = false;
      for (int c : graph.values[v].consumers) {
        if (inside[c]) continue;
        const int h = sets.Find(c);
        if (target < 0) target = h;
        fusable = fusable && h == target;
      }
    }
    for (int m : members[group]) inside[m] = 0;
    if (!fusable || target < 0 || !recomputable[target]) continue;
    // A group whose outputs hold no memory (aliased views) fuses only when H reads its inputs anyway.
    const bool free_for_target =
        graph.TotalBytes(outputs) == 0 && ReadsAll(graph, members[target], inside, inputs);
    if (!graph.Regenerable(inputs, outputs) && !free_for_target) continue;
    std::vector<int> merged;
    std::merge(members[group].begin(), members[group].end(), members[target].begin(), members[target].end(),
               std::back_inserter(merged), [&](int a, int b) { return position[a] < position[b]; });
    sets.Merge(group, target);
    members[group].clear();
    members[target] = std::move(merged);
  }
  // One node per group, numbered in the order of the groups' first members.
  Grouping grouping;
  grouping.graph.name = graph.name;
  grouping.graph.cost_unit = graph.cost_unit;
  grouping.graph.values = graph.values;
  for (int u : graph.order) {
    if (sets.Find(u) == u && !members[u].empty()) grouping.members.push_back(members[u]);
  }
  std::sort(grouping.members.begin(), grouping.members.end(),
            [&](const auto& a, const auto& b) { return position[a.front()] < position[b.front()]; });
  for (const std::vector<int>& group : grouping.members) {
    for (int m : group) inside[m] = 1;
    Node node;
    node.key = graph.nodes[group.front()].key;
    node.name = group.size() == 1 ? graph.nodes[group.front()].name
                                  : graph.nodes[group.front()].name + "+" + std::to_string(group.size() - 1);
    Boundary(graph, group, inside, node.inputs, node.outputs);
    node.workspace = InternalPeak(graph, group, node.outputs);
    for (int m : group) {
      node.cost += graph.nodes[m].cost;
      node.recomputable = node.recomputable && graph.nodes[m].recomputable;
      inside[m] = 0;
    }
    grouping.graph.nodes.push_back(std::move(node));
  }
  LinkAndCheck(grouping.graph, "(grouped graph)");
  return grouping;
}

Sequence Ungroup(const Grouping& grouping, const Sequence& sequence) {
  Sequence expanded;
  for (int group : sequence) {
    const std::vector<int>& members = grouping.members[group];
    expanded.insert(expanded.end(), members.begin(), members.end());
  }
  return expanded;
}

}  // namespace remat
