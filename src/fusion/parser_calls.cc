// The parser: calls of the file's functions, inlined, with their parameters and returns.
#include "fusion/parser_state.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include <fmt/core.h>

#include "fusion/errors.h"
#include "fusion/loop_ir.h"

namespace fusion::parsing {

bool Parser::AtInlinedCall() const {
  if (Peek().kind != TokKind::kIdent || !Is("(", 1) || !functions_.count(Peek().text)) return false;
  int depth = 0;
  for (size_t k = pos_ + 1; k < toks_.size() && toks_[k].kind != TokKind::kEnd; ++k) {
    const Token& t = toks_[k];
    if (t.kind != TokKind::kPunct) continue;
    if (t.text == "(" || t.text == "[" || t.text == "{") ++depth;
    if ((t.text == ")" || t.text == "]" || t.text == "}") && --depth == 0) {
      const Token& after = toks_[std::min(k + 1, toks_.size() - 1)];
      return after.kind == TokKind::kPunct && (after.text == ";" || after.text == "," || after.text == ")");
    }
  }
  return false;
}

Arguments Parser::ParseArguments(const FunctionDef& fn) {
  Arguments args;
  if (Accept(")")) return args;
  do {
    const Token t = Peek();
    const bool alone = t.kind == TokKind::kIdent && (Is(",", 1) || Is(")", 1));
    const Binding* b = alone ? FindBinding(t.text) : nullptr;
    if (b && b->points_to_var && !b->var.empty()) {  // passed on
      Next();
      const Var& v = prog_.VarNamed(b->var);
      args.values.push_back(b->cell_index.empty() ? MakeVar(v.name, v.type) : CellIndex(*b));
      args.pointees.push_back(v.name);
      continue;
    }
    if (alone && b && b->record && !b->object.empty()) {
      FailUnsupported(file_, t.loc, "struct '" + t.text + "' passed whole (only an array of structs)");
    }
    if (alone && b && b->record) {  // an array of structs by name: the callee's parameter names its arrays
      Next();
      auto& passed = args.struct_arrays[args.values.size()];
      passed.first = b->record;
      for (const auto& [path, type] : b->record->members) {
        const Binding* member = FindBinding(t.text + "." + path);
        if (!prog_.VarNamed(member->var).is_array) {
          FailUnsupported(file_, t.loc, "struct '" + t.text + "' passed whole (only an array of structs)");
        }
        passed.second[path] = member->var;
      }
      args.values.push_back(MakeConst(0, kLongLong));
      args.pointees.emplace_back();
      continue;
    }
    if (!alone && AtPointerValue() && ArgumentIsPointer()) {  // `a + 1`, `&a[i]`, `p + k`
      const PointerValue value = ParsePointerValue();
      args.values.push_back(value.index);
      args.pointees.push_back(value.array);
      if (!Is(",") && !Is(")")) {
        FailUnsupported(file_, Peek().loc, "pointer argument (only a pointer plus or minus an integer)");
      }
      continue;
    }
    if (const Binding* object = Is("&") ? ObjectAt(1) : nullptr; object && (Is(",", 2) || Is(")", 2))) {
      Next();  // `f(&s)`, `f(&x)`: the number of its object
      Next();
      args.values.push_back(MakeVar(object->object, kHeapRef));
      args.pointees.emplace_back();
      continue;
    }
    if (Is("&") && Peek(1).kind == TokKind::kIdent) {
      const Address address = ParseAddress(")", "a whole argument");
      args.values.push_back(address.value);
      args.pointees.push_back(address.pointee);
      continue;
    }
    const Var* v = b && !b->var.empty() && b->refused.empty() ? &prog_.VarNamed(b->var) : nullptr;
    if (v && v->is_array && !inner_extents_.count(v->name) && MovesPointerParameter(fn, args.values.size())) {
      Next();
      args.values.push_back(MakeConst(0, kLongLong));
      args.pointees.push_back(v->name);
      continue;
    }
    if (v && v->is_array) {
      Next();
      args.values.push_back(MakeVar(v->name, v->type));
    } else {
      args.values.push_back(ParseExpr());
    }
    args.pointees.emplace_back();
  } while (Accept(","));
  Expect(")");
  return args;
}

StmtPtr Parser::ParseInlinedCall(ExprPtr result) {
  const Token t = Next();
  Next();
  const FunctionDef& fn = functions_.at(t.text);
  return Inline(fn, ParseArguments(fn), t.loc, std::move(result));
}

Parser::CallerState Parser::EnterCall(const FunctionDef& fn, const Arguments& args, Loc loc,
                                      std::vector<std::optional<Var>>& params) {
  if (!fn.unsupported.empty()) FailUnsupported(file_, loc, "call of '" + fn.name + "': " + fn.unsupported);
  if (++inlined_calls_ > kMaxInlinedCalls) {
    const bool recursion = IsRecursive(fn) || std::any_of(inlining_.begin(), inlining_.end(),
                                                          [&](const InlineFrame& f) { return IsRecursive(*f.fn); });
    FailLimit(file_, loc, "more than " + std::to_string(kMaxInlinedCalls) + " inlined calls", recursion);
  }
  if (deadline_.Passed()) {
    throw LimitError(fmt::format("time-out (parsing and inlining stopped after {:.2f} s at {}; inlined calls: {})",
                                 deadline_.seconds, LocatedAt(file_, loc, "a call"), inlined_calls_));
  }
  CallerState caller{pos_, std::move(scopes_), std::exchange(hoisted_, nullptr)};
  scopes_ = {caller.scopes.front(), {}};
  pos_ = fn.params;
  params = DeclareParameters(fn, &args, loc);
  if (params.size() != args.values.size()) {
    FailSyntax(file_, loc, "'" + fn.name + "' takes " + std::to_string(params.size()) + " argument(s), not " +
                               std::to_string(args.values.size()));
  }
  pos_ = fn.body;
  return caller;
}

void Parser::LeaveCall(CallerState& caller) {
  pos_ = caller.pos;
  scopes_ = std::move(caller.scopes);
  hoisted_ = caller.hoisted;
}

StmtPtr Parser::ParseCalledBody(const FunctionDef& fn, const Arguments& arguments, Loc loc, const ExprPtr& result,
                                std::vector<std::optional<Var>>& params, std::vector<StmtPtr>& first,
                                bool procedure) {
  CallerState caller = EnterCall(fn, arguments, loc, params);
  inlining_.push_back({&fn, result});
  jump_marks_.emplace_back();
  StmtPtr body = WithJumpsLowered(ParseBlock());
  const InlineFrame frame = inlining_.back();
  inlining_.pop_back();
  LeaveCall(caller);
  last_pointer_result_ = frame.result_array;
  // A run that ends the body without a return leaves the value its caller reads undefined (its last return may
  // sit in a block, or a loop; Addition01's three ifs, one of which returns, end no run). Lowered with the
  // returns, the check runs only where none returned. A procedure's calls do not all read the value (recursive's
  // BallRajamani-SPIN2000-Fig1 drops it): there it is any value, as an uninitialised variable's.
  if (result && !frame.returned && CompletesNormally(body)) {
    body = MakeBlock({body, procedure ? MakeHavoc(result->name) : UndefinedCall(result)});
  }
  if (!frame.returns_early) return body;
  const ExprPtr flag = FreshVar("returned_" + fn.name, kInt);
  bool may_return = false;
  first.push_back(MakeAssign(flag, MakeConst(0)));
  return LowerReturns(body, flag, false, may_return);
}

StmtPtr Parser::Inline(const FunctionDef& fn, const Arguments& arguments, Loc loc, ExprPtr result) {
  last_pointer_result_.clear();
  if (summarize_recursion_ && IsRecursive(fn)) return SummaryCall(fn, arguments, loc, result);
  if (RecursesTooDeep(fn)) {
    prog_.recursion_cuts.insert(fmt::format("{}:{}:{}: '{}'", file_, loc.line, loc.col, fn.name));
    return UndefinedCall(result);
  }
  std::vector<std::optional<Var>> params;
  std::vector<StmtPtr> out;
  StmtPtr body = ParseCalledBody(fn, arguments, loc, result, params, out);
  const std::vector<ExprPtr>& args = arguments.values;
  const Effects effects = EffectsOf(body);
  std::set<std::string> written = effects.ArraysWritten();
  written.insert(effects.writes.begin(), effects.writes.end());
  std::map<std::string, ExprPtr> substituted;  // parameter names are fresh: no argument reads another's
  for (size_t i = 0; i < params.size(); ++i) {
    if (!params[i]) continue;
    const Var& p = *params[i];
    if (!HasNondet(args[i]) && !written.count(p.name) && ReadsNone(args[i], written)) {
      substituted.emplace(p.name, args[i]);
    } else {
      out.push_back(MakeAssign(MakeVar(p.name, p.type), MakeCast(p.type, args[i])));
    }
  }
  out.push_back(SubstituteStmt(body, substituted));
  return MakeBlock(std::move(out));
}

bool Parser::IsRecursive(const FunctionDef& fn) {
  if (const auto known = recursive_.find(fn.name); known != recursive_.end()) return known->second;
  std::set<std::string> seen;
  std::vector<const FunctionDef*> stack = {&fn};
  while (!stack.empty()) {
    const FunctionDef* f = stack.back();
    stack.pop_back();
    for (size_t k = f->body; k < f->body_end; ++k) {
      if (toks_[k].kind != TokKind::kIdent || toks_[k + 1].text != "(") continue;
      const auto callee = functions_.find(toks_[k].text);
      if (callee == functions_.end()) continue;
      if (callee->first == fn.name) return recursive_[fn.name] = true;
      if (seen.insert(callee->first).second) stack.push_back(&callee->second);
    }
  }
  return recursive_[fn.name] = false;
}

StmtPtr Parser::SummaryCall(const FunctionDef& fn, const Arguments& arguments, Loc loc, const ExprPtr& result) {
  const std::string why = "summary of the recursive function '" + fn.name + "': ";
  if (fn.returns_pointer || fn.result_type == kHeapRef) FailUnsupported(file_, loc, why + "it returns a pointer");
  for (const ExprPtr& a : arguments.values) {
    if (a->type == kHeapRef || (a->kind == ExprKind::kVar && prog_.VarNamed(a->name).is_array)) {
      FailUnsupported(file_, a->loc, why + "an argument that is a pointer or an array");
    }
  }
  if (!summarized_.count(fn.name)) BuildProcedure(fn, arguments, loc);
  summary_calls_.push_back({fn.name, arguments.values.size(), loc});
  // A call whose value nothing reads is made all the same, into a variable of its own: it may block, or reach an
  // error, as its run does (until it was, the verdicts on afterrec-1 and afterrec_2calls-1 were wrong).
  const IntType type = fn.returns_value ? fn.result_type : kInt;
  const ExprPtr target = result && fn.returns_value ? result : FreshVar(fn.name + "_value", type);
  return MakeAssign(target, MakeCall(fn.name, arguments.values, type));
}

void Parser::BuildProcedure(const FunctionDef& fn, const Arguments& arguments, Loc loc) {
  const std::string why = "summary of the recursive function '" + fn.name + "': ";
  summarized_.insert(fn.name);
  const size_t first_var = prog_.vars.size();
  // A void function's result is a variable that its body never sets: any value, which no caller reads.
  const ExprPtr result = FreshVar(fn.name + "_result", fn.returns_value ? fn.result_type : kInt);
  std::vector<std::optional<Var>> params;
  std::vector<StmtPtr> first;
  const StmtPtr rest = ParseCalledBody(fn, arguments, loc, fn.returns_value ? result : nullptr, params, first, true);
  Procedure proc{fn.name, {}, result->name, nullptr};
  std::vector<StmtPtr> body;
  for (const std::optional<Var>& p : params) {
    if (!p || p->is_array) FailUnsupported(file_, loc, why + "a parameter that is not an integer");
    const ExprPtr in = FreshVar(p->name + "_in", p->type);
    proc.params.push_back(in->name);
    body.push_back(MakeAssign(MakeVar(p->name, p->type), in));
  }
  body.insert(body.end(), first.begin(), first.end());
  body.push_back(rest);
  proc.body = MakeBlock(std::move(body));
  std::set<std::string> own;
  for (size_t k = first_var; k < prog_.vars.size(); ++k) own.insert(prog_.vars[k].name);
  const Effects effects = EffectsOf(proc.body);
  if (const std::set<std::string> arrays = effects.ArraysAccessed(); !arrays.empty()) {
    FailUnsupported(file_, fn.loc, why + "it reads or writes the array '" + *arrays.begin() + "'");
  }
  for (const std::string& v : effects.Scalars()) {
    if (!own.count(v)) proc.globals.push_back(v);  // the callee sees only the globals of the caller's variables
  }
  prog_.procedures.push_back(std::move(proc));
}

void Parser::CompleteProcedureGlobals() {
  // The procedures each one calls, by the calls in its body.
  std::map<std::string, std::set<std::string>> callees;
  for (const Procedure& p : prog_.procedures) {
    const std::function<void(const ExprPtr&)> calls = [&](const ExprPtr& e) {
      if (!e) return;
      if (e->kind == ExprKind::kCall) callees[p.name].insert(e->name);
      for (const ExprPtr& a : e->args) calls(a);
    };
    ForEachExpr(p.body, calls);
  }
  std::map<std::string, std::set<std::string>> globals;
  for (const Procedure& p : prog_.procedures) globals[p.name] = {p.globals.begin(), p.globals.end()};
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [caller, called] : callees) {
      for (const std::string& callee : called) {
        for (const std::string& g : globals.at(callee)) changed = globals[caller].insert(g).second || changed;
      }
    }
  }
  for (Procedure& p : prog_.procedures) {
    p.globals.assign(globals[p.name].begin(), globals[p.name].end());
    std::vector<StmtPtr> body;
    for (const std::string& g : p.globals) {
      const IntType type = prog_.VarNamed(g).type;
      const ExprPtr in = FreshVar(g + "_in", type);
      p.global_ins.push_back(in->name);
      body.push_back(MakeAssign(MakeVar(g, type), in));
    }
    body.push_back(p.body);
    p.body = MakeBlock(std::move(body));
  }
}

