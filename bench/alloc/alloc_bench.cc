// Benchmark of the allocation planners: one table row per input with the lower bound, then height,
// fragmentation and time of every greedy baseline, of the simulated PyTorch caching allocator and of the
// annealing planner, all measured in the same run. Prints Markdown (the README's table comes from here).
//
//   alloc_bench [--sizes 1000,10000,100000] [--million] [--data DIR] [--schedules DIR] [--skip-slow-best-fit N]
#include <fmt/core.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "alloc/caching_allocator.h"
#include "alloc/converter.h"
#include "alloc/generator.h"
#include "alloc/planner.h"
#include "alloc/validator.h"
#include "common/atomic_file.h"
#include "common/progress.h"
#include "common/stopwatch.h"

namespace {

// One benchmark input.
struct Input {
  std::string name;
  alloc::Problem problem;
};

// Peak resident memory of this process so far, in MiB.
double PeakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// "H (frag %)" cell.
std::string Cell(alloc::Bytes height, alloc::Bytes lb) {
  return fmt::format("{} ({:.2f} %)", height, 100 * alloc::Fragmentation(height, lb));
}

void Row(const Input& input, const std::vector<std::string>& methods, size_t skip_best_fit_above,
         const alloc::PlanOptions& sa_options) {
  const alloc::Problem& p = input.problem;
  common::Progress quiet(false);
  const alloc::Bytes lb = alloc::PeakLoad(p);
  std::string line = fmt::format("| {} | {} | {} |", input.name, p.buffers.size(), lb);
  std::string times;
  double candidates_per_second = 0;
  for (const std::string& method : methods) {
    const bool slow = p.buffers.size() > skip_best_fit_above &&
                      (method == "best-fit" || method == "xla" || method == "online-best-fit");
    if (slow) {
      line += " skipped |";
      times += " – |";
      continue;
    }
    alloc::PlanOptions options = sa_options;
    options.method = method;
    const alloc::PlanResult r = alloc::PlanAllocation(p, options, quiet);
    const alloc::ValidationReport report = alloc::Validate(p, r.solution);
    if (!report.ok()) throw std::runtime_error(fmt::format("{} on {}: invalid plan: {}", method, input.name, report.errors[0]));
    line += " " + Cell(r.height, lb) + " |";
    times += fmt::format(" {:.3f} |", r.seconds);
    if (method == "sa" && r.seconds > 0) candidates_per_second = static_cast<double>(r.candidates_scored) / r.seconds;
  }
  common::Stopwatch clock;
  const alloc::CachingAllocatorResult caching = alloc::SimulateCachingAllocator(p, alloc::CachingAllocatorConfig{});
  line += " " + Cell(caching.peak_reserved, lb) + " |";
  times += fmt::format(" {:.3f} |", clock.Seconds());
  fmt::print("{} {:.3g} |\n", line, candidates_per_second);
  fmt::print("| ↳ time s | | |{} |\n", times);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Allocation planner benchmark (Markdown table on stdout)"};
  std::vector<int64_t> sizes = {1000, 10000, 100000};
  std::string data = SHARED_DATA_DIR;
  bool million = false;
  size_t skip_best_fit_above = 200000;
  alloc::PlanOptions sa_options;
  sa_options.time_limit_s = 60;
  app.add_option("--sizes", sizes, "Generated instance sizes")->delimiter(',');
  app.add_option("--data", data, "Shared data folder (MiniMalloc inputs under alloc/minimalloc)");
  std::string schedules = SCHEDULES_DIR;
  app.add_option("--schedules", schedules, "Buffers of recomputation schedules, one CSV each (\"\": none)");
  app.add_flag("--million", million, "Also run the 1M-buffer read / greedy plan / validate check");
  app.add_option("--skip-slow-best-fit", skip_best_fit_above, "Skip best-fit variants above this many buffers");
  app.add_option("--time-limit", sa_options.time_limit_s, "Annealing time cap per input (s)");
  app.add_option("--moves", sa_options.moves, "Annealing moves per input (default: the planner's own)");
  std::vector<std::string> methods = alloc::Methods();
  app.add_option("--methods", methods, "Methods to compare (default: all)")->delimiter(',');
  CLI11_PARSE(app, argc, argv);

  std::string header = "| input | N | LB |";
  std::string rule = "|---|---|---|";
  for (const auto& m : methods) {
    header += " " + m + " |";
    rule += "---|";
  }
  fmt::print("{} pytorch-caching (simulated) | sa candidates/s |\n{}---|---|\n", header, rule);

  const std::filesystem::path minimalloc = std::filesystem::path(data) / "alloc" / "minimalloc";
  for (const char* name : {"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K"}) {
    const std::filesystem::path file = minimalloc / (std::string(name) + ".1048576.csv");
    if (!std::filesystem::exists(file)) continue;
    Row({std::string("minimalloc ") + name, alloc::ReadProblem(file.string())}, methods, skip_best_fit_above, sa_options);
  }
  if (!schedules.empty()) {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(schedules)) {
      if (entry.path().extension() == ".csv") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      Row({"schedule " + file.stem().string(), alloc::ReadProblem(file.string())}, methods, skip_best_fit_above,
          sa_options);
    }
  }
  for (int64_t n : sizes) {
    for (const char* family : {"uniform", "heavy", "training", "training+recompute"}) {
      alloc::GeneratorOptions g;
      g.family = std::string(family).substr(0, std::string(family).find('+'));
      g.recompute = std::string(family).find("recompute") != std::string::npos;
      g.n = n;
      g.seed = 1;
      Row({fmt::format("{} {}", family, n), alloc::Generate(g)}, methods, skip_best_fit_above, sa_options);
    }
  }

  if (million) {
    // Read, plan greedily, validate: the path a user with a million-buffer trace takes.
    alloc::GeneratorOptions g;
    g.family = "uniform";
    g.n = 1'000'000;
    const std::string path = (std::filesystem::temp_directory_path() / "memplan_bench_1m.csv").string();
    common::WriteFileAtomically(path, alloc::FormatProblem(alloc::Generate(g)));
    common::Stopwatch clock;
    const alloc::Problem p = alloc::ReadProblem(path);
    const double read_s = clock.Seconds();
    common::Progress quiet(false);
    alloc::PlanOptions options;
    options.method = "first-fit";
    const alloc::PlanResult r = alloc::PlanAllocation(p, options, quiet);
    const double plan_s = clock.Seconds() - read_s;
    const bool valid = alloc::Validate(p, r.solution).ok();
    const double total_s = clock.Seconds();
    std::filesystem::remove(path);
    fmt::print("\n1M buffers (uniform): read {:.2f} s, first-fit {:.2f} s, validate {:.2f} s, total {:.2f} s, "
               "{} ({:.2f} % over LB), peak RSS {:.0f} MiB\n",
               read_s, plan_s, total_s - read_s - plan_s, total_s, valid ? "valid" : "INVALID",
               100 * alloc::Fragmentation(r.height, r.lower_bound), PeakRssMiB());
  }
  return 0;
}
