// Greedy placement baselines: what TFLite, XLA and a naive runtime allocator do.
//
// Offline placement walks the buffers in a chosen order; each buffer goes into a gap between the buffers
// already placed that overlap it in time: the lowest gap that fits (first fit) or the smallest (best fit).
// Fixed buffers are placed first, where they are fixed.
#pragma once

#include <span>
#include <vector>

#include "alloc/drop_order.h"
#include "alloc/problem.h"

namespace alloc {

// Which gap a greedy placement takes.
enum class GapRule { kFirstFit, kBestFit };

// Places the free buffers of `order` (fixed buffers are placed at their offsets first).
Solution PlaceInOrder(const Problem& problem, std::span<const BufferIndex> order, GapRule rule);

// How OrderBySize orders buffers of one size.
enum class SizeTies {
  kLongerLifespan,     // longer lifespan first (TFLite, XLA "size")
  kEarlierAllocation,  // allocated earlier first
  kLaterFree,          // freed later first
};

// Free buffers by decreasing size; ties by `ties`, then input order.
std::vector<BufferIndex> OrderBySize(const Problem& problem, SizeTies ties = SizeTies::kLongerLifespan);
// Free buffers by decreasing lifespan length; ties by size, then input order (XLA "temporal").
std::vector<BufferIndex> OrderByLifespan(const Problem& problem);
// Free buffers by allocation time (lower), ties by input order: an online allocator's view.
std::vector<BufferIndex> OrderByAllocationTime(const Problem& problem);

}  // namespace alloc
