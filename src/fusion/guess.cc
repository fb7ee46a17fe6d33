#include "fusion/guess.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>

#include "fusion/loop_ir.h"
#include "fusion/normalize.h"

namespace fusion {
namespace {

// True for statements that may sit between fused loops: assignments and declarations.
bool IsPlain(const StmtPtr& s) { return s->kind == StmtKind::kAssign || s->kind == StmtKind::kHavoc; }

// True when a statement of kind occurs in s outside nested loops.
bool Has(const StmtPtr& s, StmtKind kind) {
  if (!s) return false;
  if (s->kind == kind) return true;
  if (s->kind == StmtKind::kLoop) return false;
  for (const auto& b : s->body) {
    if (Has(b, kind)) return true;
  }
  return false;
}
bool HasBreak(const StmtPtr& s) { return Has(s, StmtKind::kBreak); }
bool HasReturn(const StmtPtr& s) { return Has(s, StmtKind::kReturn); }
bool HasAssume(const StmtPtr& s) { return Has(s, StmtKind::kAssume); }

// A loop that can be a part: a while/for loop without nested loops, whose condition draws no
// nondeterministic value (the fused loop evaluates it twice per iteration, which would draw two values).
bool IsFusableLoop(const StmtPtr& s) {
  return s->kind == StmtKind::kLoop && !s->do_while && !EffectsOf(s).nested_loop && !HasNondet(s->cond);
}

// One loop of a run with the plain statements before it.
struct Part {
  std::vector<StmtPtr> before;
  StmtPtr loop;
  Effects effects;  // of the statements before and the loop together
  std::optional<CountedLoop> counted;  // the loop as a counted loop, initialised by the statement before
};

// The effects of a part.
Effects PartEffects(const std::vector<StmtPtr>& before, const StmtPtr& loop) {
  Effects e = EffectsOf(loop);
  for (const auto& s : before) {
    const Effects m = EffectsOf(s);
    e.reads.insert(m.reads.begin(), m.reads.end());
    e.writes.insert(m.writes.begin(), m.writes.end());
    e.array_reads.insert(e.array_reads.end(), m.array_reads.begin(), m.array_reads.end());
    e.array_writes.insert(e.array_writes.end(), m.array_writes.begin(), m.array_writes.end());
  }
  return e;
}

// One access of a part to an array, as the cells it touches: rate * t + offset in round t.
struct Stepped {
  Int128 rate;
  AffineForm offset;  // its a is 0
  const Part* part;
  ExprPtr index;
};

// Whether the part of an access runs at all, and the lowest and highest cell the access can touch over
// its iterations (in long long), as expressions over values no part writes; nothing when the part is not
// a plain counted loop (signed counter compared directly with a bound of its type, step +-1).
std::optional<std::array<ExprPtr, 3>> CellRange(const Stepped& s) {
  const CountedLoop& c = *s.part->counted;
  const ExprPtr& cond = s.part->loop->cond;
  const IntType t = c.counter_type;
  if ((c.stride != 1 && c.stride != -1) || !t.is_signed || cond->args[0]->kind != ExprKind::kVar ||
      !(c.bound->type == t) || HasNondet(c.bound)) {
    return std::nullopt;
  }
  const ExprPtr last = c.cmp == "<" ? PlusConst(c.bound, -1, t) : c.cmp == ">" ? PlusConst(c.bound, 1, t) : c.bound;
  // The cells in canonical form (n - (n / 2) rather than (n - ((n / 2) - 1)) - 1): Spacer proves the checks
  // of tcpy's fused program in 10-30 % less time.
  const auto index = AffineWithAtoms(s.index, c.counter);
  const auto first = AffineWithAtoms(c.init, ""), final = AffineWithAtoms(last, "");
  if (!index || !first || !final) return std::nullopt;
  AffineForm offset = *index;
  offset.a = 0;
  ExprPtr low = AffineExpr(Combine(index->a, *first, offset, 1), kLongLong);
  ExprPtr high = AffineExpr(Combine(index->a, *final, offset, 1), kLongLong);
  if (s.rate < 0) std::swap(low, high);
  return std::array<ExprPtr, 3>{Substitute(cond, c.counter, c.init), low, high};
}

// True when the parts that access array x do so in step: each is a counted loop whose first value reads
// nothing any part writes, and every access of x in their loops is at a * counter + b (none in the
// statements before them, which run before the fused loop), b's atoms reading nothing any part writes.
// Iteration t of a part starts at init + stride * t, so it touches cells A * t + B with A = a * stride
// (the rate) and B = a * init + b. When the accesses of one rate A != 0 all have Bs with the same atoms
// and constants in a window narrower than |A|, each cell they touch belongs to one round: round t of the
// fused loop touches it in every part, in the order of the parts, as the original does (each loop
// touches it in that one iteration only), so a part reads what the parts before it left in that cell,
// whatever the guesses. With A = +-1 this is the aligned case: same first value, stride and offset; with
// |A| = r > 1 it admits a loop handling r cells per iteration next to one rate-aligned by rate.h.
//
// Under kDisjointRates the accesses may have several rates (index-set splitting, split.h, lines up a
// loop's upward and downward accesses with two parts): then every two accesses of different rates must
// touch disjoint ranges of cells, so that a cell still belongs to one rate and one round. Their ranges
// depend on the values of the run; conditions receives, per pair, the assertion that they are disjoint,
// which the fused program checks before its loop (a proof of it proves them disjoint on every run).
bool InStep(const std::vector<Part>& parts, const std::string& x, InStepRule rule, std::vector<ExprPtr>& conditions) {
  std::set<std::string> written;
  for (const auto& p : parts) {
    written.insert(p.effects.writes.begin(), p.effects.writes.end());
    for (const auto& a : p.effects.ArraysWritten()) written.insert(a);
  }
  const auto invariant = [&](const ExprPtr& e) { return ReadsNone(e, written) && !HasNondet(e); };
  std::vector<Stepped> accesses;
  for (const Part& p : parts) {
    if (!p.effects.ArraysAccessed().count(x)) continue;
    if (!p.counted || !invariant(p.counted->init)) return false;
    for (const auto& s : p.before) {
      if (EffectsOf(s).ArraysAccessed().count(x)) return false;
    }
    const auto init = AffineWithAtoms(p.counted->init, "");
    if (!init) return false;
    const Effects loop = EffectsOf(p.loop);
    for (const auto* list : {&loop.array_reads, &loop.array_writes}) {
      for (const ArrayAccess& a : *list) {
        if (a.array != x) continue;
        const auto form = a.index ? AffineWithAtoms(a.index, p.counted->counter) : std::nullopt;
        if (!form || form->a == 0) return false;
        for (const auto& [atom, unused] : form->atoms) {
          if (!invariant(atom)) return false;
        }
        AffineForm offset = Combine(form->a, *init, *form, 1);
        offset.a = 0;
        accesses.push_back({form->a * p.counted->stride, offset, &p, a.index});
      }
    }
  }
  std::map<Int128, std::vector<const Stepped*>> by_rate;
  for (const Stepped& s : accesses) by_rate[s.rate].push_back(&s);
  for (const auto& [rate, group] : by_rate) {
    Int128 low = group[0]->offset.constant, high = low;
    for (const Stepped* s : group) {
      if (!s->offset.SameAtoms(group[0]->offset)) return false;
      low = std::min(low, s->offset.constant);
      high = std::max(high, s->offset.constant);
    }
    if (high - low >= (rate < 0 ? -rate : rate)) return false;
  }
  if (by_rate.size() < 2) return true;
  if (rule == InStepRule::kOneRate) return false;
  for (size_t i = 0; i < accesses.size(); ++i) {
    for (size_t j = i + 1; j < accesses.size(); ++j) {
      // Two reads of a cell in different rounds would do (unless a write touches it, checked against both),
      // but their check helps Spacer: without it, tcpy's fused program took 3 times longer to prove.
      if (accesses[i].rate == accesses[j].rate) continue;
      const auto r1 = CellRange(accesses[i]), r2 = CellRange(accesses[j]);
      if (!r1 || !r2 || !invariant(accesses[i].part->counted->bound) || !invariant(accesses[j].part->counted->bound)) {
        return false;
      }
      const ExprPtr apart =
          MakeOr(MakeBinary("<", (*r1)[2], (*r2)[1], kInt), MakeBinary("<", (*r2)[2], (*r1)[1], kInt));
      const ExprPtr run = SameExpr((*r1)[0], (*r2)[0]) ? (*r1)[0] : MakeAnd((*r1)[0], (*r2)[0]);
      conditions.push_back(MakeOr(MakeNot(run), apart));
    }
  }
  return true;
}

// True when every array written by one part and accessed by another is accessed in step (whole arrays
// cannot be guessed in C); conditions receives what the fused program must assert for it (InStep).
bool ArraysCompatible(const std::vector<Part>& parts, InStepRule rule, std::vector<ExprPtr>& conditions) {
  std::set<std::string> shared;
  for (size_t a = 0; a < parts.size(); ++a) {
    for (size_t b = 0; b < parts.size(); ++b) {
      if (a == b) continue;
      for (const auto& x : parts[a].effects.ArraysWritten()) {
        if (parts[b].effects.ArraysAccessed().count(x)) shared.insert(x);
      }
    }
  }
  conditions.clear();
  for (const auto& x : shared) {
    if (!InStep(parts, x, rule, conditions)) return false;
  }
  return true;
}

// True when the statements before part k's loop set v before anything reads it (a counter's
// initialisation): the part then needs no guess for v, as no value of v before it is ever observed.
bool OverwrittenFirst(const std::vector<StmtPtr>& before, const std::string& v) {
  for (const auto& s : before) {
    if (EffectsOf(s).reads.count(v)) return false;
    if (s->kind == StmtKind::kAssign && s->lhs->kind == ExprKind::kVar && s->lhs->name == v) return true;
    if (s->kind == StmtKind::kHavoc && s->name == v) return true;
  }
  return false;
}

ExprPtr IntVar(const std::string& name) { return MakeVar(name, kInt); }
StmtPtr SetFlag(const std::string& name) { return MakeAssign(IntVar(name), MakeConst(1)); }

// Builds the fused program for one run of parts.
class Fuser {
 public:
  Fuser(Program& prog, std::vector<Part> parts, std::vector<ExprPtr> conditions)
      : prog_(prog), parts_(std::move(parts)), conditions_(std::move(conditions)) {}

