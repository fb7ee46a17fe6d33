// A lazy segment tree over the time slots of FastSA: add a constant to a range of slots, read the maximum
// (and, if asked, a soft maximum) over all slots, both in O(log T). This is what makes a move's new peak
// cost O(degree · log T).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

namespace remat {

// Range add, global max, and global soft maximum when built with a `sharpness` > 0, over `size` slots
// (rounded up to a power of two; extra slots hold 0 and count in the max only).
class MaxSegmentTree {
 public:
  explicit MaxSegmentTree(int size, double sharpness = 0) : sharpness_(sharpness) {
    leaves_ = 1;
    while (leaves_ < size) leaves_ *= 2;
    max_.assign(2 * leaves_, 0);
    pending_.assign(leaves_, 0);
    if (sharpness_ > 0) {
      soft_.assign(2 * leaves_, 0);
      std::fill(soft_.begin() + leaves_, soft_.begin() + leaves_ + size, 1.0);
      for (int i = leaves_ - 1; i >= 1; --i) soft_[i] = soft_[2 * i] + soft_[2 * i + 1];
    }
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

  // log(Σ_t exp(s · v_t)) / s over the slots' values v_t, s = the sharpness: between Max() and
  // Max() + log(T) / s, lower the fewer slots come near the maximum. Max() when built without sharpness.
  double SoftMax() const {
    if (soft_.empty()) return static_cast<double>(max_[1]);
    return static_cast<double>(max_[1]) + std::log(soft_[1]) / sharpness_;
  }

 private:
  void Apply(int i, int64_t delta) {
    max_[i] += delta;
    if (i < leaves_) pending_[i] += delta;
  }
  void Pull(int i) {
    const int64_t left = max_[2 * i];
    const int64_t right = max_[2 * i + 1];
    max_[i] = std::max(left, right) + pending_[i];
    if (soft_.empty()) return;
    soft_[i] = left >= right ? soft_[2 * i] + soft_[2 * i + 1] * Weight(right - left)
                             : soft_[2 * i] * Weight(left - right) + soft_[2 * i + 1];
  }
  // exp(s · below) for below <= 0, computed fast, since every Pull needs one: 2^y = 2^n · 2^f with
  // y = s · below · log2(e), n = floor(y), a degree-5 polynomial for 2^f (relative error under 10^-4; the
  // soft maximum only steers the walk) and the exponent bits for 2^n; 0 below e^-40, where a term no
  // longer changes a sum of terms >= 1.
  double Weight(int64_t below) const {
    const double x = sharpness_ * static_cast<double>(below);
    if (x < -40) return 0.0;
    const double y = x * 1.4426950408889634;
    const int64_t n = static_cast<int64_t>(y) - (y < 0);
    const double f = y - static_cast<double>(n);
    const double p =
        1.0 + f * (0.6931471806 + f * (0.2402265070 + f * (0.0555041087 + f * (0.0096181291 + f * 0.0013333558))));
    return p * std::bit_cast<double>(static_cast<uint64_t>(n + 1023) << 52);
  }
  // Recomputes the ancestors of leaf-level node `i` from their children.
  void Rebuild(int i) {
    while (i > 1) Pull(i >>= 1);
  }

  int leaves_;
  double sharpness_;
  std::vector<int64_t> max_;      // max over the subtree, including the node's own pending add
  std::vector<int64_t> pending_;  // adds applied to the whole subtree of an inner node
  std::vector<double> soft_;      // Σ exp(s · (v − max)) over the subtree: an add to the subtree keeps it
};

}  // namespace remat
