// Runs loopfuse's verifier on the 31 shared SV-COMP tasks, with and without fusion, each with and without
// the affine invariants, and prints a Markdown table (expected verdict, verdict and time of each run) with a
// summary. Unfused without the affine invariants is the baseline: Spacer alone on loopfuse's encoding.
// Usage: loopfuse_bench [svcomp dir] [timeout seconds per run]
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <string>
#include <vector>

#include "fusion/errors.h"
#include "fusion/parser.h"
#include "fusion/svcomp_tasks.h"
#include "fusion/verifier.h"

namespace {

// The four configurations: fusion on or off, affine invariants on or off.
struct Config {
  const char* name;
  bool fusion, affine;
};
constexpr Config kConfigs[] = {
    {"fused", true, true}, {"unfused", false, true}, {"fused, no affine", true, false}, {"Spacer alone", false, false}};
constexpr size_t kRuns = std::size(kConfigs);

// One row of the table: a task and its verdict in each configuration.
struct Row {
  std::string task, expected;
  std::array<fusion::Verdict, kRuns> runs;
};

// The verdict, or unknown with the reason when the program is outside the subset.
fusion::Verdict Run(const std::string& file, fusion::DataModel model, double timeout, const Config& config) {
  try {
    return fusion::Verify(fusion::ParseFile(file, model),
                          fusion::VerifyOptions{timeout, config.fusion, 0, config.affine});
  } catch (const fusion::UnsupportedError& e) {
    fusion::Verdict v;
    v.reason = e.what();
    return v;
  }
}

// True when the accepted proof rests on a fusion (aligned or guess-and-assume), not only on the other
// transformations (unrolling, a loop taken out of an if) or on none ("...: none" halves of a split).
bool Fused(const fusion::Verdict& v) {
  return std::any_of(v.transformations.begin(), v.transformations.end(),
                     [](const std::string& t) { return t.find("fusion") != std::string::npos; });
}

double Median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  const size_t n = xs.size();
  return n == 0 ? 0 : n % 2 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : std::string(SHARED_DATA_DIR) + "/fusion/svcomp";
  const double timeout = argc > 2 ? std::stod(argv[2]) : 10.0;
  const auto tasks = fusion::ReadManifest(dir);
  if (tasks.empty()) {
    fmt::print(stderr, "loopfuse_bench: no tasks in {}/MANIFEST.tsv\n", dir);
    return 2;
  }
  std::vector<Row> rows;
  for (const auto& t : tasks) {
    Row r{t.name, t.expected, {}};
    std::string line = fmt::format("{}: expected {}", r.task, r.expected);
    for (size_t k = 0; k < kRuns; ++k) {
      r.runs[k] = Run(t.file, t.data_model, timeout, kConfigs[k]);
      line += fmt::format(", {} {} ({:.2f} s)", kConfigs[k].name, r.runs[k].verdict, r.runs[k].seconds);
    }
    fmt::print(stderr, "{}\n", line);
    rows.push_back(std::move(r));
  }
  std::array<int, kRuns> correct{};
  std::array<std::vector<double>, kRuns> times;
  int wrong = 0, only_fused = 0, only_fused_no_affine = 0;
  // Proved fused (with or without the affine invariants, by index) and not unfused under the same setting.
  const auto fusion_only = [](const Row& r, size_t fused, size_t unfused) {
    return r.runs[fused].verdict == r.expected && r.runs[unfused].verdict != r.expected && Fused(r.runs[fused]);
  };
  fmt::print("| task | expected |");
  for (const Config& c : kConfigs) fmt::print(" {} | s |", c.name);
  fmt::print(" proved by (fused) |\n|---|---|");
  for (size_t k = 0; k < kRuns; ++k) fmt::print("---|---|");
  fmt::print("---|\n");
  for (const Row& r : rows) {
    fmt::print("| {} | {} |", r.task, r.expected);
    for (size_t k = 0; k < kRuns; ++k) {
      const fusion::Verdict& v = r.runs[k];
      correct[k] += v.verdict == r.expected;
      wrong += v.verdict != "unknown" && v.verdict != r.expected;
      times[k].push_back(v.seconds);
      fmt::print(" {} | {:.2f} |", v.verdict, v.seconds);
    }
    only_fused += fusion_only(r, 0, 1);
    only_fused_no_affine += fusion_only(r, 2, 3);
    fmt::print(" {} |\n", r.runs[0].solved_by);
  }
  fmt::print("\n**Summary** (time limit {} s per run):", timeout);
  for (size_t k = 0; k < kRuns; ++k) {
    fmt::print(" {} {}/{} correct (median {:.2f} s){}", kConfigs[k].name, correct[k], rows.size(), Median(times[k]),
               k + 1 < kRuns ? "," : ";");
  }
  fmt::print(" {} wrong verdicts; proved only with fusion: {} (with the affine invariants), {} (without).\n", wrong,
             only_fused, only_fused_no_affine);
  return wrong == 0 ? 0 : 1;
}
