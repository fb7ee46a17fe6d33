// The check of the loopfuse_nests fuzz target (fuzz/harness.h): programs of two or three nests of two loops
// over the cells of two-dimensional arrays, the shape of SV-COMP's array-multidimensional tasks, which loopfuse
// collapses into single loops before it fuses them (src/fusion/collapse.h). As in loopfuse_verdicts, every
// nondeterministic value is assumed into a range of at most three numbers where it is read, so the
// interpreter makes every run and the truth of the assertions is known without any solver
// (fuzz/verdict_oracle.h).
#include <fmt/core.h>

#include <optional>
#include <string>
#include <vector>

#include "fuzz/harness.h"
#include "fuzz/verdict_oracle.h"

namespace fuzz {
namespace {

// A cell value as C text in the counters, `{i}` and `{j}` standing for the row and the column.
struct ValueForm {
  const char* text;
  bool nondet = false;  // a nondeterministic value, assumed into the inputs' range
};

// What the first nest writes into a[i][j] (the last two: the position of the cell in its array, and a value
// read where it is written), and what the second adds.
constexpr ValueForm kFills[] = {{"{i} + {j}"}, {"{i} * 2 - {j}"}, {"x0 + {j}"}, {"7"}, {"{i} * C + {j}"},
                                {"", true}};
constexpr const char* kAdditions[] = {"1", "{i}", "x1", "{j} - {i}"};

// Replaces every {i} and {j} of a form with a row and a column expression, and C with the column extent.
std::string Instantiate(const std::string& form, const std::string& row, const std::string& column, int columns) {
  std::string out;
  for (size_t k = 0; k < form.size(); ++k) {
    if (form.compare(k, 3, "{i}") == 0) {
      out += "(" + row + ")";
      k += 2;
    } else if (form.compare(k, 3, "{j}") == 0) {
      out += "(" + column + ")";
      k += 2;
    } else if (form[k] == 'C') {
      out += std::to_string(columns);
    } else {
      out += form[k];
    }
  }
  return out;
}

// Builds the program from the bytes, one choice per byte.
class NestGenerator {
 public:
  explicit NestGenerator(std::string_view data) : in_(data) {}

  // The C text of the program.
  std::string Run() {
    const unsigned shape = in_.Next();
    type_ = shape % 2 ? "unsigned int" : "int";
    lo_ = static_cast<int>(shape / 2 % 2);
    width_ = 1 + static_cast<int>(shape / 4 % 2);
    // Extents of at most kMaxUnrolledIterations (16) are constant ranges that unrolling takes first: the
    // larger ones keep constant nests whole for the collapse.
    const unsigned extents = in_.Next();
    static const int kLarge[] = {17, 20};
    rows_ = extents % 3 == 0 ? lo_ + width_ + 1 : kLarge[extents / 3 % 2];
    columns_ = extents / 6 % 3 == 0 ? lo_ + width_ + 1 + static_cast<int>(extents / 18 % 2) : kLarge[extents / 36 % 2];
    // Half of the programs run every nest over the same rows and columns: most checks then hold.
    if (extents / 72 % 2 == 0) same_bounds_ = in_.Next();
    const bool transposes = rows_ == columns_ && shape / 8 % 3 == 0;
    const bool three_nests = shape / 24 % 4 == 0;

    std::string text = fmt::format(
        "extern int __VERIFIER_nondet_int(void);\nextern unsigned int __VERIFIER_nondet_uint(void);\n"
        "extern void __VERIFIER_assume(int);\nextern void __VERIFIER_assert(int);\nint main(void) {{\n");
    for (int k = 0; k < 2; ++k) {
      text += fmt::format("  int x{0} = __VERIFIER_nondet_int();\n  {1}\n", k, AssumeInRange(fmt::format("x{}", k)));
    }
    text += fmt::format("  {0} a[{1}][{2}] = {{0}};\n  {0} b[{1}][{2}] = {{0}};\n  {0} s = 0;\n  int i, j, p = 0;\n",
                        type_, rows_, columns_);

    // The first nest fills a: nondeterministic values only where every run can still be made.
    long runs = (width_ + 1) * (width_ + 1);  // those of the inputs
    for (int k = 0; k < rows_ * columns_ && runs <= kMaxRuns; ++k) runs *= width_ + 1;
    const unsigned fill_byte = in_.Next();
    ValueForm fill = kFills[fill_byte % std::size(kFills)];
    if (fill.nondet && runs > kMaxRuns) fill = kFills[0];
    const std::string cell = "a[i][j]";
    std::string fill_body = fill.nondet ? fmt::format("{} = {}; {}", cell, Nondet(), AssumeInRange(cell))
                                        : fmt::format("{} = {};", cell, Instantiate(fill.text, "i", "j", columns_));
    if (fill_byte / 8 % 4 == 0) fill_body = fmt::format("if (j % 2 == 0) {{ {} }}", fill_body);
    text += Nest(fill_body);

    // The second nest: b from a (reversed or transposed now and then), or a updated in place.
    const unsigned second = in_.Next();
    const std::string addition = Instantiate(kAdditions[second % std::size(kAdditions)], "i", "j", columns_);
    const bool in_place = second / 4 % 3 == 0;
    const bool reversed = !in_place && second / 12 % 3 == 0;
    const std::string source = reversed ? fmt::format("a[{} - 1 - i][{} - 1 - j]", rows_, columns_) : "a[i][j]";
    const std::string target = in_place ? "a[i][j]" : transposes ? "b[j][i]" : "b[i][j]";
    text += Nest(fmt::format("{} = {} + {};", target, source, addition));

    // The check, in the last nest: a cell against what the nests wrote into it, or a sum of the cells
    // against a constant after it.
    const unsigned check = in_.Next();
    static const char* const kRels[] = {"==", "<=", ">=", "!="};
    const std::string rel = kRels[check % 4];
    static const int kDeltas[] = {0, 0, -1, 1};
    const int delta = kDeltas[check / 4 % 4];
    std::string checked;
    if (in_place) {
      checked = fill.nondet ? fmt::format("a[i][j] {} x0 + {}", rel, delta)
                            : fmt::format("a[i][j] {} {} + {} + {}", rel, Instantiate(fill.text, "i", "j", columns_),
                                          addition, delta);
    } else if (transposes) {
      checked = fmt::format("b[i][j] {} a[j][i] + {} + {}", rel,
                            Instantiate(kAdditions[second % std::size(kAdditions)], "j", "i", columns_), delta);
    } else {
      checked = fmt::format("b[i][j] {} {} + {} + {}", rel, source, addition, delta);
    }
    const bool sums = check / 16 % 3 == 0;
    if (three_nests) text += Nest("p = p + (a[i][j] != b[i][j]);");
    text += Nest(sums ? fmt::format("s = s + {};", checked.substr(0, checked.find(' ')))
                      : fmt::format("__VERIFIER_assert({});", checked));
    if (sums) text += fmt::format("  __VERIFIER_assert(s {} {});\n", rel, check / 48 % 24);
    return text + "  return 0;\n}\n";
  }

