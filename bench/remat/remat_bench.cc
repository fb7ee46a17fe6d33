// Benchmark of the recomputation planners: the Moccasin/Checkmate graphs at 90/80/70 % budgets beside the
// published FastSA figures, FastSA's move rate, and generated transformer-like graphs for scaling.
// Prints markdown tables (docs/remat.md holds a measured copy).
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "common/progress.h"
#include "common/rng.h"
#include "common/stopwatch.h"
#include "remat/planner.h"
#include "remat/reader.h"
#include "tools/cli_checks.h"
#include "remat/simulator.h"
#include "remat/slot_state.h"

namespace {

using remat::Bytes;

// One row of the published FastSA table (NeurIPS 2023, Table 1): cost increase %, memory %, seconds.
struct Published {
  const char* file;
  const char* label;
  int budget_percent;
  const char* fastsa;  // "CI / Mem / s"
};

const Published kPublished[] = {
    {"random_layered_n100_w0.27_nlv0.75_ed0.2_scd0.14.json", "RL n100", 90, "0.0 / 79.4 / 11.7"},
    {"random_layered_n100_w0.27_nlv0.75_ed0.2_scd0.14.json", "RL n100", 80, "0.3 / 79.4 / 11.5"},
    {"random_layered_n100_w0.27_nlv0.75_ed0.2_scd0.14.json", "RL n100", 70, "2.2 / 77.3 / 12.0 (not met)"},
    {"random_layered_n250_w0.43_nlv0.75_ed0.2_scd0.14.json", "RL n250", 90, "0.0 / 77.3 / 15.1"},
    {"random_layered_n250_w0.43_nlv0.75_ed0.2_scd0.14.json", "RL n250", 80, "0.0 / 72.2 / 15.0"},
    {"random_layered_n250_w0.43_nlv0.75_ed0.2_scd0.14.json", "RL n250", 70, "2.6 / 68.9 / 14.5"},
    {"random_layered_n500_w0.36_nlv0.75_ed0.2_scd0.14.json", "RL n500", 90, "0.03 / 87.4 / 21.0"},
    {"random_layered_n500_w0.36_nlv0.75_ed0.2_scd0.14.json", "RL n500", 80, "2.3 / 78.6 / 20.9"},
    {"random_layered_n500_w0.36_nlv0.75_ed0.2_scd0.14.json", "RL n500", 70, "4.8 / 73.5 / 21.2 (not met)"},
    {"random_layered_n1000_w0.31_nlv0.75_ed0.2_scd0.14.json", "RL n1000", 90, "0.4 / 87.5 / 36.0"},
    {"random_layered_n1000_w0.31_nlv0.75_ed0.2_scd0.14.json", "RL n1000", 80, "2.5 / 78.4 / 36.3"},
    {"random_layered_n1000_w0.31_nlv0.75_ed0.2_scd0.14.json", "RL n1000", 70, "7.4 / 70.0 / 36.5"},
    {"checkmate_fcn_8_vgg_bs32_416x608_train.json", "FCN8-VGG train", 90, "0.1 / 75.3 / 9.4"},
    {"checkmate_fcn_8_vgg_bs32_416x608_train.json", "FCN8-VGG train", 80, "0.1 / 75.1 / 9.7"},
    {"checkmate_fcn_8_vgg_bs32_416x608_train.json", "FCN8-VGG train", 70, "3.0 / 62.3 / 9.7"},
    {"checkmate_resnet50_bs256_224x224_train.json", "ResNet50 train", 90, "0.2 / 86.2 / 10.9"},
    {"checkmate_resnet50_bs256_224x224_train.json", "ResNet50 train", 80, "0.4 / 76.6 / 10.9"},
    {"checkmate_resnet50_bs256_224x224_train.json", "ResNet50 train", 70, "0.8 / 66.8 / 11.0"},
};

// "CI / Mem / s" of one run, with "(not met)" when the budget was missed.
std::string Cell(const remat::RematResult& r) {
  return fmt::format("{:.2f} / {:.1f} / {:.2f}{}", 100.0 * (r.cost - r.reference_cost) / r.reference_cost,
                     100.0 * static_cast<double>(r.peak) / static_cast<double>(r.reference_peak), r.seconds,
                     r.budget_met ? "" : " (not met)");
}

// A transformer-like training graph: `layers` blocks of attention and MLP (11 nodes each), a loss, and the
// mirrored backward pass, each gradient step reading the forward activations it needs.
remat::Graph Transformer(int layers) {
  remat::Graph graph;
  graph.name = fmt::format("transformer_{}l", layers);
  const Bytes act = 4 << 20;  // one activation: batch × sequence × hidden × 4 bytes
  const auto value = [&](Bytes size, remat::ValueKind kind = remat::ValueKind::kIntermediate) {
    remat::Value v;
    v.name = fmt::format("v{}", graph.values.size());
    v.size = size;
    v.kind = kind;
    graph.values.push_back(v);
    return static_cast<int>(graph.values.size()) - 1;
  };
  const auto node = [&](const char* op, double cost, std::vector<int> inputs, Bytes out) {
    remat::Node n;
    n.key = fmt::format("{}", graph.nodes.size());
    n.name = fmt::format("{}{}", op, graph.nodes.size());
    n.cost = cost;
    n.inputs = std::move(inputs);
    n.outputs = {value(out)};
    graph.nodes.push_back(n);
    return n.outputs[0];
  };
  int x = value(act, remat::ValueKind::kInput);
  std::vector<std::vector<int>> saved;  // per block: the activations the backward pass reads
  for (int l = 0; l < layers; ++l) {
    const int w = value(act / 2, remat::ValueKind::kInput);
    const int ln1 = node("ln", 1, {x}, act);
    const int qkv = node("qkv", 12, {ln1, w}, 3 * act);
    const int scores = node("scores", 8, {qkv}, 2 * act);
    const int probs = node("softmax", 2, {scores}, 2 * act);
    const int ctx = node("ctx", 8, {probs, qkv}, act);
    const int proj = node("proj", 4, {ctx, w}, act);
    const int res1 = node("add", 1, {x, proj}, act);
    const int ln2 = node("ln", 1, {res1}, act);
    const int up = node("up", 16, {ln2, w}, 4 * act);
    const int gelu = node("gelu", 2, {up}, 4 * act);
    const int down = node("down", 16, {gelu, w}, act);
    x = node("add", 1, {res1, down}, act);
    saved.push_back({ln1, qkv, probs, ctx, res1, ln2, up, gelu, w});
  }
  int grad = node("loss", 1, {x}, act);
  for (int l = layers - 1; l >= 0; --l) {
    const std::vector<int>& s = saved[l];
    const int d_gelu = node("down_bw", 32, {grad, s[7], s[8]}, 4 * act);
    const int d_up = node("gelu_bw", 2, {d_gelu, s[6]}, 4 * act);
    const int d_ln2 = node("up_bw", 32, {d_up, s[5], s[8]}, act);
    const int d_res1 = node("ln_bw", 2, {d_ln2, s[4], grad}, act);
    const int d_ctx = node("proj_bw", 8, {d_res1, s[3], s[8]}, act);
    const int d_probs = node("ctx_bw", 16, {d_ctx, s[1], s[2]}, 2 * act);
    const int d_scores = node("softmax_bw", 4, {d_probs, s[2]}, 2 * act);
    const int d_qkv = node("scores_bw", 16, {d_scores, s[1]}, 3 * act);
    const int d_ln1 = node("qkv_bw", 24, {d_qkv, s[0], s[8]}, act);
    grad = node("ln_bw", 2, {d_ln1, d_res1}, act);
  }
  graph.values[grad].graph_output = true;
  remat::LinkAndCheck(graph, graph.name);
  return graph;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"remat_bench: recomputation planners on the Moccasin graphs and generated graphs"};
  std::string data = std::string(SHARED_DATA_DIR) + "/remat/moccasin";
  double time_limit = 10;
  double milp_limit = 60;
  int milp_max_nodes = 100;
  std::vector<int> sizes{1000, 10000, 50000};
  app.add_option("--data", data, "Folder of the Moccasin graphs")->capture_default_str();
  app.add_option("--time-limit", time_limit, "Seconds per FastSA run")->capture_default_str();
  bool published_times = false;
  app.add_flag("--published-times", published_times,
               "FastSA on each Moccasin row gets the published FastSA time of that row instead of --time-limit");
  app.add_option("--milp-limit", milp_limit, "Seconds per MILP run")->capture_default_str();
  app.add_option("--milp-max-nodes", milp_max_nodes, "Run the MILP on graphs up to this size")->capture_default_str();
  app.add_option("--sizes", sizes, "Node counts of the generated graphs")->capture_default_str();
  uint64_t seed = 1;
  app.add_option("--seed", seed, "FastSA's seed")->capture_default_str();
  double soft_peak = remat::kDefaultSoftPeak;
  app.add_option("--soft-peak", soft_peak, "FastSA's --soft-peak, in every FastSA run and the move rate")
      ->capture_default_str()
      ->check(tools::FiniteNumber(0, remat::kMaxSoftPeak));
  bool chain_lookahead = false;
  app.add_flag("--chain-lookahead", chain_lookahead,
               "FastSA's --chain-lookahead, in every FastSA run and the move rate");
  CLI11_PARSE(app, argc, argv);
  const std::string soft = (seed != 1 ? fmt::format(", seed {}", seed) : "") +
                           (soft_peak != remat::kDefaultSoftPeak ? fmt::format(", --soft-peak {:g}", soft_peak) : "") +
                           (chain_lookahead ? ", --chain-lookahead" : "");
  common::Progress quiet(false);

