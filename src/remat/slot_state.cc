#include "remat/slot_state.h"

#include <fmt/core.h>

#include <algorithm>
#include <tuple>

#include "common/annealing.h"

namespace remat {
namespace {

// Enough nop slots between two reference steps for many recomputations, rounded to a power of two so
// that the segment tree's root covers every slot.
int SlotCount(size_t steps) {
  size_t slots = 1024;
  while (slots < 16 * (steps + 1)) slots *= 2;
  return static_cast<int>(slots);
}

void InsertSorted(std::vector<int>& items, int item) {
  items.insert(std::lower_bound(items.begin(), items.end(), item), item);
}

void EraseSorted(std::vector<int>& items, int item) {
  items.erase(std::lower_bound(items.begin(), items.end(), item));
}

}  // namespace

SlotState::SlotState(const Graph& graph, const Sequence& initial, Bytes budget, MoveSet moves, bool stop_at_budget,
                     const OverBudget& over_budget, const ChainRule& chains)
    : over_budget_(over_budget),
      graph_(graph),
      slots_(SlotCount(initial.size())),
      slot_node_(slots_, -1),
      node_slots_(graph.nodes.size()),
      use_slots_(graph.values.size()),
      tree_(slots_, over_budget.soft_peak / static_cast<double>(std::max<Bytes>(budget, 1))),
      chains_(chains),
      moves_(moves),
      stop_at_budget_(stop_at_budget),
      budget_(std::max<Bytes>(budget, 1)),
      resident_(graph.ResidentBytes()) {
  for (int u = 0; u < static_cast<int>(graph.nodes.size()); ++u) {
    const Node& node = graph.nodes[u];
    min_cost_ += node.cost;
    if (!node.recomputable) continue;
    recomputable_.push_back(u);
    // A copy of a node whose outputs are aliased views (no memory of their own) cannot lower the peak: it
    // only lengthens its inputs' lives. Offered as moves, such free copies pile up by the thousand
    // (densenet121_bs32 with --views-alias: 6390 slices for 597 nodes); RefreshViews adds the copies a
    // schedule needs. The same holds for any node whose outputs hold no memory, but the rule stops at views
    // so that graphs without them (Moccasin's have a few empty outputs) keep their random stream.
    const bool aliased_views_only = std::all_of(node.outputs.begin(), node.outputs.end(), [&](int v) {
      return graph.values[v].view_of >= 0 && graph.values[v].size == 0;
    });
    if (!aliased_views_only || node.outputs.empty()) addable_.push_back(u);
  }
  chainable_.assign(graph.nodes.size(), 0);
  for (int u : addable_) {
    chainable_[u] = !chains.regenerable_only || graph.Regenerable(graph.nodes[u].inputs, graph.nodes[u].outputs);
  }
  cost_offset_ = 1e-9 * std::max<Cost>(min_cost_, 1);
  // Node i of k at slot (i + 1)·T/(k + 1): evenly spread, never in the last slot (which stands for "the end"
  // of a graph output's life).
  const int64_t k = static_cast<int64_t>(initial.size());
  for (int64_t i = 0; i < k; ++i) AddStep(initial[i], static_cast<int>((i + 1) * slots_ / (k + 1)));
  objective_ = CurrentObjective();
  best_slots_ = slot_node_;
}

int SlotState::LastUseBetween(int value, int after, int before) const {
  const std::vector<int>& uses = use_slots_[value];
  const auto it = std::lower_bound(uses.begin(), uses.end(), before);
  if (it != uses.begin() && *(it - 1) > after) return *(it - 1);
  return after;
}

int SlotState::InstanceEnd(int value, int production, int next) const {
  if (next < 0 && graph_.values[value].graph_output) return slots_ - 1;
  return LastUseBetween(value, production, next < 0 ? slots_ : next);
}

int SlotState::EndOfInstanceBefore(int value, int slot) const {
  const std::vector<int>& productions = node_slots_[graph_.values[value].producer];
  const auto it = std::lower_bound(productions.begin(), productions.end(), slot);
  if (it == productions.begin()) return -1;
  return InstanceEnd(value, *(it - 1), it == productions.end() ? -1 : *it);
}

void SlotState::AddUse(int value, int slot) {
  const Bytes size = graph_.values[value].size;
  if (size != 0) {
    const int end = EndOfInstanceBefore(value, slot);
    if (slot > end) tree_.Add(end + 1, slot, size);
  }
  InsertSorted(use_slots_[value], slot);
}

void SlotState::RemoveUse(int value, int slot) {
  const Bytes size = graph_.values[value].size;
  if (size == 0) {
    EraseSorted(use_slots_[value], slot);
    return;
  }
  const std::vector<int>& productions = node_slots_[graph_.values[value].producer];
  const auto it = std::lower_bound(productions.begin(), productions.end(), slot);
  const int next = it == productions.end() ? -1 : *it;
  const int production = *(it - 1);
  const int old_end = InstanceEnd(value, production, next);
  EraseSorted(use_slots_[value], slot);
  const int new_end = InstanceEnd(value, production, next);
  if (new_end < old_end) tree_.Add(new_end + 1, old_end, -size);
}

void SlotState::AddStep(int node, int slot) {
  const Node& n = graph_.nodes[node];
  slot_node_[slot] = node;
  cost_ += n.cost;
  if (n.workspace != 0) tree_.Add(slot, slot, n.workspace);
  for (int v : n.inputs) {
    if (!graph_.IsGraphInput(v)) AddUse(v, slot);
  }
  std::vector<int>& productions = node_slots_[node];
  const auto it = std::lower_bound(productions.begin(), productions.end(), slot);
  const int previous = it == productions.begin() ? -1 : *(it - 1);
  const int next = it == productions.end() ? -1 : *it;
  for (int w : n.outputs) {
    const Bytes size = graph_.values[w].size;
    if (size == 0) continue;
    // Before: [previous, end]. After: [previous, last use before slot] and [slot, end].
    const int end = previous < 0 ? -1 : InstanceEnd(w, previous, next);
    if (end > slot) {
      const int kept = LastUseBetween(w, previous, slot);
      if (kept + 1 <= slot - 1) tree_.Add(kept + 1, slot - 1, -size);
    } else {
      // Nothing reads the new instance yet; only a graph output's last production lives on to the end.
      const bool to_end = next < 0 && graph_.values[w].graph_output;
      tree_.Add(slot, to_end ? slots_ - 1 : slot, size);
    }
  }
  productions.insert(it, slot);
}

void SlotState::RemoveSteps(const std::vector<std::pair<int, int>>& added) {
  for (auto it = added.rbegin(); it != added.rend(); ++it) RemoveStep(it->first, it->second);
}

void SlotState::RemoveStep(int node, int slot) {
  const Node& n = graph_.nodes[node];
  std::vector<int>& productions = node_slots_[node];
  const auto it = std::lower_bound(productions.begin(), productions.end(), slot);
  const int previous = it == productions.begin() ? -1 : *(it - 1);
  const int next = it + 1 == productions.end() ? -1 : *(it + 1);
  for (int w : n.outputs) {
    const Bytes size = graph_.values[w].size;
    if (size == 0) continue;
    // The inverse of AddStep: the removed instance merges into the previous one when it served a use.
    const int end = InstanceEnd(w, slot, next);
    if (previous >= 0 && end > slot) {
      const int kept = LastUseBetween(w, previous, slot);
      if (kept + 1 <= slot - 1) tree_.Add(kept + 1, slot - 1, size);
    } else {
      tree_.Add(slot, slot, -size);
    }
  }
  productions.erase(it);
  for (int v : n.inputs) {
    if (!graph_.IsGraphInput(v)) RemoveUse(v, slot);
  }
  if (n.workspace != 0) tree_.Add(slot, slot, -n.workspace);
  cost_ -= n.cost;
  slot_node_[slot] = -1;
}

int SlotState::InputsReadyAfter(int node) const {
  int ready = -1;
  for (int v : graph_.nodes[node].inputs) {
    const int producer = graph_.values[v].producer;
    if (producer >= 0) ready = std::max(ready, node_slots_[producer].front());
  }
  return ready;
}

int SlotState::FirstUse(int node) const {
  int first = slots_;
  for (int w : graph_.nodes[node].outputs) {
    if (!use_slots_[w].empty()) first = std::min(first, use_slots_[w].front());
  }
  return first;
}

int SlotState::LastUsefulSlot(int node) const {
  int last = -1;
  for (int w : graph_.nodes[node].outputs) {
    if (graph_.values[w].graph_output || use_slots_[w].empty()) return slots_ - 2;
    last = std::max(last, use_slots_[w].back() - 1);
  }
  return last < 0 ? slots_ - 2 : last;
}

void SlotState::AddChain(int node, int slot, int depth, std::vector<std::pair<int, int>>& added, int after,
                         ChainJoin join) {
  AddStep(node, slot);
  added.emplace_back(node, slot);
  if (depth == 0) return;
  for (int v : graph_.nodes[node].inputs) {
    const int producer = graph_.values[v].producer;
    if (graph_.values[v].size == 0 || producer < 0 || !chainable_[producer]) continue;
    // Only where the read at `slot` is now the end of the instance's life, i.e. lengthened it.
    if (EndOfInstanceBefore(v, slot) != slot) continue;
    const int s = FreeSlotBefore(producer, slot, after);
    if (s < 0) continue;
    const bool lookahead = join == ChainJoin::kLookahead || chains_.lookahead;
    if (join == ChainJoin::kEveryProducer || RegeneratesAt(producer, s, lookahead ? depth - 1 : 0)) {
      AddChain(producer, s, depth - 1, added, after, join);
    }
  }
}

int SlotState::FreeSlotBefore(int node, int slot, int after) const {
  constexpr int kSearch = 64;  // free slots are dense: 16 per reference step
  const int low = std::max({InputsReadyAfter(node) + 1, slot - kSearch, after + 1});
  for (int s = slot - 1; s >= low; --s) {
    if (slot_node_[s] < 0) return s;
  }
  return -1;
}

Bytes SlotState::LengthenedAt(int node, int slot, int depth, int& visits) const {
  Bytes lengthened = 0;
  for (int v : graph_.nodes[node].inputs) {
    const Bytes size = graph_.values[v].size;
    if (size == 0 || graph_.IsGraphInput(v) || EndOfInstanceBefore(v, slot) >= slot) continue;
    Bytes counted = size;
    const int producer = graph_.values[v].producer;
    if (depth > 0 && visits > 0 && producer >= 0 && chainable_[producer]) {
      --visits;
      const int s = FreeSlotBefore(producer, slot);
      if (s >= 0) counted = std::min(counted, LengthenedAt(producer, s, depth - 1, visits));
    }
    lengthened += counted;
  }
  return lengthened;
}

bool SlotState::RegeneratesAt(int node, int slot, int depth) const {
  // The producers behind a node with many inputs multiply level by level: on Moccasin's random layered graphs
  // an unbounded look 9 levels back took moves from over 1 M/s to under 0.1 M/s. At 256 RL n250 at 70 % takes
  // twice the time of the plain rule; at 32 resnet18_bs64 no longer met 50 % (docs/remat.md).
  constexpr int kMostProducersLookedAt = 256;
  int visits = kMostProducersLookedAt;
  return LengthenedAt(node, slot, depth, visits) <= graph_.TotalBytes(graph_.nodes[node].outputs);
}

void SlotState::Move(double temperature, common::Rng& rng) {
  const double before = objective_;
  const int kind = moves_ == MoveSet::kReorderOnly ? 2 : static_cast<int>(rng.Below(3));
  // The Metropolis draw comes first, so that a move whose least possible worsening it already refuses is
  // refused before it is applied (and undone).
  const double draw = rng.Uniform();
  const auto accepts = [&](double delta) {
    return delta <= 0 || (temperature > 0 && draw < std::exp(-delta / temperature));
  };
  int node = 0;
  int from = -1;  // slot removed (remove, move)
  int to = -1;    // slot added (add, move)
  if (kind == 0) {  // add a recomputation
    if (addable_.empty()) return;
    node = addable_[rng.Below(addable_.size())];
    const int low = InputsReadyAfter(node) + 1;
    const int high = LastUsefulSlot(node);
    if (high < low) return;
    to = low + static_cast<int>(rng.Below(high - low + 1));
    if (slot_node_[to] >= 0) return;
    // Within budget, an added step costs its cost at least: the objective cannot fall below budget × C.
    if (Peak() <= budget_ && !accepts(ObjectiveOf(0, cost_ + graph_.nodes[node].cost) - before)) return;
    chain_.clear();
    AddChain(node, to, rng.Below(2) ? chains_.depth : 0, chain_);
  } else if (kind == 1) {  // remove a copy
    if (recomputable_.empty()) return;
    node = recomputable_[rng.Below(recomputable_.size())];
    const std::vector<int>& copies = node_slots_[node];
    if (copies.size() < 2) return;
    from = copies[rng.Below(copies.size())];
    const int first_after = from == copies.front() ? copies[1] : copies.front();
    if (first_after >= FirstUse(node)) return;
    RemoveStep(node, from);
  } else {  // move a step to a nop slot
    node = static_cast<int>(rng.Below(graph_.nodes.size()));
    const std::vector<int>& copies = node_slots_[node];
    from = copies[rng.Below(copies.size())];
    const int others_first = copies.size() < 2 ? slots_ : (from == copies.front() ? copies[1] : copies.front());
    const int first_use = FirstUse(node);
    const int low = InputsReadyAfter(node) + 1;
    const int high = others_first < first_use ? LastUsefulSlot(node) : std::min(first_use - 1, slots_ - 2);
    if (high < low) return;
    to = low + static_cast<int>(rng.Below(high - low + 1));
    if (slot_node_[to] >= 0) return;
    AddStep(node, to);
    RemoveStep(node, from);
  }
  const double after = CurrentObjective();
  if (!accepts(after - before)) {
    if (kind == 0) {
      RemoveSteps(chain_);
    }
    if (from >= 0) AddStep(node, from);
    if (kind != 0 && to >= 0) RemoveStep(node, to);
    return;
  }
  ++accepted_;
  objective_ = after;
  if (!journal_overflowed_) {
    if (kind == 0) {
      for (const auto& [u, slot] : chain_) journal_.push_back({u, -1, slot});
    } else {
      journal_.push_back({node, from, to});
    }
    // A long walk away from the best: copying the slots at the next KeepBest is cheaper than replaying.
    if (journal_.size() > std::max<size_t>(1024, static_cast<size_t>(slots_) / 4)) {
      journal_.clear();
      journal_overflowed_ = true;
    }
  }
}

void SlotState::KeepBest() {
  if (journal_overflowed_) {
    best_slots_ = slot_node_;
  } else {
    for (const Change& change : journal_) {
      if (change.from >= 0) best_slots_[change.from] = -1;
      if (change.to >= 0) best_slots_[change.to] = change.node;
    }
  }
  journal_.clear();
  journal_overflowed_ = false;
  best_peak_ = Peak();
  best_cost_ = cost_;
}

bool SlotState::TargetReached(double) const {
  if (best_peak_ > budget_) return false;
  return stop_at_budget_ || best_cost_ <= min_cost_ * (1 + 1e-12);
}

std::string SlotState::Describe(double) const {
  return fmt::format("best peak {} (budget {}), cost +{:.2f}%", best_peak_, budget_,
                     min_cost_ > 0 ? 100.0 * (best_cost_ - min_cost_) / min_cost_ : 0.0);
}

namespace {

Sequence Steps(const std::vector<int>& slots) {
  Sequence sequence;
  for (int node : slots) {
    if (node >= 0) sequence.push_back(node);
  }
  return sequence;
}

}  // namespace

int SlotState::RecomputePastPeak() {
  // Chains past the peak run in the free slots before a read, 16 per reference step, so they rarely reach
  // this depth; the bounds keep the pass a small share of a round (each candidate is a chain added and
  // perhaps taken back).
  constexpr int kDepth = 16;
  constexpr int kMostChains = 64;
  constexpr size_t kMostCandidates = 64;
  const Bytes start_peak = Peak();
  std::vector<std::pair<int, int>> kept;  // (node, slot) of the steps of the chains kept
  // (size, value, slot to make it before) of the values held across the peak for a read after it, and of the
  // graph outputs made before it
  std::vector<std::tuple<Bytes, int, int>> held;
  std::vector<std::tuple<Bytes, int, int>> outputs;
  int chains = 0;
  while (chains < kMostChains && Peak() > budget_) {
    const Bytes peak = Peak();
    const int at = tree_.ArgMax();
    // A graph output is made again as if read 64 slots after the peak (the chain's copies take the free slots
    // between): its earlier instance then ends at its last read.
    const int output_read = std::min(at + 64, slots_ - 1);
    held.clear();
    outputs.clear();
    for (int v = 0; v < static_cast<int>(graph_.values.size()); ++v) {
      const Value& value = graph_.values[v];
      if (value.size == 0 || value.producer < 0 || !chainable_[value.producer]) continue;
      const std::vector<int>& uses = use_slots_[v];
      const int end = EndOfInstanceBefore(v, at);
      if (end <= at || std::binary_search(uses.begin(), uses.end(), at)) continue;
      const auto next = std::upper_bound(uses.begin(), uses.end(), at);
      if (next != uses.end()) {
        held.emplace_back(value.size, v, *next);
      } else if (end == slots_ - 1) {
        outputs.emplace_back(value.size, v, output_read);
      }
    }
    // Each candidate's chain is tried and taken back; the one that lowers the peak most is made again. At an
    // equal peak, fewer slots near it: the next chain may lower the peak where this one could not.
    std::tuple<Bytes, double, Cost> best{peak, SoftPeak() - 1e-9 * static_cast<double>(peak), cost_};
    int best_value = -1;
    int best_slot = -1;
    ChainJoin best_join = ChainJoin::kEveryProducer;
    const auto try_candidates = [&](std::vector<std::tuple<Bytes, int, int>>& candidates, ChainJoin join) {
      std::sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
        // Largest first, then by value; the slot follows from the value.
        return std::pair(-std::get<0>(a), std::get<1>(a)) < std::pair(-std::get<0>(b), std::get<1>(b));
      });
      candidates.resize(std::min(candidates.size(), kMostCandidates));
      for (const auto& [size, v, read] : candidates) {
        const int s = FreeSlotBefore(graph_.values[v].producer, read, at);
        if (s < 0) continue;
        chain_.clear();
        AddChain(graph_.values[v].producer, s, kDepth, chain_, at, join);
        // Below the budget a lower peak buys nothing: the cheapest chain that meets it.
        const bool met = Peak() <= budget_;
        const std::tuple<Bytes, double, Cost> result{met ? budget_ : Peak(), met ? 0.0 : SoftPeak(), cost_};
        if (result < best) {
          best = result;
          best_value = v;
          best_slot = s;
          best_join = join;
        }
        RemoveSteps(chain_);
      }
    };
    // A value read after the peak must be made again for that read, whatever its chain lengthens: every
    // producer joins. A graph output is made again only to end its earlier instance, which pays only where its
    // chain keeps less alive across the peak than the output frees: producers join by the lookahead's rule
    // (resnet18_bs64 at 50 %: two of layer4's weight gradients, 9 MiB each, made again after the stem's
    // batch-norm backward from 6 MiB kept across it). The outputs come second, where no held value's chain
    // helps: taken in one list with the held values, their chains led the pass to higher peaks at more cost on
    // other graphs (resnet18_bs8 and resnet50_bs32 at 25 %).
    try_candidates(held, ChainJoin::kEveryProducer);
    if (best_value < 0) try_candidates(outputs, ChainJoin::kLookahead);
    if (best_value < 0) break;
    chain_.clear();
    AddChain(graph_.values[best_value].producer, best_slot, kDepth, chain_, at, best_join);
    kept.insert(kept.end(), chain_.begin(), chain_.end());
    ++chains;
  }
  // Chains that lowered only the soft peak cost compute for nothing.
  if (Peak() == start_peak) {
    RemoveSteps(kept);
    chains = 0;
  }
  // KeepBest replays the journal of accepted moves; these steps are not in it.
  if (chains > 0) journal_overflowed_ = true;
  objective_ = CurrentObjective();
  return chains;
}

