// The check of the loopfuse_verdicts fuzz target (fuzz/harness.h). The generated programs are small
// enough for the interpreter to run every one of their runs: each nondeterministic value is assumed into
// a range of at most four numbers right where it is read, so the runs over those numbers are all the runs
// that an assume does not block, and the truth of the assertion is known without any solver.
#include <fmt/core.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "fusion/interpreter.h"
#include "fusion/parser.h"
#include "fuzz/harness.h"
#include "fuzz/verdict_oracle.h"

namespace fuzz {
namespace {

using fusion::Int128;

// Bound on the magnitude of every int sum, difference and quotient, far from 2^31: signed overflow is
// undefined in C, and the interpreter and the Horn encoding need not agree on it.
constexpr long long kMagnitudeLimit = 1LL << 26;
// The same for long long arithmetic: far beyond 32 bits, far from 2^63.
constexpr long long kWideMagnitudeLimit = 1LL << 58;
// Cells of the array; every loop bound is at most 8.
constexpr int kCells = 8;

// Where an operand of a generated statement comes from.
enum class Source { kConst, kCounter, kInput, kData, kCell, kNondet };

// One operand: a constant, the loop counter, input x<index>, data variable s<index>, or the array cell the
// loop's counter indexes (reversed: counted from the end of the loop's range; previous: the cell before it,
// 0 where the counter is 0, the recurrences of recurrence.h).
struct Operand {
  Source source = Source::kConst;
  int value = 0;
  bool reversed = false;
  bool previous = false;
};

// One statement of a loop body: target = rhs, possibly under `if (guard_a rel guard_b)`, or, where `jump` is
// set, `break;`, `continue;` or `goto L<k>;` (to the label before loop k, or before the assertion) under the
// guard. rhs by form: 0 a, 1 target + a, 2 target - a, 3 a + b, 4 a - b,
// 5 a % b, 6 a / b (5 and 6 where b != 0, else a: horn.cc's division by a variable), 7 a & b, 8 a | b, 9 a ^ b.
struct Statement {
  std::string jump;  // "break", "continue", "goto L<k>" or empty
  Operand target;
  int form = 0;
  Operand a;
  Operand b;
  bool guarded = false;
  Operand guard_a;
  Operand guard_b;
  std::string rel;
};

// One loop: its counter, its bound (C text and largest value), the range its reversed cells count back
// from (C text and largest value: the bound, or twice it in a first loop that fills the array from both
// ends, as array-tiling/tcpy.c's copy does), its shape and its body.
struct Loop {
  std::string counter;
  std::string bound;
  int max_bound = 0;
  std::string span;
  int max_span = 0;
  int shape = 0;  // 0 for-up, 1 for-down, 2 while-up, 3 while-down
  std::vector<Statement> body;
  // A loop nested in this one's body (none or one, itself without), run before body[inner_at]: it reads
  // and writes data only, its counter its own.
  std::vector<Loop> inner;
  size_t inner_at = 0;
};

// A generated program: everything in main but its final assertion, which Text() adds.
struct Generated {
  // The type of the inputs, cells and (but in mixed programs) data: int or unsigned int, or a narrower type
  // (char, short: arithmetic in int, wrap-around where a value is stored) or long long (values past 32 bits),
  // signed or not.
  fusion::IntType type = fusion::kInt;
  // The type of the tested expression (C's usual arithmetic conversions), and so of the assertion's constant.
  fusion::IntType tested_type = fusion::kInt;
  int lo = 0;     // every nondeterministic value is assumed into [lo, lo + width]
  int width = 1;
  std::string declarations;
  std::vector<Loop> loops;
  // The loops that a goto jumps to, whose label comes before them (loops.size(): before the assertion).
  std::set<size_t> labels;
  std::string tested;  // the expression the final assertion compares
  // Whether a remainder or quotient has a divisor other than a nonzero constant: the clauses then bound it by
  // linear facts only (horn.cc, DivideByVariable), and Spacer may find errors no run reaches.
  bool divides_by_variable = false;
  // Whether while loops count in their condition, `++i < n` and `i-- > 0` (assignments inside expressions).
  bool counts_in_condition = false;
  bool has_array = false;  // whether main declares the array a
  // How a cell is written: 0 `a[i]`, 1 `*(a + (i))`, 2 `p[i]` and 3 `*(p + (i))` through `int *p = a;`, and
  // through differences of pointers, 4 `a[p + (i) + 1 - a - 1]` and 5 `*(a + (p + (i) - a))`.
  int cell_syntax = 0;
  // Whether the data variables are the members of one object on the heap, `d->s0`, written through two
  // pointers to it, d for even and e for odd ones (heap.h; an object's members are arrays over object numbers).
  bool heap_data = false;

