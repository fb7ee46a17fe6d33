// End-to-end runs of `memplan alloc` and `memplan validate`: the real executable on real files.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "alloc/converter.h"
#include "alloc/validator.h"
#include "common/exit_codes.h"
#include "support/cli_test.h"

namespace {

class AllocCli : public testing_support::CliTest {};

const char* kFive = "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n";

TEST_F(AllocCli, PlansValidatesAndReportsJson) {
  const std::string input = Write("p.csv", kFive);
  ASSERT_EQ(Memplan("alloc " + input + " -o " + Path("plan.csv") + " --json --validate"), common::kExitOk) << err_;
  const nlohmann::json j = nlohmann::json::parse(out_);
  EXPECT_EQ(j["method"], "exact+sa");
  EXPECT_EQ(j["lb"], 12);
  EXPECT_TRUE(j["proven_optimal"].get<bool>());
  EXPECT_EQ(j["height"], 12);
  EXPECT_DOUBLE_EQ(j["fragmentation"].get<double>(), 0.0);
  EXPECT_TRUE(j.contains("seconds"));
  // The independent validator accepts the written plan.
  ASSERT_EQ(Memplan("validate " + input + " " + Path("plan.csv")), common::kExitOk) << err_ << out_;
  EXPECT_NE(out_.find("valid"), std::string::npos);
  const alloc::Problem problem = alloc::ReadProblem(input);
  const alloc::PlanRows rows = alloc::ReadPlanRows(Path("plan.csv"), problem);
  EXPECT_TRUE(alloc::Validate(problem, rows.offsets).ok());
}

TEST_F(AllocCli, ComparisonTableHasEveryMethodAndTheCachingAllocator) {
  const std::string input = Write("p.csv", kFive);
  ASSERT_EQ(Memplan("alloc " + input + " --method all"), common::kExitOk) << err_;
  for (const char* row : {"sa", "exact", "exact+sa", "first-fit", "best-fit", "xla", "online-first-fit", "online-best-fit", "pytorch-caching"}) {
    EXPECT_NE(out_.find(std::string("\n") + row + " "), std::string::npos) << row << "\n" << out_;
  }
  EXPECT_NE(out_.find("LB (peak load) 12 B"), std::string::npos) << out_;
}

TEST_F(AllocCli, CapacityDecidesTheExitStatus) {
  const std::string input = Write("p.csv", kFive);
  EXPECT_EQ(Memplan("alloc " + input + " -o " + Path("a.csv") + " --capacity 12"), common::kExitOk) << err_;
  EXPECT_EQ(Memplan("alloc " + input + " -o " + Path("b.csv") + " --capacity 11 --moves 200"), common::kExitTargetMissed);
  EXPECT_NE(err_.find("exceeds the capacity 11"), std::string::npos) << err_;
  EXPECT_TRUE(std::filesystem::exists(Path("b.csv")));  // the best plan is still written
  // A unit, as in --budget: 0.012KB is 12 bytes; below one byte is refused.
  EXPECT_EQ(Memplan("alloc " + input + " -o " + Path("c.csv") + " --capacity 0.012KB"), common::kExitOk) << err_;
  EXPECT_EQ(Memplan("alloc " + input + " -o " + Path("d.csv") + " --capacity 0.011kb --moves 200"),
            common::kExitTargetMissed);
  EXPECT_EQ(Memplan("alloc " + input + " -o " + Path("e.csv") + " --capacity 0.5B"), common::kExitBadInput);
  EXPECT_NE(err_.find("--capacity: '0.5B' is not at least 1 byte"), std::string::npos) << err_;
  EXPECT_EQ(Memplan("alloc " + input + " -o " + Path("e.csv") + " --capacity 12XB"), common::kExitBadInput);
  EXPECT_NE(err_.find("--capacity: '12XB' is not a byte count like 1048576, 512MiB or 80GB"), std::string::npos)
      << err_;
  EXPECT_FALSE(std::filesystem::exists(Path("e.csv")));
}

TEST_F(AllocCli, SvgPictureIsWritten) {
  const std::string input = Write("p.csv", kFive);
  ASSERT_EQ(Memplan("alloc " + input + " --svg " + Path("plan.svg")), common::kExitOk) << err_;
  const std::string svg = Slurp(Path("plan.svg"));
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("LB 12"), std::string::npos);
  EXPECT_NE(svg.find("<title>b5: size 4 B, time [0, 21)"), std::string::npos);
}

