// Parser of the C subset (including what SV-COMP .i files carry) into a typed Program.
#pragma once

#include <string>

#include "fusion/ast.h"

namespace fusion {

// Parses the text of a C file and returns main as a Program. The bodies of the verification helpers
// (reach_error, __VERIFIER_error, __VERIFIER_assert, __VERIFIER_assume, __assert_fail, ...) are skipped:
// calls to them are recognised by name. Every other function of the file is inlined where it is called
// (docs/loopfuse.md, "Semantics"). Throws common::InputError on a syntax error and UnsupportedError
// on a construct outside the subset, both "file:line:col: ...".
Program Parse(const std::string& file, const std::string& text);

// Reads and parses a file; a file that cannot be read is an InputError.
Program ParseFile(const std::string& path);

}  // namespace fusion
