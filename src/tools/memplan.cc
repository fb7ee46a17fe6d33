// memplan: plans the memory of one training iteration. A thin front end over the libraries in src/.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <exception>

#include "common/error.h"
#include "common/exit_codes.h"
#include "common/interrupt.h"
#include "tools/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"memplan: memory planning for training iterations (allocation and recomputation)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "memplan 0.1");
  tools::CommandResult result;
  tools::AddAllocCommands(app, result);
  tools::AddRematCommands(app, result);
  tools::AddReportCommands(app, result);
  tools::AddSimulateCommands(app, result);
  common::InstallInterruptHandler();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    return status == 0 ? common::kExitOk : common::kExitBadInput;
  } catch (const common::InputError& e) {
    fmt::print(stderr, "memplan: error: {}\n", e.what());
    return common::kExitBadInput;
  } catch (const std::exception& e) {
    fmt::print(stderr, "memplan: internal error: {}\n", e.what());
    return common::kExitInternal;
  }
  return result.exit_status;
}
