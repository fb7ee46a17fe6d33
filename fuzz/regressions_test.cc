// Replays, without libFuzzer, every seed of a fuzz target (fuzz/corpus/TARGET/ and the directories
// fuzz/seed_dirs.txt names) and every input a fuzzer once crashed on (fuzz/regressions/TARGET/, kept after
// the fix) through the target's check (fuzz/harness.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
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
}

TEST(FuzzRegressions, CsvReader) { ReplayTarget("csv_reader", fuzz::CheckCsvReader); }
TEST(FuzzRegressions, CachingReplay) { ReplayTarget("caching_replay", fuzz::CheckCachingReplay); }
TEST(FuzzRegressions, GraphReader) { ReplayTarget("graph_reader", fuzz::CheckGraphReader); }
TEST(FuzzRegressions, RematPlanners) { ReplayTarget("remat_planners", fuzz::CheckRematPlanners); }
TEST(FuzzRegressions, CParser) { ReplayTarget("c_parser", fuzz::CheckCParser); }
TEST(FuzzRegressions, AllocPlanners) { ReplayTarget("alloc_planners", fuzz::CheckAllocPlanners); }
TEST(FuzzRegressions, LoopfuseVerdicts) { ReplayTarget("loopfuse_verdicts", fuzz::CheckLoopfuseVerdicts); }

}  // namespace
