#include "fusion/printer.h"

#include <algorithm>
#include <initializer_list>
#include <set>
#include <sstream>

namespace fusion {
namespace {

// The pieces joined; appending avoids a false -Wrestrict warning of g++ 12 on "literal" + string.
std::string Cat(std::initializer_list<std::string> parts) {
  std::string out;
  for (const auto& p : parts) out.append(p);
  return out;
}

// Decimal digits of a 128-bit value.
std::string Digits(Int128 v) {
  if (v == 0) return "0";
  const bool neg = v < 0;
  std::string s;
  while (v != 0) {
    const int d = static_cast<int>(v % 10);
    s.insert(s.begin(), static_cast<char>('0' + (d < 0 ? -d : d)));
    v /= 10;
  }
  return neg ? "-" + s : s;
}

// A constant with the suffix that gives it its type in C.
std::string Constant(Int128 v, IntType t) {
  std::string s;
  if (v < 0) {  // written as (-2147483647-1): the literal 2147483648 alone would not be an int
    s.append("(").append(Digits(v + 1)).append(t.bits > 32 ? "LL" : "").append("-1)");
    return s;
  }
  s = Digits(v);
  if (!t.is_signed) s += "u";
  if (t.bits > 32) s += "LL";
  if (t.bits >= 32) return s;
  std::string cast = "((";
  cast.append(TypeName(t)).append(")").append(s).append(")");
  return cast;
}

// Collects the nondet types an expression or statement uses, for the extern declarations.
void CollectNondet(const ExprPtr& e, std::set<std::string>& out) {
  if (!e) return;
  if (e->kind == ExprKind::kNondet) out.insert(TypeName(e->type) + " " + NondetFunction(e->type));
  for (const auto& a : e->args) CollectNondet(a, out);
}

void CollectNondet(const StmtPtr& s, const Program& prog, std::set<std::string>& out) {
  if (!s) return;
  for (const ExprPtr& e : {s->lhs, s->rhs, s->cond, s->size}) CollectNondet(e, out);
  if (s->kind == StmtKind::kHavoc && !prog.VarNamed(s->name).is_array) {
    const IntType t = prog.VarNamed(s->name).type;
    out.insert(TypeName(t) + " " + NondetFunction(t));
  }
  for (const auto& b : s->body) CollectNondet(b, prog, out);
  CollectNondet(s->step, prog, out);
}

// Writes statements with indentation.
class StmtPrinter {
 public:
  StmtPrinter(const Program& prog, std::ostringstream& out) : prog_(prog), out_(out) {}

  void Print(const StmtPtr& s, int depth) {
    const std::string pad(2 * depth, ' ');
    switch (s->kind) {
      case StmtKind::kBlock:
        for (const auto& b : s->body) Print(b, depth);
        break;
      case StmtKind::kAssign:
        out_ << pad << AssignText(s) << ";\n";
        break;
      case StmtKind::kHavoc: {
        const Var& v = prog_.VarNamed(s->name);
        if (v.is_array) {
          out_ << pad << s->name << " = malloc(" << PrintExpr(s->size) << " + 1);\n";
        } else {
          out_ << pad << s->name << " = " << NondetFunction(v.type) << "();\n";
        }
        break;
      }
      case StmtKind::kAssume:
        out_ << pad << "__VERIFIER_assume(" << PrintExpr(s->cond) << ");\n";
        break;
      case StmtKind::kAssert:
        out_ << pad << "__VERIFIER_assert(" << PrintExpr(s->cond) << ");\n";
        break;
      case StmtKind::kError:
        out_ << pad << "reach_error();\n";
        break;
      case StmtKind::kIf:
        out_ << pad << "if (" << PrintExpr(s->cond) << ") {\n";
        Print(s->body[0], depth + 1);
        if (!s->body[1]->body.empty() || s->body[1]->kind != StmtKind::kBlock) {
          out_ << pad << "} else {\n";
          Print(s->body[1], depth + 1);
        }
        out_ << pad << "}\n";
        break;
      case StmtKind::kLoop:
        if (s->do_while) {
          out_ << pad << "do {\n";
          Print(s->body[0], depth + 1);
          const std::string step = s->step ? StepText(s->step) : "";
          out_ << pad << "} while (" << (step.empty() ? "" : "(" + step + "), ") << PrintExpr(s->cond) << ");\n";
        } else {
          out_ << pad << "for (; " << PrintExpr(s->cond) << "; " << (s->step ? StepText(s->step) : "") << ") {\n";
          Print(s->body[0], depth + 1);
          out_ << pad << "}\n";
        }
        break;
      case StmtKind::kBreak:
        out_ << pad << "break;\n";
        break;
      case StmtKind::kContinue:
        out_ << pad << "continue;\n";
        break;
      case StmtKind::kReturn:
        out_ << pad << "return 0;\n";
        break;
    }
  }

