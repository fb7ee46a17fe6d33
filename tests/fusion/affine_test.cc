// The affine invariants (fusion/affine.h): the equalities of in-de62's fused under-no-wrap half, an
// unreachable loop, equalities that wrap-around breaks, arrays, the time limit; every result inductive on
// every clause, and the solver's proofs with them re-checked.
#include <gtest/gtest.h>
#include <z3++.h>

#include <string>
#include <vector>

#include "fusion/affine.h"
#include "fusion/fuse.h"
#include "fusion/horn.h"
#include "fusion/parser.h"
#include "fusion/solver.h"
#include "fusion/wrap_checks.h"
#include "test_util.h"

namespace fusion {
namespace {

using testing::Inferred;
using testing::ParseText;

// loops-crafted-1/in-de62.c: x ends where it started (0) after six loops that move counts between x, y, z.
constexpr const char* kInDe62 = R"(int main() {
    unsigned int n = __VERIFIER_nondet_uint();
    unsigned int x = n, y = 0, z;
    while (x > 0) { x--; y++; }
    z = y;
    while (z > 0) { x++; z--; }
    while (y > 0) { y--; z++; }
    while (x > 0) { x--; y++; }
    while (z > 0) { x++; z--; }
    while (y > 0) { y--; x--; }
    __VERIFIER_assert(x == 0);
    return 0; })";

// The fused under-no-wrap half of in-de62, as the verifier builds it (split, then guess-and-assume).
Program InDe62FusedUnderNoWrap() {
  WrapSplit split;
  EXPECT_TRUE(SplitWrapChecks(ParseText(kInDe62), split));
  return Transform(split.under_no_wrap, FusionMode::kGuess).prog;
}

TEST(Affine, FindsTheConservedSumOfEachFusedPart) {
  Inferred in(InDe62FusedUnderNoWrap());
  EXPECT_TRUE(in.Inductive());
  const int loop = in.PredWith("guess_x_2");
  ASSERT_GE(loop, 0);
  const auto v = [&](const char* name) { return in.Var(name); };
  // Each fused part moves one unit from one variable to another per step: their sum (for the last part,
  // their difference) keeps its guessed starting value.
  EXPECT_TRUE(in.Implies(loop, v("x_2") + v("z_2") == v("guess_x_2") + v("guess_y_2")));
  EXPECT_TRUE(in.Implies(loop, v("y_3") + v("z_3") == v("guess_y_3") + v("guess_z_3")));
  EXPECT_TRUE(in.Implies(loop, v("x_4") + v("y_4") == v("guess_x_4") + v("guess_y_4")));
  EXPECT_TRUE(in.Implies(loop, v("x_5") + v("z_5") == v("guess_x_5") + v("guess_z_5")));
  EXPECT_TRUE(in.Implies(loop, v("x_6") - v("y_6") == v("guess_x_6") - v("guess_y_6")));
  // Nothing more than the hull: the parts run independently, so no equality ties two of them.
  EXPECT_FALSE(in.Implies(loop, v("x_2") == v("x_4")));
}

TEST(Affine, TheSolverProvesTheFusedHalfWithThemAndReportsThem) {
  const Program p = InDe62FusedUnderNoWrap();
  HornProblem problem(p, 30);
  SolveResult r;
  for (const OptionSet& o : Portfolio()) {
    r = problem.Solve(o, 30, 30, 10);
    if (r.status == SolveStatus::kSafe) break;
  }
  ASSERT_EQ(r.status, SolveStatus::kSafe) << r.reason;
  // The reported invariant of the loop, re-checked with the model, states the equalities.
  bool stated = false;
  for (const auto& inv : r.invariants) stated = stated || inv.find("guess_x_2") != std::string::npos;
  EXPECT_TRUE(stated);
}

