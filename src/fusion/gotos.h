// `goto` lowered to the loops and branches of the IR. SV-COMP's reducer files (`*.c.v+cfa-reducer.c`, from
// CPAchecker) and CIL output write every loop as a label and a backward goto, and jump between branches.
// What a goto does is rebuilt as structured control where the jumps allow, so that fusion and the Horn
// encoding see real loops; whatever is left runs as one loop over the function's basic blocks.
#pragma once

#include <map>
#include <string>

#include "fusion/ast.h"

namespace fusion {

// A function body's labels and gotos as the parser marks them: each is a statement of its own, a no-op
// (`assume(1)`) until lowered, known by its address.
struct JumpMarks {
  std::map<const Stmt*, std::string> labels;  // `L:` (the statement it labels follows the mark)
  std::map<const Stmt*, std::string> gotos;   // `goto L;`
};

// body without its marks, behaving as the C it was parsed from. In order:
// 1. `if (c) A else B` where A cannot go on (it returns, jumps or stops the run) becomes `if (c) A; B` (and
//    so where B cannot), so that checks that return read as checks and loop exits as tests.
// 1b. A goto to `L: S1 ... Sk`, where Sk ends and S1 ... Sk are a few statements without labels, gotos or
//    loops (`ERROR: reach_error();`, CIL's return blocks), is a copy of S1 ... Sk.
// 2. `L: S1 ... Sr` in a block, where every `goto L` of the function lies in S1 ... Sr outside any loop
//    there and nothing there breaks or continues an enclosing loop, becomes `while (1) { S1 ... Sr break; }`
//    with `continue` for each goto; `while (1) { if (c) { B continue; } E break; }` is then `while (c) B E`,
//    and `while (1) { if (c) { E break; } B }` is `while (!c) B E` where B and E allow.
// 3. If gotos remain, the statements from the first that holds a mark on run as basic blocks in a loop
//    `while (1)` that picks the next by a new variable (named from "pc"); the statements before it, and
//    any statement that holds no mark and leaves no enclosing loop, stay as they are.
// Each label of a goto must be among the labels (the parser checks).
StmtPtr LowerGotos(const StmtPtr& body, const JumpMarks& marks, Program& prog);

}  // namespace fusion
