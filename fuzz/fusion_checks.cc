// The check of the c_parser fuzz target (fuzz/harness.h).
#include <string>

#include "common/error.h"
#include "fusion/parser.h"
#include "fusion/printer.h"
#include "fuzz/harness.h"

namespace fuzz {

void CheckCParser(std::string_view data) {
  fusion::Program program;
  try {
    program = fusion::Parse("fuzz.c", std::string(data));
  } catch (const common::InputError&) {  // syntax errors and UnsupportedError alike
    return;
  }
  Require(!fusion::PrintProgram(program).empty(), "an accepted program prints as C");
}

}  // namespace fuzz
