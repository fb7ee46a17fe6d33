// Checkmate's MILP (Jain et al., MLSys 2020) over the reference order, solved with CBC: the optimality
// reference for graphs of up to a few hundred nodes.
#pragma once

#include <string>

#include "remat/graph.h"

namespace remat {

// A MILP run: the schedule of the best solution CBC found (empty when none) and how it ended.
struct MilpResult {
  Sequence sequence;
  std::string status;  // "optimal", "feasible" (time limit), "infeasible", "no solution" (time limit)
};

// Stage t of the reference order computes node t and may recompute any earlier node; R[t][i] (run i in
// stage t), S[t][i] (keep i into stage t) and FREE[t][i][k] (free i after step k) are binaries; the
// memory after each step stays within `budget`; the cost of the runs is minimised. A node's outputs are
// kept and freed together, except graph outputs, which stay from their node's single run to the end
// (nodes producing them, like non-recomputable ones, run once). Returns within `time_limit_s` (plus the
// time to build the model and to end the solver's process) with the best solution found by then: CBC runs in a
// child process that is killed at the deadline.
MilpResult SolveCheckmateMilp(const Graph& graph, Bytes budget, double time_limit_s);

}  // namespace remat
