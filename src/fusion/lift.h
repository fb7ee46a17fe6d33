// Unsigned values lifted to the integers. Where a 32-bit unsigned variable, from some top-level statement on, is
// only updated by + - * of values and only read in such updates of itself or of other lifted variables and in
// equalities that assertions check (or `if (x != y) reach_error();`), the same computation over the mathematical
// integers gives a value congruent to it modulo 2^32. The lifted program carries that value instead, from that
// statement on, and checks the equality without the modulo. Its proofs then need no modular invariants: in
// loops-crafted-1/in-de42.c `z` passes UINT_MAX for large n, so that `z == 2*n` holds only modulo 2^32, but the
// lifted z equals 2n exactly (z + x == 2n in the last loop).
//
// Sound, and a strengthening: every run of the original is a run of the lifted program with the same control flow
// (no branch other than a check reads a lifted value) and the lifted values congruent to the original ones; an
// equality a == b that fails in the original fails lifted too (congruent values that differ modulo 2^32 differ). So
// a proof of the lifted program proves the original; an error it reaches may not be one of the original (the lifted
// sides may differ by a multiple of 2^32 where the original's are equal).
#pragma once

#include <optional>
#include <string>

#include "fusion/ast.h"

namespace fusion {

// The lifted program and the line the verifier reports for a proof of it.
struct Lifted {
  Program prog;
  std::string line;
};

// The lifted program of prog; nothing when no unsigned variable is lifted (each must be read, after its last
// other use, in an equality of an assertion): `why_not` says so.
std::optional<Lifted> LiftUnsigned(const Program& prog, std::string& why_not);

}  // namespace fusion
