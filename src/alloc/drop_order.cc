#include "alloc/drop_order.h"

#include <algorithm>

namespace alloc {
DropDecoder::DropDecoder(const Problem& problem) : DropDecoder(problem, CompressTime(problem)) {}

DropDecoder::DropDecoder(const Problem& problem, const CompressedTime& time)
    : floor_(time.intervals), up_(time.intervals), down_(time.intervals) {
  spans_.resize(problem.buffers.size());
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const Buffer& b = problem.buffers[i];
    Span& s = spans_[i];
    s.life = time.lifespans[i];
    s.size = b.size;
    s.alignment = b.alignment;
    if (b.fixed_offset) {
      Raise(floor_, s, *b.fixed_offset + b.size);
      fixed_height_ = std::max(fixed_height_, *b.fixed_offset + b.size);
    } else {
      free_buffers_.push_back(static_cast<BufferIndex>(i));
    }
  }
}

bool DropDecoder::Overlap(BufferIndex a, BufferIndex b) const {
  const CompressedLifespan& x = spans_[a].life;
  const CompressedLifespan& y = spans_[b].life;
  auto meets = [](uint32_t b1, uint32_t e1, uint32_t b2, uint32_t e2) { return b1 < e2 && b2 < e1; };
  return meets(x.begin, x.end, y.begin, y.end) || meets(x.begin, x.end, y.begin2, y.end2) ||
         meets(x.begin2, x.end2, y.begin, y.end) || meets(x.begin2, x.end2, y.begin2, y.end2);
}

Bytes DropDecoder::Decode(std::span<const BufferIndex> order, std::vector<Offset>& offsets) {
  up_.CopyFrom(floor_);
  Bytes height = fixed_height_;
  for (BufferIndex i : order) {
    const Span& s = spans_[i];
    const Offset offset = AlignUp(Max(up_, s), s.alignment);
    offsets[i] = offset;
    Raise(up_, s, offset + s.size);
    height = std::max(height, offset + s.size);
  }
  return height;
}

void DropDecoder::DecodeLayout(std::span<const BufferIndex> order, DropLayout& layout) {
  layout.offsets.resize(spans_.size());
  layout.depth.resize(spans_.size());
  layout.height = Decode(order, layout.offsets);
  // Reverse sweep, hanging from a ceiling: each buffer sits just below the lowest of the later buffers
  // that overlap it; the depth it reaches is the longest chain it starts.
  down_.Clear();
  for (size_t j = order.size(); j-- > 0;) {
    const Span& s = spans_[order[j]];
    const Bytes depth = Max(down_, s) + s.size;
    layout.depth[order[j]] = depth;
    Raise(down_, s, depth);
  }
}

void DropDecoder::ScoreReinsertion(std::span<const BufferIndex> order, BufferIndex x, ReinsertionScores& scores) {
  DecodeLayout(order, scratch_);
  ScoreFromLayout(order, x, scratch_, scores);
}

void DropDecoder::ScoreFromLayout(std::span<const BufferIndex> order, BufferIndex x, const DropLayout& layout,
                                  ReinsertionScores& scores) const {
  const Span& sx = spans_[x];
  const size_t n = order.size();
  scores.through.resize(n + 1);
  scores.height_without = layout.height;
  // Suffix maxima of the depths of the buffers overlapping x, written first, then the prefix maxima of
  // their tops added on.
  Bytes above = 0;
  for (size_t j = n; j-- > 0;) {
    scores.through[j + 1] = above;
    if (Overlap(order[j], x)) above = std::max(above, layout.depth[order[j]]);
  }
  scores.through[0] = above;
  Bytes below = Max(floor_, sx);
  for (size_t j = 0; j <= n; ++j) {
    scores.through[j] += AlignUp(below, sx.alignment) + sx.size;
    if (j < n && Overlap(order[j], x)) below = std::max(below, layout.offsets[order[j]] + spans_[order[j]].size);
  }
}

void DropDecoder::RemoveFromLayout(std::span<const BufferIndex> without, size_t from, DropLayout& layout) {
  const size_t n = without.size();
  // Buffers after `from` drop again onto the unchanged tops of those before it.
  up_.CopyFrom(floor_);
  Bytes height = fixed_height_;
  for (size_t j = 0; j < from; ++j) {
    const Span& s = spans_[without[j]];
    const Bytes top = layout.offsets[without[j]] + s.size;
    Raise(up_, s, top);
    height = std::max(height, top);
  }
  for (size_t j = from; j < n; ++j) {
    const Span& s = spans_[without[j]];
    const Offset offset = AlignUp(Max(up_, s), s.alignment);
    layout.offsets[without[j]] = offset;
    Raise(up_, s, offset + s.size);
    height = std::max(height, offset + s.size);
  }
  layout.height = height;
  // Buffers before `from` hang again from the unchanged depths of those after it.
  down_.Clear();
  for (size_t j = from; j < n; ++j) Raise(down_, spans_[without[j]], layout.depth[without[j]]);
  for (size_t j = from; j-- > 0;) {
    const Span& s = spans_[without[j]];
    const Bytes depth = Max(down_, s) + s.size;
    layout.depth[without[j]] = depth;
    Raise(down_, s, depth);
  }
}

void DropDecoder::InsertIntoLayout(std::span<const BufferIndex> with, size_t position, DropLayout& layout) {
  const size_t n = with.size();
  const BufferIndex x = with[position];
  const Span& sx = spans_[x];
  Bytes below = Max(floor_, sx);
  for (size_t j = 0; j < position; ++j) {
    if (Overlap(with[j], x)) below = std::max(below, layout.offsets[with[j]] + spans_[with[j]].size);
  }
  Bytes above = 0;
  for (size_t j = position + 1; j < n; ++j) {
    if (Overlap(with[j], x)) above = std::max(above, layout.depth[with[j]]);
  }
  layout.offsets[x] = AlignUp(below, sx.alignment);
  layout.depth[x] = sx.size + above;
  // Later buffers: old offset (which already counts every earlier top that did not change), or what the
  // raised buffers push up. Only raised buffers need to be recorded in the working skyline.
  up_.Clear();
  Raise(up_, sx, layout.offsets[x] + sx.size);
  Bytes height = std::max(layout.height, layout.offsets[x] + sx.size);
  for (size_t j = position + 1; j < n; ++j) {
    const Span& s = spans_[with[j]];
    const Offset pushed = AlignUp(Max(up_, s), s.alignment);
    if (pushed > layout.offsets[with[j]]) {
      layout.offsets[with[j]] = pushed;
      Raise(up_, s, pushed + s.size);
      height = std::max(height, pushed + s.size);
    }
  }
  layout.height = height;
  // Earlier buffers: old depth, or the chain through the deepened buffers.
  down_.Clear();
  Raise(down_, sx, layout.depth[x]);
  for (size_t j = position; j-- > 0;) {
    const Span& s = spans_[with[j]];
    const Bytes deeper = Max(down_, s) + s.size;
    if (deeper > layout.depth[with[j]]) {
      layout.depth[with[j]] = deeper;
      Raise(down_, s, deeper);
    }
  }
}

}  // namespace alloc
