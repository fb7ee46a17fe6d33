// Recursion as procedure summaries: the parse that keeps recursive functions whole (Program::procedures), their
// nonlinear Horn clauses, and the verifier's candidate that proves with them what the cut recursion cannot.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "fusion/errors.h"
#include "fusion/horn.h"
#include "fusion/interpreter.h"
#include "fusion/parser.h"
#include "fusion/printer.h"
#include "fusion/solver.h"
#include "fusion/verifier.h"
#include "test_util.h"

namespace fusion {
namespace {

Program Summarized(const std::string& text) { return Parse("t.c", text, DataModel::kLP64, true); }

// The verdict on text with both parses, as VerifyFile gives them to Verify.
Verdict VerifyBoth(const std::string& text, double timeout_s) {
  const Program summarized = Summarized(text);
  return Verify(testing::ParseText(text), VerifyOptions{timeout_s, true}, &summarized);
}

// SV-COMP's recursive-simple id_b2_o3 in essence: the result is capped at 2, for any input.
const char* kCapped = R"(
extern unsigned int __VERIFIER_nondet_uint(void);
extern void reach_error(void);
unsigned int id(unsigned int x) {
  if (x == 0) return 0;
  unsigned int ret = id(x - 1) + 1;
  if (ret > %d) return %d;
  return ret;
}
int main(void) {
  unsigned int input = __VERIFIER_nondet_uint();
  unsigned int result = id(input);
  if (result == 3) reach_error();
  return 0;
}
)";

// The outcome of the summarized program's run on input, every value it reads.
Outcome OnlyRunOn(const std::string& text, Int128 input) {
  return Interpret(
             Summarized(text), [&](IntType, const InputSite&) { return input; }, 1'000'000)
      .outcome;
}

// The outcome of the summarized program's only run (it reads no input).
Outcome OnlyRun(const std::string& text) { return OnlyRunOn(text, 0); }

std::string Capped(int cap) {
  char text[1024];
  std::snprintf(text, sizeof text, kCapped, cap, cap);
  return text;
}

TEST(Summaries, ARecursiveFunctionBecomesAProcedureThatItsCallsRead) {
  const Program p = Summarized(Capped(2));
  ASSERT_EQ(p.procedures.size(), 1u);
  const Procedure& id = p.procedures[0];
  EXPECT_EQ(id.name, "id");
  ASSERT_EQ(id.params.size(), 1u);
  EXPECT_FALSE(id.result.empty());
  EXPECT_TRUE(p.recursion_cuts.empty());
  const std::string main_text = PrintProgram(p);
  EXPECT_NE(main_text.find(" = id(input)"), std::string::npos) << main_text;
  Program body_only = p;
  body_only.body = id.body;
  const std::string body_text = PrintProgram(body_only);
  EXPECT_NE(body_text.find(" = id(("), std::string::npos) << body_text;
  // Without summaries the same file is inlined to a bounded depth and cut there.
  const Program inlined = testing::ParseText(Capped(2));
  EXPECT_TRUE(inlined.procedures.empty());
  EXPECT_FALSE(inlined.recursion_cuts.empty());
}

TEST(Summaries, MutualRecursionGivesEachFunctionAProcedure) {
  const Program p = Summarized(R"(
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assert(int cond);
int odd(int n);
int even(int n) { if (n == 0) return 1; return odd(n - 1); }
int odd(int n) { if (n == 0) return 0; return even(n - 1); }
int twice(int n) { return 2 * n; }
int main() {
  int x = __VERIFIER_nondet_int();
  if (x < 0 || x > 1000) return 0;
  __VERIFIER_assert(even(twice(x)) == 1);
  return 0;
}
)");
  ASSERT_EQ(p.procedures.size(), 2u);
  EXPECT_EQ(p.procedures[0].name, "odd");  // finished first: it is built while even's body is parsed
  EXPECT_EQ(p.procedures[1].name, "even");
}

TEST(Summaries, AFunctionOfArraysOrPointersIsRefusedByName) {
  const auto refusal = [](const std::string& text) {
    try {
      Summarized(text);
    } catch (const UnsupportedError& e) {
      return std::string(e.what());
    }
    return std::string("no refusal");
  };
  EXPECT_NE(refusal(R"(
int f(int *a, int n) { if (n <= 0) return 0; return a[n - 1] + f(a, n - 1); }
int main() { int a[4] = {1, 2, 3, 4}; int r = f(a, 4); return r; }
)").find("summary of the recursive function 'f': an argument that is a pointer or an array"),
            std::string::npos);
}

// An error inside a recursive function: reached where some call passes a negative n (lower 0: from main's x >= 0,
// never; lower -5: at x = -1).
const char* kErrorInside = R"(
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int f(int n) { if (n < 0) reach_error(); if (n == 0) return 0; return f(n - 1) + 1; }
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x < %d || x > 1000000) return 0;
  int r = f(x);
  if (r != x) reach_error();
  return 0;
}
)";

