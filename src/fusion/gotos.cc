#include "fusion/gotos.h"

#include <set>
#include <utility>
#include <vector>

#include "fusion/loop_ir.h"

namespace fusion {
namespace {

// How many branches deep a block of the dispatch loop runs in place at most (Dispatch).
constexpr int kMaxRunInPlaceDepth = 64;

// Whether s breaks or continues the statement it is in.
bool Leaves(const StmtPtr& s) { return LeavesBy(s, StmtKind::kBreak) || LeavesBy(s, StmtKind::kContinue); }

// A copy of s with other branches.
StmtPtr WithBranches(const StmtPtr& s, ExprPtr cond, StmtPtr then_branch) {
  auto copy = std::make_shared<Stmt>(*s);
  copy->cond = std::move(cond);
  copy->body = {std::move(then_branch), MakeBlock({})};
  return copy;
}

class Lowering {
 public:
  Lowering(const JumpMarks& marks, Program& prog) : marks_(marks), prog_(prog) {
    for (const auto& [mark, label] : marks.gotos) ++gotos_left_[label];
  }

  StmtPtr Run(const StmtPtr& body) {
    const auto loops = [&](std::vector<StmtPtr> items) { return LoopsFromLabels(std::move(items)); };
    if (marks_.gotos.empty()) return RewriteBlocks(body, loops);  // only drops the labels
    StmtPtr s = RewriteBlocks(body, [&](std::vector<StmtPtr> items) { return HoistBranches(std::move(items)); });
    s = RewriteBlocks(s, [&](std::vector<StmtPtr> items) { return NoteExits(std::move(items)); });
    if (!exits_.empty()) s = RewriteBlocks(s, [&](std::vector<StmtPtr> items) { return CopyExits(std::move(items)); });
    s = RewriteBlocks(s, loops);
    if (!HasMark(s, true)) return s;
    return Dispatch(s);
  }

 private:
  bool IsLabel(const StmtPtr& s) const { return marks_.labels.count(s.get()) != 0; }
  bool IsGoto(const StmtPtr& s) const { return marks_.gotos.count(s.get()) != 0; }
  // Where a goto goes: its label, or the label that one's goto went on to (Structure: `L: goto M;`).
  std::string TargetOf(const StmtPtr& s) const {
    std::string label = marks_.gotos.at(s.get());
    for (auto it = redirects_.find(label); it != redirects_.end(); it = redirects_.find(label)) label = it->second;
    return label;
  }

  // Whether s holds a label (or, with gotos, a label or a goto).
  bool HasMark(const StmtPtr& s, bool gotos = false) const {
    if (!s) return false;
    if (IsLabel(s) || (gotos && IsGoto(s))) return true;
    for (const auto& b : s->body) {
      if (HasMark(b, gotos)) return true;
    }
    return HasMark(s->step, gotos);
  }

  // Whether control never goes on after s: it returns, jumps, or ends the run (loop_ir.h).
  bool Ends(const StmtPtr& s) const {
    return !CompletesNormally(
        s, [&](const StmtPtr& t) { return IsGoto(t); }, [&](const StmtPtr& t) { return HasMark(t); });
  }

  static bool Empty(const StmtPtr& s) { return Flatten(s).empty(); }

  // Step 1: `if (c) A else B` where one branch ends, as the if of that branch alone followed by the other.
  std::vector<StmtPtr> HoistBranches(std::vector<StmtPtr> items) const {
    std::vector<StmtPtr> out;
    for (StmtPtr& item : items) {
      if (item->kind == StmtKind::kIf && !Empty(item->body[0]) && !Empty(item->body[1])) {
        const bool then_ends = Ends(item->body[0]);
        if (then_ends || Ends(item->body[1])) {
          const StmtPtr& kept = then_ends ? item->body[0] : item->body[1];
          const StmtPtr& hoisted = then_ends ? item->body[1] : item->body[0];
          out.push_back(WithBranches(item, then_ends ? item->cond : MakeNot(item->cond), kept));
          for (StmtPtr& s : Flatten(hoisted)) out.push_back(std::move(s));
          continue;
        }
      }
      out.push_back(std::move(item));
    }
    return out;
  }

