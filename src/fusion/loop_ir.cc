#include "fusion/loop_ir.h"

#include <algorithm>

namespace fusion {
namespace {

// Collects effects; in_loop tells whether break/continue belong to an inner loop.
void Collect(const StmtPtr& s, Effects& eff, bool in_inner_loop) {
  if (!s) return;
  switch (s->kind) {
    case StmtKind::kBlock:
      for (const auto& b : s->body) Collect(b, eff, in_inner_loop);
      break;
    case StmtKind::kAssign:
      AddReads(s->rhs, eff);
      if (s->lhs->kind == ExprKind::kVar) {
        eff.writes.insert(s->lhs->name);
      } else {
        AddReads(s->lhs->args[0], eff);
        eff.array_writes.push_back({s->lhs->name, s->lhs->args[0]});
      }
      break;
    case StmtKind::kHavoc:
      if (s->size) {
        AddReads(s->size, eff);
        eff.array_writes.push_back({s->name, nullptr});
      } else {
        eff.writes.insert(s->name);
      }
      break;
    case StmtKind::kAssume:
      AddReads(s->cond, eff);
      eff.cuts = true;
      break;
    case StmtKind::kAssert:
      AddReads(s->cond, eff);
      eff.errors = true;
      break;
    case StmtKind::kError:
      eff.errors = true;
      break;
    case StmtKind::kIf:
      AddReads(s->cond, eff);
      Collect(s->body[0], eff, in_inner_loop);
      Collect(s->body[1], eff, in_inner_loop);
      break;
    case StmtKind::kLoop:
      eff.nested_loop = true;
      AddReads(s->cond, eff);
      Collect(s->body[0], eff, true);
      Collect(s->step, eff, true);
      break;
    case StmtKind::kBreak:
    case StmtKind::kContinue:
      if (!in_inner_loop) eff.jumps = true;
      break;
    case StmtKind::kReturn:
      eff.cuts = true;
      break;
  }
}

// The counter's increment: `c = c + 1` or `c = c - 1` (through casts); returns +1, -1 or 0.
int StrideOf(const StmtPtr& s, const std::string& counter) {
  if (!s || s->kind != StmtKind::kAssign || s->lhs->kind != ExprKind::kVar || s->lhs->name != counter) return 0;
  ExprPtr r = s->rhs;
  while (r->kind == ExprKind::kCast) r = r->args[0];
  if (r->kind != ExprKind::kBinary || (r->op != "+" && r->op != "-")) return 0;
  ExprPtr a = r->args[0], b = r->args[1];
  while (a->kind == ExprKind::kCast) a = a->args[0];
  while (b->kind == ExprKind::kCast) b = b->args[0];
  if (a->kind != ExprKind::kVar || a->name != counter || b->kind != ExprKind::kConst || b->value != 1) return 0;
  return r->op == "+" ? 1 : -1;
}

// The r of a clamped step `c = c + r < bound ? c + r : bound` (-r for `c = c - r > bound ? c - r : bound`)
// with r > 1; 0 for anything else.
int ClampedStrideOf(const StmtPtr& s, const std::string& counter, const std::string& cmp, const ExprPtr& bound) {
  if (!s || s->kind != StmtKind::kAssign || s->lhs->kind != ExprKind::kVar || s->lhs->name != counter) return 0;
  const ExprPtr& r = s->rhs;
  if (r->kind != ExprKind::kTernary || r->args[0]->kind != ExprKind::kBinary) return 0;
  const ExprPtr& test = r->args[0];
  const ExprPtr& next = r->args[1];
  if ((cmp != "<" && cmp != ">") || test->op != cmp || !SameExpr(test->args[0], next) ||
      !SameExpr(test->args[1], bound) || !SameExpr(r->args[2], bound)) {
    return 0;
  }
  const auto a = AffineInCounter(next, counter);
  if (!a || a->first != 1 || a->second == 0 || a->second < -64 || a->second > 64) return 0;
  const int stride = static_cast<int>(a->second);
  return (stride > 0) == (cmp == "<") ? stride : 0;
}

}  // namespace

std::set<std::string> Effects::ArraysWritten() const {
  std::set<std::string> out;
  for (const auto& a : array_writes) out.insert(a.array);
  return out;
}

std::set<std::string> Effects::ArraysAccessed() const {
  std::set<std::string> out = ArraysWritten();
  for (const auto& a : array_reads) out.insert(a.array);
  return out;
}

std::set<std::string> Effects::Scalars() const {
  std::set<std::string> out = reads;
  out.insert(writes.begin(), writes.end());
  return out;
}

void AddReads(const ExprPtr& e, Effects& eff) {
  if (!e) return;
  if (e->kind == ExprKind::kVar) eff.reads.insert(e->name);
  if (e->kind == ExprKind::kIndex) eff.array_reads.push_back({e->name, e->args[0]});
  for (const auto& a : e->args) AddReads(a, eff);
}

Effects EffectsOf(const StmtPtr& s) {
  Effects eff;
  if (s && s->kind == StmtKind::kLoop) {
    AddReads(s->cond, eff);
    Collect(s->body[0], eff, false);
    Collect(s->step, eff, false);
    return eff;
  }
  Collect(s, eff, false);
  return eff;
}

std::optional<CountedLoop> AsCounted(const StmtPtr& init, const StmtPtr& loop, bool clamped_strides,
                                     bool nested_loops) {
  if (!init || !loop || loop->kind != StmtKind::kLoop || loop->do_while) return std::nullopt;
  if (init->kind != StmtKind::kAssign || init->lhs->kind != ExprKind::kVar) return std::nullopt;
  CountedLoop c;
  c.counter = init->lhs->name;
  c.counter_type = init->lhs->type;
  c.init = init->rhs;
  // The condition: counter cmp bound, the counter possibly converted to the comparison type.
  const ExprPtr cond = loop->cond;
  if (cond->kind != ExprKind::kBinary) return std::nullopt;
  static const std::set<std::string> kCmp = {"<", "<=", ">", ">="};
  if (!kCmp.count(cond->op)) return std::nullopt;
  ExprPtr lhs = cond->args[0];
  if (lhs->kind == ExprKind::kCast && lhs->args[0]->kind == ExprKind::kVar &&
      !lhs->type.is_signed == !lhs->args[0]->type.is_signed && lhs->type.bits >= lhs->args[0]->type.bits) {
    lhs = lhs->args[0];  // a widening that keeps every value
  }
  if (lhs->kind != ExprKind::kVar || lhs->name != c.counter) return std::nullopt;
  // A strict comparison cannot let the counter wrap around; <= and >= can, unless the types are signed.
  if ((cond->op == "<=" || cond->op == ">=") && (!lhs->type.is_signed || !cond->args[1]->type.is_signed)) {
    return std::nullopt;
  }
  c.cmp = cond->op;
  c.bound = cond->args[1];
  // The increment: the loop's step, or the last statement of the body.
  std::vector<StmtPtr> body = Flatten(loop->body[0]);
  if (loop->step) {
    c.increment = loop->step;
  } else if (!body.empty()) {
    c.increment = body.back();
    body.pop_back();
  } else {
    return std::nullopt;
  }
  c.stride = StrideOf(c.increment, c.counter);
  if (c.stride == 0 && clamped_strides) c.stride = ClampedStrideOf(c.increment, c.counter, c.cmp, c.bound);
  if (c.stride == 0) return std::nullopt;
  if ((c.stride > 0) != (c.cmp[0] == '<')) return std::nullopt;
  c.body = MakeBlock(body);
  const Effects eff = EffectsOf(c.body);
  if (eff.writes.count(c.counter) || eff.jumps || (eff.nested_loop && !nested_loops)) return std::nullopt;
  Effects bound_reads;
  AddReads(c.bound, bound_reads);
  for (const auto& v : bound_reads.reads) {
    if (eff.writes.count(v) || v == c.counter) return std::nullopt;
  }
  if (!bound_reads.array_reads.empty()) return std::nullopt;
  return c;
}

std::vector<StmtPtr> Flatten(const StmtPtr& s) {
  if (!s) return {};
  if (s->kind != StmtKind::kBlock) return {s};
  std::vector<StmtPtr> out;
  for (const auto& b : s->body) {
    auto inner = Flatten(b);
    out.insert(out.end(), inner.begin(), inner.end());
  }
  return out;
}

ExprPtr RenameExpr(const ExprPtr& e, const std::map<std::string, std::string>& names) {
  if (!e) return e;
  if (e->kind == ExprKind::kVar) {
    auto it = names.find(e->name);
    return it == names.end() ? e : MakeVar(it->second, e->type);
  }
  if (e->args.empty()) return e;
  auto copy = std::make_shared<Expr>(*e);
  for (auto& a : copy->args) a = RenameExpr(a, names);
  return copy;
}

ExprPtr MapOperands(const ExprPtr& e, const std::function<ExprPtr(const ExprPtr&)>& f) {
  std::vector<ExprPtr> args;
  bool changed = false;
  for (const ExprPtr& a : e->args) {
    args.push_back(f(a));
    changed = changed || args.back() != a;
  }
  if (!changed) return e;
  auto out = std::make_shared<Expr>(*e);
  out->args = std::move(args);
  return out;
}

StmtPtr MapExprs(const StmtPtr& s, const std::function<ExprPtr(const ExprPtr&)>& f) {
  if (!s) return s;
  const ExprPtr lhs = f(s->lhs), rhs = f(s->rhs), cond = f(s->cond), size = f(s->size);
  const StmtPtr step = MapExprs(s->step, f);
  bool changed = lhs != s->lhs || rhs != s->rhs || cond != s->cond || size != s->size || step != s->step;
  std::vector<StmtPtr> body;
  body.reserve(s->body.size());
  for (const StmtPtr& b : s->body) {
    body.push_back(MapExprs(b, f));
    changed = changed || body.back() != b;
  }
  if (!changed) return s;
  auto copy = std::make_shared<Stmt>(*s);
  copy->lhs = lhs;
  copy->rhs = rhs;
  copy->cond = cond;
  copy->size = size;
  copy->step = step;
  copy->body = std::move(body);
  return copy;
}

void ForEachExpr(const StmtPtr& s, const std::function<void(const ExprPtr&)>& f) {
  if (!s) return;
  for (const ExprPtr& e : {s->lhs, s->rhs, s->cond, s->size}) f(e);
  for (const auto& b : s->body) ForEachExpr(b, f);
  ForEachExpr(s->step, f);
}

namespace {

// The scalar havocs in s renamed by the map.
StmtPtr RenameHavocs(const StmtPtr& s, const std::map<std::string, std::string>& names) {
  if (!s) return s;
  auto copy = std::make_shared<Stmt>(*s);
  if (s->kind == StmtKind::kHavoc && !s->size) {
    auto it = names.find(s->name);
    if (it != names.end()) copy->name = it->second;
  }
  for (auto& b : copy->body) b = RenameHavocs(b, names);
  copy->step = RenameHavocs(s->step, names);
  return copy;
}

}  // namespace

StmtPtr RenameStmt(const StmtPtr& s, const std::map<std::string, std::string>& names) {
  return RenameHavocs(MapExprs(s, [&](const ExprPtr& e) { return RenameExpr(e, names); }), names);
}

StmtPtr SubstituteStmt(const StmtPtr& s, const std::string& name, const ExprPtr& value) {
  return SubstituteStmt(s, {{name, value}});
}

ExprPtr Substitute(const ExprPtr& e, const std::map<std::string, ExprPtr>& values) {
  if (!e) return e;
  if (e->kind == ExprKind::kVar) {
    const auto it = values.find(e->name);
    return it == values.end() ? e : MakeCast(e->type, it->second);
  }
  return e->args.empty() ? e : MapOperands(e, [&](const ExprPtr& a) { return Substitute(a, values); });
}

StmtPtr SubstituteStmt(const StmtPtr& s, const std::map<std::string, ExprPtr>& values) {
  if (values.empty()) return s;
  return MapExprs(s, [&](const ExprPtr& e) { return Substitute(e, values); });
}

ExprPtr Substitute(const ExprPtr& e, const std::string& name, const ExprPtr& value) {
  return Substitute(e, {{name, value}});
}

std::optional<Int128> OffsetFromCounter(const ExprPtr& e, const std::string& counter) {
  ExprPtr x = e;
  while (x->kind == ExprKind::kCast && x->args[0]->type.bits <= x->type.bits && x->args[0]->type.is_signed &&
         x->type.is_signed) {
    x = x->args[0];
  }
  if (x->kind == ExprKind::kVar) return x->name == counter ? std::optional<Int128>(0) : std::nullopt;
  if (x->kind != ExprKind::kBinary || (x->op != "+" && x->op != "-") || !x->type.is_signed) return std::nullopt;
  // The constant as the parser leaves it, converted to the sum's type: `i - (long long)1`.
  const std::optional<Int128> k = FoldConstant(x->args[1]);
  if (!k) return std::nullopt;
  auto inner = OffsetFromCounter(x->args[0], counter);
  if (!inner) return std::nullopt;
  return x->op == "+" ? *inner + *k : *inner - *k;
}

namespace {

// True when e reads the scalar v.
bool Mentions(const ExprPtr& e, const std::string& v) {
  Effects eff;
  AddReads(e, eff);
  return eff.reads.count(v) > 0;
}

// Adds k * atom to f, merging it with an equal atom.
void AddAtom(AffineForm& f, const ExprPtr& atom, Int128 k) {
  for (auto it = f.atoms.begin(); it != f.atoms.end(); ++it) {
    if (!SameExpr(it->first, atom)) continue;
    it->second += k;
    if (it->second == 0) f.atoms.erase(it);
    return;
  }
  if (k != 0) f.atoms.push_back({atom, k});
}

}  // namespace

bool AffineForm::SameAtoms(const AffineForm& other) const {
  return Combine(1, *this, other, -1).atoms.empty();
}

AffineForm Combine(Int128 a, const AffineForm& x, const AffineForm& y, Int128 k) {
  AffineForm out;
  out.a = a * x.a + k * y.a;
  out.constant = a * x.constant + k * y.constant;
  for (const auto& [atom, c] : x.atoms) AddAtom(out, atom, a * c);
  for (const auto& [atom, c] : y.atoms) AddAtom(out, atom, k * c);
  return out;
}

ExprPtr AffineExpr(const AffineForm& f, IntType t) {
  ExprPtr sum;
  // Positive terms first, so that n - m prints as such rather than as -m + n.
  std::vector<std::pair<ExprPtr, Int128>> atoms = f.atoms;
  std::stable_partition(atoms.begin(), atoms.end(), [](const auto& x) { return x.second > 0; });
  for (const auto& [atom, k] : atoms) {
    ExprPtr term = MakeCast(t, atom);
    if (k != 1 && k != -1) term = MakeBinary("*", MakeConst(k > 0 ? k : -k, t), term, t);
    if (!sum) {
      sum = k > 0 ? term : MakeUnary("-", term, t);
    } else {
      sum = MakeBinary(k > 0 ? "+" : "-", sum, term, t);
    }
  }
  return sum ? PlusConst(sum, f.constant, t) : MakeConst(f.constant, t);
}

std::optional<AffineForm> AffineWithAtoms(const ExprPtr& e, const std::string& counter) {
  ExprPtr x = e;
  while (x->kind == ExprKind::kCast && x->args[0]->type.bits <= x->type.bits && x->args[0]->type.is_signed &&
         x->type.is_signed) {
    x = x->args[0];
  }
  AffineForm f;
  if (x->kind == ExprKind::kVar && x->name == counter) {
    f.a = 1;
    return f;
  }
  if (x->kind == ExprKind::kConst) {
    f.constant = x->value;
    return f;
  }
  const bool arithmetic = x->kind == ExprKind::kBinary && (x->op == "+" || x->op == "-" || x->op == "*");
  const bool linear = x->type.is_signed && ((x->kind == ExprKind::kUnary && x->op == "-") || arithmetic);
  const auto atom = [&]() -> std::optional<AffineForm> {
    if (Mentions(x, counter)) return std::nullopt;
    AddAtom(f, x, 1);
    return f;
  };
  if (!linear) return atom();
  if (x->kind == ExprKind::kUnary) {
    const auto inner = AffineWithAtoms(x->args[0], counter);
    if (!inner) return std::nullopt;
    return Combine(-1, *inner, f, 0);
  }
  const auto l = AffineWithAtoms(x->args[0], counter);
  const auto r = AffineWithAtoms(x->args[1], counter);
  if (!l || !r) return std::nullopt;
  // Past 2^64 the coefficients no longer fit a C value, and products could overflow Int128.
  constexpr Int128 kLimit = static_cast<Int128>(1) << 64;
  for (const AffineForm* g : {&*l, &*r}) {
    for (Int128 v : {g->a, g->constant}) {
      if (v > kLimit || v < -kLimit) return std::nullopt;
    }
    for (const auto& [unused, v] : g->atoms) {
      if (v > kLimit || v < -kLimit) return std::nullopt;
    }
  }
  if (x->op == "+") return Combine(1, *l, *r, 1);
  if (x->op == "-") return Combine(1, *l, *r, -1);
  const auto constant = [](const AffineForm& g) { return g.a == 0 && g.atoms.empty(); };
  if (constant(*l)) return Combine(l->constant, *r, f, 0);
  if (constant(*r)) return Combine(r->constant, *l, f, 0);
  return atom();  // a product of atoms is an atom; one with the counter is not affine
}

bool InjectiveInCounter(const ExprPtr& e, const std::string& counter, Int128 lo, Int128 hi) {
  if (lo < 0 || hi <= lo) return false;
  const std::optional<AffineForm> form = AffineWithAtoms(e, "");
  if (!form) return false;
  Int128 w = 0, remainders = 0, quotients = 0;  // w, A and B
  for (const auto& [atom, k] : form->atoms) {
    if (atom->kind != ExprKind::kBinary || (atom->op != "%" && atom->op != "/")) return false;
    const std::optional<Int128> divisor = FoldConstant(atom->args[1]);
    if (!divisor || *divisor <= 0 || (w != 0 && *divisor != w) || OffsetFromCounter(atom->args[0], counter) != 0) {
      return false;
    }
    w = *divisor;
    (atom->op == "%" ? remainders : quotients) += k;
  }
  if (remainders == 0 || quotients == 0) return false;
  const auto magnitude = [](Int128 v) { return v < 0 ? -v : v; };
  // Two counters c1 != c2 with equal values have A (r1 - r2) = B (q2 - q1), |r1 - r2| < w, |q2 - q1| < rows.
  const Int128 rows = (hi - 1) / w - lo / w + 1;
  return magnitude(remainders) > magnitude(quotients) * (rows - 1) ||
         magnitude(quotients) > magnitude(remainders) * (w - 1);
}

std::optional<std::pair<Int128, Int128>> AffineInCounter(const ExprPtr& e, const std::string& counter) {
  const auto f = AffineWithAtoms(e, counter);
  if (!f || !f->atoms.empty()) return std::nullopt;
  return std::make_pair(f->a, f->constant);
}

std::optional<std::set<Int128>> AccessRates(const CountedLoop& c, const StmtPtr& loop,
                                            const std::set<std::string>& arrays) {
  const Effects e = EffectsOf(loop);
  std::set<Int128> rates;
  for (const auto* list : {&e.array_reads, &e.array_writes}) {
    for (const ArrayAccess& a : *list) {
      if (!arrays.count(a.array)) continue;
      const auto form = a.index ? AffineWithAtoms(a.index, c.counter) : std::nullopt;
      if (!form) return std::nullopt;
      rates.insert(form->a * c.stride);
    }
  }
  return rates;
}

ExprPtr PlusConst(const ExprPtr& e, Int128 k, IntType t) {
  if (e->kind == ExprKind::kBinary && (e->op == "+" || e->op == "-") && e->type == t &&
      e->args[1]->kind == ExprKind::kConst) {
    const Int128 c = (e->op == "+" ? e->args[1]->value : -e->args[1]->value) + k;
    if (c == 0) return e->args[0];
    return MakeBinary(c > 0 ? "+" : "-", e->args[0], MakeConst(c > 0 ? c : -c, t), t);
  }
  if (k == 0) return e;
  return MakeBinary(k > 0 ? "+" : "-", e, MakeConst(k > 0 ? k : -k, t), t);
}

std::set<std::string> SharedArrays(const StmtPtr& a, const StmtPtr& b) {
  const Effects ea = EffectsOf(a), eb = EffectsOf(b);
  std::set<std::string> out;
  for (const auto& x : ea.ArraysWritten()) {
    if (eb.ArraysAccessed().count(x)) out.insert(x);
  }
  for (const auto& x : eb.ArraysWritten()) {
    if (ea.ArraysAccessed().count(x)) out.insert(x);
  }
  return out;
}

std::vector<std::pair<size_t, size_t>> AdjacentLoops(const std::vector<StmtPtr>& items) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t previous = items.size();
  for (size_t k = 0; k < items.size(); ++k) {
    const StmtPtr& s = items[k];
    if (s->kind == StmtKind::kAssign || s->kind == StmtKind::kHavoc) continue;
    if (s->kind != StmtKind::kLoop || s->do_while) {
      previous = items.size();
      continue;
    }
    if (previous < items.size()) out.push_back({previous, k});
    previous = k;
  }
  return out;
}

