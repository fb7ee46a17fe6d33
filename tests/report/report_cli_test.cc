// memplan report end to end: the real executable on a real allocation trace and on training graphs, the
// elements the page must hold, the JSON summary, determinism, and bad input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "support/cli_test.h"

namespace {

using testing_support::CliTest;

// How often `needle` occurs in `text`.
size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

const std::string kResnetTrace = std::string(DATA_DIR) + "/torch/resnet18_bs8.csv";  // 221 buffers, period 540
const std::string kMlpGraph = std::string(EXAMPLES_DIR) + "/remat/mlp_train.json";
const std::string kResnetGraph = std::string(DATA_DIR) + "/torch/resnet18_bs8.graph.json";

using ReportCli = CliTest;

TEST_F(ReportCli, AllocationTraceGivesTablesAndOneRectanglePerBufferLifespan) {
  ASSERT_EQ(Memplan("report " + kResnetTrace + " --period 540 --time-limit 10 --json -o " + Path("r.html")), 0)
      << err_;
  const nlohmann::json summary = nlohmann::json::parse(out_);
  EXPECT_EQ(summary["kind"], "alloc");
  EXPECT_EQ(summary["output"], Path("r.html"));
  EXPECT_EQ(summary["sections"], (nlohmann::json{"alloc-table", "alloc-plan"}));
  EXPECT_EQ(summary["buffers"], 221);
  EXPECT_EQ(summary["drawn"], 221);
  ASSERT_EQ(summary["methods"].size(), 3u);
  EXPECT_EQ(summary["methods"][0]["method"], "sa");
  EXPECT_GE(summary["pytorch_caching"]["peak_reserved"].get<int64_t>(), summary["methods"][0]["lb"].get<int64_t>());
  EXPECT_EQ(err_, "");  // --json: no progress line

  const std::string html = Slurp(Path("r.html"));
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<table id=\"alloc-methods\">"), std::string::npos);
  for (const char* method : {"<td>sa</td>", "<td>first-fit</td>", "<td>best-fit</td>",
                             "<td>pytorch-caching (simulated)</td>"}) {
    EXPECT_EQ(Count(html, method), 1u) << method;
  }
  // Each buffer once, plus a second rectangle for each buffer whose lifespan wraps past the period.
  const std::string csv = Slurp(kResnetTrace);
  size_t wrapped = 0;
  const std::regex row(R"(^[^,\n]+,(\d+),(\d+),\d+$)", std::regex::multiline);
  for (auto it = std::sregex_iterator(csv.begin(), csv.end(), row); it != std::sregex_iterator(); ++it) {
    wrapped += std::stol((*it)[2]) > 540;
  }
  EXPECT_GT(wrapped, 0u);
  EXPECT_EQ(Count(html, "<rect x="), 221 + wrapped);
  EXPECT_EQ(Count(html, "data-id=\"2\" data-size=\"4816896\" data-lower=\"2\" data-upper=\"350\" data-offset=\""), 1u);
  EXPECT_EQ(html.find("Showing the"), std::string::npos);
}

TEST_F(ReportCli, LargeProblemsDrawOnlyTheLargestBuffersAndSaySo) {
  ASSERT_EQ(Memplan("report " + kResnetTrace + " --period 540 --max-drawn 20 -q -o " + Path("r.html")), 0) << err_;
  const std::string html = Slurp(Path("r.html"));
  EXPECT_NE(html.find("Showing the 20 largest of 221 buffers"), std::string::npos);
  EXPECT_NE(out_.find("221 buffers, 20 drawn"), std::string::npos) << out_;
}

TEST_F(ReportCli, SameInputAndSeedGiveTheSamePageButForTheTimes) {
  ASSERT_EQ(Memplan("gen --family training -n 150 --seed 4 -o " + Path("p.csv")), 0) << err_;
  // A generous time limit and a move budget short of the lower bound: the moves, not the clock or the bound,
  // must end both runs (at 100 buffers it reaches the bound at once, and the pages would be equal whatever
  // the seed did).
  for (const char* page : {"a.html", "b.html"}) {
    ASSERT_EQ(Memplan("report " + Path("p.csv") + " --seed 3 --moves 5000 --time-limit 120 --json -o " + Path(page)),
              0)
        << err_;
    EXPECT_EQ(nlohmann::json::parse(out_)["methods"][0]["stop_reason"], "moves");
  }
  const std::regex time_cell(R"(<td class="num time">[^<]*</td>)");
  const std::string a = std::regex_replace(Slurp(Path("a.html")), time_cell, "");
  const std::string b = std::regex_replace(Slurp(Path("b.html")), time_cell, "");
  EXPECT_EQ(a, b);
  EXPECT_EQ(Count(a, "<rect x="), 150u);
}

