#include "fusion/ast.h"

#include <stdexcept>

namespace fusion {

Int128 MinOf(IntType t) { return t.is_signed ? -(Int128(1) << (t.bits - 1)) : 0; }

Int128 MaxOf(IntType t) {
  return t.is_signed ? (Int128(1) << (t.bits - 1)) - 1 : (Int128(1) << t.bits) - 1;
}

Int128 Wrap(IntType t, Int128 v) {
  if (t.bits == 1) return v != 0;  // conversion to _Bool tests for non-zero
  const Int128 m = Int128(1) << t.bits;
  Int128 r = v % m;
  if (r < 0) r += m;
  if (t.is_signed && r > MaxOf(t)) r -= m;
  return r;
}

Int128 ModularArithmetic(char op, Int128 a, Int128 b) {
  __extension__ typedef unsigned __int128 UInt128;  // wraps around: C++ defines its overflow
  const UInt128 x = static_cast<UInt128>(a), y = static_cast<UInt128>(b);
  return static_cast<Int128>(op == '+' ? x + y : op == '-' ? x - y : x * y);
}

std::optional<Int128> BoundedArithmetic(char op, Int128 a, Int128 b, Int128 limit) {
  Int128 r = 0;
  if (op != '*') {
    r = op == '+' ? a + b : a - b;  // within 2^127
  } else {
    const Int128 x = a < 0 ? -a : a, y = b < 0 ? -b : b;
    if (x != 0 && y > limit / x) return std::nullopt;
    r = a * b;
  }
  if (r > limit || r < -limit) return std::nullopt;
  return r;
}

std::string DecimalText(Int128 v) {
  if (v == 0) return "0";
  const bool neg = v < 0;
  std::string s;
  for (; v != 0; v /= 10) s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(neg ? -(v % 10) : v % 10)));
  return neg ? "-" + s : s;
}

std::optional<Int128> ParseDecimal(std::string_view text) {
  const size_t start = !text.empty() && text[0] == '-' ? 1 : 0;
  if (start == text.size() || text.size() - start > 38) return std::nullopt;
  Int128 v = 0;
  for (size_t i = start; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    v = v * 10 + (text[i] - '0');
  }
  return start ? -v : v;
}

std::string TypeName(IntType t) {
  if (t == kWide) return "__int128";
  std::string base;
  switch (t.bits) {
    case 1: return "_Bool";
    case 8: base = "char"; break;
    case 16: base = "short"; break;
    case 32: base = "int"; break;
    default: base = "long long"; break;
  }
  if (t.is_signed) return t.bits == 8 ? "signed char" : base;
  return "unsigned " + base;
}

IntType Promote(IntType t) { return t.bits < 32 ? kInt : t; }

IntType CommonType(IntType a, IntType b) {
  a = Promote(a);
  b = Promote(b);
  if (a.is_signed == b.is_signed) return a.bits >= b.bits ? a : b;
  const IntType u = a.is_signed ? b : a;
  const IntType s = a.is_signed ? a : b;
  if (u.bits >= s.bits) return u;
  return s;  // the wider signed type holds every value of the unsigned one
}

ExprPtr MakeConst(Int128 v, IntType t) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kConst;
  e->value = v;
  e->type = t;
  return e;
}

ExprPtr MakeVar(const std::string& name, IntType t) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kVar;
  e->name = name;
  e->type = t;
  return e;
}

ExprPtr MakeIndex(const std::string& array, IntType element, ExprPtr index) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kIndex;
  e->name = array;
  e->type = element;
  e->args = {std::move(index)};
  return e;
}

ExprPtr MakeUnary(const std::string& op, ExprPtr a, IntType t) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kUnary;
  e->op = op;
  e->type = t;
  e->args = {std::move(a)};
  return e;
}

ExprPtr MakeBinary(const std::string& op, ExprPtr a, ExprPtr b, IntType t) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kBinary;
  e->op = op;
  e->type = t;
  e->args = {std::move(a), std::move(b)};
  return e;
}

ExprPtr MakeTernary(ExprPtr c, ExprPtr a, ExprPtr b, IntType t) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kTernary;
  e->type = t;
  e->args = {std::move(c), std::move(a), std::move(b)};
  return e;
}

ExprPtr MakeCast(IntType t, ExprPtr a) {
  if (a->type == t) return a;
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCast;
  e->type = t;
  e->loc = a->loc;
  e->args = {std::move(a)};
  return e;
}

ExprPtr MakeNondet(IntType t) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kNondet;
  e->type = t;
  return e;
}

ExprPtr MakeCall(const std::string& procedure, std::vector<ExprPtr> args, IntType t) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCall;
  e->type = t;
  e->name = procedure;
  e->args = std::move(args);
  return e;
}