 private:
  static std::string AssignText(const StmtPtr& s) { return PrintExpr(s->lhs) + " = " + PrintExpr(s->rhs); }

  // A loop step as an expression: the comma expression of its assignments, or where it has other statements
  // (an if, an inlined call's loop: the parser's loop conditions run such statements before each test) GNU C's
  // statement expression `({ ... })`, on one line. Empty for a step without statements.
  std::string StepText(const StmtPtr& s) const {
    if (OnlyAssignments(s)) return AssignmentsText(s);
    std::ostringstream statements;
    StmtPrinter(prog_, statements).Print(s, 0);
    std::string text = statements.str();
    std::replace(text.begin(), text.end(), '\n', ' ');
    return "({ " + text + "})";
  }
  static bool OnlyAssignments(const StmtPtr& s) {
    if (s->kind == StmtKind::kAssign) return true;
    return s->kind == StmtKind::kBlock && std::all_of(s->body.begin(), s->body.end(), OnlyAssignments);
  }
  static std::string AssignmentsText(const StmtPtr& s) {
    if (s->kind == StmtKind::kAssign) return AssignText(s);
    std::string out;
    for (const auto& b : s->body) {
      const std::string text = AssignmentsText(b);
      if (!text.empty()) out += (out.empty() ? "" : ", ") + text;
    }
    return out;
  }

  const Program& prog_;
  std::ostringstream& out_;
};

}  // namespace

std::string NondetFunction(IntType t) {
  if (t == kWide) return "__VERIFIER_nondet_int128";
  std::string base = t.bits == 1 ? "bool" : t.bits == 8 ? "char" : t.bits == 16 ? "short" : t.bits == 32 ? "int" : "long";
  if (!t.is_signed && t.bits != 1) base = "u" + base;
  return "__VERIFIER_nondet_" + base;
}

std::string PrintExpr(const ExprPtr& e) {
  switch (e->kind) {
    case ExprKind::kConst:
      return Constant(e->value, e->type);
    case ExprKind::kVar:
      return e->name;
    case ExprKind::kIndex:
      return Cat({e->name, "[", PrintExpr(e->args[0]), "]"});
    case ExprKind::kUnary:
      return Cat({"(", e->op, PrintExpr(e->args[0]), ")"});
    case ExprKind::kBinary:
      return Cat({"(", PrintExpr(e->args[0]), " ", e->op, " ", PrintExpr(e->args[1]), ")"});
    case ExprKind::kTernary:
      return Cat({"(", PrintExpr(e->args[0]), " ? ", PrintExpr(e->args[1]), " : ", PrintExpr(e->args[2]), ")"});
    case ExprKind::kCast:
      return Cat({"((", TypeName(e->type), ")", PrintExpr(e->args[0]), ")"});
    case ExprKind::kNondet:
      return NondetFunction(e->type) + "()";
    case ExprKind::kCall: {
      std::string out = e->name + "(";
      for (size_t i = 0; i < e->args.size(); ++i) out += (i > 0 ? ", " : "") + PrintExpr(e->args[i]);
      return out + ")";
    }
  }
  return "";
}

std::string PrintProgram(const Program& prog) {
  std::ostringstream out;
  std::set<std::string> nondets;
  CollectNondet(prog.body, prog, nondets);
  out << "// " << prog.file << " as transformed by loopfuse\n";
  out << "extern void abort(void);\nextern void *malloc(unsigned long);\nextern void reach_error(void);\n";
  out << "extern void __VERIFIER_assume(int);\nextern void __VERIFIER_assert(int);\n";
  for (const std::string& n : nondets) out << "extern " << n << "(void);\n";
  out << "int main(void) {\n";
  for (const Var& v : prog.vars) {
    out << "  " << TypeName(v.type) << (v.is_array ? " *" : " ") << v.name << ";\n";
  }
  StmtPrinter(prog, out).Print(prog.body, 1);
  // main returns at its end, where its last statement does not already.
  const bool returns = prog.body->kind == StmtKind::kBlock && !prog.body->body.empty() &&
                       prog.body->body.back()->kind == StmtKind::kReturn;
  out << (returns ? "" : "  return 0;\n") << "}\n";
  return out.str();
}

}  // namespace fusion
