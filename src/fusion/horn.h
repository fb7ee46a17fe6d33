// Encodes a program as constrained Horn clauses: one predicate per cut point (each loop head) over the
// variables live there (integers as SMT integers, arrays as SMT arrays), one clause per loop-free path between
// cut points (or, where those are very many, one per edge into a cut point with every path there in one
// formula: EncodeHorn), and a clause ending in false for every path to an error.
#pragma once

#include <z3++.h>

#include <functional>
#include <map>
#include <stdexcept>
#include <utility>
#include <string>
#include <vector>

#include "fusion/ast.h"

namespace fusion {

// A procedure's summary applied in a clause's body: pred(args), the call's arguments and the globals' values
// before it, then its result and the globals' values after it.
struct SummaryAtom {
  int pred = -1;
  std::vector<z3::expr> args;
};

// One clause: pred(body_args) /\ calls /\ constraint => head(head_args), where a missing predicate (-1) is
// true in the body and false in the head; vars are the clause's universally quantified constants. A
// counterexample's values: inputs are those of the constants that stand for the nondeterministic scalar
// values its path reads (`__VERIFIER_nondet_*` calls, uninitialised declarations), in the order the path
// reads them, input_sites where it reads each; input_arrays those that stand for the arrays its
// uninitialised declarations make. A clause of many paths (a merged block: EncodeHorn) reads an input only
// where input_guards[k] holds and makes an array only where array_guards[k] does; without guards, always.
struct HornClause {
  int body_pred = -1;
  std::vector<z3::expr> body_args;
  z3::expr constraint;
  int head_pred = -1;
  std::vector<z3::expr> head_args;
  std::vector<z3::expr> vars;
  std::vector<z3::expr> inputs = {};
  std::vector<InputSite> input_sites = {};
  std::vector<z3::expr> input_arrays = {};
  std::vector<z3::expr> input_guards = {};
  std::vector<z3::expr> array_guards = {};
  // The summaries of the procedure calls on the path (Program::procedures): with them the clause is
  // nonlinear, and stands for no one run that its counterexample could be replayed as.
  std::vector<SummaryAtom> calls = {};
};

// A predicate applied in a clause's body (its body predicate or a call's summary), and its arguments there.
struct BodyAtom {
  size_t pred = 0;
  const std::vector<z3::expr>* args = nullptr;
};

// The predicates in a clause's body: its body predicate's, then the summary of each call it makes. With more
// than one the clause is nonlinear, and its head's states are those of every combination of its body's.
std::vector<BodyAtom> BodyAtoms(const HornClause& c);

// What `at` says of each atom of a clause's body at its arguments, conjoined (true for none; a single atom's as
// it is, so that a linear clause's formulas are what they were before calls had atoms).
z3::expr AtomsHold(z3::context& ctx, const std::vector<BodyAtom>& atoms,
                   const std::function<z3::expr(size_t, const std::vector<z3::expr>&)>& at);

// The clauses of one program, and the variables each predicate ranges over (for printing invariants). A
// procedure's summary is a predicate too, over its parameters, globals and result (symbolic parameters first, as
// every predicate's).
struct HornSystem {
  std::vector<z3::func_decl> preds;
  std::vector<std::vector<std::string>> pred_vars;
  std::vector<HornClause> clauses;
  // The predicates that hold at a loop head only where its goto dispatch variable has one value (EncodeHorn):
  // predicate -> (variable, value). The others hold at their loop head whatever the values.
  std::map<int, std::pair<std::string, Int128>> dispatch_values;
  // Whether a quotient or remainder by a variable is in the clauses: bounded by linear facts, not exact
  // (DivideByVariable in horn.cc), so that an error the clauses reach may be one no run reaches.
  bool bounds_division = false;
  // Whether no clause calls a procedure summary (HornClause::calls): each has one predicate in its body at most.
  bool Linear() const;
  // The clause as a closed formula (forall vars. body => head) for the Horn solver.
  z3::expr Formula(z3::context& ctx, const HornClause& c) const;
};

// Thrown when encoding takes longer than its time limit.
class EncodeTimeout : public std::runtime_error {
 public:
  EncodeTimeout() : std::runtime_error("time-out while encoding the Horn clauses") {}
};

// Thrown when encoding takes more CPU time than its CPU limit (a solver job's): a job with a larger limit may
// finish it (HornProblem::encode_interrupted).
class EncodeCpuLimit : public std::runtime_error {
 public:
  EncodeCpuLimit() : std::runtime_error("encoding interrupted at its CPU limit") {}
};

// The name of the parameter that stands for UINT_MAX in a symbolic encoding (first argument of every
// predicate).
inline constexpr const char* kSymbolicUintMax = "UINT_MAX";

// Above this many loop-free paths between loop heads, EncodeHorn merges them (docs/loopfuse.md, Encoding).
inline constexpr size_t kMergeAbovePaths = 16;

// Builds the Horn clauses of a program in ctx within time_limit_s seconds (EncodeTimeout otherwise). Where
// the loop-free paths between loop heads are more than merge_above_paths (a loop body of many ifs in a row:
// 2^k paths; 0: always), the code from each loop head to the next is one formula (a large-block encoding): a
// Boolean per node says the run passes it, a join's values are fresh where its branches bring different
// ones, and there is one clause per edge into a loop head and per way to an error. Why not always: on few
// paths Spacer does better with one clause each (array-tiling/skipped: 0.9 s against 8.9 s merged); on
// SV-COMP's locks tasks, 2^(2k) paths for k locks, merged blocks need no invariant between the ifs (locks 15:
// 1.7 s, a time-out at 20 s with a predicate at each join), and ssh-simplified's state machines of 14-162
// paths are settled sooner or at all (docs/loopfuse.md, Encoding). UnsupportedError past 20 000 clauses.
// cpu_limit_s > 0: EncodeCpuLimit once the calling thread has spent that much CPU time on it.
//
// A loop head where a dispatch variable of the program (Program::dispatch_vars, assigned nothing but
// constants) is live gets one predicate per value that the paths bring it there with, over the other live
// variables, and a path from it takes that value's block only: the goto lowering's `while (1)` over basic
// blocks becomes one predicate per block, as a control-flow graph's encoding would have it, instead of one
// predicate whose invariant must tell the blocks apart. Sound as the plain encoding is: the predicate of
// value k is the head's predicate with the variable fixed to k (a path that brings any other value
// gets the head's predicate over every live variable).
//
// The procedures of a program (Program::procedures) get a summary predicate each: a clause per path through the
// procedure's body ends in it, and a call on a path adds it, at the arguments and the globals' values, and a fresh
// result and fresh values of the globals, to the clause's body (a nonlinear clause). A procedure that can reach an
// error gets a context predicate too, over its parameters: each path to a call of it ends in a clause with that head
// at the arguments, and the paths through its body start from it, so that an error inside is reached only from a
// call that is made. Such a program is encoded path by path, never merged: a call's summary holds on the whole
// clause, not where the branch that makes the call is taken.
//
// symbolic_uint_max: every numeral 2^32 - 1 of the clauses becomes a parameter M (and 2^32 becomes M + 1),
// a variable that every predicate carries unchanged from the entry. Sound: the clauses with M := 2^32 - 1
// are exactly the concrete ones, so a proof for every M is a proof of them. Why: Spacer 4.8.12 learns
// lemmas such as `x + y <= M` from a symbolic bound at once, but with the numeral it tends to enumerate
// bounds one by one (the no-wrap-around half of in-de20: time-out against 0.1 s).
//
// symbolic_constants: likewise, every constant of magnitude kLargeConstant or more (not a type's extreme)
// that a loop condition compares with becomes, wherever it occurs, a parameter K >= 1 (numerals near it K + d,
// their negations -(K + d)), carried by every predicate, with K's residues modulo the program's constant
// divisors below kLargeConstant (K mod 2 == 0 for 1000000: N / 2 is N's half). Sound for the same reason
// (K := the constant gives the concrete clauses back); a property that needs more of K's value than its sign
// and those residues is not proved (an `unsafe` answer is only ever a reason to search for concrete inputs).
// Why:
// Spacer 4.8.12 counts a loop up to a numeral bound such as 100000 lemma by lemma; with a parameter it
// states the relation between counters instead (standard_compare_ground: time-out against 2 s).
HornSystem EncodeHorn(const Program& prog, z3::context& ctx, double time_limit_s = 1e9,
                      bool symbolic_uint_max = false, bool symbolic_constants = false,
                      size_t merge_above_paths = kMergeAbovePaths, double cpu_limit_s = 0);

// Constants of at least this magnitude become parameters in a symbolic_constants encoding.
inline constexpr Int128 kLargeConstant = 1000;

// The name of the parameter that stands for the constant k in a symbolic_constants encoding.
// ("#100000": no C identifier, so no program variable has it).
std::string SymbolicConstantName(Int128 k);

// Horn clauses as an SMT-LIB2 script (set-logic HORN), for other Horn solvers and for reading.
std::string HornToSmt2(const HornSystem& sys, z3::context& ctx);
// The clauses of a program as an SMT-LIB2 script.
std::string HornToSmt2(const Program& prog);

}  // namespace fusion
