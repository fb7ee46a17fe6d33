#include "alloc/skyline.h"

#include <algorithm>

namespace alloc {

Skyline::Skyline(uint32_t size) {
  leaves_ = 1;
  while (leaves_ < std::max<uint32_t>(size, 1)) {
    leaves_ <<= 1;
  }
  tree_.assign(2 * leaves_, 0);
  tag_.assign(leaves_, 0);
}

void Skyline::Clear() {
  std::fill(tree_.begin(), tree_.end(), 0);
  std::fill(tag_.begin(), tag_.end(), 0);
}

void Skyline::CopyFrom(const Skyline& other) {
  std::copy(other.tree_.begin(), other.tree_.end(), tree_.begin());
  std::copy(other.tag_.begin(), other.tag_.end(), tag_.begin());
}

int64_t Skyline::Max(uint32_t begin, uint32_t end) const {
  if (begin >= end) return 0;
  uint32_t l = begin + leaves_;
  uint32_t r = end + leaves_;
  // Tags above the two boundary leaves cover query positions (every partially covered node contains one
  // of them), and nothing else can hold a tag that reaches into the range without being covered below.
  // The two paths join at their common ancestor; above it, one walk takes the shared tags.
  int64_t result = 0;
  uint32_t a = l >> 1, b = (r - 1) >> 1;
  for (; a != b; a >>= 1, b >>= 1) result = std::max({result, tag_[a], tag_[b]});
  for (; a > 0; a >>= 1) result = std::max(result, tag_[a]);
  for (; l < r; l >>= 1, r >>= 1) {
    if (l & 1) result = std::max(result, tree_[l++]);
    if (r & 1) result = std::max(result, tree_[--r]);
  }
  return result;
}

void Skyline::Raise(uint32_t begin, uint32_t end, int64_t value) {
  if (begin >= end) return;
  const uint32_t l0 = begin + leaves_;
  const uint32_t r0 = end - 1 + leaves_;
  int levels = 0;  // levels climbed by the canonical decomposition: canonical nodes lie at or below it
  for (uint32_t l = l0, r = r0 + 1; l < r; l >>= 1, r >>= 1, ++levels) {
    if (l & 1) {
      tree_[l] = std::max(tree_[l], value);
      if (l < leaves_) tag_[l] = std::max(tag_[l], value);
      ++l;
    }
    if (r & 1) {
      --r;
      tree_[r] = std::max(tree_[r], value);
      if (r < leaves_) tag_[r] = std::max(tag_[r], value);
    }
  }
  // Recompute the maxima on the two boundary paths. Above the canonical levels a node whose maximum did
  // not change leaves all its ancestors unchanged too, so the walk stops there: most raises touch only
  // the low part of the tree, where the skyline is lower than what is already recorded above.
  auto refresh = [&](uint32_t leaf) {
    int level = 1;
    for (uint32_t p = leaf >> 1; p > 0; p >>= 1, ++level) {
      const int64_t updated = std::max({tree_[2 * p], tree_[2 * p + 1], tag_[p]});
      if (level > levels && updated == tree_[p]) break;
      tree_[p] = updated;
    }
  };
  refresh(l0);
  refresh(r0);
}

}  // namespace alloc