Int128 Parser::CallSites(const FunctionDef& fn, const std::set<std::string>& cycle) const {
  Int128 calls = 0;
  for (size_t k = fn.body; k < fn.body_end; ++k) {
    calls += toks_[k].kind == TokKind::kIdent && toks_[k + 1].text == "(" && cycle.count(toks_[k].text);
  }
  return std::max<Int128>(calls, 1);
}

bool Parser::RecursesTooDeep(const FunctionDef& fn) const {
  const auto first = std::find_if(inlining_.begin(), inlining_.end(),
                                  [&fn](const InlineFrame& frame) { return frame.fn == &fn; });
  if (first == inlining_.end()) return false;
  std::set<std::string> cycle;
  for (auto frame = first; frame != inlining_.end(); ++frame) cycle.insert(frame->fn->name);
  Int128 tree = CallSites(fn, cycle);
  for (auto frame = first; frame != inlining_.end(); ++frame) tree *= CallSites(*frame->fn, cycle);
  return inlining_.end() - first >= kMaxRecursionDepth || tree > kMaxRecursionCalls;
}

StmtPtr Parser::UndefinedCall(const ExprPtr& result) {
  const auto undefined = [](IntType t) {
    return t == kHeapRef ? MakeNondet(t) : MakeBinary("/", MakeConst(1, t), MakeConst(0, t), t);
  };
  std::vector<StmtPtr> out = {MakeAssert(MakeBinary("==", undefined(kInt), MakeConst(0), kInt))};
  if (result) out.push_back(MakeAssign(result, undefined(result->type)));
  return MakeBlock(std::move(out));
}

