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

// How one of the two programs treats the wrap-around conditions and the program's own checks.
struct Mode {
  bool assert_wrap;  // no_wrap: assert the conditions, assume the program's assertions, stop at errors
};

// The statement rewritten for mode; added tells whether any wrap-around condition was put in.
StmtPtr Rewrite(const StmtPtr& s, Mode mode, bool& added) {
  switch (s->kind) {
    case StmtKind::kAssign: {
      std::vector<ExprPtr> conds;
      if (!HasNondet(s->rhs)) Checks(s->rhs, conds);
      if (s->lhs->kind == ExprKind::kIndex && !HasNondet(s->lhs->args[0])) Checks(s->lhs->args[0], conds);
      if (conds.empty()) return s;
      added = true;
      std::vector<StmtPtr> out;
      for (const auto& c : conds) out.push_back(mode.assert_wrap ? MakeAssert(c) : MakeAssume(c));
      out.push_back(s);
      return MakeBlock(out);
    }
    // In no_wrap, a run that would fail the program's own check ends there: the other program covers it.
    case StmtKind::kAssert:
      return mode.assert_wrap ? MakeAssume(s->cond) : s;
    case StmtKind::kError:
      return mode.assert_wrap ? MakeAssume(MakeConst(0)) : s;
    case StmtKind::kBlock:
    case StmtKind::kIf:
    case StmtKind::kLoop: {
      auto copy = std::make_shared<Stmt>(*s);
      // Loop steps are kept as they are (their wrap-around is modelled exactly), so that a for loop
      // keeps its one-assignment step.
      for (auto& b : copy->body) b = Rewrite(b, mode, added);
      return copy;
    }
    default:
      return s;
  }
}

}  // namespace

bool SplitWrapChecks(const Program& prog, WrapSplit& out) {
  bool added = false;
  Program no_wrap = prog, under = prog;
  no_wrap.body = Rewrite(prog.body, Mode{true}, added);
  under.body = Rewrite(prog.body, Mode{false}, added);
  if (!added) return false;
  out = WrapSplit{std::move(no_wrap), std::move(under)};
  return true;
}

}  // namespace fusion