int SlotState::PruneCopies(Bytes limit) {
  std::vector<std::pair<int, int>> copies;  // (node, slot)
  for (int u : recomputable_) {
    if (node_slots_[u].size() < 2) continue;
    for (int slot : node_slots_[u]) copies.emplace_back(u, slot);
  }
  std::sort(copies.begin(), copies.end(), [&](const auto& a, const auto& b) {
    const Cost ca = graph_.nodes[a.first].cost;
    const Cost cb = graph_.nodes[b.first].cost;
    return ca != cb ? ca > cb : a.second < b.second;
  });
  int removed = 0;
  for (const auto& [node, slot] : copies) {
    const std::vector<int>& at = node_slots_[node];
    if (at.size() < 2) continue;
    // The same rule as the remove move: what is left must still come before the first use.
    const int first_after = slot == at.front() ? at[1] : at.front();
    if (first_after >= FirstUse(node)) continue;
    RemoveStep(node, slot);
    if (Peak() > limit) {
      AddStep(node, slot);
      continue;
    }
    ++removed;
  }
  if (removed > 0) journal_overflowed_ = true;  // as in RecomputePastPeak
  objective_ = CurrentObjective();
  return removed;
}

Sequence SlotState::Current() const { return Steps(slot_node_); }

Sequence SlotState::Best() const { return Steps(best_slots_); }

}  // namespace remat
