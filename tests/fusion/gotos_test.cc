// goto lowered to loops and branches (gotos.h): programs that jump backward, forward, into branches and
// loops, out of nested loops and inside inlined functions run here as gcc runs them; the loops of
// CPAchecker's reducer files come out as loops with conditions.
#include <gtest/gtest.h>
#include <fmt/core.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/error.h"
#include "fusion/horn.h"
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
      // A backward goto from inside a loop: a restart, not a continue of that loop.
      R"(int main() {
        int n = __VERIFIER_nondet_int(), tries = 0, i;
        if (n < 0 || n > 10) return 0;
      restart:
        tries++;
        for (i = 0; i < n; i++) {
          if (i == 3 && tries < 3) goto restart;
        }
        if (tries == 3 && n == 7) reach_error();
        return 0;
      })",
      // A branch that ends in a goto yet goes on from the label after it.
      R"(int main() {
        int x = __VERIFIER_nondet_int(), y = 0;
        if (x > 2) {
          goto skip;
        back:
          y = y + 10;
        } else {
          y = y + 1;
          if (y < 3) goto back;
        }
        if (y == 11) reach_error();
      skip:
        return 0;
      })",
      // A reducer's loop inside a real loop, whose break leaves the real loop.
      R"(int main() {
        int n = __VERIFIER_nondet_int(), i = 0, s = 0;
        if (n < 0 || n > 10) return 0;
        while (i < 10) {
          i++;
        again:
          if (s > n) break;
          s = s + i;
          if (s % 2 == 0) goto again;
        }
        if (i < 10) reach_error();
        return 0;
      })",
      // A join label that only jumps on (`join: goto top;`), reached by gotos from other branches.
      R"(int main() {
        unsigned int x = __VERIFIER_nondet_int();
        int y = 1, n = 0;
      top:
        n++;
        if (n < 6) {
          if (x % 3 == 1) { x = x + 2; y = 0; join: goto top; }
          else { if (x % 3 == 2) { x = x + 1; y = 0; goto join; } else { x = x + 4; y = 1; goto join; } }
        } else {
          if (y == 1) reach_error();
          return 0;
        }
      })",
      // The locks tasks' shape: `goto out` leaves the loop, `goto ERROR` reaches an error block after main's
      // return, from inside branches in the loop.
      R"(int main() {
        int p1 = __VERIFIER_nondet_int(), lk1 = 0, cond = 0, rounds = 0;
        while (1) {
          cond = __VERIFIER_nondet_int();
          if (cond == 0) { goto out; } else {}
          rounds++;
          lk1 = 0;
          if (p1 != 0) { lk1 = 1; } else {}
          if (p1 != 0) { if (lk1 != 1 || rounds > 1) goto ERROR; lk1 = 0; } else {}
        }
      out:
        return 0;
      ERROR: { reach_error(); }
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

// Whether the lowering ran the program through the dispatch loop: it has a variable named from "pc".
bool HasDispatch(const Program& p) {
  return std::any_of(p.vars.begin(), p.vars.end(), [](const Var& v) { return v.name.rfind("pc", 0) == 0; });
}

TEST(Gotos, RunAsGccRunsThem) {
  for (const std::string& body : GotoPrograms()) {
    const std::string source = std::string(kHeader) + body + "\n";
    const testing::GccOutcomes n = testing::CompareWithGcc(ParseText(source), source, Inputs());
    EXPECT_GT(n.errors, 0) << source;
    EXPECT_GT(n.finished, 0) << source;
  }
}

// Random programs of assignments, ifs, loops, labels and gotos anywhere (into and out of loops and
// branches), break, continue, return and errors. Each label and each loop iteration spends fuel, so every
// run ends.
class RandomGotoProgram {
 public:
  explicit RandomGotoProgram(unsigned seed) : rng_(seed) {
    labels_ = Pick(4);
    std::string body = Block(0, false);
    for (int l = 0; l < labels_; ++l) {
      if (!placed_.count(l)) body += "L" + std::to_string(l) + ": x = x + 1;\n";
    }
    text_ = std::string(kHeader) + "int main() {\n  int x = __VERIFIER_nondet_int() % 10, y = 0, fuel = 40;\n" +
            body + "  if (x == 3) reach_error();\n  return 0;\n}\n";
  }
  const std::string& text() const { return text_; }

 private:
  int Pick(int n) { return static_cast<int>(rng_() % static_cast<unsigned>(n)); }
  static std::string Fuel() { return "fuel = fuel - 1; if (fuel < 0) return 0;\n"; }

