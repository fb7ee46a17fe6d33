#include "alloc/generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "alloc/converter.h"
#include "common/error.h"

namespace alloc {
namespace {

GeneratorOptions Options(const std::string& family, int64_t n, uint64_t seed, bool recompute = false) {
  GeneratorOptions o;
  o.family = family;
  o.n = n;
  o.seed = seed;
  o.recompute = recompute;
  return o;
}

// The buffers of a problem by id.
std::map<std::string, Buffer> ById(const Problem& p) {
  std::map<std::string, Buffer> m;
  for (const Buffer& b : p.buffers) m.emplace(b.id, b);
  return m;
}

TEST(Generator, SameSeedSameProblemOtherSeedOtherProblem) {
  for (const std::string& family : GeneratorFamilies()) {
    const std::string a = FormatProblem(Generate(Options(family, 500, 7)));
    EXPECT_EQ(a, FormatProblem(Generate(Options(family, 500, 7)))) << family;
    EXPECT_NE(a, FormatProblem(Generate(Options(family, 500, 8)))) << family;
  }
}

TEST(Generator, EveryFamilyGivesNValidBuffersThatParseBack) {
  for (const std::string& family : GeneratorFamilies()) {
    for (bool recompute : {false, true}) {
      if (recompute && family != "training") continue;
      for (int64_t n : {1, 7, 100, 2345}) {
        const Problem p = Generate(Options(family, n, 3, recompute));
        ASSERT_EQ(static_cast<int64_t>(p.buffers.size()), n) << family;
        std::set<std::string> ids;
        for (const Buffer& b : p.buffers) {
          EXPECT_GE(b.lower, 0) << family << " " << b.id;
          EXPECT_GT(b.upper, b.lower) << family << " " << b.id;
          EXPECT_GT(b.size, 0) << family << " " << b.id;
          ids.insert(b.id);
        }
        EXPECT_EQ(ids.size(), p.buffers.size()) << family;
        const Problem back = ParseProblem("gen.csv", FormatProblem(p));
        ASSERT_EQ(back.buffers.size(), p.buffers.size());
        EXPECT_EQ(back.buffers.back().upper, p.buffers.back().upper);
      }
    }
  }
}

TEST(Generator, HeavySizesHaveALongTail) {
  // Log-normal with median 16 KiB and sigma 2: about 2.3 % of sizes lie beyond e^4 x 16 KiB (~900 KiB),
  // while uniform sizes never exceed 1 MiB.
  const Problem heavy = Generate(Options("heavy", 20000, 1));
  int64_t beyond_1mib = 0;
  int64_t below_1kib = 0;
  for (const Buffer& b : heavy.buffers) {
    beyond_1mib += b.size > (1 << 20) ? 1 : 0;
    below_1kib += b.size < 1024 ? 1 : 0;
  }
  EXPECT_GT(beyond_1mib, 200);
  EXPECT_GT(below_1kib, 200);
  for (const Buffer& b : Generate(Options("uniform", 20000, 1)).buffers) ASSERT_LE(b.size, 1 << 20);
}

TEST(Generator, TrainingActivationsAreFreedLastInFirstOut) {
  const Problem p = Generate(Options("training", 600, 5));
  const auto by_id = ById(p);
  int layers = 0;
  while (by_id.count("act" + std::to_string(layers))) ++layers;
  ASSERT_GT(layers, 10);
  for (int l = 0; l + 1 < layers; ++l) {
    const Buffer& outer = by_id.at("act" + std::to_string(l));
    const Buffer& inner = by_id.at("act" + std::to_string(l + 1));
    EXPECT_LT(outer.lower, inner.lower) << l;
    EXPECT_GT(outer.upper, inner.upper) << l;
  }
  // Parameters and their gradients stay alive to the end; every size is a multiple of 512 B.
  const TimeValue end = by_id.at("w0").upper;
  for (const Buffer& b : p.buffers) {
    EXPECT_EQ(b.size % 512, 0) << b.id;
    EXPECT_LE(b.upper, end) << b.id;
    const bool parameter = b.id[0] == 'w' && b.id.rfind("ws", 0) != 0;
    if (parameter || b.id.rfind("gw", 0) == 0) {
      EXPECT_EQ(b.upper, end) << b.id;
    }
  }
}

TEST(Generator, RecomputationDropsAndReallocatesActivations) {
  const Problem plain = Generate(Options("training", 600, 5));
  const Problem re = Generate(Options("training", 600, 5, true));
  const auto by_id = ById(re);
  int recomputed = 0;
  TimeValue forward_end = 0;
  for (const Buffer& b : re.buffers) {
    if (b.id.rfind("ws", 0) == 0 && b.id.find(".f") != std::string::npos) forward_end = std::max(forward_end, b.upper);
  }
  for (const Buffer& b : re.buffers) {
    const size_t dot = b.id.find(".re");
    if (dot == std::string::npos) continue;
    ++recomputed;
    // The original activation died in the forward pass, right after the next layer read it; its copy is
    // made in the backward pass and has the same size.
    const Buffer& original = by_id.at(b.id.substr(0, dot));
    EXPECT_EQ(original.upper, original.lower + 2) << b.id;
    EXPECT_GE(b.lower, forward_end) << b.id;
    EXPECT_EQ(b.size, original.size) << b.id;
  }
  EXPECT_GT(recomputed, 10);
  // At the loss only the checkpoints (one per segment of about sqrt(layers) layers) are alive; without
  // recomputation every activation is.
  auto alive_activations_at_loss = [](const Problem& p, TimeValue loss) {
    int alive = 0;
    int layers = 0;
    for (const Buffer& b : p.buffers) {
      if (b.id.rfind("act", 0) != 0 || b.id.find(".re") != std::string::npos) continue;
      ++layers;
      alive += b.lower <= loss && loss < b.upper ? 1 : 0;
    }
    return std::make_pair(alive, layers);
  };
  const auto [kept, layers] = alive_activations_at_loss(re, forward_end);
  EXPECT_LT(3 * kept, layers);
  TimeValue plain_loss = 0;
  for (const Buffer& b : plain.buffers) plain_loss = std::max(plain_loss, b.id.find(".f") != std::string::npos ? b.upper : 0);
  const auto [all, plain_layers] = alive_activations_at_loss(plain, plain_loss);
  EXPECT_EQ(all, plain_layers);
}

TEST(Generator, RejectsBadOptions) {
  EXPECT_THROW(Generate(Options("gaussian", 10, 1)), common::InputError);
  EXPECT_THROW(Generate(Options("uniform", 0, 1)), common::InputError);
  EXPECT_THROW(Generate(Options("uniform", 10, 1, true)), common::InputError);
}

}  // namespace
}  // namespace alloc
