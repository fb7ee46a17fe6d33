#include "remat/milp.h"

#include <coin/CbcEventHandler.hpp>
#include <coin/CbcModel.hpp>
#include <coin/CbcSolver.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <coin/OsiClpSolverInterface.hpp>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/interrupt.h"

namespace remat {
namespace {

// The MILP collected as columns and rows, then handed to CBC in one piece (adding rows one at a time to
// Clp copies its matrix each time).
class Model {
 public:
  int AddBinary(double lower, double upper, double objective) {
    lower_.push_back(lower);
    upper_.push_back(upper);
    objective_.push_back(objective);
    integer_.push_back(1);
    return static_cast<int>(lower_.size()) - 1;
  }
  int AddContinuous() {
    lower_.push_back(0);
    upper_.push_back(1e30);
    objective_.push_back(0);
    integer_.push_back(0);
    return static_cast<int>(lower_.size()) - 1;
  }
  // Adds sum(coefficients · columns) `sense` rhs, sense one of 'L', 'G', 'E'.
  void AddRow(const std::vector<std::pair<int, double>>& terms, char sense, double rhs) {
    for (const auto& [column, coefficient] : terms) {
      indices_.push_back(column);
      values_.push_back(coefficient);
    }
    starts_.push_back(static_cast<int>(indices_.size()));
    row_lower_.push_back(sense == 'L' ? -1e30 : rhs);
    row_upper_.push_back(sense == 'G' ? 1e30 : rhs);
  }
  int Columns() const { return static_cast<int>(lower_.size()); }

  void LoadInto(OsiClpSolverInterface& solver) const {
    std::vector<int> lengths(row_lower_.size());
    for (size_t r = 0; r < lengths.size(); ++r) lengths[r] = starts_[r + 1] - starts_[r];
    const CoinPackedMatrix matrix(false, Columns(), static_cast<int>(row_lower_.size()),
                                  static_cast<CoinBigIndex>(values_.size()), values_.data(), indices_.data(),
                                  starts_.data(), lengths.data());
    solver.loadProblem(matrix, lower_.data(), upper_.data(), objective_.data(), row_lower_.data(),
                       row_upper_.data());
    for (int c = 0; c < Columns(); ++c) {
      if (integer_[c]) solver.setInteger(c);
    }
  }

 private:
  std::vector<double> lower_, upper_, objective_;
  std::vector<char> integer_;
  std::vector<int> starts_{0};
  std::vector<int> indices_;
  std::vector<double> values_;
  std::vector<double> row_lower_, row_upper_;
};

// Messages from the solving child to the parent, over a pipe: a header, then `length` node ids.
enum class Message : int32_t { kIncumbent = 1, kOptimal, kFeasible, kInfeasible, kNoSolution };
struct MessageHeader {
  Message kind;
  int32_t length;
};

// Writes all of `size` bytes; false when the parent is gone.
bool WriteAll(int fd, const void* data, size_t size) {
  const char* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t written = write(fd, bytes, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    bytes += written;
    size -= static_cast<size_t>(written);
  }
  return true;
}

void Send(int fd, Message kind, const Sequence& sequence) {
  const MessageHeader header{kind, static_cast<int32_t>(sequence.size())};
  if (WriteAll(fd, &header, sizeof header)) WriteAll(fd, sequence.data(), sequence.size() * sizeof(int));
}

// Reads the run columns of a solution back into a schedule: stage by stage, positions ascending.
Sequence Decode(const double* solution, const std::vector<std::vector<int>>& run, const Sequence& order) {
  Sequence sequence;
  for (size_t t = 0; t < run.size(); ++t) {
    for (size_t i = 0; i < run[t].size(); ++i) {
      if (solution[run[t][i]] > 0.5) sequence.push_back(order[i]);
    }
  }
  return sequence;
}

// Streams every improved incumbent to the parent as CBC finds it, so that a child killed at the deadline
// has already handed over its best schedule. Solutions of a presolved model (other columns) are not
// streamed; CBC reports those at its own end.
class IncumbentStreamer : public CbcEventHandler {
 public:
  IncumbentStreamer(int fd, int columns, const std::vector<std::vector<int>>* run, const Sequence* order)
      : fd_(fd), columns_(columns), run_(run), order_(order) {}
  CbcEventHandler* clone() const override { return new IncumbentStreamer(*this); }
  CbcAction event(CbcEvent) override {
    if (model_ == nullptr || model_->getNumCols() != columns_) return noAction;
    const double* solution = model_->bestSolution();
    if (solution == nullptr) return noAction;
    const double objective = model_->getObjValue();
    if (objective < sent_ - 1e-9 * std::max(1.0, std::abs(sent_))) {
      sent_ = objective;
      Send(fd_, Message::kIncumbent, Decode(solution, *run_, *order_));
    }
    return noAction;
  }

