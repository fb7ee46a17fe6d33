#include "fuzz/verdict_oracle.h"

#include <fmt/core.h>

#include <cstdlib>
#include <functional>
#include <optional>

#include "common/error.h"
#include "fusion/cells.h"
#include "fusion/errors.h"
#include "fusion/fuse.h"
#include "fusion/interpreter.h"
#include "fusion/lift.h"
#include "fusion/parser.h"
#include "fusion/printer.h"
#include "fusion/split.h"
#include "fusion/verifier.h"
#include "fuzz/harness.h"

namespace fuzz {
namespace {

using fusion::Int128;

// Seconds each verifier run may take (fused and unfused: two per input). scripts/fuzz gives the loopfuse_*
// targets a -timeout of 30 s: under ASan on a loaded machine, parsing and transforming take their time too.
constexpr double kVerifyTimeout = 1.5;
// Two portfolio workers, as `loopfuse verify` has on two cores: every verdict then ends the losing solver
// run, by killing its process. (Z3 4.8.12 aborts now and then when a run is interrupted in-process; solver
// runs are processes of their own since, and these targets run the path where that happened.)
constexpr unsigned kVerifyThreads = 2;
// The verifier's options here: the generated programs bound their inputs where they read them, so that
// making every run (what the enumeration below does) would prove or refute most of them before the clauses
// could; the proofs by runs are checked on their own.
fusion::VerifyOptions ClausesOnly(bool fusion_on) {
  fusion::VerifyOptions options{kVerifyTimeout, fusion_on, kVerifyThreads};
  options.proofs_by_runs = false;
  return options;
}

}  // namespace

Enumeration Enumerate(const fusion::Program& prog, int lo, int width) {
  Enumeration e;
  std::vector<int> choice;  // the value of each position of the current sequence, minus lo
  while (true) {
    size_t pos = 0;
    const fusion::RunResult r = fusion::Interpret(
        prog,
        [&](fusion::IntType, const fusion::InputSite&) {
          if (pos == choice.size()) choice.push_back(0);
          return Int128(lo + choice[pos++]);
        },
        kMaxSteps);
    ++e.runs;
    e.overflow = e.overflow || r.signed_overflow;
    if (r.outcome == fusion::Outcome::kError) {
      if (e.failing++ == 0) e.first_failing = r.inputs;
    } else if (r.outcome != fusion::Outcome::kFinished && e.unexpected.empty()) {
      e.unexpected = fusion::OutcomeName(r.outcome);
    }
    choice.resize(pos);
    while (!choice.empty() && choice.back() == width) choice.pop_back();
    if (choice.empty() || e.runs > kMaxRuns) return e;
    ++choice.back();
  }
}

std::string ValuesText(const std::vector<Int128>& values) {
  std::string out;
  for (Int128 v : values) out += fmt::format("{}{}", out.empty() ? "" : " ", fusion::DecimalText(v));
  return out;
}


void CheckVerdictsAgainstEveryRun(const std::string& text, int lo, int width, bool divides_by_variable) {
  const bool trace = std::getenv("FUZZ_VERDICTS_TRACE") != nullptr;
  if (trace) fmt::print(stderr, "{}", text);
  fusion::Program prog;
  try {
    prog = fusion::Parse("generated.c", text);
  } catch (const common::InputError& e) {
    Require(false, fmt::format("a generated program parses ({}):\n{}", e.what(), text));
  }
  const Enumeration truth = Enumerate(prog, lo, width);
  Require(truth.unexpected.empty() && truth.runs <= kMaxRuns && !truth.overflow,
          fmt::format("every run of the generated program finishes or fails, without signed overflow ({} runs, "
                      "one {}{}):\n{}",
                      truth.runs, truth.unexpected, truth.overflow ? ", one with overflow" : "", text));
  const std::string found = truth.failing ? fmt::format("{} of {} runs fail, the first on inputs {}", truth.failing,
                                                        truth.runs, ValuesText(truth.first_failing))
                                          : fmt::format("none of {} runs fails", truth.runs);

  // The concrete search alone: a proof by its runs must mean that none fails, and a run it finds failing
  // must be one the enumeration found.
  const fusion::RunSearch search = fusion::FindCounterexample(prog, kVerifyTimeout, 10 * kVerifyTimeout, 1);
  if (search.kind == fusion::RunSearch::kOnlyRun || search.kind == fusion::RunSearch::kEveryRun) {
    Require(truth.failing == 0, fmt::format("proved by making its {} runs, but {}:\n{}", search.runs, found, text));
  }
  if (search.kind == fusion::RunSearch::kError) {
    Require(truth.failing > 0, fmt::format("a run on inputs {} fails, but {}:\n{}", ValuesText(search.inputs), found,
                                           text));
  }

  const std::vector<fusion::Variant> variants = fusion::FusedVariants(prog);
  if (trace) {
    for (const fusion::Variant& v : variants) fmt::print(stderr, "variant: {}\n", v.name);
  }
  // The transformations that add no nondeterministic value keep every run (guess-and-assume adds guessed
  // values, which the enumeration does not bound: the verdicts below check it).
  fusion::Variant split{"split", prog, {}};
  split.prog.body = fusion::IndexSetSplitting(prog.body, split.transformations);
  for (const fusion::Variant& v : {fusion::Transform(prog, fusion::FusionMode::kAligned), split}) {
    if (v.transformations.empty()) continue;
    if (trace) {
      for (const std::string& t : v.transformations) fmt::print(stderr, "{}: {}\n", v.name, t);
    }
    const Enumeration after = Enumerate(v.prog, lo, width);
    Require(after.unexpected.empty() && after.runs == truth.runs && after.failing == truth.failing,
            fmt::format("{} keeps the runs: {} of {} runs fail after it ({}), {}:\n{}\ntransformed:\n{}", v.name,
                        after.failing, after.runs, after.unexpected, found, text, fusion::PrintProgram(v.prog)));
  }

  // Lifting unsigned values to the integers adds no nondeterministic value and only strengthens asserted
  // equalities: the same runs, each that fails in the original failing lifted too.
  std::string why_not;
  const std::optional<fusion::Lifted> lifted = fusion::LiftUnsigned(prog, why_not);
  if (lifted) {
    if (trace) fmt::print(stderr, "lifted: {}\n", lifted->line);
    const Enumeration after = Enumerate(lifted->prog, lo, width);
    Require(after.unexpected.empty() && after.runs == truth.runs && after.failing >= truth.failing,
            fmt::format("lifting keeps the runs and their failures: {} of {} runs fail lifted ({}), {}:\n{}\n"
                        "lifted:\n{}",
                        after.failing, after.runs, after.unexpected, found, text, fusion::PrintProgram(lifted->prog)));
  }

  // Candidates that the portfolio seldom reaches, verified on their own: split+guess (another candidate proves
  // most programs first), for a third of the programs with the array the cell abstraction, fused and not
  // (the portfolio's last candidates), and for a third of those where it applies the lifted program. A proof
  // of one must mean that no run of the original fails.
  const auto verify_alone = [&](const std::string& name, const fusion::Program& p, bool fusion_on) {
    try {
      const fusion::Verdict alone = fusion::Verify(p, ClausesOnly(fusion_on));
      if (trace) fmt::print(stderr, "{} alone: verdict {} in {:.2f} s\n", name, alone.verdict, alone.seconds);
      Require(alone.verdict != "true" || truth.failing == 0,
              fmt::format("{} proved alone ({}), but {}:\n{}\n{}:\n{}", name, alone.solved_by, found, text, name,
                          fusion::PrintProgram(p)));
    } catch (const fusion::UnsupportedError&) {  // its verdict is then unknown
    }
  };
  for (const fusion::Variant& v : variants) {
    // The recurrences read the cell before the first (an input to the enumeration): not compared run by run.
    if (v.name == "split+guess" || v.name == "recurrences") verify_alone(v.name, v.prog, false);
  }
  const std::optional<fusion::Program> cells = fusion::AbstractCells(prog, why_not);
  if (cells && std::hash<std::string>{}(text) % 3 == 0) verify_alone("the cell abstraction", *cells, true);
  if (lifted && std::hash<std::string>{}(text) % 3 == 1) verify_alone("the lifted program", lifted->prog, true);

  for (const bool fusion_on : {true, false}) {
    // For every other program, the run without fusion on clauses that merge the paths between loop heads
    // (EncodeHorn), which the generated programs, of few paths, do not reach otherwise.
    fusion::VerifyOptions options = ClausesOnly(fusion_on);
    const bool merged = !fusion_on && std::hash<std::string>{}(text) % 2 == 0;
    if (merged) options.merge_above_paths = 0;
    fusion::Verdict v;
    try {
      v = fusion::Verify(prog, options);
    } catch (const fusion::UnsupportedError&) {
      continue;  // loopfuse's verdict is then unknown
    }
    const std::string verdict = fmt::format("verdict {}{}{} ({}; solved by {}; inputs {}); {}", v.verdict,
                                            fusion_on ? "" : " without fusion", merged ? ", paths merged" : "",
                                            v.reason, v.solved_by, ValuesText(v.inputs), found);
    if (trace) fmt::print(stderr, "{} in {:.2f} s\n", verdict, v.seconds);
    if (v.verdict == "true") Require(truth.failing == 0, verdict + ":\n" + text);
    // Spacer's `unsafe` on a safe program from a candidate whose errors are all the original's: a
    // transformation lost what it claims to keep (guess-and-assume once left a copy uninitialised). Not
    // so for the halves of the wrap-around split, whose UINT_MAX is a parameter, nor for index-set
    // splitting's fused program, which asserts that the cell ranges are disjoint, nor where the reason says
    // that the clauses bounded a division by a variable (`-126 % i` may be -1 there), which it may say only
    // of a program that divides by one.
    const bool bounded_division = v.reason.find(fusion::kBoundedDivisionNote) != std::string::npos;
    Require(!bounded_division || divides_by_variable,
            "the note on bounded quotients in a program that divides by none: " + verdict + ":\n" + text);
    if (v.reason.rfind("Spacer found the error reachable (", 0) == 0 && truth.failing == 0 && !bounded_division) {
      Require(v.reason.find("no wrap-around") != std::string::npos || v.reason.find("split") != std::string::npos,
              "an exact candidate's error is unreachable: " + verdict + ":\n" + text);
    }
    if (v.verdict != "false") continue;
    size_t pos = 0;
    const fusion::RunResult replay = fusion::Interpret(
        prog,
        [&](fusion::IntType, const fusion::InputSite&) { return pos < v.inputs.size() ? v.inputs[pos++] : Int128(0); },
        kMaxSteps);
    Require(replay.outcome == fusion::Outcome::kError && replay.inputs.size() == v.inputs.size(),
            fmt::format("{}: the counterexample replays to '{}' reading {} values:\n{}", verdict,
                        fusion::OutcomeName(replay.outcome), replay.inputs.size(), text));
    // A counterexample the enumeration missed means the generator let a value escape its range.
    Require(truth.failing > 0, "the enumeration covers every run: " + verdict + ":\n" + text);
  }
}

}  // namespace fuzz
