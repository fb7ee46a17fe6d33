// The checks of the recomputation fuzz targets (fuzz/harness.h): graph_reader and remat_planners.
#include <fmt/core.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "alloc/planner.h"
#include "alloc/problem.h"
#include "alloc/validator.h"
#include "common/error.h"
#include "common/progress.h"
#include "fuzz/harness.h"
#include "remat/planner.h"
#include "remat/buffers.h"
#include "remat/fastsa.h"
#include "remat/reader.h"
#include "remat/simulator.h"
#include "remat/validator.h"
#include "remat/views.h"
#include "tools/planning.h"

namespace fuzz {

namespace {

// The reference order and Chen's schedules (at the reference peak and at half of it) validate.
void CheckSchedules(const remat::Graph& graph) {
  const remat::Evaluation reference = remat::Simulate(graph, graph.order);
  const remat::ScheduleReport report =
      remat::ValidateSchedule(graph, graph.order, {.peak = reference.peak, .cost = reference.cost});
  Require(report.ok(), "the reference order validates: " + (report.ok() ? "" : report.errors.front()));
  common::Progress progress(false);
  remat::RematOptions options;
  options.method = "chen";
  for (const remat::Bytes budget : {reference.peak, reference.peak / 2}) {
    options.budget = budget;
    const remat::RematResult chen = remat::PlanRemat(graph, options, progress);
    const remat::ScheduleReport chen_report =
        remat::ValidateSchedule(graph, chen.sequence, {.peak = chen.peak, .cost = chen.cost});
    Require(chen_report.ok(), "Chen's schedule validates: " + (chen_report.ok() ? "" : chen_report.errors.front()));
  }
}

// `graph` with its views counted as their owners' memory (remat::AliasViews), when it has views. AliasViews
// accepts every graph the reader accepts: an InputError from it is a bug the fuzzer reports.
std::optional<remat::Graph> Aliased(const remat::Graph& graph) {
  if (std::none_of(graph.values.begin(), graph.values.end(), [](const remat::Value& v) { return v.view_of >= 0; })) {
    return std::nullopt;
  }
  return remat::AliasViews(graph);
}

// `graph.order` with adjacent nodes swapped where the bytes say so and the second does not read the first:
// a reference order other than the reader's default (the smallest ready index first).
remat::Sequence SwappedOrder(const remat::Graph& graph, ByteReader& in) {
  remat::Sequence order = graph.order;
  for (size_t i = 0; i + 1 < order.size(); ++i) {
    const std::vector<int>& inputs = graph.nodes[order[i + 1]].inputs;
    const bool reads =
        std::any_of(inputs.begin(), inputs.end(), [&](int v) { return graph.values[v].producer == order[i]; });
    if (!reads && in.Next() % 2 == 1) std::swap(order[i], order[i + 1]);
  }
  return order;
}

// A small graph decoded from the bytes: up to 16 nodes in id order, each reading up to three earlier values
// (graph inputs and tangents among them), writing one or two, with zero costs and sizes, workspace, run-once
// nodes, views and several graph outputs: every feature of remat-graph/v1 the planners see, within what the
// reader accepts (remat::ParseGraph).
remat::Graph DecodeGraph(ByteReader& in) {
  remat::Graph graph;
  graph.name = "fuzz";
  const unsigned shape = in.Next();
  const int nodes = 1 + static_cast<int>(shape % 16);
  const auto add_value = [&](remat::ValueKind kind, unsigned size) {
    remat::Value value;
    value.name = fmt::format("v{}", graph.values.size());
    value.size = size;
    value.kind = kind;
    graph.values.push_back(std::move(value));
    return static_cast<int>(graph.values.size()) - 1;
  };
  for (unsigned k = 0; k < (shape >> 4) % 3; ++k) add_value(remat::ValueKind::kInput, in.Next() % 32);
  if (shape & 0x40) add_value(remat::ValueKind::kTangent, in.Next() % 8);
  for (int u = 0; u < nodes; ++u) {
    remat::Node node;
    node.key = fmt::format("{}", u);
    node.name = fmt::format("n{}", u);
    const unsigned flags = in.Next();
    node.cost = flags % 8;
    node.recomputable = (flags & 0x08) == 0;
    if (flags & 0x10) node.workspace = in.Next() % 16;
    const int existing = static_cast<int>(graph.values.size());
    for (unsigned k = 0; k < (flags >> 5) % 4 && existing > 0; ++k) {
      node.inputs.push_back(existing - 1 - static_cast<int>(in.Next() % std::min(existing, 8)));
    }
    std::sort(node.inputs.begin(), node.inputs.end());
    node.inputs.erase(std::unique(node.inputs.begin(), node.inputs.end()), node.inputs.end());
    const unsigned outputs = in.Next();
    for (unsigned k = 0; k <= (outputs & 1); ++k) {
      const int v = add_value(remat::ValueKind::kIntermediate, (outputs >> 1) % 64 + k);
      graph.values[v].graph_output = (outputs & 0x80) != 0 && k == 0;
      // A view of a value the node reads, or of that value's storage owner (made from another view of it),
      // as the reader requires.
      const unsigned view = in.Next();
      if ((view % 4 == 1 || view % 4 == 2) && !node.inputs.empty()) {
        const int base = node.inputs[(view >> 2) % node.inputs.size()];
        graph.values[v].view_of = view % 4 == 1 ? base : remat::StorageOwner(graph, base);
      }
      node.outputs.push_back(v);
    }
    graph.nodes.push_back(std::move(node));
  }
  graph.values.back().graph_output = true;
  remat::LinkAndCheck(graph, graph.name);
  if (shape & 0x80) {
    graph.order = SwappedOrder(graph, in);
    remat::LinkAndCheck(graph, graph.name);  // which checks that it is a topological order
  }
  return graph;
}

// The checks every schedule a planner returns passes: the independent validator agrees with its figures, a
// refresh of its views changes nothing, its peak is not below the graph's lower bound, and its buffers have
// that peak and pack validly.
void CheckResult(const remat::Graph& graph, const remat::RematResult& result, const std::string& what) {
  const remat::ScheduleReport report =
      remat::ValidateSchedule(graph, result.sequence,
                              {.peak = result.peak, .cost = result.cost, .budget = result.budget});
  Require(report.ok(), what + " validates: " + (report.ok() ? "" : report.errors.front()));
  Require(report.budget_met == result.budget_met, what + " reports whether it met its budget");
  Require(remat::RefreshViews(graph, result.sequence) == result.sequence, what + " has no view left to refresh");
  Require(result.peak >= graph.PeakLowerBound(),
          fmt::format("{} peak {} is not below the lower bound {}", what, result.peak, graph.PeakLowerBound()));
  const alloc::Problem buffers = remat::ScheduleToBuffers(graph, result.sequence);
  Require(alloc::PeakLoad(buffers) == result.peak,
          fmt::format("{} buffers' peak load {} is the schedule's peak {}", what, alloc::PeakLoad(buffers),
                      result.peak));
  common::Progress progress(false);
  alloc::PlanOptions first_fit;
  first_fit.method = "first-fit";
  const alloc::PlanResult arena = alloc::PlanAllocation(buffers, first_fit, progress);
  const alloc::ValidationReport packed = alloc::Validate(buffers, arena.solution);
  Require(packed.ok(), what + " arena validates: " + (packed.ok() ? "" : packed.errors.front()));
}

// FastSA on `graph` at a budget and with moves decoded from the bytes, checked (CheckResult), repeatable,
// no worse than the reference order, and the baselines (none, Chen) at that budget checked; then going on
// from its schedule towards a lower budget, checked, and no worse than that schedule.
void CheckFastsa(const remat::Graph& graph, ByteReader& in) {
  common::Progress progress(false);
  const remat::Evaluation reference = remat::Simulate(graph, graph.order);
  const remat::Bytes bound = graph.PeakLowerBound();
  Require(bound <= reference.peak, fmt::format("lower bound {} <= reference peak {}", bound, reference.peak));
  remat::RematOptions options;
  const unsigned flags = in.Next();
  // From below the lower bound to above the reference peak.
  options.budget = bound - 1 + (reference.peak - bound + 2) * static_cast<remat::Bytes>(in.Next()) / 255;
  options.moves = 50 + 20 * static_cast<uint64_t>(in.Next());
  options.seed = in.Next();
  options.reorder_only = (flags & 1) != 0;
  options.soft_peak = flags & 2 ? remat::kDefaultSoftPeak : 0;
  options.chain_lookahead = (flags & 4) != 0;
  options.time_limit_s = 1e6;  // the moves end every run, so that it repeats
  const remat::RematResult result = remat::PlanRemat(graph, options, progress);
  const std::string what =
      fmt::format("FastSA ({} views) at budget {} ({} moves, seed {}{}{})", remat::ViewAccounting(graph),
                  options.budget, options.moves, options.seed, options.reorder_only ? ", reordering only" : "",
                  options.chain_lookahead ? ", chain lookahead" : "");
  CheckResult(graph, result, what);
  Require(result.sequence == remat::PlanRemat(graph, options, progress).sequence, what + " repeats");
  for (const char* baseline : {"none", "chen"}) {
    remat::RematOptions other = options;
    other.method = baseline;
    CheckResult(graph, remat::PlanRemat(graph, other, progress),
                fmt::format("{} at budget {}", baseline, options.budget));
  }
  if (reference.peak <= options.budget) {
    Require(result.budget_met, what + " meets a budget the reference order meets");
    Require(result.cost <= reference.cost * (1 + 1e-9), what + " costs no more than the reference order within it");
  }
  Require(result.peak <= std::max(options.budget, reference.peak),
          fmt::format("{} peaks at {}, above the budget and the reference order's {}", what, result.peak,
                      reference.peak));
  if (options.reorder_only) return;
  remat::RematOptions lower = options;
  lower.budget = std::max<remat::Bytes>(bound, result.peak - 1 - (result.peak - bound) * in.Next() / 255);
  const remat::RematResult gone_on = remat::ContinueRemat(graph, result.sequence, lower, progress);
  const std::string going_on = fmt::format("{}, going on from its schedule (peak {}) to budget {}", what, result.peak,
                                           lower.budget);
  CheckResult(graph, gone_on, going_on);
  // Never worse than where it started: within the budget no costlier, over it no higher.
  if (result.peak <= lower.budget) {
    Require(gone_on.budget_met, fmt::format("{} keeps the budget: peak {}", going_on, gone_on.peak));
    Require(gone_on.cost <= result.cost * (1 + 1e-9),
            fmt::format("{} costs no more: {} against {}", going_on, gone_on.cost, result.cost));
  } else {
    Require(gone_on.budget_met || gone_on.peak <= result.peak,
            fmt::format("{} peaks no higher: {}", going_on, gone_on.peak));
  }
}

// memplan plan's pipeline (tools::PlanJointly) on `graph` at a budget decoded from the bytes, from the lower
// bound to above the reference peak, with FastSA's moves decoded too (or Chen's schedule): its schedule and
// its arena validate, the arena places the schedule's buffers, the budget verdict is the arena's, and the
// kept try is the first whose arena fits the budget, else the first with the lowest arena.
void CheckJointPlan(const remat::Graph& graph, ByteReader& in) {
  const unsigned flags = in.Next();
  if (flags % 4 == 3) return;
  const remat::Evaluation reference = remat::Simulate(graph, graph.order);
  const remat::Bytes bound = graph.PeakLowerBound();
  const remat::Bytes budget =
      std::max<remat::Bytes>(1, bound + (reference.peak - bound + 1) * static_cast<remat::Bytes>(in.Next()) / 255);
  remat::RematOptions options;
  options.method = flags % 4 == 2 ? "chen" : "fastsa";
  options.moves = 50 + 20 * static_cast<uint64_t>(in.Next());
  options.seed = in.Next();
  // The arena's budgets follow the limit (FastSA's are the moves): short, so that an arena that does not fit
  // costs little. Under ASan the clock may cut a stage; the checks hold either way.
  options.time_limit_s = 0.1;
  const tools::JointPlan joint = tools::PlanJointly(graph, std::to_string(budget), bound, options, true);
  const remat::RematResult& schedule = joint.schedule;
  const std::string what = fmt::format("memplan plan ({}, {} views) at budget {} ({} moves, seed {})", options.method,
                                       remat::ViewAccounting(graph), budget, options.moves, options.seed);
  const remat::ScheduleReport report =
      remat::ValidateSchedule(graph, schedule.sequence, {.peak = schedule.peak, .cost = schedule.cost});
  Require(report.ok(), what + ": its schedule validates: " + (report.ok() ? "" : report.errors.front()));
  Require(remat::RefreshViews(graph, schedule.sequence) == schedule.sequence, what + ": no view left to refresh");
  const alloc::Problem buffers = remat::ScheduleToBuffers(graph, schedule.sequence);
  Require(buffers.buffers.size() == joint.buffers.buffers.size() &&
              std::equal(buffers.buffers.begin(), buffers.buffers.end(), joint.buffers.buffers.begin(),
                         [](const alloc::Buffer& a, const alloc::Buffer& b) {
                           return a.id == b.id && a.lower == b.lower && a.upper == b.upper && a.size == b.size;
                         }),
          what + ": the arena's buffers are its schedule's");
  const alloc::ValidationReport packed = alloc::Validate(buffers, joint.arena.solution);
  Require(packed.ok(), what + ": its arena validates: " + (packed.ok() ? "" : packed.errors.front()));
  Require(joint.arena.height == alloc::Height(buffers, joint.arena.solution) && joint.arena.height >= schedule.peak,
          fmt::format("{}: arena height {} is its plan's, not below the schedule's peak {}", what, joint.arena.height,
                      schedule.peak));
  Require(schedule.budget == budget && schedule.budget_met == (joint.arena.height <= budget),
          fmt::format("{}: the budget verdict ({}) is the arena's ({})", what, schedule.budget_met,
                      joint.arena.height));
  Require(!joint.tries.empty() && joint.tries.size() <= 4 && !joint.tries.front().gone_on &&
              (options.method == "fastsa" || joint.tries.size() == 1),
          fmt::format("{}: {} tries, the first planned from the reference order", what, joint.tries.size()));
  size_t kept = 0;
  for (size_t t = 1; t < joint.tries.size(); ++t) {
    const alloc::Bytes arena = joint.tries[t].arena_height;
    if (joint.tries[kept].arena_height > budget && (arena <= budget || arena < joint.tries[kept].arena_height)) {
      kept = t;
    }
    Require(joint.tries[t - 1].arena_height > budget, fmt::format("{}: no try after one that fits ({})", what, t));
  }
  const tools::JointTry& expected = joint.tries[kept];
  Require(expected.peak == schedule.peak && expected.arena_height == joint.arena.height &&
              expected.cost == schedule.cost,
          fmt::format("{}: keeps try {} of {} (peak {}, arena {}), not peak {}, arena {}", what, kept + 1,
                      joint.tries.size(), expected.peak, expected.arena_height, schedule.peak, joint.arena.height));
  Require(joint.reserved_schedule >= schedule.peak && joint.reserved_reference >= reference.peak,
          fmt::format("{}: the caching allocator reserves {} for the schedule (peak {}) and {} for the reference "
                      "order (peak {})", what, joint.reserved_schedule, schedule.peak, joint.reserved_reference,
                      reference.peak));
}

}  // namespace

void CheckGraphReader(std::string_view data) {
  remat::Graph graph;
  try {
    graph = remat::ParseGraph("fuzz.json", data);
  } catch (const common::InputError&) {
    return;
  }
  if (graph.nodes.size() > 200) return;
  CheckSchedules(graph);
  if (const std::optional<remat::Graph> aliased = Aliased(graph)) CheckSchedules(*aliased);
}

void CheckRematPlanners(std::string_view data) {
  ByteReader in(data);
  const remat::Graph graph = DecodeGraph(in);
  const std::optional<remat::Graph> aliased = Aliased(graph);
  CheckFastsa(graph, in);
  if (aliased) CheckFastsa(*aliased, in);
  CheckJointPlan(graph, in);
  if (aliased) CheckJointPlan(*aliased, in);
}

}  // namespace fuzz
