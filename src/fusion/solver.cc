#include "fusion/solver.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "common/stopwatch.h"
#include "fusion/affine.h"
#include "fusion/cpu_clock.h"
#include "fusion/errors.h"
#include "fusion/horn.h"
#include "fusion/polynomial.h"

namespace fusion {
namespace {

// A Z3 message as one line of a verdict's reason: Spacer appends the clause it gave up on, which can run to
// hundreds of lines. Its "Uninterpreted 'div'" (or 'mod') means a division by a variable, which its linear
// arithmetic does not take.
std::string SolverMessage(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == ':' || line.back() == ' ')) line.pop_back();
  if (line.rfind("Uninterpreted 'div'", 0) == 0 || line.rfind("Uninterpreted 'mod'", 0) == 0) {
    return std::string(kDivisionRefusal) + ", outside Spacer's linear arithmetic (" + line + ")";
  }
  return line;
}

// Interrupts a Z3 context when a deadline passes, because Spacer does not always honour "timeout". With
// cpu_seconds > 0, also when the thread that created the watchdog (the one running Z3) has used that much
// CPU time since: on a loaded machine a run then gets the same work as on an idle one. The clocks are
// polled every 10 ms.
class Watchdog {
 public:
  Watchdog(z3::context& ctx, double seconds, double cpu_seconds = 0)
      : thread_([this, &ctx, seconds, cpu_seconds, cpu = ThreadCpuClock{}] {
          const double cpu_start = cpu.Seconds();
          const std::chrono::steady_clock::time_point deadline =
              std::chrono::steady_clock::now() +
              std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
          std::chrono::steady_clock::time_point next_interrupt{};
          std::unique_lock<std::mutex> lock(mutex_);
          while (!done_) {
            const std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now();
            const bool cpu_spent = cpu_seconds > 0 && cpu.ok && cpu.Seconds() - cpu_start >= cpu_seconds;
            // Interrupts once, and again each second while the run goes on: an interrupt that arrives while
            // Z3 is between two interruptible operations is lost, and the run would then be unbounded. Not
            // more often: every interrupt not consumed by a run cancels the next operation in the context.
            if ((now >= deadline || cpu_spent) && now >= next_interrupt) {
              ctx.interrupt();
              next_interrupt = now + std::chrono::seconds(1);
            }
            cv_.wait_until(lock, std::min<std::chrono::steady_clock::time_point>(
                                     std::max(deadline, now), now + std::chrono::milliseconds(10)));
          }
        }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

// An invariant per predicate, at the arguments of a clause side.
using InvariantAt = std::function<z3::expr(int pred, const std::vector<z3::expr>& args)>;

// The invariants of Spacer's model: its interpretation of each predicate conjoined with the invariants inferred
// for the clauses it solved.
InvariantAt ModelInvariant(const HornSystem& sys, const z3::model& m, const InferredInvariants& inferred,
                           z3::context& ctx) {
  return [&sys, m, &inferred, &ctx](int pred, const std::vector<z3::expr>& args) {
    z3::expr_vector a(ctx);
    for (const auto& x : args) a.push_back(x);
    return m.eval(sys.preds[pred](a), false) && inferred.At(ctx, pred, args);
  };
}

// The most inferred disjunctions that the check of a clause splits into cases (2^k queries).
constexpr size_t kMaxSplitDisjunctions = 4;

// Checks that the invariants make every clause of the system as encoded valid, with the inferred consequences
// (InferredInvariants::consequences) assumed in each body too; empty when they do, else why not. The caller's
// watchdog bounds the time, and rlimit > 0 (Z3's resource limit) each query. Where the body's predicates have
// inferred disjunctions (at most kMaxSplitDisjunctions), each case of them is a query of its own, its disjuncts
// facts: Z3 then eliminates a variable by a case's equality, which inside the disjunction it does not (cohencu's
// exit with `n == 0 || n <= a + 1`: 8 s as one query, 0.05 s by cases).
std::string CheckInductive(const HornSystem& sys, const InvariantAt& invariant, const InferredInvariants& inferred,
                           z3::context& ctx, unsigned rlimit = 0) {
  const auto assumed = [&](int pred, const std::vector<z3::expr>& args) {
    return invariant(pred, args) && inferred.Consequences(ctx, pred, args);
  };
  for (size_t i = 0; i < sys.clauses.size(); ++i) {
    const HornClause& c = sys.clauses[i];
    z3::expr_vector query(ctx);
    query.push_back(c.constraint);
    std::vector<std::pair<z3::expr, z3::expr>> disjuncts;
    const auto add_body = [&](int pred, const std::vector<z3::expr>& args) {
      query.push_back(assumed(pred, args));
      for (const BoundDisjunction& d : inferred.disjunctions[pred]) {
        disjuncts.emplace_back(d.reached.ReachedAt(ctx, args), d.bound.At(ctx, args));
      }
    };
    if (c.body_pred >= 0) add_body(c.body_pred, c.body_args);
    for (const SummaryAtom& call : c.calls) add_body(call.pred, call.args);
    if (c.head_pred >= 0) query.push_back(!invariant(c.head_pred, c.head_args));
    if (disjuncts.size() > kMaxSplitDisjunctions) disjuncts.clear();
    for (size_t cases = size_t{1} << disjuncts.size(), k = 0; k < cases; ++k) {
      z3::solver s = EliminatingSolver(ctx);
      if (rlimit > 0) {
        z3::params p(ctx);
        p.set("rlimit", rlimit);
        s.set(p);
      }
      s.add(query);
      for (size_t d = 0; d < disjuncts.size(); ++d) s.add((k >> d & 1) != 0 ? disjuncts[d].second : disjuncts[d].first);
      const z3::check_result r = s.check();
      if (r == z3::sat) return "invariant check failed on clause " + std::to_string(i);
      if (r == z3::unknown) {
        return "invariant check inconclusive on clause " + std::to_string(i) + " (" + s.reason_unknown() + ")";
      }
    }
  }
  return "";
}

// The share of a run's time limit that the affine invariants may take (they take milliseconds on the
// benchmark's programs; the rest is Spacer's).
constexpr double kAffineShare = 0.25;
// The share that the polynomial equalities may take, where a clause multiplies variables.
constexpr double kPolynomialShare = 0.25;
// Z3's resource limit of one clause's query when the inferred invariants are checked as a proof of their own (not
// a "timeout": polynomial.cc).
constexpr unsigned kDirectCheckRlimit = 500'000;

}  // namespace

const std::vector<OptionSet>& Portfolio() {
  // Configurations measured on the hand-written encodings (../shared/docs/spacer-examples) and on every
  // (task, candidate, option set) of the benchmark: each solves some encoding the others time out on.
  // eq_prop=false solves the fused scalar programs (all of them that any set solves); euf_gen the unfused
  // ones (down, seq-3, the no-wrap-around halves); qgen every array program that any set solves, fused
  // or not (sum_array-2 and rew only with it). The default configuration is left out: it solved nothing
  // that one of these did not.
  static const std::vector<OptionSet> kSets = {
      {"no-eq-prop", {{"fp.spacer.eq_prop", false}}, 0, 2, 1},
      {"qgen", {{"fp.spacer.q3.use_qgen", true}, {"fp.spacer.ground_pobs", false}, {"fp.spacer.mbqi", false}}, 1, 1, 0},
      {"euf-gen", {{"fp.spacer.use_euf_gen", true}}, 2, 0, 2},
  };
  return kSets;
}

common::LibraryFailures Z3Failures() {
  common::LibraryFailures z3;
  for (int status = 101; status <= 114; ++status) z3.exit_statuses.push_back(status);
  z3.code = reinterpret_cast<const void*>(&Z3_mk_config);
  return z3;
}

HornProblem::HornProblem(const Program& prog, double time_limit_s, bool symbolic_uint_max, bool symbolic_constants,
                         size_t merge_above_paths, double cpu_limit_s)
    : ctx_(std::make_unique<z3::context>()) {
  Watchdog dog(*ctx_, time_limit_s, cpu_limit_s);
  try {
    sys_ = std::make_unique<HornSystem>(
        EncodeHorn(prog, *ctx_, time_limit_s, symbolic_uint_max, symbolic_constants, merge_above_paths, cpu_limit_s));
  } catch (const UnsupportedError& e) {
    encode_error_ = e.what();
  } catch (const EncodeTimeout& e) {
    encode_error_ = e.what();
  } catch (const EncodeCpuLimit& e) {
    encode_error_ = e.what();
    encode_interrupted_ = true;
  } catch (const z3::exception& e) {
    encode_error_ = std::string("encoding interrupted: ") + e.msg();
    encode_interrupted_ = true;
  }
}

HornProblem::~HornProblem() = default;

SolveResult HornProblem::Solve(const OptionSet& options, double time_limit_s, double check_limit_s,
                               double cpu_limit_s, bool affine_invariants) {
  common::Stopwatch clock;
  SolveResult out;
  solved_.reset();
  if (!sys_) {
    out.reason = encode_error_;
    return out;
  }
  z3::context& ctx = *ctx_;
  const HornSystem& sys = *sys_;
  const ThreadCpuClock cpu;
  const double cpu_start = cpu.Seconds();
  // The re-check of a model has a deadline of its own: a model found is worth its check, and a check
  // cut short by the solver's deadline would throw the proof away.
  auto dog = std::make_unique<Watchdog>(ctx, time_limit_s, cpu_limit_s);
  try {
    // The limit that the shares of the inferred invariants are of.
    const double inference_base_s = cpu_limit_s > 0 ? std::min(cpu_limit_s, time_limit_s) : time_limit_s;
    // A call's summary gets them too (a clause's body is its predicate and its calls' summaries together):
    // Spacer alone learns recursive's Addition03-1's `r >= m + k` for one k after another, 30 s to `r = m + n`.
    InferredInvariants inferred =
        affine_invariants ? InferAffineInvariants(sys, ctx, kAffineShare * inference_base_s) : InferredInvariants::True(sys);
    if (affine_invariants && MultipliesVariables(sys)) {
      InferPolynomialInvariants(sys, ctx, kPolynomialShare * inference_base_s, inferred);
    }
    solved_ = std::make_unique<HornSystem>(Strengthened(sys, inferred, ctx));
    // The invariants of the proof, once there is one.
    std::optional<InvariantAt> proof;
    // Polynomial equalities are often the property itself (nla-digbench asserts them at the loop head): with the
    // affine invariants they may prove it alone, Spacer not run. Each query within kDirectCheckRlimit: a
    // nonlinear one may run on without an answer.
    const auto found = [](const auto& p) { return !p.empty(); };
    if (std::any_of(inferred.polynomials.begin(), inferred.polynomials.end(), found) ||
        std::any_of(inferred.disjunctions.begin(), inferred.disjunctions.end(), found)) {
      const InvariantAt inferred_at = [&](int pred, const std::vector<z3::expr>& args) {
        return inferred.At(ctx, pred, args);
      };
      if (CheckInductive(sys, inferred_at, inferred, ctx, kDirectCheckRlimit).empty()) {
        proof = inferred_at;
        out.by_inferred = true;
      }
    }
    // Runs Spacer on the strengthened clauses; with inline_rules false, with Z3's inlining of rules off.
    std::optional<z3::model> model;
    const auto run = [&](bool inline_rules) {
      z3::solver s(ctx, "HORN");
      z3::params p(ctx);
      for (const auto& [name, value] : options.params) p.set(name.c_str(), value);
      if (!inline_rules) {
        p.set("fp.xform.inline_linear", false);
        p.set("fp.xform.inline_eager", false);
      }
      // No "timeout" parameter: the watchdog ends the run (a Z3 timer would add its own delay).
      s.set(p);
      for (const auto& c : solved_->clauses) s.add(solved_->Formula(ctx, c));
      const z3::check_result r = s.check();
      if (r == z3::sat) model = s.get_model();
      if (r == z3::unknown) out.reason = "solver: " + SolverMessage(s.reason_unknown());
      return r;
    };
    const auto check = [&] {
      dog.reset();
      dog = std::make_unique<Watchdog>(ctx, std::max(check_limit_s, time_limit_s - clock.Seconds()));
      return CheckInductive(sys, ModelInvariant(sys, *model, inferred, ctx), inferred, ctx);
    };
    z3::check_result r = proof ? z3::sat : run(true);
    if (r == z3::sat && !proof) {
      out.reason = check();
      // Z3 4.8.12 does not carry every model back through the rules it inlined before Spacer ran (Z3 issues
      // #5920, #6664: known, not to be fixed): the model then fails the check (psyco_io_1: the entry clause's
      // state outside the loop's invariant). Spacer again without inlining, in the time left, gives one that
      // passes there.
      if (out.reason.rfind("invariant check failed", 0) == 0 && clock.Seconds() < time_limit_s) {
        const double cpu_left = cpu_limit_s > 0 ? cpu_limit_s - (cpu.Seconds() - cpu_start) : 0;
        if (cpu_limit_s <= 0 || cpu_left > 0) {
          dog.reset();
          dog = std::make_unique<Watchdog>(ctx, time_limit_s - clock.Seconds(), cpu_left);
          const std::string inlined_failure = out.reason;
          r = run(false);
          if (r == z3::sat) {
            out.reason = check();
          } else if (r == z3::unknown) {
            out.reason = inlined_failure + "; without inlining, " + out.reason;
          } else {
            out.reason.clear();
          }
        }
      }
    }
    if (r == z3::sat && out.reason.empty() && !proof) proof = ModelInvariant(sys, *model, inferred, ctx);
    if (r == z3::unsat) {
      out.status = SolveStatus::kUnsafe;
    } else if (proof) {
      out.status = SolveStatus::kSafe;
      for (size_t k = 0; k < sys.preds.size(); ++k) {
        std::vector<z3::expr> args;
        for (const auto& v : sys.pred_vars[k]) {
          args.push_back(ctx.constant(v.c_str(), sys.preds[k].domain(static_cast<unsigned>(args.size()))));
        }
        z3::expr inv = (*proof)(static_cast<int>(k), args).simplify();
        // A predicate of one dispatch value says what holds at its loop head when the variable has that value.
        if (const auto split = sys.dispatch_values.find(static_cast<int>(k)); split != sys.dispatch_values.end()) {
          const auto& [var, value] = split->second;
          inv = z3::implies(ctx.int_const(var.c_str()) == ctx.int_val(static_cast<int64_t>(value)), inv);
        }
        out.invariants.push_back(inv.to_string());
      }
    }
  } catch (const z3::exception& e) {
    out.reason = "solver error: " + SolverMessage(e.msg());
  }
  out.seconds = clock.Seconds();
  return out;
}

CounterexampleSearch HornProblem::Counterexample(const OptionSet& options, double time_limit_s) {
  if (!sys_) return {std::nullopt, encode_error_};
  if (!sys_->Linear()) {
    return {std::nullopt, "its clauses summarize procedures: a derivation is a tree of calls, not one run"};
  }
  Watchdog dog(*ctx_, time_limit_s);
  try {
    return CounterexampleInputs(solved_ ? *solved_ : *sys_, *ctx_, options.params);
  } catch (const z3::exception& e) {
    return {std::nullopt, fmt::format("Spacer, asked again for its derivation, did not answer within {:.1f} s ({})",
                                      time_limit_s, SolverMessage(e.msg()))};
  }
}

}  // namespace fusion