  std::string Type() const { return fusion::TypeName(type); }
  // The SV-COMP function that returns a nondeterministic value of type t.
  static std::string NondetFunction(fusion::IntType t) {
    static const std::map<std::pair<int, bool>, std::string> kSuffixes = {
        {{8, true}, "char"},   {{8, false}, "uchar"},  {{16, true}, "short"},    {{16, false}, "ushort"},
        {{32, true}, "int"},   {{32, false}, "uint"},  {{64, true}, "longlong"}, {{64, false}, "ulonglong"}};
    return "__VERIFIER_nondet_" + kSuffixes.at({t.bits, t.is_signed});
  }
  // The call that reads a nondeterministic value of type t (of the program's type without t).
  static std::string Nondet(fusion::IntType t) { return NondetFunction(t) + "()"; }
  std::string Nondet() const { return Nondet(type); }
  // The program that finds the value of `tested` at the end of a run: it fails where tested > k, k its first
  // input.
  std::string Probe() const {
    return Text(fmt::format("{} k = {};", fusion::TypeName(tested_type), Nondet(tested_type)), tested + " <= k");
  }
  // A C literal of type t (int where t is narrower).
  static std::string Literal(fusion::Int128 v, fusion::IntType t) {
    const std::string suffix = t.bits < 32 ? "" : std::string(t.is_signed ? "" : "u") + (t.bits == 64 ? "ll" : "");
    const std::string text = fusion::DecimalText(v) + suffix;
    return v < 0 ? "(" + text + ")" : text;
  }
  // A C literal of the program's type.
  std::string Literal(fusion::Int128 v) const { return Literal(v, type); }
  // The assume that keeps lvalue's nondeterministic value in the enumerated range.
  std::string AssumeInRange(const std::string& lvalue) const {
    return fmt::format("__VERIFIER_assume({0} >= {1} && {0} <= {2});", lvalue, Literal(lo), Literal(lo + width));
  }
  // The whole C file: `prefix` first in main, then the program, then __VERIFIER_assert(assertion).
  std::string Text(const std::string& prefix, const std::string& assertion) const;
  // The cell at `index` (C text), written as cell_syntax says.
  std::string Cell(const std::string& index) const {
    if (cell_syntax == 4) return fmt::format("a[p + ({}) + 1 - a - 1]", index);
    if (cell_syntax == 5) return fmt::format("*(a + (p + ({}) - a))", index);
    const char* array = cell_syntax < 2 ? "a" : "p";
    return cell_syntax % 2 == 0 ? fmt::format("{}[{}]", array, index) : fmt::format("*({} + ({}))", array, index);
  }
};

// The C text of an operand inside `loop`.
std::string OperandText(const Operand& o, const Loop& loop, const Generated& g) {
  switch (o.source) {
    case Source::kConst: return g.Literal(o.value);
    case Source::kCounter: return loop.counter;
    case Source::kInput: return fmt::format("x{}", o.value);
    case Source::kData: return fmt::format("s{}", o.value);
    case Source::kCell:
      if (o.previous) return fmt::format("({} > 0 ? {} : 0)", loop.counter, g.Cell(loop.counter + " - 1"));
      return g.Cell(o.reversed ? fmt::format("{} - 1 - {}", loop.span, loop.counter) : loop.counter);
    case Source::kNondet: return g.Nondet();
  }
  return "";
}

std::string StatementText(const Statement& s, const Loop& loop, const Generated& g) {
  if (!s.jump.empty()) {
    return fmt::format("if ({} {} {}) {{ {}; }}", OperandText(s.guard_a, loop, g), s.rel,
                       OperandText(s.guard_b, loop, g), s.jump);
  }
  const std::string t = OperandText(s.target, loop, g);
  const std::string a = OperandText(s.a, loop, g);
  const std::string b = OperandText(s.b, loop, g);
  const std::string rhs[] = {a, t + " + " + a, t + " - " + a, a + " + " + b, a + " - " + b,
                             fmt::format("({1} != 0 ? {0} % {1} : {0})", a, b),
                             fmt::format("({1} != 0 ? {0} / {1} : {0})", a, b),
                             a + " & " + b, a + " | " + b, a + " ^ " + b};
  std::string text = fmt::format("{} = {};", t, rhs[s.form]);
  if (s.a.source == Source::kNondet) text += " " + g.AssumeInRange(t);
  if (!s.guarded) return text;
  return fmt::format("if ({} {} {}) {{ {} }}", OperandText(s.guard_a, loop, g), s.rel, OperandText(s.guard_b, loop, g),
                     text);
}

// The C text of a loop, each line after `pad`.
std::string LoopText(const Loop& loop, const Generated& g, const std::string& pad) {
  const std::string in = pad + "  ";
  std::string body;
  for (size_t k = 0; k <= loop.body.size(); ++k) {
    if (k == loop.inner_at) {
      for (const Loop& inner : loop.inner) body += LoopText(inner, g, in);
    }
    if (k < loop.body.size()) body += in + StatementText(loop.body[k], loop, g) + "\n";
  }
  const std::string& c = loop.counter;
  switch (loop.shape) {
    case 0: return fmt::format("{3}for ({0} = 0; {0} < {1}; {0}++) {{\n{2}{3}}}\n", c, loop.bound, body, pad);
    case 1: return fmt::format("{3}for ({0} = {1} - 1; {0} >= 0; {0}--) {{\n{2}{3}}}\n", c, loop.bound, body, pad);
    case 2:
      if (g.counts_in_condition) {
        return fmt::format("{3}{0} = -1;\n{3}while (++{0} < {1}) {{\n{2}{3}}}\n", c, loop.bound, body, pad);
      }
      return fmt::format("{3}{0} = 0;\n{3}while ({0} < {1}) {{\n{2}{4}{0} = {0} + 1;\n{3}}}\n", c, loop.bound, body,
                         pad, in);
    default:
      if (g.counts_in_condition) {
        return fmt::format("{3}{0} = {1};\n{3}while ({0}-- > 0) {{\n{2}{3}}}\n", c, loop.bound, body, pad);
      }
      return fmt::format("{3}{0} = {1};\n{3}while ({0} > 0) {{\n{4}{0} = {0} - 1;\n{2}{3}}}\n", c, loop.bound, body,
                         pad, in);
  }
}

// text with its data variables `T sK = v;` made the members of one object on the heap: a struct of them, one
// object that `d` and `e` point to, and each sK read and written as d->sK (even K) or e->sK (odd K).
std::string OnTheHeap(const std::string& text) {
  static const std::regex kDeclaration(R"(\n  ([a-z][a-z ]*) s([0-9]+) = ([^;]+);)");
  static const std::regex kUse(R"(\bs([0-9]+)\b)");
  std::string members, body;
  auto from = text.cbegin();
  for (std::sregex_iterator m(text.begin(), text.end(), kDeclaration), end; m != end; ++m) {
    members += fmt::format(" {} s{};", (*m)[1].str(), (*m)[2].str());
    body.append(from, (*m)[0].first);
    body += fmt::format("\n  d->s{} = {};", (*m)[2].str(), (*m)[3].str());
    from = (*m)[0].second;
  }
  body.append(from, text.cend());
  std::string used;
  auto rest = body.cbegin();
  for (std::sregex_iterator m(body.begin(), body.end(), kUse), end; m != end; ++m) {
    used.append(rest, (*m)[0].first);
    const bool declared = (*m)[0].first > body.begin() + 3 && std::string((*m)[0].first - 3, (*m)[0].first) == "d->";
    used += declared ? (*m)[0].str() : fmt::format("{}->s{}", std::stoi((*m)[1].str()) % 2 ? "e" : "d", (*m)[1].str());
    rest = (*m)[0].second;
  }
  used.append(rest, body.cend());
  const size_t main_at = used.find("int main(void) {\n");
  return used.substr(0, main_at) + "extern void *malloc(unsigned long);\nstruct D {" + members + " };\n" +
         "int main(void) {\n  struct D *d = malloc(sizeof(struct D)), *e = d;\n" + used.substr(main_at + 17);
}

std::string Generated::Text(const std::string& prefix, const std::string& assertion) const {
  std::string out =
      "extern int __VERIFIER_nondet_int(void);\n"
      "extern unsigned int __VERIFIER_nondet_uint(void);\n";
  if (type.bits != 32) out += fmt::format("extern {} {}(void);\n", Type(), NondetFunction(type));
  out +=
      "extern void __VERIFIER_assume(int);\n"
      "extern void __VERIFIER_assert(int);\n"
      "int main(void) {\n";
  if (!prefix.empty()) out += "  " + prefix + "\n";
  out += declarations;
  if (has_array && cell_syntax >= 2) out += "  " + Type() + " *p = a;\n";
  for (size_t k = 0; k <= loops.size(); ++k) {
    if (labels.count(k)) out += fmt::format("  L{}:\n", k);
    if (k < loops.size()) out += LoopText(loops[k], *this, "  ");
  }
  out += fmt::format("  __VERIFIER_assert({});\n  return 0;\n}}\n", assertion);
  return heap_data ? OnTheHeap(out) : out;
}


// Builds a Generated from the bytes; every choice is one byte, so that mutations change the program a
// little at a time.
class Generator {
 public:
  // The widths of the types that the range byte and, in mixed programs, each data variable's byte choose from.
  static constexpr int kBits[] = {32, 8, 16, 64};

