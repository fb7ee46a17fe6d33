// The Z3 driver: solves the Horn clauses of one program with Spacer under one option set and a time
// limit, and re-checks a `safe` answer by proving the returned invariants inductive with plain SMT queries.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "fusion/ast.h"

namespace fusion {

// One Spacer configuration of the portfolio: a name for reports and the solver parameters it sets.
struct OptionSet {
  std::string name;
  std::vector<std::pair<std::string, bool>> params;
};

// The option sets the portfolio tries, most useful first (see docs/loopfuse.md for why these).
const std::vector<OptionSet>& Portfolio();

// What one solver run concluded.
enum class SolveStatus {
  kSafe,     // invariants found and re-checked inductive
  kUnsafe,   // Spacer found the error reachable (to be confirmed by replay)
  kUnknown,  // time-out, solver gave up, or the invariants did not check
};

// The result of one run: status, why (for unknown), the invariants per loop head, and the time taken.
struct SolveResult {
  SolveStatus status = SolveStatus::kUnknown;
  std::string reason;
  std::vector<std::string> invariants;
  double seconds = 0;
};

// Encodes and solves one program with one option set within time_limit_s seconds of wall time.
SolveResult Solve(const Program& prog, const OptionSet& options, double time_limit_s);

}  // namespace fusion
