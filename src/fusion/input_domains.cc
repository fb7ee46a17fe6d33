#include "fusion/input_domains.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "fusion/loop_ir.h"

namespace fusion {
namespace {

// A set of values as disjoint closed intervals, in increasing order.
using Intervals = std::vector<std::pair<Int128, Int128>>;

Int128 Count(const Intervals& set) {
  Int128 n = 0;
  for (const auto& [lo, hi] : set) n += hi - lo + 1;
  return n;
}

Intervals Intersect(const Intervals& a, const Intervals& b) {
  Intervals out;
  for (const auto& [alo, ahi] : a) {
    for (const auto& [blo, bhi] : b) {
      const Int128 lo = std::max(alo, blo), hi = std::min(ahi, bhi);
      if (lo <= hi) out.push_back({lo, hi});
    }
  }
  return out;
}

// Whether type `wide` holds every value of type `narrow`.
bool HoldsAll(IntType wide, IntType narrow) { return MinOf(wide) <= MinOf(narrow) && MaxOf(narrow) <= MaxOf(wide); }

bool IsComparison(const std::string& op) {
  return op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "!=";
}

// Whether s ends the run at once: a return (from main) or an abort.
bool IsExit(const StmtPtr& s) {
  const std::vector<StmtPtr> flat = Flatten(s);
  if (flat.empty()) return false;
  const Stmt& first = *flat.front();
  return first.kind == StmtKind::kReturn ||
         (first.kind == StmtKind::kAssume && first.cond->kind == ExprKind::kConst && first.cond->value == 0);
}

// Whether evaluating e can neither be undefined nor read an input: constants, variables, conversions,
// comparisons and logical operators.
bool IsPlain(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kConst:
    case ExprKind::kVar:
    case ExprKind::kCast:
    case ExprKind::kTernary:
      break;
    case ExprKind::kUnary:
      if (e.op != "!") return false;
      break;
    case ExprKind::kBinary:
      if (!IsComparison(e.op) && e.op != "&&" && e.op != "||") return false;
      break;
    default:
      return false;
  }
  return std::all_of(e.args.begin(), e.args.end(), [](const ExprPtr& a) { return IsPlain(*a); });
}

// Whether e is made of constants alone (the index of a pointer declared as `a + 2`: `0 + 2`): the same value
// on every run, so that a run that evaluates it finds out alike whether it is undefined.
bool IsConstant(const Expr& e) {
  if (e.kind == ExprKind::kVar || e.kind == ExprKind::kIndex || e.kind == ExprKind::kNondet) return false;
  return std::all_of(e.args.begin(), e.args.end(), [](const ExprPtr& a) { return IsConstant(*a); });
}

// A value read into a scalar, and the values that the checks since leave it.
struct Read {
  std::string var;
  Intervals values;
  bool live = true;  // the variable still holds the value read
};

class Analysis {
 public:
  // Reads the statements from the start of the program, as long as they are what the header allows.
  explicit Analysis(const Program& prog) {
    for (const StmtPtr& s : Flatten(prog.body)) {
      if (!Step(*s)) break;
    }
  }

  const std::vector<Read>& reads() const { return reads_; }

 private:
  // The read whose value the variable still holds; nullptr where none.
  Read* LiveRead(const std::string& var) {
    for (Read& r : reads_) {
      if (r.var == var && r.live) return &r;
    }
    return nullptr;
  }

  void Overwrite(const std::string& var) {
    if (Read* r = LiveRead(var)) r->live = false;
  }

  // Takes one statement in; false where the statements read end before it.
  bool Step(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::kHavoc:
        Overwrite(s.name);
        return true;
      case StmtKind::kAssign: {
        const Expr& rhs = *s.rhs;
        if (s.lhs->kind == ExprKind::kVar) {
          const Expr* nondet = rhs.kind == ExprKind::kCast && rhs.type == s.lhs->type ? rhs.args[0].get() : &rhs;
          if (nondet->kind == ExprKind::kNondet) return AddRead(s.lhs->name, s.lhs->type, nondet->type);
        }
        if (!IsPlain(rhs) && !IsConstant(rhs)) return false;
        if (s.lhs->kind == ExprKind::kIndex && !IsPlain(*s.lhs->args[0])) return false;
        if (s.lhs->kind == ExprKind::kVar) Overwrite(s.lhs->name);
        return true;
      }
      case StmtKind::kAssume:
        return Check(s.cond, false);
      case StmtKind::kIf:
        if (IsExit(s.body[0]) && Flatten(s.body[1]).empty()) return Check(s.cond, true);
        if (Flatten(s.body[0]).empty() && IsExit(s.body[1])) return Check(s.cond, false);
        return false;
      default:
        return false;
    }
  }

  // A read of a value of type `read` into variable var of type `type`: the values var can get.
  bool AddRead(const std::string& var, IntType type, IntType read) {
    Overwrite(var);
    if (HoldsAll(type, read)) {
      reads_.push_back({var, {{MinOf(read), MaxOf(read)}}});
    } else if (type.bits <= read.bits) {  // a narrowing conversion takes every value of the narrower type
      reads_.push_back({var, {{MinOf(type), MaxOf(type)}}});
    } else {
      return false;  // a widening one to a type that does not hold them all: two ranges, not handled
    }
    return true;
  }

