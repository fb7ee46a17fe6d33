// The interpreter against gcc: the same programs, printed as C and compiled, on the same inputs.
#include "fusion/interpreter.h"

#include <gtest/gtest.h>

#include "fusion/parser.h"
#include "test_util.h"

namespace fusion {
namespace {

using testing::InterpretOn;
using testing::ParseText;

// Programs that exercise conversions, division, arrays, breaks and early exits (none has undefined
// behaviour on the inputs below).
const char* kPrograms[] = {
    // unsigned wrap-around and the int/unsigned comparison
    R"(int main() { unsigned int x = __VERIFIER_nondet_uint(); unsigned int y = x + 4294967295u;
       int i = __VERIFIER_nondet_int(); if (i < x) { __VERIFIER_assert(y != 7); } return 0; })",
    // truncating division and remainder of negative numbers, narrowing to char
    R"(int main() { int a = __VERIFIER_nondet_int(); int b = __VERIFIER_nondet_int(); __VERIFIER_assume(b != 0);
       int q = a / b; int r = a % b; char c = a * 3; __VERIFIER_assert(q * b + r == a); __VERIFIER_assert(c != 5);
       return 0; })",
    // arrays, a loop with break and continue, and a return inside a loop
    R"(int main() { int n = __VERIFIER_nondet_int(); if (n < 0 || n > 50) return 0; int a[n + 1]; int s = 0;
       for (int i = 0; i <= n; i++) { a[i] = __VERIFIER_nondet_int(); }
       for (int i = 0; i <= n; i++) { if (a[i] == 3) continue; if (a[i] < 0) break; s += a[i]; if (s > 40) return 0; }
       __VERIFIER_assert(s != 12); return 0; })",
    // do-while, ternary, logical operators
    R"(int main() { int x = __VERIFIER_nondet_int(); int k = 0; if (x > 100 || x < -100) return 0;
       do { k = k + (x > 0 ? 2 : 1); x--; } while (x > 0 && k < 30); __VERIFIER_assert(k != 9 || !(x == 0)); return 0; })",
    // products of unsigned long long past 2^127 (-5 is 2^64 - 5, squared 25 modulo 2^64)
    R"(int main() { unsigned long long x = __VERIFIER_nondet_ulonglong(); __VERIFIER_assert(x * x != 25); return 0; })",
};

TEST(Interpreter, AgreesWithGccCompiledRuns) {
  const std::vector<std::vector<long long>> inputs = {
      {0, 0, 0},       {7, 3, 2, 1},        {8, -2, 5, 5},   {-7, 2, 1},         {4294967295LL, -1, 3},
      {5, 3, 3, 3, 3, 3, 3}, {12, 12, 0, 0, 0}, {3, 4, 5, 3, -1}, {-5, 3},        {1, 0},
  };
  for (const char* text : kPrograms) {
    const Program p = ParseText(text);
    const testing::GccProgram gcc(p);
    ASSERT_TRUE(gcc.error().empty()) << gcc.error();
    for (const auto& in : inputs) EXPECT_EQ(OutcomeName(InterpretOn(p, in)), gcc.Run(in)) << text;
  }
}

TEST(Interpreter, StopsAtTheStepLimit) {
  const Program p = ParseText("int main() { while (1) {} return 0; }");
  EXPECT_EQ(Interpret(p, [](IntType, const InputSite&) { return Int128(0); }, 1000).outcome, Outcome::kStepLimit);
}

TEST(Interpreter, StopsAtTheCpuTimeLimit) {
  // No step or wall-clock limit that this run could reach: only its thread's CPU time ends it.
  const Program p = ParseText("int main() { int x = __VERIFIER_nondet_int(); while (1) {} return 0; }");
  const RunResult r = Interpret(p, [](IntType, const InputSite&) { return Int128(0); }, 1L << 62, 1e9, nullptr, 0.05);
  EXPECT_EQ(r.outcome, Outcome::kStepLimit);
  EXPECT_LT(r.steps, 1L << 62);
}

TEST(Interpreter, CountsCpuTimeFromTheFirstValueRead) {
  // 0.05 s of CPU time is not enough for a million iterations here, so the first run stops at the limit.
  // The second reads nothing (the havoc of i is overwritten): the limit does not apply to it, its steps do.
  // (s = s * 3 + 1 moves s by a different amount each time: no jump over the iterations, acceleration.h.)
  const auto run = [](const char* text) {
    return Interpret(ParseText(text), [](IntType, const InputSite&) { return Int128(1000000); }, 20'000'000, 1e9,
                     nullptr, 0.05);
  };
  const RunResult reads =
      run("int main() { int n = __VERIFIER_nondet_int(); int i = 0; unsigned s = 0; while (i < n) { i++; s = s * 3 + 1; } "
          "return 0; }");
  EXPECT_EQ(reads.outcome, Outcome::kStepLimit);
  EXPECT_TRUE(reads.read_input);
  const RunResult alone =
      run("int main() { int i; i = 0; unsigned s = 0; while (i < 1000000) { i++; s = s * 3 + 1; } return 0; }");
  EXPECT_EQ(alone.outcome, Outcome::kFinished);
  EXPECT_FALSE(alone.read_input);
  EXPECT_EQ(alone.inputs.size(), 1u);  // the havoc of i, logged, never read
  EXPECT_EQ(run("int main() { while (1) {} return 0; }").outcome, Outcome::kStepLimit);
}

