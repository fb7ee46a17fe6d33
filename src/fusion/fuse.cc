#include "fusion/fuse.h"

#include <set>

#include "fusion/aligned.h"
#include "fusion/guess.h"
#include "fusion/printer.h"
#include "fusion/unroll.h"

namespace fusion {

Variant Transform(const Program& prog, FusionMode mode) {
  Variant v{mode == FusionMode::kAligned ? "aligned" : mode == FusionMode::kGuess ? "guess" : "aligned+guess", prog, {}};
  v.prog.body = UnrollConstantLoops(v.prog, v.transformations);
  if (mode != FusionMode::kGuess) v.prog.body = AlignedFusion(v.prog.body, v.transformations);
  if (mode != FusionMode::kAligned) v.prog.body = GuessAndAssumeFusion(v.prog, v.prog.body, v.transformations);
  return v;
}

std::vector<Variant> FusedVariants(const Program& prog) {
  std::vector<Variant> out;
  std::set<std::string> seen;
  for (FusionMode mode : {FusionMode::kAll, FusionMode::kAligned, FusionMode::kGuess}) {
    Variant v = Transform(prog, mode);
    if (v.transformations.empty()) continue;
    if (seen.insert(PrintProgram(v.prog)).second) out.push_back(std::move(v));
  }
  return out;
}

}  // namespace fusion
