#include "alloc/exact_search.h"

#include <algorithm>
#include <bit>
#include <exception>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <tuple>

#include <pthread.h>

#include <fmt/format.h>

#include "alloc/time_axis.h"
#include "common/interrupt.h"
#include "common/stopwatch.h"

namespace alloc {

const char* ToString(SearchOutcome outcome) {
  switch (outcome) {
    case SearchOutcome::kFound: return "found";
    case SearchOutcome::kNoneExists: return "none";
    case SearchOutcome::kNodeLimit: return "nodes";
    case SearchOutcome::kTimeLimit: return "time";
    case SearchOutcome::kInterrupted: return "interrupted";
    case SearchOutcome::kTooLarge: return "too-large";
    case SearchOutcome::kOverBudget: return "over-budget";
  }
  return "?";
}

namespace {

using Section = uint32_t;
constexpr Offset kUnplaced = -1;
constexpr size_t kPreorders = 3;

// How one subtree of the search ended.
enum class Status { kFound, kNone, kNodeLimit, kTimeLimit, kInterrupted };

// Range add and range max over the sections, for the bytes not yet placed: the consistency check of a node
// costs O(log T) instead of a scan of its partition.
class RangeMaxTree {
 public:
  explicit RangeMaxTree(const std::vector<Bytes>& values) : n_(values.size()) {
    while (leaves_ < n_) leaves_ *= 2;
    max_.assign(2 * leaves_, 0);
    add_.assign(2 * leaves_, 0);
    for (size_t i = 0; i < n_; ++i) max_[leaves_ + i] = values[i];
    for (size_t i = leaves_ - 1; i >= 1; --i) max_[i] = std::max(max_[2 * i], max_[2 * i + 1]);
  }
  // Adds `delta` to every section in [lo, hi).
  void Add(size_t lo, size_t hi, Bytes delta) { Add(1, 0, leaves_, lo, hi, delta); }
  // The largest value in [lo, hi) (lo < hi).
  Bytes Max(size_t lo, size_t hi) const { return Max(1, 0, leaves_, lo, hi); }

 private:
  void Add(size_t node, size_t nl, size_t nr, size_t lo, size_t hi, Bytes delta) {
    if (hi <= nl || nr <= lo) return;
    if (lo <= nl && nr <= hi) {
      max_[node] += delta;
      add_[node] += delta;
      return;
    }
    const size_t mid = (nl + nr) / 2;
    Add(2 * node, nl, mid, lo, hi, delta);
    Add(2 * node + 1, mid, nr, lo, hi, delta);
    max_[node] = std::max(max_[2 * node], max_[2 * node + 1]) + add_[node];
  }
  Bytes Max(size_t node, size_t nl, size_t nr, size_t lo, size_t hi) const {
    if (lo <= nl && nr <= hi) return max_[node];
    const size_t mid = (nl + nr) / 2;
    Bytes best = std::numeric_limits<Bytes>::min();
    if (lo < mid) best = std::max(best, Max(2 * node, nl, mid, lo, hi));
    if (mid < hi) best = std::max(best, Max(2 * node + 1, mid, nr, lo, hi));
    return best + add_[node];
  }

  size_t n_, leaves_ = 1;
  std::vector<Bytes> max_, add_;
};

// A placement a node may try: buffer `buffer` at `offset`; tried in order of offset, then rank.
struct Candidate {
  Offset offset;
  int64_t rank;
  uint32_t buffer;
  bool operator<(const Candidate& o) const {
    return std::tie(offset, rank, buffer) < std::tie(o.offset, o.rank, o.buffer);
  }
};

// A value saved before a change, restored when the search backtracks.
struct Saved {
  uint32_t index;
  Offset value;
};

// The search's state and its depth-first recursion. Partitions are ranges of sections [lo, hi) whose
// unplaced buffers start inside them and that no unplaced buffer crosses.
class PackingSearch {
 public:
  explicit PackingSearch(const Problem& problem) : problem_(problem) {}

  // Builds the indexes; false when the input is too large to index (kMaxOverlapPairs: refusal() is
  // kTooLarge) or one descent would cost more than `work_limit` (kOverBudget).
  bool Prepare(uint64_t work_limit);
  SearchOutcome refusal() const { return refusal_; }

  // One depth-first search for a packing within `capacity`, under preorder `preorder`, `node_limit` nodes
  // and `work_limit` units of work, over every partition. Every placement is taken back on return, so the
  // next run starts from the prepared state.
  Status Run(Bytes capacity, size_t preorder, uint64_t node_limit, uint64_t work_limit);

