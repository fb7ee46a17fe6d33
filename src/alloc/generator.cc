#include "alloc/generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "common/error.h"
#include "common/rng.h"

namespace alloc {
namespace {

constexpr Bytes kKiB = 1024;
constexpr Bytes kMiB = 1024 * kKiB;
constexpr Bytes kGiB = 1024 * kMiB;
constexpr Bytes kCudaGranule = 512;  // tensor storages come in multiples of this (the CUDA allocator's rounding)
constexpr TimeValue kMaxLifetime = 100;  // uniform and heavy: lifetimes are 1 .. min(n, 100) steps

// Uniform integer in [lo, hi].
int64_t Between(common::Rng& rng, int64_t lo, int64_t hi) {
  return lo + static_cast<int64_t>(rng.Below(static_cast<uint64_t>(hi - lo + 1)));
}

// A standard normal deviate by the Box-Muller transform (one of the pair; the other is dropped).
double Normal(common::Rng& rng) {
  const double u1 = 1.0 - rng.Uniform();  // in (0, 1], so the logarithm is finite
  const double u2 = rng.Uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

// uniform and heavy: n buffers with uniform start times over n steps and uniform lifetimes; the
// families differ only in the size distribution `size_of`.
template <typename SizeOf>
Problem Scattered(const GeneratorOptions& options, SizeOf size_of) {
  common::Rng rng(options.seed);
  Problem problem;
  problem.buffers.reserve(static_cast<size_t>(options.n));
  const TimeValue max_lifetime = std::min<TimeValue>(options.n, kMaxLifetime);
  for (int64_t i = 0; i < options.n; ++i) {
    Buffer b;
    b.id = fmt::format("b{}", i);
    b.lower = Between(rng, 0, options.n - 1);
    b.upper = b.lower + Between(rng, 1, max_lifetime);
    b.size = size_of(rng);
    problem.buffers.push_back(std::move(b));
  }
  return problem;
}

// Layers of the training family: which keep their activation through the forward pass when
// recomputation is on (the last layer of each segment of `segment` layers, and the last layer).
struct Checkpointing {
  int64_t layers = 0;
  int64_t segment = 1;
  bool recompute = false;

  bool Kept(int64_t l) const { return !recompute || l % segment == segment - 1 || l == layers - 1; }
  // Buffers the pattern has: six per layer (weight, activation, two workspaces, two gradients) plus one
  // recomputed activation per layer that is not kept.
  int64_t Buffers() const {
    int64_t count = 6 * layers;
    for (int64_t l = 0; l < layers; ++l) count += Kept(l) ? 0 : 1;
    return count;
  }
};

// Checkpointing for `layers` layers: segments of about sqrt(layers) layers, as Chen et al.'s sqrt(N)
// checkpointing does.
Checkpointing MakeCheckpointing(int64_t layers, bool recompute) {
  Checkpointing c;
  c.layers = layers;
  c.recompute = recompute;
  c.segment = std::max<int64_t>(1, std::llround(std::sqrt(static_cast<double>(layers))));
  return c;
}

// training: a forward pass allocating one activation per layer, then a backward pass in reverse that
// frees them last-in first-out, with gradients, workspaces and parameters (see docs/generator.md).
Problem Training(const GeneratorOptions& options) {
  common::Rng rng(options.seed);
  // The most layers whose pattern fits in n buffers; the rest are short-lived temporaries.
  int64_t layers = 0;
  while (MakeCheckpointing(layers + 1, options.recompute).Buffers() <= options.n) ++layers;
  const Checkpointing ckpt = MakeCheckpointing(layers, options.recompute);

  Problem problem;
  problem.buffers.reserve(static_cast<size_t>(options.n));
  auto add = [&problem](std::string id, TimeValue lower, TimeValue upper, Bytes size) {
    problem.buffers.push_back(Buffer{std::move(id), lower, upper, size, 1, std::nullopt, 0});
    return problem.buffers.size() - 1;
  };
  auto workspace_size = [&rng] { return kCudaGranule * Between(rng, 1, 8192); };  // up to 4 MiB

  // Sizes: activations shrink by half per stage (a quarter of the layers each) as spatial size drops,
  // weights double as channels grow.
  const Bytes activation_base = kCudaGranule * Between(rng, 2048, 65536);  // 1 MiB .. 32 MiB
  std::vector<Bytes> activation(static_cast<size_t>(layers));
  std::vector<Bytes> weight(static_cast<size_t>(layers));
  for (int64_t l = 0; l < layers; ++l) {
    const int64_t stage = 4 * l / layers;
    activation[static_cast<size_t>(l)] =
        AlignUp(std::max(kCudaGranule, (activation_base >> stage) * Between(rng, 1, 4) / 2), kCudaGranule);
    weight[static_cast<size_t>(l)] = (kCudaGranule * Between(rng, 1, 2048)) << stage;
  }

  // Parameters live through the whole iteration; their upper is set once its length is known.
  std::vector<size_t> weight_index, gradient_index;
  for (int64_t l = 0; l < layers; ++l) weight_index.push_back(add(fmt::format("w{}", l), 0, 0, weight[static_cast<size_t>(l)]));

  TimeValue tick = 0;
  std::vector<size_t> kept(static_cast<size_t>(layers));  // activation buffer of each layer
  for (int64_t l = 0; l < layers; ++l) {
    const TimeValue t = tick++;
    // An activation not kept dies once the next layer has read it.
    kept[static_cast<size_t>(l)] = add(fmt::format("act{}", l), t, ckpt.Kept(l) ? 0 : t + 2, activation[static_cast<size_t>(l)]);
    add(fmt::format("ws{}.f", l), t, t + 1, workspace_size());
  }
  ++tick;  // the loss

  // Backward, one checkpoint segment at a time from the last: recompute the segment's dropped
  // activations, then run its layers' backward steps in reverse.
  std::vector<size_t> alive(static_cast<size_t>(layers));  // what layer l's backward step frees
  size_t pending_gradient = 0;                              // gradient waiting for the next backward step
  bool has_pending = false;
  for (int64_t first = (layers - 1) / ckpt.segment * ckpt.segment; first >= 0 && layers > 0; first -= ckpt.segment) {
    const int64_t last = std::min(first + ckpt.segment, layers) - 1;
    for (int64_t l = first; l <= last; ++l) {
      alive[static_cast<size_t>(l)] = kept[static_cast<size_t>(l)];
      if (!ckpt.Kept(l)) {
        alive[static_cast<size_t>(l)] = add(fmt::format("act{}.re", l), tick++, 0, activation[static_cast<size_t>(l)]);
      }
    }
    for (int64_t l = last; l >= first; --l) {
      const TimeValue b = tick++;
      if (has_pending) problem.buffers[pending_gradient].upper = b + 1;
      problem.buffers[alive[static_cast<size_t>(l)]].upper = b + 1;
      add(fmt::format("ws{}.b", l), b, b + 1, workspace_size());
      gradient_index.push_back(add(fmt::format("gw{}", l), b, 0, weight[static_cast<size_t>(l)]));
      pending_gradient = add(fmt::format("gact{}", l), b, b + 1, activation[static_cast<size_t>(l)]);
      has_pending = true;
    }
  }
  // The optimizer step reads every parameter and weight gradient.
  const TimeValue end = tick + 1;
  for (size_t i : weight_index) problem.buffers[i].upper = end;
  for (size_t i : gradient_index) problem.buffers[i].upper = end;

  for (int64_t i = static_cast<int64_t>(problem.buffers.size()); i < options.n; ++i) {
    const TimeValue t = Between(rng, 0, end - 1);
    add(fmt::format("tmp{}", i), t, t + 1, workspace_size());
  }
  return problem;
}

}  // namespace

const std::vector<std::string>& GeneratorFamilies() {
  static const std::vector<std::string> families = {"uniform", "heavy", "training"};
  return families;
}

Problem Generate(const GeneratorOptions& options) {
  if (options.n < 1) throw common::InputError(fmt::format("-n: at least one buffer is needed, found {}", options.n));
  if (options.recompute && options.family != "training") {
    throw common::InputError("--recompute: only the training family has recomputation");
  }
  if (options.family == "uniform") {
    return Scattered(options, [](common::Rng& rng) { return Between(rng, 1, kMiB); });
  }
  if (options.family == "heavy") {
    // Log-normal: median 16 KiB, sigma 2 (95 % within 300 B .. 900 KiB), clamped to [1 B, 1 GiB].
    return Scattered(options, [](common::Rng& rng) {
      const double size = std::exp(std::log(16.0 * kKiB) + 2.0 * Normal(rng));
      return std::clamp<Bytes>(std::llround(std::min(size, static_cast<double>(kGiB))), 1, kGiB);
    });
  }
  if (options.family == "training") return Training(options);
  throw common::InputError(
      fmt::format("--family: unknown family '{}' (expected {})", options.family, fmt::join(GeneratorFamilies(), ", ")));
}

}  // namespace alloc
