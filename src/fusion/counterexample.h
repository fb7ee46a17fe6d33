// A counterexample's inputs from Spacer: when Spacer finds an error reachable, the clauses along its
// derivation, unrolled into one SMT query, give the nondeterministic values that drive a run there. Why:
// the concrete search draws small and extreme values, so a bug behind `x == 123456` went unconfirmed and
// the verdict was `unknown` although Spacer had found it. The values are only a suggestion: the verifier
// replays them on the original program, and only a run that reaches the error counts.
#pragma once

#include <z3++.h>

#include <atomic>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fusion/ast.h"
#include "fusion/horn.h"
#include "fusion/interpreter.h"

namespace fusion {

// The contents of an array: the listed cells, and `otherwise` in every other.
struct ArrayValue {
  Int128 otherwise = 0;
  std::map<long long, Int128> cells;
};

// The values of a counterexample: the scalar inputs in the order the run reads them and where it reads
// each (sites[k] for inputs[k]), and the arrays that its uninitialised declarations make, by name (the first
// such array of each name).
struct CounterexampleValues {
  std::vector<Int128> inputs;
  std::vector<InputSite> sites;
  std::map<std::string, ArrayValue> arrays;
};

// A counterexample's values, or why there are none (for a verdict's reason: a user who sees Spacer's error
// unconfirmed learns whether its derivation was too long to unroll, or its inputs ran elsewhere).
struct CounterexampleSearch {
  std::optional<CounterexampleValues> values;
  std::string why_none;  // when values is empty, what stopped the search ("its derivation has ... steps")
};

// Runs Spacer (with these `fp.` parameters) on sys through Z3's fixedpoint interface; where an error is
// reachable, returns the values of the inputs (HornClause::inputs, input_arrays; in a merged block only those
// whose guards hold, the branches the run takes) along the path of its derivation, with the parameters of a
// symbolic encoding (UINT_MAX, large constants) at their real values. None, with why, when Spacer finds no
// error, the derivation is longer than max_steps clauses, or a query fails; an array whose model is not a
// constant array with stores, or a finite function, is left out. Interrupting ctx (a watchdog) ends it with a
// z3::exception.
CounterexampleSearch CounterexampleInputs(const HornSystem& sys, z3::context& ctx,
                                          const std::vector<std::pair<std::string, bool>>& params,
                                          size_t max_steps = 100000);

// Gives the first value of each scalar that stands for an array cell in prog (Program::cell_scalars) to that
// cell of values.arrays, where the counterexample has no value for the cell: the original program, where
// the replay runs, reads the cell, not the scalar.
void CellScalarsToArrays(const Program& prog, CounterexampleValues& values);

// Runs prog on a counterexample's values: each site's values in their order (0 past their end), and the
// arrays' cells where the run reads them before writing them (0 in arrays it does not know). Limits as
// Interpret's; the run reaching an error (Outcome::kError) confirms the counterexample on prog.
RunResult ReplayCounterexample(const Program& prog, const CounterexampleValues& values, long max_steps,
                               double max_seconds, const std::atomic<bool>* cancel = nullptr);

}  // namespace fusion
