#include "remat/planner.h"

#include <fmt/core.h>

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "common/byte_count.h"
#include "common/error.h"
#include "common/stopwatch.h"
#include "remat/chen.h"
#include "remat/fastsa.h"
#include "remat/milp.h"
#include "remat/simulator.h"
#include "remat/views.h"

namespace remat {

const std::vector<std::string>& RematMethods() {
  static const std::vector<std::string> kMethods{"fastsa", "none", "chen", "milp"};
  return kMethods;
}

namespace {

// A result for `options` with its reference figures, before a method runs.
RematResult StartResult(const Graph& graph, const RematOptions& options) {
  RematResult result;
  result.method = options.method;
  result.budget = options.budget;
  const Evaluation reference = Simulate(graph, graph.order);
  result.reference_peak = reference.peak;
  result.reference_cost = reference.cost;
  result.status = "done";
  return result;
}

// FastSA's options for `options`.
FastsaOptions ToFastsa(const RematOptions& options) {
  return {.budget = options.budget,
          .time_limit_s = options.time_limit_s,
          .effort_s = options.effort_s,
          .seed = options.seed,
          .reorder_only = options.reorder_only,
          .moves = options.moves,
          .soft_peak = options.soft_peak,
          .chain_lookahead = options.chain_lookahead,
          .cheaper_share = options.cheaper_share,
          .lookahead_share = options.lookahead_share,
          .lower_bound = options.lower_bound};
}

// Takes FastSA's schedule and figures into `result`.
void TakeFastsa(FastsaResult run, RematResult& result) {
  result.sequence = std::move(run.sequence);
  result.moves = run.moves;
  result.soft_peak = run.soft_peak;
  result.chain_lookahead = run.chain_lookahead;
  result.status = common::ToString(run.stop_reason);
}

// Re-makes the stale views of `result.sequence` and fills in its figures.
void FinishResult(const Graph& graph, const common::Stopwatch& clock, RematResult& result) {
  result.sequence = RefreshViews(graph, result.sequence);
  result.seconds = clock.Seconds();
  const Evaluation planned = Simulate(graph, result.sequence);
  result.peak = planned.peak;
  result.cost = planned.cost;
  result.budget_met = result.peak <= result.budget;
}

}  // namespace

RematResult PlanRemat(const Graph& graph, const RematOptions& options, common::Progress& progress) {
  RematResult result = StartResult(graph, options);
  common::Stopwatch clock;
  if (options.method == "fastsa") {
    TakeFastsa(RunFastsa(graph, ToFastsa(options), progress), result);
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
  FinishResult(graph, clock, result);
  return result;
}

RematResult ContinueRemat(const Graph& graph, const Sequence& start, const RematOptions& options,
                          common::Progress& progress) {
  if (options.method != "fastsa") {
    throw std::invalid_argument("only FastSA goes on from a schedule, not '" + options.method + "'");
  }
  RematResult result = StartResult(graph, options);
  common::Stopwatch clock;
  TakeFastsa(ContinueFastsa(graph, start, ToFastsa(options), progress), result);
  FinishResult(graph, clock, result);
  return result;
}

Bytes ParseBudget(const std::string& text, Bytes reference_peak, const std::string& source) {
  const auto too_large = [&] {
    return common::InputError(fmt::format("{}: '{}' is more than 2^63 - 1 bytes", source, text));
  };
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
    // Whole percentages are computed exactly in integers: ceil(peak × p / 100), split as
    // (peak / 100) × p + ceil((peak % 100) × p / 100) so that no intermediate overflows unless the result does.
    if (whole_error == std::errc() && whole_end == number.data() + number.size()) {
      Bytes high = 0, low = 0, budget = 0;
      if (__builtin_mul_overflow(reference_peak / 100, whole, &high) ||
          __builtin_mul_overflow(reference_peak % 100, whole, &low) ||
          __builtin_add_overflow(high, low / 100 + (low % 100 != 0), &budget)) {
        throw too_large();
      }
      return budget;
    }
    const long double budget = std::ceil(static_cast<long double>(reference_peak) * value / 100);
    // The conversion below is defined only for values that fit (an infinite percentage does not).
    if (!(budget < 0x1p63L)) throw too_large();
    return static_cast<Bytes>(budget);
  }
  const std::optional<long double> bytes = common::ParseByteCount(text);
  if (!bytes) {
    throw common::InputError(
        fmt::format("{}: '{}' is neither bytes (1048576, 512MiB, 80GB) nor a percentage like 80%", source, text));
  }
  if (!(*bytes < 0x1p63L)) throw too_large();
  return static_cast<Bytes>(*bytes);
}

}  // namespace remat
