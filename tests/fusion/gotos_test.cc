// goto lowered to loops and branches (gotos.h): programs that jump backward, forward, into branches and
// loops, out of nested loops and inside inlined functions run here as gcc runs them; the loops of
// CPAchecker's reducer files come out as loops with conditions.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/error.h"
#include "fusion/loop_ir.h"
#include "fusion/printer.h"
#include "test_util.h"

namespace fusion {
namespace {

using testing::ParseText;

constexpr const char* kHeader =
    "extern int __VERIFIER_nondet_int(void);\n"
    "extern void reach_error(void);\n";

// Programs whose gotos take each shape that the lowering handles, each with inputs that reach its error.
const std::vector<std::string>& GotoPrograms() {
  static const std::vector<std::string> programs = {
      // A reducer's loop: a label and a backward goto in a branch.
      R"(int main() {
        int n = __VERIFIER_nondet_int(), i = 0, s = 0;
        if (!(n <= 20)) { return 0; } else {
        loop:;
          if (i < n) { s = s + i; i = i + 1; goto loop; } else { if (s == 10) reach_error(); return 0; }
        }
      })",
      // A jump into the middle of a loop's body.
      R"(int main() {
        int x = __VERIFIER_nondet_int(), y = __VERIFIER_nondet_int();
        if (y < -20) return 0;
        if (x > 5) goto inside;
        while (y < 10) {
          y = y + 2;
        inside:
          y = y + 1;
          if (y == 13) reach_error();
        }
        return 0;
      })",
      // Jumps between the branches of an if, back and forth.
      R"(int main() {
        int a = __VERIFIER_nondet_int(), c = 0;
        if (a > 0) {
        again:
          c = c + 1;
          if (c > 3) goto done;
          a = a - 1;
        } else {
          a = a + 2;
          if (a < 5) goto again;
        }
        if (a == 1) reach_error();
      done:
        if (c == 4 && a == 2) reach_error();
        return 0;
      })",
      // Out of two nested loops, past a continue.
      R"(int main() {
        int n = __VERIFIER_nondet_int(), m = __VERIFIER_nondet_int(), hits = 0;
        for (int i = 0; i < n; i++) {
          for (int j = 0; j < m; j++) {
            if (j == 3) continue;
            hits++;
            if (i * j == 12) goto out;
          }
        }
      out:
        if (hits == 9) reach_error();
        return 0;
      })",
      // A label inside a do-while, skipped by its continue.
      R"(int main() {
        int k = __VERIFIER_nondet_int(), t = 0, c = 0;
        do {
          c++;
          t = t + k;
          if (t > 20) goto fix;
          continue;
        fix:
          t = t - 7;
        } while (t < 30 && c < 50);
        if (t == 30) reach_error();
        return 0;
      })",
      // An inlined function's own loop of gotos, with returns in it; called twice.
      R"(int find(int v) {
        int i = 0;
      top:
        if (i >= 5) goto none;
        if (i * 3 == v) return i;
        i++;
        goto top;
      none:
        return -1;
      }
      int main() {
        int v = __VERIFIER_nondet_int();
        int r = find(v);
        int q = find(v + 3);
        if (r >= 0 && q != r + 1) reach_error();
        return 0;
      })",
      // Into an else branch, past the then branch.
      R"(int main() {
        int x = __VERIFIER_nondet_int(), y = 0;
        if (x == 3) goto second;
        if (x > 0) {
          y = 1;
        } else {
        second:
          y = y + 2;
        }
        if (y == 2 && x == 3) reach_error();
        return 0;
      })",
      // A loop written as labels that jump to each other, reading an input each iteration.
      R"(int main() {
        int n = __VERIFIER_nondet_int(), c = 0, i = 0;
        if (n < 0 || n > 20) return 0;
      head:
        if (i == n) goto end;
        if (__VERIFIER_nondet_int() != 0) goto skip;
        c = c + 2;
      step:
        i = i + 1;
        goto head;
      skip:
        c = c - 1;
        goto step;
      end:
        if (c == 3) reach_error();
        return 0;
      })",
  };
  return programs;
}

