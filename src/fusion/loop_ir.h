// The loop IR: what each statement reads and writes (scalars, and array cells with their index
// expressions), how it can leave, and the shape of counted loops. The transformations decide legality here.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fusion/ast.h"

namespace fusion {

// One array access: the array and the index expression.
struct ArrayAccess {
  std::string array;
  ExprPtr index;
};

// The effects of a statement (or a loop with its condition and step).
struct Effects {
  std::set<std::string> reads;    // scalars read
  std::set<std::string> writes;   // scalars written
  std::vector<ArrayAccess> array_reads;
  std::vector<ArrayAccess> array_writes;
  bool errors = false;       // an assertion or reach_error
  bool cuts = false;         // assume, abort or return: the path may end without error
  bool jumps = false;        // break or continue belonging to the enclosing loop
  bool nested_loop = false;
  // Arrays written (any cell).
  std::set<std::string> ArraysWritten() const;
  // Arrays read or written.
  std::set<std::string> ArraysAccessed() const;
  // Scalars read or written.
  std::set<std::string> Scalars() const;
};

// Effects of a statement; for a loop, those of its condition, body and step together.
Effects EffectsOf(const StmtPtr& s);
// Adds the reads of an expression to eff.
void AddReads(const ExprPtr& e, Effects& eff);

// A loop `for (counter = init; counter < bound; counter += stride)` in any of its spellings (while with
// the increment last in the body, <=, >, >=, stride +1 or -1).
struct CountedLoop {
  std::string counter;
  IntType counter_type;
  ExprPtr init;         // from the assignment right before the loop
  ExprPtr bound;
  std::string cmp;      // "<", "<=", ">", ">=" with the counter on the left
  int stride = 1;       // +-1, or +-r for a clamped step (AsCounted with clamped_strides)
  StmtPtr body;         // without the increment
  StmtPtr increment;    // counter = counter +/- 1
};

// Recognises a counted loop given the statement before it (the counter's initialisation). With
// clamped_strides, a strict loop may also step by r > 1 as rate alignment writes it (rate.h):
// `c = c + r < bound ? c + r : bound` (or with - and >), which starts iteration t at init + r*t. With
// nested_loops, the body may hold loops (the outer loop of a nest, collapse.h).
std::optional<CountedLoop> AsCounted(const StmtPtr& init, const StmtPtr& loop, bool clamped_strides = false,
                                     bool nested_loops = false);

// The statements of a block with nested blocks flattened (names are unique, so scopes do not matter).
std::vector<StmtPtr> Flatten(const StmtPtr& s);

// e with every scalar variable renamed by the map (unmapped ones unchanged); arrays keep their names.
ExprPtr RenameExpr(const ExprPtr& e, const std::map<std::string, std::string>& names);
// s with every scalar variable renamed.
StmtPtr RenameStmt(const StmtPtr& s, const std::map<std::string, std::string>& names);
// e with f applied to each of its operands, rebuilt only where one changes.
ExprPtr MapOperands(const ExprPtr& e, const std::function<ExprPtr(const ExprPtr&)>& f);
// s with every expression in it (not the names of havocs) replaced by f of it, rebuilt only where one changes.
StmtPtr MapExprs(const StmtPtr& s, const std::function<ExprPtr(const ExprPtr&)>& f);
// Calls f on every expression in s (each statement's own: conditions, sides of assignments, array sizes; null
// ones included), in the nested statements too.
void ForEachExpr(const StmtPtr& s, const std::function<void(const ExprPtr&)>& f);
// e with each variable of the map replaced by its value (cast to the variable's type), in one pass that shares
// the subexpressions that read none: an inlined call's parameters are substituted at every level of a deep
// inlining, and copying all of its body for each was the most of its time.
ExprPtr Substitute(const ExprPtr& e, const std::map<std::string, ExprPtr>& values);
// e with the variable name replaced by the expression value.
ExprPtr Substitute(const ExprPtr& e, const std::string& name, const ExprPtr& value);
// s with each variable of the map replaced by its value wherever it is read (s writes none of them); the
// statements that read none are shared, as above.
StmtPtr SubstituteStmt(const StmtPtr& s, const std::map<std::string, ExprPtr>& values);
// s with the variable name replaced by value wherever it is read (s must not write it).
StmtPtr SubstituteStmt(const StmtPtr& s, const std::string& name, const ExprPtr& value);
// The constant k when e is the counter plus k (through value-preserving casts); nothing otherwise.
std::optional<Int128> OffsetFromCounter(const ExprPtr& e, const std::string& counter);
// True when e, over the counter's values in [lo, hi) (0 <= lo), takes each value once: e = A * (counter % w) +
// B * (counter / w) + C in signed arithmetic (w a positive constant; a collapsed nest's cell `a[j][i]`,
// collapse.h) with one of A, B dominating the other's whole range, so that distinct counters give distinct
// cells.
bool InjectiveInCounter(const ExprPtr& e, const std::string& counter, Int128 lo, Int128 hi);
// (a, b) when e is a * counter + b in signed arithmetic (through value-preserving casts); nothing otherwise.
std::optional<std::pair<Int128, Int128>> AffineInCounter(const ExprPtr& e, const std::string& counter);

// An expression as a * counter + the sum of k * atom + constant, in signed arithmetic. The atoms are the
// counter-free subexpressions that are no sum, difference or product by a constant (variables, quotients,
// array cells, unsigned values): offsets such as n - 1 in a[n - i - 1] compare by their atoms.
struct AffineForm {
  Int128 a = 0;
  std::vector<std::pair<ExprPtr, Int128>> atoms;  // distinct atoms, with non-zero coefficients
  Int128 constant = 0;
  // True when both have the same atoms with the same coefficients (the constants may differ).
  bool SameAtoms(const AffineForm& other) const;
};
// The form of e in counter (an empty counter: every variable is an atom); nothing when e is not affine in
// the counter or a coefficient passes 2^64.
std::optional<AffineForm> AffineWithAtoms(const ExprPtr& e, const std::string& counter);
// a * x + y * k for forms x and y.
AffineForm Combine(Int128 a, const AffineForm& x, const AffineForm& y, Int128 k);
// The expression of a form without counter (f.a == 0) in type t: each atom converted to t, then summed.
ExprPtr AffineExpr(const AffineForm& f, IntType t);

// The rates (a * stride, the cells per iteration) of a counted loop's accesses to the arrays in arrays, each
// index being a * counter + b; nothing when some index is not of that form.
std::optional<std::set<Int128>> AccessRates(const CountedLoop& c, const StmtPtr& loop,
                                            const std::set<std::string>& arrays);

// e + k in type t, folding e = x + c or x - c so that (n - 1) + 1 prints and compares as n.
ExprPtr PlusConst(const ExprPtr& e, Int128 k, IntType t);
// Arrays one of the two statements writes and the other accesses.
std::set<std::string> SharedArrays(const StmtPtr& a, const StmtPtr& b);
// The pairs (i, j) of loops items[i], items[j] (while/for, not do-while) with only assignments and
// declarations between them, in order.
std::vector<std::pair<size_t, size_t>> AdjacentLoops(const std::vector<StmtPtr>& items);
// True when e calls a __VERIFIER_nondet function.
bool HasNondet(const ExprPtr& e);
// Whether s holds a break (kind kBreak) or a continue (kContinue) of the loop around s: one inside a loop
// of s is that loop's.
bool LeavesBy(const StmtPtr& s, StmtKind kind);
// Whether control can go on after s: false when every path through it returns, breaks, continues, ends the
// run (an error, `assume(0)`) or loops forever (a loop on a nonzero constant that no break leaves). While
// a function's gotos are not yet lowered (gotos.h), `jumps` names them (they go elsewhere) and `entered`
// the statements that hold a label (control may come into them, and go on, from elsewhere).
bool CompletesNormally(const StmtPtr& s, const std::function<bool(const StmtPtr&)>& jumps = nullptr,
                       const std::function<bool(const StmtPtr&)>& entered = nullptr);

// Scalars known to hold a constant at a point of the program, by name.
using KnownConstants = std::map<std::string, Int128>;
// The value of e when it is a constant given the known scalars, computed as C computes it (the parser has
// made every conversion an explicit cast); nothing when it reads anything else or divides by zero.
std::optional<Int128> FoldConstant(const ExprPtr& e, const KnownConstants& known = {});
// How many times each scalar is written anywhere in s (havocs included): one write that sets a constant
// makes the scalar that constant wherever that write has run.
std::map<std::string, int> CountScalarWrites(const StmtPtr& s);
// True when e reads none of the scalars or arrays in names.
bool ReadsNone(const ExprPtr& e, const std::set<std::string>& names);

}  // namespace fusion

namespace fusion {

// Applies f to the flattened statement list of every block (innermost first, branches and loop bodies
// included) and rebuilds the tree; f returns the new list.
StmtPtr RewriteBlocks(const StmtPtr& s, const std::function<std::vector<StmtPtr>(std::vector<StmtPtr>)>& f);

}  // namespace fusion
