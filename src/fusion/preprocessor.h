// The part of C's preprocessor that verification tasks written as .c files use, over the tokens of one file.
#pragma once

#include <string>
#include <vector>

#include "fusion/lexer.h"

namespace fusion {

// Carries out the directives among tokens (from Lex) and returns the tokens of the program:
// - object-like #define (a use takes the location of the name it replaces) and #undef;
// - #if, #ifdef, #ifndef, #elif, #else, #endif, with C's integer constant expressions and defined();
// - #include <header> is dropped: the library functions a task calls are known by name; after <assert.h>
//   (NDEBUG not defined), assert is __VERIFIER_assert, as glibc's macro fails through __assert_fail;
// - #pragma, #ident and the line markers of .i files ("# 12 \"f.c\"", #line) are dropped; #error fails.
// Throws common::InputError for a malformed directive or an unbalanced #if, UnsupportedError for a function-like
// macro, #include "file" and unknown directives: such a file wants a full preprocessor first (gcc -E).
std::vector<Token> Preprocess(const std::string& file, const std::vector<Token>& tokens);

}  // namespace fusion