  explicit Generator(std::string_view data) : in_(data) {}

  Generated Run() {
    const unsigned shape = in_.Next();
    const bool is_unsigned = shape & 1;
    loop_count_ = 2 + (shape >> 1) % 2;
    const bool shared_counter = shape & 4;
    has_array_ = (shape >> 3) % 3 != 0;
    both_ends_ = has_array_ && (shape >> 3) / 3 % 3 == 0;
    // The range byte also picks the width of the type (below 15: 32 bits, as before the other types were
    // added, so that older seeds make the programs they made), whether the data start near the type's
    // largest values, where narrow values wrap around and long long ones pass 32 bits, and from 180 on
    // whether each data variable has a type of its own (mixed: conversions wherever values meet).
    const unsigned range = in_.Next();
    g_.type = {kBits[range / 15 % 4], !is_unsigned};
    g_.lo = is_unsigned ? static_cast<int>(range % 3) : static_cast<int>(range % 5) - 2;
    const bool mixed = range >= 180;
    const bool near_edge = g_.type.bits != 32 && range / 60 % 2 == 1;
    // The width byte also picks the control flow (below 3: none, as before it was added): guarded `break`s and
    // `continue`s, loops nested in loops, forward `goto`s out of loops, in any combination; and whether sums
    // and differences may become bitwise operators (below 24: no, as before they were added).
    const unsigned width = in_.Next();
    g_.width = 1 + width % 3;
    jumps_ = width / 3 % 2 == 1;
    nested_ = width / 6 % 2 == 1;
    gotos_ = width / 12 % 2 == 1;
    bitwise_ = width / 24 % 2 == 1;
    g_.counts_in_condition = width / 48 % 2 == 1;
    inputs_ = 1 + in_.Next() % 3;
    data_ = 1 + in_.Next() % 3;
    const std::string type = g_.Type();
    std::string& d = g_.declarations;
    for (int k = 0; k < inputs_; ++k) {
      d += fmt::format("  {} x{} = {};\n  {}\n", type, k, g_.Nondet(), g_.AssumeInRange(fmt::format("x{}", k)));
    }
    for (int k = 0; k < data_; ++k) {
      const unsigned init = in_.Next();
      const fusion::IntType t = mixed ? fusion::IntType{kBits[init / 8 % 4], init / 32 % 2 == 0} : g_.type;
      const bool edge = mixed ? init / 64 % 2 == 1 : near_edge;
      const Int128 constant = (edge ? EdgeBase(t) : 0) + init / 2 % 4;
      const std::string value = init % 2 ? fmt::format("x{}", init / 2 % inputs_) : g_.Literal(constant, t);
      d += fmt::format("  {} s{} = {};\n", fusion::TypeName(t), k, value);
      data_type_.push_back(t);
      magnitude_.push_back(Stored(init % 2 ? InputMagnitude() : constant, t));
    }
    g_.has_array = has_array_;
    if (has_array_) d += fmt::format("  {} a[{}];\n", type, kCells);
    for (int l = 0; l < loop_count_; ++l) {
      const std::string counter = shared_counter ? "i" : fmt::format("i{}", l);
      if (l == 0 || !shared_counter) d += fmt::format("  int {} = 0;\n", counter);
      g_.loops.push_back(MakeLoop(l, counter));
      for (const Loop& inner : g_.loops.back().inner) d += fmt::format("  int {} = 0;\n", inner.counter);
    }
    const unsigned e = in_.Next();
    const int j = static_cast<int>(e % data_), k = static_cast<int>(e / 4 % data_);
    const fusion::IntType sum_type = Common(data_type_[j], data_type_[k]);
    // A sum or difference that could overflow a signed type (mixed programs) tests s<j> alone.
    if (e / 16 % 3 == 0 || (sum_type.is_signed && magnitude_[j] + magnitude_[k] > fusion::MaxOf(sum_type))) {
      g_.tested = fmt::format("s{}", j);
      g_.tested_type = Common(data_type_[j], data_type_[j]);
    } else {
      g_.tested = fmt::format("s{} {} s{}", j, e / 16 % 3 == 1 ? "-" : "+", k);
      g_.tested_type = sum_type;
    }
    for (Loop& loop : g_.loops) {
      for (const Statement* s : InExecutionOrder(loop)) {
        const bool constant_divisor = s->b.source == Source::kConst && s->b.value != 0;
        const bool divides = s->form == 5 || s->form == 6;
        g_.divides_by_variable = g_.divides_by_variable || (s->jump.empty() && divides && !constant_divisor);
      }
    }
    return g_;
  }