  bool complete() const { return complete_; }
  uint64_t nodes() const { return nodes_; }
  uint64_t work() const { return work_; }
  uint64_t prepare_work() const { return prepare_work_; }
  const Solution& solution() const { return solution_; }
  // Checks the watched bound against BoundHolds at every node (SearchLimits::verify_bound).
  void VerifyBound(bool on) { verify_bound_ = on; }
  void SetClock(const common::Stopwatch* clock, double time_limit_s, common::Progress* progress,
                const std::string* label) {
    clock_ = clock;
    time_limit_s_ = time_limit_s;
    progress_ = progress;
    label_ = label;
  }

 private:
  // Calls `f(section)` for every section of buffer `i`.
  template <typename F>
  void ForSections(uint32_t i, F&& f) {
    const CompressedLifespan& l = time_.lifespans[i];
    work_ += (l.end - l.begin) + (l.end2 - l.begin2);
    for (Section s = l.begin; s < l.end; ++s) f(s);
    for (Section s = l.begin2; s < l.end2; ++s) f(s);
  }
  // Calls `f(buffer)` for every unplaced buffer of partition [lo, hi).
  template <typename F>
  void ForMembers(Section lo, Section hi, F&& f) {
    work_ += start_index_[hi] - start_index_[lo];
    for (uint32_t k = start_index_[lo]; k < start_index_[hi]; ++k) {
      if (offset_[starts_[k]] == kUnplaced) f(starts_[k]);
    }
  }

  Status Partition(Section lo, Section hi, Offset last_offset, int64_t last_rank);
  void Rank(Section lo, Section hi);
  Status Place(uint32_t b, Offset at, Section lo, Section hi);
  bool Consistent(uint32_t b, Section lo, Section hi, Offset at, size_t raised_mark);
  // The buffer that witnesses section s (see witness_).
  uint32_t Witness(Section s) const { return covers_[cover_index_[s] + witness_[s]]; }
  // Whether unplaced buffer j, alive in s, can start low enough for the bytes left there.
  bool CanWitness(uint32_t j, Section s) const {
    return offset_[j] == kUnplaced && min_offset_[j] <= capacity_ - unplaced_[s];
  }
  // Moves the watch of section s to a buffer that can witness it, from where it is; false when none can.
  bool FindWitness(Section s);
  // Gives every section buffer `x` watches and can no longer witness another witness; false when one has
  // none left.
  bool Rewatch(uint32_t x);
  // Watches every section with bytes left at the root; false when one has no witness (no packing exists).
  bool WatchAll();
  // The section bound from its definition, every section scanned: what Consistent must agree with.
  bool BoundHolds(Section lo, Section hi, Offset at) const;
  // Adds `delta` to the unplaced bytes of b's sections, in the array and in the range-max tree alike.
  void AddToUnplaced(uint32_t b, Bytes delta) {
    ForSections(b, [&](Section s) { unplaced_[s] += delta; });
    const CompressedLifespan& l = time_.lifespans[b];
    unplaced_max_->Add(l.begin, l.end, delta);
    if (l.end2 > l.begin2) unplaced_max_->Add(l.begin2, l.end2, delta);
  }
  void Undo(size_t min_offset_mark, size_t witness_mark, uint32_t b);
  bool OutOfBudget(Status& why);

  const Problem& problem_;
  Bytes capacity_ = 0;
  CompressedTime time_;
  bool complete_ = true;
  bool decompose_ = true;  // off when a buffer wraps around the period: its two pieces bind both ends
  SearchOutcome refusal_ = SearchOutcome::kTooLarge;  // why Prepare said no

  std::vector<uint32_t> overlap_index_, overlaps_;  // CSR: buffers that overlap buffer i in time
  std::vector<uint32_t> cover_index_, covers_;      // CSR: buffers alive in section s
  std::vector<uint32_t> start_index_, starts_;      // CSR: free buffers whose lifespan starts in section s

