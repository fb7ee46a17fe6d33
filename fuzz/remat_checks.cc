// The check of the graph_reader fuzz target (fuzz/harness.h).
#include <algorithm>
#include <string>

#include "common/error.h"
#include "common/progress.h"
#include "fuzz/harness.h"
#include "remat/planner.h"
#include "remat/reader.h"
#include "remat/simulator.h"
#include "remat/validator.h"
#include "remat/views.h"

namespace fuzz {

namespace {

// The reference order and Chen's schedules (at the reference peak and at half of it) validate.
void CheckSchedules(const remat::Graph& graph) {
  const remat::Evaluation reference = remat::Simulate(graph, graph.order);
  const remat::ScheduleReport report =
      remat::ValidateSchedule(graph, graph.order, {.peak = reference.peak, .cost = reference.cost});
  Require(report.ok(), "the reference order validates: " + (report.ok() ? "" : report.errors.front()));
  common::Progress progress(false);
  remat::RematOptions options;
  options.method = "chen";
  for (const remat::Bytes budget : {reference.peak, reference.peak / 2}) {
    options.budget = budget;
    const remat::RematResult chen = remat::PlanRemat(graph, options, progress);
    const remat::ScheduleReport chen_report =
        remat::ValidateSchedule(graph, chen.sequence, {.peak = chen.peak, .cost = chen.cost});
    Require(chen_report.ok(), "Chen's schedule validates: " + (chen_report.ok() ? "" : chen_report.errors.front()));
  }
}

}  // namespace

void CheckGraphReader(std::string_view data) {
  remat::Graph graph;
  try {
    graph = remat::ParseGraph("fuzz.json", data);
  } catch (const common::InputError&) {
    return;
  }
  if (graph.nodes.size() > 200) return;
  CheckSchedules(graph);
  if (std::none_of(graph.values.begin(), graph.values.end(), [](const remat::Value& v) { return v.view_of >= 0; })) {
    return;
  }
  remat::Graph aliased;
  try {
    aliased = remat::AliasViews(graph);
  } catch (const common::InputError&) {
    return;  // a view's owner made after the view's readers: refused with a message
  }
  CheckSchedules(aliased);
}

}  // namespace fuzz
