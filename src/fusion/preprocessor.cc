#include "fusion/preprocessor.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

#include "fusion/errors.h"

namespace fusion {
namespace {

// Expanding a macro may double the tokens at each level (#define A B B, #define B C C, ...): past this many the
// file is refused rather than exhausting memory.
constexpr size_t kMaxTokens = 10'000'000;

// What the message of a construct beyond this preprocessor advises.
constexpr const char* kPreprocessFirst = " (preprocess the file first: gcc -E)";

// A value of an #if expression: intmax_t or uintmax_t, both 64 bits here.
struct Value {
  uint64_t bits = 0;
  bool is_unsigned = false;
};

// Evaluates the integer constant expression of an #if or #elif, after macro expansion and defined().
class ConditionEvaluator {
 public:
  ConditionEvaluator(const std::string& file, const std::vector<Token>& tokens, Loc directive)
      : file_(file), toks_(tokens), directive_(directive) {}

  bool Run() {
    if (toks_.empty()) FailSyntax(file_, directive_, "#if with no expression");
    const Value v = Ternary(true);
    if (pos_ < toks_.size()) FailSyntax(file_, toks_[pos_].loc, "unexpected '" + toks_[pos_].text + "' in #if");
    return v.bits != 0;
  }

 private:
  // The location of the next token, or of the directive at the end of its line.
  Loc Here() const { return pos_ < toks_.size() ? toks_[pos_].loc : directive_; }

  bool Accept(const std::string& punct) {
    if (pos_ >= toks_.size() || toks_[pos_].kind != TokKind::kPunct || toks_[pos_].text != punct) return false;
    ++pos_;
    return true;
  }

  void Expect(const std::string& punct) {
    if (!Accept(punct)) FailSyntax(file_, Here(), "expected '" + punct + "' in #if");
  }

  static Value Bool(bool b) { return Value{b ? 1u : 0u, false}; }

  // live is false in an operand that C does not evaluate (the right of a decided && or ||, the branch of ?: not
  // taken): a division by zero there is no error.
  Value Ternary(bool live) {
    const Value c = Binary(1, live);
    if (!Accept("?")) return c;
    const Value a = Ternary(live && c.bits != 0);
    Expect(":");
    const Value b = Ternary(live && c.bits == 0);
    Value r = c.bits != 0 ? a : b;
    r.is_unsigned = a.is_unsigned || b.is_unsigned;
    return r;
  }

  Value Binary(int min_precedence, bool live) {
    Value lhs = Unary(live);
    while (pos_ < toks_.size()) {
      const Token op = toks_[pos_];
      const int precedence = BinaryPrecedence(op);
      if (precedence == 0 || precedence < min_precedence) break;
      ++pos_;
      if (op.text == "&&" || op.text == "||") {
        const bool decided = (op.text == "&&") == (lhs.bits == 0);
        const Value rhs = Binary(precedence + 1, live && !decided);
        lhs = Bool(op.text == "&&" ? lhs.bits != 0 && rhs.bits != 0 : lhs.bits != 0 || rhs.bits != 0);
      } else {
        lhs = Apply(op, lhs, Binary(precedence + 1, live), live);
      }
    }
    return lhs;
  }

