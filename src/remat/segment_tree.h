// A lazy segment tree over the time slots of FastSA: add a constant to a range of slots, read the maximum
// (and, if asked, a soft maximum) over all slots, both in O(log T). This is what makes a move's new peak
// cost O(degree · log T). The ancestors of the adds' ends are recomputed once, at the next read, for all
// the adds since the last one: a move makes several adds near two slots, whose paths to the root share most
// of their nodes, and the pulls of one level do not wait on each other (FastSA: the same schedules, 12–15 %
// less time on vit_b_16_bs32). A read updates the tree, so two threads must not read one tree at once.
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
    // The nodes that cover the range get the add; their ancestors are those of the range's two end leaves.
    if (leaves_ > 1) {
      stale_.push_back(l >> 1);
      if (r - 1 != l) stale_.push_back((r - 1) >> 1);
    }
    for (; l < r; l >>= 1, r >>= 1) {
      if (l & 1) Apply(l++, delta);
      if (r & 1) Apply(--r, delta);
    }
  }

  // The maximum over all slots.
  int64_t Max() const {
    Update();
    return max_[1];
  }

  // The first slot that holds the maximum.
  int ArgMax() const {
    Update();
    int i = 1;
    while (i < leaves_) i = max_[2 * i] >= max_[2 * i + 1] ? 2 * i : 2 * i + 1;
    return i - leaves_;
  }

  // log(Σ_t exp(s · v_t)) / s over the slots' values v_t, s = the sharpness: between Max() and
  // Max() + log(T) / s, lower the fewer slots come near the maximum. Max() when built without sharpness.
  double SoftMax() const {
    Update();
    if (soft_.empty()) return static_cast<double>(max_[1]);
    return static_cast<double>(max_[1]) + std::log(soft_[1]) / sharpness_;
  }

 private:
  // Recomputes the stale inner nodes from their children, a level at a time from the bottom, each once. They
  // all stand at one depth, and halving keeps them sorted.
  void Update() const {
    if (stale_.empty()) return;
    std::sort(stale_.begin(), stale_.end());
    while (true) {
      stale_.erase(std::unique(stale_.begin(), stale_.end()), stale_.end());
      for (int i : stale_) Pull(i);
      if (stale_.front() == 1) break;
      for (int& i : stale_) i >>= 1;
    }
    stale_.clear();
  }
  void Apply(int i, int64_t delta) {
    max_[i] += delta;
    if (i < leaves_) pending_[i] += delta;
  }
  void Pull(int i) const {
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
  int leaves_;
  double sharpness_;
  // max_ and soft_ of inner nodes are brought up to date by the reads (Update), hence mutable.
  mutable std::vector<int64_t> max_;  // max over the subtree, including the node's own pending add
  std::vector<int64_t> pending_;      // adds applied to the whole subtree of an inner node
  mutable std::vector<double> soft_;  // Σ exp(s · (v − max)) over the subtree: an add to the subtree keeps it
  mutable std::vector<int> stale_;    // inner nodes, all at one depth, whose subtrees changed since Update
};

}  // namespace remat