  std::vector<StmtPtr> Run() {
    const size_t n = parts_.size();
    std::vector<StmtPtr> pre, post;
    // Flags only where a part needs them: a loop without exits keeps its plain condition.
    flags_.resize(n);
    plain_cuts_.resize(n);
    // Whether some part before k can fail inside the fused loop (part 1 at once, later parts by flag).
    bool earlier_fails = false;
    for (size_t k = 0; k < n; ++k) {
      const Effects body = EffectsOf(parts_[k].loop);
      const bool breaks = HasBreak(parts_[k].loop->body[0]);
      Flags& f = flags_[k];
      auto add = [&](std::string& slot, const char* what) {
        slot = prog_.AddVar(std::string(what) + "_" + std::to_string(k + 1), kInt);
        pre.push_back(MakeAssign(IntVar(slot), MakeConst(0)));
      };
      // A cut (assume, return) of part k ends the path without error. Taken at once it could only hide an
      // error of an earlier part that the fused loop would reach in a later round; with no such error
      // possible it stays a plain cut, which spares the invariant a flag (docs/loopfuse.md). Errors after
      // the loop are not hidden: with the right guesses the part's trace is the original's, whose cuts
      // end the original run before them too.
      plain_cuts_[k] = k == 0 || !earlier_fails;
      const bool cuts = !plain_cuts_[k] && body.cuts;
      if (k == 0) {
        if (breaks) add(f.stop, "done");
      } else {
        if (breaks || body.errors || cuts) add(f.stop, "stop");
        if (body.errors) add(f.err, "err");
        if (cuts && HasAssume(parts_[k].loop->body[0])) add(f.blk, "blk");
        if (cuts && HasReturn(parts_[k].loop->body[0])) add(f.ret, "ret");
      }
      earlier_fails = earlier_fails || body.errors;
    }
    std::map<std::string, std::string> rho;  // the name holding each variable's latest value
    std::set<std::string> written_before = parts_[0].effects.writes;
    std::vector<std::vector<std::pair<std::string, std::string>>> guesses(n);  // (latest name, guess)
    std::vector<StmtPtr> loops{parts_[0].loop};
    for (size_t k = 1; k < n; ++k) {
      const Effects& e = parts_[k].effects;
      std::map<std::string, std::string> local;
      for (const std::string& v : e.Scalars()) {
        // A copy: AddVar below grows the program's variables and would leave a reference dangling.
        const Var var = prog_.VarNamed(v);
        const std::string latest = rho.count(v) ? rho.at(v) : v;
        const bool overwritten = OverwrittenFirst(parts_[k].before, v);
        if (written_before.count(v) && !overwritten) {
          const std::string g = prog_.AddVar("guess_" + v + "_" + std::to_string(k + 1), var.type);
          const std::string copy = prog_.AddVar(v + "_" + std::to_string(k + 1), var.type);
          pre.push_back(MakeHavoc(g));
          pre.push_back(MakeAssign(MakeVar(copy, var.type), MakeVar(g, var.type)));
          guesses[k].push_back({latest, g});
          local[v] = copy;
        } else if (e.writes.count(v)) {
          // The copy starts from the latest value even where the part never reads it: a loop that runs no
          // iteration, or writes v only on some, leaves that value, which the copy hands on after the loop.
          const std::string copy = prog_.AddVar(v + "_" + std::to_string(k + 1), var.type);
          if (!overwritten) pre.push_back(MakeAssign(MakeVar(copy, var.type), MakeVar(latest, var.type)));
          local[v] = copy;
        } else if (latest != v) {
          local[v] = latest;
        }
      }
      for (const auto& s : parts_[k].before) pre.push_back(RenameStmt(s, local));
      loops.push_back(RenameStmt(parts_[k].loop, local));
      for (const std::string& v : e.writes) rho[v] = local.at(v);
      written_before.insert(e.writes.begin(), e.writes.end());
    }
    // The loop runs while some part is active; each active part advances by one iteration.
    std::vector<StmtPtr> body;
    ExprPtr any_active;
    for (size_t k = 0; k < n; ++k) {
      const ExprPtr active = Active(loops[k], k);
      any_active = any_active ? MakeOr(any_active, active) : active;
      body.push_back(MakeIf(active, Iteration(loops[k], k)));
    }
    std::vector<StmtPtr> out = pre;
    for (const ExprPtr& c : conditions_) out.push_back(MakeAssert(c));
    out.push_back(MakeLoop(any_active, MakeBlock(body)));
    // After the loop, part by part: the guess must have been right, then the part's flags take effect.
    for (size_t k = 1; k < n; ++k) {
      for (const auto& [latest, g] : guesses[k]) {
        const IntType t = prog_.VarNamed(g).type;
        out.push_back(MakeAssume(MakeBinary("==", MakeVar(latest, t), MakeVar(g, t), kInt)));
      }
      const Flags& f = flags_[k];
      if (!f.blk.empty()) out.push_back(MakeIf(IntVar(f.blk), MakeAssume(MakeConst(0))));
      if (!f.err.empty()) out.push_back(MakeIf(IntVar(f.err), MakeError()));
      if (!f.ret.empty()) out.push_back(MakeIf(IntVar(f.ret), MakeSimple(StmtKind::kReturn)));
    }
    for (const auto& [v, latest] : rho) {
      const IntType t = prog_.VarNamed(v).type;
      out.push_back(MakeAssign(MakeVar(v, t), MakeVar(latest, t)));
    }
    return out;
  }

