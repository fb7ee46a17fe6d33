// Loop acceleration for concrete runs: a jump over the iterations of a loop that all take one path through
// its body, where that path moves the scalar variables by the same amounts each time (`x++`, `x += 2`,
// `z--` under `if (x >= 5000000)`). The interpreter then runs a loop of 10^8 iterations in a few of them,
// which turns programs that read nothing into proofs by their only run (verifier.h) and finds the bugs at
// the end of such long runs. The jump is exact: every value the skipped iterations compute is an affine
// function of the iteration number, every comparison they make keeps its truth, no value leaves its type's
// range (a wrap-around is taken into account: it stays in one window) and no signed value overflows; where
// any of that is not so, there is no jump, and the interpreter runs the iterations one by one.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fusion/ast.h"

namespace fusion {

// What a jump does to the state: `iterations` times the loop's iteration (its condition, body and step),
// each adding `moves` to the variables named; `statements` is the count of one iteration, for the step count.
struct LoopJump {
  Int128 iterations = 0;
  std::vector<std::pair<std::string, Int128>> moves;
  long statements = 0;
};

// A scalar's current value; nothing where the jump may not read it (it holds no value yet, or an
// uninitialised value that reading would count as reading an input).
using ScalarValue = std::function<std::optional<Int128>(const std::string&)>;

// An array cell's current value (array, index); nothing where it holds none yet.
using CellValue = std::function<std::optional<Int128>(const std::string&, long long)>;

// Plans jumps over the iterations of one loop (kLoop). What the loop may do at all is worked out once: its
// condition, body and step write no array cell, read no input and hold no loop.
class LoopAccelerator {
 public:
  explicit LoopAccelerator(const StmtPtr& loop);

  // Whether any jump over this loop is possible.
  bool possible() const { return possible_; }

  // The jump from the state before the loop condition is tested: over every iteration, at least two,
  // that takes the path the next one takes; nothing where there is no such jump (the next iteration
  // leaves the loop, breaks, stops the run or is not a translation of the state; or the path changes
  // after one iteration; or it never does: a loop that runs forever is left to the step limit).
  std::optional<LoopJump> Plan(const ScalarValue& scalar, const CellValue& cell) const;

 private:
  const Stmt& loop_;
  bool possible_ = true;
  std::vector<std::string> written_;  // the scalars the loop assigns
};

}  // namespace fusion
