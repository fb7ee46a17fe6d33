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

void DropDecoder::PathsThrough(std::span<const BufferIndex> order, const std::vector<Offset>& offsets,
                               std::vector<Bytes>& through) {
  down_.Clear();
  for (size_t j = order.size(); j-- > 0;) {
    const Span& s = spans_[order[j]];
    const Bytes depth = Max(down_, s) + s.size;
    through[order[j]] = offsets[order[j]] + depth;
    Raise(down_, s, depth);
  }
}

void DropDecoder::ScoreReinsertion(std::span<const BufferIndex> order, BufferIndex x, ReinsertionScores& scores) {
  const Span& sx = spans_[x];
  const size_t n = order.size();
  scores.through.resize(n + 1);
  // Sweep up: bottom[j] = where x lands when dropped right before order[j].
  up_.CopyFrom(floor_);
  for (size_t j = 0; j < n; ++j) {
    scores.through[j] = AlignUp(Max(up_, sx), sx.alignment) + sx.size;
    const Span& s = spans_[order[j]];
    Raise(up_, s, AlignUp(Max(up_, s), s.alignment) + s.size);
  }
  scores.through[n] = AlignUp(Max(up_, sx), sx.alignment) + sx.size;
  scores.height_without = std::max(up_.Top(), fixed_height_);
  // Sweep down: hanging from a ceiling, each buffer of the suffix sits just below the lowest of the later
  // buffers that overlap it; the depth it reaches is the longest path starting at it.
  down_.Clear();
  for (size_t j = n; j-- > 0;) {
    scores.through[j + 1] += Max(down_, sx);
    const Span& s = spans_[order[j]];
    Raise(down_, s, Max(down_, s) + s.size);
  }
  scores.through[0] += Max(down_, sx);
}

}  // namespace alloc
