#include "remat/reader.h"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/json_text.h"
#include "remat/views.h"

namespace remat {
namespace {

using nlohmann::json;

// Reads fields of one JSON object, naming its path in every complaint.
class Fields {
 public:
  Fields(const std::string& file, const json& object, std::string path)
      : file_(file), object_(object), path_(std::move(path)) {
    if (!object_.is_object()) Fail("expected an object");
  }

  [[noreturn]] void Fail(const std::string& what) const {
    common::FailAt(file_, 0, path_.empty() ? what : path_ + ": " + what);
  }

  bool Has(const char* key) const { return object_.contains(key) && !object_[key].is_null(); }

  const json& Get(const char* key) const {
    if (!Has(key)) Fail(fmt::format("missing field '{}'", key));
    return object_[key];
  }

  int64_t Integer(const char* key) const {
    const json& value = Get(key);
    if (!value.is_number_integer()) Sub(key).Fail("expected an integer");
    return value.get<int64_t>();
  }

  int64_t NonNegativeInteger(const char* key) const {
    const int64_t value = Integer(key);
    if (value < 0) Sub(key).Fail(fmt::format("is negative ({})", value));
    return value;
  }

  double NonNegativeNumber(const char* key) const {
    const json& value = Get(key);
    if (!value.is_number()) Sub(key).Fail("expected a number");
    const double number = value.get<double>();
    if (!(number >= 0)) Sub(key).Fail(fmt::format("is negative ({})", number));
    return number;
  }

  std::string String(const char* key, const std::string& fallback) const {
    if (!Has(key)) return fallback;
    const json& value = object_[key];
    if (value.is_string()) return value.get<std::string>();
    if (value.is_number()) return value.dump();
    Sub(key).Fail("expected a string");
  }

  bool Boolean(const char* key, bool fallback) const {
    if (!Has(key)) return fallback;
    if (!object_[key].is_boolean()) Sub(key).Fail("expected true or false");
    return object_[key].get<bool>();
  }

  // The array under `key` (an empty one when absent and `required` is false).
  const json& Array(const char* key, bool required) const {
    static const json kEmpty = json::array();
    if (!required && !Has(key)) return kEmpty;
    const json& value = Get(key);
    if (!value.is_array()) Sub(key).Fail("expected an array");
    return value;
  }

  std::string Path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

 private:
  // A handle naming the field, for complaints about it.
  struct Child {
    std::string file;
    std::string path;
    [[noreturn]] void Fail(const std::string& what) const { common::FailAt(file, 0, path + ": " + what); }
  };
  Child Sub(const char* key) const { return {file_, Path(key)}; }

  const std::string& file_;
  const json& object_;
  std::string path_;
};

// Maps the ids a file uses to dense indices, rejecting duplicates and unknown ids with their path.
class IdMap {
 public:
  IdMap(const std::string& file, const char* what) : file_(file), what_(what) {}

  void Add(const json& id, const std::string& path) {
    const std::string key = id.dump();
    if (!index_.emplace(key, static_cast<int>(index_.size())).second) {
      common::FailAt(file_, 0, fmt::format("{}: duplicate {} id {}", path, what_, key));
    }
  }

  int Find(const json& id, const std::string& path) const {
    const auto it = index_.find(id.dump());
    if (it == index_.end()) common::FailAt(file_, 0, fmt::format("{}: no {} with id {}", path, what_, id.dump()));
    return it->second;
  }

