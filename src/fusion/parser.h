// Parser of the C subset (including what SV-COMP .i files carry) into a typed Program.
#pragma once

#include <limits>
#include <string>

#include "fusion/ast.h"

namespace fusion {

// The sizes of C's types that SV-COMP tasks declare (`data_model` in their task files): LP64 (long and
// pointers 64 bits, as gcc on x86-64) or ILP32 (32 bits). Only the types that differ depend on it: long,
// unsigned long, size_t, and the size of a pointer.
enum class DataModel { kLP64, kILP32 };

// Parses the text of a C file and returns main as a Program. The bodies of the verification helpers
// (reach_error, __VERIFIER_error, __VERIFIER_assert, __VERIFIER_assume, __assert_fail, ...) are skipped:
// calls to them are recognised by name. Every other function of the file is inlined where it is called
// (docs/loopfuse.md, "Semantics"): a recursive one to a bounded depth (Program::recursion_cuts), or, with
// summarize_recursion, not at all: its calls become kCall expressions of a Procedure, which must be a function
// of its arguments and of global scalars (no arrays or pointers), and the Horn encoding gives it a summary.
// Throws common::InputError on a syntax error and UnsupportedError on a construct outside the subset, both
// "file:line:col: ...", and LimitError (an UnsupportedError) beyond a limit of the parser's, among them
// time_limit_s seconds of inlining (10 000 inlined calls of a deep recursion can take seconds): "time-out
// (parsing and inlining stopped after S s at file:line:col: a call; inlined calls: N)".
Program Parse(const std::string& file, const std::string& text, DataModel model = DataModel::kLP64,
              bool summarize_recursion = false, double time_limit_s = std::numeric_limits<double>::infinity());

// Reads and parses a file; a file that cannot be read is an InputError.
Program ParseFile(const std::string& path, DataModel model = DataModel::kLP64, bool summarize_recursion = false,
                  double time_limit_s = std::numeric_limits<double>::infinity());

}  // namespace fusion
