// Affine equalities that hold at every loop head and procedure summary of a Horn system: the least inductive
// invariant in Karr's domain, computed from models of the clauses rather than by transfer functions (Thakur and
// Reps' symbolic abstraction: ask for a head state outside the current hull, add it, repeat). A clause that calls
// procedures is nonlinear: its head's states come from those of its body's predicate and its calls' summaries
// together. Why: Spacer 4.8.12 does not find equalities such as `x_2 + z_2 == guess_x_2 + guess_y_2` through the
// disjunctive transition of six fused loops (in-de62's under-no-wrap half: time-out in 30 s under every option
// set), nor a summary's `r == m + n` (recursive's Addition03-1: 30 s, one bound `r >= m + k` after another), and
// proves the property at once when they are given.
#pragma once

#include <z3++.h>

#include "fusion/horn.h"
#include "fusion/invariants.h"

namespace fusion {

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
InferredInvariants InferAffineInvariants(const HornSystem& sys, z3::context& ctx, double time_limit_s);

// How often a bound may grow before it is dropped.
inline constexpr int kBoundGrowths = 2;
// Predicates with more integer arguments than this get bounds of single arguments only: the differences
// are quadratically many.
inline constexpr size_t kMaxDifferenceArgs = 12;

}  // namespace fusion
