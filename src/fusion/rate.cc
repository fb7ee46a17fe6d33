#include "fusion/rate.h"

#include <fmt/format.h>

#include <optional>
#include <set>

#include "fusion/loop_ir.h"
#include "fusion/normalize.h"

namespace fusion {
namespace {

// The cells a loop takes per iteration from the arrays in shared: its one rate when every access to them
// is at a * counter + b with one a != 0; nothing otherwise (or when it accesses none of them).
std::optional<Int128> RateOf(const CountedLoop& c, const StmtPtr& loop, const std::set<std::string>& shared) {
  const auto rates = AccessRates(c, loop, shared);
  if (!rates || rates->size() != 1 || *rates->begin() == 0) return std::nullopt;
  return *rates->begin();
}

// The loop c unrolled r times (see RateAlignment); nothing when its shape does not allow it.
StmtPtr Unrolled(const CountedLoop& c, const StmtPtr& loop, int r) {
  const ExprPtr& cond = loop->cond;
  // The counter compared directly with a bound of its own type: c + j and c + r are then computed in
  // that type, and signed, so the encodings and C agree on them whenever c + j stays in range.
  if ((c.cmp != "<" && c.cmp != ">") || (c.stride != 1 && c.stride != -1) || !c.counter_type.is_signed ||
      c.counter_type.bits < 32 || cond->args[0]->kind != ExprKind::kVar || !(c.bound->type == c.counter_type) ||
      EffectsOf(c.body).jumps || HasNondet(c.bound)) {
    return nullptr;
  }
  const IntType t = c.counter_type;
  const ExprPtr counter = MakeVar(c.counter, t);
  const char* op = c.stride > 0 ? "+" : "-";
  const auto shifted = [&](int j) { return MakeBinary(op, counter, MakeConst(j, t), t); };
  // Copy j runs when the original's condition holds at c + j; c + j cannot overflow there, since
  // c + (j - 1) already lies strictly inside the bound.
  StmtPtr nested;
  for (int j = r - 1; j >= 1; --j) {
    std::vector<StmtPtr> then{SubstituteStmt(c.body, c.counter, shifted(j))};
    if (nested) then.push_back(nested);
    nested = MakeIf(MakeBinary(c.cmp, shifted(j), c.bound, kInt), MakeBlock(then));
  }
  const StmtPtr step = MakeAssign(
      counter, MakeTernary(MakeBinary(c.cmp, shifted(r), c.bound, kInt), shifted(r), c.bound, t));
  auto out = std::make_shared<Stmt>(*MakeLoop(cond, MakeBlock({c.body, nested}), step));
  out->loc = loop->loc;
  return out;
}

}  // namespace

StmtPtr RateAlignment(const StmtPtr& body, std::vector<std::string>& applied) {
  return RewriteBlocks(body, [&](std::vector<StmtPtr> items) {
    items = SinkCounterInits(std::move(items));
    for (const auto& [previous, k] : AdjacentLoops(items)) {
      const StmtPtr s = items[k];
      const std::set<std::string> shared = SharedArrays(items[previous], s);
      const auto first = previous > 0 ? AsCounted(items[previous - 1], items[previous], true) : std::nullopt;
      const auto second = AsCounted(items[k - 1], s, true);
      const Int128 rate1 = first && !shared.empty() ? RateOf(*first, items[previous], shared).value_or(0) : 0;
      const Int128 rate2 = second && !shared.empty() ? RateOf(*second, s, shared).value_or(0) : 0;
      // The loop to unroll takes one cell per iteration, the other r in the same direction.
      const Int128 r = rate1 * rate2;
      if (r > 1 && r <= kMaxRate && (rate1 == 1 || rate1 == -1 || rate2 == 1 || rate2 == -1)) {
        const bool unroll_second = rate2 == 1 || rate2 == -1;
        const size_t at = unroll_second ? k : previous;
        const StmtPtr unrolled = Unrolled(unroll_second ? *second : *first, items[at], static_cast<int>(r));
        if (unrolled) {
          applied.push_back(fmt::format("rate alignment: the loop at line {} unrolled {} times", items[at]->loc.line,
                                        static_cast<int>(r)));
          items[at] = unrolled;
        }
      }
    }
    return items;
  });
}

}  // namespace fusion
