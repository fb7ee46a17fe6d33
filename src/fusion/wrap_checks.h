// Explicit checks that unsigned arithmetic does not wrap around. A program with the checks proved safe
// has no wrap-around and no error, so the program itself is safe; the checks sit before the statements
// they guard, so the Horn encoder can then treat those sums as plain integers (no modulo case split),
// and a fusion turns checks in later loops into flags like any assertion (a wrong guess raises nothing).
#pragma once

#include "fusion/ast.h"

namespace fusion {

// The program with a wrap-around assertion before every assignment whose right-hand side or index
// does unsigned arithmetic of at most 32 bits (and draws no nondeterministic value); unchanged when none.
Program AddWrapChecks(const Program& prog, bool& added);

}  // namespace fusion
