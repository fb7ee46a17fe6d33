// Each transformation on small programs, including the cases where a naive fusion would be unsound.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/fork_server.h"
#include "fusion/aligned.h"
#include "fusion/cells.h"
#include "fusion/collapse.h"
#include "fusion/fuse.h"
#include "fusion/interpreter.h"
#include "fusion/loop_ir.h"
#include "fusion/printer.h"
#include "fusion/rate.h"
#include "fusion/recurrence.h"
#include "fusion/reverse.h"
#include "fusion/split.h"
#include "fusion/unroll.h"
#include "fusion/horn.h"
#include "fusion/normalize.h"
#include "fusion/verifier.h"
#include "fusion/wrap_checks.h"
#include "test_util.h"

namespace fusion {
namespace {

using testing::InterpretOn;
using testing::ParseFilled;
using testing::ParseText;
using testing::SolveAny;

// Number of loops at any depth.
int CountLoops(const StmtPtr& s) {
  if (!s) return 0;
  int n = s->kind == StmtKind::kLoop && !(s->cond->kind == ExprKind::kConst && s->cond->value == 0) ? 1 : 0;
  for (const auto& b : s->body) n += CountLoops(b);
  return n;
}

// The same outcome for the original and the transformed program on a range of inputs (for
// transformations that add no nondeterministic values, so that both read the same inputs).
void ExpectSameBehaviour(const Program& a, const Program& b) {
  for (long long n = -1; n <= 12; ++n) {
    const std::vector<long long> in = {n, 3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9};
    EXPECT_EQ(OutcomeName(InterpretOn(a, in)), OutcomeName(InterpretOn(b, in))) << "n = " << n;
  }
}

// Transforms p under mode and checks the result: the number of transformations applied, of loops left,
// the same behaviour as p on a range of inputs, and what Spacer answers.
void ExpectTransformed(const Program& p, FusionMode mode, size_t transformations, int loops, SolveStatus status) {
  const Variant v = Transform(p, mode);
  EXPECT_EQ(v.transformations.size(), transformations);
  EXPECT_EQ(CountLoops(v.prog.body), loops);
  ExpectSameBehaviour(p, v.prog);
  EXPECT_EQ(SolveAny(v.prog), status);
}

TEST(AlignedFusion, FusesAChainOfThreeLoopsIntoOne) {
  const Program p = ParseText(R"(int main() {
    int n = __VERIFIER_nondet_int(); if (n < 0 || n > 100) return 0;
    int a[n]; int b[n];
    for (int i = 0; i < n; i++) a[i] = __VERIFIER_nondet_int();
    for (int i = 0; i < n; i++) b[i] = a[i] + 1;
    for (int i = 0; i < n; i++) __VERIFIER_assert(b[i] == a[i] + 1);
    return 0; })");
  ExpectTransformed(p, FusionMode::kAligned, 2, 1, SolveStatus::kSafe);
}

TEST(AlignedFusion, RefusesWhenTheSecondLoopReadsACellTheFirstWritesLater) {
  // Fused naively, iteration i would read a[i + 1] before the first loop writes it: a false alarm.
  const Program p = ParseText(R"(int main() {
    int n = __VERIFIER_nondet_int(); if (n < 0 || n > 100) return 0;
    int a[n + 1]; a[n] = n; int i;
    for (i = 0; i < n; i++) a[i] = i;
    for (i = 0; i < n; i++) __VERIFIER_assert(a[i + 1] == i + 1);
    return 0; })");
  EXPECT_TRUE(Transform(p, FusionMode::kAligned).transformations.empty());
  EXPECT_TRUE(Transform(p, FusionMode::kAll).transformations.empty());  // no guess of a whole array either
}

TEST(AlignedFusion, KeepsABugAndItsBehaviour) {
  const Program p = ParseText(R"(int main() {
    int n = __VERIFIER_nondet_int(); if (n < 0 || n > 100) return 0;
    int a[n];
    for (int i = 0; i < n; i++) a[i] = 42;
    for (int i = 0; i < n; i++) __VERIFIER_assert(a[i] == 43);
    return 0; })");
  const Variant v = Transform(p, FusionMode::kAligned);
  ASSERT_EQ(v.transformations.size(), 1u);
  ExpectSameBehaviour(p, v.prog);
  EXPECT_EQ(SolveAny(v.prog), SolveStatus::kUnsafe);
}

TEST(AlignedFusion, EarlierCellsWhereEveryReadKeepsItsValue) {
  // The second loop reads a cell the first finished an iteration before: fused with earlier_cells, not without.
  const std::string fill = R"(int main() {
    int n = __VERIFIER_nondet_int(); if (n < 1 || n > 100) return 0;
    int a[n + 1]; int b[n + 1]; int i; a[0] = 0;
    for (i = 1; i < n; i++) a[i] = a[i - 1] + 2;
    for (i = 1; i < n; i++) b[i] = a[i - 1] + 1;
    for (i = 1; i < n; i++) __VERIFIER_assert(b[i] == 2 * i - 1);
    return 0; })";
  const Program p = ParseText(fill);
  std::vector<std::string> lines;
  AlignedFusion(p.body, lines);
  EXPECT_EQ(lines, std::vector<std::string>{"aligned fusion of the loops at lines 5 and 6"});  // in step only
  lines.clear();
  Program q = p;
  q.body = AlignedFusion(p.body, lines, true);
  EXPECT_EQ(lines, (std::vector<std::string>{"aligned fusion of the loops at lines 4 and 5",
                                             "aligned fusion of the loops at lines 4 and 6"}));
  ExpectSameBehaviour(p, q);
  EXPECT_EQ(SolveAny(q), SolveStatus::kSafe);
  // A cell the first loop writes later (a[i + 1]), or an array both write (a[i + 1] = 5: fused, the first
  // loop's a[i - 1] would read the 5 instead of its own value): not fused.
  for (const char* second : {"b[i] = a[i + 1] + 1;", "a[i + 1] = 5;"}) {
    std::string text = fill;
    text.replace(text.find("b[i] = a[i - 1] + 1;"), 20, second);
    lines.clear();
    AlignedFusion(ParseText(text).body, lines, true);
    for (const auto& l : lines) EXPECT_EQ(l.find("lines 4 and"), std::string::npos) << second << ": " << l;
  }
}

// array-fpi's recurrences (recurrence.h): `a[i] = a[i-1] + 4` and `b[i] = b[i-1] + a[i-1]` from 1 with
// a[0] = 4 and b[0] = 1 set before (eqn2), or from 0 with the first cells set inside (`if (i == 0)`, ifeqn),
// and the closed form asserted in a loop from 0.
Program EqnProgram(const std::string& closed_form, bool if_first) {
  const std::string fills = if_first ? R"(
    for (i = 0; i < n; i++) { if (i == 0) { a[0] = 4; } else { a[i] = a[i - 1] + 4; } }
    for (i = 0; i < n; i++) { if (i == 0) { b[0] = 1; } else { b[i] = b[i - 1] + a[i - 1]; } })"
                                     : R"(
    a[0] = 4; b[0] = 1;
    for (i = 1; i < n; i++) a[i] = a[i - 1] + 4;
    for (i = 1; i < n; i++) b[i] = b[i - 1] + a[i - 1];)";
  return ParseText(R"(int main() {
    int n = __VERIFIER_nondet_int(); if (n <= 0 || n > 100000) return 0;
    long long i; long long *a = malloc(sizeof(long long) * n); long long *b = malloc(sizeof(long long) * n);)" +
                   fills + "\n    for (i = 0; i < n; i++) __VERIFIER_assert(b[i] == " + closed_form + ");\n" +
                   "    return 0; }");
}

TEST(Recurrences, ProveThePolynomialClosedForm) {
  for (bool if_first : {false, true}) {
    const Program p = EqnProgram("2 * i * i + 2 * i + 1", if_first);
    const Variant v = Transform(p, FusionMode::kRecurrences);
    std::string lines;
    for (const auto& t : v.transformations) lines += t + "\n";
    EXPECT_NE(lines.find("a[i-1] as a_prev, b[i-1] as b_prev"), std::string::npos) << lines;
    EXPECT_NE(lines.find("ghost scalars i_sq"), std::string::npos) << lines;
    EXPECT_EQ(CountLoops(v.prog.body), 1) << PrintProgram(v.prog);
    ExpectSameBehaviour(p, v.prog);
    EXPECT_EQ(SolveAny(v.prog), SolveStatus::kSafe) << if_first;
    const Verdict verdict = Verify(p, VerifyOptions{30, true});
    EXPECT_EQ(verdict.verdict, "true") << verdict.reason;
    EXPECT_EQ(verdict.solved_by.rfind("recurrences", 0), 0u) << verdict.solved_by;
  }
}

TEST(Recurrences, NeverProveAWrongClosedForm) {
  for (const char* wrong : {"2 * i * i + 2 * i + 2", "2 * i * i + 3 * i + 1", "i * i * i + 1", "2 * i * i + 1"}) {
    for (bool if_first : {false, true}) {
      const Variant v = Transform(EqnProgram(wrong, if_first), FusionMode::kRecurrences);
      ASSERT_FALSE(v.transformations.empty()) << wrong;
      EXPECT_EQ(SolveAny(v.prog, 5), SolveStatus::kUnsafe) << wrong << " " << if_first;
    }
  }
}

TEST(Recurrences, LeaveWhatIsNoRecurrenceOfTheCellBefore) {
  const auto scalarized = [](const std::string& loop) {
    std::vector<std::string> lines;
    const auto out = ScalarizeRecurrences(ParseText(R"(int main() {
      int n = __VERIFIER_nondet_int(); if (n <= 0 || n > 1000) return 0;
      int a[n + 2]; int i; a[0] = 1; a[1] = 1;
      )" + loop + R"(
      __VERIFIER_assert(a[0] == 1);
      return 0; })"), lines);
    return out.has_value();
  };
  EXPECT_TRUE(scalarized("for (i = 1; i < n; i++) a[i] = a[i - 1] + 1;"));
  EXPECT_FALSE(scalarized("for (i = 1; i < n; i++) a[i] = a[i + 1] + 1;"));                // a cell ahead
  EXPECT_FALSE(scalarized("for (i = 2; i < n; i++) a[i] = a[i - 2] + 1;"));                // two cells before
  EXPECT_FALSE(scalarized("for (i = 1; i < n; i++) { a[i] = a[i - 1]; a[i + 1] = 0; }"));  // two cells written
  EXPECT_FALSE(scalarized("for (i = 1; i < n; i++) { a[i] = a[i - 1]; if (a[i] > 5) break; }"));  // a jump
  // A loop from 1 next to one from 0 starts with it only where its counter's final value is dead.
  std::vector<std::string> lines;
  ScalarizeRecurrences(ParseText(R"(int main() {
      int n = __VERIFIER_nondet_int(); if (n <= 0 || n > 1000) return 0;
      int a[n]; int i; a[0] = 0;
      for (i = 1; i < n; i++) a[i] = a[i - 1] + 1;
      __VERIFIER_assert(i >= 1);
      for (i = 0; i < n; i++) __VERIFIER_assert(a[i] == i);
      return 0; })"), lines);
  for (const auto& l : lines) EXPECT_EQ(l.find("start with it"), std::string::npos) << l;
}

TEST(LoopReversal, AlignsALoopThatCountsDown) {
  const Program p = ParseText(R"(int main() {
    int n = __VERIFIER_nondet_int(); if (n < 0 || n > 100) return 0;
    int a[n]; int i;
    for (i = n - 1; i >= 0; i--) a[i] = 2 * i;
    for (i = 0; i < n; i++) __VERIFIER_assert(a[i] == 2 * i);
    __VERIFIER_assert(i == n);
    return 0; })");
  const Variant v = Transform(p, FusionMode::kAligned);
  ASSERT_EQ(v.transformations.size(), 1u);
  EXPECT_NE(v.transformations[0].find("reversal"), std::string::npos);
  EXPECT_EQ(CountLoops(v.prog.body), 1);
  ExpectSameBehaviour(p, v.prog);
}

