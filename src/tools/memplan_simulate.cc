// The subcommands of memplan that replay and make allocation patterns: simulate and gen.
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "alloc/caching_allocator.h"
#include "alloc/converter.h"
#include "alloc/generator.h"
#include "common/atomic_file.h"
#include "common/error.h"
#include "common/exit_codes.h"
#include "tools/cli_checks.h"
#include "tools/commands.h"
#include "tools/planning.h"

namespace tools {
namespace {

// Options of `memplan simulate`.
struct SimulateOptions {
  std::string input;
  std::string replay;                      // --replay: a recording of the real allocator instead of a pattern
  std::optional<alloc::TimeValue> period;  // --period; else the sidecar's (tools::ReadTrace)
  std::optional<std::string> conf;  // --conf; when absent, the PYTORCH_CUDA_ALLOC_CONF variable
  alloc::Bytes device_memory = 0;
  double memory_fraction = 0;
  bool json = false;
};

// `memplan simulate --replay`: the model against a recording of the real allocator, placement by placement.
int RunReplay(const SimulateOptions& options) {
  const alloc::CachingReplay replay = alloc::ReadCachingReplay(options.replay);
  // The recording's own settings, unless --conf says otherwise: they are what the real allocator ran with.
  const std::string conf = options.conf.value_or(replay.conf);
  alloc::CachingAllocatorConfig config =
      alloc::CachingAllocatorConfig::Parse(conf, options.conf ? "--conf" : options.replay + ": conf");
  if (config.expandable_segments) {
    throw common::InputError(options.replay + ": expandable segments: a replay of them is not modelled");
  }
  const alloc::CachingReplayResult r = alloc::ReplayCachingAllocator(replay, config);
  const double share = r.allocations > 0 ? static_cast<double>(r.at_real_address) / r.allocations : 1.0;
  if (options.json) {
    nlohmann::json j = {{"replay", options.replay},
                        {"conf", conf},
                        {"allocations", r.allocations},
                        {"at_real_address", r.at_real_address},
                        {"share_at_real_address", share},
                        {"first_mismatch", nullptr},
                        {"real_peak_reserved", r.real_peak_reserved},
                        {"model_peak_reserved", r.model_peak_reserved},
                        {"real_segments_allocated", r.real_segments_allocated},
                        {"model_segments_allocated", r.model_segments_allocated},
                        {"real_segments_released", r.real_segments_released},
                        {"model_segments_released", r.model_segments_released},
                        {"unknown_frees", r.unknown_frees},
                        {"out_of_memory", r.out_of_memory}};
    if (r.first_mismatch) {
      j["first_mismatch"] = {{"event", r.first_mismatch->event},
                             {"size", r.first_mismatch->size},
                             {"real_address", r.first_mismatch->real_address},
                             {"model_address", r.first_mismatch->model_address}};
    }
    fmt::print("{}\n", j.dump());
  } else {
    fmt::print("{}: a recording of PyTorch's caching allocator replayed through the model, conf \"{}\"\n",
               options.replay, conf);
    fmt::print("  allocations          {:>16}\n", r.allocations);
    fmt::print("  at the real address  {:>16} ({:.3f} %)\n", r.at_real_address, 100 * share);
    if (r.first_mismatch) {
      fmt::print("  first elsewhere      event {}: {} B at {:#x}, the real one at {:#x}\n", r.first_mismatch->event,
                 r.first_mismatch->size, r.first_mismatch->model_address, r.first_mismatch->real_address);
    }
    fmt::print("  peak reserved        {:>16} B real, {} B model\n", r.real_peak_reserved, r.model_peak_reserved);
    fmt::print("  segments allocated   {:>16} real, {} model\n", r.real_segments_allocated,
               r.model_segments_allocated);
    if (r.unknown_frees > 0) {
      fmt::print("  frees of addresses the replay did not hand out: {} (the recording lost events)\n",
                 r.unknown_frees);
    }
    if (r.out_of_memory) fmt::print("  the model ran out of device memory; the replay stopped there\n");
  }
  return common::kExitOk;
}

int RunSimulate(const SimulateOptions& options) {
  if (options.replay.empty() == options.input.empty()) {
    throw common::InputError("simulate takes a pattern (CSV) or --replay R.json, one of the two");
  }
  if (!options.replay.empty()) return RunReplay(options);
  std::string conf;
  alloc::CachingAllocatorConfig config = CachingConfigFromEnvironment(options.conf, &conf);
  config.device_memory = options.device_memory;
  config.memory_fraction = options.memory_fraction;
  const Trace trace = ReadTrace(options.input, options.period);
  const alloc::Problem& problem = trace.problem;
  const alloc::CachingAllocatorResult r = alloc::SimulateCachingAllocator(problem, config);
  // The simulation's counterpart: what the real allocator reserved for the iteration, when the sidecar recorded it.
  const std::optional<alloc::Bytes> recorded =
      trace.period.sidecar ? trace.period.sidecar->IterationReserved() : std::nullopt;

  if (options.json) {
    nlohmann::json j = {{"input", options.input},
                        {"buffers", problem.buffers.size()},
                        {"conf", conf},
                        {"iterations", r.iterations},
                        {"lb", r.lower_bound},
                        {"peak_reserved", r.peak_reserved},
                        {"peak_allocated", r.peak_allocated},
                        {"peak_requested", r.peak_requested},
                        {"segments_allocated", r.segments_allocated},
                        {"segments_released", r.segments_released},
                        {"alloc_retries", r.alloc_retries},
                        {"out_of_memory", r.out_of_memory},
                        {"period", problem.period},
                        {"recorded_reserved", recorded ? nlohmann::json(*recorded) : nlohmann::json()}};
    if (recorded) j["recorded_fragmentation"] = alloc::Fragmentation(*recorded, r.lower_bound);
    // After an out-of-memory error the peaks cover only part of the pattern: no fragmentation then.
    if (r.out_of_memory) {
      j["oom_buffer"] = r.oom_buffer;
      j["fragmentation"] = nullptr;
      j["wasted_share"] = nullptr;
    } else {
      j["fragmentation"] = r.Fragmentation();
      j["wasted_share"] = r.WastedShare();
    }
    fmt::print("{}\n", j.dump());
  } else {
    fmt::print("{}: {} buffers, PyTorch caching allocator, conf \"{}\"{}\n", options.input, problem.buffers.size(),
               conf, r.iterations > 1 ? " (second iteration of two)" : "");
    fmt::print("  LB (peak load)       {:>16} B\n", r.lower_bound);
    fmt::print("  peak reserved        {:>16} B\n", r.peak_reserved);
    fmt::print("  peak allocated       {:>16} B\n", r.peak_allocated);
    fmt::print("  segments allocated   {:>16}\n", r.segments_allocated);
    fmt::print("  segments released    {:>16}\n", r.segments_released);
    if (!r.out_of_memory) {
      fmt::print("  fragmentation        {:>16.3f} % (reserved/LB - 1); {:.3f} % of reserved is wasted\n",
                 100 * r.Fragmentation(), 100 * r.WastedShare());
    }
    if (recorded) {
      fmt::print("  recorded reserved    {:>16} B (PyTorch, {}: its peak reservation less the persistent bytes), "
                 "{:.3f} % above LB\n", *recorded, trace.period.sidecar->path,
                 100 * alloc::Fragmentation(*recorded, r.lower_bound));
    }
  }
  if (r.out_of_memory) {
    fmt::print(stderr, "memplan: out of memory: allocating '{}' fails on a device of {} B\n", r.oom_buffer,
               options.device_memory);
    return common::kExitTargetMissed;
  }
  return common::kExitOk;
}

// Options of `memplan gen`.
struct GenOptions {
  alloc::GeneratorOptions generator;
  std::string output;  // empty: stdout
  bool json = false;   // with an output file: a summary on stdout
};

int RunGen(const GenOptions& options) {
  const alloc::Problem problem = alloc::Generate(options.generator);
  const std::string text = alloc::FormatProblem(problem);
  if (options.output.empty()) {
    fmt::print("{}", text);
  } else {
    common::WriteFileAtomically(options.output, text);
  }
  if (options.json) {
    const nlohmann::json summary = {{"output", options.output},     {"family", options.generator.family},
                                    {"buffers", problem.buffers.size()}, {"seed", options.generator.seed},
                                    {"lb", alloc::PeakLoad(problem)}};
    fmt::print("{}\n", summary.dump());
  }
  return common::kExitOk;
}

}  // namespace

void AddSimulateCommands(CLI::App& app, CommandResult& result) {
  auto simulate = std::make_shared<SimulateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "simulate", "Replay a pattern through PyTorch's CUDA caching allocator: peak reserved memory and fragmentation");
  cmd->add_option("input", simulate->input, "Problem CSV (id,lower,upper,size)");
  cmd->add_option("--replay", simulate->replay,
                  "Instead of a pattern: a recording of the real allocator (caching-replay/v1, from memplan-torch "
                  "import-snapshot --replay), replayed from its start state; how many placements match");
  cmd->add_option("--period", simulate->period, "Pattern repeats every P time units (reports the second iteration; "
                                                "default: the sidecar's, as for alloc)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--conf", simulate->conf,
                  "PYTORCH_CUDA_ALLOC_CONF-style settings, e.g. max_split_size_mb:128,expandable_segments:True "
                  "(default: the PYTORCH_CUDA_ALLOC_CONF variable)");
  CLI::Option* device = cmd->add_option("--device-memory", simulate->device_memory,
                                        "Device memory: bytes, or with a unit (KiB, MiB, GiB: powers of 1024; KB, MB, "
                                        "GB: powers of 1000); default unlimited")
                            ->transform(PositiveByteCount());
  cmd->add_option("--memory-fraction", simulate->memory_fraction,
                  "As torch.cuda.set_per_process_memory_fraction (enables garbage_collection_threshold)")
      ->check(FiniteNumber(0, 1))
      ->needs(device);
  cmd->add_flag("--json", simulate->json, "Print the summary as one JSON object");
  cmd->callback([simulate, &result] { result.exit_status = RunSimulate(*simulate); });

  auto gen = std::make_shared<GenOptions>();
  CLI::App* gcmd = app.add_subcommand("gen", "Generate a random allocation problem (families: docs/generator.md)");
  gcmd->add_option("--family", gen->generator.family, "uniform, heavy or training")
      ->check(CLI::IsMember(alloc::GeneratorFamilies()));
  gcmd->add_option("-n", gen->generator.n, "Number of buffers")->check(CLI::PositiveNumber);
  gcmd->add_option("--seed", gen->generator.seed, "Random seed");
  gcmd->add_flag("--recompute", gen->generator.recompute, "training: recompute checkpoint segments in the backward pass");
  CLI::Option* output = gcmd->add_option("-o,--output", gen->output, "Output CSV (default: standard output)");
  gcmd->add_flag("--json", gen->json, "Print a JSON summary (buffers, LB) on stdout; needs -o")->needs(output);
  gcmd->callback([gen, &result] { result.exit_status = RunGen(*gen); });
}

}  // namespace tools
