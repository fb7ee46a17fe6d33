#include "alloc/validator.h"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace alloc {

ValidationReport Validate(const Problem& problem, const std::vector<std::optional<Offset>>& offsets) {
  ValidationReport report;
  const auto& buffers = problem.buffers;
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Buffer& b = buffers[i];
    if (!offsets[i]) {
      report.errors.push_back(fmt::format("buffer '{}' has no offset", b.id));
      continue;
    }
    const Offset offset = *offsets[i];
    report.height = std::max(report.height, offset + b.size);
    if (offset < 0) report.errors.push_back(fmt::format("buffer '{}' has a negative offset {}", b.id, offset));
    if (b.alignment > 1 && offset % b.alignment != 0) {
      report.errors.push_back(
          fmt::format("buffer '{}' at offset {} is not aligned to {}", b.id, offset, b.alignment));
    }
    if (b.fixed_offset && *b.fixed_offset != offset) {
      report.errors.push_back(
          fmt::format("buffer '{}' is fixed at offset {} but was placed at {}", b.id, *b.fixed_offset, offset));
    }
  }

  // Sweep over time. Each lifespan piece is an event pair; at equal times ends come before begins.
  // A periodic buffer that wraps contributes two pieces: [lower, period) and [0, upper - period).
  struct Event {
    TimeValue time;
    int kind;  // 0 = end, 1 = begin
    size_t buffer;
  };
  std::vector<Event> events;
  events.reserve(buffers.size() * 2);
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (!offsets[i]) continue;
    const Buffer& b = buffers[i];
    const bool wraps = problem.period > 0 && b.upper > problem.period;
    const TimeValue first_end = wraps ? problem.period : b.upper;
    events.push_back({b.lower, 1, i});
    events.push_back({first_end, 0, i});
    if (wraps) {
      events.push_back({0, 1, i});
      events.push_back({b.upper - problem.period, 0, i});
    }
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return std::tie(a.time, a.kind, a.buffer) < std::tie(b.time, b.kind, b.buffer);
  });

  // Live buffers by offset. `live_sizes` bounds how far below a new buffer an overlapping one can start.
  std::multimap<Offset, size_t> live;
  std::multiset<Bytes> live_sizes;
  std::set<std::pair<size_t, size_t>> pairs;
  for (const Event& e : events) {
    const Buffer& b = buffers[e.buffer];
    const Offset offset = *offsets[e.buffer];
    if (e.kind == 0) {
      auto range = live.equal_range(offset);
      for (auto it = range.first; it != range.second; ++it) {
        if (it->second == e.buffer) {
          live.erase(it);
          break;
        }
      }
      live_sizes.erase(live_sizes.find(b.size));
      continue;
    }
    if (!live.empty()) {
      const Bytes largest = *live_sizes.rbegin();
      // Candidates start in (offset - largest, offset + size).
      for (auto it = live.upper_bound(offset - largest); it != live.end() && it->first < offset + b.size; ++it) {
        const size_t other = it->second;
        if (it->first + buffers[other].size > offset) {
          pairs.emplace(std::min(other, e.buffer), std::max(other, e.buffer));
        }
      }
    }
    live.emplace(offset, e.buffer);
    live_sizes.insert(b.size);
  }
  report.overlapping_pairs = pairs.size();
  for (const auto& [x, y] : pairs) {
    const Buffer& a = buffers[x];
    const Buffer& b = buffers[y];
    report.errors.push_back(fmt::format(
        "buffers '{}' (time [{}, {}), address [{}, {})) and '{}' (time [{}, {}), address [{}, {})) overlap", a.id,
        a.lower, a.upper, *offsets[x], *offsets[x] + a.size, b.id, b.lower, b.upper, *offsets[y],
        *offsets[y] + b.size));
  }
  return report;
}

ValidationReport Validate(const Problem& problem, const Solution& solution) {
  std::vector<std::optional<Offset>> offsets(solution.offsets.begin(), solution.offsets.end());
  offsets.resize(problem.buffers.size());
  return Validate(problem, offsets);
}

}  // namespace alloc
