// Loop reversal: runs a counted loop whose iterations are independent in the opposite direction, so that
// it lines up with a neighbour that counts the other way.
#pragma once

#include <optional>
#include <vector>

#include "fusion/ast.h"
#include "fusion/loop_ir.h"

namespace fusion {

// The statements [counter = first; loop; counter = final value of the original] that replace a
// counted loop, or nothing when an iteration may depend on another (a scalar written in the body, an
// array cell written at one index and accessed at another) or when the body has both errors and cuts.
std::optional<std::vector<StmtPtr>> ReverseLoop(const CountedLoop& loop);

// True when the iterations of a counted loop can run in any order.
bool IterationsIndependent(const CountedLoop& loop);

}  // namespace fusion