bool Parser::IsOneReturn(const FunctionDef& fn) {
  if (const auto known = one_return_.find(fn.name); known != one_return_.end()) return known->second;
  bool& is = one_return_[fn.name];  // false while its body is looked at
  if (toks_[fn.body + 1].text != "return") return is;
  for (size_t k = fn.body + 2; k < fn.body_end; ++k) {
    const Token& t = toks_[k];
    if (t.kind == TokKind::kPunct && t.text == ";") return is = k + 1 == fn.body_end;
    if (t.kind == TokKind::kPunct && kAssignmentOperators.count(t.text)) return is;
    const auto callee = t.kind == TokKind::kIdent && toks_[k + 1].text == "(" ? functions_.find(t.text)
                                                                              : functions_.end();
    if (callee != functions_.end() && !IsOneReturn(callee->second)) return is;
  }
  return is;
}

ExprPtr Parser::ParseExpressionCall(const Token& t) {
  const FunctionDef& fn = functions_.at(t.text);
  if (fn.returns_pointer) {
    FailUnsupported(file_, t.loc, "call of '" + fn.name + "', which returns a pointer, inside an expression (only "
                                  "as the value of a pointer: 'p = " + fn.name + "(...);')");
  }
  const Arguments arguments = ParseArguments(fn);
  const std::vector<ExprPtr>& args = arguments.values;
  const bool reads_input = std::any_of(args.begin(), args.end(), [](const ExprPtr& a) { return HasNondet(a); });
  if (fn.returns_value && (!IsOneReturn(fn) || reads_input) && hoisted_) {
    const ExprPtr value = FreshVar("value_" + fn.name, fn.result_type);
    StmtPtr inlined = Inline(fn, arguments, t.loc, value);
    hoisted_->statements.push_back(std::move(inlined));
    return value;
  }
  if (!fn.returns_value && hoisted_) {  // `(s == 1) ? 0 : fail();`: gcc refuses any use of the void value
    hoisted_->statements.push_back(Inline(fn, arguments, t.loc, nullptr));
    return MakeConst(0);
  }
  const std::string refused = "call of '" + fn.name + "' inside an expression that no statement runs (the "
                              "initialiser of a global or a static, a constant expression): inlined there only "
                              "where the function's body is one 'return' without assignments";
  std::vector<std::optional<Var>> params;
  CallerState caller = EnterCall(fn, arguments, t.loc, params);
  Expect("{");
  if (!fn.returns_value || !IsOneReturn(fn)) FailUnsupported(file_, t.loc, refused);
  Expect("return");
  inlining_.push_back({&fn, nullptr});
  ExprPtr value = ParseExpr();
  inlining_.pop_back();
  Expect(";");
  LeaveCall(caller);
  // Each call of another such function in E is its expression again: functions that call the next twice
  // double it at each step (until 2026-12-05 that took time exponential in their number; a hang).
  constexpr size_t kMaxInlinedNodes = 100000;
  const auto require_small = [&] {
    if (NodeCount(value, kMaxInlinedNodes) > kMaxInlinedNodes) {
      FailUnsupported(file_, t.loc, "call of '" + fn.name + "', whose expression inlined is over " +
                                        std::to_string(kMaxInlinedNodes) + " nodes");
    }
  };
  require_small();
  std::map<std::string, ExprPtr> substituted;
  for (size_t i = 0; i < params.size(); ++i) {
    if (!params[i]) continue;
    if (HasNondet(args[i])) {
      FailUnsupported(file_, t.loc, "argument of '" + fn.name + "' that reads an input, inside an expression");
    }
    substituted.emplace(params[i]->name, args[i]);
  }
  value = Substitute(value, substituted);
  require_small();
  return MakeCast(fn.result_type, value);
}

