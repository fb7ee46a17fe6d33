#include "fusion/collapse.h"

#include <fmt/core.h>

#include <functional>
#include <optional>
#include <set>

#include "fusion/loop_ir.h"
#include "fusion/normalize.h"

namespace fusion {
namespace {

// The iterations of a counted loop that counts up by one over constants: first, first + 1, ..., first +
// count - 1, the counter left at first + count.
struct UpwardRange {
  Int128 first = 0;
  Int128 count = 0;
};

// The range of c when it is an upward loop over constants with at least one iteration whose final counter
// value is one of its type's (else the loop would wrap around or never end).
std::optional<UpwardRange> ConstantRange(const CountedLoop& c) {
  if (c.stride != 1) return std::nullopt;
  const std::optional<Int128> first = FoldConstant(c.init), bound = FoldConstant(c.bound);
  if (!first || !bound) return std::nullopt;
  const Int128 end = c.cmp == "<=" ? *bound + 1 : *bound;
  if (end <= *first || *first < MinOf(c.counter_type) || end > MaxOf(c.counter_type)) return std::nullopt;
  return UpwardRange{*first, end - *first};
}

// True when s assigns a constant to a scalar: run once per row, it can as well run once after the nest.
bool SetsConstant(const StmtPtr& s) {
  return s->kind == StmtKind::kAssign && s->lhs->kind == ExprKind::kVar && FoldConstant(s->rhs).has_value();
}

// The positions per row of a nest: the row stride S of the cells its body indexes as `k*S*i + k*j + e`, where
// every such expression has the same S and S > columns (the rows of the array wider than the inner range:
// the positions then leave the cells of the other columns out); else the columns.
Int128 PositionsPerRow(const StmtPtr& body, const std::string& outer, const std::string& inner, Int128 columns) {
  std::set<Int128> strides;
  const std::function<void(const ExprPtr&)> visit = [&](const ExprPtr& e) {
    if (!e) return;
    if (e->kind == ExprKind::kBinary || e->kind == ExprKind::kUnary) {
      if (const std::optional<AffineForm> form = AffineWithAtoms(e, outer); form && form->a != 0) {
        for (const auto& [atom, k] : form->atoms) {
          if (atom->kind == ExprKind::kVar && atom->name == inner && form->a % k == 0) strides.insert(form->a / k);
        }
      }
    }
    for (const ExprPtr& x : e->args) visit(x);
  };
  ForEachExpr(body, visit);
  return strides.size() == 1 && *strides.begin() > columns ? *strides.begin() : columns;
}

// The counters of a nest and the expressions that give their values from the collapsed counter, the position:
// row r, column c (counted from the first values) at position r * stride + c.
class NestCounters {
 public:
  NestCounters(const CountedLoop& outer, UpwardRange rows, const CountedLoop& inner, UpwardRange columns,
               Int128 stride, ExprPtr position)
      : outer_(outer.counter),
        inner_(inner.counter),
        rows_(rows),
        columns_(columns),
        stride_(stride),
        position_(std::move(position)),
        row_(Counter(outer.counter_type, rows.first, "/")),
        column_(Counter(inner.counter_type, columns.first, "%")) {}

  // e with the counters read from the position.
  ExprPtr Rewrite(const ExprPtr& e) const {
    if (!e) return e;
    if (e->kind == ExprKind::kVar) return e->name == outer_ ? row_ : e->name == inner_ ? column_ : e;
    if (ExprPtr flat = FlatPosition(e)) return flat;
    return MapOperands(e, [this](const ExprPtr& x) { return Rewrite(x); });
  }

  // Whether the position is a column of the inner range: `position % stride < columns`.
  ExprPtr InRange() const {
    const IntType t = position_->type;
    return MakeBinary("<", MakeBinary("%", position_, MakeConst(stride_, t), t), MakeConst(columns_.count, t), kInt);
  }

 private:
  // first + position / stride (or % stride), in the counter's type (a value the counter takes).
  ExprPtr Counter(IntType type, Int128 first, const char* op) const {
    const IntType t = position_->type;
    const ExprPtr part = MakeBinary(op, position_, MakeConst(stride_, t), t);
    return MakeCast(type, first == 0 ? part : MakeBinary("+", MakeConst(first, t), part, t));
  }

  // An affine e = k*stride*i + k*j + rest as k*position + k*(stride*first_i + first_j) + rest; nothing when
  // e is not of that form or the position does not keep its value in e's type.
  ExprPtr FlatPosition(const ExprPtr& e) const {
    if (e->kind != ExprKind::kBinary && e->kind != ExprKind::kUnary) return nullptr;
    if (rows_.count * stride_ - 1 > MaxOf(e->type)) return nullptr;
    const std::optional<AffineForm> form = AffineWithAtoms(e, outer_);
    if (!form || form->a == 0) return nullptr;
    Int128 k = 0;
    AffineForm flat;
    for (const auto& [atom, coefficient] : form->atoms) {
      if (atom->kind == ExprKind::kVar && atom->name == inner_) {
        k = coefficient;
      } else {
        flat.atoms.push_back({Rewrite(atom), coefficient});
      }
    }
    if (k == 0 || form->a != k * stride_) return nullptr;
    flat.atoms.insert(flat.atoms.begin(), {position_, k});
    flat.constant = form->constant + form->a * rows_.first + k * columns_.first;
    return AffineExpr(flat, e->type);
  }

