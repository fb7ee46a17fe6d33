// Index-set splitting: a counted loop after a loop that accesses a shared array in both directions (as
// array-tiling/tcpy.c, whose second loop copies acopy[i] and acopy[SIZE-i-1] and whose third checks
// acopy[i]) is split into the iterations that run while the earlier loop runs and the rest, and the rest
// is reversed, so that each part accesses the array in step with one direction of the earlier loop and
// guess-and-assume fusion (guess.h, InStepRule::kDisjointRates) can run the three together.
#pragma once

#include <string>
#include <vector>

#include "fusion/ast.h"

namespace fusion {

// Splits every counted loop L (signed counter compared by < or > with a bound of its type, step +-1) that
// follows a counted loop P (plain statements between) which accesses an array shared with L at the rates
// +1 and -1 (index a * counter + b, rate a * stride), while L accesses the shared arrays at one rate +-1.
// The split point S is L's counter after as many iterations as P makes; with m = S clamped to L's bound N,
// the parts are `for (c = init; c < m; c++) body` and the iterations from max(init, m) to N reversed
// (reverse.h), which requires them to be independent: without that, L stays as it is. Splitting a counted
// loop's range at any point keeps its iterations and their order, so S needs no relation to N or P.
// Appends a line per split to applied.
StmtPtr IndexSetSplitting(const StmtPtr& body, std::vector<std::string>& applied);

}  // namespace fusion
