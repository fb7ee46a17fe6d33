#include "remat/milp.h"

#include <coin/Cbc_C_Interface.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace remat {
namespace {

// Builds the model column by column and row by row through CBC's C interface.
class Model {
 public:
  Model() : model_(Cbc_newModel(), Cbc_deleteModel) { Cbc_setLogLevel(model_.get(), 0); }

  int AddBinary(double lower, double upper, double objective) {
    Cbc_addCol(model_.get(), "", lower, upper, objective, 1, 0, nullptr, nullptr);
    return columns_++;
  }
  int AddContinuous() {
    Cbc_addCol(model_.get(), "", 0, 1e30, 0, 0, 0, nullptr, nullptr);
    return columns_++;
  }
  // Adds sum(coefficients · columns) `sense` rhs, sense one of 'L', 'G', 'E'.
  void AddRow(const std::vector<std::pair<int, double>>& terms, char sense, double rhs) {
    std::vector<int> columns;
    std::vector<double> coefficients;
    for (const auto& [column, coefficient] : terms) {
      columns.push_back(column);
      coefficients.push_back(coefficient);
    }
    Cbc_addRow(model_.get(), "", static_cast<int>(columns.size()), columns.data(), coefficients.data(), sense, rhs);
  }
  Cbc_Model* get() { return model_.get(); }

 private:
  std::unique_ptr<Cbc_Model, void (*)(Cbc_Model*)> model_;
  int columns_ = 0;
};

}  // namespace

