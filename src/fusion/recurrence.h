// Recurrences over arrays made scalar, for the full-program-induction tasks of array-fpi (eqn, ifeqn, ncomp,
// pcomp): loops that fill arrays by `a[i] = a[i-1] + 6`, `b[i] = b[i-1] + a[i-1]`, and a loop that asserts a
// polynomial closed form, `b[i] == 3*i*i + 3*i + 1`. The cell abstraction cannot carry a recurrence (cell k
// needs cell k-1, which needs k-2, ...), and no invariant in linear arithmetic states the closed form. Here:
//  1. inside `if (i == 0)`, an index 0 is the counter (`a[0] = 6` is `a[i] = 6` there);
//  2. a loop from 1 next to one from 0 (over the same counter and bound) starts at 0, its first iteration
//     empty, where its counter's final value is dead; then aligned fusion that lets a later loop read cells
//     an earlier one has finished (aligned.h, earlier_cells);
//  3. in a counted loop that writes an array only at the counter and reads it there and one cell before, the
//     cell before is a scalar `a_prev`, set to the cell at the end of each iteration (exact: the loop writes
//     no other cell); the first iteration is peeled, so that `a_prev` holds a cell the loop wrote;
//  4. a polynomial of degree 2 or 3 in such a loop's counter (`2*i*i + 2*i + 1`) is read from ghost scalars
//     `i_sq` and `i_cube`, kept equal to i*i and i*i*i by linear updates (i_sq += 2*i + 1 before i += 1).
// The result is a loop over scalars whose invariants are affine (`b_prev == 2*i_sq - 2*i + 1`): the affine
// invariants (affine.h) find them, and Spacer proves the assertion.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fusion/ast.h"

namespace fusion {

// prog with steps 1-4 applied, with a line per step that applied appended to `applied`; nothing unless some
// recurrence became a scalar (step 3).
std::optional<Program> ScalarizeRecurrences(const Program& prog, std::vector<std::string>& applied);

}  // namespace fusion