  std::string Block(int depth, bool in_loop) {
    std::string out;
    for (int k = 1 + Pick(4); k > 0; --k) out += Statement(depth, in_loop);
    return out;
  }

  std::string Statement(int depth, bool in_loop) {
    const std::string c = std::to_string(Pick(9) - 2);
    switch (Pick(depth >= 3 ? 6 : 9)) {
      case 0: return "x = (x + " + c + ") % 13;\n";
      case 1: return "y = (y * 2 + x) % 17;\n";
      case 2: return "x = __VERIFIER_nondet_int() % 10;\n";
      case 3: {
        if (labels_ == 0) return "y = y + x;\n";
        const int l = Pick(labels_);
        if (placed_.insert(l).second) return "L" + std::to_string(l) + ": " + Fuel();
        return "goto L" + std::to_string(l) + ";\n";
      }
      case 4: {  // a goto, often with a label right after it: code that only a jump reaches
        if (labels_ == 0) return "x = x - y;\n";
        std::string out = "goto L" + std::to_string(Pick(labels_)) + ";\n";
        const int l = Pick(labels_);
        if (Pick(2) == 0 && placed_.insert(l).second) out += "L" + std::to_string(l) + ": " + Fuel();
        return out;
      }
      case 5: {
        const int r = Pick(5);
        if (r == 0) return "if (y == " + c + ") reach_error();\n";
        if (r == 1) return "if (x > " + c + ") return 0;\n";
        if (in_loop) return r == 2 ? "if (x == " + c + ") break;\n" : "if (y < " + c + ") continue;\n";
        return "y = y - x;\n";
      }
      case 6:
        return "if (x < " + c + ") {\n" + Block(depth + 1, in_loop) + "} else {\n" + Block(depth + 1, in_loop) + "}\n";
      case 7: {  // a reducer's loop, under a label of its own
        const std::string label = "R" + std::to_string(reducer_loops_++);
        return label + ": " + Fuel() + "if (y < " + c + " + 4) {\n" + Block(depth + 1, in_loop) + "y = y + 1;\ngoto " +
               label + ";\n} else {\n" + Block(depth + 1, in_loop) + "}\n";
      }
      default:
        if (Pick(2) == 0) return "while (y < " + c + " + 5) {\n" + Fuel() + Block(depth + 1, true) + "y = y + 1;\n}\n";
        return "do {\n" + Fuel() + Block(depth + 1, true) + "x = x - 1;\n} while (x > " + c + ");\n";
    }
  }

  std::mt19937 rng_;
  int labels_ = 0;
  int reducer_loops_ = 0;
  std::set<int> placed_;
  std::string text_;
};

TEST(Gotos, RandomProgramsRunAsGccRunsThem) {
  std::mt19937 rng(7);
  int errors = 0, finished = 0, dispatched = 0, structured = 0;
  for (unsigned seed = 1; seed <= 80; ++seed) {
    const RandomGotoProgram random(seed);
    const Program p = ParseText(random.text());
    const bool dispatch = HasDispatch(p);
    dispatched += dispatch;
    structured += !dispatch && random.text().find("goto") != std::string::npos;
    std::vector<std::vector<long long>> inputs(8);
    for (auto& in : inputs) {
      for (int k = 0; k < 12; ++k) in.push_back(static_cast<long long>(rng() % 21) - 5);
    }
    const testing::GccOutcomes n = testing::CompareWithGcc(p, random.text(), inputs);
    errors += n.errors;
    finished += n.finished;
  }
  // The programs exercise both ends and both lowerings.
  EXPECT_GT(errors, 20);
  EXPECT_GT(finished, 20);
  EXPECT_GT(dispatched, 10);
  EXPECT_GT(structured, 10);
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
  EXPECT_FALSE(HasDispatch(p)) << PrintProgram(p);
  EXPECT_EQ(testing::CountLoops(p.body), 2) << PrintProgram(p);
  const std::vector<StmtPtr> items = Flatten(p.body);
  const auto is_loop = [](const StmtPtr& s) { return s->kind == StmtKind::kLoop; };
  const auto outer = std::find_if(items.begin(), items.end(), is_loop);
  ASSERT_NE(outer, items.end());
  EXPECT_NE((*outer)->cond->kind, ExprKind::kConst) << PrintProgram(p);
  EXPECT_EQ(std::count_if(items.begin(), outer, [](const StmtPtr& s) { return s->kind == StmtKind::kIf; }), 2);
}

