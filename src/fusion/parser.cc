#include "fusion/parser.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include <fmt/core.h>

#include "fusion/errors.h"
#include "fusion/gotos.h"
#include "fusion/heap.h"
#include "fusion/lexer.h"
#include "fusion/preprocessor.h"
#include "fusion/switch.h"
#include "fusion/loop_ir.h"

namespace fusion {
namespace {

// Helpers whose definitions are skipped: calls to them are understood by name.
const std::set<std::string> kKnownHelpers = {"reach_error",    "__VERIFIER_error", "__VERIFIER_assert",
                                              "__VERIFIER_assume", "__assert_fail", "__assert_perror_fail",
                                              "__assert",       "abort",            "malloc"};

// Words that qualify a declaration without changing the integer type it declares.
const std::set<std::string> kIgnoredSpecifiers = {"const",    "volatile", "extern",      "static",
                                                  "inline",   "__inline", "__inline__",  "restrict",
                                                  "__restrict", "register", "__extension__", "__const"};

// Of those, the ones that change nothing a sequential program computes, wherever they stand: the parser never
// sees them, so that `int *const p`, `const int *const *pp` and `__extension__ typedef ...` read as they would
// without them.
const std::set<std::string> kQualifiers = {"const",      "volatile",   "__volatile__", "restrict", "__restrict",
                                           "__restrict__", "__const",  "register",     "__extension__"};

// The tokens without the qualifiers.
std::vector<Token> WithoutQualifiers(std::vector<Token> toks) {
  std::erase_if(toks, [](const Token& t) { return t.kind == TokKind::kIdent && kQualifiers.count(t.text); });
  return toks;
}

// A parsed type: an integer type, or void, or a struct (by its tag in the parser's records), or (skipped) a
// union or enum, which holds no integer.
struct ParsedType {
  IntType type;
  bool is_void = false;
  bool is_aggregate = false;  // a union or a floating-point type: no integer, skipped (is_void too)
  bool is_floating = false;   // float or double
  std::string record_tag;     // a struct: its tag, looked up where a variable of it is declared
  int pointers = 0;           // a typedef of a pointer to a struct (`typedef struct node *SLL;`): 1
};

// What a pointer to an object on the heap points to: a struct (by its tag) or, tag empty, one integer of type
// cell. Such a pointer holds the object's number (kHeapRef); each member of a struct is an array over the
// numbers, so that `p->m` is the cell p of m's array (heap.h).
struct Pointee {
  std::string tag;
  IntType cell = kInt;
  bool operator==(const Pointee&) const = default;
};

// A struct type: its integer members, flattened in declaration order (a member of a nested struct is named by
// its path, "inner.x"). A variable of it is one variable per member, so that loops, guesses and invariants
// see plain scalars and arrays.
struct Record {
  std::string name;                                      // "struct S", for messages
  std::vector<std::pair<std::string, IntType>> members;  // path and type (kHeapRef for a pointer)
  std::map<std::string, Pointee> pointers;               // the pointer members, by path: what they point to
  std::string unsupported;  // why a variable of it cannot be modelled (a pointer, array or union member)
};

// What a name in scope stands for: a program variable, or a struct variable (record set), whose members are
// variables of their own, in the same scope under "<name>.<path>", or a variable outside the subset (refused
// set: why), which is an error only where it is used (the headers of a `.i` file declare such globals).
struct Binding {
  std::string var;
  const Record* record = nullptr;
  std::string refused;
  // An array declared with a constant size: its size in bytes, for `sizeof a` (not a pointer's, nor an
  // array parameter's, which C measures as a pointer).
  std::optional<Int128> array_bytes;
  // An enumeration constant: its value, a constant of type int (var is empty).
  std::optional<Int128> enumerator;
  // A pointer given `&v` (var is v): `*p` reads and writes v, p alone is refused (`refused`). A pointer into an
  // array, given `&a[e]`, `a + e` or another such pointer (var is a, cell_index the variable that holds the
  // index of the cell it points to, which moving the pointer changes): `*p` and `p[i]` are cells of a, and
  // pointers into the same array compare and subtract as their indices do. A pointer declared without a value
  // and later assigned one into an array has var empty until that assignment, the first in the source.
  bool points_to_var = false;
  std::string cell_index = {};
  // A struct variable whose address the file takes (record set, var empty): the variable that holds the number
  // of the object on the heap that it is, whose members are its members.
  std::string object = {};
};

// The arguments of a call of a function of the file (ParseArguments): what each passes as a value (an array
// its name, the address of a cell `&a[e]` its index e), and for an address `&v` or `&a[e]` the variable v or
// the array a (empty for an argument that is no address).
struct Arguments {
  std::vector<ExprPtr> values;
  std::vector<std::string> pointees;
  // The arrays of structs passed by name (`init(a, n)`), by argument index: their struct, and the array of
  // each member by its path.
  std::map<size_t, std::pair<const Record*, std::map<std::string, std::string>>> struct_arrays = {};
};

// A function of the file other than main, inlined at each call: where its parameter list and body are.
struct FunctionDef {
  std::string name;
  Loc loc;
  size_t params = 0;          // token index of its '('
  size_t body = 0;            // token index of its body's '{'
  size_t body_end = 0;        // token index of its body's '}'
  bool returns_value = false;
  IntType result_type = kInt;  // of a pointer's result, the type of the cells it points to
  bool returns_pointer = false;  // a pointer into an array (the one its returns point into)
  Pointee result_pointee = {};   // of a pointer to objects on the heap (result_type kHeapRef), what they are
  std::string unsupported;    // why it cannot be inlined; empty if it can
};

// A call being inlined: the function, where its value goes (null: discarded, or none), whether it returned.
struct InlineFrame {
  const FunctionDef* fn = nullptr;
  ExprPtr result;               // of a pointer's result, the index of its cell
  bool returned = false;        // by a `return` that ends the body
  bool returns_early = false;   // a `return` before the end, parsed as a kReturn that Inline lowers
  std::string result_array = {};  // the array that a pointer result points into, by the returns parsed
};

StmtPtr LowerBlock(const std::vector<StmtPtr>& items, const ExprPtr& flag, bool in_loop, bool& may_return);

// An inlined body's early returns (kReturn: main's own returns are not in it) lowered to a flag, since the
// body goes on into the caller: `return` sets the flag and, in a loop, breaks out of it; see LowerBlock.
// may_return: set when s contains a return.
StmtPtr LowerReturns(const StmtPtr& s, const ExprPtr& flag, bool in_loop, bool& may_return) {
  if (!s) return s;
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

// The statements of a block with their returns lowered: after one that may return, a loop body leaves the
// loop if the flag is set (an inner loop's break got it this far; also after the body's last statement), and
// elsewhere the rest of the block runs only while the flag is 0.
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

// Recursive-descent parser over the token list; one instance parses one file.
class Parser {
 public:
  Parser(std::string file, std::vector<Token> toks, DataModel model, bool integers_on_heap)
      : file_(std::move(file)),
        toks_(std::move(toks)),
        integers_on_heap_(integers_on_heap),
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

  // Parses the whole translation unit. main's body comes last, so that it may call functions defined after it.
  Program Run() {
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
    CheckHeapPointers(prog_);
    return std::move(prog_);
  }

 private:
  // Statements and expressions nested deeper than this are refused: the parser and every later pass
  // (printer, interpreter, Horn encoding) recurse over the tree, and a deeper one would overflow the stack
  // (tests/bad_inputs/loopfuse/deep_*.c). Reducer files that unroll a loop nest an if in the last for each
  // iteration (gj2007.c.i.p+nlh-reducer.c: 138 blocks, about 280 levels here); 1024 levels ran in the
  // Release build, this leaves room for the sanitizers' larger frames.
  static constexpr int kMaxDepth = 512;
  // Inlined calls beyond this many are refused: a few functions that each call the next twice would
  // otherwise make a program of exponential size.
  static constexpr int kMaxInlinedCalls = 10000;
  // How deep a cycle of recursive calls is inlined, and the most calls its levels may make together
  // (RecursesTooDeep).
  static constexpr int kMaxRecursionDepth = 64;
  static constexpr Int128 kMaxRecursionCalls = 1024;
  // Cells of an initialised or global array, each set by an assignment of its own.
  static constexpr int kMaxInitialisedCells = 4096;
  // Dimensions of an array at most: beyond, the nesting of braces and of index arithmetic would be unbounded.
  static constexpr size_t kMaxDimensions = 16;
  [[noreturn]] void FailTooDeep(Loc loc) const {
    FailUnsupported(file_, loc, "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
  }
  // Counts one level of nesting while it lives.
  struct DepthGuard {
    DepthGuard(Parser& p, Loc loc) : parser(p) {
      if (parser.depth_ >= kMaxDepth) parser.FailTooDeep(loc);
      ++parser.depth_;
    }
    ~DepthGuard() { --parser.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
    Parser& parser;
  };

  const Token& Peek(int k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  bool AtEnd() const { return Peek().kind == TokKind::kEnd; }
  bool Is(const std::string& text, int k = 0) const {
    const Token& t = Peek(k);
    return (t.kind == TokKind::kPunct || t.kind == TokKind::kIdent) && t.text == text;
  }
  const Token& Next() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool Accept(const std::string& text) {
    if (!Is(text)) return false;
    Next();
    return true;
  }
  void Expect(const std::string& text) {
    if (!Accept(text)) {
      FailSyntax(file_, Peek().loc, "expected '" + text + "' before '" + Peek().text + "'");
    }
  }
  std::string ExpectIdent() {
    if (Peek().kind != TokKind::kIdent) {
      FailSyntax(file_, Peek().loc, "expected an identifier before '" + Peek().text + "'");
    }
    return Next().text;
  }
  // Skips a balanced group starting at the current opening bracket.
  void SkipBalanced() {
    int depth = 0;
    do {
      if (AtEnd()) FailSyntax(file_, Peek().loc, "unbalanced brackets");
      const std::string& t = Next().text;
      if (t == "(" || t == "{" || t == "[") ++depth;
      if (t == ")" || t == "}" || t == "]") --depth;
    } while (depth > 0);
  }
  // Skips __attribute__((...)) and __asm__(...) annotations.
  void SkipAttributes() {
    while (Is("__attribute__") || Is("__asm__") || Is("__asm")) {
      Next();
      if (Is("(")) SkipBalanced();
    }
  }
  // Skips tokens up to the next ';' (or also ',': at_comma) outside brackets, which it leaves next.
  void SkipToEnd(bool at_comma) {
    while (!Is(";") && !(at_comma && Is(","))) {
      if (AtEnd()) FailSyntax(file_, Peek().loc, "expected ';'");
      if (Is("(") || Is("{") || Is("[")) {
        SkipBalanced();
      } else {
        Next();
      }
    }
  }
  // Skips tokens up to and including the next ';' outside brackets.
  void SkipDeclaration() {
    SkipToEnd(false);
    Next();
  }

  bool IsTypeStart(int k = 0) const {
    const Token& t = Peek(k);
    if (t.kind != TokKind::kIdent) return false;
    static const std::set<std::string> kTypeWords = {"void",   "char",       "short",  "int",   "long",
                                                     "signed", "unsigned",   "_Bool",  "struct", "union",
                                                     "enum",   "__signed__", "float",  "double",
                                                     "__int128"};
    return kTypeWords.count(t.text) || kIgnoredSpecifiers.count(t.text) || typedefs_.count(t.text) ||
           t.text == "__attribute__";
  }

  // Parses declaration specifiers; union types are unsupported unless skip_aggregates. A struct's members are
  // recorded (ParseStructSpecifier), an enum's constants bound (ParseEnumSpecifier); whoever cannot take a
  // struct refuses its record_tag.
  std::optional<ParsedType> ParseSpecifiers(bool skip_aggregates) {
    int longs = 0;
    bool is_unsigned = false, seen = false, is_void = false, is_char = false, is_short = false,
         is_bool = false, is_aggregate = false, is_floating = false;
    std::string record_tag;
    std::optional<IntType> enum_type;
    std::optional<ParsedType> from_typedef;
    while (true) {
      SkipAttributes();
      const Token& t = Peek();
      if (t.kind != TokKind::kIdent) break;
      if (kIgnoredSpecifiers.count(t.text)) {
        Next();
      } else if (t.text == "unsigned") {
        is_unsigned = seen = true;
        Next();
      } else if (t.text == "signed" || t.text == "__signed__") {
        seen = true;
        Next();
      } else if (t.text == "int") {
        seen = true;
        Next();
      } else if (t.text == "long") {
        ++longs;
        seen = true;
        Next();
      } else if (t.text == "short") {
        is_short = seen = true;
        Next();
      } else if (t.text == "char") {
        is_char = seen = true;
        Next();
      } else if (t.text == "_Bool") {
        is_bool = seen = true;
        Next();
      } else if (t.text == "void") {
        is_void = seen = true;
        Next();
      } else if (t.text == "struct") {
        Next();
        record_tag = ParseStructSpecifier();
        seen = true;
      } else if (t.text == "enum") {
        Next();
        enum_type = ParseEnumSpecifier(skip_aggregates);
        seen = true;
      } else if (t.text == "union") {
        if (!skip_aggregates) FailUnsupported(file_, t.loc, "type '" + t.text + "'");
        Next();
        if (Peek().kind == TokKind::kIdent) Next();
        if (Is("{")) SkipBalanced();
        is_aggregate = seen = true;
      } else if (t.text == "__int128") {
        // GNU C's 128-bit integers hold values past what loopfuse computes with; refused where a value of them is
        // made, as floating-point types are.
        if (!skip_aggregates) FailUnsupported(file_, t.loc, "128-bit integer type '__int128'");
        Next();
        is_aggregate = seen = true;
      } else if (t.text == "float" || t.text == "double") {
        // Declared at the top level, a floating-point type is refused only where a variable of it is made (a
        // task declares `extern double __VERIFIER_nondet_double(void);` and may never call it).
        if (!skip_aggregates) FailUnsupported(file_, t.loc, "floating-point type '" + t.text + "'");
        Next();
        is_floating = is_aggregate = seen = true;
      } else if (typedefs_.count(t.text) && !seen && !from_typedef) {
        from_typedef = typedefs_.at(t.text);
        Next();
      } else {
        break;
      }
    }
    if (from_typedef) return from_typedef;
    if (!seen) return std::nullopt;
    if (is_aggregate) return ParsedType{kInt, true, true, is_floating, ""};
    if (!record_tag.empty()) return ParsedType{kInt, false, false, false, record_tag};
    if (enum_type) return ParsedType{*enum_type, false, false, false, ""};
    ParsedType r;
    r.is_void = is_void;
    r.type = is_bool ? IntType{1, false}
             : is_char ? IntType{8, !is_unsigned}
             : is_short ? IntType{16, !is_unsigned}
             : longs > 0 ? IntType{longs > 1 ? 64 : long_bits_, !is_unsigned}
                         : IntType{32, !is_unsigned};
    return r;
  }

  // After `struct` or `enum`: its tag (empty if none; attributes around it skipped) and the token where the tag
  // or body begins. Neither a tag nor a body ('{') is a syntax error naming `kind`.
  std::pair<std::string, Token> ParseTag(const std::string& kind) {
    SkipAttributes();
    const Token start = Peek();
    std::string tag;
    if (start.kind == TokKind::kIdent) tag = Next().text;
    SkipAttributes();
    if (!Is("{") && tag.empty()) {
      FailSyntax(file_, start.loc, "expected " + kind + "'s tag or '{' before '" + start.text + "'");
    }
    return {tag, start};
  }

  // The rest of a struct specifier after `struct`: its tag, and its member list if one follows, recorded in
  // records_ (an anonymous struct under a tag made of its location). Returns the tag. The headers of a `.i`
  // file define structs of pointers, arrays and unions: such a struct is recorded as unsupported, refused
  // only where a variable of it is declared.
  std::string ParseStructSpecifier() {
    auto [tag, start] = ParseTag("a struct");
    if (!Is("{")) return tag;
    Record record;
    record.name = tag.empty() ? "anonymous struct" : "struct " + tag;
    if (tag.empty()) tag = "<anonymous " + std::to_string(start.loc.line) + ":" + std::to_string(start.loc.col) + ">";
    Next();
    while (!Accept("}")) {
      if (AtEnd()) FailSyntax(file_, Peek().loc, "expected '}' at the end of " + record.name);
      ParseMemberDeclaration(record);
    }
    if (records_.count(tag)) FailUnsupported(file_, start.loc, "second definition of '" + record.name + "'");
    records_.emplace(tag, std::move(record));
    return tag;
  }

  // The rest of an enum specifier after `enum`: its tag, and its list of constants if one follows, each bound in
  // the innermost scope as a constant of type int (C's rule: the value given, else one more than the one before,
  // from 0). Returns the enum's own type as gcc makes it: unsigned int where no constant is negative, else int.
  // A constant whose value is not a constant expression, or lies outside int, is refused where it is used when
  // at_top_level (the headers of a `.i` file define enums that main never reads), else at once.
  IntType ParseEnumSpecifier(bool at_top_level) {
    const auto [tag, start] = ParseTag("an enum");
    if (!Is("{")) {
      const auto known = enum_types_.find(tag);
      if (known == enum_types_.end()) FailUnsupported(file_, start.loc, "enum '" + tag + "' before its definition");
      return known->second;
    }
    Next();
    std::optional<Int128> next = 0;
    bool negative = false;
    while (!Accept("}")) {
      const Token name = Peek();
      ExpectIdent();
      SkipAttributes();
      std::string refused;
      if (Accept("=")) {
        const Token value_start = Peek();
        const size_t value_pos = pos_;
        try {
          next = FoldConstant(ParseExpr());
          if (!next) refused = "constant of an enum whose value is not a constant expression";
        } catch (const common::InputError&) {
          if (!at_top_level) throw;
          pos_ = value_pos;
          while (!Is(",") && !Is("}")) {
            if (AtEnd()) FailSyntax(file_, value_start.loc, "expected '}' at the end of the enum");
            if (Is("(") || Is("[") || Is("{")) {
              SkipBalanced();
            } else {
              Next();
            }
          }
          next.reset();
          refused = "constant of an enum whose value loopfuse does not read";
        }
      } else if (!next) {
        refused = "constant of an enum after one whose value loopfuse does not read";
      }
      if (next && (*next < MinOf(kInt) || *next > MaxOf(kInt))) {
        refused = "constant of an enum outside int";
        next.reset();
      }
      if (!refused.empty() && !at_top_level) FailUnsupported(file_, name.loc, refused + " '" + name.text + "'");
      if (scopes_.back().count(name.text)) FailSyntax(file_, name.loc, "redefinition of '" + name.text + "'");
      scopes_.back()[name.text] = Binding{"", nullptr, refused, std::nullopt, next};
      if (next) negative = negative || *next < 0;
      if (next) ++*next;
      if (!Accept(",")) {
        Expect("}");
        break;
      }
    }
    const IntType type = negative ? kInt : kUnsigned;
    if (!tag.empty()) enum_types_[tag] = type;
    return type;
  }

  // One member declaration of a struct's body, through its ';', added to record: integer members, members of a
  // struct of integers (flattened), and pointers to a struct or an integer (objects on the heap). Anything else
  // marks the record unsupported and is skipped.
  void ParseMemberDeclaration(Record& record) {
    const auto refuse = [&](const std::string& why) {
      if (record.unsupported.empty()) record.unsupported = why;
      SkipDeclaration();
    };
    const Token start = Peek();
    auto spec = ParseSpecifiers(true);
    if (!spec) return refuse("a member of a type it does not know, '" + start.text + "'");
    if (spec->is_floating) return refuse("a floating-point member");
    if (spec->is_aggregate || spec->is_void || opaque_typedefs_.count(start.text)) {
      return refuse("a member of type '" + start.text + "'");
    }
    if (Is(";")) return refuse("an anonymous member");
    do {
      SkipAttributes();
      int pointers = spec->pointers;
      while (Accept("*")) {
        ++pointers;
        while (kIgnoredSpecifiers.count(Peek().text)) Next();
      }
      if (pointers > 1) return refuse("a member that points to a pointer");
      if (Peek().kind != TokKind::kIdent) return refuse("a member declared with '" + Peek().text + "'");
      const Token name_tok = Next();
      const std::string& name = name_tok.text;
      if (Is("[")) return refuse("an array member '" + name + "'");
      if (Is(":")) return refuse("a bit-field '" + name + "'");
      for (const auto& member : record.members) {
        if (member.first == name || member.first.rfind(name + ".", 0) == 0) {
          FailSyntax(file_, name_tok.loc, "duplicate member '" + name + "' in " + record.name);
        }
      }
      if (pointers == 1) {
        record.members.emplace_back(name, kHeapRef);
        record.pointers[name] = Pointee{spec->record_tag, spec->record_tag.empty() ? spec->type : kInt};
      } else if (!spec->record_tag.empty()) {
        const auto nested = records_.find(spec->record_tag);
        if (nested == records_.end()) return refuse("a member '" + name + "' of an incomplete struct");
        if (!nested->second.unsupported.empty()) return refuse(nested->second.unsupported);
        for (const auto& [path, type] : nested->second.members) record.members.emplace_back(name + "." + path, type);
        for (const auto& [path, pointee] : nested->second.pointers) record.pointers[name + "." + path] = pointee;
      } else {
        record.members.emplace_back(name, spec->type);
      }
      SkipAttributes();
    } while (Accept(","));
    Expect(";");
  }

  // One top-level item: typedef, declaration, prototype or function definition.
  void TopLevel() {
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

  // Skips the body of def at its '{': it is parsed later, main's last and the others' at each call. Brackets
  // that do not balance are reported where parsing the body meets them, not at the end of the file.
  void SkipBody(const FunctionDef& def) {
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

  // Adds a variable to the innermost scope and the program; returns its unique name, made from `base` (a C
  // identifier: a struct's member "s.n" is the variable s_n) or, without one, from the name.
  std::string Declare(const std::string& name, IntType type, bool is_array, Loc loc, const std::string& base = "") {
    if (scopes_.back().count(name)) FailSyntax(file_, loc, "redefinition of '" + name + "'");
    const std::string unique = prog_.AddVar(base.empty() ? name : base, type, is_array);
    scopes_.back()[name] = Binding{unique, nullptr, "", std::nullopt, std::nullopt};
    return unique;
  }

  // What a source name (or a struct member's "<name>.<path>") refers to, or null.
  const Binding* FindBinding(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return &f->second;
    }
    return nullptr;
  }
  // The program variable a source name refers to, or null (also for a struct variable).
  const Var* Find(const std::string& name) const {
    const Binding* b = FindBinding(name);
    return b && !b->var.empty() ? &prog_.VarNamed(b->var) : nullptr;
  }
  const Var& Lookup(const Token& t) {
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

  StmtPtr ParseBlock() {
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

  // A statement whose scope ends with it (the body of if, while, for).
  StmtPtr ParseScopedStatement() {
    scopes_.emplace_back();
    StmtPtr s = ParseStatement();
    scopes_.pop_back();
    return s;
  }

  // What the expressions of one statement leave to run before it (WithCallsHoisted): the calls of functions of
  // the file that a statement must run, and the assignments inside them (`x++`, `a[i] = v`, `(c = x)`), in
  // C's order. Each assignment's store is statements[begin, end), to its variable (an array's name for a cell).
  struct Hoisted {
    struct Store {
      std::string var;
      std::string spelling;  // var's name in the source
      size_t begin = 0, end = 0;
      Loc loc;
    };
    std::vector<StmtPtr> statements;
    std::vector<Store> stores;
  };

  // How far a Hoisted's statements and stores reach at a point of the parse.
  struct HoistedMark {
    size_t statements = 0;
    size_t stores = 0;
  };

  // Runs parse with the calls of functions of the file that its expressions make where a statement must run
  // them (a body that is more than one `return`) inlined into `hoisted`, each into a variable that the
  // expression reads instead, and the assignments inside them stored there (AssignInExpression): the
  // statements run before the one being parsed, which evaluates each exactly once, as C does. For the
  // expressions of an if's or a loop's condition (the loop runs them again before each test), a declaration, a
  // return or an expression statement. Right of && or ||, in a branch of ?: and after a comma operator, an
  // operand's statements run where C evaluates it, after the operand before it (ShortCircuit, ParseExpr,
  // ParseCommaExpr). A variable that an assignment inside the expressions writes may appear nowhere else in
  // them but where C sequences the two that way (SequenceAfter): C leaves the others' order unsequenced
  // (`i++ + i`, `a[i] = i++`).
  template <typename Parse>
  auto WithCallsHoisted(Hoisted& hoisted, Parse parse) {
    struct Restore {
      Parser& p;
      Hoisted* hoisted;
      ~Restore() { p.hoisted_ = hoisted; }
    } restore{*this, std::exchange(hoisted_, &hoisted)};
    auto parsed = parse();
    RequireSequenced(hoisted, Mentions(parsed));
    return parsed;
  }

  // The variables and arrays that s, or e, reads or writes.
  static std::set<std::string> Mentions(const StmtPtr& s) {
    const Effects effects = EffectsOf(s);
    std::set<std::string> names = effects.Scalars();
    for (const std::string& a : effects.ArraysAccessed()) names.insert(a);
    return names;
  }
  static std::set<std::string> Mentions(const ExprPtr& e) {
    Effects effects;
    AddReads(e, effects);
    std::set<std::string> names = effects.reads;
    for (const ArrayAccess& a : effects.array_reads) names.insert(a.array);
    return names;
  }

  // Refuses a variable that an assignment inside an expression writes and the rest of the statement (`rest`:
  // what it mentions besides the hoisted statements) or another hoisted statement reads or writes.
  void RequireSequenced(const Hoisted& hoisted, const std::set<std::string>& rest) const {
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

  // s, after the hoisted statements (if any) that it reads; s keeps the location of its first token, loc.
  static StmtPtr Preceded(Hoisted hoisted, StmtPtr s, Loc loc) {
    if (hoisted.statements.empty()) return s;
    auto located = std::const_pointer_cast<Stmt>(s);
    if (located->loc.line == 0) located->loc = loc;
    hoisted.statements.push_back(std::move(s));
    return MakeBlock(std::move(hoisted.statements));
  }

  // The loop `while (c) body` (do-while if do_while; `step` at the end of each iteration and at continue)
  // whose condition needs the hoisted statements to run before each test: once before the loop, and again
  // after each iteration's step.
  static StmtPtr LoopTesting(Hoisted hoisted, const ExprPtr& c, const StmtPtr& body, StmtPtr step, bool do_while) {
    if (hoisted.statements.empty()) return MakeLoop(c, body, step, do_while);
    const StmtPtr before_test = MakeBlock(std::move(hoisted.statements));
    step = step ? MakeBlock({step, before_test}) : before_test;
    if (do_while) return MakeLoop(c, body, step, true);
    return MakeBlock({before_test, MakeLoop(c, body, step)});
  }

  StmtPtr ParseStatement() {
    const Token t = Peek();
    const DepthGuard guard(*this, t.loc);
    StmtPtr s = ParseStatementInner();
    auto located = std::const_pointer_cast<Stmt>(s);
    if (located->loc.line == 0) located->loc = t.loc;
    return s;
  }

  StmtPtr ParseStatementInner() {
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

  // Expression statements joined by C's comma operator (`i = 0, j = n`, `i++, j--`), each run in turn with
  // the calls it makes hoisted before it alone; a single one as it is.
  StmtPtr ParseExpressionList() {
    std::vector<StmtPtr> parts;
    do {
      const Loc loc = Peek().loc;
      Hoisted hoisted;
      StmtPtr s = WithCallsHoisted(hoisted, [&] { return ParseSimpleStatement(); });
      parts.push_back(Preceded(std::move(hoisted), s, loc));
    } while (Accept(","));
    return parts.size() == 1 ? parts.front() : MakeBlock(std::move(parts));
  }

  // The rest of a switch after `switch`: its cases must label statements of its block itself (no Duff's
  // device), and its value is converted to its promoted type, as are the cases' constants.
  StmtPtr ParseSwitch(Loc loc) {
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

  // A function's body, just parsed, with its labels and gotos (the last of jump_marks_, popped) lowered.
  StmtPtr WithJumpsLowered(const StmtPtr& body) {
    const JumpMarks marks = std::move(jump_marks_.back());
    jump_marks_.pop_back();
    for (const auto& jump : marks.gotos) {
      const bool declared = std::any_of(marks.labels.begin(), marks.labels.end(),
                                        [&](const auto& l) { return l.second == jump.second; });
      if (!declared) FailSyntax(file_, jump.first->loc, "use of undeclared label '" + jump.second + "'");
    }
    return marks.labels.empty() ? body : LowerGotos(body, marks, prog_);
  }

  // Whether `label:` labels `goto label;` in the body being parsed (labels are the function's): a run that
  // gets there stays there forever, so it reaches no error, as `assume(0)` (loop-invgen's `STUCK: goto STUCK;`,
  // and `goto STUCK;` elsewhere in the function).
  bool IsStuckLabel(const std::string& label) const {
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

  // A declaration with its declarators, ending with ';'. Uninitialised scalars and arrays get havoc.
  StmtPtr ParseDeclaration() {
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

  // The declarators of an `extern` declaration inside a function, after its specifiers `spec`: each names the
  // global of the file (a scalar or an array), and a function's prototype declares nothing the parser needs.
  // Until 2026-12-05 `extern` was skipped and the name became a fresh local, which shadowed the global with a
  // nondeterministic value (a wrong `false`). An extern object that the file does not define is outside the
  // subset: its value is not the program's.
  StmtPtr ParseExternDeclarators(const ParsedType& spec) {
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

  // The declarators of a declaration of static scalars inside a function, after its specifiers `spec`: each
  // one variable of the program, whichever call or iteration declares it, set once before main runs (to its
  // initialiser, a constant, or 0) and kept between calls, as C's static storage is. Until 2026-12-05
  // `static` was skipped, so a static counter was set again at every call and loopfuse proved a reachable
  // error unreachable. Static arrays, structs and pointers are outside the subset.
  StmtPtr ParseStaticDeclarators(const ParsedType& spec) {
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

  // The rest of an array declarator after its '[' (size, then any initialiser), declared: fresh cells, set
  // where an initialiser gives values. An initialised array (or a global one: `zeroed`) has every cell set,
  // the rest to 0 as C does: one assignment per cell up to kMaxInitialisedCells cells, beyond that a loop
  // for the zeros (a loop of its own, which fusion may take with the program's first).
  // A multi-dimensional array `T a[D0][D1]...` is one array of D0 * D1 * ... cells, row after row as C lays it
  // out, `a[i][j]` its cell i * D1 + j (ParsePostfix; inner_extents_ holds D1, ...); an extent that is not a
  // constant is taken when the declaration runs, into a variable of its own.
  std::vector<StmtPtr> ParseArrayDeclarator(const std::string& name, IntType type, Loc loc, bool zeroed) {
    std::vector<ExprPtr> extents{Is("]") ? nullptr : ParseExpr()};
    Expect("]");
    while (Accept("[")) {
      if (Is("]")) FailSyntax(file_, Peek().loc, "array '" + name + "' has no size in a dimension after the first");
      if (extents.size() == kMaxDimensions) {
        FailUnsupported(file_, loc, "array '" + name + "' of more than " + std::to_string(kMaxDimensions) +
                                        " dimensions");
      }
      extents.push_back(ParseExpr());
      Expect("]");
    }
    std::vector<StmtPtr> out;
    std::vector<ExprPtr> inner;
    for (size_t d = 1; d < extents.size(); ++d) {
      if (const std::optional<Int128> c = FoldConstant(extents[d])) {
        if (*c <= 0) FailUnsupported(file_, loc, "array '" + name + "' with an extent of " + DecimalText(*c));
        inner.push_back(MakeConst(*c, kLongLong));
      } else {
        inner.push_back(FreshVar("extent_" + name, kLongLong));
        out.push_back(MakeAssign(inner.back(), extents[d]));
      }
    }
    std::vector<ExprPtr> values;
    const bool initialised = Accept("=");
    if (initialised) {
      const Token brace = Peek();
      if (brace.kind == TokKind::kString) {  // `char s[] = "abc";`: its characters and the 0 after them
        if (type.bits != 8 || !inner.empty()) {
          FailUnsupported(file_, brace.loc, "string initialiser of '" + name + "', not an array of char");
        }
        values = ParseStringCells(type);
        const std::optional<Int128> size = extents[0] ? FoldConstant(extents[0]) : std::nullopt;
        if (size && *size + 1 == static_cast<Int128>(values.size())) values.pop_back();  // C leaves out the 0
      } else {
        Expect("{");
        if (inner.empty()) {
          while (!Accept("}")) {
            values.push_back(ParseAssignmentValue(type));
            if (!Is("}")) Expect(",");
          }
        } else {
          values = ParseBracedCells(name, type, inner, loc);
        }
      }
    }
    ExprPtr n = extents[0];
    if (!inner.empty()) {
      const auto cells_per_row = [&]() {
        ExprPtr product = MakeConst(1, kLongLong);
        for (const ExprPtr& extent : inner) product = MakeBinary("*", product, extent, kLongLong);
        return product;
      };
      if (!n && initialised) {  // `int a[][3] = {...}`: as many rows as the values start
        const Int128 row = *FoldConstant(cells_per_row());
        n = MakeConst((static_cast<Int128>(values.size()) + row - 1) / row, kLongLong);
      }
      if (n) n = MakeBinary("*", MakeCast(kLongLong, n), cells_per_row(), kLongLong);
    }
    for (StmtPtr& st : DeclareArray(name, "", type, loc, n, values, initialised, zeroed)) out.push_back(st);
    if (!inner.empty()) {
      const std::string& unique = scopes_.back().at(name).var;
      inner_extents_[unique] = inner;
      std::vector<Int128> constant;
      for (const ExprPtr& extent : inner) {
        if (const std::optional<Int128> c = FoldConstant(extent)) constant.push_back(*c);
      }
      if (constant.size() == inner.size()) prog_.row_extents[unique] = constant;
    }
    return out;
  }

  // The cells that a multi-dimensional array's initialiser sets, after its '{' through its '}', by their place
  // in the array laid out flat (0 for those it leaves out): a brace inside starts the next element of its
  // dimension (`{{1, 2}, {3}}`: a row each), and without inner braces the values fill cells in order (`{1, 2, 3}`).
  std::vector<ExprPtr> ParseBracedCells(const std::string& name, IntType type, const std::vector<ExprPtr>& inner,
                                        Loc loc) {
    std::vector<Int128> stride(inner.size() + 1, 1);  // cells in one element of each dimension
    for (size_t d = inner.size(); d > 0; --d) {
      const std::optional<Int128> extent = FoldConstant(inner[d - 1]);
      if (!extent) FailUnsupported(file_, loc, "initialised array '" + name + "' whose size is not a constant");
      stride[d - 1] = stride[d] * *extent;
    }
    std::vector<ExprPtr> cells;
    // The elements of dimension d from cell `start` on, after their '{' through its '}', at most `limit` cells.
    const std::function<void(size_t, Int128, std::optional<Int128>)> fill = [&](size_t d, Int128 start,
                                                                               std::optional<Int128> limit) {
      Int128 at = start;
      while (!Accept("}")) {
        if (AtEnd()) FailSyntax(file_, Peek().loc, "expected '}' at the end of the initialiser of '" + name + "'");
        if (Accept("{")) {
          if (d + 1 < stride.size()) {
            at = start + (at - start + stride[d] - 1) / stride[d] * stride[d];  // the next element of dimension d
            fill(d + 1, at, stride[d]);
            at += stride[d];
          } else {  // braces around one value, as C allows (once)
            if (Is("{")) {
              FailSyntax(file_, Peek().loc, "expected a value in the braces around a cell of '" + name + "'");
            }
            fill(d, at, 1);
            at += 1;
          }
        } else {
          const size_t cell = static_cast<size_t>(at);
          if (cell > kMaxInitialisedCells) {
            FailUnsupported(file_, loc, "array '" + name + "' with more than " + std::to_string(kMaxInitialisedCells) +
                                            " initialisers");
          }
          if (cells.size() <= cell) cells.resize(cell + 1);
          cells[cell] = ParseAssignmentValue(type);
          ++at;
        }
        if (limit && at - start > *limit) FailSyntax(file_, Peek().loc, "too many initialisers for '" + name + "'");
        if (!Is("}")) Expect(",");
      }
    };
    fill(0, 0, std::nullopt);
    for (ExprPtr& cell : cells) {
      if (!cell) cell = MakeConst(0, type);
    }
    return cells;
  }

  // The declarator of a variable of struct type after its name (`[size]` for an array of structs): one
  // variable per member, "<name>.<path>" in scope, an array of the size for an array of structs. Globals are
  // zeroed, locals fresh. A pointer to the struct (`pointers` 1) is a pointer to objects on the heap
  // (DeclareHeapPointer). Initialisers, pointers to pointers and whole-struct uses are outside the subset.
  std::vector<StmtPtr> DeclareStructVariable(const ParsedType& spec, const Token& name_tok, int pointers,
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

  // A whole struct in an assignment (`t = s;`, `*p = a[i];`): its struct, the statements that fix where it is
  // (a pointer or an index taken into a variable first, so that a member written cannot move the rest), and
  // the cell of each member by path and type.
  struct StructPlace {
    const Record* record = nullptr;
    std::vector<StmtPtr> before;
    std::function<ExprPtr(const std::string&, IntType)> cell;
  };

  // Whether the tokens ahead name a whole struct (ParseStructPlace): `*p` for p a variable that points to
  // objects of a struct, or a struct variable, or a cell of an array of them, that no '.' or '->' follows.
  bool AtWholeStruct() const {
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

  // The whole struct ahead (AtWholeStruct).
  StructPlace ParseStructPlace() {
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

  // `target = source;` of whole structs after the '=': each member assigned in turn (the members are cells
  // apart, so none written changes one still to read).
  std::vector<StmtPtr> AssignStruct(const StructPlace& target, const Token& at) {
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

  // A struct's initialiser after its '=', `{1, {2, 3}, &s}` (nested braces for the members of a nested struct, or
  // none: C's brace elision) or a whole struct (`= t`, AssignStruct): the assignment of each value to its member,
  // which `cell` makes from the member's path and type. The members a list does not reach keep the zero they were
  // given; a designator (`.m = v`) and any other value (`= f()`) are refused.
  std::vector<StmtPtr> ParseStructInitialiser(const Record& record,
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

  // The values of the members from `next` up to `end`, all under the path `prefix` (a nested struct's, with its
  // '.'; empty at the top), until the list's '}': `first` is false once the list has a value (a ',' comes
  // before the next; that of the members of a nested struct that the list gives without braces is taken before
  // they are).
  void InitialiseMembers(const Record& record, const std::function<ExprPtr(const std::string&, IntType)>& cell,
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

  // The declarator of a pointer to objects on the heap after its name: a scalar (`struct S *p;`, with a value
  // optionally) or an array of them (`struct S *a[N];`, `int *a[N];`), holding object numbers (kHeapRef).
  // Globals are null, locals fresh.
  std::vector<StmtPtr> DeclareHeapPointer(const Token& name_tok, const Pointee& pointee, bool global) {
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

  // What the pointer to objects on the heap e points to: e a variable or cell that holds such pointers, or a
  // choice between them; nothing for null and for any other expression.
  std::optional<Pointee> PointeeOf(const ExprPtr& e) const {
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

  // Whether the name at token k, past any '(' and '*' (`*(*p).next`), may begin a pointer to objects on the
  // heap: a variable that holds them, or a struct variable (whose members may).
  bool AtHeapPointer(int k) const {
    while (Is("(", k) || Is("*", k)) ++k;
    if (Peek(k).kind != TokKind::kIdent) return false;
    const Binding* b = FindBinding(Peek(k).text);
    return b && b->refused.empty() && !b->points_to_var && (b->record || heap_slots_.count(b->var));
  }

  // value (at token `at`) as a pointer to objects of `pointee`: a constant 0 is null; refused unless it is
  // null or points to such objects.
  ExprPtr HeapValue(const ExprPtr& value, const Pointee& pointee, const Token& at) const {
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

  // "struct S" or "int", for messages.
  static std::string PointeeName(const Pointee& p) { return p.tag.empty() ? TypeName(p.cell) : "struct " + p.tag; }

  // The assignment of the value after '=' to target, a pointer to objects on the heap: an allocation, null
  // (`0`, `NULL`, `(void *)0`) or a pointer to the same type of object.
  StmtPtr AssignHeapPointer(const ExprPtr& target, const Token& at) {
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

  // Whether a call of an allocator comes next, cast to a pointer type or not (`(struct S *) malloc(...)`).
  bool AtAllocationCall() const {
    int k = 0;
    if (Is("(") && IsTypeStart(1)) {
      for (k = 1; !Is(")", k); ++k) {
        if (Peek(k).kind == TokKind::kEnd || Is("(", k)) return false;
      }
      ++k;
    }
    return Peek(k).kind == TokKind::kIdent && IsAllocator(Peek(k).text) && Is("(", k + 1);
  }

  // The allocation ahead (AtAllocationCall) for target, a pointer to objects of `pointee`: a new object,
  // numbered one above the last (so never null, as SV-COMP's allocations never fail, and never one still in
  // use). Its members are arbitrary (cells of the member arrays that nothing wrote), calloc's zero. Only the
  // block's first object is reachable: a pointer to objects is never moved or indexed, so the size is not
  // read (it may not call a function or assign, whose effects would be lost).
  StmtPtr AllocateObject(const ExprPtr& target, const Pointee& pointee) {
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

  // A new object of `pointee` whose number target takes: the counter's next (never null, never an object in
  // use); its members zero where zeroed (calloc's, a global struct's), else arbitrary, as the heap's cells start.
  StmtPtr NewObject(const ExprPtr& target, const Pointee& pointee, bool zeroed, const Token& at) {
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

  // The declarator of a struct variable whose address the file takes (`&s`, addressed_), after its name: an
  // object on the heap, so that a pointer to it is one to any object of its struct (`struct T *p = &s;`,
  // `f(&s)`, `{2, &inner}`), and `s.m` is its member, as `p->m` is. Globals are zero, locals arbitrary, as C has
  // them; an initialiser sets the members it names and zeroes the others.
  std::vector<StmtPtr> DeclareStructObject(const Record& record, const std::string& tag, const Token& name_tok,
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

  // The declarator of an integer variable whose address the file takes, after its name, where integers are on
  // the heap (integers_on_heap_): an object, made where it is declared (zero if global, arbitrary if local, as
  // C has it), whose one cell is the variable's value, and `&x` its number.
  std::vector<StmtPtr> DeclareIntegerObject(const Token& name_tok, IntType type, bool global) {
    std::vector<StmtPtr> out;
    const Binding& binding = BindObject(name_tok, Pointee{"", type}, nullptr, global, out);
    if (Accept("=")) {
      const ExprPtr cell = IntegerOfObject(binding);
      out.push_back(AtInlinedCall() ? ParseInlinedCall(cell) : MakeAssign(cell, ParseAssignmentValue(type)));
    }
    return out;
  }

  // Binds `name_tok` to a variable that is an object on the heap of `pointee` (a struct variable's, whose
  // struct is record, or an integer variable's), and appends to `out` what makes the object: zero where
  // zeroed, else arbitrary. The binding holds the variable with its number.
  const Binding& BindObject(const Token& name_tok, const Pointee& pointee, const Record* record, bool zeroed,
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

  // The value of an integer variable on the heap (DeclareIntegerObject): its object's cell.
  ExprPtr IntegerOfObject(const Binding& b) {
    const Pointee pointee = heap_slots_.at(b.object);
    return MakeIndex(HeapField(pointee, "", pointee.cell), pointee.cell, MakeVar(b.object, kHeapRef));
  }

  // The cells of the members of the object of struct `tag` whose number `base` holds, by path and type.
  std::function<ExprPtr(const std::string&, IntType)> ObjectMembers(const std::string& tag, const ExprPtr& base) {
    return [this, tag, base](const std::string& path, IntType type) {
      return MakeIndex(HeapField(Pointee{tag}, path, type), type, base);
    };
  }

  // The members of the objects `pointee` stands for (an integer object: one, path empty), with their types;
  // refused (at `at`) for a struct not yet defined or outside the subset.
  std::vector<std::pair<std::string, IntType>> HeapMembers(const Pointee& pointee, const Token& at) const {
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

  // Whether `array` holds a member of the objects on the heap (HeapField), indexed by their numbers.
  bool IsHeapField(const std::string& array) const { return prog_.heap_fields.count(array) > 0; }

  // The index of the cell that the pointer bound into an array `b` points to (BindPointer), of its type.
  ExprPtr CellIndex(const Binding& b) const { return MakeVar(b.cell_index, prog_.VarNamed(b.cell_index).type); }

  // Binds `name_tok`, a pointer to a pointer to objects of `pointee` (`struct node **pp`, `DLL *head`), given
  // the address of `target` (at `at`): a variable or a cell that holds such pointers (`&head`, `&a[i]`,
  // `&p->next`), which `*name` reads and writes (BindPointer); the index of the cell, if any, is returned.
  std::optional<Var> BindHeapPointerAddress(const Token& name_tok, const std::string& target, const Pointee& pointee,
                                            Loc at) {
    const auto slot = heap_slots_.find(target);
    if (slot == heap_slots_.end() || !(slot->second == pointee)) {
      FailUnsupported(file_, at, "address given to '" + name_tok.text + "' (only of a pointer to " +
                                     PointeeName(pointee) + ")");
    }
    return BindPointer(name_tok.text, name_tok.loc, target);
  }

  // The counter of objects on the heap, the number of the last one allocated (0 before any: null).
  ExprPtr HeapObjects() {
    if (prog_.heap_objects.empty()) prog_.heap_objects = prog_.AddVar("heap_objects", kHeapRef);
    return MakeVar(prog_.heap_objects, kHeapRef);
  }

  // The array over object numbers that holds member `path` (of type `type`) of the objects `pointee` stands for
  // (path empty for integer objects), made at its first use. Its cells start arbitrary: an object's members
  // are arbitrary until written. A member that points to objects makes the array a heap slot.
  std::string HeapField(const Pointee& pointee, const std::string& path, IntType type) {
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

  // `->m` (through nested members, `->inner.x`) at the arrow after e, a pointer to structs on the heap, or `.m`
  // after `(*e)`: the member's cell of the object e points to.
  ExprPtr HeapMember(const ExprPtr& e) {
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

  // `*e` at its '*' for e a pointer to an integer on the heap (AtHeapPointer(1)): that integer.
  ExprPtr DereferenceHeap() {
    const Token star = Next();
    const ExprPtr target = ParseUnary();
    const std::optional<Pointee> pointee = PointeeOf(target);
    if (!pointee) FailUnsupported(file_, star.loc, "operator '*'");
    if (!pointee->tag.empty()) {
      FailUnsupported(file_, star.loc, "'*' of a pointer to a struct as a whole (only its members: '->', '(*p).m')");
    }
    return MakeIndex(HeapField(*pointee, "", pointee->cell), pointee->cell, target);
  }

  // A comparison `a op b` at op where a or b is a pointer to objects on the heap: == and != with another such
  // pointer or null (a constant 0).
  ExprPtr CompareHeapPointers(const Token& op, const ExprPtr& a, const ExprPtr& b) const {
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

  // An array declarator's size after its '[', through its ']'; null for `[]`.
  ExprPtr ParseArraySize() {
    ExprPtr n = Is("]") ? nullptr : ParseExpr();
    Expect("]");
    if (Is("[")) FailUnsupported(file_, Peek().loc, "multi-dimensional array");
    return n;
  }

  // Declares the array `name` (variable made from `base`, as Declare) of n cells (null: as many as values)
  // and returns what sets its cells (ParseArrayDeclarator).
  std::vector<StmtPtr> DeclareArray(const std::string& name, const std::string& base, IntType type, Loc loc,
                                    const ExprPtr& n, const std::vector<ExprPtr>& values, bool initialised,
                                    bool zeroed) {
    const std::string unique = Declare(name, type, true, loc, base);
    if (!n && !initialised) FailSyntax(file_, loc, "array '" + name + "' has no size");
    if (!initialised && !zeroed) {
      if (const std::optional<Int128> cells = FoldConstant(n); cells && *cells >= 0) NoteBytes(name, *cells, type);
      return {MakeHavoc(unique, ArrayBytes(n, type))};
    }
    const std::optional<Int128> n_value = n ? FoldConstant(n) : std::nullopt;
    if (n && !n_value) {
      FailUnsupported(file_, loc, "initialised or global array '" + name + "' whose size is not a constant");
    }
    const Int128 size = n ? *n_value : static_cast<Int128>(values.size());
    if (size < 0) FailSyntax(file_, loc, "array '" + name + "' has a negative size");
    NoteBytes(name, size, type);
    if (size < static_cast<Int128>(values.size())) FailSyntax(file_, loc, "too many initialisers for '" + name + "'");
    if (values.size() > kMaxInitialisedCells || size > MaxOf(kInt)) {
      FailUnsupported(file_, loc, "array '" + name + "' with more than " + std::to_string(kMaxInitialisedCells) +
                                      " initialisers or 2^31 cells");
    }
    std::vector<StmtPtr> out{MakeHavoc(unique, ArrayBytes(MakeConst(size, size_type_), type))};
    const auto cell = [&](ExprPtr index) { return MakeIndex(unique, type, MakeCast(kLongLong, std::move(index))); };
    const Int128 explicit_cells = size <= kMaxInitialisedCells ? size : static_cast<Int128>(values.size());
    for (size_t i = 0; i < static_cast<size_t>(explicit_cells); ++i) {
      const ExprPtr value = i < values.size() ? values[i] : MakeConst(0, type);
      out.push_back(MakeAssign(cell(MakeConst(static_cast<Int128>(i))), value));
    }
    if (explicit_cells < size) {
      for (StmtPtr& st : ZeroCells(unique, type, explicit_cells, MakeConst(size))) out.push_back(st);
    }
    return out;
  }

  // Statements that set the cells `first` to end - 1 of `array` (of type `type`) to 0: a loop over a fresh
  // counter of end's type.
  std::vector<StmtPtr> ZeroCells(const std::string& array, IntType type, Int128 first, const ExprPtr& end) {
    const ExprPtr c = FreshVar("zero_" + array, end->type);
    return {MakeAssign(c, MakeConst(first, end->type)),
            MakeLoop(MakeBinary("<", c, end, kInt),
                     MakeAssign(MakeIndex(array, type, MakeCast(kLongLong, c)), MakeConst(0, type)),
                     MakeAssign(c, MakeBinary("+", c, MakeConst(1, end->type), end->type)))};
  }

  // The bytes of a value of type t as C stores it: a pointer to an object on the heap (an object number here)
  // takes a pointer's bytes, 4 or 8 by the data model.
  Int128 Bytes(IntType t) const { return t == kHeapRef ? prog_.pointer_bytes : (t.bits + 7) / 8; }

  // Notes the bytes of the array just declared as `name`, of a constant number of cells, for sizeof.
  void NoteBytes(const std::string& name, Int128 cells, IntType t) {
    scopes_.back()[name].array_bytes = cells * Bytes(t);
  }

  // The size in bytes of n cells of type t, as printed in the malloc of the transformed program.
  ExprPtr ArrayBytes(ExprPtr n, IntType t) const {
    return MakeBinary("*", MakeCast(size_type_, n), MakeConst(Bytes(t), size_type_), size_type_);
  }

  // "malloc(bytes)", "alloca(bytes)" or "calloc(count, bytes)" after '=': the pointer becomes an array with
  // fresh cells, for calloc all zero (set by a loop over the cells, as a global array's zeros are).
  StmtPtr ParseMalloc(const std::string& array, IntType type) {
    AcceptPointerCast();
    const Token call = Peek();
    if (!IsAllocator(call.text)) {
      FailUnsupported(file_, call.loc, "pointer expression (only malloc, calloc and alloca results are arrays)");
    }
    Next();
    Expect("(");
    ExprPtr bytes = MakeCast(size_type_, ParseExpr());
    if (call.text == "calloc") {
      Expect(",");
      bytes = MakeBinary("*", bytes, MakeCast(size_type_, ParseExpr()), size_type_);
    }
    Expect(")");
    if (call.text != "calloc") return MakeHavoc(array, bytes);
    const ExprPtr total = FreshVar("bytes_" + array, size_type_);
    const ExprPtr cells = MakeBinary("/", total, MakeConst((type.bits + 7) / 8, size_type_), size_type_);
    std::vector<StmtPtr> out{MakeAssign(total, bytes), MakeHavoc(array, total)};
    for (StmtPtr& st : ZeroCells(array, type, 0, cells)) out.push_back(st);
    return MakeBlock(std::move(out));
  }

  // `free(p)` after its '(': p an array, a pointer into one or a pointer to an object on the heap (`free(*head)`
  // too), optionally cast. Nothing happens: a cell read after its block is freed is undefined behaviour, which
  // SV-COMP's unreach-call tasks do not have, as for an access out of bounds.
  StmtPtr ParseFree(const Token& call) {
    AcceptPointerCast();  // `free((void *)p)`
    if (Is("&")) {  // a variable's block, which no allocation made: undefined behaviour
      FailUnsupported(file_, call.loc, "call of 'free' of an address (only of what an allocation made)");
    }
    if (AtPointerValue()) {
      ParsePointerValue();
    } else {
      ExprPtr freed;
      try {
        freed = ParseExpr();
      } catch (const UnsupportedError&) {  // said below, with what free takes
      }
      if (!freed || freed->type != kHeapRef) {
        FailUnsupported(file_, call.loc, "call of 'free' (only of an array, a pointer into one or a pointer to an "
                                         "object on the heap)");
      }
    }
    Expect(")");
    return MakeBlock({});
  }

  // Skips a cast to a pointer type ahead (`(int *)`, `(void *)`), where there is one; the value it converts
  // stays a pointer into the same cells (an allocation's or an array's).
  void AcceptPointerCast() {
    if (!Is("(") || !IsTypeStart(1)) return;
    Next();
    ParseSpecifiers(false);
    while (Accept("*")) {
    }
    Expect(")");
  }

  // Whether `name` is a function that allocates an array: malloc, calloc, alloca and GCC's __builtin_alloca.
  static bool IsAllocator(const std::string& name) {
    return name == "malloc" || name == "calloc" || name == "alloca" || name == "__builtin_alloca";
  }

  // The right-hand side of '=' for a scalar of type t (a nondet call included).
  ExprPtr ParseAssignmentValue(IntType t) { return MakeCast(t, ParseExpr()); }

  // An expression statement: assignment, compound assignment, ++/--, a call of a known helper, or a call of a
  // function of the file (inlined).
  StmtPtr ParseSimpleStatement() {
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

  // A value that nothing stores, computed all the same (into a variable of its own): an access out of bounds
  // or a division by zero in it stops a concrete run, as it is undefined in C.
  StmtPtr Evaluated(const ExprPtr& value) {
    if (value->kind == ExprKind::kConst || value->kind == ExprKind::kVar) return MakeBlock({});
    return MakeAssign(FreshVar("unused", value->type), value);
  }

  // Whether the expression statement ahead (up to its ';', the ',' that joins it to the next, or the ')' that
  // ends a for's clauses) is a value that nothing stores: outside parentheses and brackets it joins terms by
  // binary operators or `?:`, and assigns nothing there.
  bool AtUnusedValue() const {
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

  // C's assignment operators, ++ and -- among them.
  static inline const std::set<std::string> kAssignmentOperators = {"=",  "+=", "-=",  "*=",  "/=", "%=", "&=",
                                                                    "|=", "^=", "<<=", ">>=", "++", "--"};

  // A fresh scalar of type t, named from base: a variable the parse adds (a call's value, a loop's flag, a
  // temporary of an assignment inside an expression).
  ExprPtr FreshVar(const std::string& base, IntType t) { return MakeVar(prog_.AddVar(base, t), t); }

  // The store of assignment operator op ("=", "+=", "<<=", ...; "++" and "--" with rhs 1) into target, a
  // scalar or an array cell, with C's conversions made explicit.
  StmtPtr Store(const Token& op, const ExprPtr& target, const ExprPtr& rhs) {
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

  // An assignment inside an expression, `target op rhs` (`target++` and `target--` when postfix, with rhs 1;
  // `spelling` names target in the source): where statements may run first (WithCallsHoisted), its store runs
  // there, and the expression reads its value: target's before the store for a postfix ++ or --, else after
  // it (a constant stays one), from a fresh variable.
  ExprPtr AssignInExpression(const Token& op, ExprPtr target, const ExprPtr& rhs, bool postfix,
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

  // Whether the tokens ahead are a call of a function defined in the file that is all of its statement or of
  // the value assigned (followed by ';', ',' or ')'): inlined as statements. A call inside a larger expression
  // is an expression call (ParseExpressionCall).
  bool AtInlinedCall() const {
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

  // What `&v`, `&s.m` or `&a[e]` points to: the variable (v, or the member's) or the array a, and what a pointer
  // to it passes as a value (v itself; for a cell, its index e).
  struct Address {
    std::string pointee;
    ExprPtr value;
  };
  // The address at '&', which must end at ',' or `end` (`where` it may stand, for the message).
  Address ParseAddress(const char* end, const char* where) {
    const Token amp = Next();
    const ExprPtr target = ParsePostfix(false);  // a variable, a struct's member, or a cell
    const bool scalar = target->kind == ExprKind::kVar && !prog_.VarNamed(target->name).is_array;
    if (!(Is(",") || Is(end)) || (target->kind != ExprKind::kIndex && !scalar)) {
      FailUnsupported(file_, amp.loc, std::string("operator '&' (only '&v' and '&a[i]' as ") + where + ")");
    }
    return {target->name, scalar ? target : target->args[0]};
  }

  // Binds `name` (declared at `loc`) in the innermost scope as a pointer to `pointee`, a variable or an array of
  // the pointer's type: `*name` reads and writes it (Dereference), the pointer alone is refused. For an array,
  // the cell's index is kept in a new variable, returned, which the caller assigns the index that the address
  // computed.
  std::optional<Var> BindPointer(const std::string& name, Loc loc, const std::string& pointee) {
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

  // A pointer into an array as the parse holds it: the array, and the index of the cell it points to.
  struct PointerValue {
    std::string array;
    ExprPtr index;
    Loc loc;
  };

  // The pointer bound into an array that `name` is (BindPointer), or null; also null for one declared without a
  // value that no assignment has pointed into an array yet.
  const Binding* CursorNamed(const std::string& name) const {
    const Binding* b = FindBinding(name);
    return b && b->points_to_var && !b->cell_index.empty() && !b->var.empty() ? b : nullptr;
  }

  // Whether the pointer `name` declared without a value ahead (at `int *p;`) is assigned a pointer into an array
  // (`p = a;`, `p = &a[i]`, `for (p = b + 1; ...)`) rather than a malloc'd array, by the first `p =` in the rest
  // of the block's tokens (none: an array, as before). A wrong guess is refused where `p` is assigned.
  bool AssignedAPointerLater(const std::string& name) const {
    const int end = static_cast<int>(EndOfBlock() - pos_);
    for (int k = 0; k < end; ++k) {
      if (Peek(k).kind != TokKind::kIdent || Peek(k).text != name || !Is("=", k + 1)) continue;
      if (k > 0 && (Is("*", k - 1) || Is(".", k - 1) || Is("->", k - 1))) continue;
      return !AtAllocation(k + 2);
    }
    return false;
  }

  // Whether token k starts what gives a pointer a block of its own: an allocator's call (IsAllocator) or a cast
  // (of one). ParseMalloc takes it, refusing a cast of anything else.
  bool AtAllocation(int k) const {
    return (Peek(k).kind == TokKind::kIdent && IsAllocator(Peek(k).text)) || (Is("(", k) && IsTypeStart(k + 1));
  }

  // The token index of the '}' that closes the block being parsed (the end of the tokens at the top level).
  size_t EndOfBlock() const {
    size_t end = pos_;
    for (int depth = 0; end < toks_.size() && toks_[end].kind != TokKind::kEnd; ++end) {
      if (toks_[end].text == "{") ++depth;
      if (toks_[end].text == "}" && --depth < 0) break;
    }
    return end;
  }

  // A pointer value ahead for the pointer `name` to cells of `type`: refused if it is none, or into an array of
  // another type.
  PointerValue ParsePointerFor(const std::string& name, IntType type) {
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

  // `p = v` at v for a pointer declared without a value (`int *p;`) that no assignment has pointed anywhere yet:
  // p points into v's array from here on in the source.
  StmtPtr PointCursor(const std::string& name, const Token& at, IntType type) {
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

  // Declares the pointer named by name_tok, to cells of `type`, without a value: the assignment that first
  // points it into an array (PointCursor) says which; until then, reading it is refused.
  void DeclareUnpointed(const Token& name_tok, IntType type) {
    const std::string& name = name_tok.text;
    if (scopes_.back().count(name)) FailSyntax(file_, name_tok.loc, "redefinition of '" + name + "'");
    const std::string cell = prog_.AddVar("cell_" + name, kLongLong);
    const std::string refused = "pointer into an array (only '*" + name + "', '" + name + "[i]', moving it "
                                "within the array it was first given, and comparing and subtracting pointers "
                                "into the same array)";
    scopes_.back()[name] = Binding{"", nullptr, refused, std::nullopt, std::nullopt, true, cell};
    pointee_types_[cell] = type;
  }

  // Whether token k starts an initialiser that points a pointer into an array: a pointer value (AtPointerValue),
  // a string literal, or, where `calls` may run (not at file scope), a call of a function of the file.
  bool AtPointerInitialiser(int k, bool calls) const {
    return AtPointerValue(k) || Peek(k).kind == TokKind::kString ||
           (calls && Peek(k).kind == TokKind::kIdent && functions_.count(Peek(k).text));
  }

  // Declares the pointer named by name_tok, to cells of `type`, with the initialiser ahead, after its '='
  // (AtPointerInitialiser): the statements that point it. A string literal is an array of its own (`string_s`,
  // with no name in C) set to its characters and the 0 after them; a call returns a pointer (ParsePointerCall).
  std::vector<StmtPtr> DeclarePointerInto(const Token& name_tok, IntType type) {
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

  // The number of tokens of the null pointer constant at token k: `0`, `NULL` where the file declares no such
  // name (the preprocessor replaces one it defines), a cast of one to a pointer type (`(void *)0`), one in
  // parentheses (`nesting` counts those looked into: a few at most, as every operand asks); 0 where none
  // starts there.
  int NullPointerAt(int k, int nesting = 0) const {
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

  // Whether a null pointer constant compared with a pointer into an array starts here (`NULL == p`, `0 != p +
  // 1`), where an operand of precedence above min_prec begins: an equality operator binds there.
  bool AtNullComparison(int min_prec) const {
    const int n = NullPointerAt(0);
    return n > 0 && (Is("==", n) || Is("!=", n)) && BinaryPrecedence(Peek(n)) > min_prec && AtPointerValue(n + 1);
  }

  // `NULL == p` or `NULL != p` ahead (AtNullComparison): a constant, as a pointer into an array is never null.
  ExprPtr ParseNullComparison() {
    for (int n = NullPointerAt(0); n > 0; --n) Next();
    const Token op = Next();
    RequireAllocated(ParsePointerValue().array, op.loc);
    return MakeConst(op.text == "!=" ? 1 : 0);
  }

  // Refuses, at `at`, a comparison with null of a pointer into `array` that may be null (maybe_null_). Any other
  // points into an array that exists: never null (and SV-COMP's allocations never fail).
  void RequireAllocated(const std::string& array, Loc at) const {
    if (maybe_null_.count(array)) {
      FailUnsupported(file_, at, "comparison with null of '" + prog_.VarNamed(array).name + "', a pointer declared "
                                 "without a value (null until something is allocated for it)");
    }
  }

  // The condition of an if, while or do after its '(' (calls in it hoisted): a pointer into an array alone
  // (`if (p)`) is true, as it is never null.
  ExprPtr ParseCondition(Hoisted& hoisted) {
    const std::string target = PointerTargetAt(0);
    if (target.empty() || !Is(")", 1)) return WithCallsHoisted(hoisted, [&] { return ParseCommaExpr(); });
    RequireAllocated(target, Next().loc);
    return MakeConst(1);
  }

  // The array that the name at token k points into as a pointer value: a pointer into an array, or a
  // one-dimensional array's own name (C converts it to a pointer to its first cell); empty for anything else,
  // a cell (`a[i]`, `p[i]`) and a call included.
  std::string PointerTargetAt(int k) const {
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

  // Whether a pointer value into an array starts at token k: such a name or `&` of a cell, and where
  // `parenthesised`, either in parentheses that hold a pointer value alone (`(a + k)`; not `(p < q)` nor `(p -
  // q)`, an integer). `nesting` counts the parentheses looked into after a '-' (OffsetsAloneUntilClose).
  bool AtPointerValue(int k = 0, bool parenthesised = true, int nesting = 0) const {
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

  // Whether the tokens from k to the ')' that closes the parentheses they are in join their terms by operators
  // that bind at least as tightly as `+` (`a + 2 * k`), none a `-` before a pointer (a difference; past a few
  // parentheses looked into, `- (` is taken for one): a pointer value, where the first term is one.
  bool OffsetsAloneUntilClose(int k, int nesting) const {
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

  // A pointer value into an array ahead (AtPointerValue): a term, then, with_offsets, integers added or
  // subtracted (a pointer after '-' ends it: that is a difference of pointers, which the caller takes).
  PointerValue ParsePointerValue(bool with_offsets = true) {
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

  // A pointer value ahead that must point into `array` (the one a pointer `name` points into).
  PointerValue ParsePointerInto(const std::string& array, const std::string& name) {
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

  // An operand that starts with a pointer value (AtPointerValue), where an integer is wanted: pointers into one
  // array compared (`p < a + n`) or subtracted (`p - a`), as their indices, the difference a ptrdiff_t. An
  // operator that binds as tightly as `min_prec` or more would take the pointer alone: refused, as is any
  // other use of a pointer as a value.
  ExprPtr ParsePointerOperand(int min_prec) {
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

  // A statement that moves pointer `name` within its array (`p = q + 1`, `p++`, `--p`, `p += k`) from `op` on;
  // prefix operators are taken before the name. The binding is a copy: what follows `op` may inline calls.
  StmtPtr MoveCursor(Binding cursor, const std::string& name, const Token& op) {
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

  // Whether the argument ahead, which starts with a pointer value (AtPointerValue), is a pointer rather than an
  // integer made of pointers (`p < q`, `p - a`): no comparison, condition or difference of pointers outside
  // parentheses before the ',' or ')' that ends it.
  bool ArgumentIsPointer() const {
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

  // Whether parameter k of fn is a pointer (`int *p`, not `int p[]`) that fn's body moves (`p++`, `*p--`,
  // `++p`, `p = q`, `p += 2`), by its tokens: given an array's name, it is then a pointer into that array, not
  // another name of the array. A move missed here is refused where it is parsed, never misread.
  bool MovesPointerParameter(const FunctionDef& fn, size_t k) const {
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

  // Whether tokens [begin, end) move the pointer `name` (`p++`, `*p--`, `++p`, `p = q`, `p += 2`; not `*p = v`,
  // `p[i]++` or `++p[i]`).
  bool MovedIn(const std::string& name, size_t begin, size_t end) const {
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

  // Whether the rest of the block being parsed moves the pointer `name` (MovedIn).
  bool MovedInRestOfBlock(const std::string& name) const { return MovedIn(name, pos_, EndOfBlock()); }

  // A call's arguments of fn after its '(', through its ')'. An argument that is an array's bare name stands for
  // the array (C passes its address), or, given to a pointer that fn moves, a pointer to its first cell;
  // anywhere else an array's name is refused as a value. `&v` of a scalar v, a pointer into an array (`&a[e]`,
  // `a + e`, `p + e`), and a pointer parameter that was given one, passed on, are addresses (which only a
  // pointer parameter takes).
  Arguments ParseArguments(const FunctionDef& fn) {
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

  // The call of a function of the file ahead, `f(args)`, inlined; `result` (if any) receives its value.
  StmtPtr ParseInlinedCall(ExprPtr result) {
    const Token t = Next();
    Next();
    const FunctionDef& fn = functions_.at(t.text);
    return Inline(fn, ParseArguments(fn), t.loc, std::move(result));
  }

  // Enters a call of fn for parsing its body: refuses recursion and too many calls, switches to a scope of the
  // globals and fn's parameters (not the caller's locals, which C does not show a callee), and declares them.
  // The body's statements hoist into lists of their own (the caller's runs before the whole body; until the
  // night of 2026-12-05 a loop condition or a `return` in the body hoisted its calls there: wrong verdicts).
  // Returns what LeaveCall needs to go back.
  struct CallerState {
    size_t pos;
    std::vector<std::map<std::string, Binding>> scopes;
    Hoisted* hoisted;
  };
  CallerState EnterCall(const FunctionDef& fn, const Arguments& args, Loc loc,
                        std::vector<std::optional<Var>>& params) {
    if (!fn.unsupported.empty()) FailUnsupported(file_, loc, "call of '" + fn.name + "': " + fn.unsupported);
    if (++inlined_calls_ > kMaxInlinedCalls) {
      FailUnsupported(file_, loc, "more than " + std::to_string(kMaxInlinedCalls) + " inlined calls");
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
  void LeaveCall(CallerState& caller) {
    pos_ = caller.pos;
    scopes_ = std::move(caller.scopes);
    hoisted_ = caller.hoisted;
  }

  // What a call of fn stands for. Why inline: only main is analysed, and SV-COMP tasks define small helpers
  // (assume_abort_if_not) that every verdict depends on. The body is parsed again at each call. A parameter is
  // replaced by its argument where that means the same (C passes a value once: the body writes neither the
  // parameter nor anything the argument reads, and the argument draws no input), else assigned it first.
  StmtPtr Inline(const FunctionDef& fn, const Arguments& arguments, Loc loc, ExprPtr result) {
    last_pointer_result_.clear();
    if (RecursesTooDeep(fn)) {
      prog_.recursion_cuts.insert(fmt::format("{}:{}:{}: '{}'", file_, loc.line, loc.col, fn.name));
      return RecursionCut(result);
    }
    std::vector<std::optional<Var>> params;
    CallerState caller = EnterCall(fn, arguments, loc, params);
    const std::vector<ExprPtr>& args = arguments.values;
    inlining_.push_back({&fn, result});
    jump_marks_.emplace_back();
    StmtPtr body = WithJumpsLowered(ParseBlock());
    const InlineFrame frame = inlining_.back();
    inlining_.pop_back();
    LeaveCall(caller);
    last_pointer_result_ = frame.result_array;
    if (result && !frame.returned && CompletesNormally(body)) {  // its last return may sit in a block, or a loop
      FailUnsupported(file_, loc, "'" + fn.name + "' ends without returning a value");
    }
    std::vector<StmtPtr> out;
    if (frame.returns_early) {
      const ExprPtr flag = FreshVar("returned_" + fn.name, kInt);
      bool may_return = false;
      out.push_back(MakeAssign(flag, MakeConst(0)));
      body = LowerReturns(body, flag, false, may_return);
    }
    const Effects effects = EffectsOf(body);
    std::set<std::string> written = effects.ArraysWritten();
    written.insert(effects.writes.begin(), effects.writes.end());
    for (size_t i = 0; i < params.size(); ++i) {
      if (!params[i]) continue;
      const Var& p = *params[i];
      if (!HasNondet(args[i]) && !written.count(p.name) && ReadsNone(args[i], written)) {
        body = SubstituteStmt(body, p.name, args[i]);
      } else {
        out.push_back(MakeAssign(MakeVar(p.name, p.type), MakeCast(p.type, args[i])));
      }
    }
    out.push_back(body);
    return MakeBlock(std::move(out));
  }

  // The calls in fn's body of the functions in cycle, at least 1: how many calls of the cycle one call of fn
  // can make.
  Int128 CallSites(const FunctionDef& fn, const std::set<std::string>& cycle) const {
    Int128 calls = 0;
    for (size_t k = fn.body; k < fn.body_end; ++k) {
      calls += toks_[k].kind == TokKind::kIdent && toks_[k + 1].text == "(" && cycle.count(toks_[k].text);
    }
    return std::max<Int128>(calls, 1);
  }

  // Whether a call of fn, inlined now, would close a cycle of calls (fn is being inlined already) deeper than
  // recursion is unrolled: kMaxRecursionDepth calls, or fewer where the calls on the cycle make more than one
  // call each, as many as keep the calls they could make together within kMaxRecursionCalls (9 levels of a
  // function that calls itself twice, fibo's).
  bool RecursesTooDeep(const FunctionDef& fn) const {
    const auto first = std::find_if(inlining_.begin(), inlining_.end(),
                                    [&fn](const InlineFrame& frame) { return frame.fn == &fn; });
    if (first == inlining_.end()) return false;
    std::set<std::string> cycle;
    for (auto frame = first; frame != inlining_.end(); ++frame) cycle.insert(frame->fn->name);
    Int128 tree = CallSites(fn, cycle);
    for (auto frame = first; frame != inlining_.end(); ++frame) tree *= CallSites(*frame->fn, cycle);
    return inlining_.end() - first >= kMaxRecursionDepth || tree > kMaxRecursionCalls;
  }

  // What a recursive call stands for past RecursesTooDeep: a check that no proof passes and no run confirms
  // (C leaves a division by zero undefined: the interpreter's run stops there and tells nothing, the clauses
  // give it any value, so the check may fail), then any value as the call's result (a pointer to an object on
  // the heap, which no arithmetic may make: a nondeterministic one, any object or null). A verdict thus holds
  // only where no run goes that deep; a run that does is `unknown`, never a bug of the program.
  static StmtPtr RecursionCut(const ExprPtr& result) {
    const auto undefined = [](IntType t) {
      return t == kHeapRef ? MakeNondet(t) : MakeBinary("/", MakeConst(1, t), MakeConst(0, t), t);
    };
    std::vector<StmtPtr> out = {MakeAssert(MakeBinary("==", undefined(kInt), MakeConst(0), kInt))};
    if (result) out.push_back(MakeAssign(result, undefined(result->type)));
    return MakeBlock(std::move(out));
  }

  // Whether fn's body is `{ return E; }` (its first token is return and its first ';' ends it) with E free of
  // assignments and of calls of functions that are not such: a call of fn is then E itself, with no statement
  // to run first. Each function is looked at once (one_return_); one that calls itself, directly or not, is not
  // such (recursion is inlined as statements, to a bounded depth: RecursesTooDeep).
  bool IsOneReturn(const FunctionDef& fn) {
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

  // A call of fn inside an expression (after its '('). Where statements may run first (WithCallsHoisted), fn
  // is inlined there, into a variable that the expression reads; a body that is one `return E;` (IsOneReturn)
  // is E with the arguments for the parameters instead (`int square(int x) { return x * x; }`), unless an
  // argument reads an input (E may read it twice, or never): where no statement runs, such a call is refused.
  ExprPtr ParseExpressionCall(const Token& t) {
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
    for (size_t i = 0; i < params.size(); ++i) {
      if (!params[i]) continue;
      if (HasNondet(args[i])) {
        FailUnsupported(file_, t.loc, "argument of '" + fn.name + "' that reads an input, inside an expression");
      }
      value = Substitute(value, params[i]->name, args[i]);
    }
    require_small();
    return MakeCast(fn.result_type, value);
  }

  // The parameter list of fn at '(', declared: an integer parameter as a variable of its own (returned in
  // order; nothing for the others), an array or pointer parameter as another name of the array that is its
  // argument (C passes the array's address: the callee reads and writes the caller's cells), a pointer
  // parameter given `&v` or `&a[e]` as a name of v or of that cell that only `*p` reads and writes (e is then
  // passed as a value, to a parameter `cell_p` of its own). Without `args` (a body parsed only to find its
  // syntax error) an array parameter gets cells of its own.
  std::vector<std::optional<Var>> DeclareParameters(const FunctionDef& fn, const Arguments* args, Loc loc) {
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

  // A parameter of fn of struct `tag` at its declarator (`a[]` or `*a`), given the array of structs `passed`:
  // another name of that array's member arrays, as an array parameter is of its array.
  void BindStructArray(const FunctionDef& fn,
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

  // Parameter k of fn at its '*' (at its name, for a typedef of the pointer), a pointer to objects of `pointee`
  // on the heap: a variable of its own, given the argument (if args) as a value, which must be null or point to
  // such objects.
  Var DeclareHeapParameter(const FunctionDef& fn, const Arguments* args, size_t k, const Pointee& pointee, Loc loc) {
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

  // Whether the extents of an array parameter's dimensions after the first, constants, are those of the array
  // `array` (none for a one-dimensional one).
  bool SameExtents(const std::vector<ExprPtr>& parameter, const std::string& array) const {
    const auto found = inner_extents_.find(array);
    const std::vector<ExprPtr> none;
    const std::vector<ExprPtr>& extents = found == inner_extents_.end() ? none : found->second;
    if (extents.size() != parameter.size()) return false;
    for (size_t d = 0; d < extents.size(); ++d) {
      if (FoldConstant(extents[d]) != FoldConstant(parameter[d])) return false;
    }
    return true;
  }

  // `return` (after the keyword) in the function being inlined: it hands its value to the call's result; one
  // before the end of the body also leaves a kReturn, which Inline lowers (the rest of the body is skipped).
  StmtPtr ParseInlinedReturn(Loc loc) {
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

  // The value of `return` in a function that returns a pointer: a pointer into an array, the same one at every
  // return of the call (InlineFrame::result_array); the index of its cell.
  ExprPtr ParsePointerResult() {
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

  // A call ahead of a function of the file that returns a pointer, for the pointer `name` to cells of `type`:
  // the statements of the call, and what it returns, a pointer into an array.
  std::pair<StmtPtr, PointerValue> ParsePointerCall(const std::string& name, IntType type) {
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

  // Skips the rest of a call's argument list after its '('.
  void SkipBalancedRest() {
    int depth = 1;
    while (depth > 0) {
      if (AtEnd()) FailSyntax(file_, Peek().loc, "expected ')'");
      const std::string& s = Next().text;
      if (s == "(") ++depth;
      if (s == ")") --depth;
    }
  }

  // a op b for an arithmetic operator, with C's conversions made explicit.
  ExprPtr Arith(const std::string& op, ExprPtr a, ExprPtr b, Loc loc) {
    const IntType t = CommonType(a->type, b->type);
    auto e = std::const_pointer_cast<Expr>(MakeBinary(op, MakeCast(t, a), MakeCast(t, b), t));
    e->loc = loc;
    return e;
  }

  // a << k and a >> k: by a constant k, the arithmetic they are (ShiftByConstant); by any other k, the choice
  // among those arithmetic forms that k's value makes, `k == 0 ? a : k == 1 ? ... : a / 0`: a shift by k < 0 or
  // k >= the width is undefined in C, as a division by zero is (the interpreter stops such a run, the encoding
  // gives it any value). The chain repeats a and k once per bit, so neither may read an input (it would read
  // one per copy) and their size is bounded.
  ExprPtr Shift(const Token& op, const ExprPtr& a, const ExprPtr& k) {
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

  // a << k and a >> k for a constant k from 0 to the width - 1, as the arithmetic they are (the integers carry
  // no bits): a times 2^k, wrapping as the product does; a divided by 2^k, rounded down as gcc's arithmetic shift
  // of a negative value is (division rounds towards zero, hence the second branch). The type is a's, promoted.
  ExprPtr ShiftByConstant(const Token& op, const ExprPtr& a, int k) {
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

  // The nodes of e's tree, counted to just past `limit` at most: a tree whose subtrees are shared (the parser
  // substitutes arguments by pointer) may be exponentially larger than the nodes it holds in memory.
  static size_t NodeCount(const ExprPtr& e, size_t limit) {
    size_t n = 1;
    for (const ExprPtr& arg : e->args) {
      if (n > limit) break;
      n += NodeCount(arg, limit - n);
    }
    return n;
  }

  // Fails unless the operands of `what` may be repeated in the arithmetic that stands for it: none reads an
  // input (each copy would read one more) and together they are small.
  void RequireCopyable(const Token& op, const std::string& what, std::initializer_list<ExprPtr> operands) {
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

  // a & c, a | c and a ^ c for a constant c (either operand), as the arithmetic they are, since the integers
  // carry no bits: the bits of x from lo to hi are res(x, 2^(hi+1)) - res(x, 2^lo), where res is the residue
  // that two's complement makes non-negative ((x % m + m) % m for a signed x), so x & c sums that over the runs
  // of ones in c (a mask of the low bits, `i & 1`, `x & 0xff`, is one residue and reads x once); a negative c
  // is x - (x & ~c); x | c = (x - (x & c)) + c and x ^ c = (x - (x & c)) + (c - (x & c)), whose every partial
  // sum stays within the type. Where x is copied it may not read an input (it would read one per copy), nor
  // be large; for a signed x the constant keeps within -2^(bits-2) to 2^(bits-2) - 1, so that x % m + m cannot
  // overflow. Between two variables the operator stays one node, which the Horn encoding takes apart into bits
  // (horn.cc, Bitwise).
  ExprPtr Bitwise(const Token& op, const ExprPtr& a, const ExprPtr& b) {
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

  // Comparison a op b: both operands converted to their common type; the result is int.
  ExprPtr Compare(const std::string& op, ExprPtr a, ExprPtr b) {
    const IntType t = CommonType(a->type, b->type);
    return MakeBinary(op, MakeCast(t, a), MakeCast(t, b), kInt);
  }

  // An expression with C's comma operator (`a, b`: a runs for its assignments and calls, its value dropped,
  // before b, whose value the expression is), where the grammar has one: in parentheses and the conditions of
  // if, while, do, for and switch, and after return. (Joining expression statements and a for's clauses, it
  // is ParseExpressionList's.) Until the night of 2026-12-05 such a comma was unsupported.
  ExprPtr ParseCommaExpr() {
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

  ExprPtr ParseExpr() {
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

  ExprPtr ParseBinary(int min_prec) {
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

  // `a && b` or `a || b` (op) after the operator, b of precedence above prec; `left` marks where a's hoisted
  // statements begin. Where b needs statements to run first, or reads what a's assignments store, a's truth goes
  // into a fresh int before them, and only where C evaluates b (a true for &&, false for ||) do they run and
  // b's truth replace it: the expression is that int.
  ExprPtr ShortCircuit(const std::string& op, const HoistedMark& left, const ExprPtr& a, int prec) {
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

  // How far the hoisted statements and stores reach now (nothing where none may be hoisted).
  HoistedMark MarkHoisted() const {
    return hoisted_ ? HoistedMark{hoisted_->statements.size(), hoisted_->stores.size()} : HoistedMark{};
  }

  // parse() with what it hoists gathered in `hoisted` where statements may run first, else parse() alone.
  template <typename Parse>
  ExprPtr WithCallsHoistedIf(Hoisted& hoisted, Parse parse) {
    return hoisted_ ? WithCallsHoisted(hoisted, parse) : parse();
  }

  // Whether an operand e that C evaluates after the part since `left` (the right of && or ||, a branch of ?:),
  // needs statements of its own: it hoisted some (`before`), or it reads a variable that the part stored.
  bool NeedsStatements(const HoistedMark& left, const Hoisted& before, const ExprPtr& e) const {
    if (!before.statements.empty()) return true;
    if (!hoisted_) return false;
    const std::set<std::string> read = Mentions(e);
    for (size_t k = left.stores; k < hoisted_->stores.size(); ++k) {
      if (read.count(hoisted_->stores[k].var)) return true;
    }
    return false;
  }

  // Records that the statements just hoisted run the operands `later` after the part since `left`, as C
  // sequences them: the stores of either may be read or written by the other, not by the rest.
  void SequenceAfter(const HoistedMark& left, const std::vector<Hoisted>& later) {
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

  // sizeof(type) or sizeof(expr) in bytes, as unsigned long.
  ExprPtr ParseSizeof(Loc loc) {
    if (Is("(") && IsTypeStart(1)) {
      Next();
      auto spec = ParseSpecifiers(false);
      bool pointer = spec && spec->pointers > 0;
      while (Accept("*")) pointer = true;
      Expect(")");
      if (!spec || ((spec->is_void || !spec->record_tag.empty()) && !pointer)) {
        FailUnsupported(file_, loc, "sizeof operand");
      }
      return MakeConst(pointer ? long_bits_ / 8 : (spec->type.bits + 7) / 8, size_type_);
    }
    // An array's name, alone or in parentheses: the whole array's bytes (`sizeof a / sizeof a[0]`; but
    // `sizeof (a)[0]` is a cell's).
    const bool parenthesised = Is("(") && Is(")", 2);
    const Token name = Peek(parenthesised ? 1 : 0);
    const bool alone = name.kind == TokKind::kIdent && !Is("[", parenthesised ? 3 : 1);
    const Binding* b = alone ? FindBinding(name.text) : nullptr;
    if (b && !b->var.empty() && b->refused.empty() && prog_.VarNamed(b->var).is_array) {
      if (!b->array_bytes) {
        FailUnsupported(file_, name.loc, "sizeof of '" + name.text + "', a pointer or an array of variable size");
      }
      for (int k = parenthesised ? 3 : 1; k > 0; --k) Next();
      return MakeConst(*b->array_bytes, size_type_);
    }
    Hoisted unevaluated;  // sizeof does not evaluate its operand: what it would run first is dropped
    const ExprPtr e = WithCallsHoisted(unevaluated, [&] { return ParseUnary(); });
    return MakeConst(Bytes(e->type), size_type_);
  }

  // A unary expression; a postfix ++ or -- on it too unless not postfix_assignments (the target of an
  // assignment statement, whose ++ or -- is its own).
  ExprPtr ParseUnary(bool postfix_assignments = true) {
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

  // A cast to a pointer type at its first '*' (after the type `spec`): of a constant 0, null; of a pointer to
  // objects on the heap, that pointer, where the type is theirs or void. Any other is refused.
  ExprPtr ParsePointerCast(const std::optional<ParsedType>& spec) {
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

  // `*p` at its '*', p at `name`: the variable that a pointer given `&v` points to, the cell that a pointer into
  // an array points to (`*p++` that cell, then p moved to the next), or the first cell of a one-dimensional
  // array (`*a` is `a[0]`); nothing for any other name. `*a++` of an array, `*v++` of a pointer to a variable
  // and `*p[1]` are refused.
  ExprPtr Dereference(const Token& name) {
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

  // The variable on the heap (a struct's, DeclareStructObject, or an integer's, DeclareIntegerObject) named at
  // token k as a whole, or null.
  const Binding* ObjectAt(int k) const {
    if (Peek(k).kind != TokKind::kIdent || Is(".", k + 1) || Is("[", k + 1) || Is("->", k + 1)) return nullptr;
    const Binding* b = FindBinding(Peek(k).text);
    return b && !b->object.empty() ? b : nullptr;
  }

  // Whether the tokens ahead are `(*e).`: a member of what e points to.
  bool AtDereferencedMember() const { return Is("(") && Is("*", 1) && Is(".", AfterGroup(0)); }

  // The offset of the token after the group in parentheses or brackets that opens at token k (of the end of
  // the tokens where it never closes).
  int AfterGroup(int k) const {
    for (int depth = 0; Peek(k).kind != TokKind::kEnd; ++k) {
      if (Is("(", k) || Is("[", k)) ++depth;
      if ((Is(")", k) || Is("]", k)) && --depth == 0) return k + 1;
    }
    return k;
  }

  ExprPtr ParsePostfix(bool postfix_assignments) {
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

  // `s.m` or `a[i].m` (through nested members, `s.inner.x`) at a struct variable's name: the member's variable,
  // or its array's cell i.
  ExprPtr ParseMemberAccess(const Record& record) {
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

  ExprPtr ParsePrimary() {
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

  // The type a __VERIFIER_nondet_<suffix> function returns: SV-COMP's names, and the spelled-out unsigned ones
  // that tasks declare for themselves (nla-digbench's `__VERIFIER_nondet_unsigned_int`).
  IntType NondetType(const Token& t) {
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

  ExprPtr Number(const Token& t) {
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

  // Whether an operand between the tokens `before` and `after` is taken by C as a truth value only: an operand
  // of `!`, `&&` or `||` (`!"never"`, `x && "why"`, `"why" && x`), not one of a tighter operator (`x == "a" && y`).
  static bool IsTruthOperand(const Token& before, const Token& after) {
    const auto is = [](const Token& t, std::initializer_list<const char*> texts) {
      const auto same = [&](const char* x) { return t.text == x; };
      return t.kind == TokKind::kPunct && std::any_of(texts.begin(), texts.end(), same);
    };
    if (is(before, {"!"})) return true;
    if (is(before, {"&&", "||"}) && is(after, {"&&", "||", ")", ";", ",", "?", ":"})) return true;
    return is(after, {"&&", "||"}) && (is(before, {"(", "&&", "||", "=", ","}) || before.text == "return");
  }

  // A character constant: one character or escape sequence (simple, octal, hexadecimal). A plain one is an
  // int holding the char that gcc makes of it, signed ('\xff' is -1); L'x' a wchar_t (int), u'x' a char16_t
  // and U'x' a char32_t holding the code itself. A constant of several characters (implementation-defined), a
  // hexadecimal escape of more than two digits, and a prefixed one of a raw byte outside ASCII (a UTF-8
  // sequence) or with u8 are unsupported.
  ExprPtr CharLiteral(const Token& t) {
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

  // The code (0 to 255) of the character or escape sequence of literal t that starts at body[at]; at moves past
  // it (a hexadecimal escape takes every hexadecimal digit after it, as C's does). Escapes other than C's, and
  // codes above 255, are unsupported.
  Int128 CharacterCode(const Token& t, const std::string& body, size_t& at) {
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

  // The string literal ahead, and any after it (C joins "ab" "c"), as the cells of a char array of type `type`
  // it initialises: its characters, then the 0 that ends it. Prefixed literals (L"..", u8"..") are unsupported.
  std::vector<ExprPtr> ParseStringCells(IntType type) {
    std::vector<ExprPtr> cells;
    while (Peek().kind == TokKind::kString) {
      const Token t = Next();
      if (t.text[0] != '"') FailUnsupported(file_, t.loc, "string literal " + t.text + " with a prefix");
      const std::string body = t.text.substr(1, t.text.size() - 2);
      for (size_t at = 0; at < body.size();) {
        const Int128 code = CharacterCode(t, body, at);
        cells.push_back(MakeConst(type.is_signed && code > 127 ? code - 256 : code, type));
      }
    }
    cells.push_back(MakeConst(0, type));
    return cells;
  }

  std::string file_;
  std::vector<Token> toks_;
  // The second reading of a program that the first refused (Parse): every pointer to an integer points to
  // objects on the heap, and every integer variable whose address the file takes is one, so that such pointers
  // are moved, compared and stored as pointers to structs are.
  const bool integers_on_heap_;
  Hoisted* hoisted_ = nullptr;  // what WithCallsHoisted lets run first, if anything may
  int long_bits_;      // of long and pointers: 64 (LP64) or 32 (ILP32)
  IntType size_type_;  // size_t, the type of sizeof
  size_t pos_ = 0;
  int depth_ = 0;  // levels of nesting being parsed (DepthGuard)
  Program prog_;
  std::vector<std::map<std::string, Binding>> scopes_;
  // The multi-dimensional arrays, by variable: the extents of their dimensions after the first, which index
  // their cells (ParseArrayDeclarator).
  std::map<std::string, std::vector<ExprPtr>> inner_extents_;
  // The cell type of each pointer declared without a value (`int *p;`), by its index variable, for the
  // assignment that first points it into an array (PointCursor).
  std::map<std::string, IntType> pointee_types_;
  // The arrays of pointers declared without a value (a global `int *h;`, a local one): null until something
  // is allocated for them, so that comparing them with null is refused (RequireAllocated).
  std::set<std::string> maybe_null_;
  std::map<std::string, Record> records_;  // the structs defined, by tag
  // The names that follow a '&' as a whole (`&s`, not `&s.m` or `&a[i]`): a struct variable of such a name is an
  // object on the heap (DeclareStructObject).
  std::set<std::string> addressed_;
  // The variables and arrays that hold pointers to objects on the heap (heap slots), by name: what they point to.
  std::map<std::string, Pointee> heap_slots_;
  // The arrays of the members of objects on the heap (HeapField), by "tag.path" (an integer object's: its type).
  std::map<std::string, std::string> heap_fields_;
  std::map<std::string, IntType> enum_types_;  // the enums defined, by tag: their types
  std::map<std::string, ParsedType> typedefs_;
  std::set<std::string> opaque_typedefs_;
  std::vector<StmtPtr> globals_init_;
  // The static variables declared inside functions, by the token index of their declarator, and what sets
  // them before main runs (ParseStaticDeclarators).
  std::map<size_t, std::string> static_locals_;
  std::vector<StmtPtr> static_inits_;
  std::optional<size_t> main_pos_;  // the token index of main's body
  std::vector<JumpMarks> jump_marks_;  // of main's body and of each body being inlined, innermost last
  size_t main_end_ = 0;             // the token index of its closing '}'
  std::map<std::string, FunctionDef> functions_;  // the functions of the file but main and the known helpers
  std::map<std::string, bool> one_return_;        // IsOneReturn of each function looked at
  std::vector<InlineFrame> inlining_;             // the calls being inlined, innermost last
  std::string last_pointer_result_;  // the array that the pointer result of the last inlined call points into
  int inlined_calls_ = 0;
};

}  // namespace

Program Parse(const std::string& file, const std::string& text, DataModel model) {
  std::vector<Token> toks = WithoutQualifiers(Preprocess(file, Lex(file, text)));
  try {
    return Parser(file, toks, model, false).Run();
  } catch (const UnsupportedError& first) {
    // Pointers to integer variables that move, compare or are stored (`p = &b; if (p == q)`), which the first
    // reading refuses (a pointer given `&x` is a name of x there): read again with the integers on the heap. A
    // program that this reading refuses too gets the first reading's reason.
    try {
      return Parser(file, std::move(toks), model, true).Run();
    } catch (const common::InputError&) {
      throw first;
    }
  }
}

Program ParseFile(const std::string& path, DataModel model) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw common::InputError(path + ": cannot read the file");
  std::ostringstream buf;
  buf << in.rdbuf();
  return Parse(path, buf.str(), model);
}

}  // namespace fusion
