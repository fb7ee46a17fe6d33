// Affine equalities that hold at every loop head of a Horn system: the least inductive invariant in Karr's
// domain, computed from models of the clauses rather than by transfer functions (Thakur and Reps'
// symbolic abstraction: ask for a head state outside the current hull, add it, repeat). Why: Spacer
// 4.8.12 does not find equalities such as `x_2 + z_2 == guess_x_2 + guess_y_2` through the disjunctive
// transition of six fused loops (in-de62's under-no-wrap half: time-out in 30 s under every option set),
// and proves the property at once when they are given.
#pragma once

#include <gmpxx.h>
#include <z3++.h>

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

// Per predicate of a Horn system: whether any state reaches it, and the equalities all its states satisfy.
struct AffineInvariants {
  std::vector<bool> reachable;
  std::vector<std::vector<AffineEquality>> equalities;
  // The invariant of predicate `pred` at these arguments: false where unreachable, else the conjunction of
  // its equalities (true when there are none).
  z3::expr At(z3::context& ctx, int pred, const std::vector<z3::expr>& args) const;
  // Invariants that say nothing: every predicate reachable, no equality.
  static AffineInvariants True(const HornSystem& sys);
};

// Computes the affine invariants of sys within time_limit_s seconds. Where the time runs out or a query is
// inconclusive, every predicate gets `true` (reachable, no equality): a partial hull is not inductive. The
// result is an inductive invariant of the clauses without their queries (every clause from a state
// satisfying its body predicate's invariant leads to one satisfying its head's), so it contains every
// reachable state; the solver still re-checks what it reports (solver.cc).
AffineInvariants InferAffineInvariants(const HornSystem& sys, z3::context& ctx, double time_limit_s);

// The clauses of sys with each body strengthened by its predicate's invariant: the same least model, as the
// invariants hold of every reachable state.
HornSystem Strengthened(const HornSystem& sys, const AffineInvariants& invariants, z3::context& ctx);

}  // namespace fusion
