// Jumps over loop iterations (acceleration.h) against gcc: long loops of each shape the jumps handle, with
// the value they end at checked against a direct computation, and the step counts that show the jumps.
#include "fusion/acceleration.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "fusion/interpreter.h"
#include "test_util.h"

namespace fusion {
namespace {

using testing::ParseText;

// A program that computes one value from its inputs in a loop and asserts that it differs from its last
// input, and that value computed in C++.
struct Case {
  const char* source;
  std::function<long long(const std::vector<long long>&)> value;
  std::vector<std::vector<long long>> inputs;  // without the last
};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      // Two phases: the path changes where x reaches m, the loop ends at n.
      {R"(int main() { unsigned x = 0; unsigned n = __VERIFIER_nondet_uint(); unsigned m = __VERIFIER_nondet_uint();
          if (n > 20000000u || m > n) return 0;
          while (x < n) { if (x < m) { x++; } else { x += 2; } }
          __VERIFIER_assert(x != __VERIFIER_nondet_uint()); return 0; })",
       [](const std::vector<long long>& in) {
         long long x = 0;
         while (x < in[0]) x += x < in[1] ? 1 : 2;
         return x;
       },
       {{20000000, 1000001}, {7, 0}, {0, 0}, {19999999, 19999999}}},
      // A narrow counter that wraps around (c + 3 is an int, cast back to unsigned char) until it hits 7.
      {R"(int main() { unsigned char c = __VERIFIER_nondet_uchar(); int k = 0;
          while (c != 7) { c = c + 3; k++; }
          __VERIFIER_assert(k != __VERIFIER_nondet_int()); return 0; })",
       [](const std::vector<long long>& in) {
         unsigned char c = static_cast<unsigned char>(in[0]);
         long long k = 0;
         for (; c != 7; ++k) c = static_cast<unsigned char>(c + 3);
         return k;
       },
       {{0}, {7}, {8}, {255}, {6}}},
      // An unsigned short that wraps many times, a second counter and a mask of it tested each iteration.
      {R"(int main() { unsigned short u = __VERIFIER_nondet_int(); unsigned k = 0;
          while (u != 5 && k < 300000) { u += 1000; k++; }
          __VERIFIER_assert(k * 65536 + u != __VERIFIER_nondet_uint()); return 0; })",
       [](const std::vector<long long>& in) {
         unsigned short u = static_cast<unsigned short>(in[0]);
         unsigned k = 0;
         for (; u != 5 && k < 300000; ++k) u = static_cast<unsigned short>(u + 1000);
         return static_cast<long long>(static_cast<unsigned>(k * 65536u + u));
       },
       {{5}, {0}, {4}, {65535}, {1000}}},
      // Values computed from others (t, y: their first iteration moves them by other amounts than the next),
      // continue, a ternary, && and a break in a branch not taken until the end.
      {R"(int main() { int n = __VERIFIER_nondet_int(); int m = __VERIFIER_nondet_int(); int c = __VERIFIER_nondet_int();
          if (n < 0 || n > 20000000 || m < 0) return 0;
          int i = 0, s = 0, t = 5, y = 0;
          while (1) {
            if (i == n) break;
            i = i + 1;
            if (i <= m && c != 0) continue;
            s = s + 2; t = s - i; y = 3 * t + (c > 0 ? 1 : 0);
          }
          __VERIFIER_assert(i + 5 * s + 7 * t + 11 * y != __VERIFIER_nondet_int()); return 0; })",
       [](const std::vector<long long>& in) {
         long long i = 0, s = 0, t = 5, y = 0;
         while (i != in[0]) {
           ++i;
           if (i <= in[1] && in[2] != 0) continue;
           s += 2;
           t = s - i;
           y = 3 * t + (in[2] > 0 ? 1 : 0);
         }
         return i + 5 * s + 7 * t + 11 * y;
       },
       {{20000000, 12345, 1}, {20000000, 12345, -1}, {1000, 5000, 1}, {1000, 0, 0}, {0, 3, 1}}},
      // Nested loops: the inner one starts afresh each time; a do-while counting down by a read step.
      {R"(int main() { int n = __VERIFIER_nondet_int(); int d = __VERIFIER_nondet_int(); long long total = 0;
          if (n < 0 || n > 1000 || d < 1 || d > 9) return 0;
          for (int a = 0; a < n; a++) { int b = 30000; do { b = b - d; total = total + 1; } while (b > a); }
          __VERIFIER_assert(total != __VERIFIER_nondet_long()); return 0; })",
       [](const std::vector<long long>& in) {
         long long total = 0;
         for (long long a = 0; a < in[0]; ++a) {
           long long b = 30000;
           do {
             b -= in[1];
             ++total;
           } while (b > a);
         }
         return total;
       },
       {{1000, 1}, {1000, 7}, {0, 3}, {1, 9}}},
      // Conversions to _Bool test for non-zero: `b += 6` leaves b true (until 2026-12-05 a jump took it modulo
      // 2, so b ended false), and c = x is true but where x is 0, which a jump must not pass.
      {R"(int main() { _Bool b = __VERIFIER_nondet_bool(); int x = __VERIFIER_nondet_int();
          _Bool c = 0; int k = 0, n = 0;
          if (x < -30000000 || x > 30000000) return 0;
          while (k < 20000000) { b += 6; c = x; n = n + c; x++; k++; }
          __VERIFIER_assert(b + 2 * n != __VERIFIER_nondet_int()); return 0; })",
       [](const std::vector<long long>& in) {
         bool b = in[0] != 0;
         long long n = 0;
         for (long long k = 0, x = in[1]; k < 20000000; ++k, ++x) {
           b = (b + 6) != 0;
           n += x != 0;
         }
         return b + 2 * n;
       },
       {{0, -5}, {1, 5}, {0, -20000000}, {1, -19999999}, {0, 0}, {0, -30000000}}},
  };
  return cases;
}

