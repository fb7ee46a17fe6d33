// The parser: pointers into arrays (cursors), addresses, and comparisons with null.
#include "fusion/parser_state.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "fusion/errors.h"
#include "fusion/lexer.h"

namespace fusion::parsing {

ExprPtr Parser::CellIndex(const Binding& b) const { return MakeVar(b.cell_index, prog_.VarNamed(b.cell_index).type); }

Parser::Address Parser::ParseAddress(const char* end, const char* where) {
  const Token amp = Next();
  const ExprPtr target = ParsePostfix(false);  // a variable, a struct's member, or a cell
  const bool scalar = target->kind == ExprKind::kVar && !prog_.VarNamed(target->name).is_array;
  if (!(Is(",") || Is(end)) || (target->kind != ExprKind::kIndex && !scalar)) {
    FailUnsupported(file_, amp.loc, std::string("operator '&' (only '&v' and '&a[i]' as ") + where + ")");
  }
  return {target->name, scalar ? target : target->args[0]};
}

std::optional<Var> Parser::BindPointer(const std::string& name, Loc loc, const std::string& pointee) {
  const Var& target = prog_.VarNamed(pointee);
  if (scopes_.back().count(name)) FailSyntax(file_, loc, "redefinition of '" + name + "'");
  const std::string refused =
      target.is_array ? "pointer into an array (only '*" + name + "', '" + name + "[i]', moving it within the "
                            "array, and comparing and subtracting pointers into the same array)"
                      : "pointer (only '*" + name + "' reads and writes what it points to)";
  Binding binding{pointee, nullptr, refused, std::nullopt, std::nullopt, true, ""};
  std::optional<Var> cell;
  if (target.is_array) {  // the index of a member's cell on the heap is an object's number
    const IntType index = IsHeapField(pointee) ? kHeapRef : kLongLong;
    cell = Var{binding.cell_index = prog_.AddVar("cell_" + name, index), index};
  }
  scopes_.back()[name] = std::move(binding);
  return cell;
}

const Binding* Parser::CursorNamed(const std::string& name) const {
  const Binding* b = FindBinding(name);
  return b && b->points_to_var && !b->cell_index.empty() && !b->var.empty() ? b : nullptr;
}

bool Parser::AssignedAPointerLater(const std::string& name) const {
  const int end = static_cast<int>(EndOfBlock() - pos_);
  for (int k = 0; k < end; ++k) {
    if (Peek(k).kind != TokKind::kIdent || Peek(k).text != name || !Is("=", k + 1)) continue;
    if (k > 0 && (Is("*", k - 1) || Is(".", k - 1) || Is("->", k - 1))) continue;
    return !AtAllocation(k + 2);
  }
  return false;
}

bool Parser::AtAllocation(int k) const {
  return (Peek(k).kind == TokKind::kIdent && IsAllocator(Peek(k).text)) || (Is("(", k) && IsTypeStart(k + 1));
}

size_t Parser::EndOfBlock() const {
  size_t end = pos_;
  for (int depth = 0; end < toks_.size() && toks_[end].kind != TokKind::kEnd; ++end) {
    if (toks_[end].text == "{") ++depth;
    if (toks_[end].text == "}" && --depth < 0) break;
  }
  return end;
}

Parser::PointerValue Parser::ParsePointerFor(const std::string& name, IntType type) {
  const Token at = Peek();
  if (!AtPointerValue()) {
    FailUnsupported(file_, at.loc, "value of pointer '" + name + "' (only a pointer into an array)");
  }
  const PointerValue value = ParsePointerValue();
  if (!(prog_.VarNamed(value.array).type == type)) {
    FailUnsupported(file_, at.loc, "pointer '" + name + "' given a pointer into an array of another type");
  }
  return value;
}

StmtPtr Parser::PointCursor(const std::string& name, const Token& at, IntType type) {
  StmtPtr inlined;
  PointerValue value;
  if (AtInlinedCall()) {  // `p = find(a, n, k);`
    std::tie(inlined, value) = ParsePointerCall(name, type);
  } else {
    value = ParsePointerFor(name, type);
  }
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    const auto found = it->find(name);
    if (found == it->end()) continue;
    found->second.var = value.array;
    const StmtPtr point = MakeAssign(MakeVar(found->second.cell_index, kLongLong), value.index);
    return inlined ? MakeBlock({inlined, point}) : point;
  }
  FailSyntax(file_, at.loc, "use of undeclared identifier '" + name + "'");
}

