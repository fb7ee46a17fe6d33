// The verification pipeline of `loopfuse verify`: concrete runs that look for a reachable error, then a
// portfolio of Spacer runs over the fused and unfused programs, every answer re-checked.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "fusion/ast.h"
#include "fusion/horn.h"
#include "fusion/parser.h"

namespace fusion {

// What the user asked for. threads: solver runs at the same time (each in its own Z3 context); 0 picks
// the number of hardware threads, at least 2. affine: Spacer gets the affine invariants (fusion/affine.h);
// off only to measure what they add.
struct VerifyOptions {
  double timeout_s = 10;
  bool fusion = true;
  unsigned threads = 0;
  bool affine = true;
  // Whether making every run of a program that has few (the only run, every run: FindCounterexample) may
  // prove it; off, only the clauses prove (the loopfuse_verdicts fuzz target tests them so).
  bool proofs_by_runs = true;
  // Above how many loop-free paths between loop heads the clauses merge them into one formula (EncodeHorn; 0:
  // always; the loopfuse_verdicts fuzz target tests the merged clauses so).
  size_t merge_above_paths = kMergeAbovePaths;
  // Called about every 0.2 s with the seconds since Verify began, from a thread of the verifier's own,
  // while the solvers run (a caller's thread would be there when the solver server forks: a lock it holds
  // then, ASan's allocator's say, stays held in every solver process). Empty: no calls.
  std::function<void(double seconds)> on_progress{};
};

// The answer: SV-COMP verdict ("true", "false", "unknown"), why, and its evidence.
struct Verdict {
  std::string verdict = "unknown";
  std::string reason;
  double seconds = 0;
  std::vector<std::string> transformations;  // of the program whose proof was accepted
  std::vector<Int128> inputs;                 // nondeterministic values that reach the error (false)
  // Where the run read each of them: a __VERIFIER_nondet_* call (its position) or an uninitialised variable or
  // array cell (its name, `a[3]`), so that the values of the calls can be told from the others.
  std::vector<InputSite> input_sites;
  std::vector<std::string> invariants;        // one per loop head of the proved program (true)
  std::string solved_by;                      // "variant / option set"
};

// What the reason of an `unknown` verdict adds where Spacer's unconfirmed `unsafe` came from clauses that bound
// a quotient or remainder by a variable (HornSystem::bounds_division): the error may be the bounds' alone.
inline constexpr const char* kBoundedDivisionNote =
    "its clauses bound a quotient or remainder by a variable by linear facts only, and may reach an error that no "
    "run reaches";

// Verifies that no error is reachable in prog. summarized: where prog's recursion was cut, the same program
// with it summarized instead (ParseFile), which the portfolio tries first; its proofs are proofs of prog.
Verdict Verify(const Program& prog, const VerifyOptions& options, const Program* summarized = nullptr);

// Verifies a program whose recursion is summarized (ParseFile) by that reading alone: where the reading with
// recursion inlined is beyond a limit of the parser's, there is no cut program to try besides.
Verdict VerifySummarized(const Program& summarized, const VerifyOptions& options);

// Parses the C file under the data model and verifies it, all within options.timeout_s: parsing, and the
// inlining of calls that recursion makes long, counts against the time-out (a parse that uses it up is a
// time-out). Where the parse cut recursion, the file is parsed again with it summarized, for Verify (a program
// whose recursive functions that refuses goes without); where inlining a recursion passed a limit of the
// parser's (LimitError::inlining_recursion), the summarized reading is verified alone (VerifySummarized). A
// program outside the subset is `unknown`, with the reason. Bad input throws as ParseFile does.
Verdict VerifyFile(const std::string& file, DataModel model, VerifyOptions options);

// What a search of concrete runs found.
struct RunSearch {
  enum Kind {
    kNothing,  // no run that it made reached an error
    kError,    // a run reached an error
    // The program read no nondeterministic value, so it has one run, and that run ended without an error or
    // a signed overflow: the error is unreachable.
    kOnlyRun,
    // The program's inputs take finitely many values past its first checks (input_domains.h), and the run
    // on each ended without an error, a signed overflow or another read: the error is unreachable.
    kEveryRun,
  };
  Kind kind = kNothing;
  std::vector<Int128> inputs;  // kError: those of the first run that reached the error
  long runs = 0;               // the runs made
  std::vector<InputSite> sites;  // kError: where the run read each of inputs
};

// Runs the program for up to budget_s seconds of the calling thread's CPU time (and wall_s of wall-clock
// time), or until soon after *cancel becomes true: on every combination of its input values where
// input_domains.h finds few enough, else (or where one of those runs reads more) on generated inputs
// (seed picks them).
RunSearch FindCounterexample(const Program& prog, double budget_s, double wall_s, unsigned seed,
                             const std::atomic<bool>* cancel = nullptr);

}  // namespace fusion