  Value Apply(const Token& op, Value a, Value b, bool live) const {
    const std::string& o = op.text;
    if (o == "<<" || o == ">>") {
      const auto count = static_cast<int64_t>(b.bits);
      if (count < 0 || count >= 64) {
        if (live) FailUnsupported(file_, op.loc, "shift by " + std::to_string(count) + " in #if");
        return a;
      }
      if (o == "<<") return Value{a.bits << count, a.is_unsigned};
      return Value{a.is_unsigned ? a.bits >> count : static_cast<uint64_t>(static_cast<int64_t>(a.bits) >> count),
                   a.is_unsigned};
    }
    const bool u = a.is_unsigned || b.is_unsigned;
    const auto sa = static_cast<int64_t>(a.bits);
    const auto sb = static_cast<int64_t>(b.bits);
    if (o == "==") return Bool(a.bits == b.bits);
    if (o == "!=") return Bool(a.bits != b.bits);
    if (o == "<") return Bool(u ? a.bits < b.bits : sa < sb);
    if (o == ">") return Bool(u ? a.bits > b.bits : sa > sb);
    if (o == "<=") return Bool(u ? a.bits <= b.bits : sa <= sb);
    if (o == ">=") return Bool(u ? a.bits >= b.bits : sa >= sb);
    if (o == "/" || o == "%") {
      if (b.bits == 0 || (!u && sa == INT64_MIN && sb == -1)) {
        if (live) FailSyntax(file_, op.loc, b.bits == 0 ? "division by zero in #if" : "overflow in #if");
        return Value{0, u};
      }
      if (u) return Value{o == "/" ? a.bits / b.bits : a.bits % b.bits, true};
      return Value{static_cast<uint64_t>(o == "/" ? sa / sb : sa % sb), false};
    }
    // The rest wrap in 64 bits, as the compilers' preprocessors do.
    if (o == "+") return Value{a.bits + b.bits, u};
    if (o == "-") return Value{a.bits - b.bits, u};
    if (o == "*") return Value{a.bits * b.bits, u};
    if (o == "&") return Value{a.bits & b.bits, u};
    if (o == "|") return Value{a.bits | b.bits, u};
    return Value{a.bits ^ b.bits, u};  // "^", the last operator BinaryPrecedence knows
  }

  Value Unary(bool live) {
    if (pos_ >= toks_.size()) FailSyntax(file_, directive_, "#if expression ends early");
    const Token t = toks_[pos_++];
    if (t.kind == TokKind::kNumber) {
      const IntegerLiteral lit = ReadIntegerLiteral(file_, t);
      if (lit.value > UINT64_MAX) FailUnsupported(file_, t.loc, "number '" + t.text + "' (too large)");
      return Value{static_cast<uint64_t>(lit.value), lit.is_unsigned || lit.value > INT64_MAX};
    }
    if (t.kind == TokKind::kIdent) return Value{};  // a name that is no macro counts as 0
    if (t.kind == TokKind::kPunct) {
      if (t.text == "(") {
        const Value v = Ternary(live);
        Expect(")");
        return v;
      }
      if (t.text == "+") return Unary(live);
      if (t.text == "!") return Bool(Unary(live).bits == 0);
      if (t.text == "-" || t.text == "~") {
        const Value v = Unary(live);
        return Value{t.text == "-" ? 0 - v.bits : ~v.bits, v.is_unsigned};
      }
    }
    if (t.kind == TokKind::kChar || t.kind == TokKind::kString) FailUnsupported(file_, t.loc, "literal in #if");
    FailSyntax(file_, t.loc, "expected a value in #if before '" + t.text + "'");
  }

  const std::string& file_;
  const std::vector<Token>& toks_;
  Loc directive_;
  size_t pos_ = 0;
};

// One #if group being read.
struct Conditional {
  Loc loc;                  // of its #if, #ifdef or #ifndef
  bool enclosing_kept;      // whether the text around the group is kept
  bool kept = false;        // whether the current branch is kept
  bool taken = false;       // whether some branch so far was kept
  bool after_else = false;  // whether #else was read
};

class Preprocessor {
 public:
  explicit Preprocessor(const std::string& file) : file_(file) {}

  std::vector<Token> Run(const std::vector<Token>& tokens) {
    for (size_t i = 0; i < tokens.size(); ++i) {
      const Token& t = tokens[i];
      if (t.kind == TokKind::kDirective) {
        std::vector<Token> line;
        for (++i; tokens[i].kind != TokKind::kDirectiveEnd; ++i) line.push_back(tokens[i]);
        Directive(t, line);
      } else if (t.kind == TokKind::kEnd) {
        if (!groups_.empty()) FailSyntax(file_, groups_.back().loc, "#if without #endif");
        out_.push_back(t);
      } else if (Kept()) {
        if (t.kind == TokKind::kInvalid) FailSyntax(file_, t.loc, t.text);
        if (IsCall(tokens, i)) {  // a function-like macro's invocation: its arguments may span lines
          std::vector<Token> call{t};
          for (int depth = 0; depth > 0 || call.size() == 1;) {
            const Token& next = tokens[++i];
            if (next.kind == TokKind::kEnd || next.kind == TokKind::kDirective) {
              FailSyntax(file_, t.loc, "unterminated argument list invoking macro '" + t.text + "'");
            }
            if (next.kind == TokKind::kPunct && next.text == "(") ++depth;
            if (next.kind == TokKind::kPunct && next.text == ")") --depth;
            call.push_back(next);
          }
          ExpandAll(call, t.loc, out_);
        } else {
          Expand(t, t.loc, out_);
        }
      }
    }
    return std::move(out_);
  }