void Parser::DeclareUnpointed(const Token& name_tok, IntType type) {
  const std::string& name = name_tok.text;
  if (scopes_.back().count(name)) FailSyntax(file_, name_tok.loc, "redefinition of '" + name + "'");
  const std::string cell = prog_.AddVar("cell_" + name, kLongLong);
  const std::string refused = "pointer into an array (only '*" + name + "', '" + name + "[i]', moving it "
                              "within the array it was first given, and comparing and subtracting pointers "
                              "into the same array)";
  scopes_.back()[name] = Binding{"", nullptr, refused, std::nullopt, std::nullopt, true, cell};
  pointee_types_[cell] = type;
}

bool Parser::AtPointerInitialiser(int k, bool calls) const {
  return AtPointerValue(k) || Peek(k).kind == TokKind::kString ||
         (calls && Peek(k).kind == TokKind::kIdent && functions_.count(Peek(k).text));
}

std::vector<StmtPtr> Parser::DeclarePointerInto(const Token& name_tok, IntType type) {
  const Token at = Peek();
  std::vector<StmtPtr> out;
  PointerValue value;
  if (at.kind == TokKind::kString) {
    if (type.bits != 8) {
      FailUnsupported(file_, at.loc, "pointer '" + name_tok.text + "' to a string literal, not a pointer to char");
    }
    const std::string hidden = "\"" + name_tok.text;  // no C identifier has a quote
    out = DeclareArray(hidden, "string_" + name_tok.text, type, at.loc, nullptr, ParseStringCells(type), true,
                       false);
    value = {scopes_.back().at(hidden).var, MakeConst(0, kLongLong), at.loc};
  } else if (AtPointerValue()) {
    value = ParsePointerFor(name_tok.text, type);
  } else {  // `int *r = find(a, n, k);`
    if (!AtInlinedCall()) {
      FailUnsupported(file_, at.loc, "value of pointer '" + name_tok.text + "' (a call and more)");
    }
    StmtPtr inlined;
    std::tie(inlined, value) = ParsePointerCall(name_tok.text, type);
    out.push_back(inlined);
  }
  const std::optional<Var> cell = BindPointer(name_tok.text, name_tok.loc, value.array);
  out.push_back(MakeAssign(MakeVar(cell->name, cell->type), value.index));
  return out;
}

int Parser::NullPointerAt(int k, int nesting) const {
  const Token& t = Peek(k);
  if ((t.kind == TokKind::kNumber && t.text == "0") || (t.text == "NULL" && !FindBinding("NULL"))) return 1;
  if (!Is("(", k) || nesting == 4) return 0;
  if (const int inner = NullPointerAt(k + 1, nesting + 1); inner > 0 && Is(")", k + 1 + inner)) return inner + 2;
  if (!IsTypeStart(k + 1)) return 0;
  int close = k + 1;
  while (Peek(close).kind == TokKind::kIdent || Is("*", close)) ++close;
  if (!Is("*", close - 1) || !Is(")", close)) return 0;
  const int value = NullPointerAt(close + 1, nesting + 1);
  return value > 0 ? close + 1 + value - k : 0;
}

bool Parser::AtNullComparison(int min_prec) const {
  const int n = NullPointerAt(0);
  return n > 0 && (Is("==", n) || Is("!=", n)) && BinaryPrecedence(Peek(n)) > min_prec && AtPointerValue(n + 1);
}

ExprPtr Parser::ParseNullComparison() {
  for (int n = NullPointerAt(0); n > 0; --n) Next();
  const Token op = Next();
  RequireAllocated(ParsePointerValue().array, op.loc);
  return MakeConst(op.text == "!=" ? 1 : 0);
}

void Parser::RequireAllocated(const std::string& array, Loc at) const {
  if (maybe_null_.count(array)) {
    FailUnsupported(file_, at, "comparison with null of '" + prog_.VarNamed(array).name + "', a pointer declared "
                               "without a value (null until something is allocated for it)");
  }
}

ExprPtr Parser::ParseCondition(Hoisted& hoisted) {
  const std::string target = PointerTargetAt(0);
  if (target.empty() || !Is(")", 1)) return WithCallsHoisted(hoisted, [&] { return ParseCommaExpr(); });
  RequireAllocated(target, Next().loc);
  return MakeConst(1);
}

std::string Parser::PointerTargetAt(int k) const {
  const Token& t = Peek(k);
  const Token& after = Peek(k + 1);
  if (t.kind != TokKind::kIdent || Is("(", k + 1) || Is("[", k + 1)) return "";
  if (after.kind == TokKind::kPunct && kAssignmentOperators.count(after.text)) return "";  // refused elsewhere
  if (const Binding* b = CursorNamed(t.text)) return b->var;
  const Binding* b = FindBinding(t.text);
  if (!b || b->var.empty() || !b->refused.empty() || b->record) return "";
  const Var& v = prog_.VarNamed(b->var);
  return v.is_array && !inner_extents_.count(v.name) ? v.name : "";
}

