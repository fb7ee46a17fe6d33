#include "fusion/aligned.h"

#include <algorithm>
#include <optional>

#include "fusion/loop_ir.h"
#include "fusion/normalize.h"
#include "fusion/reverse.h"

namespace fusion {
namespace {

// True when the statement only assigns (no control flow, errors or cuts): movable across a loop.
bool IsPlain(const StmtPtr& s) { return s->kind == StmtKind::kAssign || s->kind == StmtKind::kHavoc; }

// True when statements with effects m can be moved across code with effects other (and its counter):
// neither writes what the other reads or writes.
bool Independent(const Effects& m, const Effects& other, const std::string& counter) {
  for (const auto& v : m.Scalars()) {
    if (other.writes.count(v) || v == counter) return false;
  }
  for (const auto& v : m.writes) {
    if (other.reads.count(v)) return false;
  }
  for (const auto& x : m.ArraysAccessed()) {
    if (other.ArraysWritten().count(x)) return false;
  }
  for (const auto& x : m.ArraysWritten()) {
    if (other.ArraysAccessed().count(x)) return false;
  }
  return true;
}

// The offsets from counter of the accesses to array in list; nothing when one is not counter plus a constant.
std::optional<std::vector<Int128>> Offsets(const std::vector<ArrayAccess>& list, const std::string& array,
                                           const std::string& counter) {
  std::vector<Int128> out;
  for (const ArrayAccess& acc : list) {
    if (acc.array != array) continue;
    if (!acc.index) return std::nullopt;
    const std::optional<Int128> k = OffsetFromCounter(acc.index, counter);
    if (!k) return std::nullopt;
    out.push_back(*k);
  }
  return out;
}

// With earlier_cells (AlignedFusion): true when array, written by one loop only, keeps every read's value once
// the bodies share an iteration (a's body first): b reads only cells that a has finished, or a reads only cells
// that b has not yet written.
bool ReadsEarlierCells(const Effects& e1, const Effects& e2, const std::string& array, const std::string& counter) {
  const auto w1 = Offsets(e1.array_writes, array, counter), r1 = Offsets(e1.array_reads, array, counter);
  const auto w2 = Offsets(e2.array_writes, array, counter), r2 = Offsets(e2.array_reads, array, counter);
  if (!w1 || !r1 || !w2 || !r2 || (w1->empty() == w2->empty())) return false;
  const auto least = [](const std::vector<Int128>& v) { return *std::min_element(v.begin(), v.end()); };
  const auto most = [](const std::vector<Int128>& v) { return *std::max_element(v.begin(), v.end()); };
  if (!w1->empty()) return r2->empty() || most(*r2) <= least(*w1);
  return r1->empty() || least(*r1) >= most(*w2);
}

// True when every access to array in both bodies is at one index that takes each value once over the loop's
// range (InjectiveInCounter: a transposed cell of a collapsed nest): each cell then belongs to one iteration.
bool OneInjectiveIndex(const Effects& e1, const Effects& e2, const std::string& array, const CountedLoop& c) {
  const std::optional<Int128> lo = FoldConstant(c.init), bound = FoldConstant(c.bound);
  if (c.stride != 1 || !lo || !bound) return false;
  ExprPtr index;
  for (const Effects* e : {&e1, &e2}) {
    for (const auto* list : {&e->array_reads, &e->array_writes}) {
      for (const ArrayAccess& acc : *list) {
        if (acc.array != array) continue;
        if (!acc.index || (index && !SameExpr(acc.index, index))) return false;
        index = acc.index;
      }
    }
  }
  return index && InjectiveInCounter(index, c.counter, *lo, c.cmp == "<=" ? *bound + 1 : *bound);
}

// True when no dependence between the bodies crosses iterations once they share counter c.
bool Compatible(const CountedLoop& a, const CountedLoop& b, bool earlier_cells) {
  const Effects e1 = EffectsOf(a.body), e2 = EffectsOf(b.body);
  for (const auto& v : e1.writes) {
    if (e2.reads.count(v) || e2.writes.count(v)) return false;
  }
  for (const auto& v : e2.writes) {
    if (e1.reads.count(v)) return false;
  }
  // An error in one body and a path cut in the other could be reordered into a missed or false alarm.
  if ((e1.errors || e2.errors) && (e1.cuts || e2.cuts)) return false;
  std::set<std::string> shared;
  for (const auto& x : e1.ArraysWritten()) {
    if (e2.ArraysAccessed().count(x)) shared.insert(x);
  }
  for (const auto& x : e2.ArraysWritten()) {
    if (e1.ArraysAccessed().count(x)) shared.insert(x);
  }
  for (const std::string& array : shared) {
    if (earlier_cells && ReadsEarlierCells(e1, e2, array, a.counter)) continue;
    if (OneInjectiveIndex(e1, e2, array, a)) continue;
    std::optional<Int128> offset;
    for (const Effects* e : {&e1, &e2}) {
      for (const auto* list : {&e->array_reads, &e->array_writes}) {
        for (const ArrayAccess& acc : *list) {
          if (acc.array != array) continue;
          if (!acc.index) return false;
          auto k = OffsetFromCounter(acc.index, a.counter);
          if (!k || (offset && *k != *offset)) return false;
          offset = k;
        }
      }
    }
  }
  return true;
}

// A counted loop as the canonical upward loop over [init, end) when possible.
std::optional<std::vector<StmtPtr>> Upward(const CountedLoop& c, const StmtPtr& init, const StmtPtr& loop) {
  if (c.stride > 0) return std::vector<StmtPtr>{init, loop};
  return ReverseLoop(c);
}

// Tries to fuse the loop at items[j] (with its init at j-1) into the loop at items[i] (init at i-1),
// the statements between them being plain; returns the replacement of items[i-1 .. j] or nothing.
std::optional<std::vector<StmtPtr>> TryPair(const std::vector<StmtPtr>& items, size_t i, size_t j,
                                            std::vector<std::string>& applied, bool earlier_cells) {
  auto c1 = AsCounted(items[i - 1], items[i]);
  auto c2 = AsCounted(items[j - 1], items[j]);
  if (!c1 || !c2) return std::nullopt;
  // Bring both loops to the upward direction (reversing one that counts down).
  auto u1 = Upward(*c1, items[i - 1], items[i]);
  auto u2 = Upward(*c2, items[j - 1], items[j]);
  if (!u1 || !u2) return std::nullopt;
  const bool reversed1 = c1->stride < 0, reversed2 = c2->stride < 0;
  auto n1 = AsCounted((*u1)[0], (*u1)[1]);
  auto n2 = AsCounted((*u2)[0], (*u2)[1]);
  if (!n1 || !n2) return std::nullopt;
  if (!(n1->counter_type == n2->counter_type) || n1->cmp != n2->cmp) return std::nullopt;
  // Same range: the same first value and bound, over variables neither loop (nor the middle) changes.
  const std::map<std::string, std::string> to_c1 = {{n2->counter, n1->counter}};
  const StmtPtr body2 = RenameStmt(n2->body, to_c1);
  if (!SameExpr(n1->init, n2->init) || !SameExpr(n1->bound, n2->bound)) return std::nullopt;
  const Effects whole1 = EffectsOf(items[i]);
  const Effects whole2 = EffectsOf(items[j]);
  std::set<std::string> changed = whole1.writes;
  changed.insert(whole2.writes.begin(), whole2.writes.end());
  // The middle statements move: before the fused loop those independent of the first loop, after it
  // those independent of the second (such as the counter copies an earlier fusion left).
  std::vector<StmtPtr> before, after;
  Effects after_effects;
  for (size_t k = i + 1; k + 1 < j; ++k) {
    if (!IsPlain(items[k])) return std::nullopt;
    const Effects m = EffectsOf(items[k]);
    if (Independent(m, whole1, n1->counter) && Independent(m, after_effects, "")) {
      before.push_back(items[k]);
      for (const auto& v : m.writes) changed.insert(v);
    } else if (Independent(m, whole2, n2->counter) && !m.writes.count(n2->counter)) {
      after.push_back(items[k]);
      after_effects.reads.insert(m.reads.begin(), m.reads.end());
      after_effects.writes.insert(m.writes.begin(), m.writes.end());
      for (const auto& v : m.writes) changed.insert(v);
    } else {
      return std::nullopt;
    }
  }
  if (!ReadsNone(n1->init, changed) || !ReadsNone(n1->bound, changed)) return std::nullopt;
  if (n1->counter != n2->counter) {
    // The second body must not see the first counter's final value, nor the first body the second's.
    if (EffectsOf(n2->body).Scalars().count(n1->counter) || EffectsOf(n1->body).Scalars().count(n2->counter)) {
      return std::nullopt;
    }
  }
  CountedLoop second = *n2;
  second.body = body2;
  second.counter = n1->counter;
  if (!Compatible(*n1, second, earlier_cells)) return std::nullopt;
  std::vector<StmtPtr> out = before;
  out.push_back((*u1)[0]);
  out.push_back(MakeLoop((*u1)[1]->cond, MakeBlock({n1->body, body2}), n1->increment));
  if (n1->counter != n2->counter) {
    out.push_back(MakeAssign(MakeVar(n2->counter, n2->counter_type), MakeVar(n1->counter, n1->counter_type)));
  }
  // The reversed loops' final counter values, as the original loops leave them (the first loop's only
  // when the second has its own counter; otherwise the second loop's value is the one that remains).
  if (reversed1 && n1->counter != n2->counter) out.push_back((*u1)[2]);
  if (reversed2) out.push_back((*u2)[2]);
  out.insert(out.end(), after.begin(), after.end());
  applied.push_back(std::string("aligned fusion of the loops at lines ") + std::to_string(items[i]->loc.line) + " and " +
                    std::to_string(items[j]->loc.line) + (reversed1 || reversed2 ? " (after loop reversal)" : ""));
  return out;
}

}  // namespace

StmtPtr AlignedFusion(const StmtPtr& body, std::vector<std::string>& applied, bool earlier_cells) {
  return RewriteBlocks(body, [&](std::vector<StmtPtr> items) {
    items = SinkCounterInits(std::move(items));
    bool changed = true;
    while (changed) {
      changed = false;
      for (size_t i = 1; i < items.size() && !changed; ++i) {
        if (items[i]->kind != StmtKind::kLoop) continue;
        // The next loop after i, with plain statements between.
        for (size_t j = i + 2; j < items.size(); ++j) {
          if (items[j]->kind == StmtKind::kLoop) {
            if (auto repl = TryPair(items, i, j, applied, earlier_cells)) {
              std::vector<StmtPtr> next(items.begin(), items.begin() + static_cast<long>(i) - 1);
              auto fused = std::const_pointer_cast<Stmt>(*std::find_if(repl->begin(), repl->end(), [](const StmtPtr& s) {
                return s->kind == StmtKind::kLoop;
              }));
              fused->loc = items[i]->loc;
              next.insert(next.end(), repl->begin(), repl->end());
              next.insert(next.end(), items.begin() + static_cast<long>(j) + 1, items.end());
              items = std::move(next);
              changed = true;
            }
            break;
          }
          if (!IsPlain(items[j])) break;
        }
      }
    }
    return items;
  });
}

}  // namespace fusion
