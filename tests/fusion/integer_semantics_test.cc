// C's integer semantics, loopfuse against gcc: random straight-line programs over every integer type (promotions,
// the usual arithmetic conversions, wrap-around on narrowing, division and remainder of negative values, shifts,
// bitwise operators with a constant and between two expressions, casts, comparisons of signed and unsigned
// values, short-circuits, assignments inside expressions), each run by gcc's build under -fsanitize=undefined,
// which prints the values of its variables at the end. A run with undefined behaviour (signed overflow, a shift
// too wide, a division by zero) is left out, as C gives it no meaning. The program then asserts those values,
// and three readers of it must agree: the interpreter (the run ends without error), the Horn clauses through
// Spacer with the inputs fixed by assumes (safe; and unsafe with the assertion negated, so that a proof cannot
// come from clauses that block every run), and gcc's build of the program as loopfuse prints it. The
// loopfuse_verdicts fuzz target checks the verifier against the interpreter, and both read the same parse; only
// a compiler tells what C means.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <iterator>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "fusion/errors.h"
#include "fusion/fuse.h"
#include "fusion/normalize.h"
#include "fusion/printer.h"
#include "test_util.h"

namespace fusion {
namespace {

// An integer type of the generated programs: how C spells it, its width in bits and the nondeterministic
// function that reads an input of it (the gcc harness of test_util.cc defines those).
struct CType {
  const char* name;
  int bits;
  bool is_signed;
  const char* nondet;
};

constexpr CType kTypes[] = {
    {"signed char", 8, true, "__VERIFIER_nondet_char"},
    {"unsigned char", 8, false, "__VERIFIER_nondet_uchar"},
    {"short", 16, true, "__VERIFIER_nondet_int"},
    {"unsigned short", 16, false, "__VERIFIER_nondet_int"},
    {"int", 32, true, "__VERIFIER_nondet_int"},
    {"unsigned int", 32, false, "__VERIFIER_nondet_uint"},
    {"long", 64, true, "__VERIFIER_nondet_long"},
    {"long long", 64, true, "__VERIFIER_nondet_long"},
    {"unsigned long long", 64, false, "__VERIFIER_nondet_ulong"},
    {"_Bool", 1, false, "__VERIFIER_nondet_bool"},
};
constexpr int kTypeCount = sizeof kTypes / sizeof kTypes[0];

// Inputs near the edges of the types, where conversions and wrap-around differ.
constexpr long long kEdgeValues[] = {0, 1, -1, 2, -2, 7, 100, 127, 128, -128, -129, 255, 256, 32767, -32768,
                                     65535, 65536, 2147483647, -2147483647 - 1, 4294967295LL, 4294967296LL,
                                     -4294967296LL, 9223372036854775807LL};

// Constants as C text, of every rank: small ones, and ones at the edges of the types (rarer: they make most
// arithmetic overflow, which is undefined for signed types and leaves the run out).
const char* const kSmallConstants[] = {"0", "1", "2", "3", "7", "(-1)", "(-5)", "100", "0xf", "1u", "3u", "1ll",
                                       "(-3ll)", "1ull", "6ull"};
const char* const kEdgeConstants[] = {"127", "255", "0xff", "0x7fff", "65535", "2147483647", "(-2147483647 - 1)",
                                      "0xffffffffu", "2147483648u", "4294967296ll", "0xffffffffffffffffull", "(-128)"};

// A random program: variables v0, v1, ... of random types, the first ones read from inputs and the others set
// to constants, maybe a global g and an array a of four cells (global or local, with an initialiser), then
// statements; Text() gives its C text with a check at the end.
class ProgramGenerator {
 public:
  explicit ProgramGenerator(unsigned seed) : rng_(seed), pointer_rng_(seed + 0x9e3779b9u) {
    const int variables = Pick(3, 6);
    for (int v = 0; v < variables; ++v) types_.push_back(Pick(0, kTypeCount - 1));
    inputs_ = Pick(1, variables - 1);
    for (int v = 0; v < variables; ++v) initial_.push_back(Constant());
    if (Pick(0, 1)) {
      const char* type = kTypes[Pick(0, kTypeCount - 1)].name;
      globals_ = fmt::format("{} g = {};\n", type, Constant());
      has_global_ = true;
    }
    for (int v = 0; v < variables; ++v) observed_.push_back({fmt::format("v{}", v), types_[v]});
    if (Pick(0, 1)) {
      const int type = Pick(0, kTypeCount - 1);
      // A global's initialiser may leave cells out (zeroed); a local's has all four.
      const bool global = Pick(0, 1);
      std::string cells = Constant();
      for (int c = 1, n = global ? Pick(0, 3) : 3; c <= n; ++c) cells += ", " + Constant();
      // Half of the programs name cells through pointers too, drawn apart so that the programs are the ones
      // drawn before pointers were (the time Spacer takes on them varies fourfold from one draw to another).
      pointers_ = std::uniform_int_distribution<int>(0, 1)(pointer_rng_) == 0;
      std::string& declarations = global ? globals_ : array_;
      const char* indent = global ? "" : "  ";
      declarations += fmt::format("{}{} a[4] = {{{}}};\n", indent, kTypes[type].name, cells);
      if (pointers_) declarations += fmt::format("{}{} *p = a, *q = a + 1;\n", indent, kTypes[type].name);
      for (int c = 0; c < 4; ++c) observed_.push_back({fmt::format("a[{}]", c), type});
    }
    for (int n = Pick(3, 8); n > 0; --n) body_ += Statement(1);
  }