bool Parser::AtPointerValue(int k, bool parenthesised, int nesting) const {
  if (Is("(", k)) {  // a few parentheses at most: the lookahead scans to each one's ')'
    int inner = k;
    while (Is("(", inner) && inner - k < 4) ++inner;
    if (!parenthesised || !AtPointerValue(inner, false)) return false;
    for (int open = inner - 1; open >= k; --open) {
      if (!OffsetsAloneUntilClose(open + 1, nesting)) return false;
    }
    return true;
  }
  if (Is("&", k)) {  // `&a[i]`, `&p[i]`
    const Binding* b = Peek(k + 1).kind == TokKind::kIdent ? FindBinding(Peek(k + 1).text) : nullptr;
    const bool array = b && !b->var.empty() && b->refused.empty() && prog_.VarNamed(b->var).is_array;
    return (array || CursorNamed(Peek(k + 1).text)) && Is("[", k + 2);
  }
  return !PointerTargetAt(k).empty();
}

bool Parser::OffsetsAloneUntilClose(int k, int nesting) const {
  constexpr int kAdditive = 9;  // the precedence of + and - (BinaryPrecedence)
  for (int depth = 0;; ++k) {
    const Token& t = Peek(k);
    if (t.kind == TokKind::kEnd) return false;
    if (t.kind != TokKind::kPunct) continue;
    if (t.text == "(" || t.text == "[") ++depth;
    if ((t.text == ")" || t.text == "]") && --depth < 0) return true;
    if (depth > 0) continue;
    const int precedence = BinaryPrecedence(t);
    if ((precedence > 0 && precedence < kAdditive) ||
        (t.text == "-" && ((Is("(", k + 1) && nesting >= 4) || AtPointerValue(k + 1, true, nesting + 1))) ||
        t.text == "?" || t.text == ":" || t.text == "," ||
        (kAssignmentOperators.count(t.text) && t.text != "++" && t.text != "--")) {
      return false;
    }
  }
}

Parser::PointerValue Parser::ParsePointerValue(bool with_offsets) {
  const Token start = Peek();
  PointerValue value;
  if (Accept("(")) {
    value = ParsePointerValue();
    Expect(")");
  } else if (Accept("&")) {
    const ExprPtr cell = ParsePostfix(false);
    value = {cell->name, cell->args[0], start.loc};
  } else {
    const std::string array = PointerTargetAt(0);
    const Token name = Next();
    const Binding* cursor = CursorNamed(name.text);
    value = {array, cursor ? MakeVar(cursor->cell_index, kLongLong) : MakeConst(0, kLongLong), name.loc};
    if (Is("++") || Is("--")) {
      FailUnsupported(file_, Peek().loc, "'" + Peek().text + "' of pointer '" + name.text + "' inside an expression");
    }
  }
  while (with_offsets && (Is("+") || Is("-")) && !(Is("-") && AtPointerValue(1))) {
    const Token op = Next();
    const ExprPtr offset = MakeCast(kLongLong, ParseBinary(BinaryPrecedence(op)));
    value.index = MakeBinary(op.text, value.index, offset, kLongLong);
  }
  return value;
}

Parser::PointerValue Parser::ParsePointerInto(const std::string& array, const std::string& name) {
  const Token t = Peek();
  if (!AtPointerValue()) {
    FailUnsupported(file_, t.loc, "value of pointer '" + name + "' (only a pointer into its array, as '" +
                                      prog_.VarNamed(array).name + " + i' or '&" + prog_.VarNamed(array).name +
                                      "[i]')");
  }
  PointerValue value = ParsePointerValue();
  if (value.array != array) FailUnsupported(file_, t.loc, "pointer '" + name + "' moved to another array");
  return value;
}

