#include "alloc/annealing_planner.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace alloc {
namespace {

// Share of moves that take a buffer on a longest path.
constexpr double kCriticalShare = 0.7;

}  // namespace

DropOrderAnnealer::DropOrderAnnealer(const Problem& problem, const Solution& start, Bytes target_height)
    : problem_(problem), decoder_(problem), lower_bound_(PeakLoad(problem)), target_height_(target_height) {
  order_ = decoder_.free_buffers();
  std::stable_sort(order_.begin(), order_.end(),
                   [&](BufferIndex a, BufferIndex b) { return start.offsets[a] < start.offsets[b]; });
  layout_.offsets.assign(problem.buffers.size(), 0);
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    if (problem.buffers[i].fixed_offset) layout_.offsets[i] = *problem.buffers[i].fixed_offset;
  }
  decoder_.DecodeLayout(order_, layout_);
  Refresh();
  KeepBest();
}

void DropOrderAnnealer::Refresh() {
  Normalise();
  critical_.clear();
  for (BufferIndex b : order_) {
    if (layout_.offsets[b] + layout_.depth[b] == layout_.height) critical_.push_back(b);
  }
}

void DropOrderAnnealer::Move(double temperature, common::Rng& rng) {
  const size_t n = order_.size();
  if (n < 2) return;
  // Only buffers on a longest path can lower the height; the others are moved now and then so that the
  // order keeps changing around the critical paths.
  BufferIndex x;
  if (!critical_.empty() && rng.Uniform() < kCriticalShare) {
    x = critical_[rng.Below(critical_.size())];
  } else {
    x = order_[rng.Below(n)];
  }
  const size_t from = static_cast<size_t>(std::find(order_.begin(), order_.end(), x) - order_.begin());
  without_.assign(order_.begin(), order_.end());
  without_.erase(without_.begin() + static_cast<std::ptrdiff_t>(from));
  decoder_.RemoveFromLayout(without_, from, layout_);
  decoder_.ScoreFromLayout(without_, x, layout_, scores_);
  candidates_scored_ += n;

  // Heat-bath choice over positions: weight exp(-(e_j - e_min) / T). Positions more than ~40 T above the
  // minimum have weight below 1e-17 and are skipped.
  const auto& energy = scores_.through;
  const Bytes lowest = *std::min_element(energy.begin(), energy.end());
  const double cutoff = 40.0 * temperature;
  weights_.resize(energy.size());
  double total = 0;
  for (size_t j = 0; j < energy.size(); ++j) {
    const double excess = static_cast<double>(energy[j] - lowest);
    const double w = excess == 0 ? 1.0 : (excess > cutoff || temperature <= 0 ? 0.0 : std::exp(-excess / temperature));
    total += w;
    weights_[j] = total;
  }
  const double pick = rng.Uniform() * total;
  const size_t to = static_cast<size_t>(std::upper_bound(weights_.begin(), weights_.end(), pick) - weights_.begin());
  const size_t position = std::min(to, energy.size() - 1);

  without_.insert(without_.begin() + static_cast<std::ptrdiff_t>(position), x);
  order_.swap(without_);
  decoder_.InsertIntoLayout(order_, position, layout_);
  Refresh();
}

void DropOrderAnnealer::Normalise() {
  for (size_t k = 1; k < order_.size(); ++k) {
    for (size_t m = k; m > 0; --m) {
      const BufferIndex before = order_[m - 1];
      const BufferIndex after = order_[m];
      const Offset top_before = layout_.offsets[before] + problem_.buffers[before].size;
      const Offset top_after = layout_.offsets[after] + problem_.buffers[after].size;
      if (top_before <= top_after || decoder_.Overlap(before, after)) break;
      std::swap(order_[m - 1], order_[m]);
    }
  }
}

void DropOrderAnnealer::KeepBest() {
  best_offsets_ = layout_.offsets;
}

std::string DropOrderAnnealer::Describe(double best) const {
  return DescribeHeight(static_cast<Bytes>(best), lower_bound_);
}

Solution DropOrderAnnealer::BestSolution() const { return Solution{best_offsets_}; }

}  // namespace alloc