  std::vector<Offset> offset_;      // kUnplaced or the offset given on the current path
  std::vector<Offset> min_offset_;  // lowest offset above the placed buffers it overlaps, aligned
  std::vector<Bytes> unplaced_;     // per section: total size of the unplaced buffers alive there (O(1) reads)
  std::optional<RangeMaxTree> unplaced_max_;  // the same, for the largest over a range; see AddToUnplaced
  std::vector<uint32_t> cuts_;      // per boundary s|s+1: unplaced buffers alive on both sides
  std::vector<Saved> min_offset_trail_;
  std::vector<Candidate> candidates_;  // the candidates of every level of the current path, deepest last
  // The section bound (Consistent) as watches, the way SAT solvers watch clauses: every section with bytes
  // left names, by its place in the section's cover list, an unplaced buffer alive there that can start
  // low enough (its witness), and each buffer lists the sections it was made witness of. A placement or a
  // raise can only break the sections its buffer witnesses, so only those are looked at; a watch moved is
  // trailed, and put back when the search backtracks, so that every witness on the current path is valid.
  std::vector<uint32_t> witness_;                // per section: place of its witness in its cover list
  std::vector<std::vector<Section>> watchers_;  // per buffer: sections it witnesses (with stale entries)
  std::vector<Saved> witness_trail_;            // (section, its witness before the move)
  bool verify_bound_ = false;

  Solution solution_;
  size_t preorder_ = 0;            // which preorder this run follows
  std::vector<int64_t> rank_;      // per buffer: its place in the preorder of its partition
  std::vector<uint32_t> members_;  // scratch for Rank
  uint64_t nodes_ = 0, node_limit_ = 0;
  // Work: buffers, sections and overlap entries visited, the unit of the default budget. A node costs one
  // to tens of thousands of units, with the size of its part and its buffers' lifespans; a unit takes about
  // the same time on any input (planner.cc, DefaultSearchWork).
  uint64_t work_ = 0, work_limit_ = 0;
  uint64_t prepare_work_ = 0;  // what building the indexes cost, in the same unit
  uint64_t clock_mask_ = 0;         // the clock is read every clock_mask_ + 1 nodes (see Prepare)
  const common::Stopwatch* clock_ = nullptr;
  double time_limit_s_ = 0;
  common::Progress* progress_ = nullptr;
  const std::string* label_ = nullptr;
};

bool PackingSearch::Prepare(uint64_t work_limit) {
  const size_t n = problem_.buffers.size();
  time_ = CompressTime(problem_);
  const Section sections = time_.intervals;
  offset_.assign(n, kUnplaced);
  min_offset_.assign(n, 0);
  unplaced_.assign(sections, 0);
  witness_.assign(sections, 0);
  watchers_.assign(n, {});
  solution_.offsets.assign(n, 0);

  // Section lists first: their size bounds the work of the overlap lists.
  cover_index_.assign(sections + 1, 0);
  start_index_.assign(sections + 1, 0);
  uint64_t cover_entries = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const CompressedLifespan& l = time_.lifespans[i];
    if (l.end2 > l.begin2) decompose_ = false;
    cover_entries += (l.end - l.begin) + (l.end2 - l.begin2);
    if (problem_.buffers[i].fixed_offset) complete_ = false;
    if (problem_.buffers[i].alignment > 1) complete_ = false;
  }
  if (cover_entries > kMaxOverlapPairs) return false;
  cuts_.assign(sections, 0);
  for (uint32_t i = 0; i < n; ++i) {
    ForSections(i, [&](Section s) { ++cover_index_[s + 1]; });
    if (problem_.buffers[i].fixed_offset) continue;
    const CompressedLifespan& l = time_.lifespans[i];
    ++start_index_[l.begin + 1];
    for (Section s = l.begin; s + 1 < l.end; ++s) ++cuts_[s];
  }
  std::partial_sum(cover_index_.begin(), cover_index_.end(), cover_index_.begin());
  std::partial_sum(start_index_.begin(), start_index_.end(), start_index_.begin());
  covers_.resize(cover_index_.back());
  starts_.resize(start_index_.back());
  {
    std::vector<uint32_t> cover_fill(cover_index_.begin(), cover_index_.end() - 1);
    std::vector<uint32_t> start_fill(start_index_.begin(), start_index_.end() - 1);
    for (uint32_t i = 0; i < n; ++i) {
      ForSections(i, [&](Section s) { covers_[cover_fill[s]++] = i; });
      if (!problem_.buffers[i].fixed_offset) starts_[start_fill[time_.lifespans[i].begin]++] = i;
    }
  }

