// End-to-end runs of `memplan gen` and `memplan simulate` (the real executable, on files in a temp dir).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "alloc/converter.h"
#include "common/exit_codes.h"
#include "support/cli_test.h"

namespace {

// End-to-end runs of memplan gen and simulate.
class SimulateCli : public testing_support::CliTest {};

TEST_F(SimulateCli, GenThenSimulate) {
  const std::string csv = Path("train.csv");
  ASSERT_EQ(Memplan("gen --family training --recompute -n 300 --seed 4 -o " + csv), common::kExitOk) << err_;
  const alloc::Problem problem = alloc::ReadProblem(csv);
  EXPECT_EQ(problem.buffers.size(), 300u);

  ASSERT_EQ(Memplan("simulate " + csv + " --json"), common::kExitOk) << err_;
  const nlohmann::json j = nlohmann::json::parse(out_);
  EXPECT_EQ(j["lb"].get<int64_t>(), alloc::PeakLoad(problem));
  EXPECT_GE(j["peak_reserved"].get<int64_t>(), j["lb"].get<int64_t>());
  EXPECT_GE(j["segments_allocated"].get<int64_t>(), 1);
  EXPECT_FALSE(j["out_of_memory"].get<bool>());

  // The same seed writes the same file; the text report names the settings.
  ASSERT_EQ(Memplan("gen --family training --recompute -n 300 --seed 4"), common::kExitOk);
  EXPECT_EQ(out_, Slurp(csv));
  ASSERT_EQ(Memplan("simulate " + csv + " --conf expandable_segments:True"), common::kExitOk) << err_;
  EXPECT_NE(out_.find("conf \"expandable_segments:True\""), std::string::npos) << out_;
  EXPECT_NE(out_.find("peak reserved"), std::string::npos) << out_;
}

TEST_F(SimulateCli, ComparesWithWhatPyTorchReservedWhenTheSidecarRecordedIt) {
  // A trace imported from a CUDA snapshot on an H200 (data/torch/cuda): its sidecar has the period and the
  // caching allocator's real peak reservation, of which the persistent bytes are outside the trace.
  const std::string trace = std::string(TORCH_DATA_DIR) + "/cuda/resnet18_bs64.csv";
  const nlohmann::json meta =
      nlohmann::json::parse(std::ifstream(std::string(TORCH_DATA_DIR) + "/cuda/resnet18_bs64.meta.json"));
  ASSERT_EQ(Memplan("simulate " + trace + " --json"), common::kExitOk) << err_;
  const nlohmann::json j = nlohmann::json::parse(out_);
  EXPECT_EQ(j["period"], meta["period"]);
  EXPECT_EQ(j["iterations"], 2);
  const int64_t recorded = meta["reserved_peak_bytes"].get<int64_t>() - meta["persistent_bytes"].get<int64_t>();
  EXPECT_EQ(j["recorded_reserved"], recorded);
  EXPECT_DOUBLE_EQ(j["recorded_fragmentation"].get<double>(),
                   static_cast<double>(recorded) / j["lb"].get<double>() - 1);
  ASSERT_EQ(Memplan("simulate " + trace), common::kExitOk) << err_;
  EXPECT_NE(out_.find("recorded reserved"), std::string::npos) << out_;
  // Without a recording the field is null.
  const std::string plain = Write("p.csv", "id,lower,upper,size\na,0,4,8\n");
  ASSERT_EQ(Memplan("simulate " + plain + " --json"), common::kExitOk) << err_;
  EXPECT_TRUE(nlohmann::json::parse(out_)["recorded_reserved"].is_null());
}

// A recording of one 20 MiB segment with a 4 MiB block live at its middle (caching_allocator_test derives the
// placements): a 2 MiB alloc at its start, freed, and the live block freed.
const char* kReplay = R"({"format": "caching-replay/v1", "conf": "", "segments": [
  {"address": 1099511627776, "size": 20971520, "pool": "large", "live": [[1099520016384, 4194304]]}],
  "events": [["alloc", 1099511627776, 2097152], ["free", 1099511627776, 0], ["free", 1099520016384, 0]]})";

TEST_F(SimulateCli, ReplaysARecordingAndComparesEveryPlacement) {
  const std::string replay = Write("r.json", kReplay);
  ASSERT_EQ(Memplan("simulate --replay " + replay + " --json"), common::kExitOk) << err_;
  const nlohmann::json j = nlohmann::json::parse(out_);
  EXPECT_EQ(j["allocations"], 1);
  EXPECT_EQ(j["at_real_address"], 1);
  EXPECT_TRUE(j["first_mismatch"].is_null());
  EXPECT_EQ(j["real_peak_reserved"], 20971520);
  EXPECT_EQ(j["model_peak_reserved"], 20971520);
  // Placed elsewhere in the recording (above the live block): the model says where it differs.
  std::string elsewhere = kReplay;
  const std::string placed = "1099511627776, 2097152";
  elsewhere.replace(elsewhere.find(placed), placed.size(), "1099524210688, 2097152");
  Write("elsewhere.json", elsewhere);
  ASSERT_EQ(Memplan("simulate --replay " + Path("elsewhere.json")), common::kExitOk) << err_;
  EXPECT_NE(out_.find("at the real address                 0 (0.000 %)"), std::string::npos) << out_;
  EXPECT_NE(out_.find("first elsewhere      event 0: 2097152 B at 0x10000000000, the real one at 0x10000c00000"),
            std::string::npos) << out_;
}

