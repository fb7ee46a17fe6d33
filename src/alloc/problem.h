// The allocation problem (dynamic storage allocation): buffers with a fixed lifespan and size, to be
// given offsets in one arena so that buffers alive at the same time never share an address.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace alloc {

using Offset = int64_t;     // bytes from the start of the arena
using TimeValue = int64_t;  // a point on the time axis of one iteration (any unit: steps, events, ns)
using Bytes = int64_t;      // a size in bytes

// One buffer of the allocation pattern.
struct Buffer {
  std::string id;         // the user's id, kept verbatim (MiniMalloc allows any string)
  TimeValue lower = 0;    // first moment alive
  TimeValue upper = 0;    // first moment no longer alive: the lifespan is [lower, upper)
  Bytes size = 0;         // bytes; > 0
  Bytes alignment = 1;    // the offset must be a multiple of this; >= 1
  std::optional<Offset> fixed_offset;  // set when the offset is given and must not move
  long line = 0;          // line of the input file it came from (0 when built in memory)
};

// A half-open interval of time [begin, end).
struct TimeRange {
  TimeValue begin = 0;
  TimeValue end = 0;
};

// A whole allocation pattern.
struct Problem {
  std::vector<Buffer> buffers;
  // 0: a single iteration. P > 0: the pattern repeats every P time units; a buffer with upper > P
  // wraps around and also occupies [0, upper - P) of the next iteration.
  TimeValue period = 0;

  // The time ranges buffer `i` occupies within one iteration: one range, or two when it wraps.
  std::vector<TimeRange> Lifespan(size_t i) const;
};

// Offsets for every buffer, in the order of Problem::buffers.
struct Solution {
  std::vector<Offset> offsets;
};

// Peak load: the largest total size alive at one moment. No solution can be lower (LB).
Bytes PeakLoad(const Problem& problem);

// Height of a solution: max over buffers of offset + size (0 for no buffers).
Bytes Height(const Problem& problem, const Solution& solution);

// Fragmentation of an arena of `height` for a pattern of peak load `lb`: height / lb - 1 (0 when lb is 0).
double Fragmentation(Bytes height, Bytes lb);
// How progress lines show a plan of `height` for a pattern of peak load `lb`:
// "height H (LB L, fragmentation F %)".
std::string DescribeHeight(Bytes height, Bytes lb);

// The share of an arena of `height` that is never needed at once: (height - lb) / height (0 when empty).
double WastedShare(Bytes height, Bytes lb);

// Rounds `value` up to a multiple of `alignment` (>= 1).
inline Offset AlignUp(Offset value, Bytes alignment) {
  const Offset rem = value % alignment;
  return rem == 0 ? value : value + (alignment - rem);
}

}  // namespace alloc
