#include "remat/buffers.h"

#include <fmt/core.h>

#include <algorithm>

#include "remat/simulator.h"

namespace remat {

namespace {

// One buffer alive over [lower, upper).
alloc::Buffer MakeBuffer(std::string id, alloc::TimeValue lower, alloc::TimeValue upper, Bytes size) {
  alloc::Buffer buffer;
  buffer.id = std::move(id);
  buffer.lower = lower;
  buffer.upper = upper;
  buffer.size = size;
  return buffer;
}

}  // namespace

alloc::Problem ScheduleToBuffers(const Graph& graph, const Sequence& sequence) {
  alloc::Problem problem;
  const alloc::TimeValue end = std::max<alloc::TimeValue>(1, static_cast<alloc::TimeValue>(sequence.size()));
  for (int v = 0; v < static_cast<int>(graph.values.size()); ++v) {
    if (graph.IsGraphInput(v) && graph.values[v].size > 0) {
      problem.buffers.push_back(MakeBuffer(fmt::format("v{}", v), 0, end, graph.values[v].size));
    }
  }
  std::vector<int> instances(graph.values.size(), 0);
  for (const LiveInterval& interval : LiveIntervals(graph, sequence)) {
    const Value& value = graph.values[interval.value];
    const int k = instances[interval.value]++;
    if (value.size == 0) continue;
    problem.buffers.push_back(MakeBuffer(fmt::format("v{}.{}", interval.value, k), interval.first,
                                         interval.last + 1, value.size));
  }
  for (size_t step = 0; step < sequence.size(); ++step) {
    const Bytes workspace = graph.nodes[sequence[step]].workspace;
    if (workspace == 0) continue;
    const auto t = static_cast<alloc::TimeValue>(step);
    problem.buffers.push_back(MakeBuffer(fmt::format("w{}", step), t, t + 1, workspace));
  }
  return problem;
}

}  // namespace remat
