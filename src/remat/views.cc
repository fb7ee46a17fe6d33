#include "remat/views.h"

#include <algorithm>
#include <functional>

namespace remat {

Graph AliasViews(Graph graph) {
  for (int v = 0; v < static_cast<int>(graph.values.size()); ++v) {
    if (graph.values[v].view_of < 0) continue;
    const int owner = StorageOwner(graph, v);
    for (int consumer : graph.values[v].consumers) {
      std::vector<int>& inputs = graph.nodes[consumer].inputs;
      const auto at = std::lower_bound(inputs.begin(), inputs.end(), owner);
      if (at == inputs.end() || *at != owner) inputs.insert(at, owner);
    }
    if (graph.values[v].graph_output && !graph.IsGraphInput(owner)) graph.values[owner].graph_output = true;
    graph.values[v].size = 0;
  }
  graph.views_aliased = true;
  LinkAndCheck(graph, graph.name);
  return graph;
}

const char* ViewAccounting(const Graph& graph) { return graph.views_aliased ? "alias" : "full"; }

int StorageOwner(const Graph& graph, int value) {
  while (graph.values[value].view_of >= 0) value = graph.values[value].view_of;
  return value;
}

int ViewBase(const Graph& graph, int view) {
  const int producer = graph.values[view].producer;
  if (producer < 0) return -1;
  const int owner = StorageOwner(graph, view);
  bool reads_owner = false;
  for (int input : graph.nodes[producer].inputs) {
    // AliasViews makes a view of a view read the owner too: the view it reads is the one it was made from.
    if (graph.values[input].view_of >= 0 && StorageOwner(graph, input) == owner) return input;
    reads_owner = reads_owner || input == owner;
  }
  return reads_owner ? owner : -1;
}

std::vector<int> ViewBases(const Graph& graph) {
  std::vector<int> bases(graph.values.size(), -1);
  for (int v = 0; v < static_cast<int>(graph.values.size()); ++v) {
    if (graph.values[v].view_of >= 0) bases[v] = ViewBase(graph, v);
  }
  return bases;
}

Sequence RefreshViews(const Graph& graph, const Sequence& sequence) {
  if (!graph.views_aliased) return sequence;
  const int value_count = static_cast<int>(graph.values.size());
  const auto is_view = [&](int v) { return graph.values[v].view_of >= 0; };
  const std::vector<int> base = ViewBases(graph);
  std::vector<int> owner(value_count);
  for (int v = 0; v < value_count; ++v) owner[v] = StorageOwner(graph, v);
  std::vector<int64_t> productions(value_count, 0);  // of each value so far
  std::vector<int64_t> made_from(value_count, 0);    // a view's latest production: the owner production it holds
  const auto stale = [&](int v) { return is_view(v) && made_from[v] != productions[owner[v]]; };
  Sequence refreshed;
  refreshed.reserve(sequence.size());
  const auto run = [&](int u) {
    refreshed.push_back(u);
    for (int v : graph.nodes[u].outputs) {
      ++productions[v];
      if (is_view(v)) made_from[v] = base[v] >= 0 && is_view(base[v]) ? made_from[base[v]] : productions[owner[v]];
    }
  };
  // Re-makes `view` unless it cannot be made fresh: its node may not run again, or the view it is made from
  // cannot be made fresh (a copy would hold the same old storage, and each later read would add another).
  // Returns whether it is fresh.
  const std::function<bool(int)> remake = [&](int view) {
    const int producer = graph.values[view].producer;
    if (producer < 0 || !graph.nodes[producer].recomputable) return false;
    if (base[view] >= 0 && stale(base[view]) && !remake(base[view])) return false;
    for (int input : graph.nodes[producer].inputs) {
      if (stale(input)) remake(input);
    }
    run(producer);
    return true;
  };
  for (int u : sequence) {
    for (int input : graph.nodes[u].inputs) {
      if (stale(input)) remake(input);
    }
    run(u);
  }
  for (int v = 0; v < value_count; ++v) {
    if (graph.values[v].graph_output && stale(v)) remake(v);
  }
  return refreshed;
}

}  // namespace remat
