// The parser: pointers to objects on the heap, the objects, and their members.
#include "fusion/parser_state.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>
#include <utility>

#include "fusion/errors.h"
#include "fusion/loop_ir.h"

namespace fusion::parsing {

std::vector<StmtPtr> Parser::DeclareHeapPointer(const Token& name_tok, const Pointee& pointee, bool global) {
  const std::string& name = name_tok.text;
  if (Accept("[")) {
    const ExprPtr n = ParseArraySize();
    if (!n) FailSyntax(file_, name_tok.loc, "array '" + name + "' has no size");
    if (HasNondet(n)) FailUnsupported(file_, name_tok.loc, "array of pointers whose size reads an input");
    if (Is("=")) FailUnsupported(file_, Peek().loc, "initialiser of the array of pointers '" + name + "'");
    std::vector<StmtPtr> out = DeclareArray(name, "", kHeapRef, name_tok.loc, n, {}, false, global);
    heap_slots_[FindBinding(name)->var] = pointee;
    return out;
  }
  const std::string unique = Declare(name, kHeapRef, false, name_tok.loc);
  heap_slots_[unique] = pointee;
  const ExprPtr var = MakeVar(unique, kHeapRef);
  if (Accept("=")) return {AssignHeapPointer(var, name_tok)};
  return {global ? MakeAssign(var, MakeConst(0, kHeapRef)) : MakeHavoc(unique)};
}

std::optional<Pointee> Parser::PointeeOf(const ExprPtr& e) const {
  if (e->kind == ExprKind::kVar || e->kind == ExprKind::kIndex) {
    const auto slot = heap_slots_.find(e->name);
    if (slot != heap_slots_.end()) return slot->second;
  }
  if (e->kind == ExprKind::kTernary) {
    if (const std::optional<Pointee> a = PointeeOf(e->args[1])) return a;
    return PointeeOf(e->args[2]);
  }
  return std::nullopt;
}

bool Parser::AtHeapPointer(int k) const {
  while (Is("(", k) || Is("*", k)) ++k;
  if (Peek(k).kind != TokKind::kIdent) return false;
  const Binding* b = FindBinding(Peek(k).text);
  return b && b->refused.empty() && !b->points_to_var && (b->record || heap_slots_.count(b->var));
}

ExprPtr Parser::HeapValue(const ExprPtr& value, const Pointee& pointee, const Token& at) const {
  if (value->type != kHeapRef) {
    if (FoldConstant(value) == Int128{0}) return MakeConst(0, kHeapRef);
    FailUnsupported(file_, at.loc, "value of a pointer to an object (only null, an allocation or such a pointer)");
  }
  const std::optional<Pointee> other = PointeeOf(value);
  if (other && !(*other == pointee)) {
    FailUnsupported(file_, at.loc, "pointer to objects of another type (" + PointeeName(*other) + ", not " +
                                       PointeeName(pointee) + ")");
  }
  return value;
}

std::string Parser::PointeeName(const Pointee& p) { return p.tag.empty() ? TypeName(p.cell) : "struct " + p.tag; }

StmtPtr Parser::AssignHeapPointer(const ExprPtr& target, const Token& at) {
  const Pointee pointee = *PointeeOf(target);
  if (AtAllocationCall()) return AllocateObject(target, pointee);
  if (AtInlinedCall()) {
    const FunctionDef& fn = functions_.at(Peek().text);
    if (fn.result_type != kHeapRef || !(fn.result_pointee == pointee)) {
      FailUnsupported(file_, Peek().loc, "call of '" + fn.name + "', which returns no pointer to " +
                                             PointeeName(pointee));
    }
    return ParseInlinedCall(target);
  }
  const Token value_at = Peek().kind == TokKind::kEnd ? at : Peek();
  return MakeAssign(target, HeapValue(ParseExpr(), pointee, value_at));
}

bool Parser::AtAllocationCall() const {
  int k = 0;
  if (Is("(") && IsTypeStart(1)) {
    for (k = 1; !Is(")", k); ++k) {
      if (Peek(k).kind == TokKind::kEnd || Is("(", k)) return false;
    }
    ++k;
  }
  return Peek(k).kind == TokKind::kIdent && IsAllocator(Peek(k).text) && Is("(", k + 1);
}

StmtPtr Parser::AllocateObject(const ExprPtr& target, const Pointee& pointee) {
  AcceptPointerCast();
  const Token call = Next();
  Expect("(");
  for (int depth = 1; depth > 0; Next()) {
    if (AtEnd()) FailSyntax(file_, call.loc, "expected ')' at the end of the call of '" + call.text + "'");
    const bool calls = Peek().kind == TokKind::kIdent && Is("(", 1) && !Is("sizeof") && !IsTypeStart(0);
    if (calls || (Peek().kind == TokKind::kPunct && kAssignmentOperators.count(Peek().text))) {
      FailUnsupported(file_, Peek().loc, "size of an allocation that calls a function or assigns");
    }
    if (Is("(")) ++depth;
    if (Is(")")) --depth;
  }
  return NewObject(target, pointee, call.text == "calloc", call);
}

StmtPtr Parser::NewObject(const ExprPtr& target, const Pointee& pointee, bool zeroed, const Token& at) {
  const ExprPtr objects = HeapObjects();
  std::vector<StmtPtr> out{MakeAssign(objects, MakeBinary("+", objects, MakeConst(1, kHeapRef), kHeapRef)),
                           MakeAssign(target, objects)};
  if (zeroed) {
    for (const auto& [path, type] : HeapMembers(pointee, at)) {
      out.push_back(MakeAssign(MakeIndex(HeapField(pointee, path, type), type, objects), MakeConst(0, type)));
    }
  }
  return MakeBlock(std::move(out));
}

std::vector<StmtPtr> Parser::DeclareStructObject(const Record& record, const std::string& tag, const Token& name_tok,
                                                 bool global) {
  const bool initialised = Accept("=");
  std::vector<StmtPtr> out;
  const Binding& binding = BindObject(name_tok, Pointee{tag}, &record, global || initialised, out);
  if (initialised) {
    const ExprPtr object = MakeVar(binding.object, kHeapRef);
    for (StmtPtr& st : ParseStructInitialiser(record, ObjectMembers(tag, object))) out.push_back(std::move(st));
  }
  return out;
}

std::vector<StmtPtr> Parser::DeclareIntegerObject(const Token& name_tok, IntType type, bool global) {
  std::vector<StmtPtr> out;
  const Binding& binding = BindObject(name_tok, Pointee{"", type}, nullptr, global, out);
  if (Accept("=")) {
    const ExprPtr cell = IntegerOfObject(binding);
    out.push_back(AtInlinedCall() ? ParseInlinedCall(cell) : MakeAssign(cell, ParseAssignmentValue(type)));
  }
  return out;
}

const Binding& Parser::BindObject(const Token& name_tok, const Pointee& pointee, const Record* record, bool zeroed,
                                  std::vector<StmtPtr>& out) {
  if (scopes_.back().count(name_tok.text)) FailSyntax(file_, name_tok.loc, "redefinition of '" + name_tok.text + "'");
  const std::string unique = prog_.AddVar(name_tok.text + "_object", kHeapRef);
  heap_slots_[unique] = pointee;
  Binding& binding = scopes_.back()[name_tok.text];
  binding = Binding{"", record, "", std::nullopt, std::nullopt};
  binding.object = unique;
  out.push_back(NewObject(MakeVar(unique, kHeapRef), pointee, zeroed, name_tok));
  return binding;
}

ExprPtr Parser::IntegerOfObject(const Binding& b) {
  const Pointee pointee = heap_slots_.at(b.object);
  return MakeIndex(HeapField(pointee, "", pointee.cell), pointee.cell, MakeVar(b.object, kHeapRef));
}

std::function<ExprPtr(const std::string&, IntType)> Parser::ObjectMembers(const std::string& tag, const ExprPtr& base) {
  return [this, tag, base](const std::string& path, IntType type) {
    return MakeIndex(HeapField(Pointee{tag}, path, type), type, base);
  };
}

std::vector<std::pair<std::string, IntType>> Parser::HeapMembers(const Pointee& pointee, const Token& at) const {
  if (pointee.tag.empty()) return {{"", pointee.cell}};
  const auto found = records_.find(pointee.tag);
  if (found == records_.end()) {
    FailUnsupported(file_, at.loc, "object of the incomplete type 'struct " + pointee.tag + "'");
  }
  if (!found->second.unsupported.empty()) {
    FailUnsupported(file_, at.loc, "object of " + found->second.name + ", which has " + found->second.unsupported);
  }
  return found->second.members;
}

bool Parser::IsHeapField(const std::string& array) const { return prog_.heap_fields.count(array) > 0; }

std::optional<Var> Parser::BindHeapPointerAddress(const Token& name_tok, const std::string& target,
                                                  const Pointee& pointee, Loc at) {
  const auto slot = heap_slots_.find(target);
  if (slot == heap_slots_.end() || !(slot->second == pointee)) {
    FailUnsupported(file_, at, "address given to '" + name_tok.text + "' (only of a pointer to " +
                                   PointeeName(pointee) + ")");
  }
  return BindPointer(name_tok.text, name_tok.loc, target);
}

ExprPtr Parser::HeapObjects() {
  if (prog_.heap_objects.empty()) prog_.heap_objects = prog_.AddVar("heap_objects", kHeapRef);
  return MakeVar(prog_.heap_objects, kHeapRef);
}

std::string Parser::HeapField(const Pointee& pointee, const std::string& path, IntType type) {
  const std::string key = pointee.tag.empty() ? TypeName(pointee.cell) : pointee.tag + "." + path;
  const auto known = heap_fields_.find(key);
  if (known != heap_fields_.end()) return known->second;
  std::string base = "heap_" + (pointee.tag.empty() ? TypeName(pointee.cell) : pointee.tag + "_" + path);
  for (char& c : base) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  const std::string array = prog_.AddVar(base, type, true);
  heap_fields_.emplace(key, array);
  prog_.heap_fields.insert(array);
  if (!pointee.tag.empty()) {
    const Record& record = records_.at(pointee.tag);
    if (const auto pointer = record.pointers.find(path); pointer != record.pointers.end()) {
      heap_slots_[array] = pointer->second;
    }
  }
  return array;
}

ExprPtr Parser::HeapMember(const ExprPtr& e) {
  const Token arrow = Next();
  const std::optional<Pointee> pointee = PointeeOf(e);
  if (!pointee || pointee->tag.empty()) {
    FailUnsupported(file_, arrow.loc,
                    arrow.text == "->" ? "operator '->' (only of a pointer to a struct on the heap)"
                                       : "member of '*' (only of a pointer to a struct on the heap)");
  }
  const std::vector<std::pair<std::string, IntType>> members = HeapMembers(*pointee, arrow);
  const Token member = Peek();
  std::string path = ExpectIdent();
  while (true) {
    const auto exact = std::find_if(members.begin(), members.end(), [&](const auto& m) { return m.first == path; });
    if (exact != members.end()) {
      const IntType type = exact->second;
      auto cell = std::const_pointer_cast<Expr>(MakeIndex(HeapField(*pointee, path, type), type, e));
      cell->loc = member.loc;
      return cell;
    }
    const bool inner = std::any_of(members.begin(), members.end(),
                                   [&](const auto& m) { return m.first.rfind(path + ".", 0) == 0; });
    if (!inner) FailSyntax(file_, member.loc, "no member named '" + path + "' in struct " + pointee->tag);
    if (!Accept(".")) FailUnsupported(file_, member.loc, "use of struct member '" + path + "' as a whole");
    path += '.';
    path += ExpectIdent();
  }
}

ExprPtr Parser::DereferenceHeap() {
  const Token star = Next();
  const ExprPtr target = ParseUnary();
  const std::optional<Pointee> pointee = PointeeOf(target);
  if (!pointee) FailUnsupported(file_, star.loc, "operator '*'");
  if (!pointee->tag.empty()) {
    FailUnsupported(file_, star.loc, "'*' of a pointer to a struct as a whole (only its members: '->', '(*p).m')");
  }
  return MakeIndex(HeapField(*pointee, "", pointee->cell), pointee->cell, target);
}

ExprPtr Parser::CompareHeapPointers(const Token& op, const ExprPtr& a, const ExprPtr& b) const {
  if (op.text != "==" && op.text != "!=") {
    FailUnsupported(file_, op.loc, "operator '" + op.text + "' on a pointer to an object (only == and !=)");
  }
  const auto side = [&](const ExprPtr& e) {
    if (e->type == kHeapRef) return e;
    if (FoldConstant(e) == Int128{0}) return MakeConst(0, kHeapRef);
    FailUnsupported(file_, op.loc, "comparison of a pointer to an object with an integer");
  };
  return MakeBinary(op.text, side(a), side(b), kInt);
}

}  // namespace fusion::parsing
