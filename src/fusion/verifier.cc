#include "fusion/verifier.h"

#include <algorithm>
#include <memory>
#include <random>

#include "common/stopwatch.h"
#include "fusion/fuse.h"
#include "fusion/interpreter.h"
#include "fusion/solver.h"
#include "fusion/wrap_checks.h"

namespace fusion {
namespace {

// Statements one concrete run may execute (enough for three loops over 100000 cells).
constexpr long kMaxSteps = 20'000'000;

// Draws a value of type t: mostly small numbers (sizes and counters of the tasks are small in bugs),
// sometimes the type's extremes or any value.
Int128 Draw(std::mt19937_64& rng, IntType t, int mode) {
  std::uniform_int_distribution<int> pick(0, 9);
  const int r = pick(rng);
  if (mode == 0) return 0;
  if (r < 6 || mode == 1) return std::uniform_int_distribution<int>(mode == 1 ? 1 : -2, 8)(rng);
  if (r < 8) {
    const Int128 edges[] = {MinOf(t), MaxOf(t), 0, 1, -1, MaxOf(t) - 1};
    return edges[std::uniform_int_distribution<int>(0, 5)(rng)];
  }
  return static_cast<Int128>(static_cast<long long>(rng()));
}

}  // namespace

bool FindCounterexample(const Program& prog, double budget_s, unsigned seed, std::vector<Int128>& inputs) {
  common::Stopwatch clock;
  std::mt19937_64 rng(seed);
  for (int run = 0; run == 0 || clock.Seconds() < budget_s; ++run) {
    const int mode = (run + 2) % 4;  // random small values first: most bugs of the tasks show with them
    // A third of the budget at most per run, so that one run with a huge drawn bound leaves time for others.
    const RunResult r = Interpret(prog, [&](IntType t) { return Draw(rng, t, mode); }, kMaxSteps,
                                  std::max(0.01, std::min(budget_s / 3, budget_s - clock.Seconds())));
    if (r.outcome == Outcome::kError) {
      inputs = r.inputs;
      return true;
    }
    // A run that drew no value is the only run there is; otherwise a few hundred runs are plenty for the
    // shallow bugs this search is for (deep ones are Spacer's).
    if (r.inputs.empty() || run > 300) break;
  }
  return false;
}

Verdict Verify(const Program& prog, const VerifyOptions& options) {
  common::Stopwatch clock;
  Verdict v;
  auto finish = [&](Verdict& out) -> Verdict {
    out.seconds = clock.Seconds();
    return out;
  };
  // A concrete run that reaches an error settles the verdict without any solver.
  if (FindCounterexample(prog, std::min(0.5, options.timeout_s / 10), 1, v.inputs)) {
    v.verdict = "false";
    v.reason = "a concrete run of the original program reaches an error";
    v.solved_by = "interpreter";
    return finish(v);
  }
  std::vector<Variant> variants;
  if (options.fusion) variants = FusedVariants(prog);
  variants.push_back(Variant{"original", prog, {}});
  // Each variant is tried with explicit wrap-around checks (easier to prove: the sums are then plain
  // integers, and fusion defers the checks of later loops like assertions) and exactly.
  std::vector<Variant> checked;
  bool added = false;
  const Program with_checks = AddWrapChecks(prog, added);
  if (added) {
    if (options.fusion) checked = FusedVariants(with_checks);
    checked.push_back(Variant{"original", with_checks, {}});
    for (Variant& c : checked) c.transformations.insert(c.transformations.begin(), "unsigned wrap-around checks");
  }
  struct Candidate {
    const Variant* variant;
    std::unique_ptr<HornProblem> problem;
  };
  std::vector<Candidate> candidates;
  for (const auto* list : {&checked, &variants}) {
    for (const Variant& var : *list) {
      const double left = options.timeout_s - clock.Seconds();
      if (left <= 0.05) break;
      auto problem = std::make_unique<HornProblem>(var.prog, left);
      if (!problem->encode_error().empty()) {  // too large or out of time: the other variants may still do
        v.reason = problem->encode_error();
        continue;
      }
      candidates.push_back({&var, std::move(problem)});
    }
  }
  if (candidates.empty()) return finish(v);
  bool spacer_found_error = false;
  std::string last_reason = "time-out";
  // Round one gives every (encoding, option set) a short run; later rounds double the limit.
  for (double limit = 0.4; clock.Seconds() < options.timeout_s && !candidates.empty(); limit *= 2) {
    for (Candidate& cand : candidates) {
      for (const OptionSet& opts : Portfolio()) {
        const double left = options.timeout_s - clock.Seconds();
        if (left <= 0.05) break;
        const SolveResult r = cand.problem->Solve(opts, std::min(limit, left));
        const std::string who = cand.variant->name + (cand.variant->transformations.empty() ||
                                 cand.variant->transformations[0].find("wrap") == std::string::npos ? "" : " with wrap checks") +
                                " / " + opts.name;
        if (r.status == SolveStatus::kSafe) {
          v.verdict = "true";
          v.reason = "invariants found and checked inductive";
          v.transformations = cand.variant->transformations;
          v.invariants = r.invariants;
          v.solved_by = who;
          return finish(v);
        }
        if (r.status == SolveStatus::kUnsafe && !spacer_found_error) {
          spacer_found_error = true;
          // Spacer says an error is reachable: search harder for concrete inputs that show it.
          const double budget = std::min(2.0, std::max(0.1, (options.timeout_s - clock.Seconds()) / 4));
          if (FindCounterexample(prog, budget, 7, v.inputs)) {
            v.verdict = "false";
            v.reason = "Spacer found the error reachable; a concrete run of the original program confirms it";
            v.solved_by = who + " + interpreter";
            return finish(v);
          }
        }
        if (!r.reason.empty()) last_reason = r.reason;
      }
    }
  }
  v.reason = spacer_found_error ? "Spacer found the error reachable, but no concrete run confirmed it"
                                : "time-out (last: " + last_reason + ")";
  return finish(v);
}

}  // namespace fusion
