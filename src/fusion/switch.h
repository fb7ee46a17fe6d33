// `switch` lowered to ifs. SV-COMP's hand-written tasks pick an action by `switch` (state machines, menus
// of operations); C runs the section of the matching case, or the default one, and falls through into the
// sections after it until a break.
#pragma once

#include <vector>

#include "fusion/ast.h"

namespace fusion {

// The statements from one case label (or several: `case 1: case 2:`) to the next label.
struct SwitchSection {
  std::vector<Int128> values;  // the cases' constants, in the type of the value switched on
  bool is_default = false;     // `default:` labels it too
  std::vector<StmtPtr> body;
};

// switch (value) { sections } as C runs it, value (already promoted) read once into a new variable. Each
// section is an `if` of its cases (the default one's: no case matches), or of a fall-through from the
// section before (a new flag, set where a section does not end with a break). Where every break of the
// switch ends its section, the ifs follow each other; where one leaves a section early, they go inside
// `do { ... } while (0)`, whose loop the breaks leave, a continue of the loop around as a flag set before
// that break and tested after the do-while.
StmtPtr LowerSwitch(const ExprPtr& value, const std::vector<SwitchSection>& sections, Program& prog);

}  // namespace fusion