TEST_F(AllocCli, PeriodWrapsBuffersAroundTheIteration) {
  // b wraps into [0, 3) of the next iteration, where a lives: with the period they must not share addresses.
  const std::string input = Write("p.csv", "id,lower,upper,size\na,0,2,8\nb,8,13,8\n");
  ASSERT_EQ(Memplan("alloc " + input + " --period 10 --json -o " + Path("plan.csv")), common::kExitOk) << err_;
  EXPECT_EQ(nlohmann::json::parse(out_)["height"], 16);
  ASSERT_EQ(Memplan("alloc " + input + " --json"), common::kExitOk) << err_;
  EXPECT_EQ(nlohmann::json::parse(out_)["height"], 8);
  EXPECT_EQ(Memplan("validate " + input + " " + Path("plan.csv") + " --period 10"), common::kExitOk) << err_;
}

// The sidecar memplan-torch wrote beside a trace it imported from a CUDA snapshot on an H200 (data/torch/cuda).
nlohmann::json RecordedSidecar(const std::string& name) {
  return nlohmann::json::parse(std::ifstream(std::string(TORCH_DATA_DIR) + "/cuda/" + name + ".meta.json"));
}

TEST_F(AllocCli, ARecordedSnapshotsSidecarGivesThePeriodAndWhatPyTorchReserved) {
  const std::string trace = std::string(TORCH_DATA_DIR) + "/cuda/gpt_small_bs64.csv";
  const nlohmann::json meta = RecordedSidecar("gpt_small_bs64");
  ASSERT_EQ(Memplan("alloc " + trace + " --time-limit 2 --json --validate"), common::kExitOk) << err_;
  const nlohmann::json j = nlohmann::json::parse(out_);
  EXPECT_EQ(err_, "");
  EXPECT_EQ(j["period"], meta["period"]);
  EXPECT_EQ(j["sidecar"], std::string(TORCH_DATA_DIR) + "/cuda/gpt_small_bs64.meta.json");
  EXPECT_EQ(j["lb"], meta["peak_load"]);  // the import's peak load is over the periodic pattern
  const nlohmann::json& recorded = j["recorded"];
  EXPECT_EQ(recorded["pytorch_reserved"], meta["reserved_peak_bytes"]);
  EXPECT_EQ(recorded["persistent_bytes"], meta["persistent_bytes"]);
  EXPECT_EQ(recorded["planned_bytes"], j["height"].get<int64_t>() + meta["persistent_bytes"].get<int64_t>());
  EXPECT_LT(recorded["planned_over_reserved"].get<double>(), 1.0);

  // The same plan as with the period given; the text says where the period and the reservation come from.
  ASSERT_EQ(Memplan("alloc " + trace + " --time-limit 2 --json --period " + meta["period"].dump()), common::kExitOk);
  EXPECT_EQ(nlohmann::json::parse(out_)["height"], j["height"]);
  ASSERT_EQ(Memplan("alloc " + trace + " --time-limit 2 -q"), common::kExitOk) << err_;
  EXPECT_NE(out_.find("period " + meta["period"].dump() + " (from "), std::string::npos) << out_;
  EXPECT_NE(out_.find("PyTorch reserved " + meta["reserved_peak_bytes"].dump() + " B"), std::string::npos) << out_;
}

TEST_F(AllocCli, AGivenPeriodWinsOverTheSidecarsWithANote) {
  const std::string trace = Write("t.csv", "id,lower,upper,size\na,0,4,8\nb,6,12,8\n");
  Write("t.meta.json", R"({"format": "memplan-trace/v1", "period": 8})");
  // With the sidecar's period b wraps around into [0, 4) and meets a; with --period 12 it does not.
  ASSERT_EQ(Memplan("alloc " + trace + " --json"), common::kExitOk) << err_;
  EXPECT_EQ(nlohmann::json::parse(out_)["lb"], 16);
  ASSERT_EQ(Memplan("alloc " + trace + " --json --period 12"), common::kExitOk) << err_;
  EXPECT_EQ(nlohmann::json::parse(out_)["lb"], 8);
  EXPECT_NE(err_.find("--period 12 is used, not the period 8 of " + Path("t.meta.json")), std::string::npos) << err_;
  // validate reads the sidecar too: both buffers at offset 0 collide only in the periodic pattern.
  const std::string plan = Write("plan.csv", "id,offset\na,0\nb,0\n");
  EXPECT_EQ(Memplan("validate " + trace + " " + plan), common::kExitTargetMissed) << out_;
  EXPECT_EQ(Memplan("validate " + trace + " " + plan + " --period 12"), common::kExitOk) << out_ << err_;
}

