// Counterexamples from Spacer (fusion/counterexample.h): the inputs along its derivation drive the original
// program to the error, also from a symbolic encoding of a half of the wrap-around split, and with the cells
// of uninitialised arrays, and from a fused program, site by site, and after a Solve from the clauses it gave
// Spacer; none for a safe program; and the verifier's `false` from them where the concrete search alone finds
// nothing. And the concrete search itself past many assumes, and its `true` for a program that reads nothing.
#include <gtest/gtest.h>
#include <z3++.h>

#include <regex>
#include <string>
#include <vector>

#include "fusion/counterexample.h"
#include "fusion/fuse.h"
#include "fusion/horn.h"
#include "fusion/solver.h"
#include "fusion/verifier.h"
#include "fusion/wrap_checks.h"
#include "test_util.h"

namespace fusion {
namespace {

using testing::ParseText;

// An error behind two exact values, one of them changed by a loop: the concrete search draws small and
// extreme values and never meets them.
constexpr const char* kDeep = R"(int main() {
    int x = __VERIFIER_nondet_int();
    int y = __VERIFIER_nondet_int();
    int i = 0;
    while (i < 10) { i++; y = y + 2; }
    if (x == 123456 && y == 77) reach_error();
    return 0; })";

// The values Spacer's counterexample on prog's clauses (as encoded with these options) gives, or nothing.
std::optional<CounterexampleValues> Values(const Program& prog, bool symbolic = false,
                                           size_t merge_above_paths = kMergeAbovePaths) {
  z3::context ctx;
  const HornSystem sys = EncodeHorn(prog, ctx, 60, symbolic, symbolic, merge_above_paths);
  return CounterexampleInputs(sys, ctx, Portfolio().front().params).values;
}

// The interpreter's outcome on the original program with these inputs (0 past their end; each fits 64 bits).
Outcome RunOn(const Program& prog, const std::vector<Int128>& inputs) {
  return testing::InterpretOn(prog, {inputs.begin(), inputs.end()});
}

// The scalar inputs of Spacer's counterexample, or nothing.
std::optional<std::vector<Int128>> Inputs(const Program& prog, bool symbolic = false,
                                          size_t merge_above_paths = kMergeAbovePaths) {
  const std::optional<CounterexampleValues> v = Values(prog, symbolic, merge_above_paths);
  if (!v) return std::nullopt;
  return v->inputs;
}

TEST(Counterexample, ItsInputsDriveTheProgramToTheError) {
  const Program p = ParseText(kDeep);
  const auto inputs = Inputs(p);
  ASSERT_TRUE(inputs);
  // x and y, the only values the program reads; y is 77 after ten steps of 2.
  ASSERT_EQ(inputs->size(), 2u);
  EXPECT_EQ((*inputs)[0], 123456);
  EXPECT_EQ((*inputs)[1], 57);
  EXPECT_EQ(RunOn(p, *inputs), Outcome::kError);
}

TEST(Counterexample, FromMergedPathsOnlyTheInputsOfTheBranchesTakenCount) {
  // With the paths merged (EncodeHorn), each iteration's clause has an input for both branches; the run takes
  // y's in the first and x's in the second, and only those two may be given, in that order.
  const Program p = ParseText(R"(int main() {
      int n = 0;
      while (n < 3) {
        if (n == 1) { int x = __VERIFIER_nondet_int(); if (x == 123456) reach_error(); }
        else { int y = __VERIFIER_nondet_int(); if (y == 5) n = 7; }
        n++;
      }
      return 0; })");
  const auto inputs = Inputs(p, false, 0);
  ASSERT_TRUE(inputs);
  ASSERT_EQ(inputs->size(), 2u);
  EXPECT_NE((*inputs)[0], 5);
  EXPECT_EQ((*inputs)[1], 123456);
  EXPECT_EQ(RunOn(p, *inputs), Outcome::kError);
}

TEST(Counterexample, FromTheSymbolicHalfTheParametersTakeTheirRealValues) {
  // The under-no-wrap half, as the verifier encodes it: UINT_MAX and 1000005 are parameters of the clauses;
  // the counterexample must be one at their real values to drive the original program.
  const Program p = ParseText(R"(int main() {
      unsigned int x = __VERIFIER_nondet_uint();
      unsigned int y = 0;
      while (y < 5) { y++; x = x + 3u; }
      if (x == 1000005u) reach_error();
      return 0; })");
  WrapSplit split;
  ASSERT_TRUE(SplitWrapChecks(p, split));
  const auto inputs = Inputs(split.under_no_wrap, true);
  ASSERT_TRUE(inputs);
  ASSERT_EQ(inputs->size(), 1u);
  EXPECT_EQ((*inputs)[0], 999990);
  EXPECT_EQ(RunOn(p, *inputs), Outcome::kError);
}

