#include "fusion/verifier.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <stop_token>
#include <thread>

#include "common/fork_server.h"
#include "common/stopwatch.h"
#include "fusion/cells.h"
#include "fusion/cpu_clock.h"
#include "fusion/errors.h"
#include "fusion/fuse.h"
#include "fusion/input_domains.h"
#include "fusion/interpreter.h"
#include "fusion/lift.h"
#include "fusion/loop_ir.h"
#include "fusion/normalize.h"
#include "fusion/solver.h"
#include "fusion/wrap_checks.h"

namespace fusion {
namespace {

// Seconds a solver process may run past the verifier's time-out before the fork server kills it: about
// the server's polling period, so that the time-out holds (a model found just before it is not
// re-checked past it; its own watchdog may have ended the run already).
constexpr double kKillGrace_s = 0.05;

// In a solver's child process, with cpu_limit_s > 0: the kernel ends the process (SIGXCPU) once its CPU time
// passes what it has used, 1.5 times cpu_limit_s and 2 s more; with 0, no such end. Why: Z3 4.8.12's nonlinear
// arithmetic runs on past the watchdog's interrupts (nla-digbench's geo2, lcm2, mannadiv: a 2-s job held its
// worker until the verifier's time-out, 10 s), and the server kills a child at that time-out only. The margin
// leaves room for the re-check of a model found near the limit.
void SetSolveCpuCap(double cpu_limit_s) {
  rlimit cpu{};
  if (getrlimit(RLIMIT_CPU, &cpu) != 0) return;
  if (cpu_limit_s <= 0) {
    cpu.rlim_cur = cpu.rlim_max;
  } else {
    rusage used{};
    getrusage(RUSAGE_SELF, &used);
    const double used_s = static_cast<double>(used.ru_utime.tv_sec + used.ru_stime.tv_sec) +
                          static_cast<double>(used.ru_utime.tv_usec + used.ru_stime.tv_usec) / 1e6;
    const auto cap = static_cast<rlim_t>(std::ceil(used_s + 1.5 * cpu_limit_s + 2));
    if (cpu.rlim_max != RLIM_INFINITY && cap > cpu.rlim_max) return;
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    cpu.rlim_cur = cap;
  }
  setrlimit(RLIMIT_CPU, &cpu);
}

// Statements one concrete run may execute (enough for three loops over 100000 cells).
constexpr long kMaxSteps = 20'000'000;

// Draws a value of type t: mostly small numbers (sizes and counters of the tasks are small in bugs),
// sometimes the type's extremes or any value.
Int128 Draw(std::mt19937_64& rng, IntType t, int mode) {
  std::uniform_int_distribution<int> pick(0, 9);
  const int r = pick(rng);
  if (mode == 0) return 0;
  if (r < 6 || mode == 1) return std::uniform_int_distribution<int>(mode == 1 ? 1 : -2, 8)(rng);
  if (r < 8) {
    const Int128 edges[] = {MinOf(t), MaxOf(t), 0, 1, -1, MaxOf(t) - 1};
    return edges[std::uniform_int_distribution<int>(0, 5)(rng)];
  }
  return static_cast<Int128>(static_cast<long long>(rng()));
}

// The constants of a program (main's and its procedures'), each with its neighbours, at most kMaxDictionary of
// them: inputs at the edge of a comparison with a constant (McCarthy91-1's error at x = 102 of `x > 102`), which
// random draws rarely meet.
constexpr size_t kMaxDictionary = 256;

std::vector<Int128> ProgramConstants(const Program& prog) {
  std::set<Int128> seen;
  const std::function<void(const ExprPtr&)> collect = [&](const ExprPtr& e) {
    if (!e || seen.size() >= kMaxDictionary) return;
    if (e->kind == ExprKind::kConst) {
      for (const Int128 d : {-1, 0, 1}) seen.insert(e->value + d);
    }
    for (const ExprPtr& a : e->args) collect(a);
  };
  ForEachExpr(prog.body, collect);
  for (const Procedure& p : prog.procedures) ForEachExpr(p.body, collect);
  return {seen.begin(), seen.end()};
}

// Combinations of input values that FindCounterexample runs, at most.
constexpr size_t kMaxEnumeratedRuns = 100'000;

// Runs the program on every combination of the values of its bounded inputs (input_domains.h) while the
// budget lasts: kError at the first run that reaches an error, kEveryRun when every run ends without one
// (and without a signed overflow, an undefined operation, the step limit or a read of any other value),
// else kNothing with the runs made.
RunSearch EveryRun(const Program& prog, const std::vector<std::vector<Int128>>& values, double budget_s,
                   double wall_s, const std::atomic<bool>* cancel) {
  common::Stopwatch clock;
  const ThreadCpuClock cpu;
  const double cpu_start = cpu.Seconds();
  RunSearch search;
  std::vector<size_t> choice(values.size(), 0);
  const bool none = std::any_of(values.begin(), values.end(), [](const auto& v) { return v.empty(); });
  while (!none) {
    const double cpu_left = budget_s - (cpu.Seconds() - cpu_start);
    if (cpu_left <= 0 || clock.Seconds() >= wall_s || (cancel && cancel->load())) return search;
    size_t next = 0;
    bool beyond = false;  // the run read a __VERIFIER_nondet_* value past the bounded ones
    const RunResult r = Interpret(
        prog,
        [&](IntType, const InputSite& site) -> Int128 {
          if (!site.name.empty()) return 0;  // an uninitialised value: the run must not read it
          if (next < choice.size()) {
            ++next;
            return values[next - 1][choice[next - 1]];
          }
          beyond = true;
          return 0;
        },
        kMaxSteps, wall_s - clock.Seconds(), cancel, cpu_left);
    ++search.runs;
    if (r.outcome == Outcome::kError) {
      search.kind = RunSearch::kError;
      search.inputs = r.inputs;
      search.sites = r.input_sites;
      return search;
    }
    if (beyond || r.read_uninitialised || r.signed_overflow ||
        (r.outcome != Outcome::kFinished && r.outcome != Outcome::kBlocked)) {
      return search;
    }
    size_t k = choice.size();
    while (k > 0 && ++choice[k - 1] == values[k - 1].size()) choice[--k] = 0;
    if (k == 0) break;
  }
  search.kind = RunSearch::kEveryRun;
  return search;
}

}  // namespace

RunSearch FindCounterexample(const Program& prog, double budget_s, double wall_s, unsigned seed,
                             const std::atomic<bool>* cancel) {
  // CPU time, as for the solver runs: on the loaded shared machine a run over 100000 cells took more than
  // a third of 0.4 wall-clock seconds, and the buggy tasks went unrefuted.
  common::Stopwatch clock;
  const ThreadCpuClock cpu;
  const double cpu_start = cpu.Seconds();
  if (const auto values = BoundedInputs(prog, kMaxEnumeratedRuns)) {
    const RunSearch every = EveryRun(prog, *values, budget_s, wall_s, cancel);
    if (every.kind != RunSearch::kNothing) return every;
  }
  std::mt19937_64 rng(seed);
  // The values a blocked run read before its last one. An assume that blocks a run most often tests the
  // value just read (`x = nondet(); assume(x >= 0 && x <= 1);`), so the next run keeps the values before it
  // and draws that one anew: runs that must pass many such assumes get past them one at a time instead of
  // all at once. After kRedraws runs blocked at the same point (an assume over earlier values) the search
  // starts afresh.
  constexpr int kRedraws = 16;
  std::vector<Int128> prefix;
  int redraws = 0;
  // After every seventh run, one more draws each value from the program's constants and their neighbours, from
  // a stream of its own, leaving the other runs' draws as they were.
  const std::vector<Int128> dictionary = ProgramConstants(prog);
  std::mt19937_64 dictionary_rng(seed);
  int dictionary_runs = 0;
  for (int run = 0; run == 0 || (cpu.Seconds() - cpu_start < budget_s && clock.Seconds() < wall_s); ++run) {
    if (cancel && cancel->load()) break;
    const int mode = (run + 2) % 4;  // random small values first: most bugs of the tasks show with them
    // A third of the budget at most per run, so that one run with a huge drawn bound leaves time for others.
    const auto cpu_limit = [&] {
      return std::max(0.01, std::min(budget_s / 3, budget_s - (cpu.Seconds() - cpu_start)));
    };
    size_t next = 0;
    const RunResult r = Interpret(
        prog, [&](IntType t, const InputSite&) { return next < prefix.size() ? prefix[next++] : Draw(rng, t, mode); },
        kMaxSteps, std::max(0.01, wall_s - clock.Seconds()), cancel, cpu_limit());
    if (r.outcome == Outcome::kError) return {RunSearch::kError, r.inputs, run + 1 + dictionary_runs, r.input_sites};
    // A run that read nothing is the program's only run. Where it overflowed a signed value the compiled
    // program may do anything, and the clauses, which assume no overflow, are left to decide.
    if (!r.read_input && (r.outcome == Outcome::kFinished || r.outcome == Outcome::kBlocked) &&
        !r.signed_overflow) {
      return {RunSearch::kOnlyRun, {}, 1, {}};
    }
    const bool same_point = r.inputs.size() == prefix.size() + 1;
    if (r.outcome == Outcome::kBlocked && !r.inputs.empty() && (!same_point || ++redraws < kRedraws)) {
      if (!same_point) redraws = 0;
      prefix.assign(r.inputs.begin(), r.inputs.end() - 1);
    } else {
      prefix.clear();
      redraws = 0;
    }
    // A run that read no value is the only run there is; otherwise a few hundred runs are plenty for the
    // shallow bugs this search is for (deep ones are Spacer's).
    if (!r.read_input || run > 300) break;
    if (run % 7 == 6 && !dictionary.empty()) {
      ++dictionary_runs;
      const RunResult d = Interpret(
          prog,
          [&](IntType, const InputSite&) {
            return dictionary[std::uniform_int_distribution<size_t>(0, dictionary.size() - 1)(dictionary_rng)];
          },
          kMaxSteps, std::max(0.01, wall_s - clock.Seconds()), cancel, cpu_limit());
      if (d.outcome == Outcome::kError) {
        return {RunSearch::kError, d.inputs, run + 1 + dictionary_runs, d.input_sites};
      }
    }
  }
  return {};
}

namespace {

// What a proof of a candidate program establishes: the property itself, or one half of the
// wrap-around split (wrap_checks.h) of the program or of its lifted program (lift.h), which proves the
// property only together with the other half of the same split.
enum Goal { kWhole, kNoWrap, kUnderNoWrap, kLiftedNoWrap, kLiftedUnderNoWrap, kGoals };

const char* GoalName(Goal g) {
  if (g == kWhole) return "";
  return g == kNoWrap || g == kLiftedNoWrap ? "no wrap-around" : "property under no wrap-around";
}

// One program the portfolio tries to prove, whether its clauses use a symbolic UINT_MAX (EncodeHorn),
// whether it is fused (which option sets suit it), and whether it over-approximates the errors: the cell
// abstraction's are mostly those of the cells it does not track, the lifted program's those of equalities
// that hold only modulo 2^32. Spacer finding one there is no reason to search for inputs.
struct Candidate {
  Variant variant;
  Goal goal;
  bool symbolic = false;
  bool fused = false;
  bool approximate = false;
};

// Whether the inputs of Spacer's counterexample on a candidate may drive the original program to an error:
// the candidates that approximate nothing (a half of the split only adds checks; a fused program reads each
// site's values in the original's order, with guesses between them, except in a reversed loop, where the
// replay fails). The no-wrap half's errors are wrap-arounds, not the program's.
bool Replayable(const Candidate& c) { return !c.approximate && c.goal != kNoWrap; }

// A counterexample's values as JSON for the solver process's reply (numbers as decimal strings: they may
// not fit 64 bits), and back; nothing for malformed JSON.
nlohmann::json ToJson(const CounterexampleValues& values) {
  nlohmann::json out = {{"inputs", nlohmann::json::array()}, {"arrays", nlohmann::json::object()}};
  for (size_t k = 0; k < values.inputs.size(); ++k) {
    const InputSite& site = values.sites.at(k);
    out["inputs"].push_back({site.loc.line, site.loc.col, site.name, DecimalText(values.inputs[k])});
  }
  for (const auto& [name, a] : values.arrays) {
    nlohmann::json cells = nlohmann::json::array();
    for (const auto& [index, v] : a.cells) cells.push_back({index, DecimalText(v)});
    out["arrays"][name] = {{"otherwise", DecimalText(a.otherwise)}, {"cells", cells}};
  }
  return out;
}

std::optional<CounterexampleValues> FromJson(const nlohmann::json& j) {
  try {
    CounterexampleValues out;
    for (const auto& v : j.at("inputs")) {
      out.sites.push_back(InputSite{{v.at(0).get<int>(), v.at(1).get<int>()}, v.at(2).get<std::string>()});
      out.inputs.push_back(ParseDecimal(v.at(3).get<std::string>()).value());
    }
    for (const auto& [name, a] : j.at("arrays").items()) {
      ArrayValue value{ParseDecimal(a.at("otherwise").get<std::string>()).value(), {}};
      for (const auto& cell : a.at("cells")) {
        value.cells[cell.at(0).get<long long>()] = ParseDecimal(cell.at(1).get<std::string>()).value();
      }
      out.arrays.emplace(name, std::move(value));
    }
    return out;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// A program that the candidates come from, when it is not the original: the name its variants get as a
// prefix ("cells+guess") and the line that says what it is.
struct Origin {
  std::string name;
  std::string line;
};

// One solver run: a candidate under an option set with a time limit.
struct Job {
  size_t candidate;
  size_t option;
  double limit_s;
};

// The accepted proof of one goal.
struct Proof {
  bool done = false;
  std::string who;
  std::vector<std::string> transformations;
  std::vector<std::string> invariants;
};

// The candidates in the order they are tried under each option set. Fused versions before unfused ones:
// they are what fusion is for, and their proofs are the quick ones (docs/loopfuse.md, "Portfolio"); the
// plain original last, whose proofs (when it has one) take longest.
//
// The halves of the split are encoded with a symbolic UINT_MAX: they are the programs whose proofs rest on
// range facts (x + y <= UINT_MAX), which Spacer finds with a parameter and not with the numeral.
std::vector<Candidate> Candidates(const Program* original, bool fusion, const Program* summarized) {
  std::vector<Candidate> out;
  // The summarized program first, as parsed: the others were cut where recursion went deeper, so that what they
  // prove needs no run to go that deep. Its clauses are nonlinear: an error Spacer finds there is no one run.
  if (summarized) {
    std::string names;
    for (const Procedure& p : summarized->procedures) names += (names.empty() ? "'" : ", '") + p.name + "'";
    out.push_back({Variant{"summaries",
                           *summarized,
                           {"recursive functions kept whole, each call read as the function's summary (a relation "
                            "between its arguments, the globals it reads or writes, and its result): " +
                            names}},
                   kWhole, false, false, true});
  }
  if (!original) return out;
  // Every candidate starts from the program with its set-once constants substituted and its constant cells
  // as scalars: the same program, in terms that more candidates can encode (a remainder by a constant) and
  // fuse (a guessed scalar).
  std::vector<std::string> start_lines;
  const Program prog = CandidateStart(*original, start_lines);
  // p's fused versions, or p itself; `origin`: what made p, if not the original.
  auto add = [&](const Program& p, Goal goal, bool fused, const std::optional<Origin>& origin = std::nullopt) {
    const auto push = [&](Variant v) {
      if (origin) {
        v.name = v.transformations.empty() ? origin->name : origin->name + "+" + v.name;
        v.transformations.insert(v.transformations.begin(), origin->line);
      }
      v.transformations.insert(v.transformations.begin(), start_lines.begin(), start_lines.end());
      out.push_back({std::move(v), goal, goal != kWhole, fused, origin.has_value()});
    };
    if (fused) {
      for (Variant& v : FusedVariants(p)) push(std::move(v));
    } else {
      push(Variant{"original", p, {}});
    }
  };
  WrapSplit split;
  const bool has_split = SplitWrapChecks(prog, split);
  // With a split, its two quick halves go first: the whole program with its modulo arithmetic is the
  // harder problem (no in-de task's whole program is proved in 60 s, fused or not).
  if (has_split) {
    if (fusion) add(split.under_no_wrap, kUnderNoWrap, true);
    add(split.no_wrap, kNoWrap, false);
  }
  // The lifted program's halves next, where it has them: the ones above fail where an unsigned value
  // really wraps around (in-de42), and these take that value out of both.
  std::string why_not;
  const std::optional<Lifted> lifted = LiftUnsigned(prog, why_not);
  const std::optional<Origin> lifted_origin =
      lifted ? std::optional<Origin>(Origin{"lifted", lifted->line}) : std::nullopt;
  WrapSplit lifted_split;
  const bool has_lifted_split = lifted && SplitWrapChecks(lifted->prog, lifted_split);
  if (has_lifted_split) {
    if (fusion) add(lifted_split.under_no_wrap, kLiftedUnderNoWrap, true, lifted_origin);
    add(lifted_split.no_wrap, kLiftedNoWrap, false, lifted_origin);
  } else if (lifted) {
    if (fusion) add(lifted->prog, kWhole, true, lifted_origin);
    add(lifted->prog, kWhole, false, lifted_origin);
  }
  if (fusion) add(prog, kWhole, true);
  if (has_split) add(split.under_no_wrap, kUnderNoWrap, false);
  if (has_lifted_split) add(lifted_split.under_no_wrap, kLiftedUnderNoWrap, false, lifted_origin);
  add(prog, kWhole, false);
  // Range facts rarely need fusion (the fused no-wrap half of in-de20 takes 5 times longer).
  if (has_split && fusion) add(split.no_wrap, kNoWrap, true);
  // The cell abstraction last (cells.h): it proves what needs an invariant quantified over the cells, and
  // loses what the untracked cells hold, which the other candidates keep.
  if (const std::optional<Program> cells = AbstractCells(prog, why_not)) {
    const Origin origin{"cells", CellAbstractionLine(prog)};
    if (fusion) add(*cells, kWhole, true, origin);
    add(*cells, kWhole, false, origin);
  }
  return out;
}

// Runs the portfolio on several threads: workers take the jobs in order, each run in its own Z3 context;
// the first accepted answer stops the others.
class PortfolioRun {
 public:
  // prog: the program with recursion inlined, or null where only the summarized one is to be tried.
  PortfolioRun(const Program* prog, const VerifyOptions& options, const common::Stopwatch& clock,
               const Program* summarized)
      : prog_(prog), runs_(summarized ? *summarized : *prog), options_(options), clock_(clock),
        candidates_(Candidates(prog, options.fusion, summarized)),
        encode_errors_(candidates_.size()), encoding_passed_(candidates_.size(), 0) {
    // Rounds of short runs with a limit that doubles, so that the time lost to restarts is at most what
    // the longest run takes. Within a round, the pairs run by
    // the option set's rank for fused or unfused programs, then in candidate order: each candidate first
    // meets the set that suits its kind (docs/loopfuse.md, "Portfolio").
    std::vector<std::pair<int, Job>> round;
    for (size_t c = 0; c < candidates_.size(); ++c) {
      for (size_t o = 0; o < Portfolio().size(); ++o) {
        const OptionSet& set = Portfolio()[o];
        const Variant& v = candidates_[c].variant;
        const bool arrays = std::any_of(v.prog.vars.begin(), v.prog.vars.end(), [](const Var& x) { return x.is_array; });
        const int rank = arrays ? set.rank_arrays : candidates_[c].fused ? set.rank_fused : set.rank_unfused;
        round.push_back({rank, {c, o, 0}});
      }
    }
    std::stable_sort(round.begin(), round.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    // Round one runs each candidate under its best-suited set only, for 2 s of CPU time: on the benchmark
    // no other pair solves a task that no rank-0 pair solves, and the quick proofs of some need more than
    // a second (the fused halves of in-de51, sum_array-2). Round two gives the other pairs 2 s (a rank-0
    // pair again would be the same run: the limit counts CPU time and Spacer is deterministic; until
    // 2026-12-02 it ran again), later rounds double it for every pair.
    for (int r = 1;; ++r) {
      const double limit = r == 1 ? 2.0 : 2.0 * (1 << (r - 2));
      for (const auto& [rank, job] : round) {
        if ((r == 1) == (rank == 0) || r > 2) jobs_.push_back({job.candidate, job.option, limit});
      }
      if (limit >= options.timeout_s) break;
    }
  }

  // Runs the workers and a concrete search for errors next to them; fills v when an answer is found.
  void Run(Verdict& v) {
    if (trace_) fmt::print(stderr, "loopfuse: {:6.2f} s  {} candidates, {} jobs\n", clock_.Seconds(), candidates_.size(), jobs_.size());
    unsigned n = options_.threads ? options_.threads : std::max(2u, std::thread::hardware_concurrency());
    // Every solver run is a child process of a server forked here, before any worker thread exists
    // (common/fork_server.h): a run that the verdict makes useless, or that is past its time, is killed
    // instead of interrupted, because interrupting Z3 4.8.12 at an unlucky moment aborts the process
    // (docs/reliability.md).
    // Each child makes its own Z3 context: one inherited from the server made the runs slower (median
    // 1.37 s against 0.91 s over the 31 tasks, same load).
    common::ForkServer server(n, [this](const std::string& request) { return SolveInChild(request); },
                              Z3Failures());
    std::jthread ticker;
    if (options_.on_progress) {
      ticker = std::jthread([this](std::stop_token stop) {
        std::mutex mutex;
        std::condition_variable_any wake;
        std::unique_lock<std::mutex> lock(mutex);
        while (!wake.wait_for(lock, stop, std::chrono::milliseconds(200), [&] { return stop.stop_requested(); })) {
          options_.on_progress(clock_.Seconds());
        }
      });
    }
    std::vector<std::thread> workers;
    for (unsigned i = 0; i < n; ++i) workers.emplace_back([this, &server, i] { Work(server, i); });
    // A concrete run that reaches an error settles the verdict without any solver.
    // (The bugs of the tasks show within 0.15 s on an idle machine, but a run over 100000 cells takes a
    // good part of a second on the loaded shared one with the solvers running next to it; a proof found
    // meanwhile cancels the search.)
    const RunSearch search =
        FindCounterexample(runs_, std::min(2.0, options_.timeout_s / 2.5), 0.9 * options_.timeout_s, 1, &stop_);
    if (search.kind == RunSearch::kError) {
      std::lock_guard<std::mutex> lock(mutex_);
      // Concrete evidence wins over a proof found at the same moment (a sound proof cannot exist then).
      SetFalse(search, "a concrete run of the original program reaches an error", "interpreter");
    } else if ((search.kind == RunSearch::kOnlyRun || search.kind == RunSearch::kEveryRun) &&
               options_.proofs_by_runs) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (verdict_.verdict.empty()) {
        verdict_.verdict = "true";
        if (search.kind == RunSearch::kOnlyRun) {
          verdict_.reason =
              "the program reads no nondeterministic value, and its only run, made concretely, reaches no error";
          verdict_.solved_by = "interpreter (the only run)";
        } else {
          verdict_.reason = fmt::format(
              "the program's inputs take {} combinations of values past its first checks, and the run on each, "
              "made concretely, reaches no error",
              search.runs);
          verdict_.solved_by = fmt::format("interpreter (every run: {})", search.runs);
        }
        stop_ = true;
      }
    }
    for (auto& w : workers) w.join();
    std::lock_guard<std::mutex> lock(mutex_);
    if (!process_failure_.empty()) throw std::logic_error("a solver process failed: " + process_failure_);
    if (!verdict_.verdict.empty()) {
      v = verdict_;
      return;
    }
    // Every job may end before the time limit: each gave up (a division by a variable, say) or was refused.
    const bool out_of_time = clock_.Seconds() >= options_.timeout_s - kKillGrace_s;
    if (!spacer_found_error_.empty()) {
      v.reason = "Spacer found the error reachable (" + spacer_found_error_ + "), but no concrete run confirmed it (" +
                 spacer_error_unconfirmed_ + ")";
      if (spacer_error_bounds_division_) v.reason += std::string("; ") + kBoundedDivisionNote;
    } else {
      v.reason = (out_of_time ? "time-out" : "no solver run answered") + std::string(" (last: ") + last_reason_ + ")";
    }
    if (prog_ && !prog_->recursion_cuts.empty()) {
      v.reason += fmt::format("; recursion inlined to a bounded depth, cut at {} (a run deeper tells nothing)",
                              fmt::join(prog_->recursion_cuts, ", "));
    }
  }

 private:
  // The verdict false, with the values of the run that reached the error.
  void SetFalse(const RunSearch& run, const std::string& reason, const std::string& who) {
    verdict_ = Verdict{};
    verdict_.verdict = "false";
    verdict_.reason = reason;
    verdict_.inputs = run.inputs;
    verdict_.input_sites = run.sites;
    verdict_.solved_by = who;
    stop_ = true;
  }

  // Accepts a proof of goal; settles the verdict when the goals proved add up to the property.
  void Proved(Goal goal, const Candidate& cand, const std::string& who, const SolveResult& r) {
    Proof& p = proofs_[goal];
    p = Proof{true, who, cand.variant.transformations, r.invariants};
    if (!verdict_.verdict.empty()) return;
    const bool whole = proofs_[kWhole].done;
    const bool lifted_halves = proofs_[kLiftedNoWrap].done && proofs_[kLiftedUnderNoWrap].done;
    if (!whole && !lifted_halves && !(proofs_[kNoWrap].done && proofs_[kUnderNoWrap].done)) return;
    verdict_.verdict = "true";
    verdict_.reason = "invariants found and checked inductive";
    if (whole) {
      verdict_.transformations = p.transformations;
      verdict_.invariants = p.invariants;
      verdict_.solved_by = p.who;
    } else {
      verdict_.reason += " (unsigned wrap-around split: no wrap-around, and the property under it)";
      for (Goal g : lifted_halves ? std::vector<Goal>{kLiftedNoWrap, kLiftedUnderNoWrap}
                                  : std::vector<Goal>{kNoWrap, kUnderNoWrap}) {
        const Proof& q = proofs_[g];
        verdict_.transformations.push_back(std::string(GoalName(g)) + ": " +
                                           (q.transformations.empty() ? "none" : ""));
        for (size_t i = 0; i < q.transformations.size(); ++i) {
          verdict_.transformations.back() += (i ? "; " : "") + q.transformations[i];
        }
        for (const auto& inv : q.invariants) verdict_.invariants.push_back(std::string("[") + GoalName(g) + "] " + inv);
        verdict_.solved_by += (g == kNoWrap || g == kLiftedNoWrap ? "" : " + ") + q.who;
      }
    }
    stop_ = true;
  }

  // Takes the next job whose goal is still open; false when none is left.
  bool Next(Job& job) {
    std::lock_guard<std::mutex> lock(mutex_);
    while (next_ < jobs_.size()) {
      job = jobs_[next_++];
      if (proofs_[candidates_[job.candidate].goal].done || !encode_errors_[job.candidate].empty()) continue;
      if (job.limit_s <= encoding_passed_[job.candidate]) continue;  // its encoding would pass that limit again
      if (!refused_.count({job.candidate, job.option})) return true;
    }
    return false;
  }

  // Solves one job in a child of the fork server (the request: Work's JSON) and returns the
  // SolveResult as JSON, or why the candidate cannot be encoded.
  std::string SolveInChild(const std::string& request) const {
    const nlohmann::json in = nlohmann::json::parse(request);
    const Candidate& cand = candidates_.at(in.at("candidate").get<size_t>());
    const OptionSet& opts = Portfolio().at(in.at("option").get<size_t>());
    const double left = in.at("left_s").get<double>();
    common::Stopwatch clock;
    nlohmann::json out;
    try {
      // The job's CPU limit bounds the encoding too, on its own: a candidate whose clauses take a minute to
      // make (a recursion inlined 1 024 times, recursive's Addition03-1) would hold its worker for all the
      // time left, and the candidates after it would wait; a later round's limit may let it finish.
      const double cpu_limit_s = in.at("cpu_limit_s").get<double>();
      HornProblem problem(cand.variant.prog, left, cand.symbolic, true, options_.merge_above_paths, cpu_limit_s);
      if (!problem.encode_error().empty()) {
        out["encode_error"] = problem.encode_error();
        out["encode_interrupted"] = problem.encode_interrupted();
        return out.dump();
      }
      const double remaining = left - clock.Seconds();
      if (trace_) fmt::print(stderr, "loopfuse: candidate {} encoded in {:.2f} s\n", in.at("candidate").get<size_t>(), clock.Seconds());
      SetSolveCpuCap(cpu_limit_s);
      const SolveResult r = problem.Solve(opts, remaining, remaining, cpu_limit_s, options_.affine);
      SetSolveCpuCap(0);
      if (r.status == SolveStatus::kUnsafe && Replayable(cand)) {
        // Spacer asked again finds the same error in about the same time; a few times that, for the unrolled
        // query, and the worker goes on.
        const double limit = std::min(std::max(0.1, left - clock.Seconds()), std::max(1.0, 4 * r.seconds));
        CounterexampleSearch search = problem.Counterexample(opts, limit);
        if (search.values) {
          CellScalarsToArrays(cand.variant.prog, *search.values);
          out["counterexample"] = ToJson(*search.values);
        } else {
          out["no_counterexample"] = search.why_none;
        }
      }
      out["status"] = static_cast<int>(r.status);
      out["reason"] = r.reason;
      out["invariants"] = r.invariants;
      out["by_inferred"] = r.by_inferred;
      out["bounds_division"] = problem.bounds_division();
    } catch (const std::bad_alloc&) {
      out["status"] = static_cast<int>(SolveStatus::kUnknown);
      out["reason"] = "out of memory";
    }
    return out.dump();
  }

  // One worker: takes jobs in order and runs each in a child of the server, as the server's client
  // number `client`.
  void Work(common::ForkServer& server, unsigned client) {
    Job job;
    while (!stop_ && Next(job)) {
      const double left = options_.timeout_s - clock_.Seconds();
      if (left <= 0.05) return;
      const Candidate& cand = candidates_[job.candidate];
      const OptionSet& opts = Portfolio()[job.option];
      const double started = clock_.Seconds();
      // The job's limit counts the child's CPU time: on the loaded shared machine a wall-clock second
      // is a fraction of one, and the quick proofs would be cut off round after round. The server kills
      // the child a little after the verifier's own time-out, in case Z3 does not stop when told.
      const nlohmann::json request = {
          {"candidate", job.candidate}, {"option", job.option}, {"left_s", left}, {"cpu_limit_s", job.limit_s}};
      const common::ForkServer::Reply reply = server.Call(client, request.dump(), left + kKillGrace_s, &stop_);
      SolveResult r;
      r.seconds = clock_.Seconds() - started;
      std::string failure = reply.failed ? reply.text : "";
      nlohmann::json out;
      if (reply.ok) {
        out = nlohmann::json::parse(reply.text, nullptr, false);
        if (out.is_discarded() || !out.is_object()) failure = "a solver process replied with malformed JSON";
      }
      if (!failure.empty()) {  // a bug, not a solver's answer: Verify throws it
        std::lock_guard<std::mutex> lock(mutex_);
        process_failure_ = failure;
        stop_ = true;
        return;
      }
      if (!reply.ok) {
        r.reason = "solver " + reply.text;
      } else if (out.contains("encode_error")) {  // too large or out of time: the other candidates may still do
        std::lock_guard<std::mutex> lock(mutex_);
        last_reason_ = out.value("encode_error", "");
        if (trace_) fmt::print(stderr, "loopfuse: {:6.2f}-{:6.2f} s  candidate {}  limit {:.1f}: {}\n", started,
                               clock_.Seconds(), job.candidate, job.limit_s, last_reason_);
        if (out.value("encode_interrupted", false)) {
          encoding_passed_[job.candidate] = std::max(encoding_passed_[job.candidate], job.limit_s);
        } else {
          encode_errors_[job.candidate] = last_reason_;
        }
        continue;
      } else {
        r.status = static_cast<SolveStatus>(out.value("status", static_cast<int>(SolveStatus::kUnknown)));
        r.reason = out.value("reason", "");
        r.invariants = out.value("invariants", std::vector<std::string>{});
        r.by_inferred = out.value("by_inferred", false);
        if (r.reason.find(kDivisionRefusal) != std::string::npos) {
          std::lock_guard<std::mutex> lock(mutex_);
          refused_.insert({job.candidate, job.option});
        }
      }
      const std::optional<CounterexampleValues> spacer_values =
          out.contains("counterexample") ? FromJson(out["counterexample"]) : std::nullopt;
      const bool unsigned_goal = cand.goal != kWhole;
      const std::string who = cand.variant.name + (unsigned_goal ? std::string(" (") + GoalName(cand.goal) + ")" : "") +
                              " / " + (r.by_inferred ? "inferred invariants" : opts.name);
      if (trace_) {
        fmt::print(stderr, "loopfuse: {:6.2f}-{:6.2f} s  {}  limit {:.1f}: {}\n", started, clock_.Seconds(), who,
                   job.limit_s, r.status == SolveStatus::kSafe ? "safe" : r.status == SolveStatus::kUnsafe ? "unsafe" : r.reason);
      }
      std::unique_lock<std::mutex> lock(mutex_);
      if (r.status == SolveStatus::kSafe) {
        Proved(cand.goal, cand, who, r);
      } else if (r.status == SolveStatus::kUnsafe && cand.goal != kNoWrap && !cand.approximate) {
        // Spacer says an error is reachable (a wrap-around is no error): first its own counterexample's
        // inputs, run on the original program; then, once, a harder search for concrete inputs.
        lock.unlock();
        RunResult replay;
        if (spacer_values) {
          replay = ReplayCounterexample(runs_, *spacer_values, kMaxSteps,
                                        std::max(0.1, options_.timeout_s - clock_.Seconds()), &stop_);
        }
        if (replay.outcome == Outcome::kError) {
          lock.lock();
          if (verdict_.verdict.empty()) {
            SetFalse(RunSearch{RunSearch::kError, replay.inputs, 1, replay.input_sites},
                     "Spacer found the error reachable; its counterexample, run on the original program, reaches it",
                     who + " + replay");
          }
          continue;
        }
        lock.lock();
        if (!spacer_found_error_.empty()) continue;
        spacer_found_error_ = who;
        spacer_error_unconfirmed_ =
            spacer_values ? "its counterexample's run of the original program ends " + OutcomeName(replay.outcome)
                          : "no counterexample: " + out.value("no_counterexample", std::string("unreadable"));
        spacer_error_bounds_division_ = out.value("bounds_division", false);
        lock.unlock();
        const double budget = std::min(2.0, std::max(0.1, (options_.timeout_s - clock_.Seconds()) / 4));
        const RunSearch search =
            FindCounterexample(runs_, budget, std::max(0.1, 0.9 * options_.timeout_s - clock_.Seconds()), 7, &stop_);
        if (search.kind == RunSearch::kError) {
          lock.lock();
          if (verdict_.verdict.empty()) {
            SetFalse(search, "Spacer found the error reachable; a concrete run of the original program confirms it",
                     who + " + interpreter");
          }
        }
      } else if (!r.reason.empty()) {
        last_reason_ = r.reason;
      }
    }
  }

  // LOOPFUSE_TRACE=1 prints every solver run (start, end, candidate, option set, outcome) to stderr, to
  // see where the time of a benchmark task goes.
  const bool trace_ = std::getenv("LOOPFUSE_TRACE") != nullptr;
  const Program* prog_;
  // The program that concrete runs run: the summarized one where there is one, whose calls go as deep as a run
  // does (prog_ stops a run at its recursion cuts), else prog_.
  const Program& runs_;
  const VerifyOptions& options_;
  const common::Stopwatch& clock_;
  const std::vector<Candidate> candidates_;
  std::vector<Job> jobs_;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;  // guards everything below
  size_t next_ = 0;
  std::vector<std::string> encode_errors_;
  // Per candidate, the largest CPU limit of a job whose encoding that limit interrupted (0: none): the encoding
  // is the same work under every option set, so a job with no larger limit is skipped.
  std::vector<double> encoding_passed_;
  // (candidate, option set) pairs whose clauses Spacer refused (a division by a variable): a longer run of
  // the same pair would be refused again, so the later rounds skip it.
  std::set<std::pair<size_t, size_t>> refused_;
  Proof proofs_[kGoals];
  Verdict verdict_{"", "", 0, {}, {}, {}, {}, ""};
  std::string spacer_found_error_;  // the first job whose `unsafe` started the search, or empty
  std::string spacer_error_unconfirmed_;  // why that job's counterexample did not confirm it
  bool spacer_error_bounds_division_ = false;  // whether that job's clauses bound a division (HornSystem)
  std::string last_reason_ = "time-out";
  std::string process_failure_;  // why a solver process failed (a bug: Verify throws it), or empty
};

// The portfolio's verdict on prog (null: the summarized program's candidate alone) and summarized, timed.
Verdict RunPortfolio(const Program* prog, const VerifyOptions& options, const Program* summarized) {
  common::Stopwatch clock;
  Verdict v;
  PortfolioRun(prog, options, clock, summarized).Run(v);
  v.seconds = clock.Seconds();
  return v;
}

}  // namespace

Verdict Verify(const Program& prog, const VerifyOptions& options, const Program* summarized) {
  return RunPortfolio(&prog, options, summarized);
}

Verdict VerifySummarized(const Program& summarized, const VerifyOptions& options) {
  return RunPortfolio(nullptr, options, &summarized);
}

Verdict VerifyFile(const std::string& file, DataModel model, VerifyOptions options) {
  common::Stopwatch clock;
  Verdict v;
  try {
    std::optional<Program> prog;
    // Where the reading with recursion inlined passed a limit of the parser's inside a recursion, why: a
    // recursion that runs another at each level (SV-COMP's Primes) inlines the product of their depths.
    std::string inlined_beyond_limit;
    try {
      prog = ParseFile(file, model, false, options.timeout_s);
    } catch (const LimitError& e) {
      if (!e.inlining_recursion) throw;
      inlined_beyond_limit = e.what();
    }
    // Where recursion was cut, or its inlining passed a limit, the program again with it summarized, if it is of
    // the functions that allows. Whatever this reading refuses leaves the candidate out, not the file.
    std::optional<Program> summarized;
    if (!prog || !prog->recursion_cuts.empty()) {
      try {
        summarized = ParseFile(file, model, true, options.timeout_s - clock.Seconds());
      } catch (const common::InputError&) {
      }
    }
    const double parsed_s = clock.Seconds();
    if (parsed_s >= options.timeout_s) {
      v.reason = fmt::format("time-out (parsing and inlining the program took {:.2f} s)", parsed_s);
      if (!prog) v.reason = inlined_beyond_limit + "; then " + v.reason;
    } else if (!prog && !summarized) {
      v.reason = inlined_beyond_limit;
    } else {
      options.timeout_s -= parsed_s;
      v = prog ? Verify(*prog, options, summarized ? &*summarized : nullptr) : VerifySummarized(*summarized, options);
      if (!prog && v.verdict == "unknown") {
        v.reason = inlined_beyond_limit + "; with recursion summarized: " + v.reason;
      }
    }
  } catch (const UnsupportedError& e) {
    v.reason = e.what();
  }
  v.seconds = clock.Seconds();
  return v;
}

}  // namespace fusion