  // A descent places every free buffer, and each of its nodes scans the buffers of its part twice: with the
  // parts of the whole problem (cuts the search makes later only shrink them), at least twice the sum of
  // their squared sizes. Where even that exceeds the budget no descent can end, so nothing is built.
  uint64_t descent = 0;
  for (Section s = 0, lo = 0; s < sections; ++s) {
    if (s + 1 == sections || (decompose_ && cuts_[s] == 0)) {
      const uint64_t m = start_index_[s + 1] - start_index_[lo];
      descent += 2 * m * m;
      lo = s + 1;
    }
  }
  if (descent > work_limit) {
    refusal_ = SearchOutcome::kOverBudget;
    return false;
  }

  // Two buffers overlap when one is alive in the section where a piece of the other starts. The pairs are
  // found twice, to count them and to fill the rows, straight into one array: lists that grow cost several
  // times the memory (0.4 GB on a training pattern of 10^4 buffers).
  std::vector<uint32_t> seen(n, std::numeric_limits<uint32_t>::max());
  auto for_pairs = [&](uint32_t i, auto&& f) {
    const CompressedLifespan& l = time_.lifespans[i];
    for (const Section first : {l.begin, l.end2 > l.begin2 ? l.begin2 : l.begin}) {
      for (uint32_t k = cover_index_[first]; k < cover_index_[first + 1]; ++k) {
        const uint32_t j = covers_[k];
        if (j == i || seen[j] == i) continue;
        seen[j] = i;
        f(j);
      }
    }
  };
  std::vector<uint64_t> row(n + 1, 0);
  uint64_t pairs = 0;
  for (uint32_t i = 0; i < n && pairs <= kMaxOverlapPairs; ++i) {
    for_pairs(i, [&](uint32_t j) {
      ++row[i + 1];
      ++row[j + 1];
      ++pairs;
    });
  }
  if (pairs > kMaxOverlapPairs) return false;
  std::partial_sum(row.begin(), row.end(), row.begin());
  overlaps_.resize(row.back());
  {
    std::fill(seen.begin(), seen.end(), std::numeric_limits<uint32_t>::max());
    std::vector<uint64_t> fill(row.begin(), row.end() - 1);
    for (uint32_t i = 0; i < n; ++i) {
      for_pairs(i, [&](uint32_t j) {
        overlaps_[fill[i]++] = j;
        overlaps_[fill[j]++] = i;
      });
    }
  }
  // A pair is found from both of its starts when each buffer is alive where the other starts: sort each row,
  // drop repeats, and close the rows up.
  overlap_index_.assign(n + 1, 0);
  uint64_t kept = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const auto first = overlaps_.begin() + static_cast<std::ptrdiff_t>(row[i]);
    const auto last = overlaps_.begin() + static_cast<std::ptrdiff_t>(row[i + 1]);
    std::sort(first, last);
    const auto end = std::unique(first, last);
    kept = static_cast<uint64_t>(std::move(first, end, overlaps_.begin() + static_cast<std::ptrdiff_t>(kept)) -
                                 overlaps_.begin());
    overlap_index_[i + 1] = static_cast<uint32_t>(kept);
  }
  overlaps_.resize(kept);
  overlaps_.shrink_to_fit();

  // Fixed buffers are placed before the search; the others start above them.
  for (uint32_t i = 0; i < n; ++i) {
    const Buffer& b = problem_.buffers[i];
    if (b.fixed_offset) {
      offset_[i] = solution_.offsets[i] = *b.fixed_offset;
    } else {
      ForSections(i, [&](Section s) { unplaced_[s] += b.size; });
    }
  }
  for (uint32_t i = 0; i < n; ++i) {
    if (offset_[i] != kUnplaced) continue;
    Offset lowest = 0;
    for (uint32_t k = overlap_index_[i]; k < overlap_index_[i + 1]; ++k) {
      const uint32_t j = overlaps_[k];
      if (offset_[j] != kUnplaced) lowest = std::max(lowest, offset_[j] + problem_.buffers[j].size);
    }
    min_offset_[i] = AlignUp(lowest, problem_.buffers[i].alignment);
  }
  unplaced_max_.emplace(unplaced_);

  rank_.assign(n, 0);
  prepare_work_ = work_ + 2 * overlaps_.size();
  // A node scans its part of the problem: read the clock every 1024 nodes on a few hundred buffers, every
  // node from about 10^5 on, so that a run overshoots its time limit by milliseconds at any size.
  clock_mask_ = std::bit_floor(std::max<uint64_t>(1, (uint64_t{1} << 18) / (n + 1))) - 1;
  return true;
}

