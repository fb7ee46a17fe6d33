#include "fusion/affine.h"

#include <algorithm>
#include <optional>
#include <string>

#include "common/stopwatch.h"
#include "fusion/affine_hull.h"
#include "fusion/polynomial.h"

namespace fusion {
namespace {

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
                 const common::Stopwatch& clock, double deadline_s, z3::solver& s, InferredInvariants& inv) {
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
    const std::optional<mpz_class> n = IntegerOf(v);
    if (!n) throw GiveUp{};
    return *n;
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
          // A bound the model exceeds grows to the most the clause reaches, or goes once it has grown enough, or at
          // once where the clause multiplies variables: Z3 4.8.12's optimization over nonlinear arithmetic ran on
          // past every timeout and interrupt (nla-digbench's geo2: 10 s of a 2-s job).
          const bool nonlinear = MultipliesVariables(c.constraint);
          for (size_t t : exceeded) {
            if (nonlinear || ++growths[q][t] > kBoundGrowths) {
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

InferredInvariants InferAffineInvariants(const HornSystem& sys, z3::context& ctx, double time_limit_s) {
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
  InferredInvariants current = InferredInvariants::True(sys);
  current.reachable.assign(preds, false);
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
            const std::optional<mpz_class> v = IntegerOf(m.eval(c.head_args[i], true));
            if (!v) throw GiveUp{};
            point.emplace_back(*v);
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
    return InferredInvariants::True(sys);
  } catch (const z3::exception&) {
    return InferredInvariants::True(sys);
  }
  const auto has_array = [](const z3::func_decl& pred) {
    for (unsigned i = 0; i < pred.arity(); ++i) {
      if (pred.domain(i).is_array()) return true;
    }
    return false;
  };
  if (std::any_of(sys.preds.begin(), sys.preds.end(), has_array)) return current;
  InferredInvariants with_bounds = current;
  try {
    InferBounds(sys, ctx, ints, clock, time_limit_s, s, with_bounds);
  } catch (const GiveUp&) {
    return current;
  } catch (const z3::exception&) {
    return current;
  }
  return with_bounds;
}

}  // namespace fusion
