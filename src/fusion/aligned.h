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
//
// earlier_cells: an array that one loop writes and the other only reads may be read at other offsets than it
// is written, where fusion keeps each read's value: the later loop reads cells the earlier one has finished
// (`b[i] = b[i-1] + a[i-1]` after `a[i] = a[i-1] + 4`: read offsets at most the least write offset), or the
// earlier loop reads cells before the later one writes them (read offsets at least the greatest write offset).
// Off by default: the candidates in step (the default) are what the guesses and the cells are built for.
StmtPtr AlignedFusion(const StmtPtr& body, std::vector<std::string>& applied, bool earlier_cells = false);

}  // namespace fusion
