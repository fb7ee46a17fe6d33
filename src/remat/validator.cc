#include "remat/validator.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>

namespace remat {

namespace {

// A storage's owner: the value at the end of its chain of Value::view_of.
int RootOf(const Graph& graph, int value) {
  while (graph.values[value].view_of >= 0) value = graph.values[value].view_of;
  return value;
}

// In an aliased graph a view production keeps the storage it was made from: the owner production that the
// view's base (what its node reads of the same storage: a view, else the owner) held at the view's step.
// Extends `last` of each owner production through the last step of every view production holding it.
void ExtendOwnersThroughViews(const Graph& graph, const Sequence& sequence,
                              const std::vector<std::vector<int>>& produced, std::vector<std::vector<int>>& last) {
  // The production of `value` serving step `step`: the latest one before it; -1 for none.
  const auto serving = [&](int value, int step) {
    const auto& p = produced[value];
    return static_cast<int>(std::lower_bound(p.begin(), p.end(), step) - p.begin()) - 1;
  };
  // The owner production (value, index) that production `i` of `value` holds; {-1, -1} for none.
  const std::function<std::pair<int, int>(int, int)> held = [&](int value, int i) -> std::pair<int, int> {
    if (graph.values[value].view_of < 0) return {value, i};
    const int root = RootOf(graph, value);
    const int step = produced[value][i];
    int base = -1;
    for (int input : graph.nodes[sequence[step]].inputs) {
      if (graph.values[input].view_of >= 0 && RootOf(graph, input) == root) {
        base = input;
        break;
      }
      if (input == root) base = root;
    }
    if (base < 0 || graph.IsGraphInput(base)) return {-1, -1};
    const int j = serving(base, step);
    return j < 0 ? std::pair{-1, -1} : held(base, j);
  };
  for (size_t v = 0; v < graph.values.size(); ++v) {
    if (graph.values[v].view_of < 0) continue;
    for (size_t i = 0; i < produced[v].size(); ++i) {
      const auto [owner, k] = held(static_cast<int>(v), static_cast<int>(i));
      if (owner >= 0) last[owner][k] = std::max(last[owner][k], last[v][i]);
    }
  }
}

}  // namespace

ScheduleReport ValidateSchedule(const Graph& graph, const Sequence& sequence, const ScheduleClaims& claims) {
  ScheduleReport report;
  const int steps = static_cast<int>(sequence.size());
  const int node_count = static_cast<int>(graph.nodes.size());
  // Steps at which each value is produced and read, in increasing order.
  std::vector<std::vector<int>> produced(graph.values.size());
  std::vector<std::vector<int>> read(graph.values.size());
  std::vector<int> runs(node_count, 0);
  for (int step = 0; step < steps; ++step) {
    const int u = sequence[step];
    if (u < 0 || u >= node_count) {
      report.errors.push_back(fmt::format("step {}: no node with index {}", step, u));
      continue;
    }
    ++runs[u];
    report.cost += graph.nodes[u].cost;
    for (int v : graph.nodes[u].inputs) {
      if (graph.IsGraphInput(v)) continue;
      if (produced[v].empty()) {
        report.errors.push_back(fmt::format("step {}: node '{}' reads '{}' before any step produces it", step,
                                            graph.nodes[u].name, graph.values[v].name));
      }
      read[v].push_back(step);
    }
    for (int v : graph.nodes[u].outputs) produced[v].push_back(step);
  }
  for (int u = 0; u < node_count; ++u) {
    if (runs[u] == 0) report.errors.push_back(fmt::format("node '{}' never runs", graph.nodes[u].name));
    if (runs[u] > 1 && !graph.nodes[u].recomputable) {
      report.errors.push_back(fmt::format("node '{}' is not recomputable but runs {} times", graph.nodes[u].name,
                                          runs[u]));
    }
  }
  // Each production's last step: it covers the steps from itself up to the last read before the next
  // production (to the end for the last production of a graph output).
  std::vector<std::vector<int>> last(graph.values.size());
  for (size_t v = 0; v < graph.values.size(); ++v) {
    const std::vector<int>& p = produced[v];
    size_t r = 0;
    for (size_t i = 0; i < p.size(); ++i) {
      const int next = i + 1 < p.size() ? p[i + 1] : steps;
      int end = p[i];
      while (r < read[v].size() && read[v][r] < next) end = std::max(end, read[v][r++]);
      if (i + 1 == p.size() && graph.values[v].graph_output) end = steps - 1;
      last[v].push_back(end);
    }
  }
  if (graph.views_aliased) ExtendOwnersThroughViews(graph, sequence, produced, last);
  std::vector<Bytes> memory(steps + 1, 0);
  for (size_t v = 0; v < graph.values.size(); ++v) {
    for (size_t i = 0; i < produced[v].size(); ++i) {
      memory[produced[v][i]] += graph.values[v].size;
      memory[last[v][i] + 1] -= graph.values[v].size;
    }
  }
  Bytes resident = 0;
  for (size_t v = 0; v < graph.values.size(); ++v) {
    if (graph.IsGraphInput(static_cast<int>(v))) resident += graph.values[v].size;
  }
  report.peak = resident;
  Bytes running = 0;
  for (int step = 0; step < steps; ++step) {
    running += memory[step];
    const int u = sequence[step];
    const Bytes workspace = u >= 0 && u < node_count ? graph.nodes[u].workspace : 0;
    report.peak = std::max(report.peak, resident + running + workspace);
  }
  if (claims.peak && *claims.peak != report.peak) {
    report.errors.push_back(fmt::format("reported peak {} but the schedule peaks at {}", *claims.peak, report.peak));
  }
  if (claims.cost && std::abs(*claims.cost - report.cost) > 1e-9 * std::max(1.0, std::abs(report.cost))) {
    report.errors.push_back(fmt::format("reported cost {} but the schedule costs {}", *claims.cost, report.cost));
  }
  report.budget_met = !claims.budget || report.peak <= *claims.budget;
  return report;
}

}  // namespace remat
