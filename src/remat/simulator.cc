#include "remat/simulator.h"

#include <algorithm>
#include <stdexcept>

#include "remat/views.h"

namespace remat {

std::vector<LiveInterval> LiveIntervals(const Graph& graph, const Sequence& sequence) {
  std::vector<LiveInterval> intervals;
  std::vector<int> open(graph.values.size(), -1);  // index into `intervals` of each value's latest production
  // In an aliased graph, the interval of the owner production that each view production holds; -1: none.
  std::vector<int> holds;
  const std::vector<int> base = graph.views_aliased ? ViewBases(graph) : std::vector<int>(graph.values.size(), -1);
  const int steps = static_cast<int>(sequence.size());
  for (int step = 0; step < steps; ++step) {
    const Node& node = graph.nodes[sequence[step]];
    for (int v : node.inputs) {
      if (graph.IsGraphInput(v)) continue;
      if (open[v] < 0) throw std::logic_error("step " + std::to_string(step) + " reads an unproduced value");
      intervals[open[v]].last = step;
    }
    for (int v : node.outputs) {
      const int b = base[v];
      const int held = b < 0 || open[b] < 0 ? -1 : graph.values[b].view_of >= 0 ? holds[open[b]] : open[b];
      open[v] = static_cast<int>(intervals.size());
      intervals.push_back({v, step, step});
      holds.push_back(held);
    }
  }
  for (size_t v = 0; v < graph.values.size(); ++v) {
    if (open[v] >= 0 && graph.values[v].graph_output) intervals[open[v]].last = steps - 1;
  }
  for (size_t i = 0; i < intervals.size(); ++i) {
    if (holds[i] >= 0) intervals[holds[i]].last = std::max(intervals[holds[i]].last, intervals[i].last);
  }
  return intervals;
}

Evaluation Simulate(const Graph& graph, const Sequence& sequence) {
  Evaluation evaluation;
  const int steps = static_cast<int>(sequence.size());
  std::vector<Bytes> delta(steps + 1, 0);
  for (const LiveInterval& interval : LiveIntervals(graph, sequence)) {
    delta[interval.first] += graph.values[interval.value].size;
    delta[interval.last + 1] -= graph.values[interval.value].size;
  }
  const Bytes resident = graph.ResidentBytes();
  evaluation.peak = resident;
  evaluation.memory.resize(steps);
  Bytes live = 0;
  for (int step = 0; step < steps; ++step) {
    live += delta[step];
    const Node& node = graph.nodes[sequence[step]];
    evaluation.memory[step] = resident + live + node.workspace;
    evaluation.peak = std::max(evaluation.peak, evaluation.memory[step]);
    evaluation.cost += node.cost;
  }
  return evaluation;
}

}  // namespace remat
