#include "remat/schedule_io.h"

#include <fmt/core.h>

#include <map>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/json_text.h"
#include "remat/views.h"

namespace remat {

using nlohmann::json;

std::string FormatSchedule(const Graph& graph, const RematResult& result) {
  json sequence = json::array();
  for (int u : result.sequence) sequence.push_back(json::parse(graph.nodes[u].key));
  const json schedule = {
      {"format", "remat-schedule/v1"},
      {"graph", graph.name},
      {"method", result.method},
      {"views", ViewAccounting(graph)},
      {"budget", result.budget},
      {"budget_met", result.budget_met},
      {"peak", result.peak},
      {"cost", result.cost},
      {"reference_peak", result.reference_peak},
      {"reference_cost", result.reference_cost},
      {"sequence", sequence},
  };
  return schedule.dump(1) + "\n";
}

ScheduleFile ParseSchedule(const std::string& file, std::string_view text, const Graph& graph) {
  json root = common::ParseJson(file, text);
  if (!root.is_object() || !root.contains("format") || root["format"] != "remat-schedule/v1") {
    common::FailAt(file, 0, "format: expected \"remat-schedule/v1\"");
  }
  if (!root.contains("sequence") || !root["sequence"].is_array()) common::FailAt(file, 0, "sequence: expected an array");
  std::map<std::string, int> index;
  for (int u = 0; u < static_cast<int>(graph.nodes.size()); ++u) index[graph.nodes[u].key] = u;
  ScheduleFile schedule;
  const json& sequence = root["sequence"];
  for (size_t i = 0; i < sequence.size(); ++i) {
    const auto it = index.find(sequence[i].dump());
    if (it == index.end()) {
      common::FailAt(file, 0, fmt::format("sequence[{}]: no node with id {}", i, sequence[i].dump()));
    }
    schedule.sequence.push_back(it->second);
  }
  const auto number = [&](const char* key) { return root.contains(key) && root[key].is_number(); };
  if (number("peak")) schedule.claims.peak = root["peak"].get<Bytes>();
  if (number("cost")) schedule.claims.cost = root["cost"].get<Cost>();
  if (number("budget")) schedule.claims.budget = root["budget"].get<Bytes>();
  return schedule;
}

}  // namespace remat