TEST(Affine, AnUnreachableLoopGetsFalse) {
  Inferred in(ParseText(R"(int main() {
      int n = __VERIFIER_nondet_int();
      int i = 0;
      if (n > 5 && n < 3) { while (i < n) { i++; } }
      __VERIFIER_assert(i == 0);
      return 0; })"));
  const int loop = in.PredWith("i");
  ASSERT_GE(loop, 0);
  EXPECT_FALSE(in.inv.reachable[loop]);
  EXPECT_TRUE(in.Inductive());
}

TEST(Affine, WrapAroundBreaksAnEqualityThatHoldsOverTheIntegers) {
  // x == 2y over the integers, but x wraps first: the encoding reduces x modulo 2^32, so the equality is
  // not inductive there; in the half where no update wraps it is.
  const char* text = R"(int main() {
      unsigned int x = 0, y = 0;
      while (__VERIFIER_nondet_int()) { x = x + 2u; y = y + 1u; }
      __VERIFIER_assert(x >= y);
      return 0; })";
  Inferred wrapped(ParseText(text));
  EXPECT_TRUE(wrapped.Inductive());
  const int loop = wrapped.PredWith("x");
  ASSERT_GE(loop, 0);
  EXPECT_FALSE(wrapped.Implies(loop, wrapped.Var("x") == 2 * wrapped.Var("y")));

  WrapSplit split;
  ASSERT_TRUE(SplitWrapChecks(ParseText(text), split));
  Inferred under(split.under_no_wrap);
  EXPECT_TRUE(under.Inductive());
  const int under_loop = under.PredWith("x");
  ASSERT_GE(under_loop, 0);
  EXPECT_TRUE(under.Implies(under_loop, under.Var("x") == 2 * under.Var("y")));
}

TEST(Affine, ArraysTakeNoPartAndIndicesStillGetTheirs) {
  Inferred in(ParseText(R"(int main() {
      int a[100]; int b[100];
      int i = 0; int j = 5;
      while (i < 100) { a[i] = b[i]; i++; j++; }
      __VERIFIER_assert(j == 105);
      return 0; })"));
  EXPECT_TRUE(in.Inductive());
  const int loop = in.PredWith("i");
  ASSERT_GE(loop, 0);
  EXPECT_TRUE(in.Implies(loop, in.Var("j") == in.Var("i") + 5));
}

// loop-invgen/string_concat-noarr: the second loop keeps i - j below 100 (the first stops i there, j starts
// at 0, and both grow by one), a bound no equality states; the counters' own bounds grow and are dropped.
TEST(Affine, BoundsTheDifferenceOfTwoCountersAcrossLoops) {
  const char* text = R"(int main() {
      int i = 0, j;
      while (__VERIFIER_nondet_int() && i < 1000000) { i++; }
      if (i >= 100) { STUCK: goto STUCK; }
      j = 0;
      while (__VERIFIER_nondet_int() && i < 1000000) { i++; j++; }
      if (j >= 100) goto STUCK;
      __VERIFIER_assert(i < 200);
      return 0; })";
  Inferred in(ParseText(text));
  EXPECT_TRUE(in.Inductive());
  const int loop = in.PredWith("j");
  ASSERT_GE(loop, 0);
  EXPECT_TRUE(in.Implies(loop, in.Var("i") - in.Var("j") <= 99));
  EXPECT_TRUE(in.Implies(loop, in.Var("j") >= 0));
  EXPECT_FALSE(in.Implies(loop, in.Var("j") <= 99));
  // The solver proves it with them.
  HornProblem problem(ParseText(text), 30);
  EXPECT_EQ(problem.Solve(Portfolio().front(), 30, 30, 10).status, SolveStatus::kSafe);
}

// Arrays make the bounds' queries slow: a system with an array argument gets equalities only.
TEST(Affine, ASystemWithArraysGetsNoBounds) {
  Inferred in(ParseText(R"(int main() {
      int a[100]; int i = 0;
      while (i < 100) { a[i] = 0; i++; }
      __VERIFIER_assert(i == 100);
      return 0; })"));
  for (const auto& b : in.inv.bounds) EXPECT_TRUE(b.empty());
}