// A label that only jumps on sends its gotos to its target: the loop is a loop, no dispatch.
TEST(Gotos, AJoinLabelThatOnlyJumpsOnIsItsTarget) {
  const Program p = ParseText(std::string(kHeader) + GotoPrograms()[GotoPrograms().size() - 2]);
  EXPECT_FALSE(HasDispatch(p)) << PrintProgram(p);
  EXPECT_EQ(testing::CountLoops(p.body), 1) << PrintProgram(p);
}

// A goto to an error block (a few statements that end) is a copy of them; a goto to the label after a loop
// is a break: the loop stays a loop.
TEST(Gotos, AGotoToAnErrorBlockIsACopyOfIt) {
  const Program p = ParseText(std::string(kHeader) + GotoPrograms().back());
  EXPECT_FALSE(HasDispatch(p)) << PrintProgram(p);
  EXPECT_EQ(testing::CountLoops(p.body), 1) << PrintProgram(p);
}

// Jumps that no loop explains run through the dispatch loop over basic blocks.
TEST(Gotos, IrreducibleJumpsRunThroughADispatchLoop) {
  const Program p = ParseText(std::string(kHeader) + GotoPrograms()[1]);
  EXPECT_TRUE(HasDispatch(p)) << PrintProgram(p);
}

// Two counts that enter each other's loop (so no loop explains the jumps): x rises by one a step, y by one
// or two, so y >= x at the end.
constexpr const char* kDispatchedCount = R"(int main() {
  int x = 0, y = 0, n = __VERIFIER_nondet_int();
  if (__VERIFIER_nondet_int()) goto two;
 one:
  if (x >= n) goto done;
  x++;
  y++;
 two:
  if (x >= n) goto done;
  x++;
  y = y + 2;
  goto one;
 done:
  if (y %s x) reach_error();
  return 0;
})";

// The arms of the first dispatch loop in s (the statements of its body), or -1 when there is none.
int DispatchArms(const StmtPtr& s) {
  if (s->kind == StmtKind::kLoop && s->cond->kind == ExprKind::kConst) return static_cast<int>(s->body[0]->body.size());
  for (const auto& b : s->body) {
    if (const int arms = b ? DispatchArms(b) : -1; arms >= 0) return arms;
  }
  return -1;
}

// How deep ifs nest in s.
int IfDepth(const StmtPtr& s) {
  int deepest = 0;
  for (const auto& b : s->body) deepest = std::max(deepest, b ? IfDepth(b) : 0);
  return deepest + (s->kind == StmtKind::kIf);
}

// kDispatchedCount with the comparison op in its check.
Program DispatchedCount(const char* op) {
  return testing::ParseFilled((std::string(kHeader) + kDispatchedCount).c_str(), op);
}

TEST(Gotos, EachBlockOfTheDispatchLoopGetsAPredicateOfItsOwn) {
  const Program p = DispatchedCount("<");
  ASSERT_TRUE(HasDispatch(p)) << PrintProgram(p);
  ASSERT_EQ(p.dispatch_vars.size(), 1u);
  // The entry's arm, one's and two's; the blocks that one jump reaches (the steps after each test) run in
  // place, and done's gotos are copies of its check (it ends the run).
  EXPECT_EQ(DispatchArms(p.body), 3) << PrintProgram(p);
  const std::string pc = *p.dispatch_vars.begin();
  z3::context ctx;
  const HornSystem sys = EncodeHorn(p, ctx);
  // One predicate per arm, none over the variable.
  EXPECT_EQ(sys.preds.size(), 3u);
  EXPECT_EQ(sys.dispatch_values.size(), sys.preds.size());
  std::set<Int128> values;
  for (const auto& [pred, split] : sys.dispatch_values) {
    EXPECT_EQ(split.first, pc);
    values.insert(split.second);
    EXPECT_EQ(std::count(sys.pred_vars[pred].begin(), sys.pred_vars[pred].end(), pc), 0);
  }
  EXPECT_EQ(values.size(), sys.preds.size());
  // The clauses still prove the program and find the bug of its variant.
  EXPECT_EQ(testing::SolveAny(p), SolveStatus::kSafe);
  EXPECT_EQ(testing::SolveAny(DispatchedCount(">")), SolveStatus::kUnsafe);
}