 private:
  // The flag variables of one part (empty names where the part does not need that flag).
  struct Flags {
    std::string stop, err, blk, ret;
  };

  // Whether part k runs this iteration: its condition holds, it has not stopped, and no earlier part
  // stopped abnormally (then the later guesses no longer matter, and a wrong guess must not keep the loop
  // running).
  ExprPtr Active(const StmtPtr& loop, size_t k) {
    ExprPtr a = loop->cond;
    if (!flags_[k].stop.empty()) a = MakeAnd(MakeNot(IntVar(flags_[k].stop)), a);
    for (size_t j = 1; j < k; ++j) {
      for (const std::string* flag : {&flags_[j].err, &flags_[j].blk, &flags_[j].ret}) {
        if (!flag->empty()) a = MakeAnd(MakeNot(IntVar(*flag)), a);
      }
    }
    return a;
  }

  // Sets flag and stops part k, leaving its one-iteration block.
  StmtPtr Abnormal(size_t k, const std::string& flag) {
    return MakeBlock({SetFlag(flag), SetFlag(flags_[k].stop), MakeSimple(StmtKind::kBreak)});
  }

  // The body of part k with its exits rewritten: break leaves the one-iteration block after setting stop.
  StmtPtr Rewrite(const StmtPtr& s, size_t k) {
    switch (s->kind) {
      case StmtKind::kBlock: {
        std::vector<StmtPtr> b;
        for (const auto& x : s->body) b.push_back(Rewrite(x, k));
        return MakeBlock(b);
      }
      case StmtKind::kIf:
        return MakeIf(s->cond, Rewrite(s->body[0], k), Rewrite(s->body[1], k));
      case StmtKind::kBreak:
        return MakeBlock({SetFlag(flags_[k].stop), MakeSimple(StmtKind::kBreak)});
      case StmtKind::kAssert:
        if (k == 0) return s;
        return MakeIf(MakeNot(s->cond), Abnormal(k, flags_[k].err));
      case StmtKind::kError:
        return k == 0 ? s : Abnormal(k, flags_[k].err);
      case StmtKind::kAssume:
        if (plain_cuts_[k]) return s;
        return MakeIf(MakeNot(s->cond), Abnormal(k, flags_[k].blk));
      case StmtKind::kReturn:
        return plain_cuts_[k] ? s : Abnormal(k, flags_[k].ret);
      default:
        return s;
    }
  }