  // The next byte, for choices made after the program (the assertion).
  unsigned Next() { return in_.Next(); }

 private:
  Int128 InputMagnitude() const { return std::max(std::abs(g_.lo), std::abs(g_.lo + g_.width)); }

  // The lowest of the four constants that data of type t start from near the edge of their type: the largest
  // values of t, but just below 2^32 for long long.
  static Int128 EdgeBase(fusion::IntType t) {
    return t == fusion::kLongLong ? (Int128(1) << 32) - 2 : fusion::MaxOf(t) - 3;
  }

  // The type C computes a binary operation of operands of types a and b in (integer promotion, then the usual
  // arithmetic conversions of types of at most 64 bits), written out here rather than taken from loopfuse.
  static fusion::IntType Common(fusion::IntType a, fusion::IntType b) {
    if (a.bits < 32) a = fusion::kInt;
    if (b.bits < 32) b = fusion::kInt;
    if (a.bits != b.bits) return a.bits > b.bits ? a : b;  // the 64-bit type holds every 32-bit value
    return {a.bits, a.is_signed && b.is_signed};
  }

  // A bound on the magnitude of a value of magnitude at most `value` once stored in type t: an unsigned type may
  // wrap a negative value around to its largest, a signed one holds at most its own range.
  static Int128 Stored(Int128 value, fusion::IntType t) {
    return t.is_signed ? std::min(value, -fusion::MinOf(t)) : fusion::MaxOf(t);
  }

