// End-to-end runs of `memplan gen` and `memplan simulate` (the real executable, on files in a temp dir).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

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
