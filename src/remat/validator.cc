#include "remat/validator.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace remat {

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
  // Memory per step: walk each value's productions; production i covers the steps from itself up to the
  // last read before production i + 1 (to the end for the last production of a graph output).
  std::vector<Bytes> memory(steps + 1, 0);
  for (size_t v = 0; v < graph.values.size(); ++v) {
    const std::vector<int>& p = produced[v];
    size_t r = 0;
    for (size_t i = 0; i < p.size(); ++i) {
      const int next = i + 1 < p.size() ? p[i + 1] : steps;
      int end = p[i];
      while (r < read[v].size() && read[v][r] < next) end = std::max(end, read[v][r++]);
      if (i + 1 == p.size() && graph.values[v].graph_output) end = steps - 1;
      memory[p[i]] += graph.values[v].size;
      memory[end + 1] -= graph.values[v].size;
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