  // The statements in s, counted (at most limit + 1).
  static int Size(const StmtPtr& s, int limit) {
    int n = 1;
    for (const auto& b : s->body) n += n <= limit ? Size(b, limit) : 0;
    return n;
  }

  // Step 1b: notes `L: S1 ... Sk` where Sk ends (an error, a return) and the Si are few plain statements (no
  // label, goto or loop, nothing that breaks or continues a loop around): SV-COMP's `ERROR: reach_error();`
  // and CIL's `return` blocks, which gotos reach from anywhere.
  std::vector<StmtPtr> NoteExits(std::vector<StmtPtr> items) {
    constexpr int kMaxExitStatements = 16;
    for (size_t j = 0; j < items.size(); ++j) {
      if (!IsLabel(items[j])) continue;
      std::vector<StmtPtr> exit;
      int size = 0;
      for (size_t k = j + 1; k < items.size(); ++k) {
        const StmtPtr& item = items[k];
        size += Size(item, kMaxExitStatements);
        if (size > kMaxExitStatements || HasMark(item, true) || Leaves(item) || EffectsOf(item).nested_loop ||
            item->kind == StmtKind::kLoop) {
          break;
        }
        exit.push_back(item);
        if (Ends(item)) {
          exits_[marks_.labels.at(items[j].get())] = std::move(exit);
          break;
        }
      }
    }
    return items;
  }

  // A copy of s of its own (its expressions shared).
  static StmtPtr Copy(const StmtPtr& s) {
    auto copy = std::make_shared<Stmt>(*s);
    for (auto& b : copy->body) b = Copy(b);
    return copy;
  }

  // Each goto to an exit (NoteExits) as a copy of the exit's statements.
  std::vector<StmtPtr> CopyExits(std::vector<StmtPtr> items) {
    std::vector<StmtPtr> out;
    for (StmtPtr& item : items) {
      const auto exit = IsGoto(item) ? exits_.find(TargetOf(item)) : exits_.end();
      if (exit == exits_.end()) {
        out.push_back(std::move(item));
        continue;
      }
      --gotos_left_[exit->first];
      for (const StmtPtr& s : exit->second) out.push_back(Copy(s));
    }
    return out;
  }

  // The gotos to label in s: outside any loop of s, and inside one.
  std::pair<int, int> CountGotos(const StmtPtr& s, const std::string& label, bool in_loop = false) const {
    if (!s) return {0, 0};
    if (IsGoto(s)) {
      if (TargetOf(s) != label) return {0, 0};
      return in_loop ? std::make_pair(0, 1) : std::make_pair(1, 0);
    }
    std::pair<int, int> n{0, 0};
    for (const auto& b : s->body) {
      const auto [outside, inside] = CountGotos(b, label, in_loop || s->kind == StmtKind::kLoop);
      n.first += outside;
      n.second += inside;
    }
    return n;
  }

  // s with each goto to label (none inside a loop of s) as a break or a continue (kind).
  StmtPtr GotosAs(const StmtPtr& s, const std::string& label, StmtKind kind) const {
    if (IsGoto(s) && TargetOf(s) == label) return MakeSimple(kind);
    if (s->kind != StmtKind::kBlock && s->kind != StmtKind::kIf) return s;
    auto copy = std::make_shared<Stmt>(*s);
    for (auto& b : copy->body) b = GotosAs(b, label, kind);
    return copy;
  }

  // Counts the gotos in s as gone.
  void Forget(const StmtPtr& s) {
    if (!s) return;
    if (IsGoto(s)) --gotos_left_[TargetOf(s)];
    for (const auto& b : s->body) Forget(b);
  }

