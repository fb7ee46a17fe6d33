// The allocation subcommands of memplan: alloc, validate (and simulate, gen).
#include <fmt/core.h>

#include <memory>
#include <string>

#include "alloc/converter.h"
#include "alloc/validator.h"
#include "common/exit_codes.h"
#include "tools/commands.h"

namespace tools {
namespace {

// Options of `memplan validate`.
struct ValidateOptions {
  std::string problem_path;
  std::string plan_path;
  alloc::TimeValue period = 0;
  bool json = false;
};

int RunValidate(const ValidateOptions& options) {
  const alloc::Problem problem = alloc::ReadProblem(options.problem_path, options.period);
  const alloc::PlanRows rows = alloc::ReadPlanRows(options.plan_path, problem);
  alloc::ValidationReport report = alloc::Validate(problem, rows.offsets);
  for (const std::string& id : rows.unknown_ids) {
    report.errors.push_back(fmt::format("plan row for '{}', which the problem does not have", id));
  }
  for (const std::string& error : report.errors) fmt::print(stderr, "{}: {}\n", options.plan_path, error);
  const alloc::Bytes lb = alloc::PeakLoad(problem);
  fmt::print("{}: {} ({} buffers, {} errors, height {}, LB {})\n", options.plan_path,
             report.ok() ? "valid" : "INVALID", problem.buffers.size(), report.errors.size(), report.height, lb);
  return report.ok() ? common::kExitOk : common::kExitTargetMissed;
}

}  // namespace

void AddAllocCommands(CLI::App& app, CommandResult& result) {
  auto validate = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand("validate", "Check a plan against its problem; names every overlap");
  cmd->add_option("problem", validate->problem_path, "Problem CSV")->required();
  cmd->add_option("plan", validate->plan_path, "Plan CSV (the problem's rows plus offset)")->required();
  cmd->add_option("--period", validate->period, "Pattern repeats every P time units")->check(CLI::NonNegativeNumber);
  cmd->callback([validate, &result] { result.exit_status = RunValidate(*validate); });
}

}  // namespace tools