std::vector<std::optional<Var>> Parser::DeclareParameters(const FunctionDef& fn, const Arguments* args, Loc loc) {
  Expect("(");
  std::vector<std::optional<Var>> params;
  if (Is("void") && Is(")", 1)) Next();
  if (Accept(")")) return params;
  do {
    const Token start = Peek();
    auto spec = ParseSpecifiers(false);
    if (!spec || spec->is_void) FailUnsupported(file_, start.loc, "parameter of '" + fn.name + "'");
    if (!spec->record_tag.empty() && args && args->struct_arrays.count(params.size())) {  // `S a[]` given `a`
      BindStructArray(fn, args->struct_arrays.at(params.size()), spec->record_tag, loc);
      params.push_back(std::nullopt);
      continue;
    }
    const int stars = spec->pointers + (Is("*") ? 1 : 0) + (Is("*") && Is("*", 1) ? 1 : 0);
    const size_t index = params.size();
    if ((!spec->record_tag.empty() || integers_on_heap_) && stars == 2 && args && index < args->values.size() &&
        !args->pointees[index].empty()) {  // `struct node **pp` given `&head`, `&p->next`; `int **pp`, `&p`
      while (Accept("*")) {
      }
      const Token name_tok = Peek();
      ExpectIdent();
      const Pointee pointee = spec->record_tag.empty() ? Pointee{"", spec->type} : Pointee{spec->record_tag};
      params.push_back(BindHeapPointerAddress(name_tok, args->pointees[index], pointee, loc));
      continue;
    }
    const bool heap_pointer =
        spec->pointers == 1 ? !Is("*") && !Is("[", 1) : Is("*") && !Is("*", 1) && !Is("[", 2);
    if (integers_on_heap_ && spec->record_tag.empty() && heap_pointer && args && index < args->values.size() &&
        args->values[index]->type == kHeapRef) {  // `int *p` given `&x` or such a pointer
      params.push_back(DeclareHeapParameter(fn, args, index, Pointee{"", spec->type}, loc));
      continue;
    }
    if (!spec->record_tag.empty() && heap_pointer) {  // a pointer to structs on the heap
      params.push_back(DeclareHeapParameter(fn, args, params.size(), Pointee{spec->record_tag}, loc));
      continue;
    }
    if (!spec->record_tag.empty()) FailUnsupported(file_, start.loc, "struct parameter of '" + fn.name + "'");
    if (args && args->struct_arrays.count(params.size())) {
      FailUnsupported(file_, loc, "argument " + std::to_string(params.size() + 1) + " of '" + fn.name +
                                      "': an array of structs, to a parameter of another type");
    }
    const bool pointer = Accept("*");
    if (Is("*")) FailUnsupported(file_, Peek().loc, "pointer to pointer parameter of '" + fn.name + "'");
    const Token name_tok = Peek();
    const std::string name = ExpectIdent();
    const bool brackets = Is("[");
    const bool array = pointer || brackets;
    if (Is("[")) SkipBalanced();
    std::vector<ExprPtr> inner;  // of a multi-dimensional array parameter, constants
    while (Is("[")) {
      const Token bracket = Next();
      if (inner.size() + 1 == kMaxDimensions) {
        FailUnsupported(file_, bracket.loc, "array parameter of '" + fn.name + "' of more than " +
                                                std::to_string(kMaxDimensions) + " dimensions");
      }
      const std::optional<Int128> extent = FoldConstant(ParseExpr());
      Expect("]");
      if (!extent) {
        FailUnsupported(file_, bracket.loc, "multi-dimensional array parameter of '" + fn.name +
                                                "' whose size is not a constant");
      }
      inner.push_back(MakeConst(*extent, kLongLong));
    }
    const size_t k = params.size();
    const ExprPtr arg = args && k < args->values.size() ? args->values[k] : nullptr;
    const bool array_arg = arg && arg->kind == ExprKind::kVar && prog_.VarNamed(arg->name).is_array;
    const std::string argument = "argument " + std::to_string(k + 1) + " of '" + fn.name + "': ";
    const std::string pointee = arg ? args->pointees[k] : "";
    if (!pointee.empty()) {
      if (!pointer || brackets) {
        FailUnsupported(file_, loc, argument + "an address, to a parameter that is no pointer");
      }
      if (!(prog_.VarNamed(pointee).type == spec->type)) {
        FailUnsupported(file_, loc, argument + "the address of a variable of another type");
      }
      params.push_back(BindPointer(name, name_tok.loc, pointee));  // a cell's index: a parameter of its own
      continue;
    }
    if (arg && array != array_arg) {
      FailUnsupported(file_, loc, argument + (array ? "an array parameter takes an array's name only"
                                                    : "an integer parameter given an array"));
    }
    if (array_arg && !(prog_.VarNamed(arg->name).type == spec->type)) {
      FailUnsupported(file_, loc, argument + "an array of another cell type");
    }
    if (array_arg && !SameExtents(inner, arg->name)) {
      FailUnsupported(file_, loc, argument + "an array of other dimensions than the parameter's");
    }
    if (array_arg) {
      if (scopes_.back().count(name)) FailSyntax(file_, name_tok.loc, "redefinition of '" + name + "'");
      scopes_.back()[name] = Binding{arg->name, nullptr, "", std::nullopt, std::nullopt};
      params.push_back(std::nullopt);
    } else if (array) {
      const std::string unique = Declare(name, spec->type, true, name_tok.loc);
      if (!inner.empty()) inner_extents_[unique] = inner;
      params.push_back(std::nullopt);
    } else {
      params.push_back(Var{Declare(name, spec->type, false, name_tok.loc), spec->type});
    }
  } while (Accept(","));
  Expect(")");
  return params;
}

