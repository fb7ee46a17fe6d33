#include "fusion/invariants.h"

namespace fusion {

std::optional<mpz_class> IntegerOf(const z3::expr& value) {
  if (!value.is_numeral()) return std::nullopt;
  return mpz_class(Z3_get_numeral_string(value.ctx(), value));
}

z3::solver EliminatingSolver(z3::context& ctx) {
  return (z3::tactic(ctx, "simplify") & z3::tactic(ctx, "solve-eqs") & z3::tactic(ctx, "smt")).mk_solver();
}

z3::expr LinearTerm(z3::context& ctx, const std::vector<mpz_class>& coeffs, const std::vector<z3::expr>& args) {
  z3::expr_vector terms(ctx);
  for (size_t i = 0; i < coeffs.size(); ++i) {
    if (coeffs[i] == 0) continue;
    const z3::expr c = ctx.int_val(coeffs[i].get_str().c_str());
    terms.push_back(coeffs[i] == 1 ? args[i] : c * args[i]);
  }
  return terms.empty() ? ctx.int_val(0) : z3::sum(terms);
}

z3::expr AffineEquality::At(z3::context& ctx, const std::vector<z3::expr>& args) const {
  return LinearTerm(ctx, coeffs, args) == ctx.int_val(constant.get_str().c_str());
}

z3::expr AffineBound::At(z3::context& ctx, const std::vector<z3::expr>& args) const {
  return LinearTerm(ctx, coeffs, args) <= ctx.int_val(bound.get_str().c_str());
}

z3::expr AffineBound::ReachedAt(z3::context& ctx, const std::vector<z3::expr>& args) const {
  return LinearTerm(ctx, coeffs, args) == ctx.int_val(bound.get_str().c_str());
}

z3::expr BoundDisjunction::At(z3::context& ctx, const std::vector<z3::expr>& args) const {
  return reached.ReachedAt(ctx, args) || bound.At(ctx, args);
}

z3::expr PolynomialEquality::At(z3::context& ctx, const std::vector<z3::expr>& args) const {
  z3::expr_vector sum(ctx);
  for (const auto& [coeff, monomial] : terms) {
    z3::expr product = args[monomial[0]];
    for (size_t k = 1; k < monomial.size(); ++k) product = product * args[monomial[k]];
    sum.push_back(coeff == 1 ? product : ctx.int_val(coeff.get_str().c_str()) * product);
  }
  return (sum.empty() ? ctx.int_val(0) : z3::sum(sum)) == ctx.int_val(constant.get_str().c_str());
}

z3::expr InferredInvariants::At(z3::context& ctx, int pred, const std::vector<z3::expr>& args) const {
  if (!reachable[pred]) return ctx.bool_val(false);
  z3::expr_vector conj(ctx);
  for (const auto& e : equalities[pred]) conj.push_back(e.At(ctx, args));
  for (const auto& b : bounds[pred]) conj.push_back(b.At(ctx, args));
  for (const auto& p : polynomials[pred]) conj.push_back(p.At(ctx, args));
  for (const auto& d : disjunctions[pred]) conj.push_back(d.At(ctx, args));
  return z3::mk_and(conj);
}

z3::expr InferredInvariants::Consequences(z3::context& ctx, int pred, const std::vector<z3::expr>& args) const {
  z3::expr_vector conj(ctx);
  for (const auto& p : consequences[pred]) conj.push_back(p.At(ctx, args));
  return z3::mk_and(conj);
}

z3::expr InferredInvariants::Assumed(z3::context& ctx, int pred, const std::vector<z3::expr>& args) const {
  if (consequences[pred].empty()) return At(ctx, pred, args);
  return At(ctx, pred, args) && Consequences(ctx, pred, args);
}

InferredInvariants InferredInvariants::True(const HornSystem& sys) {
  InferredInvariants out;
  out.reachable.assign(sys.preds.size(), true);
  out.equalities.assign(sys.preds.size(), {});
  out.bounds.assign(sys.preds.size(), {});
  out.polynomials.assign(sys.preds.size(), {});
  out.disjunctions.assign(sys.preds.size(), {});
  out.consequences.assign(sys.preds.size(), {});
  return out;
}

HornSystem Strengthened(const HornSystem& sys, const InferredInvariants& invariants, z3::context& ctx) {
  HornSystem out = sys;
  for (HornClause& c : out.clauses) {
    const std::vector<BodyAtom> atoms = BodyAtoms(c);
    if (atoms.empty()) continue;
    c.constraint = c.constraint && AtomsHold(ctx, atoms, [&](size_t p, const std::vector<z3::expr>& args) {
                     return invariants.Assumed(ctx, static_cast<int>(p), args);
                   });
  }
  return out;
}

}  // namespace fusion