 private:
  bool Kept() const { return groups_.empty() || groups_.back().kept; }

  // Whether tokens[i] names a function-like macro not being expanded and a '(' follows it: an invocation.
  bool IsCall(const std::vector<Token>& tokens, size_t i) const {
    const Token& t = tokens[i];
    return t.kind == TokKind::kIdent && functions_.count(t.text) && !expanding_.count(t.text) &&
           i + 1 < tokens.size() && tokens[i + 1].kind == TokKind::kPunct && tokens[i + 1].text == "(";
  }

  // Appends the tokens, each expanded (Expand), and each invocation of a function-like macro replaced by its
  // body, with every parameter replaced by its argument expanded, expanded in turn; all at `at`.
  void ExpandAll(const std::vector<Token>& tokens, Loc at, std::vector<Token>& out) {
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (!IsCall(tokens, i)) {
        Expand(tokens[i], at, out);
        continue;
      }
      const FunctionMacro& macro = functions_.at(tokens[i].text);
      const std::string name = tokens[i].text;
      std::vector<std::vector<Token>> args(1);
      int depth = 0;
      for (i += 2; i < tokens.size(); ++i) {
        const Token& a = tokens[i];
        if (a.kind == TokKind::kPunct && a.text == ")" && depth == 0) break;
        if (a.kind == TokKind::kPunct && (a.text == "(" || a.text == "[")) ++depth;
        if (a.kind == TokKind::kPunct && (a.text == ")" || a.text == "]")) --depth;
        if (a.kind == TokKind::kPunct && a.text == "," && depth == 0) {
          args.emplace_back();
        } else {
          args.back().push_back(a);
        }
      }
      if (i == tokens.size()) FailSyntax(file_, at, "unterminated argument list invoking macro '" + name + "'");
      if (macro.params.empty() && args.size() == 1 && args[0].empty()) args.clear();
      if (args.size() != macro.params.size()) {
        FailSyntax(file_, at, "macro '" + name + "' takes " + std::to_string(macro.params.size()) +
                                  " arguments, given " + std::to_string(args.size()));
      }
      std::vector<std::vector<Token>> expanded(args.size());
      for (size_t k = 0; k < args.size(); ++k) ExpandAll(args[k], at, expanded[k]);
      std::vector<Token> body;
      for (const Token& b : macro.body) {
        const auto param = std::find(macro.params.begin(), macro.params.end(), b.text);
        if (b.kind == TokKind::kIdent && param != macro.params.end()) {
          const std::vector<Token>& arg = expanded[static_cast<size_t>(param - macro.params.begin())];
          body.insert(body.end(), arg.begin(), arg.end());
        } else {
          body.push_back(b);
        }
      }
      expanding_.insert(name);
      ExpandAll(body, at, out);
      expanding_.erase(name);
    }
  }

  // Appends t to out, or where t names a macro not being expanded, the macro's body expanded in turn; every token
  // takes the location `at` of the name in the program text, so that errors point where the macro is used.
  void Expand(const Token& t, Loc at, std::vector<Token>& out) {
    auto it = t.kind == TokKind::kIdent ? macros_.find(t.text) : macros_.end();
    if (it == macros_.end() || expanding_.count(t.text)) {
      if (++produced_ > kMaxTokens) FailUnsupported(file_, at, "macro expansion of over 10 million tokens");
      Token copy = t;
      copy.loc = at;
      if (assert_is_verifier_assert_ && t.kind == TokKind::kIdent && t.text == "assert") {
        copy.text = "__VERIFIER_assert";
      }
      out.push_back(std::move(copy));
      return;
    }
    expanding_.insert(t.text);
    ExpandAll(it->second, at, out);
    expanding_.erase(t.text);
  }

