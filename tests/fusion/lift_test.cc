// Unsigned values lifted to the integers (fusion/lift.h): what is lifted and from where, that the lifted
// program runs like the original where the equalities hold exactly, that it is stronger where they hold only
// modulo 2^32, and that the verifier proves in-de42 with it and never a buggy variant.
#include <gtest/gtest.h>

#include "fusion/lift.h"
#include "fusion/printer.h"
#include "fusion/verifier.h"
#include "fusion/wrap_checks.h"
#include "test_util.h"

namespace fusion {
namespace {

using testing::InterpretOn;
using testing::ParseFilled;
using testing::ParseText;
using testing::SolveAny;

// loops-crafted-1/in-de42.c with its assertion as a parameter: z ends as 2n, which passes UINT_MAX for
// n > UINT_MAX / 2.
constexpr const char* kInDe42 = R"(int main() {
    unsigned int n = __VERIFIER_nondet_uint();
    unsigned int x = n, y = 0, z;
    while (x > 0) { x--; y++; }
    z = y;
    while (z > 0) { x++; z--; }
    while (y > 0) { y--; z++; }
    while (x > 0) { x--; z++; }
    __VERIFIER_assert(%s);
    return 0; })";

// kInDe42 with the assertion cond.
Program InDe42(const char* cond) { return ParseFilled(kInDe42, cond); }

TEST(Lift, CarriesAValueAsAnIntegerAfterItsLastOrderedUse) {
  const Program p = InDe42("z == 2*n");
  std::string why_not;
  const std::optional<Lifted> lifted = LiftUnsigned(p, why_not);
  ASSERT_TRUE(lifted) << why_not;
  // z is compared with 0 in the second loop and only counted up after it; x and y are compared to the end.
  EXPECT_EQ(lifted->line,
            "z lifted to the integers from line 7 (asserted equalities over lifted values checked without modulo "
            "2^32, which is stronger)");
  EXPECT_EQ(lifted->prog.VarNamed("z_int").type, kWide);
  const std::string c = PrintProgram(lifted->prog);
  EXPECT_NE(c.find("z_int = ((__int128)z);\n  for (; (y > ((unsigned int)0)); ) {"), std::string::npos) << c;
  EXPECT_NE(c.find("z_int = (z_int + 1LL);"), std::string::npos) << c;
  EXPECT_NE(c.find("__VERIFIER_assert((z_int == (2LL * ((__int128)n))));"), std::string::npos) << c;
  EXPECT_NE(c.find("for (; (z > ((unsigned int)0)); ) {"), std::string::npos) << c;
}

// A loop that counts a up by 3 and moves b by a back and forth, then checks cond.
Program Transfers(const char* cond) {
  return ParseFilled(R"(int main() {
      unsigned int n = __VERIFIER_nondet_uint();
      unsigned int i = 0, a = 0, b = 0;
      while (i < n) { i++; a = a + 3u; b = b + a; b = b - a; b = b + 1u; }
      __VERIFIER_assert(%s);
      return 0; })", cond);
}

TEST(Lift, LiftsValuesThatFeedEachOther) {
  std::string why_not;
  // Both asserted: a is lifted too, and b's updates read its integer.
  const std::optional<Lifted> both = LiftUnsigned(Transfers("a == 3u * n && b == n"), why_not);
  ASSERT_TRUE(both) << why_not;
  const std::string c = PrintProgram(both->prog);
  EXPECT_NE(c.find("b_int = (b_int + a_int);"), std::string::npos) << c;
  EXPECT_NE(c.find("__VERIFIER_assert(((a_int == (3LL * ((__int128)n))) && (b_int == ((__int128)n))));"),
            std::string::npos)
      << c;
  EXPECT_EQ(both->line.rfind("a lifted to the integers; b lifted to the integers (", 0), 0u)
      << both->line;
  // Only b asserted: a stays as it is, a value b's updates convert.
  const std::optional<Lifted> one = LiftUnsigned(Transfers("b == n"), why_not);
  ASSERT_TRUE(one) << why_not;
  const std::string d = PrintProgram(one->prog);
  EXPECT_NE(d.find("b_int = (b_int + ((__int128)a));"), std::string::npos) << d;
  EXPECT_EQ(d.find("a_int"), std::string::npos) << d;
  // a compared after the loop: b, whose updates read it, is lifted without it.
  const std::optional<Lifted> ordered = LiftUnsigned(Transfers("a >= i && b == n"), why_not);
  ASSERT_TRUE(ordered) << why_not;
  EXPECT_EQ(PrintProgram(ordered->prog).find("a_int"), std::string::npos);
  for (const char* cond : {"a == 3u * n && b == n", "b == n", "a == 3u * n && b == n + 1u"}) {
    const Program p = Transfers(cond);
    const std::optional<Lifted> lifted = LiftUnsigned(p, why_not);
    for (long long n = 0; n <= 20; ++n) {
      EXPECT_EQ(OutcomeName(InterpretOn(p, {n})), OutcomeName(InterpretOn(lifted->prog, {n}))) << cond << " " << n;
    }
  }
  EXPECT_EQ(Verify(Transfers("a == 3u * n && b == n"), VerifyOptions{60, true}).verdict, "true");
}

