// Guess-and-assume fusion (Imanishi, Suenaga & Igarashi, PEPM 2018): runs consecutive loops in one loop,
// each later loop on a guessed copy of the state the earlier loops leave, and assumes the guess after the
// loop. Assertions, assumes, returns and breaks of the later loops become flags that stop that loop and are
// acted on only after the assumes that make the guess right, so that no false alarm is raised and no bug is
// hidden; the first loop runs on the real state and keeps its statements as they are.
#pragma once

#include <string>
#include <vector>

#include "fusion/ast.h"

namespace fusion {

// How the accesses of the parts to a shared array may be in step (guess.cc, InStep).
enum class InStepRule {
  kOneRate,        // all at one rate: every cell belongs to one round on every run
  kDisjointRates,  // at several rates, each on its own range of cells, which the fused program asserts
};

// Fuses every run of two or more consecutive while/for loops (plain assignments between them) where an
// array written by one loop and accessed by another is accessed in step (counted loops whose accesses
// touch each cell in one round only: guess.cc, InStep). New variables (guesses, copies, flags) are
// added to prog. Appends a line per fusion to applied.
StmtPtr GuessAndAssumeFusion(Program& prog, const StmtPtr& body, std::vector<std::string>& applied,
                             InStepRule rule = InStepRule::kOneRate);

}  // namespace fusion
