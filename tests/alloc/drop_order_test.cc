// The skyline, the drop decoder and the two reinsertion sweeps against brute force.
#include "alloc/drop_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "alloc/skyline.h"
#include "alloc/validator.h"
#include "common/rng.h"
#include "support/random_problem.h"

namespace alloc {
namespace {

using testing_support::NaiveOverlap;

// A random problem of n buffers over `horizon` time units (periodic when `period` is set).
Problem RandomProblem(common::Rng& rng, size_t n, TimeValue horizon, TimeValue period, bool aligned) {
  return testing_support::RandomProblem(rng, {.buffers = n, .horizon = horizon, .periodic = period > 0, .aligned = aligned, .max_size = 50});
}

TEST(Skyline, MatchesBruteForce) {
  common::Rng rng(11);
  for (uint32_t size : {1u, 2u, 5u, 16u, 37u}) {
    Skyline tree(size);
    std::vector<int64_t> naive(size, 0);
    for (int step = 0; step < 3000; ++step) {
      uint32_t a = static_cast<uint32_t>(rng.Below(size + 1)), b = static_cast<uint32_t>(rng.Below(size + 1));
      if (a > b) std::swap(a, b);
      if (rng.Below(2)) {
        const int64_t value = static_cast<int64_t>(rng.Below(1000));
        tree.Raise(a, b, value);
        for (uint32_t i = a; i < b; ++i) naive[i] = std::max(naive[i], value);
      } else {
        int64_t expected = 0;
        for (uint32_t i = a; i < b; ++i) expected = std::max(expected, naive[i]);
        ASSERT_EQ(tree.Max(a, b), expected) << "size " << size << " range " << a << ".." << b;
      }
    }
    EXPECT_EQ(tree.Top(), *std::max_element(naive.begin(), naive.end()));
  }
}

// O(N^2) decoder written from the definition: each buffer lands on the highest top of the earlier ones
// that overlap it in time.
std::vector<Offset> NaiveDecode(const Problem& p, const std::vector<BufferIndex>& order) {
  std::vector<Offset> offsets(p.buffers.size(), 0);
  for (size_t k = 0; k < order.size(); ++k) {
    Offset floor = 0;
    for (size_t m = 0; m < k; ++m) {
      if (NaiveOverlap(p, order[k], order[m])) floor = std::max(floor, offsets[order[m]] + p.buffers[order[m]].size);
    }
    offsets[order[k]] = AlignUp(floor, p.buffers[order[k]].alignment);
  }
  return offsets;
}

TEST(DropDecoder, DecodeMatchesNaiveDecoder) {
  common::Rng rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    const bool periodic = trial % 3 == 0;
    Problem p = RandomProblem(rng, 1 + rng.Below(40), 60, periodic ? 60 : 0, trial % 2 == 0);
    DropDecoder decoder(p);
    std::vector<BufferIndex> order = decoder.free_buffers();
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.Below(i)]);
    std::vector<Offset> offsets(p.buffers.size(), 0);
    const Bytes height = decoder.Decode(order, offsets);
    const std::vector<Offset> expected = NaiveDecode(p, order);
    ASSERT_EQ(offsets, expected) << "trial " << trial;
    EXPECT_EQ(height, Height(p, Solution{offsets}));
    EXPECT_TRUE(Validate(p, Solution{offsets}).ok());
  }
}

TEST(DropDecoder, SweepsEqualAFullRedecodeAtEveryPosition) {
  common::Rng rng(5);
  for (int trial = 0; trial < 150; ++trial) {
    const bool periodic = trial % 2 == 0;
    Problem p = RandomProblem(rng, 2 + rng.Below(30), 50, periodic ? 50 : 0, false);
    DropDecoder decoder(p);
    std::vector<BufferIndex> order = decoder.free_buffers();
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.Below(i)]);
    const size_t from = rng.Below(order.size());
    const BufferIndex x = order[from];
    std::vector<BufferIndex> without = order;
    without.erase(without.begin() + static_cast<std::ptrdiff_t>(from));
    ReinsertionScores scores;
    decoder.ScoreReinsertion(without, x, scores);
    ASSERT_EQ(scores.through.size(), without.size() + 1);
    std::vector<Offset> offsets(p.buffers.size(), 0);
    EXPECT_EQ(scores.height_without, decoder.Decode(without, offsets));
    for (size_t j = 0; j <= without.size(); ++j) {
      std::vector<BufferIndex> candidate = without;
      candidate.insert(candidate.begin() + static_cast<std::ptrdiff_t>(j), x);
      const Bytes height = decoder.Decode(candidate, offsets);
      // The longest path through x, from the decoded layout: x's offset plus the longest chain it starts.
      DropLayout layout;
      decoder.DecodeLayout(candidate, layout);
      ASSERT_EQ(scores.through[j], layout.offsets[x] + layout.depth[x]) << "trial " << trial << " position " << j;
      ASSERT_EQ(std::max(scores.height_without, scores.through[j]), height) << "trial " << trial << " position " << j;
    }
  }
}

