#include "remat/chen.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "remat/simulator.h"

namespace remat {

Sequence CheckpointSchedule(const Graph& graph, int segment) {
  const int n = static_cast<int>(graph.nodes.size());
  std::vector<char> kept(n, 0);
  for (int i = 0; i < n; ++i) {
    const int u = graph.order[i];
    kept[u] = (i + 1) % segment == 0 || !graph.nodes[u].recomputable;
  }
  // A value stays usable for two segments' worth of steps after its production: long enough for a
  // recomputed segment to serve the steps that asked for it.
  const int64_t window = 2 * static_cast<int64_t>(segment);
  std::vector<int64_t> last_run(n, -1);
  Sequence sequence;
  // Also usable: whatever was (re)computed for the current reference step, so that each step recomputes a
  // node at most once (without this, deep graphs recompute exponentially often).
  int64_t step_start = 0;
  const auto available = [&](int value) {
    const int p = graph.values[value].producer;
    if (p < 0) return true;
    if (last_run[p] < 0) return false;
    const auto now = static_cast<int64_t>(sequence.size());
    return kept[p] || now - last_run[p] <= window || last_run[p] >= step_start;
  };
  // Depth-first recomputation with an explicit stack (graphs can be deep): a node is emitted once all its
  // inputs are available.
  std::vector<std::pair<int, size_t>> stack;
  for (int target : graph.order) {
    step_start = static_cast<int64_t>(sequence.size());
    stack.push_back({target, 0});
    while (!stack.empty()) {
      auto& [u, next] = stack.back();
      const std::vector<int>& inputs = graph.nodes[u].inputs;
      while (next < inputs.size() && available(inputs[next])) ++next;
      if (next < inputs.size()) {
        const int producer = graph.values[inputs[next]].producer;
        ++next;
        stack.push_back({producer, 0});
        continue;
      }
      last_run[u] = static_cast<int64_t>(sequence.size());
      sequence.push_back(u);
      stack.pop_back();
    }
  }
  return sequence;
}

Sequence ChenSchedule(const Graph& graph, Bytes budget) {
  const int n = std::max<int>(1, static_cast<int>(graph.nodes.size()));
  const double root = std::sqrt(static_cast<double>(n));
  std::set<int> segments{n};
  for (double factor = 1.0 / 8; factor <= 8.0; factor *= std::sqrt(2.0)) {
    segments.insert(std::clamp(static_cast<int>(std::lround(root * factor)), 1, n));
  }
  Sequence best;
  Evaluation best_eval;
  bool best_met = false;
  for (int segment : segments) {
    Sequence candidate = CheckpointSchedule(graph, segment);
    const Evaluation eval = Simulate(graph, candidate);
    const bool met = eval.peak <= budget;
    const bool better = best.empty() || (met && !best_met) ||
                        (met && best_met && eval.cost < best_eval.cost) ||
                        (!met && !best_met && eval.peak < best_eval.peak);
    if (better) {
      best = std::move(candidate);
      best_eval = eval;
      best_met = met;
    }
  }
  return best;
}

}  // namespace remat
