#include "alloc/greedy.h"

#include "alloc/time_axis.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace alloc {
namespace {

// Address ranges [begin, end), kept disjoint and sorted; touching ranges are merged. A sorted vector, not a
// map: most sets hold a few runs (greedy placement packs buffers next to each other), and at a million
// buffers the tree nodes of maps cost more time in malloc than the searches, and a gigabyte.
class AddressRuns {
 public:
  void Insert(Offset begin, Offset end) {
    auto first = After(begin);
    const auto after = first;
    if (first != runs_.begin() && std::prev(first)->end >= begin) {
      --first;
      begin = first->begin;
      end = std::max(end, first->end);
    }
    auto last = after;
    while (last != runs_.end() && last->begin <= end) {
      end = std::max(end, last->end);
      ++last;
    }
    if (first == last) {
      runs_.insert(first, {begin, end});
    } else {
      *first = {begin, end};
      runs_.erase(first + 1, last);
    }
  }

  // A range [begin, end) of used addresses.
  struct Run {
    Offset begin, end;
  };

  // The runs, sorted by address.
  const std::vector<Run>& runs() const { return runs_; }

 private:
  // The first run that begins after `at`.
  std::vector<Run>::iterator After(Offset at) {
    return std::upper_bound(runs_.begin(), runs_.end(), at, [](Offset v, const Run& r) { return v < r.begin; });
  }
  std::vector<Run> runs_;
};

// One set's runs read from the bottom of the arena up: every query asks at an address no lower than the last
// one, so the walk gallops forward from where it stands. Choosing a gap asks each set a few times per gap it
// passes, and best fit passes hundreds of gaps in the middle of a training step: searching every set from
// its first run at each question made best fit take 30 s on a training pattern of 100k buffers (now 8 s).
class RunsWalk {
 public:
  explicit RunsWalk(const AddressRuns* set) : runs_(&set->runs()) {}

  // The end of the run that meets [begin, end), or nullopt when the range is free here.
  std::optional<Offset> Blocking(Offset begin, Offset end) {
    MoveTo(begin);
    if (next_ > 0 && (*runs_)[next_ - 1].end > begin) return (*runs_)[next_ - 1].end;
    if (next_ < runs_->size() && (*runs_)[next_].begin < end) return (*runs_)[next_].end;
    return std::nullopt;
  }

  // The end of the last run that ends at or below the free address `at` (0 when none).
  Offset PreviousEnd(Offset at) {
    MoveTo(at);
    return next_ == 0 ? 0 : (*runs_)[next_ - 1].end;
  }

  // The start of the first run that begins after `at` (the limit of a gap starting at `at`).
  Offset NextStart(Offset at) {
    MoveTo(at);
    return next_ == runs_->size() ? std::numeric_limits<Offset>::max() : (*runs_)[next_].begin;
  }

 private:
  // Moves `next_` to the first run that begins after `at`.
  void MoveTo(Offset at) {
    const std::vector<AddressRuns::Run>& runs = *runs_;
    size_t step = 1, below = next_;
    while (below + step < runs.size() && runs[below + step].begin <= at) {
      below += step;
      step *= 2;
    }
    const auto last = runs.begin() + static_cast<std::ptrdiff_t>(std::min(below + step, runs.size()));
    next_ = static_cast<size_t>(std::upper_bound(runs.begin() + static_cast<std::ptrdiff_t>(next_), last, at,
                                                 [](Offset v, const AddressRuns::Run& r) { return v < r.begin; }) -
                                runs.begin());
  }

  const std::vector<AddressRuns::Run>* runs_;
  size_t next_ = 0;  // the first run that begins after the last address asked about
};

// The address ranges of the buffers placed so far, indexed by time. A segment tree over the compressed
// time axis keeps, per node, the ranges of the pieces whose canonical decomposition includes the node
// (`own`) and the union over its whole subtree (`below`). The ranges that conflict with a piece [l, r)
// are then the `below` of its canonical nodes plus the `own` of the ancestors of its two boundary leaves
// (every node nested around a canonical node is one of those). Merging the ranges keeps the sets small
// where placed buffers sit next to each other, which is what greedy placement produces, so a query does
// not pay for every one of the thousands of buffers alive at once in a training step.
class OccupancyIndex {
 public:
  explicit OccupancyIndex(uint32_t intervals) : leaves_(1) {
    while (leaves_ < std::max<uint32_t>(intervals, 1)) leaves_ <<= 1;
    own_.resize(2 * leaves_);
    below_.resize(2 * leaves_);
  }