TEST(Acceleration, JumpsEndWhereGccsRunsEnd) {
  for (const Case& c : Cases()) {
    const Program p = ParseText(c.source);
    const testing::GccProgram gcc(p);
    ASSERT_EQ(gcc.error(), "");
    for (std::vector<long long> in : c.inputs) {
      const long long value = c.value(in);
      in.push_back(value);
      EXPECT_EQ(OutcomeName(testing::InterpretOn(p, in)), "error") << c.source << "\nvalue " << value;
      EXPECT_EQ(gcc.Run(in), "error") << c.source;
      in.back() = value + 1;
      EXPECT_EQ(OutcomeName(testing::InterpretOn(p, in)), "finished") << c.source;
      EXPECT_EQ(gcc.Run(in), "finished") << c.source;
    }
  }
}

// Loops of millions of iterations run in a few hundred steps.
TEST(Acceleration, ALongLoopTakesFewSteps) {
  const auto steps = [](const Case& c, std::vector<long long> in) {
    size_t next = 0;
    const RunResult r = Interpret(
        ParseText(c.source), [&](IntType, const InputSite&) { return Int128(next < in.size() ? in[next++] : 0); },
        1000);
    EXPECT_EQ(r.outcome, Outcome::kFinished) << c.source;
    return r.steps;
  };
  EXPECT_LT(steps(Cases()[0], {20000000, 1000001, 0}), 200);
  EXPECT_LT(steps(Cases()[3], {20000000, 12345, 1, 0}), 400);
  // 10^8 iterations of a program that reads nothing.
  const Program mono = ParseText(R"(int main() { unsigned x = 0;
      while (x < 100000000) { if (x < 10000000) x++; else x += 2; }
      __VERIFIER_assert(x == 100000000); return 0; })");
  const RunResult r = Interpret(mono, [](IntType, const InputSite&) { return Int128(0); }, 1000);
  EXPECT_EQ(r.outcome, Outcome::kFinished);
  EXPECT_FALSE(r.read_input);
}

// A jump ends before a signed value would overflow: the iteration that overflows runs on its own and is
// noted; a loop whose state never moves is not jumped over (the step limit ends it).
TEST(Acceleration, NeverJumpsOverAnOverflowOrForever) {
  const RunResult overflow = Interpret(ParseText("int main() { int x = 0; while (x >= 0) x += 3; return 0; }"),
                                       [](IntType, const InputSite&) { return Int128(0); }, 1000);
  EXPECT_TRUE(overflow.signed_overflow);
  const RunResult forever = Interpret(ParseText("int main() { int x = 0; while (x < 10) x = x * 1; return 0; }"),
                                      [](IntType, const InputSite&) { return Int128(0); }, 1000);
  EXPECT_EQ(forever.outcome, Outcome::kStepLimit);
  EXPECT_FALSE(forever.signed_overflow);
}

// What the jump reads and how far it goes, on the loop of a parsed program.
TEST(Acceleration, PlansAJumpToWhereThePathChanges) {
  const Program p = ParseText(R"(int main() { int x = 0; int z = 50; int n = __VERIFIER_nondet_int();
      while (x < n) { if (x >= 30) z--; x++; } return 0; })");
  const std::function<StmtPtr(const StmtPtr&)> find_loop = [&](const StmtPtr& s) -> StmtPtr {
    if (s->kind == StmtKind::kLoop) return s;
    for (const StmtPtr& b : s->body) {
      if (StmtPtr found = find_loop(b)) return found;
    }
    return nullptr;
  };
  const StmtPtr loop = find_loop(p.body);
  ASSERT_NE(loop, nullptr);
  const LoopAccelerator accelerator(loop);
  ASSERT_TRUE(accelerator.possible());
  std::map<std::string, Int128> values;
  for (const Var& v : p.vars) values[v.name] = 0;
  const auto named = [&](const std::string& prefix) {
    for (auto& [name, value] : values) {
      if (name.rfind(prefix, 0) == 0) return name;
    }
    return std::string();
  };
  values[named("z")] = 50;
  values[named("n")] = 100;
  const auto plan = [&] {
    return accelerator.Plan(
        [&](const std::string& name) -> std::optional<Int128> { return values.at(name); },
        [](const std::string&, long long) { return std::nullopt; });
  };
  std::optional<LoopJump> jump = plan();
  ASSERT_TRUE(jump);
  EXPECT_EQ(jump->iterations, 30);  // x from 0 to 30, where z starts to move
  ASSERT_EQ(jump->moves.size(), 1u);
  EXPECT_EQ(jump->moves[0], std::make_pair(named("x"), Int128(1)));
  values[named("x")] = 30;
  jump = plan();
  ASSERT_TRUE(jump);
  EXPECT_EQ(jump->iterations, 70);  // to n
  EXPECT_EQ(jump->moves.size(), 2u);
  values[named("x")] = 99;
  EXPECT_FALSE(plan());  // one iteration left
  values[named("x")] = 100;
  EXPECT_FALSE(plan());  // the loop ends
}

}  // namespace
}  // namespace fusion
