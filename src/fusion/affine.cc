#include "fusion/affine.h"

#include <algorithm>
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

}  // namespace

z3::expr AffineEquality::At(z3::context& ctx, const std::vector<z3::expr>& args) const {
  z3::expr_vector terms(ctx);
  for (size_t i = 0; i < coeffs.size(); ++i) {
    if (coeffs[i] == 0) continue;
    const z3::expr c = ctx.int_val(coeffs[i].get_str().c_str());
    terms.push_back(coeffs[i] == 1 ? args[i] : c * args[i]);
  }
  const z3::expr lhs = terms.empty() ? ctx.int_val(0) : z3::sum(terms);
  return lhs == ctx.int_val(constant.get_str().c_str());
}

z3::expr AffineInvariants::At(z3::context& ctx, int pred, const std::vector<z3::expr>& args) const {
  if (!reachable[pred]) return ctx.bool_val(false);
  z3::expr_vector conj(ctx);
  for (const auto& e : equalities[pred]) conj.push_back(e.At(ctx, args));
  return z3::mk_and(conj);
}

AffineInvariants AffineInvariants::True(const HornSystem& sys) {
  AffineInvariants out;
  out.reachable.assign(sys.preds.size(), true);
  out.equalities.assign(sys.preds.size(), {});
  return out;
}

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
  // How often each hull has grown, and the growth counts of a clause's body and head at its last
  // conclusive query: a clause is asked again only once one of them has grown since.
  std::vector<long> grown(preds, 0);
  std::vector<std::pair<long, long>> asked(sys.clauses.size(), {-1, -1});
  try {
    // Round-robin over the clauses until none leads outside its head's hull: each hull grows at most once
    // per dimension beyond its first point, so this ends.
    for (bool grew = true; grew;) {
      grew = false;
      for (size_t k = 0; k < sys.clauses.size(); ++k) {
        const HornClause& c = sys.clauses[k];
        if (c.head_pred < 0) continue;
        const auto q = static_cast<size_t>(c.head_pred);
        const long body_grown = c.body_pred >= 0 ? grown[static_cast<size_t>(c.body_pred)] : 0;
        if (asked[k] == std::make_pair(body_grown, grown[q])) continue;
        if (c.body_pred >= 0 && hulls[static_cast<size_t>(c.body_pred)].empty()) continue;
        while (!hulls[q].full()) {
          if (clock.Seconds() > time_limit_s) throw GiveUp{};
          s.push();
          s.add(c.constraint);
          if (c.body_pred >= 0) s.add(current.At(ctx, c.body_pred, c.body_args));
          if (!hulls[q].empty()) s.add(!current.At(ctx, c.head_pred, c.head_args));
          const z3::check_result r = s.check();
          if (r == z3::unknown) throw GiveUp{};
          if (r == z3::unsat) {
            s.pop();
            break;
          }
          const z3::model m = s.get_model();
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
        asked[k] = {c.body_pred >= 0 ? grown[static_cast<size_t>(c.body_pred)] : 0, grown[q]};
      }
    }
  } catch (const GiveUp&) {
    return AffineInvariants::True(sys);
  } catch (const z3::exception&) {
    return AffineInvariants::True(sys);
  }
  return current;
}

HornSystem Strengthened(const HornSystem& sys, const AffineInvariants& invariants, z3::context& ctx) {
  HornSystem out = sys;
  for (HornClause& c : out.clauses) {
    if (c.body_pred >= 0) c.constraint = c.constraint && invariants.At(ctx, c.body_pred, c.body_args);
  }
  return out;
}

}  // namespace fusion