std::optional<Int128> FoldConstant(const ExprPtr& e, const KnownConstants& known) {
  std::vector<Int128> a;
  for (const auto& x : e->args) {
    const auto v = FoldConstant(x, known);
    if (!v) return std::nullopt;
    a.push_back(*v);
  }
  switch (e->kind) {
    case ExprKind::kConst:
      return e->value;
    case ExprKind::kVar: {
      const auto it = known.find(e->name);
      if (it == known.end()) return std::nullopt;
      return it->second;
    }
    case ExprKind::kCast:
      return Wrap(e->type, a[0]);
    case ExprKind::kUnary:
      return e->op == "-" ? Wrap(e->type, -a[0]) : Int128{a[0] == 0};
    case ExprKind::kTernary:
      return a[0] != 0 ? a[1] : a[2];
    case ExprKind::kBinary: {
      const std::string& op = e->op;
      if (op == "+" || op == "-" || op == "*") return Wrap(e->type, ModularArithmetic(op[0], a[0], a[1]));
      if (op == "/" || op == "%") {
        if (a[1] == 0) return std::nullopt;
        return Wrap(e->type, op == "/" ? a[0] / a[1] : a[0] % a[1]);
      }
      if (op == "<") return Int128{a[0] < a[1]};
      if (op == "<=") return Int128{a[0] <= a[1]};
      if (op == ">") return Int128{a[0] > a[1]};
      if (op == ">=") return Int128{a[0] >= a[1]};
      if (op == "==") return Int128{a[0] == a[1]};
      if (op == "!=") return Int128{a[0] != a[1]};
      if (op == "&") return a[0] & a[1];
      if (op == "|") return a[0] | a[1];
      if (op == "^") return a[0] ^ a[1];
      if (op == "&&") return Int128{a[0] != 0 && a[1] != 0};
      if (op == "||") return Int128{a[0] != 0 || a[1] != 0};
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

namespace {

void CountWrites(const StmtPtr& s, std::map<std::string, int>& writes) {
  if (!s) return;
  if (s->kind == StmtKind::kAssign && s->lhs->kind == ExprKind::kVar) ++writes[s->lhs->name];
  if (s->kind == StmtKind::kHavoc) ++writes[s->name];
  for (const auto& b : s->body) CountWrites(b, writes);
  CountWrites(s->step, writes);
}

}  // namespace

std::map<std::string, int> CountScalarWrites(const StmtPtr& s) {
  std::map<std::string, int> writes;
  CountWrites(s, writes);
  return writes;
}

bool HasNondet(const ExprPtr& e) {
  if (e->kind == ExprKind::kNondet) return true;
  for (const auto& a : e->args) {
    if (HasNondet(a)) return true;
  }
  return false;
}

bool LeavesBy(const StmtPtr& s, StmtKind kind) {
  if (!s || s->kind == StmtKind::kLoop) return false;
  if (s->kind == kind) return true;
  for (const auto& b : s->body) {
    if (LeavesBy(b, kind)) return true;
  }
  return false;
}

bool CompletesNormally(const StmtPtr& s, const std::function<bool(const StmtPtr&)>& jumps,
                       const std::function<bool(const StmtPtr&)>& entered) {
  if (jumps && jumps(s)) return false;
  switch (s->kind) {
    case StmtKind::kReturn:
    case StmtKind::kBreak:
    case StmtKind::kContinue:
    case StmtKind::kError:
      return false;
    case StmtKind::kAssume: {
      const std::optional<Int128> v = FoldConstant(s->cond);
      return !v || *v != 0;
    }
    case StmtKind::kIf:
      return CompletesNormally(s->body[0], jumps, entered) || CompletesNormally(s->body[1], jumps, entered);
    case StmtKind::kLoop: {
      const std::optional<Int128> v = FoldConstant(s->cond);
      return !v || *v == 0 || LeavesBy(s->body[0], StmtKind::kBreak);
    }
    case StmtKind::kBlock: {
      bool reached = true;  // by control going on from the statements before
      for (const auto& b : s->body) {
        if (reached || (entered && entered(b))) reached = CompletesNormally(b, jumps, entered);
      }
      return reached;
    }
    default:
      return true;
  }
}

bool ReadsNone(const ExprPtr& e, const std::set<std::string>& names) {
  Effects eff;
  AddReads(e, eff);
  for (const auto& v : eff.reads) {
    if (names.count(v)) return false;
  }
  for (const auto& a : eff.array_reads) {
    if (names.count(a.array)) return false;
  }
  return true;
}

}  // namespace fusion

namespace fusion {

StmtPtr RewriteBlocks(const StmtPtr& s, const std::function<std::vector<StmtPtr>(std::vector<StmtPtr>)>& f) {
  if (!s) return s;
  if (s->kind == StmtKind::kBlock) {
    std::vector<StmtPtr> items;
    for (const auto& b : Flatten(s)) items.push_back(RewriteBlocks(b, f));
    return MakeBlock(f(std::move(items)));
  }
  if (s->kind != StmtKind::kIf && s->kind != StmtKind::kLoop) return s;
  auto copy = std::make_shared<Stmt>(*s);
  for (auto& b : copy->body) b = RewriteBlocks(b->kind == StmtKind::kBlock ? b : MakeBlock({b}), f);
  return copy;
}

}  // namespace fusion
