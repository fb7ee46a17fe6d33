#include "alloc/problem.h"

#include <fmt/core.h>

#include <algorithm>
#include <utility>

namespace alloc {

std::vector<TimeRange> Problem::Lifespan(size_t i) const {
  const Buffer& b = buffers[i];
  if (period > 0 && b.upper > period) {
    return {{b.lower, period}, {0, b.upper - period}};
  }
  return {{b.lower, b.upper}};
}

Bytes PeakLoad(const Problem& problem) {
  // Sweep over +size / -size events; at equal times frees come first (half-open lifespans).
  std::vector<std::pair<TimeValue, Bytes>> events;
  events.reserve(problem.buffers.size() * 2);
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    for (const TimeRange& r : problem.Lifespan(i)) {
      if (r.begin >= r.end) continue;
      events.emplace_back(r.begin, problem.buffers[i].size);
      events.emplace_back(r.end, -problem.buffers[i].size);
    }
  }
  std::sort(events.begin(), events.end());
  Bytes load = 0;
  Bytes peak = 0;
  for (const auto& [time, delta] : events) {
    load += delta;
    peak = std::max(peak, load);
  }
  return peak;
}

Bytes Height(const Problem& problem, const Solution& solution) {
  Bytes height = 0;
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    height = std::max(height, solution.offsets[i] + problem.buffers[i].size);
  }
  return height;
}

double Fragmentation(Bytes height, Bytes lb) {
  return lb == 0 ? 0.0 : static_cast<double>(height) / static_cast<double>(lb) - 1.0;
}

std::string DescribeHeight(Bytes height, Bytes lb) {
  return fmt::format("height {} (LB {}, fragmentation {:.3f} %)", height, lb, 100.0 * Fragmentation(height, lb));
}

double WastedShare(Bytes height, Bytes lb) {
  return height == 0 ? 0.0 : static_cast<double>(height - lb) / static_cast<double>(height);
}

}  // namespace alloc
