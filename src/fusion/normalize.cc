#include "fusion/normalize.h"

#include <map>
#include <optional>
#include <set>

#include <fmt/core.h>
#include <fmt/format.h>

#include "fusion/loop_ir.h"

namespace fusion {
namespace {

// True for statements that only assign (no control flow, errors or cuts).
bool IsPlain(const StmtPtr& s) { return s->kind == StmtKind::kAssign || s->kind == StmtKind::kHavoc; }

// True for a check or a branch that a counter's initialisation may move across when neither touches what the
// other does: it holds no loop and no break or continue (after which the initialisation would not run), and
// reads no input (its reads keep their order). Should it end the run (an error, a failed assume, a return),
// the counter's value no longer matters.
bool IsCrossableCheck(const StmtPtr& s) {
  if (s->kind != StmtKind::kIf && s->kind != StmtKind::kAssume && s->kind != StmtKind::kAssert) return false;
  const Effects e = EffectsOf(s);
  bool reads_input = false;
  ForEachExpr(s, [&reads_input](const ExprPtr& x) { reads_input = reads_input || (x && HasNondet(x)); });
  return !e.nested_loop && !e.jumps && !reads_input && e.writes.empty() && e.array_writes.empty();
}

// The variable a loop's step assigns (the for step, or the last statement of the body), if any.
std::string StepVariable(const StmtPtr& loop) {
  StmtPtr step = loop->step;
  if (!step) {
    const std::vector<StmtPtr> body = Flatten(loop->body[0]);
    if (body.empty()) return "";
    step = body.back();
  }
  if (step->kind != StmtKind::kAssign || step->lhs->kind != ExprKind::kVar) return "";
  return step->lhs->name;
}

// True when e divides (a division by zero is undefined behaviour in C).
bool Divides(const ExprPtr& e) {
  if (!e) return false;
  if (e->kind == ExprKind::kBinary && (e->op == "/" || e->op == "%")) return true;
  for (const auto& a : e->args) {
    if (Divides(a)) return true;
  }
  return false;
}

// True when s evaluates a division outside nested statements' bodies (assignments and conditions).
bool StmtDivides(const StmtPtr& s) {
  if (!s) return false;
  if (Divides(s->lhs) || Divides(s->rhs) || Divides(s->cond)) return true;
  for (const auto& b : s->body) {
    if (StmtDivides(b)) return true;
  }
  return StmtDivides(s->step);
}

}  // namespace

Program SubstituteSetOnceConstants(const Program& prog, std::vector<std::string>& applied) {
  // A scalar's only write, at the top level, runs before every read of it: a read before it would see an
  // uninitialised value, which a declaration without initialiser makes a havoc, a second write.
  const std::map<std::string, int> writes = CountScalarWrites(prog.body);
  std::vector<StmtPtr> items = Flatten(prog.body);
  KnownConstants known;
  std::vector<std::string> substituted;
  for (size_t k = 0; k < items.size(); ++k) {
    const StmtPtr s = items[k];
    if (s->kind != StmtKind::kAssign || s->lhs->kind != ExprKind::kVar || writes.at(s->lhs->name) != 1) continue;
    const std::optional<Int128> value = FoldConstant(s->rhs, known);
    if (!value) continue;
    const Var& v = prog.VarNamed(s->lhs->name);
    known[v.name] = Wrap(v.type, *value);
    const ExprPtr constant = MakeConst(known[v.name], v.type);
    for (size_t j = k + 1; j < items.size(); ++j) items[j] = SubstituteStmt(items[j], v.name, constant);
    substituted.push_back(fmt::format("{} = {}", v.name, DecimalText(known[v.name])));
  }
  if (substituted.empty()) return prog;
  Program out = prog;
  out.body = MakeBlock(std::move(items));
  applied.push_back(fmt::format("read as constants, set once before any read: {}", fmt::join(substituted, ", ")));
  return out;
}

namespace {

// Per array: the constant indices of its accesses in e, or nothing once one index is not constant.
void CollectCells(const ExprPtr& e, std::map<std::string, std::optional<std::set<Int128>>>& cells) {
  if (!e) return;
  if (e->kind == ExprKind::kIndex) {
    auto it = cells.try_emplace(e->name, std::set<Int128>{}).first;
    const std::optional<Int128> index = FoldConstant(e->args[0]);
    if (!index) it->second.reset();
    if (index && it->second) it->second->insert(*index);
  }
  for (const auto& a : e->args) CollectCells(a, cells);
}

// e with every access to a cell in `scalar_of` ((array, index) -> scalar) read from its scalar.
ExprPtr ReplaceCells(const ExprPtr& e, const std::map<std::pair<std::string, Int128>, std::string>& scalar_of) {
  if (!e) return e;
  if (e->kind == ExprKind::kIndex) {
    const std::optional<Int128> index = FoldConstant(e->args[0]);
    const auto it = index ? scalar_of.find({e->name, *index}) : scalar_of.end();
    if (it != scalar_of.end()) {
      auto v = std::const_pointer_cast<Expr>(MakeVar(it->second, e->type));
      v->loc = e->loc;
      return v;
    }
  }
  if (e->args.empty()) return e;
  auto copy = std::make_shared<Expr>(*e);
  for (auto& a : copy->args) a = ReplaceCells(a, scalar_of);
  return copy;
}

}  // namespace

Program ScalarizeConstantCells(const Program& prog, std::vector<std::string>& applied) {
  std::map<std::string, std::optional<std::set<Int128>>> cells;
  ForEachExpr(prog.body, [&](const ExprPtr& e) { CollectCells(e, cells); });
  Program out = prog;
  std::map<std::pair<std::string, Int128>, std::string> scalar_of;
  std::map<std::string, std::vector<std::string>> scalars_of_array;  // in index order
  std::vector<std::string> lines;
  for (const auto& [array, indices] : cells) {
    if (!indices || indices->size() > kMaxScalarizedCells) continue;
    const IntType type = prog.VarNamed(array).type;
    std::vector<std::string> names;
    for (Int128 k : *indices) {
      const std::string name = out.AddVar(fmt::format("{}_{}{}", array, k < 0 ? "m" : "", DecimalText(k < 0 ? -k : k)),
                                          type);
      scalar_of[{array, k}] = name;
      out.cell_scalars[name] = {array, k};
      names.push_back(name);
      lines.push_back(fmt::format("{}[{}] as {}", array, DecimalText(k), name));
    }
    scalars_of_array[array] = std::move(names);
  }
  if (scalar_of.empty()) return prog;
  const StmtPtr replaced = MapExprs(prog.body, [&](const ExprPtr& e) { return ReplaceCells(e, scalar_of); });
  out.body = RewriteBlocks(replaced, [&](std::vector<StmtPtr> items) {
    std::vector<StmtPtr> rewritten;
    for (const StmtPtr& item : items) {
      const auto it = item->kind == StmtKind::kHavoc ? scalars_of_array.find(item->name) : scalars_of_array.end();
      if (it == scalars_of_array.end()) {
        rewritten.push_back(item);
        continue;
      }
      for (const std::string& name : it->second) rewritten.push_back(MakeHavoc(name));
    }
    return rewritten;
  });
  applied.push_back(fmt::format("array cells indexed only by constants as scalars: {}", fmt::join(lines, ", ")));
  return out;
}

Program CandidateStart(const Program& prog, std::vector<std::string>& applied) {
  return ScalarizeConstantCells(SubstituteSetOnceConstants(prog, applied), applied);
}

std::vector<StmtPtr> SinkCounterInits(std::vector<StmtPtr> items) {
  for (size_t k = 1; k < items.size(); ++k) {
    if (items[k]->kind != StmtKind::kLoop || items[k]->do_while) continue;
    const std::string counter = StepVariable(items[k]);
    if (counter.empty()) continue;
    for (size_t m = k; m-- > 0;) {
      const StmtPtr& s = items[m];
      if (!IsPlain(s) && !IsCrossableCheck(s)) break;
      if (s->kind == StmtKind::kAssign && s->lhs->kind == ExprKind::kVar && s->lhs->name == counter) {
        if (m + 1 == k || HasNondet(s->rhs)) break;
        const Effects init = EffectsOf(s);
        bool movable = true;
        for (size_t t = m + 1; t < k && movable; ++t) {
          const Effects e = EffectsOf(items[t]);
          movable = !e.Scalars().count(counter) && ReadsNone(s->rhs, e.writes) &&
                    (items[t]->kind != StmtKind::kAssign || !HasNondet(items[t]->rhs));
          for (const auto& a : e.ArraysWritten()) movable = movable && !init.ArraysAccessed().count(a);
          if (items[t]->kind == StmtKind::kHavoc) movable = movable && !init.reads.count(items[t]->name);
        }
        if (movable) {
          const StmtPtr moved = s;
          items.erase(items.begin() + static_cast<long>(m));
          items.insert(items.begin() + static_cast<long>(k) - 1, moved);
        }
        break;
      }
      if (EffectsOf(s).Scalars().count(counter)) break;
    }
  }
  return items;
}

StmtPtr HoistGuardedLoops(Program& prog, const StmtPtr& body, std::vector<std::string>& applied) {
  return RewriteBlocks(body, [&](std::vector<StmtPtr> items) {
    std::vector<StmtPtr> out;
    bool after_loop = false;  // a loop precedes, with plain statements between
    for (const StmtPtr& s : items) {
      const bool was_after_loop = after_loop;
      after_loop = s->kind == StmtKind::kLoop || (after_loop && IsPlain(s));
      if (!was_after_loop || s->kind != StmtKind::kIf || !Flatten(s->body[1]).empty()) {
        out.push_back(s);
        continue;
      }
      const std::vector<StmtPtr> branch = SinkCounterInits(Flatten(s->body[0]));
      const size_t n = branch.size();
      const auto loop = n >= 2 ? AsCounted(branch[n - 2], branch[n - 1]) : std::nullopt;
      const Effects writes = EffectsOf(MakeBlock(branch));
      bool ok = loop && !HasNondet(s->cond) && ReadsNone(s->cond, writes.writes) &&
                ReadsNone(s->cond, writes.ArraysWritten()) && !StmtDivides(branch[n - 1]->step) &&
                !Divides(branch[n - 1]->cond);
      for (size_t k = 0; ok && k + 1 < n; ++k) {
        const Effects e = EffectsOf(branch[k]);
        ok = IsPlain(branch[k]) && e.array_writes.empty() && !StmtDivides(branch[k]) &&
             !(branch[k]->kind == StmtKind::kHavoc && prog.VarNamed(branch[k]->name).is_array);
      }
      if (!ok) {
        out.push_back(s);
        continue;
      }
      std::vector<StmtPtr> restore;
      for (const std::string& v : writes.writes) {
        const Var var = prog.VarNamed(v);  // a copy: AddVar grows the table
        const std::string saved = prog.AddVar("saved_" + v, var.type);
        out.push_back(MakeAssign(MakeVar(saved, var.type), MakeVar(v, var.type)));
        restore.push_back(MakeAssign(MakeVar(v, var.type), MakeVar(saved, var.type)));
      }
      for (size_t k = 0; k + 1 < n; ++k) out.push_back(branch[k]);
      const StmtPtr& l = branch[n - 1];
      // The guard goes around the body without the increment, which must run for the loop to end.
      const StmtPtr guarded = MakeIf(s->cond, loop->body);
      const StmtPtr new_body = l->step ? guarded : MakeBlock({guarded, loop->increment});
      auto hoisted = std::make_shared<Stmt>(*MakeLoop(l->cond, new_body, l->step));
      hoisted->loc = l->loc;
      out.push_back(hoisted);
      out.push_back(MakeIf(MakeNot(s->cond), MakeBlock(restore)));
      applied.push_back(fmt::format("loop at line {} taken out of the if at line {} (its body guarded)", l->loc.line,
                                    s->loc.line));
      after_loop = true;
    }
    return out;
  });
}

}  // namespace fusion
