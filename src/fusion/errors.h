// The two ways a program can be rejected: a syntax error (bad input) or a construct outside the C subset
// (the verdict is then unknown, with the reason).
#pragma once

#include <string>

#include "common/error.h"
#include "fusion/ast.h"

namespace fusion {

// A construct the subset does not cover; the message is "file:line:col: unsupported ...".
class UnsupportedError : public common::InputError {
 public:
  explicit UnsupportedError(const std::string& message) : common::InputError(message) {}
};

// A construct beyond one of the parser's limits (inlined calls, nesting, its time limit), which no other reading of
// the program with its calls inlined would stay within.
class LimitError : public UnsupportedError {
 public:
  explicit LimitError(const std::string& message, bool inlining_recursion = false)
      : UnsupportedError(message), inlining_recursion(inlining_recursion) {}
  // Whether the limit was passed inside the inlining of a recursive function: a reading that summarizes
  // recursion instead (Parse's summarize_recursion) may stay within it.
  bool inlining_recursion;
};

// "file:line:col: what".
inline std::string LocatedAt(const std::string& file, Loc loc, const std::string& what) {
  return file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col) + ": " + what;
}

// Throws common::InputError for a syntax error at loc.
[[noreturn]] inline void FailSyntax(const std::string& file, Loc loc, const std::string& what) {
  throw common::InputError(LocatedAt(file, loc, what));
}

// Throws UnsupportedError "file:line:col: unsupported what".
[[noreturn]] inline void FailUnsupported(const std::string& file, Loc loc, const std::string& what) {
  throw UnsupportedError(LocatedAt(file, loc, "unsupported " + what));
}

// Throws LimitError "file:line:col: unsupported what" (inlining_recursion: LimitError's).
[[noreturn]] inline void FailLimit(const std::string& file, Loc loc, const std::string& what,
                                   bool inlining_recursion = false) {
  throw LimitError(LocatedAt(file, loc, "unsupported " + what), inlining_recursion);
}

}  // namespace fusion