  // Marks [offset, offset + size) as used during elementary intervals [begin, end).
  void Add(uint32_t begin, uint32_t end, Offset offset, Offset top) {
    if (begin >= end) return;
    const uint32_t l0 = begin + leaves_, r0 = end - 1 + leaves_;
    for (uint32_t l = l0, r = r0 + 1; l < r; l >>= 1, r >>= 1) {
      if (l & 1) {
        own_[l].Insert(offset, top);
        below_[l++].Insert(offset, top);
      }
      if (r & 1) {
        own_[--r].Insert(offset, top);
        below_[r].Insert(offset, top);
      }
    }
    // Ancestors of canonical nodes lie on the two boundary paths, which join at their common ancestor.
    // (A node on those paths below a canonical node is covered by the piece too; recording the range there
    // is still exact: every range in `below` overlaps the node in time.)
    for (uint32_t l = l0 >> 1, r = r0 >> 1; l > 0; l >>= 1, r >>= 1) {
      below_[l].Insert(offset, top);
      if (r != l) below_[r].Insert(offset, top);
    }
  }

  // Appends the sets that hold every range used during [begin, end).
  void Collect(uint32_t begin, uint32_t end, std::vector<const AddressRuns*>& out) const {
    if (begin >= end) return;
    const uint32_t l0 = begin + leaves_, r0 = end - 1 + leaves_;
    // The dense sets first (subtree unions, then long-lived pieces near the root), so that the search for
    // a free range jumps over the packed bottom of the arena in a few steps.
    for (uint32_t l = l0, r = r0 + 1; l < r; l >>= 1, r >>= 1) {
      if (l & 1) out.push_back(&below_[l++]);
      if (r & 1) out.push_back(&below_[--r]);
    }
    const size_t first_own = out.size();
    for (uint32_t l = l0, r = r0; l > 0; l >>= 1, r >>= 1) {
      out.push_back(&own_[l]);
      if (r != l) out.push_back(&own_[r]);
    }
    std::reverse(out.begin() + static_cast<std::ptrdiff_t>(first_own), out.end());
  }

 private:
  uint32_t leaves_;
  std::vector<AddressRuns> own_;
  std::vector<AddressRuns> below_;
};

// The lowest aligned offset >= `from` where [offset, offset + size) is free in every set.
Offset LowestFree(std::vector<RunsWalk>& walks, Offset from, Bytes size, Bytes alignment) {
  Offset offset = AlignUp(from, alignment);
  bool moved = true;
  while (moved) {
    moved = false;
    for (RunsWalk& walk : walks) {
      while (auto end = walk.Blocking(offset, offset + size)) {
        offset = AlignUp(*end, alignment);
        moved = true;
      }
    }
  }
  return offset;
}

// The offset a buffer of `size` and `alignment` gets given the ranges in `sets`.
Offset ChooseGap(const std::vector<const AddressRuns*>& sets, Bytes size, Bytes alignment, GapRule rule) {
  std::vector<RunsWalk> walks(sets.begin(), sets.end());
  if (rule == GapRule::kFirstFit) return LowestFree(walks, 0, size, alignment);
  // Best fit: visit, from the bottom, each gap of the union in which the buffer fits (jumping straight from
  // one such gap to the next, past the many small ones); keep the smallest (lowest on ties); the space
  // above everything is the fallback.
  Offset best = -1;
  Bytes best_gap = std::numeric_limits<Bytes>::max();
  Offset cursor = 0;
  while (true) {
    const Offset candidate = LowestFree(walks, cursor, size, alignment);
    Offset gap_start = 0;
    Offset limit = std::numeric_limits<Offset>::max();
    for (RunsWalk& walk : walks) {
      gap_start = std::max(gap_start, walk.PreviousEnd(candidate));
      limit = std::min(limit, walk.NextStart(candidate));
    }
    if (limit == std::numeric_limits<Offset>::max()) return best >= 0 ? best : candidate;
    if (limit - gap_start < best_gap) {
      best_gap = limit - gap_start;
      best = candidate;
      // A gap the buffer fits in is at least its size, and ties go to the lowest: no gap above can win.
      if (best_gap == size) return best;
    }
    cursor = limit;
  }
}

}  // namespace