  // The C text, with each input assumed equal to its constant in input_assumes (where given) and `check` at the
  // end of main.
  std::string Text(const std::vector<std::string>& input_assumes, const std::string& check) const {
    std::string text =
        "extern int __VERIFIER_nondet_int(void);\nextern unsigned int __VERIFIER_nondet_uint(void);\n"
        "extern signed char __VERIFIER_nondet_char(void);\nextern unsigned char __VERIFIER_nondet_uchar(void);\n"
        "extern long __VERIFIER_nondet_long(void);\nextern unsigned long long __VERIFIER_nondet_ulong(void);\n"
        "extern _Bool __VERIFIER_nondet_bool(void);\nextern void reach_error(void);\n"
        "extern void __VERIFIER_assume(int);\n" +
        globals_ + "int main(void) {\n  int k = 0;\n";
    for (int v = 0; v < static_cast<int>(types_.size()); ++v) {
      const CType& t = kTypes[types_[v]];
      if (v < inputs_) {
        text += fmt::format("  {} v{} = {}();\n", t.name, v, t.nondet);
        if (!input_assumes.empty()) text += fmt::format("  __VERIFIER_assume(v{} == {});\n", v, input_assumes[v]);
      } else {
        text += fmt::format("  {} v{} = {};\n", t.name, v, initial_[v]);
      }
    }
    return text + array_ + body_ + check + "  return 0;\n}\n";
  }

  const std::vector<int>& types() const { return types_; }
  // What the checks compare, with its type: the variables, then the array's cells.
  const std::vector<std::pair<std::string, int>>& observed() const { return observed_; }
  int inputs() const { return inputs_; }
  // Whether the program divides by more than a constant (Expr).
  bool inexact() const { return inexact_; }
  // Whether the program has a loop (Spacer would need invariants, and its runs are left to the others).
  bool has_loop() const { return has_loop_; }

 private:
  int Pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  int Pick(int lo, size_t hi) { return Pick(lo, static_cast<int>(hi)); }
  // A variable, the global or a cell of the array (at a constant index, or at k in a loop of at most four
  // iterations), the cell named through the pointers p = a and q = a + 1 too (docs/loopfuse.md, "Pointers into
  // arrays"), each a postfix expression, as `x++` needs.
  std::string Var() {
    if (has_global_ && Pick(0, 5) == 0) return "g";
    if (observed_.size() > types_.size() && Pick(0, 3) == 0) {
      const std::string i = in_counted_loop_ && Pick(0, 1) ? "k" : std::to_string(Pick(0, 3));
      switch (pointers_ ? std::uniform_int_distribution<int>(0, 5)(pointer_rng_) : 5) {
        case 0: return fmt::format("p[{}]", i);
        case 1: return fmt::format("q[{} - 1]", i);
        case 2: return fmt::format("a[p + {} + 1 - a - 1]", i);
        case 3: return fmt::format("a[(a + {}) - q + 1]", i);
        default: return fmt::format("a[{}]", i);
      }
    }
    return fmt::format("v{}", Pick(0, static_cast<int>(types_.size()) - 1));
  }
  std::string Constant() {
    if (Pick(0, 3)) return kSmallConstants[Pick(0, std::size(kSmallConstants) - 1)];
    return kEdgeConstants[Pick(0, std::size(kEdgeConstants) - 1)];
  }
  std::string Cast() { return fmt::format("({})", kTypes[Pick(0, kTypeCount - 1)].name); }