// Ranks the unplaced buffers of partition [lo, hi) in this run's preorder, from what is left now: by
// lifespan, area and the heaviest section the buffer lives in (bytes not yet placed), in three priorities.
void PackingSearch::Rank(Section lo, Section hi) {
  members_.clear();
  ForMembers(lo, hi, [&](uint32_t i) { members_.push_back(i); });
  auto heaviest = [&](uint32_t i) {
    Bytes most = 0;
    ForSections(i, [&](Section s) { most = std::max(most, unplaced_[s]); });
    return most;
  };
  auto length = [&](uint32_t i) { return problem_.buffers[i].upper - problem_.buffers[i].lower; };
  auto area = [&](uint32_t i) { return length(i) * problem_.buffers[i].size; };
  std::vector<std::pair<std::tuple<int64_t, int64_t, int64_t, uint32_t>, uint32_t>> keyed;
  keyed.reserve(members_.size());
  for (const uint32_t i : members_) {
    const Bytes h = heaviest(i);
    switch (preorder_) {
      case 0: keyed.push_back({{-length(i), -area(i), -h, i}, i}); break;
      case 1: keyed.push_back({{-h, -area(i), -length(i), i}, i}); break;
      default: keyed.push_back({{-h, -length(i), -area(i), i}, i}); break;
    }
  }
  work_ += keyed.size() * std::bit_width(keyed.size());
  std::sort(keyed.begin(), keyed.end());
  for (size_t r = 0; r < keyed.size(); ++r) rank_[keyed[r].second] = static_cast<int64_t>(r);
}

bool PackingSearch::OutOfBudget(Status& why) {
  if (++nodes_ > node_limit_ || work_ > work_limit_) {
    why = Status::kNodeLimit;
    return true;
  }
  if ((nodes_ & clock_mask_) != 0) return false;
  if (common::InterruptRequested()) {
    why = Status::kInterrupted;
    return true;
  }
  if (time_limit_s_ > 0 && clock_->Seconds() > time_limit_s_) {
    why = Status::kTimeLimit;
    return true;
  }
  if (progress_->Due()) {
    progress_->Show(*label_, fmt::format("capacity {} B, {} nodes", capacity_, nodes_));
  }
  return false;
}

Status PackingSearch::Run(Bytes capacity, size_t preorder, uint64_t node_limit, uint64_t work_limit) {
  capacity_ = capacity;
  preorder_ = preorder;
  nodes_ = 0;
  node_limit_ = node_limit;
  work_ = 0;
  work_limit_ = work_limit;
  if (!WatchAll()) return Status::kNone;
  // The partitions of the whole problem, cut wherever no free buffer is alive on both sides.
  const Section sections = time_.intervals;
  Section lo = 0;
  for (Section s = 0; s < sections; ++s) {
    if (s + 1 == sections || (decompose_ && cuts_[s] == 0)) {
      Rank(lo, s + 1);
      const Status status = Partition(lo, s + 1, 0, -1);
      if (status != Status::kFound) return status;
      lo = s + 1;
    }
  }
  return Status::kFound;
}

bool PackingSearch::FindWitness(Section s) {
  const uint32_t first = cover_index_[s];
  const uint32_t count = cover_index_[s + 1] - first;
  uint32_t k = witness_[s];
  for (uint32_t tried = 0; tried < count; ++tried) {
    ++work_;
    const uint32_t j = covers_[first + k];
    if (CanWitness(j, s)) {
      witness_[s] = k;
      watchers_[j].push_back(s);
      return true;
    }
    if (++k == count) k = 0;
  }
  return false;
}

bool PackingSearch::WatchAll() {
  for (auto& sections : watchers_) sections.clear();
  witness_trail_.clear();
  for (Section s = 0; s < time_.intervals; ++s) {
    if (unplaced_[s] > 0 && !FindWitness(s)) return false;
  }
  return true;
}

bool PackingSearch::Rewatch(uint32_t x) {
  // Indexed, not iterated: FindWitness appends to other buffers' lists, never to x's (x cannot witness).
  const std::vector<Section>& watched = watchers_[x];
  work_ += watched.size();
  for (size_t k = 0; k < watched.size(); ++k) {
    const Section s = watched[k];
    if (unplaced_[s] == 0 || Witness(s) != x || CanWitness(x, s)) continue;
    const uint32_t before = witness_[s];
    if (!FindWitness(s)) return false;
    witness_trail_.push_back({s, before});
  }
  return true;
}