TEST(LoopReversal, RefusesALoopWithACarriedDependence) {
  const Program p = ParseText(R"(int main() {
    int n = __VERIFIER_nondet_int(); int a[n + 1]; int s = 0; int i;
    for (i = n - 1; i >= 0; i--) { s = s + 1; a[i] = s; }
    return 0; })");
  const auto items = Flatten(p.body);
  std::optional<CountedLoop> loop;
  for (size_t k = 1; k < items.size(); ++k) {
    if (items[k]->kind == StmtKind::kLoop) loop = AsCounted(items[k - 1], items[k]);
  }
  ASSERT_TRUE(loop.has_value());
  EXPECT_FALSE(IterationsIndependent(*loop));
  EXPECT_FALSE(ReverseLoop(*loop).has_value());
}

TEST(GuessAndAssume, FusesLoopsThatCarryACounter) {
  const Program p = ParseText(R"(int main() {
    int n = __VERIFIER_nondet_int(); int k = 0; int i = 0;
    while (i < n) { i++; k++; }
    int j = n;
    while (j > 0) { __VERIFIER_assert(k > 0); j--; k--; }
    return 0; })");
  const Variant v = Transform(p, FusionMode::kGuess);
  ASSERT_EQ(v.transformations.size(), 1u);
  EXPECT_EQ(CountLoops(v.prog.body), 1);
  EXPECT_EQ(SolveAny(v.prog), SolveStatus::kSafe);
}

TEST(GuessAndAssume, KeepsABugThatOnlySomePathsOfTheFirstLoopReach) {
  const Program p = ParseText(R"(int main() {
    int n = __VERIFIER_nondet_int(); int x = __VERIFIER_nondet_int(); int k = 0; int i = 0;
    while (i < n) { if (x == 5) __VERIFIER_assert(i < 3); i++; k++; }
    int j = 0;
    while (j < k) { j++; }
    return 0; })");
  const Variant v = Transform(p, FusionMode::kGuess);
  ASSERT_EQ(v.transformations.size(), 1u);
  EXPECT_EQ(SolveAny(v.prog), SolveStatus::kUnsafe);
}

// The program with a first loop that fails at i == 5 and a second loop whose body (second_body) cuts the
// path on its very first iteration: fused, the cut must become a flag, and the bug must stay reachable.
void ExpectTheFirstLoopsBugKept(const char* second_body, const char* flag) {
  const Program p = ParseFilled(R"(int main() {
    int n = __VERIFIER_nondet_int(); int k = 0; int i = 0;
    while (i < n) { __VERIFIER_assert(i != 5); i++; k++; }
    int j = 0;
    while (j < 100) { %s j++; }
    return 0; })", second_body);
  const Variant v = Transform(p, FusionMode::kGuess);
  ASSERT_EQ(v.transformations.size(), 1u);
  EXPECT_NE(PrintProgram(v.prog).find(flag), std::string::npos) << flag;
  EXPECT_EQ(SolveAny(v.prog), SolveStatus::kUnsafe);
  EXPECT_EQ(InterpretOn(p, {6}), Outcome::kError);
}

TEST(GuessAndAssume, ASecondLoopThatReturnsEarlyDoesNotHideABugOfTheFirst) {
  // Fused naively, the return would end the program before the first loop fails.
  ExpectTheFirstLoopsBugKept("if (k >= 0) return 0;", "ret_");
}

TEST(GuessAndAssume, AnAssumeOfALaterLoopDoesNotHideABugOfAnEarlierOne) {
  // Fused naively, the assume (false from the first iteration: k is guessed, then checked) would cut every
  // path before the first loop fails.
  ExpectTheFirstLoopsBugKept("__VERIFIER_assume(k < 0);", "blk_");
}

TEST(GuessAndAssume, AWrongGuessRaisesNoFalseAlarm) {
  // The first loop returns once i reaches 2, so the second loop only ever sees k <= 2; run on a guessed
  // k = 5 it would fail, which the flag defers until the guess is checked.
  const Program p = ParseText(R"(int main() {
    int n = __VERIFIER_nondet_int(); int k = 0; int i = 0;
    while (i < n) { if (i == 2) return 0; i++; k++; }
    int j = 0;
    while (j < k) { __VERIFIER_assert(k <= 2); j++; }
    return 0; })");
  const Variant v = Transform(p, FusionMode::kGuess);
  ASSERT_EQ(v.transformations.size(), 1u);
  EXPECT_EQ(SolveAny(v.prog), SolveStatus::kSafe);
}

TEST(GuessAndAssume, ASecondLoopThatBreaksStopsOnlyItself) {
  const Program p = ParseText(R"(int main() {
    int n = __VERIFIER_nondet_int(); if (n < 0 || n > 1000) return 0; int k = 0; int i = 0;
    while (i < n) { i++; k++; }
    int j = 0;
    while (j < 10) { if (k == j) break; j++; }
    __VERIFIER_assert(j <= n);
    __VERIFIER_assert(i == n);
    return 0; })");
  const Variant v = Transform(p, FusionMode::kGuess);
  ASSERT_EQ(v.transformations.size(), 1u);
  EXPECT_EQ(SolveAny(v.prog), SolveStatus::kSafe);
}

TEST(GuessAndAssume, FusesAChainOfThreeLoops) {
  const char* kChain = R"(int main() {
    int n = __VERIFIER_nondet_int(); if (n < 0 || n > 1000) return 0; int x = 0; int y = 0;
    int i = 0; while (i < n) { i++; x++; }
    int j = 0; while (j < x) { j++; y++; }
    int l = 0; while (l < y) { l++; }
    __VERIFIER_assert(l == n + %d);
    return 0; })";
  const Variant bug = Transform(ParseFilled(kChain, 1), FusionMode::kGuess);
  ASSERT_EQ(bug.transformations.size(), 1u);
  EXPECT_NE(bug.transformations[0].find(", "), bug.transformations[0].rfind(", "));  // three lines named
  EXPECT_EQ(CountLoops(bug.prog.body), 1);
  EXPECT_EQ(SolveAny(bug.prog), SolveStatus::kUnsafe);
  EXPECT_NE(SolveAny(Transform(ParseFilled(kChain, 0), FusionMode::kGuess).prog, 2), SolveStatus::kUnsafe);
}

TEST(GuessAndAssume, KeepsTheAssumesOfALaterLoopPlainWhenNoEarlierLoopCanFail) {
  // The first loop has no assertion, so an assume of the second that fails early hides nothing: it stays
  // an assume, and the fused loop needs no flag (nor the invariant a disjunction over it).
  const Program p = ParseText(R"(int main() {
    int n = __VERIFIER_nondet_int(); if (n < 0 || n > 1000) return 0; int k = 0; int i = 0;
    while (i < n) { i++; k++; }
    int j = 0;
    while (j < k) { __VERIFIER_assume(j < 2000); j++; }
    __VERIFIER_assert(j == n);
    return 0; })");
  const Variant v = Transform(p, FusionMode::kGuess);
  ASSERT_EQ(v.transformations.size(), 1u);
  const std::string text = PrintProgram(v.prog);
  EXPECT_EQ(text.find("blk_"), std::string::npos) << text;
  EXPECT_EQ(SolveAny(v.prog), SolveStatus::kSafe);
}

TEST(Unroll, UnrollsLoopsOverAConstantRange) {
  // Reversal with a second counter, over 5 cells: unrolled, the copy and the check are stores and
  // selects of the same cells, with no quantified invariant to find.
  const Program p = ParseText(R"(int main() {
    unsigned int max = 5; char s1[max], s2[max]; int i, j;
    for (i = 0; i < max; i++) s1[i] = __VERIFIER_nondet_char();
    j = 0;
    for (i = max - 1; i >= 0; i--) { s2[j] = s1[i]; j++; }
    j = max - 1;
    for (i = 0; i < max; i++) { __VERIFIER_assert(s1[i] == s2[j]); j--; }
    __VERIFIER_assert(i == 5 && j == -1);
    return 0; })");
  ExpectTransformed(p, FusionMode::kAll, 3, 0, SolveStatus::kSafe);
}

TEST(Unroll, KeepsABugOfALaterIteration) {
  const Program p = ParseText(R"(int main() {
    int a[8]; int i;
    for (i = 0; i < 8; i++) a[i] = i * i;
    for (i = 7; i >= 0; i--) __VERIFIER_assert(a[i] != 25);
    return 0; })");
  ExpectTransformed(p, FusionMode::kAll, 2, 0, SolveStatus::kUnsafe);
}

TEST(Unroll, LeavesLoopsWhoseRangeIsNotAConstant) {
  // m is assigned twice (its value at the loop depends on the path), the second loop's range is too long,
  // and the third loop's body moves its counter: none may be unrolled as if its range were known.
  const Program p = ParseText(R"(int main() {
    int m = 3; if (__VERIFIER_nondet_int()) m = 1000000;
    int i; int s = 0;
    for (i = 0; i < m; i++) s++;
    for (i = 0; i < 17; i++) s++;
    for (i = 0; i < 4; i++) { s++; if (s > 5) i = 10; }
    __VERIFIER_assert(s < 1000025);
    return 0; })");
  std::vector<std::string> applied;
  UnrollConstantLoops(p, applied);
  EXPECT_TRUE(applied.empty());
}

// p with its loop nests collapsed (CollapseLoopNests), the lines it applied in applied.
Program Collapsed(const Program& p, std::vector<std::string>& applied) {
  Program collapsed = p;
  collapsed.body = CollapseLoopNests(collapsed, p.body, applied);
  return collapsed;
}

TEST(CollapseLoopNests, FusesNestsOverTheSameCellsAndProvesThem) {
  // array-multidimensional's init and copy in small: collapsed, each nest is one loop over the cells in
  // order, a[i][j] its counter, and the loops fuse as one-dimensional ones do.
  const Program p = ParseText(R"(int main() {
    int a[20][30]; int b[20][30]; int c = __VERIFIER_nondet_int(); int i, j;
    for (i = 0; i < 20; i++) for (j = 0; j < 30; j++) a[i][j] = c + __VERIFIER_nondet_int() % 2;
    i = 0;
    while (i < 20) { j = 0; while (j < 30) { b[i][j] = a[i][j]; j = j + 1; } i = i + 1; }
    for (i = 0; i < 20; i++) for (j = 0; j < 30; j++) __VERIFIER_assert(b[i][j] == a[i][j]);
    __VERIFIER_assert(i == 20 && j == 30);
    return 0; })");
  ExpectTransformed(p, FusionMode::kAll, 5, 1, SolveStatus::kSafe);
  const Variant v = Transform(p, FusionMode::kAligned);
  EXPECT_EQ(v.transformations[0], "collapsed the loop nest at line 3 (20 x 30 iterations of i and j) into one loop");
}

TEST(CollapseLoopNests, KeepsTheCountersValuesAndTheBugs) {
  // Three loops deep, from other first values, with <=, the counters read as values and in a reversed
  // cell: the collapsed program runs as the nest does, and the bug at one cell is still found.
  for (const char* check : {"a[i][j][k] != 9 + 14 + 25", "a[i][j][k] != 99"}) {
    const Program p = ParseFilled(R"(int main() {
      int a[4][8][20]; int b[4][8][20]; int i, j, k, s = 0;
      for (i = 1; i <= 4; i++) { k = 5; for (j = 8; j < 16; j++) for (k = 20; k < 40; k++) {
        a[4 - i][15 - j][k - 20] = (i * i + j) + k; } }
      s = i + j + k;
      for (i = 0; i < 4; i++) for (j = 0; j < 8; j++) for (k = 0; k < 20; k++) {
        b[i][j][k] = a[3 - i][7 - j][19 - k] + __VERIFIER_nondet_int() - __VERIFIER_nondet_int(); }
      for (i = 0; i < 4; i++) for (j = 0; j < 8; j++) for (k = 0; k < 20; k++) __VERIFIER_assert(%s);
      __VERIFIER_assert(s == 5 + 16 + 40);
      return 0; })",
                                  check);
    std::vector<std::string> applied;
    const Program collapsed = Collapsed(p, applied);
    EXPECT_EQ(applied.size(), 6u);
    EXPECT_EQ(CountLoops(collapsed.body), 3);
    ExpectSameBehaviour(p, collapsed);
    const testing::GccProgram original(p), transformed(collapsed);
    ASSERT_EQ(original.error(), "");
    ASSERT_EQ(transformed.error(), "") << PrintProgram(collapsed);
    for (long long in : {0, 1, 7}) EXPECT_EQ(original.Run({in, in}), transformed.Run({in, in}));
  }
  const Program bug = ParseText(R"(int main() {
    int a[20][30]; int i, j;
    for (i = 0; i < 20; i++) for (j = 0; j < 30; j++) a[i][j] = 30 * i + j;
    for (i = 0; i < 20; i++) for (j = 0; j < 30; j++) __VERIFIER_assert(a[i][j] != 3);
    return 0; })");
  ExpectTransformed(bug, FusionMode::kAll, 3, 1, SolveStatus::kUnsafe);
}