void Parser::BindStructArray(const FunctionDef& fn,
                             const std::pair<const Record*, std::map<std::string, std::string>>& passed,
                             const std::string& tag, Loc loc) {
  const bool pointer = Accept("*");
  const Token name_tok = Peek();
  const std::string name = ExpectIdent();
  if (pointer == Is("[")) FailUnsupported(file_, name_tok.loc, "struct parameter of '" + fn.name + "'");
  if (Is("[")) SkipBalanced();
  if (Is("[")) FailUnsupported(file_, Peek().loc, "multi-dimensional array parameter of structs");
  const auto found = records_.find(tag);
  if (found == records_.end() || &found->second != passed.first) {
    FailUnsupported(file_, loc, "argument of '" + fn.name + "': an array of another struct than its parameter's");
  }
  if (scopes_.back().count(name)) FailSyntax(file_, name_tok.loc, "redefinition of '" + name + "'");
  scopes_.back()[name] = Binding{"", passed.first, "", std::nullopt, std::nullopt};
  for (const auto& [path, array] : passed.second) {
    scopes_.back()[name + "." + path] = Binding{array, nullptr, "", std::nullopt, std::nullopt};
  }
}

Var Parser::DeclareHeapParameter(const FunctionDef& fn, const Arguments* args, size_t k, const Pointee& pointee,
                                 Loc loc) {
  Accept("*");
  const Token name_tok = Peek();
  const std::string unique = Declare(ExpectIdent(), kHeapRef, false, name_tok.loc);
  heap_slots_[unique] = pointee;
  if (args && k < args->values.size()) {
    if (!args->pointees[k].empty()) {
      FailUnsupported(file_, loc, "argument " + std::to_string(k + 1) + " of '" + fn.name + "': an address, to a "
                                  "pointer to " + PointeeName(pointee));
    }
    Token at = name_tok;
    at.loc = loc;
    HeapValue(args->values[k], pointee, at);
  }
  return Var{unique, kHeapRef};
}