  // One of ops, drawn.
  template <size_t N>
  const char* Op(const char* const (&ops)[N]) {
    return ops[Pick(0, N - 1)];
  }
  // A shift count: mostly within every type's width, now and then past int's (undefined there, so left out).
  int ShiftCount() { return Pick(0, 4) ? Pick(0, 9) : Pick(10, 40); }
  // `(a op b)` with a, op and b drawn in that order (the order of a call's arguments is unspecified in C++, and
  // the same seed must give the same program on every compiler).
  std::string Binary(int depth, const char* op) {
    const std::string a = Expr(depth);
    return fmt::format("({} {} {})", a, op, Expr(depth));
  }

  // An expression of at most `depth` levels of operators. A division or remainder by anything but a constant
  // marks the program inexact: the clauses give its result by linear facts that bound it (Encoding, in
  // docs/loopfuse.md), not exactly.
  std::string Expr(int depth) {
    if (depth == 0 || Pick(0, 4) == 0) return Pick(0, 3) ? Var() : Constant();
    switch (Pick(0, 15)) {
      case 0: return "(-" + Expr(depth - 1) + ")";
      case 1: return "~" + Var();
      case 2: return "!" + Expr(depth - 1);
      case 3: {
        const std::string cast = Cast();
        return cast + Expr(depth - 1);
      }
      case 4: {
        const std::string a = Expr(depth - 1);
        const char* op = Op({"<<", ">>"});
        return fmt::format("({} {} {})", a, op, ShiftCount());
      }
      case 5: {
        const std::string a = Expr(depth - 1);
        const char* op = Op({"&", "|", "^"});
        return fmt::format("({} {} {})", a, op, Constant());
      }
      case 6: case 7: return Binary(depth - 1, Op({"==", "!=", "<", "<=", ">", ">="}));
      case 8: return Binary(depth - 1, Op({"&&", "||"}));
      case 10: return Binary(depth - 1, Op({"&", "|", "^"}));
      case 11: {  // an assignment inside the expression; one whose variable the statement reads elsewhere is refused
        const std::string v = Var();
        switch (Pick(0, 3)) {
          case 0: return fmt::format("({}{})", v, Op({"++", "--"}));
          case 1: return fmt::format("({}{})", Op({"++", "--"}), v);
          case 2: {
            const char* op = Op({"=", "+=", "-=", "*=", "&=", "|=", "^="});
            return fmt::format("({} {} {})", v, op, Expr(depth - 1));
          }
          default: return fmt::format("({} = {})", v, Constant());
        }
      }
      case 9: {
        const std::string c = Expr(depth - 1);
        const std::string a = Expr(depth - 1);
        return fmt::format("({} ? {} : {})", c, a, Expr(depth - 1));
      }
      default: {
        const std::string a = Expr(depth - 1);
        const char* op = Op({"+", "-", "*", "/", "%"});
        return fmt::format("({} {} {})", a, op, Divisor(op, Expr(depth - 1)));
      }
    }
  }

  // b, the right operand of op; marks the program inexact where op divides by more than a constant.
  std::string Divisor(const std::string& op, std::string b) {
    static const std::regex kReadsVariable(R"(\b(v[0-9]+|g)\b)");
    if ((op[0] == '/' || op[0] == '%') && std::regex_search(b, kReadsVariable)) inexact_ = true;
    return b;
  }