TEST(Affine, OutOfTimeSaysNothing) {
  Inferred in(InDe62FusedUnderNoWrap(), 0);
  for (size_t p = 0; p < in.inv.reachable.size(); ++p) {
    EXPECT_TRUE(in.inv.reachable[p]);
    EXPECT_TRUE(in.inv.equalities[p].empty());
    EXPECT_TRUE(in.inv.bounds[p].empty());
  }
}

TEST(Affine, TheSameProgramGetsTheSameEqualities) {
  Inferred a(InDe62FusedUnderNoWrap()), b(InDe62FusedUnderNoWrap());
  ASSERT_EQ(a.inv.equalities.size(), b.inv.equalities.size());
  for (size_t p = 0; p < a.inv.equalities.size(); ++p) {
    ASSERT_EQ(a.inv.equalities[p].size(), b.inv.equalities[p].size());
    for (size_t k = 0; k < a.inv.equalities[p].size(); ++k) {
      EXPECT_EQ(a.inv.equalities[p][k].coeffs, b.inv.equalities[p][k].coeffs);
      EXPECT_EQ(a.inv.equalities[p][k].constant, b.inv.equalities[p][k].constant);
    }
  }
}

TEST(Affine, ASummaryGetsTheEqualitiesOfItsRecursion) {
  // SV-COMP's recursive/Addition03-1 in essence: the summary is r == m + n, which Spacer alone approaches one bound
  // `r >= m + k` at a time (30 s with long long). Its clauses are nonlinear: a call's summary in the body.
  const char* text = R"(extern int __VERIFIER_nondet_int(void);
    extern void reach_error(void);
    long long add(long long m, long long n) {
      if (n == 0) return m;
      if (n > 0) return add(m + 1, n - 1);
      return add(m - 1, n + 1);
    }
    int main() {
      int m = __VERIFIER_nondet_int();
      int n = __VERIFIER_nondet_int();
      long long r = add(m, n);
      if (m >= 100 && n >= 100 && r < 200) reach_error();
      return 0; })";
  const Program summarized = Parse("t.c", text, DataModel::kLP64, true);
  Inferred in(summarized);
  ASSERT_FALSE(in.sys.Linear());
  const int summary = in.PredWith("add_result");
  ASSERT_GE(summary, 0);
  ASSERT_EQ(in.sys.pred_vars[summary].size(), 3u);
  const std::vector<z3::expr> args = in.Args(summary);
  EXPECT_TRUE(in.Implies(summary, args[2] == args[0] + args[1]));
  EXPECT_TRUE(in.Inductive());
  EXPECT_EQ(testing::SolveAny(summarized, 5), SolveStatus::kSafe);
}

TEST(Affine, AProceduresGlobalsHoldValuesOfTheirTypesAtItsEntry) {
  // The base case returns x as it is where x <= 0: for an unsigned x only 0, which every call passes, so the
  // summary's x after the call is 0. Without the range at the entry it would be any x <= 0, and no equality.
  const Program summarized = Parse("t.c", R"(extern unsigned int __VERIFIER_nondet_uint(void);
    extern void reach_error(void);
    unsigned int x;
    void down(void) { if (x > 0) { x--; down(); } }
    int main() { x = __VERIFIER_nondet_uint(); down(); if (x != 0) reach_error(); return 0; })",
                                   DataModel::kLP64, true);
  Inferred in(summarized);
  const int summary = in.PredWith("down_result");
  ASSERT_GE(summary, 0);
  const std::vector<std::string>& vars = in.sys.pred_vars[summary];
  ASSERT_EQ(vars.back(), "x") << "the global's value after the call comes last";
  EXPECT_TRUE(in.Implies(summary, in.Args(summary).back() == 0));
  EXPECT_TRUE(in.Inductive());
}

}  // namespace
}  // namespace fusion
