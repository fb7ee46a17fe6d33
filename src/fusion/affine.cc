#include "fusion/affine.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>

#include "common/stopwatch.h"

namespace fusion {
namespace {

// The affine hull of the points seen at one predicate, over its integer arguments: a base point and the
// directions from it in reduced row echelon form (exact rationals: models may hold numbers of any size).
class AffineHull {
 public:
  explicit AffineHull(size_t dims) : dims_(dims) {}

  bool empty() const { return !base_; }
  // True once the hull is the whole space: no equality is left to find.
  bool full() const { return base_ && rows_.size() == dims_; }

  // Adds a point; returns whether the hull grew.
  bool Add(const std::vector<mpq_class>& point) {
    if (!base_) {
      base_ = point;
      return true;
    }
    std::vector<mpq_class> d(dims_);
    for (size_t i = 0; i < dims_; ++i) d[i] = point[i] - (*base_)[i];
    for (size_t r = 0; r < rows_.size(); ++r) {
      const mpq_class f = d[pivots_[r]];
      if (f == 0) continue;
      for (size_t i = 0; i < dims_; ++i) d[i] -= f * rows_[r][i];
    }
    size_t pivot = 0;
    while (pivot < dims_ && d[pivot] == 0) ++pivot;
    if (pivot == dims_) return false;
    const mpq_class lead = d[pivot];
    for (auto& x : d) x /= lead;
    for (auto& row : rows_) {
      const mpq_class f = row[pivot];
      if (f == 0) continue;
      for (size_t i = 0; i < dims_; ++i) row[i] -= f * d[i];
    }
    const size_t at = static_cast<size_t>(std::lower_bound(pivots_.begin(), pivots_.end(), pivot) - pivots_.begin());
    rows_.insert(rows_.begin() + static_cast<std::ptrdiff_t>(at), std::move(d));
    pivots_.insert(pivots_.begin() + static_cast<std::ptrdiff_t>(at), pivot);
    return true;
  }

  // The equalities of the hull in integer coefficients, one per dimension without a pivot:
  // x_f - sum_r rows_[r][f] x_pivot(r) == the same at the base point.
  std::vector<std::pair<std::vector<mpz_class>, mpz_class>> Equalities() const {
    std::vector<std::pair<std::vector<mpz_class>, mpz_class>> out;
    if (!base_) return out;
    size_t r = 0;
    for (size_t f = 0; f < dims_; ++f) {
      if (r < pivots_.size() && pivots_[r] == f) {
        ++r;
        continue;
      }
      std::vector<mpq_class> a(dims_, 0);
      a[f] = 1;
      for (size_t k = 0; k < rows_.size(); ++k) a[pivots_[k]] = -rows_[k][f];
      mpq_class b = 0;
      for (size_t i = 0; i < dims_; ++i) b += a[i] * (*base_)[i];
      mpz_class scale = b.get_den();
      for (const auto& x : a) mpz_lcm(scale.get_mpz_t(), scale.get_mpz_t(), x.get_den().get_mpz_t());
      std::vector<mpz_class> coeffs(dims_);
      for (size_t i = 0; i < dims_; ++i) coeffs[i] = mpq_class(a[i] * scale).get_num();
      out.emplace_back(std::move(coeffs), mpq_class(b * scale).get_num());
    }
    return out;
  }