  const std::string milp_run = milp_max_nodes > 0
                                   ? fmt::format("MILP {} s on graphs of up to {} nodes", milp_limit, milp_max_nodes)
                                   : std::string("MILP not run");
  fmt::print("## Moccasin graphs: CI % / Mem % / s (FastSA time limit {}{}, {})\n\n",
             published_times ? "the published time" : fmt::format("{} s", time_limit), soft, milp_run);
  fmt::print("| graph | budget | published FastSA | FastSA (ours) | no remat | Chen | MILP | moves |\n");
  fmt::print("|---|---|---|---|---|---|---|---|\n");
  for (const Published& row : kPublished) {
    const std::string path = data + "/" + row.file;
    if (!std::filesystem::exists(path)) {
      fmt::print("| {} | {} % | {} | (no data) | | | | |\n", row.label, row.budget_percent, row.fastsa);
      continue;
    }
    const remat::Graph graph = remat::ReadGraph(path);
    const Bytes reference = remat::Simulate(graph, graph.order).peak;
    remat::RematOptions options;
    options.soft_peak = soft_peak;
    options.chain_lookahead = chain_lookahead;
    options.seed = seed;
    options.budget = remat::ParseBudget(fmt::format("{}%", row.budget_percent), reference, "budget");
    // The published cell is "CI / Mem / s[ (not met)]": its third field is the time FastSA took.
    options.time_limit_s = published_times ? std::stod(std::string(row.fastsa).substr(std::string(row.fastsa).rfind(" / ") + 3))
                                           : time_limit;
    const remat::RematResult fastsa = remat::PlanRemat(graph, options, quiet);
    options.method = "none";
    const remat::RematResult none = remat::PlanRemat(graph, options, quiet);
    options.method = "chen";
    const remat::RematResult chen = remat::PlanRemat(graph, options, quiet);
    std::string milp = "–";
    if (static_cast<int>(graph.nodes.size()) <= milp_max_nodes) {
      options.method = "milp";
      options.time_limit_s = milp_limit;
      const remat::RematResult r = remat::PlanRemat(graph, options, quiet);
      milp = r.status == "optimal" || r.status == "feasible" ? Cell(r) + " " + r.status
                                                             : fmt::format("{} ({:.0f} s)", r.status, r.seconds);
    }
    fmt::print("| {} | {} % | {} | {} | {} | {} | {} | {:.2f} M |\n", row.label, row.budget_percent, row.fastsa,
               Cell(fastsa), Cell(none), Cell(chen), milp, static_cast<double>(fastsa.moves) / 1e6);
    std::fflush(stdout);
  }

