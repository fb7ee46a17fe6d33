#include "fusion/cells.h"

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "fusion/loop_ir.h"

namespace fusion {
namespace {

// The cells e reads, the outermost first.
std::vector<ArrayAccess> CellReads(const ExprPtr& e) {
  Effects eff;
  AddReads(e, eff);
  return eff.array_reads;
}

// The int an index converts to long long (the parser makes every index a long long), or nothing.
ExprPtr IntIndex(const ExprPtr& index) {
  if (index->type == kInt) return index;
  if (index->kind == ExprKind::kCast && index->args[0]->type == kInt) return index->args[0];
  return nullptr;
}

// True when every cell that s reads or writes is indexed by an int (an array's declaration has no index).
bool IntIndexes(const StmtPtr& s) {
  const Effects eff = EffectsOf(s);
  const auto is_int = [](const ArrayAccess& a) { return !a.index || IntIndex(a.index); };
  return std::all_of(eff.array_reads.begin(), eff.array_reads.end(), is_int) &&
         std::all_of(eff.array_writes.begin(), eff.array_writes.end(), is_int);
}

// Rewrites a program into its cell abstraction; `why_not` is set where it cannot.
class Abstraction {
 public:
  // The tracked index is an int where every index is an int (as in most programs): Spacer proves rewrev's
  // abstraction fused in 1.05-1.47 s with int comparisons, 1.38-1.67 s with casts to long long (five runs
  // each on an idle machine; round one's limit is 2 s of CPU time).
  explicit Abstraction(Program& prog)
      : prog_(prog), index_type_(IntIndexes(prog.body) ? kInt : kLongLong) {
    index_ = prog_.AddVar("cell_index", index_type_);
    for (const Var& v : std::vector<Var>(prog_.vars)) {
      if (v.is_array) cells_[v.name] = prog_.AddVar(v.name + "_cell", v.type);
    }
    std::erase_if(prog_.vars, [](const Var& v) { return v.is_array; });
  }

  StmtPtr Rewrite(const StmtPtr& s) {
    auto out = std::make_shared<Stmt>(*s);
    switch (s->kind) {
      case StmtKind::kBlock:
        for (StmtPtr& b : out->body) b = Rewrite(b);
        break;
      case StmtKind::kAssign:
        out->rhs = Read(s->rhs);
        if (s->lhs->kind == ExprKind::kIndex) {
          out->lhs = Cell(s->lhs);
          return Located(MakeIf(Tracked(s->lhs->args[0]), out), s->loc);
        }
        break;
      case StmtKind::kHavoc:
        if (cells_.count(s->name)) {
          out->name = cells_.at(s->name);
          out->size = nullptr;
        }
        break;
      case StmtKind::kAssume:
        out->cond = Read(s->cond);
        break;
      case StmtKind::kAssert:
        return Assertion(s);
      case StmtKind::kIf:
        out->cond = Read(s->cond);
        for (StmtPtr& b : out->body) {
          if (b) b = Rewrite(b);
        }
        break;
      case StmtKind::kLoop:
        out->cond = Read(s->cond);
        out->body[0] = Rewrite(s->body[0]);
        if (s->step) out->step = Rewrite(s->step);
        break;
      case StmtKind::kError:
      case StmtKind::kBreak:
      case StmtKind::kContinue:
      case StmtKind::kReturn:
        break;
    }
    return out;
  }

  // The statement that makes the tracked index any value, before everything else.
  StmtPtr ChooseIndex() const { return MakeHavoc(index_); }

  const std::string& why_not() const { return why_not_; }

 private:
  static StmtPtr Located(StmtPtr s, Loc loc) {
    auto out = std::make_shared<Stmt>(*s);
    out->loc = loc;
    return out;
  }

  // `index == k`, both ints, or both long long (a conversion that keeps distinct values of every index type
  // distinct).
  ExprPtr Tracked(const ExprPtr& index) {
    if (!CellReads(index).empty() || HasNondet(index)) {
      why_not_ = "an array index reads an array cell or a nondeterministic value";
    }
    const ExprPtr i = index_type_ == kInt ? IntIndex(index) : MakeCast(kLongLong, index);
    return MakeBinary("==", i, MakeVar(index_, index_type_), kInt);
  }

  // The scalar that stands for the tracked cell of the array that `cell` indexes.
  ExprPtr Cell(const ExprPtr& cell) const { return MakeVar(cells_.at(cell->name), cell->type); }

  // e with every cell read made `index == k ? cell : any value`.
  ExprPtr Read(const ExprPtr& e) {
    if (e->kind == ExprKind::kIndex) {
      return MakeTernary(Tracked(e->args[0]), Cell(e), MakeNondet(e->type), e->type);
    }
    return MapOperands(e, [this](const ExprPtr& a) { return Read(a); });
  }

  // e with every cell read made the cell's scalar (where the reads index by the tracked index).
  ExprPtr ReadTracked(const ExprPtr& e) {
    if (e->kind == ExprKind::kIndex) return Cell(e);
    return MapOperands(e, [this](const ExprPtr& a) { return ReadTracked(a); });
  }

  // An assertion: as it is without cell reads, else checked only where its one index is the tracked one.
  StmtPtr Assertion(const StmtPtr& s) {
    const std::vector<ArrayAccess> reads = CellReads(s->cond);
    if (reads.empty()) return s;
    for (const ArrayAccess& r : reads) {
      if (!SameExpr(r.index, reads.front().index)) why_not_ = "an assertion reads cells at two different indexes";
    }
    auto checked = std::make_shared<Stmt>(*s);
    checked->cond = ReadTracked(s->cond);
    return Located(MakeIf(Tracked(reads.front().index), checked), s->loc);
  }

  Program& prog_;
  IntType index_type_;                       // of the tracked index
  std::string index_;                        // the tracked index k
  std::map<std::string, std::string> cells_;  // array -> the scalar of its tracked cell
  std::string why_not_;
};

}  // namespace

std::optional<Program> AbstractCells(const Program& prog, std::string& why_not) {
  if (std::none_of(prog.vars.begin(), prog.vars.end(), [](const Var& v) { return v.is_array; })) {
    why_not = "no array";
    return std::nullopt;
  }
  Program out = prog;
  Abstraction abstraction(out);
  const StmtPtr body = abstraction.Rewrite(prog.body);
  if (!abstraction.why_not().empty()) {
    why_not = abstraction.why_not();
    return std::nullopt;
  }
  out.body = MakeBlock({abstraction.ChooseIndex(), body});
  return out;
}

std::string CellAbstractionLine(const Program& prog) {
  std::string arrays;
  for (const Var& v : prog.vars) {
    if (v.is_array) arrays += (arrays.empty() ? "" : ", ") + v.name;
  }
  return "cell abstraction: the arrays " + arrays + " as their cells at one nondeterministic index";
}

}  // namespace fusion