  // A check that the run goes on only where cond (negated: !cond) holds; false where evaluating it may be
  // undefined or read an input, so that a run might not stop at it.
  bool Check(const ExprPtr& cond, bool negated) {
    std::vector<std::pair<ExprPtr, bool>> conjuncts;
    Conjuncts(cond, negated, conjuncts);
    std::vector<std::pair<Read*, Intervals>> bounds;
    for (const auto& [e, negate] : conjuncts) {
      if (!IsPlain(*e)) return false;
      if (auto b = Bounds(e, negate)) bounds.push_back(std::move(*b));
    }
    for (auto& [read, values] : bounds) read->values = Intersect(read->values, values);
    return true;
  }

  // The parts of `cond` (negated: !cond) that must all hold.
  static void Conjuncts(const ExprPtr& e, bool negated, std::vector<std::pair<ExprPtr, bool>>& out) {
    if (e->kind == ExprKind::kUnary && e->op == "!") return Conjuncts(e->args[0], !negated, out);
    if (e->kind == ExprKind::kBinary && e->op == (negated ? "||" : "&&")) {
      Conjuncts(e->args[0], negated, out);
      Conjuncts(e->args[1], negated, out);
      return;
    }
    out.push_back({e, negated});
  }

  // Where e (negated: !e) compares one read value, and only it, with constants: that read and the values
  // that pass. Its truth changes only next to the constants, so it is evaluated there and once between.
  std::optional<std::pair<Read*, Intervals>> Bounds(const ExprPtr& e, bool negated) {
    Effects reads;
    AddReads(e, reads);
    if (reads.reads.size() != 1 || !reads.array_reads.empty()) return std::nullopt;
    Read* read = LiveRead(*reads.reads.begin());
    std::set<Int128> points;
    if (!read || read->values.empty() || !Comparisons(*e, read->var, points)) return std::nullopt;
    const Int128 lo = read->values.front().first, hi = read->values.back().second;
    std::vector<Int128> samples{lo, hi};
    for (const Int128 p : points) {
      if (p > lo && p < hi) samples.push_back(p);
    }
    std::sort(samples.begin(), samples.end());
    samples.erase(std::unique(samples.begin(), samples.end()), samples.end());
    Intervals pass;
    const auto add = [&](Int128 from, Int128 to) {
      if ((*FoldConstant(e, {{read->var, from}}) != 0) == negated) return;
      if (!pass.empty() && pass.back().second + 1 == from) {
        pass.back().second = to;
      } else {
        pass.push_back({from, to});
      }
    };
    for (size_t i = 0; i < samples.size(); ++i) {
      add(samples[i], samples[i]);
      if (i + 1 < samples.size() && samples[i + 1] - samples[i] > 1) add(samples[i] + 1, samples[i + 1] - 1);
    }
    return std::make_pair(read, pass);
  }

  // Whether e is built of comparisons of var (converted only to types that hold all its values) with
  // constants, and logical operators; collects the values next to which a comparison changes its truth.
  static bool Comparisons(const Expr& e, const std::string& var, std::set<Int128>& points) {
    if (e.kind == ExprKind::kUnary) return Comparisons(*e.args[0], var, points);
    if (e.kind == ExprKind::kBinary && (e.op == "&&" || e.op == "||")) {
      return Comparisons(*e.args[0], var, points) && Comparisons(*e.args[1], var, points);
    }
    if (e.kind != ExprKind::kBinary || !IsComparison(e.op)) return false;
    for (int side = 0; side < 2; ++side) {
      const std::optional<Int128> c = FoldConstant(e.args[1 - side]);
      if (c && IsConverted(*e.args[side], var)) {
        points.insert({*c - 1, *c, *c + 1});
        return true;
      }
    }
    return false;
  }

  // Whether e is var converted to types that hold all its values (its value unchanged).
  static bool IsConverted(const Expr& e, const std::string& var) {
    if (e.kind == ExprKind::kVar) return e.name == var;
    return e.kind == ExprKind::kCast && HoldsAll(e.type, e.args[0]->type) && IsConverted(*e.args[0], var);
  }

  std::vector<Read> reads_;
};

}  // namespace

std::optional<std::vector<std::vector<Int128>>> BoundedInputs(const Program& prog, size_t max_runs) {
  const Analysis analysis(prog);
  if (analysis.reads().empty()) return std::nullopt;
  Int128 runs = 1;
  for (const Read& r : analysis.reads()) {
    runs *= Count(r.values);
    if (runs > static_cast<Int128>(max_runs)) return std::nullopt;
  }
  std::vector<std::vector<Int128>> values;
  for (const Read& r : analysis.reads()) {
    values.emplace_back();
    for (const auto& [lo, hi] : r.values) {
      for (Int128 v = lo; v <= hi; ++v) values.back().push_back(v);
    }
  }
  return values;
}

}  // namespace fusion
