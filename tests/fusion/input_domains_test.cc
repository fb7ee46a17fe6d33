// The values of the inputs as the first checks of a program bound them (input_domains.h), and the proof by
// every run that they allow.
#include "fusion/input_domains.h"

#include <gtest/gtest.h>

#include "fusion/verifier.h"
#include "test_util.h"

namespace fusion {
namespace {

using testing::ParseText;

// The bounded values of each read of `main_body` (declarations and checks), as "lo..hi" ranges of
// consecutive values joined by commas, one string per read; "none" where there is no bound.
std::vector<std::string> Domains(const std::string& main_body, size_t max_runs = 100000) {
  const std::optional<std::vector<std::vector<Int128>>> values =
      BoundedInputs(ParseText("extern void abort(void);\nvoid assume_abort_if_not(int c) { if (!c) abort(); }\n"
                              "int main() { " + main_body + " return 0; }"),
                    max_runs);
  if (!values) return {"none"};
  std::vector<std::string> out;
  for (const std::vector<Int128>& read : *values) {
    std::string text;
    for (size_t first = 0, last = 0; first < read.size(); first = ++last) {
      while (last + 1 < read.size() && read[last + 1] == read[last] + 1) ++last;
      text += (text.empty() ? "" : ",") + DecimalText(read[first]);
      if (last > first) text += ".." + DecimalText(read[last]);
    }
    out.push_back(text);
  }
  return out;
}

using Reads = std::vector<std::string>;

TEST(InputDomains, BoundsReadValuesByTheChecksRightAfterThem) {
  // count_by_k, gauss_sum: a return or an assume right after the read.
  EXPECT_EQ(Domains("int k; k = __VERIFIER_nondet_int(); if (!(0 <= k && k <= 10)) return 0;"), Reads{"0..10"});
  EXPECT_EQ(Domains("int n = __VERIFIER_nondet_int(); __VERIFIER_assume(1 <= n && n <= 1000);"), Reads{"1..1000"});
  // Two reads, checked after both, one through an inlined function; a disjunction; a narrower type; `||`
  // negated; a conversion that keeps every value; a bound that the type already keeps.
  EXPECT_EQ(Domains("int a = __VERIFIER_nondet_int(); unsigned char c = __VERIFIER_nondet_int();"
                    "assume_abort_if_not(a == 1 || a == 7); if (c > 3) return 0;"),
            (Reads{"1,7", "0..3"}));
  EXPECT_EQ(Domains("int x = __VERIFIER_nondet_int(); if (x < -2 || x > 5) { return 0; }"), Reads{"-2..5"});
  EXPECT_EQ(Domains("short s = __VERIFIER_nondet_short(); if ((long long)s >= 3 || s < 0) abort();"),
            Reads{"0..2"});
  EXPECT_EQ(Domains("unsigned char c = __VERIFIER_nondet_uchar(); if (c > 1000) return 0;"), Reads{"0..255"});
  // A conjunct over two reads bounds neither (the runs it blocks are made and blocked).
  EXPECT_EQ(Domains("int a = __VERIFIER_nondet_int(); int b = __VERIFIER_nondet_int();"
                    "__VERIFIER_assume(0 <= a && a <= 3 && a < b && 0 <= b && b <= 2);"),
            (Reads{"0..3", "0..2"}));
  // A constant expression before the checks (a pointer `a + 2` holds the index `0 + 2`).
  EXPECT_EQ(Domains("int a[4]; int *p = a + 2; int n = __VERIFIER_nondet_int(); if (n < 1 || n > 8) return 0;"),
            Reads{"1..8"});
  // No bound: arithmetic in the check (it might overflow before it stops the run), an assertion before
  // the check (a value outside might fail it), a value overwritten before its check, too many values, a
  // cast that changes the value.
  EXPECT_EQ(Domains("int x = __VERIFIER_nondet_int(); __VERIFIER_assume(x + 1 < 5 && x >= 0);"), Reads{"none"});
  EXPECT_EQ(Domains("int x = __VERIFIER_nondet_int(); __VERIFIER_assert(x != 5); __VERIFIER_assume(x >= 0 && x < 3);"),
            Reads{"none"});
  EXPECT_EQ(Domains("int x = __VERIFIER_nondet_int(); x = 2; __VERIFIER_assume(x >= 0 && x < 3);"), Reads{"none"});
  EXPECT_EQ(Domains("int x = __VERIFIER_nondet_int(); int y = __VERIFIER_nondet_int();"
                    "__VERIFIER_assume(x >= 0 && x < 400 && y >= 0 && y < 400);", 100000),
            Reads{"none"});
  EXPECT_EQ(Domains("int x = __VERIFIER_nondet_int(); __VERIFIER_assume((unsigned char)x < 3);"), Reads{"none"});
  // Reads only after a loop are not bounded here; a program with no read has nothing to bound.
  EXPECT_EQ(Domains("int i = 0; while (i < 3) i++; int x = __VERIFIER_nondet_int(); __VERIFIER_assume(x == 1);"),
            Reads{"none"});
  EXPECT_EQ(Domains("int i = 0;"), Reads{"none"});
}

// count_by_k: `for (i = 0; i < 1000000 * k; i += k)`, k from 0 to 10, a loop invariant modulo k that
// Spacer does not find in seconds; eleven runs (each a few jumps, acceleration.h) prove it.
TEST(InputDomains, ProvesAProgramByEveryRunItsChecksAllow) {
  const std::string count_by_k = R"(int main() {
      int i; int k = __VERIFIER_nondet_int();
      if (!(0 <= k && k <= 10)) return 0;
      for (i = 0; i < 1000000 * k; i += k) ;
      if (K_BUG) i = i + 1;
      __VERIFIER_assert(i == 1000000 * k);
      return 0; })";
  const auto with = [&](const std::string& bug) {
    std::string text = count_by_k;
    text.replace(text.find("K_BUG"), 5, bug);
    return ParseText(text);
  };
  const RunSearch every = FindCounterexample(with("0"), 10.0, 60.0, 1);
  EXPECT_EQ(every.kind, RunSearch::kEveryRun);
  EXPECT_EQ(every.runs, 11);
  const RunSearch bug = FindCounterexample(with("k == 7"), 10.0, 60.0, 1);
  ASSERT_EQ(bug.kind, RunSearch::kError);
  EXPECT_EQ(bug.inputs.back(), 7);
  const Verdict v = Verify(with("0"), VerifyOptions{30, true});
  EXPECT_EQ(v.verdict, "true") << v.reason;
  EXPECT_EQ(v.solved_by, "interpreter (every run: 11)");
  // No proof where a run reads more than the bounded values: a value after the checks, an uninitialised
  // variable (the error at no constant of the program nor next to one, which the search would draw).
  const auto search = [](const std::string& text) { return FindCounterexample(ParseText(text), 2.0, 60.0, 1).kind; };
  EXPECT_EQ(search("int main() { int k = __VERIFIER_nondet_int(); if (k < 0 || k > 3) return 0;"
                   "int x = __VERIFIER_nondet_int(); if (x - 6 == 123450 + k) reach_error(); return 0; }"),
            RunSearch::kNothing);
  EXPECT_EQ(search("int main() { int y; int k = __VERIFIER_nondet_int(); if (k < 0 || k > 3) return 0;"
                   "if (y - 6 == 123450 + k) reach_error(); return 0; }"),
            RunSearch::kNothing);
  // Nor where one overflows.
  EXPECT_EQ(search("int main() { int k = __VERIFIER_nondet_int(); if (k < 0 || k > 3) return 0;"
                   "int x = 2147483647; x = x + k; if (x == -2147483648) reach_error(); return 0; }"),
            RunSearch::kNothing);
}

}  // namespace
}  // namespace fusion