  // A block's statements without those that never run: after one that ends, up to the next that holds a
  // label.
  std::vector<StmtPtr> WithoutDeadCode(std::vector<StmtPtr> items) {
    std::vector<StmtPtr> out;
    bool dead = false;
    for (StmtPtr& item : items) {
      if (dead && !HasMark(item)) {
        Forget(item);
        continue;
      }
      dead = Ends(item);
      out.push_back(std::move(item));
    }
    return out;
  }

  // Step 2: a label whose gotos all follow it in its block, as a loop (gotos.h). Later labels first, so
  // that an inner loop is made before the loop around it.
  std::vector<StmtPtr> LoopsFromLabels(std::vector<StmtPtr> items) {
    items = WithoutDeadCode(std::move(items));
    for (bool changed = true; changed;) {  // each change removes a label or a goto
      changed = false;
      for (size_t j = items.size(); j-- > 0 && !changed;) changed = IsLabel(items[j]) && Structure(items, j);
    }
    return items;
  }

  // Makes the gotos to the label items[j] structured where one of the rules of gotos.h allows; false when
  // none does.
  bool Structure(std::vector<StmtPtr>& items, size_t j) {
    const auto at = [&](size_t k) { return items.begin() + static_cast<std::ptrdiff_t>(k); };
    const std::string& label = marks_.labels.at(items[j].get());
    if (j > 0 && IsGoto(items[j - 1]) && TargetOf(items[j - 1]) == label) {  // `goto L; L:`
      --gotos_left_[label];
      items.erase(at(j - 1));
      return true;
    }
    if (j + 1 < items.size() && IsGoto(items[j + 1]) && TargetOf(items[j + 1]) != label) {  // `L: goto M;`
      const std::string target = TargetOf(items[j + 1]);
      redirects_[label] = target;
      gotos_left_[target] += std::exchange(gotos_left_[label], 0);
      items.erase(at(j));
      return true;
    }
    const int total = gotos_left_[label];
    if (total == 0) {
      items.erase(at(j));
      return true;
    }
    if (j > 0 && items[j - 1]->kind == StmtKind::kLoop) {  // `while (c) { ... goto L; ... } L:`: breaks
      if (CountGotos(items[j - 1]->body[0], label).first == total) {
        auto loop = std::make_shared<Stmt>(*items[j - 1]);
        loop->body[0] = GotosAs(loop->body[0], label, StmtKind::kBreak);
        items[j - 1] = loop;
        gotos_left_[label] = 0;
        items.erase(at(j));
        return true;
      }
    }
    size_t last = j;
    int outside = 0;  // all of them, or one is in a loop, or before the label
    for (size_t k = j + 1; k < items.size(); ++k) {
      const auto [out, in] = CountGotos(items[k], label);
      if (out + in > 0) last = k;
      outside += out;
    }
    if (outside != total) return false;
    for (size_t k = j + 1; k <= last; ++k) {
      if (Leaves(items[k])) return false;
    }
    std::vector<StmtPtr> body;
    for (size_t k = j + 1; k <= last; ++k) body.push_back(GotosAs(items[k], label, StmtKind::kContinue));
    body.push_back(MakeSimple(StmtKind::kBreak));
    gotos_left_[label] = 0;
    std::vector<StmtPtr> loop = SimpleLoop(std::move(body));
    std::vector<StmtPtr> out(items.begin(), at(j));
    out.insert(out.end(), loop.begin(), loop.end());
    out.insert(out.end(), at(last + 1), items.end());
    items = std::move(out);
    return true;
  }


