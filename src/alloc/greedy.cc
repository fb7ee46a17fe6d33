#include "alloc/greedy.h"

#include "alloc/time_axis.h"

#include <algorithm>
#include <limits>
#include <set>

namespace alloc {
namespace {

// The buffers placed so far, indexed by time so that those overlapping a new buffer are found in
// O((k + 1) log T) for k results: a piece [b, e) overlaps [l, r) iff it starts inside [l, r) or it
// covers l. Starts are kept per time point; covering pieces in a segment tree of canonical nodes.
class PlacedIndex {
 public:
  PlacedIndex(uint32_t intervals, size_t buffers) : leaves_(1), stamp_(buffers, 0) {
    while (leaves_ < intervals) leaves_ <<= 1;
    covering_.resize(2 * leaves_);
    starts_.resize(intervals);
  }

  // Records piece [begin, end) of buffer `id`.
  void Add(uint32_t begin, uint32_t end, BufferIndex id) {
    if (begin >= end) return;
    starts_[begin].push_back(id);
    nonempty_starts_.insert(begin);
    for (uint32_t l = begin + leaves_, r = end + leaves_; l < r; l >>= 1, r >>= 1) {
      if (l & 1) covering_[l++].push_back(id);
      if (r & 1) covering_[--r].push_back(id);
    }
  }

  // Appends the placed buffers overlapping [begin, end) to `out`, each once per query round (`round`
  // must grow between rounds).
  void Overlapping(uint32_t begin, uint32_t end, uint32_t round, std::vector<BufferIndex>& out) {
    if (begin >= end) return;
    auto take = [&](BufferIndex id) {
      if (stamp_[id] != round) {
        stamp_[id] = round;
        out.push_back(id);
      }
    };
    for (uint32_t p = begin + leaves_; p > 0; p >>= 1) {
      for (BufferIndex id : covering_[p]) take(id);
    }
    for (auto it = nonempty_starts_.lower_bound(begin); it != nonempty_starts_.end() && *it < end; ++it) {
      for (BufferIndex id : starts_[*it]) take(id);
    }
  }

 private:
  uint32_t leaves_;
  std::vector<std::vector<BufferIndex>> covering_;
  std::vector<std::vector<BufferIndex>> starts_;
  std::set<uint32_t> nonempty_starts_;
  std::vector<uint32_t> stamp_;
};

// The offset a buffer of `size` and `alignment` gets among `occupied` (address ranges, sorted by start).
Offset ChooseGap(std::vector<std::pair<Offset, Offset>>& occupied, Bytes size, Bytes alignment, GapRule rule) {
  std::sort(occupied.begin(), occupied.end());
  Offset best = -1;
  Bytes best_gap = std::numeric_limits<Bytes>::max();
  Offset cursor = 0;  // lowest free address so far
  for (const auto& [begin, end] : occupied) {
    if (begin > cursor) {
      const Offset candidate = AlignUp(cursor, alignment);
      if (candidate + size <= begin) {
        if (rule == GapRule::kFirstFit) return candidate;
        if (begin - cursor < best_gap) {
          best_gap = begin - cursor;
          best = candidate;
        }
      }
    }
    cursor = std::max(cursor, end);
  }
  return best >= 0 ? best : AlignUp(cursor, alignment);
}

}  // namespace

Solution PlaceInOrder(const Problem& problem, std::span<const BufferIndex> order, GapRule rule) {
  const CompressedTime time = CompressTime(problem);
  PlacedIndex placed(std::max<uint32_t>(time.intervals, 1), problem.buffers.size());
  Solution solution;
  solution.offsets.assign(problem.buffers.size(), 0);
  auto record = [&](BufferIndex i) {
    const CompressedLifespan& c = time.lifespans[i];
    placed.Add(c.begin, c.end, i);
    placed.Add(c.begin2, c.end2, i);
  };
  for (BufferIndex i = 0; i < problem.buffers.size(); ++i) {
    if (problem.buffers[i].fixed_offset) {
      solution.offsets[i] = *problem.buffers[i].fixed_offset;
      record(i);
    }
  }
  std::vector<BufferIndex> neighbours;
  std::vector<std::pair<Offset, Offset>> occupied;
  uint32_t round = 0;
  for (BufferIndex i : order) {
    neighbours.clear();
    ++round;
    const CompressedLifespan& c = time.lifespans[i];
    placed.Overlapping(c.begin, c.end, round, neighbours);
    placed.Overlapping(c.begin2, c.end2, round, neighbours);
    occupied.clear();
    for (BufferIndex n : neighbours) {
      occupied.emplace_back(solution.offsets[n], solution.offsets[n] + problem.buffers[n].size);
    }
    const Buffer& b = problem.buffers[i];
    solution.offsets[i] = ChooseGap(occupied, b.size, b.alignment, rule);
    record(i);
  }
  return solution;
}

namespace {

std::vector<BufferIndex> FreeBuffers(const Problem& problem) {
  std::vector<BufferIndex> order;
  for (BufferIndex i = 0; i < problem.buffers.size(); ++i) {
    if (!problem.buffers[i].fixed_offset) order.push_back(i);
  }
  return order;
}

}  // namespace

std::vector<BufferIndex> OrderBySize(const Problem& problem) {
  std::vector<BufferIndex> order = FreeBuffers(problem);
  const auto& b = problem.buffers;
  std::stable_sort(order.begin(), order.end(), [&](BufferIndex x, BufferIndex y) {
    if (b[x].size != b[y].size) return b[x].size > b[y].size;
    return b[x].upper - b[x].lower > b[y].upper - b[y].lower;
  });
  return order;
}

std::vector<BufferIndex> OrderByLifespan(const Problem& problem) {
  std::vector<BufferIndex> order = FreeBuffers(problem);
  const auto& b = problem.buffers;
  std::stable_sort(order.begin(), order.end(), [&](BufferIndex x, BufferIndex y) {
    if (b[x].upper - b[x].lower != b[y].upper - b[y].lower) return b[x].upper - b[x].lower > b[y].upper - b[y].lower;
    return b[x].size > b[y].size;
  });
  return order;
}

std::vector<BufferIndex> OrderByAllocationTime(const Problem& problem) {
  std::vector<BufferIndex> order = FreeBuffers(problem);
  const auto& b = problem.buffers;
  std::stable_sort(order.begin(), order.end(), [&](BufferIndex x, BufferIndex y) { return b[x].lower < b[y].lower; });
  return order;
}

}  // namespace alloc