TEST(Summaries, AnErrorInsideAProcedureIsReachedFromTheCallsThatAreMade) {
  char text[1024];
  std::snprintf(text, sizeof text, kErrorInside, 0);
  z3::context ctx;
  const std::string smt2 = HornToSmt2(EncodeHorn(Summarized(text), ctx), ctx);
  EXPECT_NE(smt2.find("(declare-fun C_f (Int) Bool)"), std::string::npos) << smt2;
  const Verdict v = VerifyBoth(text, 20);
  EXPECT_EQ(v.verdict, "true") << v.reason;
  EXPECT_EQ(v.solved_by.rfind("summaries / ", 0), 0u) << v.solved_by;
  // Reachable: the clauses of the summarized program reach it, through the context of the call f(-1).
  std::snprintf(text, sizeof text, kErrorInside, -5);
  EXPECT_EQ(testing::SolveAny(Summarized(text), 5), SolveStatus::kUnsafe);
  EXPECT_EQ(VerifyBoth(text, 10).verdict, "false");
}

// A global that f writes through g, which f calls: f's summary relates it too (f itself never names it).
const char* kGlobalThroughACallee = R"(
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int calls;
void g(int n);
void f(int n) { if (n <= 0) return; g(n - 1); }
void g(int n) { calls++; f(n); }
int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 1000000) return 0;
  calls = 0;
  f(n);
  if (%s) reach_error();
  return 0;
}
)";

TEST(Summaries, TheGlobalsAProcedureWritesAreInItsSummary) {
  char text[1024];
  std::snprintf(text, sizeof text, kGlobalThroughACallee, "calls != n");
  const Program p = Summarized(text);
  ASSERT_EQ(p.procedures.size(), 2u);
  for (const Procedure& proc : p.procedures) {
    EXPECT_EQ(proc.globals, std::vector<std::string>{"calls"}) << proc.name;
    EXPECT_EQ(proc.global_ins.size(), 1u) << proc.name;
  }
  const Verdict v = VerifyBoth(text, 20);
  EXPECT_EQ(v.verdict, "true") << v.reason;
  EXPECT_EQ(v.solved_by.rfind("summaries / ", 0), 0u) << v.solved_by;
  // Without f's summary relating `calls`, main's would still be 0 after the call, and this would be proved.
  std::snprintf(text, sizeof text, kGlobalThroughACallee, "calls != 0");
  EXPECT_EQ(testing::SolveAny(Summarized(text), 5), SolveStatus::kUnsafe);
  EXPECT_EQ(OnlyRunOn(text, 3), Outcome::kError);
}

TEST(Summaries, TheClausesOfACallAreNonlinear) {
  z3::context ctx;
  const HornSystem sys = EncodeHorn(Summarized(Capped(2)), ctx);
  EXPECT_FALSE(sys.Linear());
  const std::string smt2 = HornToSmt2(sys, ctx);
  EXPECT_NE(smt2.find("(declare-fun S_id (Int Int) Bool)"), std::string::npos) << smt2;
}

TEST(Summaries, ProveWhatTheRecursionCutAtABoundedDepthCannot) {
  const Verdict v = VerifyBoth(Capped(2), 20);
  EXPECT_EQ(v.verdict, "true") << v.reason;
  EXPECT_EQ(v.solved_by.rfind("summaries / ", 0), 0u) << v.solved_by;
  ASSERT_FALSE(v.transformations.empty());
  EXPECT_NE(v.transformations[0].find("'id'"), std::string::npos) << v.transformations[0];
  // The inlined program alone: a proof must get past the cut, where the clauses let its check fail.
  const Verdict cut = Verify(testing::ParseText(Capped(2)), VerifyOptions{3, true});
  EXPECT_EQ(cut.verdict, "unknown") << cut.reason;
}

