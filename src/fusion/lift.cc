#include "fusion/lift.h"

#include <fmt/core.h>

#include <map>
#include <optional>
#include <set>

#include "fusion/loop_ir.h"

namespace fusion {
namespace {

// An operation that commutes with reduction modulo 2^32: + - * and negation in unsigned int.
bool IsRingOp(const ExprPtr& e) {
  if (!(e->type == kUnsigned)) return false;
  if (e->kind == ExprKind::kUnary) return e->op == "-";
  return e->kind == ExprKind::kBinary && (e->op == "+" || e->op == "-" || e->op == "*");
}

// True when e reads v only as an operand of ring operations (leaves that do not read v are values of their
// own, computed as in the original).
bool RingOver(const ExprPtr& e, const std::string& v) {
  if (e->kind == ExprKind::kVar && e->name == v) return true;
  if (IsRingOp(e)) {
    for (const auto& a : e->args) {
      if (!RingOver(a, v)) return false;
    }
    return true;
  }
  return ReadsNone(e, {v});
}

// An equality of two unsigned int values, which the lifted program may check over the integers.
bool IsUnsignedEquality(const ExprPtr& e) {
  return e->kind == ExprKind::kBinary && e->op == "==" && e->args[0]->type == kUnsigned &&
         e->args[1]->type == kUnsigned;
}

// True when an assertion's condition reads v only in conjuncts that are such equalities, as ring operands.
bool AssertedOver(const ExprPtr& cond, const std::string& v) {
  if (cond->kind == ExprKind::kBinary && cond->op == "&&") {
    return AssertedOver(cond->args[0], v) && AssertedOver(cond->args[1], v);
  }
  if (IsUnsignedEquality(cond)) return RingOver(cond->args[0], v) && RingOver(cond->args[1], v);
  return ReadsNone(cond, {v});
}

// !c, with `!`, `!=` and `||` pushed in, so that the equalities of `if (x != y || ...) reach_error();` show.
ExprPtr Negated(const ExprPtr& c) {
  if (c->kind == ExprKind::kUnary && c->op == "!") return c->args[0];
  if (c->kind == ExprKind::kBinary && c->op == "!=") return MakeBinary("==", c->args[0], c->args[1], kInt);
  if (c->kind == ExprKind::kBinary && c->op == "||") return MakeAnd(Negated(c->args[0]), Negated(c->args[1]));
  return MakeNot(c);
}

// The condition that s checks: an assertion's, or the negation of c for `if (c) { reach_error(); ... }` without
// an else (the same check written out, as SV-COMP tasks do); nothing for any other statement.
std::optional<ExprPtr> CheckedBy(const StmtPtr& s) {
  if (s->kind == StmtKind::kAssert) return s->cond;
  if (s->kind != StmtKind::kIf || !Flatten(s->body[1]).empty()) return std::nullopt;
  const std::vector<StmtPtr> then = Flatten(s->body[0]);
  if (then.empty() || then[0]->kind != StmtKind::kError) return std::nullopt;
  return Negated(s->cond);
}

// What one statement does with v: whether every use allows lifting, whether it updates v by a ring operation
// (where the lifted value may leave the type's range), and whether an assertion's equality reads it (lifting
// is for values updated before such an equality).
struct Uses {
  bool liftable = true;
  bool updated = false;
  bool asserted = false;
};

// The uses of v in s, where the variables in `lifted` (v among them) are lifted: v may be a ring operand of
// what is assigned to any of them.
void CollectUses(const StmtPtr& s, const std::string& v, const std::set<std::string>& lifted, Uses& u) {
  if (!s) return;
  if (const std::optional<ExprPtr> checked = CheckedBy(s)) {
    u.liftable = u.liftable && AssertedOver(*checked, v);
    u.asserted = u.asserted || !ReadsNone(*checked, {v});
    return;
  }
  switch (s->kind) {
    case StmtKind::kAssign:
      if (s->lhs->kind == ExprKind::kVar && lifted.count(s->lhs->name)) {
        u.liftable = u.liftable && RingOver(s->rhs, v);
        u.updated = u.updated || (s->lhs->name == v && IsRingOp(s->rhs));
      } else {
        u.liftable = u.liftable && ReadsNone(s->rhs, {v}) && ReadsNone(s->lhs, {v});
      }
      return;
    case StmtKind::kHavoc:
      u.liftable = u.liftable && s->name != v;
      return;
    case StmtKind::kAssume:
      u.liftable = u.liftable && ReadsNone(s->cond, {v});
      return;
    case StmtKind::kIf:
    case StmtKind::kLoop:
      u.liftable = u.liftable && ReadsNone(s->cond, {v});
      [[fallthrough]];
    case StmtKind::kBlock:
      for (const auto& b : s->body) CollectUses(b, v, lifted, u);
      CollectUses(s->step, v, lifted, u);
      return;
    default:
      return;
  }
}

// The lifted variables (original name -> integer name) that a rewrite replaces.
using Names = std::map<std::string, std::string>;

// e over the integers: ring operations exact, lifted variables by their integer values, anything else a value
// of its own converted. Congruent to e modulo 2^32.
ExprPtr Lift(const ExprPtr& e, const Names& lifted) {
  if (e->kind == ExprKind::kVar && lifted.count(e->name)) return MakeVar(lifted.at(e->name), kWide);
  if (e->kind == ExprKind::kConst) return MakeConst(e->value, kWide);
  if (e->kind == ExprKind::kCast && e->args[0]->kind == ExprKind::kConst) {
    return MakeConst(Wrap(e->type, e->args[0]->value), kWide);
  }
  if (!IsRingOp(e)) return MakeCast(kWide, e);
  if (e->kind == ExprKind::kUnary) return MakeUnary("-", Lift(e->args[0], lifted), kWide);
  return MakeBinary(e->op, Lift(e->args[0], lifted), Lift(e->args[1], lifted), kWide);
}

// A checked condition with its equalities over lifted variables checked over the integers (the same node where
// it has none).
ExprPtr LiftCondition(const ExprPtr& cond, const Names& lifted) {
  if (cond->kind == ExprKind::kBinary && cond->op == "&&") {
    const ExprPtr a = LiftCondition(cond->args[0], lifted), b = LiftCondition(cond->args[1], lifted);
    return a == cond->args[0] && b == cond->args[1] ? cond : MakeAnd(a, b);
  }
  if (!IsUnsignedEquality(cond)) return cond;
  std::set<std::string> names;
  for (const auto& [from, to] : lifted) names.insert(from);
  if (ReadsNone(cond, names)) return cond;
  return MakeBinary("==", Lift(cond->args[0], lifted), Lift(cond->args[1], lifted), kInt);
}

StmtPtr Rewrite(const StmtPtr& s, const Names& lifted) {
  if (!s) return s;
  if (const std::optional<ExprPtr> checked = CheckedBy(s)) {
    const ExprPtr cond = LiftCondition(*checked, lifted);
    if (cond == *checked) return s;
    auto assertion = std::make_shared<Stmt>(*MakeAssert(cond));
    assertion->loc = s->loc;
    return assertion;
  }
  switch (s->kind) {
    case StmtKind::kAssign: {
      if (s->lhs->kind != ExprKind::kVar || !lifted.count(s->lhs->name)) return s;
      auto copy = std::make_shared<Stmt>(*s);
      copy->lhs = MakeVar(lifted.at(s->lhs->name), kWide);
      copy->rhs = Lift(s->rhs, lifted);
      return copy;
    }
    case StmtKind::kIf:
    case StmtKind::kLoop:
    case StmtKind::kBlock: {
      auto copy = std::make_shared<Stmt>(*s);
      for (auto& b : copy->body) b = Rewrite(b, lifted);
      copy->step = Rewrite(s->step, lifted);
      return copy;
    }
    default:
      return s;
  }
}

// The top-level statement from which v can be lifted, given where the others are (`from`: the index of each
// candidate's first lifted statement, items.size() for one not lifted): the first after which every use allows
// it. items.size() where that is not worth it: lifting is for a value updated before an asserted equality
// (before any update, the lifted value is the original one).
size_t LiftedFrom(const std::vector<StmtPtr>& items, const std::string& v, const std::map<std::string, size_t>& from) {
  size_t start = items.size();
  bool asserted_later = false, worth = false;
  while (start > 0) {
    std::set<std::string> lifted = {v};
    for (const auto& [w, first] : from) {
      if (first < start) lifted.insert(w);
    }
    Uses u;
    CollectUses(items[start - 1], v, lifted, u);
    if (!u.liftable) break;
    asserted_later = asserted_later || u.asserted;
    worth = worth || (u.updated && asserted_later);
    --start;
  }
  return worth ? start : items.size();
}

}  // namespace

std::optional<Lifted> LiftUnsigned(const Program& prog, std::string& why_not) {
  const std::vector<StmtPtr> items = Flatten(prog.body);
  // Where each variable's lifted part starts. A value may be a ring operand of another's update only where
  // that one is lifted too, so the parts depend on each other: from all lifted everywhere, each part is
  // shortened until none changes (a part only ever shrinks, as the others' do).
  std::map<std::string, size_t> from;
  for (const Var& var : prog.vars) {
    if (!var.is_array && var.type == kUnsigned) from[var.name] = 0;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& [v, first] : from) {
      const size_t start = std::max(first, LiftedFrom(items, v, from));
      changed = changed || start != first;
      first = start;
    }
  }
  std::map<size_t, std::vector<std::string>> starts;
  for (auto [v, start] : from) {
    if (start == items.size()) continue;
    // From the first statement that uses it: that may be the one that sets it.
    while (start < items.size() && !EffectsOf(items[start]).Scalars().count(v)) ++start;
    starts[start].push_back(v);
  }
  if (starts.empty()) {
    why_not =
        "no unsigned int variable is only updated by + - * and read in asserted equalities after its last other use";
    return std::nullopt;
  }
  Lifted out{prog, ""};
  Names lifted;
  std::vector<StmtPtr> body;
  for (size_t i = 0; i <= items.size(); ++i) {
    if (starts.count(i)) {
      for (const std::string& v : starts.at(i)) {
        const std::string name = out.prog.AddVar(v + "_int", kWide);
        lifted[v] = name;
        // The value so far, unless the first statement lifted sets it (a declaration's initialiser).
        const bool set_first = i < items.size() && items[i]->kind == StmtKind::kAssign &&
                               items[i]->lhs->kind == ExprKind::kVar && items[i]->lhs->name == v &&
                               ReadsNone(items[i]->rhs, {v});
        if (!set_first) body.push_back(MakeAssign(MakeVar(name, kWide), MakeCast(kWide, MakeVar(v, kUnsigned))));
        const int line = i < items.size() ? items[i]->loc.line : 0;
        out.line += fmt::format("{}{} lifted to the integers{}", out.line.empty() ? "" : "; ", v,
                                line > 0 ? fmt::format(" from line {}", line) : "");
      }
    }
    if (i < items.size()) body.push_back(Rewrite(items[i], lifted));
  }
  out.line += " (asserted equalities over lifted values checked without modulo 2^32, which is stronger)";
  out.prog.body = MakeBlock(body);
  return out;
}

}  // namespace fusion