TEST(Interpreter, ComputesPastASignedOverflowUpTo2To125) {
  const auto run = [](const std::string& text) {
    return Interpret(ParseText(text), [](IntType, const InputSite&) { return Int128(0); }, 1'000'000);
  };
  // 3^60 is past long long, within 2^125: the run goes on as the integers do, and notes the overflow.
  const RunResult within = run("int main() { long long s = 1; for (int k = 0; k < 60; k++) s = s * 3; "
                               "__VERIFIER_assert(s % 3 != 0); return 0; }");
  EXPECT_EQ(within.outcome, Outcome::kError);
  EXPECT_TRUE(within.signed_overflow);
  // 3^200 and 2^124 * 1000 are not: the run stops there. (The loop over x is one the interpreter jumps over
  // where it can, acceleration.h: such a jump must not compute with v either.)
  for (const std::string body : {"for (int k = 0; k < 200; k++) s = s * 3;",
                                 "for (int k = 0; k < 123; k++) s = s * 2; long long x = 0; "
                                 "for (int i = 0; i < 100000; i++) x = x + s * 1000;"}) {
    const RunResult beyond = run("int main() { long long s = 1; " + body + " return 0; }");
    EXPECT_EQ(beyond.outcome, Outcome::kUndefined) << body;
    EXPECT_TRUE(beyond.signed_overflow) << body;
  }
}

TEST(Interpreter, RecordsTheInputsItConsumed) {
  const Program p = ParseText("int main() { unsigned char c = __VERIFIER_nondet_uchar(); __VERIFIER_assert(c != 4); return 0; }");
  const RunResult r = Interpret(p, [](IntType, const InputSite&) { return Int128(260); }, 100);  // 260 wraps to 4
  EXPECT_EQ(r.outcome, Outcome::kError);
  ASSERT_EQ(r.inputs.size(), 1u);
  EXPECT_TRUE(r.inputs[0] == 4);
}

// An access outside the cells that an array's declaration or allocation made is undefined behaviour in C: the
// run stops there, tells nothing, and so confirms no error behind it (verifythis' tree_del_rec got `false`
// through a write one past a calloc'd array). gcc with -fsanitize=address reports each of the accesses below.
TEST(Interpreter, AnAccessOutsideAnArrayStopsTheRun) {
  const std::string head = "extern void *calloc(unsigned long, unsigned long);\nextern void *malloc(unsigned long);\n"
                           "struct S { int v; };\nint *g;\n";
  const auto outcome = [&](const std::string& body, long long input, DataModel model = DataModel::kLP64) {
    const Program p = Parse("t.c", head + "int main() { int k = __VERIFIER_nondet_int(); " + body + " return 0; }",
                            model);
    return OutcomeName(InterpretOn(p, {input}));
  };
  const std::string write = "int *x = calloc(1, sizeof(int)); x[k] = 5; if (x[0] == 0) reach_error();";
  EXPECT_EQ(outcome(write, 1), "undefined");
  EXPECT_EQ(outcome(write, -1), "undefined");
  EXPECT_EQ(outcome(write, 0), "finished");
  const std::string read = "int a[3]; a[0] = 1; a[1] = 2; a[2] = 3; if (a[k] == 7) reach_error();";
  EXPECT_EQ(outcome(read, 3), "undefined");
  EXPECT_EQ(outcome(read, 2), "finished");
  // A value that nothing stores is computed all the same (an out-of-bounds hunt found `a[k] + 1;` dropped).
  EXPECT_EQ(outcome("int a[5]; a[k] + 1; reach_error();", 5), "undefined");
  EXPECT_EQ(outcome("int a[5]; a[k] + 1; reach_error();", 4), "error");
  EXPECT_EQ(outcome("int a[5]; k ? a[9] : 0; reach_error();", 1), "undefined");
  EXPECT_EQ(outcome("int x = 3; x / k; reach_error();", 0), "undefined");
  // Whole cells only: malloc(6) holds one int.
  EXPECT_EQ(outcome("int *m = malloc(6); m[k] = 1;", 1), "undefined");
  // A global pointer never given an array is null.
  EXPECT_EQ(outcome("if (k) g = malloc(8); g[1] = 4;", 0), "undefined");
  EXPECT_EQ(outcome("if (k) g = malloc(8); g[1] = 4;", 1), "finished");
  // An array of pointers has a pointer's bytes per cell under either data model.
  for (const DataModel model : {DataModel::kILP32, DataModel::kLP64}) {
    EXPECT_EQ(outcome("struct S *p[2]; p[1] = 0; if (k) p[k] = 0;", 1, model), "finished");
    EXPECT_EQ(outcome("struct S *p[2]; p[1] = 0; if (k) p[k] = 0;", 2, model), "undefined");
  }
}

}  // namespace
}  // namespace fusion