  // A loop bound: a constant, x0, or x0 plus a constant; none exceeds 8.
  void PickBound(Loop& loop) {
    const unsigned b = in_.Next();
    const int hi = g_.lo + g_.width;
    if (b % 3 == 0) {
      loop.bound = std::to_string(b / 3 % 9);
      loop.max_bound = static_cast<int>(b / 3 % 9);
    } else if (b % 3 == 1 || hi + 1 > kCells) {
      loop.bound = "x0";
      loop.max_bound = std::max(hi, 0);
    } else {
      const int c = 1 + static_cast<int>(b / 3 % std::min(3, kCells - hi));
      loop.bound = fmt::format("x0 + {}", c);
      loop.max_bound = std::max(hi + c, 0);
    }
  }

  // The bound of a first loop that fills the array from both ends: mostly x0 where x0 stays within kCells / 2
  // (loops over a constant range this short are unrolled before index-set splitting could see them), else a
  // constant up to it.
  void PickHalfBound(Loop& loop) {
    const unsigned b = in_.Next();
    const int hi = g_.lo + g_.width;
    if (b % 4 == 3 || 2 * hi > kCells) {
      loop.bound = std::to_string(b / 4 % (kCells / 2 + 1));
      loop.max_bound = static_cast<int>(b / 4 % (kCells / 2 + 1));
    } else {
      loop.bound = "x0";
      loop.max_bound = std::max(hi, 0);
    }
  }

  Loop MakeLoop(int index, const std::string& counter) {
    Loop loop;
    loop.counter = counter;
    if (index == 0 && both_ends_) {
      PickHalfBound(loop);
    } else if (index == 0 || in_.Next() % 2) {
      PickBound(loop);
    } else {
      loop.bound = g_.loops[0].span;  // the common case of fusion: the range of the cells the first loop wrote
      loop.max_bound = g_.loops[0].max_span;
    }
    const bool fills_both_ends = index == 0 && both_ends_;
    loop.span = fills_both_ends ? "2 * " + loop.bound : loop.bound;
    loop.max_span = fills_both_ends ? 2 * loop.max_bound : loop.max_bound;
    loop.shape = static_cast<int>(in_.Next() % 4);
    // Cells are read only where the first loop wrote them all: in the first loop after the statements
    // that write them, and in loops over their range. Reading one never written would be an input the
    // enumeration does not bound.
    const bool readable = has_array_ && (index == 0 || loop.bound == g_.loops[0].span);
    if (index == 0 && has_array_) loop.body.push_back(InitCell(loop, false));
    if (fills_both_ends) loop.body.push_back(InitCell(loop, true));
    const int statements = 1 + static_cast<int>(in_.Next() % 3);
    for (int k = 0; k < statements; ++k) loop.body.push_back(MakeStatement(loop, readable, index, has_array_));
    if (nested_) {
      const unsigned n = in_.Next();
      if (n % 2) {
        loop.inner.push_back(MakeInnerLoop(index));
        loop.inner_at = n / 2 % (loop.body.size() + 1);
      }
    }
    BoundMagnitudes(loop);
    return loop;
  }