bool PackingSearch::BoundHolds(Section lo, Section hi, Offset at) const {
  for (Section s = lo; s < hi; ++s) {
    if (unplaced_[s] == 0) continue;
    if (at + unplaced_[s] > capacity_) return false;
    bool witnessed = false;
    for (uint32_t k = cover_index_[s]; !witnessed && k < cover_index_[s + 1]; ++k) {
      witnessed = CanWitness(covers_[k], s);
    }
    if (!witnessed) return false;
  }
  return true;
}

// Every section must hold the bytes not yet placed above where they can start: the lowest offset of the
// unplaced buffers alive there (some witness can start low enough), and `at`, since offsets never decrease
// along a path. Placing b and raising the buffers it overlaps can break the first only where b or a raised
// buffer was the witness (elsewhere the bytes left only shrank), and `at` is checked against the largest
// bytes left in the partition at once.
bool PackingSearch::Consistent(uint32_t b, Section lo, Section hi, Offset at, size_t raised_mark) {
  if (at + unplaced_max_->Max(lo, hi) > capacity_) return false;
  if (!Rewatch(b)) return false;
  for (size_t k = raised_mark; k < min_offset_trail_.size(); ++k) {
    if (!Rewatch(min_offset_trail_[k].index)) return false;
  }
  return true;
}

void PackingSearch::Undo(size_t min_offset_mark, size_t witness_mark, uint32_t b) {
  // A watch moved deeper was appended last to its new witness's list.
  while (witness_trail_.size() > witness_mark) {
    const Saved& moved = witness_trail_.back();
    watchers_[Witness(moved.index)].pop_back();
    witness_[moved.index] = static_cast<uint32_t>(moved.value);
    witness_trail_.pop_back();
  }
  while (min_offset_trail_.size() > min_offset_mark) {
    min_offset_[min_offset_trail_.back().index] = min_offset_trail_.back().value;
    min_offset_trail_.pop_back();
  }
  AddToUnplaced(b, problem_.buffers[b].size);
  offset_[b] = kUnplaced;
}

// Places free buffer `b` at `at` inside partition [lo, hi), searches what is left, and takes it back.
Status PackingSearch::Place(uint32_t b, Offset at, Section lo, Section hi) {
  const Buffer& buffer = problem_.buffers[b];
  const Offset top = at + buffer.size;
  const size_t min_offset_mark = min_offset_trail_.size();
  const size_t witness_mark = witness_trail_.size();
  offset_[b] = at;
  AddToUnplaced(b, -buffer.size);
  // The buffers it overlaps now start above it.
  work_ += overlap_index_[b + 1] - overlap_index_[b];
  for (uint32_t k = overlap_index_[b]; k < overlap_index_[b + 1]; ++k) {
    const uint32_t c = overlaps_[k];
    if (offset_[c] != kUnplaced || min_offset_[c] >= top) continue;
    min_offset_trail_.push_back({c, min_offset_[c]});
    min_offset_[c] = AlignUp(top, problem_.buffers[c].alignment);
  }
  Status status = Status::kNone;
  const bool consistent = Consistent(b, lo, hi, at, min_offset_mark);
  if (verify_bound_ && consistent != BoundHolds(lo, hi, at)) {
    throw std::logic_error(fmt::format("exact search: the watched section bound says {} where a full scan says {}",
                                       consistent, !consistent));
  }
  if (consistent) {
    // Boundaries inside b's lifespan that nothing unplaced crosses any more split the partition.
    const CompressedLifespan& l = time_.lifespans[b];
    std::vector<Section> cuts;
    if (decompose_) {
      work_ += 2 * (l.end - l.begin);
      for (Section s = l.begin; s + 1 < l.end; ++s) {
        if (--cuts_[s] == 0 && s + 1 > lo && s + 1 < hi) cuts.push_back(s + 1);
      }
    }
    if (cuts.empty()) {
      status = Partition(lo, hi, at, rank_[b]);
    } else {
      // Independent parts: each must be packable alone; the canonical order starts afresh in each, and so
      // does the preorder, from the bytes left. This partition's ranks come back for its next candidates.
      std::vector<Saved> ranks;
      ForMembers(lo, hi, [&](uint32_t i) { ranks.push_back({i, rank_[i]}); });
      Section from = lo;
      cuts.push_back(hi);
      for (const Section to : cuts) {
        Rank(from, to);
        status = Partition(from, to, 0, -1);
        if (status != Status::kFound) break;
        from = to;
      }
      for (const Saved& r : ranks) rank_[r.index] = r.value;
    }
    if (decompose_) {
      for (Section s = l.begin; s + 1 < l.end; ++s) ++cuts_[s];
    }
  }
  Undo(min_offset_mark, witness_mark, b);
  return status;
}