// A random program of two nests over the cells of arrays a and b (two or three dimensions), counters from
// other first values, with < or <=, to constants or (the outer and the innermost loop, now and then) to an
// input's number of rows u or columns v (`i < u + f` or `i <= u + f - 1`), or (now and then) to the enclosing loop's counter (a triangular nest,
// which does not collapse, though one inside it may), as for or while loops, cells reversed, counters read as values,
// scalars set between the loops (now and then one the body reads, which keeps the nest), then a checksum of
// every cell, counter and scalar, h, in loops that do not collapse. Its assertion `h <= k`, k the first input,
// tells h by bisection; the extents of the first and last dimensions bound u and v. No value reads s: `s = s +
// (s)` 250 times over left even the interpreter's 128 bits (a signed overflow of the interpreter itself).
struct RandomNestProgram {
  std::string text;
  int rows = 0, columns = 0;
};
RandomNestProgram RandomNests(std::mt19937& rng) {
  const auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int depth = pick(2, 3);
  std::vector<int> extent;
  for (int d = 0; d < depth; ++d) extent.push_back(pick(1, 5));
  const char* counter[] = {"i", "j", "l"};
  std::string dims;
  for (int n : extent) dims += fmt::format("[{}]", n);
  std::string text = fmt::format(
      "int main() {{\n  long long k = __VERIFIER_nondet_longlong(); int x = __VERIFIER_nondet_int();\n"
      "  int u = __VERIFIER_nondet_int(), v = __VERIFIER_nondet_int();\n"
      "  int a{0} = {{0}}; int b{0} = {{0}}; int i = 0, j = 0, l = 0, p = 0, q = 0, s = 1;\n",
      dims);
  for (const char* target : {"a", "b"}) {
    std::vector<int> first(depth);
    for (int& f : first) f = pick(-2, 2);
    const auto cell = [&](const char* array) {
      std::string out = array;
      for (int d = 0; d < depth; ++d) {
        const std::string place = fmt::format("({} - ({}))", counter[d], first[d]);
        out += pick(0, 2) == 0 ? fmt::format("[{} - 1 - {}]", extent[d], place) : "[" + place + "]";
      }
      return out;
    };
    const std::string values[] = {fmt::format("{} * 2 + {}", counter[0], counter[1]),
                                  fmt::format("{} * {}", counter[0], counter[depth - 1]),
                                  "x + " + std::string(counter[1]),
                                  cell("a") + " + 1", "x - 1",
                                  fmt::format("({} - {}) % 3", counter[depth - 1], counter[0]),
                                  fmt::format("{} * 25 + {} * 5 + {}", counter[0], counter[1], counter[depth - 1])};
    std::string body;
    for (int n = pick(1, 3); n > 0; --n) {
      const std::string& value = values[pick(0, 6)];
      const int form = pick(0, 3);
      if (form == 0) body += fmt::format("s = s + ({}); ", value);
      if (form == 1) body += fmt::format("if ({} % 2 == 0) {} = {}; ", counter[1], cell(target), value);
      if (form >= 2) body += fmt::format("{} = {}; ", cell(target), value);
    }
    if (pick(0, 9) == 0) body += "s = s + p; ";
    for (int d = depth - 1; d >= 0; --d) {
      const char* c = counter[d];
      const bool strict = pick(0, 1) == 1;
      const char* input = d == 0 ? "u" : d == depth - 1 ? "v" : nullptr;
      std::string bound = input && pick(0, 2) == 0
                              ? fmt::format("{} + ({}){}", input, first[d], strict ? "" : " - 1")
                              : std::to_string(first[d] + extent[d] - (strict ? 0 : 1));
      // Triangular: as many columns as the row's number, within the extent.
      if (d > 0 && strict && extent[d - 1] <= extent[d] && pick(0, 4) == 0) {
        bound = fmt::format("{} - ({}) + ({})", counter[d - 1], first[d - 1], first[d]);
      }
      const std::string before = d < depth - 1 && pick(0, 2) == 0 ? fmt::format("p = {}; ", pick(0, 9)) : "";
      const std::string after = d < depth - 1 && pick(0, 2) == 0 ? fmt::format(" q = {};", pick(0, 9)) : "";
      if (pick(0, 1) == 0) {
        body = fmt::format("{}for ({} = {}; {} {} {}; {}++) {{ {} }}{}", before, c, first[d], c, strict ? "<" : "<=",
                           bound, c, body, after);
      } else {
        body = fmt::format("{}{} = {}; while ({} {} {}) {{ {}{} = {} + 1; }}{}", before, c, first[d], c,
                           strict ? "<" : "<=", bound, body, c, c, after);
      }
    }
    text += "  " + body + "\n";
  }
  text += "  long long h = s + 3 * i + 5 * j + 7 * l + 11 * p + 13 * q; int y0, y1, y2;\n";
  std::string sum = "h = (h * 3 + a[y0][y1]" + std::string(depth == 3 ? "[y2]" : "") + " + 7 * b[y0][y1]" +
                    (depth == 3 ? "[y2]" : "") + ") % 1000003;";
  if (depth == 3) sum = fmt::format("{{ h = h + y1; for (y2 = 0; y2 < {}; y2++) {} }}", extent[2], sum);
  text += fmt::format("  for (y0 = 0; y0 < {}; y0++) {{ h = h + y0; for (y1 = 0; y1 < {}; y1++) {} }}\n", extent[0],
                      extent[1], sum);
  return {text + "  __VERIFIER_assert(h <= k);\n  return 0;\n}\n", extent[0], extent[depth - 1]};
}

TEST(CollapseLoopNests, RandomNestsLeaveWhatTheyLeftBefore) {
  // The checksum of 300 random programs, by bisection on the interpreter's runs, against the collapsed
  // program's runs at the checksum and below it: with all rows and columns, and with none, one or all.
  std::mt19937 rng(20261205);
  int collapsed_programs = 0;
  for (int n = 0; n < 300; ++n) {
    const RandomNestProgram random = RandomNests(rng);
    const std::string& text = random.text;
    const Program p = ParseText(text);
    std::vector<std::string> applied;
    const Program collapsed = Collapsed(p, applied);
    collapsed_programs += applied.empty() ? 0 : 1;
    const int few[] = {-1, 0, 1, random.rows, random.columns};
    for (const std::pair<int, int>& rows_columns :
         {std::pair{random.rows, random.columns}, std::pair{few[n % 4], few[n / 4 % 3]}}) {
      // Copies: clang 14 cannot capture structured bindings.
      const int u = rows_columns.first, v = rows_columns.second;
      const auto ends = [u, v](const Program& prog, long long k) {
        return OutcomeName(InterpretOn(prog, {k, 3, u, v}));
      };
      long long lo = -(1LL << 40), hi = 1LL << 40;  // h <= hi, h > lo
      ASSERT_EQ(ends(p, hi), "finished") << text;
      while (hi - lo > 1) {
        const long long mid = lo + (hi - lo) / 2;
        (ends(p, mid) == "finished" ? hi : lo) = mid;
      }
      EXPECT_EQ(ends(collapsed, hi), "finished") << text << "u = " << u << ", v = " << v << "\n"
                                                 << PrintProgram(collapsed);
      EXPECT_EQ(ends(collapsed, hi - 1), "error") << text << "u = " << u << ", v = " << v << "\n"
                                                  << PrintProgram(collapsed);
    }
  }
  EXPECT_GT(collapsed_programs, 250);
}

TEST(SinkCounterInits, MovesAnInitialisationAcrossChecksThatLeaveTheCounterAlone) {
  // Across checks that read no input, write nothing and do not read the counter, the counter's first value
  // moves down to its loop (which AsCounted then sees); across others it stays.
  const auto moved = [](const char* between) {
    const Program p = ParseFilled(R"(int main() {
      int n = __VERIFIER_nondet_int(); int i = 7, s = 0;
      i = 0;
      %s
      for (; i < n; i++) s++;
      return 0; })",
                                  between);
    const std::vector<StmtPtr> items = SinkCounterInits(Flatten(p.body));
    const auto loop =
        std::find_if(items.begin(), items.end(), [](const StmtPtr& s) { return s->kind == StmtKind::kLoop; });
    return loop != items.begin() && AsCounted(*(loop - 1), *loop).has_value();
  };
  for (const char* crossed : {"if (!(n < 10)) abort();", "__VERIFIER_assume(n > 0); __VERIFIER_assert(n != 5);",
                              "if (n == 3) { __VERIFIER_assert(s == 0); return 0; }"}) {
    EXPECT_TRUE(moved(crossed)) << crossed;
  }
  for (const char* kept : {"if (n > 5) s = 1;", "if (i > 5) abort();", "if (__VERIFIER_nondet_int()) abort();",
                           "while (n > 100) n--;"}) {
    EXPECT_FALSE(moved(kept)) << kept;
  }
}

TEST(CollapseLoopNests, AsksThatAnInputsColumnsFitTheRows) {
  // v columns of rows of 4 cells: past 4, row 0 runs into row 1 (the flat array's next cells), which the
  // collapsed loop over rows of 4 would not write; its assertion that v <= 4 fails there instead.
  for (const int most : {4, 5}) {
    const Program p = ParseFilled(R"(int main() {
      int a[3][4] = {0}; int i = 0, j = 0; int u = __VERIFIER_nondet_int(), v = __VERIFIER_nondet_int();
      __VERIFIER_assume(u >= 0 && u <= 1 && v >= 0 && v <= %d);
      for (i = 0; i < u; i++) for (j = 0; j < v; j++) a[i][j] = 1;
      __VERIFIER_assert(a[1][0] == 0);
      return 0; })",
                                  most);
    std::vector<std::string> applied;
    const Program collapsed = Collapsed(p, applied);
    ASSERT_EQ(applied.size(), 1u);
    EXPECT_EQ(applied[0],
              "collapsed the loop nest at line 4 (u x v iterations of i and j) into one loop over rows of 4");
    EXPECT_EQ(SolveAny(collapsed), most == 4 ? SolveStatus::kSafe : SolveStatus::kUnsafe);
    EXPECT_EQ(OutcomeName(InterpretOn(p, {1, most})), most == 4 ? "finished" : "error");
    EXPECT_EQ(OutcomeName(InterpretOn(collapsed, {1, most})), most == 4 ? "finished" : "error");
  }
}

TEST(CollapseLoopNests, ATransposedCopyFusesWithItsCheck) {
  // c[j][i] is the collapsed counter's cell (t % 30) * 30 + t / 30: no counter plus a constant, but one cell
  // per iteration, the same in the copy and the check, which then fuse (and with the loop that fills a).
  const Program p = ParseText(R"(int main() {
    int a[30][30]; int c[30][30]; int i, j;
    for (i = 0; i < 30; i++) for (j = 0; j < 30; j++) a[i][j] = __VERIFIER_nondet_int();
    for (i = 0; i < 30; i++) for (j = 0; j < 30; j++) c[j][i] = a[i][j];
    for (i = 0; i < 30; i++) for (j = 0; j < 30; j++) __VERIFIER_assert(c[j][i] == a[i][j]);
    return 0; })");
  ExpectTransformed(p, FusionMode::kAligned, 5, 1, SolveStatus::kSafe);
}

