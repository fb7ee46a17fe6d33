// Prints a Program as C that gcc compiles (the verification functions are declared extern), so that a
// person can read what a transformation did, and tests can compile and run it.
#pragma once

#include <string>

#include "fusion/ast.h"

namespace fusion {

// The whole program as a C translation unit.
std::string PrintProgram(const Program& prog);

// One expression in C syntax, fully parenthesised.
std::string PrintExpr(const ExprPtr& e);

// The name of the __VERIFIER_nondet_* function that returns type t.
std::string NondetFunction(IntType t);

}  // namespace fusion
