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
// Free buffers by decreasing size class, `classes_per_octave` (1 or 2) classes between consecutive powers of
// two; within a class longer lifespan first, then larger, then input order. Sizes within a class count as one
// so that a long-lived buffer goes below slightly larger short-lived ones, as an activation saved for the
// backward pass should go below the gradients and temporaries that come and go above it.
std::vector<BufferIndex> OrderBySizeClass(const Problem& problem, int classes_per_octave);
// Free buffers by decreasing lifespan length; ties by size, then input order (XLA "temporal").
std::vector<BufferIndex> OrderByLifespan(const Problem& problem);
// Free buffers by allocation time (lower), ties by input order: an online allocator's view.
std::vector<BufferIndex> OrderByAllocationTime(const Problem& problem);

}  // namespace alloc