TEST_F(AllocCli, ABrokenSidecarIsAnErrorNamingIt) {
  const std::string trace = Write("t.csv", "id,lower,upper,size\na,0,4,8\n");
  const std::string sidecar = Path("t.meta.json");
  for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
           {R"({"format": "memplan-trace/v1", "period": -3})", "'period' is -3, not a non-negative integer"},
           {R"({"format": "memplan-trace/v1", "period": 1.5})", "'period' is 1.5, not a non-negative integer"},
           {R"({"format": "memplan-trace/v1"})", "no 'period'"},
           {R"({"format": "memplan-trace/v1", "period": 8, "reserved_peak_bytes": "2 GiB"})",
            "'reserved_peak_bytes' is \"2 GiB\", not a non-negative integer"},
           {R"({"format": "memplan-trace/v1", "period": 8, "reserved_peak_bytes": 100, "persistent_bytes": 200})",
            "'reserved_peak_bytes' is 100, below 'persistent_bytes' 200, which it holds"},
           {R"({"format": "memplan-trace/v1", "period": )", "malformed JSON"}}) {
    Write("t.meta.json", text);
    EXPECT_EQ(Memplan("alloc " + trace + " -o " + Path("plan.csv")), common::kExitBadInput) << text;
    EXPECT_NE(err_.find(sidecar + ": " + message), std::string::npos) << text << "\n" << err_;
    EXPECT_FALSE(std::filesystem::exists(Path("plan.csv")));
  }
  // JSON of another kind beside the trace is not a sidecar: ignored, with a note.
  Write("t.meta.json", R"({"period": 3})");
  ASSERT_EQ(Memplan("alloc " + trace + " --json"), common::kExitOk) << err_;
  EXPECT_EQ(nlohmann::json::parse(out_)["period"], 0);
  EXPECT_NE(err_.find(sidecar + " is not a memplan-trace/v1 sidecar"), std::string::npos) << err_;
}

TEST_F(AllocCli, ValidateNamesPlantedOverlapsAndMissingRows) {
  const std::string input = Write("p.csv", kFive);
  const std::string plan = Write("plan.csv", "id,lower,upper,size,offset\nb1,0,3,4,0\nb2,3,9,4,0\nb3,0,9,4,2\nb4,9,21,4,0\nghost,0,1,1,0\n");
  EXPECT_EQ(Memplan("validate " + input + " " + plan), common::kExitTargetMissed);
  EXPECT_NE(err_.find("buffers 'b1' (time [0, 3), address [0, 4)) and 'b3'"), std::string::npos) << err_;
  EXPECT_NE(err_.find("buffers 'b2' (time [3, 9), address [0, 4)) and 'b3'"), std::string::npos) << err_;
  EXPECT_NE(err_.find("buffer 'b5' has no offset"), std::string::npos) << err_;
  EXPECT_NE(err_.find("'ghost', which the problem does not have"), std::string::npos) << err_;
  EXPECT_NE(out_.find("INVALID"), std::string::npos);
}

