// The compressed time axis shared by the planners: only the order of lifespan endpoints matters, so time
// is renumbered into elementary intervals [t_i, t_{i+1}) between consecutive distinct endpoints.
#pragma once

#include <cstdint>
#include <vector>

#include "alloc/problem.h"

namespace alloc {

// A buffer's lifespan in elementary intervals: [begin, end), plus [begin2, end2) when it wraps around the
// period (otherwise begin2 == end2 == 0).
struct CompressedLifespan {
  uint32_t begin = 0, end = 0, begin2 = 0, end2 = 0;
};

// All lifespans of a problem on its compressed axis.
struct CompressedTime {
  uint32_t intervals = 0;                      // number of elementary intervals
  std::vector<CompressedLifespan> lifespans;   // per buffer
};

// Renumbers the lifespans of `problem`.
CompressedTime CompressTime(const Problem& problem);

}  // namespace alloc
