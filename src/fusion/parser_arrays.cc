// The parser: arrays, their declarators and initialisers, string literals, malloc and free.
#include "fusion/parser_state.h"

#include <functional>
#include <optional>
#include <utility>

#include "fusion/errors.h"
#include "fusion/loop_ir.h"

namespace fusion::parsing {

std::vector<StmtPtr> Parser::ParseArrayDeclarator(const std::string& name, IntType type, Loc loc, bool zeroed) {
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

std::vector<ExprPtr> Parser::ParseBracedCells(const std::string& name, IntType type, const std::vector<ExprPtr>& inner,
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

ExprPtr Parser::ParseArraySize() {
  ExprPtr n = Is("]") ? nullptr : ParseExpr();
  Expect("]");
  if (Is("[")) FailUnsupported(file_, Peek().loc, "multi-dimensional array");
  return n;
}

std::vector<StmtPtr> Parser::DeclareArray(const std::string& name, const std::string& base, IntType type, Loc loc,
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

std::vector<StmtPtr> Parser::ZeroCells(const std::string& array, IntType type, Int128 first, const ExprPtr& end) {
  const ExprPtr c = FreshVar("zero_" + array, end->type);
  return {MakeAssign(c, MakeConst(first, end->type)),
          MakeLoop(MakeBinary("<", c, end, kInt),
                   MakeAssign(MakeIndex(array, type, MakeCast(kLongLong, c)), MakeConst(0, type)),
                   MakeAssign(c, MakeBinary("+", c, MakeConst(1, end->type), end->type)))};
}

Int128 Parser::Bytes(IntType t) const { return t == kHeapRef ? prog_.pointer_bytes : (t.bits + 7) / 8; }

void Parser::NoteBytes(const std::string& name, Int128 cells, IntType t) {
  scopes_.back()[name].array_bytes = cells * Bytes(t);
}

ExprPtr Parser::ArrayBytes(ExprPtr n, IntType t) const {
  return MakeBinary("*", MakeCast(size_type_, n), MakeConst(Bytes(t), size_type_), size_type_);
}

StmtPtr Parser::ParseMalloc(const std::string& array, IntType type) {
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

StmtPtr Parser::ParseFree(const Token& call) {
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

void Parser::AcceptPointerCast() {
  if (!Is("(") || !IsTypeStart(1)) return;
  Next();
  ParseSpecifiers(false);
  while (Accept("*")) {
  }
  Expect(")");
}

bool Parser::IsAllocator(const std::string& name) {
  return name == "malloc" || name == "calloc" || name == "alloca" || name == "__builtin_alloca";
}

std::vector<ExprPtr> Parser::ParseStringCells(IntType type) {
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

}  // namespace fusion::parsing
