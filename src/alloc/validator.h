// An independent check of an allocation plan. It shares no code with the planners beyond the problem
// types, so that a bug in a planner cannot hide behind the same bug here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "alloc/problem.h"

namespace alloc {

// Everything wrong with a plan; empty `errors` means the plan is valid.
struct ValidationReport {
  std::vector<std::string> errors;  // one line each, naming the buffers by id
  size_t overlapping_pairs = 0;     // pairs alive together whose address ranges intersect
  Bytes height = 0;                 // max offset + size over the buffers that have an offset

  bool ok() const { return errors.empty(); }
};

// Checks that every buffer has an offset, that offsets are non-negative and aligned, that fixed buffers
// kept their offset, and that no two buffers alive at the same moment overlap in address (every such pair
// is named). Lifespans are half-open, and wrap around the period when the problem has one.
ValidationReport Validate(const Problem& problem, const std::vector<std::optional<Offset>>& offsets);

// The same for a complete solution.
ValidationReport Validate(const Problem& problem, const Solution& solution);

}  // namespace alloc
