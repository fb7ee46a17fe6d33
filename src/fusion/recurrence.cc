#include "fusion/recurrence.h"

#include <algorithm>
#include <array>
#include <memory>
#include <set>

#include "fusion/aligned.h"
#include "fusion/loop_ir.h"

namespace fusion {
namespace {

// s with every statement nested in it (s included, innermost first) replaced by f of it.
template <typename F>
StmtPtr MapStmts(const StmtPtr& s, F f) {
  if (!s) return s;
  auto out = std::make_shared<Stmt>(*s);
  for (StmtPtr& b : out->body) b = MapStmts(b, f);
  out->step = MapStmts(s->step, f);
  return f(StmtPtr(out));
}

// Step 1: e with every cell index whose value is `value` made the scalar v (converted to the index's type);
// sets `replaced` when one is.
ExprPtr IndexAsScalar(const ExprPtr& e, Int128 value, const ExprPtr& v, bool& replaced) {
  if (!e) return e;
  ExprPtr out = MapOperands(e, [&](const ExprPtr& a) { return IndexAsScalar(a, value, v, replaced); });
  if (out->kind != ExprKind::kIndex) return out;
  const std::optional<Int128> k = FoldConstant(out->args[0]);
  if (!k || *k != value) return out;
  auto copy = std::make_shared<Expr>(*out);
  copy->args[0] = MakeCast(out->args[0]->type, v);
  replaced = true;
  return copy;
}

// Step 1 at an if: the scalar and constant of a condition `v == c` (either way round).
std::optional<std::pair<ExprPtr, Int128>> ScalarEquals(const ExprPtr& cond) {
  if (cond->kind != ExprKind::kBinary || cond->op != "==") return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    const ExprPtr& v = cond->args[side];
    const std::optional<Int128> c = FoldConstant(cond->args[1 - side]);
    if (v->kind == ExprKind::kVar && c) return std::make_pair(v, *c);
  }
  return std::nullopt;
}

// Whether the scalar v is set again (by an assignment that does not read it) after items[k], before anything
// reads it.
bool SetBeforeRead(const std::vector<StmtPtr>& items, size_t k, const std::string& v) {
  for (size_t m = k + 1; m < items.size(); ++m) {
    const StmtPtr& s = items[m];
    const bool reads = EffectsOf(s).reads.count(v) > 0;
    if (s->kind == StmtKind::kAssign && s->lhs->kind == ExprKind::kVar && s->lhs->name == v) return !reads;
    if (reads || EffectsOf(s).writes.count(v)) return false;
  }
  return false;
}

// Step 2, first half, on one block: of two adjacent counted loops over the same counter and bound, one starting one
// above the other, the later-starting one starts with the other, its body skipped in the added iteration: `for (i = 1;
// i < N; i++) B` as `for (i = 0; i < N; i++) if (i == 0) {} else B` (eqn2: `a[0] = 4` before a loop from 1, the
// assertions in a loop from 0). The same iterations run B; only the counter's final value differs, when the range is
// empty (0 against 1), so only where the counter is set again before anything reads it.
std::vector<StmtPtr> AlignStarts(std::vector<StmtPtr> items, bool& changed) {
  for (bool again = true; again;) {
    again = false;
    for (const auto& [i, j] : AdjacentLoops(items)) {
      if (i == 0) continue;
      const auto c1 = AsCounted(items[i - 1], items[i]), c2 = AsCounted(items[j - 1], items[j]);
      if (!c1 || !c2 || c1->counter != c2->counter || c1->stride != 1 || c2->stride != 1 || c1->cmp != "<" ||
          c2->cmp != "<" || !SameExpr(c1->bound, c2->bound)) {
        continue;
      }
      const auto s1 = FoldConstant(c1->init), s2 = FoldConstant(c2->init);
      if (!s1 || !s2 || (*s1 != *s2 + 1 && *s2 != *s1 + 1)) continue;
      const size_t k = *s1 > *s2 ? i : j;
      const CountedLoop& c = *s1 > *s2 ? *c1 : *c2;
      const CountedLoop& other = *s1 > *s2 ? *c2 : *c1;
      const Int128 start = std::min(*s1, *s2);
      if (!SetBeforeRead(items, k, c.counter)) continue;
      const ExprPtr counter = MakeVar(c.counter, c.counter_type);
      items[k - 1] = MakeAssign(counter, other.init);  // as the other spells it, so that fusion sees one start
      const ExprPtr first = MakeBinary("==", counter, MakeConst(start, c.counter_type), kInt);
      const StmtPtr body = MakeIf(first, MakeBlock({}), c.body);
      auto loop = std::const_pointer_cast<Stmt>(MakeLoop(items[k]->cond, body, c.increment));
      loop->loc = items[k]->loc;
      items[k] = loop;
      changed = again = true;
      break;
    }
  }
  return items;
}

// A polynomial in a loop's counter: coefficients of counter^0 .. counter^3.
using Polynomial = std::array<Int128, 4>;

// e as a polynomial of degree at most 3 in the counter with constant coefficients (under 2^60), in signed
// arithmetic through value-preserving casts; nothing otherwise.
std::optional<Polynomial> AsPolynomial(const ExprPtr& e, const std::string& counter) {
  constexpr Int128 kLimit = Int128(1) << 60;
  const auto small = [&](const Polynomial& p) -> std::optional<Polynomial> {
    for (Int128 c : p) {
      if (c >= kLimit || c <= -kLimit) return std::nullopt;
    }
    return p;
  };
  if (!e->type.is_signed) return std::nullopt;
  switch (e->kind) {
    case ExprKind::kConst:
      return Polynomial{e->value, 0, 0, 0};
    case ExprKind::kVar:
      if (e->name == counter) return Polynomial{0, 1, 0, 0};
      return std::nullopt;
    case ExprKind::kCast:
      if (!e->args[0]->type.is_signed || e->args[0]->type.bits > e->type.bits) return std::nullopt;
      return AsPolynomial(e->args[0], counter);
    case ExprKind::kUnary: {
      const auto a = e->op == "-" ? AsPolynomial(e->args[0], counter) : std::nullopt;
      if (!a) return std::nullopt;
      return Polynomial{-(*a)[0], -(*a)[1], -(*a)[2], -(*a)[3]};
    }
    case ExprKind::kBinary: {
      if (e->op != "+" && e->op != "-" && e->op != "*") return std::nullopt;
      const auto a = AsPolynomial(e->args[0], counter), b = AsPolynomial(e->args[1], counter);
      if (!a || !b) return std::nullopt;
      Polynomial r{0, 0, 0, 0};
      if (e->op != "*") {
        for (size_t k = 0; k < 4; ++k) r[k] = e->op == "+" ? (*a)[k] + (*b)[k] : (*a)[k] - (*b)[k];
        return small(r);
      }
      for (size_t i = 0; i < 4; ++i) {
        for (size_t j = 0; j < 4; ++j) {
          if ((*a)[i] == 0 || (*b)[j] == 0) continue;
          if (i + j > 3) return std::nullopt;
          r[i + j] += (*a)[i] * (*b)[j];
        }
      }
      return small(r);
    }
    default:
      return std::nullopt;
  }
}

// The loop counter's ghost monomials (step 4): i_sq == i*i and i_cube == i*i*i, in kWide (no range to leave),
// each declared when a polynomial first needs it (the cube's update reads the square, so it needs both).
struct Ghosts {
  Program& prog;
  std::string name;  // the counter's
  ExprPtr counter;   // the counter in kWide
  ExprPtr sq, cube;  // null while no polynomial needs them
  // The ghost of counter^k, k = 2 or 3.
  const ExprPtr& Power(int k) {
    if (k == 3) Power(2);
    ExprPtr& g = k == 2 ? sq : cube;
    if (!g) g = MakeVar(prog.AddVar(name + (k == 2 ? "_sq" : "_cube"), kWide), kWide);
    return g;
  }
};

// e with every polynomial of degree 2 or 3 in the counter read from the ghosts.
ExprPtr Ghosted(const ExprPtr& e, const std::string& counter, Ghosts& g) {
  if (!e) return e;
  if (const std::optional<Polynomial> p = AsPolynomial(e, counter); p && ((*p)[2] != 0 || (*p)[3] != 0)) {
    ExprPtr sum = MakeConst((*p)[0], kWide);
    for (int k = 1; k < 4; ++k) {
      if ((*p)[k] == 0) continue;
      const ExprPtr& power = k == 1 ? g.counter : g.Power(k);
      sum = MakeBinary("+", sum, MakeBinary("*", MakeConst((*p)[k], kWide), power, kWide), kWide);
    }
    // Not converted back to e's type: the conversion would wrap a value past its range, which the original's
    // signed arithmetic, whose overflow is not modelled (docs/loopfuse.md, Semantics), never does.
    return sum;
  }
  return MapOperands(e, [&](const ExprPtr& a) { return Ghosted(a, counter, g); });
}

// e with each read of a cell of an array in `prev` at the counter minus one made that array's scalar.
ExprPtr PreviousCells(const ExprPtr& e, const std::string& counter, const std::map<std::string, ExprPtr>& prev) {
  if (!e) return e;
  ExprPtr out = MapOperands(e, [&](const ExprPtr& a) { return PreviousCells(a, counter, prev); });
  if (out->kind != ExprKind::kIndex || !prev.count(out->name)) return out;
  const std::optional<Int128> k = OffsetFromCounter(out->args[0], counter);
  return k && *k == -1 ? prev.at(out->name) : out;
}

// Steps 3 and 4 on the statements of one block.
class Recurrences {
 public:
  Recurrences(Program& prog, std::vector<std::string>& applied) : prog_(prog), applied_(applied) {}