  // One statement at `nesting` levels of blocks.
  std::string Statement(int nesting) {
    const std::string indent(2 * nesting, ' ');
    const std::string v = Var();
    switch (Pick(0, 11)) {
      case 0: {
        const char* step = Op({"++", "--"});
        return Pick(0, 1) ? fmt::format("{}{}{};\n", indent, v, step) : fmt::format("{}{}{};\n", indent, step, v);
      }
      case 1: {
        const char* op = Op({"+=", "-=", "*=", "/=", "%="});
        return fmt::format("{}{} {} {};\n", indent, v, op, Divisor(op, Expr(2)));
      }
      case 2: {
        const char* op = Op({"&=", "|=", "^="});
        return fmt::format("{}{} {} {};\n", indent, v, op, Pick(0, 1) ? Constant() : Expr(2));
      }
      case 3: {
        const char* op = Op({"<<=", ">>="});
        return fmt::format("{}{} {} {};\n", indent, v, op, ShiftCount());
      }
      case 5:
        if (nesting == 1) return CountedLoop(indent);
        [[fallthrough]];
      case 6:
        if (nesting == 1) return TranslationLoop(indent);
        [[fallthrough]];
      case 4:
        if (nesting < 3) {
          std::string s = fmt::format("{}if ({}) {{\n", indent, Expr(2));
          for (int n = Pick(1, 2); n > 0; --n) s += Statement(nesting + 1);
          s += indent + "} else {\n";
          for (int n = Pick(0, 2); n > 0; --n) s += Statement(nesting + 1);
          return s + indent + "}\n";
        }
        [[fallthrough]];
      default: return fmt::format("{}{} = {};\n", indent, v, Expr(3));
    }
  }

  // A loop of a few iterations (k counts them) around one to three statements.
  std::string CountedLoop(const std::string& indent) {
    has_loop_ = true;
    std::string s = fmt::format("{}for (k = 0; k < {}; k++) {{\n", indent, Pick(0, 4));
    in_counted_loop_ = true;
    for (int n = Pick(1, 3); n > 0; --n) s += Statement(2);
    in_counted_loop_ = false;
    return s + indent + "}\n";
  }

  // A loop that adds constants to variables until one of them passes a bound (or, where it never would, as a
  // narrow variable that wraps around, until k reaches its cap): up to 100 000 iterations, which the
  // interpreter jumps over where they translate the variables (acceleration.h).
  std::string TranslationLoop(const std::string& indent) {
    has_loop_ = true;
    const std::string v = Var();
    const std::string w = Var();
    const int step = Pick(0, 1) ? Pick(1, 7) : -Pick(1, 7);
    const char* op = Pick(0, 4) == 0 ? "!=" : step > 0 ? Op({"<", "<="}) : Op({">", ">="});
    static const char* const kBounds[] = {"10", "(-10)", "250", "1000", "100000", "(-100000)"};
    const char* bound = kBounds[Pick(0, std::size(kBounds) - 1)];
    const std::string e = kSmallConstants[Pick(0, std::size(kSmallConstants) - 1)];
    return fmt::format("{0}for (k = 0; {1} {2} {3} && k < 100000; k++) {{\n{0}  {1} += {4};\n{0}  {5} += {6};\n{0}}}\n",
                       indent, v, op, bound, step, w, e);
  }

