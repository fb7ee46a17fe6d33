// Runs loopfuse's verifier on the 31 shared SV-COMP tasks, with and without fusion, and prints a
// Markdown table (expected verdict, verdict and time fused, verdict and time unfused) with a summary.
// Usage: loopfuse_bench [svcomp dir] [timeout seconds per run]
#include <fmt/core.h>

#include <algorithm>
#include <string>
#include <vector>

#include "fusion/errors.h"
#include "fusion/parser.h"
#include "fusion/svcomp_tasks.h"
#include "fusion/verifier.h"

namespace {

// One row of the table.
struct Row {
  std::string task, expected;
  fusion::Verdict fused, unfused;
};

// The verdict, or unknown with the reason when the program is outside the subset.
fusion::Verdict Run(const std::string& file, double timeout, bool fusion_on) {
  try {
    return fusion::Verify(fusion::ParseFile(file), fusion::VerifyOptions{timeout, fusion_on});
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
    Row r{t.name, t.expected, Run(t.file, timeout, true), Run(t.file, timeout, false)};
    fmt::print(stderr, "{}: expected {}, fused {} ({:.2f} s), unfused {} ({:.2f} s)\n", r.task, r.expected,
               r.fused.verdict, r.fused.seconds, r.unfused.verdict, r.unfused.seconds);
    rows.push_back(std::move(r));
  }
  int fused_ok = 0, unfused_ok = 0, wrong = 0, only_fused = 0;
  std::vector<double> fused_times, unfused_times;
  fmt::print("| task | expected | fused | s | unfused | s | proved by |\n|---|---|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    fused_ok += r.fused.verdict == r.expected;
    unfused_ok += r.unfused.verdict == r.expected;
    for (const auto* v : {&r.fused, &r.unfused}) wrong += v->verdict != "unknown" && v->verdict != r.expected;
    only_fused += r.fused.verdict == r.expected && r.unfused.verdict != r.expected && Fused(r.fused);
    fused_times.push_back(r.fused.seconds);
    unfused_times.push_back(r.unfused.seconds);
    fmt::print("| {} | {} | {} | {:.2f} | {} | {:.2f} | {} |\n", r.task, r.expected, r.fused.verdict, r.fused.seconds,
               r.unfused.verdict, r.unfused.seconds, r.fused.solved_by);
  }
  fmt::print("\n**Summary** (time limit {} s per run): fused {}/{} correct, unfused {}/{} correct, {} wrong verdicts, "
             "{} proved only with fusion, median time fused {:.2f} s, unfused {:.2f} s.\n",
             timeout, fused_ok, rows.size(), unfused_ok, rows.size(), wrong, only_fused, Median(fused_times),
             Median(unfused_times));
  return wrong == 0 ? 0 : 1;
}