ExprPtr MakeNot(ExprPtr e) { return MakeUnary("!", std::move(e), kInt); }
ExprPtr MakeAnd(ExprPtr a, ExprPtr b) { return MakeBinary("&&", std::move(a), std::move(b), kInt); }
ExprPtr MakeOr(ExprPtr a, ExprPtr b) { return MakeBinary("||", std::move(a), std::move(b), kInt); }

bool SameExpr(const ExprPtr& a, const ExprPtr& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  if (a->kind != b->kind || !(a->type == b->type) || a->value != b->value || a->name != b->name ||
      a->op != b->op || a->args.size() != b->args.size()) {
    return false;
  }
  for (size_t i = 0; i < a->args.size(); ++i) {
    if (!SameExpr(a->args[i], b->args[i])) return false;
  }
  return true;
}

StmtPtr MakeBlock(std::vector<StmtPtr> body) {
  auto s = std::make_shared<Stmt>();
  s->kind = StmtKind::kBlock;
  s->body = std::move(body);
  return s;
}

StmtPtr MakeAssign(ExprPtr lhs, ExprPtr rhs) {
  auto s = std::make_shared<Stmt>();
  s->kind = StmtKind::kAssign;
  s->rhs = MakeCast(lhs->type, std::move(rhs));
  s->lhs = std::move(lhs);
  return s;
}

StmtPtr MakeHavoc(const std::string& name, ExprPtr size) {
  auto s = std::make_shared<Stmt>();
  s->kind = StmtKind::kHavoc;
  s->name = name;
  s->size = std::move(size);
  return s;
}

StmtPtr MakeAssume(ExprPtr cond) {
  auto s = std::make_shared<Stmt>();
  s->kind = StmtKind::kAssume;
  s->cond = std::move(cond);
  return s;
}

StmtPtr MakeAssert(ExprPtr cond) {
  auto s = std::make_shared<Stmt>();
  s->kind = StmtKind::kAssert;
  s->cond = std::move(cond);
  return s;
}

StmtPtr MakeError() { return MakeSimple(StmtKind::kError); }

StmtPtr MakeIf(ExprPtr cond, StmtPtr then_branch, StmtPtr else_branch) {
  auto s = std::make_shared<Stmt>();
  s->kind = StmtKind::kIf;
  s->cond = std::move(cond);
  s->body = {std::move(then_branch), else_branch ? std::move(else_branch) : MakeBlock({})};
  return s;
}

StmtPtr MakeLoop(ExprPtr cond, StmtPtr body, StmtPtr step, bool do_while) {
  auto s = std::make_shared<Stmt>();
  s->kind = StmtKind::kLoop;
  s->cond = std::move(cond);
  s->body = {std::move(body)};
  s->step = std::move(step);
  s->do_while = do_while;
  return s;
}

StmtPtr MakeSimple(StmtKind kind) {
  auto s = std::make_shared<Stmt>();
  s->kind = kind;
  return s;
}

const Var& Program::VarNamed(const std::string& name) const {
  const auto at = positions_.find(name);
  if (at != positions_.end() && at->second < vars.size() && vars[at->second].name == name) return vars[at->second];
  for (const Var& v : vars) {
    if (v.name == name) return v;
  }
  throw std::out_of_range("no variable " + name);
}

const Procedure& Program::ProcedureNamed(const std::string& name) const {
  for (const Procedure& p : procedures) {
    if (p.name == name) return p;
  }
  throw std::out_of_range("no procedure " + name);
}

std::string Program::AddVar(const std::string& base, IntType type, bool is_array) {
  // Testing each candidate against every variable took time cubic in the number of variables of one base
  // (10 000 inlined parameters `x`: a hang); positions_ and the next suffix of each base make it logarithmic.
  if (positions_.size() < vars.size()) {  // variables pushed without AddVar
    for (size_t k = 0; k < vars.size(); ++k) positions_.emplace(vars[k].name, k);
  }
  int& suffix = next_suffix_[base];
  std::string name = suffix == 0 ? base : base + "_" + std::to_string(suffix);
  while (positions_.count(name)) name = base + "_" + std::to_string(++suffix);
  ++suffix;
  positions_.emplace(name, vars.size());
  vars.push_back(Var{name, type, is_array});
  return name;
}

std::string Program::CellName(const std::string& array, Int128 index) const {
  std::vector<Int128> subscripts;
  const auto extents = row_extents.find(array);
  if (extents != row_extents.end() && index >= 0) {
    for (auto e = extents->second.rbegin(); e != extents->second.rend(); ++e) {
      subscripts.insert(subscripts.begin(), index % *e);
      index /= *e;
    }
  }
  subscripts.insert(subscripts.begin(), index);
  std::string name = array;
  for (const Int128 s : subscripts) name.append("[").append(DecimalText(s)).append("]");
  return name;
}

}  // namespace fusion