  // `while (1) body` as the loop with a condition that it is, where one of the two shapes of gotos.h allows,
  // followed by what runs after it.
  std::vector<StmtPtr> SimpleLoop(std::vector<StmtPtr> body) const {
    for (size_t k = 0; k + 1 < body.size(); ++k) {  // what follows a statement that ends never runs
      if (!Ends(body[k])) continue;
      bool labelled = false;
      for (size_t m = k + 1; m < body.size(); ++m) labelled = labelled || HasMark(body[m]);
      if (!labelled) body.resize(k + 1);
    }
    if (body.size() > 1 && body.back()->kind == StmtKind::kContinue) body.pop_back();
    const auto forever = [](std::vector<StmtPtr> b) {
      return std::vector<StmtPtr>{MakeLoop(MakeConst(1), MakeBlock(std::move(b)))};
    };
    if (body.empty() || body[0]->kind != StmtKind::kIf || !Empty(body[0]->body[1])) return forever(body);
    const StmtPtr& test = body[0];
    std::vector<StmtPtr> then_items = Flatten(test->body[0]);
    std::vector<StmtPtr> rest(body.begin() + 1, body.end());
    // `if (c) { B continue; } E break;`: while (c) B, then E.
    if (!then_items.empty() && then_items.back()->kind == StmtKind::kContinue) {
      then_items.pop_back();
      const bool exits = !rest.empty() && rest.back()->kind == StmtKind::kBreak;
      if (exits) rest.pop_back();
      bool rest_stays = exits || (!rest.empty() && Ends(rest.back()));
      for (const auto& s : rest) rest_stays = rest_stays && !Leaves(s);
      bool body_stays = true;
      for (const auto& s : then_items) body_stays = body_stays && !LeavesBy(s, StmtKind::kBreak);
      if (rest_stays && body_stays) {
        std::vector<StmtPtr> out{MakeLoop(test->cond, MakeBlock(std::move(then_items)))};
        out.insert(out.end(), rest.begin(), rest.end());
        return out;
      }
      return forever(body);
    }
    // `if (c) { E break; } B` (E may end otherwise: return): while (!c) B, then E.
    if (Ends(test->body[0]) && !then_items.empty()) {
      const bool exits = then_items.back()->kind == StmtKind::kBreak;
      if (exits) then_items.pop_back();
      bool exit_stays = true;
      for (const auto& s : then_items) exit_stays = exit_stays && !Leaves(s);
      bool body_stays = true;
      for (const auto& s : rest) body_stays = body_stays && !LeavesBy(s, StmtKind::kBreak);
      if (exit_stays && body_stays) {
        std::vector<StmtPtr> out{MakeLoop(MakeNot(test->cond), MakeBlock(std::move(rest)))};
        out.insert(out.end(), then_items.begin(), then_items.end());
        return out;
      }
    }
    return forever(body);
  }

  // Step 3: the basic blocks of the statements from the first that holds a mark on, run by a dispatch loop.
  struct Block {
    std::vector<StmtPtr> statements;  // none holds a mark or leaves an enclosing loop
    // kExit: control leaves the function body; kStop: the last statement returns or ends the run.
    enum class End { kExit, kStop, kJump, kBranch } end = End::kExit;
    ExprPtr cond;                     // kBranch
    int next = -1;                    // kJump, and kBranch when cond holds
    int other = -1;                   // kBranch when it does not
  };

  int NewBlock() {
    blocks_.emplace_back();
    return static_cast<int>(blocks_.size()) - 1;
  }

  int LabelBlock(const std::string& label) {
    const auto it = label_blocks_.find(label);
    if (it != label_blocks_.end()) return it->second;
    return label_blocks_[label] = NewBlock();
  }

  // Ends the current block with a jump to b, or a branch on cond; a new block is current.
  void JumpTo(int b, int next_current = -1) {
    blocks_[current_].end = Block::End::kJump;
    blocks_[current_].next = b;
    current_ = next_current >= 0 ? next_current : NewBlock();
  }

  // Ends block b with a branch on cond (a jump where cond is a constant).
  void Branch(int b, const ExprPtr& cond, int then_block, int else_block) {
    Block& test = blocks_[b];
    const std::optional<Int128> known = FoldConstant(cond);
    test.end = known ? Block::End::kJump : Block::End::kBranch;
    test.cond = cond;
    test.next = known && *known == 0 ? else_block : then_block;
    test.other = else_block;
  }