// Searches partition [lo, hi) below the last placement (`last_offset`, and at that offset, preorder ranks
// after `last_rank`).
Status PackingSearch::Partition(Section lo, Section hi, Offset last_offset, int64_t last_rank) {
  Status why;
  if (OutOfBudget(why)) return why;
  // The lowest top any unplaced buffer of the partition can reach: placing at or above it would waste the
  // gap under it.
  Offset lowest_top = std::numeric_limits<Offset>::max();
  ForMembers(lo, hi, [&](uint32_t i) { lowest_top = std::min(lowest_top, min_offset_[i] + problem_.buffers[i].size); });
  if (lowest_top == std::numeric_limits<Offset>::max()) {
    for (uint32_t k = start_index_[lo]; k < start_index_[hi]; ++k) solution_.offsets[starts_[k]] = offset_[starts_[k]];
    return Status::kFound;
  }
  // The candidates, canonical ones (not below the last placement) under that top, in order of offset, then
  // preorder. They go on one stack shared by every level, so a path of N levels holds its few candidates
  // a level, not a list of the whole partition each (1.2 GB at 10^4 buffers before).
  const size_t first = candidates_.size();
  ForMembers(lo, hi, [&](uint32_t i) {
    const Offset x = min_offset_[i];
    const int64_t r = rank_[i];
    if (x >= lowest_top || x < last_offset || (x == last_offset && r < last_rank) ||
        x + problem_.buffers[i].size > capacity_) {
      return;
    }
    candidates_.push_back({x, r, i});
  });
  const size_t end = candidates_.size();
  work_ += (end - first) * std::bit_width(end - first);
  std::sort(candidates_.begin() + static_cast<std::ptrdiff_t>(first), candidates_.end());
  Status status = Status::kNone;
  for (size_t k = first; k < end && status == Status::kNone; ++k) {
    const Candidate c = candidates_[k];  // a copy: deeper levels grow the stack
    status = Place(c.buffer, c.offset, lo, hi);
  }
  candidates_.resize(first);
  return status;
}

// Runs `f` on a thread whose stack holds `bytes`, and rethrows what it throws: the search recurses once per
// placed buffer, deeper than the main thread's stack allows on inputs of tens of thousands of buffers.
void RunOnStack(size_t bytes, const std::function<void()>& f) {
  struct Call {
    const std::function<void()>* f;
    std::exception_ptr error;
  } call{&f, nullptr};
  auto body = [](void* arg) -> void* {
    Call* c = static_cast<Call*>(arg);
    try {
      (*c->f)();
    } catch (...) {
      c->error = std::current_exception();
    }
    return nullptr;
  };
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, bytes);
  pthread_t thread;
  const int failed = pthread_create(&thread, &attr, body, &call);
  pthread_attr_destroy(&attr);
  if (failed != 0) throw std::runtime_error("exact search: cannot start its search thread");
  pthread_join(thread, nullptr);
  if (call.error) std::rethrow_exception(call.error);
}

// A budget of SearchLimits, where 0 means none.
uint64_t OrUnlimited(uint64_t budget) { return budget > 0 ? budget : std::numeric_limits<uint64_t>::max(); }

