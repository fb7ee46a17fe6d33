// Replays, without libFuzzer, every seed of a fuzz target (fuzz/corpus/TARGET/ and the directories
// fuzz/seed_dirs.txt names) and every input a fuzzer once crashed on (fuzz/regressions/TARGET/, kept after
// the fix) through the target's check (fuzz/harness.h). With FUZZ_RANDOM_INPUTS=N it also hunts: N random
// inputs through each check (docs/reliability.md, "Fuzzing").
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <string>

#include "fuzz/harness.h"

namespace {

namespace fs = std::filesystem;

// Runs `check` on every file of `dir` (none when it does not exist); returns how many there were.
int Replay(const fs::path& dir, const std::function<void(std::string_view)>& check) {
  int files = 0;
  if (!fs::exists(dir)) return files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    SCOPED_TRACE(entry.path().string());
    EXPECT_NO_THROW(check(text.str()));
    ++files;
  }
  return files;
}

// FUZZ_RANDOM_INPUTS=N runs N random inputs (16 to 127 bytes, from FUZZ_RANDOM_SEED, default 1) through
// `check`: a hunt in whatever build runs the test (the Release build checks loopfuse's verdicts several times
// faster than libFuzzer under ASan). Each input that fails is written to fuzz-failure-TARGET-K in the working
// directory, to be fixed and copied into fuzz/regressions/TARGET/. A count goes to stderr every 100 inputs,
// so that a hunt stopped from outside says how far it got. Nothing without the variable.
void RandomInputs(const std::string& target, const std::function<void(std::string_view)>& check) {
  const char* count = std::getenv("FUZZ_RANDOM_INPUTS");
  if (!count) return;
  const char* seed = std::getenv("FUZZ_RANDOM_SEED");
  std::mt19937 rng(seed ? std::stoul(seed) : 1);
  const long inputs = std::stol(count);
  long failed = 0;
  for (long k = 0; k < inputs; ++k) {
    std::string data(16 + rng() % 112, '\0');
    for (char& c : data) c = static_cast<char>(rng());
    try {
      check(data);
    } catch (const std::exception& e) {
      const std::string file = "fuzz-failure-" + target + "-" + std::to_string(k);
      std::ofstream(file, std::ios::binary) << data;
      ADD_FAILURE() << "random input " << k << " (written to " << file << "): " << e.what();
      ++failed;
    }
    if ((k + 1) % 100 == 0 || k + 1 == inputs) {
      std::cerr << target << ": " << k + 1 << " of " << inputs << " random inputs, " << failed << " failed\n";
    }
  }
}

// Each target has seeds, so that a renamed directory cannot silently turn its replay into a no-op.
void ReplayTarget(const std::string& target, const std::function<void(std::string_view)>& check) {
  const fs::path fuzz_dir(FUZZ_DIR);
  EXPECT_GT(Replay(fuzz_dir / "corpus" / target, check), 0) << "no seeds for " << target;
  std::ifstream list(fuzz_dir / "seed_dirs.txt");
  std::string name, dir;
  while (list >> name) {
    if (name[0] == '#') {
      std::getline(list, dir);
    } else if (list >> dir && name == target) {
      EXPECT_GT(Replay(fuzz_dir.parent_path() / dir, check), 0) << dir << " has no seeds";
    }
  }
  Replay(fuzz_dir / "regressions" / target, check);
  RandomInputs(target, check);
}

TEST(FuzzRegressions, CsvReader) { ReplayTarget("csv_reader", fuzz::CheckCsvReader); }
TEST(FuzzRegressions, CachingReplay) { ReplayTarget("caching_replay", fuzz::CheckCachingReplay); }
TEST(FuzzRegressions, GraphReader) { ReplayTarget("graph_reader", fuzz::CheckGraphReader); }
TEST(FuzzRegressions, RematPlanners) { ReplayTarget("remat_planners", fuzz::CheckRematPlanners); }
TEST(FuzzRegressions, CParser) { ReplayTarget("c_parser", fuzz::CheckCParser); }
TEST(FuzzRegressions, AllocPlanners) { ReplayTarget("alloc_planners", fuzz::CheckAllocPlanners); }
TEST(FuzzRegressions, LoopfuseVerdicts) { ReplayTarget("loopfuse_verdicts", fuzz::CheckLoopfuseVerdicts); }
TEST(FuzzRegressions, LoopfuseNests) { ReplayTarget("loopfuse_nests", fuzz::CheckLoopfuseNestVerdicts); }

}  // namespace
