// Tokens of C source text, with their line and column, for the parser of the C subset.
#pragma once

#include <string>
#include <vector>

#include "fusion/ast.h"

namespace fusion {

// What a token is.
enum class TokKind { kIdent, kNumber, kChar, kString, kPunct, kEnd };

// One token: its kind, its text as written and where it starts.
struct Token {
  TokKind kind = TokKind::kEnd;
  std::string text;
  Loc loc;
};

// Splits source text into tokens; skips comments and preprocessor lines (# 1 "file" markers of .i files).
// Throws common::InputError "file:line:col: ..." on a character that starts no token.
std::vector<Token> Lex(const std::string& file, const std::string& text);

}  // namespace fusion