TEST(InjectiveInCounter, TellsIndicesThatTakeEachValueOnce) {
  const ExprPtr t = MakeVar("t", kInt);
  const auto index = [&t](Int128 a, Int128 w, Int128 b) {
    return MakeBinary("+", MakeBinary("*", MakeConst(a), MakeBinary("%", t, MakeConst(w), kInt), kInt),
                      MakeBinary("*", MakeConst(b), MakeBinary("/", t, MakeConst(w), kInt), kInt), kInt);
  };
  EXPECT_TRUE(InjectiveInCounter(index(10, 10, 1), "t", 0, 100));    // a transpose of 10 x 10
  EXPECT_TRUE(InjectiveInCounter(index(1, 10, 10), "t", 0, 100));    // t itself
  EXPECT_TRUE(InjectiveInCounter(index(-10, 10, 1), "t", 20, 100));  // reversed, from the third row
  EXPECT_FALSE(InjectiveInCounter(index(9, 10, 1), "t", 0, 100));    // 9 * 1 + 0 == 9 * 0 + 9
  EXPECT_FALSE(InjectiveInCounter(index(10, 10, 1), "t", 0, 110));   // 10 * 1 + 0 == 10 * 0 + 10
  EXPECT_FALSE(InjectiveInCounter(index(10, 10, 0), "t", 0, 100));   // rows only
  EXPECT_FALSE(InjectiveInCounter(index(10, 10, 1), "u", 0, 100));   // another variable's
  EXPECT_FALSE(InjectiveInCounter(MakeBinary("%", t, MakeConst(10), kInt), "t", 0, 100));
}

TEST(CollapseLoopNests, LeavesNestsThatAreNotPerfectOverConstantRanges) {
  // An inner bound over no cells of one row stride, a range of no iterations, a body that moves the outer
  // counter or leaves the loop, a statement between the loops that the body reads or that is no constant, a
  // bound past the counter's type, and a triangular nest (the inner bound reads the outer counter).
  for (const char* nest : {"for (i = 0; i < 20; i++) for (j = 0; j < n; j++) a[0][0] = i + j;",
                           "for (i = 0; i < 20; i++) for (j = 30; j < 30; j++) a[i][j] = 1;",
                           "for (i = 0; i < 20; i++) for (j = 0; j < 30; j++) { a[i][j] = 1; i = i + 0; }",
                           "for (i = 0; i < 20; i++) for (j = 0; j < 30; j++) { a[i][j] = 1; if (n) break; }",
                           "for (i = 0; i < 20; i++) { s = 2; for (j = 0; j < 30; j++) a[i][j] = s; }",
                           "for (i = 0; i < 20; i++) { s = n; for (j = 0; j < 30; j++) a[i][j] = 1; }",
                           "for (c = 0; c < 300; c++) for (j = 0; j < 30; j++) a[0][j] = c;",
                           "for (i = 0; i < 20; i++) for (j = 0; j < i; j++) a[i][j] = 1;"}) {
    const Program p = ParseFilled(R"(int main() {
      int a[20][30]; int i, j, s; unsigned char c; int n = __VERIFIER_nondet_int();
      %s
      return 0; })",
                                  nest);
    std::vector<std::string> applied;
    Collapsed(p, applied);
    EXPECT_TRUE(applied.empty()) << nest;
  }
}

TEST(HoistGuardedLoops, TakesALoopOutOfAnIfAndFusesItWithTheLoopBefore) {
  // standard_compare_ground in small: the third loop sits under if (rv), rv computed by the second, and
  // reads the cells the first writes, in step: a guess of rv, the arrays shared cell by cell.
  const char* kCompare = R"(int main() {
    int n = __VERIFIER_nondet_int(); if (n < 0 || n > 1000) return 0;
    int a[n]; int b[n];
    for (int j = 0; j < n; j++) { a[j] = __VERIFIER_nondet_int(); b[j] = __VERIFIER_nondet_int(); }
    int i = 0; int rv = 1;
    while (i < n) { if (a[i] != b[i]) rv = 0; i = i + 1; }
    int x = 7;
    if (rv) { for (x = 0; x < n; x++) __VERIFIER_assert(a[x] %s b[x]); }
    __VERIFIER_assert(x == 7 || x == n);
    return 0; })";
  const Program p = ParseFilled(kCompare, "==");
  Program hoisted = p;
  std::vector<std::string> applied;
  hoisted.body = HoistGuardedLoops(hoisted, p.body, applied);
  ASSERT_EQ(applied.size(), 1u);
  ExpectSameBehaviour(p, hoisted);  // x keeps 7 when rv is 0
  const Variant v = Transform(p, FusionMode::kAll);
  EXPECT_EQ(CountLoops(v.prog.body), 1);
  EXPECT_EQ(SolveAny(v.prog), SolveStatus::kSafe);
  const Variant bug = Transform(ParseFilled(kCompare, "!="), FusionMode::kAll);
  EXPECT_EQ(CountLoops(bug.prog.body), 1);
  EXPECT_EQ(SolveAny(bug.prog), SolveStatus::kUnsafe);
}

TEST(HoistGuardedLoops, LeavesALoopWhoseBodyChangesTheGuard) {
  // Guarding each iteration by rv would stop the loop's work after the first one: not the same program.
  const Program p = ParseText(R"(int main() {
    int n = __VERIFIER_nondet_int(); int s = 0; int rv = 1;
    for (int i = 0; i < n; i++) s++;
    if (rv) { for (int x = 0; x < n; x++) { rv = 0; s--; } }
    __VERIFIER_assert(s == 0 || n < 0);
    return 0; })");
  Program hoisted = p;
  std::vector<std::string> applied;
  HoistGuardedLoops(hoisted, p.body, applied);
  EXPECT_TRUE(applied.empty());
}

TEST(GuessAndAssume, RefusesAnArrayReadAheadOfTheLoopThatWritesIt) {
  // The second loop reads a[x + 1], which the first loop writes one round later: fused, it would read the
  // old value. (The scalar k alone could be guessed.)
  const Program p = ParseText(R"(int main() {
    int n = __VERIFIER_nondet_int(); if (n < 0 || n > 1000) return 0;
    int a[n + 1]; a[n] = 5; int k = 0;
    for (int j = 0; j < n; j++) { a[j] = 5; k++; }
    for (int x = 0; x < n; x++) __VERIFIER_assert(a[x + 1] == 5 && k == n);
    return 0; })");
  EXPECT_TRUE(Transform(p, FusionMode::kGuess).transformations.empty());
}

TEST(SymbolicConstants, KeepABugAtTheConstantAndProveWithoutCounting) {
  // The loop runs to 5000: with the bound a parameter K, the clauses must still reach i == K.
  const char* kCount = R"(int main() {
    int a[5000]; int i;
    for (i = 0; i < 5000; i++) a[i] = 1;
    __VERIFIER_assert(i %s 5000);
    return 0; })";
  for (const char* op : {"==", "!="}) {
    const Program p = ParseFilled(kCount, op);
    z3::context ctx;
    const HornSystem sys = EncodeHorn(p, ctx, 10, false, true);
    ASSERT_EQ(sys.pred_vars.size(), 1u);
    EXPECT_EQ(sys.pred_vars[0][0], SymbolicConstantName(5000));
    HornProblem problem(p, 10, false, true);
    const SolveResult r = problem.Solve(Portfolio()[0], 20);
    EXPECT_EQ(r.status, op[0] == '=' ? SolveStatus::kSafe : SolveStatus::kUnsafe) << op;
  }
}

// A division or remainder by a variable is encoded by linear facts (horn.cc, DivideByVariable): exact where
// the dividend is under three times the divisor, bounded elsewhere. Every true assertion below follows from
// those facts; every false one fails on some inputs, and no fact may prove it (a fact too strong would).
TEST(DivisionByAVariable, ProvesWhatTheLinearFactsGiveAndNothingFalse) {
  const char* kProgram = R"(extern int __VERIFIER_nondet_int(void);
int main() {
  int n = __VERIFIER_nondet_int();
  int m = __VERIFIER_nondet_int();
  if (n < 1 || n > 1000 || m < -3000 || m > 3000) return 0;
  __VERIFIER_assert(%s);
  return 0;
})";
  for (const char* holds : {"n % n == 0", "(-n) % n == 0", "(2 * n) % n == 0", "(n + 1) % n == 1 || n == 1",
                            "(n + 1) % (-n) == 1 || n == 1", "(n + 1) / (-n) == -1 || n == 1",
                            "(2 * n + 1) / n == 2 || n == 1", "n <= 5 || (-5) % n == -5", "m / n == 0 || m <= -n || m >= n",
                            "n != 1 || m / n == m", "m % n < n && m % n > -n", "m < 0 || m % n >= 0",
                            "m < 0 || m / n >= 0"}) {
    EXPECT_EQ(SolveAny(ParseFilled(kProgram, holds), 5), SolveStatus::kSafe) << holds;
  }
  // Each fails only inside one range of the dividend (under once, twice, three times the divisor; each sign),
  // so that a wrong fact for that range, which proves nothing false elsewhere, is caught.
  const std::pair<const char*, std::vector<long long>> kFails[] = {
      {"(n + 1) % n == 1", {1, 0}},
      {"m % n >= 0", {2, -3}},
      {"m / n == m", {2, 4}},
      {"(-5) % n == 5", {7, 0}},
      {"m < 0 || m >= n || m % n != 3", {5, 3}},
      {"m > 0 || m <= -n || m % n != -3", {5, -3}},
      {"m < n || m >= 2 * n || m % n != 2", {5, 7}},
      {"m > -n || m <= -2 * n || m % n != -2", {5, -7}},
      {"m < n || m >= 2 * n || m / n != 1", {5, 7}},
      {"m > -n || m <= -2 * n || m / n != -1", {5, -7}},
      {"m < 2 * n || m >= 3 * n || m % n != 2", {5, 12}},
      {"m > -2 * n || m <= -3 * n || m % n != -2", {5, -12}},
      {"m < 2 * n || m >= 3 * n || m / n != 2", {5, 12}},
      {"m > -2 * n || m <= -3 * n || m / n != -2", {5, -12}},
      {"m < n || m >= 2 * n || m % (-n) != 2", {5, 7}},
      {"m < n || m >= 2 * n || m / (-n) != -1", {5, 7}},
      {"m < 2 * n || m >= 3 * n || m / (-n) != -2", {5, 12}},
      {"m < 3 * n || m % n != 1", {5, 16}},
      {"m < 3 * n || m / n != 3", {5, 16}},
      {"n != 2 || m != 8 || m / n != 4", {2, 8}}};
  for (const auto& [fails, inputs] : kFails) {
    const Program p = ParseFilled(kProgram, fails);
    EXPECT_EQ(InterpretOn(p, inputs), Outcome::kError) << fails;
    EXPECT_NE(SolveAny(p, 5), SolveStatus::kSafe) << fails;
  }
}

// The same division by a variable made twice on a path is one value (a function of its operands), whatever
// lies between, on either branch; a division of other operands is not.
TEST(DivisionByAVariable, TheSameDivisionMadeTwiceIsOneValue) {
  const char* kProgram = R"(extern int __VERIFIER_nondet_int(void);
int main() {
  int n = __VERIFIER_nondet_int();
  int m = __VERIFIER_nondet_int();
  if (n < 1 || n > 100000 || m < -300000 || m > 300000) return 0;
  int q = m / n, r = m %% n, x = 0;
  if (m > 7) x = m / n; else x = m / n;
  __VERIFIER_assert(%s);
  return 0;
})";
  for (const char* holds : {"q == m / n && r == m % n", "x == q"}) {
    EXPECT_EQ(SolveAny(ParseFilled(kProgram, holds), 5), SolveStatus::kSafe) << holds;
  }
  const Program fails = ParseFilled(kProgram, "q == (m + 1) / n");
  EXPECT_EQ(InterpretOn(fails, {2, 1}), Outcome::kError);
  EXPECT_NE(SolveAny(fails, 5), SolveStatus::kSafe);
}