  // A loop nested in loop number `index`: over 1 to 3 or x0 iterations, of 1 or 2 statements on data only.
  // Its shape is one where `continue` goes on to the next iteration (not while-up, whose counter the body's
  // last line counts).
  Loop MakeInnerLoop(int index) {
    Loop inner;
    inner.counter = fmt::format("j{}", index);
    const unsigned b = in_.Next();
    if (b % 4 < 3) {
      inner.max_bound = static_cast<int>(b % 4) + 1;
      inner.bound = std::to_string(inner.max_bound);
    } else {
      inner.bound = "x0";
      inner.max_bound = std::max(g_.lo + g_.width, 0);
    }
    static constexpr int kShapes[] = {0, 1, 3};
    inner.shape = kShapes[b / 4 % 3];
    const int statements = 1 + static_cast<int>(b / 12 % 2);
    for (int k = 0; k < statements; ++k) inner.body.push_back(MakeStatement(inner, false, index, false));
    return inner;
  }

  // The statements of a loop body in the order one iteration runs them (those of a nested loop once).
  static std::vector<Statement*> InExecutionOrder(Loop& loop) {
    std::vector<Statement*> order;
    for (size_t k = 0; k <= loop.body.size(); ++k) {
      if (k == loop.inner_at) {
        for (Loop& inner : loop.inner) {
          for (Statement& s : inner.body) order.push_back(&s);
        }
      }
      if (k < loop.body.size()) order.push_back(&loop.body[k]);
    }
    return order;
  }

  // a[counter] (or the reversed cell) = a constant, the counter, an input, counter + input, or a
  // nondeterministic value (when the enumeration stays small enough).
  Statement InitCell(const Loop& loop, bool reversed) {
    Statement s;
    s.target = {Source::kCell, 0, reversed};
    const unsigned v = in_.Next();
    long runs = 1;
    for (int k = 0; k < inputs_ + loop.max_span && runs <= kMaxRuns; ++k) runs *= g_.width + 1;
    switch (v % 5) {
      case 0: s.a = {Source::kConst, static_cast<int>(v / 5 % 4)}; break;
      case 1: s.a = {Source::kCounter}; break;
      case 2: s.a = {Source::kInput, static_cast<int>(v / 5 % inputs_)}; break;
      case 3:
        s.form = 3;
        s.a = {Source::kCounter};
        s.b = {Source::kInput, static_cast<int>(v / 5 % inputs_)};
        break;
      default:
        s.a = runs <= kMaxRuns ? Operand{Source::kNondet} : Operand{Source::kCounter};
    }
    return s;
  }

  // An operand; a cell only where cells are readable (reversed or the cell before only outside the first
  // loop, where those may not be written yet).
  Operand MakeOperand(bool readable, int loop) {
    const unsigned v = in_.Next();
    switch (v % 6) {
      case 0: return {Source::kConst, static_cast<int>(v / 6 % 4)};
      case 1: return {Source::kCounter};
      case 2: return {Source::kInput, static_cast<int>(v / 6 % inputs_)};
      case 4:
        if (readable) return {Source::kCell, 0, loop > 0 && v / 6 % 3 == 1, loop > 0 && v / 6 % 3 == 2};
        [[fallthrough]];
      default: return {Source::kData, Data(loop, v / 6)};
    }
  }

  // Data variable number `choice` picks for a statement of `loop`: half of the time the loop's own
  // accumulator, so that loops without scalar dependences between them (which fusion needs) are common.
  int Data(int loop, unsigned choice) const {
    return static_cast<int>((choice % 2 ? choice / 2 : static_cast<unsigned>(loop)) % data_);
  }

