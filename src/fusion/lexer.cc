#include "fusion/lexer.h"

#include <cctype>
#include <cstdio>
#include <map>

#include "fusion/errors.h"

namespace fusion {

std::vector<Token> Lex(const std::string& file, const std::string& text) {
  std::vector<Token> out;
  size_t p = 0;
  int line = 1;
  size_t line_start = 0;
  bool at_line_start = true;
  bool in_directive = false;
  auto here = [&] { return Loc{line, static_cast<int>(p - line_start) + 1}; };
  // Punctuators longest first, so that "<<=" is not read as "<" "<=".
  static const char* kPuncts[] = {"<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=",
                                  "&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^="};
  while (p < text.size()) {
    const char c = text[p];
    if (c == '\\' && p + 1 < text.size() && text[p + 1] == '\n') {  // a spliced line goes on
      p += 2;
      ++line;
      line_start = p;
      continue;
    }
    if (c == '\n') {
      if (in_directive) out.push_back(Token{TokKind::kDirectiveEnd, "", here()});
      in_directive = false;
      ++line;
      line_start = ++p;
      at_line_start = true;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++p;
      continue;
    }
    if (c == '#' && at_line_start) {
      out.push_back(Token{TokKind::kDirective, "#", here()});
      in_directive = true;
      at_line_start = false;
      ++p;
      continue;
    }
    at_line_start = false;
    if (text.compare(p, 2, "//") == 0) {
      while (p < text.size() && text[p] != '\n') ++p;
      continue;
    }
    if (text.compare(p, 2, "/*") == 0) {
      const Loc start = here();
      const size_t end = text.find("*/", p + 2);
      if (end == std::string::npos) FailSyntax(file, start, "unterminated comment");
      for (; p < end + 2; ++p) {
        if (text[p] == '\n') {
          ++line;
          line_start = p + 1;
        }
      }
      continue;
    }
    Token t;
    t.loc = here();
    const size_t begin = p;
    // A character or string literal from its opening quote at p (after any prefix).
    const auto literal = [&] {
      const char quote = text[p++];
      while (p < text.size() && text[p] != quote && text[p] != '\n') p += text[p] == '\\' ? 2 : 1;
      if (p < text.size() && text[p] == quote) {
        ++p;
        t.kind = quote == '\'' ? TokKind::kChar : TokKind::kString;
      } else {
        t.kind = TokKind::kInvalid;
        t.text = "unterminated literal";
      }
    };
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (p < text.size() && (std::isalnum(static_cast<unsigned char>(text[p])) || text[p] == '_')) ++p;
      t.kind = TokKind::kIdent;
      // L'a', u'a', U'a', u8"a": a literal with its encoding prefix, one token.
      const std::string word = text.substr(begin, p - begin);
      const bool prefix = word == "L" || word == "u" || word == "U" || word == "u8";
      if (prefix && p < text.size() && (text[p] == '\'' || text[p] == '"')) literal();
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      while (p < text.size() && (std::isalnum(static_cast<unsigned char>(text[p])) || text[p] == '.')) ++p;
      t.kind = TokKind::kNumber;
    } else if (c == '\'' || c == '"') {
      literal();
    } else {
      t.kind = TokKind::kPunct;
      size_t len = 0;
      for (const char* punct : kPuncts) {
        if (text.compare(p, std::char_traits<char>::length(punct), punct) == 0) {
          len = std::char_traits<char>::length(punct);
          break;
        }
      }
      if (len == 0 && c == '#' && in_directive) {  // a macro's # and ## operators, which the preprocessor names
        len = text.compare(p, 2, "##") == 0 ? 2 : 1;
      } else if (len == 0) {
        if (std::string("{}()[];,:?=+-*/%<>!~&|^.").find(c) == std::string::npos) {
          // A control or non-ASCII byte is named by its code, since printing it would garble the message.
          const auto byte = static_cast<unsigned char>(c);
          char code[8];
          std::snprintf(code, sizeof code, "0x%02x", byte);
          t.kind = TokKind::kInvalid;
          t.text = std::isprint(byte) ? std::string("unexpected character '") + c + "'"
                                      : std::string("unexpected byte ") + code + " (not C source text?)";
        }
        len = 1;
      }
      p += len;
    }
    if (t.kind != TokKind::kInvalid) t.text = text.substr(begin, p - begin);
    out.push_back(std::move(t));
  }
  if (in_directive) out.push_back(Token{TokKind::kDirectiveEnd, "", here()});
  Token end;
  end.kind = TokKind::kEnd;
  end.loc = here();
  out.push_back(end);
  return out;
}

int BinaryPrecedence(const Token& t) {
  static const std::map<std::string, int> kPrecedence = {
      {"||", 1}, {"&&", 2}, {"|", 3},  {"^", 4},  {"&", 5},  {"==", 6}, {"!=", 6}, {"<", 7},  {">", 7},
      {"<=", 7}, {">=", 7}, {"<<", 8}, {">>", 8}, {"+", 9},  {"-", 9},  {"*", 10}, {"/", 10}, {"%", 10}};
  if (t.kind != TokKind::kPunct) return 0;
  const auto it = kPrecedence.find(t.text);
  return it == kPrecedence.end() ? 0 : it->second;
}

IntegerLiteral ReadIntegerLiteral(const std::string& file, const Token& t) {
  IntegerLiteral lit;
  std::string s = t.text;
  while (!s.empty() && (s.back() == 'u' || s.back() == 'U' || s.back() == 'l' || s.back() == 'L')) {
    if (s.back() == 'u' || s.back() == 'U') lit.is_unsigned = true;
    else ++lit.longs;
    s.pop_back();
  }
  int base = 10;
  size_t i = 0;
  if (s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    i = 2;
  } else if (s.size() > 1 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {  // GNU C's and C23's binary
    base = 2;
    i = 2;
  } else if (s.size() > 1 && s[0] == '0') {
    base = 8;
    i = 1;
  }
  lit.decimal = base == 10;
  if (i >= s.size() && (base == 16 || base == 2)) FailSyntax(file, t.loc, "malformed number '" + t.text + "'");
  for (; i < s.size(); ++i) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
    int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : 99;
    if (d >= base) FailUnsupported(file, t.loc, "number '" + t.text + "'");
    lit.value = lit.value * base + d;
    if (lit.value > (Int128(1) << 64)) FailUnsupported(file, t.loc, "number '" + t.text + "' (too large)");
  }
  return lit;
}

}  // namespace fusion
