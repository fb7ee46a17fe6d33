// An interpreter of the C subset on concrete values. It replays counterexamples: a `false` verdict is
// given only when the original program, run here on concrete nondeterministic values, reaches an error.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fusion/ast.h"

namespace fusion {

// How a run ended.
enum class Outcome {
  kFinished,    // main returned; no error
  kError,       // an assertion failed or reach_error() was called
  kBlocked,     // an assume failed or abort() was called
  kUndefined,   // division by zero, or a value past 2^125 (undefined behaviour): the run says nothing
  kStepLimit,   // the step or time budget ran out
};

// The end of one run and the nondeterministic values it consumed, in order.
struct RunResult {
  Outcome outcome = Outcome::kFinished;
  std::vector<Int128> inputs;
  std::vector<InputSite> input_sites;  // where each of inputs was read (a cell's name is `a[3]`)
  // Statements executed; a jump over iterations of a loop (acceleration.h) counts as one iteration.
  long steps = 0;
  // Whether the run read a nondeterministic value. An uninitialised variable's value (a havoc) is drawn and
  // logged among the inputs when it is declared, but one that is overwritten before any read makes no
  // difference to the run: without any other, every run of the program is this one.
  bool read_input = false;
  // Whether one of those values was an uninitialised variable's or cell's (not a __VERIFIER_nondet_* call's).
  bool read_uninitialised = false;
  // A signed operation left its type's range (undefined behaviour in C). The run computes on as the integers
  // do, which is what the clauses assume, but what the compiled program does there is anyone's guess. A value
  // past 2^125 in magnitude ends the run (kUndefined).
  bool signed_overflow = false;
};

// Supplies the next nondeterministic value of a type read at a site (uninitialised variables and array cells
// too); the interpreter converts it to the type.
using InputSource = std::function<Int128(IntType, const InputSite&)>;

// Optionally supplies the value of an array cell read before anything was written to it (array, index);
// nothing leaves it to the InputSource. A replayed counterexample knows the cells' values, not the order
// in which the run reads them.
using CellSource = std::function<std::optional<Int128>(const std::string&, long long)>;

// Runs the program with at most max_steps statements executed, for at most max_seconds of wall-clock time
// and (when max_cpu_seconds > 0) max_cpu_seconds of the CPU time of the thread that runs it, counted from the first
// nondeterministic value it reads (until then every run repeats the same steps: a run stopped there leaves
// its time to others that would stop there too); a run also ends (kStepLimit) soon after *cancel becomes
// true, so that a verifier thread can stop it. Cells that `cells` knows take its values (and
// are logged among the inputs like any other).
RunResult Interpret(const Program& prog, const InputSource& inputs, long max_steps, double max_seconds = 1e9,
                    const std::atomic<bool>* cancel = nullptr, double max_cpu_seconds = 0,
                    const CellSource& cells = nullptr);

// "finished", "error", ...
std::string OutcomeName(Outcome o);

}  // namespace fusion
