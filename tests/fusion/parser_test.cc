#include "fusion/parser.h"

#include <gtest/gtest.h>


#include "fusion/errors.h"
#include "fusion/printer.h"
#include "test_util.h"

namespace fusion {
namespace {

using testing::ParseText;

TEST(Parser, MakesConversionsExplicit) {
  Program p = ParseText("int main() { unsigned int u = 3; int i = -1; if (i < u) return 1; return 0; }");
  // In C, i < u compares as unsigned: -1 becomes 4294967295, so the branch is not taken.
  const std::string c = PrintProgram(p);
  EXPECT_NE(c.find("((unsigned int)i) < u"), std::string::npos) << c;
}

TEST(Parser, RenamesShadowingDeclarations) {
  Program p = ParseText("int main() { for (int i = 0; i < 2; i++) {} for (int i = 0; i < 3; i++) {} return 0; }");
  ASSERT_EQ(p.vars.size(), 2u);
  EXPECT_NE(p.vars[0].name, p.vars[1].name);
}

TEST(Parser, SkipsTheVerificationHelpersAndGnuExtras) {
  Program p = ParseText(R"(
typedef unsigned int size_t;
extern void __assert_fail (const char *__assertion, const char *__file, unsigned int __line,
    const char *__function) __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__noreturn__));
void reach_error() { ((void) sizeof ((0) ? 1 : 0), __extension__ ({ if (0) ; else __assert_fail ("0", "f.c", 3, __extension__ __PRETTY_FUNCTION__); })); }
void __VERIFIER_assert(int cond) { if(!(cond)) { ERROR: {reach_error();abort();} } }
int main() { size_t n = __VERIFIER_nondet_uint(); __VERIFIER_assert(n >= 0); return 0; }
)");
  EXPECT_EQ(p.VarNamed("n").type, kUnsigned);
}

TEST(Parser, SyntaxErrorsSayFileLineColumnAndWhatWasExpected) {
  try {
    ParseText("int main() {\n  int x = 1\n  return 0;\n}\n");
    FAIL() << "no error";
  } catch (const UnsupportedError&) {
    FAIL() << "a syntax error is not an unsupported construct";
  } catch (const common::InputError& e) {
    EXPECT_STREQ(e.what(), "t.c:3:3: expected ';' before 'return'");
  }
}

TEST(Parser, ConstructsOutsideTheSubsetAreUnsupported) {
  EXPECT_THROW(ParseText("int main() { int x = 1; x = x << 2; return 0; }"), UnsupportedError);
  EXPECT_THROW(ParseText("int main() { int *p; int x; p = &x; return 0; }"), UnsupportedError);
  EXPECT_THROW(ParseText("int f(int x) { return x; } int main() { return 0; }"), UnsupportedError);
  EXPECT_THROW(ParseText("struct s { int a; }; int main() { struct s v; return 0; }"), UnsupportedError);
  try {
    ParseText("int main() {\n  goto end;\n}\n");
    FAIL() << "no error";
  } catch (const UnsupportedError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("t.c:2:3: unsupported", 0), 0u) << e.what();
  }
}

TEST(Parser, EverySvCompTaskParses) {
  const auto tasks = testing::SvCompTasks();
  if (tasks.empty()) GTEST_SKIP() << "no shared data in " << SHARED_DATA_DIR;
  for (const auto& t : tasks) EXPECT_NO_THROW(ParseFile(t.file)) << t.file;
  EXPECT_EQ(tasks.size(), 31u);
}

}  // namespace
}  // namespace fusion