bool Parser::SameExtents(const std::vector<ExprPtr>& parameter, const std::string& array) const {
  const auto found = inner_extents_.find(array);
  const std::vector<ExprPtr> none;
  const std::vector<ExprPtr>& extents = found == inner_extents_.end() ? none : found->second;
  if (extents.size() != parameter.size()) return false;
  for (size_t d = 0; d < extents.size(); ++d) {
    if (FoldConstant(extents[d]) != FoldConstant(parameter[d])) return false;
  }
  return true;
}

StmtPtr Parser::ParseInlinedReturn(Loc loc) {
  ExprPtr value;
  Hoisted hoisted;
  if (inlining_.back().fn->returns_pointer && !Is(";")) {
    value = WithCallsHoisted(hoisted, [&] { return ParsePointerResult(); });
  } else if (const FunctionDef& fn = *inlining_.back().fn; fn.result_type == kHeapRef && AtAllocationCall()) {
    value = FreshVar("object", kHeapRef);  // `return malloc(...);`
    heap_slots_[value->name] = fn.result_pointee;
    hoisted.statements.push_back(AllocateObject(value, fn.result_pointee));
  } else if (!Is(";")) {
    const Token at = Peek();
    value = WithCallsHoisted(hoisted, [&] { return ParseCommaExpr(); });
    if (fn.result_type == kHeapRef) value = HeapValue(value, fn.result_pointee, at);
  }
  Expect(";");
  InlineFrame& frame = inlining_.back();  // after the calls that value inlines, which push and pop frames
  const std::string& name = frame.fn->name;
  if (!value && frame.fn->returns_value) FailSyntax(file_, loc, "'return' without a value in '" + name + "'");
  if (value && !frame.fn->returns_value) FailSyntax(file_, loc, "'return' with a value in void '" + name + "'");
  std::vector<StmtPtr> out = std::move(hoisted.statements);
  if (value && frame.result && frame.fn->returns_pointer) {
    out.push_back(MakeAssign(frame.result, value));
  } else if (value && frame.result) {
    out.push_back(MakeAssign(frame.result, MakeCast(frame.result->type, MakeCast(frame.fn->result_type, value))));
  }
  if (pos_ == frame.fn->body_end) {
    frame.returned = true;
  } else {
    frame.returns_early = true;
    out.push_back(MakeSimple(StmtKind::kReturn));
  }
  return MakeBlock(std::move(out));
}