// A division by zero is undefined: any value in the clauses (the interpreter stops the run there), which Spacer
// takes, where z3's division by the numeral 0 was refused like a division by a variable.
TEST(DivisionByAVariable, ADivisionByZeroIsAnyValue) {
  const char* kProgram = R"(extern int __VERIFIER_nondet_int(void);
int main() {
  int x = __VERIFIER_nondet_int();
  int y = 0;
  if (%s) y = x / 0 + x %% 0;
  __VERIFIER_assert(y == 0);
  return 0;
})";
  EXPECT_EQ(SolveAny(ParseFilled(kProgram, "x > 5 && x < 3"), 5), SolveStatus::kSafe);
  const Program reached = ParseFilled(kProgram, "x > 5");
  EXPECT_NE(SolveAny(reached, 5), SolveStatus::kSafe);
  EXPECT_EQ(InterpretOn(reached, {6}), Outcome::kUndefined);
}

// Spacer still refuses a remainder by a symbolic UINT_MAX + 1 (an unsigned product wrapped under the symbolic
// encoding): its message, which carries the clause over hundreds of lines, becomes one line that says so.
TEST(DivisionByAVariable, SpacersRefusalOfARemainderBySymbolicUintMaxIsOneLine) {
  const Program p = ParseText(R"(extern unsigned int __VERIFIER_nondet_uint(void);
int main() {
  unsigned int s = __VERIFIER_nondet_uint();
  unsigned int t = s * 3u;
  __VERIFIER_assert(t != 7u);
  return 0;
})");
  HornProblem problem(p, 10, true);
  const SolveResult r = problem.Solve(Portfolio()[0], 10);
  EXPECT_EQ(r.status, SolveStatus::kUnknown);
  EXPECT_EQ(r.reason.rfind(std::string("solver: ") + kDivisionRefusal, 0), 0u) << r.reason;
  EXPECT_EQ(r.reason.find('\n'), std::string::npos) << r.reason;
}

// x & y, x | y and x ^ y of two variables are exact in the clauses (horn.cc, Bitwise): their bits, as many as the
// operands' ranges need, with the result's bits by linear facts. Spacer proves the assertions below that hold
// (the loop keeps the interpreter from trying every input), and reaches each one that fails, at the value
// the interpreter fails at: a fact too strong would prove it, one too weak would not reach it exactly.
TEST(BitwiseOfTwoVariables, ExactInTheClauses) {
  const char* kProgram = R"(extern int __VERIFIER_nondet_int(void);
int main() {
  unsigned char x = __VERIFIER_nondet_int();
  unsigned char y = __VERIFIER_nondet_int();
  signed char s = __VERIFIER_nondet_int();
  int n = __VERIFIER_nondet_int();
  int i = 0;
  while (i < n) i++;
  __VERIFIER_assert(%s);
  return 0;
})";
  for (const char* holds : {"(x & y) <= x", "(x | y) >= y", "(x ^ y ^ y) == x", "(s & x) >= 0", "(s | x) <= 255",
                            "s >= 0 || (s | x) < 0", "(s & (unsigned)x) <= 255u || s < 0"}) {
    EXPECT_EQ(SolveAny(ParseFilled(kProgram, holds), 5), SolveStatus::kSafe) << holds;
  }
  const std::pair<const char*, std::vector<long long>> kFails[] = {
      {"(x & y) != 36 || x != 37 || y != 100", {37, 100, 0, 0}},
      {"(x | y) != 129 || y != 1", {128, 1, 0, 0}},
      {"(x ^ y) != 255 || x != 170", {170, 85, 0, 0}},
      {"(s & x) != 200", {200, 0, -56, 0}},
      {"(s | x) != -1 || x != 127", {127, 0, -128, 0}},
      {"(s ^ x) != -2 || x != 1", {1, 0, -1, 0}},
      {"(s & (unsigned)x) != 130 || x != 130", {130, 0, -126, 0}},
      {"(s ^ (unsigned)x) != 4294967040u", {255, 0, -1, 0}}};
  for (const auto& [fails, inputs] : kFails) {
    const Program p = ParseFilled(kProgram, fails);
    EXPECT_EQ(InterpretOn(p, inputs), Outcome::kError) << fails;
    EXPECT_EQ(SolveAny(p, 5), SolveStatus::kUnsafe) << fails;
  }
}

TEST(SymbolicConstants, CarryTheirResiduesModuloTheProgramsDivisors) {
  // j ends at K - K / 2, which is at most K / 2 only for an even K: with K >= 1 alone, Spacer finds the odd K a
  // counterexample; with K mod 2 == 0 (2 divides in the program) it proves the bound. With 1000001 the
  // residue is 1 and the bug at the constant stays reachable.
  const char* kHalf = R"(int main() {
    int j = 0;
    for (int i = 0; i < %d; i++) { if (i >= %d / 2) j++; }
    __VERIFIER_assert(j <= %d / 2);
    return 0; })";
  for (int n : {1000000, 1000001}) {
    const Program p = ParseFilled(kHalf, n, n, n);
    HornProblem problem(p, 10, false, true);
    const SolveResult r = problem.Solve(Portfolio()[1], 20);  // qgen: no-eq-prop does not find the proof
    EXPECT_EQ(r.status, n % 2 == 0 ? SolveStatus::kSafe : SolveStatus::kUnsafe) << n;
  }
}

TEST(SetOnceConstants, AScalarSetOnceBeforeAnyReadIsReadAsItsValue) {
  const Program p = ParseText(R"(
int size = 1000;
int main() {
  unsigned int r = 3; int n = __VERIFIER_nondet_int(); int m = 1; int w = 2; int late;
  if (n > 0) w = 4;
  int a[size];
  for (int i = 0; i < size; i++) a[i] = i % r + m + w;
  m = 5;
  late = 7;
  __VERIFIER_assert(a[0] + late + n > 0);
  return 0; })");
  std::vector<std::string> applied;
  const Program q = SubstituteSetOnceConstants(p, applied);
  // m is set twice, w also in the if, n to an input; late is declared first (a havoc: a write too).
  ASSERT_EQ(applied, (std::vector<std::string>{"read as constants, set once before any read: size = 1000, r = 3"}));
  const std::string c = PrintProgram(q);
  EXPECT_NE(c.find("% 3u"), std::string::npos) << c;
  EXPECT_NE(c.find("< 1000"), std::string::npos) << c;
  EXPECT_NE(c.find("(unsigned int)m)) + ((unsigned int)w)"), std::string::npos) << c;
  for (long long n : {-9LL, 0LL, 5LL}) {
    EXPECT_EQ(testing::InterpretOn(q, {n}), testing::InterpretOn(p, {n})) << n;
  }
  std::vector<std::string> none;
  EXPECT_EQ(PrintProgram(SubstituteSetOnceConstants(ParseText("int main() { int k = __VERIFIER_nondet_int(); "
                                                              "__VERIFIER_assert(k != 1); return 0; }"),
                                                    none)),
            PrintProgram(ParseText("int main() { int k = __VERIFIER_nondet_int(); __VERIFIER_assert(k != 1); "
                                   "return 0; }")));
  EXPECT_TRUE(none.empty());
}

TEST(ConstantCells, AnArrayIndexedOnlyByConstantsBecomesScalars) {
  // array-fpi's accumulator: sum[0] carried from loop to loop. As a scalar it can be guessed, so all three
  // loops fuse; a keeps its array (a[i]).
  const Program p = ParseText(R"(int main() {
    int n = __VERIFIER_nondet_int(); if (n <= 0 || n > 100000) return 0;
    long long sum[1]; int a[n];
    sum[0] = 0;
    for (int i = 0; i < n; i++) a[i] = 1;
    for (int i = 0; i < n; i++) sum[0] = sum[0] + a[i];
    for (int i = 0; i < n; i++) sum[0] = sum[0] + 1;
    __VERIFIER_assert(sum[0] == 2 * (long long)n);
    return 0; })");
  std::vector<std::string> applied;
  const Program q = ScalarizeConstantCells(p, applied);
  ASSERT_EQ(applied, (std::vector<std::string>{"array cells indexed only by constants as scalars: sum[0] as sum_0"}));
  EXPECT_EQ(q.cell_scalars.at("sum_0"), (std::pair<std::string, Int128>{"sum", 0}));
  EXPECT_FALSE(q.VarNamed("sum_0").is_array);
  const std::string c = PrintProgram(q);
  EXPECT_EQ(c.find("sum["), std::string::npos) << c;
  EXPECT_NE(c.find("a[((long long)i"), std::string::npos) << c;
  for (long long n : {0LL, 1LL, 7LL}) EXPECT_EQ(testing::InterpretOn(q, {n}), testing::InterpretOn(p, {n})) << n;
  const Variant fused = Transform(q, FusionMode::kAll);
  ASSERT_FALSE(fused.transformations.empty());
  EXPECT_NE(fused.transformations.back().find("guess-and-assume"), std::string::npos) << fused.transformations.back();
  const Verdict v = Verify(p, VerifyOptions{30, true});
  EXPECT_EQ(v.verdict, "true") << v.reason;
  ASSERT_FALSE(v.transformations.empty());
  EXPECT_EQ(v.transformations[0], applied[0]);
}

TEST(Horn, APredicateCarriesOnlyTheVariablesLiveAtItsLoopHead) {
  // t is overwritten after the loop before any read: it is dead at the head, and a dead argument is one
  // more dimension for Spacer to generalise over.
  const Program p = ParseText(R"(int main() {
    int n = __VERIFIER_nondet_int(); int t = 7; int i = 0;
    while (i < n) { i++; }
    t = i;
    __VERIFIER_assert(t >= 0 || n < 0);
    return 0; })");
  z3::context ctx;
  const HornSystem sys = EncodeHorn(p, ctx);
  ASSERT_EQ(sys.pred_vars.size(), 1u);
  EXPECT_EQ(sys.pred_vars[0], (std::vector<std::string>{"i", "n"}));
}

// A loop that takes `locks` locks where their conditions hold and releases them, checking each is held
// (SV-COMP's locks tasks): 2^(2 * locks) paths through one iteration. With bug, the last release checks a
// lock that its condition may leave free.
std::string Locks(int locks, bool bug) {
  std::string text = "int main() {\n";
  for (int k = 0; k < locks; ++k) {
    text += "  int p" + std::to_string(k) + " = __VERIFIER_nondet_int(), l" + std::to_string(k) + ";\n";
  }
  text += "  while (__VERIFIER_nondet_int()) {\n";
  for (int k = 0; k < locks; ++k) text += "    l" + std::to_string(k) + " = 0;\n";
  for (int k = 0; k < locks; ++k) text += "    if (p" + std::to_string(k) + " != 0) l" + std::to_string(k) + " = 1;\n";
  for (int k = 0; k < locks; ++k) {
    const std::string p = "p" + std::to_string(k), l = "l" + std::to_string(k);
    const std::string held = bug && k == locks - 1 ? "p0 != 0" : p + " != 0";
    text += "    if (" + held + ") { if (" + l + " != 1) reach_error(); " + l + " = 0; }\n";
  }
  return text + "  }\n  return 0;\n}\n";
}

TEST(Horn, TooManyPathsBetweenLoopHeadsAreMergedIntoOneFormula) {
  // 2^16 paths through the body of 8 locks: past the paths enumerated, the body is one formula, with a clause
  // back to the loop head and one for each release's check.
  const Program p = ParseText(Locks(8, false));
  z3::context ctx;
  const HornSystem sys = EncodeHorn(p, ctx);
  EXPECT_EQ(sys.preds.size(), 1u);
  EXPECT_LT(sys.clauses.size(), 20u);
  EXPECT_EQ(SolveAny(p), SolveStatus::kSafe);
  EXPECT_EQ(SolveAny(ParseText(Locks(8, true))), SolveStatus::kUnsafe);
  // SV-COMP's largest (locks 15: 2^30 paths), which a predicate at each join of branches did not prove in 20 s.
  EXPECT_EQ(SolveAny(ParseText(Locks(15, false))), SolveStatus::kSafe);
  // Few paths: a clause each (4 merged).
  EXPECT_GT(EncodeHorn(ParseText(Locks(2, false)), ctx).clauses.size(), 10u);
  EXPECT_LT(EncodeHorn(ParseText(Locks(2, false)), ctx, 60, false, false, 0).clauses.size(), 6u);
}

