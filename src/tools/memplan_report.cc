// memplan report: one self-contained HTML page comparing the planners on an allocation problem (MiniMalloc
// CSV) or a training graph (remat-graph/v1 or networkx JSON), with the plans drawn.
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "alloc/converter.h"
#include "common/atomic_file.h"
#include "common/error.h"
#include "common/exit_codes.h"
#include "common/interrupt.h"
#include "common/progress.h"
#include "remat/planner.h"
#include "remat/reader.h"
#include "remat/simulator.h"
#include "report/alloc_section.h"
#include "report/html.h"
#include "report/remat_section.h"
#include "tools/cli_checks.h"
#include "tools/commands.h"
#include "tools/planning.h"

namespace tools {
namespace {

// Options of `memplan report`.
struct ReportOptions {
  std::string input;
  std::string output;
  std::optional<std::string> budget;  // graphs only; default kDefaultBudget
  double time_limit_s = 10;
  uint64_t moves = 0;                 // 0: each planner's default
  uint64_t seed = 1;
  std::optional<alloc::TimeValue> period;  // CSV only; else the sidecar's (tools::PeriodOf)
  size_t max_drawn = 20000;
  bool json = false;
  bool quiet = false;
};

// The budget of a graph report when none is given: a quarter less than the reference peak, as scripts/setup
// plans resnet18 (memplan plan's own default, 100 %, would often leave nothing to recompute).
constexpr const char* kDefaultBudget = "75%";

// The greedy planners compared with the annealing planner on every allocation problem.
const std::vector<std::string>& GreedyMethods() {
  static const std::vector<std::string> kMethods{"first-fit", "best-fit"};
  return kMethods;
}

// A graph file is JSON (an object); anything else is read as a MiniMalloc CSV.
bool LooksLikeJson(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && (text[first] == '{' || text[first] == '[');
}

// What a report found, for the summary on stdout.
struct ReportSummary {
  std::string kind;  // "alloc" or "graph"
  size_t buffers = 0;
  size_t drawn = 0;
  std::vector<alloc::PlanResult> plans;
  std::optional<alloc::CachingAllocatorResult> caching;
  nlohmann::json extra = nlohmann::json::object();  // the graph's figures
  int exit_status = common::kExitOk;
};

// The allocation methods on `problem`, validated, with the caching allocator's row. `first` (the arena
// memplan plan placed) stands in for the annealing planner when given.
report::AllocFigures CompareAllocations(const alloc::Problem& problem, const ReportOptions& options,
                                        std::optional<alloc::PlanResult> first) {
  common::Progress progress(common::ProgressWanted(options.quiet || options.json));
  alloc::PlanOptions plan_options;
  plan_options.time_limit_s = options.time_limit_s;
  plan_options.moves = options.moves;
  plan_options.seed = options.seed;
  std::vector<std::string> methods = GreedyMethods();
  if (!first) methods.insert(methods.begin(), "sa");
  report::AllocFigures figures;
  if (first) figures.plans.push_back(std::move(*first));
  for (alloc::PlanResult& r : PlanMethods(problem, methods, plan_options, progress)) {
    figures.plans.push_back(std::move(r));
  }
  progress.Finish();
  ValidatePlans(problem, figures.plans);
  if (!common::InterruptRequested()) {
    const CachingRun run = SimulateCaching(problem, std::nullopt);
    figures.caching = run.result;
    figures.caching_seconds = run.seconds;
  }
  return figures;
}

// Fills the page for an allocation problem.
ReportSummary ReportAllocation(report::Page& page, const std::string& text, const ReportOptions& options) {
  if (options.budget) {
    throw common::InputError(
        fmt::format("{}: --budget applies to a graph, not to an allocation problem (CSV)", options.input));
  }
  const alloc::Problem problem =
      alloc::ParseProblem(options.input, text, PeriodOf(options.input, options.period).period);
  const report::AllocFigures figures = CompareAllocations(problem, options, std::nullopt);
  ReportSummary summary;
  summary.kind = "alloc";
  summary.buffers = problem.buffers.size();
  summary.drawn = report::AddAllocSections(page, "Allocation", problem, figures, options.max_drawn);
  summary.plans = figures.plans;
  summary.caching = figures.caching;
  return summary;
}

// Fills the page for a training graph: memplan plan's pipeline, the baselines at the same budget, and the
// allocation planners on the chosen schedule's buffers.
ReportSummary ReportGraph(report::Page& page, const std::string& text, const ReportOptions& options) {
  if (options.period) {
    throw common::InputError(
        fmt::format("{}: --period applies to an allocation problem (CSV), not to a graph", options.input));
  }
  const remat::Graph graph = remat::ParseGraph(options.input, text);
  const bool quiet = options.quiet || options.json;
  remat::RematOptions remat_options;
  remat_options.time_limit_s = options.time_limit_s;
  remat_options.moves = options.moves;
  remat_options.seed = options.seed;
  const JointPlan joint =
      PlanJointly(graph, options.budget.value_or(kDefaultBudget), graph.PeakLowerBound(), remat_options, quiet);

  report::RematFigures curve;
  curve.graph_name = graph.name.empty() ? options.input : graph.name;
  // The baselines are quick and silent (the pipeline has already warned about an unreachable budget).
  common::Progress silent(false);
  for (const char* method : {"none", "chen"}) {
    remat::RematOptions baseline = remat_options;
    baseline.method = method;
    baseline.budget = joint.schedule.budget;
    remat::RematResult row = remat::PlanRemat(graph, baseline, silent);
    CheckResult(graph, row);
    curve.rows.push_back(std::move(row));
  }
  curve.rows.push_back(joint.schedule);
  curve.memory_before = remat::Simulate(graph, graph.order).memory;
  curve.memory_after = remat::Simulate(graph, joint.schedule.sequence).memory;
  curve.budget = joint.schedule.budget;
  curve.arena_height = joint.arena.height;
  curve.reserved_reference = joint.reserved_reference;
  curve.reserved_schedule = joint.reserved_schedule;
  report::AddRematSections(page, curve);

  const report::AllocFigures figures = CompareAllocations(joint.buffers, options, joint.arena);
  ReportSummary summary;
  summary.kind = "graph";
  summary.buffers = joint.buffers.buffers.size();
  summary.drawn =
      report::AddAllocSections(page, "Allocation of the schedule's buffers", joint.buffers, figures, options.max_drawn);
  summary.plans = figures.plans;
  summary.caching = figures.caching;
  const remat::RematResult& s = joint.schedule;
  summary.extra = {{"reference_peak", s.reference_peak},
                   {"peak", s.peak},
                   {"budget", s.budget},
                   {"budget_met", s.budget_met},
                   {"arena_height", joint.arena.height},
                   {"cost_increase_percent", PercentIncrease(s.cost, s.reference_cost)},
                   {"pytorch_reserved_reference", joint.reserved_reference},
                   {"pytorch_reserved", joint.reserved_schedule},
                   {"remat", nlohmann::json::array()}};
  for (const remat::RematResult& r : curve.rows) {
    summary.extra["remat"].push_back({{"method", r.method},
                                      {"peak", r.peak},
                                      {"cost_increase_percent", PercentIncrease(r.cost, r.reference_cost)},
                                      {"budget_met", r.budget_met},
                                      {"seconds", r.seconds}});
  }
  summary.exit_status = s.budget_met ? common::kExitOk : common::kExitTargetMissed;
  if (!options.json) {
    fmt::print("{}\n", report::ReservedLine(joint.reserved_reference, joint.reserved_schedule, joint.arena.height));
  }
  return summary;
}

int RunReport(const ReportOptions& options) {
  const std::string text = common::ReadFile(options.input);
  const bool graph = LooksLikeJson(text);
  report::Page page(fmt::format("memplan report: {}", options.input),
                    fmt::format("{} {}; seed {}, time limit {} s per planner.",
                                graph ? "Training graph" : "Allocation problem", options.input, options.seed,
                                options.time_limit_s));
  const ReportSummary summary = graph ? ReportGraph(page, text, options) : ReportAllocation(page, text, options);
  common::WriteFileAtomically(options.output, page.Render());

  if (options.json) {
    nlohmann::json j = {{"input", options.input},     {"output", options.output},
                        {"kind", summary.kind},       {"sections", page.SectionIds()},
                        {"buffers", summary.buffers}, {"drawn", summary.drawn},
                        {"methods", nlohmann::json::array()}};
    for (const alloc::PlanResult& r : summary.plans) j["methods"].push_back(PlanJson(r));
    if (summary.caching) {
      j["pytorch_caching"] = {{"peak_reserved", summary.caching->peak_reserved},
                              {"out_of_memory", summary.caching->out_of_memory}};
    }
    j.update(summary.extra);
    fmt::print("{}\n", j.dump());
  } else {
    for (const alloc::PlanResult& r : summary.plans) {
      fmt::print("{:<12} height {:>14} B, fragmentation {:.3f} %\n", r.method, r.height,
                 100 * alloc::Fragmentation(r.height, r.lower_bound));
    }
    fmt::print("report ({} buffers, {} drawn; sections {}) written to {}\n", summary.buffers, summary.drawn,
               fmt::join(page.SectionIds(), ", "), options.output);
  }
  if (common::InterruptRequested()) return common::kExitInterrupted;
  return summary.exit_status;
}

}  // namespace

void AddReportCommands(CLI::App& app, CommandResult& result) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand("report", "Write one self-contained HTML page: the planners compared, the "
                                               "plans drawn (docs/report.md)");
  cmd->add_option("input", options->input, "Allocation problem (MiniMalloc CSV) or training graph (remat-graph/v1 "
                                           "or networkx JSON), told apart by the contents")
      ->required();
  cmd->add_option("-o,--output", options->output, "HTML file to write")->required();
  cmd->add_option("--budget", options->budget, "Graphs: peak memory to reach, bytes (or 512MiB, 80GB) or a "
                                               "percentage of the reference peak (default 75%)");
  cmd->add_option("--time-limit", options->time_limit_s, "Seconds each planner may run")
      ->capture_default_str()
      ->check(FinitePositive());
  cmd->add_option("--moves", options->moves,
                  "Annealing moves: the allocation planner's for a CSV, FastSA's for a graph (default: by the time "
                  "limit); the same moves and seed give the same page unless the time limit ends a run first")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--seed", options->seed, "Random seed (same input and seed, same page but for the times)")
      ->capture_default_str();
  cmd->add_option("--period", options->period,
                  "CSV: the pattern repeats every P time units (default: the sidecar's, as for alloc)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-drawn", options->max_drawn, "Draw at most this many buffers (the largest)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--json", options->json, "Print a JSON summary on stdout (output, sections, numbers)");
  cmd->add_flag("-q,--quiet", options->quiet, "No progress line (--json implies it)");
  cmd->callback([options, &result] { result.exit_status = RunReport(*options); });
}

}  // namespace tools