TEST(Counterexample, UninitialisedArraysComeWithTheirCells) {
  // The interpreter draws a cell when it first reads it; the counterexample gives the array's contents. The
  // verifier's candidates read a[3] and a[5] as scalars (ScalarizeConstantCells): their values go back to
  // the cells for the replay.
  const Program p = ParseText(R"(int main() {
      int a[10];
      if (a[3] == 777 && a[5] == -4) reach_error();
      return 0; })");
  const auto values = Values(p);
  ASSERT_TRUE(values);
  EXPECT_TRUE(values->inputs.empty());
  ASSERT_EQ(values->arrays.count("a"), 1u);
  const ArrayValue& a = values->arrays.at("a");
  const auto cell = [&](long long i) { return a.cells.count(i) ? a.cells.at(i) : a.otherwise; };
  EXPECT_EQ(cell(3), 777);
  EXPECT_EQ(cell(5), -4);
  const Verdict v = Verify(p, VerifyOptions{30, true});
  EXPECT_EQ(v.verdict, "false") << v.reason;
  EXPECT_NE(v.solved_by.find("+ replay"), std::string::npos) << v.solved_by;
  // The cells read, in the order the run read them, are the reported inputs: they replay as such.
  EXPECT_EQ(v.inputs, (std::vector<Int128>{777, -4}));
  EXPECT_EQ(RunOn(p, v.inputs), Outcome::kError);
}

TEST(Counterexample, FromAFusedProgramTheyReplaySiteBySite) {
  // Each loop reads one value an iteration, which must be exact; fused, the reads alternate between the
  // loops, so the values in the fused run's order are not the original's, but each site's are.
  const Program p = ParseText(R"(int main() {
      int i = 0, j = 0, s = 0, t = 0;
      while (i < 3) { if (__VERIFIER_nondet_int() != 123457) s = 1; i++; }
      while (j < 3) { if (__VERIFIER_nondet_int() != -98765) t = 1; j++; }
      if (s == 0 && t == 0) reach_error();
      return 0; })");
  const std::vector<Variant> variants = FusedVariants(p);
  ASSERT_FALSE(variants.empty());
  for (const Variant& fused : variants) {
    SCOPED_TRACE(fused.name);
    const auto values = Values(fused.prog);
    ASSERT_TRUE(values);
    ASSERT_EQ(values->sites.size(), values->inputs.size());
    EXPECT_NE(RunOn(p, values->inputs), Outcome::kError);
    const RunResult r = ReplayCounterexample(p, *values, 10'000, 10);
    EXPECT_EQ(r.outcome, Outcome::kError);
    EXPECT_EQ(r.inputs, (std::vector<Int128>{123457, 123457, 123457, -98765, -98765, -98765}));
  }
}

TEST(Counterexample, AnErrorBeforeAnyLoopHeadHasOne) {
  // Spacer names no rule along such a trace; the error clause from the entry is the trace. (The error at no
  // constant of the program nor next to one, which the concrete search would draw first.)
  const Program p = ParseText(R"(int main() {
      int x = __VERIFIER_nondet_int();
      if (x - 6 == 123450) reach_error();
      return 0; })");
  const auto values = Values(p);
  ASSERT_TRUE(values);
  EXPECT_EQ(values->inputs, (std::vector<Int128>{123456}));
  const Verdict v = Verify(p, VerifyOptions{30, true});
  EXPECT_EQ(v.verdict, "false") << v.reason;
  EXPECT_NE(v.solved_by.find("+ replay"), std::string::npos) << v.solved_by;
}

TEST(Counterexample, ARemainderOfAWrappedNarrowValueGivesValues) {
  // The trace's query wraps x into a short and the product into 32 bits, then takes a remainder: Z3's default
  // arithmetic solver was still searching after 10 s (the verdict stayed unknown), the older one answers at
  // once. 5 s is far more than it takes.
  const Program p = ParseText(R"(int main() {
      int x = __VERIFIER_nondet_int();
      short s = x;
      unsigned u = s * 15u;
      if (u % 65536u == 12648u) reach_error();
      return 0; })");
  HornProblem problem(p, 10, false, true);
  ASSERT_EQ(problem.Solve(Portfolio()[1], 10).status, SolveStatus::kUnsafe);
  const auto values = problem.Counterexample(Portfolio()[1], 5).values;
  ASSERT_TRUE(values);
  ASSERT_EQ(values->inputs.size(), 1u);
  EXPECT_EQ(RunOn(p, values->inputs), Outcome::kError);
}