ExprPtr Parser::ParsePointerResult() {
  InlineFrame& frame = inlining_.back();
  const Token at = Peek();
  if (!AtPointerValue()) {
    FailUnsupported(file_, at.loc, "value returned by '" + frame.fn->name + "' (only a pointer into an array)");
  }
  const PointerValue value = ParsePointerValue();
  if (!(prog_.VarNamed(value.array).type == frame.fn->result_type)) {
    FailUnsupported(file_, at.loc, "'" + frame.fn->name + "' returning a pointer into an array of another type");
  }
  if (frame.result_array.empty()) frame.result_array = value.array;
  if (value.array != frame.result_array) {
    FailUnsupported(file_, value.loc, "'" + frame.fn->name + "' returning pointers into different arrays");
  }
  return value.index;
}

std::pair<StmtPtr, Parser::PointerValue> Parser::ParsePointerCall(const std::string& name, IntType type) {
  const Token call = Peek();
  const FunctionDef& fn = functions_.at(call.text);
  if (!fn.returns_pointer) {
    FailUnsupported(file_, call.loc, "value of pointer '" + name + "' (only a pointer into an array)");
  }
  const ExprPtr index = FreshVar("result_" + fn.name, kLongLong);
  StmtPtr inlined = ParseInlinedCall(index);
  if (last_pointer_result_.empty()) {  // its recursion cut (RecursesTooDeep)
    FailUnsupported(file_, call.loc, "pointer returned by '" + fn.name + "' past the depth of inlining");
  }
  if (!(prog_.VarNamed(last_pointer_result_).type == type)) {
    FailUnsupported(file_, call.loc, "pointer '" + name + "' given a pointer into an array of another type");
  }
  return {inlined, PointerValue{last_pointer_result_, index, call.loc}};
}

void Parser::SkipBalancedRest() {
  int depth = 1;
  while (depth > 0) {
    if (AtEnd()) FailSyntax(file_, Peek().loc, "expected ')'");
    const std::string& s = Next().text;
    if (s == "(") ++depth;
    if (s == ")") --depth;
  }
}

}  // namespace fusion::parsing
