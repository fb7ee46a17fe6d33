#include "fusion/unroll.h"

#include <fmt/core.h>

#include <map>
#include <optional>

#include "fusion/loop_ir.h"

namespace fusion {
namespace {

// A loop whose counter runs through constant values: the counter, the body without the step, the step.
struct ConstantLoop {
  ExprPtr counter;
  std::vector<StmtPtr> body;
  StmtPtr step;
};

// The loop as a constant loop when init assigns its counter and the step (the for step, or the last
// statement of the body) assigns it; the body may not write the counter nor jump.
std::optional<ConstantLoop> AsConstantLoop(const StmtPtr& init, const StmtPtr& loop) {
  if (loop->kind != StmtKind::kLoop || loop->do_while || init->kind != StmtKind::kAssign) return std::nullopt;
  ConstantLoop c;
  c.body = Flatten(loop->body[0]);
  if (loop->step) {
    c.step = loop->step;
  } else if (!c.body.empty()) {
    c.step = c.body.back();
    c.body.pop_back();
  } else {
    return std::nullopt;
  }
  if (c.step->kind != StmtKind::kAssign || c.step->lhs->kind != ExprKind::kVar) return std::nullopt;
  c.counter = c.step->lhs;
  if (!SameExpr(init->lhs, c.counter)) return std::nullopt;
  const Effects eff = EffectsOf(MakeBlock(c.body));
  if (eff.writes.count(c.counter->name) || eff.jumps || eff.nested_loop) return std::nullopt;
  return c;
}

// The counter values of the iterations and the final value, when the condition and the step depend on
// the counter and known constants only and the loop runs at most kMaxUnrolledIterations times.
std::optional<std::vector<Int128>> Iterations(const StmtPtr& init, const StmtPtr& loop, const ConstantLoop& c,
                                               const KnownConstants& known) {
  const auto first = FoldConstant(init->rhs, known);
  if (!first) return std::nullopt;
  std::vector<Int128> values;
  KnownConstants with_counter = known;
  with_counter[c.counter->name] = Wrap(c.counter->type, *first);
  for (;;) {
    const auto cond = FoldConstant(loop->cond, with_counter);
    if (!cond) return std::nullopt;
    if (*cond == 0) break;
    if (static_cast<int>(values.size()) == kMaxUnrolledIterations) return std::nullopt;
    values.push_back(with_counter[c.counter->name]);
    const auto next = FoldConstant(c.step->rhs, with_counter);
    if (!next) return std::nullopt;
    with_counter[c.counter->name] = Wrap(c.counter->type, *next);
  }
  values.push_back(with_counter[c.counter->name]);
  return values;
}

// Unrolls the short constant loops of a block and of the blocks nested in it. known: the scalars with a
// constant value at the block's entry; a statement `v = constant` that is v's only write (writes) makes v
// known for the statements after it.
std::vector<StmtPtr> Unroll(const std::vector<StmtPtr>& items, KnownConstants known,
                            const std::map<std::string, int>& writes, std::vector<std::string>& applied) {
  std::vector<StmtPtr> out;
  auto nested = [&](const StmtPtr& b) { return MakeBlock(Unroll(Flatten(b), known, writes, applied)); };
  for (size_t i = 0; i < items.size(); ++i) {
    const StmtPtr& s = items[i];
    const auto c = i > 0 ? AsConstantLoop(items[i - 1], s) : std::nullopt;
    const auto values = c ? Iterations(items[i - 1], s, *c, known) : std::nullopt;
    if (values) {
      for (size_t k = 0; k + 1 < values->size(); ++k) {
        out.push_back(MakeAssign(c->counter, MakeConst((*values)[k], c->counter->type)));
        for (const auto& b : c->body) out.push_back(b);
      }
      out.push_back(MakeAssign(c->counter, MakeConst(values->back(), c->counter->type)));
      applied.push_back(fmt::format("unrolled the loop at line {} ({} iterations)", s->loc.line, values->size() - 1));
      continue;
    }
    if (s->kind == StmtKind::kIf || s->kind == StmtKind::kLoop) {
      auto copy = std::make_shared<Stmt>(*s);
      for (auto& b : copy->body) b = nested(b);
      out.push_back(copy);
    } else {
      out.push_back(s);
    }
    if (s->kind == StmtKind::kAssign && s->lhs->kind == ExprKind::kVar && writes.at(s->lhs->name) == 1) {
      if (const auto v = FoldConstant(s->rhs, known)) known[s->lhs->name] = Wrap(s->lhs->type, *v);
    }
  }
  return out;
}

}  // namespace

StmtPtr UnrollConstantLoops(const Program& prog, std::vector<std::string>& applied) {
  const std::map<std::string, int> writes = CountScalarWrites(prog.body);
  const size_t before = applied.size();
  StmtPtr out = MakeBlock(Unroll(Flatten(prog.body), {}, writes, applied));
  return applied.size() == before ? prog.body : out;
}

}  // namespace fusion
