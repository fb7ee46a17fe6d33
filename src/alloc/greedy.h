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

// How OrderBySize orders buffers of one size class.
enum class SizeTies {
  kLongerLifespan,     // longer lifespan first (TFLite, XLA "size")
  kEarlierAllocation,  // allocated earlier first
  kLaterFree,          // freed later first
};

// Which sizes OrderBySize takes as one, so that its ties rule decides among them.
enum class SizeClasses {
  kExact,       // every size a class of its own
  kOctave,      // sizes between consecutive powers of two
  kHalfOctave,  // sizes between consecutive powers of sqrt(2)
};

// Free buffers by decreasing size class; within a class by `ties`, then larger first, then input order. With
// coarse classes a long-lived buffer goes below slightly larger short-lived ones, as an activation saved for
// the backward pass should go below the gradients and temporaries that come and go above it.
std::vector<BufferIndex> OrderBySize(const Problem& problem, SizeTies ties = SizeTies::kLongerLifespan,
                                     SizeClasses classes = SizeClasses::kExact);
// Free buffers by decreasing lifespan length; ties by size, then input order (XLA "temporal").
std::vector<BufferIndex> OrderByLifespan(const Problem& problem);
// Free buffers by allocation time (lower), ties by input order: an online allocator's view.
std::vector<BufferIndex> OrderByAllocationTime(const Problem& problem);

}  // namespace alloc
