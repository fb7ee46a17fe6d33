#include "fusion/wrap_checks.h"

#include "fusion/loop_ir.h"

namespace fusion {
namespace {

// Collects "the exact value of this operation lies in its type" for every unsigned + - * in e.
void Checks(const ExprPtr& e, std::vector<ExprPtr>& out) {
  for (const auto& a : e->args) Checks(a, out);
  const bool arith = (e->kind == ExprKind::kBinary && (e->op == "+" || e->op == "-" || e->op == "*")) ||
                     (e->kind == ExprKind::kUnary && e->op == "-");
  if (!arith || e->type.is_signed || e->type.bits > 32) return;
  bool constant = true;
  for (const auto& a : e->args) constant = constant && a->kind == ExprKind::kConst;
  if (constant) return;
  // The same operation in long long, where it cannot wrap.
  ExprPtr exact;
  if (e->kind == ExprKind::kUnary) {
    exact = MakeUnary("-", MakeCast(kLongLong, e->args[0]), kLongLong);
  } else {
    exact = MakeBinary(e->op, MakeCast(kLongLong, e->args[0]), MakeCast(kLongLong, e->args[1]), kLongLong);
  }
  out.push_back(MakeAnd(MakeBinary("<=", MakeConst(0, kLongLong), exact, kInt),
                        MakeBinary("<=", exact, MakeConst(MaxOf(e->type), kLongLong), kInt)));
}

// The statement with its checks in front (only assignments are checked).
StmtPtr Check(const StmtPtr& s, bool& added) {
  if (s->kind == StmtKind::kAssign) {
    std::vector<ExprPtr> conds;
    if (!HasNondet(s->rhs)) Checks(s->rhs, conds);
    if (s->lhs->kind == ExprKind::kIndex && !HasNondet(s->lhs->args[0])) Checks(s->lhs->args[0], conds);
    if (conds.empty()) return s;
    added = true;
    std::vector<StmtPtr> out;
    for (const auto& c : conds) out.push_back(MakeAssert(c));
    out.push_back(s);
    return MakeBlock(out);
  }
  if (s->kind != StmtKind::kBlock && s->kind != StmtKind::kIf && s->kind != StmtKind::kLoop) return s;
  auto copy = std::make_shared<Stmt>(*s);
  // Loop steps stay unchecked (a step is one assignment list); their wrap-around is modelled exactly.
  for (auto& b : copy->body) b = Check(b, added);
  return copy;
}

}  // namespace

Program AddWrapChecks(const Program& prog, bool& added) {
  Program out = prog;
  added = false;
  out.body = Check(prog.body, added);
  return out;
}

}  // namespace fusion
