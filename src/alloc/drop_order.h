// Drop orders: a plan of the annealing planner is a permutation of the buffers; decoding drops them one by
// one onto the skyline, each as low as it can go. This file holds the decoder and the two sweeps that score
// every reinsertion position of one buffer at once (Imanishi & Xu, ISMM 2024).
//
// Why the sweeps are exact: decoding places each buffer on the highest top among the earlier buffers that
// overlap it in time, so offsets are longest paths in the DAG "earlier and overlapping in time", and the
// height is its longest path. A path through x inserted at position j is the longest path ending below x
// (where x lands: bottom[j], from dropping the prefix) plus size(x) plus the longest path starting above x
// among the later buffers (top[j], from dropping the suffix in reverse, hanging from a ceiling). Paths that
// avoid x do not depend on j. So the height of the plan with x at j is max(height without x, bottom[j] +
// size(x) + top[j]). With alignment > 1 the suffix term ignores padding and the score is an estimate;
// fixed buffers form the floor the others are dropped onto.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "alloc/problem.h"
#include "alloc/skyline.h"
#include "alloc/time_axis.h"

namespace alloc {

// Buffer index into Problem::buffers.
using BufferIndex = uint32_t;

// Scores of every reinsertion position of one buffer, from ScoreReinsertion.
struct ReinsertionScores {
  // through[j]: height of the longest path through x when x is inserted before element j of the order
  // without x (j == size: at the end).
  std::vector<Bytes> through;
  // Height of the plan without x (the longest path that avoids x).
  Bytes height_without = 0;
};

// Decodes drop orders and scores reinsertions for one problem.
class DropDecoder {
 public:
  explicit DropDecoder(const Problem& problem);
  DropDecoder(const Problem& problem, const CompressedTime& time);

  // Buffers whose offset is not fixed, in input order: what a drop order permutes.
  const std::vector<BufferIndex>& free_buffers() const { return free_buffers_; }

  // Drops `order` (free buffers, each once) onto the floor of fixed buffers; writes offsets of the
  // dropped buffers into `offsets` (indexed by buffer) and returns the height of the whole plan.
  Bytes Decode(std::span<const BufferIndex> order, std::vector<Offset>& offsets);

  // The two sweeps: `order` must not contain x. Fills `scores` for all order.size() + 1 positions.
  void ScoreReinsertion(std::span<const BufferIndex> order, BufferIndex x, ReinsertionScores& scores);

  // Longest path through every buffer of a decoded order: offset + the depth of the chain it starts.
  // `offsets` must come from Decode(order); fills `through` (indexed by buffer).
  void PathsThrough(std::span<const BufferIndex> order, const std::vector<Offset>& offsets,
                    std::vector<Bytes>& through);

  // Whether buffers a and b are alive at a common moment.
  bool Overlap(BufferIndex a, BufferIndex b) const;

 private:
  // What a drop needs of a buffer.
  struct Span {
    CompressedLifespan life;
    Bytes size = 0;
    Bytes alignment = 1;
  };
  Bytes Max(const Skyline& s, const Span& b) const {
    return std::max(s.Max(b.life.begin, b.life.end), s.Max(b.life.begin2, b.life.end2));
  }
  void Raise(Skyline& s, const Span& b, Bytes value) const {
    s.Raise(b.life.begin, b.life.end, value);
    s.Raise(b.life.begin2, b.life.end2, value);
  }

  std::vector<Span> spans_;
  std::vector<BufferIndex> free_buffers_;
  Bytes fixed_height_ = 0;  // top of the fixed buffers
  Skyline floor_;           // skyline of the fixed buffers alone
  Skyline up_;              // working skyline of the forward sweep
  Skyline down_;            // working skyline of the reverse sweep
};

}  // namespace alloc
