// Full unrolling of counted loops whose trip count is a small constant: the loop becomes straight-line
// code, whose Horn clauses need no invariant at all (arrays included: a cell written and read back in
// the unrolled code is a store followed by a select, where the loop would need a quantified invariant).
#pragma once

#include <string>
#include <vector>

#include "fusion/ast.h"

namespace fusion {

// Loops with at most this many iterations are unrolled.
inline constexpr int kMaxUnrolledIterations = 16;

// Unrolls every while/for loop whose counter (the variable its step assigns, assigned right before the
// loop) runs through constant values: its first value, condition and step computed from constants and
// scalars known to be constant (assigned a constant by their only write, earlier in an enclosing block),
// at most kMaxUnrolledIterations iterations, and a body that neither writes the counter nor jumps. Appends
// a line per loop to applied; returns the body unchanged when nothing applies.
StmtPtr UnrollConstantLoops(const Program& prog, std::vector<std::string>& applied);

}  // namespace fusion
