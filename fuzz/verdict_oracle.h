// The oracle of the loopfuse_* fuzz targets (fuzz/harness.h): a generated program small enough for the
// interpreter to make every one of its runs decides the truth of its assertions, and loopfuse's verdicts and
// transformations are checked against it.
#pragma once

#include <string>
#include <vector>

#include "fusion/ast.h"

namespace fuzz {

// Statements one interpreted run may execute: far more than three loops of eight iterations need.
inline constexpr long kMaxSteps = 100'000;
// Largest number of input sequences the enumeration may visit (decides whether array cells can be
// nondeterministic: (width + 1) ^ (inputs + cells) runs).
inline constexpr long kMaxRuns = 4096;

// The outcomes of every run of prog whose nondeterministic values all lie in [lo, lo + width]: the
// sequences of values are enumerated depth first (a run may read more values than another, e.g. one
// per array cell up to a bound read earlier).
struct Enumeration {
  long runs = 0;
  long failing = 0;
  std::vector<fusion::Int128> first_failing;  // the values of the first failing run
  std::string unexpected;             // the outcome of a run that neither finished nor failed, if any
  bool overflow = false;              // some run left a signed type's range (a bug of the generator)
};

// Runs prog on every sequence of nondeterministic values in [lo, lo + width] (at most kMaxRuns).
Enumeration Enumerate(const fusion::Program& prog, int lo, int width);

// Values as C would print them, space-separated.
std::string ValuesText(const std::vector<fusion::Int128>& values);

// Parses the C text of a generated program, enumerates its runs (every one must finish or fail, without signed
// overflow) and checks loopfuse against them: its concrete search, the transformations that keep every run
// (aligned fusion, index-set splitting, lifting), candidates verified alone, and the verifier's verdicts
// fused and unfused (harness.h, CheckLoopfuseVerdicts). `divides_by_variable`: whether the program has a
// quotient or remainder by something other than a nonzero constant. FUZZ_VERDICTS_TRACE=1 prints each
// program and what is checked of it, to see what a fuzzer generates and how often each verdict comes out.
void CheckVerdictsAgainstEveryRun(const std::string& text, int lo, int width, bool divides_by_variable);

}  // namespace fuzz