 private:
  const std::string& file_;
  const char* what_;
  std::map<std::string, int> index_;
};

// Sorted, duplicate-free copy of a list of indices.
std::vector<int> Unique(std::vector<int> items) {
  std::sort(items.begin(), items.end());
  items.erase(std::unique(items.begin(), items.end()), items.end());
  return items;
}

ValueKind ParseKind(const Fields& fields) {
  const std::string kind = fields.String("kind", "intermediate");
  if (kind == "input") return ValueKind::kInput;
  if (kind == "tangent") return ValueKind::kTangent;
  if (kind == "intermediate") return ValueKind::kIntermediate;
  if (kind == "output") return ValueKind::kOutput;
  fields.Fail(fmt::format("unknown kind '{}' (input, tangent, intermediate or output)", kind));
}

Graph ParseRematGraph(const std::string& file, const json& root) {
  const Fields top(file, root, "");
  Graph graph;
  graph.name = top.String("name", "");
  graph.cost_unit = top.String("cost_unit", "");
  const json& values = top.Array("values", true);
  IdMap value_ids(file, "value");
  for (size_t i = 0; i < values.size(); ++i) {
    const Fields fields(file, values[i], fmt::format("values[{}]", i));
    value_ids.Add(fields.Get("id"), fields.Path("id"));
    Value value;
    value.name = fields.String("name", fields.Get("id").dump());
    value.size = fields.NonNegativeInteger("size");
    value.kind = ParseKind(fields);
    value.graph_output = value.kind == ValueKind::kOutput;
    graph.values.push_back(std::move(value));
  }
  // After every id is known, since a view may name a value listed after it.
  for (size_t i = 0; i < values.size(); ++i) {
    const Fields fields(file, values[i], fmt::format("values[{}]", i));
    if (!fields.Has("view_of")) continue;
    graph.values[i].view_of = value_ids.Find(fields.Get("view_of"), fields.Path("view_of"));
  }
  for (size_t i = 0; i < values.size(); ++i) {
    size_t steps = 0;
    for (int v = static_cast<int>(i); graph.values[v].view_of >= 0; v = graph.values[v].view_of) {
      if (++steps > values.size()) {
        common::FailAt(file, 0, fmt::format("values[{}].view_of: views of views come back to this value", i));
      }
    }
  }
  const json& nodes = top.Array("nodes", true);
  IdMap node_ids(file, "node");
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Fields fields(file, nodes[i], fmt::format("nodes[{}]", i));
    node_ids.Add(fields.Get("id"), fields.Path("id"));
    Node node;
    node.key = fields.Get("id").dump();
    node.name = fields.String("name", node.key);
    node.cost = fields.NonNegativeNumber("cost");
    node.workspace = fields.Has("workspace") ? fields.NonNegativeInteger("workspace") : 0;
    node.recomputable = fields.Boolean("recomputable", true) && !fields.Boolean("side_effect", false);
    for (const char* list : {"inputs", "outputs"}) {
      const json& ids = fields.Array(list, true);
      std::vector<int>& target = list[0] == 'i' ? node.inputs : node.outputs;
      for (size_t j = 0; j < ids.size(); ++j) {
        target.push_back(value_ids.Find(ids[j], fmt::format("{}[{}]", fields.Path(list), j)));
      }
    }
    node.inputs = Unique(std::move(node.inputs));
    if (Unique(node.outputs).size() != node.outputs.size()) fields.Fail("lists an output twice");
    graph.nodes.push_back(std::move(node));
  }
  const json& order = top.Array("order", false);
  for (size_t i = 0; i < order.size(); ++i) graph.order.push_back(node_ids.Find(order[i], fmt::format("order[{}]", i)));
  const json& outputs = top.Array("outputs", false);
  for (size_t i = 0; i < outputs.size(); ++i) {
    graph.values[value_ids.Find(outputs[i], fmt::format("outputs[{}]", i))].graph_output = true;
  }
  return graph;
}

Graph ParseNetworkx(const std::string& file, const json& root) {
  const Fields top(file, root, "");
  Graph graph;
  const json& nodes = top.Array("nodes", true);
  const json& links = top.Array("links", true);
  IdMap node_ids(file, "node");
  // Nodes are indexed in id order, so that the default reference order (smallest index first) is
  // Moccasin's "topological order by node id".
  std::vector<std::pair<json, size_t>> by_id;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Fields fields(file, nodes[i], fmt::format("nodes[{}]", i));
    by_id.push_back({fields.Get(fields.Has("id") ? "id" : "name"), i});
  }
  // Integer ids first, by value; other ids after them in file order (a strict weak order even when a file
  // mixes both, which std::stable_sort requires).
  std::stable_sort(by_id.begin(), by_id.end(), [](const auto& a, const auto& b) {
    const bool a_int = a.first.is_number_integer(), b_int = b.first.is_number_integer();
    if (a_int != b_int) return a_int;
    return a_int && a.first.template get<int64_t>() < b.first.template get<int64_t>();
  });
  for (size_t index = 0; index < by_id.size(); ++index) {
    const size_t i = by_id[index].second;
    const Fields fields(file, nodes[i], fmt::format("nodes[{}]", i));
    const char* id_field = fields.Has("id") ? "id" : "name";
    const json& id = fields.Get(id_field);
    node_ids.Add(id, fields.Path(id_field));
    Node node;
    node.key = id.dump();
    node.name = fields.String("name", node.key);
    node.cost = fields.NonNegativeNumber(fields.Has("duration") ? "duration" : "cost_cpu");
    node.outputs = {static_cast<int>(index)};
    Value value;
    value.name = node.name;
    value.size = fields.NonNegativeInteger(fields.Has("out_cost") ? "out_cost" : "cost_ram");
    graph.values.push_back(std::move(value));
    graph.nodes.push_back(std::move(node));
  }
  for (size_t i = 0; i < links.size(); ++i) {
    const Fields fields(file, links[i], fmt::format("links[{}]", i));
    const bool numbered = !fields.Has("source") && fields.Has("0");
    const char* source_key = numbered ? "0" : "source";
    const char* target_key = numbered ? "1" : "target";
    const int source = node_ids.Find(fields.Get(source_key), fields.Path(source_key));
    const int target = node_ids.Find(fields.Get(target_key), fields.Path(target_key));
    graph.nodes[target].inputs.push_back(source);
  }
  for (Node& node : graph.nodes) node.inputs = Unique(std::move(node.inputs));
  if (root.contains("graph") && root["graph"].is_object()) {
    const Fields meta(file, root["graph"], "graph");
    graph.name = meta.String("name", "");
    const json& order = meta.Array("order", false);
    for (size_t i = 0; i < order.size(); ++i) {
      graph.order.push_back(node_ids.Find(order[i], fmt::format("graph.order[{}]", i)));
    }
  }
  return graph;
}

}  // namespace

