// Helpers shared by the loopfuse tests: parsing from text, solving with the whole portfolio, and
// compiling and running a program with gcc on given inputs.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include <z3++.h>

#include "fusion/ast.h"
#include "fusion/horn.h"
#include "fusion/interpreter.h"
#include "fusion/invariants.h"
#include "fusion/solver.h"
#include "fusion/svcomp_tasks.h"

namespace fusion::testing {

// Parses C text as file "t.c".
Program ParseText(const std::string& text);

// Parses a printf-style template filled with args, as file "t.c": a test's program with one part varied.
template <typename... Args>
Program ParseFilled(const char* templ, Args... args) {
  char text[4096];
  std::snprintf(text, sizeof text, templ, args...);
  return ParseText(text);
}

// A recursion too long to inline: each level of g's recursion (64 levels, the parser's depth) inlines f8, 511
// calls, so that the parse that inlines g passes its limit of 10 000 inlined calls inside g; with g summarized,
// its body inlines them once. `result`: what g returns past its base case (`g(n - 1)` returns 0 for any n);
// `check`: main's assertion on `r = g(n)`.
std::string RecursionTooLongToInline(const std::string& result, const std::string& check);

// Tries every option set of the portfolio for up to seconds_each of CPU time, each in a child process (call
// it with no other thread alive), on the clauses with a symbolic UINT_MAX where symbolic_uint_max
// (EncodeHorn), with the paths merged above merge_above_paths (0: always); the first safe or unsafe answer, else
// unknown.
SolveStatus SolveAny(const Program& prog, double seconds_each = 10, bool symbolic_uint_max = false,
                     size_t merge_above_paths = kMergeAbovePaths);

// The interpreter's outcome on inputs (missing inputs read as 0, as in the gcc harness).
Outcome InterpretOn(const Program& prog, const std::vector<long long>& inputs);

// A program compiled by gcc with a harness whose nondet functions read the inputs from stdin.
class GccProgram {
 public:
  explicit GccProgram(const Program& prog);
  // C source compiled as it is (with the harness: it must declare, not define, the verification functions),
  // compiled at -O0 with `flags` (by default none but -w).
  explicit GccProgram(const std::string& source, const std::string& flags = "-w");
  ~GccProgram();
  // Empty, or the compiler's complaint.
  const std::string& error() const { return error_; }
  // What the compiler printed (its warnings, where it compiled).
  const std::string& diagnostics() const { return diagnostics_; }
  // The outcome of a run: "finished" (it printed nothing), "error", "blocked" (also a run still going after 2 s,
  // or one that abort() ended), "undefined" (a run that another signal ended: a null pointer followed, a division
  // by zero, a sanitizer's trap), or what else the program printed.
  std::string Run(const std::vector<long long>& inputs) const;

 private:
  std::string dir_;
  std::string error_;
  std::string diagnostics_;
};

// The loops in the scope of a statement (nested ones included), counted.
int CountLoops(const StmtPtr& s);

// How gcc's runs of a program ended, counted.
struct GccOutcomes {
  int errors = 0;
  int finished = 0;
};

// Runs prog, parsed from source, and gcc's build of source on each input; a run whose outcome differs fails
// the test, showing the source, the input and prog as parsed (lowered), and the comparison stops there.
GccOutcomes CompareWithGcc(const Program& prog, const std::string& source,
                           const std::vector<std::vector<long long>>& inputs);

// The tasks of ../shared/data/fusion/svcomp/MANIFEST.tsv; empty when the data is absent.
std::vector<SvCompTask> SvCompTasks();

// Runs a shell command; returns its exit status and fills out with its stdout.
int RunCommand(const std::string& command, std::string& out);

// A program's Horn system in a context of its own and the invariants inferred for it: the affine ones, and with
// `polynomials` the polynomial equalities too; questions about them.
struct Inferred {
  z3::context ctx;
  HornSystem sys;
  InferredInvariants inv;
  explicit Inferred(const Program& prog, double time_limit_s = 10, bool polynomials = false);

  // The predicate over variable `var` (the first, in encoding order), or -1.
  int PredWith(const std::string& var) const;
  // The predicate's arguments as constants named after its variables.
  std::vector<z3::expr> Args(int pred);
  // The integer constant of variable `name` in Args.
  z3::expr Var(const std::string& name) { return ctx.int_const(name.c_str()); }
  // Whether what a clause's body may assume of pred (its invariants and their consequences) implies fact.
  bool Implies(int pred, const z3::expr& fact);
  // Whether every clause leads from states its body may assume to one in its head's invariant (the clauses that
  // end in an error aside: the invariants need not prove anything).
  bool Inductive();
};

}  // namespace fusion::testing
