// The parser: declaration specifiers, the definitions of structs and enums, and sizeof.
#include "fusion/parser_state.h"

#include <optional>
#include <set>
#include <utility>

#include "fusion/errors.h"
#include "fusion/loop_ir.h"

namespace fusion::parsing {

bool Parser::IsTypeStart(int k) const {
  const Token& t = Peek(k);
  if (t.kind != TokKind::kIdent) return false;
  static const std::set<std::string> kTypeWords = {"void",   "char",       "short",  "int",   "long",
                                                   "signed", "unsigned",   "_Bool",  "struct", "union",
                                                   "enum",   "__signed__", "float",  "double",
                                                   "__int128"};
  return kTypeWords.count(t.text) || kIgnoredSpecifiers.count(t.text) || typedefs_.count(t.text) ||
         t.text == "__attribute__";
}

std::optional<ParsedType> Parser::ParseSpecifiers(bool skip_aggregates) {
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

std::pair<std::string, Token> Parser::ParseTag(const std::string& kind) {
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

std::string Parser::ParseStructSpecifier() {
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

IntType Parser::ParseEnumSpecifier(bool at_top_level) {
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

void Parser::ParseMemberDeclaration(Record& record) {
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

ExprPtr Parser::ParseSizeof(Loc loc) {
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

}  // namespace fusion::parsing
