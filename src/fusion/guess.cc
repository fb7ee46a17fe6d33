#include "fusion/guess.h"

#include <map>
#include <set>

#include "fusion/loop_ir.h"

namespace fusion {
namespace {

// True for statements that may sit between fused loops: assignments and declarations.
bool IsPlain(const StmtPtr& s) { return s->kind == StmtKind::kAssign || s->kind == StmtKind::kHavoc; }

// A loop that can be a part: a while/for loop without nested loops.
bool IsFusableLoop(const StmtPtr& s) {
  return s->kind == StmtKind::kLoop && !s->do_while && !EffectsOf(s).nested_loop;
}

// One loop of a run with the plain statements before it.
struct Part {
  std::vector<StmtPtr> before;
  StmtPtr loop;
  Effects effects;  // of the statements before and the loop together
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

// True when no array written by one part is accessed by another (whole arrays cannot be guessed in C).
bool ArraysSeparate(const std::vector<Part>& parts) {
  for (size_t a = 0; a < parts.size(); ++a) {
    for (size_t b = 0; b < parts.size(); ++b) {
      if (a == b) continue;
      for (const auto& x : parts[a].effects.ArraysWritten()) {
        if (parts[b].effects.ArraysAccessed().count(x)) return false;
      }
    }
  }
  return true;
}

ExprPtr IntVar(const std::string& name) { return MakeVar(name, kInt); }
StmtPtr SetFlag(const std::string& name) { return MakeAssign(IntVar(name), MakeConst(1)); }

// Builds the fused program for one run of parts.
class Fuser {
 public:
  Fuser(Program& prog, std::vector<Part> parts) : prog_(prog), parts_(std::move(parts)) {}