  std::string outer_, inner_;
  UpwardRange rows_, columns_;
  Int128 stride_;     // positions per row: the columns, or more where the rows skip cells
  ExprPtr position_;  // the collapsed counter
  ExprPtr row_, column_;
};

// The statements that replace the nest at items[k] (its first value assigned at items[k - 1]), or nothing
// when it is no perfect nest over constant ranges.
std::optional<std::vector<StmtPtr>> Collapse(Program& prog, const std::vector<StmtPtr>& items, size_t k,
                                             std::vector<std::string>& applied) {
  const std::optional<CountedLoop> outer = AsCounted(items[k - 1], items[k], false, true);
  const std::optional<UpwardRange> rows = outer ? ConstantRange(*outer) : std::nullopt;
  if (!rows) return std::nullopt;
  const std::vector<StmtPtr> row = SinkCounterInits(Flatten(outer->body));
  size_t p = 0;  // the inner loop's place in the row
  while (p < row.size() && row[p]->kind != StmtKind::kLoop) ++p;
  if (p == 0 || p == row.size()) return std::nullopt;
  const std::optional<CountedLoop> inner = AsCounted(row[p - 1], row[p]);
  const std::optional<UpwardRange> columns = inner ? ConstantRange(*inner) : std::nullopt;
  if (!columns || inner->counter == outer->counter) return std::nullopt;
  std::vector<StmtPtr> once;  // P and S, run once after the collapsed loop
  std::set<std::string> set_once;
  for (size_t q = 0; q < row.size(); ++q) {
    if (q + 1 == p || q == p) continue;
    if (!SetsConstant(row[q])) return std::nullopt;
    const std::string& v = row[q]->lhs->name;
    if (v == outer->counter || v == inner->counter) return std::nullopt;
    once.push_back(row[q]);
    set_once.insert(v);
  }
  const Effects effects = EffectsOf(inner->body);
  if (effects.writes.count(outer->counter)) return std::nullopt;
  for (const std::string& v : effects.Scalars()) {
    if (set_once.count(v)) return std::nullopt;
  }
  const Int128 stride = PositionsPerRow(inner->body, outer->counter, inner->counter, columns->count);
  const Int128 count = rows->count * stride;
  if (count > MaxOf(kLongLong) / 2) return std::nullopt;
  const IntType t = count <= MaxOf(kInt) ? kInt : kLongLong;
  const ExprPtr position = MakeVar(prog.AddVar(outer->counter + "_" + inner->counter, t), t);
  const NestCounters counters(*outer, *rows, *inner, *columns, stride, position);
  std::vector<StmtPtr> out = {MakeAssign(position, MakeConst(0, t))};
  StmtPtr body = MapExprs(inner->body, [&](const ExprPtr& e) { return counters.Rewrite(e); });
  if (stride > columns->count) body = MakeIf(counters.InRange(), body);
  auto loop = std::make_shared<Stmt>(*MakeLoop(MakeBinary("<", position, MakeConst(count, t), kInt), body,
                                               MakeAssign(position, MakeBinary("+", position, MakeConst(1, t), t))));
  loop->loc = items[k]->loc;
  out.push_back(loop);
  out.insert(out.end(), once.begin(), once.end());
  out.push_back(MakeAssign(MakeVar(inner->counter, inner->counter_type),
                           MakeConst(columns->first + columns->count, inner->counter_type)));
  out.push_back(MakeAssign(MakeVar(outer->counter, outer->counter_type),
                           MakeConst(rows->first + rows->count, outer->counter_type)));
  applied.push_back(fmt::format("collapsed the loop nest at line {} ({} x {} iterations of {} and {}) into one loop{}",
                                items[k]->loc.line, DecimalText(rows->count), DecimalText(columns->count),
                                outer->counter, inner->counter,
                                stride > columns->count ? " over rows of " + DecimalText(stride) : ""));
  return out;
}

}  // namespace

StmtPtr CollapseLoopNests(Program& prog, const StmtPtr& body, std::vector<std::string>& applied) {
  const size_t before = applied.size();
  StmtPtr out = RewriteBlocks(body, [&](std::vector<StmtPtr> items) {
    items = SinkCounterInits(std::move(items));
    std::vector<StmtPtr> next;
    for (size_t k = 0; k < items.size(); ++k) {
      const auto collapsed = k > 0 && items[k]->kind == StmtKind::kLoop ? Collapse(prog, items, k, applied)
                                                                          : std::nullopt;
      if (!collapsed) {
        next.push_back(items[k]);
        continue;
      }
      next.pop_back();  // the outer counter's first value
      next.insert(next.end(), collapsed->begin(), collapsed->end());
    }
    return next;
  });
  return applied.size() == before ? body : out;
}

}  // namespace fusion
