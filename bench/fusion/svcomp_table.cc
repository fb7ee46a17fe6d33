// Runs loopfuse's verifier on the 31 shared SV-COMP tasks, with and without fusion, each with and without
// the affine invariants, and prints a Markdown table (expected verdict, verdict and time of each run) with a
// summary. Unfused without the affine invariants, and without the proofs by concrete runs (the only run,
// every run), is the baseline: Spacer alone on loopfuse's encoding.
// Usage: loopfuse_bench [dir] [timeout seconds per run] [fused]
// dir holds a MANIFEST.tsv (the shared set), or else SV-COMP task files (.yml, in any subfolder: a checkout of
// sv-benchmarks' folders), each with an expected verdict for unreach-call; `fused` runs only the first
// configuration, with the reason of each unknown in the last column.
#include <fmt/core.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "fusion/errors.h"
#include "fusion/parser.h"
#include "fusion/svcomp_tasks.h"
#include "fusion/verifier.h"

namespace {

// The four configurations: fusion on or off, affine invariants on or off; the baseline proves by the clauses
// only.
struct Config {
  const char* name;
  bool fusion, affine, proofs_by_runs;
};
constexpr Config kConfigs[] = {{"fused", true, true, true},
                               {"unfused", false, true, true},
                               {"fused, no affine", true, false, true},
                               {"Spacer alone", false, false, false}};

// One row of the table: a task and its verdict in each configuration run.
struct Row {
  std::string task, expected;
  std::vector<fusion::Verdict> runs;
};

// The verdict, or unknown with the reason when the program is outside the subset.
fusion::Verdict Run(const std::string& file, fusion::DataModel model, double timeout, const Config& config) {
  return fusion::VerifyFile(file, model,
                            fusion::VerifyOptions{timeout, config.fusion, 0, config.affine, config.proofs_by_runs});
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
  const bool fused_only = argc > 3 && std::string(argv[3]) == "fused";
  const size_t runs = fused_only ? 1 : std::size(kConfigs);
  std::vector<fusion::SvCompTask> tasks;
  try {
    tasks = fusion::ReadManifest(dir);
    if (tasks.empty()) tasks = fusion::ReadTaskDirectory(dir);
  } catch (const std::exception& e) {
    fmt::print(stderr, "loopfuse_bench: {}\n", e.what());
    return 2;
  }
  if (tasks.empty()) {
    fmt::print(stderr, "loopfuse_bench: no tasks in {} (no MANIFEST.tsv, no task file with an unreach-call verdict)\n",
               dir);
    return 2;
  }
  std::vector<Row> rows;
  for (const auto& t : tasks) {
    Row r{t.name, t.expected, {}};
    std::string line = fmt::format("{}: expected {}", r.task, r.expected);
    for (size_t k = 0; k < runs; ++k) {
      r.runs.push_back(Run(t.file, t.data_model, timeout, kConfigs[k]));
      line += fmt::format(", {} {} ({:.2f} s)", kConfigs[k].name, r.runs[k].verdict, r.runs[k].seconds);
    }
    fmt::print(stderr, "{}\n", line);
    rows.push_back(std::move(r));
  }
  std::vector<int> correct(runs);
  std::vector<std::vector<double>> times(runs);
  int wrong = 0, only_fused = 0, only_fused_no_affine = 0;
  // Proved fused (with or without the affine invariants, by index) and not unfused under the same setting.
  const auto fusion_only = [](const Row& r, size_t fused, size_t unfused) {
    return r.runs[fused].verdict == r.expected && r.runs[unfused].verdict != r.expected && Fused(r.runs[fused]);
  };
  fmt::print("| task | expected |");
  for (size_t k = 0; k < runs; ++k) fmt::print(" {} | s |", kConfigs[k].name);
  fmt::print(" {} |\n|---|---|", fused_only ? "proved by, or why not" : "proved by (fused)");
  for (size_t k = 0; k < runs; ++k) fmt::print("---|---|");
  fmt::print("---|\n");
  for (const Row& r : rows) {
    fmt::print("| {} | {} |", r.task, r.expected);
    for (size_t k = 0; k < runs; ++k) {
      const fusion::Verdict& v = r.runs[k];
      correct[k] += v.verdict == r.expected;
      wrong += v.verdict != "unknown" && v.verdict != r.expected;
      times[k].push_back(v.seconds);
      fmt::print(" {} | {:.2f} |", v.verdict, v.seconds);
    }
    if (!fused_only) {
      only_fused += fusion_only(r, 0, 1);
      only_fused_no_affine += fusion_only(r, 2, 3);
    }
    const fusion::Verdict& first = r.runs[0];
    std::string why = first.verdict == "unknown" ? first.reason.substr(0, 120) : first.solved_by;
    std::replace(why.begin(), why.end(), '|', '/');
    fmt::print(" {} |\n", why);
  }
  fmt::print("\n**Summary** (time limit {} s per run):", timeout);
  for (size_t k = 0; k < runs; ++k) {
    fmt::print(" {} {}/{} correct (median {:.2f} s){}", kConfigs[k].name, correct[k], rows.size(), Median(times[k]),
               k + 1 < runs ? "," : ";");
  }
  fmt::print(" {} wrong verdicts", wrong);
  if (!fused_only) {
    fmt::print("; proved only with fusion: {} (with the affine invariants), {} (without)", only_fused,
               only_fused_no_affine);
  }
  fmt::print(".\n");
  return wrong == 0 ? 0 : 1;
}
