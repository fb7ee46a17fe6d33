#include "test_util.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>

#include <fmt/core.h>
#include <gtest/gtest.h>

#include "common/fork_server.h"
#include "fusion/affine.h"
#include "fusion/parser.h"
#include "fusion/polynomial.h"
#include "fusion/printer.h"

namespace fusion::testing {

Program ParseText(const std::string& text) { return Parse("t.c", text); }

std::string RecursionTooLongToInline(const std::string& result, const std::string& check) {
  std::string text =
      "extern int __VERIFIER_nondet_int(void);\nextern void __VERIFIER_assert(int);\nvoid f0(void) { }\n";
  for (int k = 1; k <= 8; ++k) text += fmt::format("void f{}(void) {{ f{}(); f{}(); }}\n", k, k - 1, k - 1);
  return text + fmt::format("int g(int n) {{ if (n <= 0) return 0; f8(); return {}; }}\n"
                            "int main() {{ int n = __VERIFIER_nondet_int(); int r = g(n); __VERIFIER_assert({}); }}\n",
                            result, check);
}

SolveStatus SolveAny(const Program& prog, double seconds_each, bool symbolic_uint_max, size_t merge_above_paths) {
  // Each run in a child process, as in the verifier: interrupting Z3 4.8.12 at an unlucky moment aborts the
  // process (docs/reliability.md, "The Z3 abort"), which here would end the whole test binary (CI on
  // 65b0520, in the random-dispatch test: up to 160 programs, half a second per option set).
  common::ForkServer server(
      1,
      [&prog, seconds_each, symbolic_uint_max, merge_above_paths](const std::string& option) {
        HornProblem problem(prog, 60, symbolic_uint_max, false, merge_above_paths);
        // The limit counts CPU time, with wall time ten times as long as a backstop: under a sanitizer on a
        // loaded machine a wall-clock limit cut proofs that take a second when idle.
        const SolveResult r = problem.Solve(Portfolio().at(std::stoul(option)), 10 * seconds_each, 0, seconds_each);
        return std::to_string(static_cast<int>(r.status));
      },
      Z3Failures());
  for (size_t option = 0; option < Portfolio().size(); ++option) {
    const common::ForkServer::Reply reply = server.Call(0, std::to_string(option), 60 + 11 * seconds_each, nullptr);
    if (reply.failed) {
      ADD_FAILURE() << "a solver process failed: " << reply.text;
      return SolveStatus::kUnknown;
    }
    if (!reply.ok) continue;  // killed, or ended by Z3 itself (its abort, its exit codes): this option set's unknown
    const auto status = static_cast<SolveStatus>(std::stoi(reply.text));
    if (status != SolveStatus::kUnknown) return status;
  }
  return SolveStatus::kUnknown;
}

Outcome InterpretOn(const Program& prog, const std::vector<long long>& inputs) {
  size_t next = 0;
  const InputSource source = [&](IntType, const InputSite&) {
    return Int128(next < inputs.size() ? inputs[next++] : 0);
  };
  return Interpret(prog, source, 10'000'000).outcome;
}

int CountLoops(const StmtPtr& s) {
  if (!s) return 0;
  int n = s->kind == StmtKind::kLoop ? 1 : 0;
  for (const auto& b : s->body) n += CountLoops(b);
  return n;
}

GccOutcomes CompareWithGcc(const Program& prog, const std::string& source,
                           const std::vector<std::vector<long long>>& inputs) {
  GccOutcomes out;
  const GccProgram gcc(source);
  EXPECT_EQ(gcc.error(), "") << source;
  if (!gcc.error().empty()) return out;
  for (const auto& in : inputs) {
    const std::string expected = gcc.Run(in);
    const std::string got = OutcomeName(InterpretOn(prog, in));
    if (got != expected) {
      std::string shown;
      for (long long x : in) shown += " " + std::to_string(x);
      ADD_FAILURE() << "gcc: " << expected << ", here: " << got << "\n" << source << "\ninputs:" << shown
                    << "\nas parsed:\n" << PrintProgram(prog);
      return out;
    }
    out.errors += expected == "error";
    out.finished += expected == "finished";
  }
  return out;
}

std::vector<SvCompTask> SvCompTasks() { return ReadManifest(std::string(SHARED_DATA_DIR) + "/fusion/svcomp"); }

int RunCommand(const std::string& command, std::string& out) {
  out.clear();
  FILE* p = popen(command.c_str(), "r");
  if (!p) return -1;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

GccProgram::GccProgram(const Program& prog) : GccProgram(PrintProgram(prog)) {}

GccProgram::GccProgram(const std::string& source, const std::string& flags) {
  static const char* kHarness = R"(#include <stdio.h>
#include <stdlib.h>
static long long next_input(void) { long long v; return scanf("%lld", &v) == 1 ? v : 0; }
int __VERIFIER_nondet_int(void) { return (int)next_input(); }
unsigned int __VERIFIER_nondet_uint(void) { return (unsigned int)next_input(); }
signed char __VERIFIER_nondet_char(void) { return (signed char)next_input(); }
unsigned char __VERIFIER_nondet_uchar(void) { return (unsigned char)next_input(); }
long long __VERIFIER_nondet_long(void) { return next_input(); }
unsigned long long __VERIFIER_nondet_ulong(void) { return (unsigned long long)next_input(); }
_Bool __VERIFIER_nondet_bool(void) { return next_input() != 0; }
void reach_error(void) { printf("error"); exit(0); }
void __VERIFIER_assert(int c) { if (!c) reach_error(); }
void __VERIFIER_assume(int c) { if (!c) { printf("blocked"); exit(0); } }
)";
  char dir_template[] = "/tmp/loopfuse_test_XXXXXX";
  dir_ = mkdtemp(dir_template);
  std::ofstream(dir_ + "/harness.c") << kHarness;
  std::ofstream(dir_ + "/prog.c") << source;
  if (RunCommand("gcc -O0 " + flags + " -o " + dir_ + "/prog " + dir_ + "/prog.c " + dir_ + "/harness.c 2>&1",
                 diagnostics_) != 0) {
    error_ = "compile failed: " + diagnostics_;
  }
}

GccProgram::~GccProgram() {
  std::string out;
  RunCommand("rm -rf " + dir_, out);
}

std::string GccProgram::Run(const std::vector<long long>& inputs) const {
  std::string input_text, out;
  for (long long v : inputs) input_text += std::to_string(v) + " ";
  // A run that spins (`STUCK: goto STUCK;`) reaches nothing, as a blocked one: timeout ends it with 124. One
  // that `abort()` ends (SIGABRT, 134) is blocked too, as an assumption that fails. Any other signal (a null
  // pointer followed, a division by zero, a sanitizer's trap) ends a run whose behaviour C leaves undefined;
  // stderr is dropped: the shell's word on it is no outcome.
  RunCommand("{ echo '" + input_text + "' | timeout 2 " + dir_ + "/prog; status=$?; " +
                 "if [ $status -eq 124 ] || [ $status -eq 134 ]; then printf blocked; " +
                 "elif [ $status -gt 128 ]; then printf ' undefined'; fi; } 2>/dev/null",
             out);
  if (out.size() >= 10 && out.compare(out.size() - 10, 10, " undefined") == 0) return "undefined";
  return out.empty() ? "finished" : out;
}

Inferred::Inferred(const Program& prog, double time_limit_s, bool polynomials)
    : sys(EncodeHorn(prog, ctx)), inv(InferAffineInvariants(sys, ctx, time_limit_s)) {
  if (polynomials) InferPolynomialInvariants(sys, ctx, time_limit_s, inv);
}

int Inferred::PredWith(const std::string& var) const {
  for (size_t p = 0; p < sys.pred_vars.size(); ++p) {
    for (const auto& v : sys.pred_vars[p]) {
      if (v == var) return static_cast<int>(p);
    }
  }
  return -1;
}

std::vector<z3::expr> Inferred::Args(int pred) {
  std::vector<z3::expr> args;
  for (unsigned i = 0; i < sys.preds[pred].arity(); ++i) {
    args.push_back(ctx.constant(sys.pred_vars[pred][i].c_str(), sys.preds[pred].domain(i)));
  }
  return args;
}

namespace {

// A solver for the questions about inferred invariants: variables that equalities define are eliminated first
// (Z3's solve-eqs), without which the default solver ran on without end on geo2's nonlinear invariants with a
// disjunction; and a minute at most, so that a question it cannot decide fails its test instead of hanging it.
z3::solver Checker(z3::context& ctx) {
  z3::solver s = (z3::tactic(ctx, "simplify") & z3::tactic(ctx, "solve-eqs") & z3::tactic(ctx, "smt")).mk_solver();
  z3::params p(ctx);
  p.set("timeout", 60'000u);
  s.set(p);
  return s;
}

}  // namespace

bool Inferred::Implies(int pred, const z3::expr& fact) {
  z3::solver s = Checker(ctx);
  s.add(inv.Assumed(ctx, pred, Args(pred)));
  s.add(!fact);
  return s.check() == z3::unsat;
}

bool Inferred::Inductive() {
  for (const HornClause& c : sys.clauses) {
    if (c.head_pred < 0) continue;
    z3::solver s = Checker(ctx);
    s.add(c.constraint);
    s.add(AtomsHold(ctx, BodyAtoms(c), [&](size_t p, const std::vector<z3::expr>& args) {
      return inv.Assumed(ctx, static_cast<int>(p), args);
    }));
    s.add(!inv.At(ctx, c.head_pred, c.head_args));
    if (s.check() != z3::unsat) return false;
  }
  return true;
}

}  // namespace fusion::testing
