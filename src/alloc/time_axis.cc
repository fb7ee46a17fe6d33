#include "alloc/time_axis.h"

#include <algorithm>

namespace alloc {

CompressedTime CompressTime(const Problem& problem) {
  std::vector<TimeValue> axis;
  axis.reserve(problem.buffers.size() * 2 + 2);
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    for (const TimeRange& r : problem.Lifespan(i)) {
      axis.push_back(r.begin);
      axis.push_back(r.end);
    }
  }
  std::sort(axis.begin(), axis.end());
  axis.erase(std::unique(axis.begin(), axis.end()), axis.end());
  auto index = [&](TimeValue t) {
    return static_cast<uint32_t>(std::lower_bound(axis.begin(), axis.end(), t) - axis.begin());
  };
  CompressedTime result;
  result.intervals = axis.empty() ? 0 : static_cast<uint32_t>(axis.size() - 1);
  result.lifespans.resize(problem.buffers.size());
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const std::vector<TimeRange> life = problem.Lifespan(i);
    CompressedLifespan& c = result.lifespans[i];
    c.begin = index(life[0].begin);
    c.end = index(life[0].end);
    if (life.size() > 1) {
      c.begin2 = index(life[1].begin);
      c.end2 = index(life[1].end);
    }
  }
  return result;
}

}  // namespace alloc
