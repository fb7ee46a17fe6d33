// Classic aligned fusion: two consecutive counted loops over the same range become one loop when every
// dependence between them stays within one iteration (array cells written and read at the same index).
#pragma once

#include <string>
#include <vector>

#include "fusion/ast.h"

namespace fusion {

// Fuses every legal pair of consecutive counted loops in the program (chains included: the fused loop
// is tried again with its successor); loops running the other way are reversed first when that is legal.
// Appends a line per fusion to applied; returns the body unchanged when nothing applies.
StmtPtr AlignedFusion(const StmtPtr& body, std::vector<std::string>& applied);

}  // namespace fusion
