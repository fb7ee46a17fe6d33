// The Z3 driver: solves the Horn clauses of one program with Spacer under one option set and a time
// limit, and re-checks a `safe` answer by proving the returned invariants inductive with plain SMT queries.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/fork_server.h"
#include "fusion/ast.h"
#include "fusion/counterexample.h"
#include "fusion/horn.h"

namespace fusion {

// One Spacer configuration of the portfolio: a name for reports and the solver parameters it sets.
struct OptionSet {
  std::string name;
  std::vector<std::pair<std::string, bool>> params;
  // When a round of the portfolio runs this set on a fused and on an unfused program (lower: earlier):
  // each set suits some encodings better than others (docs/loopfuse.md, "Portfolio").
  int rank_fused = 1;
  int rank_unfused = 1;
  int rank_arrays = 1;  // for any program with arrays, fused or not
};

// The option sets the portfolio tries, most useful first (see docs/loopfuse.md for why these).
const std::vector<OptionSet>& Portfolio();

// How Z3 fails on its own, for the fork server of the solver runs: a run that ends so has no answer, as one
// that aborts; it is not loopfuse's bug. The statuses with which Z3 ends the process itself (its
// util/error_codes.h, from ERR_MEMOUT 101 to ERR_UNREACHABLE 114; Spacer's array projection in Z3 4.8.12
// reaches code it deems unreachable on some clauses), and a crash at an instruction of libz3 (Z3 4.8.12 read
// address 0x80 inside Z3_optimize_check once, under ASan: docs/reliability.md, "Z3's own crashes").
common::LibraryFailures Z3Failures();

// What one solver run concluded.
enum class SolveStatus {
  kSafe,     // invariants found and re-checked inductive
  kUnsafe,   // Spacer found the error reachable (to be confirmed by replay)
  kUnknown,  // time-out, solver gave up, or the invariants did not check
};

// The result of one run: status, why (for unknown), the invariants per loop head, and the time taken.
// The start of the reason Solve gives for a division or remainder by a variable, which Spacer refuses under
// any time limit (its linear arithmetic does not take it).
inline constexpr const char* kDivisionRefusal = "division or remainder by a variable";

struct SolveResult {
  SolveStatus status = SolveStatus::kUnknown;
  std::string reason;
  std::vector<std::string> invariants;
  double seconds = 0;
  // Proved by the invariants inferred before Spacer alone (polynomial equalities among them), Spacer not run.
  bool by_inferred = false;
};

// The Horn clauses of one program in their own Z3 context, encoded once and solved under several
// option sets in turn. One object is used by one thread at a time (Z3 contexts are not shared between
// threads); several objects may be solved concurrently.
class HornProblem {
 public:
  // Encodes prog within time_limit_s seconds, and cpu_limit_s of the calling thread's CPU time where > 0 (a
  // failure is kept as the reason of every later Solve). symbolic_uint_max, symbolic_constants,
  // merge_above_paths: see EncodeHorn.
  HornProblem(const Program& prog, double time_limit_s, bool symbolic_uint_max = false, bool symbolic_constants = false,
              size_t merge_above_paths = kMergeAbovePaths, double cpu_limit_s = 0);
  ~HornProblem();
  // Solves with one option set within time_limit_s seconds of wall time; the re-check of a model found
  // may take up to check_limit_s more (or what is left of time_limit_s, if longer). cpu_limit_s > 0 also
  // ends the search once the calling thread has used that much CPU time (a limit that means the same on
  // a loaded machine as on an idle one). Nothing else stops a run: the verifier runs each in a process
  // of its own and kills it (verifier.cc). affine: first infer the affine invariants (fusion/affine.h), and where a
  // clause multiplies variables the polynomial equalities (fusion/polynomial.h), and give Spacer the clauses
  // strengthened by them (or none, where they prove the clauses alone: SolveResult::by_inferred); the invariants
  // reported and re-checked include them.
  SolveResult Solve(const OptionSet& options, double time_limit_s, double check_limit_s = 0, double cpu_limit_s = 0,
                    bool affine = true);
  // The inputs of a run to an error that Spacer finds under one option set (counterexample.h), within
  // time_limit_s seconds; none, with why, when it finds none in time. Spacer searches the clauses that the last Solve
  // gave it (strengthened by the affine invariants where it inferred them; the clauses as encoded before any
  // Solve): the same search without the invariants can take far longer (ntdrivers' floppy_simpl3-1, paths
  // encoded: error found in 4 s of CPU with them, not found again in 12 s without).
  CounterexampleSearch Counterexample(const OptionSet& options, double time_limit_s);
  // Empty, or why the program could not be encoded.
  const std::string& encode_error() const { return encode_error_; }
  // Whether the encoding was interrupted (its CPU limit, or Z3 told to stop), so that more time may finish it;
  // otherwise a failure is the same under any limit (too many clauses, an unsupported construct).
  bool encode_interrupted() const { return encode_interrupted_; }
  // Whether the clauses bound a quotient or remainder by a variable rather than give it (HornSystem).
  bool bounds_division() const { return sys_ && sys_->bounds_division; }

 private:
  std::unique_ptr<z3::context> ctx_;
  std::unique_ptr<HornSystem> sys_;
  std::unique_ptr<HornSystem> solved_;  // the clauses the last Solve gave Spacer, as Counterexample searches them
  std::string encode_error_;
  bool encode_interrupted_ = false;
};

}  // namespace fusion
