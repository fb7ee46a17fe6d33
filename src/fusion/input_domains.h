// The values that a program's inputs can take in any run that gets past its first checks: SV-COMP tasks
// often read a few values and bound them at once (`k = nondet(); if (!(0 <= k && k <= 10)) return 0;`,
// `assume(1 <= n && n <= 1000)`). Where those bounds leave few values, the interpreter can make every run
// there is (verifier.h: the error is unreachable when none of them reaches it).
#pragma once

#include <optional>
#include <vector>

#include "fusion/ast.h"

namespace fusion {

// The values of each nondeterministic value a program reads, in the order the reads happen, before the
// first statement that is not one of: a read into a scalar (`x = __VERIFIER_nondet_int()`), a declaration,
// an assignment of a constant or a copy of a variable, an `assume` or an `if` that returns or aborts.
// Outside these values a run stops at one of those checks, and nothing before them can fail or be
// undefined. A check is read where it is a conjunction of comparisons of one read value (cast to a type
// that holds all its values) with constants; a conjunct of another form, free of arithmetic, bounds
// nothing (the runs it blocks are made and blocked). Nothing where there are no reads or more than
// max_runs combinations of values.
//
// A run of the values covers all runs with them only if it makes no other nondeterministic read (a call
// after these, or a read of an uninitialised variable or cell): the caller checks (RunResult::read_uninitialised).
std::optional<std::vector<std::vector<Int128>>> BoundedInputs(const Program& prog, size_t max_runs);

}  // namespace fusion
