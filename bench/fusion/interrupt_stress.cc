// Interrupts Spacer at random moments, each run in a child of a fork server as the verifier runs it, and
// counts how the runs ended. Z3 4.8.12 now and then aborts the process when a run is interrupted
// (docs/reliability.md, "The Z3 abort"); here that shows as a run whose process was killed by signal 6,
// while this program goes on.
//
// Usage: loopfuse_interrupt_stress PROGRAM.c [RUNS] [SEED]
#include <fmt/core.h>

#include <map>
#include <random>
#include <string>

#include "common/fork_server.h"
#include "fusion/fuse.h"
#include "fusion/parser.h"
#include "fusion/solver.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: loopfuse_interrupt_stress PROGRAM.c [RUNS] [SEED]\n");
    return 2;
  }
  const int runs = argc > 2 ? std::stoi(argv[2]) : 600;
  std::mt19937 rng(argc > 3 ? static_cast<unsigned>(std::stoul(argv[3])) : 1u);
  std::vector<fusion::Program> programs = {fusion::ParseFile(argv[1])};
  for (fusion::Variant& v : fusion::FusedVariants(programs.front())) programs.push_back(std::move(v.prog));
  // Request: "index limit": run `index` solves program index % programs under option set index % sets,
  // interrupted after `limit` seconds.
  common::ForkServer server(1, [&programs](const std::string& request) {
    const size_t space = request.find(' ');
    const size_t index = std::stoul(request.substr(0, space));
    const double limit = std::stod(request.substr(space + 1));
    fusion::HornProblem problem(programs[index % programs.size()], 10);
    const fusion::SolveResult r = problem.Solve(fusion::Portfolio()[index % fusion::Portfolio().size()], limit);
    return r.reason.empty() ? std::string(r.status == fusion::SolveStatus::kSafe ? "safe" : "unsafe") : r.reason;
  }, fusion::Z3Failures());  // as the verifier's server: a crash inside libz3 says so
  std::map<std::string, int> outcomes;
  for (int i = 0; i < runs; ++i) {
    const double limit = std::uniform_real_distribution<double>(0.001, 0.08)(rng);
    const common::ForkServer::Reply reply = server.Call(0, fmt::format("{} {}", i, limit), 5, nullptr);
    // Reasons name the clause or the option; the first words are the kind of ending.
    ++outcomes[reply.ok ? reply.text.substr(0, reply.text.find(" on clause")) : "process: " + reply.text];
  }
  fmt::print("{} interrupted runs of {}:\n", runs, argv[1]);
  for (const auto& [outcome, count] : outcomes) fmt::print("{:6}  {}\n", count, outcome);
}