TEST(Summaries, ARecursionTooLongToInlineIsVerifiedByItsSummariesAlone) {
  // SV-COMP's Primes in kind: the parse that inlines recursion passes its limit inside g, and says so; the same
  // calls outside any recursion pass it too, and say not.
  const std::string safe = testing::RecursionTooLongToInline("g(n - 1)", "r == 0");
  try {
    testing::ParseText(safe);
    ADD_FAILURE() << "inlined within the limit";
  } catch (const LimitError& e) {
    EXPECT_NE(std::string(e.what()).find("unsupported more than 10000 inlined calls"), std::string::npos) << e.what();
    EXPECT_TRUE(e.inlining_recursion);
  }
  std::string blowup;
  for (int k = 1; k <= 14; ++k) blowup += fmt::format("void f{}(void) {{ f{}(); f{}(); }}\n", k, k - 1, k - 1);
  try {
    testing::ParseText("void f0(void) { }\n" + blowup + "int main() { f14(); return 0; }\n");
    ADD_FAILURE() << "inlined within the limit";
  } catch (const LimitError& e) {
    EXPECT_FALSE(e.inlining_recursion) << e.what();
  }
  // The summarized reading alone proves it, and refutes the variant whose g(n) is n.
  const Verdict v = VerifySummarized(Summarized(safe), VerifyOptions{20, true});
  EXPECT_EQ(v.verdict, "true") << v.reason;
  EXPECT_EQ(v.solved_by.rfind("summaries / ", 0), 0u) << v.solved_by;
  const Verdict bug =
      VerifySummarized(Summarized(testing::RecursionTooLongToInline("g(n - 1) + 1", "r == 0 || n < 3")),
                       VerifyOptions{20, true});
  EXPECT_EQ(bug.verdict, "false") << bug.reason;
  ASSERT_EQ(bug.inputs.size(), 1u);
  EXPECT_GE(bug.inputs[0], 3);
}

TEST(Summaries, AReachableErrorIsNeverProved) {
  // Capped at 3, the result reaches 3 at input 3: a summary that excluded it would prove a false program.
  const Verdict v = VerifyBoth(Capped(3), 10);
  EXPECT_EQ(v.verdict, "false") << v.reason;
  // Deeper than any concrete run draws on its own: the summaries' clauses reach the error, which is no proof,
  // and no replay (a derivation through summaries is no one run).
  const Verdict deep = VerifyBoth(R"(
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int count(int n) { if (n <= 0) return 0; return 1 + count(n - 1); }
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x < 0 || x > 1000000) return 0;
  if (count(x) == 777777) reach_error();
  return 0;
}
)",
                                  5);
  EXPECT_NE(deep.verdict, "true") << deep.reason;
}


TEST(Summaries, ConcreteRunsOfTheSummarizedProgramCallAsDeepAsTheRunGoes) {
  // sum's local `a` is the caller's again after each call: without the procedure's variables saved around a
  // call, every level would add the innermost a.
  const char* kSum = R"(
extern void reach_error(void);
int sum(int n) { int a = n; if (n <= 0) return 0; int r = sum(n - 1); return a + r; }
int main(void) { int s = sum(%d); if (s != %d) reach_error(); return 0; }
)";
  char text[512];
  std::snprintf(text, sizeof text, kSum, 300, 45150);
  EXPECT_EQ(OnlyRun(text), Outcome::kFinished);
  std::snprintf(text, sizeof text, kSum, 300, 45149);
  EXPECT_EQ(OnlyRun(text), Outcome::kError);
  // The inlined program stops at its cut, 64 calls deep: its run tells nothing.
  EXPECT_EQ(testing::InterpretOn(testing::ParseText(text), {}), Outcome::kUndefined);
  // So the verifier's concrete runs are the summarized program's: the error is found by one.
  const Verdict v = VerifyBoth(text, 10);
  EXPECT_EQ(v.verdict, "false") << v.reason;
  EXPECT_EQ(v.solved_by, "interpreter") << v.reason;
  // Deeper than a thread's default stack would take, on the stack the interpreter makes for procedures.
  std::snprintf(text, sizeof text, kSum, 5000, 12502500);
  EXPECT_EQ(OnlyRun(text), Outcome::kFinished);
  // Deeper than that stack takes: the run stops, telling nothing.
  std::snprintf(text, sizeof text, kSum, 10001, 50015001);
  EXPECT_EQ(OnlyRun(text), Outcome::kStepLimit);
}

