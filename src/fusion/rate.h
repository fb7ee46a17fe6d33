// Rate alignment: a counted loop that handles one array cell per iteration next to one that handles r
// cells per iteration (indices r * counter + b) is unrolled r times, so that both advance r cells a round
// and guess-and-assume fusion sees them in step (guess.cc, InStep). As in array-tiling/skipped.c, where
// one loop fixes a[2i-2] and a[2i-1] and the next checks a[i].
#pragma once

#include <string>
#include <vector>

#include "fusion/ast.h"

namespace fusion {

// Largest unrolling factor rate alignment applies.
inline constexpr int kMaxRate = 8;

// Unrolls a counted loop (signed counter of the bound's type, `<` with step +1 or `>` with step -1, a
// body without jumps) that accesses a shared array only at counter + k, when the loop right before or
// after it (plain statements between) accesses that array only at a * counter + b with |a| = r in 2..8
// and the same direction: body(c); if (c + 1 < bound) { body(c + 1); ... } with the step
// `c = c + r < bound ? c + r : bound`, which leaves c where the original loop leaves it (bound, when the
// loop ran) and stores no value outside the type. Exact: the copies run exactly the iterations the
// original runs, in order. Appends a line per loop to applied.
StmtPtr RateAlignment(const StmtPtr& body, std::vector<std::string>& applied);

}  // namespace fusion
