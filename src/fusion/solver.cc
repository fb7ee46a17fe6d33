#include "fusion/solver.h"

#include <condition_variable>
#include <mutex>
#include <thread>

#include "common/stopwatch.h"
#include "fusion/errors.h"
#include "fusion/horn.h"

namespace fusion {
namespace {

// Interrupts a Z3 context when a deadline passes, because Spacer does not always honour "timeout".
class Watchdog {
 public:
  Watchdog(z3::context& ctx, double seconds) : thread_([this, &ctx, seconds] {
      std::unique_lock<std::mutex> lock(mutex_);
      if (!cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return done_; })) ctx.interrupt();
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

// The predicate application of a clause side, evaluated in the model (its invariant at those arguments).
z3::expr Invariant(const HornSystem& sys, const z3::model& m, z3::context& ctx, int pred,
                   const std::vector<z3::expr>& args) {
  z3::expr_vector a(ctx);
  for (const auto& x : args) a.push_back(x);
  return m.eval(sys.preds[pred](a), false);
}

// Checks that the model's interpretations make every clause valid; empty when they do, else why not.
// The caller's watchdog bounds the time.
std::string CheckInductive(const HornSystem& sys, const z3::model& m, z3::context& ctx) {
  for (size_t i = 0; i < sys.clauses.size(); ++i) {
    const HornClause& c = sys.clauses[i];
    z3::solver s(ctx);
    s.add(c.constraint);
    if (c.body_pred >= 0) s.add(Invariant(sys, m, ctx, c.body_pred, c.body_args));
    if (c.head_pred >= 0) s.add(!Invariant(sys, m, ctx, c.head_pred, c.head_args));
    const z3::check_result r = s.check();
    if (r == z3::sat) return "invariant check failed on clause " + std::to_string(i);
    if (r == z3::unknown) return "invariant check inconclusive on clause " + std::to_string(i) + " (" + s.reason_unknown() + ")";
  }
  return "";
}

}  // namespace

const std::vector<OptionSet>& Portfolio() {
  // The four configurations measured on the hand-written encodings (../shared/docs/spacer-examples):
  // each solves some encoding the others time out on; eq_prop=false first, as it solved the fused ones.
  static const std::vector<OptionSet> kSets = {
      {"no-eq-prop", {{"fp.spacer.eq_prop", false}}},
      {"default", {}},
      {"euf-gen", {{"fp.spacer.use_euf_gen", true}}},
      {"qgen", {{"fp.spacer.q3.use_qgen", true}, {"fp.spacer.ground_pobs", false}, {"fp.spacer.mbqi", false}}},
  };
  return kSets;
}

HornProblem::HornProblem(const Program& prog, double time_limit_s)
    : ctx_(std::make_unique<z3::context>()) {
  Watchdog dog(*ctx_, time_limit_s);
  try {
    sys_ = std::make_unique<HornSystem>(EncodeHorn(prog, *ctx_, time_limit_s));
  } catch (const UnsupportedError& e) {
    encode_error_ = e.what();
  } catch (const EncodeTimeout& e) {
    encode_error_ = e.what();
  } catch (const z3::exception& e) {
    encode_error_ = std::string("encoding interrupted: ") + e.msg();
  }
}

HornProblem::~HornProblem() = default;

SolveResult HornProblem::Solve(const OptionSet& options, double time_limit_s) {
  common::Stopwatch clock;
  SolveResult out;
  if (!sys_) {
    out.reason = encode_error_;
    return out;
  }
  z3::context& ctx = *ctx_;
  const HornSystem& sys = *sys_;
  // One deadline for solving and re-checking together.
  Watchdog dog(ctx, time_limit_s);
  try {
    z3::solver s(ctx, "HORN");
    z3::params p(ctx);
    for (const auto& [name, value] : options.params) p.set(name.c_str(), value);
    // No "timeout" parameter: the watchdog ends the run (a Z3 timer would add its own delay).
    s.set(p);
    for (const auto& c : sys.clauses) s.add(sys.Formula(ctx, c));
    const z3::check_result r = s.check();
    if (r == z3::unsat) {
      out.status = SolveStatus::kUnsafe;
    } else if (r == z3::sat) {
      const z3::model m = s.get_model();
      out.reason = CheckInductive(sys, m, ctx);
      if (out.reason.empty()) {
        out.status = SolveStatus::kSafe;
        for (size_t k = 0; k < sys.preds.size(); ++k) {
          z3::expr_vector args(ctx);
          for (const auto& v : sys.pred_vars[k]) args.push_back(ctx.constant(v.c_str(), sys.preds[k].domain(static_cast<unsigned>(args.size()))));
          out.invariants.push_back(m.eval(sys.preds[k](args), false).to_string());
        }
      }
    } else {
      out.reason = "solver: " + s.reason_unknown();
    }
  } catch (const z3::exception& e) {
    out.reason = std::string("solver error: ") + e.msg();
  }
  out.seconds = clock.Seconds();
  return out;
}

}  // namespace fusion
