// Rewrites that bring loops into the shapes the fusions recognise, without changing what the program
// does: a counter's initialisation moved down to the loop, and a loop taken out of an `if` with its body
// guarded instead.
#pragma once

#include <string>
#include <vector>

#include "fusion/ast.h"

namespace fusion {

// The statements of a block with each loop's counter initialisation (the last assignment to the
// variable the loop's step assigns) moved down to right before the loop, across plain statements and checks
// (`if (!(n < 100)) abort();`: no loop, jump, input or write) that neither touch the counter nor write what
// the initialisation reads (so that AsCounted sees the loop).
std::vector<StmtPtr> SinkCounterInits(std::vector<StmtPtr> items);

// The program with every scalar that main's top level sets to a constant, before anything reads it, and that
// nothing else writes, read as that constant after its assignment (`unsigned R = 3;` ... `i % R`: a remainder
// by a constant, which the Horn clauses state in linear arithmetic, not by a variable). Appends one line to
// applied when some scalar is substituted.
Program SubstituteSetOnceConstants(const Program& prog, std::vector<std::string>& applied);

// The program with every array that is only ever indexed by constants (`long long sum[1]` used as sum[0], an
// accumulator in array-fpi's tasks) as one scalar per cell it accesses: a declaration or malloc of the
// array is a havoc of each, an access the scalar (recorded in Program::cell_scalars). Scalars can be guessed
// across loops, and the affine invariants see them; array cells are neither. Arrays of more than
// kMaxScalarizedCells such cells stay arrays. Appends one line to applied when some array is replaced.
Program ScalarizeConstantCells(const Program& prog, std::vector<std::string>& applied);

// The most cells of one array that ScalarizeConstantCells turns into scalars.
inline constexpr size_t kMaxScalarizedCells = 16;

// The program every candidate of the verifier starts from (and `fuse` and `horn` show): prog with its set-once
// constants substituted, then its constant cells as scalars (after the constants, so that `a[K]` with K set
// once is a constant cell). Appends what applied to `applied`.
Program CandidateStart(const Program& prog, std::vector<std::string>& applied);

// Takes a counted loop out of `if (g) { plain statements; counter = init; loop }` (no else) that follows
// another loop, so that the two can be fused: the plain statements and the loop run whatever g is, the
// loop's body under `if (g)`, and the scalars they write get their old values back when g is false
// (saved in new variables of prog). Only where g reads nothing the branch writes, the branch writes no
// array outside the guarded body and divides by nothing (run when g is false, it must not fail). Appends
// a line per loop to applied.
StmtPtr HoistGuardedLoops(Program& prog, const StmtPtr& body, std::vector<std::string>& applied);

}  // namespace fusion
