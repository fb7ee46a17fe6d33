// Random allocation problems for property tests, and the overlap relation written from its definition.
#pragma once

#include <fmt/core.h>

#include <algorithm>
#include <string>

#include "alloc/problem.h"
#include "common/rng.h"

namespace testing_support {

// What RandomProblem may include.
struct RandomProblemShape {
  size_t buffers = 20;
  alloc::TimeValue horizon = 40;  // lifespans start in [0, horizon - 1)
  bool periodic = false;          // period = horizon; lifespans may wrap
  bool aligned = false;           // alignments 1, 2, 4 or 8
  alloc::Bytes max_size = 64;
};

// n buffers with random lifespans (at most half the horizon long) and sizes.
inline alloc::Problem RandomProblem(common::Rng& rng, const RandomProblemShape& shape) {
  alloc::Problem p;
  p.period = shape.periodic ? shape.horizon : 0;
  for (size_t i = 0; i < shape.buffers; ++i) {
    alloc::Buffer b;
    b.id = fmt::format("b{}", i);
    b.lower = static_cast<alloc::TimeValue>(rng.Below(static_cast<uint64_t>(shape.horizon - 1)));
    const alloc::TimeValue room = shape.periodic ? shape.horizon : shape.horizon - b.lower;
    b.upper = b.lower + 1 + static_cast<alloc::TimeValue>(rng.Below(static_cast<uint64_t>(std::max<alloc::TimeValue>(1, room / 2))));
    b.size = 1 + static_cast<alloc::Bytes>(rng.Below(static_cast<uint64_t>(shape.max_size)));
    if (shape.aligned) b.alignment = alloc::Bytes{1} << rng.Below(4);
    p.buffers.push_back(b);
  }
  return p;
}

// Whether buffers a and b are alive at a common moment, from their lifespan pieces.
inline bool NaiveOverlap(const alloc::Problem& p, size_t a, size_t b) {
  for (const alloc::TimeRange& x : p.Lifespan(a)) {
    for (const alloc::TimeRange& y : p.Lifespan(b)) {
      if (x.begin < y.end && y.begin < x.end) return true;
    }
  }
  return false;
}

}  // namespace testing_support