TEST(Gotos, AFlatListOfJumpsStaysFlat) {
  // 300 tests that jump ahead: each test after the first is reached by one jump, but running each in the
  // place of the jump before would nest 300 ifs (and recursive passes over the tree with them).
  std::string body = "int main() {\n  int x = __VERIFIER_nondet_int(), y = 0;\n";
  for (int k = 0; k < 300; ++k) body += "  if (x == " + std::to_string(k) + ") goto out;\n  y = y + 1;\n";
  body += "  y = 1000;\n out:\n  if (y == 299 && x != 299) reach_error();\n  x = x + 1;\n  goto out2;\n out2:\n";
  body += "  if (x > 400 && x < 405) goto out;\n  return 0;\n}\n";
  const std::string source = std::string(kHeader) + body;
  const Program p = ParseText(source);
  ASSERT_TRUE(HasDispatch(p)) << PrintProgram(p);
  EXPECT_LT(IfDepth(p.body), 80);
  EXPECT_GT(DispatchArms(p.body), 3);
  testing::CompareWithGcc(p, source, {{0}, {5}, {299}, {300}, {401}, {1000}, {-3}});
}

TEST(Gotos, TheClausesOfRandomDispatchLoopsNeverProveAProgramThatARunRefutes) {
  // Soundness of the predicates per arm on the random programs that need the dispatch, as they are (their
  // runs mostly end when the fuel does) and with an error where the fuel ends: none whose error a run
  // reaches is proved, and some of the others are (the check is not vacuous).
  std::mt19937 rng(11);
  int refuted = 0, proved = 0, proved_merged = 0;
  for (unsigned seed = 1; seed <= 80; ++seed) {
    const RandomGotoProgram random(seed);
    std::string out_of_fuel = random.text();
    const std::string fuel_out = "if (fuel < 0) return 0;";
    for (size_t at; (at = out_of_fuel.find(fuel_out)) != std::string::npos;) {
      out_of_fuel.replace(at, fuel_out.size(), "if (fuel < 0) reach_error();");
    }
    for (const std::string& text : {random.text(), out_of_fuel}) {
      const Program p = ParseText(text);
      if (!HasDispatch(p)) break;
      bool error = false;
      for (int run = 0; run < 8 && !error; ++run) {
        std::vector<long long> in;
        for (int k = 0; k < 12; ++k) in.push_back(static_cast<long long>(rng() % 21) - 5);
        error = testing::InterpretOn(p, in) == Outcome::kError;
      }
      const SolveStatus status = testing::SolveAny(p, 0.5);
      // With the paths between loop heads merged into one formula too (EncodeHorn), every other seed.
      const SolveStatus merged = seed % 2 ? testing::SolveAny(p, 0.5, false, 0) : SolveStatus::kUnknown;
      if (error) {
        ++refuted;
        EXPECT_NE(status, SolveStatus::kSafe) << text;
        EXPECT_NE(merged, SolveStatus::kSafe) << "merged paths\n" << text;
      }
      proved += !error && status == SolveStatus::kSafe;
      proved_merged += !error && merged == SolveStatus::kSafe;
    }
  }
  // 27 and 23 on 2026-12-04 (Release); the proofs are fewer where the sanitizers slow the solver down.
  EXPECT_GT(refuted, 15);
  EXPECT_GT(proved, 5);
  EXPECT_GT(proved_merged, 3);
  fmt::print("{} refuted by a run, none proved; {} others proved, {} of half of them with the paths merged\n",
             refuted, proved, proved_merged);
}

TEST(Gotos, ADispatchVariableIsSplitOnOnlyWhereItIsAssignedNothingButConstants) {
  // The encoder's own check: a dispatch variable given any other value would have unboundedly many.
  Program counted = ParseText(R"(int main() {
    int n = __VERIFIER_nondet_int(), s = 0;
    while (s < n) { s = s + 1; }
    return 0; })");
  counted.dispatch_vars = {"s"};
  z3::context ctx;
  EXPECT_TRUE(EncodeHorn(counted, ctx).dispatch_values.empty());
  Program flag = ParseText(R"(int main() {
    int n = __VERIFIER_nondet_int(), s = 0, i = 0;
    while (i < n) { if (s == 0) { s = 1; } else { s = 0; } i++; }
    __VERIFIER_assert(s == 0 || s == 1);
    return 0; })");
  flag.dispatch_vars = {"s"};
  const HornSystem sys = EncodeHorn(flag, ctx);
  EXPECT_EQ(sys.preds.size(), 2u);
  EXPECT_EQ(sys.dispatch_values.size(), 2u);
  EXPECT_EQ(testing::SolveAny(flag), SolveStatus::kSafe);
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