TEST(DropDecoder, LayoutDepthsAreTheLongestChainsOfTheDag) {
  common::Rng rng(9);
  for (int trial = 0; trial < 100; ++trial) {
    Problem p = RandomProblem(rng, 2 + rng.Below(25), 40, 0, false);
    DropDecoder decoder(p);
    std::vector<BufferIndex> order = decoder.free_buffers();
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.Below(i)]);
    DropLayout layout;
    decoder.DecodeLayout(order, layout);
    // Longest chain starting at each buffer, computed backwards over the order from the definition.
    std::vector<Bytes> depth(p.buffers.size(), 0);
    for (size_t k = order.size(); k-- > 0;) {
      Bytes above = 0;
      for (size_t m = k + 1; m < order.size(); ++m) {
        if (NaiveOverlap(p, order[k], order[m])) above = std::max(above, depth[order[m]]);
      }
      depth[order[k]] = p.buffers[order[k]].size + above;
      ASSERT_EQ(layout.depth[order[k]], depth[order[k]]);
    }
  }
}

// The incremental updates of the annealing move agree with decoding from scratch, after every one of many
// random removals and reinsertions (periodic, aligned and fixed buffers included).
TEST(DropDecoder, IncrementalRemoveAndInsertEqualAFullDecode) {
  common::Rng rng(13);
  for (int trial = 0; trial < 40; ++trial) {
    Problem p = RandomProblem(rng, 2 + rng.Below(40), 60, trial % 2 ? 60 : 0, trial % 3 == 0);
    if (trial % 4 == 0) p.buffers[0].fixed_offset = 1000;
    DropDecoder decoder(p);
    std::vector<BufferIndex> order = decoder.free_buffers();
    if (order.size() < 2) continue;
    DropLayout layout;
    layout.offsets.assign(p.buffers.size(), 0);
    if (p.buffers[0].fixed_offset) layout.offsets[0] = 1000;
    decoder.DecodeLayout(order, layout);
    for (int move = 0; move < 50; ++move) {
      const size_t from = rng.Below(order.size());
      const BufferIndex x = order[from];
      order.erase(order.begin() + static_cast<std::ptrdiff_t>(from));
      decoder.RemoveFromLayout(order, from, layout);
      DropLayout expected = layout;
      decoder.DecodeLayout(order, expected);
      for (BufferIndex b : order) {
        ASSERT_EQ(layout.offsets[b], expected.offsets[b]) << "trial " << trial << " move " << move;
        ASSERT_EQ(layout.depth[b], expected.depth[b]) << "trial " << trial << " move " << move;
      }
      ASSERT_EQ(layout.height, expected.height);
      const size_t to = rng.Below(order.size() + 1);
      order.insert(order.begin() + static_cast<std::ptrdiff_t>(to), x);
      decoder.InsertIntoLayout(order, to, layout);
      decoder.DecodeLayout(order, expected);
      for (BufferIndex b : order) {
        ASSERT_EQ(layout.offsets[b], expected.offsets[b]) << "trial " << trial << " move " << move;
        ASSERT_EQ(layout.depth[b], expected.depth[b]) << "trial " << trial << " move " << move;
      }
      ASSERT_EQ(layout.height, expected.height);
    }
  }
}

TEST(DropDecoder, FixedBuffersFormTheFloor) {
  Problem p;
  p.buffers = {{"fixed", 0, 10, 4, 1, Offset{6}, 0}, {"a", 2, 5, 3, 1, std::nullopt, 0}, {"b", 8, 12, 2, 1, std::nullopt, 0}};
  DropDecoder decoder(p);
  ASSERT_EQ(decoder.free_buffers(), (std::vector<BufferIndex>{1, 2}));
  std::vector<Offset> offsets(3, 0);
  offsets[0] = 6;
  EXPECT_EQ(decoder.Decode(decoder.free_buffers(), offsets), 13);
  EXPECT_EQ(offsets[1], 10);
  EXPECT_EQ(offsets[2], 10);
  EXPECT_TRUE(Validate(p, Solution{offsets}).ok());
}

}  // namespace
}  // namespace alloc
