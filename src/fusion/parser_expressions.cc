// The parser: expressions and C's conversions and operators.
#include "fusion/parser_state.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "fusion/errors.h"
#include "fusion/lexer.h"
#include "fusion/loop_ir.h"

namespace fusion::parsing {

ExprPtr Parser::AssignInExpression(const Token& op, ExprPtr target, const ExprPtr& rhs, bool postfix,
                                   const std::string& spelling) {
  if (!hoisted_) {
    FailUnsupported(file_, op.loc, "assignment inside an expression that no statement runs (the initialiser of a "
                                   "global or a static, a constant expression)");
  }
  if (target->kind == ExprKind::kVar && prog_.VarNamed(target->name).is_array) {
    FailUnsupported(file_, op.loc, "assignment to array '" + spelling + "' inside an expression");
  }
  std::vector<StmtPtr>& out = hoisted_->statements;
  const size_t begin = out.size();
  if (target->kind == ExprKind::kIndex && HasNondet(target->args[0])) {  // the cell is chosen once
    const ExprPtr index = FreshVar("index_" + target->name, kLongLong);
    out.push_back(MakeAssign(index, target->args[0]));
    target = MakeIndex(target->name, target->type, index);
  }
  ExprPtr value;
  if (postfix) {
    value = FreshVar("old_" + target->name, target->type);
    out.push_back(MakeAssign(value, target));
  }
  out.push_back(Store(op, target, rhs));
  if (!postfix) {
    if (const std::optional<Int128> c = FoldConstant(out.back()->rhs)) {
      value = MakeConst(*c, target->type);
    } else {
      value = FreshVar("new_" + target->name, target->type);
      out.push_back(MakeAssign(value, target));
    }
  }
  hoisted_->stores.push_back({target->name, spelling, begin, out.size(), op.loc});
  return value;
}

ExprPtr Parser::Arith(const std::string& op, ExprPtr a, ExprPtr b, Loc loc) {
  const IntType t = CommonType(a->type, b->type);
  auto e = std::const_pointer_cast<Expr>(MakeBinary(op, MakeCast(t, a), MakeCast(t, b), t));
  e->loc = loc;
  return e;
}

ExprPtr Parser::Shift(const Token& op, const ExprPtr& a, const ExprPtr& k) {
  const IntType t = Promote(a->type);
  if (const std::optional<Int128> amount = FoldConstant(k)) {
    if (*amount < 0 || *amount >= t.bits) {
      FailUnsupported(file_, op.loc, "shift '" + op.text + "' by a constant outside 0 to " +
                                         std::to_string(t.bits - 1) + " (undefined)");
    }
    return ShiftByConstant(op, a, static_cast<int>(*amount));
  }
  RequireCopyable(op, "shift '" + op.text + "' by a variable", {a, k});
  const ExprPtr amount = MakeCast(Promote(k->type), k);
  ExprPtr chain = MakeBinary("/", MakeCast(t, a), MakeConst(0, t), t);
  for (int n = t.bits - 1; n >= 0; --n) {
    chain = MakeTernary(Compare("==", amount, MakeConst(n, amount->type)), ShiftByConstant(op, a, n), chain, t);
  }
  return chain;
}

ExprPtr Parser::ShiftByConstant(const Token& op, const ExprPtr& a, int k) {
  const IntType t = Promote(a->type);
  const ExprPtr x = MakeCast(t, a);
  const ExprPtr power = MakeConst(Wrap(t, Int128(1) << k), t);
  if (op.text == "<<") return MakeBinary("*", x, power, t);
  if (!t.is_signed) return MakeBinary("/", x, power, t);
  const ExprPtr one = MakeConst(1, t);
  const ExprPtr nonnegative = Compare(">=", x, MakeConst(0, t));
  // 2^(bits-1) is no value of t: the sign is all that is left.
  if (k == t.bits - 1) return MakeTernary(nonnegative, MakeConst(0, t), MakeConst(-1, t), t);
  const ExprPtr below = MakeBinary(
      "-", MakeUnary("-", MakeBinary("/", MakeUnary("-", MakeBinary("+", x, one, t), t), power, t), t), one, t);
  return MakeTernary(nonnegative, MakeBinary("/", x, power, t), below, t);
}

size_t Parser::NodeCount(const ExprPtr& e, size_t limit) {
  size_t n = 1;
  for (const ExprPtr& arg : e->args) {
    if (n > limit) break;
    n += NodeCount(arg, limit - n);
  }
  return n;
}

void Parser::RequireCopyable(const Token& op, const std::string& what, std::initializer_list<ExprPtr> operands) {
  constexpr size_t kMaxCopiedNodes = 64;
  size_t nodes = 0;
  for (const ExprPtr& e : operands) {
    if (HasNondet(e)) FailUnsupported(file_, op.loc, what + " of an operand that reads an input");
    nodes += NodeCount(e, kMaxCopiedNodes);
  }
  if (nodes > kMaxCopiedNodes) {
    FailUnsupported(file_, op.loc, what + " of operands over " + std::to_string(kMaxCopiedNodes) + " nodes");
  }
}

ExprPtr Parser::Bitwise(const Token& op, const ExprPtr& a, const ExprPtr& b) {
  const IntType t = CommonType(a->type, b->type);
  const std::optional<Int128> b_value = FoldConstant(b);
  const std::optional<Int128> a_value = b_value ? std::nullopt : FoldConstant(a);
  if (!b_value && !a_value) return MakeBinary(op.text, MakeCast(t, a), MakeCast(t, b), t);
  const bool b_constant = b_value.has_value();
  const Int128 c = Wrap(t, b_constant ? *b_value : *a_value);
  const ExprPtr x = MakeCast(t, b_constant ? a : b);
  const Int128 all = t.is_signed ? Int128(-1) : MaxOf(t);
  if (c == 0) return op.text == "&" ? MakeConst(0, t) : x;
  if (c == all && op.text != "^") return op.text == "&" ? x : MakeConst(all, t);
  const Int128 limit = Int128(1) << (t.bits - 2);
  if (t.is_signed && (c < -limit || c >= limit)) {
    FailUnsupported(file_, op.loc, "bitwise operator '" + op.text + "' with a constant outside -2^" +
                                       std::to_string(t.bits - 2) + " to 2^" + std::to_string(t.bits - 2) +
                                       " - 1 (of a signed operand)");
  }
  // The runs of ones in the non-negative constant that x & c reduces to.
  const Int128 ones = c < 0 ? -c - 1 : c;
  std::vector<std::pair<int, int>> runs;
  for (int bit = 0; bit < t.bits; ++bit) {
    if (((ones >> bit) & 1) == 0) continue;
    if (!runs.empty() && runs.back().second == bit - 1) {
      runs.back().second = bit;
    } else {
      runs.push_back({bit, bit});
    }
  }
  const bool once = op.text == "&" && c > 0 && runs.size() == 1 && runs[0].first == 0;
  constexpr size_t kMaxRuns = 8;
  if (!once) RequireCopyable(op, "bitwise operator '" + op.text + "' (other than a mask of the low bits)", {x});
  if (runs.size() > kMaxRuns) {
    FailUnsupported(file_, op.loc, "bitwise operator '" + op.text + "' with a constant of over " +
                                       std::to_string(kMaxRuns) + " runs of ones");
  }
  // res(x, 2^k); x itself for 2^k beyond the type (unsigned only: a signed constant is below 2^(bits-2)).
  const auto residue = [&](int k) -> ExprPtr {
    if (k >= t.bits) return x;
    const ExprPtr power = MakeConst(Int128(1) << k, t);
    const ExprPtr r = MakeBinary("%", x, power, t);
    return t.is_signed ? MakeBinary("%", MakeBinary("+", r, power, t), power, t) : r;
  };
  ExprPtr masked;
  for (const auto& [lo, hi] : runs) {
    ExprPtr bits = residue(hi + 1);
    if (lo > 0) bits = MakeBinary("-", bits, residue(lo), t);
    masked = masked ? MakeBinary("+", masked, bits, t) : bits;
  }
  if (c < 0) masked = masked ? MakeBinary("-", x, masked, t) : x;  // c = -1 has all bits: x & -1 is x
  if (op.text == "&") return masked;
  const ExprPtr cleared = MakeBinary("-", x, masked, t);
  const ExprPtr constant = MakeConst(c, t);
  if (op.text == "|") return MakeBinary("+", cleared, constant, t);
  return MakeBinary("+", cleared, MakeBinary("-", constant, masked, t), t);
}

ExprPtr Parser::Compare(const std::string& op, ExprPtr a, ExprPtr b) {
  const IntType t = CommonType(a->type, b->type);
  return MakeBinary(op, MakeCast(t, a), MakeCast(t, b), kInt);
}

ExprPtr Parser::ParseCommaExpr() {
  const HoistedMark left = MarkHoisted();
  ExprPtr value = ParseExpr();
  while (Is(",")) {
    const Token comma = Next();
    if (!hoisted_) {
      FailUnsupported(file_, comma.loc, "comma operator inside an expression that no statement runs (the "
                                        "initialiser of a global or a static, a constant expression)");
    }
    if (HasNondet(value)) {  // the inputs it reads are read
      hoisted_->statements.push_back(MakeAssign(FreshVar("dropped", value->type), value));
    }
    Hoisted before_b;
    value = WithCallsHoisted(before_b, [&] { return ParseExpr(); });
    if (NeedsStatements(left, before_b, value)) {
      const ExprPtr b = FreshVar("comma", value->type);
      before_b.statements.push_back(MakeAssign(b, value));
      for (StmtPtr& st : before_b.statements) hoisted_->statements.push_back(std::move(st));
      SequenceAfter(left, {before_b});
      value = b;
    }
  }
  return value;
}

ExprPtr Parser::ParseExpr() {
  const Token t = Peek();
  const DepthGuard guard(*this, t.loc);
  const HoistedMark left = MarkHoisted();
  ExprPtr c = ParseBinary(0);
  if (Accept("?")) {
    Hoisted before_a, before_b;
    const ExprPtr a = WithCallsHoistedIf(before_a, [&] { return ParseExpr(); });
    Expect(":");
    const ExprPtr b = WithCallsHoistedIf(before_b, [&] { return ParseExpr(); });
    const IntType ty = CommonType(a->type, b->type);
    if (!NeedsStatements(left, before_a, a) && !NeedsStatements(left, before_b, b)) {
      return MakeTernary(c, MakeCast(ty, a), MakeCast(ty, b), ty);
    }
    // Only the branch that c chooses runs, with what it needs first.
    const ExprPtr value = FreshVar("choice", ty);
    before_a.statements.push_back(MakeAssign(value, a));
    before_b.statements.push_back(MakeAssign(value, b));
    hoisted_->statements.push_back(MakeIf(c, MakeBlock(before_a.statements), MakeBlock(before_b.statements)));
    SequenceAfter(left, {before_a, before_b});
    return value;
  }
  if (Peek().kind == TokKind::kPunct && kAssignmentOperators.count(Peek().text)) {
    const Token op = Next();
    if (op.text == "++" || op.text == "--") {
      FailSyntax(file_, op.loc, "lvalue required as operand of '" + op.text + "'");
    }
    const ExprPtr rhs = ParseExpr();
    return AssignInExpression(op, c, rhs, false, t.kind == TokKind::kIdent ? t.text : c->name);
  }
  return c;
}

ExprPtr Parser::ParseBinary(int min_prec) {
  const HoistedMark left = MarkHoisted();
  ExprPtr lhs = AtNullComparison(min_prec) ? ParseNullComparison()
                : AtPointerValue()         ? ParsePointerOperand(min_prec)
                                           : ParseUnary();
  // Each operator of a left-associative chain adds a level to the tree, as nesting does.
  for (int chain = 1; Peek().kind == TokKind::kPunct; ++chain) {
    const Token op = Peek();
    const int prec = BinaryPrecedence(op);
    if (prec == 0 || prec <= min_prec) break;
    if (depth_ + chain > kMaxDepth) FailTooDeep(op.loc);
    Next();
    if (op.text == "&&" || op.text == "||") {
      lhs = ShortCircuit(op.text, left, lhs, prec);
      continue;
    }
    ExprPtr rhs = ParseBinary(prec);
    if (lhs->type == kHeapRef || rhs->type == kHeapRef) {
      lhs = CompareHeapPointers(op, lhs, rhs);
    } else if (op.text == "<<" || op.text == ">>") {
      lhs = Shift(op, lhs, rhs);
    } else if (op.text == "&" || op.text == "|" || op.text == "^") {
      lhs = Bitwise(op, lhs, rhs);
    } else if (prec == 6 || prec == 7) {
      lhs = Compare(op.text, lhs, rhs);
    } else {
      lhs = Arith(op.text, lhs, rhs, op.loc);
    }
  }
  return lhs;
}

ExprPtr Parser::ShortCircuit(const std::string& op, const HoistedMark& left, const ExprPtr& a, int prec) {
  Hoisted before_b;
  const ExprPtr b = WithCallsHoistedIf(before_b, [&] { return ParseBinary(prec); });
  if (!NeedsStatements(left, before_b, b)) return op == "&&" ? MakeAnd(a, b) : MakeOr(a, b);
  const ExprPtr truth = FreshVar("truth", kInt);
  hoisted_->statements.push_back(MakeAssign(truth, MakeNot(MakeNot(a))));
  before_b.statements.push_back(MakeAssign(truth, MakeNot(MakeNot(b))));
  const StmtPtr evaluate_b = MakeBlock(before_b.statements);
  hoisted_->statements.push_back(op == "&&" ? MakeIf(truth, evaluate_b) : MakeIf(MakeNot(truth), evaluate_b));
  SequenceAfter(left, {before_b});
  return truth;
}

Parser::HoistedMark Parser::MarkHoisted() const {
  return hoisted_ ? HoistedMark{hoisted_->statements.size(), hoisted_->stores.size()} : HoistedMark{};
}

bool Parser::NeedsStatements(const HoistedMark& left, const Hoisted& before, const ExprPtr& e) const {
  if (!before.statements.empty()) return true;
  if (!hoisted_) return false;
  const std::set<std::string> read = Mentions(e);
  for (size_t k = left.stores; k < hoisted_->stores.size(); ++k) {
    if (read.count(hoisted_->stores[k].var)) return true;
  }
  return false;
}

void Parser::SequenceAfter(const HoistedMark& left, const std::vector<Hoisted>& later) {
  const size_t end = hoisted_->statements.size();
  for (size_t k = left.stores; k < hoisted_->stores.size(); ++k) hoisted_->stores[k].end = end;
  for (const Hoisted& operand : later) {
    for (Hoisted::Store store : operand.stores) {
      store.begin = left.statements;
      store.end = end;
      hoisted_->stores.push_back(store);
    }
  }
}

ExprPtr Parser::ParseUnary(bool postfix_assignments) {
  const Token t = Peek();
  const DepthGuard guard(*this, t.loc);
  if (Accept("-")) {
    ExprPtr a = ParseUnary();
    const IntType ty = Promote(a->type);
    if (const std::optional<Int128> v = FoldConstant(a)) return MakeConst(Wrap(ty, -*v), ty);
    return MakeUnary("-", MakeCast(ty, a), ty);
  }
  if (Accept("+")) {
    ExprPtr a = ParseUnary();
    return MakeCast(Promote(a->type), a);
  }
  if (Accept("!")) {
    if (const std::string target = PointerTargetAt(0); !target.empty()) {  // `!p`: a pointer is never null
      RequireAllocated(target, Next().loc);
      return MakeConst(0);
    }
    return MakeNot(ParseUnary());
  }
  if (Accept("~")) {
    // Two's complement: ~a is -a - 1, or the largest value less a for an unsigned a.
    ExprPtr a = ParseUnary();
    const IntType ty = Promote(a->type);
    const ExprPtr x = MakeCast(ty, a);
    if (const std::optional<Int128> v = FoldConstant(a)) return MakeConst(Wrap(ty, -*v - 1), ty);
    if (!ty.is_signed) return MakeBinary("-", MakeConst(MaxOf(ty), ty), x, ty);
    return MakeBinary("-", MakeUnary("-", x, ty), MakeConst(1, ty), ty);
  }
  if (Is("*") && AtHeapPointer(1)) return DereferenceHeap();
  if (Is("*") && Peek(1).kind == TokKind::kIdent && !Is("(", 2)) {
    if (const ExprPtr target = Dereference(Peek(1))) return target;
  }
  if (Is("*") && (Is("++", 1) || Is("--", 1)) && CursorNamed(Peek(2).text)) {  // `*--p`: p moved, then its cell
    const Binding cursor = *CursorNamed(Peek(2).text);  // a copy: the move adds variables
    Next();
    const Token op = Next();
    const Token name = Next();
    const ExprPtr index = MakeVar(cursor.cell_index, kLongLong);
    const ExprPtr cell = AssignInExpression(op, index, MakeConst(1), false, name.text);
    return MakeIndex(cursor.var, prog_.VarNamed(cursor.var).type, cell);
  }
  if (Is("*") && Is("(", 1) && AtPointerValue(1)) {  // `*(p + 1)`, `*(a + i)`; not what follows the ')'
    Next();
    Next();
    const PointerValue pointer = ParsePointerValue();
    Expect(")");
    return MakeIndex(pointer.array, prog_.VarNamed(pointer.array).type, pointer.index);
  }
  if (const Binding* object = Is("&") ? ObjectAt(1) : nullptr) {  // `&s`, `&x`: its object's number
    Next();
    Next();
    return MakeVar(object->object, kHeapRef);
  }
  if (Is("&") || Is("*")) FailUnsupported(file_, t.loc, "operator '" + t.text + "'");
  if (Is("++") || Is("--")) {
    const Token op = Next();
    const Token operand = Peek();
    ExprPtr target = ParseUnary();
    return AssignInExpression(op, target, MakeConst(1), false,
                              operand.kind == TokKind::kIdent ? operand.text : target->name);
  }
  if (Accept("sizeof")) return ParseSizeof(t.loc);
  if (Is("(") && IsTypeStart(1)) {  // a cast
    Next();
    auto spec = ParseSpecifiers(false);
    if (Is("*") || (spec && spec->pointers > 0)) return ParsePointerCast(spec);
    Expect(")");
    ExprPtr a = ParseUnary();
    if (!spec || spec->is_void || !spec->record_tag.empty()) FailUnsupported(file_, t.loc, "cast");
    return MakeCast(spec->type, a);
  }
  return ParsePostfix(postfix_assignments);
}

ExprPtr Parser::ParsePointerCast(const std::optional<ParsedType>& spec) {
  const Token star = Peek();
  int pointers = spec ? spec->pointers : 0;
  while (Accept("*")) ++pointers;
  Expect(")");
  const ExprPtr operand = ParseUnary();
  if (operand->type != kHeapRef && FoldConstant(operand) == Int128{0}) return MakeConst(0, kHeapRef);
  const std::optional<Pointee> pointee = operand->type == kHeapRef ? PointeeOf(operand) : std::nullopt;
  if (!spec || pointers != 1 || !pointee) FailUnsupported(file_, star.loc, "pointer cast");
  if (!spec->is_void && !(*pointee == Pointee{spec->record_tag, spec->record_tag.empty() ? spec->type : kInt})) {
    FailUnsupported(file_, star.loc, "cast of a pointer to " + PointeeName(*pointee) + " to another pointer type");
  }
  return operand;
}

ExprPtr Parser::Dereference(const Token& name) {
  const Binding* b = FindBinding(name.text);
  if (b && b->points_to_var && b->var.empty()) {
    FailUnsupported(file_, name.loc, "pointer '" + name.text + "' read before an assignment points it into an array");
  }
  if (!b || b->var.empty() || (!b->refused.empty() && !b->points_to_var)) return nullptr;
  const Var v = prog_.VarNamed(b->var);  // a copy: moving the pointer adds variables
  if (!b->points_to_var && (!v.is_array || inner_extents_.count(v.name))) return nullptr;  // `*a` of a row
  Next();
  Next();
  const bool cursor = b->points_to_var && !b->cell_index.empty();
  if (cursor && (Is("++") || Is("--"))) {
    const Token op = Next();
    const ExprPtr old = AssignInExpression(op, MakeVar(b->cell_index, kLongLong), MakeConst(1), true, name.text);
    return MakeIndex(v.name, v.type, old);
  }
  if (Is("++") || Is("--") || Is("[")) {
    FailUnsupported(file_, Peek().loc, "pointer arithmetic on '" + name.text + "'");
  }
  if (b->points_to_var && !cursor) return MakeVar(v.name, v.type);
  return MakeIndex(v.name, v.type, cursor ? CellIndex(*b) : MakeConst(0, kLongLong));
}

const Binding* Parser::ObjectAt(int k) const {
  if (Peek(k).kind != TokKind::kIdent || Is(".", k + 1) || Is("[", k + 1) || Is("->", k + 1)) return nullptr;
  const Binding* b = FindBinding(Peek(k).text);
  return b && !b->object.empty() ? b : nullptr;
}

bool Parser::AtDereferencedMember() const { return Is("(") && Is("*", 1) && Is(".", AfterGroup(0)); }

int Parser::AfterGroup(int k) const {
  for (int depth = 0; Peek(k).kind != TokKind::kEnd; ++k) {
    if (Is("(", k) || Is("[", k)) ++depth;
    if ((Is(")", k) || Is("]", k)) && --depth == 0) return k + 1;
  }
  return k;
}

ExprPtr Parser::ParsePostfix(bool postfix_assignments) {
  const Token t = Peek();
  const Binding* b = t.kind == TokKind::kIdent && !Is("(", 1) ? FindBinding(t.text) : nullptr;
  ExprPtr e;
  if (b && b->record && !b->object.empty()) {  // `s.m` of a struct variable on the heap: its object's member
    Next();
    if (!Is(".")) FailUnsupported(file_, t.loc, "use of struct '" + t.text + "' as a whole (only its members)");
    e = HeapMember(MakeVar(b->object, kHeapRef));
  } else if (b && b->record) {
    e = ParseMemberAccess(*b->record);
  } else if (const Binding* cursor = Is("[", 1) ? CursorNamed(t.text) : nullptr) {  // `p[i]`: a cell of p's array
    const Var array = prog_.VarNamed(cursor->var);
    const ExprPtr cell = MakeVar(cursor->cell_index, kLongLong);
    Next();
    Next();
    const ExprPtr offset = MakeCast(kLongLong, ParseExpr());
    Expect("]");
    e = MakeIndex(array.name, array.type, MakeBinary("+", cell, offset, kLongLong));
  } else if (AtDereferencedMember()) {  // `(*p).m`, the longhand of `p->m`
    Next();
    Next();
    const ExprPtr pointer = ParseUnary();
    Expect(")");
    e = HeapMember(pointer);
  } else {
    e = ParsePrimary();
  }
  while (Is("[") || Is("->")) {
    if (Is("->")) {
      e = HeapMember(e);
      continue;
    }
    const Token br = Next();
    if (e->kind != ExprKind::kVar || !prog_.VarNamed(e->name).is_array) {
      FailUnsupported(file_, br.loc, "indexing of a non-array");
    }
    ExprPtr index = MakeCast(kLongLong, ParseExpr());
    Expect("]");
    const auto inner = inner_extents_.find(e->name);
    for (const ExprPtr& extent : inner == inner_extents_.end() ? std::vector<ExprPtr>{} : inner->second) {
      if (!Accept("[")) {
        FailUnsupported(file_, t.loc, "part of the multi-dimensional array '" + t.text + "' as a value");
      }
      index = MakeBinary("+", MakeBinary("*", index, extent, kLongLong), MakeCast(kLongLong, ParseExpr()), kLongLong);
      Expect("]");
    }
    e = MakeIndex(e->name, e->type, index);
  }
  if (e->kind == ExprKind::kVar && prog_.VarNamed(e->name).is_array && !Is("=")) {
    FailUnsupported(file_, t.loc, "use of array '" + t.text + "' as a value");
  }
  if (postfix_assignments && (Is("++") || Is("--"))) {
    const Token op = Next();
    return AssignInExpression(op, e, MakeConst(1), true, t.kind == TokKind::kIdent ? t.text : e->name);
  }
  return e;
}

ExprPtr Parser::ParseMemberAccess(const Record& record) {
  const Token t = Next();
  ExprPtr index;
  if (record.members.empty()) FailUnsupported(file_, t.loc, "use of '" + t.text + "', a struct without members");
  if (Accept("[")) {
    index = MakeCast(kLongLong, ParseExpr());
    Expect("]");
  }
  std::string path;
  while (true) {
    const Token dot = Peek();
    if (!Accept(".")) {
      if (dot.text == "->") FailUnsupported(file_, dot.loc, "operator '->' (pointers)");
      FailUnsupported(file_, t.loc, "use of struct '" + t.text + "' as a whole (only its members)");
    }
    const Token member = Peek();
    if (!path.empty()) path += '.';
    path += ExpectIdent();
    const auto named = [&](const auto& m) { return m.first == path || m.first.rfind(path + ".", 0) == 0; };
    if (std::none_of(record.members.begin(), record.members.end(), named)) {
      FailSyntax(file_, member.loc, "no member named '" + path + "' in " + record.name);
    }
    if (const Binding* b = FindBinding(t.text + "." + path)) {
      const Var& v = prog_.VarNamed(b->var);
      if (v.is_array != static_cast<bool>(index)) {
        FailUnsupported(file_, t.loc, v.is_array ? "use of array of structs '" + t.text + "' without an index"
                                                 : "indexing of a non-array");
      }
      auto e = std::const_pointer_cast<Expr>(index ? MakeIndex(v.name, v.type, index) : MakeVar(v.name, v.type));
      e->loc = t.loc;
      return e;
    }
  }
}

ExprPtr Parser::ParsePrimary() {
  const Token t = Next();
  ExprPtr e;
  if (t.kind == TokKind::kNumber) {
    e = Number(t);
  } else if (t.kind == TokKind::kChar) {
    e = CharLiteral(t);
  } else if (t.kind == TokKind::kString) {  // `assert(x > 0 && "x is positive")`: as a truth value, true
    const Token before = toks_[pos_ >= 2 ? pos_ - 2 : 0];
    while (Peek().kind == TokKind::kString) Next();
    if (!IsTruthOperand(before, Peek())) FailUnsupported(file_, t.loc, "string literal as a value");
    e = MakeConst(1);
  } else if (t.kind == TokKind::kIdent) {
    if (Is("(")) {
      Next();
      if (functions_.count(t.text)) return ParseExpressionCall(t);
      if (t.text.rfind("__VERIFIER_nondet_", 0) != 0) {
        FailUnsupported(file_, t.loc, "call of '" + t.text + "' in an expression");
      }
      Expect(")");
      e = MakeNondet(NondetType(t));
    } else if (const Binding* b = FindBinding(t.text); b && b->enumerator) {
      e = MakeConst(*b->enumerator, kInt);
    } else if (b && !b->record && !b->object.empty()) {  // an integer variable on the heap: its object
      e = IntegerOfObject(*b);
    } else {
      const Var& v = Lookup(t);
      e = MakeVar(v.name, v.type);
    }
  } else if (t.text == "(") {
    e = ParseCommaExpr();
    Expect(")");
    return e;
  } else {
    FailSyntax(file_, t.loc, "expected an expression before '" + t.text + "'");
  }
  auto located = std::const_pointer_cast<Expr>(e);
  located->loc = t.loc;
  return e;
}

IntType Parser::NondetType(const Token& t) {
  static const std::map<std::string, IntType> kTypes = {
      {"int", kInt},         {"uint", kUnsigned},      {"unsigned", kUnsigned},  {"char", {8, true}},
      {"uchar", {8, false}}, {"short", {16, true}},    {"ushort", {16, false}},  {"longlong", {64, true}},
      {"ulonglong", {64, false}}, {"bool", {1, false}}, {"_Bool", {1, false}},   {"unsigned_int", kUnsigned},
      {"unsigned_char", {8, false}}, {"unsigned_short", {16, false}}, {"unsigned_longlong", {64, false}}};
  const std::string suffix = t.text.substr(std::string("__VERIFIER_nondet_").size());
  if (suffix == "long") return {long_bits_, true};
  if (suffix == "ulong" || suffix == "unsigned_long" || suffix == "size_t") return {long_bits_, false};
  auto it = kTypes.find(suffix);
  if (it == kTypes.end()) FailUnsupported(file_, t.loc, "nondeterministic type of '" + t.text + "'");
  return it->second;
}

ExprPtr Parser::Number(const Token& t) {
  const IntegerLiteral lit = ReadIntegerLiteral(file_, t);
  const bool may_be_unsigned = lit.is_unsigned || !lit.decimal;
  // C's rule: the first type that holds the value (hex and octal may also be unsigned). A long of 32 bits
  // (ILP32) holds what an int holds.
  std::vector<IntType> candidates;
  if (lit.longs == 0 || (lit.longs == 1 && long_bits_ == 32)) {
    if (!lit.is_unsigned) candidates.push_back(kInt);
    if (may_be_unsigned) candidates.push_back(kUnsigned);
  }
  if (!lit.is_unsigned) candidates.push_back(kLongLong);
  if (may_be_unsigned) candidates.push_back(kUnsignedLong);
  for (IntType c : candidates) {
    if (lit.value <= MaxOf(c)) return MakeConst(lit.value, c);
  }
  FailUnsupported(file_, t.loc, "number '" + t.text + "' (too large)");
}

bool Parser::IsTruthOperand(const Token& before, const Token& after) {
  const auto is = [](const Token& t, std::initializer_list<const char*> texts) {
    const auto same = [&](const char* x) { return t.text == x; };
    return t.kind == TokKind::kPunct && std::any_of(texts.begin(), texts.end(), same);
  };
  if (is(before, {"!"})) return true;
  if (is(before, {"&&", "||"}) && is(after, {"&&", "||", ")", ";", ",", "?", ":"})) return true;
  return is(after, {"&&", "||"}) && (is(before, {"(", "&&", "||", "=", ","}) || before.text == "return");
}

ExprPtr Parser::CharLiteral(const Token& t) {
  const size_t quote = t.text.find('\'');
  const std::string prefix = t.text.substr(0, quote);
  const std::string body = t.text.substr(quote + 1, t.text.size() - quote - 2);
  if (body.empty()) FailSyntax(file_, t.loc, "empty character literal");
  size_t used = 0;
  const Int128 code = CharacterCode(t, body, used);
  if (used != body.size()) FailUnsupported(file_, t.loc, "character literal " + t.text);
  if (prefix.empty()) return MakeConst(code > 127 ? code - 256 : code, kInt);
  if ((body[0] != '\\' && code > 127) || prefix == "u8") {
    FailUnsupported(file_, t.loc, "character literal " + t.text);
  }
  return MakeConst(code, prefix == "L" ? kInt : prefix == "u" ? IntType{16, false} : kUnsigned);
}

Int128 Parser::CharacterCode(const Token& t, const std::string& body, size_t& at) {
  const auto refuse = [&] {
    FailUnsupported(file_, t.loc, (t.kind == TokKind::kString ? "string literal " : "character literal ") + t.text);
  };
  Int128 code = 0;
  if (body[at] != '\\') {
    code = static_cast<unsigned char>(body[at++]);
  } else if (at + 1 >= body.size()) {
    refuse();
  } else if (body[at + 1] == 'x') {
    const size_t digits = at += 2;
    while (at < body.size() && std::isxdigit(static_cast<unsigned char>(body[at])) && code <= 255) {
      code = code * 16 + std::stoi(body.substr(at++, 1), nullptr, 16);
    }
    if (at == digits) FailSyntax(file_, t.loc, "\\x without hexadecimal digits in " + t.text);
  } else if (body[at + 1] >= '0' && body[at + 1] <= '7') {
    const size_t digits = ++at;
    for (; at < body.size() && at < digits + 3 && body[at] >= '0' && body[at] <= '7'; ++at) {
      code = code * 8 + (body[at] - '0');
    }
  } else {
    static const std::map<char, int> kEscapes = {{'n', 10}, {'t', 9},   {'r', 13},  {'\\', 92}, {'\'', 39}, {'"', 34},
                                                 {'a', 7},  {'b', 8},   {'f', 12},  {'v', 11},  {'?', 63}};
    const auto it = kEscapes.find(body[at + 1]);
    if (it == kEscapes.end()) refuse();
    code = it->second;
    at += 2;
  }
  if (code > 255) refuse();
  return code;
}

}  // namespace fusion::parsing