  // A statement of `body_of` (loop number `loop` or a loop nested in it): an assignment, to a cell only where
  // `cells_writable`, or in programs with jumps a guarded `break` or `continue`, in programs with gotos a
  // guarded `goto` forward to the label before a later loop or the assertion. Never a `break` or a `goto` out
  // of the first loop of a program with the array (later loops read every cell it writes), nor a `continue` in
  // a while-up loop (it would skip the count).
  Statement MakeStatement(const Loop& body_of, bool readable, int loop, bool cells_writable) {
    Statement s;
    const unsigned t = in_.Next();
    s.target = cells_writable && t % 4 == 0 ? Operand{Source::kCell, 0, t / 4 % 2 == 1}
                                            : Operand{Source::kData, Data(loop, t / 4)};
    // A quarter of the sums and differences become a remainder or a quotient, decided by the same draw, so that
    // the inputs of fuzz/regressions/loopfuse_verdicts make the programs they made before forms 5 and 6.
    const unsigned form = in_.Next();
    s.form = static_cast<int>(form % 5);
    if (s.form >= 3 && form / 5 % 4 == 3) s.form += 2;
    if (bitwise_ && (s.form == 3 || s.form == 4) && form / 20 % 2 == 1) s.form = 7 + static_cast<int>(form / 40 % 3);
    // Forms 1 and 2 read the target cell: only where an operand could read it (the reversed cell in the
    // first loop may not be written yet, and an unwritten cell is an input the enumeration does not bound).
    const bool reads_target = s.form == 1 || s.form == 2;
    if (reads_target && s.target.source == Source::kCell && !(readable && (loop > 0 || !s.target.reversed))) {
      s.form = 0;
    }
    s.a = MakeOperand(readable, loop);
    s.b = MakeOperand(readable, loop);
    const unsigned guard = in_.Next();
    if (guard % 4 == 0) {
      static const char* const kRels[] = {"<", "<=", "==", "!=", ">", ">="};
      s.guarded = true;
      s.guard_a = MakeOperand(readable, loop);
      s.guard_b = MakeOperand(readable, loop);
      s.rel = kRels[guard / 4 % 6];
      if (jumps_ || gotos_) {
        const unsigned j = in_.Next() % (gotos_ ? 4 : 3);
        const bool fills_the_array = loop == 0 && has_array_ && cells_writable;  // not a loop nested in it
        const bool may_break = !fills_the_array;
        const bool may_continue = body_of.shape != 2;
        const bool may_leave = !(loop == 0 && has_array_);  // a goto leaves a nested loop's outer loop too
        if (j == 0 && jumps_ && may_break) s.jump = "break";
        if (j == 1 && jumps_ && may_continue) s.jump = "continue";
        if (j == 3 && may_leave) {
          const size_t target = loop + 1 + in_.Next() % (loop_count_ - loop);
          s.jump = fmt::format("goto L{}", target);
          g_.labels.insert(target);
        }
      }
    }
    return s;
  }

  // Largest magnitude an operand can have.
  Int128 Magnitude(const Operand& o) const {
    switch (o.source) {
      case Source::kConst: return o.value;
      case Source::kCounter: return kCells;
      case Source::kInput: case Source::kNondet: return InputMagnitude();
      case Source::kData: return magnitude_[o.value];
      case Source::kCell: return cell_magnitude_;
    }
    return 0;
  }

  // The C type of an operand (a constant's literal has the program's type, or int for a narrower one).
  fusion::IntType Type(const Operand& o) const {
    switch (o.source) {
      case Source::kConst: return Common(g_.type, g_.type);
      case Source::kCounter: return fusion::kInt;
      case Source::kData: return data_type_[o.value];
      default: return g_.type;
    }
  }

  // Keeps signed arithmetic from overflowing (undefined in C, and the interpreter and the Horn encoding need
  // not agree on it): follows an upper bound of every magnitude through the loop's iterations and, while an
  // int or long long sum, difference or quotient may pass kMagnitudeLimit or kWideMagnitudeLimit, turns the
  // loop's last statements (from the end) into assignments of a constant. Unsigned arithmetic wraps, and so
  // does every conversion to a narrower type (gcc's rule for signed ones).
  void BoundMagnitudes(Loop& loop) {
    const std::vector<Int128> data_before = magnitude_;
    const Int128 cells_before = cell_magnitude_;
    const std::vector<Statement*> order = InExecutionOrder(loop);
    for (size_t keep = order.size();; --keep) {
      bool fits = true;
      for (int it = 0; it < loop.max_bound && fits; ++it) {
        for (size_t k = 0; k <= loop.body.size(); ++k) {
          if (k == loop.inner_at) {
            for (const Loop& inner : loop.inner) {
              for (int inner_it = 0; inner_it < inner.max_bound; ++inner_it) {
                for (const Statement& s : inner.body) fits = Apply(s) && fits;
              }
            }
          }
          if (k < loop.body.size()) fits = Apply(loop.body[k]) && fits;
        }
      }
      if (fits) return;
      magnitude_ = data_before;
      cell_magnitude_ = cells_before;
      Statement& last = *order[keep - 1];
      last.form = 0;
      last.a = {Source::kConst, 1};
    }
  }

  // Raises the magnitude bound of s's target to cover one run of s; false where s's arithmetic may pass the
  // limits. Jumps assign nothing.
  bool Apply(const Statement& s) {
    if (!s.jump.empty()) return true;
    const Int128 a = Magnitude(s.a), b = Magnitude(s.b), t = Magnitude(s.target);
    Int128 value = a;
    bool fits = true;
    if (s.form != 0) {
      const fusion::IntType op = s.form <= 2 ? Common(Type(s.target), Type(s.a)) : Common(Type(s.a), Type(s.b));
      // A bitwise operator's result fits in as many bits as its operands (two's complement): below the
      // power of two above both magnitudes.
      Int128 bits_bound = 1;
      while (bits_bound <= std::max(a, b)) bits_bound *= 2;
      const Int128 bound = s.form <= 2 ? t + a : s.form <= 4 ? a + b : s.form <= 6 ? a : bits_bound;
      if (op.is_signed) fits = bound <= (op.bits == 32 ? kMagnitudeLimit : kWideMagnitudeLimit);
      value = op.is_signed ? bound : fusion::MaxOf(op);
    }
    Int128& target = s.target.source == Source::kCell ? cell_magnitude_ : magnitude_[s.target.value];
    target = std::max(target, Stored(value, Type(s.target)));
    return fits;
  }

