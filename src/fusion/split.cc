#include "fusion/split.h"

#include <fmt/format.h>

#include <optional>
#include <set>

#include "fusion/loop_ir.h"
#include "fusion/normalize.h"
#include "fusion/reverse.h"

namespace fusion {
namespace {

// The counter value of l after as many iterations as p makes (the split point S), in l's counter type and
// canonical form (the bound of p when both start from the same value); nothing when a coefficient is too large.
std::optional<ExprPtr> SplitPoint(const CountedLoop& p, const CountedLoop& l) {
  const auto bound = AffineWithAtoms(p.bound, ""), first = AffineWithAtoms(p.init, "");
  const auto start = AffineWithAtoms(l.init, "");
  if (!bound || !first || !start) return std::nullopt;
  // p runs (bound - init) * stride times, one more with <= or >=; l's counter moves by its stride each time.
  AffineForm trips = Combine(p.stride, *bound, *first, -p.stride);
  if (p.cmp == "<=" || p.cmp == ">=") trips.constant += 1;
  return AffineExpr(Combine(1, *start, trips, l.stride), l.counter_type);
}

// The statements that replace loop l (initialised by the statement before it) split at s: the first part,
// then the second reversed; nothing when l's shape or the second part's dependences do not allow it.
std::optional<std::vector<StmtPtr>> Split(const CountedLoop& l, const StmtPtr& loop, const ExprPtr& s) {
  const IntType t = l.counter_type;
  // A strict comparison of the counter itself with a bound of its own signed type, so that the clamped
  // bounds below are values of that type and the parts' conditions mean what the original's does.
  if ((l.cmp != "<" && l.cmp != ">") || !t.is_signed || loop->cond->args[0]->kind != ExprKind::kVar ||
      !(l.bound->type == t) || SameExpr(s, l.bound)) {
    return std::nullopt;
  }
  // The split point and the first value are evaluated again after the first part: they must keep their value.
  const Effects body = EffectsOf(l.body);
  std::set<std::string> changed = body.writes;
  changed.insert(l.counter);
  for (const auto& a : body.ArraysWritten()) changed.insert(a);
  if (!ReadsNone(s, changed) || !ReadsNone(l.init, changed) || HasNondet(s) || HasNondet(l.init)) return std::nullopt;
  // m: the split point clamped to the bound; the first part runs [init, m), the second [max(init, m), N)
  // (upward; mirrored downward), together exactly the original's iterations, in its order.
  const char* cmp = l.cmp == "<" ? "<" : ">";
  const ExprPtr m = MakeTernary(MakeBinary(cmp, s, l.bound, kInt), s, l.bound, t);
  const ExprPtr rest = MakeTernary(MakeBinary(cmp, MakeCast(t, l.init), m, kInt), m, MakeCast(t, l.init), t);
  CountedLoop second = l;
  second.init = rest;
  auto reversed = ReverseLoop(second);
  if (!reversed) return std::nullopt;
  auto first = std::make_shared<Stmt>(*MakeLoop(MakeBinary(cmp, MakeVar(l.counter, t), m, kInt), l.body, l.increment));
  first->loc = loop->loc;
  auto back = std::make_shared<Stmt>(*(*reversed)[1]);
  back->loc = loop->loc;
  return std::vector<StmtPtr>{first, (*reversed)[0], back, (*reversed)[2]};
}

}  // namespace

StmtPtr IndexSetSplitting(const StmtPtr& body, std::vector<std::string>& applied) {
  return RewriteBlocks(body, [&](std::vector<StmtPtr> items) {
    items = SinkCounterInits(std::move(items));
    for (const auto& [previous, k] : AdjacentLoops(items)) {
      if (previous == 0) continue;
      const auto p = AsCounted(items[previous - 1], items[previous]);
      const auto l = AsCounted(items[k - 1], items[k]);
      const std::set<std::string> shared = SharedArrays(items[previous], items[k]);
      if (!p || !l || shared.empty()) continue;
      // p in both directions, l in one: its first part can go in step with p's one, its reversed rest with
      // the other (whether they do is guess-and-assume's check).
      const auto rates_p = AccessRates(*p, items[previous], shared);
      const auto rates_l = AccessRates(*l, items[k], shared);
      if (!rates_p || !rates_l || *rates_p != std::set<Int128>{-1, 1} || rates_l->size() != 1 ||
          !rates_p->count(*rates_l->begin()) || !(p->counter_type == l->counter_type)) {
        continue;
      }
      const auto point = SplitPoint(*p, *l);
      if (!point) continue;
      if (const auto parts = Split(*l, items[k], *point)) {
        applied.push_back(fmt::format("index-set splitting: the loop at line {} split where the loop at line {} ends, "
                                      "its second part reversed",
                                      items[k]->loc.line, items[previous]->loc.line));
        // One block in place of the loop keeps the positions of the pairs still to come.
        items[k] = MakeBlock(*parts);
      }
    }
    return items;
  });
}

}  // namespace fusion