Graph ParseGraph(const std::string& file, std::string_view text) {
  json root = common::ParseJson(file, text);
  if (!root.is_object()) common::FailAt(file, 0, "expected a JSON object at the top level");
  Graph graph;
  if (root.contains("format")) {
    if (root["format"] != "remat-graph/v1") {
      common::FailAt(file, 0, fmt::format("format: unknown format {} (expected \"remat-graph/v1\")",
                                          root["format"].dump()));
    }
    graph = ParseRematGraph(file, root);
  } else if (root.contains("nodes") && root.contains("links")) {
    graph = ParseNetworkx(file, root);
  } else {
    common::FailAt(file, 0, "unknown format: neither remat-graph/v1 (\"format\") nor a networkx graph "
                            "(\"nodes\" and \"links\")");
  }
  if (graph.nodes.empty()) common::FailAt(file, 0, "nodes: the graph has no nodes (nothing to schedule)");
  // Every peak, budget and buffer offset is a sum of these sizes: it must fit in a signed 64-bit byte count.
  Bytes total = 0;
  for (const Value& value : graph.values) {
    if (__builtin_add_overflow(total, value.size, &total)) {
      common::FailAt(file, 0, "the value sizes add up to more than 2^63 - 1 bytes");
    }
  }
  for (const Node& node : graph.nodes) {
    if (__builtin_add_overflow(total, node.workspace, &total)) {
      common::FailAt(file, 0, "the value sizes and workspaces add up to more than 2^63 - 1 bytes");
    }
  }
  LinkAndCheck(graph, file);
  // A node can alias only storage it reads. The planners' view semantics (remat/views.h: a view holds the
  // storage its producer read it from) have nothing to hold otherwise, and a reordering could make the view
  // before the value it names.
  for (size_t v = 0; v < graph.values.size(); ++v) {
    const Value& value = graph.values[v];
    if (value.view_of < 0 || value.producer < 0 || ViewBase(graph, static_cast<int>(v)) >= 0) continue;
    common::FailAt(file, 0, fmt::format("values[{}].view_of: '{}' is made by node '{}', which reads neither '{}' "
                                        "nor another view of its storage", v, value.name,
                                        graph.nodes[value.producer].name, graph.values[value.view_of].name));
  }
  return graph;
}

Graph ReadGraph(const std::string& path) { return ParseGraph(path, common::ReadFile(path)); }

}  // namespace remat
