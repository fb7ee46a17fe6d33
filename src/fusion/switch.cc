#include "fusion/switch.h"

#include "fusion/loop_ir.h"

namespace fusion {
namespace {

// s with each continue of the loop around it as `flag = 1; break;` (the break leaves the do-while(0)).
StmtPtr ContinuesAsFlag(const StmtPtr& s, const ExprPtr& flag) {
  if (s->kind == StmtKind::kContinue) return MakeBlock({MakeAssign(flag, MakeConst(1)), MakeSimple(StmtKind::kBreak)});
  if (s->kind != StmtKind::kBlock && s->kind != StmtKind::kIf) return s;
  auto copy = std::make_shared<Stmt>(*s);
  for (auto& b : copy->body) b = ContinuesAsFlag(b, flag);
  return copy;
}

}  // namespace

StmtPtr LowerSwitch(const ExprPtr& value, const std::vector<SwitchSection>& sections, Program& prog) {
  const IntType t = value->type;
  const ExprPtr v = MakeVar(prog.AddVar("switch_value", t), t);
  std::vector<StmtPtr> out{MakeAssign(v, value)};
  // Each section's cases as one condition; then the default's: none of all the cases.
  std::vector<ExprPtr> matches(sections.size());
  ExprPtr any;
  for (size_t k = 0; k < sections.size(); ++k) {
    for (Int128 c : sections[k].values) {
      const ExprPtr is = MakeBinary("==", v, MakeConst(c, t), kInt);
      matches[k] = matches[k] ? MakeOr(matches[k], is) : is;
      any = any ? MakeOr(any, is) : is;
    }
  }
  for (size_t k = 0; k < sections.size(); ++k) {
    if (!sections[k].is_default) continue;
    const ExprPtr none = any ? MakeNot(any) : MakeConst(1);
    matches[k] = matches[k] ? MakeOr(matches[k], none) : none;
  }
  // A section's final break ends the switch; the ifs need no loop around them unless another break does.
  std::vector<std::vector<StmtPtr>> bodies;
  std::vector<bool> falls;
  bool early_break = false, continues = false;
  for (const SwitchSection& section : sections) {
    std::vector<StmtPtr> items = Flatten(MakeBlock(section.body));
    const bool ends = !items.empty() && items.back()->kind == StmtKind::kBreak;
    if (ends) items.pop_back();
    for (const auto& s : items) {
      early_break = early_break || LeavesBy(s, StmtKind::kBreak);
      continues = continues || LeavesBy(s, StmtKind::kContinue);
    }
    bodies.push_back(std::move(items));
    falls.push_back(!ends);
  }
  ExprPtr fell, continued;
  for (size_t k = 0; k + 1 < sections.size() && !fell; ++k) {
    if (falls[k]) fell = MakeVar(prog.AddVar("switch_fell", kInt), kInt);
  }
  if (fell) out.push_back(MakeAssign(fell, MakeConst(0)));
  if (early_break && continues) {
    continued = MakeVar(prog.AddVar("switch_continued", kInt), kInt);
    out.push_back(MakeAssign(continued, MakeConst(0)));
  }
  std::vector<StmtPtr> ifs;
  for (size_t k = 0; k < sections.size(); ++k) {
    ExprPtr guard = matches[k] ? matches[k] : MakeConst(0);
    if (k > 0 && falls[k - 1]) guard = MakeOr(fell, guard);
    std::vector<StmtPtr> body;
    for (const StmtPtr& s : bodies[k]) body.push_back(continued ? ContinuesAsFlag(s, continued) : s);
    if (falls[k] && k + 1 < sections.size()) body.push_back(MakeAssign(fell, MakeConst(1)));
    if (early_break && !falls[k]) body.push_back(MakeSimple(StmtKind::kBreak));
    ifs.push_back(MakeIf(guard, MakeBlock(std::move(body))));
  }
  if (!early_break) {
    out.insert(out.end(), ifs.begin(), ifs.end());
  } else {
    out.push_back(MakeLoop(MakeConst(0), MakeBlock(std::move(ifs)), nullptr, true));
    if (continued) out.push_back(MakeIf(continued, MakeSimple(StmtKind::kContinue)));
  }
  return MakeBlock(std::move(out));
}

}  // namespace fusion