MilpResult SolveCheckmateMilp(const Graph& graph, Bytes budget, double time_limit_s) {
  const int n = static_cast<int>(graph.order.size());
  std::vector<int> position(n);
  for (int i = 0; i < n; ++i) position[graph.order[i]] = i;
  // Per position: memory of the node's outputs (in budgets, for numerical range), workspace, the
  // positions it reads from and the positions that read it, and whether it must run once and be kept.
  const double scale = static_cast<double>(std::max<Bytes>(budget, 1));
  std::vector<double> memory(n, 0);
  std::vector<double> workspace(n, 0);
  std::vector<std::vector<int>> deps(n);
  std::vector<std::vector<int>> users(n);
  std::vector<double> kept(n, 0);  // graph outputs: in memory from their one run to the end
  std::vector<char> once(n, 0);
  for (int k = 0; k < n; ++k) {
    const Node& node = graph.nodes[graph.order[k]];
    workspace[k] = static_cast<double>(node.workspace) / scale;
    once[k] = !node.recomputable;
    for (int v : node.outputs) {
      const double size = static_cast<double>(graph.values[v].size) / scale;
      (graph.values[v].graph_output ? kept[k] : memory[k]) += size;
      once[k] = once[k] || graph.values[v].graph_output;
    }
    for (int v : node.inputs) {
      const int p = graph.values[v].producer;
      if (p >= 0) deps[k].push_back(position[p]);
    }
    std::sort(deps[k].begin(), deps[k].end());
    deps[k].erase(std::unique(deps[k].begin(), deps[k].end()), deps[k].end());
    for (int i : deps[k]) users[i].push_back(k);
  }
  const double free_memory = 1.0 - static_cast<double>(graph.ResidentBytes()) / scale;

  Model model;
  std::vector<std::vector<int>> run(n), keep(n);
  for (int t = 0; t < n; ++t) {
    run[t].resize(t + 1);
    for (int i = 0; i <= t; ++i) {
      const double lower = i == t ? 1 : 0;
      const double upper = i == t || !once[i] ? 1 : 0;
      run[t][i] = model.AddBinary(lower, upper, graph.nodes[graph.order[i]].cost);
    }
    keep[t].resize(t);
    for (int i = 0; i < t; ++i) keep[t][i] = model.AddBinary(0, 1, 0);
  }
  for (int t = 0; t < n; ++t) {
    // Dependencies: a step's inputs were computed in this stage or kept into it.
    for (int k = 0; k <= t; ++k) {
      for (int i : deps[k]) model.AddRow({{run[t][k], 1}, {run[t][i], -1}, {keep[t][i], -1}}, 'L', 0);
    }
    // What is kept into the next stage was computed or kept in this one.
    if (t + 1 < n) {
      for (int i = 0; i <= t; ++i) {
        std::vector<std::pair<int, double>> terms{{keep[t + 1][i], 1}, {run[t][i], -1}};
        if (i < t) terms.push_back({keep[t][i], -1});
        model.AddRow(terms, 'L', 0);
      }
    }
    // Memory after each step k: U[k] = U[k-1] + runs of k - what is freed after step k-1.
    std::vector<std::vector<int>> freed(t + 1);  // FREE[t][i][k] columns, by k, for i in deps[k] + {k}
    for (int k = 0; k <= t; ++k) {
      std::vector<int> candidates = deps[k];
      candidates.push_back(k);
      for (int i : candidates) {
        const int column = model.AddBinary(0, 1, 0);
        freed[k].push_back(column);
        // FREE = 1 exactly when no hazard: k runs, i is not kept into stage t+1, no later user of i runs.
        std::vector<std::pair<int, double>> hazards{{run[t][k], 1}};
        int maximum = 2;
        if (t + 1 < n) hazards.push_back({keep[t + 1][i], -1});
        for (int j : users[i]) {
          if (j > k && j <= t) {
            hazards.push_back({run[t][j], -1});
            ++maximum;
          }
        }
        // hazards count = 1 - R[t][k] + S[t+1][i] + sum R[t][j]; the row terms above are its negation + 1.
        std::vector<std::pair<int, double>> upper = hazards;
        upper.push_back({column, -1});
        model.AddRow(upper, 'L', 0);  // 1 - FREE <= hazards
        std::vector<std::pair<int, double>> lower = hazards;
        lower.push_back({column, -static_cast<double>(maximum)});
        model.AddRow(lower, 'G', 1 - maximum);  // maximum · (1 - FREE) >= hazards
      }
    }
    double kept_before = 0;  // graph outputs of earlier stages
    for (int i = 0; i < t; ++i) kept_before += kept[i];
    int previous = -1;
    for (int k = 0; k <= t; ++k) {
      const int usage = model.AddContinuous();
      std::vector<std::pair<int, double>> terms{{usage, 1}, {run[t][k], -memory[k]}};
      if (k == 0) {
        for (int i = 0; i < t; ++i) terms.push_back({keep[t][i], -memory[i]});
      } else {
        terms.push_back({previous, -1});
        std::vector<int> candidates = deps[k - 1];
        candidates.push_back(k - 1);
        for (size_t c = 0; c < candidates.size(); ++c) terms.push_back({freed[k - 1][c], memory[candidates[c]]});
      }
      model.AddRow(terms, 'E', 0);
      const double outputs = kept_before + (k == t ? kept[t] : 0);
      model.AddRow({{usage, 1}, {run[t][k], workspace[k]}}, 'L', free_memory - outputs);
      previous = usage;
    }
  }
  Cbc_setMaximumSeconds(model.get(), time_limit_s);
  Cbc_solve(model.get());
  MilpResult result;
  const double* solution = Cbc_bestSolution(model.get());
  if (solution != nullptr) {
    for (int t = 0; t < n; ++t) {
      for (int i = 0; i <= t; ++i) {
        if (solution[run[t][i]] > 0.5) result.sequence.push_back(graph.order[i]);
      }
    }
  }
  if (Cbc_isProvenOptimal(model.get())) {
    result.status = "optimal";
  } else if (Cbc_isProvenInfeasible(model.get())) {
    result.status = "infeasible";
  } else {
    result.status = solution != nullptr ? "feasible" : "no solution";
  }
  return result;
}

}  // namespace remat