TEST(Counterexample, AfterASolveWithAffineInvariantsTheyComeFromTheClausesItSolved) {
  // The loop keeps j == 2 * i, an affine invariant that the Solve conjoins to the clauses it gives Spacer;
  // the counterexample's search runs on those clauses (without them, on ntdrivers' floppy_simpl3-1 it did not
  // find again in 12 s the error the Solve had found in 4), its derivation read back clause by clause.
  const Program p = ParseText(R"(int main() {
      int x = __VERIFIER_nondet_int();
      int n = __VERIFIER_nondet_int();
      int i = 0, j = 0;
      while (i < n && i < 50) { i++; j += 2; }
      if (j == 8 && x == 4242) reach_error();
      return 0; })");
  HornProblem problem(p, 10);
  ASSERT_EQ(problem.Solve(Portfolio().front(), 10, 0, 0, true).status, SolveStatus::kUnsafe);
  const auto values = problem.Counterexample(Portfolio().front(), 5).values;
  ASSERT_TRUE(values);
  ASSERT_EQ(values->inputs.size(), 2u);
  EXPECT_EQ(values->inputs[0], 4242);
  EXPECT_EQ(RunOn(p, values->inputs), Outcome::kError);
}

TEST(Counterexample, WithoutValuesTheSearchSaysWhy) {
  const Program p = ParseText(kDeep);
  z3::context ctx;
  const HornSystem sys = EncodeHorn(p, ctx, 60, false, false);
  const CounterexampleSearch search = CounterexampleInputs(sys, ctx, Portfolio().front().params, 3);
  EXPECT_FALSE(search.values);
  EXPECT_NE(search.why_none.find("steps, more than the 3 unrolled"), std::string::npos) << search.why_none;
}

TEST(Counterexample, AnErrorOfOtherValuesOfTheSymbolicConstantsSaysSo) {
  // Encoded with 1000000 symbolic (any value past a threshold), x == 1000000 after the loop wherever the
  // constant is a multiple of 3; at its real value x ends at 1000002.
  const Program p = ParseText(R"(int main() {
      int n = __VERIFIER_nondet_int();
      int x = 0;
      while (x < 1000000) { x += 3; }
      if (x == 1000000 && n == 5) reach_error();
      return 0; })");
  HornProblem problem(p, 10, false, true);
  ASSERT_EQ(problem.Solve(Portfolio().back(), 10).status, SolveStatus::kUnsafe);
  const CounterexampleSearch search = problem.Counterexample(Portfolio().back(), 10);
  EXPECT_FALSE(search.values);
  EXPECT_NE(search.why_none.find("holds for other values of the symbolic constants"), std::string::npos)
      << search.why_none;
}

TEST(Counterexample, AnErrorNoRunConfirmsSaysHowTheReplayEnded) {
  // The clauses bound 100 / x by linear facts and reach the error with x == 0, where a run divides by zero.
  const Program p = ParseText(R"(int main() {
      int x = __VERIFIER_nondet_int();
      int y = 100 / x;
      if (x == 0) reach_error();
      return y; })");
  const Verdict v = Verify(p, VerifyOptions{10, true});
  EXPECT_EQ(v.verdict, "unknown") << v.reason;
  EXPECT_NE(v.reason.find("no concrete run confirmed it (its counterexample's run of the original program ends "
                          "undefined)"),
            std::string::npos)
      << v.reason;
}

TEST(Counterexample, ASafeProgramHasNone) {
  EXPECT_FALSE(Values(ParseText(R"(int main() {
      int x = __VERIFIER_nondet_int();
      int i = 0;
      while (i < 10) { i++; }
      if (x == 123456 && i != 10) reach_error();
      return 0; })")));
}

TEST(Counterexample, TheVerifierRefutesWithThemWhereTheSearchFindsNothing) {
  const Program p = ParseText(kDeep);
  EXPECT_EQ(FindCounterexample(p, 1.0, 10.0, 1).kind, RunSearch::kNothing);
  const Verdict v = Verify(p, VerifyOptions{30, true});
  EXPECT_EQ(v.verdict, "false") << v.reason;
  EXPECT_NE(v.solved_by.find("+ replay"), std::string::npos) << v.solved_by;
  ASSERT_EQ(v.inputs.size(), 2u);
  EXPECT_EQ(RunOn(p, v.inputs), Outcome::kError);
}

TEST(ConcreteSearch, PassesManyAssumesOneValueAtATime) {
  // Twelve values, each assumed into {0, 1} as soon as it is read; the error needs two ones. A run that draws
  // all twelve at random passes every assume only with zeros; keeping the values before the assume that
  // blocked a run and drawing the last anew gets past them.
  const Program p = ParseText(R"(int main() {
      int i = 0, s = 0, x = 0;
      while (i < 12) { x = __VERIFIER_nondet_int(); __VERIFIER_assume(x >= 0 && x <= 1); s = s + x; i++; }
      if (s >= 2) reach_error();
      return 0; })");
  for (unsigned seed = 1; seed <= 3; ++seed) {
    const RunSearch found = FindCounterexample(p, 10.0, 60.0, seed);
    ASSERT_EQ(found.kind, RunSearch::kError) << "seed " << seed;
    ASSERT_EQ(found.inputs.size(), 12u);
    EXPECT_EQ(RunOn(p, found.inputs), Outcome::kError);
  }
}