  ByteReader in_;
  Generated g_;
  bool has_array_ = false;
  bool both_ends_ = false;  // the first loop runs over half the cells and writes a[i] and a[2n - 1 - i]
  bool jumps_ = false;   // guarded statements may be `break` or `continue`
  bool nested_ = false;  // loops may have a loop nested in them
  bool gotos_ = false;   // guarded statements may be a `goto` forward out of their loop
  bool bitwise_ = false;  // sums and differences may become `&`, `|` or `^`
  int loop_count_ = 2;
  int inputs_ = 1;
  int data_ = 1;
  std::vector<fusion::IntType> data_type_;  // of each data variable
  std::vector<Int128> magnitude_;           // of each data variable
  Int128 cell_magnitude_ = 0;
};

// The value of g.tested at the end of one run, found by bisection over the first input of a probe
// program whose assertion is `tested <= k`, k that first input; `pattern` gives the other values (as
// offsets into the range, repeated).
Int128 TestedValue(const Generated& g, const fusion::Program& probe, const std::vector<unsigned>& pattern) {
  Int128 lo = fusion::MinOf(g.tested_type), hi = fusion::MaxOf(g.tested_type);
  while (lo < hi) {
    const Int128 k = lo + (hi - lo) / 2;
    size_t pos = 0;
    const fusion::RunResult r = fusion::Interpret(
        probe,
        [&](fusion::IntType, const fusion::InputSite&) {
          const size_t p = pos++;
          return p == 0 ? k : Int128(g.lo + static_cast<int>(pattern[(p - 1) % pattern.size()] % (g.width + 1)));
        },
        kMaxSteps);
    Require((r.outcome == fusion::Outcome::kFinished || r.outcome == fusion::Outcome::kError) && !r.signed_overflow,
            fmt::format("a probe run finishes or fails without signed overflow, not {}{} (inputs {}):\n{}",
                        fusion::OutcomeName(r.outcome), r.signed_overflow ? " with overflow" : "",
                        ValuesText(r.inputs), g.Probe()));
    if (r.outcome == fusion::Outcome::kError) {
      lo = k + 1;  // tested > k
    } else {
      hi = k;
    }
  }
  return lo;
}

// The final assertion: `tested rel K`, K near the values tested takes in a few sampled runs (its lowest
// and highest inputs and one pattern from the bytes), so that it holds in some programs and fails in
// others by a small margin.
std::string MakeAssertion(const Generated& g, Generator& gen) {
  const fusion::Program probe = fusion::Parse("probe.c", g.Probe());
  const std::vector<unsigned> mixed = {gen.Next(), gen.Next(), gen.Next()};
  const std::vector<Int128> samples = {TestedValue(g, probe, {0}), TestedValue(g, probe, {3}),
                                       TestedValue(g, probe, mixed)};
  const unsigned choice = gen.Next();
  static const char* const kRels[] = {"<=", ">=", "==", "!="};
  static const int kDeltas[] = {-1, 0, 0, 1};
  const std::string rel = kRels[choice % 4];
  Int128 k = rel == "<=" ? *std::max_element(samples.begin(), samples.end())
             : rel == ">=" ? *std::min_element(samples.begin(), samples.end())
                           : samples[choice / 4 % 3];
  k = fusion::Wrap(g.tested_type, k + kDeltas[choice / 16 % 4]);
  return fmt::format("{} {} {}", g.tested, rel, Generated::Literal(k, g.tested_type));
}

}  // namespace

void CheckLoopfuseVerdicts(std::string_view data) {
  Generator gen(data);
  Generated g = gen.Run();
  const std::string assertion = MakeAssertion(g, gen);
  // The byte after the assertion's: how cells are written (a seed that ends with the assertion's bytes writes
  // `a[i]`, as it did before this byte was drawn).
  g.cell_syntax = static_cast<int>(gen.Next() % 6);
  g.heap_data = gen.Next() % 3 == 2;  // 0 where the bytes end: the programs of the seeds before this byte
  CheckVerdictsAgainstEveryRun(g.Text("", assertion), g.lo, g.width, g.divides_by_variable);
}

}  // namespace fuzz