Solution PlaceInOrder(const Problem& problem, std::span<const BufferIndex> order, GapRule rule) {
  const CompressedTime time = CompressTime(problem);
  OccupancyIndex placed(time.intervals);
  Solution solution;
  solution.offsets.assign(problem.buffers.size(), 0);
  auto record = [&](BufferIndex i) {
    const CompressedLifespan& c = time.lifespans[i];
    const Offset top = solution.offsets[i] + problem.buffers[i].size;
    placed.Add(c.begin, c.end, solution.offsets[i], top);
    placed.Add(c.begin2, c.end2, solution.offsets[i], top);
  };
  for (BufferIndex i = 0; i < problem.buffers.size(); ++i) {
    if (problem.buffers[i].fixed_offset) {
      solution.offsets[i] = *problem.buffers[i].fixed_offset;
      record(i);
    }
  }
  std::vector<const AddressRuns*> sets;
  for (BufferIndex i : order) {
    sets.clear();
    const CompressedLifespan& c = time.lifespans[i];
    placed.Collect(c.begin, c.end, sets);
    placed.Collect(c.begin2, c.end2, sets);
    const Buffer& b = problem.buffers[i];
    solution.offsets[i] = ChooseGap(sets, b.size, b.alignment, rule);
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

// The free buffers stably sorted by `before`, a strict weak order on buffers: input order on ties.
template <typename Before>
std::vector<BufferIndex> FreeBuffersSorted(const Problem& problem, Before before) {
  std::vector<BufferIndex> order = FreeBuffers(problem);
  std::stable_sort(order.begin(), order.end(),
                   [&](BufferIndex x, BufferIndex y) { return before(problem.buffers[x], problem.buffers[y]); });
  return order;
}

// How long a buffer is alive.
TimeValue Lifespan(const Buffer& b) { return b.upper - b.lower; }

// Longer lifespan first, then larger.
bool LongerThenLarger(const Buffer& x, const Buffer& y) {
  if (Lifespan(x) != Lifespan(y)) return Lifespan(x) > Lifespan(y);
  return x.size > y.size;
}

// The class of `size`: the size itself, or floor(log2(size)) or floor(2 log2(size)), in integers so that every
// machine sorts alike. The upper half of octave k starts at 2^k * sqrt(2): size^2 >= 2^(2k+1), compared on the
// top 31 bits of size where size^2 would not fit in 64 bits (sizes of 2 GiB and more).
int64_t SizeClass(Bytes size, SizeClasses classes) {
  if (classes == SizeClasses::kExact) return size;
  uint64_t s = static_cast<uint64_t>(std::max<Bytes>(size, 1));
  const int octave = std::bit_width(s) - 1;
  if (classes == SizeClasses::kOctave) return octave;
  int k = octave;
  if (k > 30) {
    s >>= k - 30;
    k = 30;
  }
  return 2 * octave + (s * s >= (uint64_t{1} << (2 * k + 1)) ? 1 : 0);
}

}  // namespace

std::vector<BufferIndex> OrderBySize(const Problem& problem, SizeTies ties, SizeClasses classes) {
  return FreeBuffersSorted(problem, [&](const Buffer& x, const Buffer& y) {
    const int64_t class_x = SizeClass(x.size, classes);
    const int64_t class_y = SizeClass(y.size, classes);
    if (class_x != class_y) return class_x > class_y;
    switch (ties) {
      case SizeTies::kLongerLifespan:
        return LongerThenLarger(x, y);
      case SizeTies::kEarlierAllocation:
        if (x.lower != y.lower) return x.lower < y.lower;
        break;
      case SizeTies::kLaterFree:
        if (x.upper != y.upper) return x.upper > y.upper;
        break;
    }
    return x.size > y.size;
  });
}

std::vector<BufferIndex> OrderByLifespan(const Problem& problem) {
  return FreeBuffersSorted(problem, LongerThenLarger);
}

std::vector<BufferIndex> OrderByAllocationTime(const Problem& problem) {
  return FreeBuffersSorted(problem, [](const Buffer& x, const Buffer& y) { return x.lower < y.lower; });
}

}  // namespace alloc