// Inputs for the programs: two first values from a small range, then a pattern of 0s and 1s.
std::vector<std::vector<long long>> Inputs() {
  std::vector<std::vector<long long>> out;
  for (long long a = -3; a <= 13; ++a) {
    for (long long b : {-25, 0, 1, 3, 4, 5, 8, 12}) {
      std::vector<long long> in{a, b};
      for (int k = 0; k < 24; ++k) in.push_back((a * 7 + b * 3 + k * k) % 3 == 0 ? 1 : 0);
      out.push_back(in);
    }
  }
  return out;
}

TEST(Gotos, RunAsGccRunsThem) {
  for (const std::string& body : GotoPrograms()) {
    const std::string source = std::string(kHeader) + body + "\n";
    const Program p = ParseText(source);
    const testing::GccProgram gcc(source);
    ASSERT_EQ(gcc.error(), "") << source;
    int errors = 0, finished = 0;
    for (const auto& in : Inputs()) {
      const std::string expected = gcc.Run(in);
      ASSERT_EQ(OutcomeName(testing::InterpretOn(p, in)), expected) << source << "\ninputs " << in[0] << " " << in[1]
                                                                     << "\nas lowered:\n" << PrintProgram(p);
      errors += expected == "error";
      finished += expected == "finished";
    }
    EXPECT_GT(errors, 0) << source;
    EXPECT_GT(finished, 0) << source;
  }
}

// The loops in the scope of one statement, counted.
int CountLoops(const StmtPtr& s) {
  if (!s) return 0;
  int n = s->kind == StmtKind::kLoop ? 1 : 0;
  for (const auto& b : s->body) n += CountLoops(b);
  return n;
}

// A reducer's loop (and an inner one) become while loops with their conditions, the checks that return
// before them plain ifs: no dispatch variable.
TEST(Gotos, ReducerLoopsBecomeWhileLoops) {
  const Program p = ParseText(std::string(kHeader) + R"(int main() {
    int n, i, j, s;
    n = __VERIFIER_nondet_int();
    if (!(1 <= n)) { return 0; } else {
      if (!(n <= 1000)) { return 0; } else {
        s = 0; i = 1;
      label_outer:;
        if (i <= n) {
          j = 0;
        label_inner:;
          if (j < i) { s = s + 1; j = j + 1; goto label_inner; } else { i = i + 1; goto label_outer; }
        } else {
          if (2 * s != n * (n + 1)) { reach_error(); return 0; } else { return 0; }
        }
      }
    }
  })");
  for (const Var& v : p.vars) EXPECT_NE(v.name.rfind("pc", 0), 0u) << PrintProgram(p);
  EXPECT_EQ(CountLoops(p.body), 2) << PrintProgram(p);
  const std::vector<StmtPtr> items = Flatten(p.body);
  const auto outer = std::find_if(items.begin(), items.end(), [](const StmtPtr& s) { return s->kind == StmtKind::kLoop; });
  ASSERT_NE(outer, items.end());
  EXPECT_NE((*outer)->cond->kind, ExprKind::kConst) << PrintProgram(p);
  EXPECT_EQ(std::count_if(items.begin(), outer, [](const StmtPtr& s) { return s->kind == StmtKind::kIf; }), 2);
}

// Jumps that no loop explains run through the dispatch loop over basic blocks.
TEST(Gotos, IrreducibleJumpsRunThroughADispatchLoop) {
  const Program p = ParseText(std::string(kHeader) + GotoPrograms()[1]);
  bool dispatch = false;
  for (const Var& v : p.vars) dispatch = dispatch || v.name.rfind("pc", 0) == 0;
  EXPECT_TRUE(dispatch) << PrintProgram(p);
}

TEST(Gotos, BadLabelsAreSyntaxErrors) {
  const auto message = [](const std::string& body) {
    try {
      ParseText(std::string(kHeader) + body);
    } catch (const common::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("int main() { int x = 0;\n goto nowhere; return 0; }").find("t.c:4:2: use of undeclared label "
                                                                               "'nowhere'"),
            std::string::npos)
      << message("int main() { int x = 0;\n goto nowhere; return 0; }");
  EXPECT_NE(message("int main() { a: ;\n a: ; goto a; }").find("t.c:4:2: redefinition of label 'a'"), std::string::npos)
      << message("int main() { a: ;\n a: ; goto a; }");
  // Labels are a function's own: main cannot jump into a helper.
  EXPECT_NE(message("void f() { in: ; }\nint main() { f(); goto in; }").find("undeclared label 'in'"),
            std::string::npos);
}

}  // namespace
}  // namespace fusion