TEST(Summaries, ARunThatCallsDeeperRunsAgainOnTheSameInputs) {
  // Past 500 calls a run starts again on a stack of its own: x must be the value the first try drew, and y the
  // next one the source gives.
  const Program prog = Summarized(R"(
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int count(int n) { if (n <= 0) return 0; return 1 + count(n - 1); }
int main(void) {
  int x = __VERIFIER_nondet_int();
  int c = count(x - 400);
  int y = __VERIFIER_nondet_int();
  if (c == 600 && y == 1001) reach_error();
  return 0;
}
)");
  Int128 next = 1000;
  const RunResult run = Interpret(prog, [&](IntType, const InputSite&) { return next++; }, 1'000'000);
  EXPECT_EQ(run.outcome, Outcome::kError);
  EXPECT_EQ(run.inputs, (std::vector<Int128>{1000, 1001}));
}

TEST(Summaries, ACallWhoseValueNothingReadsIsMadeAllTheSame) {
  // SV-COMP's afterrec-1: the error after the recursive call of a void function. Leaving the call out (the first
  // version did, where its value was not read) proved it; and a call that blocks would have let main's error be
  // reached.
  const char* kAfterRecursion = R"(
extern void reach_error(void);
void f(int n) { if (n < 3) return; n--; f(n); reach_error(); }
int main(void) { f(4); return 0; }
)";
  EXPECT_EQ(OnlyRun(kAfterRecursion), Outcome::kError);
  EXPECT_EQ(VerifyBoth(kAfterRecursion, 10).verdict, "false");
  EXPECT_EQ(testing::SolveAny(Summarized(kAfterRecursion), 5), SolveStatus::kUnsafe);
  const char* kBlocks = R"(
extern void reach_error(void);
extern void abort(void);
int f(int n) { if (n > 2) abort(); return f(n + 1); }
int main(void) { f(0); reach_error(); return 0; }
)";
  EXPECT_EQ(OnlyRun(kBlocks), Outcome::kBlocked);
  EXPECT_EQ(VerifyBoth(kBlocks, 10).verdict, "true");
  // recursive's BallRajamani-SPIN2000-Fig1: an int function that ends without a return, its value dropped. As
  // the procedure's (whose calls do not all read it), that value is any value, not undefined at once: a run goes
  // on past the call to main's error (with the recursion cut's check there, no run did).
  const char* kFallsOff = R"(
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int g;
int A(int a1, int a2) { if (a1) { A(a2, a1); } else { g = a2; } }
int main(void) { int x = __VERIFIER_nondet_int(); int h = !x; A(x, h); if (x) reach_error(); return 0; }
)";
  EXPECT_EQ(OnlyRunOn(kFallsOff, 1), Outcome::kError);
  EXPECT_EQ(VerifyBoth(kFallsOff, 10).verdict, "false");
}

TEST(Summaries, ACallThatEndsTheRunEndsItWithItsOutcome) {
  // Blocked inside the call (abort), or undefined there: the statement after the call never runs.
  EXPECT_EQ(OnlyRun(R"(
extern void reach_error(void);
extern void abort(void);
int f(int n) { if (n == 3) abort(); return f(n + 1); }
int main(void) { int r = f(0); reach_error(); return r; }
)"),
            Outcome::kBlocked);
  EXPECT_EQ(OnlyRun(R"(
extern void reach_error(void);
int f(int n) { if (n == 3) return 10 / (n - 3); return f(n + 1); }
int main(void) { int r = f(0); reach_error(); return r; }
)"),
            Outcome::kUndefined);
}

}  // namespace
}  // namespace fusion
