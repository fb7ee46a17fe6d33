#include "remat/reader.h"

#include <gtest/gtest.h>

#include <string>

#include "common/error.h"
#include "remat/simulator.h"
#include "remat/views.h"

namespace remat {
namespace {

// Parses `text` and returns the InputError message ("" when it parses).
std::string ErrorOf(const std::string& text) {
  try {
    ParseGraph("g.json", text);
  } catch (const common::InputError& e) {
    return e.what();
  }
  return "";
}

constexpr const char* kChain = R"({
  "format": "remat-graph/v1", "name": "chain", "cost_unit": "flops",
  "values": [{"id": 10, "name": "x", "size": 4, "kind": "input"},
             {"id": 11, "name": "a", "size": 8}, {"id": 12, "name": "b", "size": 16, "kind": "output"}],
  "nodes": [{"id": 0, "name": "f", "cost": 2, "inputs": [10], "outputs": [11]},
            {"id": 1, "name": "g", "cost": 3, "inputs": [11, 10], "outputs": [12], "workspace": 5,
             "recomputable": false}],
  "outputs": [12]
})";

TEST(RematReader, ReadsRematGraph) {
  const Graph graph = ParseGraph("g.json", kChain);
  ASSERT_EQ(graph.nodes.size(), 2u);
  EXPECT_EQ(graph.name, "chain");
  EXPECT_EQ(graph.order, (std::vector<int>{0, 1}));
  EXPECT_EQ(graph.nodes[1].inputs, (std::vector<int>{0, 1}));
  EXPECT_FALSE(graph.nodes[1].recomputable);
  EXPECT_EQ(graph.nodes[1].workspace, 5);
  EXPECT_TRUE(graph.values[2].graph_output);
  EXPECT_EQ(graph.values[1].producer, 0);
  EXPECT_EQ(graph.values[1].consumers, (std::vector<int>{1}));
  EXPECT_EQ(graph.ResidentBytes(), 4);
  EXPECT_EQ(graph.PeakLowerBound(), 4 + 8 + 16 + 5);
}

TEST(RematReader, ReadsNetworkxWithNumberedLinks) {
  const Graph graph = ParseGraph("nx.json", R"({"directed": true, "graph": {"order": [0, 2, 1]},
    "nodes": [{"name": 0, "duration": 0, "out_cost": 5}, {"name": 1, "duration": 3, "out_cost": 7},
              {"name": 2, "duration": 4, "out_cost": 9}],
    "links": [{"0": 0, "1": 1}, {"0": 0, "1": 2}, {"0": 2, "1": 1}]})");
  EXPECT_EQ(graph.order, (std::vector<int>{0, 2, 1}));
  EXPECT_EQ(graph.nodes[1].inputs, (std::vector<int>{0, 2}));
  EXPECT_EQ(graph.values[2].size, 9);
  EXPECT_EQ(graph.nodes[2].key, "2");
}

TEST(RematReader, NetworkxDefaultOrderIsTopologicalById) {
  const Graph graph = ParseGraph("nx.json", R"({"directed": true, "graph": {},
    "nodes": [{"id": 2, "name": "c", "cost_cpu": 1, "cost_ram": 1}, {"id": 0, "name": "a", "cost_cpu": 1,
              "cost_ram": 1}, {"id": 1, "name": "b", "cost_cpu": 1, "cost_ram": 1}],
    "links": [{"source": 2, "target": 1}, {"source": 0, "target": 2}]})");
  std::vector<std::string> names;
  for (int u : graph.order) names.push_back(graph.nodes[u].name);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "c", "b"}));
}

TEST(RematReader, NamesACycle) {
  const std::string error = ErrorOf(R"({"format": "remat-graph/v1",
    "values": [{"id": 0, "size": 1}, {"id": 1, "size": 1}],
    "nodes": [{"id": 0, "name": "p", "cost": 1, "inputs": [1], "outputs": [0]},
              {"id": 1, "name": "q", "cost": 1, "inputs": [0], "outputs": [1]}]})");
  EXPECT_NE(error.find("g.json: the graph has a cycle: "), std::string::npos) << error;
  EXPECT_NE(error.find("p -> q -> p"), std::string::npos) << error;
}

TEST(RematReader, RejectsDanglingIdWithItsPath) {
  const std::string error = ErrorOf(R"({"format": "remat-graph/v1", "values": [{"id": 0, "size": 1}],
    "nodes": [{"id": 0, "cost": 1, "inputs": [], "outputs": [0]}, {"id": 1, "cost": 1, "inputs": [0, 77],
               "outputs": []}]})");
  EXPECT_EQ(error, "g.json: nodes[1].inputs[1]: no value with id 77");
}

// x (100 bytes) is made by `make`, y is a view of x made by `view`, `use` reads y: counted at full size the
// peak is at `view` (x and y, 200); with views aliased y is part of x, which lives until `use` (100 + 1).
constexpr const char* kView = R"({"format": "remat-graph/v1",
  "values": [{"id": "x", "size": 100}, {"id": "y", "size": 100, "view_of": "x"}, {"id": "z", "size": 1}],
  "nodes": [{"id": "make", "cost": 1, "inputs": [], "outputs": ["x"]},
            {"id": "view", "cost": 0, "inputs": ["x"], "outputs": ["y"]},
            {"id": "use", "cost": 1, "inputs": ["y"], "outputs": ["z"]}],
  "outputs": ["z"]})";

