// The recomputation subcommands of memplan: remat (FastSA and the baselines) and plan (remat, then the
// allocation planner on the schedule's buffers).
#include <fmt/core.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "alloc/converter.h"
#include "alloc/planner.h"
#include "common/atomic_file.h"
#include "common/exit_codes.h"
#include "common/interrupt.h"
#include "remat/buffers.h"
#include "remat/planner.h"
#include "remat/reader.h"
#include "remat/schedule_io.h"
#include "remat/simulator.h"
#include "remat/svg.h"
#include "remat/views.h"
#include "report/format.h"
#include "tools/cli_checks.h"
#include "tools/commands.h"
#include "tools/planning.h"

namespace tools {
namespace {

// Options of `memplan remat`.
struct RematCommand {
  std::string graph_path;
  std::string budget = "100%";
  std::string output_path;
  std::string buffers_path;
  remat::RematOptions plan;
  std::string svg_path;
  bool json = false;
  bool validate = false;
  bool quiet = false;
  bool alias_views = false;  // --views-alias
};

// The command's graph, its views counted as their owners' memory with --views-alias.
remat::Graph ReadCommandGraph(const RematCommand& command) {
  remat::Graph graph = remat::ReadGraph(command.graph_path);
  return command.alias_views ? remat::AliasViews(std::move(graph)) : graph;
}

int RunRemat(const RematCommand& command) {
  const remat::Graph graph = ReadCommandGraph(command);
  const remat::Bytes lower_bound = graph.PeakLowerBound();
  const remat::RematResult result =
      Plan(graph, command.budget, lower_bound, command.plan, command.quiet || command.json);
  if (command.validate) CheckResult(graph, result);
  NoteMissedBudget(result, lower_bound, command.plan);
  if (!command.output_path.empty()) {
    common::WriteFileAtomically(command.output_path, remat::FormatSchedule(graph, result));
  }
  if (!command.buffers_path.empty()) {
    common::WriteFileAtomically(command.buffers_path,
                                alloc::FormatProblem(remat::ScheduleToBuffers(graph, result.sequence)));
  }
  const double cost_increase = PercentIncrease(result.cost, result.reference_cost);
  const double memory_percent = result.reference_peak > 0 ? 100.0 * result.peak / result.reference_peak : 0;
  if (command.json) {
    const nlohmann::json summary = {
        {"graph", graph.name},        {"method", result.method},
        {"status", result.status},    {"reference_peak", result.reference_peak},
        {"peak", result.peak},        {"reference_cost", result.reference_cost},
        {"cost", result.cost},        {"budget", result.budget},
        {"budget_met", result.budget_met}, {"cost_increase_percent", cost_increase},
        {"memory_percent", memory_percent}, {"steps", result.sequence.size()},
        {"moves", result.moves},      {"soft_peak", result.soft_peak},
        {"chain_lookahead", result.chain_lookahead},
        {"seconds", result.seconds},
        {"lower_bound", lower_bound}, {"views", remat::ViewAccounting(graph)},
    };
    fmt::print("{}\n", summary.dump());
  } else {
    fmt::print("{}: {} peak {} B ({}, {:.1f}% of the reference {}), budget {} {}, cost +{:.2f}% ({} steps for {} "
               "nodes), {:.2f} s\n",
               command.graph_path, result.method, result.peak, report::CompactBytes(result.peak), memory_percent,
               report::CompactBytes(result.reference_peak), report::HumanBytes(result.budget),
               result.budget_met ? "met" : "NOT met", cost_increase, result.sequence.size(), graph.nodes.size(),
               result.seconds);
  }
  if (common::InterruptRequested()) return common::kExitInterrupted;
  return result.budget_met ? common::kExitOk : common::kExitTargetMissed;
}

int RunPlan(const RematCommand& command) {
  const remat::Graph graph = ReadCommandGraph(command);
  const remat::Bytes lower_bound = graph.PeakLowerBound();
  const JointPlan joint =
      PlanJointly(graph, command.budget, lower_bound, command.plan, command.quiet || command.json);
  const remat::RematResult& result = joint.schedule;
  const alloc::PlanResult& arena = joint.arena;
  if (command.validate) {
    CheckResult(graph, result);
    ValidatePlans(joint.buffers, {arena});
  }
  if (!command.output_path.empty()) {
    common::WriteFileAtomically(command.output_path, remat::FormatSchedule(graph, result));
  }
  if (!command.buffers_path.empty()) {
    common::WriteFileAtomically(command.buffers_path, alloc::FormatProblem(joint.buffers));
  }
  if (!command.svg_path.empty()) {
    common::WriteFileAtomically(command.svg_path,
                                remat::MemoryCurveSvg(graph.name.empty() ? command.graph_path : graph.name,
                                                      remat::Simulate(graph, graph.order).memory,
                                                      remat::Simulate(graph, result.sequence).memory, result.budget));
  }
  const double cost_increase = PercentIncrease(result.cost, result.reference_cost);
  // As memplan alloc reports it, H / LB - 1: the schedule's peak is the lower bound of its arena.
  const double fragmentation = 100.0 * alloc::Fragmentation(arena.height, result.peak);
  const bool met = arena.height <= result.budget;
  const alloc::Bytes reserved_reference = joint.reserved_reference;
  const alloc::Bytes reserved_schedule = joint.reserved_schedule;
  if (command.json) {
    nlohmann::json schedules = nlohmann::json::array();
    for (const JointTry& t : joint.tries) {
      schedules.push_back({{"from", t.gone_on ? "best schedule" : "reference order"},
                           {"to_lower_cost", t.to_lower_cost},
                           {"aim", t.aim},
                           {"peak", t.peak},
                           {"arena_height", t.arena_height},
                           {"cost_increase_percent", PercentIncrease(t.cost, result.reference_cost)}});
    }
    const nlohmann::json summary = {
        {"graph", graph.name},
        {"method", result.method},
        {"reference_peak", result.reference_peak},
        {"peak", result.peak},
        {"lower_bound", lower_bound},
        {"views", remat::ViewAccounting(graph)},
        {"arena_height", arena.height},
        {"fragmentation_percent", fragmentation},
        {"reference_cost", result.reference_cost},
        {"cost", result.cost},
        {"cost_increase_percent", cost_increase},
        {"budget", result.budget},
        {"budget_met", met},
        {"pytorch_reserved_reference", reserved_reference},
        {"pytorch_reserved", reserved_schedule},
        {"seconds", result.seconds + arena.seconds},
        {"tries", joint.tries.size()},
        {"schedules", schedules},
    };
    fmt::print("{}\n", summary.dump());
  } else {
    fmt::print("{}: reference peak {}, schedule peak {} ({:.1f}%), arena height {} B ({}, fragmentation {:.2f}%), "
               "budget {} {}, cost +{:.2f}%, {:.2f} s{}\n",
               command.graph_path, report::CompactBytes(result.reference_peak), report::CompactBytes(result.peak),
               result.reference_peak > 0 ? 100.0 * result.peak / result.reference_peak : 0.0, arena.height,
               report::CompactBytes(arena.height), fragmentation, report::HumanBytes(result.budget),
               met ? "met" : "NOT met", cost_increase, result.seconds + arena.seconds,
               joint.tries.size() > 1 ? fmt::format(" ({} schedules planned)", joint.tries.size()) : "");
    fmt::print("PyTorch's caching allocator (simulated) would reserve {} for the reference order and {} for this "
               "schedule; the planned arena needs {} ({:.1f}% of the reference reservation)\n",
               report::CompactBytes(reserved_reference), report::CompactBytes(reserved_schedule),
               report::CompactBytes(arena.height),
               reserved_reference > 0 ? 100.0 * static_cast<double>(arena.height) / reserved_reference : 0.0);
  }
  if (common::InterruptRequested()) return common::kExitInterrupted;
  return met ? common::kExitOk : common::kExitTargetMissed;
}

// The options remat and plan share.
void AddPlanningOptions(CLI::App* cmd, RematCommand& command) {
  cmd->add_option("graph", command.graph_path, "Graph: remat-graph/v1 JSON or a Moccasin/Checkmate networkx JSON")
      ->required();
  cmd->add_option("--budget", command.budget,
                  "Peak memory to reach: bytes (or 512MiB, 80GB), or a percentage of the reference peak")
      ->capture_default_str();
  cmd->add_option("--time-limit", command.plan.time_limit_s, "Seconds for the planner")
      ->capture_default_str()
      ->check(FinitePositive());
  cmd->add_option("--seed", command.plan.seed, "Random seed")->capture_default_str();
  cmd->add_option("--moves", command.plan.moves,
                  fmt::format("FastSA's move budget (default: by graph size). Where its rounds miss a budget that "
                              "the lower bound allows, rounds with the chain lookahead add {:.0f} % of their moves; "
                              "where the best still misses it, remat adds {:.0f} % of the move budget, a last stage "
                              "at its peak for less compute. The same seed and moves give the same schedule unless "
                              "--time-limit ends the run first",
                              100 * remat::kDefaultLookaheadShare, 100 * remat::kDefaultCheaperShare))
      ->check(CLI::PositiveNumber);
  cmd->add_option("--method", command.plan.method, "fastsa, none (reference order), chen, milp (Checkmate, CBC)")
      ->capture_default_str()
      ->check(CLI::IsMember(remat::RematMethods()));
  cmd->add_flag("--reorder-only", command.plan.reorder_only, "FastSA without recomputation: best topological order");
  cmd->add_option("--soft-peak", command.plan.soft_peak,
                  "FastSA: over the budget, anneal log(sum over time of exp(K * memory / budget)) * budget / K, "
                  "which sees every step near the peak, instead of the peak itself (0); used when the move "
                  "budget allows 100 moves per node")
      ->capture_default_str()
      ->check(FiniteNumber(0, remat::kMaxSoftPeak));
  cmd->add_flag("--chain-lookahead", command.plan.chain_lookahead,
                "FastSA: a chained recomputation judges each producer by what the chain behind it would keep alive, "
                "up to 10 producers back, not by its own inputs (6 back); meets budgets on some graphs that the "
                "default misses, at more compute and in about twice the time (docs/remat.md); without it, FastSA "
                "tries it where the default misses a budget that the lower bound allows");
  cmd->add_flag("--views-alias", command.alias_views,
                "Count a view (view_of) as memory of the value that owns its storage, not at its own size; a view "
                "read after its owner was recomputed is made again first (it would hold the old storage)");
  cmd->add_flag("--json", command.json, "Print a JSON summary on stdout");
  cmd->add_flag("-q,--quiet", command.quiet, "No progress line (--json implies it)");
  cmd->add_option("-o,--output", command.output_path, "Write the schedule (remat-schedule/v1 JSON)");
  cmd->add_option("--emit-buffers", command.buffers_path, "Write the schedule's buffers as a problem CSV");
}

}  // namespace

void AddRematCommands(CLI::App& app, CommandResult& result) {
  auto remat_command = std::make_shared<RematCommand>();
  CLI::App* cmd = app.add_subcommand("remat", "Choose what to recompute so that peak memory fits a budget");
  AddPlanningOptions(cmd, *remat_command);
  cmd->add_flag("--validate", remat_command->validate, "Check the schedule with the independent validator");
  cmd->callback([remat_command, &result] { result.exit_status = RunRemat(*remat_command); });

  auto plan_command = std::make_shared<RematCommand>();
  CLI::App* plan = app.add_subcommand("plan", "Recompute to fit a budget, then give every buffer an offset");
  AddPlanningOptions(plan, *plan_command);
  plan->add_option("--svg", plan_command->svg_path, "Draw the memory curve before and after as SVG");
  plan->add_flag("--validate", plan_command->validate,
                 "Check the schedule and its arena with the independent validators (the schedule of every try is "
                 "checked anyway)");
  plan->callback([plan_command, &result] { result.exit_status = RunPlan(*plan_command); });
}

}  // namespace tools
