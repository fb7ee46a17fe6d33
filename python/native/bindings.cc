// memplan_native: the allocation planner (alloc::ParseProblem, alloc::PlanAllocation, alloc::Validate, the
// caching-allocator simulation) and the recomputation planner (remat::ParseGraph, remat::PlanRemat,
// remat::ValidateSchedule) called in-process from Python. The CLI stays the primary interface; these
// functions take and return the same formats (MiniMalloc CSV text, remat-graph/v1 JSON text,
// remat-schedule/v1 JSON text) and the same figures as `memplan alloc --json` / `memplan remat --json`.
// Bad input raises memplan_native.InputError (a ValueError) with the planner's located message. Planning
// releases the GIL; on the main thread, Ctrl-C (or SIGTERM) while it plans returns the best plan found so far
// (status/stop_reason "interrupted"), as in the CLI.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "alloc/caching_allocator.h"
#include "alloc/converter.h"
#include "alloc/planner.h"
#include "alloc/problem.h"
#include "alloc/validator.h"
#include "common/error.h"
#include "common/interrupt.h"
#include "common/progress.h"
#include "remat/graph.h"
#include "remat/planner.h"
#include "remat/reader.h"
#include "remat/schedule_io.h"
#include "remat/simulator.h"
#include "remat/validator.h"
#include "remat/views.h"

namespace py = pybind11;

namespace {

// ---- allocation ----

py::dict PlanToDict(const alloc::Problem& problem, const alloc::PlanResult& r) {
  py::dict d;
  d["method"] = r.method;
  d["lower_bound"] = r.lower_bound;
  d["height"] = r.height;
  d["fragmentation"] = alloc::Fragmentation(r.height, r.lower_bound);
  d["seconds"] = r.seconds;
  d["moves"] = r.moves;
  d["candidates_scored"] = r.candidates_scored;
  d["stop_reason"] = std::string(common::ToString(r.stop_reason));
  d["nodes"] = r.nodes;
  d["proven_optimal"] = r.proven_optimal;
  d["search_outcome"] = r.search_outcome;
  d["offsets"] = r.solution.offsets;
  std::vector<std::string> ids;
  ids.reserve(problem.buffers.size());
  for (const auto& b : problem.buffers) ids.push_back(b.id);
  d["ids"] = ids;
  return d;
}

// Where planning runs on Python's main thread, Ctrl-C and SIGTERM ask the planner to stop and return the best
// plan found so far, as they do in the CLI (Python's own handlers could only act once the planner returned;
// they are put back afterwards). On another thread signals are left to Python.
class SignalsStopPlanning {
 public:
  SignalsStopPlanning() {
    py::object threading = py::module_::import("threading");
    if (threading.attr("current_thread")().is(threading.attr("main_thread")())) handler_.emplace();
  }

 private:
  std::optional<common::ScopedInterruptHandler> handler_;
};

alloc::PlanResult Plan(const alloc::Problem& problem, const std::string& method, double time_limit_s, uint64_t moves,
                       uint64_t seed, std::optional<alloc::Bytes> capacity, bool quiet) {
  alloc::PlanOptions options;
  options.method = method;
  options.time_limit_s = time_limit_s;
  options.moves = moves;
  options.seed = seed;
  options.capacity = capacity;
  SignalsStopPlanning signals;
  py::gil_scoped_release release;
  common::Progress progress(common::ProgressWanted(quiet));
  return alloc::PlanAllocation(problem, options, progress);
}

py::dict ValidationToDict(const alloc::ValidationReport& r) {
  py::dict d;
  d["ok"] = r.ok();
  d["errors"] = r.errors;
  d["overlapping_pairs"] = r.overlapping_pairs;
  d["height"] = r.height;
  return d;
}

// ---- recomputation ----

py::dict RematToDict(const remat::Graph& graph, const remat::RematResult& r) {
  py::dict d;
  d["graph"] = graph.name;
  d["method"] = r.method;
  d["status"] = r.status;
  d["budget"] = r.budget;
  d["budget_met"] = r.budget_met;
  d["reference_peak"] = r.reference_peak;
  d["peak"] = r.peak;
  d["reference_cost"] = r.reference_cost;
  d["cost"] = r.cost;
  d["memory_percent"] = r.reference_peak > 0 ? 100.0 * double(r.peak) / double(r.reference_peak) : 0.0;
  d["cost_increase_percent"] =
      r.reference_cost > 0 ? 100.0 * (r.cost - r.reference_cost) / r.reference_cost : 0.0;
  d["seconds"] = r.seconds;
  d["moves"] = r.moves;
  d["soft_peak"] = r.soft_peak;
  d["chain_lookahead"] = r.chain_lookahead;
  d["views"] = remat::ViewAccounting(graph);
  d["sequence"] = r.sequence;  // node indices
  d["schedule_json"] = remat::FormatSchedule(graph, r);  // remat-schedule/v1, node ids as in the file
  return d;
}

}  // namespace