  std::vector<StmtPtr> Rewrite(std::vector<StmtPtr> items) {
    std::vector<StmtPtr> out;
    for (size_t k = 0; k < items.size(); ++k) {
      std::vector<StmtPtr> replaced;
      if (k > 0 && items[k]->kind == StmtKind::kLoop && Scalarize(items[k - 1], items[k], replaced)) {
        out.insert(out.end(), replaced.begin(), replaced.end());
      } else {
        out.push_back(items[k]);
      }
    }
    return out;
  }

  bool any() const { return any_; }

 private:
  // The loop with its init before it, rewritten into `out` (the statements after the init) when some array
  // it fills is a recurrence.
  bool Scalarize(const StmtPtr& init, const StmtPtr& loop, std::vector<StmtPtr>& out) {
    const std::optional<CountedLoop> c = AsCounted(init, loop);
    // The peeled iteration evaluates the condition once more: it must read no input.
    if (!c || c->stride != 1 || (c->cmp != "<" && c->cmp != "<=") || loop->do_while || HasNondet(loop->cond)) {
      return false;
    }
    const std::optional<Int128> start = FoldConstant(c->init);
    const Effects eff = EffectsOf(c->body);
    if (!start || eff.jumps || eff.nested_loop || eff.writes.count(c->counter)) return false;
    // Arrays written only at the counter and read there and one cell before, the cell before at least once.
    std::map<std::string, ExprPtr> prev;
    std::vector<StmtPtr> first_prev, next_prev;
    for (const std::string& array : eff.ArraysWritten()) {
      bool ok = true, before = false;
      ExprPtr before_index;
      for (const ArrayAccess& w : eff.array_writes) {
        if (w.array == array) ok = ok && w.index && OffsetFromCounter(w.index, c->counter) == Int128(0);
      }
      for (const ArrayAccess& r : eff.array_reads) {
        if (r.array != array) continue;
        const std::optional<Int128> k = r.index ? OffsetFromCounter(r.index, c->counter) : std::nullopt;
        ok = ok && k && (*k == 0 || *k == -1);
        if (k == Int128(-1)) {
          before = true;
          before_index = r.index;
        }
      }
      if (!ok || !before) continue;
      const IntType type = prog_.VarNamed(array).type;
      const ExprPtr scalar = MakeVar(prog_.AddVar(array + "_prev", type), type);
      prev[array] = scalar;
      // Before a loop from 0 the cell before is a[-1], outside the array: the peeled iteration reads the
      // scalar only in a branch that `i == 0` does not take, so it is left unset (any value) rather than read
      // out of bounds.
      if (*start >= 1) first_prev.push_back(MakeAssign(scalar, MakeIndex(array, type, before_index)));
      const ExprPtr here = MakeCast(kLongLong, MakeVar(c->counter, c->counter_type));
      next_prev.push_back(MakeAssign(scalar, MakeIndex(array, type, here)));
    }
    if (prev.empty()) return false;
    const StmtPtr body = MapExprs(c->body, [&](const ExprPtr& e) { return PreviousCells(e, c->counter, prev); });
    // The first iteration apart: its cell before is one the loop did not write.
    std::vector<StmtPtr> peeled{body};
    peeled.insert(peeled.end(), next_prev.begin(), next_prev.end());
    const StmtPtr first = SubstituteStmt(MakeBlock(peeled), c->counter, MakeConst(*start, c->counter_type));
    out = first_prev;
    out.push_back(MakeIf(loop->cond, MakeBlock({first, c->increment})));
    Ghosts g{prog_, c->counter, MakeCast(kWide, MakeVar(c->counter, c->counter_type)), nullptr, nullptr};
    // After the peeled iteration the counter is past the start: `if (i == 0)` takes its else branch.
    const StmtPtr later = MapStmts(body, [&](const StmtPtr& s) -> StmtPtr {
      if (s->kind != StmtKind::kIf) return s;
      const auto eq = ScalarEquals(s->cond);
      if (!eq || eq->first->name != c->counter || eq->second > *start) return s;
      return s->body.size() > 1 && s->body[1] ? s->body[1] : MakeBlock({});
    });
    const StmtPtr ghosted = MapExprs(later, [&](const ExprPtr& e) { return Ghosted(e, c->counter, g); });
    std::vector<StmtPtr> step = next_prev;
    const Int128 second = *start + 1;
    const ExprPtr one = MakeConst(1, kWide);
    if (g.cube) {
      out.push_back(MakeAssign(g.cube, MakeConst(second * second * second, kWide)));
      const ExprPtr three = MakeConst(3, kWide);
      step.push_back(MakeAssign(
          g.cube, MakeBinary("+", MakeBinary("+", MakeBinary("+", g.cube, MakeBinary("*", three, g.sq, kWide), kWide),
                                             MakeBinary("*", three, g.counter, kWide), kWide),
                             one, kWide)));
    }
    if (g.sq) {
      out.push_back(MakeAssign(g.sq, MakeConst(second * second, kWide)));
      step.push_back(MakeAssign(
          g.sq, MakeBinary("+", MakeBinary("+", g.sq, MakeBinary("*", MakeConst(2, kWide), g.counter, kWide), kWide),
                           one, kWide)));
    }
    step.push_back(c->increment);
    auto fused = std::const_pointer_cast<Stmt>(MakeLoop(loop->cond, ghosted, MakeBlock(step)));
    fused->loc = loop->loc;
    out.push_back(fused);
    std::string arrays;
    for (const auto& [array, scalar] : prev) {
      arrays += (arrays.empty() ? "" : ", ") + array + "[i-1] as " + scalar->name;
    }
    applied_.push_back("recurrences of the loop at line " + std::to_string(loop->loc.line) +
                       " as scalars, its first iteration peeled: " + arrays);
    if (g.sq) {
      applied_.push_back("polynomials in " + c->counter + " read from ghost scalars " + g.sq->name +
                         (g.cube ? " and " + g.cube->name : ""));
    }
    any_ = true;
    return true;
  }

