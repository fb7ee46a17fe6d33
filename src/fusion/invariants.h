// Invariants inferred before Spacer runs, per predicate of a Horn system (affine.h: equalities and bounds;
// polynomial.h: polynomial equalities): the solver conjoins them to every clause's body (Strengthened) and to
// the invariants it reports.
#pragma once

#include <gmpxx.h>
#include <z3++.h>

#include <optional>
#include <utility>
#include <vector>

#include "fusion/horn.h"

namespace fusion {

// coeffs · args == constant over a predicate's arguments (coefficient 0 at every array argument).
struct AffineEquality {
  std::vector<mpz_class> coeffs;
  mpz_class constant;
  // The equality at these arguments of the predicate.
  z3::expr At(z3::context& ctx, const std::vector<z3::expr>& args) const;
};

// coeffs · args <= bound: the affine inference's are of one argument or of the difference of two (x <= c,
// -x <= c, x - y <= c).
struct AffineBound {
  std::vector<mpz_class> coeffs;
  mpz_class bound;
  // The inequality at these arguments of the predicate.
  z3::expr At(z3::context& ctx, const std::vector<z3::expr>& args) const;
  // The equality coeffs · args == bound at these arguments: the bound reached.
  z3::expr ReachedAt(z3::context& ctx, const std::vector<z3::expr>& args) const;
};

// `reached`'s bound reached, or `bound`: a loop counter at its start or within its guard (`n == 0 || n <= a + 1`,
// where the loop runs while n <= a and a may be below the start). With `reached` an invariant too, this is the
// degree-2 inequality (r - rcoeffs · args) * (b - bcoeffs · args) >= 0 of their slacks, stated as the disjunction:
// Z3 decides that by cases, where the product would need nonlinear arithmetic (polynomial.h).
struct BoundDisjunction {
  AffineBound reached;
  AffineBound bound;
  // The disjunction at these arguments of the predicate.
  z3::expr At(z3::context& ctx, const std::vector<z3::expr>& args) const;
};

// The arguments a monomial multiplies, by index and with repetition: {0, 0, 2} is x0 * x0 * x2.
using Monomial = std::vector<size_t>;

// sum of coefficient * monomial == constant over a predicate's integer arguments (`y * y == 2 * x + 1`).
struct PolynomialEquality {
  std::vector<std::pair<mpz_class, Monomial>> terms;
  mpz_class constant;
  // The equality at these arguments of the predicate.
  z3::expr At(z3::context& ctx, const std::vector<z3::expr>& args) const;
};

// Per predicate of a Horn system: whether any state reaches it, and the equalities, bounds, polynomial
// equalities and disjunctions of bounds all its states satisfy.
struct InferredInvariants {
  std::vector<bool> reachable;
  std::vector<std::vector<AffineEquality>> equalities;
  std::vector<std::vector<AffineBound>> bounds;
  std::vector<std::vector<PolynomialEquality>> polynomials;
  std::vector<std::vector<BoundDisjunction>> disjunctions;
  // Polynomial equalities that are sums of the polynomials' products with monomials (so that they hold where
  // those do, by linear algebra alone: polynomial.h), for the bodies of clauses only: nonlinear arithmetic would
  // not derive them there (`x == n * n * n` from `y == 3 * n * n + 3 * n + 1` and `n * y + 2 * n == 3 * x + y - 1`),
  // and proving them again at every head would cost what their derivation saved.
  std::vector<std::vector<PolynomialEquality>> consequences;
  // The invariant of predicate `pred` at these arguments: false where unreachable, else the conjunction of
  // what it holds (true when nothing), consequences excepted.
  z3::expr At(z3::context& ctx, int pred, const std::vector<z3::expr>& args) const;
  // The consequences of predicate `pred` at these arguments (true when none).
  z3::expr Consequences(z3::context& ctx, int pred, const std::vector<z3::expr>& args) const;
  // At and the consequences: what a clause's body may assume.
  z3::expr Assumed(z3::context& ctx, int pred, const std::vector<z3::expr>& args) const;
  // Invariants that say nothing: every predicate reachable, no equality.
  static InferredInvariants True(const HornSystem& sys);
};

// The clauses of sys with each body strengthened by the invariants of its predicate and of its calls'
// summaries (Assumed): the same least model, as the invariants hold of every reachable state.
HornSystem Strengthened(const HornSystem& sys, const InferredInvariants& invariants, z3::context& ctx);

// The integer a Z3 value stands for, or none where it is no numeral (a model that left a term symbolic).
std::optional<mpz_class> IntegerOf(const z3::expr& value);

// A solver that first eliminates the variables that equalities among its assertions define (Z3's solve-eqs), then
// runs Z3's SMT core: on the checks of inferred invariants, where bodies state `x == n * n * n` and the like, it
// answered in milliseconds where the default solver took a second or gave up (cohencu). Each check solves the
// assertions anew (no incremental state).
z3::solver EliminatingSolver(z3::context& ctx);

// coeffs · args.
z3::expr LinearTerm(z3::context& ctx, const std::vector<mpz_class>& coeffs, const std::vector<z3::expr>& args);

}  // namespace fusion