  // Adds s to the blocks, from the current one.
  void Flow(const StmtPtr& s) {
    if (IsLabel(s)) {
      const int b = LabelBlock(marks_.labels.at(s.get()));
      JumpTo(b, b);
      return;
    }
    if (IsGoto(s)) {
      JumpTo(LabelBlock(TargetOf(s)));
      return;
    }
    if (!HasMark(s, true) && !Leaves(s)) {
      if (Flatten(s).empty()) return;
      blocks_[current_].statements.push_back(s);
      if (Ends(s)) {  // what follows is reached only by a label
        blocks_[current_].end = Block::End::kStop;
        current_ = NewBlock();
      }
      return;
    }
    switch (s->kind) {
      case StmtKind::kBlock:
        for (const auto& b : s->body) Flow(b);
        return;
      case StmtKind::kIf: {
        const int then_block = NewBlock(), else_block = NewBlock(), join = NewBlock();
        Branch(current_, s->cond, then_block, else_block);
        current_ = then_block;
        Flow(s->body[0]);
        JumpTo(join, else_block);
        Flow(s->body[1]);
        JumpTo(join, join);
        return;
      }
      case StmtKind::kLoop: {
        const int head = NewBlock(), body = NewBlock(), step = NewBlock(), exit = NewBlock();
        JumpTo(s->do_while ? body : head, head);
        Branch(head, s->cond, body, exit);
        loops_.push_back({exit, step});
        current_ = body;
        Flow(s->body[0]);
        JumpTo(step, step);
        loops_.pop_back();
        if (s->step) Flow(s->step);
        JumpTo(head, exit);
        return;
      }
      case StmtKind::kBreak:
      case StmtKind::kContinue:
        if (loops_.empty()) {  // outside any loop it leaves the body, as the interpreter has it
          current_ = NewBlock();
          return;
        }
        JumpTo(s->kind == StmtKind::kBreak ? loops_.back().first : loops_.back().second);
        return;
      default:
        blocks_[current_].statements.push_back(s);
    }
  }

  // The block that b's run really begins: past blocks that only jump on.
  int Target(int b) const {
    std::set<int> seen;
    while (blocks_[b].statements.empty() && blocks_[b].end == Block::End::kJump && seen.insert(b).second) {
      b = blocks_[b].next;
    }
    return b;
  }