TEST(Fuse, PrintsCThatGccCompiles) {
  const Program p = ParseText(R"(int main() {
    unsigned int n = __VERIFIER_nondet_uint(); unsigned int x = n, y = 0;
    while (x > 0) { x--; y++; }
    unsigned int z = y;
    while (z > 0) { x++; z--; }
    __VERIFIER_assert(x == n);
    return 0; })");
  const Variant v = Transform(p, FusionMode::kAll);
  ASSERT_FALSE(v.transformations.empty());
  const testing::GccProgram gcc(v.prog);
  EXPECT_TRUE(gcc.error().empty()) << gcc.error();
}

TEST(WrapSplit, AProgramThatNeedsAWrapAroundFailsTheNoWrapHalf) {
  // Under no wrap-around y = n + 1 is never 0, so the other half is safe: the proof must fail here.
  const Program p = ParseText(R"(int main() {
    unsigned int n = __VERIFIER_nondet_uint(); unsigned int y = n + 1;
    __VERIFIER_assert(y != 0);
    return 0; })");
  WrapSplit split;
  ASSERT_TRUE(SplitWrapChecks(p, split));
  EXPECT_EQ(SolveAny(split.under_no_wrap, 5, true), SolveStatus::kSafe);
  EXPECT_EQ(SolveAny(split.no_wrap, 5, true), SolveStatus::kUnsafe);
  EXPECT_NE(Verify(p, VerifyOptions{5, true}).verdict, "true");
  // The error is the program's, at n == UINT_MAX.
  EXPECT_EQ(InterpretOn(p, {4294967295LL}), Outcome::kError);
}

TEST(WrapSplit, TheNoWrapHalfStopsAtTheProgramsOwnErrors) {
  // x + 1 wraps only past the failing assertion: no_wrap is safe, and the bug stays in the other half.
  const Program p = ParseText(R"(int main() {
    unsigned int x = __VERIFIER_nondet_uint();
    if (x == 4294967295u) reach_error();
    __VERIFIER_assert(x != 7);
    x = x + 1;
    return 0; })");
  WrapSplit split;
  ASSERT_TRUE(SplitWrapChecks(p, split));
  EXPECT_EQ(SolveAny(split.no_wrap, 5, true), SolveStatus::kSafe);
  EXPECT_EQ(SolveAny(split.under_no_wrap, 5, true), SolveStatus::kUnsafe);
  const Verdict v = Verify(p, VerifyOptions{10, true});
  EXPECT_EQ(v.verdict, "false") << v.reason;
}

TEST(WrapSplit, ProgramsWithoutUnsignedArithmeticAreNotSplit) {
  WrapSplit split;
  EXPECT_FALSE(SplitWrapChecks(ParseText("int main() { int x = __VERIFIER_nondet_int(); x = x + 1; return 0; }"), split));
}

TEST(SymbolicUintMax, KeepsABugAtTheBound) {
  // With UINT_MAX a parameter M, the cell x == M is still reachable: the encoding is exact at M = 2^32 - 1.
  const Program p = ParseText(R"(int main() {
    unsigned int x = __VERIFIER_nondet_uint();
    if (x == 4294967295u) reach_error();
    return 0; })");
  EXPECT_EQ(SolveAny(p, 5, true), SolveStatus::kUnsafe);
  EXPECT_EQ(SolveAny(p), SolveStatus::kUnsafe);
}

TEST(SymbolicUintMax, KeepsAWrapAround) {
  // x + 1 wraps to 0 at x == M: the modulo case split is kept with M + 1 for 2^32.
  const Program p = ParseText(R"(int main() {
    unsigned int x = __VERIFIER_nondet_uint(); unsigned int y = x + 1;
    if (y == 0) reach_error();
    return 0; })");
  EXPECT_EQ(SolveAny(p, 5, true), SolveStatus::kUnsafe);
}

TEST(Verifier, ProvesAnUnsignedCounterTransferThroughTheWrapSplit) {
  // in-de20 of the SV-COMP tasks: plain Spacer and the fused program with exact wrap-around time out.
  const Program p = ParseText(R"(int main() {
    unsigned int n = __VERIFIER_nondet_uint(); unsigned int x = n, y = 0, z;
    while (x > 0) { x--; y++; }
    z = y;
    while (z > 0) { x++; z--; }
    __VERIFIER_assert(x == n);
    return 0; })");
  const Verdict v = Verify(p, VerifyOptions{60, true});
  EXPECT_EQ(v.verdict, "true") << v.reason;
  EXPECT_NE(v.solved_by.find("no wrap-around"), std::string::npos) << v.solved_by;
  EXPECT_NE(v.reason.find("split"), std::string::npos) << v.reason;
}

TEST(Solver, ACpuTimeLimitEndsARunBeforeItsWallClockLimit) {
  // Unfused, the second loop needs a quantified invariant that Spacer does not find: only a limit ends
  // the run, here the 0.3 s of CPU time and not the 60 s of wall time.
  const Program p = ParseText(R"(int main() {
    int a[1000]; int i;
    for (i = 0; i < 1000; i++) a[i] = 0;
    for (i = 0; i < 1000; i++) __VERIFIER_assert(a[i] == 0);
    return 0; })");
  HornProblem problem(p, 10);
  const SolveResult r = problem.Solve(Portfolio()[0], 60, 0, 0.3);
  EXPECT_EQ(r.status, SolveStatus::kUnknown);
  EXPECT_LT(r.seconds, 30);
}

TEST(Solver, ACpuTimeLimitEndsTheEncodingToo) {
  // Two calls a level, inlined to 1 024 calls: a program of a thousand paths whose clauses take seconds to make
  // (recursive's Fibonacci01-1: 1.6 s, Addition03-1: 17 s), which held a worker for all the time left.
  const Program fib = ParseText(R"(int fib(int n) { if (n < 2) return n; return fib(n - 1) + fib(n - 2); }
    int main() { int x = __VERIFIER_nondet_int(); __VERIFIER_assert(fib(x) >= 0); return 0; })");
  HornProblem cut(fib, 60, false, false, kMergeAbovePaths, 0.02);
  EXPECT_EQ(cut.encode_error().rfind("encoding interrupted", 0), 0u) << cut.encode_error();
  EXPECT_TRUE(cut.encode_interrupted());
  const SolveResult r = cut.Solve(Portfolio()[0], 60, 0, 1);
  EXPECT_EQ(r.status, SolveStatus::kUnknown);
  EXPECT_EQ(r.reason, cut.encode_error());
  // A small program is encoded within the limit, and solved.
  HornProblem small(ParseText(R"(int main() { int x = __VERIFIER_nondet_int(); if (x > 0) __VERIFIER_assert(x != 0);
    return 0; })"), 60, false, false, kMergeAbovePaths, 1);
  EXPECT_EQ(small.encode_error(), "");
  EXPECT_FALSE(small.encode_interrupted());
  EXPECT_EQ(small.Solve(Portfolio()[0], 60, 0, 10).status, SolveStatus::kSafe);
}

TEST(Solver, AModelLostInZ3sInliningOfRulesIsAskedForAgainWithout) {
  // Reduced from sv-benchmarks' psyco_io_1: with Z3's linear inlining of rules on, the model of the loop head
  // that Spacer returns leaves out the loop's first state, and every option set's model failed the check on
  // the entry clause; Spacer again without inlining gives one that passes.
  const Program p = ParseText(R"(int main() {
    int q = 0;
    int unused;
    int sink = 0;
    while (1) {
      int a = __VERIFIER_nondet_int();
      int b = __VERIFIER_nondet_int();
      if (q == 0) {
        if (__VERIFIER_nondet_int()) {
          if (1) { q = 2; }
        }
      }
      if (q == 1) {
        if (__VERIFIER_nondet_int()) {
          if (b != 1 && a != 0) {
            if (b != 1 && sink == 0 && a != 0) goto ERROR;
          }
        }
      }
    }
  ERROR:
    reach_error();
    return 0; })");
  HornProblem problem(p, 10);
  for (const OptionSet& o : Portfolio()) {
    const SolveResult r = problem.Solve(o, 30, 30, 10);
    EXPECT_EQ(r.status, SolveStatus::kSafe) << o.name << ": " << r.reason;
  }
}

TEST(Solver, ACrashInsideZ3IsARunWithoutAnswerNotAFailure) {
  // A null context crashes inside libz3 at once, as Z3 4.8.12 once crashed inside Z3_optimize_check (CI on
  // dc599c9, under ASan, whose report made it a failed test); a crash of the caller's stays a failure there.
  common::ForkServer server(
      1,
      [](const std::string& request) -> std::string {
        if (request == "z3") Z3_inc_ref(nullptr, nullptr);
        return "no crash";
      },
      Z3Failures());
  const common::ForkServer::Reply reply = server.Call(0, "z3", 30, nullptr);
  EXPECT_FALSE(reply.ok);
  EXPECT_FALSE(reply.failed) << reply.text;
  EXPECT_NE(reply.text.find("signal 11"), std::string::npos) << reply.text;
  EXPECT_NE(reply.text.find("a crash inside "), std::string::npos) << reply.text;
  EXPECT_NE(reply.text.find("libz3"), std::string::npos) << reply.text;
  EXPECT_EQ(server.Call(0, "again", 30, nullptr).text, "no crash");
}

TEST(Verifier, StopsTheSolversOnceAConcreteRunSettlesTheVerdict) {
  // A bug at the first statement: the concrete search finds it at once, and the solvers running next to
  // it (on a program they cannot prove) must be stopped, not left to the 60 s limit.
  const Program p = ParseText(R"(int main() {
    unsigned int n = __VERIFIER_nondet_uint(); __VERIFIER_assert(n != 3);
    unsigned int x = n, y = 0;
    while (x > 0) { x--; y++; }
    while (y > 0) { y--; x++; }
    __VERIFIER_assert(x == n);
    return 0; })");
  const Verdict v = Verify(p, VerifyOptions{60, true});
  EXPECT_EQ(v.verdict, "false") << v.reason;
  EXPECT_LT(v.seconds, 30);
}

TEST(Verifier, ReportsProgressFromItsOwnThreadWhileTheSolversRun) {
  // The invariant s == i * i is outside Spacer's linear arithmetic: nothing settles the verdict in 1.5 s.
  const Program p = ParseText(R"(int main() {
    int n = __VERIFIER_nondet_int(); if (n < 0 || n > 1000000) return 0;
    long long i = 0, s = 0;
    while (i < n) { i++; s += 2 * i - 1; }
    __VERIFIER_assert(s == i * i);
    return 0; })");
  std::mutex mutex;
  std::vector<double> calls;
  bool on_the_callers_thread = false;
  VerifyOptions options{1.5, false, 0, false, false};
  options.on_progress = [&, caller = std::this_thread::get_id()](double seconds) {
    std::lock_guard<std::mutex> lock(mutex);
    calls.push_back(seconds);
    on_the_callers_thread |= std::this_thread::get_id() == caller;
  };
  const Verdict v = Verify(p, options);
  EXPECT_EQ(v.verdict, "unknown") << v.reason;
  EXPECT_FALSE(on_the_callers_thread);
  ASSERT_FALSE(calls.empty());
  EXPECT_TRUE(std::is_sorted(calls.begin(), calls.end()));
  EXPECT_LE(calls.back(), v.seconds);
}

// A loop that fixes two cells per iteration, then one that checks one (array-tiling/skipped.c).
constexpr const char* kTwoCellsThenOne = R"(int main() {
    int n = __VERIFIER_nondet_int(); if (n < 0 || n > 1000) return 0;
    int a[n]; int i;
    for (i = 0; i < n; i++) a[i] = __VERIFIER_nondet_int();
    if (n %% 2 != 0) return 0;
    for (i = 1; i <= n / 2; i++) {
      if (a[2 * i - 2] > 2 * i - 2) a[2 * i - 2] = 2 * i - 2;
      if (a[2 * i - 1] > 2 * i - 1) a[2 * i - 1] = 2 * i - 1;
    }
    for (i = 0; i < n; i++) __VERIFIER_assert(a[i] %s i);
    return 0; })";