TEST(Lift, ReadsAnErrorCallUnderAnIfAsTheCheckItIs) {
  const Program p = ParseText(R"(int main() {
      unsigned int n = __VERIFIER_nondet_uint(); unsigned int i = 0, z = 0;
      while (i < n) { i++; z = z + 3u; }
      while (i > 0) { i--; z = z - 1u; }
      if (!(z == 2u * n)) { reach_error(); }
      if (z != 2u * n || i != 0u) { reach_error(); abort(); }
      return 0; })");
  std::string why_not;
  const std::optional<Lifted> lifted = LiftUnsigned(p, why_not);
  ASSERT_TRUE(lifted) << why_not;
  const std::string c = PrintProgram(lifted->prog);
  EXPECT_NE(c.find("__VERIFIER_assert((z_int == (2LL * ((__int128)n))));\n"
                   "  __VERIFIER_assert(((z_int == (2LL * ((__int128)n))) && (i == 0u)));"),
            std::string::npos)
      << c;
  EXPECT_EQ(Verify(p, VerifyOptions{60, true}).verdict, "true");
  // An else branch, or a then branch that does more than fail first, is no check.
  EXPECT_FALSE(LiftUnsigned(ParseText(R"(int main() {
      unsigned int z = __VERIFIER_nondet_uint();
      z = z + 1u;
      if (z != 0u) { reach_error(); } else { z = 1u; }
      return 0; })"),
                            why_not));
  EXPECT_FALSE(LiftUnsigned(ParseText(R"(int main() {
      unsigned int z = __VERIFIER_nondet_uint(); unsigned int y = 0u;
      z = z + 1u;
      if (z != 0u) { y = 1u; reach_error(); }
      return 0; })"),
                            why_not));
}

TEST(Lift, RunsLikeTheOriginalWhereTheEqualityIsExact) {
  std::string why_not;
  for (const char* cond : {"z == 2*n", "z == 2*n + 1", "z - n == n", "z == n + x"}) {
    const Program p = InDe42(cond);
    const std::optional<Lifted> lifted = LiftUnsigned(p, why_not);
    ASSERT_TRUE(lifted) << cond << ": " << why_not;
    // Small n only: the interpreter counts the loops' steps.
    for (long long n = 0; n <= 40; ++n) {
      EXPECT_EQ(OutcomeName(InterpretOn(p, {n})), OutcomeName(InterpretOn(lifted->prog, {n}))) << cond << " " << n;
    }
  }
}

TEST(Lift, IsStrongerWhereTheEqualityHoldsOnlyModulo) {
  // z wraps to 0: the original holds, the lifted z is 2^32.
  const Program p = ParseText(R"(int main() {
      unsigned int z = __VERIFIER_nondet_uint();
      unsigned int i = 0;
      __VERIFIER_assume(z == 4294967295u);
      while (i < 1) { i++; }
      z = z + 1u;
      __VERIFIER_assert(z == 0u);
      return 0; })");
  std::string why_not;
  const std::optional<Lifted> lifted = LiftUnsigned(p, why_not);
  ASSERT_TRUE(lifted) << why_not;
  EXPECT_EQ(OutcomeName(InterpretOn(p, {4294967295LL})), "finished");
  EXPECT_EQ(OutcomeName(InterpretOn(lifted->prog, {4294967295LL})), "error");
  // Its error is no reason to answer false, and the program is proved by the other candidates.
  EXPECT_EQ(Verify(p, VerifyOptions{30, true}).verdict, "true");
}

