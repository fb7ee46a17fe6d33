// An independent check of a schedule. It shares no code with the planners or the simulator beyond the
// graph types, so that a bug in either cannot hide behind the same bug here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "remat/graph.h"

namespace remat {

// Everything wrong with a schedule; empty `errors` means it is valid and its reported figures are right.
struct ScheduleReport {
  std::vector<std::string> errors;  // one line each, naming steps and nodes
  Bytes peak = 0;                   // recomputed here
  Cost cost = 0;                    // recomputed here
  bool budget_met = true;           // peak <= budget (true when no budget was given)

  bool ok() const { return errors.empty(); }
};

// What a schedule claims about itself (each optional: unchecked when absent).
struct ScheduleClaims {
  std::optional<Bytes> peak = {};
  std::optional<Cost> cost = {};
  std::optional<Bytes> budget = {};
};

// Checks that every step names a node, that every value a step reads was produced by an earlier step (or
// is a graph input), that every node runs at least once and every non-recomputable node exactly once;
// recomputes M (in an aliased graph, remat/views.h, an owner's production lives as long as a view made from
// it does) and C and compares them with the claims (cost to a relative 1e-9); reports whether the
// budget is met (a missed budget is not an error: the caller decides).
ScheduleReport ValidateSchedule(const Graph& graph, const Sequence& sequence, const ScheduleClaims& claims);

}  // namespace remat
