#include "fusion/parser.h"

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>

#include "fusion/errors.h"
#include "fusion/heap.h"
#include "fusion/lexer.h"
#include "fusion/parser_state.h"
#include "fusion/preprocessor.h"

namespace fusion {
namespace parsing {

namespace {

// The tokens without the qualifiers.
std::vector<Token> WithoutQualifiers(std::vector<Token> toks) {
  std::erase_if(toks, [](const Token& t) { return t.kind == TokKind::kIdent && kQualifiers.count(t.text); });
  return toks;
}

}  // namespace

Parser::Parser(std::string file, std::vector<Token> toks, DataModel model, bool integers_on_heap,
               bool summarize_recursion, Deadline deadline)
    : file_(std::move(file)),
      toks_(std::move(toks)),
      integers_on_heap_(integers_on_heap),
      summarize_recursion_(summarize_recursion),
      deadline_(deadline),
      long_bits_(model == DataModel::kILP32 ? 32 : 64),
      size_type_{long_bits_, false} {
  prog_.file = file_;
  prog_.pointer_bytes = long_bits_ / 8;
  scopes_.emplace_back();
  for (size_t k = 0; k + 2 < toks_.size(); ++k) {
    const std::string& after = toks_[k + 2].text;
    if (toks_[k].text == "&" && toks_[k + 1].kind == TokKind::kIdent && after != "." && after != "[" &&
        after != "->") {
      addressed_.insert(toks_[k + 1].text);
    }
  }
}

Program Parser::Run() {
  while (!AtEnd()) TopLevel();
  if (!main_pos_) FailUnsupported(file_, Peek().loc, "program: no definition of main");
  pos_ = *main_pos_;
  std::vector<StmtPtr> all = globals_init_;
  jump_marks_.emplace_back();
  StmtPtr body = WithJumpsLowered(ParseBlock());
  all.insert(all.end(), static_inits_.begin(), static_inits_.end());  // known once main's calls are parsed
  all.push_back(std::move(body));
  if (!prog_.heap_objects.empty() || !prog_.heap_fields.empty()) {  // the heap starts empty: no object numbered
    std::vector<StmtPtr> heap{MakeAssign(HeapObjects(), MakeConst(0, kHeapRef))};
    for (const std::string& array : prog_.heap_fields) heap.push_back(MakeHavoc(array, MakeConst(0)));
    all.insert(all.begin(), MakeBlock(std::move(heap)));
  }
  prog_.body = MakeBlock(std::move(all));
  CompleteProcedureGlobals();
  for (const SummaryCallSite& call : summary_calls_) {
    const Procedure& proc = prog_.ProcedureNamed(call.fn);
    if (proc.params.size() != call.args) {
      FailSyntax(file_, call.loc, "'" + call.fn + "' takes " + std::to_string(proc.params.size()) +
                                      " argument(s), not " + std::to_string(call.args));
    }
  }
  CheckHeapPointers(prog_);
  return std::move(prog_);
}

void Parser::FailTooDeep(Loc loc) const {
  FailLimit(file_, loc, "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
}

void Parser::SkipBalanced() {
  int depth = 0;
  do {
    if (AtEnd()) FailSyntax(file_, Peek().loc, "unbalanced brackets");
    const std::string& t = Next().text;
    if (t == "(" || t == "{" || t == "[") ++depth;
    if (t == ")" || t == "}" || t == "]") --depth;
  } while (depth > 0);
}

void Parser::SkipAttributes() {
  while (Is("__attribute__") || Is("__asm__") || Is("__asm")) {
    Next();
    if (Is("(")) SkipBalanced();
  }
}

void Parser::SkipToEnd(bool at_comma) {
  while (!Is(";") && !(at_comma && Is(","))) {
    if (AtEnd()) FailSyntax(file_, Peek().loc, "expected ';'");
    if (Is("(") || Is("{") || Is("[")) {
      SkipBalanced();
    } else {
      Next();
    }
  }
}

void Parser::SkipDeclaration() {
  SkipToEnd(false);
  Next();
}

void Parser::TopLevel() {
  SkipAttributes();
  if (Accept(";")) return;
  if (Is("typedef")) {
    Next();
    auto base = ParseSpecifiers(true);
    // The typedef's name is the last identifier before ';' outside brackets; only plain integer
    // typedefs are usable later.
    bool plain = true;
    std::string name;
    int stars = 0, names = 0;
    while (!Is(";")) {
      if (AtEnd()) FailSyntax(file_, Peek().loc, "expected ';'");
      if (Is("(") || Is("[") || Is("{")) {
        plain = false;
        SkipBalanced();
        continue;
      }
      if (Is("*")) ++stars;
      if (Peek().kind == TokKind::kIdent && !Is("__attribute__")) {
        name = Peek().text;
        ++names;
      }
      if (Is("__attribute__")) {
        SkipAttributes();
        continue;
      }
      Next();
    }
    Next();
    if (!name.empty()) {
      if (base && plain && stars == 0 && !base->is_void) {
        typedefs_[name] = *base;
      } else if (base && plain && stars == 1 && names == 1 && !base->record_tag.empty() && base->pointers == 0) {
        typedefs_[name] = *base;  // a pointer to objects of the struct on the heap
        typedefs_[name].pointers = 1;
      } else {
        typedefs_[name] = ParsedType{kInt, true, false, false, ""};
        opaque_typedefs_.insert(name);
      }
    }
    return;
  }
  const Token start = Peek();
  const size_t start_pos = pos_;
  auto spec = ParseSpecifiers(true);
  // C89's implicit int, which gcc still accepts: `main() { ... }` (array-lopstr16's tasks).
  if (!spec && pos_ == start_pos && start.kind == TokKind::kIdent && Is("(", 1)) spec = ParsedType{};
  if (!spec) FailSyntax(file_, start.loc, "expected a declaration before '" + start.text + "'");
  if (Accept(";")) return;  // a bare struct/enum declaration
  // Function or variable declarators.
  while (true) {
    SkipAttributes();
    int pointers = spec->pointers;
    while (Accept("*")) {
      ++pointers;
      while (kIgnoredSpecifiers.count(Peek().text)) Next();
    }
    if (Is("(")) {  // function pointer or parenthesised declarator: only in declarations we skip
      SkipDeclaration();
      return;
    }
    const Token name_tok = Peek();
    const std::string name = ExpectIdent();
    if (Is("(")) {
      FunctionDef def;
      def.name = name;
      def.loc = name_tok.loc;
      def.params = pos_;
      SkipBalanced();
      SkipAttributes();
      if (Is("{")) {
        def.body = pos_;
        if (kKnownHelpers.count(name) || name.rfind("__VERIFIER_nondet_", 0) == 0) {
          SkipBalanced();
          return;
        }
        SkipBody(def);
        def.body_end = pos_ - 1;
        if ((name == "main" && main_pos_) || functions_.count(name)) {
          FailSyntax(file_, name_tok.loc, "redefinition of function '" + name + "'");
        }
        if (name == "main") {
          main_pos_ = def.body;
          main_end_ = def.body_end;
          return;
        }
        if (pointers > 1 || (pointers == 1 && spec->is_void)) def.unsupported = "it returns a pointer";
        def.returns_pointer = pointers == 1 && spec->record_tag.empty();
        if (pointers == 0 && spec->is_floating) def.unsupported = "it returns a floating-point value";
        if (pointers == 0 && !spec->record_tag.empty()) def.unsupported = "it returns a struct";
        def.returns_value = !spec->is_void || pointers > 0;
        def.result_type = spec->type;
        if (pointers == 1 && !spec->record_tag.empty()) {  // a pointer to structs on the heap
          def.result_type = kHeapRef;
          def.result_pointee = Pointee{spec->record_tag};
        } else if (pointers == 1 && integers_on_heap_ && !spec->is_void && !spec->is_floating) {
          def.returns_pointer = false;  // a pointer to integers on the heap
          def.result_type = kHeapRef;
          def.result_pointee = Pointee{"", spec->type};
        }
        functions_.emplace(name, std::move(def));
        return;
      }
      if (Accept(",")) continue;
      Expect(";");
      return;
    }
    // A global variable.
    if (Is("[") && Is("]", 1) && std::any_of(toks_.begin() + start_pos, toks_.begin() + pos_,
                                             [](const Token& t) { return t.text == "extern"; })) {
      // `extern char *sys_errlist[];` from a system header: an array defined elsewhere, of a size this file
      // does not tell; refused where it is used.
      SkipBalanced();
      scopes_.back()[name] =
          Binding{"", nullptr, "global array declared extern without its size", std::nullopt, std::nullopt};
      if (Accept(",")) continue;
      Expect(";");
      return;
    }
    if (!spec->record_tag.empty()) {
      for (StmtPtr& st : DeclareStructVariable(*spec, name_tok, pointers, true)) globals_init_.push_back(st);
      SkipAttributes();
      if (Accept(",")) continue;
      Expect(";");
      return;
    }
    const bool integer = !spec->is_void && !spec->is_floating && !spec->is_aggregate;
    if (integers_on_heap_ && integer && (pointers == 1 || (pointers == 0 && !Is("[") && addressed_.count(name)))) {
      for (StmtPtr& st : pointers == 1 ? DeclareHeapPointer(name_tok, Pointee{"", spec->type}, true)
                                       : DeclareIntegerObject(name_tok, spec->type, true)) {
        globals_init_.push_back(st);
      }
      if (Accept(",")) continue;
      Expect(";");
      return;
    }
    if (spec->is_floating) FailUnsupported(file_, name_tok.loc, "floating-point variable '" + name + "'");
    if (spec->is_aggregate || opaque_typedefs_.count(start.text)) {
      FailUnsupported(file_, start.loc, "type '" + start.text + "'");
    }
    if (pointers == 1 && !spec->is_void && Is("=") && AtPointerInitialiser(1, false)) {  // `int *p = a + 1;`
      Next();
      for (StmtPtr& st : DeclarePointerInto(name_tok, spec->type)) globals_init_.push_back(st);
      if (Accept(",")) continue;
      Expect(";");
      return;
    }
    if (pointers > 0 && !spec->is_void && !Is("[") && !Is("=")) {
      if (pointers == 1 && AssignedAPointerLater(name)) {  // `int *p;`, then `p = a;` in main or a function
        DeclareUnpointed(name_tok, spec->type);
      } else {  // an array once main mallocs it
        const std::string unique = Declare(name, spec->type, true, name_tok.loc);
        maybe_null_.insert(unique);
        globals_init_.push_back(MakeHavoc(unique, MakeConst(0)));
      }
      if (Accept(",")) continue;
      Expect(";");
      return;
    }
    if (pointers == 1 && !spec->is_void && Is("[")) {  // `int *a[N];`: pointers to integers on the heap
      for (StmtPtr& st : DeclareHeapPointer(name_tok, Pointee{"", spec->type}, true)) globals_init_.push_back(st);
      if (Accept(",")) continue;
      Expect(";");
      return;
    }
    if (pointers > 0) FailUnsupported(file_, name_tok.loc, "global pointer '" + name + "'");
    if (Accept("[")) {  // C zeroes a global array's cells that its initialiser does not set
      if (spec->is_void) FailSyntax(file_, name_tok.loc, "array '" + name + "' of void");
      for (StmtPtr& st : ParseArrayDeclarator(name, spec->type, name_tok.loc, true)) globals_init_.push_back(st);
      if (Accept(",")) continue;
      Expect(";");
      return;
    }
    if (spec->is_void) FailSyntax(file_, name_tok.loc, "variable '" + name + "' declared void");
    const std::string unique = Declare(name, spec->type, false, name_tok.loc);
    SkipAttributes();
    ExprPtr init = MakeConst(0, spec->type);
    if (Accept("=")) init = ParseAssignmentValue(spec->type);
    globals_init_.push_back(MakeAssign(MakeVar(unique, spec->type), init));
    if (Accept(",")) continue;
    Expect(";");
    return;
  }
}

void Parser::SkipBody(const FunctionDef& def) {
  try {
    SkipBalanced();
  } catch (const common::InputError&) {
    pos_ = def.params;
    scopes_.emplace_back();
    if (def.name == "main") {
      SkipBalanced();
    } else {
      DeclareParameters(def, nullptr, def.loc);
    }
    jump_marks_.emplace_back();  // the body's labels: it fails before they are lowered
    ParseBlock();
    throw;
  }
}

std::string Parser::Declare(const std::string& name, IntType type, bool is_array, Loc loc, const std::string& base) {
  if (scopes_.back().count(name)) FailSyntax(file_, loc, "redefinition of '" + name + "'");
  const std::string unique = prog_.AddVar(base.empty() ? name : base, type, is_array);
  scopes_.back()[name] = Binding{unique, nullptr, "", std::nullopt, std::nullopt};
  return unique;
}

const Binding* Parser::FindBinding(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto f = it->find(name);
    if (f != it->end()) return &f->second;
  }
  return nullptr;
}

const Var* Parser::Find(const std::string& name) const {
  const Binding* b = FindBinding(name);
  return b && !b->var.empty() ? &prog_.VarNamed(b->var) : nullptr;
}

const Var& Parser::Lookup(const Token& t) {
  const Binding* b = FindBinding(t.text);
  if (!b && functions_.count(t.text)) {
    FailUnsupported(file_, t.loc, "use of function '" + t.text + "' as a value (a pointer to a function)");
  }
  if (!b) FailSyntax(file_, t.loc, "use of undeclared identifier '" + t.text + "'");
  if (!b->refused.empty()) FailUnsupported(file_, t.loc, "use of '" + t.text + "', a " + b->refused);
  if (b->enumerator) FailSyntax(file_, t.loc, "'" + t.text + "' is an enumeration constant, not a variable");
  if (b->record) FailUnsupported(file_, t.loc, "use of struct '" + t.text + "' as a whole (only its members)");
  return prog_.VarNamed(b->var);
}

ExprPtr Parser::FreshVar(const std::string& base, IntType t) { return MakeVar(prog_.AddVar(base, t), t); }

}  // namespace parsing

using parsing::Parser;
using parsing::WithoutQualifiers;

Program Parse(const std::string& file, const std::string& text, DataModel model, bool summarize_recursion,
              double time_limit_s) {
  const Parser::Deadline deadline{time_limit_s};
  std::vector<Token> toks = WithoutQualifiers(Preprocess(file, Lex(file, text)));
  try {
    return Parser(file, toks, model, false, summarize_recursion, deadline).Run();
  } catch (const LimitError&) {
    throw;  // the second reading would inline the same calls, as deep, for as long
  } catch (const UnsupportedError& first) {
    // Pointers to integer variables that move, compare or are stored (`p = &b; if (p == q)`), which the first
    // reading refuses (a pointer given `&x` is a name of x there): read again with the integers on the heap. A
    // program that this reading refuses too gets the first reading's reason.
    try {
      return Parser(file, std::move(toks), model, true, summarize_recursion, deadline).Run();
    } catch (const common::InputError&) {
      throw first;
    }
  }
}

Program ParseFile(const std::string& path, DataModel model, bool summarize_recursion, double time_limit_s) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw common::InputError(path + ": cannot read the file");
  std::ostringstream buf;
  buf << in.rdbuf();
  return Parse(path, buf.str(), model, summarize_recursion, time_limit_s);
}

}  // namespace fusion