// Bad input: a message "file:line: what", exit status 2, and no output file left behind.
TEST_F(AllocCli, BadInputIsReportedWithItsLocation) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"id,lower,upper,size\n0,1,2\n", "bad.csv:2: expected 4 fields, found 3"},
      {"id,lower,size\n0,1,2\n", "bad.csv:1: missing column 'upper'"},
      {"id,lower,upper,size\n0,1,2,-4\n", "bad.csv:2: size must be positive, found -4"},
      {"id,lower,upper,size\n0,1,2,3.5\n", "bad.csv:2: size is not an integer: '3.5'"},
      {"id,lower,upper,size\n0,5,5,1\n", "bad.csv:2: upper 5 is not greater than lower 5"},
      {"id,lower,upper,size\nx,1,2,1\nx,1,2,1\n", "bad.csv:3: duplicate id 'x' (first on line 2)"},
      {"", "bad.csv: empty file"},
  };
  for (const Case& c : cases) {
    const std::string input = Write("bad.csv", c.text);
    EXPECT_EQ(Memplan("alloc " + input + " -o " + Path("out.csv") + " --svg " + Path("out.svg")),
              common::kExitBadInput) << c.text;
    EXPECT_NE(err_.find(c.message), std::string::npos) << "expected: " << c.message << "\ngot: " << err_;
    EXPECT_FALSE(std::filesystem::exists(Path("out.csv")));
    EXPECT_FALSE(std::filesystem::exists(Path("out.svg")));
  }
  EXPECT_EQ(Memplan("alloc " + Path("missing.csv") + " -o " + Path("out.csv")), common::kExitBadInput);
  EXPECT_NE(err_.find("missing.csv: cannot read"), std::string::npos) << err_;
  EXPECT_EQ(Memplan("alloc " + Write("ok.csv", kFive) + " --method magic"), common::kExitBadInput);
  EXPECT_NE(err_.find("unknown method 'magic'"), std::string::npos) << err_;
  EXPECT_EQ(Memplan("alloc " + Path("ok.csv") + " --time-limit -3"), common::kExitBadInput);
  EXPECT_EQ(Memplan("alloc " + Path("ok.csv") + " -o /nonexistent-dir/plan.csv"), common::kExitBadInput);
  EXPECT_NE(err_.find("/nonexistent-dir/plan.csv: cannot write"), std::string::npos) << err_;
}

// The MiniMalloc challenging inputs from ../shared/data, when present: every method's plan validates, and
// annealing is never above first fit, where it starts.
TEST_F(AllocCli, MiniMallocChallengingInputs) {
  const std::filesystem::path dir = std::filesystem::path(SHARED_DATA_DIR) / "alloc" / "minimalloc";
  if (!std::filesystem::exists(dir / "A.1048576.csv")) GTEST_SKIP() << "no MiniMalloc data at " << dir;
  for (const char* name : {"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K"}) {
    const std::string input = (dir / (std::string(name) + ".1048576.csv")).string();
    ASSERT_EQ(Memplan("alloc " + input + " --method all --validate --json --moves 300 -o " + Path("plan.csv")),
              common::kExitOk) << name << ": " << err_;
    const nlohmann::json j = nlohmann::json::parse(out_);
    auto height_of = [&](const std::string& method) {
      for (const auto& m : j["methods"]) {
        if (m["method"] == method) return m["height"].get<int64_t>();
      }
      ADD_FAILURE() << name << ": no " << method << " row";
      return int64_t{0};
    };
    EXPECT_LE(height_of("sa"), height_of("first-fit")) << name;
    EXPECT_LE(height_of("exact"), height_of("first-fit")) << name;
    EXPECT_LE(height_of("exact+sa"), height_of("exact")) << name;
    EXPECT_GE(j["height"].get<int64_t>(), j["lb"].get<int64_t>());
    EXPECT_EQ(Memplan("validate " + input + " " + Path("plan.csv")), common::kExitOk) << name << ": " << err_;
  }
}

// The exact search fits every input within MiniMalloc's capacity of 2^20 in a fixed node budget; the exit
// status says it fits and the plan validates.
TEST_F(AllocCli, ExactSearchFitsMiniMallocInputsWithinTheirCapacity) {
  const std::filesystem::path dir = std::filesystem::path(SHARED_DATA_DIR) / "alloc" / "minimalloc";
  if (!std::filesystem::exists(dir / "A.1048576.csv")) GTEST_SKIP() << "no MiniMalloc data at " << dir;
  for (const char* name : {"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K"}) {
    const std::string input = (dir / (std::string(name) + ".1048576.csv")).string();
    ASSERT_EQ(Memplan("alloc " + input + " --method exact --capacity 1048576 --moves 400000 --time-limit 1000 --json -o " +
                      Path("plan.csv")),
              common::kExitOk) << name << ": " << err_;
    const nlohmann::json j = nlohmann::json::parse(out_);
    EXPECT_TRUE(j["fits"].get<bool>()) << name;
    EXPECT_EQ(j["search_outcome"], "found") << name;
    EXPECT_EQ(Memplan("validate " + input + " " + Path("plan.csv")), common::kExitOk) << name << ": " << err_;
  }
}

}  // namespace
