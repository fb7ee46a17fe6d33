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

// A decoded drop order: per buffer its offset and the depth of the longest chain of later overlapping
// buffers it starts (its own size included), so that the longest path through a buffer is offset + depth.
// Vectors are indexed by buffer; entries of buffers not in the order are meaningless.
struct DropLayout {
  std::vector<Offset> offsets;
  std::vector<Bytes> depth;
  Bytes height = 0;  // of the whole plan, fixed buffers included
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

  // Decode plus the reverse sweep: offsets, depths and height of `order`.
  void DecodeLayout(std::span<const BufferIndex> order, DropLayout& layout);

  // The two sweeps: `order` must not contain x. Fills `scores` for all order.size() + 1 positions.
  void ScoreReinsertion(std::span<const BufferIndex> order, BufferIndex x, ReinsertionScores& scores);

  // The same from a layout of `order` (which must not contain x) in O(N): where x lands at position j is
  // the highest top among the buffers before j that overlap it, and the room it needs above is the
  // deepest chain among the buffers from j on that overlap it.
  void ScoreFromLayout(std::span<const BufferIndex> order, BufferIndex x, const DropLayout& layout,
                       ReinsertionScores& scores) const;

  // Turns the layout of an order into that of `without`, the same order with its element at `from`
  // taken out. Only buffers after `from` can move down and only buffers before it can lose depth, so each
  // side is re-swept from the other side's unchanged values: about half the work of DecodeLayout.
  void RemoveFromLayout(std::span<const BufferIndex> without, size_t from, DropLayout& layout);

  // Turns the layout of an order into that of `with`, the same order with with[position] inserted.
  // Buffers after the insertion can only rise, buffers before it can only deepen: each is the maximum of
  // its old value and what the new buffer pushes through the buffers between.
  void InsertIntoLayout(std::span<const BufferIndex> with, size_t position, DropLayout& layout);

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
  DropLayout scratch_;      // layout of the order ScoreReinsertion is given
};

}  // namespace alloc