  // A function-like macro: its parameters' names and its body.
  struct FunctionMacro {
    std::vector<std::string> params;
    std::vector<Token> body;
  };

  // The function-like macro that `#define` line defines (its name `macro`, then '(' right after it): parameters
  // and body. `...` and the operators # and ## are refused.
  FunctionMacro FunctionLike(const Token& macro, const std::vector<Token>& line) const {
    FunctionMacro f;
    size_t k = 3;
    while (k < line.size() && line[k].text != ")") {
      if (line[k].text == "...") {
        FailUnsupported(file_, line[k].loc, "variadic macro '" + macro.text + "'" + kPreprocessFirst);
      }
      if (line[k].kind != TokKind::kIdent) {
        FailSyntax(file_, line[k].loc, "expected a parameter name in macro '" + macro.text + "'");
      }
      f.params.push_back(line[k++].text);
      if (k < line.size() && line[k].text == ",") ++k;
    }
    if (k == line.size()) FailSyntax(file_, macro.loc, "missing ')' in the parameters of macro '" + macro.text + "'");
    f.body.assign(line.begin() + static_cast<std::ptrdiff_t>(k) + 1, line.end());
    for (const Token& b : f.body) {
      if (b.kind == TokKind::kPunct && (b.text == "#" || b.text == "##")) {
        FailUnsupported(file_, b.loc, "operator '" + b.text + "' in macro '" + macro.text + "'" + kPreprocessFirst);
      }
    }
    return f;
  }

  // Whether a macro of either kind is defined by that name.
  bool Defined(const std::string& name) const { return macros_.count(name) || functions_.count(name); }

  // The macro name a directive names as its operand.
  const Token& MacroName(const Token& directive, const std::vector<Token>& line) const {
    if (line.size() < 2 || line[1].kind != TokKind::kIdent) {
      FailSyntax(file_, directive.loc, "macro name missing after #" + directive.text);
    }
    return line[1];
  }

  void Directive(const Token& hash, const std::vector<Token>& line) {
    if (line.empty()) return;  // the null directive
    const Token& name = line[0];
    if (name.kind == TokKind::kNumber) return;  // a line marker of a .i file
    const std::string& d = name.text;
    if (d == "if" || d == "ifdef" || d == "ifndef") {
      Conditional c{hash.loc, Kept()};
      if (c.enclosing_kept) {
        c.kept = d == "if" ? Evaluate(hash, line) : Defined(MacroName(name, line).text) == (d == "ifdef");
      }
      c.taken = c.kept;
      groups_.push_back(c);
      return;
    }
    if (d == "elif" || d == "else" || d == "endif") {
      if (groups_.empty()) FailSyntax(file_, hash.loc, "#" + d + " without #if");
      Conditional& c = groups_.back();
      if (d == "endif") {
        groups_.pop_back();
        return;
      }
      if (c.after_else) FailSyntax(file_, hash.loc, "#" + d + " after #else");
      c.after_else = d == "else";
      c.kept = c.enclosing_kept && !c.taken && (d == "else" || Evaluate(hash, line));
      c.taken = c.taken || c.kept;
      return;
    }
    if (!Kept()) return;
    CheckTokens(line);
    if (d == "define") {
      const Token& macro = MacroName(name, line);
      // A parenthesis right after the name, with no space between, makes a function-like macro.
      const Loc after_name{macro.loc.line, macro.loc.col + static_cast<int>(macro.text.size())};
      macros_.erase(macro.text);
      functions_.erase(macro.text);
      if (line.size() > 2 && line[2].kind == TokKind::kPunct && line[2].text == "(" && line[2].loc == after_name) {
        functions_[macro.text] = FunctionLike(macro, line);
      } else {
        macros_[macro.text] = std::vector<Token>(line.begin() + 2, line.end());
      }
    } else if (d == "undef") {
      macros_.erase(MacroName(name, line).text);
      functions_.erase(MacroName(name, line).text);
    } else if (d == "include") {
      if (line.size() >= 2 && line[1].kind == TokKind::kPunct && line[1].text == "<") {
        std::string header;
        for (size_t k = 2; k < line.size() && line[k].text != ">"; ++k) header += line[k].text;
        if (header == "assert.h" && !macros_.count("NDEBUG")) assert_is_verifier_assert_ = true;
        // The C library's headers that define NULL (C11 7.19, 7.21, 7.22, 7.24, 7.27, 7.29, 7.11; POSIX's
        // unistd.h), as glibc's does.
        static const std::set<std::string> kDefineNull = {"stddef.h", "stdio.h",  "stdlib.h", "string.h",
                                                          "time.h",   "wchar.h",  "locale.h", "unistd.h"};
        if (kDefineNull.count(header) && !macros_.count("NULL")) {
          const Loc at = name.loc;
          macros_["NULL"] = {{TokKind::kPunct, "(", at},  {TokKind::kPunct, "(", at}, {TokKind::kIdent, "void", at},
                             {TokKind::kPunct, "*", at},  {TokKind::kPunct, ")", at}, {TokKind::kNumber, "0", at},
                             {TokKind::kPunct, ")", at}};
        }
        return;
      }
      FailUnsupported(file_, name.loc, "#include of a file other than a system header" + std::string(kPreprocessFirst));
    } else if (d == "error") {
      std::string message;
      for (size_t k = 1; k < line.size(); ++k) message += (k > 1 ? " " : "") + line[k].text;
      FailSyntax(file_, hash.loc, "#error " + message);
    } else if (d != "pragma" && d != "ident" && d != "line" && d != "warning") {
      FailUnsupported(file_, name.loc, "preprocessor directive '#" + d + "'");
    }
  }