  Program& prog_;
  std::vector<std::string>& applied_;
  bool any_ = false;
};

}  // namespace

std::optional<Program> ScalarizeRecurrences(const Program& prog, std::vector<std::string>& applied) {
  Program out = prog;
  std::vector<std::string> lines;
  bool counters = false;
  out.body = MapStmts(out.body, [&](const StmtPtr& s) -> StmtPtr {
    if (s->kind != StmtKind::kIf) return s;
    const auto eq = ScalarEquals(s->cond);
    if (!eq || EffectsOf(s->body[0]).writes.count(eq->first->name)) return s;
    auto copy = std::make_shared<Stmt>(*s);
    copy->body[0] = MapExprs(s->body[0], [&](const ExprPtr& e) {
      return IndexAsScalar(e, eq->second, eq->first, counters);
    });
    return copy;
  });
  if (counters) lines.push_back("constant indexes inside `if (i == c)` read as i");
  bool starts = false;
  out.body = RewriteBlocks(out.body, [&](std::vector<StmtPtr> items) { return AlignStarts(std::move(items), starts); });
  if (starts) lines.push_back("loops that start one above an adjacent loop start with it, the added iteration empty");
  out.body = AlignedFusion(out.body, lines, true);
  Recurrences rec(out, lines);
  out.body = RewriteBlocks(out.body, [&](std::vector<StmtPtr> items) { return rec.Rewrite(std::move(items)); });
  if (!rec.any()) return std::nullopt;
  applied.insert(applied.end(), lines.begin(), lines.end());
  return out;
}

}  // namespace fusion
