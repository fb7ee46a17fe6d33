// The subcommands of `memplan`, grouped by library. Each group adds its subcommands to the app; a
// subcommand's callback stores its exit status in the shared CommandResult.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "alloc/caching_allocator.h"

namespace tools {

// Filled in by the subcommand that ran.
struct CommandResult {
  int exit_status = 0;
};

// alloc, validate (memplan_alloc.cc).
void AddAllocCommands(CLI::App& app, CommandResult& result);

// simulate, gen (memplan_simulate.cc).
void AddSimulateCommands(CLI::App& app, CommandResult& result);

// remat, plan (memplan_remat.cc).
void AddRematCommands(CLI::App& app, CommandResult& result);

// report (memplan_report.cc).
void AddReportCommands(CLI::App& app, CommandResult& result);

}  // namespace tools
