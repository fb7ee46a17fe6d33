// The parser: variables of struct type, one variable per member, their initialisers and whole-struct assignments.
#include "fusion/parser_state.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <utility>

#include "fusion/errors.h"
#include "fusion/loop_ir.h"

namespace fusion::parsing {

std::vector<StmtPtr> Parser::DeclareStructVariable(const ParsedType& spec, const Token& name_tok, int pointers,
                                                   bool global) {
  const std::string& name = name_tok.text;
  if (scopes_.back().count(name)) FailSyntax(file_, name_tok.loc, "redefinition of '" + name + "'");
  if (pointers == 1) return DeclareHeapPointer(name_tok, Pointee{spec.record_tag}, global);
  if (pointers == 2 && !global && Is("=") && Is("&", 1)) {  // `struct node **pp = &head;`: *pp is head
    Next();
    const Token amp = Peek();
    const Address address = ParseAddress(";", "a pointer's whole initialiser");
    const std::optional<Var> cell =
        BindHeapPointerAddress(name_tok, address.pointee, Pointee{spec.record_tag}, amp.loc);
    if (!cell) return {};
    return {MakeAssign(MakeVar(cell->name, cell->type), address.value)};
  }
  const auto found = records_.find(spec.record_tag);
  std::string refused;
  if (pointers > 1) {
    refused = "pointer to a pointer to 'struct " + spec.record_tag + "'";
  } else if (found == records_.end()) {
    refused = "variable of incomplete type 'struct " + spec.record_tag + "'";
  } else if (!found->second.unsupported.empty()) {
    refused = "variable of " + found->second.name + ", which has " + found->second.unsupported;
  }
  if (!refused.empty()) {
    SkipToEnd(true);
    scopes_.back()[name] = Binding{"", nullptr, refused, std::nullopt, std::nullopt};
    return {};
  }
  const Record& record = found->second;
  if (!Is("[") && addressed_.count(name)) return DeclareStructObject(record, spec.record_tag, name_tok, global);
  const bool array = Accept("[");
  const ExprPtr n = array ? ParseArraySize() : nullptr;
  if (array && !n) FailSyntax(file_, name_tok.loc, "array '" + name + "' has no size");
  if (n && HasNondet(n)) FailUnsupported(file_, name_tok.loc, "array of structs whose size reads an input");
  if (array && Is("=")) {
    FailUnsupported(file_, Peek().loc, "initialiser of the array of structs '" + name + "' (of " + record.name + ")");
  }
  const bool initialised = !array && Accept("=");
  std::vector<StmtPtr> out;
  for (const auto& [path, type] : record.members) {
    std::string base = name + "_" + path;
    std::replace(base.begin(), base.end(), '.', '_');
    const std::string member = name + "." + path;
    if (array) {
      for (StmtPtr& st : DeclareArray(member, base, type, name_tok.loc, n, {}, false, global)) out.push_back(st);
    } else {
      const std::string unique = Declare(member, type, false, name_tok.loc, base);
      const bool zero = global || initialised;
      out.push_back(zero ? MakeAssign(MakeVar(unique, type), MakeConst(0, type)) : MakeHavoc(unique));
    }
    if (const auto pointer = record.pointers.find(path); pointer != record.pointers.end()) {
      heap_slots_[FindBinding(member)->var] = pointer->second;
    }
  }
  if (initialised) {
    const auto member = [&](const std::string& path, IntType type) {
      return MakeVar(FindBinding(name + "." + path)->var, type);
    };
    for (StmtPtr& st : ParseStructInitialiser(record, member)) out.push_back(std::move(st));
  }
  scopes_.back()[name] = Binding{"", &record, "", std::nullopt, std::nullopt};
  return out;
}

bool Parser::AtWholeStruct() const {
  if (Is("*") && Peek(1).kind == TokKind::kIdent) {
    const Binding* b = FindBinding(Peek(1).text);
    const auto slot = b && b->refused.empty() && !b->var.empty() ? heap_slots_.find(b->var) : heap_slots_.end();
    return slot != heap_slots_.end() && !slot->second.tag.empty() && !Is("->", 2) && !Is("[", 2) && !Is(".", 2);
  }
  const Binding* b = Peek().kind == TokKind::kIdent ? FindBinding(Peek().text) : nullptr;
  if (!b || !b->record || !b->refused.empty()) return false;
  const int k = Is("[", 1) ? AfterGroup(1) : 1;
  return !Is(".", k) && !Is("->", k);
}

Parser::StructPlace Parser::ParseStructPlace() {
  StructPlace place;
  if (Accept("*")) {
    const ExprPtr pointer = MakeVar(FindBinding(Next().text)->var, kHeapRef);
    const Pointee pointee = *PointeeOf(pointer);
    place.record = &records_.at(pointee.tag);
    const ExprPtr base = FreshVar("object", kHeapRef);
    heap_slots_[base->name] = pointee;
    place.before.push_back(MakeAssign(base, pointer));
    place.cell = ObjectMembers(pointee.tag, base);
    return place;
  }
  const Token name_tok = Next();
  const std::string& name = name_tok.text;
  const Binding* b = FindBinding(name);
  place.record = b->record;
  if (!b->object.empty()) {
    const ExprPtr base = MakeVar(b->object, kHeapRef);
    place.cell = ObjectMembers(PointeeOf(base)->tag, base);
    return place;
  }
  ExprPtr index;
  if (Accept("[")) {
    index = FreshVar("index", kLongLong);
    place.before.push_back(MakeAssign(index, MakeCast(kLongLong, ParseExpr())));
    Expect("]");
  }
  const std::vector<std::pair<std::string, IntType>>& members = b->record->members;
  const bool array = !members.empty() && prog_.VarNamed(FindBinding(name + "." + members[0].first)->var).is_array;
  if (array != static_cast<bool>(index)) {
    FailUnsupported(file_, name_tok.loc,
                    array ? "use of array of structs '" + name + "' without an index" : "indexing of a non-array");
  }
  std::map<std::string, std::string> vars;
  for (const auto& [path, type] : members) vars[path] = FindBinding(name + "." + path)->var;
  place.cell = [vars, index](const std::string& path, IntType type) {
    return index ? MakeIndex(vars.at(path), type, index) : MakeVar(vars.at(path), type);
  };
  return place;
}

std::vector<StmtPtr> Parser::AssignStruct(const StructPlace& target, const Token& at) {
  if (!AtWholeStruct()) {
    FailUnsupported(file_, Peek().loc, "value of a whole struct (only a struct variable, 'a[i]' or '*p')");
  }
  const StructPlace source = ParseStructPlace();
  if (source.record != target.record) {
    FailSyntax(file_, at.loc, "assignment of " + source.record->name + " to " + target.record->name);
  }
  std::vector<StmtPtr> out = target.before;
  out.insert(out.end(), source.before.begin(), source.before.end());
  for (const auto& [path, type] : target.record->members) {
    out.push_back(MakeAssign(target.cell(path, type), source.cell(path, type)));
  }
  return out;
}

std::vector<StmtPtr> Parser::ParseStructInitialiser(const Record& record,
                                                    const std::function<ExprPtr(const std::string&, IntType)>& cell) {
  const Token open = Peek();
  if (!Is("{")) {  // `struct S t = s;`
    StructPlace target;
    target.record = &record;
    target.cell = cell;
    return AssignStruct(target, open);
  }
  Next();
  std::vector<StmtPtr> out;
  size_t next = 0;
  bool first = true;
  InitialiseMembers(record, cell, "", record.members.size(), next, first, out);
  Accept(",");
  if (!Accept("}")) FailSyntax(file_, Peek().loc, "excess elements in the initialiser of " + record.name);
  return out;
}

void Parser::InitialiseMembers(const Record& record, const std::function<ExprPtr(const std::string&, IntType)>& cell,
                               const std::string& prefix, size_t end, size_t& next, bool& first,
                               std::vector<StmtPtr>& out) {
  while (next < end && !Is("}")) {
    if (!first) {
      Expect(",");
      if (Is("}")) return;
    }
    if (Is(".") || Is("[")) FailUnsupported(file_, Peek().loc, "designated initialiser");
    const auto& [path, type] = record.members[next];
    const size_t dot = path.find('.', prefix.size());
    if (dot != std::string::npos) {  // the first member of a nested struct: its members, braced or not
      const std::string inner = path.substr(0, dot + 1);
      size_t inner_end = next;
      while (inner_end < end && record.members[inner_end].first.rfind(inner, 0) == 0) ++inner_end;
      if (Accept("{")) {
        bool inner_first = true;
        InitialiseMembers(record, cell, inner, inner_end, next, inner_first, out);
        Accept(",");
        if (!Accept("}")) FailSyntax(file_, Peek().loc, "excess elements in the initialiser of " + record.name);
        first = false;
        next = inner_end;
      } else {  // its ',' taken already
        bool inner_first = true;
        InitialiseMembers(record, cell, inner, inner_end, next, inner_first, out);
        first = first && inner_first;
      }
      continue;
    }
    const bool braced = Accept("{");  // `{ {1}, 2 }`: a scalar's value may have braces
    const Token at = Peek();
    const ExprPtr target = cell(path, type);
    if (type == kHeapRef) {
      out.push_back(MakeAssign(target, HeapValue(ParseExpr(), record.pointers.at(path), at)));
    } else {
      out.push_back(MakeAssign(target, MakeCast(type, ParseExpr())));
    }
    if (braced) Expect("}");
    first = false;
    ++next;
  }
}

}  // namespace fusion::parsing
