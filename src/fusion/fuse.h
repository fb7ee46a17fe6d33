// The fused versions of a program that the verifier tries next to the original.
#pragma once

#include <string>
#include <vector>

#include "fusion/ast.h"

namespace fusion {

// One version of the program and the transformations that made it.
struct Variant {
  std::string name;
  Program prog;
  std::vector<std::string> transformations;
};

// Which transformations a variant may use.
enum class FusionMode { kAligned, kGuess, kAll, kSplit, kRecurrences };

// Applies the transformations of mode: kAligned (aligned fusion, with reversal), kGuess
// (guess-and-assume only), kAll (aligned fusion, then guess-and-assume on what remains) or kSplit
// (index-set splitting, then guess-and-assume with arrays in step at several rates; nothing unless both
// apply); in those modes, loops with a short constant range are unrolled first (unroll.h). kRecurrences:
// recurrences over arrays as scalars (recurrence.h; nothing unless one is).
Variant Transform(const Program& prog, FusionMode mode);

// The distinct fused versions (all, aligned only, guess only, split, recurrences), without the original; empty when no
// transformation applies.
std::vector<Variant> FusedVariants(const Program& prog);

}  // namespace fusion