  // Fails at the first token of a line that starts no token, on a line the preprocessor reads.
  void CheckTokens(const std::vector<Token>& line) const {
    for (const Token& t : line) {
      if (t.kind == TokKind::kInvalid) FailSyntax(file_, t.loc, t.text);
    }
  }

  // The value of the expression of an #if or #elif line: defined(), then macros, then C's arithmetic.
  bool Evaluate(const Token& hash, const std::vector<Token>& line) {
    CheckTokens(line);
    std::vector<Token> expanded;
    for (size_t k = 1; k < line.size(); ++k) {
      if (line[k].kind != TokKind::kIdent || line[k].text != "defined") {
        Expand(line[k], line[k].loc, expanded);
        continue;
      }
      const bool parenthesised = k + 1 < line.size() && line[k + 1].text == "(";
      const size_t operand = k + (parenthesised ? 2 : 1);
      if (operand >= line.size() || line[operand].kind != TokKind::kIdent ||
          (parenthesised && (operand + 1 >= line.size() || line[operand + 1].text != ")"))) {
        FailSyntax(file_, line[k].loc, "defined needs a macro name");
      }
      expanded.push_back(Token{TokKind::kNumber, Defined(line[operand].text) ? "1" : "0", line[k].loc});
      k = operand + (parenthesised ? 1 : 0);
    }
    return ConditionEvaluator(file_, expanded, hash.loc).Run();
  }

  const std::string& file_;
  std::map<std::string, std::vector<Token>> macros_;  // object-like macros by name: their bodies
  std::map<std::string, FunctionMacro> functions_;    // function-like macros by name
  std::set<std::string> expanding_;                   // macros being expanded, which C does not expand again
  std::vector<Conditional> groups_;                   // the #if groups open, innermost last
  size_t produced_ = 0;
  // After #include <assert.h> (without NDEBUG), assert(c) is glibc's macro, which calls __assert_fail when c
  // fails: the parser's error, as in __VERIFIER_assert(c).
  bool assert_is_verifier_assert_ = false;
  std::vector<Token> out_;
};

}  // namespace

std::vector<Token> Preprocess(const std::string& file, const std::vector<Token>& tokens) {
  return Preprocessor(file).Run(tokens);
}

}  // namespace fusion
