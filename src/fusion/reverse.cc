#include "fusion/reverse.h"

namespace fusion {

bool IterationsIndependent(const CountedLoop& loop) {
  const Effects eff = EffectsOf(loop.body);
  // A scalar written in one iteration could be read in the next; errors and cuts could swap order.
  if (!eff.writes.empty() || (eff.errors && eff.cuts) || eff.nested_loop || eff.jumps) return false;
  for (const std::string& array : eff.ArraysWritten()) {
    std::optional<Int128> offset;
    for (const auto* list : {&eff.array_reads, &eff.array_writes}) {
      for (const ArrayAccess& a : *list) {
        if (a.array != array) continue;
        if (!a.index) return false;
        auto k = OffsetFromCounter(a.index, loop.counter);
        if (!k || (offset && *k != *offset)) return false;
        offset = k;
      }
    }
  }
  return true;
}

std::optional<std::vector<StmtPtr>> ReverseLoop(const CountedLoop& loop) {
  if (!IterationsIndependent(loop) || !loop.counter_type.is_signed) return std::nullopt;
  Effects init_reads;
  AddReads(loop.init, init_reads);
  const Effects eff = EffectsOf(loop.body);
  for (const auto& v : init_reads.reads) {
    if (eff.writes.count(v) || v == loop.counter) return std::nullopt;
  }
  const IntType t = loop.counter_type;
  const ExprPtr c = MakeVar(loop.counter, t);
  // The iterations run over [first, last]; reversed, they run from last to first.
  ExprPtr first = loop.init, last = MakeCast(t, loop.bound);
  const bool up = loop.stride > 0;
  if (loop.cmp == "<") last = PlusConst(last, -1, t);
  if (loop.cmp == ">") last = PlusConst(last, 1, t);
  // Strict comparisons, as most loops are written, so that the reversed loop lines up with them.
  const ExprPtr cond = up ? MakeBinary(">", c, PlusConst(MakeCast(t, first), -1, t), kInt)
                          : MakeBinary("<", c, PlusConst(MakeCast(t, first), 1, t), kInt);
  const StmtPtr step = MakeAssign(c, MakeBinary(up ? "-" : "+", c, MakeConst(1), t));
  // The original's final counter: one step past last when the loop ran, else its first value.
  const ExprPtr ran = MakeBinary(up ? "<=" : ">=", first, last, kInt);
  const ExprPtr past = PlusConst(last, up ? 1 : -1, t);
  return std::vector<StmtPtr>{MakeAssign(c, last), MakeLoop(cond, loop.body, step),
                              MakeAssign(c, MakeTernary(ran, past, first, t))};
}

}  // namespace fusion