TEST(RematReader, ViewsCountAtFullSizeUnlessAliased) {
  const Graph graph = ParseGraph("g.json", kView);
  EXPECT_EQ(graph.values[1].view_of, 0);
  EXPECT_EQ(Simulate(graph, graph.order).peak, 200);
  const Graph aliased = AliasViews(graph);
  EXPECT_EQ(aliased.values[1].size, 0);
  EXPECT_EQ(aliased.nodes[2].inputs, (std::vector<int>{0, 1}));  // `use` keeps x alive
  EXPECT_EQ(Simulate(aliased, aliased.order).peak, 101);
  EXPECT_EQ(aliased.order, graph.order);
}

TEST(RematReader, AliasedViewThatIsAnOutputKeepsItsOwnerToTheEnd) {
  std::string text = kView;
  text.replace(text.rfind(R"("outputs": ["z"])"), 16, R"("outputs": ["y"])");
  const Graph aliased = AliasViews(ParseGraph("g.json", text));
  EXPECT_TRUE(aliased.values[0].graph_output);
  EXPECT_EQ(Simulate(aliased, aliased.order).peak, 101);  // x to the end, and z at `use`
}

TEST(RematReader, RejectsViewsOfUnknownValuesAndViewCycles) {
  EXPECT_EQ(ErrorOf(R"({"format": "remat-graph/v1", "values": [{"id": 0, "size": 1, "view_of": 5}],
    "nodes": [{"id": 0, "cost": 1, "inputs": [], "outputs": [0]}]})"),
            "g.json: values[0].view_of: no value with id 5");
  EXPECT_EQ(ErrorOf(R"({"format": "remat-graph/v1", "values": [{"id": 0, "size": 1, "view_of": 1},
    {"id": 1, "size": 1, "view_of": 0}], "nodes": [{"id": 0, "cost": 1, "inputs": [], "outputs": [0, 1]}]})"),
            "g.json: values[0].view_of: views of views come back to this value");
}

TEST(RematReader, RejectsAViewWhoseProducerDoesNotReadItsStorage) {
  // `view` reads y but says it aliases x: a reordering could make it before x exists.
  EXPECT_EQ(ErrorOf(R"({"format": "remat-graph/v1",
    "values": [{"id": "x", "size": 8}, {"id": "y", "size": 8}, {"id": "v", "size": 8, "view_of": "x"}],
    "nodes": [{"id": "make_x", "cost": 1, "inputs": [], "outputs": ["x"]},
              {"id": "make_y", "cost": 1, "inputs": [], "outputs": ["y"]},
              {"id": "view", "cost": 0, "inputs": ["y"], "outputs": ["v"]}]})"),
            "g.json: values[2].view_of: '\"v\"' is made by node '\"view\"', which reads neither '\"x\"' nor another "
            "view of its storage");
  // Made from another view of x's storage, or from x itself, it is accepted.
  const Graph graph = ParseGraph("g.json", R"({"format": "remat-graph/v1",
    "values": [{"id": "x", "size": 8}, {"id": "w", "size": 8, "view_of": "x"}, {"id": "v", "size": 8, "view_of": "x"}],
    "nodes": [{"id": "make_x", "cost": 1, "inputs": [], "outputs": ["x"]},
              {"id": "view_w", "cost": 0, "inputs": ["x"], "outputs": ["w"]},
              {"id": "view_v", "cost": 0, "inputs": ["w"], "outputs": ["v"]}]})");
  EXPECT_EQ(graph.values[2].view_of, 0);
}

TEST(RematReader, RejectsNegativeSizeAndCost) {
  EXPECT_EQ(ErrorOf(R"({"format": "remat-graph/v1", "values": [{"id": 0, "size": -3}], "nodes": []})"),
            "g.json: values[0].size: is negative (-3)");
  EXPECT_EQ(ErrorOf(R"({"format": "remat-graph/v1", "values": [{"id": 0, "size": 3}],
                       "nodes": [{"id": 0, "cost": -1, "inputs": [], "outputs": [0]}]})"),
            "g.json: nodes[0].cost: is negative (-1)");
}

TEST(RematReader, RejectsUnproducedInput) {
  const std::string error = ErrorOf(R"({"format": "remat-graph/v1", "values": [{"id": 0, "name": "w", "size": 1}],
    "nodes": [{"id": 0, "cost": 1, "inputs": [0], "outputs": []}]})");
  EXPECT_EQ(error, "g.json: nodes[0].inputs[0]: value 'w' is neither produced by a node nor a graph input");
}

TEST(RematReader, RejectsUnknownFormatAndMalformedJson) {
  EXPECT_EQ(ErrorOf(R"({"format": "remat-graph/v9", "values": [], "nodes": []})"),
            "g.json: format: unknown format \"remat-graph/v9\" (expected \"remat-graph/v1\")");
  EXPECT_NE(ErrorOf(R"({"values": []})").find("unknown format"), std::string::npos);
  EXPECT_NE(ErrorOf(R"({"format": "remat-graph/v1", )").find("g.json: malformed JSON"), std::string::npos);
  EXPECT_EQ(ErrorOf(R"({"format": "remat-graph/v1", "values": [{"id": 0}], "nodes": []})"),
            "g.json: values[0]: missing field 'size'");
}

TEST(RematReader, RejectsOrderThatIsNotTopological) {
  const std::string error = ErrorOf(R"({"format": "remat-graph/v1", "values": [{"id": 0, "size": 1}],
    "nodes": [{"id": 0, "name": "p", "cost": 1, "inputs": [], "outputs": [0]},
              {"id": 1, "name": "q", "cost": 1, "inputs": [0], "outputs": []}], "order": [1, 0]})");
  EXPECT_EQ(error, "g.json: order[0]: node 'q' runs before 'p', which produces its input '0'");
}

}  // namespace
}  // namespace remat
