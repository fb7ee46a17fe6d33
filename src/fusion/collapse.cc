#include "fusion/collapse.h"

#include <fmt/core.h>

#include <functional>
#include <optional>
#include <set>

#include "fusion/loop_ir.h"
#include "fusion/normalize.h"
#include "fusion/printer.h"

namespace fusion {
namespace {

// The iterations of a counted loop that counts up by one from a constant first value: first, first + 1, ...
// up to end, which it leaves in the counter (where it runs at all).
struct UpwardRange {
  Int128 first = 0;
  ExprPtr end;                  // the first value not run: the bound (plus one for <=)
  std::optional<Int128> count;  // end - first, at least 1, where end is a constant
};

// The range of c when it counts up by one from a constant, to a constant with at least one iteration and a
// final counter value of its type (else the loop would wrap around or never end), or with < to a bound whose
// every value the counter can take, or with <= to such a bound of a signed type (`j <= n - 1`: the end n, as
// the integers compute it; a loop to the counter's largest value would overflow it, undefined behaviour).
std::optional<UpwardRange> Range(const CountedLoop& c) {
  const std::optional<Int128> first = FoldConstant(c.init);
  if (c.stride != 1 || !first || *first < MinOf(c.counter_type) || *first > MaxOf(c.counter_type)) return std::nullopt;
  if (const std::optional<Int128> bound = FoldConstant(c.bound)) {
    const Int128 end = c.cmp == "<=" ? *bound + 1 : *bound;
    if (end <= *first || end > MaxOf(c.counter_type)) return std::nullopt;
    return UpwardRange{*first, MakeConst(end, c.counter_type), end - *first};
  }
  const IntType t = c.bound->type;
  if (MinOf(t) < MinOf(c.counter_type) || MaxOf(t) > MaxOf(c.counter_type)) return std::nullopt;
  if (c.cmp == "<") return UpwardRange{*first, c.bound, std::nullopt};
  if (c.cmp != "<=" || !t.is_signed) return std::nullopt;
  return UpwardRange{*first, PlusConst(c.bound, 1, t), std::nullopt};
}

// True when s assigns a constant to a scalar: run once per row, it can as well run once after the nest.
bool SetsConstant(const StmtPtr& s) {
  return s->kind == StmtKind::kAssign && s->lhs->kind == ExprKind::kVar && FoldConstant(s->rhs).has_value();
}

// e as an affine form in a nest's outer counter i that reads i (a != 0), and the coefficient of its inner
// counter j among the atoms (0 where j is none): `k*S*i + k*j + e` is {form, k}.
struct NestForm {
  AffineForm form;
  Int128 inner_coefficient = 0;
};
std::optional<NestForm> NestFormOf(const ExprPtr& e, const std::string& outer, const std::string& inner) {
  std::optional<AffineForm> form = AffineWithAtoms(e, outer);
  if (!form || form->a == 0) return std::nullopt;
  NestForm out{std::move(*form)};
  for (const auto& [atom, k] : out.form.atoms) {
    if (atom->kind == ExprKind::kVar && atom->name == inner) out.inner_coefficient = k;
  }
  return out;
}

// The row stride S of the cells a nest's body accesses at `k*S*i + k*j + e`, where every such index has the
// same S > 0; nothing otherwise.
std::optional<Int128> RowStride(const StmtPtr& body, const std::string& outer, const std::string& inner) {
  std::set<Int128> strides;
  const std::function<void(const ExprPtr&)> visit = [&](const ExprPtr& e) {
    if (!e) return;
    if (e->kind == ExprKind::kIndex) {
      const std::optional<NestForm> f = NestFormOf(e->args[0], outer, inner);
      if (f && f->inner_coefficient != 0 && f->form.a % f->inner_coefficient == 0) {
        strides.insert(f->form.a / f->inner_coefficient);
      }
    }
    for (const ExprPtr& x : e->args) visit(x);
  };
  ForEachExpr(body, visit);
  if (strides.size() != 1 || *strides.begin() <= 0) return std::nullopt;
  return *strides.begin();
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

  // The columns of a row (end - first of the inner loop; at most 0 where it runs no iteration).
  ExprPtr Columns() const {
    const IntType t = position_->type;
    if (columns_.count) return MakeConst(*columns_.count, t);
    return PlusConst(MakeCast(t, columns_.end), -columns_.first, t);
  }

  // Whether the position is a column of the inner range: `position % stride < columns`.
  ExprPtr InRange() const {
    const IntType t = position_->type;
    return MakeBinary("<", MakeBinary("%", position_, MakeConst(stride_, t), t), Columns(), kInt);
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
    if ((rows_.count ? *rows_.count * stride_ - 1 : MaxOf(position_->type)) > MaxOf(e->type)) return nullptr;
    const std::optional<NestForm> f = NestFormOf(e, outer_, inner_);
    const Int128 k = f ? f->inner_coefficient : 0;
    if (k == 0 || f->form.a != k * stride_) return nullptr;
    AffineForm flat;
    flat.atoms.push_back({position_, k});
    for (const auto& [atom, coefficient] : f->form.atoms) {
      if (atom->kind != ExprKind::kVar || atom->name != inner_) flat.atoms.push_back({Rewrite(atom), coefficient});
    }
    flat.constant = f->form.constant + f->form.a * rows_.first + k * columns_.first;
    return AffineExpr(flat, e->type);
  }

  std::string outer_, inner_;
  UpwardRange rows_, columns_;
  Int128 stride_;     // positions per row: the columns, or more where the rows skip cells
  ExprPtr position_;  // the collapsed counter
  ExprPtr row_, column_;
};

// The statements that replace the nest at items[k] (its first value assigned at items[k - 1]), or nothing
// when it is no nest that collapses (collapse.h).
std::optional<std::vector<StmtPtr>> Collapse(Program& prog, const std::vector<StmtPtr>& items, size_t k,
                                             std::vector<std::string>& applied) {
  const std::optional<CountedLoop> outer = AsCounted(items[k - 1], items[k], false, true);
  const std::optional<UpwardRange> rows = outer ? Range(*outer) : std::nullopt;
  if (!rows) return std::nullopt;
  const std::vector<StmtPtr> row = SinkCounterInits(Flatten(outer->body));
  size_t p = 0;  // the inner loop's place in the row
  while (p < row.size() && row[p]->kind != StmtKind::kLoop) ++p;
  if (p == 0 || p == row.size()) return std::nullopt;
  const std::optional<CountedLoop> inner = AsCounted(row[p - 1], row[p]);
  const std::optional<UpwardRange> columns = inner ? Range(*inner) : std::nullopt;
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
  // The inner bound is read once for every row: the outer counter (a triangular nest) and P and S would
  // change it from row to row.
  std::set<std::string> per_row = set_once;
  per_row.insert(outer->counter);
  const Effects effects = EffectsOf(inner->body);
  if (effects.writes.count(outer->counter) || !ReadsNone(columns->end, per_row)) return std::nullopt;
  for (const std::string& v : effects.Scalars()) {
    if (set_once.count(v)) return std::nullopt;
  }
  // The positions per row: the columns, or the row stride of the cells where that is wider (or the columns
  // are not a constant).
  const std::optional<Int128> row_stride = RowStride(inner->body, outer->counter, inner->counter);
  if (!columns->count && !row_stride) return std::nullopt;
  const Int128 stride = columns->count && (!row_stride || *row_stride < *columns->count) ? *columns->count
                                                                                          : *row_stride;
  // Where the rows are an input's number, positions stay below 2^62 with a 32-bit counter and at most 2^30
  // positions a row.
  if (rows->count ? *rows->count * stride > MaxOf(kLongLong) / 2
                  : stride > (Int128(1) << 30) || outer->counter_type.bits > 32) {
    return std::nullopt;
  }
  const IntType t = rows->count && columns->count && *rows->count * stride <= MaxOf(kInt) ? kInt : kLongLong;
  const ExprPtr position = MakeVar(prog.AddVar(outer->counter + "_" + inner->counter, t), t);
  const NestCounters counters(*outer, *rows, *inner, *columns, stride, position);
  const ExprPtr count = rows->count ? MakeConst(*rows->count * stride, t)
                                    : MakeBinary("*", PlusConst(MakeCast(t, rows->end), -rows->first, t),
                                                 MakeConst(stride, t), t);
  StmtPtr body = MapExprs(inner->body, [&](const ExprPtr& e) { return counters.Rewrite(e); });
  if (!columns->count || stride > *columns->count) body = MakeIf(counters.InRange(), body);
  // Rows of an input's number of columns are rows of the cells only where they are no wider: asserted where
  // the loop starts, before the first position that could differ, so that a proof shows that they never are.
  if (!columns->count) {
    body = MakeBlock({MakeAssert(MakeBinary("<=", counters.Columns(), MakeConst(stride, t), kInt)), body});
  }
  auto loop = std::make_shared<Stmt>(*MakeLoop(MakeBinary("<", position, count, kInt), body,
                                               MakeAssign(position, MakeBinary("+", position, MakeConst(1, t), t))));
  loop->loc = items[k]->loc;
  std::vector<StmtPtr> out = {MakeAssign(position, MakeConst(0, t)), loop};
  // After the loop, what the nest's last row leaves; where the rows are an input's number, only if one ran.
  const auto runs = [](const CountedLoop& c, const UpwardRange& r) {
    return MakeBinary(">", MakeCast(c.counter_type, r.end), MakeConst(r.first, c.counter_type), kInt);
  };
  const ExprPtr ran = rows->count ? nullptr : runs(*outer, *rows);
  const auto set_after = [&](const ExprPtr& lhs, const ExprPtr& value) {
    out.push_back(MakeAssign(lhs, ran ? MakeTernary(ran, value, lhs, lhs->type) : value));
  };
  for (const StmtPtr& s : once) set_after(s->lhs, s->rhs);
  const ExprPtr j = MakeVar(inner->counter, inner->counter_type), i = MakeVar(outer->counter, outer->counter_type);
  const auto last = [&runs](const CountedLoop& c, const UpwardRange& r) {
    const ExprPtr first = MakeConst(r.first, c.counter_type);
    if (r.count) return MakeConst(r.first + *r.count, c.counter_type);
    return MakeTernary(runs(c, r), MakeCast(c.counter_type, r.end), first, c.counter_type);
  };
  set_after(j, last(*inner, *columns));
  out.push_back(MakeAssign(i, last(*outer, *rows)));
  const auto size = [](const UpwardRange& r) {
    return r.count ? DecimalText(*r.count) : PrintExpr(PlusConst(r.end, -r.first, r.end->type));
  };
  applied.push_back(fmt::format("collapsed the loop nest at line {} ({} x {} iterations of {} and {}) into one loop{}",
                                items[k]->loc.line, size(*rows), size(*columns), outer->counter, inner->counter,
                                !columns->count || stride > *columns->count ? " over rows of " + DecimalText(stride)
                                                                             : ""));
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
