// Affine equalities that hold at every loop head and procedure summary of a Horn system: the least inductive
// invariant in Karr's domain, computed from models of the clauses rather than by transfer functions (Thakur and
// Reps' symbolic abstraction: ask for a head state outside the current hull, add it, repeat). A clause that calls
// procedures is nonlinear: its head's states come from those of its body's predicate and its calls' summaries
// together. Why: Spacer 4.8.12 does not find equalities such as `x_2 + z_2 == guess_x_2 + guess_y_2` through the
// disjunctive transition of six fused loops (in-de62's under-no-wrap half: time-out in 30 s under every option
// set), nor a summary's `r == m + n` (recursive's Addition03-1: 30 s, one bound `r >= m + k` after another), and
// proves the property at once when they are given.
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

// coeffs · args <= bound: a bound of one argument or of the difference of two (x <= c, -x <= c, x - y <= c).
struct AffineBound {
  std::vector<mpz_class> coeffs;
  mpz_class bound;
  // The inequality at these arguments of the predicate.
  z3::expr At(z3::context& ctx, const std::vector<z3::expr>& args) const;
};

// Per predicate of a Horn system: whether any state reaches it, and the equalities and bounds all its states
// satisfy.
struct AffineInvariants {
  std::vector<bool> reachable;
  std::vector<std::vector<AffineEquality>> equalities;
  std::vector<std::vector<AffineBound>> bounds;
  // The invariant of predicate `pred` at these arguments: false where unreachable, else the conjunction of
  // its equalities and bounds (true when there are none).
  z3::expr At(z3::context& ctx, int pred, const std::vector<z3::expr>& args) const;
  // Invariants that say nothing: every predicate reachable, no equality.
  static AffineInvariants True(const HornSystem& sys);
};

// Computes the affine invariants of sys within time_limit_s seconds: the equalities first, then, in the time left,
// bounds of each integer argument and of the difference of two (a zone: `i - j <= 99`), by the same round-robin with a
// bound that keeps growing widened to none after kBoundGrowths growths (a counter's bound would grow by one per round).
// Why bounds: Spacer 4.8.12 takes 7 s to find `i - j <= 99` across two loops that fusion cannot join (loop-invgen's
// string_concat-noarr), and 0.1 s with it given. Where the time runs out or a query is inconclusive, every predicate
// gets `true` (reachable, no equality), or, in the second phase, the equalities alone: a partial hull or zone is not
// inductive. Systems with arrays get no bounds: their queries are slow (tcpy's split candidate: 7.7 s), and the time is
// the solver's. The result is an inductive invariant of the clauses without their queries (every clause from a state
// satisfying its body predicate's invariant leads to one satisfying its head's), so it contains every reachable state;
// the solver still re-checks what it reports (solver.cc).
AffineInvariants InferAffineInvariants(const HornSystem& sys, z3::context& ctx, double time_limit_s);

// How often a bound may grow before it is dropped.
inline constexpr int kBoundGrowths = 2;
// Predicates with more integer arguments than this get bounds of single arguments only: the differences
// are quadratically many.
inline constexpr size_t kMaxDifferenceArgs = 12;

// The clauses of sys with each body strengthened by the invariants of its predicate and of its calls'
// summaries: the same least model, as the invariants hold of every reachable state.
HornSystem Strengthened(const HornSystem& sys, const AffineInvariants& invariants, z3::context& ctx);

}  // namespace fusion