  int lo() const { return lo_; }
  int width() const { return width_; }

 private:
  std::string Nondet() const { return type_ == "int" ? "__VERIFIER_nondet_int()" : "__VERIFIER_nondet_uint()"; }

  // The assume that keeps lvalue's nondeterministic value in the enumerated range.
  std::string AssumeInRange(const std::string& lvalue) const {
    return fmt::format("__VERIFIER_assume({0} >= {1} && {0} <= {2});", lvalue, lo_, lo_ + width_);
  }

  // A nest over the rows and columns (a constant extent, or an input within it) running `body` on each cell,
  // as for or while loops, upward or (now and then) downward, with `<` or `<=`, and now and then a constant
  // assigned between the loops.
  std::string Nest(const std::string& body) {
    const unsigned b = in_.Next();
    const unsigned bounds = same_bounds_ ? *same_bounds_ : b;
    const std::string rows = bounds % 3 == 0 ? "x0" : std::to_string(rows_);
    const std::string columns = bounds / 3 % 3 == 0 ? "x1" : std::to_string(columns_);
    const std::string between = b / 9 % 4 == 0 ? "p = 1; " : "";
    const unsigned form = b / 36 % 8;  // downward (no collapse) an eighth of the nests
    if (form < 3) {
      return fmt::format("  for (i = 0; i < {}; i++) {{ {}for (j = 0; j < {}; j++) {{ {} }} }}\n", rows, between,
                         columns, body);
    }
    if (form < 5) {
      return fmt::format("  i = 0;\n  while (i < {}) {{ {}j = 0; while (j < {}) {{ {} j = j + 1; }} i = i + 1; }}\n",
                         rows, between, columns, body);
    }
    if (form < 7) {
      return fmt::format("  for (i = 0; i <= {} - 1; i++) {{ {}for (j = 0; j <= {} - 1; j++) {{ {} }} }}\n", rows,
                         between, columns, body);
    }
    return fmt::format("  for (i = {} - 1; i >= 0; i--) {{ {}for (j = 0; j < {}; j++) {{ {} }} }}\n", rows, between,
                       columns, body);
  }

  ByteReader in_;
  std::string type_;
  int lo_ = 0;
  int width_ = 1;
  int rows_ = 2;
  int columns_ = 2;
  std::optional<unsigned> same_bounds_;  // the byte that picks the bounds of every nest, if one does
};

}  // namespace

void CheckLoopfuseNestVerdicts(std::string_view data) {
  NestGenerator gen(data);
  const std::string text = gen.Run();
  CheckVerdictsAgainstEveryRun(text, gen.lo(), gen.width(), false);
}

}  // namespace fuzz
