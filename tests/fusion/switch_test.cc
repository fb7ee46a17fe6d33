// switch lowered to ifs (switch.h): programs with fall-through, a default anywhere, breaks that leave a
// section early, continues of the loop around, nested switches and gotos between sections run here as gcc
// runs them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.h"
#include "fusion/errors.h"
#include "test_util.h"

namespace fusion {
namespace {

using testing::ParseText;

constexpr const char* kHeader =
    "extern int __VERIFIER_nondet_int(void);\n"
    "extern char __VERIFIER_nondet_char(void);\n"
    "extern void reach_error(void);\n";

const std::vector<std::string>& SwitchPrograms() {
  static const std::vector<std::string> programs = {
      // Fall-through, and a default between cases that falls into the next.
      R"(int main() {
        int x = __VERIFIER_nondet_int(), y = 0;
        switch (x % 4) {
          case 0: y = y + 1;
          case 1: y = y + 10; break;
          default: y = y + 100;
          case 3: y = y + 1000; break;
        }
        if (y == 1100) reach_error();
        return 0;
      })",
      // A break that leaves a section early, and continues of the loop around.
      R"(int main() {
        int n = __VERIFIER_nondet_int(), i = 0, s = 0;
        if (n < 0 || n > 30) return 0;
        while (i < n) {
          i++;
          switch (i % 3) {
            case 0:
              if (s > 10) break;
              s = s + 2;
              continue;
            case 1: s = s + 1;
            case 2: if (i == 7) continue; s = s + 3; break;
          }
          s = s - 1;
        }
        if (s == 13) reach_error();
        return 0;
      })",
      // Characters, two cases on one section, a nested switch, a return, no default.
      R"(int main() {
        char c = __VERIFIER_nondet_char();
        int r = 0;
        switch (c) {
          case 'a': case 'b':
            switch (c - 'a') { case 0: r = 1; break; default: r = 2; }
            break;
          case -1: return 0;
          case 100: r = 5;
        }
        if (r == 2 || r == 5) reach_error();
        return 0;
      })",
      // A goto from one section into the middle of another.
      R"(int main() {
        int x = __VERIFIER_nondet_int(), y = 0;
        switch (x) {
          case 1: y = 5; goto common;
          case 2: y = 7;
          common: y = y * 2; break;
          default: y = 1;
        }
        if (y == 10) reach_error();
        return 0;
      })",
      // A switch in a for loop whose only exit is a break of the loop after the switch.
      R"(int main() {
        int k = __VERIFIER_nondet_int(), state = 0, steps;
        for (steps = 0; steps < 20; steps++) {
          switch (state) {
            case 0: state = k > 50 ? 2 : 1; break;
            case 1: state = 3; k = k + 7; break;
            case 2: state = 3; k = k - 7; break;
            default: break;
          }
          if (state == 3) break;
        }
        if (k == 57 || k == 43) reach_error();
        return 0;
      })",
  };
  return programs;
}

TEST(Switch, RunsAsGccRunsIt) {
  std::vector<std::vector<long long>> inputs;
  for (long long x = -40; x <= 130; ++x) inputs.push_back({x, x % 7});
  for (const std::string& body : SwitchPrograms()) {
    const std::string source = std::string(kHeader) + body + "\n";
    const testing::GccOutcomes n = testing::CompareWithGcc(ParseText(source), source, inputs);
    EXPECT_GT(n.errors, 0) << source;
    EXPECT_GT(n.finished, 0) << source;
  }
}

// Where each break ends its section the switch is ifs alone; an early break needs the do-while(0).
TEST(Switch, IsIfsUnlessABreakLeavesASectionEarly) {
  EXPECT_EQ(testing::CountLoops(ParseText(std::string(kHeader) + SwitchPrograms()[0]).body), 0);
  EXPECT_EQ(testing::CountLoops(ParseText(std::string(kHeader) + SwitchPrograms()[1]).body), 2);
}

TEST(Switch, BadCasesAreErrorsWithTheirPlace) {
  const auto failure = [](const std::string& body) {
    try {
      ParseText(std::string(kHeader) + "int main() {\n  int x = __VERIFIER_nondet_int(), y = 0;\n" + body + "\n}\n");
    } catch (const UnsupportedError& e) {
      return "unsupported: " + std::string(e.what());
    } catch (const common::InputError& e) {
      return "error: " + std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(failure("switch (x) { case 1: y = 1; break; case 1: y = 2; }"), "error: t.c:6:36: duplicate case value");
  EXPECT_EQ(failure("switch (x) { case 2 - 1: y = 1; break; case 1: y = 2; }"),
            "error: t.c:6:40: duplicate case value");
  EXPECT_EQ(failure("switch (x) { case y: y = 1; }"), "error: t.c:6:14: case label is not an integer constant");
  EXPECT_EQ(failure("switch (x) { default: y = 1; default: y = 2; }"),
            "error: t.c:6:30: multiple default labels in one switch");
  EXPECT_EQ(failure("switch (x) { y = 1; case 1: y = 2; }"),
            "unsupported: t.c:6:14: unsupported statement before the first case of a switch");
  EXPECT_EQ(failure("switch (x) { case 0: if (y) { case 1: y = 2; } }"),
            "unsupported: t.c:6:31: unsupported 'case' label inside a statement of a switch, or outside one");
  EXPECT_EQ(failure("switch (x) y = 1;"), "unsupported: t.c:6:12: unsupported switch whose body is not a block");
}

}  // namespace
}  // namespace fusion
