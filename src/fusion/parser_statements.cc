// The parser: blocks and statements, switch, declarations of scalars, and the lowering of early returns.
#include "fusion/parser_state.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "fusion/errors.h"
#include "fusion/gotos.h"
#include "fusion/lexer.h"
#include "fusion/loop_ir.h"
#include "fusion/switch.h"

namespace fusion::parsing {

namespace {

// Whether s holds a return, in nested statements and loops too.
bool HoldsReturn(const StmtPtr& s) {
  if (!s) return false;
  if (s->kind == StmtKind::kReturn) return true;
  return std::any_of(s->body.begin(), s->body.end(), HoldsReturn);
}

}  // namespace

StmtPtr LowerReturns(const StmtPtr& s, const ExprPtr& flag, bool in_loop, bool& may_return) {
  // A statement with no return is shared, not rebuilt: the bodies inlined into this one were lowered when
  // they were parsed, and copying them again at each level of a deep inlining was quadratic.
  if (!HoldsReturn(s)) return s;
  switch (s->kind) {
    case StmtKind::kReturn: {
      may_return = true;
      std::vector<StmtPtr> set{MakeAssign(flag, MakeConst(1))};
      if (in_loop) set.push_back(MakeSimple(StmtKind::kBreak));
      return MakeBlock(std::move(set));
    }
    case StmtKind::kBlock:
      return LowerBlock(Flatten(s), flag, in_loop, may_return);
    case StmtKind::kIf: {
      auto copy = std::make_shared<Stmt>(*s);
      for (auto& b : copy->body) b = LowerReturns(b, flag, in_loop, may_return);
      return copy;
    }
    case StmtKind::kLoop: {
      auto copy = std::make_shared<Stmt>(*s);
      copy->body[0] = LowerReturns(s->body[0], flag, true, may_return);
      return copy;
    }
    default:
      return s;
  }
}

StmtPtr LowerBlock(const std::vector<StmtPtr>& items, const ExprPtr& flag, bool in_loop, bool& may_return) {
  std::vector<StmtPtr> out;
  for (size_t k = 0; k < items.size(); ++k) {
    bool item_returns = false;
    out.push_back(LowerReturns(items[k], flag, in_loop, item_returns));
    if (!item_returns) continue;
    may_return = true;
    if (items[k]->kind == StmtKind::kReturn) break;  // what follows it in the block never runs
    if (in_loop) {
      // A return inside an inner loop left only that loop; an if's own returns broke out already. Even after
      // the body's last statement: the loop must not run another iteration.
      if (items[k]->kind == StmtKind::kLoop || EffectsOf(items[k]).nested_loop) {
        out.push_back(MakeIf(flag, MakeSimple(StmtKind::kBreak)));
      }
      continue;
    }
    if (k + 1 == items.size()) break;
    bool rest_returns = false;
    const std::vector<StmtPtr> rest(items.begin() + static_cast<std::ptrdiff_t>(k) + 1, items.end());
    out.push_back(MakeIf(MakeNot(flag), LowerBlock(rest, flag, false, rest_returns)));
    break;
  }
  return MakeBlock(std::move(out));
}

StmtPtr Parser::ParseBlock() {
  Expect("{");
  scopes_.emplace_back();
  std::vector<StmtPtr> body;
  while (!Accept("}")) {
    if (AtEnd()) FailSyntax(file_, Peek().loc, "expected '}' at end of input");
    body.push_back(ParseStatement());
  }
  scopes_.pop_back();
  return MakeBlock(std::move(body));
}

StmtPtr Parser::ParseScopedStatement() {
  scopes_.emplace_back();
  StmtPtr s = ParseStatement();
  scopes_.pop_back();
  return s;
}

std::set<std::string> Parser::Mentions(const StmtPtr& s) {
  const Effects effects = EffectsOf(s);
  std::set<std::string> names = effects.Scalars();
  for (const std::string& a : effects.ArraysAccessed()) names.insert(a);
  return names;
}

std::set<std::string> Parser::Mentions(const ExprPtr& e) {
  Effects effects;
  AddReads(e, effects);
  std::set<std::string> names = effects.reads;
  for (const ArrayAccess& a : effects.array_reads) names.insert(a.array);
  return names;
}

void Parser::RequireSequenced(const Hoisted& hoisted, const std::set<std::string>& rest) const {
  for (const Hoisted::Store& store : hoisted.stores) {
    bool elsewhere = rest.count(store.var) > 0;
    for (size_t k = 0; k < hoisted.statements.size() && !elsewhere; ++k) {
      elsewhere = (k < store.begin || k >= store.end) && Mentions(hoisted.statements[k]).count(store.var);
    }
    if (elsewhere) {
      FailUnsupported(file_, store.loc, "assignment inside an expression to '" + store.spelling +
                                            "', which the expression also reads or writes elsewhere (C leaves "
                                            "the order unsequenced, or loopfuse cannot tell)");
    }
  }
}

StmtPtr Parser::Preceded(Hoisted hoisted, StmtPtr s, Loc loc) {
  if (hoisted.statements.empty()) return s;
  auto located = std::const_pointer_cast<Stmt>(s);
  if (located->loc.line == 0) located->loc = loc;
  hoisted.statements.push_back(std::move(s));
  return MakeBlock(std::move(hoisted.statements));
}

StmtPtr Parser::LoopTesting(Hoisted hoisted, const ExprPtr& c, const StmtPtr& body, StmtPtr step, bool do_while) {
  if (hoisted.statements.empty()) return MakeLoop(c, body, step, do_while);
  const StmtPtr before_test = MakeBlock(std::move(hoisted.statements));
  step = step ? MakeBlock({step, before_test}) : before_test;
  if (do_while) return MakeLoop(c, body, step, true);
  return MakeBlock({before_test, MakeLoop(c, body, step)});
}

StmtPtr Parser::ParseStatement() {
  const Token t = Peek();
  const DepthGuard guard(*this, t.loc);
  StmtPtr s = ParseStatementInner();
  auto located = std::const_pointer_cast<Stmt>(s);
  if (located->loc.line == 0) located->loc = t.loc;
  return s;
}

StmtPtr Parser::ParseStatementInner() {
  const Token t = Peek();
  if (Is("{")) return ParseBlock();
  if (Accept(";")) return MakeBlock({});
  if (t.kind == TokKind::kIdent && Is(":", 1) && !IsTypeStart()) {
    Next();
    Next();
    JumpMarks& marks = jump_marks_.back();
    for (const auto& [mark, label] : marks.labels) {
      if (label == t.text) FailSyntax(file_, t.loc, "redefinition of label '" + t.text + "'");
    }
    const StmtPtr mark = MakeAssume(MakeConst(1));
    marks.labels[mark.get()] = t.text;
    return MakeBlock({mark, ParseStatement()});
  }
  if (Accept("if")) {
    Expect("(");
    Hoisted hoisted;
    ExprPtr c = ParseCondition(hoisted);
    Expect(")");
    StmtPtr then_branch = ParseScopedStatement();
    StmtPtr else_branch;
    if (Accept("else")) else_branch = ParseScopedStatement();
    return Preceded(std::move(hoisted), MakeIf(c, then_branch, else_branch), t.loc);
  }
  if (Accept("while")) {
    Expect("(");
    Hoisted hoisted;
    ExprPtr c = ParseCondition(hoisted);
    Expect(")");
    return LoopTesting(std::move(hoisted), c, ParseScopedStatement(), nullptr, false);
  }
  if (Accept("do")) {
    StmtPtr body = ParseScopedStatement();
    Expect("while");
    Expect("(");
    Hoisted hoisted;
    ExprPtr c = ParseCondition(hoisted);
    Expect(")");
    Expect(";");
    return LoopTesting(std::move(hoisted), c, body, nullptr, true);
  }
  if (Accept("for")) {
    Expect("(");
    scopes_.emplace_back();
    std::vector<StmtPtr> init;
    if (IsTypeStart()) {
      Hoisted hoisted;
      const Loc loc = Peek().loc;
      StmtPtr declaration = WithCallsHoisted(hoisted, [&] { return ParseDeclaration(); });
      init.push_back(Preceded(std::move(hoisted), declaration, loc));
    } else {
      if (!Is(";")) init.push_back(ParseExpressionList());
      Expect(";");
    }
    Hoisted hoisted;
    ExprPtr c = Is(";") ? MakeConst(1) : WithCallsHoisted(hoisted, [&] { return ParseCommaExpr(); });
    Expect(";");
    StmtPtr step;
    if (!Is(")")) step = ParseExpressionList();
    Expect(")");
    StmtPtr body = ParseScopedStatement();
    scopes_.pop_back();
    StmtPtr loop = LoopTesting(std::move(hoisted), c, body, step, false);
    std::const_pointer_cast<Stmt>(loop->kind == StmtKind::kLoop ? loop : loop->body.back())->loc = t.loc;
    init.push_back(loop);
    return MakeBlock(std::move(init));
  }
  if (Accept("break")) {
    Expect(";");
    return MakeSimple(StmtKind::kBreak);
  }
  if (Accept("continue")) {
    Expect(";");
    return MakeSimple(StmtKind::kContinue);
  }
  if (Accept("return")) {
    if (!inlining_.empty()) return ParseInlinedReturn(t.loc);
    if (!Is(";")) ParseExpr();  // main's status does not matter for reachability
    Expect(";");
    return MakeSimple(StmtKind::kReturn);
  }
  if (Is("goto") && Peek(1).kind == TokKind::kIdent && Is(";", 2) && IsStuckLabel(Peek(1).text)) {
    Next();
    Next();
    Next();
    return MakeAssume(MakeConst(0));
  }
  if (Accept("goto")) {
    const StmtPtr mark = MakeAssume(MakeConst(1));
    jump_marks_.back().gotos[mark.get()] = ExpectIdent();
    Expect(";");
    return mark;
  }
  if (Accept("switch")) return ParseSwitch(t.loc);
  if (Is("case") || Is("default")) {
    FailUnsupported(file_, t.loc, "'" + t.text + "' label inside a statement of a switch, or outside one");
  }
  Hoisted hoisted;
  if (IsTypeStart()) {
    StmtPtr declaration = WithCallsHoisted(hoisted, [&] { return ParseDeclaration(); });
    return Preceded(std::move(hoisted), declaration, t.loc);
  }
  StmtPtr s = ParseExpressionList();
  Expect(";");
  return s;
}

StmtPtr Parser::ParseExpressionList() {
  std::vector<StmtPtr> parts;
  do {
    const Loc loc = Peek().loc;
    Hoisted hoisted;
    StmtPtr s = WithCallsHoisted(hoisted, [&] { return ParseSimpleStatement(); });
    parts.push_back(Preceded(std::move(hoisted), s, loc));
  } while (Accept(","));
  return parts.size() == 1 ? parts.front() : MakeBlock(std::move(parts));
}

StmtPtr Parser::ParseSwitch(Loc loc) {
  Expect("(");
  Hoisted hoisted;
  ExprPtr value = WithCallsHoisted(hoisted, [&] { return ParseCommaExpr(); });
  Expect(")");
  const IntType type = Promote(value->type);
  if (!Is("{")) FailUnsupported(file_, Peek().loc, "switch whose body is not a block");
  Next();
  scopes_.emplace_back();
  std::vector<SwitchSection> sections;
  std::set<Int128> cases;
  bool has_default = false;
  while (!Accept("}")) {
    if (AtEnd()) FailSyntax(file_, Peek().loc, "expected '}' at end of input");
    const Token label = Peek();
    if (Accept("case") || Accept("default")) {
      if (sections.empty() || !sections.back().body.empty()) sections.emplace_back();
      if (label.text == "case") {
        const std::optional<Int128> c = FoldConstant(MakeCast(type, ParseExpr()));
        if (!c) FailSyntax(file_, label.loc, "case label is not an integer constant");
        if (!cases.insert(*c).second) FailSyntax(file_, label.loc, "duplicate case value");
        sections.back().values.push_back(*c);
      } else {
        if (has_default) FailSyntax(file_, label.loc, "multiple default labels in one switch");
        has_default = true;
        sections.back().is_default = true;
      }
      Expect(":");
      continue;
    }
    if (sections.empty()) FailUnsupported(file_, label.loc, "statement before the first case of a switch");
    sections.back().body.push_back(ParseStatement());
  }
  scopes_.pop_back();
  return Preceded(std::move(hoisted), LowerSwitch(MakeCast(type, value), sections, prog_), loc);
}

StmtPtr Parser::WithJumpsLowered(const StmtPtr& body) {
  const JumpMarks marks = std::move(jump_marks_.back());
  jump_marks_.pop_back();
  for (const auto& jump : marks.gotos) {
    const bool declared = std::any_of(marks.labels.begin(), marks.labels.end(),
                                      [&](const auto& l) { return l.second == jump.second; });
    if (!declared) FailSyntax(file_, jump.first->loc, "use of undeclared label '" + jump.second + "'");
  }
  return marks.labels.empty() ? body : LowerGotos(body, marks, prog_);
}

bool Parser::IsStuckLabel(const std::string& label) const {
  const size_t begin = inlining_.empty() ? *main_pos_ : inlining_.back().fn->body;
  const size_t end = inlining_.empty() ? main_end_ : inlining_.back().fn->body_end;
  for (size_t k = begin; k + 4 < end; ++k) {
    if (toks_[k].kind == TokKind::kIdent && toks_[k].text == label && toks_[k + 1].text == ":" &&
        toks_[k + 2].text == "goto" && toks_[k + 3].text == label && toks_[k + 4].text == ";") {
      return true;
    }
  }
  return false;
}

StmtPtr Parser::ParseDeclaration() {
  const Token start = Peek();
  bool is_static = false, is_extern = false;
  for (int k = 0; IsTypeStart(k); ++k) {
    is_static = is_static || Peek(k).text == "static";
    is_extern = is_extern || Peek(k).text == "extern";
  }
  auto spec = ParseSpecifiers(false);
  if (!spec || spec->is_void) {
    if (is_extern && spec) return ParseExternDeclarators(*spec);  // `extern void f(void);`
    FailUnsupported(file_, start.loc, "declaration");
  }
  if (opaque_typedefs_.count(start.text)) FailUnsupported(file_, start.loc, "type '" + start.text + "'");
  if (is_static) return ParseStaticDeclarators(*spec);
  if (is_extern) return ParseExternDeclarators(*spec);
  if (!spec->record_tag.empty() && Accept(";")) return MakeBlock({});  // a struct's definition alone
  std::vector<StmtPtr> out;
  do {
    int pointers = spec->pointers;
    while (Accept("*")) {
      ++pointers;
      while (kIgnoredSpecifiers.count(Peek().text)) Next();  // `node_t *const q`
    }
    const bool pointer = pointers > 0;
    const Token name_tok = Peek();
    const std::string name = ExpectIdent();
    if (!spec->record_tag.empty()) {
      for (StmtPtr& st : DeclareStructVariable(*spec, name_tok, pointers, false)) out.push_back(st);
    } else if (integers_on_heap_ && pointers == 1) {  // `int *p = &x;`, `int *a[N];`
      for (StmtPtr& st : DeclareHeapPointer(name_tok, Pointee{"", spec->type}, false)) out.push_back(st);
    } else if (integers_on_heap_ && pointers == 0 && !Is("[") && addressed_.count(name)) {
      for (StmtPtr& st : DeclareIntegerObject(name_tok, spec->type, false)) out.push_back(st);
    } else if (pointers == 1 && Is("[")) {  // `int *a[N];`: pointers to integers on the heap
      for (StmtPtr& st : DeclareHeapPointer(name_tok, Pointee{"", spec->type}, false)) out.push_back(st);
    } else if (pointer && Is("=") && AtPointerInitialiser(1, true)) {  // `int *p = a + 1;`, `= find(a)`
      Next();
      for (StmtPtr& st : DeclarePointerInto(name_tok, spec->type)) out.push_back(st);
    } else if (pointer && Is("=") && Is("&", 1)) {  // `int *p = &x;`: p is a name of x (`*p`) from here on
      Next();
      const Token amp = Peek();
      const Address address = ParseAddress(";", "a pointer's whole initialiser");
      if (!(prog_.VarNamed(address.pointee).type == spec->type)) {
        FailUnsupported(file_, amp.loc, "pointer '" + name + "' given the address of a variable of another type");
      }
      const std::optional<Var> cell = BindPointer(name, name_tok.loc, address.pointee);
      if (cell) out.push_back(MakeAssign(MakeVar(cell->name, cell->type), address.value));
    } else if (pointer && Is("=") && AtAllocation(1) &&
               MovedInRestOfBlock(name)) {  // `int *p = malloc(n);`, then `p++`: a pointer into a fresh array
      Next();
      const std::string block = prog_.AddVar("block_" + name, spec->type, true);
      out.push_back(ParseMalloc(block, spec->type));
      const std::optional<Var> cell = BindPointer(name, name_tok.loc, block);
      out.push_back(MakeAssign(MakeVar(cell->name, cell->type), MakeConst(0, kLongLong)));
    } else if (pointer && !Is("=") && AssignedAPointerLater(name)) {  // `int *p;`, then `p = a;`
      DeclareUnpointed(name_tok, spec->type);
    } else if (pointer) {
      const std::string unique = Declare(name, spec->type, true, name_tok.loc);
      if (Accept("=")) {
        out.push_back(ParseMalloc(unique, spec->type));
      } else {
        maybe_null_.insert(unique);
        out.push_back(MakeHavoc(unique, MakeConst(0)));
      }
    } else if (Accept("[")) {
      for (StmtPtr& st : ParseArrayDeclarator(name, spec->type, name_tok.loc, false)) out.push_back(st);
    } else if (Accept("=")) {
      if (AtInlinedCall()) {
        const std::string unique = Declare(name, spec->type, false, name_tok.loc);
        out.push_back(ParseInlinedCall(MakeVar(unique, spec->type)));
      } else {
        ExprPtr init = ParseAssignmentValue(spec->type);
        out.push_back(MakeAssign(MakeVar(Declare(name, spec->type, false, name_tok.loc), spec->type), init));
      }
    } else {
      out.push_back(MakeHavoc(Declare(name, spec->type, false, name_tok.loc)));
    }
    SkipAttributes();
  } while (Accept(","));
  Expect(";");
  if (out.size() == 1) return out[0];
  return MakeBlock(std::move(out));
}

StmtPtr Parser::ParseExternDeclarators(const ParsedType& spec) {
  do {
    if (Is("*") || !spec.record_tag.empty()) FailUnsupported(file_, Peek().loc, "extern pointer or struct");
    const Token name_tok = Peek();
    const std::string name = ExpectIdent();
    if (Is("(")) {
      SkipBalanced();
    } else {
      while (Is("[")) SkipBalanced();
      const auto global = scopes_.front().find(name);
      if (global == scopes_.front().end() || global->second.record) {
        FailUnsupported(file_, name_tok.loc, "extern '" + name + "' that the file does not define");
      }
      if (scopes_.back().count(name) && scopes_.back().at(name).var != global->second.var) {
        FailSyntax(file_, name_tok.loc, "redefinition of '" + name + "'");
      }
      scopes_.back()[name] = global->second;
    }
    SkipAttributes();
  } while (Accept(","));
  Expect(";");
  return MakeBlock({});
}

StmtPtr Parser::ParseStaticDeclarators(const ParsedType& spec) {
  do {
    if (Is("*") || !spec.record_tag.empty()) FailUnsupported(file_, Peek().loc, "static pointer or struct");
    const size_t at = pos_;  // the declarator's place: the same variable wherever the body is inlined
    const Token name_tok = Peek();
    const std::string name = ExpectIdent();
    if (Is("[")) FailUnsupported(file_, name_tok.loc, "static array '" + name + "'");
    if (scopes_.back().count(name)) FailSyntax(file_, name_tok.loc, "redefinition of '" + name + "'");
    ExprPtr init = MakeConst(0, spec.type);
    if (Accept("=")) {
      const Token value = Peek();
      const std::optional<Int128> folded = FoldConstant(ParseAssignmentValue(spec.type));
      if (!folded) FailUnsupported(file_, value.loc, "initialiser of static '" + name + "' that is not a constant");
      init = MakeConst(*folded, spec.type);
    }
    auto [known, fresh] = static_locals_.try_emplace(at);
    if (fresh) {
      known->second = prog_.AddVar(name, spec.type, false);
      static_inits_.push_back(MakeAssign(MakeVar(known->second, spec.type), init));
    }
    scopes_.back()[name] = Binding{known->second, nullptr, "", std::nullopt, std::nullopt};
    SkipAttributes();
  } while (Accept(","));
  Expect(";");
  return MakeBlock({});
}

ExprPtr Parser::ParseAssignmentValue(IntType t) { return MakeCast(t, ParseExpr()); }

StmtPtr Parser::ParseSimpleStatement() {
  const Token t = Peek();
  if (AtInlinedCall()) return ParseInlinedCall(nullptr);
  if (t.kind == TokKind::kIdent && Is("(", 1)) {
    const std::string name = t.text;
    Next();
    Next();
    std::vector<ExprPtr> args;
    if (name == "__assert_fail" || name == "__assert" || name == "__assert_perror_fail") {
      SkipBalancedRest();
      return MakeError();
    }
    if (name == "free") return ParseFree(t);
    if (!Is(")")) {
      do args.push_back(ParseExpr());
      while (Accept(","));
    }
    Expect(")");
    if (name == "__VERIFIER_assert" && args.size() == 1) return MakeAssert(args[0]);
    if (name == "__VERIFIER_assume" && args.size() == 1) return MakeAssume(args[0]);
    if ((name == "reach_error" || name == "__VERIFIER_error") && args.empty()) return MakeError();
    if (name == "abort" && args.empty()) return MakeAssume(MakeConst(0));
    FailUnsupported(file_, t.loc, "call of '" + name + "'");
  }
  if ((Is("++") || Is("--")) && Peek(1).kind == TokKind::kIdent && !Is("[", 2)) {
    if (const Binding* cursor = CursorNamed(Peek(1).text)) {  // `++p`
      const Token op = Next();
      return MoveCursor(*cursor, Next().text, op);
    }
  }
  if (Is("++") || Is("--")) {
    const Token op = Next();
    return Store(op, ParseUnary(), MakeConst(1));
  }
  if (const Binding* cursor = t.kind == TokKind::kIdent ? CursorNamed(t.text) : nullptr;
      cursor && Peek(1).kind == TokKind::kPunct && kAssignmentOperators.count(Peek(1).text)) {
    Next();
    return MoveCursor(*cursor, t.text, Next());
  }
  if (const Binding* b = t.kind == TokKind::kIdent ? FindBinding(t.text) : nullptr;
      b && b->points_to_var && b->var.empty() && Is("=", 1)) {  // `p = a;`, the first for `int *p;`
    const IntType type = pointee_types_.at(b->cell_index);
    Next();
    Next();
    return PointCursor(t.text, t, type);
  }
  if (AtWholeStruct()) {  // `t = s;`, `*p = a[i];`
    const StructPlace target = ParseStructPlace();
    const Token eq = Peek();
    if (!Accept("=")) FailUnsupported(file_, t.loc, "use of a whole struct (only its members, or an assignment)");
    return MakeBlock(AssignStruct(target, eq));
  }
  if (AtUnusedValue()) {  // `s > 0 ? f(s) : g();`, `x + 1;`: what it calls and assigns runs before it
    return Evaluated(ParseCommaExpr());
  }
  ExprPtr lhs = ParseUnary(false);
  if (lhs->kind != ExprKind::kVar && lhs->kind != ExprKind::kIndex) {
    const Binding* b = t.kind == TokKind::kIdent ? FindBinding(t.text) : nullptr;
    if (b && b->enumerator && kAssignmentOperators.count(Peek().text)) {
      FailSyntax(file_, t.loc, "'" + t.text + "' is an enumeration constant, not a variable");
    }
    FailUnsupported(file_, t.loc, "expression statement (only assignments and calls are statements)");
  }
  const Token op = Peek();
  if (op.text == "=" && op.kind == TokKind::kPunct) {
    Next();
    if (lhs->kind == ExprKind::kVar && prog_.VarNamed(lhs->name).is_array) return ParseMalloc(lhs->name, lhs->type);
    if (lhs->type == kHeapRef) return AssignHeapPointer(lhs, op);
    if (AtInlinedCall()) return ParseInlinedCall(lhs);
    return MakeAssign(lhs, ParseExpr());
  }
  if (op.kind == TokKind::kPunct && kAssignmentOperators.count(op.text)) {
    Next();
    return Store(op, lhs, op.text == "++" || op.text == "--" ? MakeConst(1) : ParseExpr());
  }
  if (op.text == ";") return Evaluated(lhs);  // `*p++;`, `a[i];`: a value unused; what it moves runs before it
  if (BinaryPrecedence(op) > 0 || op.text == "?") {  // `x + 1;`: valid C that computes nothing
    FailUnsupported(file_, t.loc, "expression statement (only assignments and calls are statements)");
  }
  FailSyntax(file_, op.loc, "expected an assignment before '" + op.text + "'");
}

StmtPtr Parser::Evaluated(const ExprPtr& value) {
  if (value->kind == ExprKind::kConst || value->kind == ExprKind::kVar) return MakeBlock({});
  return MakeAssign(FreshVar("unused", value->type), value);
}

bool Parser::AtUnusedValue() const {
  bool joined = false;
  for (int k = 0, depth = 0;; ++k) {
    const Token& t = Peek(k);
    if (t.kind == TokKind::kEnd) return false;
    if (t.kind != TokKind::kPunct) continue;
    if (t.text == "(" || t.text == "[" || t.text == "{") ++depth;
    if (t.text == ")" || t.text == "]" || t.text == "}") --depth;
    if (depth < 0 || (depth == 0 && (t.text == ";" || t.text == ","))) return joined;
    if (depth > 0 || (k == 0 && (t.text == "*" || t.text == "-" || t.text == "&"))) continue;
    if (t.text != "++" && t.text != "--" && kAssignmentOperators.count(t.text)) return false;
    joined = joined || t.text == "?" || BinaryPrecedence(t) > 0;
  }
  return joined;
}

StmtPtr Parser::Store(const Token& op, const ExprPtr& target, const ExprPtr& rhs) {
  if (target->kind != ExprKind::kVar && target->kind != ExprKind::kIndex) {
    FailUnsupported(file_, op.loc, "operand of '" + op.text + "' (only variables and array cells)");
  }
  if (op.text == "=" && target->type == kHeapRef) return MakeAssign(target, HeapValue(rhs, *PointeeOf(target), op));
  if (op.text == "=") return MakeAssign(target, rhs);
  if (target->type == kHeapRef) {
    FailUnsupported(file_, op.loc, "operator '" + op.text + "' on a pointer to an object (it is never moved)");
  }
  Token binary = op;
  binary.text = op.text.substr(0, op.text.size() - 1);  // "+=" is "+", "<<=" is "<<", "++" is "+"
  if (binary.text == "<<" || binary.text == ">>") return MakeAssign(target, Shift(binary, target, rhs));
  if (binary.text == "&" || binary.text == "|" || binary.text == "^") {
    return MakeAssign(target, Bitwise(binary, target, rhs));
  }
  return MakeAssign(target, Arith(binary.text, target, rhs, op.loc));
}

}  // namespace fusion::parsing