// After every seventh run one draws the program's constants and their neighbours: an input at a comparison's edge,
// which random draws rarely meet (recursive's McCarthy91-1: its error at x = 102, the edge of `x > 102`).
TEST(ConcreteSearch, DrawsTheProgramsConstantsAndTheirNeighbours) {
  const auto search = [](const std::string& condition) {
    return FindCounterexample(ParseText("int main() { int x = __VERIFIER_nondet_int(); if (" + condition +
                                        ") reach_error(); return 0; }"),
                              2.0, 60.0, 1);
  };
  for (const std::string condition : {"x == 12345", "x > 12344 && x < 12346", "x - 1 == 12345"}) {
    const RunSearch found = search(condition);
    ASSERT_EQ(found.kind, RunSearch::kError) << condition;
    EXPECT_EQ(found.inputs.size(), 1u);
  }
  // 12345 is no constant of this one, nor next to one: no draw meets it.
  EXPECT_EQ(search("x - 5 == 12340").kind, RunSearch::kNothing);
}

// A program that reads no nondeterministic value has one run: when it ends without an error, so does every
// run. 100 000 steps of x = 7x mod 1000003 are beyond what Spacer unrolls or summarises in a few seconds.
TEST(ConcreteSearch, AProgramThatReadsNothingHasOneRun) {
  const auto search = [](const std::string& text) { return FindCounterexample(ParseText(text), 10.0, 60.0, 1).kind; };
  const std::string power = R"(int main() {
      int x = 1, i = 0;
      while (i < 100000) { x = x * 7 % 1000003; i++; }
      if (x != RESULT) reach_error();
      return 0; })";
  const auto with = [&](const std::string& result) {
    return std::regex_replace(power, std::regex("RESULT"), result);
  };
  EXPECT_EQ(search(with("960130")), RunSearch::kOnlyRun);
  EXPECT_EQ(search(with("960131")), RunSearch::kError);
  const Verdict proved = Verify(ParseText(with("960130")), VerifyOptions{30, true});
  EXPECT_EQ(proved.verdict, "true") << proved.reason;
  EXPECT_EQ(proved.solved_by, "interpreter (the only run)");
  // A run that stops at abort() reaches no error either; unsigned arithmetic wraps as defined.
  EXPECT_EQ(search("int main() { int x = 3; if (x > 2) abort(); reach_error(); return 0; }"), RunSearch::kOnlyRun);
  EXPECT_EQ(search("int main() { unsigned u = 4294967295u; u = u + 1; if (u != 0) reach_error(); return 0; }"),
            RunSearch::kOnlyRun);
  // An uninitialised variable is a nondeterministic value: one run proves nothing, and a run that draws the
  // program's constant for it reaches the error.
  EXPECT_EQ(search("int main() { int y; if (y == 123456) reach_error(); return 0; }"), RunSearch::kError);
  // A signed overflow is undefined behaviour: the run is no proof (it computes on past the range, and 2^31 is
  // not 0, but a compiled program may well make it 0).
  EXPECT_EQ(search("int main() { int x = 2147483647; x = x + 1; if (x == 0) reach_error(); return 0; }"),
            RunSearch::kNothing);
  EXPECT_EQ(search("int main() { int x = -2147483647 - 1; x = -x; if (x < 0) reach_error(); return 0; }"),
            RunSearch::kNothing);
  EXPECT_EQ(search("int main() { int x = -2147483647 - 1; int y = x / -1; if (y < 0) reach_error(); return 0; }"),
            RunSearch::kNothing);
  EXPECT_EQ(search("int main() { long long x = 3037000500LL; x = x * x; if (x < 0) reach_error(); return 0; }"),
            RunSearch::kNothing);
}

}  // namespace
}  // namespace fusion
