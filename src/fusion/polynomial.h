// Polynomial invariants that hold at every loop head and procedure summary of a Horn system, guessed from
// reachable states and kept where the clauses prove them inductive: DIG's guess-and-check (Nguyen, Kapur,
// Weimer and Forrest, ICSE 2012) with Houdini's fixpoint (Flanagan and Leino, FME 2001). The states come from
// the clauses themselves, each asked for a successor of states already found; the guesses are the affine
// hull of the states' monomials up to degree 3 (affine_hull.h), and products of two bounds' slacks
// (BoundDisjunction: `n == 0 || n <= a + 1`, what the property after a loop often needs besides the equalities).
// Why: the invariants of nla-digbench's programs are polynomial equalities (`x == n * n * n`,
// `y * y == 2 * x + 1`), which Spacer 4.8.12, whose lemmas are linear, does not find (41 of its 52 tasks timed out
// at 5 s).
#pragma once

#include <z3++.h>

#include "fusion/horn.h"
#include "fusion/invariants.h"

namespace fusion {

// Whether e multiplies two non-constant terms.
bool MultipliesVariables(const z3::expr& e);
// Whether any clause's constraint does: only then are polynomial equalities looked for (a linear program's
// properties seldom need them, and the time is Spacer's).
bool MultipliesVariables(const HornSystem& sys);

// Adds to known.polynomials the polynomial equalities of degree 2 to kMaxPolynomialDegree over each reachable
// predicate's integer arguments, and to known.disjunctions "a bound of known.bounds reached, or a bound of one
// argument or of two that a clause compares" (none that the others imply), that the clauses keep, with the
// invariants of `known` assumed in every body, within time_limit_s seconds; to known.consequences what the
// equalities imply. The equalities are checked first, the disjunctions then with them assumed. What it adds is
// inductive (every clause from states satisfying its body's invariants leads to a state satisfying its head's),
// so it holds of every reachable state; where the time runs out before a fixpoint, nothing of that kind is added
// (no equality, or no disjunction).
void InferPolynomialInvariants(const HornSystem& sys, z3::context& ctx, double time_limit_s, InferredInvariants& known);

// The highest degree of a guessed monomial.
inline constexpr size_t kMaxPolynomialDegree = 3;
// At most this many monomials per predicate: the degree is the highest whose monomials fit, and fewer than the
// states found (each state is one point of their hull: with fewer points than monomials the hull is not yet
// the invariant's).
inline constexpr size_t kMaxMonomials = 120;
// At most this many disjunctions guessed per predicate.
inline constexpr size_t kMaxDisjunctions = 48;

}  // namespace fusion