  std::vector<StmtPtr> Run() {
    const size_t n = parts_.size();
    std::map<std::string, std::string> rho;  // the name holding each variable's latest value
    std::set<std::string> written_before = parts_[0].effects.writes;
    std::vector<StmtPtr> pre, body, post;
    done1_ = prog_.AddVar("done_1", kInt);
    pre.push_back(MakeAssign(IntVar(done1_), MakeConst(0)));
    for (size_t k = 1; k < n; ++k) {
      Flags f;
      for (const char* what : {"stop", "err", "blk", "ret"}) {
        const std::string name = prog_.AddVar(std::string(what) + "_" + std::to_string(k + 1), kInt);
        pre.push_back(MakeAssign(IntVar(name), MakeConst(0)));
        (what == std::string("stop") ? f.stop : what == std::string("err") ? f.err : what == std::string("blk") ? f.blk : f.ret) = name;
      }
      flags_.push_back(f);
    }
    std::vector<std::vector<std::pair<std::string, std::string>>> guesses(n);  // (latest name, guess)
    std::vector<StmtPtr> loops{parts_[0].loop};
    for (size_t k = 1; k < n; ++k) {
      const Effects& e = parts_[k].effects;
      std::map<std::string, std::string> local;
      for (const std::string& v : e.Scalars()) {
        const Var& var = prog_.VarNamed(v);
        const std::string latest = rho.count(v) ? rho.at(v) : v;
        if (written_before.count(v)) {
          const std::string g = prog_.AddVar("guess_" + v + "_" + std::to_string(k + 1), var.type);
          const std::string copy = prog_.AddVar(v + "_" + std::to_string(k + 1), var.type);
          pre.push_back(MakeHavoc(g));
          pre.push_back(MakeAssign(MakeVar(copy, var.type), MakeVar(g, var.type)));
          guesses[k].push_back({latest, g});
          local[v] = copy;
        } else if (e.writes.count(v)) {
          const std::string copy = prog_.AddVar(v + "_" + std::to_string(k + 1), var.type);
          pre.push_back(MakeAssign(MakeVar(copy, var.type), MakeVar(latest, var.type)));
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
    // The loop: each part advances one iteration while it is active.
    std::vector<StmtPtr> stops;
    stops.push_back(MakeIf(MakeAnd(MakeNot(IntVar(done1_)), MakeNot(loops[0]->cond)), SetFlag(done1_)));
    ExprPtr all_stopped = IntVar(done1_);
    for (size_t k = 1; k < n; ++k) {
      const std::string& stop = flags_[k - 1].stop;
      stops.push_back(MakeIf(MakeAnd(MakeNot(IntVar(stop)), MakeNot(loops[k]->cond)), SetFlag(stop)));
      all_stopped = MakeAnd(all_stopped, IntVar(stop));
    }
    body = stops;
    body.push_back(MakeIf(all_stopped, MakeSimple(StmtKind::kBreak)));
    body.push_back(MakeIf(MakeNot(IntVar(done1_)), Iteration(loops[0], 0, done1_)));
    for (size_t k = 1; k < n; ++k) {
      body.push_back(MakeIf(MakeNot(IntVar(flags_[k - 1].stop)), Iteration(loops[k], k, flags_[k - 1].stop)));
    }
    std::vector<StmtPtr> out = pre;
    out.push_back(MakeLoop(MakeConst(1), MakeBlock(body)));
    // After the loop, part by part: the guess must have been right, then the part's flags take effect.
    for (size_t k = 1; k < n; ++k) {
      for (const auto& [latest, g] : guesses[k]) {
        const IntType t = prog_.VarNamed(g).type;
        out.push_back(MakeAssume(MakeBinary("==", MakeVar(latest, t), MakeVar(g, t), kInt)));
      }
      const Flags& f = flags_[k - 1];
      out.push_back(MakeIf(IntVar(f.blk), MakeAssume(MakeConst(0))));
      out.push_back(MakeIf(IntVar(f.err), MakeError()));
      out.push_back(MakeIf(IntVar(f.ret), MakeSimple(StmtKind::kReturn)));
    }
    for (const auto& [v, latest] : rho) {
      const IntType t = prog_.VarNamed(v).type;
      out.push_back(MakeAssign(MakeVar(v, t), MakeVar(latest, t)));
    }
    return out;
  }

 private:
  // The flag variables of one later part.
  struct Flags {
    std::string stop, err, blk, ret;
  };

  // Stops part k (and every later part, whose guesses no longer matter) after setting flag.
  StmtPtr Abnormal(size_t k, const std::string& flag) {
    std::vector<StmtPtr> s{SetFlag(flag)};
    for (size_t m = k; m <= flags_.size(); ++m) s.push_back(SetFlag(flags_[m - 1].stop));
    s.push_back(MakeSimple(StmtKind::kBreak));
    return MakeBlock(s);
  }

  // The body of part k with its exits rewritten: break leaves the one-iteration block after setting stop.
  StmtPtr Rewrite(const StmtPtr& s, size_t k, const std::string& stop) {
    switch (s->kind) {
      case StmtKind::kBlock: {
        std::vector<StmtPtr> b;
        for (const auto& x : s->body) b.push_back(Rewrite(x, k, stop));
        return MakeBlock(b);
      }
      case StmtKind::kIf:
        return MakeIf(s->cond, Rewrite(s->body[0], k, stop), Rewrite(s->body[1], k, stop));
      case StmtKind::kBreak:
        return MakeBlock({SetFlag(stop), MakeSimple(StmtKind::kBreak)});
      case StmtKind::kAssert:
        if (k == 0) return s;
        return MakeIf(MakeNot(s->cond), Abnormal(k, flags_[k - 1].err));
      case StmtKind::kError:
        return k == 0 ? s : Abnormal(k, flags_[k - 1].err);
      case StmtKind::kAssume:
        if (k == 0) return s;
        return MakeIf(MakeNot(s->cond), Abnormal(k, flags_[k - 1].blk));
      case StmtKind::kReturn:
        return k == 0 ? s : Abnormal(k, flags_[k - 1].ret);
      default:
        return s;
    }
  }

  // One iteration of part k: its body in a do { } while (0) (so that break and continue leave it), then
  // the step unless the part stopped.
  StmtPtr Iteration(const StmtPtr& loop, size_t k, const std::string& stop) {
    std::vector<StmtPtr> s{MakeLoop(MakeConst(0), Rewrite(loop->body[0], k, stop), nullptr, true)};
    if (loop->step) s.push_back(MakeIf(MakeNot(IntVar(stop)), loop->step));
    return MakeBlock(s);
  }

  Program& prog_;
  std::vector<Part> parts_;
  std::string done1_;
  std::vector<Flags> flags_;
};

}  // namespace

StmtPtr GuessAndAssumeFusion(Program& prog, const StmtPtr& body, std::vector<std::string>& applied) {
  return RewriteBlocks(body, [&](std::vector<StmtPtr> items) {
    std::vector<StmtPtr> out;
    size_t i = 0;
    while (i < items.size()) {
      if (!IsFusableLoop(items[i])) {
        out.push_back(items[i++]);
        continue;
      }
      // Extend the run loop by loop while the arrays stay separate.
      std::vector<Part> parts{{{}, items[i], EffectsOf(items[i])}};
      size_t end = i + 1;
      for (size_t j = i + 1; j < items.size(); ++j) {
        if (IsPlain(items[j])) continue;
        if (!IsFusableLoop(items[j])) break;
        std::vector<StmtPtr> before(items.begin() + static_cast<long>(end), items.begin() + static_cast<long>(j));
        auto trial = parts;
        trial.push_back({before, items[j], PartEffects(before, items[j])});
        if (!ArraysSeparate(trial)) break;
        parts = std::move(trial);
        end = j + 1;
      }
      if (parts.size() < 2) {
        out.push_back(items[i++]);
        continue;
      }
      std::string lines;
      for (const auto& p : parts) lines += (lines.empty() ? "" : ", ") + std::to_string(p.loop->loc.line);
      applied.push_back("guess-and-assume fusion of the loops at lines " + lines);
      for (auto& s : Fuser(prog, parts).Run()) out.push_back(s);
      i = end;
    }
    return out;
  });
}

}  // namespace fusion
