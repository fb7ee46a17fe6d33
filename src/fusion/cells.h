// Cell abstraction (after Monniaux and Gonnord's cell morphing, SAS 2016, with one cell): every array is
// replaced by the value of one of its cells, at an index k that the program chooses nondeterministically
// before it starts, the same for every array, so that a copy b[i] = a[i] keeps the two cells in step. The
// result has no arrays: its invariants are over scalars (`k < i + 2 || c >= 2`), where the original's need a
// quantifier over the cells, which Spacer seldom finds (array-tiling/rewrev.c: its first loop writes a[i]
// and a[i + 1] counting down, so neither reversal nor fusion in step applies to it).
//
// A write a[e] = v becomes `if (e == k) a_cell = v`; a read a[e] becomes `e == k ? a_cell : any value`; a
// declaration of a gives a_cell any value. An assertion is checked only where the cells it reads are the
// tracked ones: all its reads index by one expression e, and it becomes `if (e == k) assert(...)`.
// Sound: for every k, each run of the original is a run of the abstraction up to a failing assertion (an
// untracked read may return what the original reads; an assertion passed or skipped goes on alike), and
// a run that fails an assertion reading cell j fails it in the abstraction with k = j.
#pragma once

#include <optional>
#include <string>

#include "fusion/ast.h"

namespace fusion {

// The cell abstraction of prog; nothing when prog has no array, or when an index reads an array cell or a
// nondeterministic value, or an assertion reads cells at two index expressions (no single tracked cell
// then decides it): `why_not` says which.
std::optional<Program> AbstractCells(const Program& prog, std::string& why_not);

// The line the verifier reports for a proof of the abstraction.
std::string CellAbstractionLine(const Program& prog);

}  // namespace fusion
