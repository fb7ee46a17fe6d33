// Tokens of C source text, with their line and column, for the parser of the C subset.
#pragma once

#include <string>
#include <vector>

#include "fusion/ast.h"

namespace fusion {

// What a token is. A preprocessor line reads as kDirective ("#"), the tokens of the line, kDirectiveEnd.
// kInvalid is text that starts no token, with the complaint as its text: an error only where the preprocessor
// keeps it (an apostrophe in an #if 0 group is no error).
enum class TokKind { kIdent, kNumber, kChar, kString, kPunct, kDirective, kDirectiveEnd, kInvalid, kEnd };

// One token: its kind, its text as written and where it starts.
struct Token {
  TokKind kind = TokKind::kEnd;
  std::string text;
  Loc loc;
};

// Splits source text into tokens; skips comments and joins lines that end in a backslash. Preprocessor lines
// stay as tokens between kDirective and kDirectiveEnd, for Preprocess (preprocessor.h).
// Throws common::InputError "file:line:col: ..." on an unterminated comment.
std::vector<Token> Lex(const std::string& file, const std::string& text);

// C's precedence of the binary operator a punctuator token is: 1 for ||, up to 10 for * / %; 0 for any other
// token. The parser and the preprocessor's #if both climb by it.
int BinaryPrecedence(const Token& t);

// The value of an integer literal and its suffixes: what C's type rules for literals need.
struct IntegerLiteral {
  Int128 value = 0;
  bool is_unsigned = false;  // a u or U suffix
  int longs = 0;             // how many l or L suffixes
  bool decimal = true;       // hex, octal and binary literals may also take unsigned types
};

// Reads the integer literal of a kNumber token. Throws UnsupportedError on a floating or malformed number, or one
// above 2^64.
IntegerLiteral ReadIntegerLiteral(const std::string& file, const Token& t);

}  // namespace fusion
