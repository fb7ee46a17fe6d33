#include "fusion/fuse.h"

#include <set>

#include "fusion/aligned.h"
#include "fusion/collapse.h"
#include "fusion/guess.h"
#include "fusion/normalize.h"
#include "fusion/printer.h"
#include "fusion/rate.h"
#include "fusion/recurrence.h"
#include "fusion/split.h"
#include "fusion/unroll.h"

namespace fusion {

Variant Transform(const Program& prog, FusionMode mode) {
  const char* names[] = {"aligned", "guess", "aligned+guess", "split+guess", "recurrences"};
  Variant v{names[static_cast<int>(mode)], prog, {}};
  if (mode == FusionMode::kRecurrences) {
    if (std::optional<Program> scalar = ScalarizeRecurrences(prog, v.transformations)) v.prog = std::move(*scalar);
    return v;
  }
  v.prog.body = UnrollConstantLoops(v.prog, v.transformations);
  v.prog.body = CollapseLoopNests(v.prog, v.prog.body, v.transformations);
  bool split = false;  // whether index-set splitting applied (kSplit)
  const auto fuse = [mode, &split](Program& p, std::vector<std::string>& applied) {
    if (mode == FusionMode::kSplit) {
      // Only where a fusion follows: a split alone only makes the program longer.
      Program parted = p;
      std::vector<std::string> lines;
      parted.body = IndexSetSplitting(parted.body, lines);
      const size_t splits = lines.size();
      if (splits == 0) return;
      parted.body = GuessAndAssumeFusion(parted, parted.body, lines, InStepRule::kDisjointRates);
      if (lines.size() == splits) return;
      p = std::move(parted);
      applied.insert(applied.end(), lines.begin(), lines.end());
      split = true;
      return;
    }
    if (mode != FusionMode::kGuess) p.body = AlignedFusion(p.body, applied);
    if (mode == FusionMode::kAligned) return;
    // Rate alignment only where it lets at least as many runs fuse: otherwise it only makes the loops longer.
    Program rated = p;
    std::vector<std::string> rated_lines;
    rated.body = RateAlignment(rated.body, rated_lines);
    const size_t unrolled = rated_lines.size();
    if (unrolled > 0) rated.body = GuessAndAssumeFusion(rated, rated.body, rated_lines);
    std::vector<std::string> lines;
    p.body = GuessAndAssumeFusion(p, p.body, lines);
    if (rated_lines.size() > unrolled && rated_lines.size() - unrolled >= lines.size()) {
      p = std::move(rated);
      lines = std::move(rated_lines);
    }
    applied.insert(applied.end(), lines.begin(), lines.end());
  };
  // Loops taken out of an if only where that lets them fuse: otherwise it only adds a guard.
  Program hoisted = v.prog;
  std::vector<std::string> lines;
  hoisted.body = HoistGuardedLoops(hoisted, hoisted.body, lines);
  const size_t hoists = lines.size();
  if (hoists > 0) fuse(hoisted, lines);
  if (lines.size() > hoists) {
    v.prog = std::move(hoisted);
    v.transformations.insert(v.transformations.end(), lines.begin(), lines.end());
  } else {
    fuse(v.prog, v.transformations);
  }
  // Without a split, the split variant is the unrolled program that the other variants already offer.
  if (mode == FusionMode::kSplit && !split) return Variant{v.name, prog, {}};
  return v;
}

std::vector<Variant> FusedVariants(const Program& prog) {
  std::vector<Variant> out;
  std::set<std::string> seen;
  for (FusionMode mode :
       {FusionMode::kAll, FusionMode::kAligned, FusionMode::kGuess, FusionMode::kSplit, FusionMode::kRecurrences}) {
    Variant v = Transform(prog, mode);
    if (v.transformations.empty()) continue;
    if (seen.insert(PrintProgram(v.prog)).second) out.push_back(std::move(v));
  }
  return out;
}

}  // namespace fusion