TEST(Lift, InterpretsLiftedValuesPastInt128WithoutOverflow) {
  // z squared 12 times leaves any Int128 for z > 1: the interpreter computes lifted values modulo 2^126,
  // congruent modulo 2^32 still, so that each run that fails in the original fails lifted (under the sanitizers,
  // an overflow here would be reported).
  const Program p = ParseText(R"(int main() {
      unsigned int z = __VERIFIER_nondet_uint(); unsigned int i = 0;
      while (i < 12u) { i++; z = z * z + 1u; }
      __VERIFIER_assert(z == 2u);
      return 0; })");
  std::string why_not;
  const std::optional<Lifted> lifted = LiftUnsigned(p, why_not);
  ASSERT_TRUE(lifted) << why_not;
  for (long long z : {0LL, 1LL, 2LL, 3LL, 4294967295LL}) {
    const std::string original = OutcomeName(InterpretOn(p, {z}));
    EXPECT_EQ(original, "error") << z;
    EXPECT_EQ(OutcomeName(InterpretOn(lifted->prog, {z})), original) << z;
  }
}

TEST(Lift, RefusesValuesThatAnOrderOrABranchReads) {
  std::string why_not;
  // z compared after its last update.
  EXPECT_FALSE(LiftUnsigned(InDe42("z <= 2*n"), why_not));
  EXPECT_EQ(why_not,
            "no unsigned int variable is only updated by + - * and read in asserted equalities after its last "
            "other use");
  // An inequality: lifted values that differ may be equal modulo 2^32.
  EXPECT_FALSE(LiftUnsigned(InDe42("z != 2*n + 1"), why_not));
  EXPECT_FALSE(LiftUnsigned(InDe42("!(z == 2*n + 1)"), why_not));
  // A division does not commute with the modulo.
  EXPECT_FALSE(LiftUnsigned(InDe42("z / 2 == n"), why_not));
  // An equality under a branch decides control flow.
  EXPECT_FALSE(LiftUnsigned(ParseText(R"(int main() {
      unsigned int z = __VERIFIER_nondet_uint();
      z = z + 1u;
      if (z == 0u) { __VERIFIER_assert(0); }
      __VERIFIER_assert(z == z);
      return 0; })"),
                            why_not));
  // No update before the equality: the value is the original's anyway.
  EXPECT_FALSE(LiftUnsigned(ParseText(R"(int main() {
      unsigned int z = __VERIFIER_nondet_uint();
      __VERIFIER_assert(z == z);
      return 0; })"),
                            why_not));
}

TEST(Lift, ProvesInDe42) {
  // 60 s: the proof takes about 2.5 s, which a loaded machine stretches.
  const Verdict v = Verify(InDe42("z == 2*n"), VerifyOptions{60, true});
  EXPECT_EQ(v.verdict, "true") << v.reason;
  EXPECT_NE(v.solved_by.find("lifted"), std::string::npos) << v.solved_by;
}

TEST(Lift, ProvesTheLiftedProgramWholeWhereNothingElseIsUnsigned) {
  // z wraps around for n > UINT_MAX / 3, so the original's no-wrap half is false; lifted, nothing unsigned is
  // computed any more, and the lifted program itself is a candidate.
  const Program p = ParseText(R"(int main() {
      int n = __VERIFIER_nondet_int();
      int i = 0;
      unsigned int z = 0u;
      if (n < 0) return 0;
      while (i < n) { i++; z = z + 3u; }
      __VERIFIER_assert(z == 3u * (unsigned int)n);
      return 0; })");
  std::string why_not;
  const std::optional<Lifted> lifted = LiftUnsigned(p, why_not);
  ASSERT_TRUE(lifted) << why_not;
  WrapSplit split;
  EXPECT_FALSE(SplitWrapChecks(lifted->prog, split));
  const Verdict v = Verify(p, VerifyOptions{60, true});
  EXPECT_EQ(v.verdict, "true") << v.reason;
  EXPECT_EQ(v.solved_by.rfind("lifted", 0), 0u) << v.solved_by;
  EXPECT_EQ(v.reason, "invariants found and checked inductive") << v.solved_by;
}

TEST(Lift, NeverProvesABuggyVariant) {
  for (const char* cond : {"z == 2*n + 1", "z == n", "z + 1 == 2*n", "z == 2*n && x == 1"}) {
    const Program p = InDe42(cond);
    EXPECT_NE(Verify(p, VerifyOptions{5, true}).verdict, "true") << cond;
    // The concrete search refutes them at once; neither half of the lifted program's split may be proved
    // where the property is false, nor the lifted program itself.
    std::string why_not;
    const std::optional<Lifted> lifted = LiftUnsigned(p, why_not);
    ASSERT_TRUE(lifted) << cond << ": " << why_not;
    EXPECT_NE(SolveAny(lifted->prog, 3), SolveStatus::kSafe) << cond;
    WrapSplit split;
    ASSERT_TRUE(SplitWrapChecks(lifted->prog, split));
    EXPECT_NE(SolveAny(split.under_no_wrap, 3), SolveStatus::kSafe) << cond;
  }
}

}  // namespace
}  // namespace fusion
