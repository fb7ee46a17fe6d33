// The allocation subcommands of memplan: alloc and validate.
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alloc/caching_allocator.h"
#include "alloc/converter.h"
#include "alloc/exact_search.h"
#include "alloc/planner.h"
#include "alloc/svg.h"
#include "alloc/validator.h"
#include "common/atomic_file.h"
#include "common/error.h"
#include "common/exit_codes.h"
#include "common/interrupt.h"
#include "common/progress.h"
#include "report/format.h"
#include "tools/cli_checks.h"
#include "tools/commands.h"
#include "tools/planning.h"

namespace tools {
namespace {

// Options of `memplan alloc`.
struct AllocOptions {
  std::string input;
  std::string output;
  std::string method = alloc::kDefaultMethod;
  std::string svg;
  double time_limit_s = 10;
  uint64_t moves = 0;
  uint64_t seed = 1;
  std::optional<alloc::Bytes> capacity;
  std::optional<alloc::TimeValue> period;  // --period; else the sidecar's (tools::ReadTrace)
  std::optional<std::string> conf;  // caching-allocator settings for the comparison row
  bool json = false;
  bool validate = false;
  bool quiet = false;
};

// The row name of the caching-allocator simulation in the comparison table.
constexpr const char* kCachingRow = "pytorch-caching";

// What a plan needs against what PyTorch's caching allocator reserved for the same iteration, when the trace's
// sidecar recorded that (an imported CUDA snapshot): the arena plus the memory outside the trace.
struct AgainstRecorded {
  alloc::Bytes reserved = 0;    // the caching allocator's peak reservation over the iteration
  alloc::Bytes persistent = 0;  // parameters, gradients, optimizer state
  alloc::Bytes planned = 0;     // the arena's height + persistent

