// The recomputation planners behind one entry point (FastSA and the baselines), with the figures every
// report needs: reference and planned peak and cost, and whether the budget was met.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/progress.h"
#include "remat/fastsa.h"
#include "remat/graph.h"

namespace remat {

// What to run and for how long.
struct RematOptions {
  std::string method = "fastsa";  // one of RematMethods()
  Bytes budget = 0;               // peak memory to reach
  double time_limit_s = 10;
  double effort_s = 0;            // FastsaOptions::effort_s
  uint64_t seed = 1;
  bool reorder_only = false;      // FastSA without recomputation
  uint64_t moves = 0;             // FastSA's move budget; 0: DefaultFastsaMoves
  double soft_peak = kDefaultSoftPeak;  // FastsaOptions::soft_peak
  bool chain_lookahead = false;         // FastsaOptions::chain_lookahead
  double cheaper_share = kDefaultCheaperShare;  // FastsaOptions::cheaper_share
  double lookahead_share = kDefaultLookaheadShare;  // FastsaOptions::lookahead_share
  std::optional<Bytes> lower_bound = std::nullopt;  // FastsaOptions::lower_bound
};

// A schedule and its figures.
struct RematResult {
  Sequence sequence;
  std::string method;
  Bytes budget = 0;
  Bytes reference_peak = 0;   // the reference order, no recomputation
  Cost reference_cost = 0;
  Bytes peak = 0;
  Cost cost = 0;
  bool budget_met = false;
  double seconds = 0;
  uint64_t moves = 0;         // FastSA moves proposed (0 for other methods)
  double soft_peak = 0;       // FastSA: the soft peak its rounds annealed (0: the peak itself)
  bool chain_lookahead = false;  // FastSA: whether its chained add moves looked back (FastsaResult)
  std::string status;         // how the method ended: "target", "moves", "time", "interrupted" (FastSA);
                              // "optimal", "feasible", "infeasible", "no solution" (MILP); "done"
};

// Method names accepted by RematOptions::method, FastSA first.
const std::vector<std::string>& RematMethods();

// Runs one method. Throws std::invalid_argument for an unknown method name.
RematResult PlanRemat(const Graph& graph, const RematOptions& options, common::Progress& progress);

// Goes on from `start`, a valid schedule of `graph`, towards `options.budget` (remat::ContinueFastsa; FastSA
// only). Throws std::invalid_argument for another method.
RematResult ContinueRemat(const Graph& graph, const Sequence& start, const RematOptions& options,
                          common::Progress& progress);

// Parses a budget: bytes ("123456789", or with a unit as common::ParseByteCount reads them: "512MiB",
// "80GB", rounded down) or a percentage of `reference_peak` ("80%", rounded up, as Moccasin's budgets
// are). `source` names the option in the InputError thrown for anything else.
Bytes ParseBudget(const std::string& text, Bytes reference_peak, const std::string& source);

}  // namespace remat