  std::mt19937 rng_;
  std::mt19937 pointer_rng_;  // the draws of pointers' names for cells
  std::vector<int> types_;
  int inputs_ = 0;
  std::vector<std::string> initial_;
  std::vector<std::pair<std::string, int>> observed_;
  std::string globals_;
  std::string array_;  // a local array's declaration
  bool has_global_ = false;
  bool pointers_ = false;  // whether p and q are declared, to name cells through them
  bool in_counted_loop_ = false;
  std::string body_;
  bool inexact_ = false;
  bool has_loop_ = false;
};

// A value of a type as a C constant of the same value (compared against the variable, it converts exactly).
std::string Literal(const std::string& printed, bool is_signed) {
  if (!is_signed) return printed + "ull";
  if (printed == "-9223372036854775808") return "(-9223372036854775807ll - 1)";
  return printed[0] == '-' ? "(" + printed + "ll)" : printed + "ll";
}

// The variables' values after gcc's run on inputs, as C constants; empty where the run had undefined behaviour.
std::vector<std::string> GccValues(const ProgramGenerator& gen, const testing::GccProgram& gcc,
                                   const std::vector<long long>& inputs) {
  std::istringstream out(gcc.Run(inputs));
  std::vector<std::string> values;
  std::string word;
  for (size_t v = 0; v < gen.observed().size() && out >> word; ++v) {
    values.push_back(Literal(word, kTypes[gen.observed()[v].second].is_signed));
  }
  if (!(out >> word) || word != "done" || values.size() != gen.observed().size()) return {};
  return values;
}

// The inputs as the program's variables hold them (converted to their types), as C constants.
std::vector<std::string> InputValues(const ProgramGenerator& gen, const std::vector<long long>& inputs) {
  std::vector<std::string> values;
  for (size_t v = 0; v < inputs.size(); ++v) {
    const CType& t = kTypes[gen.types()[v]];
    const auto bits = static_cast<unsigned long long>(inputs[v]);
    std::string text;
    if (t.bits == 1) {
      text = inputs[v] != 0 ? "1" : "0";
    } else if (t.bits == 64) {
      text = t.is_signed ? std::to_string(inputs[v]) : std::to_string(bits);
    } else {
      const unsigned long long low = bits & ((1ull << t.bits) - 1);
      const bool negative = t.is_signed && low >> (t.bits - 1);
      text = negative ? std::to_string(static_cast<long long>(low) - (1ll << t.bits)) : std::to_string(low);
    }
    values.push_back(Literal(text, t.is_signed));
  }
  return values;
}

// A check that fails where anything observed differs from its value (or, negated, where all equal them).
std::string Check(const ProgramGenerator& gen, const std::vector<std::string>& values, bool negated) {
  std::string cond;
  for (size_t v = 0; v < values.size(); ++v) {
    if (v) cond += negated ? " && " : " || ";
    cond += fmt::format("{} {} {}", gen.observed()[v].first, negated ? "==" : "!=", values[v]);
  }
  return fmt::format("  if ({}) reach_error();\n", cond);
}

// The outcome of prog's run on inputs, where an uninitialised value reads 0 and no input: a rewrite's
// havoc (a scalarized array's cells, until its initialiser sets them) must not shift the inputs.
std::string RunOn(const Program& prog, const std::vector<long long>& inputs) {
  size_t next = 0;
  const InputSource source = [&](IntType, const InputSite& site) {
    if (!site.name.empty()) return Int128(0);
    return Int128(next < inputs.size() ? inputs[next++] : 0);
  };
  return OutcomeName(Interpret(prog, source, 10'000'000).outcome);
}

// How many programs and runs each reader compared, and why the others were left out.
struct Tally {
  int programs = 0;
  int undefined_constants = 0;  // programs: gcc warned of undefined behaviour in a constant expression
  int unsupported = 0;          // programs: outside loopfuse's subset
  int runs = 0;                 // compared by the interpreter and the printed program
  int undefined = 0;            // runs: undefined behaviour (the sanitizer's trap), or no end within 2 s
  int step_limit = 0;           // runs: more iterations than the interpreter's steps, in a loop it cannot jump
  int rewritten = 0;            // runs of programs that a rewrite changed
  int spacer = 0;               // runs compared by Spacer too (those of programs without loops)
  int spacer_unknown = 0;       // of twice spacer (each run's check and its negation)
  int spacer_inexact = 0;       // runs where a division by a variable let Spacer reach other values
};

// Runs program `seed` on three inputs through every reader; a disagreement fails the test.
void CompareProgram(unsigned seed, Tally& tally) {
  const ProgramGenerator gen(seed);
  std::string print_values = "  int printf(const char *, ...);\n";
  for (const auto& [lvalue, type] : gen.observed()) {
    print_values += kTypes[type].is_signed ? fmt::format("  printf(\"%lld \", (long long){});\n", lvalue)
                                           : fmt::format("  printf(\"%llu \", (unsigned long long){});\n", lvalue);
  }
  print_values += "  printf(\"done\");\n";
  const std::string observed = gen.Text({}, print_values);
  // gcc folds the constant parts of an expression without the sanitizer's checks, and warns where they are
  // undefined: such a program is left out.
  const testing::GccProgram gcc(observed, "-fsanitize=undefined -fsanitize-undefined-trap-on-error");
  static const std::regex kUndefinedConstant(
      R"(integer overflow in expression|\[-Wshift-count-overflow\]|\[-Wshift-count-negative\]|)"
      R"(\[-Wshift-negative-value\]|\[-Wshift-overflow=|\[-Wdiv-by-zero\])");
  if (std::regex_search(gcc.diagnostics(), kUndefinedConstant)) {
    ++tally.undefined_constants;
    return;
  }
  ASSERT_EQ(gcc.error(), "") << observed;
  ++tally.programs;
  std::mt19937 rng(seed * 7919u + 1);
  for (int run = 0; run < 3; ++run) {
    std::vector<long long> inputs;
    for (int v = 0; v < gen.inputs(); ++v) {
      const bool is_bool = kTypes[gen.types()[v]].bits == 1;
      const long long x = kEdgeValues[std::uniform_int_distribution<int>(0, std::size(kEdgeValues) - 1)(rng)];
      inputs.push_back(is_bool ? (x & 1) : x);
    }
    const std::vector<std::string> values = GccValues(gen, gcc, inputs);
    if (values.empty()) {
      ++tally.undefined;
      continue;
    }
    const std::string checked = gen.Text({}, Check(gen, values, false));
    Program prog;
    try {
      prog = testing::ParseText(checked);
    } catch (const UnsupportedError& e) {
      ++tally.unsupported;
      if (std::getenv("LOOPFUSE_SEMANTICS_PROGRAMS")) fmt::print("unsupported: {}\n", e.what());
      return;
    }
    std::string shown;
    for (long long x : inputs) shown += " " + std::to_string(x);
    const std::string got = OutcomeName(testing::InterpretOn(prog, inputs));
    if (got == "step limit") {
      ++tally.step_limit;
      continue;
    }
    ++tally.runs;
    ASSERT_EQ(got, "finished") << "the interpreter computes other values than gcc\n" << checked << "inputs:" << shown
                               << "\nas parsed:\n" << PrintProgram(prog);
    const testing::GccProgram printed(prog);
    ASSERT_EQ(printed.error(), "") << PrintProgram(prog);
    ASSERT_EQ(printed.Run(inputs), "finished") << "loopfuse prints a program that computes other values\n"
                                               << checked << "inputs:" << shown << "\nprinted:\n" << PrintProgram(prog);
    // The rewrites that keep what a program computes: every candidate's start (normalize.h), then short loops
    // unrolled and aligned loops fused (fuse.h's kAligned; the guesses add assumes and reads, not checked here).
    std::vector<std::string> applied;
    const Program start = CandidateStart(prog, applied);
    const Variant aligned = Transform(start, FusionMode::kAligned);
    for (const Program* rewritten : {&start, &aligned.prog}) {
      ASSERT_EQ(RunOn(*rewritten, inputs), "finished")
          << "a rewrite changes what the program computes\n" << checked << "inputs:" << shown << "\nrewritten:\n"
          << PrintProgram(*rewritten);
    }
    tally.rewritten += !applied.empty() || !aligned.transformations.empty();
    if (gen.has_loop()) continue;
    const std::vector<std::string> input_values = InputValues(gen, inputs);
    ++tally.spacer;
    const std::string safe_text = gen.Text(input_values, Check(gen, values, false));
    const std::string unsafe_text = gen.Text(input_values, Check(gen, values, true));
    // Sound: the values gcc computes are never proved unreachable.
    const SolveStatus u = testing::SolveAny(testing::ParseText(unsafe_text), 5);
    ASSERT_NE(u, SolveStatus::kSafe) << "Spacer proves unreachable the values gcc computes\n" << unsafe_text;
    // Exact: no other values are reachable, unless a division by a variable's linear facts allow them (the
    // verifier replays every error Spacer finds, so those give an unknown, not a wrong verdict).
    const SolveStatus s = testing::SolveAny(testing::ParseText(safe_text), 5);
    if (!gen.inexact()) {
      ASSERT_NE(s, SolveStatus::kUnsafe) << "Spacer finds values other than gcc's\n" << safe_text;
    }
    // The same with the paths merged into one formula (EncodeHorn), as on programs of many paths.
    ASSERT_NE(testing::SolveAny(testing::ParseText(unsafe_text), 5, false, 0), SolveStatus::kSafe)
        << "merged paths: Spacer proves unreachable the values gcc computes\n" << unsafe_text;
    if (!gen.inexact()) {
      ASSERT_NE(testing::SolveAny(testing::ParseText(safe_text), 5, false, 0), SolveStatus::kUnsafe)
          << "merged paths: Spacer finds values other than gcc's\n" << safe_text;
    }
    tally.spacer_inexact += s == SolveStatus::kUnsafe;
    tally.spacer_unknown += (s == SolveStatus::kUnknown) + (u == SolveStatus::kUnknown);
  }
}

TEST(IntegerSemantics, EncodesProductsOfUnsignedLongLongPast2To127) {
  // The encoder bounds the product from its operands' ranges, (2^64 - 1)^2 at most, to tell how often it
  // wraps around: more than Int128 holds.
  const auto with = [](const std::string& check) {
    return testing::SolveAny(
        testing::ParseText("int main() { unsigned long long x = __VERIFIER_nondet_ulonglong(); "
                           "unsigned long long y = __VERIFIER_nondet_ulonglong(); unsigned long long z = x * y; "
                           "if (x == 4294967296ULL && y == x) __VERIFIER_assert(z != " + check + "); return 0; }"),
        5);
  };
  EXPECT_EQ(with("0"), SolveStatus::kUnsafe);
  EXPECT_NE(with("1"), SolveStatus::kUnsafe);
}

TEST(IntegerSemantics, ReadsCellsNeverWrittenAsValuesOfTheirType) {
  // b = a[0] + 1 wraps a[0] == UINT_MAX around to 0, and the assertion wraps the same sum again (+ 0): equal.
  // Where the clauses let a never-written cell hold 2^33, the first wrap-around left 2^32 + 1 and the second
  // 1, and Spacer found the error reachable (the loopfuse_nests fuzz target's programs, once collapsed).
  for (const char* type : {"unsigned int", "unsigned char", "short"}) {
    const std::string text = fmt::format(
        "int main() {{ {0} a[2]; {0} b = a[0] + 1; __VERIFIER_assert(b == ({0})(({0})(a[0] + 1) + 0)); return 0; }}",
        type);
    EXPECT_EQ(testing::SolveAny(testing::ParseText(text), 5), SolveStatus::kSafe) << text;
  }
}

// LOOPFUSE_SEMANTICS_PROGRAMS=N runs N programs instead of 40, and names each unsupported construct: a hunt.
TEST(IntegerSemantics, LoopfuseComputesWhatGccComputes) {
  const char* env = std::getenv("LOOPFUSE_SEMANTICS_PROGRAMS");
  const unsigned programs = env ? std::strtoul(env, nullptr, 10) : 40;
  Tally t;
  for (unsigned seed = 1; seed <= programs && !HasFailure(); ++seed) CompareProgram(seed, t);
  fmt::print("{} programs compared ({} left out: undefined behaviour in constants; {} unsupported); {} runs "
             "compared ({} left out: undefined behaviour or no end in 2 s; {} at the interpreter's step limit), {} of "
             "them of programs that a rewrite changed; Spacer on {} ({} unknown of twice that; {} other values "
             "reachable through a division's facts)\n",
             t.programs, t.undefined_constants, t.unsupported, t.runs, t.undefined, t.step_limit, t.rewritten,
             t.spacer, t.spacer_unknown, t.spacer_inexact);
  if (env) return;
  // Not a comparison of nothing: most of the 40 programs run on some inputs without undefined behaviour.
  EXPECT_GT(t.runs, 30);
  EXPECT_GT(t.spacer, 15);
}

}  // namespace
}  // namespace fusion