// kTwoCellsThenOne with the comparison op in its assertion.
Program TwoCellsThenOne(const char* op) {
  return ParseFilled(kTwoCellsThenOne, op);
}

TEST(RateAlignment, UnrollsTheLoopThatTakesOneCellPerIteration) {
  // Without the parity assumption, n = 7 makes the last round of the unrolled loop run one copy only: the
  // counter must still end at 7 (a plain `i = i + 2` would leave 8 and hide the failing assertion).
  const Program p = ParseText(R"(int main() {
    int n = __VERIFIER_nondet_int(); if (n < 0 || n > 1000) return 0;
    int a[n + 1]; int i;
    for (i = 1; i <= n / 2; i++) { a[2 * i - 2] = 0; a[2 * i - 1] = 1; }
    for (i = 0; i < n; i++) a[i] = a[i] + 1;
    __VERIFIER_assert(i != 7);
    return 0; })");
  Program rated = p;
  std::vector<std::string> applied;
  rated.body = RateAlignment(p.body, applied);
  ASSERT_EQ(applied.size(), 1u);
  EXPECT_EQ(applied[0], "rate alignment: the loop at line 5 unrolled 2 times");
  ExpectSameBehaviour(p, rated);
  const auto items = Flatten(rated.body);
  std::optional<CountedLoop> loop;
  bool plain_counted = false;  // the other transformations know only steps of 1
  for (size_t k = 1; k < items.size(); ++k) {
    if (items[k]->kind != StmtKind::kLoop) continue;
    loop = AsCounted(items[k - 1], items[k], true);
    plain_counted = AsCounted(items[k - 1], items[k]).has_value();
  }
  ASSERT_TRUE(loop.has_value());
  EXPECT_EQ(loop->stride, 2);
  EXPECT_FALSE(plain_counted);
}

TEST(RateAlignment, TheClampedStepStoresNoValueOutsideTheType) {
  // Three iterations up to INT_MAX: `i = i + 2` after the last would store 2^31, which the Horn clauses
  // and the interpreter take as a mathematical integer, failing the assertion that the original meets.
  const Program p = ParseText(R"(int main() {
    int a[4]; int i; int j;
    for (j = 0; j < 2; j++) { a[2 * j] = 1; a[2 * j + 1] = 1; }
    for (i = 2147483644; i < 2147483647; i++) __VERIFIER_assert(a[i - 2147483644] == 1);
    __VERIFIER_assert(i == 2147483647);
    return 0; })");
  Program rated = p;
  std::vector<std::string> applied;
  rated.body = RateAlignment(p.body, applied);
  ASSERT_EQ(applied.size(), 1u);
  ExpectSameBehaviour(p, rated);
  EXPECT_EQ(SolveAny(rated), SolveStatus::kSafe);
}

TEST(RateAlignment, LetsGuessAndAssumeFuseLoopsOfDifferentRates) {
  for (const char* op : {"<=", "<"}) {
    const Program p = TwoCellsThenOne(op);
    const Variant v = Transform(p, FusionMode::kGuess);
    ASSERT_EQ(v.transformations.size(), 2u) << op;
    EXPECT_EQ(v.transformations[0], "rate alignment: the loop at line 10 unrolled 2 times");
    EXPECT_EQ(v.transformations[1], "guess-and-assume fusion of the loops at lines 6, 10");
    EXPECT_EQ(CountLoops(v.prog.body), 2);
    ExpectSameBehaviour(p, v.prog);  // no guess: every counter is set before its loop
    // 30 s per option set: the proof takes 2 s of CPU time, which the loaded shared machine stretched past 10 s.
    EXPECT_EQ(SolveAny(v.prog, 30), std::string(op) == "<=" ? SolveStatus::kSafe : SolveStatus::kUnsafe) << op;
  }
}

TEST(RateAlignment, RefusesAReadAheadOfTheCellsOfTheRound) {
  // Round t of the first loop writes a[2t] and a[2t+1]; the unrolled second loop would read a[2t+2] in
  // that round, which the first writes one round later: fused, it would see the old value. (From i = 1
  // the first loop would write a[2t+2] in round t, and the loops would be in step.)
  const Program p = ParseText(R"(int main() {
    int n = __VERIFIER_nondet_int(); if (n < 0 || n > 1000) return 0;
    int a[2 * n + 2]; int i;
    for (i = 0; i <= n; i++) { a[2 * i] = 0; a[2 * i + 1] = 0; }
    for (i = 0; i < 2 * n; i++) __VERIFIER_assert(a[i + 2] == 0);
    return 0; })");
  for (const auto& line : Transform(p, FusionMode::kGuess).transformations) {
    EXPECT_EQ(line.find("guess-and-assume"), std::string::npos) << line;
  }
}

TEST(RateAlignment, RefusesALoopWhoseCellsSpanMoreThanOneRound) {
  // a[2i] and a[2i+2] in one iteration: cell 2t+2 belongs to rounds t and t+1.
  const Program p = ParseText(R"(int main() {
    int n = __VERIFIER_nondet_int(); if (n < 0 || n > 1000) return 0;
    int a[2 * n + 3]; int i;
    for (i = 0; i < n; i++) { a[2 * i] = 1; a[2 * i + 2] = 0; }
    for (i = 0; i < 2 * n; i++) __VERIFIER_assert(a[i] == 1 || i % 2 == 1 || i == 0);
    return 0; })");
  for (const auto& line : Transform(p, FusionMode::kGuess).transformations) {
    EXPECT_EQ(line.find("guess-and-assume"), std::string::npos) << line;
  }
}

TEST(GuessAndAssume, GuessesNoCounterThatTheLaterLoopSetsFirst) {
  const char* kCounters = R"(int main() {
    int n = __VERIFIER_nondet_int(); if (n < 0 || n > 100) return 0;
    int i = 0; int k = 0;
    while (i < n) i++;
    %s
    while (i < n) { __VERIFIER_assert(k == n); i++; }
    return 0; })";
  // i = 0 first: no guess for i. k = i first reads the first loop's i: its guess stays (without it, k
  // would be 0 and the assertion fail for n > 0).
  for (const char* between : {"i = 0; k = n;", "k = i; i = 0;"}) {
    const Program p = ParseFilled(kCounters, between);
    const Variant v = Transform(p, FusionMode::kGuess);
    ASSERT_EQ(v.transformations.size(), 1u) << between;
    EXPECT_EQ(PrintProgram(v.prog).find("guess_i") != std::string::npos, between[0] == 'k') << between;
    EXPECT_EQ(SolveAny(v.prog), SolveStatus::kSafe) << between;
  }
}

TEST(GuessAndAssume, ALaterLoopThatRunsNoIterationHandsOnTheValueBeforeIt) {
  // The second loop writes s without reading it and runs no iteration for n = 0, where s keeps the value
  // set before the loops: the copy of s in the fused loop starts from it (it was left uninitialised, and
  // the fused program failed its assertion for n = 0).
  const Program p = ParseText(R"(int main() {
    int n = __VERIFIER_nondet_int(); if (n < 0 || n > 4) return 0;
    int s = n; int i = 0; int j = 0;
    while (i < n) i++;
    while (j < 2 * n) { s = 0; j++; }
    __VERIFIER_assert(s == 0);
    return 0; })");
  const Variant v = Transform(p, FusionMode::kGuess);
  ASSERT_EQ(v.transformations.size(), 1u);
  EXPECT_EQ(PrintProgram(v.prog).find("guess_"), std::string::npos);  // no guess, so no value read more
  ExpectSameBehaviour(p, v.prog);
  EXPECT_EQ(SolveAny(v.prog), SolveStatus::kSafe);
}

TEST(GuessAndAssume, RefusesArraysInStepFromTwoNondeterministicFirstValues) {
  // Both counters start at `__VERIFIER_nondet_int()`: the same expression, but two values, so the loops
  // are not in step (round t writes a[i0 + t] and reads a[j0 + t]).
  const Program p = ParseText(R"(int main() {
    int n = __VERIFIER_nondet_int(); if (n < 0 || n > 100) return 0;
    int a[200]; int i; int j;
    for (i = 0; i < 200; i++) a[i] = 0;
    i = __VERIFIER_nondet_int();
    for (; i < n; i++) a[i] = 1;
    j = __VERIFIER_nondet_int();
    for (; j < n; j++) __VERIFIER_assert(a[j] == 1);
    return 0; })");
  for (FusionMode mode : {FusionMode::kGuess, FusionMode::kAll}) {
    for (const auto& line : Transform(p, mode).transformations) {
      EXPECT_EQ(line.find("guess-and-assume"), std::string::npos) << line;
    }
  }
}

// A loop that copies b from both ends (cells i + 10 and n + 9 - i), then one that checks b[i + 10] and the
// counter it leaves (array-tiling/tcpy.c's shape, with the copy's length m free, so that the split point
// lies anywhere: before the checking loop's range, inside it, past it).
constexpr const char* kCopyFromBothEnds = R"(int main() {
    int n = __VERIFIER_nondet_int(); int m = __VERIFIER_nondet_int(); int k = __VERIFIER_nondet_int();
    if (n < 0 || n > 9 || m > 9) return 0;
    int a[30]; int b[30]; int i;
    for (i = 0; i < 30; i++) { a[i] = i; b[i] = 0; }
    for (i = 0; i < m; i++) { b[i + 10] = a[i]; b[n + 9 - i] = a[i] + 1; }
    for (i = 0; i < n; i++) %s
    __VERIFIER_assert(i != 7);
    return 0; })";

// kCopyFromBothEnds with body as the checking loop's body.
Program CopyFromBothEnds(const char* body) {
  return ParseFilled(kCopyFromBothEnds, body);
}

// The outcomes of a program on the inputs (n, m, k) of kCopyFromBothEnds: n and m over their ranges and
// past them, k over values that the copies hold or not.
std::vector<std::string> OutcomesOnCopyInputs(const Program& p) {
  std::vector<std::string> out;
  for (long long n = -1; n <= 10; ++n) {
    for (long long m = -2; m <= 10; ++m) {
      for (long long k : {0, 1, 3, 12, 15}) out.push_back(OutcomeName(InterpretOn(p, {n, m, k})));
    }
  }
  return out;
}

TEST(IndexSetSplitting, SplitsWhereTheEarlierLoopEndsAndReversesTheRest) {
  const Program p = CopyFromBothEnds("__VERIFIER_assert(b[i + 10] != k);");
  Program split = p;
  std::vector<std::string> applied;
  split.body = IndexSetSplitting(p.body, applied);
  ASSERT_EQ(applied.size(), 1u);
  EXPECT_EQ(applied[0], "index-set splitting: the loop at line 7 split where the loop at line 6 ends, its second part "
                        "reversed");
  const std::string c = PrintProgram(split);
  // The first part up to the split point clamped to the bound; the rest from the bound down to where the
  // first part stopped; the counter as the original leaves it.
  EXPECT_NE(c.find("for (; (i < ((m < n) ? m : n)); i = (i + 1)) {"), std::string::npos) << c;
  EXPECT_NE(c.find("i = (n - 1);\n  for (; (i > (((0 < ((m < n) ? m : n)) ? ((m < n) ? m : n) : 0) - 1)); "
                   "i = (i - 1)) {"),
            std::string::npos)
      << c;
  EXPECT_NE(c.find("i = ((((0 < ((m < n) ? m : n)) ? ((m < n) ? m : n) : 0) <= (n - 1)) ? n : "), std::string::npos)
      << c;
  // Exact wherever the split point lies, including the counter's final value (i != 7).
  EXPECT_EQ(OutcomesOnCopyInputs(p), OutcomesOnCopyInputs(split));
}