// Looks for a packing within `capacity` with the prepared `search`; `clock` was started before the
// preparation, and `limits.time_limit_s` counts from it.
SearchResult SearchWithin(PackingSearch& search, const Problem& problem, Bytes capacity, const SearchLimits& limits,
                          const common::Stopwatch& clock, common::Progress& progress) {
  SearchResult result;
  result.complete = search.complete();
  search.SetClock(&clock, limits.time_limit_s, &progress, &limits.label);
  search.VerifyBound(limits.verify_bound);
  const uint64_t node_budget = OrUnlimited(limits.max_nodes);
  const uint64_t work_budget = OrUnlimited(limits.max_work);
  // Round robin over the preorders with doubling node limits: an early mistake costs at most one round.
  auto round_robin = [&] {
    uint64_t round_limit = std::max<uint64_t>(problem.buffers.size(), 32);
    while (true) {
      round_limit = round_limit > node_budget / 2 ? node_budget : round_limit * 2;
      for (size_t p = 0; p < kPreorders; ++p) {
        const uint64_t limit = std::min(round_limit, node_budget - result.nodes);
        const Status status = search.Run(capacity, p, limit, work_budget - result.work);
        result.nodes += std::min(search.nodes(), limit);
        result.work += search.work();
        switch (status) {
          case Status::kFound:
            result.outcome = SearchOutcome::kFound;
            result.solution = search.solution();
            return;
          case Status::kNone: result.outcome = SearchOutcome::kNoneExists; return;
          case Status::kTimeLimit: result.outcome = SearchOutcome::kTimeLimit; return;
          case Status::kInterrupted: result.outcome = SearchOutcome::kInterrupted; return;
          case Status::kNodeLimit:
            if (result.nodes >= node_budget || result.work >= work_budget) {
              result.outcome = SearchOutcome::kNodeLimit;
              return;
            }
        }
      }
    }
  };
  // About 300 bytes a level (the two frames of Partition and Place) with room for sanitizer builds.
  RunOnStack((size_t{1} << 20) + problem.buffers.size() * 2048, round_robin);
  return result;
}

}  // namespace

SearchResult SearchPackingWithin(const Problem& problem, Bytes capacity, const SearchLimits& limits,
                                 common::Progress& progress) {
  common::Stopwatch clock;
  PackingSearch search(problem);
  if (!search.Prepare(OrUnlimited(limits.max_work))) {
    SearchResult result;
    result.outcome = search.refusal();
    return result;
  }
  SearchLimits left = limits;
  if (limits.max_work > 0) {
    left.max_work = limits.max_work > search.prepare_work() ? limits.max_work - search.prepare_work() : 1;
  }
  SearchResult result = SearchWithin(search, problem, capacity, left, clock, progress);
  result.work += search.prepare_work();
  return result;
}

ExactPlan SearchLowestPlan(const Problem& problem, const Solution& start, const SearchLimits& limits,
                           common::Progress& progress, Bytes good_enough) {
  common::Stopwatch clock;
  ExactPlan plan;
  plan.solution = start;
  plan.height = Height(problem, start);
  const Bytes lb = PeakLoad(problem);
  Bytes proven_low = lb;   // no plan is lower than this
  Bytes untried_low = lb;  // lowest capacity neither searched in vain nor ruled out
  // The indexes are built once for every capacity tried; their cost counts against the work budget.
  PackingSearch search(problem);
  bool prepared = true;
  if (untried_low < plan.height && plan.height > good_enough) {
    prepared = search.Prepare(OrUnlimited(limits.max_work));
    plan.work = search.prepare_work();
    if (!prepared) plan.last = search.refusal();
  }
  bool first = true;
  while (prepared && untried_low < plan.height && plan.height > good_enough) {
    const Bytes capacity = first ? std::max(lb, std::min(good_enough, plan.height - 1))
                                 : untried_low + (plan.height - 1 - untried_low) / 2;
    // Each capacity gets half of each budget left.
    SearchLimits probe = limits;
    if (limits.max_nodes > 0) {
      if (plan.nodes >= limits.max_nodes) break;
      probe.max_nodes = std::max<uint64_t>((limits.max_nodes - plan.nodes) / 2, 1);
    }
    if (limits.max_work > 0) {
      if (plan.work >= limits.max_work) break;
      probe.max_work = std::max<uint64_t>((limits.max_work - plan.work) / 2, 1);
    }
    if (limits.time_limit_s > 0 && clock.Seconds() >= limits.time_limit_s) break;
    const SearchResult r = SearchWithin(search, problem, capacity, probe, clock, progress);
    plan.nodes += r.nodes;
    plan.work += r.work;
    plan.last = r.outcome;
    first = false;
    if (r.outcome == SearchOutcome::kFound) {
      plan.solution = *r.solution;
      plan.height = Height(problem, plan.solution);
    } else if (r.outcome == SearchOutcome::kNoneExists || r.outcome == SearchOutcome::kNodeLimit) {
      if (r.outcome == SearchOutcome::kNoneExists && r.complete) proven_low = std::max(proven_low, capacity + 1);
      untried_low = capacity + 1;
    } else {
      break;
    }
  }
  plan.optimal = plan.height <= proven_low;
  return plan;
}

}  // namespace alloc
