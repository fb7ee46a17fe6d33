#include "remat/segment_tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/rng.h"

namespace remat {
namespace {

// Random range adds on trees of sizes that are not powers of two, read after each batch of one to eight adds
// (a read recomputes what the batch left stale) and checked against the slots' values kept by hand: the max
// and its first slot exactly, the soft maximum to the precision of its fast exponential.
TEST(RematSegmentTree, MaxAndSoftMaxFollowRangeAdds) {
  for (int slots : {1, 3, 100}) {
    for (double sharpness : {0.0, 0.01, 0.5, 3.0}) {
      MaxSegmentTree tree(slots, sharpness);
      std::vector<int64_t> values(slots, 0);
      common::Rng rng(7);
      for (int batch = 0; batch < 1000; ++batch) {
        for (uint64_t k = 1 + rng.Below(8); k > 0; --k) {
          int first = static_cast<int>(rng.Below(slots));
          int last = static_cast<int>(rng.Below(slots));
          if (first > last) std::swap(first, last);
          // Mostly small steps, sometimes a large one; no slot goes below 0 (as no memory does).
          const int64_t lowest = *std::min_element(values.begin() + first, values.begin() + last + 1);
          const int64_t delta =
              std::max(-lowest, static_cast<int64_t>(rng.Below(rng.Below(10) == 0 ? 2000 : 20)) - 10);
          tree.Add(first, last, delta);
          for (int t = first; t <= last; ++t) values[t] += delta;
        }
        const auto max_at = std::max_element(values.begin(), values.end());
        const int64_t max = *max_at;
        ASSERT_EQ(tree.Max(), max) << slots << " slots, batch " << batch;
        ASSERT_EQ(tree.ArgMax(), max_at - values.begin()) << slots << " slots, batch " << batch;
        if (sharpness == 0) {
          ASSERT_EQ(tree.SoftMax(), static_cast<double>(max));
          continue;
        }
        long double sum = 0;
        for (int64_t v : values) sum += std::exp(static_cast<long double>(sharpness) * (v - max));
        const double soft = static_cast<double>(max + std::log(sum) / sharpness);
        ASSERT_NEAR(tree.SoftMax(), soft, 1e-3 / sharpness + 1e-9 * std::abs(soft)) << slots << " slots, batch " << batch;
        ASSERT_GE(tree.SoftMax(), static_cast<double>(max));
        ASSERT_LE(tree.SoftMax(), static_cast<double>(max) + std::log(slots) / sharpness + 1e-6);
      }
    }
  }
}

// The soft maximum sees how many slots come near the maximum, which the maximum does not.
TEST(RematSegmentTree, SoftMaxFallsWhenFewerSlotsReachThePeak) {
  MaxSegmentTree wide(64, 1.0);
  MaxSegmentTree narrow(64, 1.0);
  wide.Add(0, 31, 100);
  narrow.Add(0, 0, 100);
  EXPECT_EQ(wide.Max(), narrow.Max());
  EXPECT_GT(wide.SoftMax(), narrow.SoftMax() + 3);  // log(32) = 3.47
}

}  // namespace
}  // namespace remat