 private:
  size_t dims_;
  std::optional<std::vector<mpq_class>> base_;
  std::vector<std::vector<mpq_class>> rows_;
  std::vector<size_t> pivots_;  // the pivot column of each row, ascending
};

// Thrown when the inference runs out of time or a query is inconclusive.
struct GiveUp {};

// A model of what s holds (pushed by the caller, who pops it after using the model), or none, popped, when
// there is none.
std::optional<z3::model> ModelOrPop(z3::solver& s) {
  const z3::check_result r = s.check();
  if (r == z3::unknown) throw GiveUp{};
  if (r == z3::unsat) {
    s.pop();
    return std::nullopt;
  }
  return s.get_model();
}

// coeffs · args.
z3::expr LinearTerm(z3::context& ctx, const std::vector<mpz_class>& coeffs, const std::vector<z3::expr>& args) {
  z3::expr_vector terms(ctx);
  for (size_t i = 0; i < coeffs.size(); ++i) {
    if (coeffs[i] == 0) continue;
    const z3::expr c = ctx.int_val(coeffs[i].get_str().c_str());
    terms.push_back(coeffs[i] == 1 ? args[i] : c * args[i]);
  }
  return terms.empty() ? ctx.int_val(0) : z3::sum(terms);
}

}  // namespace

z3::expr AffineEquality::At(z3::context& ctx, const std::vector<z3::expr>& args) const {
  return LinearTerm(ctx, coeffs, args) == ctx.int_val(constant.get_str().c_str());
}

z3::expr AffineBound::At(z3::context& ctx, const std::vector<z3::expr>& args) const {
  return LinearTerm(ctx, coeffs, args) <= ctx.int_val(bound.get_str().c_str());
}

z3::expr AffineInvariants::At(z3::context& ctx, int pred, const std::vector<z3::expr>& args) const {
  if (!reachable[pred]) return ctx.bool_val(false);
  z3::expr_vector conj(ctx);
  for (const auto& e : equalities[pred]) conj.push_back(e.At(ctx, args));
  for (const auto& b : bounds[pred]) conj.push_back(b.At(ctx, args));
  return z3::mk_and(conj);
}

AffineInvariants AffineInvariants::True(const HornSystem& sys) {
  AffineInvariants out;
  out.reachable.assign(sys.preds.size(), true);
  out.equalities.assign(sys.preds.size(), {});
  out.bounds.assign(sys.preds.size(), {});
  return out;
}

namespace {

// A predicate applied in a clause's body, and its arguments there.
struct BodyAtom {
  size_t pred;
  const std::vector<z3::expr>* args;
};

// The predicates in a clause's body: its body predicate's, then the summary of each call it makes. With more
// than one the clause is nonlinear, and its head's states are those of every combination of its body's: the
// hulls (and zones) are kept by it when its head's holds its constraint with each atom inside its own.
std::vector<BodyAtom> BodyAtoms(const HornClause& c) {
  std::vector<BodyAtom> atoms;
  if (c.body_pred >= 0) atoms.push_back({static_cast<size_t>(c.body_pred), &c.body_args});
  for (const SummaryAtom& call : c.calls) atoms.push_back({static_cast<size_t>(call.pred), &call.args});
  return atoms;
}

// The invariant of each atom of a clause's body at its arguments, conjoined (true for none; a single atom's as
// it is, so that a linear clause's formulas are what they were before calls had atoms).
z3::expr AtomsHold(z3::context& ctx, const std::vector<BodyAtom>& atoms,
                   const std::function<z3::expr(size_t, const std::vector<z3::expr>&)>& at) {
  if (atoms.empty()) return ctx.bool_val(true);
  if (atoms.size() == 1) return at(atoms[0].pred, *atoms[0].args);
  z3::expr_vector conj(ctx);
  for (const BodyAtom& a : atoms) conj.push_back(at(a.pred, *a.args));
  return z3::mk_and(conj);
}

// The predicates of sys by the strongly connected components of the clauses' graph (body to head), in a
// topological order: each component as a mask over the predicates.
std::vector<std::vector<bool>> ComponentsInOrder(const HornSystem& sys) {
  const size_t preds = sys.preds.size();
  std::vector<std::vector<bool>> reaches(preds, std::vector<bool>(preds, false));
  for (size_t p = 0; p < preds; ++p) reaches[p][p] = true;
  for (const HornClause& c : sys.clauses) {
    if (c.head_pred < 0) continue;
    for (const BodyAtom& a : BodyAtoms(c)) reaches[a.pred][static_cast<size_t>(c.head_pred)] = true;
  }
  for (size_t k = 0; k < preds; ++k) {
    for (size_t i = 0; i < preds; ++i) {
      for (size_t j = 0; j < preds; ++j) reaches[i][j] = reaches[i][j] || (reaches[i][k] && reaches[k][j]);
    }
  }
  // A predicate that reaches another component has fewer predicates reaching it: those that reach it reach
  // the other too, which does not reach it back.
  std::vector<size_t> ancestors(preds, 0), order(preds);
  for (size_t p = 0; p < preds; ++p) {
    for (size_t a = 0; a < preds; ++a) ancestors[p] += reaches[a][p];
    order[p] = p;
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ancestors[a] < ancestors[b]; });
  std::vector<std::vector<bool>> out;
  for (size_t first = 0; first < preds;) {
    out.emplace_back(preds, false);
    size_t last = first;
    while (last < preds && reaches[order[first]][order[last]] && reaches[order[last]][order[first]]) {
      out.back()[order[last++]] = true;
    }
    first = last;
  }
  return out;
}

// The bounds phase of InferAffineInvariants, until deadline_s on clock: the least zone of each predicate (bounds of its
// integer arguments and of their differences) that the clauses keep, with the equalities of `inv` assumed in each body,
// widened (a bound that grows more than kBoundGrowths times is dropped), added to inv. Throws GiveUp when the time runs
// out or a query is inconclusive.
void InferBounds(const HornSystem& sys, z3::context& ctx, const std::vector<std::vector<size_t>>& ints,
                 const common::Stopwatch& clock, double deadline_s, z3::solver& s, AffineInvariants& inv) {
  const size_t preds = sys.preds.size();
  // The templates of each predicate (coefficients at its full argument list), their bounds (none: unbounded)
  // and how often each has grown.
  std::vector<std::vector<std::vector<mpz_class>>> templates(preds);
  std::vector<std::vector<std::optional<mpz_class>>> upper(preds);
  std::vector<std::vector<int>> growths(preds);
  for (size_t p = 0; p < preds; ++p) {
    const auto unit = [&](size_t a, int sign, std::optional<size_t> minus) {
      std::vector<mpz_class> c(sys.preds[p].arity(), 0);
      c[a] = sign;
      if (minus) c[*minus] = -1;
      templates[p].push_back(std::move(c));
    };
    for (size_t a : ints[p]) {
      unit(a, 1, std::nullopt);
      unit(a, -1, std::nullopt);
    }
    if (ints[p].size() <= kMaxDifferenceArgs) {
      for (size_t a : ints[p]) {
        for (size_t b : ints[p]) {
          if (a != b) unit(a, 1, b);
        }
      }
    }
    upper[p].assign(templates[p].size(), std::nullopt);
    growths[p].assign(templates[p].size(), 0);
  }
  std::vector<bool> reached(preds, false);
  const auto zone = [&](size_t p, const std::vector<z3::expr>& args) {
    z3::expr_vector conj(ctx);
    for (size_t t = 0; t < templates[p].size(); ++t) {
      if (upper[p][t]) conj.push_back(AffineBound{templates[p][t], *upper[p][t]}.At(ctx, args));
    }
    return z3::mk_and(conj);
  };
  const auto numeral = [&](const z3::expr& v) {
    if (!v.is_numeral()) throw GiveUp{};
    return mpz_class(Z3_get_numeral_string(ctx, v));
  };
  z3::params params(ctx);
  params.set("timeout", static_cast<unsigned>(std::max(1.0, (deadline_s - clock.Seconds()) * 1000)));
  for (const std::vector<bool>& in_component : ComponentsInOrder(sys)) {
    for (bool changed = true; changed;) {
      changed = false;
      for (const HornClause& c : sys.clauses) {
        if (c.head_pred < 0 || !in_component[static_cast<size_t>(c.head_pred)]) continue;
        const auto q = static_cast<size_t>(c.head_pred);
        const std::vector<BodyAtom> atoms = BodyAtoms(c);
        if (std::any_of(atoms.begin(), atoms.end(), [&](const BodyAtom& a) { return !reached[a.pred]; })) continue;
        const z3::expr body = AtomsHold(ctx, atoms, [&](size_t p, const std::vector<z3::expr>& args) {
          return inv.At(ctx, static_cast<int>(p), args) && zone(p, args);
        });
        while (true) {
          if (clock.Seconds() > deadline_s) throw GiveUp{};
          s.push();
          s.add(c.constraint && body);
          if (reached[q]) s.add(!zone(q, c.head_args));
          const std::optional<z3::model> found = ModelOrPop(s);
          if (!found) break;
          const z3::model& m = *found;
          std::vector<size_t> exceeded;
          for (size_t t = 0; t < templates[q].size(); ++t) {
            const mpz_class v = numeral(m.eval(LinearTerm(ctx, templates[q][t], c.head_args), true));
            if (!reached[q]) {
              upper[q][t] = v;
            } else if (upper[q][t] && v > *upper[q][t]) {
              exceeded.push_back(t);
            }
          }
          s.pop();
          changed = true;
          if (!reached[q]) {
            reached[q] = true;
            continue;
          }
          // A bound the model exceeds grows to the most the clause reaches, or goes once it has grown enough.
          for (size_t t : exceeded) {
            if (++growths[q][t] > kBoundGrowths) {
              upper[q][t].reset();
              continue;
            }
            z3::optimize opt(ctx);
            opt.set(params);
            opt.add(c.constraint && body);
            const z3::optimize::handle h = opt.maximize(LinearTerm(ctx, templates[q][t], c.head_args));
            if (opt.check() != z3::sat) throw GiveUp{};
            const z3::expr most = opt.upper(h);
            if (most.is_numeral()) {
              upper[q][t] = std::max(*upper[q][t], numeral(most));
            } else {
              upper[q][t].reset();
            }
          }
        }
      }
    }
  }
  for (size_t p = 0; p < preds; ++p) {
    for (size_t t = 0; t < templates[p].size(); ++t) {
      if (upper[p][t]) inv.bounds[p].push_back(AffineBound{templates[p][t], *upper[p][t]});
    }
  }
}

}  // namespace