TEST_F(SimulateCli, ABadReplayIsAnErrorNamingTheFileAndField) {
  const std::string trace = Write("p.csv", "id,lower,upper,size\na,0,4,8\n");
  const std::string replay = Write("r.json", kReplay);
  EXPECT_EQ(Memplan("simulate " + trace + " --replay " + replay), common::kExitBadInput);
  EXPECT_NE(err_.find("a pattern (CSV) or --replay R.json, one of the two"), std::string::npos) << err_;
  EXPECT_EQ(Memplan("simulate"), common::kExitBadInput);
  for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
           {R"({"format": "memplan-trace/v1"})", "not a caching-replay/v1 file"},
           {R"({"format": "caching-replay/v1", "conf": "", "segments": [{"address": 0, "size": 10, "pool": "large",
               "live": [[8, 4]]}], "events": []})", "segments[0].live[0] lies outside its segment"},
           {R"({"format": "caching-replay/v1", "conf": "", "segments": [], "events": [["malloc", 0, 8]]})",
            "events[0]: unknown action 'malloc'"},
           {R"({"format": "caching-replay/v1", "conf": "", "segments": [], "events": [["alloc", -1, 8]]})",
            "events[0] address is -1, not a non-negative integer"},
           {R"({"format": "caching-replay/v1", "conf": "expandable_segments:True", "segments": [], "events": []})",
            "expandable segments"},
           {R"({"format": "caching-replay/v1", "conf": "bogus:1", "segments": [], "events": []})", "bogus"},
           {R"({"format": "caching-replay/v1", "conf": "", "segments": 5, "events": []})",
            "the file: 'segments' is not an array"},
           {R"({"format": "caching-replay/v1", "conf": "", "segments": [],
               "events": [["alloc", 0, 4611686018427387000], ["alloc", 0, 4611686018427387000]]})",
            "events[1]: addresses and sizes beyond 2^62 bytes"}}) {
    Write("bad.json", text);
    EXPECT_EQ(Memplan("simulate --replay " + Path("bad.json")), common::kExitBadInput) << text;
    EXPECT_NE(err_.find(message), std::string::npos) << text << "\n" << err_;
  }
}

TEST_F(SimulateCli, ReadsTheEnvironmentWhenNoConfIsGiven) {
  const std::string csv = Path("p.csv");
  std::ofstream(csv) << "id,lower,upper,size\na,0,1,41943040\nb,1,2,31457280\n";  // 40 MiB, then 30 MiB
  // max_split_size_mb:32 keeps b off a's oversize block: 70 MiB reserved instead of 40 MiB.
  ::unsetenv("PYTORCH_CUDA_ALLOC_CONF");
  ASSERT_EQ(Memplan("simulate " + csv + " --json"), common::kExitOk) << err_;
  EXPECT_EQ(nlohmann::json::parse(out_)["peak_reserved"].get<int64_t>(), 40 << 20);
  ASSERT_EQ(Memplan("simulate " + csv + " --json --conf max_split_size_mb:32"), common::kExitOk) << err_;
  EXPECT_EQ(nlohmann::json::parse(out_)["peak_reserved"].get<int64_t>(), 70 << 20);
  ASSERT_EQ(::setenv("PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:32", 1), 0);
  const int status = Memplan("simulate " + csv + " --json");
  ::unsetenv("PYTORCH_CUDA_ALLOC_CONF");
  ASSERT_EQ(status, common::kExitOk) << err_;
  EXPECT_EQ(nlohmann::json::parse(out_)["peak_reserved"].get<int64_t>(), 70 << 20);
}

TEST_F(SimulateCli, OutOfMemoryExitsWithOne) {
  const std::string csv = Path("p.csv");
  std::ofstream(csv) << "id,lower,upper,size\na,0,2,12582912\nb,1,2,20971520\n";  // 12 MiB, then 20 MiB
  EXPECT_EQ(Memplan("simulate " + csv + " --device-memory 30MiB --json"), common::kExitTargetMissed);
  const nlohmann::json j = nlohmann::json::parse(out_);
  EXPECT_TRUE(j["out_of_memory"].get<bool>());
  EXPECT_EQ(j["oom_buffer"], "b");
  EXPECT_TRUE(j["fragmentation"].is_null());
  EXPECT_NE(err_.find("out of memory"), std::string::npos) << err_;
}

TEST_F(SimulateCli, BadInputExitsWithTwo) {
  const std::string csv = Path("p.csv");
  std::ofstream(csv) << "id,lower,upper,size\na,0,1,100\n";
  EXPECT_EQ(Memplan("simulate " + csv + " --conf max_split_size_mb:5"), common::kExitBadInput);
  EXPECT_NE(err_.find("--conf: max_split_size_mb: must be >= 20"), std::string::npos) << err_;
  EXPECT_EQ(Memplan("simulate " + csv + " --conf colour:blue"), common::kExitBadInput);
  EXPECT_NE(err_.find("colour"), std::string::npos) << err_;
  EXPECT_EQ(Memplan("simulate " + Path("missing.csv")), common::kExitBadInput);
  EXPECT_EQ(Memplan("gen --family gaussian -o " + Path("g.csv")), common::kExitBadInput);
  EXPECT_FALSE(std::filesystem::exists(Path("g.csv")));
  EXPECT_EQ(Memplan("gen --family uniform --recompute -o " + Path("g.csv")), common::kExitBadInput);
  EXPECT_NE(err_.find("--recompute"), std::string::npos) << err_;
  EXPECT_FALSE(std::filesystem::exists(Path("g.csv")));
}

}  // namespace
