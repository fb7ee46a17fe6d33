// A lazy segment tree over the time slots of FastSA: add a constant to a range of slots, read the maximum
// over all slots, both in O(log T). This is what makes a move's new peak cost O(degree · log T).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace remat {

// Range add, global max, over `size` slots (rounded up to a power of two; extra slots hold 0).
class MaxSegmentTree {
 public:
  explicit MaxSegmentTree(int size) {
    leaves_ = 1;
    while (leaves_ < size) leaves_ *= 2;
    max_.assign(2 * leaves_, 0);
    pending_.assign(leaves_, 0);
  }

  // Adds `delta` to every slot in [first, last] (inclusive; first <= last).
  void Add(int first, int last, int64_t delta) {
    int l = first + leaves_;
    int r = last + leaves_ + 1;
    const int l0 = l;
    const int r0 = r - 1;
    for (; l < r; l >>= 1, r >>= 1) {
      if (l & 1) Apply(l++, delta);
      if (r & 1) Apply(--r, delta);
    }
    // The ancestors of r0 below its common ancestor with l0 first, then l0's path to the root, which
    // passes through that common ancestor after both its children are up to date.
    for (int i = l0 >> 1, j = r0 >> 1; i != j; i >>= 1, j >>= 1) Pull(j);
    Rebuild(l0);
  }

  // The maximum over all slots.
  int64_t Max() const { return max_[1]; }

 private:
  void Apply(int i, int64_t delta) {
    max_[i] += delta;
    if (i < leaves_) pending_[i] += delta;
  }
  void Pull(int i) { max_[i] = std::max(max_[2 * i], max_[2 * i + 1]) + pending_[i]; }
  // Recomputes the ancestors of leaf-level node `i` from their children.
  void Rebuild(int i) {
    while (i > 1) Pull(i >>= 1);
  }

  int leaves_;
  std::vector<int64_t> max_;      // max over the subtree, including the node's own pending add
  std::vector<int64_t> pending_;  // adds applied to the whole subtree of an inner node
};

}  // namespace remat