  // One iteration of part k: its body, in a do { } while (0) when break or continue must leave it, then
  // the step unless the part stopped.
  StmtPtr Iteration(const StmtPtr& loop, size_t k) {
    const StmtPtr rewritten = Rewrite(loop->body[0], k);
    const bool wrap = !flags_[k].stop.empty() || EffectsOf(loop->body[0]).jumps;
    std::vector<StmtPtr> s{wrap ? MakeLoop(MakeConst(0), rewritten, nullptr, true) : rewritten};
    if (loop->step) s.push_back(flags_[k].stop.empty() ? loop->step : MakeIf(MakeNot(IntVar(flags_[k].stop)), loop->step));
    return MakeBlock(s);
  }

  Program& prog_;
  std::vector<Part> parts_;
  std::vector<ExprPtr> conditions_;  // asserted before the fused loop (InStep)
  std::vector<Flags> flags_;
  std::vector<bool> plain_cuts_;  // per part: its assumes and returns stay as they are (see Run)
};

}  // namespace

StmtPtr GuessAndAssumeFusion(Program& prog, const StmtPtr& body, std::vector<std::string>& applied, InStepRule rule) {
  return RewriteBlocks(body, [&](std::vector<StmtPtr> items) {
    items = SinkCounterInits(std::move(items));
    std::vector<StmtPtr> out;
    size_t i = 0;
    while (i < items.size()) {
      if (!IsFusableLoop(items[i])) {
        out.push_back(items[i++]);
        continue;
      }
      // Extend the run loop by loop while the arrays stay separate or in step.
      std::vector<Part> parts{{{}, items[i], EffectsOf(items[i]), i > 0 ? AsCounted(items[i - 1], items[i], true) : std::nullopt}};
      size_t end = i + 1;
      std::vector<ExprPtr> conditions;
      for (size_t j = i + 1; j < items.size(); ++j) {
        if (IsPlain(items[j])) continue;
        if (!IsFusableLoop(items[j])) break;
        std::vector<StmtPtr> before(items.begin() + static_cast<long>(end), items.begin() + static_cast<long>(j));
        auto trial = parts;
        trial.push_back({before, items[j], PartEffects(before, items[j]),
                         before.empty() ? std::nullopt : AsCounted(before.back(), items[j], true)});
        std::vector<ExprPtr> trial_conditions;
        if (!ArraysCompatible(trial, rule, trial_conditions)) break;
        parts = std::move(trial);
        conditions = std::move(trial_conditions);
        end = j + 1;
      }
      if (parts.size() < 2) {
        out.push_back(items[i++]);
        continue;
      }
      std::string lines;
      for (const auto& p : parts) lines += (lines.empty() ? "" : ", ") + std::to_string(p.loop->loc.line);
      applied.push_back("guess-and-assume fusion of the loops at lines " + lines);
      for (auto& s : Fuser(prog, parts, conditions).Run()) out.push_back(s);
      i = end;
    }
    return out;
  });
}

}  // namespace fusion
