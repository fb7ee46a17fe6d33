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
  kUndefined,   // division by zero (undefined behaviour): the run says nothing
  kStepLimit,   // the step or time budget ran out
};

// The end of one run and the nondeterministic values it consumed, in order.
struct RunResult {
  Outcome outcome = Outcome::kFinished;
  std::vector<Int128> inputs;
  long steps = 0;
};

// Supplies the next nondeterministic value of a type read at a site (uninitialised variables and array cells
// too); the interpreter converts it to the type.
using InputSource = std::function<Int128(IntType, const InputSite&)>;

// Optionally supplies the value of an array cell read before anything was written to it (array, index);
// nothing leaves it to the InputSource. A replayed counterexample knows the cells' values, not the order
// in which the run reads them.
using CellSource = std::function<std::optional<Int128>(const std::string&, long long)>;

// Runs the program with at most max_steps statements executed, for at most max_seconds of wall-clock time
// and (when max_cpu_seconds > 0) of the calling thread's CPU time; a run also ends (kStepLimit) soon after
// *cancel becomes true, so that a verifier thread can stop it. Cells that `cells` knows take its values (and
// are logged among the inputs like any other).
RunResult Interpret(const Program& prog, const InputSource& inputs, long max_steps, double max_seconds = 1e9,
                    const std::atomic<bool>* cancel = nullptr, double max_cpu_seconds = 0,
                    const CellSource& cells = nullptr);

// "finished", "error", ...
std::string OutcomeName(Outcome o);

}  // namespace fusion