  fmt::print("\n## Move rate (fixed temperature, 5 M moves from the reference order{})\n\n", soft);
  fmt::print("| graph | moves/s | accepted |\n|---|---|---|\n");
  for (const char* file : {"random_layered_n1000_w0.31_nlv0.75_ed0.2_scd0.14.json",
                           "checkmate_resnet50_bs256_224x224_train.json"}) {
    const std::string path = data + "/" + file;
    if (!std::filesystem::exists(path)) continue;
    const remat::Graph graph = remat::ReadGraph(path);
    const Bytes budget = remat::Simulate(graph, graph.order).peak * 8 / 10;
    remat::SlotState state(graph, graph.order, budget, remat::MoveSet::kFull, false, {.soft_peak = soft_peak},
                           remat::ChainRuleFor(chain_lookahead));
    common::Rng rng(1);
    const double temperature = 1e-4 * state.AnnealingObjective();
    common::Stopwatch clock;
    constexpr int kMoves = 5'000'000;
    for (int i = 0; i < kMoves; ++i) state.Move(temperature, rng);
    fmt::print("| {} | {:.2f} M | {:.1f} % |\n", file, kMoves / clock.Seconds() / 1e6,
               100.0 * static_cast<double>(state.AcceptedMoves()) / kMoves);
  }

  fmt::print("\n## Generated transformer-like graphs, budget 50 % (FastSA time limit {} s{})\n\n", time_limit, soft);
  fmt::print("| nodes | FastSA CI / Mem / s | moves | Chen CI / Mem / s |\n|---|---|---|---|\n");
  for (int size : sizes) {
    const remat::Graph graph = Transformer(std::max(1, size / 22));
    const Bytes reference = remat::Simulate(graph, graph.order).peak;
    remat::RematOptions options;
    options.soft_peak = soft_peak;
    options.chain_lookahead = chain_lookahead;
    options.seed = seed;
    options.budget = reference / 2;
    options.time_limit_s = time_limit;
    const remat::RematResult fastsa = remat::PlanRemat(graph, options, quiet);
    options.method = "chen";
    const remat::RematResult chen = remat::PlanRemat(graph, options, quiet);
    fmt::print("| {} | {} | {:.2f} M | {} |\n", graph.nodes.size(), Cell(fastsa),
               static_cast<double>(fastsa.moves) / 1e6, Cell(chen));
    std::fflush(stdout);
  }
  return 0;
}