TEST(IndexSetSplitting, FusesThePartsInStepWithBothDirectionsAndHidesNoBug) {
  const Program p = CopyFromBothEnds("__VERIFIER_assert(b[i + 10] != k);");
  const Variant v = Transform(p, FusionMode::kSplit);
  ASSERT_EQ(v.transformations.size(), 2u);
  EXPECT_EQ(v.transformations[1], "guess-and-assume fusion of the loops at lines 6, 7, 7");
  EXPECT_EQ(CountLoops(v.prog.body), 2);
  // Where the copies overlap (2m - 1 >= n) the fused program fails its check of the cell ranges: a false
  // alarm, which only costs the proof. An error of the original is never lost.
  const auto original = OutcomesOnCopyInputs(p), fused = OutcomesOnCopyInputs(v.prog);
  int alarms = 0;
  for (size_t i = 0; i < original.size(); ++i) {
    if (original[i] != fused[i]) {
      EXPECT_EQ(fused[i], "error") << i;
      ++alarms;
    }
  }
  EXPECT_GT(alarms, 0);
  EXPECT_LT(alarms, static_cast<int>(original.size()) / 2);
}

TEST(IndexSetSplitting, LeavesALoopWhoseRestCannotBeReversed) {
  // Each iteration reads the cell the next one writes: the rest cannot run backwards.
  const Program p = CopyFromBothEnds("b[i + 10] = b[i + 11] + 1;");
  Program split = p;
  std::vector<std::string> applied;
  split.body = IndexSetSplitting(p.body, applied);
  EXPECT_TRUE(applied.empty());
  EXPECT_TRUE(Transform(p, FusionMode::kSplit).transformations.empty());
}

// array-tiling/tcpy.c with the copying loop's bound, its two assignments and the checking loop's bound as
// parameters.
constexpr const char* kTcpy = R"(int main() {
    int SIZE = __VERIFIER_nondet_int();
    if (SIZE > 1) {
      int i; int a[SIZE]; int acopy[SIZE];
      for (i = 0; i < SIZE; i++) a[i] = __VERIFIER_nondet_int();
      if (SIZE %% 2 != 0) return 1;
      for (i = 0; i < %s; i++) { %s %s }
      for (i = 0; i < %s; i++) __VERIFIER_assert(acopy[i] == a[i]);
    }
    return 1; })";

// kTcpy with its parameters.
Program Tcpy(const char* copies, const char* high, const char* low, const char* checks) {
  return ParseFilled(kTcpy, copies, high, low, checks);
}

TEST(IndexSetSplitting, ProvesTheCopyFromBothEnds) {
  const Program p = Tcpy("SIZE / 2", "acopy[SIZE - i - 1] = a[SIZE - i - 1];", "acopy[i] = a[i];", "SIZE");
  // 60 s: the proof takes about 2 s of CPU time, which a loaded machine stretches.
  const Verdict v = Verify(p, VerifyOptions{60, true});
  EXPECT_EQ(v.verdict, "true") << v.reason;
  EXPECT_EQ(v.solved_by.rfind("split+guess", 0), 0u) << v.solved_by;
}

TEST(IndexSetSplitting, NeverProvesABuggyCopy) {
  struct Bug {
    const char* copies;
    const char* high;
    const char* low;
    const char* checks;
  };
  const Bug bugs[] = {
      {"SIZE / 2", "acopy[SIZE - i - 1] = a[SIZE - i - 1];", "acopy[i] = a[i] + 1;", "SIZE"},  // a wrong value
      {"SIZE / 2 - 1", "acopy[SIZE - i - 1] = a[SIZE - i - 1];", "acopy[i] = a[i];", "SIZE"},  // one short
      {"SIZE / 2", "acopy[SIZE - i - 1] = a[SIZE - i - 1];", "acopy[i] = a[i];", "SIZE + 1"},  // one past
      // The copies overlap: cell SIZE/2 - 1 gets 0 in the last round, after a[SIZE/2 - 1]. Fused without
      // the check of the cell ranges, the first part would read it in step with a[SIZE/2 - 1] and miss the bug.
      {"SIZE / 2 + 1", "acopy[SIZE - i - 1] = 0;", "acopy[i] = a[i];", "SIZE / 2"},
  };
  for (const Bug& b : bugs) {
    const Program p = Tcpy(b.copies, b.high, b.low, b.checks);
    const Verdict v = Verify(p, VerifyOptions{5, true});
    EXPECT_NE(v.verdict, "true") << b.copies << " " << b.low << " " << b.checks << ": " << v.solved_by;
    // The concrete search refutes them at once; the split candidate must not be proved either.
    const Variant split = Transform(p, FusionMode::kSplit);
    if (!split.transformations.empty()) {
      EXPECT_NE(SolveAny(split.prog, 5), SolveStatus::kSafe) << b.copies << " " << b.low << " " << b.checks;
    }
  }
  // The overlapping copy fused: proved once the checks of the cell ranges (its only assertions: the checking
  // loop's became flags) are left out, refuted with them.
  const Program overlap = Tcpy("SIZE / 2 + 1", "acopy[SIZE - i - 1] = 0;", "acopy[i] = a[i];", "SIZE / 2");
  const Variant v = Transform(overlap, FusionMode::kSplit);
  ASSERT_EQ(v.transformations.size(), 2u);
  EXPECT_EQ(SolveAny(v.prog), SolveStatus::kUnsafe);
  Program unchecked = v.prog;
  unchecked.body = RewriteBlocks(v.prog.body, [](std::vector<StmtPtr> items) {
    std::erase_if(items, [](const StmtPtr& s) { return s->kind == StmtKind::kAssert; });
    return items;
  });
  EXPECT_EQ(SolveAny(unchecked), SolveStatus::kSafe);
}

// array-tiling/rewrev.c with its first loop's range (from SIZE - top down to bottom), its two values and its
// check's threshold as parameters. The first loop writes a[i] and a[i + 1] counting down, so that each cell
// is written twice and ends as val2, and neither reversal nor fusion in step applies.
constexpr const char* kRewrev = R"(int main() {
    int SIZE = __VERIFIER_nondet_int();
    if (SIZE > 1 && SIZE < 100000) {
      int i; int *a = malloc(sizeof(int) * SIZE);
      for (i = SIZE - %d; i >= %d; i--) {
        if (i >= 0) { a[i] = %d; }
        a[i + 1] = %d;
      }
      for (i = 0; i < SIZE; i++) { __VERIFIER_assert(a[i] >= %d); }
    }
    return 1; })";

// kRewrev with its parameters.
Program Rewrev(int top, int bottom, int val1, int val2, int low) {
  return ParseFilled(kRewrev, top, bottom, val1, val2, low);
}

TEST(CellAbstraction, TracksOneCellAtANondeterministicIndex) {
  const Program p = Rewrev(2, -1, 7, 3, 2);
  std::string why_not;
  const std::optional<Program> cells = AbstractCells(p, why_not);
  ASSERT_TRUE(cells) << why_not;
  EXPECT_TRUE(std::none_of(cells->vars.begin(), cells->vars.end(), [](const Var& v) { return v.is_array; }));
  const std::string c = PrintProgram(*cells);
  EXPECT_EQ(c.find('['), std::string::npos) << c;
  EXPECT_NE(c.find("a_cell = 3;"), std::string::npos) << c;
  EXPECT_EQ(CellAbstractionLine(p), "cell abstraction: the arrays a as their cells at one nondeterministic index");
  // Inputs: the tracked index, SIZE, then the tracked cell's first value. The checks of other cells are
  // skipped; the tracked one's holds for every index (the cell ends as 3), and with a threshold of 4 it fails
  // wherever the index lies within the array.
  const std::optional<Program> buggy = AbstractCells(Rewrev(2, -1, 7, 3, 4), why_not);
  ASSERT_TRUE(buggy);
  for (long long size = 2; size <= 5; ++size) {
    for (long long k = -1; k <= size; ++k) {
      EXPECT_EQ(OutcomeName(InterpretOn(*cells, {k, size, 0})), "finished") << size << " " << k;
      const bool inside = k >= 0 && k < size;
      EXPECT_EQ(OutcomeName(InterpretOn(*buggy, {k, size, 0})), inside ? "error" : "finished") << size << " " << k;
    }
  }
}

TEST(CellAbstraction, ComparesAsLongLongWhereAnIndexIsNoInt) {
  // An int index everywhere: the tracked index is an int (Spacer's proofs are quicker without the casts).
  std::string why_not;
  const std::optional<Program> ints = AbstractCells(Rewrev(2, -1, 7, 3, 2), why_not);
  ASSERT_TRUE(ints);
  EXPECT_EQ(ints->VarNamed("cell_index").type, kInt);
  // One long long index: every index converted to long long, which keeps distinct values distinct.
  const std::optional<Program> wide = AbstractCells(ParseText(R"(int main() {
      int a[4]; long long j; int i;
      for (j = 0; j < 4; j++) a[j] = 1;
      for (i = 0; i < 4; i++) __VERIFIER_assert(a[i] == 1);
      return 0; })"), why_not);
  ASSERT_TRUE(wide) << why_not;
  EXPECT_EQ(wide->VarNamed("cell_index").type, kLongLong);
  const std::string c = PrintProgram(*wide);
  EXPECT_NE(c.find("if ((j == cell_index)) {"), std::string::npos) << c;
  EXPECT_NE(c.find("if ((((long long)i) == cell_index)) {"), std::string::npos) << c;
}

TEST(CellAbstraction, RefusesWhatNoSingleCellDecides) {
  std::string why_not;
  const Program pair = ParseText(R"(int main() {
      int a[4]; int i;
      for (i = 0; i < 4; i++) a[i] = i;
      for (i = 0; i < 3; i++) __VERIFIER_assert(a[i] < a[i + 1]);
      return 0; })");
  EXPECT_FALSE(AbstractCells(pair, why_not));
  EXPECT_EQ(why_not, "an assertion reads cells at two different indexes");
  const Program indirect = ParseText(R"(int main() {
      int a[4]; int b[4]; int i;
      for (i = 0; i < 4; i++) { b[i] = 3 - i; a[b[i]] = i; }
      __VERIFIER_assert(a[0] == 3);
      return 0; })");
  EXPECT_FALSE(AbstractCells(indirect, why_not));
  EXPECT_EQ(why_not, "an array index reads an array cell or a nondeterministic value");
  EXPECT_FALSE(AbstractCells(ParseText("int main() { int x = 1; __VERIFIER_assert(x == 1); return 0; }"), why_not));
  EXPECT_EQ(why_not, "no array");
}

TEST(CellAbstraction, ProvesRewrev) {
  // 180 s: the proof takes about 1.5 s of CPU time in Release and 2 s under the sanitizers, just the first
  // round's limit, and load stretches CPU time too. Under the sanitizers, two of these tests at once took
  // 62 s (proved in round 3, at 4 s), three at once 131 s (round 4, at 8 s); CI failed it with 60 s.
  const Verdict v = Verify(Rewrev(2, -1, 7, 3, 2), VerifyOptions{180, true});
  EXPECT_EQ(v.verdict, "true") << v.reason;
  EXPECT_EQ(v.solved_by.rfind("cells+", 0), 0u) << v.solved_by;
  ASSERT_FALSE(v.transformations.empty());
  EXPECT_EQ(v.transformations[0].rfind("cell abstraction: ", 0), 0u) << v.transformations[0];
}

TEST(CellAbstraction, NeverProvesABuggyProgram) {
  const Program bugs[] = {
      Rewrev(2, -1, 7, 3, 4),  // every cell ends as 3
      Rewrev(2, 0, 1, 3, 2),   // a[0] keeps the 1 written first
      Rewrev(3, -1, 7, 3, 2),  // a[SIZE - 1] is never written
  };
  for (const Program& p : bugs) {
    const std::string text = PrintProgram(p);
    EXPECT_NE(Verify(p, VerifyOptions{5, true}).verdict, "true") << text;
    // The concrete search refutes them at once; the abstraction and its fused versions must not be proved
    // either.
    std::string why_not;
    const std::optional<Program> cells = AbstractCells(p, why_not);
    ASSERT_TRUE(cells) << why_not;
    EXPECT_NE(SolveAny(*cells, 3), SolveStatus::kSafe) << text;
    for (const Variant& v : FusedVariants(*cells)) {
      EXPECT_NE(SolveAny(v.prog, 3), SolveStatus::kSafe) << v.name << "\n" << text;
    }
  }
}

}  // namespace
}  // namespace fusion
