#include "remat/planner.h"

#include <fmt/core.h>

#include <charconv>
#include <cmath>
#include <stdexcept>

#include "common/error.h"
#include "common/stopwatch.h"
#include "remat/chen.h"
#include "remat/fastsa.h"
#include "remat/milp.h"
#include "remat/simulator.h"

namespace remat {

const std::vector<std::string>& RematMethods() {
  static const std::vector<std::string> kMethods{"fastsa", "none", "chen", "milp"};
  return kMethods;
}

RematResult PlanRemat(const Graph& graph, const RematOptions& options, common::Progress& progress) {
  RematResult result;
  result.method = options.method;
  result.budget = options.budget;
  const Evaluation reference = Simulate(graph, graph.order);
  result.reference_peak = reference.peak;
  result.reference_cost = reference.cost;
  common::Stopwatch clock;
  result.status = "done";
  if (options.method == "fastsa") {
    const FastsaResult run = RunFastsa(graph,
                                       {.budget = options.budget,
                                        .time_limit_s = options.time_limit_s,
                                        .seed = options.seed,
                                        .reorder_only = options.reorder_only},
                                       progress);
    result.sequence = run.sequence;
    result.moves = run.moves;
    result.status = common::ToString(run.stop_reason);
  } else if (options.method == "none") {
    result.sequence = graph.order;
  } else if (options.method == "chen") {
    result.sequence = ChenSchedule(graph, options.budget);
  } else if (options.method == "milp") {
    MilpResult run = SolveCheckmateMilp(graph, options.budget, options.time_limit_s);
    result.status = run.status;
    // Without a solution the reference order stands in, reported as missing the budget.
    result.sequence = run.sequence.empty() ? graph.order : std::move(run.sequence);
  } else {
    throw std::invalid_argument("unknown method '" + options.method + "'");
  }
  result.seconds = clock.Seconds();
  const Evaluation planned = Simulate(graph, result.sequence);
  result.peak = planned.peak;
  result.cost = planned.cost;
  result.budget_met = result.peak <= options.budget;
  return result;
}

Bytes ParseBudget(const std::string& text, Bytes reference_peak, const std::string& source) {
  const bool percent = !text.empty() && text.back() == '%';
  const std::string number = percent ? text.substr(0, text.size() - 1) : text;
  if (percent) {
    double value = 0;
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (error != std::errc() || end != number.data() + number.size() || !(value > 0)) {
      throw common::InputError(fmt::format("{}: '{}' is not a positive percentage", source, text));
    }
    int64_t whole = 0;
    const auto [whole_end, whole_error] = std::from_chars(number.data(), number.data() + number.size(), whole);
    // Whole percentages are computed exactly in integers: ceil(peak × p / 100).
    if (whole_error == std::errc() && whole_end == number.data() + number.size()) {
      return (reference_peak * whole + 99) / 100;
    }
    return static_cast<Bytes>(std::ceil(static_cast<long double>(reference_peak) * value / 100));
  }
  Bytes bytes = 0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), bytes);
  if (error != std::errc() || end != number.data() + number.size() || bytes < 0) {
    throw common::InputError(fmt::format("{}: '{}' is neither bytes nor a percentage like 80%", source, text));
  }
  return bytes;
}

}  // namespace remat