PYBIND11_MODULE(memplan_native, m) {
  m.doc() = "In-process bindings of memplan's allocation and recomputation planners.";

  py::register_exception<common::InputError>(m, "InputError", PyExc_ValueError);

  // --- alloc ---
  py::class_<alloc::Buffer>(m, "Buffer")
      .def_readonly("id", &alloc::Buffer::id)
      .def_readonly("lower", &alloc::Buffer::lower)
      .def_readonly("upper", &alloc::Buffer::upper)
      .def_readonly("size", &alloc::Buffer::size)
      .def_readonly("alignment", &alloc::Buffer::alignment)
      .def_readonly("fixed_offset", &alloc::Buffer::fixed_offset)
      .def("__repr__", [](const alloc::Buffer& b) {
        return "Buffer(" + b.id + ", [" + std::to_string(b.lower) + ", " + std::to_string(b.upper) + "), " +
               std::to_string(b.size) + " B)";
      });

  py::class_<alloc::Problem>(m, "Problem", "An allocation problem (MiniMalloc CSV), from parse_problem().")
      .def_readonly("buffers", &alloc::Problem::buffers)
      .def_readonly("period", &alloc::Problem::period)
      .def("__len__", [](const alloc::Problem& p) { return p.buffers.size(); })
      .def("peak_load", [](const alloc::Problem& p) { return alloc::PeakLoad(p); },
           "The largest total size alive at one moment: no plan is lower.");

  m.def("alloc_methods", &alloc::Methods, "Names plan_allocation accepts, the annealing planner ('sa') first.");

  m.def(
      "parse_problem",
      [](const std::string& text, alloc::TimeValue period, const std::string& file) {
        return alloc::ParseProblem(file, text, period);
      },
      py::arg("text"), py::arg("period") = 0, py::arg("file") = "<string>",
      "Parses MiniMalloc CSV text (alloc::ParseProblem). period > 0: the pattern repeats and rows with "
      "upper > period wrap. Raises InputError naming file:line.");

  m.def(
      "plan_allocation",
      [](const alloc::Problem& problem, const std::string& method, double time_limit_s, uint64_t moves,
         uint64_t seed, std::optional<alloc::Bytes> capacity, bool quiet) {
        if (std::find(alloc::Methods().begin(), alloc::Methods().end(), method) == alloc::Methods().end()) {
          throw py::value_error("unknown allocation method '" + method + "'");
        }
        return PlanToDict(problem, Plan(problem, method, time_limit_s, moves, seed, capacity, quiet));
      },
      py::arg("problem"), py::arg("method") = alloc::kDefaultMethod, py::arg("time_limit_s") = 10.0,
      py::arg("moves") = 0,
      py::arg("seed") = 1, py::arg("capacity") = py::none(), py::arg("quiet") = false,
      "Plans offsets (alloc::PlanAllocation; default method 'exact+sa', as memplan alloc); a progress line on "
      "stderr when it is a terminal, unless quiet. Returns a dict: "
      "method, lower_bound, height, fragmentation, seconds, moves, stop_reason, nodes, proven_optimal, "
      "search_outcome (the last three from the exact search: 0, False, '' for other methods), offsets (per "
      "buffer, input order), ids.");

  m.def(
      "validate",
      [](const alloc::Problem& problem, const std::vector<std::optional<alloc::Offset>>& offsets) {
        if (offsets.size() != problem.buffers.size()) {
          throw py::value_error("validate: " + std::to_string(offsets.size()) + " offsets for " +
                                std::to_string(problem.buffers.size()) + " buffers");
        }
        return ValidationToDict(alloc::Validate(problem, offsets));
      },
      py::arg("problem"), py::arg("offsets"),
      "The independent check (alloc::Validate): dict with ok, errors, overlapping_pairs, height. An offset "
      "may be None (reported as missing).");

  m.def(
      "simulate_caching_allocator",
      [](const alloc::Problem& problem, const std::string& conf) {
        const auto config = alloc::CachingAllocatorConfig::Parse(conf, "conf");
        alloc::CachingAllocatorResult r;
        {
          py::gil_scoped_release release;
          r = alloc::SimulateCachingAllocator(problem, config);
        }
        py::dict d;
        d["lower_bound"] = r.lower_bound;
        d["peak_reserved"] = r.peak_reserved;
        d["peak_allocated"] = r.peak_allocated;
        d["out_of_memory"] = r.out_of_memory;
        d["fragmentation"] = r.Fragmentation();
        d["segments_allocated"] = r.segments_allocated;
        return d;
      },
      py::arg("problem"), py::arg("conf") = "",
      "Replays the pattern through the simulated PyTorch CUDA caching allocator (PYTORCH_CUDA_ALLOC_CONF "
      "string `conf`).");

  // --- remat ---
  py::class_<remat::Graph>(m, "Graph", "A checked computation graph, from parse_graph().")
      .def_readonly("name", &remat::Graph::name)
      .def_readonly("cost_unit", &remat::Graph::cost_unit)
      .def_readonly("order", &remat::Graph::order)
      .def_property_readonly("num_nodes", [](const remat::Graph& g) { return g.nodes.size(); })
      .def_property_readonly("num_values", [](const remat::Graph& g) { return g.values.size(); })
      .def("node_keys", [](const remat::Graph& g) {
        std::vector<std::string> keys;
        for (const auto& n : g.nodes) keys.push_back(n.key);
        return keys;
      }, "The nodes' ids as written in the file (JSON text), by node index.")
      .def("resident_bytes", &remat::Graph::ResidentBytes)
      .def("peak_lower_bound", &remat::Graph::PeakLowerBound)
      .def_property_readonly("views", [](const remat::Graph& g) { return remat::ViewAccounting(g); },
                             "'alias' when parsed with views_alias, else 'full'.");

  m.def("remat_methods", &remat::RematMethods, "Names plan_remat accepts, FastSA first.");

  m.def(
      "parse_graph",
      [](const std::string& text, const std::string& file, bool views_alias) {
        remat::Graph graph = remat::ParseGraph(file, text);
        return views_alias ? remat::AliasViews(std::move(graph)) : graph;
      },
      py::arg("text"), py::arg("file") = "<string>", py::arg("views_alias") = false,
      "Parses remat-graph/v1 (or Moccasin networkx) JSON text (remat::ParseGraph). Raises InputError with "
      "the JSON path of the offending element. views_alias: count views as memory of their owners, as "
      "`memplan remat --views-alias` does (remat::AliasViews).");

  m.def(
      "simulate",
      [](const remat::Graph& graph, const remat::Sequence& sequence) {
        const remat::Evaluation e = remat::Simulate(graph, sequence);
        return py::make_tuple(e.peak, e.cost);
      },
      py::arg("graph"), py::arg("sequence"), "(peak, cost) of a sequence of node indices (remat::Simulate).");

  m.def(
      "plan_remat",
      [](const remat::Graph& graph, py::object budget, const std::string& method, double time_limit_s,
         uint64_t seed, bool reorder_only, uint64_t moves, double soft_peak, bool chain_lookahead, bool quiet) {
        const auto& methods = remat::RematMethods();
        if (std::find(methods.begin(), methods.end(), method) == methods.end()) {
          throw py::value_error("unknown remat method '" + method + "'");
        }
        const remat::Bytes reference_peak = remat::Simulate(graph, graph.order).peak;
        remat::RematOptions options;
        options.method = method;
        options.time_limit_s = time_limit_s;
        options.seed = seed;
        options.reorder_only = reorder_only;
        options.moves = moves;
        options.soft_peak = soft_peak;
        options.chain_lookahead = chain_lookahead;
        if (py::isinstance<py::int_>(budget)) {
          options.budget = budget.cast<remat::Bytes>();
        } else {
          options.budget = remat::ParseBudget(py::str(budget).cast<std::string>(), reference_peak, "budget");
        }
        remat::RematResult r;
        {
          SignalsStopPlanning signals;
          py::gil_scoped_release release;
          common::Progress progress(common::ProgressWanted(quiet));
          r = remat::PlanRemat(graph, options, progress);
        }
        return RematToDict(graph, r);
      },
      py::arg("graph"), py::arg("budget") = "100%", py::arg("method") = "fastsa", py::arg("time_limit_s") = 10.0,
      py::arg("seed") = 1, py::arg("reorder_only") = false, py::arg("moves") = 0,
      py::arg("soft_peak") = remat::kDefaultSoftPeak, py::arg("chain_lookahead") = false, py::arg("quiet") = false,
      "Plans a schedule (remat::PlanRemat); a progress line on stderr when it is a terminal, unless quiet. "
      "budget: bytes (an int, or a string with a unit: '6GiB') or a percentage string ('50%'); moves: FastSA's "
      "move budget, 0 for the default; soft_peak, chain_lookahead: as `memplan remat --soft-peak`, "
      "`--chain-lookahead`. Returns a "
      "dict with the figures `memplan remat --json` prints, `sequence` (node indices) and `schedule_json` "
      "(remat-schedule/v1 text, as `memplan remat -o` writes).");

  m.def(
      "validate_schedule",
      [](const remat::Graph& graph, const remat::Sequence& sequence, std::optional<remat::Bytes> peak,
         std::optional<remat::Cost> cost, std::optional<remat::Bytes> budget) {
        for (size_t i = 0; i < sequence.size(); ++i) {
          if (sequence[i] < 0 || size_t(sequence[i]) >= graph.nodes.size()) {
            throw py::value_error("sequence[" + std::to_string(i) + "]: no node index " + std::to_string(sequence[i]));
          }
        }
        const remat::ScheduleReport r =
            remat::ValidateSchedule(graph, sequence, {.peak = peak, .cost = cost, .budget = budget});
        py::dict d;
        d["ok"] = r.ok();
        d["errors"] = r.errors;
        d["peak"] = r.peak;
        d["cost"] = r.cost;
        d["budget_met"] = r.budget_met;
        return d;
      },
      py::arg("graph"), py::arg("sequence"), py::arg("peak") = py::none(), py::arg("cost") = py::none(),
      py::arg("budget") = py::none(),
      "The independent schedule check (remat::ValidateSchedule) of node indices, against optional claims.");

  m.def(
      "parse_schedule",
      [](const remat::Graph& graph, const std::string& text, const std::string& file) {
        return remat::ParseSchedule(file, text, graph).sequence;
      },
      py::arg("graph"), py::arg("text"), py::arg("file") = "<string>",
      "The node indices of a remat-schedule/v1 JSON text for `graph`.");
}