TEST_F(ReportCli, IdsAndFileNamesAreEscaped) {
  const std::string input =
      Write("a&b<c>.csv", "id,lower,upper,size\n<img src=x onerror=alert(1)>,0,4,10\n\"q\",2,6,5\n");
  ASSERT_EQ(Memplan("report '" + input + "' -q -o " + Path("r.html")), 0) << err_;
  const std::string html = Slurp(Path("r.html"));
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("data-id=\"&lt;img src=x onerror=alert(1)&gt;\""), std::string::npos);
  EXPECT_NE(html.find("a&amp;b&lt;c&gt;.csv"), std::string::npos);
  EXPECT_EQ(html.find("a&b<c>"), std::string::npos);
}

TEST_F(ReportCli, GraphGivesRematTableCurvesAndTheArena) {
  ASSERT_EQ(Memplan("report " + kMlpGraph + " --time-limit 1 -o " + Path("g.html") + " --json"), 0) << err_;
  const nlohmann::json summary = nlohmann::json::parse(out_);
  EXPECT_EQ(summary["kind"], "graph");
  EXPECT_EQ(summary["sections"], (nlohmann::json{"remat-table", "memory-curve", "alloc-table", "alloc-plan"}));
  ASSERT_EQ(summary["remat"].size(), 3u);
  EXPECT_EQ(summary["remat"][0]["method"], "none");
  EXPECT_EQ(summary["remat"][1]["method"], "chen");
  EXPECT_EQ(summary["remat"][2]["method"], "fastsa");
  // Default budget: 75 % of the reference peak, rounded up.
  const int64_t reference = summary["reference_peak"];
  EXPECT_EQ(summary["budget"].get<int64_t>(), (reference * 75 + 99) / 100);
  EXPECT_TRUE(summary["budget_met"]);
  EXPECT_LE(summary["arena_height"].get<int64_t>(), summary["budget"].get<int64_t>());
  EXPECT_EQ(summary["methods"][0]["height"], summary["arena_height"]);

  const std::string html = Slurp(Path("g.html"));
  EXPECT_NE(html.find("<table id=\"remat-methods\">"), std::string::npos);
  EXPECT_NE(html.find("<table id=\"alloc-methods\">"), std::string::npos);
  EXPECT_NE(html.find("<figure id=\"memory-curve-figure\">"), std::string::npos);
  EXPECT_EQ(Count(html, "<polyline"), 2u);
  EXPECT_EQ(Count(html, "<td>chen</td>"), 1u);
  EXPECT_EQ(Count(html, "<rect x="), summary["buffers"].get<size_t>());
  EXPECT_NE(html.find("PyTorch&#39;s caching allocator (simulated) would reserve"), std::string::npos);
}

TEST_F(ReportCli, RealGraphMissingItsBudgetStillWritesTheReport) {
  // resnet18's joint graph at 20 %: below what any schedule reaches; exit status 1, the page is written.
  const int status = Memplan("report " + kResnetGraph + " --budget 20% --time-limit 1 -q -o " + Path("g.html"));
  EXPECT_EQ(status, 1) << err_;
  EXPECT_NE(err_.find("below what any schedule can reach"), std::string::npos) << err_;
  const std::string html = Slurp(Path("g.html"));
  EXPECT_NE(html.find("<td>fastsa</td>"), std::string::npos);
  EXPECT_NE(html.find("</html>"), std::string::npos);
  EXPECT_NE(out_.find("PyTorch's caching allocator (simulated) would reserve"), std::string::npos);
}

TEST_F(ReportCli, BadInputExitsWithStatusTwoAndWritesNothing) {
  const std::string csv = Write("bad.csv", "id,lower,upper,size\na,0,4,10\nb,5,3,1\n");
  EXPECT_EQ(Memplan("report " + csv + " -o " + Path("r.html")), 2);
  EXPECT_NE(err_.find("bad.csv:3:"), std::string::npos) << err_;
  const std::string graph = Write("bad.json", "{\"format\": \"remat-graph/v1\", \"nodes\": 3}");
  EXPECT_EQ(Memplan("report " + graph + " -o " + Path("r.html")), 2);
  EXPECT_NE(err_.find("bad.json"), std::string::npos) << err_;
  EXPECT_EQ(Memplan("report " + kMlpGraph + " --period 10 -o " + Path("r.html")), 2);
  EXPECT_NE(err_.find("--period applies to an allocation problem"), std::string::npos) << err_;
  const std::string good = Write("good.csv", "id,lower,upper,size\na,0,4,10\n");
  EXPECT_EQ(Memplan("report " + good + " --budget 50% -o " + Path("r.html")), 2);
  EXPECT_NE(err_.find("--budget applies to a graph"), std::string::npos) << err_;
  EXPECT_EQ(Memplan("report " + Path("missing.csv") + " -o " + Path("r.html")), 2);
  EXPECT_EQ(Memplan("report " + good), 2);  // -o is required
  EXPECT_EQ(OutputFiles(), 3);              // the three inputs written above, no report
}

}  // namespace