  double Share() const { return reserved > 0 ? static_cast<double>(planned) / static_cast<double>(reserved) : 0; }
};

// The comparison, when the trace's sidecar recorded a reservation.
std::optional<AgainstRecorded> CompareWithRecorded(const Trace& trace, alloc::Bytes height) {
  if (!trace.period.sidecar || !trace.period.sidecar->recorded_reserved) return std::nullopt;
  AgainstRecorded r;
  r.reserved = *trace.period.sidecar->recorded_reserved;
  r.persistent = trace.period.sidecar->persistent_bytes.value_or(0);
  r.planned = height + r.persistent;
  return r;
}

int RunAlloc(const AllocOptions& options) {
  const Trace trace = ReadTrace(options.input, options.period);
  const alloc::Problem& problem = trace.problem;
  std::vector<std::string> methods;
  if (options.method == "all") {
    methods = alloc::Methods();
  } else if (std::find(alloc::Methods().begin(), alloc::Methods().end(), options.method) != alloc::Methods().end()) {
    methods = {options.method};
  } else {
    throw common::InputError(fmt::format("unknown method '{}' (expected all, {})", options.method,
                                         fmt::join(alloc::Methods(), ", ")));
  }

  common::Progress progress(common::ProgressWanted(options.quiet || options.json));
  alloc::PlanOptions plan_options;
  plan_options.time_limit_s = options.time_limit_s;
  plan_options.moves = options.moves;
  plan_options.seed = options.seed;
  plan_options.capacity = options.capacity;
  const std::vector<alloc::PlanResult> results = PlanMethods(problem, methods, plan_options, progress);
  progress.Finish();
  if (options.validate) ValidatePlans(problem, results);

  // The plan written is the lowest one (the first method wins ties, and the annealing planner comes first).
  const alloc::PlanResult& chosen = *std::min_element(
      results.begin(), results.end(), [](const auto& a, const auto& b) { return a.height < b.height; });
  if (!options.output.empty()) common::WriteFileAtomically(options.output, alloc::FormatPlan(problem, chosen.solution));
  if (!options.svg.empty()) {
    common::WriteFileAtomically(options.svg, alloc::RenderSvg(problem, chosen.solution,
                                                             fmt::format("{} ({})", options.input, chosen.method)));
  }

  // With --method all, the table also shows what PyTorch's caching allocator would reserve for the same
  // pattern (a simulation, not a plan: nothing is written for it).
  std::optional<alloc::CachingAllocatorResult> caching;
  double caching_seconds = 0;
  if (options.method == "all" && !common::InterruptRequested()) {
    const CachingRun run = SimulateCaching(problem, options.conf);
    caching = run.result;
    caching_seconds = run.seconds;
  }

  const std::optional<AgainstRecorded> recorded = CompareWithRecorded(trace, chosen.height);
  if (options.json) {
    nlohmann::json summary = PlanJson(chosen);
    summary["input"] = options.input;
    summary["buffers"] = problem.buffers.size();
    summary["period"] = problem.period;
    summary["sidecar"] = trace.period.sidecar ? nlohmann::json(trace.period.sidecar->path) : nlohmann::json();
    if (recorded) {
      summary["recorded"] = {{"pytorch_reserved", recorded->reserved},
                             {"persistent_bytes", recorded->persistent},
                             {"planned_bytes", recorded->planned},
                             {"planned_over_reserved", recorded->Share()}};
    }
    if (options.capacity) {
      summary["capacity"] = *options.capacity;
      summary["fits"] = chosen.height <= *options.capacity;
    }
    if (results.size() > 1) {
      summary["methods"] = nlohmann::json::array();
      for (const auto& r : results) summary["methods"].push_back(PlanJson(r));
    }
    if (caching) {
      nlohmann::json row = {{"method", kCachingRow},
                            {"lb", caching->lower_bound},
                            {"height", caching->peak_reserved},
                            {"seconds", caching_seconds},
                            {"out_of_memory", caching->out_of_memory}};
      if (!caching->out_of_memory) {
        row["fragmentation"] = caching->Fragmentation();
        row["wasted_share"] = caching->WastedShare();
      }
      summary["methods"].push_back(row);
    }
    fmt::print("{}\n", summary.dump());
  } else {
    fmt::print("{}: {} buffers, LB (peak load) {} B\n", options.input, problem.buffers.size(), chosen.lower_bound);
    if (trace.period.from_sidecar) fmt::print("period {} (from {})\n", problem.period, trace.period.sidecar->path);
    fmt::print("{:<18} {:>14} {:>12} {:>12} {:>10}\n", "method", "height B", "H/LB-1 %", "(H-LB)/H %", "time s");
    for (const auto& r : results) {
      fmt::print("{:<18} {:>14} {:>12.3f} {:>12.3f} {:>10.3f}\n", r.method, r.height,
                 100 * alloc::Fragmentation(r.height, r.lower_bound), 100 * alloc::WastedShare(r.height, r.lower_bound),
                 r.seconds);
    }
    if (caching && caching->out_of_memory) {
      fmt::print("{:<18} out of memory at buffer '{}'\n", kCachingRow, caching->oom_buffer);
    } else if (caching) {
      fmt::print("{:<18} {:>14} {:>12.3f} {:>12.3f} {:>10.3f}   (simulated: peak reserved)\n", kCachingRow,
                 caching->peak_reserved, 100 * caching->Fragmentation(), 100 * caching->WastedShare(), caching_seconds);
    }
    for (const auto& r : results) {
      if (r.method != "exact" && r.method != "exact+sa") continue;
      if (r.search_outcome == alloc::ToString(alloc::SearchOutcome::kTooLarge)) {
        fmt::print("{}: the exact search was skipped, the input has more than {} overlapping pairs\n", r.method,
                   alloc::kMaxOverlapPairs);
      } else if (r.search_outcome == alloc::ToString(alloc::SearchOutcome::kOverBudget)) {
        fmt::print("{}: the exact search was skipped, one descent would take more than its budget "
                   "(--time-limit, or --moves nodes)\n", r.method);
      } else {
        fmt::print("{}: exact search {} nodes, {}\n", r.method, r.nodes,
                   r.proven_optimal ? "proven lowest" : "not proven lowest");
      }
    }
    if (recorded) {
      fmt::print("PyTorch reserved {} for this iteration (recorded: {}); the plan needs {}: the arena {} + "
                 "persistent {}, {:.1f} % of it\n",
                 report::HumanBytes(recorded->reserved), trace.period.sidecar->path,
                 report::HumanBytes(recorded->planned), report::HumanBytes(chosen.height),
                 report::HumanBytes(recorded->persistent), 100 * recorded->Share());
    }
    if (!options.output.empty()) fmt::print("plan ({}) written to {}\n", chosen.method, options.output);
  }
  if (common::InterruptRequested()) return common::kExitInterrupted;
  if (options.capacity && chosen.height > *options.capacity) {
    if (!options.json) fmt::print(stderr, "memplan: height {} exceeds the capacity {}\n", chosen.height, *options.capacity);
    return common::kExitTargetMissed;
  }
  return common::kExitOk;
}

// Options of `memplan validate`.
struct ValidateOptions {
  std::string problem_path;
  std::string plan_path;
  std::optional<alloc::TimeValue> period;  // --period; else the sidecar's (tools::ReadTrace)
  bool json = false;
};

int RunValidate(const ValidateOptions& options) {
  const alloc::Problem problem = ReadTrace(options.problem_path, options.period).problem;
  const alloc::PlanRows rows = alloc::ReadPlanRows(options.plan_path, problem);
  alloc::ValidationReport report = alloc::Validate(problem, rows.offsets);
  for (const std::string& id : rows.unknown_ids) {
    report.errors.push_back(fmt::format("plan row for '{}', which the problem does not have", id));
  }
  const alloc::Bytes lb = alloc::PeakLoad(problem);
  if (options.json) {
    const nlohmann::json summary = {{"plan", options.plan_path}, {"valid", report.ok()},
                                    {"buffers", problem.buffers.size()}, {"errors", report.errors},
                                    {"height", report.height}, {"lb", lb}};
    fmt::print("{}\n", summary.dump());
    return report.ok() ? common::kExitOk : common::kExitTargetMissed;
  }
  for (const std::string& error : report.errors) fmt::print(stderr, "{}: {}\n", options.plan_path, error);
  fmt::print("{}: {} ({} buffers, {} errors, height {}, LB {})\n", options.plan_path,
             report.ok() ? "valid" : "INVALID", problem.buffers.size(), report.errors.size(), report.height, lb);
  return report.ok() ? common::kExitOk : common::kExitTargetMissed;
}

}  // namespace

void AddAllocCommands(CLI::App& app, CommandResult& result) {
  auto plan = std::make_shared<AllocOptions>();
  CLI::App* cmd = app.add_subcommand("alloc", "Give every buffer an offset in one arena, as low as possible");
  cmd->add_option("input", plan->input, "Problem CSV (id,lower,upper,size[,alignment][,offset])")->required();
  cmd->add_option("-o,--output", plan->output, "Plan CSV to write (the input rows plus offset)");
  cmd->add_option("--method", plan->method, "exact+sa (default: the exact search, then annealing from its plan), sa "
                                            "(annealing), exact (branch and bound), first-fit, best-fit, xla, drop, "
                                            "online-first-fit, online-best-fit, or all (comparison table)");
  cmd->add_option("--time-limit", plan->time_limit_s,
                  "Seconds the annealing planner or the exact search may run (with --method all: each method) "
                  "(default 10)")
      ->check(FinitePositive());
  cmd->add_option("--moves", plan->moves,
                  "Annealing moves, or the exact search's nodes (default: what the time limit allows at fixed rate "
                  "models, in moves for annealing and in units of work for the search); the same seed and budget "
                  "give the same plan unless --time-limit ends the run first");
  cmd->add_option("--seed", plan->seed, "Random seed (same input and seed, same plan)");
  cmd->add_option("--capacity", plan->capacity,
                  "Stop as soon as the height fits (bytes, or with a unit: 512MiB, 80GB); exit status 1 if it does not")
      ->transform(PositiveByteCount());
  cmd->add_option("--period", plan->period, "The pattern repeats every P time units; upper > P wraps around "
                                            "(default: the period in the trace's sidecar NAME.meta.json, else none)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--conf", plan->conf, "With --method all: PYTORCH_CUDA_ALLOC_CONF settings of the simulated "
                                        "caching allocator (default: the environment variable, else PyTorch's defaults)");
  cmd->add_option("--svg", plan->svg, "Also draw the plan as an SVG picture");
  cmd->add_flag("--json", plan->json, "Print the summary as one JSON object on stdout");
  cmd->add_flag("--validate", plan->validate, "Check every plan with the independent validator");
  cmd->add_flag("-q,--quiet", plan->quiet, "No progress line");
  cmd->callback([plan, &result] { result.exit_status = RunAlloc(*plan); });

  auto validate = std::make_shared<ValidateOptions>();
  CLI::App* check = app.add_subcommand("validate", "Check a plan against its problem; names every overlap");
  check->add_option("problem", validate->problem_path, "Problem CSV")->required();
  check->add_option("plan", validate->plan_path, "Plan CSV (the problem's rows plus offset)")->required();
  check->add_option("--period", validate->period, "Pattern repeats every P time units (default: the sidecar's, "
                                                  "as for alloc)")->check(CLI::NonNegativeNumber);
  check->add_flag("--json", validate->json, "Print valid, errors, height and LB as one JSON object on stdout");
  check->callback([validate, &result] { result.exit_status = RunValidate(*validate); });
}

}  // namespace tools