 private:
  int fd_;
  int columns_;
  const std::vector<std::vector<int>>* run_;
  const Sequence* order_;
  double sent_ = 1e300;
};

// The child's side: solve with CBC's own limit (which it keeps between nodes, not inside the root LP or
// cut loops) and report the outcome.
[[noreturn]] void SolveInChild(int fd, const Model& model, const std::vector<std::vector<int>>& run,
                               const Sequence& order, double seconds) {
  OsiClpSolverInterface solver;
  model.LoadInto(solver);
  CbcModel cbc(solver);
  CbcSolverUsefulData data;
  CbcMain0(cbc, data);
  IncumbentStreamer streamer(fd, model.Columns(), &run, &order);
  cbc.passInEventHandler(&streamer);
  const std::string limit = std::to_string(std::max(0.1, seconds));
  const char* argv[] = {"memplan", "-log", "0", "-preprocess", "off", "-sec", limit.c_str(), "-solve", "-quit"};
  CbcMain1(static_cast<int>(std::size(argv)), argv, cbc, [](CbcModel*, int) { return 0; }, data);
  const double* solution = cbc.bestSolution();
  Message kind = Message::kNoSolution;
  if (cbc.isProvenOptimal() && solution != nullptr) {
    kind = Message::kOptimal;
  } else if (cbc.isProvenInfeasible()) {
    kind = Message::kInfeasible;
  } else if (solution != nullptr) {
    kind = Message::kFeasible;
  }
  Send(fd, kind, solution != nullptr && kind != Message::kInfeasible ? Decode(solution, run, order) : Sequence{});
  close(fd);
  _exit(0);  // no destructors or atexit handlers of the parent's state in the child
}

// The parent's side: collects messages until the child reports its end, the deadline passes, or Ctrl-C;
// then the child is killed and reaped. The last incumbent is the result when the child did not finish.
MilpResult Collect(int fd, pid_t child, double seconds) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  MilpResult result;
  result.status = "no solution";
  std::vector<char> buffer;
  bool finished = false;
  bool open = true;
  while (!finished && open && !common::InterruptRequested()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) break;
    pollfd entry{fd, POLLIN, 0};
    const int ready = poll(&entry, 1, static_cast<int>(std::min<int64_t>(left, 100)));
    if (ready <= 0) continue;
    char chunk[65536];
    const ssize_t got = read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      open = false;
      continue;
    }
    buffer.insert(buffer.end(), chunk, chunk + got);
    // Parse every complete message in the buffer.
    size_t at = 0;
    while (buffer.size() - at >= sizeof(MessageHeader)) {
      MessageHeader header;
      std::memcpy(&header, buffer.data() + at, sizeof header);
      const size_t bytes = sizeof header + static_cast<size_t>(header.length) * sizeof(int);
      if (buffer.size() - at < bytes) break;
      Sequence sequence(static_cast<size_t>(header.length));
      // An empty sequence has no storage: memcpy must not see its null pointer, even for 0 bytes.
      if (!sequence.empty()) {
        std::memcpy(sequence.data(), buffer.data() + at + sizeof header, sequence.size() * sizeof(int));
      }
      at += bytes;
      switch (header.kind) {
        case Message::kIncumbent:
          result.sequence = std::move(sequence);
          result.status = "feasible";
          break;
        case Message::kOptimal:
        case Message::kFeasible:
          result.sequence = std::move(sequence);
          result.status = header.kind == Message::kOptimal ? "optimal" : "feasible";
          finished = true;
          break;
        case Message::kInfeasible:
          result.sequence.clear();
          result.status = "infeasible";
          finished = true;
          break;
        case Message::kNoSolution:
          finished = true;
          break;
      }
    }
    buffer.erase(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(at));
  }
  kill(child, SIGKILL);  // harmless when it has already exited; it is not reaped yet, so the pid is ours
  while (waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
  }
  close(fd);
  return result;
}

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

  // Costs in units of the mean step's cost: Moccasin's costs reach 1e11 per step, and an objective near 1e13
  // leaves CBC's tolerances meaningless.
  double cost_scale = 0;
  for (const Node& node : graph.nodes) cost_scale += node.cost;
  cost_scale = cost_scale > 0 ? cost_scale / static_cast<double>(graph.nodes.size()) : 1;
  Model model;
  std::vector<std::vector<int>> run(n), keep(n);
  for (int t = 0; t < n; ++t) {
    run[t].resize(t + 1);
    for (int i = 0; i <= t; ++i) {
      const double lower = i == t ? 1 : 0;
      const double upper = i == t || !once[i] ? 1 : 0;
      run[t][i] = model.AddBinary(lower, upper, graph.nodes[graph.order[i]].cost / cost_scale);
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
  // CBC keeps its own time limit only between branch-and-bound nodes: its root LP, presolve and cut loops
  // can run for minutes past it on 100-node graphs. So it solves in a child process that the deadline
  // kills; the child streams each incumbent as it is found, and aims to end by itself a little earlier.
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::fflush(nullptr);  // nothing buffered may be written twice
  const pid_t child = fork();
  if (child < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (child == 0) {
    close(pipe_fds[0]);
    signal(SIGINT, SIG_IGN);  // Ctrl-C reaches the parent, which ends the child
    signal(SIGTERM, SIG_DFL);
    SolveInChild(pipe_fds[1], model, run, graph.order, 0.9 * time_limit_s - 0.05);
  }
  close(pipe_fds[1]);
  return Collect(pipe_fds[0], child, time_limit_s);
}

}  // namespace remat