AffineInvariants InferAffineInvariants(const HornSystem& sys, z3::context& ctx, double time_limit_s) {
  const size_t preds = sys.preds.size();
  // The integer arguments of each predicate (arrays take no part).
  std::vector<std::vector<size_t>> ints(preds);
  for (size_t p = 0; p < preds; ++p) {
    for (unsigned i = 0; i < sys.preds[p].arity(); ++i) {
      if (sys.preds[p].domain(i).is_int()) ints[p].push_back(i);
    }
  }
  std::vector<AffineHull> hulls;
  for (size_t p = 0; p < preds; ++p) hulls.emplace_back(ints[p].size());
  // The hulls' invariants as they stand: no predicate reached yet.
  AffineInvariants current;
  current.reachable.assign(preds, false);
  current.equalities.assign(preds, {});
  current.bounds.assign(preds, {});
  // The equalities of a hull, at the predicate's full argument list.
  const auto equalities = [&](size_t p) {
    std::vector<AffineEquality> eqs;
    for (auto& [coeffs, constant] : hulls[p].Equalities()) {
      AffineEquality e{std::vector<mpz_class>(sys.preds[p].arity(), 0), constant};
      for (size_t k = 0; k < ints[p].size(); ++k) e.coeffs[ints[p][k]] = coeffs[k];
      eqs.push_back(std::move(e));
    }
    return eqs;
  };
  common::Stopwatch clock;
  // One solver for every query (created once: creating one per query cost more than the queries).
  z3::solver s(ctx, z3::solver::simple());
  z3::params params(ctx);
  params.set("timeout", static_cast<unsigned>(std::max(1.0, time_limit_s * 1000)));
  s.set(params);
  // How often each hull has grown, and the growth counts of a clause's body (its atoms' together) and head at its
  // last conclusive query: a clause is asked again only once one of them has grown since.
  std::vector<long> grown(preds, 0);
  std::vector<std::pair<long, long>> asked(sys.clauses.size(), {-1, -1});
  const auto body_grown = [&](const std::vector<BodyAtom>& atoms) {
    long sum = 0;
    for (const BodyAtom& a : atoms) sum += grown[a.pred];
    return sum;
  };
  try {
    // Round-robin over the clauses until none leads outside its head's hull: each hull grows at most once
    // per dimension beyond its first point, so this ends.
    for (bool grew = true; grew;) {
      grew = false;
      for (size_t k = 0; k < sys.clauses.size(); ++k) {
        const HornClause& c = sys.clauses[k];
        if (c.head_pred < 0) continue;
        const auto q = static_cast<size_t>(c.head_pred);
        const std::vector<BodyAtom> atoms = BodyAtoms(c);
        if (asked[k] == std::make_pair(body_grown(atoms), grown[q])) continue;
        if (std::any_of(atoms.begin(), atoms.end(), [&](const BodyAtom& a) { return hulls[a.pred].empty(); })) {
          continue;
        }
        while (!hulls[q].full()) {
          if (clock.Seconds() > time_limit_s) throw GiveUp{};
          s.push();
          s.add(c.constraint);
          if (!atoms.empty()) {
            s.add(AtomsHold(ctx, atoms, [&](size_t p, const std::vector<z3::expr>& args) {
              return current.At(ctx, static_cast<int>(p), args);
            }));
          }
          if (!hulls[q].empty()) s.add(!current.At(ctx, c.head_pred, c.head_args));
          const std::optional<z3::model> found = ModelOrPop(s);
          if (!found) break;
          const z3::model& m = *found;
          std::vector<mpq_class> point;
          for (size_t i : ints[q]) {
            const z3::expr v = m.eval(c.head_args[i], true);
            if (!v.is_numeral()) throw GiveUp{};
            point.emplace_back(mpz_class(Z3_get_numeral_string(ctx, v)));
          }
          s.pop();
          // A model outside the equalities is outside the hull; anything else is a bug, not a fixpoint.
          if (!hulls[q].Add(point)) throw GiveUp{};
          current.reachable[q] = true;
          current.equalities[q] = equalities(q);
          ++grown[q];
          grew = true;
        }
        asked[k] = {body_grown(atoms), grown[q]};
      }
    }
  } catch (const GiveUp&) {
    return AffineInvariants::True(sys);
  } catch (const z3::exception&) {
    return AffineInvariants::True(sys);
  }
  const auto has_array = [](const z3::func_decl& pred) {
    for (unsigned i = 0; i < pred.arity(); ++i) {
      if (pred.domain(i).is_array()) return true;
    }
    return false;
  };
  if (std::any_of(sys.preds.begin(), sys.preds.end(), has_array)) return current;
  AffineInvariants with_bounds = current;
  try {
    InferBounds(sys, ctx, ints, clock, time_limit_s, s, with_bounds);
  } catch (const GiveUp&) {
    return current;
  } catch (const z3::exception&) {
    return current;
  }
  return with_bounds;
}

HornSystem Strengthened(const HornSystem& sys, const AffineInvariants& invariants, z3::context& ctx) {
  HornSystem out = sys;
  for (HornClause& c : out.clauses) {
    const std::vector<BodyAtom> atoms = BodyAtoms(c);
    if (atoms.empty()) continue;
    c.constraint = c.constraint && AtomsHold(ctx, atoms, [&](size_t p, const std::vector<z3::expr>& args) {
                     return invariants.At(ctx, static_cast<int>(p), args);
                   });
  }
  return out;
}

}  // namespace fusion
