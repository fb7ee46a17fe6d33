// Unsigned wrap-around, split off as a separate proof. For each unsigned + - * (at most 32 bits) a
// "no wrap-around" condition is put before the assignment that computes it. Two programs come out:
//
//   no_wrap:        the conditions asserted; the program's own assertions and errors become assumes;
//   under_no_wrap:  the conditions assumed; the program's own assertions and errors kept.
//
// If both are safe, the program is safe. Take any run of the original program and its first event
// that is either an error or a wrap-around. If it is an error, no wrap-around happened before it, so
// the run of under_no_wrap is the same (its assumes all hold) and reaches that error. If it is a
// wrap-around, every assertion before it held, so the run of no_wrap is the same up to there (its
// assumes hold) and fails the condition. Either contradicts a proof. Both programs are easier for
// Spacer than the original: with the condition on the path, the Horn encoder models those sums as plain
// integers (no modulo case split), and each proof needs only half the facts (range facts alone for
// no_wrap; the functional property under unbounded arithmetic for under_no_wrap, e.g. the in-de tasks).
#pragma once

#include "fusion/ast.h"

namespace fusion {

// The two programs of the split (see above).
struct WrapSplit {
  Program no_wrap;
  Program under_no_wrap;
};

// Splits prog; false (and out untouched) when it does no unsigned arithmetic that could wrap, outside
// loop steps (a step is one assignment list; its wrap-around stays modelled exactly) and nondeterministic
// values.
bool SplitWrapChecks(const Program& prog, WrapSplit& out);

}  // namespace fusion