  StmtPtr Dispatch(const StmtPtr& s) {
    std::vector<StmtPtr> items = Flatten(s), out;
    size_t first = 0;
    while (first < items.size() && !HasMark(items[first], true) && !Leaves(items[first])) {
      out.push_back(items[first++]);
    }
    current_ = NewBlock();
    for (size_t k = first; k < items.size(); ++k) Flow(items[k]);  // the last block falls off the end: kExit
    // Threads jumps through empty blocks.
    const auto jumps = [](const Block& b) { return b.end == Block::End::kJump || b.end == Block::End::kBranch; };
    for (Block& b : blocks_) {
      if (jumps(b)) b.next = Target(b.next);
      if (b.end == Block::End::kBranch) b.other = Target(b.other);
    }
    const int entry = Target(0);
    const auto successors = [&](const Block& b) {
      return std::vector<int>{jumps(b) ? b.next : -1, b.end == Block::End::kBranch ? b.other : -1};
    };
    // The blocks control reaches, and how many jumps of those reach each (the entry counts one more).
    std::vector<int> preds(blocks_.size(), 0);
    std::vector<int> stack{entry};
    preds[entry] = 1;
    std::vector<bool> reached(blocks_.size(), false);
    reached[entry] = true;
    while (!stack.empty()) {
      const Block& b = blocks_[stack.back()];
      stack.pop_back();
      for (int n : successors(b)) {
        if (n < 0) continue;
        ++preds[n];
        if (!reached[n]) {
          reached[n] = true;
          stack.push_back(n);
        }
      }
    }
    // A block that one jump alone reaches runs in that jump's place, so that the source's branches come out
    // as a tree of ifs; the others are the arms of the dispatch, numbered in the order of the source, each
    // run as `if (pc == k)`. (A cycle of blocks enters at a block that two jumps reach, or at the entry, which
    // has an arm: the runs in place end.) A block that would run in place under more than kMaxRunInPlaceDepth
    // branches gets an arm too: a flat list of `if (c) goto L;` would otherwise nest as deep as it is long.
    std::vector<bool> armed(blocks_.size(), false);
    std::vector<std::pair<int, int>> runs;  // (block, branches it runs in place under)
    for (size_t k = 0; k < blocks_.size(); ++k) {
      armed[k] = reached[k] && (preds[k] != 1 || static_cast<int>(k) == entry);
      if (armed[k]) runs.push_back({static_cast<int>(k), 0});
    }
    while (!runs.empty()) {
      const auto [k, depth] = runs.back();
      runs.pop_back();
      const Block& b = blocks_[k];
      const int inner = depth + (b.end == Block::End::kBranch);
      for (int n : successors(b)) {
        if (n < 0 || armed[n]) continue;
        armed[n] = inner > kMaxRunInPlaceDepth;
        runs.push_back({n, armed[n] ? 0 : inner});
      }
    }
    std::vector<int> number(blocks_.size(), -1), order;
    for (size_t k = 0; k < blocks_.size(); ++k) {
      if (armed[k]) {
        number[k] = static_cast<int>(order.size());
        order.push_back(static_cast<int>(k));
      }
    }
    const ExprPtr pc = MakeVar(prog_.AddVar("pc", kInt), kInt);
    prog_.dispatch_vars.insert(pc->name);
    out.push_back(MakeAssign(pc, MakeConst(number[entry])));
    std::vector<StmtPtr> arms;
    for (int k : order) {
      arms.push_back(MakeIf(MakeBinary("==", pc, MakeConst(number[k]), kInt), MakeBlock(RunBlock(k, number, pc))));
    }
    out.push_back(MakeLoop(MakeConst(1), MakeBlock(std::move(arms))));
    return MakeBlock(std::move(out));
  }

  // The statements of block k, then where it goes: the next arm of the dispatch (`pc = j; continue;`), or the
  // statements of a block without an arm in place.
  std::vector<StmtPtr> RunBlock(int k, const std::vector<int>& number, const ExprPtr& pc) const {
    const Block& b = blocks_[k];
    std::vector<StmtPtr> out = b.statements;
    const auto go = [&](int j) -> std::vector<StmtPtr> {
      if (number[j] < 0) return RunBlock(j, number, pc);
      return {MakeAssign(pc, MakeConst(number[j])), MakeSimple(StmtKind::kContinue)};
    };
    switch (b.end) {
      case Block::End::kExit:
        out.push_back(MakeSimple(StmtKind::kBreak));
        break;
      case Block::End::kStop:
        break;
      case Block::End::kJump: {
        std::vector<StmtPtr> then = go(b.next);
        out.insert(out.end(), then.begin(), then.end());
        break;
      }
      case Block::End::kBranch:
        out.push_back(MakeIf(b.cond, MakeBlock(go(b.next)), MakeBlock(go(b.other))));
        break;
    }
    return out;
  }

  const JumpMarks& marks_;
  Program& prog_;
  std::map<std::string, int> gotos_left_;  // gotos of each label not yet made structured
  std::map<std::string, std::string> redirects_;  // a label's gotos go on to another (`L: goto M;`)
  std::map<std::string, std::vector<StmtPtr>> exits_;  // labels whose gotos run a copy of these (NoteExits)
  std::vector<Block> blocks_;
  int current_ = -1;
  std::map<std::string, int> label_blocks_;
  std::vector<std::pair<int, int>> loops_;  // the flattened loops around: (break's block, continue's block)
};

}  // namespace

StmtPtr LowerGotos(const StmtPtr& body, const JumpMarks& marks, Program& prog) {
  return Lowering(marks, prog).Run(body);
}

}  // namespace fusion
