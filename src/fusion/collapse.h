// Loop-nest collapsing: a perfect nest of two counted loops becomes one loop over the positions of its
// iterations in order, so that the cell `a[i][j]` (`i * n + j`) is the new counter plus a constant.
// Consecutive nests then meet the transformations made for consecutive loops (aligned fusion, guess-and-
// assume), and a 2-D array needs a one-dimensional invariant.
#pragma once

#include <string>
#include <vector>

#include "fusion/ast.h"

namespace fusion {

// Collapses every nest `i = a; while (i < b) { P; j = c; while (j < d) { body; j++ } S; i++ }` (also as for
// loops) with a and c constants: P and S assignments of constants to scalars that body and d do not read, body
// writing neither counter and leaving neither loop (no break or continue). It becomes `t = 0; while (t < (b-a)*w)
// { body'; t++ }` followed by P, S and the counters' final values (each only where b > a, when b is no
// constant). w, the positions per row, is d-c where that is a constant, or the row stride R of the cells body
// indexes (`k*R*i + k*j + e`, every index of one R) where that is wider or d no constant; body' then runs under
// `if (t % R < d-c)`, and, where d is no constant, after `assert(d-c <= R)` (the rows of the nest are rows of
// the cells only then). body' reads `i` as `a + t / w` and `j` as `c + t % w`, and an affine `k*w*i + k*j + e`
// as `k*t + k*(w*a + c) + e`. Constant bounds may be <= and need an iteration each; other bounds must be <, of
// a type whose values the counter takes. Nests of three or more loops collapse from the inside out. The counter
// t is a new variable of prog. Appends a line per nest to applied; returns body unchanged when none collapses.
StmtPtr CollapseLoopNests(Program& prog, const StmtPtr& body, std::vector<std::string>& applied);

}  // namespace fusion