ExprPtr Parser::ParsePointerOperand(int min_prec) {
  const PointerValue left = ParsePointerValue();
  const Token op = Peek();
  const bool binds = op.kind == TokKind::kPunct && BinaryPrecedence(op) > min_prec;
  if (binds && (op.text == "==" || op.text == "!=") && NullPointerAt(1) > 0) {  // `p == NULL`
    RequireAllocated(left.array, op.loc);
    for (int n = NullPointerAt(1) + 1; n > 0; --n) Next();
    return MakeConst(op.text == "!=" ? 1 : 0);
  }
  if (binds && (op.text == "&&" || op.text == "||")) {  // `p && p[0] > 0`: p as a truth value
    RequireAllocated(left.array, left.loc);
    return MakeConst(1);
  }
  const bool compare = op.kind == TokKind::kPunct && (BinaryPrecedence(op) == 6 || BinaryPrecedence(op) == 7);
  if ((!compare && op.text != "-") || BinaryPrecedence(op) <= min_prec) {
    FailUnsupported(file_, left.loc, "use of a pointer into '" + prog_.VarNamed(left.array).name +
                                         "' as a value (only '*p', 'p[i]', and comparing and subtracting "
                                         "pointers into the same array)");
  }
  Next();
  if (!AtPointerValue()) FailUnsupported(file_, op.loc, "operator '" + op.text + "' of a pointer and an integer");
  // `p - a - 1` is `(p - a) - 1`: the subtracted pointer is a term alone, and what follows it applies to the
  // difference (a compared pointer takes its offsets: `p < a + n`).
  const PointerValue right = ParsePointerValue(compare);
  if (right.array != left.array) {
    FailUnsupported(file_, op.loc, "operator '" + op.text + "' of pointers into different arrays");
  }
  if (compare) return Compare(op.text, left.index, right.index);
  const IntType ptrdiff{long_bits_, true};
  return MakeCast(ptrdiff, MakeBinary("-", left.index, right.index, kLongLong));
}

StmtPtr Parser::MoveCursor(Binding cursor, const std::string& name, const Token& op) {
  const ExprPtr cell = MakeVar(cursor.cell_index, kLongLong);
  if (op.text == "=" && AtInlinedCall()) {  // `p = find(a, n, k);`
    const Token call = Peek();
    auto [inlined, value] = ParsePointerCall(name, prog_.VarNamed(cursor.var).type);
    if (value.array != cursor.var) FailUnsupported(file_, call.loc, "pointer '" + name + "' moved to another array");
    return MakeBlock({inlined, MakeAssign(cell, value.index)});
  }
  if (op.text == "=") return MakeAssign(cell, ParsePointerInto(cursor.var, name).index);
  if (op.text == "++" || op.text == "--") return Store(op, cell, MakeConst(1));
  if (op.text == "+=" || op.text == "-=") return Store(op, cell, MakeCast(kLongLong, ParseExpr()));
  FailUnsupported(file_, op.loc, "operator '" + op.text + "' of pointer '" + name + "'");
}

bool Parser::ArgumentIsPointer() const {
  int depth = 0;
  for (int k = 0; Peek(k).kind != TokKind::kEnd; ++k) {
    const Token& t = Peek(k);
    if (t.kind != TokKind::kPunct) continue;
    if (t.text == "(" || t.text == "[") ++depth;
    if ((t.text == ")" || t.text == "]") && depth-- == 0) return true;
    if (depth > 0) continue;
    if (t.text == ",") return true;
    if (BinaryPrecedence(t) == 6 || BinaryPrecedence(t) == 7 || t.text == "?" || t.text == "&&" ||
        t.text == "||" || (t.text == "-" && AtPointerValue(k + 1))) {
      return false;
    }
  }
  return true;
}

bool Parser::MovesPointerParameter(const FunctionDef& fn, size_t k) const {
  size_t index = 0;
  int depth = 0;
  bool pointer = false;
  std::string name;
  for (size_t i = fn.params + 1; i < fn.body && index <= k; ++i) {
    const Token& t = toks_[i];
    if (t.text == "(" || t.text == "[") ++depth;
    if (depth == 0 && (t.text == "," || t.text == ")")) {
      if (index++ == k) break;
      pointer = false;
      continue;
    }
    if (t.text == ")" || t.text == "]") --depth;
    if (depth == 0 && t.text == "*") pointer = true;
    if (depth == 0 && t.kind == TokKind::kIdent) name = t.text;
    if (t.text == "[") pointer = false;
  }
  return index > k && pointer && !name.empty() && MovedIn(name, fn.body + 1, fn.body_end);
}

bool Parser::MovedIn(const std::string& name, size_t begin, size_t end) const {
  for (size_t i = std::max<size_t>(begin, 1); i + 1 < end && i + 1 < toks_.size(); ++i) {
    if (toks_[i].kind != TokKind::kIdent || toks_[i].text != name) continue;
    const std::string& before = toks_[i - 1].text;
    const std::string& after = toks_[i + 1].text;
    if (after == "++" || after == "--" || ((before == "++" || before == "--") && after != "[") ||
        ((after == "=" || after == "+=" || after == "-=") && before != "*")) {
      return true;
    }
  }
  return false;
}

bool Parser::MovedInRestOfBlock(const std::string& name) const { return MovedIn(name, pos_, EndOfBlock()); }

}  // namespace fusion::parsing
